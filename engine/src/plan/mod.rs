//! Rolling maintenance that outlives the server: each plan is a `MaintenancePlan` object ([`resource`]), every
//! replica follows them all with one watch, and exactly one replica runs each, the one that holds the plan's Lease
//! (`drainboard-plan.<name>` in the server's namespace, written with the server's own identity).
//!
//! Whose credentials a plan drains with: the person's who started it, or continued it, held in this server's memory
//! only ([`Plans::hold`]). Credentials are never written to the cluster. A replica that finds a plan nobody runs
//! and holds no credentials for it does not run it: it marks it `Blocked` ("needs a maintainer to continue"), and
//! the first person with the rights to drain who continues it hands this server their credentials.
//!
//! The whole plan controller is here, one concern a room:
//! - [`resource`]: the resource, and how it reads as the page's `RolloutProgress`; [`status`]: the phase, the
//!   conditions and the Events a plan's progress turns into.
//! - `actions`: what people do to plans (make, pause, cancel, continue, undo, say a node is back), as themselves.
//! - `controller`: kube-runtime's `Controller` over every plan, with its `finalizer` helper: each reconcile takes
//!   one look of the plan's runner when it runs here (`runner`), or the coordinator's look otherwise
//!   (`coordinator`: take it on, cap, mark it blocked, or leave it to the server that runs it). Each look of a
//!   runner is gathered by `look`, decided by the pure step (`domain::plan_step`), and carried out by `effects` as
//!   the person the plan runs as, with `back` and `checks` (a node's card, and what its drain touched), `notices`
//!   (the webhooks) and `silences` (Alertmanager).
//! - [`pin`]: the spec a person confirmed, which is all a runner acts on, sealed by [`seal`]; [`origin`]: which
//!   plans a local operator's servers made, the only ones a local server goes on with by itself.
//! - [`unattended`]: plans run by the server's maintenance identity, and the admission policy they need.
//! - `drain`, `node`: the status's drain options and nodes, as the resource stores them.

mod actions;
mod back;
mod checks;
mod conditions;
mod controller;
mod coordinator;
mod drain;
mod effects;
mod look;
mod node;
mod notices;
pub mod origin;
pub(crate) mod pin;
mod pinned;
pub mod resource;
mod runner;
pub(crate) mod seal;
mod silences;
pub(crate) mod status;
pub mod unattended;

use std::{collections::HashMap, sync::Arc};

use futures::StreamExt;
use kube::{
    Api, Client, ResourceExt,
    runtime::{WatchStreamExt, reflector, watcher},
};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use resource::{MaintenancePlan, PlanSpec, PlanStatus};

use crate::{Identity, lease::Leases};

/// How a person changes a plan's course.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Cancel,
    Pause(bool),
}

/// How many of the plans' watch events wait for the controller to take them before the watch waits for it.
const SHARED_BUFFER: usize = 256;

/// How many ended plans the page lists (the newest); the objects stay in the cluster until someone deletes them.
pub const LIST_ENDED: usize = 50;

/// The definition of the resource, as YAML (what `drainboard crd` prints).
pub fn crd_yaml() -> String {
    use kube::CustomResourceExt;
    serde_yaml::to_string(&MaintenancePlan::crd()).unwrap_or_default()
}

/// The most plans one server runs at once: per person it runs them as, and in all. The rest wait `Blocked`
/// (`TooMany`), oldest first to go on as places free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    pub per_person: usize,
    pub total: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps { per_person: domain::rollout::MAX_PLANS_PER_PERSON, total: 200 }
    }
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
    running: Arc<parking_lot::Mutex<HashMap<String, (CancellationToken, String)>>>,
    /// The most plans this server runs at once, per person it runs them as and in all (`Caps`).
    caps: Caps,
    /// Who this server runs each plan as, and the client it acts with: the person who started or continued it
    /// here, with the client of their session then (kept, so that the plan goes on after they sign out).
    hands: Arc<parking_lot::Mutex<HashMap<String, (Identity, kube::Client)>>>,
    /// With `--unattended-plans`: the maintenance identity unattended plans run as, and its client.
    unattended: Option<(Identity, kube::Client)>,
    /// The key that seals each plan's pin.
    seal: Arc<seal::Seal>,
    /// In local mode: the plans the operator's servers made or the operator continued.
    origins: Option<Arc<origin::Origins>>,
    /// The generation a person confirmed of each plan handed to this server (started or continued here), for its
    /// runner to pin.
    confirmed: Arc<parking_lot::Mutex<HashMap<String, i64>>>,
    /// The plans to reconcile now, besides the watches' events: one taken on here, a runner's Lease lost or its
    /// stop asked for, a drain of a plan run here that moved (`controller`).
    wakes: tokio::sync::mpsc::UnboundedSender<String>,
    /// The store's events, for the controller (taken once, when it starts).
    subscribed: Arc<parking_lot::Mutex<Option<reflector::ReflectHandle<MaintenancePlan>>>>,
    woken: Arc<parking_lot::Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<String>>>>,
}

impl Plans {
    /// Follows every plan with `client` (the server's own) under `tasks`; runs them holding Leases in `leases`.
    pub fn new(client: Client, leases: Leases, tasks: &crate::tasks::Tasks) -> Self {
        let api: Api<MaintenancePlan> = Api::all(client.clone());
        // One watch for the page and the controller alike: the controller reconciles from this store's events.
        let (store, writer) = reflector::store_shared(SHARED_BUFFER);
        let subscribed = writer.subscribe();
        let (tx, changes) = watch::channel(0u64);
        let events = watcher(api.clone(), watcher::Config::default())
            .default_backoff()
            .modify(|plan: &mut MaintenancePlan| plan.metadata.managed_fields = None)
            .reflect_shared(writer)
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
        let (wakes, woken) = tokio::sync::mpsc::unbounded_channel();
        Plans {
            subscribed: Arc::new(parking_lot::Mutex::new(subscribed)),
            wakes,
            woken: Arc::new(parking_lot::Mutex::new(Some(woken))),
            seal: Arc::new(seal::Seal::new(client.clone(), leases.namespace())),
            origins: None,
            confirmed: Default::default(),
            api,
            store,
            changes,
            recorder: Arc::new(kube::runtime::events::Recorder::new(client, reporter)),
            leases,
            running: Default::default(),
            caps: Caps::default(),
            hands: Default::default(),
            unattended: None,
        }
    }

    /// The same, running the plans marked unattended as `identity` with `client` (the server's own credentials,
    /// to which the operator bound drain rights).
    pub fn with_unattended(mut self, identity: Identity, client: Client) -> Self {
        self.unattended = Some((identity, client));
        self
    }

    /// The same, running at most `caps` plans at once.
    pub fn with_caps(mut self, caps: Caps) -> Self {
        self.caps = caps;
        self
    }

    /// Whether this server may run one more plan as `user` now: why not, in words, when it may not.
    pub(crate) fn over_cap(&self, user: &str) -> Option<domain::plan_block::Blocked> {
        let running = self.running.lock();
        let theirs = running.values().filter(|(_, by)| by == user).count();
        domain::pin::over_cap(running.len(), theirs, user, self.caps.total, self.caps.per_person)
    }

    /// The same, in local mode: the operator's plans are kept in the file `path` of their state folder.
    pub fn with_origins(mut self, path: std::path::PathBuf) -> Self {
        self.origins = Some(Arc::new(origin::Origins::new(path)));
        self
    }

    /// Keeps `uid` as one of the local operator's plans (nothing in team mode).
    pub(crate) fn remember_origin(&self, uid: Option<&str>) {
        if let (Some(origins), Some(uid)) = (&self.origins, uid)
            && let Err(err) = origins.remember(uid)
        {
            tracing::warn!(error = %err, "could not keep a plan as the operator's own; it waits for them to continue it after a restart");
        }
    }

    /// Whether the local operator's servers made the plan `uid`, or the operator continued it.
    pub(crate) fn made_here(&self, uid: Option<&str>) -> bool {
        matches!((&self.origins, uid), (Some(origins), Some(uid)) if origins.holds(uid))
    }

    /// A person confirmed generation `generation` of `name` (started or continued it here).
    pub(crate) fn confirm(&self, name: &str, generation: i64) {
        self.confirmed.lock().insert(name.to_owned(), generation);
    }

    /// The generation a person confirmed of `name` here, once.
    pub(crate) fn take_confirmed(&self, name: &str) -> Option<i64> {
        self.confirmed.lock().remove(name)
    }

    pub(crate) fn seal(&self) -> &seal::Seal {
        &self.seal
    }

    /// `name` read from the API server, not the watch: what a runner decides on at its start.
    pub(crate) async fn read(&self, name: &str) -> Result<Option<MaintenancePlan>, kube::Error> {
        self.api.get_opt(name).await
    }

    /// Whether this server runs unattended plans at all (started with `--unattended-plans`).
    pub fn runs_unattended(&self) -> bool {
        self.unattended.is_some()
    }

    /// Who an unattended plan runs as here, once the policy that guards them is seen in force (and, for a plan
    /// already made, was in force when it was made); why not otherwise.
    pub(crate) async fn unattended_hand(
        &self,
        plan: Option<&MaintenancePlan>,
    ) -> Result<(Identity, kube::Client), domain::plan_block::Blocked> {
        use domain::plan_block::Blocked;
        let Some((identity, client)) = &self.unattended else { return Err(Blocked::UnattendedOff) };
        let not_allowed = |why: String| Blocked::UnattendedNotAllowed { why };
        let since = unattended::policy_in_force(client).await.map_err(not_allowed)?;
        if let Some(plan) = plan {
            unattended::judged(plan.metadata.creation_timestamp.as_ref().map(|t| t.0), since).map_err(not_allowed)?;
        }
        Ok((identity.clone(), client.clone()))
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
    pub(crate) fn hold(&self, name: &str, identity: Identity, client: kube::Client) {
        self.hands.lock().insert(name.to_owned(), (identity, client));
    }

    /// Forgets the credentials held for `name` (a continue that could not take the plan over).
    pub(crate) fn let_hold_go(&self, name: &str) {
        self.hands.lock().remove(name);
    }

    /// Stops this server's loop of `name` (its drains go on), and waits up to `limit` for it to end; whether it did.
    pub(crate) async fn stop_running(&self, name: &str, limit: std::time::Duration) -> bool {
        if let Some((stop, _)) = self.running.lock().get(name) {
            stop.cancel();
        }
        self.wake(name);
        let deadline = tokio::time::Instant::now() + limit;
        while self.runs(name) {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        true
    }

    /// Whether this server runs `name` now.
    pub fn runs(&self, name: &str) -> bool {
        self.running.lock().contains_key(name)
    }

    /// The holder identity of this server, as plan Leases name it.
    pub fn holder(&self) -> &str {
        self.leases.holder()
    }

    /// Who this server runs `name` as, if it holds credentials for it.
    pub(crate) fn hand(&self, name: &str) -> Option<(Identity, kube::Client)> {
        self.hands.lock().get(name).cloned()
    }

    /// Marks `name` as run here, with the token that stops its loop; false if it already is.
    pub(crate) fn claim(&self, name: &str, stop: CancellationToken, user: &str) -> bool {
        let mut running = self.running.lock();
        if running.contains_key(name) {
            return false;
        }
        running.insert(name.to_owned(), (stop, user.to_owned()));
        true
    }

    /// `name`'s loop here has ended: its Lease goes, and its credentials too once the plan has ended or is gone.
    pub(crate) async fn release(&self, name: &str) {
        self.running.lock().remove(name);
        self.leases.release_plan(name).await;
        if self.get(name).await.is_ok_and(|p| p.is_none_or(|p| p.ended())) {
            self.hands.lock().remove(name);
        }
    }

    /// The plan Leases, held as this server.
    pub(crate) fn leases(&self) -> &Leases {
        &self.leases
    }

    /// The plan that waits longest for a place under the caps and may run here now: when a place frees, it goes
    /// on first (oldest first, then by name).
    pub(crate) fn next_waiting(&self) -> Option<String> {
        let mut waiting: Vec<Arc<MaintenancePlan>> = self
            .store
            .state()
            .into_iter()
            .filter(|p| !p.ended() && matches!(p.blocked(), Some(domain::plan_block::Blocked::TooMany(_))))
            .filter(|p| !self.runs(&p.name_any()))
            .collect();
        waiting
            .sort_by(|a, b| a.creation_timestamp().cmp(&b.creation_timestamp()).then(a.name_any().cmp(&b.name_any())));
        waiting
            .into_iter()
            .map(|p| p.name_any())
            .find(|name| self.hand(name).is_some_and(|(identity, _)| self.over_cap(&identity.user).is_none()))
    }

    /// Reconciles `name` now (`controller`).
    pub(crate) fn wake(&self, name: &str) {
        // Closed only once the controller has stopped, when there is nothing left to wake.
        let _ = self.wakes.send(name.to_owned());
    }

    /// The token that stops this server's runner of `name`, while it runs here.
    pub(crate) fn stop_token(&self, name: &str) -> Option<CancellationToken> {
        self.running.lock().get(name).map(|(stop, _)| stop.clone())
    }
}
