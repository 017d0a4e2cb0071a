use leptos::prelude::*;

/// The outcome of the last action, announced to screen readers: (succeeded, message).
#[component]
pub fn Notice(notice: RwSignal<Option<(bool, String)>>) -> impl IntoView {
    view! {
        <p
            class=move || match notice.get() {
                Some((false, _)) => "notice error",
                _ => "notice",
            }
            role="status"
            aria-live="polite"
            data-testid="notice"
        >
            {move || notice.get().map(|(_, text)| text)}
        </p>
    }
}
