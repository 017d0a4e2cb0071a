//! The words of a plan's step: what the runner sees ([`Look`]), what it does ([`Effect`]), what came of it
//! ([`Outcome`]) and what comes next ([`Next`]).

use std::collections::BTreeMap;

use jiff::Timestamp;

pub use crate::plan_block::NEEDS_MAINTAINER;
use crate::{
    failure::Failure,
    node::NodeCard,
    notice::Notice,
    pin::{SpecChanged, Unpinned},
    progress::{DrainRecord, DrainState},
    recovery::Touched,
    rollout::RolloutProgress,
    verify::CheckFailure,
    window::HeldNode,
};

/// What the runner sees at one look.
#[derive(Clone, Debug)]
pub struct Look {
    pub now: Timestamp,
    pub plan: PlanSeen,
    /// The plan's Lease is lost (or went unrenewed past its life): another server may run it now.
    pub lease_lost: bool,
    /// This server stops, or another run of the plan here replaces this one: the plan is left for whoever runs it.
    pub stopping: bool,
    /// The runner is the server's maintenance identity (an unattended plan).
    pub maintenance: bool,
    /// A person confirmed the pin as this runner started, having been shown it.
    pub confirmed: bool,
    /// Each draining node's drain, by node.
    pub drains: BTreeMap<String, DrainSeen>,
    /// The nodes' cards, by name: those draining and those awaited back, at least.
    pub cards: BTreeMap<String, NodeCard>,
    /// For each node recovering whose drain touched workloads or budgets: what has not recovered yet (empty: all
    /// did). A node missing here was not looked at.
    pub unrecovered: BTreeMap<String, Vec<CheckFailure>>,
    /// For nodes awaited back: who last uncordoned each, and when, as the node's history says (a claim: shown on
    /// the plan's row as who said it was back, never acted on).
    pub uncordons: BTreeMap<String, Uncordon>,
    /// For queued nodes: what other tools the cluster shows at work on each (`crate::actor`), where any.
    pub others: BTreeMap<String, Vec<crate::actor::Sighting>>,
    /// How far ahead app teams are told (`crate::teams`); `None`: no team has a webhook, and none is told.
    pub notify_lead: Option<jiff::SignedDuration>,
    /// For queued nodes a window holds: when the hold lifts, where the window says.
    pub opens: BTreeMap<String, Timestamp>,
    /// For nodes whose teams are due to be told ahead: each team's pods there, by node.
    pub teams: BTreeMap<String, BTreeMap<String, crate::teams::TeamPods>>,
}

/// A node's last uncordon, as its history says (a claim: shown, never acted on).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uncordon {
    pub by: String,
    pub at: Timestamp,
    pub reason: Option<String>,
}

/// The reason the uncordon of a plan's "It is back" records: it names the plan, so that the plan's row can say
/// the node passed the plan's checks first (that action uncordons only then).
pub fn said_back_reason(plan: &str) -> String {
    format!("said back for maintenance plan {plan}")
}

/// The plan as last read.
#[derive(Clone, Debug, Default)]
pub struct PlanSeen {
    /// Deleted, or not found.
    pub gone: bool,
    /// Being deleted (its finalizer still holds it).
    pub deleting: bool,
    pub cancelled: bool,
    pub paused: bool,
    pub unattended: bool,
    pub spec: SpecSeen,
    /// The window override as pinned: past a window only with it, and only for a runner who may override.
    pub window_override: Option<String>,
}

/// The plan's spec against its pin.
#[derive(Clone, Debug, Default)]
pub enum SpecSeen {
    /// Not read this look (the read failed, or gave an older version): as it was.
    #[default]
    Unread,
    /// As pinned (or pinned anew, by a person who confirmed it).
    Same,
    /// Not as pinned: why, and what changed.
    Changed { why: Unpinned, diff: Option<SpecChanged> },
}

/// A draining node's drain, as the runner finds it.
#[derive(Clone, Debug)]
pub enum DrainSeen {
    /// This server runs it: where it is now.
    Here(DrainState),
    /// This server does not run it (the plan was taken over): the node's drain record, whoever wrote it.
    Recorded(DrainRecord),
    /// The node has no drain record: the drain never wrote one.
    NoRecord,
    /// Neither could be read now.
    Unread,
}

/// What the runner does, as the person the plan runs as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Admit `node` by the maintenance windows, then start its drain. Past a window only with the pinned
    /// override (for a runner who may override), recorded on its first use for the node (`record_override`).
    /// With `teams_untold`, the node's app teams are still to be told (`crate::teams`): it is admitted only to
    /// learn what holds it, and nothing starts; a later look tells them, then starts it.
    Start {
        node: String,
        window_override: Option<String>,
        record_override: bool,
        teams_untold: bool,
    },
    /// Admit `node` by the windows as a start, then resume the plan's interrupted drain there with the pinned
    /// options (never the record's).
    Resume {
        node: String,
        window_override: Option<String>,
    },
    /// The node's drain left no record: start it again as a queued node would be.
    Restart {
        node: String,
    },
    /// The node is back and checked out: uncordon it.
    Uncordon {
        node: String,
    },
    /// Cancel these drains (the plan is cancelled or deleted).
    Cancel {
        drains: Vec<String>,
    },
    Notify(Notice),
    /// Tell an app team (`crate::teams`), through the webhook of that name only.
    Tell {
        team: String,
        notice: Notice,
    },
    /// Make the Alertmanager silences what the status wants; `ending`: none.
    Silences {
        ending: bool,
    },
}

/// What comes after a look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Look again, on a change or after a while.
    Look,
    /// Blocked for want of a person: the runner writes the status and lets the plan go.
    Leave,
    /// The Lease is lost: write nothing more, and stop.
    Drop,
    /// The server stops: the status says no one runs it, for another server to take it over.
    Handover,
    /// Ended: [`finish`] it (after the effects, which cancel its drains when `cancelled`).
    End { cancelled: bool },
}

/// A look's result.
#[derive(Clone, Debug)]
pub struct Stepped {
    pub status: RolloutProgress,
    pub effects: Vec<Effect>,
    pub next: Next,
}

/// What came of an effect, folded into the status by [`absorb`].
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The node's drain (started, resumed or started again) runs with this id.
    Started { node: String, drain: String },
    /// A window holds the node: it waits, and the plan says why.
    Held(HeldNode),
    /// The pinned override let the node past a window, and the override was recorded.
    Overridden { node: String },
    /// The drain could not start.
    Failed { node: String, failure: Failure },
    /// The runner's credentials are no longer accepted.
    CredentialsRefused { user: String },
    /// What the node's drain will touch, recorded before it starts (for the checks once it is back).
    Touched { node: String, touched: Touched },
    /// The plan's estimate, made as its first node starts.
    Estimated(crate::estimate::PlanEstimate),
    /// The uncordon of a node back, done or failed.
    Uncordoned { node: String, result: Result<(), Failure> },
}
