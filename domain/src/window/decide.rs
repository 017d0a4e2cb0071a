//! The decision for one node: may maintenance start on it now, and if not, what holds it. Every window that
//! covers the node is asked; any one may hold it, and the page names the window that holds longest (a calendar
//! hold until its next opening; a gate or the budget until something changes, which counts as longest).

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use super::spec::{Budget, Policy};

/// A node as the decision reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeFact {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub ready: bool,
    /// Cordoned, or with a drain running: what a window's budget counts.
    pub in_maintenance: bool,
}

/// A running pod, for the pod gates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodFact {
    pub namespace: String,
    pub name: String,
    pub node: Option<String>,
    pub labels: BTreeMap<String, String>,
}

/// What Alertmanager answered: the labels of each alert that fires and is neither silenced nor inhibited, or why
/// it could not be asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alerts {
    Known(Vec<BTreeMap<String, String>>),
    Unknown(String),
    /// No Alertmanager is configured.
    None,
}

/// The cluster as a decision reads it.
#[derive(Clone, Copy, Debug)]
pub struct Facts<'a> {
    pub now: Timestamp,
    pub nodes: &'a [NodeFact],
    pub pods: &'a [PodFact],
    pub alerts: &'a Alerts,
    /// Whether an Alertmanager that cannot be asked holds every alert gate (the default).
    pub fail_closed: bool,
}

/// What holds a start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Hold {
    /// No schedule is open: when one next opens (`None`: not within a year), as the window's local time.
    OutsideWindow {
        opens: Option<Timestamp>,
        local: Option<String>,
        zone: String,
        /// The opening on the window's clock, for the page to word in the reader's language.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<super::LocalTime>,
    },
    Frozen {
        reason: String,
        until: Timestamp,
        /// The freeze's end on the window's clock, and the zone's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ends: Option<super::LocalTime>,
        #[serde(default)]
        zone: String,
    },
    /// The window's nodes in maintenance now, and the most it allows.
    Budget {
        in_maintenance: u32,
        max: u32,
    },
    /// A firing alert: its name and the labels the gate matched on.
    Alert {
        name: String,
        matched: String,
    },
    /// Alertmanager could not be asked, and the gate fails closed.
    AlertsUnknown {
        why: String,
    },
    /// A pod of a gate runs: on the node, or elsewhere.
    Pod {
        namespace: String,
        name: String,
        node: Option<String>,
    },
    NotReadyStorm {
        not_ready: u32,
        max: u32,
    },
    /// The window does not read, or the windows are not known yet: it holds until that is fixed.
    Invalid {
        why: String,
    },
}

/// Every kind [`Hold::kind`] names: a metric's label values.
pub const HOLD_KINDS: [&str; 8] =
    ["outside-window", "frozen", "budget", "alert", "alerts-unknown", "pod", "not-ready-storm", "invalid"];

impl Hold {
    /// Its kind, one of [`HOLD_KINDS`]: never a window's, an alert's or a pod's name.
    pub fn kind(&self) -> &'static str {
        match self {
            Hold::OutsideWindow { .. } => "outside-window",
            Hold::Frozen { .. } => "frozen",
            Hold::Budget { .. } => "budget",
            Hold::Alert { .. } => "alert",
            Hold::AlertsUnknown { .. } => "alerts-unknown",
            Hold::Pod { .. } => "pod",
            Hold::NotReadyStorm { .. } => "not-ready-storm",
            Hold::Invalid { .. } => "invalid",
        }
    }
}

/// A hold and the window that holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub window: String,
    pub hold: Hold,
}

/// A node a window holds, as decided at `at`: the deciding window and its hold. A refusal and a plan carry this,
/// not a sentence, so that each page words it in its own language; [`HeldNode::english`] is for logs, the API's
/// message and Kubernetes statuses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldNode {
    pub node: String,
    pub window: String,
    pub hold: Hold,
    /// When it was decided: what "in 5 h 12 min" counts from.
    pub at: Timestamp,
}

impl HeldNode {
    /// The hold in English, naming its window: "outside window; opens Tue 02:00 Asia/Tokyo, in 5 h 12 min (window
    /// tokyo-nights)".
    pub fn english(&self) -> String {
        format!("{} (window {})", self.hold.words(self.at), self.window)
    }
}

/// May maintenance start on a node now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub node: String,
    /// The windows that cover it, by name.
    pub windows: Vec<String>,
    /// Everything that holds it; empty: it may start.
    pub holds: Vec<Held>,
    /// The window that holds longest.
    pub decided_by: Option<String>,
    /// When every covering window's calendar next allows a start together (now, when it does now).
    pub opens: Option<Timestamp>,
}

impl Decision {
    pub fn may_start(&self) -> bool {
        self.holds.is_empty()
    }

    /// The hold of the window that decides (the one the board names); `None` when nothing holds the node.
    pub fn deciding(&self) -> Option<&Held> {
        let decided = self.decided_by.as_deref()?;
        self.holds.iter().find(|h| h.window == decided)
    }

    /// The deciding window and its hold, as decided at `now`; `None` when nothing holds the node.
    pub fn held(&self, now: Timestamp) -> Option<HeldNode> {
        let held = self.deciding()?;
        Some(HeldNode { node: self.node.clone(), window: held.window.clone(), hold: held.hold.clone(), at: now })
    }

    /// The deciding hold, in English, for logs and the audit trail.
    pub fn reason(&self, now: Timestamp) -> Option<String> {
        self.held(now).map(|h| h.english())
    }
}

impl Budget {
    /// The most nodes of `selected` in maintenance at once: a share rounds down, but never to none, which would
    /// hold every node for ever.
    pub fn max(self, selected: u32) -> u32 {
        match self {
            Budget::Nodes(n) => n,
            Budget::Percent(p) => (u64::from(selected) * u64::from(p) / 100).max(1).try_into().unwrap_or(u32::MAX),
        }
    }
}

/// Why the calendar holds `w` at `now`: a freeze first, since it holds whatever the schedules say.
pub(super) fn calendar_hold(w: &Policy, now: Timestamp) -> Option<Hold> {
    if let Some(why) = &w.broken {
        return Some(Hold::Invalid { why: why.clone() });
    }
    if let Some(freeze) = w.frozen_at(now) {
        let ends = Some(super::LocalTime::at(freeze.end, &w.zone));
        return Some(Hold::Frozen {
            reason: freeze.reason.clone(),
            until: freeze.end,
            ends,
            zone: w.zone_name.clone(),
        });
    }
    if w.scheduled_at(now) {
        return None;
    }
    let opens = w.next_open(now);
    let local = opens.map(|t| t.to_zoned(w.zone.clone()).strftime("%a %H:%M").to_string());
    let at = opens.map(|t| super::LocalTime::at(t, &w.zone));
    Some(Hold::OutsideWindow { opens, local, zone: w.zone_name.clone(), at })
}

impl Hold {
    /// The hold in words, for a plan's status, an Event and a refusal (the page words it from the catalogue).
    pub fn words(&self, now: Timestamp) -> String {
        match self {
            Hold::OutsideWindow { opens: Some(opens), local: Some(local), zone, .. } => {
                format!("outside window; opens {local} {zone}, in {}", span(now, *opens))
            }
            Hold::OutsideWindow { .. } => "outside window; it does not open within a year".into(),
            Hold::Frozen { reason, until, ends: Some(ends), zone } if *zone == ends.abbreviation => {
                format!("frozen ({reason}) until {}, in {}", ends.english(), span(now, *until))
            }
            Hold::Frozen { reason, until, ends: Some(ends), zone } => {
                format!("frozen ({reason}) until {} ({zone}), in {}", ends.english(), span(now, *until))
            }
            Hold::Frozen { reason, until, .. } => format!("frozen ({reason}) until {until}, in {}", span(now, *until)),
            Hold::Budget { in_maintenance, max } => {
                format!("{in_maintenance} of its nodes are in maintenance, and it allows {max} at once")
            }
            Hold::Alert { name, matched } => format!("alert {name} fires ({matched})"),
            Hold::AlertsUnknown { why } => format!("Alertmanager cannot be asked, so its alert gate is closed: {why}"),
            Hold::Pod { namespace, name, node: Some(node) } => format!("pod {namespace}/{name} runs on {node}"),
            Hold::Pod { namespace, name, node: None } => format!("pod {namespace}/{name} runs"),
            Hold::NotReadyStorm { not_ready, max } => {
                format!("{not_ready} nodes are not Ready, more than the {max} it allows")
            }
            Hold::Invalid { why } => format!("the window cannot be read: {why}"),
        }
    }
}

/// `5 h 12 min`, `3 min`, `40 s`, or `3 d 4 h` from `now` until `then`.
pub fn span(now: Timestamp, then: Timestamp) -> String {
    let secs = now.duration_until(then).max(SignedDuration::ZERO).as_secs();
    let (d, h, m) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{secs} s"),
        (0, 0, m) => format!("{m} min"),
        (0, h, m) => format!("{h} h {m} min"),
        (d, h, _) => format!("{d} d {h} h"),
    }
}

mod decider;
pub use decider::{Decider, decide};

#[cfg(test)]
mod shared_tests;
#[cfg(test)]
mod tests;
