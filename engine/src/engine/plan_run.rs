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
    rollout::{self, Back, RolloutProgress, RolloutState, Step},
};
use kube::ResourceExt;
use tokio_util::sync::CancellationToken;

use domain::pin::{PinRead, RecordVerdict, Unpinned, Verdict};

use super::{Acting, Engine, plan_notices::Told, plan_silences::Silences};
use crate::{
    Error, Identity,
    plan::{MaintenancePlan, Plans, resource::PlanPin, status},
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
                        pin = repinned;
                    }
                    latest = with_pin(plan, &pin);
                }
                Check::Changed(why) => {
                    // Nothing more starts: the drains running go on with the options they were started with.
                    tracing::warn!(why = %why.english(), "the plan's spec changed since it was confirmed");
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
        if progress.blocked.is_some() {
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

/// Where each draining node's drain is now.
/// How a drain of the plan's is resumed after a takeover.
struct Resuming<'a> {
    /// A person confirmed the plan's pin as this runner started (see `domain::pin::judge_record`).
    confirmed: bool,
    /// The plan's pinned window override, and its name, for a resume a window holds.
    window_override: Option<&'a str>,
    plan: &'a str,
}

/// Where each draining node's drain is now. A drain to resume that a maintenance window holds is not resumed:
/// the hold is answered, and the node waits.
async fn follow_drains(
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

/// The plan as its runner acts on it: the spec's pinned fields as `pin` has them (pausing, cancelling and the
/// reason stay as the spec has them), and the pin in its status.
fn with_pin(mut plan: MaintenancePlan, pin: &PlanPin) -> MaintenancePlan {
    let spec = &pin.spec;
    plan.spec.nodes = spec.nodes.clone();
    plan.spec.node_selector = spec.node_selector.clone();
    plan.spec.max_parallel = spec.max_parallel;
    plan.spec.one_per_zone = spec.one_per_zone;
    plan.spec.stop_on_failure = spec.stop_on_failure;
    plan.spec.uncordon_when_back = spec.uncordon_when_back;
    plan.spec.drain = spec.drain.clone();
    plan.spec.verify = spec.verify.clone();
    plan.spec.settle_seconds = spec.settle_seconds;
    plan.spec.window_override = spec.window_override.clone();
    plan.spec.unattended = spec.unattended;
    plan.status.get_or_insert_with(Default::default).pinned = Some(pin.clone());
    plan
}

/// Who pins what this runner does: the person who started or continued the plan here (the generation they
/// confirmed), the unattended identity for a plan whose every change the admission policy judged, or a pin a
/// server sealed before (moved to the current generation when only what is not pinned changed). Written before
/// anything is done; `Err` says why the plan may not act.
async fn pinned(
    plans: &Plans,
    plan: &MaintenancePlan,
    identity: &Identity,
    confirmed: Option<i64>,
) -> Result<PlanPin, Unpinned> {
    let generation = plan.metadata.generation.unwrap_or_default();
    let uid = plan.metadata.uid.clone().unwrap_or_default();
    let maintenance = identity.kind == crate::access::Kind::Maintenance;
    // A plan the local operator's server made, that no runner pinned yet (it could not start: over the caps, say),
    // was confirmed by its operator as made: at its first generation, and only that.
    let made_unpinned = plans.made_here(plan.metadata.uid.as_deref())
        && generation == 1
        && plan.status.as_ref().is_none_or(|s| s.pinned.is_none());
    let by = match confirmed {
        Some(asked) if asked == generation => Some(identity.user.clone()),
        None if made_unpinned => Some(identity.user.clone()),
        Some(asked) => {
            let changes = plan.spec_changed().map(|c| c.changes).unwrap_or_default();
            return Err(Unpinned::SpecChanged { pinned: asked, generation, changes });
        }
        // The policy judged whoever made or changed it (`plan::unattended`): each generation is theirs.
        None if maintenance && plan.spec.unattended => Some(UNATTENDED.to_owned()),
        None => None,
    };
    let sealed = |err: String| Unpinned::SealUnavailable { why: err };
    if let Some(by) = by {
        let pin = plans.seal().pin(&uid, generation, &by, plan.pinnable()).await.map_err(sealed)?;
        return write_pin(plans, plan, pin).await;
    }
    let read = match plan.status.as_ref().and_then(|s| s.pinned.as_ref()) {
        None => PinRead::None,
        Some(pin) if plans.seal().genuine(&uid, pin).await.map_err(sealed)? => {
            PinRead::Sealed { generation: pin.generation, pinned: pin.spec.to_domain(), by: pin.by.clone() }
        }
        Some(_) => PinRead::Forged,
    };
    match domain::pin::judge(&read, &plan.pinnable().to_domain(), generation) {
        Verdict::Block(why) => Err(why),
        Verdict::Act { repin } => {
            let Some(pin) = plan.status.as_ref().and_then(|s| s.pinned.clone()) else {
                return Err(Unpinned::NotPinned);
            };
            if !repin {
                return Ok(pin);
            }
            let pin = plans.seal().pin(&uid, generation, &pin.by, pin.spec).await.map_err(sealed)?;
            write_pin(plans, plan, pin).await
        }
    }
}

/// Who an unattended plan's pin names: the admission policy judged each change, as the person who made it.
const UNATTENDED: &str = "(unattended: judged at admission)";

async fn write_pin(plans: &Plans, plan: &MaintenancePlan, pin: PlanPin) -> Result<PlanPin, Unpinned> {
    match status::write_pin(plans, &plan.name_any(), &pin).await {
        Ok(()) => Ok(pin),
        Err(err) => Err(Unpinned::SealUnavailable {
            why: format!("the pin could not be written: {}", crate::kube_error::api_message(&err)),
        }),
    }
}

/// How the plan as the watch shows it now stands to the runner's pin.
enum Check {
    /// The watch has not seen the pinned generation yet: nothing to judge.
    Stale,
    /// Nothing pinned changed; the pin moved to the new generation when it was one.
    Same(Option<PlanPin>),
    Changed(Unpinned),
}

/// Whether `plan`'s every change was judged at admission, so that the unattended identity running it takes each
/// generation as it comes: it is marked unattended, and run as that identity.
fn admitted(identity: &Identity, plan: &MaintenancePlan) -> bool {
    identity.kind == crate::access::Kind::Maintenance && plan.spec.unattended
}

async fn check_pin(plans: &Plans, plan: &MaintenancePlan, pin: &PlanPin, admitted: bool) -> Check {
    let generation = plan.metadata.generation.unwrap_or_default();
    if generation < pin.generation {
        return Check::Stale;
    }
    let read = PinRead::Sealed { generation: pin.generation, pinned: pin.spec.to_domain(), by: pin.by.clone() };
    let verdict = match domain::pin::judge(&read, &plan.pinnable().to_domain(), generation) {
        Verdict::Block(Unpinned::SpecChanged { .. }) if admitted => Verdict::Act { repin: true },
        verdict => verdict,
    };
    match verdict {
        Verdict::Act { repin: false } => Check::Same(None),
        Verdict::Act { repin: true } => {
            let uid = plan.metadata.uid.clone().unwrap_or_default();
            let (by, spec) = match admitted {
                true => (UNATTENDED.to_owned(), plan.pinnable()),
                false => (pin.by.clone(), pin.spec.clone()),
            };
            match plans.seal().pin(&uid, generation, &by, spec).await {
                Ok(repinned) => match write_pin(plans, plan, repinned).await {
                    Ok(repinned) => Check::Same(Some(repinned)),
                    // Not moved this time: tried again at the next look.
                    Err(_) => Check::Same(None),
                },
                Err(_) => Check::Same(None),
            }
        }
        Verdict::Block(why) => Check::Changed(why),
    }
}
