//! Why a maintenance plan waits (`domain::plan_block::Blocked`), in the page's language: names, numbers, the spec's
//! own paths and values, and the server's words about an admission policy are data; the sentence is the catalogue's.

use domain::{
    pin::{RecordMismatch, SpecChange, Unpinned},
    plan_block::{Blocked, TooMany},
};

use super::{I18n, t_string};

/// Why a plan waits, in words.
pub fn plan_blocked_text(i18n: I18n, blocked: &Blocked) -> String {
    match blocked {
        Blocked::NeedsMaintainer => t_string!(i18n, plan_blocked.needs_maintainer).to_string(),
        Blocked::NoLongerUnattended => t_string!(i18n, plan_blocked.no_longer_unattended).to_string(),
        Blocked::CredentialsRefused { user } => {
            t_string!(i18n, plan_blocked.credentials_refused, user = user.clone()).to_string()
        }
        Blocked::Unpinned(Unpinned::NotPinned) => t_string!(i18n, plan_blocked.not_pinned).to_string(),
        Blocked::Unpinned(Unpinned::PinForged) => t_string!(i18n, plan_blocked.pin_forged).to_string(),
        Blocked::Unpinned(Unpinned::SpecChanged { pinned, generation, changes }) => t_string!(
            i18n,
            plan_blocked.spec_changed,
            pinned = *pinned,
            generation = *generation,
            changes = SpecChange::english_all(changes)
        )
        .to_string(),
        Blocked::Unpinned(Unpinned::SealUnavailable { why }) => {
            t_string!(i18n, plan_blocked.seal_unavailable, why = why.clone()).to_string()
        }
        Blocked::RecordMismatch(RecordMismatch::OtherDrain { node, expected, found }) => t_string!(
            i18n,
            plan_blocked.other_drain,
            node = node.clone(),
            expected = expected.clone(),
            found = found.clone()
        )
        .to_string(),
        Blocked::RecordMismatch(RecordMismatch::OtherOptions { node, drain }) => {
            t_string!(i18n, plan_blocked.other_options, node = node.clone(), drain = drain.clone()).to_string()
        }
        Blocked::TooMany(TooMany { running, most, user: None }) => {
            t_string!(i18n, plan_blocked.too_many, running = *running, most = *most).to_string()
        }
        Blocked::TooMany(TooMany { running, most, user: Some(user) }) => {
            t_string!(i18n, plan_blocked.too_many_as, running = *running, most = *most, user = user.clone()).to_string()
        }
        Blocked::UnattendedOff => t_string!(i18n, plan_blocked.unattended_off).to_string(),
        Blocked::UnattendedNotAllowed { why } => {
            t_string!(i18n, plan_blocked.unattended_not_allowed, why = why.clone()).to_string()
        }
    }
}
