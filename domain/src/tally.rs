//! How a maintenance plan's nodes count: the one rule behind the plan's status (`done`, `awaited`, … and kubectl's
//! columns), the panel, the wall and the notices, so that none of them calls a node done while it is out of service.
//!
//! A node is done when the plan has nothing more to do with it and it is in service again: back, uncordoned and
//! verified for a plan that awaits its nodes back, or drained for one that does not (such a plan leaves its nodes
//! cordoned by design, and says so). A node drained and waiting for its reboot, one back but waiting for what its
//! drain moved to recover, one left cordoned when the plan stopped and one that never started are each counted
//! apart, never as done.

use serde::{Deserialize, Serialize};

use crate::{
    progress::DrainState,
    rollout::{Back, RolloutNode, Step},
};

/// Where one node of a plan stands, for counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Standing {
    /// Not started yet; it will be.
    Queued,
    /// Its drain runs (cordoned, pods going).
    Draining,
    /// Drained and cordoned, waiting to come back (a reboot, or a person's word).
    Awaited,
    /// Back and uncordoned; the plan waits for what its drain moved to recover before it moves on.
    Recovering,
    /// The plan is done with it, and it is in service (or, for a plan that does not await it, drained).
    Done,
    /// Drained, but the plan ended before it came back: it stays cordoned.
    LeftCordoned,
    /// Its drain was stopped (cancelled, or its server stopped): cordoned, not drained.
    Stopped,
    /// Its drain failed, or it came back and did not check out, or its uncordon failed.
    Failed,
    /// The plan ended before it started.
    NotStarted,
}

impl Standing {
    /// Every standing, in a plan's order.
    pub const ALL: [Standing; 9] = [
        Standing::Queued,
        Standing::Draining,
        Standing::Awaited,
        Standing::Recovering,
        Standing::Done,
        Standing::LeftCordoned,
        Standing::Stopped,
        Standing::Failed,
        Standing::NotStarted,
    ];

    /// Where `node` stands.
    pub fn of(node: &RolloutNode) -> Standing {
        let state = match &node.step {
            Step::Queued => return Standing::Queued,
            Step::NotStarted => return Standing::NotStarted,
            Step::Draining(_) => return Standing::Draining,
            Step::Ended(state) => state,
        };
        match &node.back {
            Some(Back::Waiting(_)) => Standing::Awaited,
            Some(Back::Recovering) => Standing::Recovering,
            Some(Back::Uncordoned) => Standing::Done,
            Some(Back::Left) => Standing::LeftCordoned,
            Some(Back::Failed(_) | Back::Unverified(_) | Back::Unrecovered(_)) => Standing::Failed,
            None => match state {
                DrainState::Cancelled | DrainState::Interrupted => Standing::Stopped,
                s if s.is_drained() || s.is_final_ok() => Standing::Done,
                _ => Standing::Failed,
            },
        }
    }

    /// A stable name, for tests, styles and metrics.
    pub fn label(self) -> &'static str {
        match self {
            Standing::Queued => "queued",
            Standing::Draining => "draining",
            Standing::Awaited => "awaited",
            Standing::Recovering => "recovering",
            Standing::Done => "done",
            Standing::LeftCordoned => "left-cordoned",
            Standing::Stopped => "stopped",
            Standing::Failed => "failed",
            Standing::NotStarted => "not-started",
        }
    }

    /// Whether the node is out of service because of the plan: cordoned by it, and not yet handed back.
    pub fn out_of_service(self) -> bool {
        matches!(self, Standing::Draining | Standing::Awaited | Standing::LeftCordoned | Standing::Stopped)
    }
}

/// A plan's nodes, counted by where they stand. The counts add up to `total`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub total: u32,
    pub queued: u32,
    pub draining: u32,
    pub awaited: u32,
    pub recovering: u32,
    pub done: u32,
    pub left_cordoned: u32,
    pub stopped: u32,
    pub failed: u32,
    pub not_started: u32,
}

impl Tally {
    /// Counts `nodes`.
    pub fn of(nodes: &[RolloutNode]) -> Tally {
        let mut tally = Tally::default();
        for node in nodes {
            let count = match Standing::of(node) {
                Standing::Queued => &mut tally.queued,
                Standing::Draining => &mut tally.draining,
                Standing::Awaited => &mut tally.awaited,
                Standing::Recovering => &mut tally.recovering,
                Standing::Done => &mut tally.done,
                Standing::LeftCordoned => &mut tally.left_cordoned,
                Standing::Stopped => &mut tally.stopped,
                Standing::Failed => &mut tally.failed,
                Standing::NotStarted => &mut tally.not_started,
            };
            *count = count.saturating_add(1);
            tally.total = tally.total.saturating_add(1);
        }
        tally
    }

    /// How many nodes the plan has taken out of service and not handed back.
    pub fn out_of_service(&self) -> u32 {
        self.draining.saturating_add(self.awaited).saturating_add(self.left_cordoned).saturating_add(self.stopped)
    }
}

/// The names of the nodes that stand so, in the plan's order.
pub fn standing(nodes: &[RolloutNode], standing: Standing) -> Vec<&str> {
    nodes.iter().filter(|n| Standing::of(n) == standing).map(|n| n.name.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{failure::Failure, verify::CheckFailure};

    fn node(step: Step, back: Option<Back>) -> RolloutNode {
        let mut n = RolloutNode::queued("n".into(), None);
        n.step = step;
        n.back = back;
        n
    }

    #[test]
    fn each_step_and_way_back_stands_as_the_table_says() {
        let ended = |s: DrainState| Step::Ended(s);
        let check = || vec![CheckFailure::NotReady { node: "n".into() }];
        let rows: Vec<(Step, Option<Back>, Standing)> = vec![
            (Step::Queued, None, Standing::Queued),
            (Step::Draining("d".into()), None, Standing::Draining),
            (Step::NotStarted, None, Standing::NotStarted),
            // A plan that does not await its nodes: drained is done (kubectl's skip-wait counts as drained).
            (ended(DrainState::Drained), None, Standing::Done),
            (ended(DrainState::DrainedExceptTerminating(2)), None, Standing::Done),
            (ended(DrainState::DryRunAccepted), None, Standing::Done),
            // A plan that awaits them: drained is not done until it is back and uncordoned.
            (ended(DrainState::Drained), Some(Back::Waiting(Some("b1".into()))), Standing::Awaited),
            (ended(DrainState::Drained), Some(Back::Waiting(None)), Standing::Awaited),
            (ended(DrainState::Drained), Some(Back::Recovering), Standing::Recovering),
            (ended(DrainState::Drained), Some(Back::Uncordoned), Standing::Done),
            (ended(DrainState::Drained), Some(Back::Left), Standing::LeftCordoned),
            (ended(DrainState::Drained), Some(Back::Unverified(check())), Standing::Failed),
            (ended(DrainState::Drained), Some(Back::Unrecovered(check())), Standing::Failed),
            (ended(DrainState::Drained), Some(Back::Failed(Failure::CredentialsExpired)), Standing::Failed),
            // Stopped drains are neither done nor failures of the node.
            (ended(DrainState::Cancelled), None, Standing::Stopped),
            (ended(DrainState::Interrupted), None, Standing::Stopped),
            (ended(DrainState::TimedOut), None, Standing::Failed),
            (ended(DrainState::Refused), None, Standing::Failed),
            (ended(DrainState::DryRunPlanned), None, Standing::Failed),
            (ended(DrainState::Failed(Failure::TimedOut { seconds: 5 })), None, Standing::Failed),
        ];
        for (step, back, want) in rows {
            let n = node(step.clone(), back.clone());
            assert_eq!(Standing::of(&n), want, "{step:?} / {back:?}");
        }
    }

    #[test]
    fn a_paused_plan_with_two_nodes_awaiting_a_reboot_has_none_done() {
        // The walk-through's wall: three nodes, one draining, two drained and awaiting their reboot.
        let nodes = vec![
            node(Step::Draining("d3".into()), None),
            node(Step::Ended(DrainState::Drained), Some(Back::Waiting(Some("b1".into())))),
            node(Step::Ended(DrainState::Drained), Some(Back::Waiting(Some("b2".into())))),
        ];
        let t = Tally::of(&nodes);
        assert_eq!((t.total, t.done, t.awaited, t.draining), (3, 0, 2, 1));
        assert_eq!(t.out_of_service(), 3);
    }

    #[test]
    fn a_cancelled_plan_whose_node_never_started_has_none_done() {
        let t = Tally::of(&[node(Step::NotStarted, None)]);
        assert_eq!((t.total, t.done, t.not_started), (1, 0, 1));
    }

    #[test]
    fn the_counts_add_up_to_the_total() {
        let nodes: Vec<RolloutNode> = vec![
            node(Step::Queued, None),
            node(Step::Ended(DrainState::Drained), Some(Back::Uncordoned)),
            node(Step::Ended(DrainState::Drained), Some(Back::Left)),
            node(Step::Ended(DrainState::Cancelled), None),
            node(Step::Ended(DrainState::TimedOut), None),
            node(Step::NotStarted, None),
        ];
        let t = Tally::of(&nodes);
        let sum = t.queued
            + t.draining
            + t.awaited
            + t.recovering
            + t.done
            + t.left_cordoned
            + t.stopped
            + t.failed
            + t.not_started;
        assert_eq!(sum, t.total);
        assert_eq!((t.done, t.left_cordoned, t.stopped, t.failed), (1, 1, 1, 1));
        assert_eq!(standing(&nodes, Standing::LeftCordoned), vec!["n"]);
    }
}
