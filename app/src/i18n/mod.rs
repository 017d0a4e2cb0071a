//! The message catalogue as components use it: the `catalogue` crate's context and keys (every string the UI
//! shows, in `catalogue/locales/`), [`t_string!`], and the functions in `words` that put the domain's states into
//! words.

mod words;

pub use catalogue::{I18n, I18nContextProvider, use_i18n};
pub use leptos_i18n::t_string;
pub use words::*;
