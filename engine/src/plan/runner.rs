//! The runner of a plan on the replica that holds its Lease: what the plan controller (`controller`) calls at
//! each reconcile of a plan run here. It holds the plan's Lease (renewed by `crate::lease::guard`; once lost,
//! nothing more is done or written here), and at each look gathers what it sees (`look`), lets the pure step
//! decide (`domain::plan_step`: what starts, resumes, ends, is uncordoned, told and silenced), carries that out as
//! the person the plan runs as (`effects`) and writes the status. When it looks again by itself is the step's
//! too (`domain::plan_step::wake`); otherwise a drain's change, an edit of the plan or its Lease wakes it.
//!
//! It acts only on the plan's pin (`domain::pin`): the spec a person with the rights confirmed, sealed in the
//! status. A change of a pinned field blocks it until a person continues it, confirming the new generation; the
//! runner stays meanwhile, following the drains, a pause, a cancel and a delete.
//!
//! A plan taken over from a server that stopped resumes from its status: only the plan's own drain on a node (the
//! id its status names), with the pinned options, is resumed, and any other record blocks the plan.

use domain::{
    plan_step::{self, Next, PlanSeen, SpecSeen, Wake},
    progress::DrainState,
    rollout::{self, RolloutProgress, RolloutState, Step},
};
use kube::ResourceExt;
use tokio_util::sync::CancellationToken;

use super::{
    conditions::Conditions,
    effects::{self, Doing, Shown},
    look::{self, Seeing},
    notices::Told,
    resource::PlanPin,
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

/// What a look leaves.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Turn {
    /// The runner goes on: when it looks again by itself.
    Again(Wake),
    /// It has stopped (the plan ended, was left for a person or to another server): its Lease goes.
    Over,
}

/// One plan run here: whose hand, its pin, and what it last knew and wrote.
pub(super) struct Runner {
    identity: Identity,
    client: kube::Client,
    name: String,
    pin: PlanPin,
    confirmed: Option<i64>,
    progress: RolloutProgress,
    shown: Shown,
    latest: MaintenancePlan,
    gone: bool,
    told: Told,
    silences: Silences,
    /// The plan's node lifecycle conditions, as last asked.
    conditions: Conditions,
    /// Cancelled to stop this runner (a continue on this server that runs it on as another person).
    stop: CancellationToken,
    /// Cancelled once the Lease's guard gives up.
    lost: CancellationToken,
    _guard: crate::drain::AbortOnDrop,
}

impl Runner {
    /// Takes plan `name` on as `identity`, whose Lease this server has just taken: reads it from the API server,
    /// pins it, and begins it (its first round) or takes it over from its status. `None` when it runs nothing:
    /// its Lease is then let go by the caller.
    pub(super) async fn start(
        engine: &Engine,
        plans: &Plans,
        (identity, client): (Identity, kube::Client),
        name: &str,
        stop: CancellationToken,
    ) -> Option<Runner> {
        let acting = engine.acting_with(&identity, &client);
        let runner = format!("{} as {}", plans.holder(), identity.user);
        // The plan's Lease, renewed by the engine's one guard; once it gives up, nothing more is done or written
        // here, and the controller is woken to say so.
        let lost = CancellationToken::new();
        let guard = {
            let (plans, plan, lost) = (plans.clone(), name.to_owned(), lost.clone());
            crate::drain::AbortOnDrop(tokio::spawn(async move {
                let what = format!("plan {plan}");
                crate::lease::guard(&what, || {
                    let (leases, plan) = (plans.leases().clone(), plan.clone());
                    async move { leases.renew_plan(&plan).await }
                })
                .await;
                // The guard returns only when the Lease is lost; a plan that ends aborts it.
                crate::metrics::METRICS.lease_lost("plan");
                lost.cancel();
                plans.wake(&plan);
            }))
        };
        // Read from the API server, not the watch: what the runner may act on is decided on the plan as it is.
        let Ok(Some(plan)) = plans.read(name).await else {
            tracing::warn!("the plan is gone before it ran");
            return None;
        };
        if plan.ended() {
            // This server's watch had not seen it end (a server cut off from the API server, say, whose watch
            // comes back late): another server ended it, and nothing more is written of it here.
            tracing::info!("the plan has ended already; nothing to run");
            return None;
        }
        let confirmed = plans.take_confirmed(name);
        let pin = match pinned(plans, &plan, &identity, confirmed).await {
            Ok(pin) => pin,
            Err(why) => {
                tracing::warn!(why = %why.english(), "the plan may not act on its spec; it waits for a person");
                status::blocked(plans, &plan, &domain::plan_block::Blocked::Unpinned(why)).await;
                plans.let_hold_go(name);
                return None;
            }
        };
        let plan = with_pin(plan, &pin);
        let mut progress = plan.progress();
        let shown = Shown { progress: progress.clone(), version: plan.resource_version() };
        // The spec is whatever anyone who may write plans wrote: its reason goes onto nodes and into the history,
        // so it is held to the page's own bound, checked again at each start since `kubectl patch` may change it.
        let checked = domain::input::reason(plan.spec.reason.as_deref()).map_err(Error::Invalid);
        let first = plan.status.as_ref().is_none_or(|s| s.nodes.is_empty());
        if checked.is_err() || first {
            let begun = match checked {
                Ok(_) => begin(&acting, &plan, &mut progress).await,
                Err(err) => Err(err),
            };
            if let Err(err) = begun {
                could_not_start(plans, &plan, &mut progress, &err).await;
                return None;
            }
            super::notices::Told::started(engine, &progress);
        } else {
            tracing::info!("taking the plan over from its status");
            crate::metrics::METRICS.takeovers.inc();
            status::event(plans, &plan, false, "TakenOver", format!("run by {runner}")).await;
        }
        progress.blocked = None;
        progress.runner = Some(runner);
        // Whoever takes a person's plan on is recorded; the maintenance identity runs an unattended plan as asked,
        // and reads as its runner ("… as drainboard (unattended maintenance)").
        if identity.user != progress.started_by && identity.kind != crate::access::Kind::Maintenance {
            progress.continued_by = Some(identity.user.clone());
        }
        Some(Runner {
            identity,
            client,
            name: name.to_owned(),
            pin,
            confirmed,
            progress,
            shown,
            latest: plan,
            gone: false,
            told: Told::default(),
            silences: Silences::default(),
            conditions: Conditions::new(engine),
            stop,
            lost,
            _guard: guard,
        })
    }

    /// The plan's nodes, fixed once it began.
    pub(super) fn nodes(&self) -> Vec<String> {
        self.progress.nodes.iter().map(|n| n.name.clone()).collect()
    }

    /// Who it runs as.
    pub(super) fn by(&self) -> &str {
        &self.identity.user
    }

    /// One look: the plan as it is now against its pin, the step, its effects and the status written.
    pub(super) async fn look(&mut self, engine: &Engine, plans: &Plans) -> Turn {
        let (identity, client) = (self.identity.clone(), self.client.clone());
        let acting = engine.acting_with(&identity, &client);
        let name = self.name.clone();
        // The plan as it is now, against its pin: what the step may act on.
        let spec = match plans.get(&name).await {
            Ok(Some(plan)) => match check_pin(plans, &plan, &self.pin, admitted(&identity, &plan)).await {
                Check::Stale => SpecSeen::Unread,
                Check::Same(repinned) => {
                    if let Some(repinned) = repinned {
                        self.pin = *repinned;
                    }
                    self.latest = with_pin(plan, &self.pin);
                    SpecSeen::Same
                }
                Check::Changed(why) => {
                    if self.progress.spec_changed.is_none() {
                        tracing::warn!(why = %why.english(), "the plan's spec changed since it was confirmed");
                    }
                    self.latest = with_pin(plan, &self.pin);
                    SpecSeen::Changed { why, diff: self.latest.spec_changed() }
                }
            },
            Ok(None) => {
                self.gone = true;
                SpecSeen::Unread
            }
            Err(_) => SpecSeen::Unread,
        };
        let latest = &self.latest;
        let seeing = Seeing {
            plan: PlanSeen {
                gone: self.gone,
                deleting: latest.metadata.deletion_timestamp.is_some(),
                cancelled: latest.spec.cancelled,
                paused: latest.spec.paused,
                unattended: latest.spec.unattended,
                spec,
                window_override: latest.spec.window_override.clone(),
            },
            lease_lost: self.lost.is_cancelled(),
            stopping: self.stop.is_cancelled() || engine.shutdown_signal().is_cancelled(),
            maintenance: identity.kind == crate::access::Kind::Maintenance,
            confirmed: self.confirmed.is_some(),
        };
        let mut look = look::look(engine, &acting, &self.progress, seeing).await;
        let stepped = plan_step::step(&self.progress, &look);
        self.progress = stepped.status;
        let plan_name = self.latest.name_any();
        let mut doing = Doing {
            engine,
            acting: &acting,
            plan: &plan_name,
            lost: &self.lost,
            silences: &mut self.silences,
            plans,
            latest: &self.latest,
            shown: &mut self.shown,
        };
        let progress = &mut self.progress;
        match stepped.next {
            Next::Drop => {
                // Another server may run it now: this one writes nothing more of it.
                tracing::warn!("the plan's Lease is lost; this server stops running it");
                return Turn::Over;
            }
            Next::Handover => {
                // Stopping: the drains record themselves as interrupted, and whoever takes the plan over resumes
                // them. Only notices are left to carry out.
                effects::carry_out(&mut doing, progress, stepped.effects).await;
                effects::publish(plans, &self.latest, &mut self.shown, progress, &self.lost).await;
                tracing::info!("the server stops; the plan is left for another to take over");
                return Turn::Over;
            }
            Next::Leave => {
                // Nothing more can be done as this person: the plan is left for whoever continues it. Only notices
                // are left to carry out.
                effects::carry_out(&mut doing, progress, stepped.effects).await;
                effects::publish(plans, &self.latest, &mut self.shown, progress, &self.lost).await;
                self.conditions.keep(progress, false);
                plans.let_hold_go(&name);
                return Turn::Over;
            }
            Next::End { cancelled } => {
                effects::carry_out(&mut doing, progress, stepped.effects).await;
                look::drains_here(engine, progress, &mut look);
                let ended = plan_step::finish(progress, &look, cancelled);
                *progress = ended.status;
                effects::carry_out(&mut doing, progress, ended.effects).await;
                effects::publish(plans, &self.latest, &mut self.shown, progress, &self.lost).await;
                self.conditions.keep(progress, true);
                tracing::info!(state = ?progress.state, "plan ended");
                return Turn::Over;
            }
            Next::Look => {
                let held = effects::carry_out(&mut doing, progress, stepped.effects).await;
                if progress.blocked.is_none() {
                    self.told.held(engine, progress, held);
                }
            }
        }
        effects::publish(plans, &self.latest, &mut self.shown, progress, &self.lost).await;
        if self.lost.is_cancelled() {
            return Turn::Over;
        }
        self.conditions.keep(progress, false);
        Turn::Again(plan_step::wake(progress, jiff::Timestamp::now()))
    }
}

/// A plan that could not begin ends so: its nodes never started, and the story says why.
async fn could_not_start(plans: &Plans, plan: &MaintenancePlan, progress: &mut RolloutProgress, err: &Error) {
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
    let name = plan.name_any();
    let _ = status::write_on(plans, &name, &status::of(progress, plan, None), version.as_deref()).await;
    status::event(plans, plan, true, "Failed", format!("the plan could not start: {err}")).await;
}

/// The plan's first round: its nodes resolved (a selector's, from the caller's cache), each with its zone and
/// whether it was cordoned before.
async fn begin(acting: &Acting<'_>, plan: &MaintenancePlan, progress: &mut RolloutProgress) -> crate::Result<()> {
    let cards = acting.cards().await?;
    let names: Vec<String> = match &plan.spec.node_selector {
        Some(selector) if plan.spec.nodes.is_empty() => {
            let selector = domain::selector::LabelSelector::parse(selector)
                .map_err(|e| Error::Invalid(format!("the plan's node selector: {e}")))?;
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
