//! When a plan may reach each of its queued nodes at the earliest, and so which nodes' teams are due to be told.
//!
//! The earliest start is what the plan's own timing allows, never later than the truth, so that a team told the
//! lead ahead of it is told at least that far ahead: the nodes go in their order into the plan's `max_parallel`
//! slots, each slot free now (a node out of service might come back any moment), each node taking its estimate's
//! likely time and the settle time after it; a node a window holds starts no earlier than the hold lifts, when the
//! window says when. Reboots and zones only delay a node, so they are left out. Without an estimate (it is made
//! as the first node starts) no later time can be told: only the nodes next in line are due.

use std::{
    cmp::Reverse,
    collections::{BTreeMap, BinaryHeap},
};

use jiff::{SignedDuration, Timestamp};

use crate::rollout::{MAX_PARALLEL, MAX_SETTLE_SECONDS, RolloutProgress, RolloutState, Step};

/// The earliest each node may start, by index (`None`: not queued, or not to be told yet for want of an
/// estimate), at `now`, with `opens` the time each held node's hold lifts.
pub fn earliest(p: &RolloutProgress, now: Timestamp, opens: &BTreeMap<String, Timestamp>) -> Vec<Option<Timestamp>> {
    let slots = p.options.max_parallel.clamp(1, MAX_PARALLEL) as usize;
    let settle =
        SignedDuration::from_secs(i64::try_from(p.options.settle_seconds.min(MAX_SETTLE_SECONDS)).unwrap_or(0));
    let mut free: BinaryHeap<Reverse<Timestamp>> = (0..slots).map(|_| Reverse(now)).collect();
    let mut position = 0usize;
    let mut starts = vec![None; p.nodes.len()];
    for (i, node) in p.nodes.iter().enumerate() {
        if node.step != Step::Queued {
            continue;
        }
        if p.estimate.is_none() && position >= slots {
            break;
        }
        position += 1;
        let Some(Reverse(slot)) = free.pop() else { break };
        let start = opens.get(&node.name).map_or(slot, |&lifts| slot.max(lifts));
        starts[i] = Some(start);
        let likely = node.estimate.as_ref().map_or(0, |e| e.likely_seconds);
        let took = SignedDuration::from_secs(i64::try_from(likely).unwrap_or(i64::MAX)).saturating_add(settle);
        free.push(Reverse(start.checked_add(took).unwrap_or(Timestamp::MAX)));
    }
    starts
}

/// The queued nodes whose teams are due to be told at `now`, `lead` ahead, with their earliest start: not told
/// yet, and starting within the lead. Only while the plan runs (a paused or blocked plan reaches no node).
pub fn due(
    p: &RolloutProgress,
    now: Timestamp,
    lead: SignedDuration,
    opens: &BTreeMap<String, Timestamp>,
) -> Vec<(usize, Timestamp)> {
    if p.state != RolloutState::Running || p.blocked.is_some() || p.stopping() {
        return Vec::new();
    }
    let by = now.checked_add(lead.abs()).unwrap_or(Timestamp::MAX);
    earliest(p, now, opens)
        .into_iter()
        .enumerate()
        .filter_map(|(i, start)| Some((i, start?)))
        .filter(|&(i, start)| p.nodes[i].told.is_none() && start <= by)
        .collect()
}
