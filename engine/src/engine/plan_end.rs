//! A plan's end, in the loop of the replica that runs it (`plan_run`): the drains it cancels, and how each node
//! reads once the plan has ended.

use std::time::Duration;

use domain::{
    progress::DrainState,
    rollout::{Back, RolloutProgress, RolloutState, Step},
};

use super::{Acting, Engine};

/// Cancels the drains the plan started that still run here, and waits a little for their ends.
pub(super) async fn cancel_drains(engine: &Engine, acting: &Acting<'_>, progress: &mut RolloutProgress) {
    let running: Vec<String> = progress
        .nodes
        .iter()
        .filter_map(|n| match &n.step {
            Step::Draining(id) => Some(id.clone()),
            _ => None,
        })
        .collect();
    for id in &running {
        if let Err(err) = acting.cancel_drain(id).await {
            tracing::warn!(drain = %id, error = %err, "could not cancel a plan's drain");
        }
    }
    for _ in 0..50 {
        let settled = running.iter().all(|id| engine.drain_progress(id).map(|d| !d.state.is_running()).unwrap_or(true));
        if settled {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The plan's end: queued nodes not started, nodes awaited back left cordoned, and nodes still recovering read as
/// not seen recovered (a past plan does not say it is still waiting).
pub(super) fn finish(engine: &Engine, progress: &mut RolloutProgress, cancelled: bool) {
    for node in &mut progress.nodes {
        if node.waiting_back() {
            node.back = Some(Back::Left);
        }
        if node.recovering() {
            node.back = Some(Back::Unrecovered(vec![domain::verify::CheckFailure::PlanEnded]));
        }
        match &node.step {
            Step::Queued => node.step = Step::NotStarted,
            Step::Draining(id) => {
                let state = engine.drain_progress(id).map(|d| d.state).unwrap_or(DrainState::Interrupted);
                node.step = Step::Ended(if state.is_running() { DrainState::Interrupted } else { state });
            }
            _ => {}
        }
    }
    progress.state = if cancelled { RolloutState::Cancelled } else { RolloutState::Finished };
    progress.finished_at = Some(jiff::Timestamp::now());
    progress.runner = None;
}
