//! Live caches of the cluster's nodes, pods and node Leases, one set per identity.
//!
//! Every browser of the same person shares one cache, so N open tabs cost one watch per resource, not N. The
//! caches are keyed by [`Identity`] because each person sees what their own credentials may see. A cache lives
//! while someone holds it and stops its watches when the last holder lets go. Pods are trimmed as they arrive
//! to the few fields the cards and drain previews read, which keeps a large cluster's cache small.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, Weak,
        atomic::{AtomicU64, Ordering},
    },
};

use domain::{
    PodSummary,
    eviction::{NO_EXECUTE, pod_eviction},
    node::{NodeCard, PodEta},
    preview::PdbInfo,
    progress::PdbStatus,
    selector::LabelSelector,
};
use futures::StreamExt;
use k8s_openapi::api::{
    coordination::v1::Lease,
    core::v1::{Node, Pod, PodSpec},
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
use tokio::{sync::watch, task::JoinHandle};

use crate::kube_access::Identity;

/// The namespace of node heartbeat Leases.
const NODE_LEASE_NAMESPACE: &str = "kube-node-lease";

/// The caches of every identity, and how many watches they have started (for tests and metrics).
#[derive(Clone)]
pub struct ClusterCaches {
    caches: Arc<Mutex<HashMap<Identity, Weak<ClusterCache>>>>,
    watches_started: Arc<AtomicU64>,
    linger: std::time::Duration,
    /// The server's runtime. Caches outlive the request that starts them, and a page render may run on an
    /// executor of its own that stops polling when the render ends, so their tasks are spawned here.
    runtime: tokio::runtime::Handle,
}

impl Default for ClusterCaches {
    /// Caches stay a minute after their last use, so that a page load followed by its event stream, or a quick
    /// reload, reuses the watches instead of listing the cluster again.
    fn default() -> Self {
        Self::with_linger(std::time::Duration::from_secs(60))
    }
}

impl ClusterCaches {
    /// Must be called within the server's tokio runtime.
    pub fn with_linger(linger: std::time::Duration) -> Self {
        ClusterCaches {
            caches: Default::default(),
            watches_started: Default::default(),
            linger,
            runtime: tokio::runtime::Handle::current(),
        }
    }

    /// The cache of `identity`, started with `client` (that identity's client) if none is running.
    pub fn for_identity(&self, identity: &Identity, client: Client) -> Arc<ClusterCache> {
        let mut caches = self.caches.lock().unwrap_or_else(|p| p.into_inner());
        let cache = match caches.get(identity).and_then(Weak::upgrade) {
            Some(cache) => cache,
            None => {
                caches.retain(|_, weak| weak.strong_count() > 0);
                let cache = Arc::new(ClusterCache::start(client, &self.watches_started, &self.runtime));
                caches.insert(identity.clone(), Arc::downgrade(&cache));
                cache
            }
        };
        if !self.linger.is_zero() {
            let held = cache.clone();
            let linger = self.linger;
            self.runtime.spawn(async move {
                tokio::time::sleep(linger).await;
                drop(held);
            });
        }
        cache
    }

    /// Watches started since this server began (one per resource per cache).
    pub fn watches_started(&self) -> u64 {
        self.watches_started.load(Ordering::Relaxed)
    }
}

/// One identity's view of the cluster, kept current by four watches.
pub struct ClusterCache {
    nodes: Store<Node>,
    pods: Store<Pod>,
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
    cards: watch::Receiver<Arc<Vec<NodeCard>>>,
    tasks: Vec<JoinHandle<()>>,
}

/// How long a request waits for a new cache's first list. A cluster of tens of thousands of pods takes a while
/// to list; the answer after that is an error that says to try again.
pub const FIRST_LIST_LIMIT: std::time::Duration = std::time::Duration::from_secs(90);

/// How long changes are gathered before the cards are computed again: Lease renewals alone change a large
/// cluster's cards hundreds of times a second, and viewers need them a few times a second at most.
const CARDS_COALESCE: std::time::Duration = std::time::Duration::from_millis(100);

impl ClusterCache {
    fn start(client: Client, watches_started: &AtomicU64, runtime: &tokio::runtime::Handle) -> Self {
        let (version_tx, version) = watch::channel(0u64);
        let version_tx = Arc::new(version_tx);
        let (nodes, node_writer) = reflector::store();
        let (pods, pod_writer) = reflector::store();
        let (leases, lease_writer) = reflector::store();
        let (pdbs, pdb_writer) = reflector::store();
        // Pod changes alone are counted apart: Lease renewals (most of a large cluster's changes) then cost a pass
        // over the nodes, not over every pod.
        let pod_changes = Arc::new(AtomicU64::new(0));
        let pdb_changes = Arc::new(AtomicU64::new(0));
        let mut tasks = vec![
            reflect(runtime, Api::<Node>::all(client.clone()), node_writer, trim_node, version_tx.clone(), None),
            reflect(
                runtime,
                Api::<Pod>::all(client.clone()),
                pod_writer,
                trim_pod,
                version_tx.clone(),
                Some(pod_changes.clone()),
            ),
            reflect(
                runtime,
                Api::<Lease>::namespaced(client.clone(), NODE_LEASE_NAMESPACE),
                lease_writer,
                trim_lease,
                version_tx.clone(),
                None,
            ),
            reflect(
                runtime,
                Api::<PodDisruptionBudget>::all(client),
                pdb_writer,
                trim_pdb,
                version_tx,
                Some(pdb_changes.clone()),
            ),
        ];
        watches_started.fetch_add(tasks.len() as u64, Ordering::Relaxed);
        let (cards_tx, cards) = watch::channel(Arc::new(Vec::new()));
        let (ready_tx, ready) = watch::channel(false);
        let (n, p, l, b, mut changes) = (nodes.clone(), pods.clone(), leases.clone(), pdbs.clone(), version.clone());
        let counted_pods = pod_changes.clone();
        tasks.push(runtime.spawn(async move {
            let _ =
                tokio::join!(n.wait_until_ready(), p.wait_until_ready(), l.wait_until_ready(), b.wait_until_ready());
            ready_tx.send_replace(true);
            let mut builder = CardBuilder::default();
            loop {
                cards_tx.send_replace(Arc::new(builder.build(&n, &p, &l, counted_pods.load(Ordering::Relaxed))));
                if changes.changed().await.is_err() {
                    return;
                }
                tokio::time::sleep(CARDS_COALESCE).await;
                changes.mark_unchanged();
            }
        }));
        ClusterCache { nodes, pods, leases, pdbs, version, ready, pod_changes, pdb_changes, cards, tasks }
    }

    /// The cards, recomputed after changes (at most every 100 ms) and shared by every viewer. Empty until the
    /// cache is ready.
    pub fn live_cards(&self) -> watch::Receiver<Arc<Vec<NodeCard>>> {
        self.cards.clone()
    }

    /// Waits until each watch has listed its resource once. Any number of callers may wait at once.
    pub async fn ready(&self) {
        let _ = self.ready.clone().wait_for(|ready| *ready).await;
    }

    /// `ready`, for a request: gives up after [`FIRST_LIST_LIMIT`] with an error that says to try again.
    pub async fn ready_for_request(&self) -> Result<(), crate::AppError> {
        tokio::time::timeout(FIRST_LIST_LIMIT, self.ready()).await.map_err(|_| {
            crate::AppError::Connection(format!(
                "the cluster's nodes and pods did not finish listing within {} s; try again shortly",
                FIRST_LIST_LIMIT.as_secs()
            ))
        })
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
        CardBuilder::default().build(&self.nodes, &self.pods, &self.leases, 0)
    }

    /// The cached pods (trimmed) on `node`.
    pub fn pods_on(&self, node: &str) -> Vec<Arc<Pod>> {
        self.pods.state_filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node))
    }

    /// Whether `node` is in the cache.
    pub fn has_node(&self, node: &str) -> bool {
        self.nodes.get(&reflector::ObjectRef::new(node)).is_some()
    }

    /// The PodDisruptionBudgets of `namespaces`, with their selectors and status now.
    pub fn pdbs_in(&self, namespaces: &std::collections::BTreeSet<String>) -> Vec<PdbInfo> {
        let mut found: Vec<PdbInfo> = self
            .pdbs
            .state()
            .iter()
            .filter(|b| b.metadata.namespace.as_ref().is_some_and(|ns| namespaces.contains(ns)))
            .filter_map(|b| {
                let status = b.status.as_ref();
                Some(PdbInfo {
                    namespace: b.metadata.namespace.clone()?,
                    selector: LabelSelector::from(b.spec.as_ref()?.selector.as_ref()?),
                    status: PdbStatus {
                        name: b.metadata.name.clone()?,
                        disruptions_allowed: status.and_then(|s| s.disruptions_allowed).unwrap_or(0),
                        current_healthy: status.and_then(|s| s.current_healthy).unwrap_or(0),
                        desired_healthy: status.and_then(|s| s.desired_healthy).unwrap_or(0),
                    },
                })
            })
            .collect();
        // Sorted for a stable preview. (Two budgets covering one pod make its eviction fail; the drain says so.)
        found.sort_by(|a, b| (&a.namespace, &a.status.name).cmp(&(&b.namespace, &b.status.name)));
        found
    }
}

/// Builds every node's card, with its Lease's renew time, its count of unfinished pods and, for a node with
/// `NoExecute` taints, when each of its pods goes; sorted by name. It remembers what it can between rounds: the
/// pods grouped by node until a pod changes, and each node's own part of the card until the node changes.
#[derive(Default)]
struct CardBuilder {
    /// The pod change count `by_node` was grouped at; `None` before the first round.
    pods_seen: Option<u64>,
    by_node: HashMap<String, Vec<Arc<Pod>>>,
    /// Each node's card as read from the Node alone, by name, with the resourceVersion it was read at.
    from_nodes: HashMap<String, (Option<String>, NodeCard)>,
}

impl CardBuilder {
    fn build(
        &mut self,
        nodes: &Store<Node>,
        pods: &Store<Pod>,
        leases: &Store<Lease>,
        pod_changes: u64,
    ) -> Vec<NodeCard> {
        if self.pods_seen != Some(pod_changes) {
            self.by_node.clear();
            for pod in pods.state() {
                let finished =
                    matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded") | Some("Failed"));
                if let Some(node) = pod.spec.as_ref().and_then(|s| s.node_name.clone())
                    && !finished
                {
                    self.by_node.entry(node).or_default().push(pod);
                }
            }
            self.pods_seen = Some(pod_changes);
        }
        let renewed: HashMap<String, jiff::Timestamp> = leases
            .state()
            .iter()
            .filter_map(|l| Some((l.metadata.name.clone()?, l.spec.as_ref()?.renew_time.as_ref()?.0)))
            .collect();
        let nodes = nodes.state();
        self.from_nodes.retain(|name, _| nodes.iter().any(|n| n.metadata.name.as_ref() == Some(name)));
        let mut cards: Vec<NodeCard> = nodes
            .iter()
            .map(|node| {
                let name = node.metadata.name.clone().unwrap_or_default();
                let version = node.metadata.resource_version.clone();
                let mut card = match self.from_nodes.get(&name) {
                    Some((seen, card)) if *seen == version && version.is_some() => card.clone(),
                    _ => {
                        let card = NodeCard::from_node(node);
                        self.from_nodes.insert(name, (version, card.clone()));
                        card
                    }
                };
                card.lease_renewed = renewed.get(&card.name).copied();
                let on_node = self.by_node.get(&card.name).map(Vec::as_slice).unwrap_or_default();
                card.pod_count = on_node.len();
                if card.taints.iter().any(|t| t.effect == NO_EXECUTE) {
                    card.pod_evictions = on_node
                        .iter()
                        .map(|pod| {
                            let pod = PodSummary::from(pod.as_ref());
                            PodEta {
                                eviction: pod_eviction(&card.taints, &pod.tolerations),
                                namespace: pod.namespace,
                                name: pod.name,
                            }
                        })
                        .collect();
                    card.pod_evictions.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
                }
                card
            })
            .collect();
        cards.sort_by(|a, b| a.name.cmp(&b.name));
        cards
    }
}

impl Drop for ClusterCache {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Runs a reflector for `api` into `writer`, trimming objects as they arrive and bumping `version` (and `count`,
/// when given) on each change.
fn reflect<K>(
    runtime: &tokio::runtime::Handle,
    api: Api<K>,
    writer: reflector::store::Writer<K>,
    trim: fn(&mut K),
    version: Arc<watch::Sender<u64>>,
    count: Option<Arc<AtomicU64>>,
) -> JoinHandle<()>
where
    K: Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + Sync + 'static,
    K::DynamicType: Default + Eq + std::hash::Hash + Clone + Send + Sync,
{
    runtime.spawn(async move {
        let stream = watcher(api, watcher::Config::default()).default_backoff().modify(trim).reflect(writer);
        let mut stream = std::pin::pin!(stream);
        while let Some(event) = stream.next().await {
            match event {
                Ok(_) => {
                    if let Some(count) = &count {
                        count.fetch_add(1, Ordering::Relaxed);
                    }
                    version.send_modify(|v| *v += 1)
                }
                Err(err) => {
                    tracing::warn!(error = %err, kind = %K::kind(&Default::default()), "watch failed; retrying")
                }
            }
        }
    })
}

fn trim_meta(meta: &mut kube::api::ObjectMeta) {
    meta.managed_fields = None;
    if let Some(annotations) = meta.annotations.as_mut() {
        // The mirror marker and the drain record are the annotations Drainboard reads; the rest (last-applied
        // configs) can be large.
        annotations.retain(|k, _| k == domain::pod::MIRROR_ANNOTATION || k == domain::progress::RECORD_ANNOTATION);
    }
}

fn trim_node(node: &mut Node) {
    trim_meta(&mut node.metadata);
    if let Some(status) = node.status.as_mut() {
        status.images = None;
        status.volumes_attached = None;
        status.volumes_in_use = None;
    }
}

/// Keeps what the cards, eviction countdowns and drain previews read: identity, owner, labels, node, tolerations,
/// which volumes are emptyDir, phase and Ready. Containers, env, probes and the rest go.
fn trim_pod(pod: &mut Pod) {
    trim_meta(&mut pod.metadata);
    if let Some(spec) = pod.spec.take() {
        pod.spec = Some(PodSpec {
            node_name: spec.node_name,
            tolerations: spec.tolerations,
            volumes: spec.volumes.map(|vs| {
                vs.into_iter()
                    .filter(|v| v.empty_dir.is_some())
                    .map(|v| k8s_openapi::api::core::v1::Volume {
                        name: v.name,
                        empty_dir: v.empty_dir,
                        ..Default::default()
                    })
                    .collect()
            }),
            ..Default::default()
        });
    }
    if let Some(status) = pod.status.as_mut() {
        status.container_statuses = None;
        status.init_container_statuses = None;
        status.ephemeral_container_statuses = None;
        status.pod_ips = None;
        status.host_ips = None;
    }
}

fn trim_lease(lease: &mut Lease) {
    trim_meta(&mut lease.metadata);
}

fn trim_pdb(pdb: &mut PodDisruptionBudget) {
    trim_meta(&mut pdb.metadata);
    if let Some(status) = pdb.status.as_mut() {
        status.disrupted_pods = None;
        status.conditions = None;
    }
}
