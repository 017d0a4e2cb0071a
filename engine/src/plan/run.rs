//! The loop of the replica that runs a plan. It holds the plan's Lease (renewed by `crate::lease::guard`; once
//! lost, nothing more is done or written here), and at each look gathers what it sees (`plan_look`), lets the pure
//! step decide (`domain::plan_step`: what starts, resumes, ends, is uncordoned, told and silenced), carries that out
//! as the person the plan runs as (`plan_effects`) and writes the status. It looks on a change of a drain or of the
//! plan, and every second for the nodes awaited back.
//!
//! It acts only on the plan's pin (`domain::pin`): the spec a person with the rights confirmed, sealed in the
//! status. A change of a pinned field blocks it until a person continues it, confirming the new generation; the
//! loop stays meanwhile, following the drains, a pause, a cancel and a delete.
//!
//! A plan taken over from a server that stopped resumes from its status: only the plan's own drain on a node (the
//! id its status names), with the pinned options, is resumed, and any other record blocks the plan.

use std::time::Duration;

use domain::{
    plan_step::{self, Next, PlanSeen, SpecSeen},
    progress::DrainState,
    rollout::{self, RolloutProgress, RolloutState, Step},
};
use kube::ResourceExt;
use tokio_util::sync::CancellationToken;

use super::{
    effects::{self, Doing, Shown},
    look::{self, Seeing},
    notices::Told,
    silences::Silences,
};
use crate::engine::{Acting, Engine};
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
    if plan.ended() {
        // This server's watch had not seen it end (a server cut off from the API server, say, whose watch comes
        // back late): another server ended it, and nothing more is written of it here.
        tracing::info!("the plan has ended already; nothing to run");
        return;
    }
    let confirmed = plans.take_confirmed(name);
    let mut pin = match pinned(plans, &plan, identity, confirmed).await {
        Ok(pin) => pin,
        Err(why) => {
            tracing::warn!(why = %why.english(), "the plan may not act on its spec; it waits for a person");
            status::blocked(plans, &plan, &domain::plan_block::Blocked::Unpinned(why)).await;
            plans.let_hold_go(name);
            return;
        }
    };
    let plan = with_pin(plan, &pin);
    let mut progress = plan.progress();
    let mut shown = Shown { progress: progress.clone(), version: plan.resource_version() };
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
            let version = plan.resource_version();
            let _ = status::write_on(plans, name, &status::of(&progress, &plan, None), version.as_deref()).await;
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
    let mut latest = plan;
    let mut gone = false;
    let mut told = Told::default();
    let mut silences = Silences::default();
    loop {
        // The plan as it is now, against its pin: what the step may act on.
        let spec = match plans.get(name).await {
            Ok(Some(plan)) => match check_pin(plans, &plan, &pin, admitted(identity, &plan)).await {
                Check::Stale => SpecSeen::Unread,
                Check::Same(repinned) => {
                    if let Some(repinned) = repinned {
                        pin = *repinned;
                    }
                    latest = with_pin(plan, &pin);
                    SpecSeen::Same
                }
                Check::Changed(why) => {
                    if progress.spec_changed.is_none() {
                        tracing::warn!(why = %why.english(), "the plan's spec changed since it was confirmed");
                    }
                    latest = with_pin(plan, &pin);
                    SpecSeen::Changed { why, diff: latest.spec_changed() }
                }
            },
            Ok(None) => {
                gone = true;
                SpecSeen::Unread
            }
            Err(_) => SpecSeen::Unread,
        };
        let seeing = Seeing {
            plan: PlanSeen {
                gone,
                deleting: latest.metadata.deletion_timestamp.is_some(),
                cancelled: latest.spec.cancelled,
                paused: latest.spec.paused,
                unattended: latest.spec.unattended,
                spec,
                window_override: latest.spec.window_override.clone(),
            },
            lease_lost: lost.is_cancelled(),
            stopping: stop.is_cancelled() || shutdown.is_cancelled(),
            maintenance: identity.kind == crate::access::Kind::Maintenance,
            confirmed: confirmed.is_some(),
        };
        let mut look = look::look(engine, &acting, &progress, seeing).await;
        let stepped = plan_step::step(&progress, &look);
        progress = stepped.status;
        let plan_name = latest.name_any();
        let mut doing = Doing {
            engine,
            acting: &acting,
            plan: &plan_name,
            lost: &lost,
            silences: &mut silences,
            plans,
            latest: &latest,
            shown: &mut shown,
        };
        match stepped.next {
            Next::Drop => {
                // Another server may run it now: this one writes nothing more of it.
                tracing::warn!("the plan's Lease is lost; this server stops running it");
                return;
            }
            Next::Handover => {
                // Stopping: the drains record themselves as interrupted, and whoever takes the plan over resumes
                // them.
                effects::publish(plans, &latest, &mut shown, &progress, &lost).await;
                tracing::info!("the server stops; the plan is left for another to take over");
                return;
            }
            Next::Leave => {
                // Nothing more can be done as this person: the plan is left for whoever continues it.
                effects::publish(plans, &latest, &mut shown, &progress, &lost).await;
                plans.let_hold_go(name);
                return;
            }
            Next::End { cancelled } => {
                effects::carry_out(&mut doing, &mut progress, stepped.effects).await;
                look::drains_here(engine, &progress, &mut look);
                let ended = plan_step::finish(&progress, &look, cancelled);
                progress = ended.status;
                effects::carry_out(&mut doing, &mut progress, ended.effects).await;
                effects::publish(plans, &latest, &mut shown, &progress, &lost).await;
                if latest.metadata.deletion_timestamp.is_some() {
                    plans.let_go(name).await;
                }
                tracing::info!(state = ?progress.state, "plan ended");
                return;
            }
            Next::Look => {
                let held = effects::carry_out(&mut doing, &mut progress, stepped.effects).await;
                if progress.blocked.is_none() {
                    told.held(engine, &progress, held);
                }
            }
        }
        effects::publish(plans, &latest, &mut shown, &progress, &lost).await;
        tokio::select! {
            _ = tokio::time::sleep(LOOK_EVERY) => {}
            _ = drains.changed() => {}
            _ = changes.changed() => {}
            () = stop.cancelled() => {}
            () = shutdown.cancelled() => {}
            () = lost.cancelled() => {}
        }
    }
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
