//! Rolling maintenance that outlives the server: each plan is a `MaintenancePlan` object ([`resource`]), every
//! replica follows them all with one watch, and exactly one replica runs each, the one that holds the plan's Lease
//! (`drainboard-plan.<name>` in the server's namespace, written with the server's own identity).
//!
//! Whose credentials a plan drains with: the person's who started it, or continued it, held in this server's memory
//! only ([`Plans::hold`]). Credentials are never written to the cluster. A replica that finds a plan nobody runs
//! and holds no credentials for it does not run it: it marks it `Blocked` ("needs a maintainer to continue"), and
//! the first person with the rights to drain who continues it hands this server their credentials.
//!
//! - [`resource`]: the resource, and how it reads as the page's `RolloutProgress`.
//! - [`run`]: the loop of the replica that runs a plan.
//! - [`status`]: the phase, the conditions and the Events a plan's progress turns into.

pub mod resource;
mod run;
mod status;

use std::{collections::HashMap, sync::Arc, time::Duration};

use futures::StreamExt;
use kube::{
    Api, Client, ResourceExt,
    runtime::{WatchStreamExt, reflector, watcher},
};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use resource::{MaintenancePlan, PlanSpec, PlanStatus};

use crate::{Engine, Identity, lease::Leases};

/// How a person changes a plan's course.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Cancel,
    Pause(bool),
}

/// How many ended plans the page lists (the newest); the objects stay in the cluster until someone deletes them.
pub const LIST_ENDED: usize = 50;

/// How long after its creation a plan nobody runs is left alone before a replica without its credentials says it
/// needs a maintainer: the replica that created it takes its Lease within this.
const GRACE: Duration = Duration::from_secs(10);

/// The definition of the resource, as YAML (what `drainboard crd` prints).
pub fn crd_yaml() -> String {
    use kube::CustomResourceExt;
    serde_yaml::to_string(&MaintenancePlan::crd()).unwrap_or_default()
}

/// Every plan of the cluster as this server sees them, and those it runs.
#[derive(Clone)]
pub struct Plans {
    /// Written with the server's own identity: the status, the finalizer.
    api: Api<MaintenancePlan>,
    store: reflector::Store<MaintenancePlan>,
    changes: watch::Receiver<u64>,
    leases: Leases,
    recorder: Arc<kube::runtime::events::Recorder>,
    /// The plans this server runs now, each with the token that stops its loop.
    running: Arc<parking_lot::Mutex<HashMap<String, CancellationToken>>>,
    /// Who this server runs each plan as: the person who started or continued it here.
    hands: Arc<parking_lot::Mutex<HashMap<String, Identity>>>,
}

impl Plans {
    /// Follows every plan with `client` (the server's own) under `tasks`; runs them holding Leases in `leases`.
    pub fn new(client: Client, leases: Leases, tasks: &crate::tasks::Tasks) -> Self {
        let api: Api<MaintenancePlan> = Api::all(client.clone());
        let (store, writer) = reflector::store();
        let (tx, changes) = watch::channel(0u64);
        let events = watcher(api.clone(), watcher::Config::default())
            .default_backoff()
            .modify(|plan: &mut MaintenancePlan| plan.metadata.managed_fields = None)
            .reflect(writer)
            .touched_objects();
        let shutdown = tasks.shutdown_signal().clone();
        tasks.spawn(async move {
            let mut events = std::pin::pin!(events);
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    event = events.next() => match event {
                        None => break,
                        Some(Ok(_)) => { tx.send_modify(|n| *n = n.wrapping_add(1)); }
                        Some(Err(err)) => tracing::warn!(error = %err, "the watch of maintenance plans failed; retrying"),
                    }
                }
            }
        });
        let reporter = kube::runtime::events::Reporter {
            controller: "drainboard".into(),
            instance: Some(leases.holder().to_owned()),
        };
        Plans {
            api,
            store,
            changes,
            recorder: Arc::new(kube::runtime::events::Recorder::new(client, reporter)),
            leases,
            running: Default::default(),
            hands: Default::default(),
        }
    }

    /// Every plan as the watch holds it: those not ended, and the newest [`LIST_ENDED`] ended ones, newest first.
    pub fn list(&self) -> Vec<MaintenancePlan> {
        let mut plans: Vec<MaintenancePlan> = self.store.state().iter().map(|p| (**p).clone()).collect();
        plans.sort_by(|a, b| b.creation_timestamp().cmp(&a.creation_timestamp()).then(a.name_any().cmp(&b.name_any())));
        let mut ended = 0;
        plans.retain(|p| {
            if p.ended() {
                ended += 1;
                ended <= LIST_ENDED
            } else {
                true
            }
        });
        plans
    }

    /// One plan: from the watch, or from the API when the watch has not seen it yet (just made).
    pub async fn get(&self, name: &str) -> Result<Option<MaintenancePlan>, kube::Error> {
        if let Some(plan) = self.store.get(&reflector::ObjectRef::new(name)) {
            return Ok(Some((*plan).clone()));
        }
        self.api.get_opt(name).await
    }

    /// Moves at each change of any plan.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changes.clone()
    }

    /// This server runs `name` as `identity` from now on, when it can take its Lease.
    pub(crate) fn hold(&self, name: &str, identity: Identity) {
        self.hands.lock().insert(name.to_owned(), identity);
    }

    /// Forgets the credentials held for `name` (a continue that could not take the plan over).
    pub(crate) fn let_hold_go(&self, name: &str) {
        self.hands.lock().remove(name);
    }

    /// Whether this server runs `name` now.
    pub fn runs(&self, name: &str) -> bool {
        self.running.lock().contains_key(name)
    }

    /// The holder identity of this server, as plan Leases name it.
    pub fn holder(&self) -> &str {
        self.leases.holder()
    }

    /// Takes `name`'s Lease and runs it here, if this server holds credentials for it and no one else runs it.
    pub(crate) async fn try_run(&self, engine: &Engine, name: &str) -> bool {
        let Some(identity) = self.hands.lock().get(name).cloned() else { return false };
        if self.runs(name) {
            return true;
        }
        match self.leases.acquire_plan(name).await {
            Ok(crate::lease::Claim::Acquired) => {}
            Ok(crate::lease::Claim::HeldBy(_)) => return false,
            Err(err) => {
                tracing::warn!(plan = %name, error = %crate::kube_error::api_message(&err), "could not take a plan's Lease");
                return false;
            }
        }
        let stop = CancellationToken::new();
        {
            let mut running = self.running.lock();
            if running.contains_key(name) {
                return true;
            }
            running.insert(name.to_owned(), stop.clone());
        }
        let span = tracing::info_span!("plan", plan = %name, by = %identity.user);
        let (engine, plans, name) = (engine.clone(), self.clone(), name.to_owned());
        engine.tasks().clone().spawn(tracing::Instrument::instrument(
            async move {
                run::run(&engine, &plans, &identity, &name, stop).await;
                plans.running.lock().remove(&name);
                plans.leases.release_plan(&name).await;
                // Credentials are held only as long as the plan needs them.
                if plans.get(&name).await.is_ok_and(|p| p.is_none_or(|p| p.ended())) {
                    plans.hands.lock().remove(&name);
                }
            },
            span,
        ));
        true
    }

    /// Looks at every plan on each change and every few seconds: runs those this server holds credentials for and
    /// nobody runs; marks those nobody runs and no one here can as needing a maintainer; lets a deleted plan go
    /// once nobody runs it.
    pub(crate) fn coordinate(&self, engine: &Engine) {
        let (plans, engine) = (self.clone(), engine.clone());
        let shutdown = engine.shutdown_signal();
        engine.tasks().clone().spawn(async move {
            let mut changes = plans.changes();
            let mut tick = tokio::time::interval(crate::lease::RENEW_EVERY);
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    changed = changes.changed() => if changed.is_err() { break },
                    _ = tick.tick() => {}
                }
                for plan in plans.store.state() {
                    plans.look_at(&engine, &plan).await;
                }
            }
        });
    }

    async fn look_at(&self, engine: &Engine, plan: &MaintenancePlan) {
        let name = plan.name_any();
        if self.runs(&name) {
            return;
        }
        let deleting = plan.metadata.deletion_timestamp.is_some();
        if plan.ended() {
            if deleting {
                self.let_go(&name).await;
            }
            return;
        }
        if !deleting && self.try_run(engine, &name).await {
            return;
        }
        match self.leases.plan_runner(&name).await {
            Ok(None) => {}
            // Someone runs it (or the Lease cannot be read: leave it be).
            _ => return,
        }
        if deleting {
            // Its runner is gone, and its drains with it: nothing of it runs to stop.
            status::ended_without_runner(self, plan, "Cancelled", "deleted while no server ran it").await;
            self.let_go(&name).await;
            return;
        }
        let young = plan
            .creation_timestamp()
            .and_then(|t| jiff::Timestamp::now().duration_since(t.0).try_into().ok())
            .is_some_and(|age: Duration| age < GRACE);
        if !young {
            status::needs_maintainer(self, plan).await;
        }
    }

    /// Removes the finalizer, so that a deleted plan goes.
    async fn let_go(&self, name: &str) {
        let patch = serde_json::json!({"metadata": {"finalizers": null}});
        if let Err(err) =
            self.api.patch(name, &kube::api::PatchParams::default(), &kube::api::Patch::Merge(&patch)).await
        {
            tracing::warn!(plan = %name, error = %crate::kube_error::api_message(&err), "could not let a deleted plan go");
        }
    }
}
