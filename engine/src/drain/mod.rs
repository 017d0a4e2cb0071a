//! How a drain runs: as a server task that a request starts and gets the id of at once. The task belongs to the
//! registry, not to the request, so closing the tab changes nothing and any number of viewers can follow it. When
//! the server shuts down, every running drain stops and records itself as interrupted, so that a restarted server
//! offers to resume it.

pub mod evict;
mod evicting;
mod facts;
mod hooks;
mod limits;
pub mod ops;
pub mod pace;
mod presence;
pub mod preview;
mod record;
pub mod recorded;
mod renew;
pub(crate) use renew::AbortOnDrop;
mod task;
mod volumes;
mod wait;

use domain::conflict::Conflict;
use std::{collections::HashMap, sync::Arc};

use domain::{
    drain::{DrainOptions, DryRun},
    failure::Failure,
    progress::{DrainProgress, DrainStarted, DrainState, DrainSummary},
};
use futures::FutureExt;
use jiff::Timestamp;
use kube::Client;
use std::panic::AssertUnwindSafe;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use domain::progress::RECORD_ANNOTATION;
pub use hooks::Phase;
#[cfg(feature = "test-hooks")]
pub use hooks::TestHooks;
pub use limits::DrainLimits;
pub use preview::cached_inputs;

use crate::{Error, Identity, Result, tasks::Tasks};

/// How many finished drains the registry keeps for late viewers.
const KEEP_FINISHED: usize = 200;

/// Every drain this server runs or ran, by id; at most one real (not dry-run) drain per node at a time.
#[derive(Clone)]
pub struct DrainRegistry {
    inner: Arc<parking_lot::Mutex<Inner>>,
    /// A drain outlives the request that starts it, so its task runs under the server's tasks, and hears their
    /// shutdown.
    tasks: Tasks,
    limits: DrainLimits,
    pacer: pace::Pacer,
    #[cfg(feature = "test-hooks")]
    hooks: TestHooks,
    /// Where a drain's end is recorded.
    audit: crate::audit::Audit,
    /// The node Leases through which replicas agree, when kept.
    leases: Option<crate::lease::Leases>,
    /// Publishes each real drain's lifecycle conditions on its node, when asked (team mode).
    lifecycle: Option<crate::lifecycle::Publisher>,
    /// Moves whenever any drain's progress changes, so that board streams can push drains to every viewer.
    changes: Arc<watch::Sender<u64>>,
    /// The drains other servers run, from their node Leases ([`crate::lease::Leases::follow`]).
    elsewhere: Option<watch::Receiver<Arc<Vec<DrainSummary>>>>,
}

#[derive(Default)]
struct Inner {
    drains: HashMap<String, Entry>,
    /// (cluster, node) → id of its running drain.
    running: HashMap<(String, String), String>,
    /// Every drain not finished yet, with who started it and whether it is a dry run: what the limits count.
    active: HashMap<String, (Identity, bool)>,
    finished_order: Vec<String>,
}

struct Entry {
    cluster: String,
    progress: watch::Receiver<DrainProgress>,
    cancel: CancellationToken,
}

/// What a drain starts with besides its node and options.
#[derive(Default)]
pub struct Launch {
    /// The identity's cache: a blocked eviction reads its budget there instead of listing the namespace's.
    pub cache: Option<Arc<crate::cache::ClusterCache>>,
    /// How long it should take, estimated before it started (`domain::estimate`).
    pub estimate: Option<domain::estimate::Estimate>,
}

impl DrainRegistry {
    /// A registry whose drains run under `tasks`.
    pub fn new(tasks: &Tasks, limits: DrainLimits) -> Self {
        DrainRegistry {
            inner: Default::default(),
            tasks: tasks.clone(),
            limits,
            pacer: pace::Pacer::new(limits.pace),
            #[cfg(feature = "test-hooks")]
            hooks: TestHooks::default(),
            audit: Default::default(),
            lifecycle: None,
            leases: None,
            changes: Arc::new(watch::channel(0).0),
            elsewhere: None,
        }
    }

    /// The same registry, its real drains renewing their node's Lease in `leases` while they run, and showing the
    /// drains other servers run from theirs.
    pub fn with_leases(mut self, leases: crate::lease::Leases) -> Self {
        self.elsewhere = Some(leases.follow(&self.tasks));
        self.leases = Some(leases);
        self
    }

    /// Moves whenever the drains other servers run change (never without Leases).
    pub fn elsewhere_changes(&self) -> watch::Receiver<Arc<Vec<DrainSummary>>> {
        self.elsewhere.clone().unwrap_or_else(|| watch::channel(Arc::new(Vec::new())).1)
    }

    /// The node Leases, when kept.
    /// The pace every drain of this server keeps, as an estimate reads it.
    pub fn pace(&self) -> domain::estimate::Pace {
        domain::estimate::Pace { per_second: self.limits.pace.qps, burst: self.limits.pace.burst }
    }

    pub fn leases(&self) -> Option<&crate::lease::Leases> {
        self.leases.as_ref()
    }

    /// The same registry, each real drain publishing its lifecycle conditions through `publisher`.
    pub fn with_lifecycle(mut self, publisher: crate::lifecycle::Publisher) -> Self {
        self.lifecycle = Some(publisher);
        self
    }

    /// The same registry, recording each real drain's end in `audit`.
    pub fn with_audit(mut self, audit: crate::audit::Audit) -> Self {
        self.audit = audit;
        self
    }

    /// The same registry, with faults for tests (see [`TestHooks`]). With the `test-hooks` feature only.
    #[cfg(feature = "test-hooks")]
    pub fn with_test_hooks(mut self, hooks: TestHooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Starts draining `node` as `identity`, or attaches to the drain of that node already running. Refused with
    /// [`Error::TooMany`] over the limits.
    pub fn start(
        &self,
        client: Client,
        identity: &Identity,
        node: String,
        options: DrainOptions,
        reason: Option<String>,
    ) -> Result<DrainStarted> {
        self.start_with_cache(client, identity, node, options, reason, Launch::default())
    }

    /// [`Self::start`], reading budgets from the identity's cache rather than listing them on every retry, and
    /// keeping the estimate made before the start ([`Launch`]).
    pub fn start_with_cache(
        &self,
        client: Client,
        identity: &Identity,
        node: String,
        options: DrainOptions,
        reason: Option<String>,
        launch: Launch,
    ) -> Result<DrainStarted> {
        let Launch { cache, estimate } = launch;
        // A server dry run held by a budget would retry for ever: every caller gets the dialog's cap, not only it.
        let options = options.clone().for_dry_run(options.dry_run);
        let mut inner = self.lock();
        let key = (identity.cluster.clone(), node.clone());
        let real = options.dry_run == DryRun::None;
        if real && let Some(id) = inner.running.get(&key) {
            // The same request again (a second tab, a retry) attaches. Other options would be a different drain of
            // the same node: that conflicts, and the person should see the running one first.
            let running = inner.drains.get(id).map(|e| e.progress.borrow().options.clone());
            if running.as_ref() == Some(&options) {
                return Ok(DrainStarted { id: id.clone(), attached: true });
            }
            return Err(Error::Conflict(Conflict::AlreadyDraining { node, drain: id.clone() }));
        }
        if let Some(refused) = self.limits.refusal(inner.active.values(), identity, !real) {
            return Err(refused);
        }
        let id = uuid::Uuid::new_v4().to_string();
        let (tx, rx) = watch::channel(DrainProgress {
            id: id.clone(),
            node: node.clone(),
            started_by: identity.user.clone(),
            started_at: Timestamp::now(),
            reason,
            options: options.clone(),
            state: DrainState::Cordoning,
            plan: None,
            pods: Vec::new(),
            finished_at: None,
            estimate,
        });
        // Shutdown cancels every drain too; the drain then tells the two apart and records itself as interrupted.
        let cancel = self.tasks.shutdown_signal().child_token();
        inner.drains.insert(
            id.clone(),
            Entry { cluster: identity.cluster.clone(), progress: rx.clone(), cancel: cancel.clone() },
        );
        if real {
            inner.running.insert(key.clone(), id.clone());
        }
        inner.active.insert(id.clone(), (identity.clone(), !real));
        drop(inner);

        // Every change of this drain moves the registry's counter, until the drain's task ends.
        let changes = self.changes.clone();
        let mut follow = rx;
        self.tasks.spawn(async move {
            changes.send_modify(|n| *n += 1);
            while follow.changed().await.is_ok() {
                changes.send_modify(|n| *n += 1);
            }
            changes.send_modify(|n| *n += 1);
        });

        let written = std::sync::Arc::new(parking_lot::Mutex::new(None));
        let supervisor = (client.clone(), node.clone(), tx.clone(), written.clone());
        let drain = task::Drain {
            client,
            node,
            options,
            progress: tx,
            cancel,
            tasks: self.tasks.clone(),
            #[cfg(feature = "test-hooks")]
            hooks: self.hooks.clone(),
            cache,
            pacer: self.pacer.clone(),
            in_flight: self.pacer.in_flight(),
            audit: self.audit.clone(),
            lifecycle: self.lifecycle.clone(),
            cordoned: Default::default(),
            published: Default::default(),
            lease: self.leases.clone().filter(|_| real),
            lost_lease: Default::default(),
            written,
        };
        let registry = self.clone();
        let finished_id = id.clone();
        // Every line the drain logs carries its id and node (and who started it), in text or JSON alike.
        let span = tracing::info_span!("drain", id = %id, node = %supervisor.1, by = %identity.user);
        self.tasks.spawn(tracing::Instrument::instrument(
            async move {
                // Supervised: a drain that panics ends Failed, with its record written and its node freed, instead of
                // leaving a running entry that every later start would attach to.
                if let Err(panic) = AssertUnwindSafe(drain.run()).catch_unwind().await {
                    let why = crate::tasks::panic_message(panic.as_ref());
                    tracing::error!(node = %supervisor.1, %why, "drain task panicked");
                    let (client, node, progress, written) = supervisor;
                    let last = written.lock().clone();
                    record::fail(&client, &node, &progress, last, Failure::Internal { detail: why }).await;
                    if let Some(leases) = &registry.leases {
                        leases.release(&node).await;
                    }
                }
                registry.finished(&key, &finished_id);
            },
            span,
        ));
        Ok(DrainStarted { id, attached: false })
    }

    /// A live view of the drain's progress.
    pub fn subscribe(&self, id: &str) -> Option<watch::Receiver<DrainProgress>> {
        self.lock().drains.get(id).map(|e| e.progress.clone())
    }

    /// The drain's progress now.
    pub fn progress(&self, id: &str) -> Option<DrainProgress> {
        self.lock().drains.get(id).map(|e| e.progress.borrow().clone())
    }

    /// Asks a running drain to stop retrying and waiting. False if there is no such drain.
    pub fn cancel(&self, id: &str) -> bool {
        let inner = self.lock();
        let Some(entry) = inner.drains.get(id) else {
            return false;
        };
        entry.cancel.cancel();
        true
    }

    /// The id of the drain running on `node`, if any.
    pub fn running_on(&self, cluster: &str, node: &str) -> Option<String> {
        self.lock().running.get(&(cluster.to_string(), node.to_string())).cloned()
    }

    /// Every drain the registry holds, newest first.
    pub fn all(&self) -> Vec<DrainProgress> {
        let mut all: Vec<_> = self.lock().drains.values().map(|e| e.progress.borrow().clone()).collect();
        all.sort_by_key(|d| std::cmp::Reverse(d.started_at));
        all
    }

    /// A counter that moves whenever any drain changes.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// The pods the drains this server runs in `cluster` wait on at `now`, by blocker class
    /// (`domain::census::waiting`), read in place: a scrape copies no drain's progress. Other servers' drains are
    /// theirs to count (their Leases carry only a summary).
    pub fn waiting(&self, cluster: &str, now: Timestamp) -> std::collections::BTreeMap<&'static str, usize> {
        let inner = self.lock();
        let progress: Vec<_> = inner
            .drains
            .values()
            .filter(|e| e.cluster == cluster)
            .map(|e| e.progress.borrow())
            .filter(|p| p.options.dry_run == DryRun::None)
            .collect();
        domain::census::waiting(progress.iter().map(|p| &**p), now)
    }

    /// For each node of `cluster`, the drain its card shows: the running one, or else the latest. Dry runs
    /// change nothing and are left out.
    pub fn summaries(&self, cluster: &str) -> Vec<DrainSummary> {
        let inner = self.lock();
        let mut by_node: std::collections::BTreeMap<String, DrainSummary> = Default::default();
        for entry in inner.drains.values().filter(|e| e.cluster == cluster) {
            let progress = entry.progress.borrow();
            if progress.options.dry_run != DryRun::None {
                continue;
            }
            let candidate = DrainSummary::from(&*progress);
            let replace = by_node.get(&candidate.node).is_none_or(|shown| {
                let rank = |d: &DrainSummary| (d.state.is_running(), d.started_at);
                rank(&candidate) > rank(shown)
            });
            if replace {
                by_node.insert(candidate.node.clone(), candidate);
            }
        }
        // Another server's live drain of a node shows unless this server runs one there (it cannot: the Lease).
        for remote in self.elsewhere.iter().flat_map(|rx| rx.borrow().iter().cloned().collect::<Vec<_>>()) {
            if by_node.get(&remote.node).is_none_or(|shown| !shown.state.is_running()) {
                by_node.insert(remote.node.clone(), remote);
            }
        }
        by_node.into_values().collect()
    }

    fn finished(&self, key: &(String, String), id: &str) {
        let mut inner = self.lock();
        if inner.running.get(key).is_some_and(|running| running == id) {
            inner.running.remove(key);
        }
        inner.active.remove(id);
        inner.finished_order.push(id.to_string());
        while inner.finished_order.len() > KEEP_FINISHED {
            let oldest = inner.finished_order.remove(0);
            inner.drains.remove(&oldest);
        }
    }

    fn lock(&self) -> parking_lot::MutexGuard<'_, Inner> {
        self.inner.lock()
    }
}
