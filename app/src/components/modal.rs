use leptos::prelude::*;

#[cfg(feature = "hydrate")]
use crate::live::dom;

/// A modal dialog: focus moves in and is trapped there, Escape (wherever focus is) or a click outside closes. Focus goes back to the
/// opener in the dialog host, because one dialog may open another.
#[component]
pub fn Modal(
    #[prop(into)] title: Signal<String>,
    testid: &'static str,
    #[prop(optional)] wide: bool,
    on_close: Callback<()>,
    children: Children,
) -> impl IntoView {
    let dialog_ref = NodeRef::<leptos::html::Div>::new();
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        if let Some(el) = dialog_ref.get() {
            // On the next frame: a dialog whose code loads on first use is mounted by its Suspense after this
            // runs, and an element not yet in the document cannot take focus.
            request_animation_frame(move || dom::focus_first(&el));
        }
    });
    // Escape must close the dialog even when focus has fallen out of it. A focused button that goes away (the
    // progress panel's Cancel, once the drain ends) leaves focus on the page's body, where the dialog's own
    // handler below never hears the key. The dialog's handler marks the keys it takes, so this one acts only on
    // the rest, and only for the topmost dialog: one press closes one dialog.
    #[cfg(feature = "hydrate")]
    {
        let handle = window_event_listener(leptos::ev::keydown, move |ev| {
            if ev.key() == "Escape"
                && !ev.default_prevented()
                && dialog_ref.get_untracked().is_some_and(|el| dom::is_topmost_modal(&el))
            {
                ev.prevent_default();
                on_close.run(());
            }
        });
        on_cleanup(move || handle.remove());
    }
    let title_id = format!("{testid}-title");
    let labelled_by = title_id.clone();
    view! {
        <div class="modal-backdrop" on:click=move |ev| {
            // A click on the backdrop itself (not inside the dialog) closes, as Escape does.
            if event_target::<leptos::web_sys::Element>(&ev).class_name() == "modal-backdrop" {
                on_close.run(());
            }
        }>
            <div
                class={if wide { "modal wide" } else { "modal" }}
                role="dialog"
                aria-modal="true"
                aria-labelledby=labelled_by
                data-testid=testid
                tabindex="-1"
                node_ref=dialog_ref
                on:keydown=move |ev| {
                    if ev.key() == "Escape" {
                        ev.prevent_default();
                        on_close.run(());
                    }
                    #[cfg(feature = "hydrate")]
                    if ev.key() == "Tab"
                        && let Some(el) = dialog_ref.get()
                    {
                        dom::trap_tab(&el, &ev);
                    }
                }
            >
                <h2 id=title_id class="modal-title">{title}</h2>
                {children()}
            </div>
        </div>
    }
}
