//! PodDisruptionBudgets as Drainboard reads them: a budget's status (what a blocked eviction explains) and its
//! selector (which pods it covers). The drain's preview, a drain's progress and the engine's blocked evictions all
//! read budgets here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::selector::LabelSelector;

/// A PodDisruptionBudget as a blocked eviction explains it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PdbStatus {
    pub name: String,
    pub disruptions_allowed: i32,
    pub current_healthy: i32,
    pub desired_healthy: i32,
    /// The pods the budget counts (`status.expectedPods`); 0 when not known.
    #[serde(default)]
    pub expected_pods: i32,
}

impl PdbStatus {
    /// Whether this budget can never allow an eviction as the workload stands: it needs every pod it counts healthy
    /// (`minAvailable` equal to the replicas, or `maxUnavailable: 0`). Waiting does not help; scaling the workload
    /// up, relaxing the budget, a timeout or a cancel does. Read "allows no disruption now" as temporary only when
    /// this is false.
    pub fn never_allows(&self) -> bool {
        self.expected_pods > 0 && self.desired_healthy >= self.expected_pods
    }
}

/// A PodDisruptionBudget with its selector, so the browser can tell which pods it covers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PdbInfo {
    pub namespace: String,
    pub selector: LabelSelector,
    pub status: PdbStatus,
    #[serde(default)]
    pub policy: UnhealthyPolicy,
}

/// A budget's `spec.unhealthyPodEvictionPolicy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnhealthyPolicy {
    /// The default: a pod that is not Ready goes only while the budget is healthy.
    #[default]
    IfHealthyBudget,
    /// A pod that is not Ready may always go (GA in Kubernetes 1.31).
    AlwaysAllow,
}

impl UnhealthyPolicy {
    /// Reads the field as the API writes it; absent or unknown is the API's default.
    pub fn parse(value: Option<&str>) -> Self {
        match value {
            Some("AlwaysAllow") => Self::AlwaysAllow,
            _ => Self::IfHealthyBudget,
        }
    }
}

#[cfg(feature = "k8s")]
impl PdbInfo {
    /// The budget as the preview and a blocked eviction read it; `None` for one without a name, namespace or
    /// selector, which covers no pod. A status not yet written by the disruption controller reads as zeros.
    pub fn from_k8s(pdb: &k8s_openapi::api::policy::v1::PodDisruptionBudget) -> Option<Self> {
        let status = pdb.status.as_ref();
        Some(PdbInfo {
            namespace: pdb.metadata.namespace.clone()?,
            selector: LabelSelector::from(pdb.spec.as_ref()?.selector.as_ref()?),
            status: PdbStatus {
                name: pdb.metadata.name.clone()?,
                disruptions_allowed: status.and_then(|s| s.disruptions_allowed).unwrap_or(0),
                current_healthy: status.and_then(|s| s.current_healthy).unwrap_or(0),
                desired_healthy: status.and_then(|s| s.desired_healthy).unwrap_or(0),
                expected_pods: status.and_then(|s| s.expected_pods).unwrap_or(0),
            },
            policy: UnhealthyPolicy::parse(pdb.spec.as_ref()?.unhealthy_pod_eviction_policy.as_deref()),
        })
    }
}

/// The budget the eviction API would consult for a pod: the first in its namespace whose selector matches its
/// labels. The dialog's preview and a blocked eviction's explanation both ask this.
pub fn covering_pdb<'a>(
    pdbs: &'a [PdbInfo],
    namespace: &str,
    labels: &BTreeMap<String, String>,
) -> Option<&'a PdbInfo> {
    pdbs.iter().find(|b| b.namespace == namespace && b.selector.matches(labels))
}

/// Every budget in `pdbs` that covers a pod: the eviction API refuses a pod that more than one covers.
pub fn covering_all<'a>(pdbs: &'a [PdbInfo], namespace: &str, labels: &BTreeMap<String, String>) -> Vec<&'a PdbInfo> {
    pdbs.iter().filter(|b| b.namespace == namespace && b.selector.matches(labels)).collect()
}

#[cfg(test)]
mod tests {
    use super::PdbStatus;

    fn budget(allowed: i32, current: i32, desired: i32, expected: i32) -> PdbStatus {
        PdbStatus {
            name: "web-pdb".into(),
            disruptions_allowed: allowed,
            current_healthy: current,
            desired_healthy: desired,
            expected_pods: expected,
        }
    }

    #[test]
    fn a_budget_that_needs_every_pod_healthy_never_allows_an_eviction() {
        assert!(budget(0, 4, 4, 4).never_allows(), "minAvailable 4 of 4 replicas, or maxUnavailable 0");
        assert!(budget(0, 3, 4, 4).never_allows(), "one unhealthy: still never, even once healthy");
        assert!(!budget(0, 3, 3, 4).never_allows(), "needs 3 of 4: waits until the fourth is healthy");
        assert!(!budget(1, 4, 3, 4).never_allows());
        assert!(!budget(0, 0, 0, 0).never_allows(), "a status not written yet says nothing");
    }
}
