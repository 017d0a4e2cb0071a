//! Whether what a node's drain disturbed has recovered, the last part of a plan's verification: the workloads whose
//! pods it evicted are back to their desired ready count, wherever they now run, and the budgets covering those
//! pods allow at least as many disruptions as when the drain started. What the drain touched is recorded when it
//! starts (the pods are gone afterwards), kept in the plan's status so that a server taking the plan over checks
//! the same things.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{
    budget::{PdbInfo, PdbStatus},
    pod::ControllerRef,
    verify::CheckFailure,
};

/// At most this many workloads and budgets are recorded per node (a kubelet runs 110 pods by default): the
/// record lives in the plan's status, which anyone who may create pods must not be able to swell.
pub const MAX_TOUCHED: usize = 250;

/// A workload a node's drain evicts pods of: the pods' controller, as the pods name it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct WorkloadRef {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl WorkloadRef {
    /// `Kind namespace/name`, as an operator names it.
    pub fn label(&self) -> String {
        format!("{} {}/{}", self.kind, self.namespace, self.name)
    }
}

/// A budget covering pods a node's drain evicts, with the disruptions it allowed when the drain started.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BudgetBefore {
    pub namespace: String,
    pub name: String,
    pub allowed: i32,
}

/// What a node's drain touched: recorded as it starts, checked once the node is back.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Touched {
    #[serde(default)]
    pub workloads: Vec<WorkloadRef>,
    #[serde(default)]
    pub budgets: Vec<BudgetBefore>,
}

/// A pod the drain evicts, as [`record`] reads it.
pub struct EvictedPod<'a> {
    pub namespace: &'a str,
    pub controller: Option<&'a ControllerRef>,
    pub labels: &'a BTreeMap<String, String>,
}

/// What a drain of these pods touches: their controllers (a pod without one has no workload to come back) and the
/// budgets of `budgets` that cover any of them, with what each allows now. Each at most once, in a stable order,
/// and at most [`MAX_TOUCHED`] of each.
pub fn record<'a>(pods: impl IntoIterator<Item = EvictedPod<'a>>, budgets: &[PdbInfo]) -> Touched {
    let mut workloads = std::collections::BTreeSet::new();
    let mut covering = std::collections::BTreeSet::new();
    for pod in pods {
        if let Some(owner) = pod.controller {
            workloads.insert(WorkloadRef {
                kind: owner.kind.clone(),
                namespace: pod.namespace.to_owned(),
                name: owner.name.clone(),
            });
        }
        for budget in budgets.iter().filter(|b| b.namespace == pod.namespace && b.selector.matches(pod.labels)) {
            covering.insert(BudgetBefore {
                namespace: budget.namespace.clone(),
                name: budget.status.name.clone(),
                allowed: budget.status.disruptions_allowed,
            });
        }
    }
    Touched {
        workloads: workloads.into_iter().take(MAX_TOUCHED).collect(),
        budgets: covering.into_iter().take(MAX_TOUCHED).collect(),
    }
}

/// A workload as read back once the node is back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The workload that owns the pods now (a ReplicaSet's Deployment), with its desired and ready replicas.
    Counts { workload: WorkloadRef, desired: i32, ready: i32 },
    /// Deleted since: nothing to wait for.
    Gone,
    /// A kind whose readiness is not read (a Job, a custom controller): not checked.
    NotChecked,
    /// It could not be read (the reason, as the API server gave it).
    Unreadable { workload: WorkloadRef, why: String },
}

/// The workload checks that fail for `node`.
pub fn workload_failures(node: &str, found: &[Found]) -> Vec<CheckFailure> {
    let mut failed: Vec<CheckFailure> = found
        .iter()
        .filter_map(|f| match f {
            Found::Counts { workload, desired, ready } if ready < desired => Some(CheckFailure::Replicas {
                workload: workload.label(),
                ready: *ready,
                desired: *desired,
                node: node.into(),
            }),
            Found::Unreadable { workload, why } => {
                Some(CheckFailure::Unreadable { what: workload.label(), why: why.clone() })
            }
            _ => None,
        })
        .collect();
    failed.dedup();
    failed
}

/// The budget checks that fail for `node`: each budget recorded must allow at least as many disruptions now as
/// when its drain started (a budget deleted since is not waited for). `now` reads a budget's status.
pub fn budget_failures(
    node: &str,
    before: &[BudgetBefore],
    now: impl Fn(&str, &str) -> Option<PdbStatus>,
) -> Vec<CheckFailure> {
    before
        .iter()
        .filter_map(|b| {
            let status = now(&b.namespace, &b.name)?;
            (status.disruptions_allowed < b.allowed).then(|| CheckFailure::Budget {
                budget: format!("{}/{}", b.namespace, b.name),
                allowed: status.disruptions_allowed,
                healthy: status.current_healthy,
                needed: status.desired_healthy,
                before: b.allowed,
                node: node.into(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selector::LabelSelector;

    fn owner(kind: &str, name: &str) -> ControllerRef {
        ControllerRef { api_version: "apps/v1".into(), kind: kind.into(), name: name.into() }
    }

    fn budget(name: &str, app: &str, allowed: i32) -> PdbInfo {
        PdbInfo {
            namespace: "shop".into(),
            selector: LabelSelector { match_labels: [("app".into(), app.into())].into(), ..Default::default() },
            status: PdbStatus {
                name: name.into(),
                disruptions_allowed: allowed,
                current_healthy: 2,
                desired_healthy: 1,
                expected_pods: 2,
            },
            policy: Default::default(),
        }
    }

    #[test]
    fn a_drain_touches_its_pods_controllers_and_the_budgets_covering_them_once_each() {
        let web = [("app".to_string(), "web".to_string())].into();
        let solo = BTreeMap::new();
        let rs = owner("ReplicaSet", "web-7d9");
        let pods = [
            EvictedPod { namespace: "shop", controller: Some(&rs), labels: &web },
            EvictedPod { namespace: "shop", controller: Some(&rs), labels: &web },
            EvictedPod { namespace: "shop", controller: None, labels: &solo },
        ];
        let budgets = [budget("web", "web", 1), budget("db", "db", 0)];
        let touched = record(pods, &budgets);
        assert_eq!(
            touched.workloads,
            [WorkloadRef { kind: "ReplicaSet".into(), namespace: "shop".into(), name: "web-7d9".into() }]
        );
        assert_eq!(touched.budgets, [BudgetBefore { namespace: "shop".into(), name: "web".into(), allowed: 1 }]);
        let other_namespace = [EvictedPod { namespace: "blog", controller: None, labels: &web }];
        assert_eq!(record(other_namespace, &budgets), Touched::default(), "a budget covers its own namespace only");
    }

    #[test]
    fn the_record_is_bounded() {
        let owners: Vec<ControllerRef> = (0..MAX_TOUCHED + 10).map(|i| owner("ReplicaSet", &format!("r{i}"))).collect();
        let labels = BTreeMap::new();
        let pods = owners.iter().map(|o| EvictedPod { namespace: "shop", controller: Some(o), labels: &labels });
        assert_eq!(record(pods, &[]).workloads.len(), MAX_TOUCHED);
    }

    #[test]
    fn each_failed_check_names_the_workload_or_budget_and_the_node() {
        let web = WorkloadRef { kind: "Deployment".into(), namespace: "shop".into(), name: "web".into() };
        let found = [
            Found::Counts { workload: web.clone(), desired: 2, ready: 1 },
            Found::Counts { workload: web.clone(), desired: 2, ready: 2 },
            Found::Gone,
            Found::NotChecked,
            Found::Unreadable { workload: web.clone(), why: "forbidden".into() },
        ];
        let words = |failed: Vec<CheckFailure>| failed.iter().map(CheckFailure::english).collect::<Vec<_>>();
        assert_eq!(
            words(workload_failures("node-7", &found)),
            [
                "Deployment shop/web has 1 of 2 replicas ready (its pods were evicted from node-7)",
                "could not read Deployment shop/web: forbidden",
            ]
        );
        let before = [
            BudgetBefore { namespace: "shop".into(), name: "web".into(), allowed: 1 },
            BudgetBefore { namespace: "shop".into(), name: "gone".into(), allowed: 1 },
        ];
        let now = |allowed: i32| {
            move |_: &str, name: &str| {
                (name == "web").then(|| PdbStatus {
                    name: name.into(),
                    disruptions_allowed: allowed,
                    current_healthy: 1,
                    desired_healthy: 1,
                    expected_pods: 2,
                })
            }
        };
        assert_eq!(
            words(budget_failures("node-7", &before, now(0))),
            ["PodDisruptionBudget shop/web allows 0 disruptions (1 pods healthy, 1 needed), 1 before node-7's drain"]
        );
        assert!(budget_failures("node-7", &before, now(1)).is_empty());
        assert!(budget_failures("node-7", &before, now(3)).is_empty(), "more than before is fine");
    }
}
