//! The inputs of the drain dialog's preview, read from the identity's cluster cache: the node's pods, their
//! DaemonSets and the budgets that cover them. The browser plans from these at every option change.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use domain::{PodSummary, drain::DaemonSetLookup, preview::PreviewInputs};
use kube::Client;

use crate::cache::ClusterCache;

/// Builds preview inputs for one node, looking each DaemonSet up once per source (they rarely come and go
/// while a dialog is open, and the drain itself looks them up again).
pub struct PreviewSource {
    client: Client,
    node: String,
    daemonsets: HashMap<String, DaemonSetLookup>,
}

impl PreviewSource {
    pub fn new(client: Client, node: String) -> Self {
        PreviewSource { client, node, daemonsets: HashMap::new() }
    }

    /// The inputs now.
    pub async fn inputs(&mut self, cache: &ClusterCache) -> PreviewInputs {
        let mut pods: Vec<PodSummary> = cache.pods_on(&self.node).iter().map(|p| p.summary()).collect();
        pods.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        let mut daemonsets = BTreeMap::new();
        for pod in &pods {
            let (Some(owner), Some(key)) = (pod.daemonset_owner(), pod.daemonset_key()) else {
                continue;
            };
            if !self.daemonsets.contains_key(&key) {
                let lookup = super::ops::lookup_daemonset(&self.client, &pod.namespace, owner).await;
                self.daemonsets.insert(key.clone(), lookup);
            }
            daemonsets.insert(key.clone(), self.daemonsets[&key].clone());
        }
        let namespaces: BTreeSet<String> = pods.iter().map(|p| p.namespace.clone()).collect();
        PreviewInputs {
            node: self.node.clone(),
            pdbs: cache.pdbs_in(&namespaces),
            pods,
            daemonsets,
            server_time: jiff::Timestamp::now(),
        }
    }
}
