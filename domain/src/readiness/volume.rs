//! Which persistent volumes bind their pods to one node: the readiness check's local-volume rule.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A persistent volume as the local-volume rule reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Volume {
    pub name: String,
    /// A `local` volume (a disk of one node).
    pub local: bool,
    /// Its required node affinity; empty when it has none.
    pub terms: Vec<crate::capacity::NodeSelectorTerm>,
    /// The claim bound to it: namespace and name.
    pub claim: Option<(String, String)>,
}

/// The label the scheduler and local volumes name a node by.
const HOSTNAME: &str = "kubernetes.io/hostname";

/// Whether `volume` binds whoever mounts it to `node` (with its `labels`): its node affinity admits the node, and
/// it is a `local` volume, or every term of it names nodes one by one (`kubernetes.io/hostname` or
/// `metadata.name` `In` a list), so that no other node could take its pods. A volume without node affinity binds
/// to no node.
pub fn pins(volume: &Volume, node: &str, labels: &BTreeMap<String, String>) -> bool {
    if volume.terms.is_empty() {
        return false;
    }
    let room = crate::capacity::NodeRoom { name: node.to_owned(), labels: labels.clone(), ..Default::default() };
    let admits = volume.terms.iter().any(|t| crate::capacity::term_matches(t, &room));
    let by_name = |t: &crate::capacity::NodeSelectorTerm| {
        t.expressions.iter().any(|r| r.key == HOSTNAME && r.operator == "In")
            || t.fields.iter().any(|r| r.key == "metadata.name" && r.operator == "In")
    };
    admits && (volume.local || volume.terms.iter().all(by_name))
}

#[cfg(feature = "k8s")]
impl From<&k8s_openapi::api::core::v1::PersistentVolume> for Volume {
    fn from(pv: &k8s_openapi::api::core::v1::PersistentVolume) -> Self {
        let spec = pv.spec.as_ref();
        Volume {
            name: pv.metadata.name.clone().unwrap_or_default(),
            local: spec.is_some_and(|s| s.local.is_some()),
            terms: spec
                .and_then(|s| s.node_affinity.as_ref())
                .and_then(|a| a.required.as_ref())
                .map(crate::capacity::k8s::terms)
                .unwrap_or_default(),
            claim: spec.and_then(|s| s.claim_ref.as_ref()).and_then(|c| Some((c.namespace.clone()?, c.name.clone()?))),
        }
    }
}
