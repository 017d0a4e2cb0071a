//! A drain as everyone watching sees it on its node's card: a summary of the progress, small enough for a Lease.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{DrainProgress, DrainState, PodState};
use crate::{budget::PdbStatus, drain::DryRun};

/// A drain as the board shows it on its node's card, to everyone watching: who started it, why, and how far it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainSummary {
    pub id: String,
    pub node: String,
    pub started_by: String,
    pub started_at: Timestamp,
    pub reason: Option<String>,
    pub dry_run: bool,
    pub state: DrainState,
    /// Pods the drain evicts.
    pub total: usize,
    /// Of those, pods gone (or accepted, in a server dry run).
    pub done: usize,
    /// The first budget an eviction is waiting for, if any.
    pub blocked_by: Option<PdbStatus>,
    /// The namespace of that budget (and of the pod it holds up), so that a viewer who may read some namespaces
    /// only is shown it only when it is theirs. A summary without one (from an older server) hides its budget
    /// from them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_in: Option<String>,
    /// Why that pod stays (`domain::blocker`), the most decisive reason: the card names it. Hidden with the budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocker: Option<crate::blocker::Blocker>,
    /// When no pod has a blocker: the last grace-period deadline of the pods shutting down, so that the card counts
    /// the wait down (`Self::blocker_at`). It names no pod, so every viewer is shown it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shutting_down_until: Option<Timestamp>,
    pub finished_at: Option<Timestamp>,
    /// A drain another Drainboard server runs: its holder identity, from the node Lease it renews (and publishes
    /// this summary on). Its detail and its cancel live on that server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elsewhere: Option<String>,
}

/// The most bytes of a summary read from a Lease: anyone who may write Leases in the server's namespace may have
/// written it.
pub const MAX_SUMMARY_BYTES: usize = 8 * 1024;

impl DrainSummary {
    /// A summary read from a Lease (at most [`MAX_SUMMARY_BYTES`]), published by `holder` for `node`: `None` when
    /// it does not add up (another node's, more pods done than there are, a reason over the limit).
    pub fn from_lease(mut self, holder: &str, node: &str) -> Option<Self> {
        let reason_ok = self.reason.as_deref().is_none_or(|r| crate::input::reason(Some(r)).is_ok());
        if self.node != node || self.done > self.total || !reason_ok {
            return None;
        }
        self.elsewhere = Some(holder.chars().take(128).collect());
        Some(self)
    }

    /// Why the drain waits, as it reads at `now`: the pod's blocker, or else the time its pods shutting down have
    /// left (none once their grace period is over).
    pub fn blocker_at(&self, now: Timestamp) -> Option<crate::blocker::Blocker> {
        self.blocker
            .clone()
            .or_else(|| crate::blocker::terminating(self.shutting_down_until, &[], now).into_iter().next())
    }

    /// The summary as a person who may list pods only in `namespaces` sees it: the counts stay (they name no
    /// pod), the budget that holds it up goes unless it is in one of their namespaces.
    pub fn visible_to(mut self, namespaces: &std::collections::BTreeSet<String>) -> Self {
        if !self.blocked_in.as_ref().is_some_and(|ns| namespaces.contains(ns)) {
            self.blocked_by = None;
            self.blocked_in = None;
            self.blocker = None;
        }
        self
    }
}

impl From<&DrainProgress> for DrainSummary {
    fn from(p: &DrainProgress) -> Self {
        // The first pod a budget holds up, else the first with another known blocker.
        let held = p.pods.iter().find(|x| matches!(x.state, PodState::Blocked { pdb: Some(_), .. }));
        let held = held.or_else(|| p.pods.iter().find(|x| !x.state.blockers().is_empty()));
        let pdb = held.and_then(|x| match &x.state {
            PodState::Blocked { pdb, .. } => pdb.clone(),
            _ => None,
        });
        DrainSummary {
            id: p.id.clone(),
            node: p.node.clone(),
            started_by: p.started_by.clone(),
            started_at: p.started_at,
            reason: p.reason.clone(),
            dry_run: p.options.dry_run != DryRun::None,
            state: p.state.clone(),
            total: p.pods.len(),
            done: p.done(),
            blocked_by: pdb,
            blocked_in: held.map(|x| x.namespace.clone()),
            blocker: held.and_then(|x| x.state.blockers().into_iter().next()),
            shutting_down_until: held.is_none().then(|| shutting_down_until(p)).flatten(),
            finished_at: p.finished_at,
            elsewhere: None,
        }
    }
}

/// The last grace-period deadline of the drain's pods that are shutting down with nothing else holding them.
fn shutting_down_until(p: &DrainProgress) -> Option<Timestamp> {
    p.pods
        .iter()
        .filter_map(|x| match &x.state {
            PodState::Terminating { deletion_deadline, blockers } if blockers.is_empty() => *deletion_deadline,
            _ => None,
        })
        .max()
}
