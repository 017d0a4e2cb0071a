//! The readiness check: what would hold the next drain of each node asked about, read from the board's cache as
//! the caller sees it, plus the persistent volumes (listed as the caller) that bind pods to their nodes. The rules
//! are `domain::readiness`'s; this gathers their facts. Nothing is written.

use std::collections::BTreeMap;

use domain::readiness::{self, LocalBound, Readiness, Volume};
use k8s_openapi::api::core::v1::PersistentVolume;
use kube::{Api, api::ListParams};

use super::{Acting, no_such_node};
use crate::{Error, Result, drain::preview::PreviewSource};

impl Acting<'_> {
    /// What would hold a drain of each of `nodes` (at most `domain::readiness::MAX_NODES`, checked by the
    /// caller), in the order given, with the cluster's budgets that select nothing.
    pub async fn readiness(&self, nodes: &[String]) -> Result<Readiness> {
        let (cache, visibility) = self.view().await?;
        cache.ready_for_request().await?;
        if let Some(missing) = nodes.iter().find(|n| !cache.has_node(n)) {
            return Err(Error::NotFound(no_such_node(missing)));
        }
        // Draining them all together, as a plan of them would: the replacements compete for the same room.
        let capacity = self.capacity(nodes).await?;
        let mut unchecked = Vec::new();
        let volumes: Vec<Volume> = match Api::<PersistentVolume>::all(self.client()?).list(&ListParams::default()).await
        {
            Ok(list) => list.items.iter().map(Volume::from).collect(),
            Err(error) => {
                unchecked.push(format!("local volumes: the persistent volumes could not be listed ({error})"));
                Vec::new()
            }
        };
        let mut source: Option<PreviewSource> = None;
        let mut checked = Vec::with_capacity(nodes.len());
        for node in nodes {
            let source = match source.as_mut() {
                Some(s) => {
                    s.retarget(node.clone());
                    s
                }
                None => source.insert(PreviewSource::new(self.client()?, node.clone(), Default::default())),
            };
            let inputs = visibility.preview(source.inputs(&cache).await);
            let labels = cache.node_labels(node).unwrap_or_default();
            // The claims bound to a volume that pins its pods to this node, each with its volume.
            let pinned: BTreeMap<(&str, &str), &str> = volumes
                .iter()
                .filter(|v| readiness::pins(v, node, &labels))
                .filter_map(|v| v.claim.as_ref().map(|(ns, claim)| ((ns.as_str(), claim.as_str()), v.name.as_str())))
                .collect();
            let mut local = Vec::new();
            for pod in cache.pods_on(node) {
                if pod.phase().is_terminal() || !visibility.sees(pod.namespace()) {
                    continue;
                }
                for claim in pod.claims() {
                    if let Some(volume) = pinned.get(&(pod.namespace(), claim)) {
                        local.push(LocalBound {
                            namespace: pod.namespace().to_owned(),
                            pod: pod.name().to_owned(),
                            volume: (*volume).to_owned(),
                        });
                    }
                }
            }
            checked.push(readiness::of_node(&inputs, &local, Some(&capacity)));
        }
        let idle_budgets = cache.idle_budgets().into_iter().filter(|b| visibility.sees(&b.namespace)).collect();
        Ok(Readiness { nodes: checked, idle_budgets, unchecked })
    }
}
