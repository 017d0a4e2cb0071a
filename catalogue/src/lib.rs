//! One message catalogue for everything the UI says, in English (`locales/en.json`) and Japanese
//! (`locales/ja.json`), compiled by `leptos_i18n` (with plural rules and named parameters) into the generated `i18n`
//! module. The app's components read it through [`use_i18n`] and `t_string!`. The build refuses a translation
//! whose messages, plural forms or parameters differ from English's (`keys.rs`).
//!
//! The locale comes from the language a person chose in the header (a cookie) or else the request's
//! Accept-Language on the server, and from `<html lang>` when the browser hydrates, so both render the same text.
//! Debug builds also carry `en-XA`, a pseudo-locale that wraps every message in `⟦…⟧` (see `build.rs`).
//!
//! It is a crate of its own because the generated code is large: a change to a component would otherwise compile
//! it again, twice (server and browser).

// The generated module holds every key of the catalogue, used or not, and is leptos_i18n's code, not ours (its
// `expect`s parse the catalogue's own compiled-in locale names).
#[allow(dead_code, unused_imports, clippy::all, clippy::unwrap_used, clippy::expect_used)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/i18n/mod.rs"));
}

pub use generated::i18n::{I18nContextProvider, Locale, use_i18n};

/// The catalogue in the current locale, as components hold it.
pub type I18n = leptos_i18n::I18nContext<Locale>;
