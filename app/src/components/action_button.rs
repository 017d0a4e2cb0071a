use domain::actions::{Availability, Unavailable};
use leptos::prelude::*;

use crate::strings::{self, ActionStrings};

/// Why an action is not available, in words.
pub fn unavailable_text(a: &ActionStrings, why: &Unavailable) -> String {
    match why {
        Unavailable::AlreadyCordoned => a.already_cordoned.into(),
        Unavailable::NotCordoned => a.not_cordoned.into(),
        Unavailable::DrainRunning => a.drain_running.into(),
        Unavailable::Missing(p) => (a.missing_permission)(p),
        Unavailable::Checking => a.checking_permissions.into(),
    }
}

/// A button that is disabled with its reason as a tooltip, and in `data-reason` for the tests.
#[component]
pub fn ActionButton(
    label: &'static str,
    testid: &'static str,
    availability: Signal<Availability>,
    on_click: Callback<()>,
) -> impl IntoView {
    let a = strings::actions();
    let reason = move || availability.get().err().map(|why| unavailable_text(a, &why));
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
