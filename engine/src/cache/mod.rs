//! How the caches stay fresh: the cluster's nodes, pods, node Leases and PodDisruptionBudgets, one set of watches
//! per identity.
//!
//! Every browser of the same person shares one cache, so N open tabs cost one watch per resource, not N. The
//! caches are keyed by [`crate::Identity`] because each person sees what their own credentials may see. A cache lives
//! while someone holds it, and a minute more, then stops its watches. Objects are trimmed as they arrive
//! ([`crate::trim`]) to the few fields the cards and drain previews read.

mod feed;
mod registry;

use std::{
    collections::{BTreeSet, HashMap},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

/// A node's labels, or some of its annotations.
type Labels = std::collections::BTreeMap<String, String>;

use domain::{
    budget::PdbInfo,
    capacity::{self, CapacityReport, Fate, NodeRoom},
    node::NodeCard,
    reboot::Signal,
};
use k8s_openapi::api::{
    coordination::v1::Lease,
    core::v1::{Node, Pod},
    policy::v1::PodDisruptionBudget,
};
use kube::{
    Api, Client,
    runtime::reflector::{self, Store},
};
use tokio::{sync::watch, task::JoinHandle, time::Instant};

use feed::{Feed, reflect, trimmed};
pub use registry::{ClusterCaches, DEFAULT_LINGER};

use crate::{
    Error, Result,
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
    /// The signals that a node needs a reboot, for the cards computed on demand.
    reboot: Arc<[Signal]>,
}

impl ClusterCache {
    fn start(client: Client, watches_started: &AtomicU64, tasks: &Tasks, reboot: Arc<[Signal]>) -> Self {
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
        let reboot_signals = reboot.clone();
        handles.push(tasks.supervise("node cards", move || {
            let (n, p, l, b, mut changes) = (n.clone(), p.clone(), l.clone(), b.clone(), changes.clone());
            let (ready_tx, cards_tx, counted_pods) = (ready_tx.clone(), cards_tx.clone(), counted_pods.clone());
            let reboot = reboot_signals.clone();
            async move {
                let _ = tokio::join!(
                    n.wait_until_ready(),
                    p.wait_until_ready(),
                    l.wait_until_ready(),
                    b.wait_until_ready()
                );
                ready_tx.send_replace(true);
                let mut builder = CardBuilder::new(reboot.clone());
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
            reboot,
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
                let refused = kinds.keys().cloned().collect();
                let answer = kinds.values().next().cloned().unwrap_or_default();
                Err(Error::Forbidden(domain::denial::Denial::NoBoardRead { refused, answer }))
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
        CardBuilder::new(self.reboot.clone())
            .build(&self.nodes, &self.pods, &self.leases, 0)
            .into_iter()
            .map(Arc::unwrap_or_clone)
            .collect()
    }

    /// The cached pods on `node`.
    pub fn pods_on(&self, node: &str) -> Vec<Arc<CachedPod>> {
        self.pods.state_filter(|p| p.node() == Some(node))
    }

    /// The cached pods that `keep` keeps.
    pub fn pods_where(&self, keep: impl Fn(&CachedPod) -> bool) -> Vec<Arc<CachedPod>> {
        self.pods.state_filter(|p| keep(p))
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

    /// The budgets that select no unfinished pod of the cache (`domain::readiness::idle_budgets`).
    pub fn idle_budgets(&self) -> Vec<domain::readiness::IdleBudget> {
        let pdbs: Vec<PdbInfo> = self.pdbs.state().iter().filter_map(|b| PdbInfo::from_k8s(b)).collect();
        let pods = self.pods.state();
        domain::readiness::idle_budgets(
            &pdbs,
            pods.iter().filter(|p| !p.phase().is_terminal()).map(|p| (p.namespace(), p.labels())),
        )
    }

    /// Each node's name, labels, and the annotations of other tools' switches (`domain::hold_others`) now; with
    /// `marked_only`, only the nodes that carry Drainboard's mark (`domain::hold_others::MARK`), whose labels are
    /// then not copied for the rest.
    pub fn hold_marks(&self, marked_only: bool) -> Vec<(String, Labels, Labels)> {
        let keep = |a: &Labels| -> Labels {
            a.iter()
                .filter(|(k, _)| domain::hold_others::ANNOTATIONS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        self.nodes
            .state()
            .iter()
            .filter(|n| {
                !marked_only
                    || n.metadata.annotations.as_ref().is_some_and(|a| a.contains_key(domain::hold_others::MARK))
            })
            .map(|n| {
                let annotations = n.metadata.annotations.as_ref().map(keep).unwrap_or_default();
                let labels = n.metadata.labels.clone().unwrap_or_default();
                (n.metadata.name.clone().unwrap_or_default(), labels, annotations)
            })
            .collect()
    }

    /// The node's labels now, as the cache has them.
    pub fn node_labels(&self, node: &str) -> Option<std::collections::BTreeMap<String, String>> {
        self.nodes.get(&reflector::ObjectRef::new(node)).map(|n| n.metadata.labels.clone().unwrap_or_default())
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
