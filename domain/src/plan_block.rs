//! Why a maintenance plan waits, as data: the status keeps it typed (the `Blocked` condition's reason is
//! [`Blocked::reason`], its message [`Blocked::english`]), the page words it in the reader's language, and no code
//! reads words back. Apart from the pin's rules (`crate::pin`) and the plan's view (`crate::rollout`), so that both
//! name it without importing each other.

use serde::{Deserialize, Serialize};

use crate::spec_change::SpecChange;

/// Why no node of a plan starts now, until a person or a change lifts it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Blocked {
    /// The server that ran it stopped, and no server holds credentials for it.
    NeedsMaintainer,
    /// The server's maintenance identity ran it, and someone took `unattended` off.
    NoLongerUnattended,
    /// The credentials of `user`, whom it ran as, are no longer accepted (expired or revoked).
    CredentialsRefused { user: String },
    /// It may not act on its spec: not confirmed by a person, a forged pin, a changed spec, or no seal to tell.
    Unpinned(Unpinned),
    /// A node's drain record is not the plan's drain with the plan's options.
    RecordMismatch(RecordMismatch),
    /// The server that would run it runs as many plans as it may.
    TooMany(TooMany),
    /// It is marked unattended, and this server has no maintenance identity.
    UnattendedOff,
    /// It is marked unattended, and may not run so here (the admission policy that guards such plans, in the
    /// server's words).
    UnattendedNotAllowed { why: String },
}

impl Blocked {
    /// The `Blocked` condition's machine-readable reason.
    pub fn reason(&self) -> &'static str {
        match self {
            Blocked::NeedsMaintainer | Blocked::NoLongerUnattended | Blocked::CredentialsRefused { .. } => {
                "NeedsMaintainer"
            }
            Blocked::Unpinned(why) => why.reason(),
            Blocked::RecordMismatch(_) => "RecordMismatch",
            Blocked::TooMany(_) => "TooMany",
            Blocked::UnattendedOff | Blocked::UnattendedNotAllowed { .. } => "UnattendedNotAllowed",
        }
    }

    /// Whether only a person can lift it, by continuing the plan: no server takes such a plan on by itself (as a
    /// local operator's, or an unattended one).
    pub fn waits_for_a_person(&self) -> bool {
        matches!(self, Blocked::Unpinned(_) | Blocked::RecordMismatch(_))
    }

    /// Whether it says no more than that the plan waits for someone: a reason a server gives for a plan it does not
    /// run, which must not replace a more precise one another gave (a rolling update of servers started with and
    /// without `--unattended-plans`, say, must not flip it back and forth).
    pub fn weak(&self) -> bool {
        matches!(self, Blocked::NeedsMaintainer | Blocked::UnattendedOff)
    }

    /// The `Blocked` reason from the words of a status written before the reason was kept as data: the reasons
    /// that carry no detail come back whole; any other reads as needing a maintainer.
    pub fn from_reason(reason: &str) -> Blocked {
        match reason {
            "NotPinned" => Blocked::Unpinned(Unpinned::NotPinned),
            "PinForged" => Blocked::Unpinned(Unpinned::PinForged),
            "UnattendedNotAllowed" => Blocked::UnattendedOff,
            _ => Blocked::NeedsMaintainer,
        }
    }

    /// In English, for the condition's message, the log and the API.
    pub fn english(&self) -> String {
        match self {
            Blocked::NeedsMaintainer => NEEDS_MAINTAINER.into(),
            Blocked::NoLongerUnattended => format!("no longer unattended: {NEEDS_MAINTAINER}"),
            Blocked::CredentialsRefused { user } => {
                format!("the credentials of {user} are no longer accepted (expired or revoked): {NEEDS_MAINTAINER}")
            }
            Blocked::Unpinned(why) => why.english(),
            Blocked::RecordMismatch(mismatch) => mismatch.english(),
            Blocked::TooMany(too_many) => too_many.english(),
            Blocked::UnattendedOff => "unattended plans are off on this server: the operator has not given it a \
                maintenance identity (deploy/components/unattended, --unattended-plans); a maintainer may continue \
                it as themselves"
                .into(),
            Blocked::UnattendedNotAllowed { why } => why.clone(),
        }
    }
}

/// Why a plan nobody may run waits.
pub const NEEDS_MAINTAINER: &str = "needs a maintainer to continue: the server that ran it stopped, and no server \
    holds credentials for it; anyone with the rights to drain its remaining nodes may continue it as themselves";

/// A server's cap on the plans it runs at once, reached: in all, or as one person (`user`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TooMany {
    pub running: u32,
    pub most: u32,
    /// The person it would run as, when it is their cap that is reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

impl TooMany {
    pub fn english(&self) -> String {
        let TooMany { running, most, user } = self;
        match user {
            None => format!(
                "too many plans: this server runs {running}, the most it runs at once ({most}); this one waits for \
                 one of them to end"
            ),
            Some(user) => format!(
                "too many plans: this server runs {running} as {user}, the most it runs as one person ({most}); \
                 this one waits for one of them to end"
            ),
        }
    }
}

/// Why a server that runs `running` plans, `theirs` of them as `user`, may not run one more as `user`: over its
/// cap in all (`total`) or per person (`per_person`). `None` when it may.
pub fn over_cap(running: usize, theirs: usize, user: &str, total: usize, per_person: usize) -> Option<Blocked> {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    if running >= total {
        Some(Blocked::TooMany(TooMany { running: count(running), most: count(total), user: None }))
    } else if theirs >= per_person {
        let user = Some(user.to_owned());
        Some(Blocked::TooMany(TooMany { running: count(theirs), most: count(per_person), user }))
    } else {
        None
    }
}

/// Why a plan may not act.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Unpinned {
    /// No person with the rights has confirmed its spec: it waits for someone to continue it.
    NotPinned,
    /// Its pin was not written by a Drainboard server (its seal does not check out).
    PinForged,
    /// Its spec changed since it was pinned at generation `pinned`; a person must see `changes` and confirm
    /// `generation`.
    SpecChanged { pinned: i64, generation: i64, changes: Vec<SpecChange> },
    /// Whether its pin is genuine cannot be told now (the servers' key could not be read: the API's words), so
    /// it acts on nothing until it can.
    SealUnavailable { why: String },
}

impl Unpinned {
    /// The `Blocked` condition's reason.
    pub fn reason(&self) -> &'static str {
        match self {
            Unpinned::NotPinned => "NotPinned",
            Unpinned::PinForged => "PinForged",
            Unpinned::SpecChanged { .. } => "SpecChanged",
            Unpinned::SealUnavailable { .. } => "SealUnavailable",
        }
    }

    pub fn english(&self) -> String {
        match self {
            Unpinned::NotPinned => {
                "no person has confirmed what this plan drains: anyone with the rights to drain its \
                nodes may continue it as themselves"
                    .into()
            }
            Unpinned::PinForged => "the plan's confirmed spec in its status was not written by a Drainboard server: \
                a person with the rights must continue it, seeing what it drains"
                .into(),
            Unpinned::SpecChanged { pinned, generation, changes } => format!(
                "the spec changed since it was confirmed (generation {pinned} → {generation}: {}); nothing more \
                 starts until a person with the rights for the new spec continues it, confirming generation \
                 {generation}",
                SpecChange::english_all(changes)
            ),
            Unpinned::SealUnavailable { why } => {
                format!("whether the plan's confirmed spec is genuine cannot be told: {why}")
            }
        }
    }
}

/// How a node's record differs from what the plan's runner wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecordMismatch {
    /// Another drain's record (its id is not the plan's).
    OtherDrain { node: String, expected: String, found: String },
    /// The plan's drain, recorded with other options than the plan's.
    OtherOptions { node: String, drain: String },
}

impl RecordMismatch {
    pub fn english(&self) -> String {
        match self {
            RecordMismatch::OtherDrain { node, expected, found } => format!(
                "{node}'s drain record names drain {found}, not this plan's drain {expected}: someone else drained or \
                 rewrote it, so the plan resumes nothing there; look at the node, then cancel the plan or continue it"
            ),
            RecordMismatch::OtherOptions { node, drain } => format!(
                "{node}'s drain record (drain {drain}) asks for other drain options than the plan's: it was rewritten \
                 after the plan started it, so the plan resumes nothing there; look at the node, then cancel the plan \
                 or continue it"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_runs_at_most_its_caps() {
        let rows = [
            (0, 0, None),
            (199, 9, None),
            (200, 0, Some("runs 200, the most it runs at once (200)")),
            (5, 10, Some("runs 10 as alice, the most it runs as one person (10)")),
            (250, 12, Some("runs 250")),
        ];
        for (running, theirs, expected) in rows {
            let why = over_cap(running, theirs, "alice", 200, 10);
            match expected {
                None => assert_eq!(why, None, "{running} {theirs}"),
                Some(words) => {
                    assert!(why.as_ref().is_some_and(|w| w.english().contains(words)), "{why:?}");
                    assert_eq!(why.map(|w| w.reason()), Some("TooMany"));
                }
            }
        }
    }

    #[test]
    fn each_reason_names_what_lifts_it_and_reads_back_from_an_older_status() {
        let user = "alice".to_owned();
        let rows: [(Blocked, &str, bool, &str); 8] = [
            (Blocked::NeedsMaintainer, "NeedsMaintainer", false, "needs a maintainer"),
            (Blocked::NoLongerUnattended, "NeedsMaintainer", false, "no longer unattended"),
            (Blocked::CredentialsRefused { user }, "NeedsMaintainer", false, "credentials of alice"),
            (Blocked::Unpinned(Unpinned::NotPinned), "NotPinned", true, "no person has confirmed"),
            (Blocked::Unpinned(Unpinned::PinForged), "PinForged", true, "not written by a Drainboard server"),
            (
                Blocked::RecordMismatch(RecordMismatch::OtherDrain {
                    node: "n1".into(),
                    expected: "d1".into(),
                    found: "d9".into(),
                }),
                "RecordMismatch",
                true,
                "names drain d9, not this plan's drain d1",
            ),
            (Blocked::UnattendedOff, "UnattendedNotAllowed", false, "unattended plans are off"),
            (Blocked::UnattendedNotAllowed { why: "policy gone".into() }, "UnattendedNotAllowed", false, "policy gone"),
        ];
        for (blocked, reason, for_a_person, words) in rows {
            assert_eq!(blocked.reason(), reason, "{blocked:?}");
            assert_eq!(blocked.waits_for_a_person(), for_a_person, "{blocked:?}");
            assert!(blocked.english().contains(words), "{}", blocked.english());
            let json = serde_json::to_string(&blocked).unwrap();
            assert_eq!(serde_json::from_str::<Blocked>(&json).unwrap(), blocked);
        }
        assert_eq!(Blocked::from_reason("PinForged"), Blocked::Unpinned(Unpinned::PinForged));
        assert_eq!(Blocked::from_reason("SomethingNew"), Blocked::NeedsMaintainer);
        assert!(Blocked::NeedsMaintainer.weak() && Blocked::UnattendedOff.weak());
        assert!(!Blocked::Unpinned(Unpinned::NotPinned).weak());
    }
}
