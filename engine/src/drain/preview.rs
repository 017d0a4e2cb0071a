//! The inputs of the drain dialog's preview, read from the identity's cluster cache: the node's pods, their
//! DaemonSets and the budgets that cover them. The browser plans from these at every option change.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use domain::{
    PodSummary,
    drain::DaemonSetLookup,
    preview::{PreviewInputs, Timing},
};
use kube::Client;

use crate::cache::ClusterCache;

/// Builds preview inputs for one node, looking each DaemonSet up once per source (they rarely come and go
/// while a dialog is open, and the drain itself looks them up again).
pub struct PreviewSource {
    client: Client,
    node: String,
    daemonsets: HashMap<String, DaemonSetLookup>,
    /// The server's side of the drain's estimate, read as the dialog opened.
    timing: Timing,
}

impl PreviewSource {
    pub fn new(client: Client, node: String, timing: Timing) -> Self {
        PreviewSource { client, node, daemonsets: HashMap::new(), timing }
    }

    /// The same source for `node`, keeping the DaemonSets it looked up: a check of many nodes asks for each once.
    pub fn retarget(&mut self, node: String) {
        self.node = node;
    }

    /// The inputs now.
    pub async fn inputs(&mut self, cache: &ClusterCache) -> PreviewInputs {
        let mut inputs = cached_inputs(cache, &self.node);
        let mut daemonsets = BTreeMap::new();
        for pod in &inputs.pods {
            let (Some(owner), Some(key)) = (pod.daemonset_owner(), pod.daemonset_key()) else {
                continue;
            };
            if !self.daemonsets.contains_key(&key) {
                let lookup = super::ops::lookup_daemonset(&self.client, &pod.namespace, owner).await;
                self.daemonsets.insert(key.clone(), lookup);
            }
            daemonsets.insert(key.clone(), self.daemonsets[&key].clone());
        }
        inputs.daemonsets = daemonsets;
        inputs.timing = self.timing.clone();
        inputs
    }
}

/// `node`'s preview inputs from the cache alone, without DaemonSet lookups: enough for what a drain would evict
/// (a DaemonSet's pods never are), which its estimate reads. The timing is left for the caller.
pub fn cached_inputs(cache: &ClusterCache, node: &str) -> PreviewInputs {
    let mut pods: Vec<PodSummary> = cache.pods_on(node).iter().map(|p| p.summary()).collect();
    pods.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    let namespaces: BTreeSet<String> = pods.iter().map(|p| p.namespace.clone()).collect();
    PreviewInputs {
        node: node.to_owned(),
        pdbs: cache.pdbs_in(&namespaces),
        pods,
        daemonsets: BTreeMap::new(),
        server_time: jiff::Timestamp::now(),
        timing: Default::default(),
        // A node that stopped reporting confirms no pod's end: its estimate says so.
        unreachable: cache.node_card(node).is_some_and(|c| c.ready == domain::ReadyStatus::Unknown),
    }
}
