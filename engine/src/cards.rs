//! How the caches become node cards: each node's own part, its Lease's renewal, its unfinished pods, and for a
//! node with `NoExecute` taints, when each pod goes.

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
};

use domain::{
    eviction::{NO_EXECUTE, pod_eviction},
    node::{NodeCard, PodEta},
    reboot::Signal,
};
use k8s_openapi::api::{coordination::v1::Lease, core::v1::Node};
use kube::runtime::reflector::Store;

use crate::pods::CachedPod;

/// Builds every node's card, with its Lease's renew time, its count of unfinished pods and, for a node with
/// `NoExecute` taints, when each of its pods goes; sorted by name. It remembers what it can between rounds: the
/// pods grouped by node until a pod changes, and each card until one of its inputs (the node, its Lease's renewal,
/// its pods) changes. An unchanged card is the same `Arc` as in the last round, so that a round at 5,000 nodes
/// copies nothing but the cards that changed, and the streams that compare rounds see the rest as equal by pointer.
/// A card whose node did not change is remade from its last version rather than from the Node, so that one copy
/// of each card is kept.
#[derive(Default)]
pub struct CardBuilder {
    /// The pod change count `by_node` was grouped at; `None` before the first round.
    pods_seen: Option<u64>,
    by_node: HashMap<String, Vec<Arc<CachedPod>>>,
    /// The same pods counted per namespace, for people who may see some namespaces only.
    namespaces_by_node: HashMap<String, std::collections::BTreeMap<String, usize>>,
    /// Each node's last card, with what it was built from.
    built: HashMap<String, Built>,
    /// The signals that a node needs a reboot (`--reboot-required`).
    reboot: Arc<[Signal]>,
}

/// A whole card and the inputs it was built from.
struct Built {
    version: Option<String>,
    renewed: Option<jiff::Timestamp>,
    pods: Vec<Arc<CachedPod>>,
    card: Arc<NodeCard>,
}

impl Built {
    /// Whether the card still stands for these inputs. A node without a resourceVersion is always read again.
    fn holds(&self, version: &Option<String>, renewed: Option<jiff::Timestamp>, pods: &[Arc<CachedPod>]) -> bool {
        version.is_some()
            && self.version == *version
            && self.renewed == renewed
            && self.pods.len() == pods.len()
            && self.pods.iter().zip(pods).all(|(a, b)| Arc::ptr_eq(a, b))
    }
}

impl CardBuilder {
    /// A builder that reads each node's reboot sign by `reboot`.
    pub fn new(reboot: Arc<[Signal]>) -> Self {
        CardBuilder { reboot, ..Default::default() }
    }

    pub fn build(
        &mut self,
        nodes: &Store<Node>,
        pods: &Store<CachedPod>,
        leases: &Store<Lease>,
        pod_changes: u64,
    ) -> Vec<Arc<NodeCard>> {
        if self.pods_seen != Some(pod_changes) {
            self.by_node.clear();
            self.namespaces_by_node.clear();
            for pod in pods.state() {
                if let Some(node) = pod.node()
                    && !pod.phase().is_terminal()
                {
                    let namespace = pod.namespace().to_string();
                    *self.namespaces_by_node.entry(node.to_string()).or_default().entry(namespace).or_default() += 1;
                    self.by_node.entry(node.to_string()).or_default().push(pod);
                }
            }
            // The store's order is not stable between rounds; the comparison with the last round needs one.
            for on_node in self.by_node.values_mut() {
                on_node.sort_by_key(Arc::as_ptr);
            }
            self.pods_seen = Some(pod_changes);
        }
        let renewed: HashMap<String, jiff::Timestamp> = leases
            .state()
            .iter()
            .filter_map(|l| Some((l.metadata.name.clone()?, l.spec.as_ref()?.renew_time.as_ref()?.0)))
            .collect();
        let nodes = nodes.state();
        let names: HashSet<&str> = nodes.iter().filter_map(|n| n.metadata.name.as_deref()).collect();
        self.built.retain(|name, _| names.contains(name.as_str()));
        let mut cards: Vec<Arc<NodeCard>> = nodes
            .iter()
            .map(|node| {
                let name = node.metadata.name.clone().unwrap_or_default();
                let version = node.metadata.resource_version.clone();
                let lease_renewed = renewed.get(&name).copied();
                let on_node = self.by_node.get(&name).map(Vec::as_slice).unwrap_or_default();
                let last = self.built.get(&name);
                if let Some(built) = last
                    && built.holds(&version, lease_renewed, on_node)
                {
                    return built.card.clone();
                }
                // The node's own part is read again only when the node changed; every field set below is set
                // whatever the card held before.
                let mut card = match last {
                    Some(built) if built.version == version && version.is_some() => NodeCard::clone(&built.card),
                    _ => NodeCard::read(node, &self.reboot),
                };
                card.lease_renewed = lease_renewed;
                card.pod_count = on_node.len();
                card.pods_by_namespace = self.namespaces_by_node.get(&card.name).cloned().unwrap_or_default();
                if card.taints.iter().any(|t| t.effect == NO_EXECUTE) {
                    card.pod_evictions = on_node
                        .iter()
                        .map(|pod| PodEta {
                            eviction: pod_eviction(&card.taints, pod.tolerations()),
                            namespace: pod.namespace().to_string(),
                            name: pod.name().to_string(),
                        })
                        .collect();
                    card.pod_evictions.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
                } else {
                    card.pod_evictions.clear();
                }
                let card = Arc::new(card);
                let built = Built { version, renewed: lease_renewed, pods: on_node.to_vec(), card: card.clone() };
                self.built.insert(name, built);
                card
            })
            .collect();
        cards.sort_by(|a, b| a.name.cmp(&b.name));
        cards
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::Pod;
    use kube::runtime::{reflector, watcher::Event};

    use super::*;
    use crate::pods::Shared;

    fn node(name: &str, version: &str) -> Node {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "resourceVersion": version},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}
        }))
        .expect("a node")
    }

    fn lease(name: &str, renewed: &str) -> Lease {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "namespace": "kube-node-lease"},
            "spec": {"renewTime": renewed}
        }))
        .expect("a lease")
    }

    fn pod(name: &str, node: &str, shared: &Shared) -> CachedPod {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "namespace": "default", "uid": name},
            "spec": {"nodeName": node, "containers": [{"name": "c"}]},
            "status": {"phase": "Running"}
        }))
        .expect("a pod");
        CachedPod::new(pod, shared)
    }

    #[test]
    fn a_round_rebuilds_only_the_cards_whose_node_lease_or_pods_changed() {
        let shared = Shared::default();
        let (nodes, mut node_writer) = reflector::store::<Node>();
        let (pods, mut pod_writer) = reflector::store::<CachedPod>();
        let (leases, mut lease_writer) = reflector::store::<Lease>();
        for name in ["n1", "n2", "n3"] {
            node_writer.apply_watcher_event(&Event::Apply(node(name, "1")));
            lease_writer.apply_watcher_event(&Event::Apply(lease(name, "2026-11-30T12:00:00.000000Z")));
        }
        pod_writer.apply_watcher_event(&Event::Apply(pod("p1", "n3", &shared)));
        let mut builder = CardBuilder::default();
        let first = builder.build(&nodes, &pods, &leases, 1);
        assert_eq!(
            first.iter().map(|c| (c.name.as_str(), c.pod_count)).collect::<Vec<_>>(),
            [("n1", 0), ("n2", 0), ("n3", 1)]
        );
        let same = builder.build(&nodes, &pods, &leases, 1);
        assert!(first.iter().zip(&same).all(|(a, b)| Arc::ptr_eq(a, b)), "nothing changed, nothing rebuilt");

        // n1's Lease renews, n2 changes, n3 gains a pod: each card is rebuilt, and only those.
        lease_writer.apply_watcher_event(&Event::Apply(lease("n1", "2026-11-30T12:00:10.000000Z")));
        let next = builder.build(&nodes, &pods, &leases, 1);
        assert!(
            !Arc::ptr_eq(&first[0], &next[0]) && Arc::ptr_eq(&first[1], &next[1]) && Arc::ptr_eq(&first[2], &next[2])
        );
        assert_eq!(next[0].lease_renewed, Some("2026-11-30T12:00:10Z".parse().unwrap()));
        let mut cordoned = node("n2", "2");
        cordoned.spec = Some(k8s_openapi::api::core::v1::NodeSpec { unschedulable: Some(true), ..Default::default() });
        node_writer.apply_watcher_event(&Event::Apply(cordoned));
        pod_writer.apply_watcher_event(&Event::Apply(pod("p2", "n3", &shared)));
        let last = builder.build(&nodes, &pods, &leases, 2);
        assert!(Arc::ptr_eq(&next[0], &last[0]), "n1 as it was");
        assert!(last[1].unschedulable && !Arc::ptr_eq(&next[1], &last[1]));
        assert_eq!(last[2].pod_count, 2);

        // A node that goes is forgotten.
        node_writer.apply_watcher_event(&Event::Delete(node("n1", "1")));
        let gone = builder.build(&nodes, &pods, &leases, 2);
        assert_eq!(gone.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["n2", "n3"]);
        assert!(!builder.built.contains_key("n1"));
    }
}
