//! Which language a page is in, and how a person's choice is kept. The server renders in the language of the
//! `drainboard_locale` cookie when there is one, else the browser's Accept-Language (leptos_i18n reads both); the
//! browser hydrates in the language the server chose (`<html lang>`). Only a choice made in the header's switcher
//! writes the cookie, so a person who never chooses keeps following their browser's language.

use catalogue::Locale;
use leptos_i18n::context::CookieOptions;

use super::{I18n, t_string};

/// The cookie that keeps a chosen language.
pub const COOKIE: &str = "drainboard_locale";

/// How long a choice is kept: a year, since a language is a lasting preference.
#[cfg(feature = "hydrate")]
const KEPT_SECONDS: u32 = 365 * 24 * 3600;

/// The catalogue reads the cookie and never writes it: writing the language the browser asked for would pin it,
/// and a later change of the browser's language would then be ignored.
pub fn cookie_options() -> CookieOptions<Locale> {
    CookieOptions::default().path("/".to_string()).readonly(true)
}

/// A language's name in that language, so that a person who cannot read the page's finds theirs; the debug
/// builds' pseudo-locale by what it is.
pub fn language_name(i18n: I18n, locale: Locale) -> String {
    match leptos_i18n::Locale::as_str(locale) {
        "en" => t_string!(i18n, language.en).to_string(),
        "ja" => t_string!(i18n, language.ja).to_string(),
        _ => t_string!(i18n, language.pseudo).to_string(),
    }
}

/// Keeps `locale` (a tag such as `ja`) as the person's choice and loads the page again in it: a page's text is
/// rendered once, in one language, so a new page is how all of it changes.
pub fn choose_language(locale: &str) {
    #[cfg(feature = "hydrate")]
    {
        use leptos::prelude::{document, window};
        let Ok(locale) = locale.parse::<Locale>() else { return };
        let location = window().location();
        let secure = if location.protocol().is_ok_and(|p| p == "https:") { "; Secure" } else { "" };
        let cookie = format!("{COOKIE}={locale}; Path=/; Max-Age={KEPT_SECONDS}; SameSite=Lax{secure}");
        if js_sys::Reflect::set(&document(), &"cookie".into(), &cookie.into()).is_ok() {
            let _ = location.reload();
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = locale;
}
