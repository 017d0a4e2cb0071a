//! Browser-only DOM helpers: event streams that close with their owner, and focus handling for dialogs.

use leptos::{
    __reexports::send_wrapper::SendWrapper,
    wasm_bindgen::{JsCast, closure::Closure},
};

type Callbacks = (Closure<dyn FnMut(web_sys::MessageEvent)>, Closure<dyn FnMut(web_sys::Event)>);

/// An open event stream; dropping it closes the connection (browsers allow only a few per server).
pub struct Listening {
    source: SendWrapper<web_sys::EventSource>,
    /// The callbacks must live as long as the stream.
    _callbacks: SendWrapper<Callbacks>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.source.close();
    }
}

/// Listens to the named `events` of the stream at `url`; `on_data` gets the event's name and data. `on_error`
/// runs on every error, and learns whether the browser gave up (closed) or is retrying by itself.
pub fn listen(
    url: &str,
    events: &[&str],
    on_data: impl Fn(&str, String) + 'static,
    on_error: impl Fn(bool) + 'static,
) -> Option<Listening> {
    let source = web_sys::EventSource::new(url).ok()?;
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        if let Some(text) = ev.data().as_string() {
            on_data(&ev.type_(), text);
        }
    });
    let probe = source.clone();
    let on_err = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        on_error(probe.ready_state() == web_sys::EventSource::CLOSED);
    });
    for event in events {
        source.add_event_listener_with_callback(event, on_message.as_ref().unchecked_ref()).ok()?;
    }
    source.set_onerror(Some(on_err.as_ref().unchecked_ref()));
    Some(Listening { source: SendWrapper::new(source), _callbacks: SendWrapper::new((on_message, on_err)) })
}

const FOCUSABLE: &str = "button:not([disabled]), input:not([disabled]), select:not([disabled]), \
                         textarea:not([disabled]), a[href], [tabindex]:not([tabindex='-1'])";

fn focusables(root: &web_sys::Element) -> Vec<web_sys::HtmlElement> {
    let Ok(list) = root.query_selector_all(FOCUSABLE) else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)?.dyn_into::<web_sys::HtmlElement>().ok()).collect()
}

/// Moves focus into a dialog that has just opened.
pub fn focus_first(root: &web_sys::Element) {
    // The first field or toggle, else the first button, else the dialog itself.
    let all = focusables(root);
    let first = all.iter().find(|e| e.tag_name() == "INPUT").or(all.first());
    match first {
        Some(el) => {
            let _ = el.focus();
        }
        None => {
            if let Some(el) = root.dyn_ref::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        }
    }
}

/// Whether `root` is the last modal dialog in the document: dialogs open on top of one another, so the last is the
/// one the person sees and means.
pub fn is_topmost_modal(root: &web_sys::Element) -> bool {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return false };
    let Ok(list) = document.query_selector_all("[aria-modal='true']") else { return false };
    list.length()
        .checked_sub(1)
        .and_then(|last| list.item(last))
        .is_some_and(|last| last.is_same_node(Some(root.as_ref())))
}

/// Keeps Tab and Shift+Tab inside the dialog.
pub fn trap_tab(root: &web_sys::Element, ev: &web_sys::KeyboardEvent) {
    let all = focusables(root);
    let (Some(first), Some(last)) = (all.first(), all.last()) else {
        ev.prevent_default();
        return;
    };
    let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
    let on = |el: &web_sys::HtmlElement| active.as_ref().is_some_and(|a| a == el.unchecked_ref::<web_sys::Element>());
    let inside = active.as_ref().is_some_and(|a| root.contains(Some(a)));
    if ev.shift_key() && (on(first) || !inside) {
        ev.prevent_default();
        let _ = last.focus();
    } else if !ev.shift_key() && (on(last) || !inside) {
        ev.prevent_default();
        let _ = first.focus();
    }
}

/// What has focus now, to give it back when a dialog closes.
pub fn active_element() -> SendWrapper<Option<web_sys::HtmlElement>> {
    SendWrapper::new(
        web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.active_element())
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()),
    )
}

/// Gives focus back to what had it before a dialog opened.
pub fn restore_focus(previous: SendWrapper<Option<web_sys::HtmlElement>>) {
    if let Some(el) = previous.as_ref() {
        let _ = el.focus();
    }
}

/// Sets the tab's title. In the browser only: the title that says what the page shows changes with the live board,
/// and a reactive `<Title>` read on the server after its page's owner is gone panics (leptos_meta renders the head
/// last), so the server sends the app's name and the page sets the rest.
pub fn set_title(text: &str) {
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        document.set_title(text);
    }
}
