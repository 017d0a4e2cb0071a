//! How the caches become node cards: each node's own part, its Lease's renewal, its unfinished pods, and for a
//! node with `NoExecute` taints, when each pod goes.

use std::{collections::HashMap, sync::Arc};

use domain::{
    eviction::{NO_EXECUTE, pod_eviction},
    node::{NodeCard, PodEta},
};
use k8s_openapi::api::{coordination::v1::Lease, core::v1::Node};
use kube::runtime::reflector::Store;

use crate::pods::CachedPod;

/// Builds every node's card, with its Lease's renew time, its count of unfinished pods and, for a node with
/// `NoExecute` taints, when each of its pods goes; sorted by name. It remembers what it can between rounds: the
/// pods grouped by node until a pod changes, and each node's own part of the card until the node changes.
#[derive(Default)]
pub struct CardBuilder {
    /// The pod change count `by_node` was grouped at; `None` before the first round.
    pods_seen: Option<u64>,
    by_node: HashMap<String, Vec<Arc<CachedPod>>>,
    /// The same pods counted per namespace, for people who may see some namespaces only.
    namespaces_by_node: HashMap<String, std::collections::BTreeMap<String, usize>>,
    /// Each node's card as read from the Node alone, by name, with the resourceVersion it was read at.
    from_nodes: HashMap<String, (Option<String>, NodeCard)>,
}

impl CardBuilder {
    pub fn build(
        &mut self,
        nodes: &Store<Node>,
        pods: &Store<CachedPod>,
        leases: &Store<Lease>,
        pod_changes: u64,
    ) -> Vec<NodeCard> {
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
                }
                card
            })
            .collect();
        cards.sort_by(|a, b| a.name.cmp(&b.name));
        cards
    }
}
