//! What a plan's step asks for (`domain::plan_step::Effect`), carried out as the person the plan runs as, each
//! outcome folded back into the status (`domain::plan_step::absorb`). A node's start is written to the status at
//! once, so that a server that takes the plan over never starts it a second time.

use std::time::Duration;

use domain::{
    plan_step::{self, Effect, Outcome},
    rollout::{RolloutProgress, Step},
    window::Decision,
};
use kube::ResourceExt;
use tokio_util::sync::CancellationToken;

use super::silences::Silences;
use crate::engine::{Acting, Engine};
use crate::{
    Error,
    plan::{MaintenancePlan, Plans, status},
};

/// Where the effects write, and what they keep between looks.
pub(super) struct Doing<'a> {
    pub(super) engine: &'a Engine,
    pub(super) acting: &'a Acting<'a>,
    pub(super) plan: &'a str,
    pub(super) lost: &'a CancellationToken,
    pub(super) silences: &'a mut Silences,
    /// Where the status is written, and what it was last written as.
    pub(super) plans: &'a Plans,
    pub(super) latest: &'a MaintenancePlan,
    pub(super) shown: &'a mut Shown,
}

impl Doing<'_> {
    async fn publish(&mut self, progress: &RolloutProgress) {
        publish(self.plans, self.latest, self.shown, progress, self.lost).await;
    }
}

/// Carries out `effects` in order, folding each outcome into `progress`, and writes the status after each start.
/// The first node a window holds, and why, for the notice of a long hold.
pub(super) async fn carry_out(
    doing: &mut Doing<'_>,
    progress: &mut RolloutProgress,
    effects: Vec<Effect>,
) -> Option<(String, String)> {
    let mut held = None;
    for effect in effects {
        if doing.lost.is_cancelled() {
            break;
        }
        let now = jiff::Timestamp::now();
        match effect {
            Effect::Start { node, window_override, record_override, teams_untold } => {
                if progress.blocked.is_some() {
                    // The credentials were refused at a start before: the others would be too.
                    continue;
                }
                let decision = doing.engine.admit(&node).await;
                // Only what holds it is learnt while its teams are untold: no override is recorded unused.
                let record = record_override && !teams_untold;
                match past_windows(doing, &decision, window_override.as_deref(), record).await {
                    Admitted::Yes { .. } if teams_untold => {
                        // Free since the look (a window just lifted, say): the next look tells its teams, then
                        // starts it. No pod goes before they are told.
                        tracing::info!(%node, "the node waits for its app teams to be told before it starts");
                        continue;
                    }
                    Admitted::Yes { recorded } => {
                        if recorded {
                            plan_step::absorb(progress, Outcome::Overridden { node: node.clone() }, now);
                            doing.publish(progress).await;
                        }
                    }
                    Admitted::No => {
                        if let Some(hold) = decision.held(now) {
                            held.get_or_insert((node.clone(), hold.english()));
                            plan_step::absorb(progress, Outcome::Held(hold), now);
                        }
                        continue;
                    }
                }
                for outcome in start(doing.acting, progress, &node).await {
                    plan_step::absorb(progress, outcome, now);
                }
                doing.publish(progress).await;
            }
            Effect::Resume { node, window_override } => {
                let decision = doing.engine.admit(&node).await;
                if let Admitted::No = past_windows(doing, &decision, window_override.as_deref(), true).await {
                    if let Some(hold) = decision.held(now) {
                        held.get_or_insert((node.clone(), hold.english()));
                        plan_step::absorb(progress, Outcome::Held(hold), now);
                    }
                    continue;
                }
                tracing::info!(%node, "resuming the interrupted drain of a plan taken over");
                // The plan's own options and reason, never the record's.
                let (options, reason) = (progress.options.drain.clone(), progress.reason.clone());
                let result = doing.acting.resume_drain(node.clone(), options, reason).await;
                if let Some(outcome) = started(&node, result) {
                    plan_step::absorb(progress, outcome, now);
                }
            }
            Effect::Restart { node } => {
                let (options, reason) = (progress.options.drain.clone(), progress.reason.clone());
                let result = doing.acting.start_drain(node.clone(), options, reason).await;
                if let Some(outcome) = started(&node, result) {
                    plan_step::absorb(progress, outcome, now);
                }
            }
            Effect::Uncordon { node } => {
                tracing::info!(%node, "node is back and checks out; uncordoning it");
                // Never over another tool's work: a node some tool cordoned since stays cordoned, and the plan says
                // which (`domain::actor`); nobody typed its name.
                let result = doing.acting.uncordon(&node, None).await;
                let result = result.map(|_| ()).map_err(|err| err.failure());
                plan_step::absorb(progress, Outcome::Uncordoned { node, result }, now);
            }
            Effect::Cancel { drains } => cancel(doing, &drains).await,
            Effect::Notify(notice) => doing.engine.notify(notice),
            Effect::Tell { team, notice } => {
                tracing::info!(%team, kind = notice.kind(), node = notice.subject(), "telling an app team");
                doing.engine.tell(&team, notice);
            }
            Effect::Silences { ending } => doing.silences.keep(doing.engine, progress, ending).await,
        }
    }
    held
}

enum Admitted {
    Yes { recorded: bool },
    No,
}

/// Whether a node the windows decided on may start: nothing holds it, or the plan's pinned override lets it past,
/// when its runner may override (the override recorded on its first use for the node).
async fn past_windows(doing: &Doing<'_>, decision: &Decision, window_override: Option<&str>, record: bool) -> Admitted {
    if decision.may_start() {
        return Admitted::Yes { recorded: false };
    }
    match window_override {
        Some(reason) if doing.acting.override_for_plan(decision, reason, doing.plan, record).await => {
            Admitted::Yes { recorded: record }
        }
        _ => Admitted::No,
    }
}

/// Starts `node`'s drain: what it touches recorded first, for the checks once it is back, and the plan's estimate
/// made as its first node starts.
async fn start(acting: &Acting<'_>, progress: &RolloutProgress, node: &str) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    let Some(i) = progress.nodes.iter().position(|n| n.name == node) else { return outcomes };
    let mut progress = progress.clone();
    if progress.options.verify.is_some()
        && progress.nodes[i].touched.is_none()
        && let Some(touched) = super::checks::touched(acting, node, &progress.options.drain).await
    {
        progress.nodes[i].touched = Some(touched.clone());
        outcomes.push(Outcome::Touched { node: node.into(), touched });
    }
    let names: Vec<String> = progress.nodes.iter().map(|n| n.name.clone()).collect();
    if progress.estimate.is_none()
        && progress.nodes.iter().all(|n| n.step == Step::Queued)
        && let Ok(Ok(estimate)) = acting.estimate_plan(&names, &progress.options).await
    {
        outcomes.push(Outcome::Estimated(estimate.clone()));
        plan_step::absorb(&mut progress, Outcome::Estimated(estimate), jiff::Timestamp::now());
    }
    match acting.start_plan_drain(&progress, i).await {
        Ok(started) => outcomes.push(Outcome::Started { node: node.into(), drain: started.id }),
        // Another server holds the node's Lease: it stays queued, to be tried again.
        Err(Error::Conflict(why)) => tracing::info!(%node, why = %why.english(), "waiting for the node"),
        // The person's credentials are no longer accepted: the node stays queued, and the plan waits for someone.
        Err(err) if err.failure() == domain::failure::Failure::CredentialsExpired => {
            outcomes.push(Outcome::CredentialsRefused { user: acting.identity().user.clone() })
        }
        Err(err) => outcomes.push(Outcome::Failed { node: node.into(), failure: err.failure() }),
    }
    outcomes
}

/// A resumed or restarted drain's outcome: `None` while another server holds the node's Lease.
fn started(node: &str, result: crate::Result<domain::progress::DrainStarted>) -> Option<Outcome> {
    match result {
        Ok(started) => Some(Outcome::Started { node: node.into(), drain: started.id }),
        Err(Error::Conflict(_)) => None,
        Err(err) => Some(Outcome::Failed { node: node.into(), failure: err.failure() }),
    }
}

/// Cancels the plan's drains that still run here, and waits a little for their ends.
async fn cancel(doing: &Doing<'_>, drains: &[String]) {
    for id in drains {
        if let Err(err) = doing.acting.cancel_drain(id).await {
            tracing::warn!(drain = %id, error = %err, "could not cancel a plan's drain");
        }
    }
    for _ in 0..50 {
        let settled =
            drains.iter().all(|id| doing.engine.drain_progress(id).map(|d| !d.state.is_running()).unwrap_or(true));
        if settled {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The status as this runner last wrote it, and the plan's version it last knew: each write is conditional on that
/// version (a merge patch naming its `resourceVersion`), so that a write never lands on a plan changed since
/// unseen. A conflict reads the plan again from the API server, and writes again only while its status names this
/// runner or none: a status another runner wrote since means this one was taken over, and stops.
pub(super) struct Shown {
    pub(super) progress: RolloutProgress,
    pub(super) version: Option<String>,
}

/// Writes the status and tells the story when the progress changed since it was last shown.
/// Nothing once the plan's Lease is `lost`: another server may run it now, and its status is that server's.
pub(super) async fn publish(
    plans: &Plans,
    plan: &MaintenancePlan,
    shown: &mut Shown,
    progress: &RolloutProgress,
    lost: &CancellationToken,
) {
    if lost.is_cancelled() {
        return;
    }
    let generation_seen = plan.status.as_ref().and_then(|s| s.observed_generation) == plan.metadata.generation;
    if shown.progress == *progress && generation_seen {
        return;
    }
    let name = plan.name_any();
    let status = status::of(progress, plan, progress.runner.clone());
    for _ in 0..2 {
        match status::write_on(plans, &name, &status, shown.version.as_deref()).await {
            Ok(written) => {
                shown.version = written.resource_version();
                for (node, warning, reason, note) in status::story(&shown.progress, progress) {
                    status::event_about(plans, plan, node.as_deref(), warning, &reason, note).await;
                }
                shown.progress = progress.clone();
                return;
            }
            Err(kube::Error::Api(answer)) if answer.code == 409 => {
                let fresh = match plans.read(&name).await {
                    Ok(Some(fresh)) => fresh,
                    _ => return,
                };
                let runner = fresh.status.as_ref().and_then(|s| s.runner.clone());
                if runner.is_some() && runner != shown.progress.runner && runner != progress.runner {
                    tracing::warn!(runner = ?runner, "another runner wrote the plan's status since; this one stops");
                    lost.cancel();
                    return;
                }
                shown.version = fresh.resource_version();
            }
            Err(err) => {
                tracing::warn!(error = %crate::kube_error::api_message(&err), "could not write the plan's status");
                return;
            }
        }
    }
}
