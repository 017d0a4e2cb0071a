use leptos::prelude::*;

use crate::i18n::{Locale, choose_language, language_name, t_string, use_i18n};

/// The header's language switcher: every language of the catalogue, each named in its own language. Choosing one
/// keeps it (a cookie the server reads before the browser's Accept-Language) and loads the page again in it.
#[component]
pub fn LanguageSwitcher() -> impl IntoView {
    let i18n = use_i18n();
    let current = i18n.get_locale_untracked();
    let options = <Locale as leptos_i18n::Locale>::get_all()
        .iter()
        .map(|&locale| {
            let tag = leptos_i18n::Locale::as_str(locale);
            view! { <option value=tag lang=tag selected=locale == current>{language_name(i18n, locale)}</option> }
        })
        .collect_view();
    view! {
        <select
            class="language"
            data-testid="language"
            autocomplete="off"
            aria-label=t_string!(i18n, language.label)
            on:change=move |ev| choose_language(&event_target_value(&ev))
        >
            {options}
        </select>
    }
}
