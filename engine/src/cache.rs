//! How the caches stay fresh: the cluster's nodes, pods, node Leases and PodDisruptionBudgets, one set of watches
//! per identity.
//!
//! Every browser of the same person shares one cache, so N open tabs cost one watch per resource, not N. The
//! caches are keyed by [`Identity`] because each person sees what their own credentials may see. A cache lives
//! while someone holds it, and a minute more, then stops its watches. Objects are trimmed as they arrive
//! ([`crate::trim`]) to the few fields the cards and drain previews read.

use std::{
    collections::{BTreeSet, HashMap},
    sync::{
        Arc, Mutex, Weak,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use domain::{
    budget::PdbInfo,
    capacity::{self, CapacityReport, Fate, NodeRoom},
    node::NodeCard,
};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::{
    coordination::v1::Lease,
    core::v1::{Node, Pod},
    policy::v1::PodDisruptionBudget,
};
use kube::{
    Api, Client, Resource,
    runtime::{
        WatchStreamExt,
        reflector::{self, Store},
        watcher,
    },
};
use tokio::{sync::watch, task::JoinHandle, time::Instant};

use crate::{
    Error, Identity, Result,
    cards::CardBuilder,
    pods::{CachedPod, Shared},
    tasks::Tasks,
    trim,
};

/// The namespace of node heartbeat Leases.
const NODE_LEASE_NAMESPACE: &str = "kube-node-lease";

/// How long a request waits for a new cache's first list. A cluster of tens of thousands of pods takes a while
/// to list; the answer after that is an error that says to try again.
pub const FIRST_LIST_LIMIT: Duration = Duration::from_secs(90);

/// The least time between two computations of the cards: Lease renewals alone change a large cluster's cards
/// hundreds of times a second, and viewers need them a few times a second at most. A change after a quiet spell
/// does not wait for it.
const CARDS_COALESCE: Duration = Duration::from_millis(100);

/// How long a cache stays after its last use by default, so that a page load followed by its event stream, or a
/// quick reload, reuses the watches instead of listing the cluster again.
pub const DEFAULT_LINGER: Duration = Duration::from_secs(60);

/// The caches of every identity, and how many watches they have started (for tests and metrics).
#[derive(Clone)]
pub struct ClusterCaches {
    caches: Arc<Mutex<HashMap<Identity, Held>>>,
    watches_started: Arc<AtomicU64>,
    linger: Duration,
    tasks: Tasks,
}

/// A cache as the registry holds it: weakly, plus strongly until `until` after its last use.
struct Held {
    cache: Weak<ClusterCache>,
    keep: Option<(Arc<ClusterCache>, Instant)>,
}

/// One identity's view of the cluster, kept current by four watches.
pub struct ClusterCache {
    nodes: Store<Node>,
    pods: Store<CachedPod>,
    leases: Store<Lease>,
    /// PodDisruptionBudgets, for the drain dialog's live preview of which evictions will wait.
    pdbs: Store<PodDisruptionBudget>,
    version: watch::Receiver<u64>,
    /// True once every store has listed its resource. The stores' own readiness wakes only the last task that
    /// waited on it (kube-runtime 5 keeps one waker per store), so only the cards task waits there, and everyone
    /// else waits here.
    ready: watch::Receiver<bool>,
    /// Changes of pods and of PodDisruptionBudgets, counted apart from the rest.
    pod_changes: Arc<AtomicU64>,
    pdb_changes: Arc<AtomicU64>,
    cards: watch::Receiver<Arc<Vec<Arc<NodeCard>>>>,
    /// Since when the watches cannot reach the API server; `None` while they can.
    lost_since: watch::Receiver<Option<jiff::Timestamp>>,
    /// The kinds the identity may not list (kind → the API's message).
    refused: watch::Receiver<std::collections::BTreeMap<String, String>>,
    handles: Vec<JoinHandle<()>>,
}

/// What every watch of a cache reports to: a counter that moves on each change, and whether the API server answers.
#[derive(Clone)]
struct Feed {
    version: Arc<watch::Sender<u64>>,
    lost_since: Arc<watch::Sender<Option<jiff::Timestamp>>>,
    /// Since when each kind's watch has been failing. The cache is lost while any kind is: a good Lease event says
    /// nothing about a nodes watch that keeps failing.
    failing: Arc<std::sync::Mutex<std::collections::HashMap<String, jiff::Timestamp>>>,
    /// The kinds the identity may not list or watch (401/403), with the API's message.
    refused: Arc<watch::Sender<std::collections::BTreeMap<String, String>>>,
}

impl Feed {
    /// Marks `kind`'s watch failing (from now, unless it already was) or working, and sets the cache's lost time
    /// to the earliest failure of any kind.
    fn set_failing(&self, kind: &str, failing: bool) {
        let lost = {
            let mut kinds = self.failing.lock().unwrap_or_else(|p| p.into_inner());
            if failing {
                kinds.entry(kind.to_owned()).or_insert_with(jiff::Timestamp::now);
            } else {
                kinds.remove(kind);
            }
            kinds.values().min().copied()
        };
        self.lost_since.send_if_modified(|current| {
            let changed = *current != lost;
            *current = lost;
            changed
        });
    }
}

impl ClusterCaches {
    /// Caches whose tasks run under `tasks`, kept `linger` after their last use. With a linger, one sweeper task
    /// lets go of the caches nobody used for that long; no timer is started per request.
    pub fn new(tasks: &Tasks, linger: Duration) -> Self {
        let caches = ClusterCaches {
            caches: Default::default(),
            watches_started: Default::default(),
            linger,
            tasks: tasks.clone(),
        };
        if !linger.is_zero() {
            let sweeper = caches.clone();
            let shutdown = tasks.shutdown_signal().clone();
            let period = (linger / 4).max(Duration::from_millis(250));
            tasks.spawn(async move {
                loop {
                    tokio::select! {
                        () = tokio::time::sleep(period) => sweeper.sweep(Instant::now()),
                        () = shutdown.cancelled() => break,
                    }
                }
                // Dropping the held caches aborts their watches, so shutdown does not wait on them.
                sweeper.lock().clear();
            });
        }
        caches
    }

    /// The cache of `identity`, started with `client` (that identity's client) if none is running.
    pub fn for_identity(&self, identity: &Identity, client: Client) -> Arc<ClusterCache> {
        let mut caches = self.lock();
        let cache = match caches.get(identity).and_then(|held| held.cache.upgrade()) {
            Some(cache) => cache,
            None => {
                caches.retain(|_, held| held.cache.strong_count() > 0);
                let cache = Arc::new(ClusterCache::start(client, &self.watches_started, &self.tasks));
                caches.insert(identity.clone(), Held { cache: Arc::downgrade(&cache), keep: None });
                cache
            }
        };
        if !self.linger.is_zero()
            && let Some(held) = caches.get_mut(identity)
        {
            held.keep = Some((cache.clone(), Instant::now() + self.linger));
        }
        cache
    }

    /// Watches started since this server began (one per resource per cache).
    pub fn watches_started(&self) -> u64 {
        self.watches_started.load(Ordering::Relaxed)
    }

    /// Lets go of caches unused since before `now - linger`; a cache someone still holds keeps running.
    fn sweep(&self, now: Instant) {
        let mut caches = self.lock();
        for held in caches.values_mut() {
            if held.keep.as_ref().is_some_and(|(_, until)| *until <= now) {
                held.keep = None;
            }
        }
        caches.retain(|_, held| held.cache.strong_count() > 0);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Identity, Held>> {
        self.caches.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl ClusterCache {
    fn start(client: Client, watches_started: &AtomicU64, tasks: &Tasks) -> Self {
        let (version_tx, version) = watch::channel(0u64);
        let (lost_tx, lost_since) = watch::channel(None);
        let (refused_tx, refused) = watch::channel(Default::default());
        let feed = Feed {
            version: Arc::new(version_tx),
            lost_since: Arc::new(lost_tx),
            failing: Default::default(),
            refused: Arc::new(refused_tx),
        };
        let (nodes, node_writer) = reflector::store();
        let (pods, pod_writer) = reflector::store();
        let (leases, lease_writer) = reflector::store();
        let (pdbs, pdb_writer) = reflector::store();
        // Pod changes alone are counted apart: Lease renewals (most of a large cluster's changes) then cost a pass
        // over the nodes, not over every pod.
        let pod_changes = Arc::new(AtomicU64::new(0));
        let pdb_changes = Arc::new(AtomicU64::new(0));
        let mut handles = vec![
            reflect(tasks, Api::<Node>::all(client.clone()), node_writer, trimmed(trim::node), feed.clone(), None),
            reflect(
                tasks,
                Api::<Pod>::all(client.clone()),
                pod_writer,
                {
                    let shared = Shared::default();
                    move |pod| CachedPod::new(pod, &shared)
                },
                feed.clone(),
                Some(pod_changes.clone()),
            ),
            reflect(
                tasks,
                Api::<Lease>::namespaced(client.clone(), NODE_LEASE_NAMESPACE),
                lease_writer,
                trimmed(trim::lease),
                feed.clone(),
                None,
            ),
            reflect(
                tasks,
                Api::<PodDisruptionBudget>::all(client),
                pdb_writer,
                trimmed(trim::pdb),
                feed,
                Some(pdb_changes.clone()),
            ),
        ];
        watches_started.fetch_add(handles.len() as u64, Ordering::Relaxed);
        crate::metrics::METRICS.watches_started.inc_by(handles.len() as u64);
        let (cards_tx, cards) = watch::channel(Arc::new(Vec::new()));
        let (ready_tx, ready) = watch::channel(false);
        let (n, p, l, b, changes) = (nodes.clone(), pods.clone(), leases.clone(), pdbs.clone(), version.clone());
        let counted_pods = pod_changes.clone();
        // Supervised: every viewer's board hangs on this task, so a panic in it (a card built from a value nobody
        // foresaw) restarts it, and the log says so, instead of freezing every board until a restart.
        handles.push(tasks.supervise("node cards", move || {
            let (n, p, l, b, mut changes) = (n.clone(), p.clone(), l.clone(), b.clone(), changes.clone());
            let (ready_tx, cards_tx, counted_pods) = (ready_tx.clone(), cards_tx.clone(), counted_pods.clone());
            async move {
                let _ = tokio::join!(
                    n.wait_until_ready(),
                    p.wait_until_ready(),
                    l.wait_until_ready(),
                    b.wait_until_ready()
                );
                ready_tx.send_replace(true);
                let mut builder = CardBuilder::default();
                loop {
                    cards_tx.send_replace(Arc::new(builder.build(&n, &p, &l, counted_pods.load(Ordering::Relaxed))));
                    let built = Instant::now();
                    if changes.changed().await.is_err() {
                        return;
                    }
                    // A change after a quiet spell is built at once; the changes that follow it within the window
                    // wait for its end together, so a busy cluster still costs one build per window.
                    tokio::time::sleep_until(built + CARDS_COALESCE).await;
                    changes.mark_unchanged();
                }
            }
        }));
        ClusterCache {
            nodes,
            pods,
            leases,
            pdbs,
            version,
            ready,
            pod_changes,
            pdb_changes,
            cards,
            lost_since,
            refused,
            handles,
        }
    }

    /// The cards, recomputed after changes (at most every 100 ms) and shared by every viewer. Empty until the
    /// cache is ready.
    pub fn live_cards(&self) -> watch::Receiver<Arc<Vec<Arc<NodeCard>>>> {
        self.cards.clone()
    }

    /// Since when the watches cannot reach the API server, or `None` while they can. Pages say so at once: a board
    /// that looks live on data that stopped is worse than no board.
    pub fn lost_since(&self) -> watch::Receiver<Option<jiff::Timestamp>> {
        self.lost_since.clone()
    }

    /// Waits until each watch has listed its resource once. Any number of callers may wait at once.
    pub async fn ready(&self) {
        let _ = self.ready.clone().wait_for(|ready| *ready).await;
    }

    /// Whether the first list of every kind has arrived (it stays true through later outages).
    pub fn is_ready(&self) -> bool {
        *self.ready.borrow()
    }

    /// `ready`, for a request: gives up after [`FIRST_LIST_LIMIT`] with an error that says to try again, or at
    /// once when the identity may not list a kind the board needs, naming it: waiting would never end.
    pub async fn ready_for_request(&self) -> Result<()> {
        let mut refused = self.refused.clone();
        tokio::select! {
            ready = tokio::time::timeout(FIRST_LIST_LIMIT, self.ready()) => {
                ready.map_err(|_| Error::NotListed(FIRST_LIST_LIMIT.as_secs()))
            }
            Ok(kinds) = refused.wait_for(|kinds| !kinds.is_empty()) => {
                let names: Vec<&str> = kinds.keys().map(String::as_str).collect();
                let first = kinds.values().next().cloned().unwrap_or_default();
                Err(Error::Forbidden(format!(
                    "the board needs list and watch on nodes, pods, PodDisruptionBudgets and the Leases in \
                     kube-node-lease, and the API server refused {} ({first}); ask for read access (the \
                     drainboard-viewer role)",
                    names.join(", ")
                )))
            }
        }
    }

    /// A counter that moves when a pod or a PodDisruptionBudget changes: what a drain preview reads. Lease and
    /// node changes, most of a large cluster's traffic, leave it alone.
    pub fn preview_changes(&self) -> u64 {
        self.pod_changes.load(Ordering::Relaxed) + self.pdb_changes.load(Ordering::Relaxed)
    }

    /// A counter that moves on every change to any of the cached objects.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.version.clone()
    }

    /// Every node's card, computed now.
    pub fn cards(&self) -> Vec<NodeCard> {
        CardBuilder::default()
            .build(&self.nodes, &self.pods, &self.leases, 0)
            .into_iter()
            .map(Arc::unwrap_or_clone)
            .collect()
    }

    /// The cached pods on `node`.
    pub fn pods_on(&self, node: &str) -> Vec<Arc<CachedPod>> {
        self.pods.state_filter(|p| p.node() == Some(node))
    }

    /// The capacity check of draining `draining`: every other schedulable node's room, less what its pods request,
    /// and the pods the drains would remove.
    pub fn capacity(&self, draining: &BTreeSet<&str>) -> CapacityReport {
        let mut rooms: HashMap<String, NodeRoom> = self
            .nodes
            .state()
            .iter()
            .filter(|n| n.metadata.name.as_deref().is_some_and(|name| !draining.contains(name)))
            .filter(|n| !n.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false))
            .map(|n| NodeRoom::from_node(n))
            .map(|room| (room.name.clone(), room))
            .collect();
        let (mut moving, mut gone) = (Vec::new(), Vec::new());
        for pod in self.pods.state() {
            let Some(node) = pod.node() else { continue };
            if draining.contains(node) {
                match pod.fate() {
                    Fate::Recreated => moving.push((node.to_string(), pod.needs())),
                    Fate::Gone => gone.push(pod.key()),
                    Fate::Stays => {}
                }
            } else if let Some(room) = rooms.get_mut(node)
                && !pod.phase().is_terminal()
            {
                room.take(pod.requests());
            }
        }
        capacity::check(moving, rooms.into_values().collect(), gone)
    }

    /// The namespaces of the cached pods.
    pub fn pod_namespaces(&self) -> BTreeSet<String> {
        self.pods.state().iter().map(|pod| pod.namespace().to_string()).collect()
    }

    /// `node`'s card from the cache now, without its pods and Lease: what a rollout reads of a node it awaits.
    pub fn node_card(&self, node: &str) -> Option<NodeCard> {
        self.nodes.get(&reflector::ObjectRef::new(node)).map(|n| NodeCard::from_node(&n))
    }

    /// Whether `node` is in the cache.
    pub fn has_node(&self, node: &str) -> bool {
        self.nodes.get(&reflector::ObjectRef::new(node)).is_some()
    }

    /// A counter that moves when a PodDisruptionBudget changes.
    pub fn pdb_changes(&self) -> u64 {
        self.pdb_changes.load(Ordering::Relaxed)
    }

    /// The status of budget `name` in `namespace` now.
    pub fn pdb_status(&self, namespace: &str, name: &str) -> Option<domain::budget::PdbStatus> {
        let budget = self.pdbs.get(&reflector::ObjectRef::new(name).within(namespace))?;
        PdbInfo::from_k8s(&budget).map(|info| info.status)
    }

    /// The PodDisruptionBudgets of `namespaces`, with their selectors and status now, sorted for a stable preview.
    /// (Two budgets covering one pod make its eviction fail; the drain says so.)
    pub fn pdbs_in(&self, namespaces: &BTreeSet<String>) -> Vec<PdbInfo> {
        let mut found: Vec<PdbInfo> = self
            .pdbs
            .state()
            .iter()
            .filter(|b| b.metadata.namespace.as_ref().is_some_and(|ns| namespaces.contains(ns)))
            .filter_map(|b| PdbInfo::from_k8s(b))
            .collect();
        found.sort_by(|a, b| (&a.namespace, &a.status.name).cmp(&(&b.namespace, &b.status.name)));
        found
    }
}

impl Drop for ClusterCache {
    fn drop(&mut self) {
        for task in &self.handles {
            task.abort();
        }
    }
}

/// Runs a reflector for `api` into `writer`, trimming objects as they arrive and bumping `version` (and `count`,
/// when given) on each change.
fn reflect<S, K>(
    tasks: &Tasks,
    api: Api<S>,
    writer: reflector::store::Writer<K>,
    keep: impl Fn(S) -> K + Send + 'static,
    feed: Feed,
    count: Option<Arc<AtomicU64>>,
) -> JoinHandle<()>
where
    S: Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + Sync + 'static,
    S::DynamicType: Default,
    K: reflector::Lookup + Clone + Send + Sync + 'static,
    K::DynamicType: Default + Eq + std::hash::Hash + Clone + Send + Sync,
{
    let shutdown = tasks.shutdown_signal().clone();
    tasks.spawn(async move {
        let probe_api = api.clone();
        // `reflector` rather than `.reflect`: it needs only `Lookup`, so a store can key what it keeps without an
        // `ObjectMeta` (see `pods::CachedPod`).
        let stream = reflector::reflector(
            writer,
            watcher(api, watcher::Config::default()).backoff(cache_backoff()).map_ok(move |event| kept(event, &keep)),
        );
        let mut stream = std::pin::pin!(stream.take_until(shutdown.cancelled_owned()));
        let kind = S::kind(&Default::default()).to_string();
        // While this kind's watch is failing: a watch that resumes from where it was sends nothing until something
        // changes (a quiet kind may not change for minutes), so a small list every few seconds says when the API
        // server answers for this kind again.
        let mut failing = false;
        let mut probe = tokio::time::interval(PROBE_EVERY);
        probe.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                event = stream.next() => {
                    let Some(event) = event else { break };
                    match event {
                        Ok(_) => {
                            if let Some(count) = &count {
                                count.fetch_add(1, Ordering::Relaxed);
                            }
                            feed.version.send_modify(|v| *v += 1);
                            failing = false;
                            feed.set_failing(&kind, false);
                            feed.refused.send_if_modified(|r| r.remove(&kind).is_some());
                        }
                        Err(err) => {
                            // No answer, a 5xx or a 429 leaves this kind's cards stale until it answers again.
                            failing = unavailable(&err);
                            crate::metrics::METRICS.watch_failed(&kind);
                            feed.set_failing(&kind, failing);
                            if let Some(why) = refusal(&err) {
                                feed.refused.send_if_modified(|r| r.insert(kind.clone(), why).is_none());
                            }
                            tracing::warn!(error = %err, %kind, "watch failed; retrying")
                        }
                    }
                }
                _ = probe.tick(), if failing => {
                    if probe_api.list_metadata(&kube::api::ListParams::default().limit(1)).await.is_ok() {
                        failing = false;
                        feed.set_failing(&kind, false);
                    }
                }
            }
        }
    })
}

/// A watch event with its object converted to what the store keeps, as it arrives.
fn kept<S, K>(event: watcher::Event<S>, keep: &impl Fn(S) -> K) -> watcher::Event<K> {
    match event {
        watcher::Event::Apply(o) => watcher::Event::Apply(keep(o)),
        watcher::Event::Delete(o) => watcher::Event::Delete(keep(o)),
        watcher::Event::Init => watcher::Event::Init,
        watcher::Event::InitApply(o) => watcher::Event::InitApply(keep(o)),
        watcher::Event::InitDone => watcher::Event::InitDone,
    }
}

/// A trimming in place as a conversion.
fn trimmed<K>(trim: fn(&mut K)) -> impl Fn(K) -> K {
    move |mut o| {
        trim(&mut o);
        o
    }
}

/// The API's message when a watch error is a refusal (401, 403): the identity may not list or watch the kind.
fn refusal(err: &watcher::Error) -> Option<String> {
    match err {
        watcher::Error::InitialListFailed(kube::Error::Api(status))
        | watcher::Error::WatchStartFailed(kube::Error::Api(status))
        | watcher::Error::WatchFailed(kube::Error::Api(status))
            if matches!(status.code, 401 | 403) =>
        {
            Some(status.message.clone())
        }
        _ => None,
    }
}

/// The retry pace of the cache's watches: from 500 ms to at most 5 s, reset by any success. kube's default grows to
/// 30 s, which left the cards stale for up to that long after the API server came back, while the lost notice had
/// already cleared. One set of watches per cache keeps this cheap for the API server.
fn cache_backoff() -> kube::runtime::watcher::ExponentialBackoff {
    backon::ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(500))
        .with_max_delay(Duration::from_secs(5))
        .with_factor(2.0)
        .with_jitter()
        .without_max_times()
        .into()
}

/// How often a failing kind's API is asked whether it answers again.
const PROBE_EVERY: Duration = Duration::from_secs(2);

/// Whether a watch error leaves the cache without a working API server: no answer at all, or an answer that says
/// the server cannot serve now (5xx, 429). A refusal (403: the person may not list that kind) or an expired resource
/// version (410, the watcher's normal resync) is an answer from a working server, and is not.
fn unavailable(err: &watcher::Error) -> bool {
    let status = match err {
        watcher::Error::WatchError(status) => status.code,
        watcher::Error::InitialListFailed(kube::Error::Api(status))
        | watcher::Error::WatchStartFailed(kube::Error::Api(status))
        | watcher::Error::WatchFailed(kube::Error::Api(status)) => status.code,
        watcher::Error::NoResourceVersion => return false,
        _ => return true,
    };
    status >= 500 || status == 429
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: u16) -> kube::Error {
        kube::Error::Api(Box::new(kube::core::Status::failure("m", "r").with_code(code)))
    }

    #[test]
    fn only_an_api_server_that_cannot_serve_counts_as_lost() {
        assert!(unavailable(&watcher::Error::InitialListFailed(api(500))));
        assert!(unavailable(&watcher::Error::WatchStartFailed(api(503))));
        assert!(unavailable(&watcher::Error::InitialListFailed(api(429))));
        assert!(!unavailable(&watcher::Error::InitialListFailed(api(403))), "a refusal is an answer");
        assert!(!unavailable(&watcher::Error::WatchFailed(api(410))), "a resync is normal");
        let gone = kube::core::Status::failure("too old", "Expired").with_code(410);
        assert!(!unavailable(&watcher::Error::WatchError(Box::new(gone))));
    }

    #[test]
    fn a_refusal_is_told_apart_from_an_outage() {
        assert_eq!(refusal(&watcher::Error::InitialListFailed(api(403))).as_deref(), Some("m"));
        assert_eq!(refusal(&watcher::Error::WatchStartFailed(api(401))).as_deref(), Some("m"));
        assert_eq!(refusal(&watcher::Error::InitialListFailed(api(500))), None);
        assert_eq!(refusal(&watcher::Error::WatchFailed(api(410))), None);
    }

    #[test]
    fn the_cache_is_lost_while_any_kind_fails_from_the_first_failure() {
        let (tx, rx) = watch::channel(None);
        let (version, _) = watch::channel(0);
        let feed = Feed {
            version: Arc::new(version),
            lost_since: Arc::new(tx),
            failing: Default::default(),
            refused: Arc::new(watch::channel(Default::default()).0),
        };
        feed.set_failing("Node", true);
        let first = *rx.borrow();
        assert!(first.is_some());
        feed.set_failing("Lease", true);
        feed.set_failing("Lease", false);
        assert_eq!(*rx.borrow(), first, "a Lease event says nothing about the nodes watch");
        feed.set_failing("Node", true);
        assert_eq!(*rx.borrow(), first, "lost since the first failure, not the latest");
        feed.set_failing("Node", false);
        assert_eq!(*rx.borrow(), None);
    }
}
