//! When a plan's runner looks again by itself, with no watch event to wake it. Most of what moves a plan on comes
//! as an event (a drain's progress, an edit of the plan, its Lease); what does not is time (a settle, a deadline,
//! a window that opens) and the nodes awaited back, whose cards the runner reads. So a runner looks again soon only
//! while one of those is awaited, now and then while a drain runs (its silences are extended on the way), and
//! otherwise waits for a change.

use jiff::Timestamp;

use crate::rollout::{self, RolloutProgress, RolloutState, Step};

/// When the runner looks again by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// In about a second: a node is awaited back or recovering, the plan settles, or a node that may start waits
    /// (a window holds it, say) and the time decides when it goes.
    Soon,
    /// Within a short while: a drain runs, and the plan's silences are kept on the way.
    Later,
    /// Only on an event: the plan is paused, waits for a person, or has ended.
    OnChange,
}

/// When the runner of `p` looks again by itself, at `now`.
pub fn wake(p: &RolloutProgress, now: Timestamp) -> Wake {
    if p.state == RolloutState::Finished {
        return Wake::OnChange;
    }
    if p.nodes.iter().any(|n| n.waiting_back() || n.recovering()) {
        return Wake::Soon;
    }
    let moving = p.state == RolloutState::Running && p.blocked.is_none() && p.spec_changed.is_none();
    let draining = p.nodes.iter().any(|n| matches!(n.step, Step::Draining(_)));
    let queued = p.nodes.iter().any(|n| n.step == Step::Queued);
    if moving && (p.held.is_some() || rollout::settling(p, now) || (queued && !draining && !p.stopping())) {
        return Wake::Soon;
    }
    if draining {
        return Wake::Later;
    }
    Wake::OnChange
}
