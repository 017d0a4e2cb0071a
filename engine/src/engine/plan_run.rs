//! The loop of the replica that runs a plan: it holds the plan's Lease, starts each node's drain as the person it
//! runs as when the limits allow (`domain::rollout::startable`), follows the drains, uncordons nodes once back, and
//! writes every change to the plan's status. It wakes on a change of a drain or of the plan (a `kubectl patch` of
//! `paused` is seen within the watch's delay), and every second for the Lease and the nodes awaited back.
//!
//! It acts only on the plan's pin (`domain::pin`): the spec a person with the rights confirmed, sealed in the
//! status. A change of a pinned field blocks it until a person continues it, confirming the new generation.
//!
//! A plan taken over from a server that stopped resumes from its status: a node recorded as draining whose drain
//! this server does not hold is read from the node's drain record. Only the plan's own drain (the id its status
//! names) with the plan's options counts: one that ended is taken as ended (never drained again); one interrupted
//! is resumed with the plan's pinned options; one another server still holds is waited for until that server's
//! node Lease expires; any other record blocks the plan, and nothing runs on that node.

use std::time::Duration;

use domain::{
    progress::DrainState,
    rollout::{self, RolloutProgress, RolloutState, Step},
};
use kube::ResourceExt;
use tokio_util::sync::CancellationToken;

use super::{
    Acting, Engine,
    plan_notices::Told,
    plan_resume::{Resuming, follow_drains},
    plan_silences::Silences,
};
use crate::{
    Error, Identity,
    plan::{
        MaintenancePlan, Plans,
        pin::{Check, admitted, check_pin, pinned, with_pin},
        status,
    },
};

/// How often the loop looks without being woken: the Lease's renewal and the nodes awaited back.
const LOOK_EVERY: Duration = Duration::from_secs(1);

pub(super) async fn run(
    engine: &Engine,
    plans: &Plans,
    identity: &Identity,
    client: &kube::Client,
    name: &str,
    stop: CancellationToken,
) {
    let acting = engine.acting_with(identity, client);
    let runner = format!("{} as {}", plans.holder(), identity.user);
    // The plan's Lease, renewed by the engine's one guard; once it gives up, nothing more is done or written here.
    let lost = CancellationToken::new();
    let _guard = {
        let (leases, plan, lost) = (plans.leases().clone(), name.to_owned(), lost.clone());
        crate::drain::AbortOnDrop(tokio::spawn(async move {
            let what = format!("plan {plan}");
            crate::lease::guard(&what, || {
                let (leases, plan) = (leases.clone(), plan.clone());
                async move { leases.renew_plan(&plan).await }
            })
            .await;
            lost.cancel();
        }))
    };
    // Read from the API server, not the watch: what the runner may act on is decided on the plan as it is.
    let Ok(Some(plan)) = plans.read(name).await else {
        tracing::warn!("the plan is gone before it ran");
        return;
    };
    let confirmed = plans.take_confirmed(name);
    let mut pin = match pinned(plans, &plan, identity, confirmed).await {
        Ok(pin) => pin,
        Err(why) => {
            tracing::warn!(why = %why.english(), "the plan may not act on its spec; it waits for a person");
            status::blocked(plans, &plan, &why.english()).await;
            plans.let_hold_go(name);
            return;
        }
    };
    let plan = with_pin(plan, &pin);
    let mut progress = plan.progress();
    let mut shown = progress.clone();
    // The spec is whatever anyone who may write plans wrote: its reason goes onto nodes and into the history, so it
    // is held to the page's own bound, checked again at each start since `kubectl patch` may change it.
    let checked = domain::input::reason(plan.spec.reason.as_deref()).map_err(Error::Invalid);
    let first = plan.status.as_ref().is_none_or(|s| s.nodes.is_empty());
    if checked.is_err() || first {
        let begun = match checked {
            Ok(_) => begin(&acting, &plan, &mut progress).await,
            Err(err) => Err(err),
        };
        if let Err(err) = begun {
            for node in &mut progress.nodes {
                node.step = match &node.step {
                    Step::Queued => Step::NotStarted,
                    Step::Draining(_) => Step::Ended(DrainState::Interrupted),
                    step => step.clone(),
                };
            }
            progress.state = RolloutState::Finished;
            progress.finished_at = Some(jiff::Timestamp::now());
            let _ = status::write(plans, name, &status::of(&progress, &plan, None)).await;
            status::event(plans, &plan, true, "Failed", format!("the plan could not start: {err}")).await;
            return;
        }
        Told::started(engine, &progress);
    } else {
        tracing::info!("taking the plan over from its status");
        status::event(plans, &plan, false, "TakenOver", format!("run by {runner}")).await;
    }
    progress.blocked = None;
    progress.runner = Some(runner.clone());
    // Whoever takes a person's plan on is recorded; the maintenance identity runs an unattended plan as asked, and
    // reads as its runner ("… as drainboard (unattended maintenance)").
    if identity.user != progress.started_by && identity.kind != crate::access::Kind::Maintenance {
        progress.continued_by = Some(identity.user.clone());
    }
    let shutdown = engine.shutdown_signal();
    let mut drains = engine.drain_changes();
    let mut changes = plans.changes();
    let mut cancelled = false;
    let mut latest = plan;
    let mut told = Told::default();
    let mut silences = Silences::default();
    loop {
        if lost.is_cancelled() {
            // Another server may run it now: this one writes nothing more of it.
            tracing::warn!("the plan's Lease is lost; this server stops running it");
            return;
        }
        match plans.get(name).await {
            Ok(Some(plan)) => match check_pin(plans, &plan, &pin, admitted(identity, &plan)).await {
                Check::Stale => {}
                Check::Same(repinned) => {
                    if let Some(repinned) = repinned {
                        pin = *repinned;
                    }
                    if progress.spec_changed.take().is_some() {
                        // Put back as it was confirmed: it goes on.
                        progress.blocked = None;
                    }
                    latest = with_pin(plan, &pin);
                }
                Check::Changed(why) => {
                    // Nothing more starts until a person confirms the change (continuing it, which stops this loop
                    // and runs it as them); this loop stays, so that the drains running, pausing, cancelling and
                    // deleting are still followed.
                    if progress.spec_changed.is_none() {
                        tracing::warn!(why = %why.english(), "the plan's spec changed since it was confirmed");
                    }
                    progress.spec_changed = with_pin(plan.clone(), &pin).spec_changed();
                    progress.blocked = Some(why.english());
                    latest = with_pin(plan, &pin);
                }
            },
            Ok(None) => cancelled = true,
            Err(_) => {}
        }
        cancelled |= latest.spec.cancelled || latest.metadata.deletion_timestamp.is_some();
        if identity.kind == crate::access::Kind::Maintenance && !latest.spec.unattended {
            // Someone took "unattended" off: the maintenance identity runs nothing it was not asked to.
            progress.blocked = Some(format!("no longer unattended: {}", status::NEEDS_MAINTAINER));
        }
        let plan_name = latest.name_any();
        let resuming = Resuming {
            confirmed: confirmed.is_some(),
            window_override: latest.spec.window_override.as_deref(),
            plan: &plan_name,
        };
        let resume_held = follow_drains(engine, &acting, &mut progress, &resuming).await;
        progress.state = if latest.spec.paused { RolloutState::Paused } else { RolloutState::Running };
        if cancelled || stop.is_cancelled() || shutdown.is_cancelled() || progress.settled() {
            break;
        }
        if progress.blocked.is_none() {
            super::plan_back::bring_back(&acting, &mut progress).await;
            let now = jiff::Timestamp::now();
            let done_before = Told::done_before(&progress);
            rollout::mark_done(&mut progress, now);
            Told::done(engine, &done_before, &progress);
            let settling = rollout::settling(&progress, now);
            // A drain to resume that a window holds waits as a node to start would, and says so.
            progress.held = resume_held.clone();
            let mut held = resume_held.as_ref().map(|h| (h.node.clone(), h.english()));
            for i in rollout::startable(&progress).into_iter().filter(|_| !settling) {
                // A maintenance window may hold it: it stays queued, and the plan says why until it may start.
                let name = progress.nodes[i].name.clone();
                let decision = engine.admit(&name).await;
                let overridden = match (&latest.spec.window_override, decision.may_start()) {
                    (Some(reason), false) => {
                        // Recorded once per plan: a node that then waits (for its Lease, say) is not recorded again,
                        // by this server or by one that takes the plan over, since the status keeps that it was.
                        let first = progress.nodes[i].overridden_at.is_none();
                        let plan = latest.name_any();
                        let let_go = acting.override_for_plan(&decision, reason, &plan, first).await;
                        if let_go && first {
                            progress.nodes[i].overridden_at = Some(now);
                            publish(plans, &latest, &mut shown, &progress, &lost).await;
                        }
                        let_go
                    }
                    _ => false,
                };
                if let Some(hold) = decision.held(now).filter(|_| !overridden) {
                    held.get_or_insert((name, hold.english()));
                    progress.held.get_or_insert(hold);
                    continue;
                }
                if lost.is_cancelled() {
                    break;
                }
                start(&acting, &mut progress, i).await;
                // Written at once, so that a server that takes over never starts this node a second time.
                publish(plans, &latest, &mut shown, &progress, &lost).await;
            }
            told.held(engine, &progress, held);
            silences.keep(engine, &progress, false).await;
        }
        if progress.blocked.is_some() && progress.spec_changed.is_none() {
            // Nothing more can be done as this person: the plan is left for whoever continues it.
            progress.runner = None;
            publish(plans, &latest, &mut shown, &progress, &lost).await;
            plans.let_hold_go(name);
            return;
        }
        publish(plans, &latest, &mut shown, &progress, &lost).await;
        tokio::select! {
            _ = tokio::time::sleep(LOOK_EVERY) => {}
            _ = drains.changed() => {}
            _ = changes.changed() => {}
            () = stop.cancelled() => {}
            () = shutdown.cancelled() => {}
            () = lost.cancelled() => {}
        }
    }
    if !cancelled && (stop.is_cancelled() || shutdown.is_cancelled()) {
        // Stopping: the drains record themselves as interrupted, and whoever takes the plan over resumes them.
        progress.runner = None;
        publish(plans, &latest, &mut shown, &progress, &lost).await;
        tracing::info!("the server stops; the plan is left for another to take over");
        return;
    }
    if cancelled {
        super::plan_end::cancel_drains(engine, &acting, &mut progress).await;
    }
    // The last nodes are done as the loop ends: seen done here, so that they are told as the others were.
    let done_before = Told::done_before(&progress);
    rollout::mark_done(&mut progress, jiff::Timestamp::now());
    Told::done(engine, &done_before, &progress);
    super::plan_end::finish(engine, &mut progress, cancelled);
    Told::ended(engine, &progress);
    silences.keep(engine, &progress, true).await;
    publish(plans, &latest, &mut shown, &progress, &lost).await;
    if latest.metadata.deletion_timestamp.is_some() {
        plans.let_go(name).await;
    }
    tracing::info!(state = ?progress.state, "plan ended");
}

/// The plan's first round: its nodes resolved (a selector's, from the caller's cache), each with its zone and
/// whether it was cordoned before.
async fn begin(acting: &Acting<'_>, plan: &MaintenancePlan, progress: &mut RolloutProgress) -> crate::Result<()> {
    let cards = acting.cards().await?;
    let names: Vec<String> = match &plan.spec.node_selector {
        Some(selector) if plan.spec.nodes.is_empty() => {
            let selector = domain::selector::LabelSelector::parse(selector)
                .map_err(|e| Error::Invalid(format!("the plan's node selector: {}", e.0)))?;
            cards.iter().filter(|c| selector.matches(&c.labels)).map(|c| c.name.clone()).collect()
        }
        _ => plan.spec.nodes.clone(),
    };
    rollout::check(&names, &plan.options()).map_err(Error::Invalid)?;
    let mut nodes = Vec::with_capacity(names.len());
    for name in names {
        let card = cards
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| Error::NotFound(format!("node {name} does not exist")))?;
        let mut node = domain::rollout::RolloutNode::queued(name, card.zone.clone());
        node.cordoned_before = Some(card.unschedulable);
        nodes.push(node);
    }
    progress.nodes = nodes;
    progress.started_at = jiff::Timestamp::now();
    Ok(())
}

/// Starts node `i`'s drain. A node whose Lease another server holds stays queued, to be tried again.
async fn start(acting: &Acting<'_>, progress: &mut RolloutProgress, i: usize) {
    let node = progress.nodes[i].name.clone();
    // What its drain touches, for the checks once it is back: recorded now, while its pods are still there.
    if progress.options.verify.is_some() && progress.nodes[i].touched.is_none() {
        progress.nodes[i].touched = super::plan_checks::touched(acting, &node, &progress.options.drain).await;
    }
    acting.estimate_plan_once(progress).await;
    match acting.start_plan_drain(progress, i).await {
        Ok(started) => {
            progress.nodes[i].drain_id = Some(started.id.clone());
            progress.nodes[i].step = Step::Draining(started.id);
        }
        Err(Error::Conflict(why)) => {
            tracing::info!(node = %progress.nodes[i].name, why = %why.english(), "waiting for the node")
        }
        // The person's credentials are no longer accepted: the node stays queued, and the plan waits for someone.
        Err(err) if err.failure() == domain::failure::Failure::CredentialsExpired => {
            progress.blocked = Some(format!(
                "the credentials of {} are no longer accepted (expired or revoked): {}",
                acting.identity().user,
                status::NEEDS_MAINTAINER
            ));
        }
        Err(err) => progress.nodes[i].step = Step::Ended(DrainState::Failed(err.failure())),
    }
}

/// Writes the status and tells the story when the progress changed since it was last shown.
/// Nothing once the plan's Lease is `lost`: another server may run it now, and its status is that server's.
async fn publish(
    plans: &Plans,
    plan: &MaintenancePlan,
    shown: &mut RolloutProgress,
    progress: &RolloutProgress,
    lost: &CancellationToken,
) {
    if lost.is_cancelled() {
        return;
    }
    let generation_seen = plan.status.as_ref().and_then(|s| s.observed_generation) == plan.metadata.generation;
    if shown == progress && generation_seen {
        return;
    }
    let status = status::of(progress, plan, progress.runner.clone());
    if let Err(err) = status::write(plans, &plan.name_any(), &status).await {
        tracing::warn!(error = %crate::kube_error::api_message(&err), "could not write the plan's status");
        return;
    }
    for (node, warning, reason, note) in status::story(shown, progress) {
        status::event_about(plans, plan, node.as_deref(), warning, &reason, note).await;
    }
    *shown = progress.clone();
}
