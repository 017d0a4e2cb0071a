use domain::actions::Availability;
use leptos::prelude::*;

use crate::i18n::{unavailable_text, use_i18n};

/// A button that is disabled with its reason as a tooltip, and in `data-reason` for the tests.
#[component]
pub fn ActionButton(
    label: String,
    testid: &'static str,
    availability: Signal<Availability>,
    on_click: Callback<()>,
) -> impl IntoView {
    let i18n = use_i18n();
    let reason = move || availability.get().err().map(|why| unavailable_text(i18n, &why));
    view! {
        <button
            type="button"
            class="action"
            data-testid=testid
            disabled=move || availability.get().is_err()
            title=reason
            data-reason=reason
            on:click=move |_| on_click.run(())
        >
            {label}
        </button>
    }
}
