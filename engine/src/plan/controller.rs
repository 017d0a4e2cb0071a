//! The plan controller: kube-runtime's `Controller` over every `MaintenancePlan`, level-triggered. A reconcile
//! looks at one plan as it is now: a plan run here takes one look of its runner (`runner`, whose every decision is
//! the pure step's); any other is looked at by the coordinator (`coordinator`: take it on, mark it blocked, or
//! leave it to the server that runs it). kube-runtime's `finalizer` helper keeps the plan until the server that
//! runs it has cancelled its drains (or, when none does, until it is marked cancelled).
//!
//! What wakes a reconcile: the plans' watch (the page's own, shared), the Leases' watch (a plan's renewal or
//! release; a node's drain Lease, which a drain's record changes with, for the plans run here), and this server's
//! own wakes (a plan taken on, a runner's Lease lost or its stop asked for, a drain of a plan run
//! here that moved). Besides those, a plan looks again only when the step says time or a node decides
//! (`domain::plan_step::wake`), when another server's Lease would lapse, or after an error, backing off.

use std::{collections::HashMap, sync::Arc, time::Duration};

use domain::plan_step::Wake;
use futures::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use kube::{
    Api, ResourceExt,
    runtime::{
        Controller,
        controller::Action,
        finalizer::{self, Event, finalizer},
        reflector::ObjectRef,
        watcher,
    },
};
use parking_lot::Mutex;

use super::{
    MaintenancePlan, Plans,
    coordinator::Looked,
    resource::FINALIZER,
    runner::{Runner, Turn},
};
use crate::{engine::Engine, lease::Leases};

/// How soon a runner looks again while time or a node decides, and while a drain runs (its silences are kept).
const SOON: Duration = Duration::from_secs(1);
const LATER: Duration = Duration::from_secs(20);
/// The error policy's waits: doubling from the first to the most, per plan, until a reconcile of it succeeds.
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
const BACKOFF_MOST: Duration = Duration::from_secs(60);

/// Why a reconcile did not finish.
#[derive(Debug, thiserror::Error)]
pub(super) enum Why {
    #[error("{0}")]
    Kube(#[from] kube::Error),
    /// A deleted plan another server runs, or whose runner here has not ended it yet.
    #[error("{0}")]
    NotYet(&'static str),
}

type Failed = finalizer::Error<Why>;

/// What every reconcile shares.
struct Context {
    engine: Engine,
    plans: Plans,
    /// The runners of the plans this server runs, each looked at by one reconcile at a time.
    runners: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Runner>>>>,
    /// The nodes of each plan run here, so that a node's drain Lease wakes only the plans it is part of.
    nodes: Mutex<HashMap<String, Vec<String>>>,
    /// Reconciles that failed in a row, per plan: how long the error policy waits.
    failures: Mutex<HashMap<String, u32>>,
}

impl Engine {
    /// Starts the plan controller, for as long as the server runs.
    pub(crate) fn control(&self, plans: &Plans) {
        let Some(subscribed) = plans.subscribed.lock().take() else { return };
        let Some(mut woken) = plans.woken.lock().take() else { return };
        let context = Arc::new(Context {
            engine: self.clone(),
            plans: plans.clone(),
            runners: Mutex::default(),
            nodes: Mutex::default(),
            failures: Mutex::default(),
        });
        let shutdown = self.shutdown_signal();
        // This server's wakes, as the controller's triggers. A runner whose plan the watch no longer holds (its
        // finalizer removed by hand, say) has no reconcile to come: it takes its last look here.
        let (trigger, triggers) = futures::channel::mpsc::unbounded::<ObjectRef<MaintenancePlan>>();
        {
            let (context, shutdown) = (context.clone(), shutdown.clone());
            self.tasks().spawn(async move {
                let mut drains = context.engine.drain_changes();
                loop {
                    let names: Vec<String> = tokio::select! {
                        () = shutdown.cancelled() => break,
                        name = woken.recv() => match name { Some(name) => vec![name], None => break },
                        changed = drains.changed() => match changed {
                            Ok(()) => context.runners.lock().keys().cloned().collect(),
                            Err(_) => break,
                        },
                    };
                    for name in names {
                        let reference = ObjectRef::new(&name);
                        if context.plans.store.get(&reference).is_some() {
                            let _ = trigger.unbounded_send(reference);
                        } else if context.runners.lock().contains_key(&name) {
                            let _ = turn(&context, &name).await;
                        }
                    }
                }
            });
        }
        // At shutdown each runner hands its plan over (its status says so, and its Lease goes at once), whatever
        // reconcile was under way finishing first.
        {
            let (context, shutdown) = (context.clone(), shutdown.clone());
            self.tasks().spawn(async move {
                shutdown.cancelled().await;
                let names: Vec<String> = context.runners.lock().keys().cloned().collect();
                for name in names {
                    let _ = turn(&context, &name).await;
                }
            });
        }
        let leases: Api<Lease> = Api::namespaced(plans.api.clone().into_client(), plans.leases().namespace());
        let woken_by = context.clone();
        let controller = Controller::for_shared_stream(subscribed, plans.store.clone())
            .watches(leases, watcher::Config::default().labels(crate::lease::MANAGED_BY_LABEL), move |lease: Lease| {
                lease_wakes(&woken_by, &lease.name_any())
            })
            .reconcile_on(triggers)
            .graceful_shutdown_on(async move { shutdown.cancelled().await })
            .run(reconcile, error_policy, context)
            .for_each(|_| futures::future::ready(()));
        self.tasks().spawn(controller);
    }
}

/// The plans a change of Lease `name` wakes: a plan's own Lease wakes that plan (taken, renewed, let go); a node's
/// drain Lease wakes the plans run here that the node is part of, since a drain another server interrupted or
/// ended on it writes its record and lets its Lease go.
fn lease_wakes(context: &Context, name: &str) -> Vec<ObjectRef<MaintenancePlan>> {
    if let Some(plan) = Leases::plan_of(name) {
        return vec![ObjectRef::new(plan)];
    }
    let Some(node) = Leases::node_of(name) else { return Vec::new() };
    let nodes = context.nodes.lock();
    nodes.iter().filter(|(_, of)| of.iter().any(|n| n == node)).map(|(plan, _)| ObjectRef::new(plan)).collect()
}

async fn reconcile(plan: Arc<MaintenancePlan>, context: Arc<Context>) -> Result<Action, Failed> {
    let name = plan.name_any();
    if context.engine.shutdown_signal().is_cancelled() {
        return Ok(Action::await_change());
    }
    let api = context.plans.api.clone();
    let done = finalizer(&api, FINALIZER, plan, |event| async {
        match event {
            Event::Apply(plan) => apply(&context, &plan).await,
            Event::Cleanup(plan) => cleanup(&context, &plan).await,
        }
    })
    .await;
    if done.is_ok() {
        context.failures.lock().remove(&name);
    }
    done
}

/// A plan as it is: one look of its runner when it runs here, the coordinator's look otherwise.
async fn apply(context: &Context, plan: &MaintenancePlan) -> Result<Action, Why> {
    let name = plan.name_any();
    if !context.plans.runs(&name) {
        match context.engine.look_at(&context.plans, plan).await? {
            Looked::Runs => {}
            Looked::After(wait) => return Ok(Action::requeue(wait)),
            Looked::OnChange => return Ok(Action::await_change()),
        }
    }
    Ok(turn(context, &name).await)
}

/// A deleted plan: its runner here cancels its drains and ends it; nobody else's is let go until its runner has.
async fn cleanup(context: &Context, plan: &MaintenancePlan) -> Result<Action, Why> {
    let name = plan.name_any();
    if context.plans.runs(&name) {
        turn(context, &name).await;
        if context.plans.runs(&name) {
            return Err(Why::NotYet("its runner here has not ended it yet"));
        }
        return Ok(Action::await_change());
    }
    match context.engine.let_deleted_go(&context.plans, plan).await? {
        true => Ok(Action::await_change()),
        false => Err(Why::NotYet("another server runs it, and lets it go once it has cancelled its drains")),
    }
}

/// One look of `name`'s runner here, started first when the plan was just taken on. Once it is over, the plan's
/// Lease goes (and its credentials, once it has ended).
async fn turn(context: &Context, name: &str) -> Action {
    let plans = &context.plans;
    let existing = context.runners.lock().get(name).cloned();
    let runner = match existing {
        Some(runner) => runner,
        None => {
            let (Some(hand), Some(stop)) = (plans.hand(name), plans.stop_token(name)) else {
                plans.release(name).await;
                return Action::await_change();
            };
            let span = tracing::info_span!("plan", plan = %name, by = %hand.0.user);
            let started =
                tracing::Instrument::instrument(Runner::start(&context.engine, plans, hand, name, stop), span).await;
            let Some(runner) = started else {
                plans.release(name).await;
                return Action::await_change();
            };
            context.nodes.lock().insert(name.to_owned(), runner.nodes());
            let runner = Arc::new(tokio::sync::Mutex::new(runner));
            context.runners.lock().insert(name.to_owned(), runner.clone());
            runner
        }
    };
    let mut runner = runner.lock().await;
    let span = tracing::info_span!("plan", plan = %name, by = %runner.by());
    match tracing::Instrument::instrument(runner.look(&context.engine, plans), span).await {
        Turn::Again(Wake::Soon) => Action::requeue(SOON),
        Turn::Again(Wake::Later) => Action::requeue(LATER),
        Turn::Again(Wake::OnChange) => Action::await_change(),
        Turn::Over => {
            drop(runner);
            context.runners.lock().remove(name);
            context.nodes.lock().remove(name);
            plans.release(name).await;
            // A place under the caps is free: the plan that waited longest for one goes on.
            if let Some(next) = plans.next_waiting() {
                plans.wake(&next);
            }
            Action::await_change()
        }
    }
}

/// After a failed reconcile: a deleted plan whose runner is ending it is looked at again soon; anything else
/// waits longer at each failure in a row (the API server refusing, say), up to a minute.
fn error_policy(plan: Arc<MaintenancePlan>, failed: &Failed, context: Arc<Context>) -> Action {
    if let finalizer::Error::CleanupFailed(Why::NotYet(_)) = failed {
        return Action::requeue(SOON);
    }
    let name = plan.name_any();
    let mut failures = context.failures.lock();
    let count = failures.entry(name.clone()).or_default();
    let wait = backoff(*count);
    *count = count.saturating_add(1);
    tracing::warn!(plan = %name, error = %failed, wait_seconds = wait.as_secs(), "could not reconcile a plan; trying again");
    Action::requeue(wait)
}

/// The wait after `failures` failures in a row.
fn backoff(failures: u32) -> Duration {
    BACKOFF_FIRST.saturating_mul(2u32.saturating_pow(failures.min(16))).min(BACKOFF_MOST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_policy_doubles_its_wait_up_to_a_minute() {
        let waits: Vec<u64> = (0..9).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(backoff(u32::MAX), BACKOFF_MOST, "no overflow however long it fails");
    }
}
