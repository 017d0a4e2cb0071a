//! A plan's drains as its runner follows them: where each node's drain is now, and, for a plan taken over, the
//! drains another server ran, judged against what the plan's runner wrote (`domain::pin::judge_record`) and
//! admitted by the maintenance windows before one is resumed.

use domain::{
    pin::RecordVerdict,
    progress::DrainState,
    rollout::{Back, RolloutProgress, Step},
};

use super::{Acting, Engine};
use crate::Error;

/// How a drain of the plan's is resumed after a takeover.
pub(super) struct Resuming<'a> {
    /// A person confirmed the plan's pin as this runner started (see `domain::pin::judge_record`).
    pub(super) confirmed: bool,
    /// The plan's pinned window override, and its name, for a resume a window holds.
    pub(super) window_override: Option<&'a str>,
    pub(super) plan: &'a str,
}

/// Where each draining node's drain is now. A drain to resume that a maintenance window holds is not resumed:
/// the hold is answered, and the node waits.
pub(super) async fn follow_drains(
    engine: &Engine,
    acting: &Acting<'_>,
    progress: &mut RolloutProgress,
    resuming: &Resuming<'_>,
) -> Option<domain::window::HeldNode> {
    let mut held = None;
    let uncordon_when_back = progress.options.uncordon_when_back;
    for i in 0..progress.nodes.len() {
        let Step::Draining(id) = progress.nodes[i].step.clone() else { continue };
        let name = progress.nodes[i].name.clone();
        let state = match engine.drain_progress(&id) {
            // Interrupted (this server stops, or lost the node's Lease): the node stays draining, for this loop or
            // the server that takes the plan over to resume.
            Ok(drain) if drain.state == DrainState::Interrupted && engine.shutdown_signal().is_cancelled() => continue,
            Ok(drain) if drain.state != DrainState::Interrupted => drain.state,
            _ => match adopt(acting, &name, &id, &mut *progress, resuming, &mut held).await {
                Some(Step::Ended(state)) => state,
                Some(step) => {
                    if let Step::Draining(id) = &step {
                        progress.nodes[i].drain_id = Some(id.clone());
                    }
                    progress.nodes[i].step = step;
                    continue;
                }
                None => continue,
            },
        };
        if state.is_running() {
            continue;
        }
        if uncordon_when_back && state.is_drained() {
            let boot = acting.cache().await.ok().and_then(|c| c.node_card(&name)).and_then(|c| c.boot_id);
            progress.nodes[i].back = Some(Back::Waiting(boot));
            progress.nodes[i].waiting_since = Some(jiff::Timestamp::now());
        }
        progress.nodes[i].step = Step::Ended(state);
    }
    held
}

/// A node's drain this server does not hold (the plan was taken over): what its record on the node says, judged
/// against what the plan's runner wrote (`domain::pin::judge_record`). `None` while another server still runs it,
/// or, with the plan blocked, when the record is not the plan's drain with the plan's options: a record is
/// whatever anyone who may patch the node wrote, and it chooses nothing.
async fn adopt(
    acting: &Acting<'_>,
    node: &str,
    id: &str,
    progress: &mut RolloutProgress,
    resuming: &Resuming<'_>,
    held: &mut Option<domain::window::HeldNode>,
) -> Option<Step> {
    let record = match acting.recorded_drain(node).await {
        Ok(record) => record,
        // No record: the drain never wrote one; start it as a queued node would be.
        Err(Error::NotFound(_)) => {
            return Some(
                match acting.start_drain(node.into(), progress.options.drain.clone(), progress.reason.clone()).await {
                    Ok(started) => Step::Draining(started.id),
                    Err(Error::Conflict(_)) => return None,
                    Err(err) => Step::Ended(DrainState::Failed(err.failure())),
                },
            );
        }
        Err(_) => return None,
    };
    match domain::pin::judge_record(node, id, &record, &progress.options.drain, resuming.confirmed) {
        RecordVerdict::Resume => {
            // Admitted by the windows as any start is; the node's cordon already counts in their budgets.
            let decision = acting.engine().admit(node).await;
            if !decision.may_start() {
                let overridden = match resuming.window_override {
                    Some(reason) => acting.override_for_plan(&decision, reason, resuming.plan, true).await,
                    None => false,
                };
                if !overridden {
                    if let Some(hold) = decision.held(jiff::Timestamp::now()) {
                        held.get_or_insert(hold);
                    }
                    return None;
                }
            }
            tracing::info!(%node, drain = %id, "resuming the interrupted drain of a plan taken over");
            // The plan's own options and reason, never the record's.
            let (options, reason) = (progress.options.drain.clone(), progress.reason.clone());
            Some(match acting.resume_drain(node.into(), options, reason).await {
                Ok(started) => Step::Draining(started.id),
                Err(Error::Conflict(_)) => return None,
                Err(err) => Step::Ended(DrainState::Failed(err.failure())),
            })
        }
        RecordVerdict::Running => None,
        RecordVerdict::Ended(state) => Some(Step::Ended(state)),
        RecordVerdict::Mismatch(mismatch) => {
            tracing::warn!(%node, why = %mismatch.english(), "a node's drain record is not the plan's; nothing runs there");
            progress.blocked = Some(mismatch.english());
            None
        }
    }
}
