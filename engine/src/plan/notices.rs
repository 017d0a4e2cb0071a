//! What the runner of a plan (`runner`) tells the webhooks (`crate::notices`): the plan started, a node done,
//! a node held longer than the threshold (once per hold), the plan ended. Only the replica that runs a plan tells,
//! so each is told once; a plan taken over does not start again, and a node already done is not done again.

use std::time::Instant;

use domain::{notice::Notice, rollout::RolloutProgress};

use crate::engine::Engine;

/// The hold being watched: the node, since when, and whether it was told.
#[derive(Default)]
pub(super) struct Told {
    held: Option<(String, Instant, bool)>,
}

impl Told {
    pub(super) fn started(engine: &Engine, progress: &RolloutProgress) {
        engine.notify(Notice::PlanStarted {
            plan: progress.id.clone(),
            by: progress.started_by.clone(),
            nodes: progress.nodes.len(),
            reason: progress.reason.clone(),
        });
    }

    /// The node a window holds now, and why (`None`: none): told once it has been held longer than the threshold.
    pub(super) fn held(&mut self, engine: &Engine, progress: &RolloutProgress, now: Option<(String, String)>) {
        let Some(after) = engine.notify_blocked_after() else { return };
        let Some((node, why)) = now else {
            self.held = None;
            return;
        };
        let same = self.held.as_ref().is_some_and(|(held, ..)| *held == node);
        if !same {
            self.held = Some((node, Instant::now(), false));
            return;
        }
        if let Some((node, since, told)) = &mut self.held
            && !*told
            && since.elapsed() >= after
        {
            *told = true;
            let seconds = since.elapsed().as_secs();
            engine.notify(Notice::NodeBlocked { plan: progress.id.clone(), node: node.clone(), why, seconds });
        }
    }
}
