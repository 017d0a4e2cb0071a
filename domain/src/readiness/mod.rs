//! What would hold the next drain of a node, known before the window: for each node, the holds a drain with the
//! dialog's default options would meet, each naming its objects and the namespace that owns them, so that the
//! operator knows whom to call. The rules are the drain preview's (`crate::preview`), the budget rules the blocker
//! explanations use (`crate::budget`, `crate::blocker`) and the capacity check's (`crate::capacity`); this module
//! only gathers what they say into one list per node.
//!
//! The engine gathers the facts (each node's preview inputs, the pods a local volume binds to the node, the
//! capacity report of draining them all); [`of_node`] reads them. Budgets that select no pod at all are found
//! cluster-wide by [`idle_budgets`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod volume;
mod window;

pub use volume::{Volume, pins};
pub use window::{WindowScope, first_stall, window_scopes};

use crate::{
    budget::{PdbInfo, covering_all},
    capacity::{CapacityReport, Verdict},
    drain::{DrainOption, DrainOptions, Refusal},
    pod::DoNotDisrupt,
    preview::{PreviewInputs, preview},
};

/// The most nodes one readiness check reads: the same bound as a plan's nodes.
pub const MAX_NODES: usize = crate::input::MAX_NODES;

/// The most pods one hold names; the rest are counted.
pub const MAX_PODS_NAMED: usize = 5;

/// One thing that would hold a node's drain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Hold {
    /// A budget that needs every pod it counts healthy (`minAvailable` at or above the replicas, or
    /// `maxUnavailable: 0`): it never allows an eviction as the workload stands.
    BudgetNever { namespace: String, budget: String, expected: i32, desired: i32, pods: Vec<String> },
    /// A single replica under a budget that needs it: its one pod can never be evicted.
    SingleReplica { namespace: String, budget: String, pod: String },
    /// More than one budget covers a pod: the API server refuses its eviction outright.
    TwoBudgets { namespace: String, pod: String, budgets: Vec<String> },
    /// A drain with the default options refuses the pod: `emptyDir` data, no controller, a DaemonSet gone or
    /// unreadable. `needs` is the option that would take it, if any.
    Refused { namespace: String, pod: String, reason: Refusal, needs: Option<DrainOption> },
    /// The pod's owner asked that it not be disrupted (kubectl and a default drain evict it anyway).
    OwnerAsked { namespace: String, pod: String, annotation: String },
    /// A local volume binds the pod to this node: its replacement cannot start anywhere else.
    LocalVolume { namespace: String, pod: String, volume: String },
    /// The pod's replacement fits on no node that stays schedulable (the capacity check's reasons).
    NoRoom { namespace: String, pod: String, why: String },
}

impl Hold {
    /// A stable name for the class, for tests, styles and the page's words.
    pub fn class(&self) -> &'static str {
        match self {
            Hold::BudgetNever { .. } => "budget-never",
            Hold::SingleReplica { .. } => "single-replica",
            Hold::TwoBudgets { .. } => "two-budgets",
            Hold::Refused { .. } => "refused",
            Hold::OwnerAsked { .. } => "owner-asked",
            Hold::LocalVolume { .. } => "local-volume",
            Hold::NoRoom { .. } => "no-room",
        }
    }

    /// The namespace whose owners can fix it.
    pub fn namespace(&self) -> &str {
        match self {
            Hold::BudgetNever { namespace, .. }
            | Hold::SingleReplica { namespace, .. }
            | Hold::TwoBudgets { namespace, .. }
            | Hold::Refused { namespace, .. }
            | Hold::OwnerAsked { namespace, .. }
            | Hold::LocalVolume { namespace, .. }
            | Hold::NoRoom { namespace, .. } => namespace,
        }
    }

    /// Whether the drain would stall on it (wait for ever or be refused), rather than only lose something the
    /// operator should know of first (an owner's request that a default drain passes over).
    pub fn stalls(&self) -> bool {
        !matches!(self, Hold::OwnerAsked { .. })
    }
}

/// What holds one node's drain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeReadiness {
    pub node: String,
    pub holds: Vec<Hold>,
}

impl NodeReadiness {
    /// Whether a drain of it would stall.
    pub fn stalls(&self) -> bool {
        self.holds.iter().any(Hold::stalls)
    }
}

/// A pod that a local volume binds to its node, as the engine found it (a claim bound to a volume with
/// `spec.local`, or whose node affinity names only this node).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalBound {
    pub namespace: String,
    pub pod: String,
    pub volume: String,
}

/// The holds of the node of `inputs`: its drain previewed with the dialog's default options, its pods' budgets,
/// `local` (the pods local volumes bind to it) and `capacity` (the check of draining every node asked about
/// together), in a stable order: by class, then namespace and name.
pub fn of_node(inputs: &PreviewInputs, local: &[LocalBound], capacity: Option<&CapacityReport>) -> NodeReadiness {
    let mut holds = Vec::new();
    let Ok(planned) = preview(inputs, &DrainOptions::dialog_defaults()) else {
        // No pod selector is set, so the preview cannot fail; nothing is claimed if it ever does.
        return NodeReadiness { node: inputs.node.clone(), holds };
    };
    for refused in &planned.refused {
        let (namespace, pod) = (refused.pod.namespace.clone(), refused.pod.name.clone());
        holds.push(Hold::Refused {
            namespace,
            pod,
            reason: refused.reason.clone(),
            needs: refused.reason.overridden_by(),
        });
    }
    // The budgets of the pods to evict, each budget once with its pods on this node.
    let mut never: BTreeMap<(String, String), (i32, i32, Vec<String>)> = BTreeMap::new();
    for evicted in &planned.evict {
        let (namespace, pod) = (&evicted.pod.namespace, &evicted.pod.name);
        for note in &evicted.notes {
            if let crate::drain::EvictNote::OwnerAsked(asked) = note {
                holds.push(owner_asked(namespace, pod, *asked));
            }
        }
        // The API server evicts a finished pod whatever its budgets say.
        let Some(summary) =
            inputs.pods.iter().find(|p| &p.namespace == namespace && &p.name == pod && !p.phase.is_terminal())
        else {
            continue;
        };
        let budgets = covering_all(&inputs.pdbs, namespace, &summary.labels);
        match budgets.as_slice() {
            [] => {}
            [one] if one.status.never_allows() => {
                let entry = never.entry((namespace.clone(), one.status.name.clone())).or_insert((
                    one.status.expected_pods,
                    one.status.desired_healthy,
                    Vec::new(),
                ));
                entry.2.push(pod.clone());
            }
            [_] => {}
            many => {
                let mut names: Vec<String> = many.iter().map(|b| b.status.name.clone()).collect();
                names.sort();
                holds.push(Hold::TwoBudgets { namespace: namespace.clone(), pod: pod.clone(), budgets: names });
            }
        }
    }
    for ((namespace, budget), (expected, desired, mut pods)) in never {
        pods.sort();
        if expected == 1 && pods.len() == 1 {
            let pod = pods.remove(0);
            holds.push(Hold::SingleReplica { namespace, budget, pod });
        } else {
            pods.truncate(MAX_PODS_NAMED);
            holds.push(Hold::BudgetNever { namespace, budget, expected, desired, pods });
        }
    }
    for bound in local {
        holds.push(Hold::LocalVolume {
            namespace: bound.namespace.clone(),
            pod: bound.pod.clone(),
            volume: bound.volume.clone(),
        });
    }
    if let Some(report) = capacity {
        for verdict in report.pods.iter().filter(|v| v.from == inputs.node) {
            if let Verdict::Pending(reasons) = &verdict.verdict {
                holds.push(Hold::NoRoom {
                    namespace: verdict.namespace.clone(),
                    pod: verdict.name.clone(),
                    why: crate::capacity::pending_text(report.nodes_left, reasons),
                });
            }
        }
    }
    holds.sort_by(|a, b| (rank(a), a.namespace(), pod_of(a)).cmp(&(rank(b), b.namespace(), pod_of(b))));
    NodeReadiness { node: inputs.node.clone(), holds }
}

fn owner_asked(namespace: &str, pod: &str, asked: DoNotDisrupt) -> Hold {
    let (key, value) = asked.annotation();
    Hold::OwnerAsked { namespace: namespace.to_owned(), pod: pod.to_owned(), annotation: format!("{key}: {value}") }
}

/// The order holds are listed in: what stalls a drain for ever first.
fn rank(hold: &Hold) -> u8 {
    match hold {
        Hold::BudgetNever { .. } => 0,
        Hold::SingleReplica { .. } => 1,
        Hold::TwoBudgets { .. } => 2,
        Hold::Refused { .. } => 3,
        Hold::LocalVolume { .. } => 4,
        Hold::NoRoom { .. } => 5,
        Hold::OwnerAsked { .. } => 6,
    }
}

fn pod_of(hold: &Hold) -> &str {
    match hold {
        Hold::BudgetNever { budget, .. } => budget,
        Hold::SingleReplica { pod, .. }
        | Hold::TwoBudgets { pod, .. }
        | Hold::Refused { pod, .. }
        | Hold::OwnerAsked { pod, .. }
        | Hold::LocalVolume { pod, .. }
        | Hold::NoRoom { pod, .. } => pod,
    }
}

/// A budget that selects no pod at all: it protects nothing, and usually names a workload renamed or gone.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct IdleBudget {
    pub namespace: String,
    pub budget: String,
}

/// The budgets of `pdbs` that no pod of `pods` (namespace and labels, every pod of the cluster) falls under, in
/// namespace and name order.
pub fn idle_budgets<'a>(
    pdbs: &[PdbInfo],
    pods: impl IntoIterator<Item = (&'a str, &'a BTreeMap<String, String>)>,
) -> Vec<IdleBudget> {
    let mut idle: BTreeMap<(&str, &str), bool> =
        pdbs.iter().map(|b| ((b.namespace.as_str(), b.status.name.as_str()), true)).collect();
    for (namespace, labels) in pods {
        for budget in pdbs.iter().filter(|b| b.namespace == namespace && b.selector.matches(labels)) {
            idle.insert((budget.namespace.as_str(), budget.status.name.as_str()), false);
        }
    }
    idle.into_iter()
        .filter(|(_, idle)| *idle)
        .map(|((namespace, budget), _)| IdleBudget { namespace: namespace.to_owned(), budget: budget.to_owned() })
        .collect()
}

/// The answer of a readiness check.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Readiness {
    /// Every node asked about, in the order asked, each with its holds (none: nothing is known to hold it).
    pub nodes: Vec<NodeReadiness>,
    /// The budgets of the cluster that select no pod (of the namespaces the caller may read).
    pub idle_budgets: Vec<IdleBudget>,
    /// What could not be checked, and why (the caller may not list persistent volumes, say): the answer does not
    /// claim those classes are clear.
    #[serde(default)]
    pub unchecked: Vec<String>,
}

impl Readiness {
    /// The nodes whose drain would stall.
    pub fn stalling(&self) -> impl Iterator<Item = &NodeReadiness> {
        self.nodes.iter().filter(|n| n.stalls())
    }
}

mod tests;
