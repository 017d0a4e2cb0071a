//! The node lifecycle conditions Drainboard publishes (KEP-5683: `DrainInProgress`, `Drained`, and the two
//! maintenance conditions), so that other tools and people see its drains in the Node itself.
//!
//! Rules, each in one place here:
//! - what a drain publishes at each of its states ([`for_drain`]): `DrainInProgress` while it runs, then `Drained`
//!   exactly when the card says "safe to reboot" (every pod gone, no volume attached);
//! - what a plan publishes for each of its nodes ([`for_plan_node`]): `MaintenancePlanned` while the plan queues it
//!   (a window may be what holds it), `MaintenanceInProgress` while the plan awaits it back or its workloads recover;
//!   none once the node is done, never started, or the plan ended;
//! - which writes a node needs ([`changes`]): only Drainboard's own conditions (their reason starts with
//!   [`crate::actor::OUR_REASON_PREFIX`]) are ever changed or removed. Another writer's condition of the same type is
//!   its claim, left as it is; Drainboard then does not publish that type on that node;
//! - which of its conditions are left behind ([`stale`]): a node back in service (schedulable) is neither draining
//!   nor drained, whoever uncordoned it.

use jiff::Timestamp;

use crate::{actor::OUR_REASON_PREFIX, condition::Condition, progress::DrainState};

#[cfg(test)]
mod tests;

/// The lifecycle condition types Drainboard writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    DrainInProgress,
    Drained,
    MaintenancePlanned,
    MaintenanceInProgress,
}

impl Kind {
    /// The condition's `type`, as the KEP names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::DrainInProgress => "DrainInProgress",
            Kind::Drained => "Drained",
            Kind::MaintenancePlanned => "MaintenancePlanned",
            Kind::MaintenanceInProgress => "MaintenanceInProgress",
        }
    }

    /// Every type a plan manages for its nodes ([`for_plan_node`]).
    pub const PLAN: [Kind; 2] = [Kind::MaintenancePlanned, Kind::MaintenanceInProgress];

    /// Every type a drain manages: the ones [`for_drain`] decides, and an uncordon clears.
    pub const DRAIN: [Kind; 2] = [Kind::DrainInProgress, Kind::Drained];
}

/// One condition as Drainboard wants it on the node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wanted {
    pub kind: Kind,
    pub status: bool,
    /// Always starts with [`OUR_REASON_PREFIX`].
    pub reason: &'static str,
    pub message: String,
}

/// The most a message carries: the person's name and the drain's reason are bounded on their own, but the message is
/// stored in every Node read, so it is bounded as a whole too.
pub const MESSAGE_CHARS: usize = 240;

/// What a drain publishes at `state`, started by `person` (`reason` is theirs, if they gave one). As kubectl's
/// proposed `--report-node-conditions` writes them: both types at once, with one reason, `DrainInProgress` True and
/// `Drained` False while the drain runs, then `Drained` True only when it completed. Dry runs publish nothing
/// (`None`).
pub fn for_drain(state: &DrainState, person: &str, drain_id: &str, reason: Option<&str>) -> Option<Vec<Wanted>> {
    let why = reason.map(|r| format!(" ({r})")).unwrap_or_default();
    let by = format!("Drainboard drain {drain_id} by {person}{why}");
    let (running, drained, cause, message) = match state {
        DrainState::DryRunPlanned | DrainState::DryRunAccepted => return None,
        s if s.is_running() => (true, false, "DrainboardDrainStarted", format!("{by} is evicting this node's pods")),
        DrainState::Drained => {
            (false, true, "DrainboardDrainCompleted", format!("{by}: every pod gone and no volume attached"))
        }
        // Pods left terminating, or volumes attached or unknown: the card does not call the node safe to reboot.
        s if s.is_drained() || matches!(s, DrainState::DrainedVolumesAttached(_)) => {
            (false, false, "DrainboardDrainIncomplete", format!("{by} ended: {}", s.outcome_text()))
        }
        DrainState::Cancelled => (false, false, "DrainboardDrainCancelled", format!("{by} was cancelled")),
        DrainState::Interrupted => {
            (false, false, "DrainboardDrainInterrupted", format!("{by} stopped with its server; it can be resumed"))
        }
        other => (false, false, "DrainboardDrainFailed", format!("{by} ended: {}", other.outcome_text())),
    };
    Some(vec![
        wanted(Kind::DrainInProgress, running, cause, message.clone()),
        wanted(Kind::Drained, drained, cause, message),
    ])
}

/// What plan `plan` (run for `person`, for `reason`) publishes for `node`: `MaintenancePlanned` while it is queued,
/// `MaintenanceInProgress` while it is awaited back or recovering, nothing otherwise (the drain's own conditions
/// cover the drain) and nothing at all once the plan `ended`.
pub fn for_plan_node(
    node: &crate::rollout::RolloutNode,
    plan: &str,
    person: &str,
    reason: Option<&str>,
    ended: bool,
) -> Vec<Wanted> {
    use crate::rollout::Step;
    if ended {
        return Vec::new();
    }
    let why = reason.map(|r| format!(" ({r})")).unwrap_or_default();
    let by = format!("Drainboard maintenance plan {plan} by {person}{why}");
    if node.step == Step::Queued {
        let message = format!("{by} will drain this node");
        return vec![wanted(Kind::MaintenancePlanned, true, "DrainboardPlanQueued", message)];
    }
    if node.waiting_back() || node.recovering() {
        let message = format!("{by} drained this node and awaits it back");
        return vec![wanted(Kind::MaintenanceInProgress, true, "DrainboardPlanAwaitingBack", message)];
    }
    Vec::new()
}

fn wanted(kind: Kind, status: bool, reason: &'static str, message: String) -> Wanted {
    let message = if message.chars().count() > MESSAGE_CHARS {
        let mut cut: String = message.chars().take(MESSAGE_CHARS - 1).collect();
        cut.push('…');
        cut
    } else {
        message
    };
    Wanted { kind, status, reason, message }
}

/// One write to the node's conditions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Sets the condition, its transition time kept when its status does not change.
    Set { wanted: Wanted, last_transition: Timestamp, last_heartbeat: Timestamp },
    /// Removes Drainboard's condition of this type.
    Remove(Kind),
}

/// Whether a condition is Drainboard's own.
pub fn is_ours(condition: &Condition) -> bool {
    condition.reason.as_deref().is_some_and(|r| r.starts_with(OUR_REASON_PREFIX))
}

/// The writes that bring the node's conditions (`current`) to `wanted` for the `managed` types, at `now`. A type
/// held by another writer is not touched; an unchanged condition is not written again.
pub fn changes(current: &[Condition], wanted: &[Wanted], managed: &[Kind], now: Timestamp) -> Vec<Change> {
    let mut out = Vec::new();
    for &kind in managed {
        let have = current.iter().find(|c| c.type_ == kind.as_str());
        if have.is_some_and(|c| !is_ours(c)) {
            continue;
        }
        let want = wanted.iter().find(|w| w.kind == kind);
        match (have, want) {
            (None, None) => {}
            (Some(_), None) => out.push(Change::Remove(kind)),
            (have, Some(w)) => {
                let status = if w.status { "True" } else { "False" };
                let same = have.is_some_and(|c| {
                    c.status == status
                        && c.reason.as_deref() == Some(w.reason)
                        && c.message.as_deref() == Some(&w.message)
                });
                if same {
                    continue;
                }
                let last_transition =
                    have.filter(|c| c.status == status).and_then(|c| c.last_transition).unwrap_or(now);
                out.push(Change::Set { wanted: w.clone(), last_transition, last_heartbeat: now });
            }
        }
    }
    out
}

/// Drainboard's drain conditions left on a node that is back in service: a schedulable node is neither draining
/// nor drained, whoever uncordoned it (a stale `Drained` could tell another tool it may reboot a node with pods).
pub fn stale(unschedulable: bool, current: &[Condition]) -> Vec<Kind> {
    if unschedulable {
        return Vec::new();
    }
    Kind::DRAIN.into_iter().filter(|k| current.iter().any(|c| c.type_ == k.as_str() && is_ours(c))).collect()
}
