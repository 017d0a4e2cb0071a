//! The message catalogue as components use it: the `catalogue` crate's context and keys (every string the UI
//! shows, in `catalogue/locales/`), [`t_string!`], the functions in `words` that put the domain's states into
//! words, those in `time` for durations and dates, and the language a page is in (`language`).

mod actors;
mod blockers;
mod checks;
mod conflict;
mod denial;
mod estimate;
mod language;
mod plan_blocked;
mod readiness;
mod tally;
mod time;
mod windows;
mod words;

pub use actors::*;
pub use blockers::*;
pub use catalogue::{I18n, I18nContextProvider, Locale, use_i18n};
pub use checks::*;
pub use conflict::*;
pub use denial::*;
pub use estimate::*;
pub use language::*;
pub use leptos_i18n::t_string;
pub use plan_blocked::*;
pub use readiness::*;
pub use tally::*;
pub use time::*;
pub use windows::*;
pub use words::*;
