//! Move first: a pod whose budget allows no disruption, owned through its ReplicaSet by a Deployment, is moved
//! by surging the Deployment, waiting for the new pods to be Ready elsewhere (the node is cordoned), letting the
//! drain evict the old ones (the budget now allows it), and putting the count back. These rules decide whether a
//! workload may be moved so, and read and write the record the move keeps on the Deployment, so that any server,
//! after a restart, puts the count back.
//!
//! A move is refused where it would fight something that owns the replica count: an autoscaler targeting the
//! Deployment, or a declarative tool applying its `spec.replicas`; and for a StatefulSet, whose pods' identities
//! cannot surge.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::blocker::Blocker;

/// The annotation on the Deployment that records a move in progress ([`MoveRecord`], as JSON).
pub const RECORD_ANNOTATION: &str = "drainboard.dev/move-first";
/// The label on a Deployment being moved, so that a server finds every move left over with one list.
pub const MOVING_LABEL: &str = "drainboard.dev/moving";

/// The most pods one move surges for; more on one node is not a single-replica workload, and a typo in a count
/// written to the cluster should not be able to add thousands.
pub const MAX_SURGE: i32 = 16;

/// The most bytes of a move record read back from the annotation, which anyone who may patch the Deployment can
/// write.
pub const MAX_RECORD_BYTES: usize = 4096;

/// A move in progress, as recorded on the Deployment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveRecord {
    /// The replica count before the move: what the count goes back to.
    pub original: i32,
    /// How many replicas the move added.
    pub surge: i32,
    /// The node being drained.
    pub node: String,
    /// The drain the move serves.
    pub drain_id: String,
    /// The pods moved, by uid.
    pub pods: Vec<String>,
    /// Who asked.
    pub by: String,
    pub at: Timestamp,
}

impl MoveRecord {
    /// The count during the move; `None` when it would overflow.
    pub fn surged(&self) -> Option<i32> {
        self.original.checked_add(self.surge)
    }

    /// The record as the annotation's value.
    #[cfg(feature = "k8s")]
    pub fn to_annotation(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The record in an annotation's value, checked: `None` when it is too long, not a record, its numbers are out
    /// of range (a negative count, a surge of none or past [`MAX_SURGE`]), or its names are not names (anyone who
    /// may patch the Deployment may have written it, and the node it names gets the put-back in its history).
    #[cfg(feature = "k8s")]
    pub fn from_annotation(value: &str) -> Option<MoveRecord> {
        if value.len() > MAX_RECORD_BYTES {
            return None;
        }
        let record: MoveRecord = serde_json::from_str(value).ok()?;
        let sane = record.original >= 0 && (1..=MAX_SURGE).contains(&record.surge) && record.surged().is_some();
        let short =
            |s: &str, most: usize| !s.is_empty() && s.chars().count() <= most && !s.chars().any(char::is_control);
        let named = crate::input::node_name(&record.node).is_ok()
            && short(&record.drain_id, 64)
            && short(&record.by, 256)
            && record.pods.len() <= usize::try_from(MAX_SURGE).unwrap_or(0)
            && record.pods.iter().all(|uid| short(uid, 64));
        (sane && named).then_some(record)
    }
}

/// Who owns the pod, as far as a move needs it: the controller's kind and name, and, for a ReplicaSet, its own
/// controller's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    None,
    /// A ReplicaSet, and the Deployment that controls it, if any.
    ReplicaSet {
        name: String,
        deployment: Option<String>,
    },
    Other {
        kind: String,
        name: String,
    },
}

/// One entry of the Deployment's `metadata.managedFields`, as far as the replica count is concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldManager {
    pub manager: String,
    /// `Apply` (server-side apply) or `Update`.
    pub operation: String,
    /// Whether this entry owns `spec.replicas`.
    pub owns_replicas: bool,
}

/// Why a pod may not be moved first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoveRefusal {
    /// The pod's eviction is not held by a budget at zero: there is nothing a surge would change.
    NotHeldByBudget,
    /// The pod has no controller: nothing would replace it.
    NoController,
    /// Pods of a StatefulSet keep their identities: a new one cannot start before the old one is gone.
    StatefulSet { name: String },
    /// Only a Deployment's count can be surged and put back.
    NotADeployment { kind: String, name: String },
    /// A HorizontalPodAutoscaler sets this Deployment's count, and would undo the surge.
    Autoscaled { autoscaler: String },
    /// A declarative tool applies `spec.replicas` (server-side apply), and would undo the surge.
    ReplicasApplied { manager: String },
    /// The Deployment is paused: its new pods would not roll out.
    Paused,
    /// The Deployment is being moved already (by this drain or another).
    Moving { node: String, by: String },
    /// More pods of this Deployment are on the node than one move surges for.
    TooMany { pods: i32 },
}

impl std::fmt::Display for MoveRefusal {
    /// The refusal in the server's words (the page words it from the catalogue).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveRefusal::NotHeldByBudget => write!(f, "the pod is not held by a budget at zero: nothing to move"),
            MoveRefusal::NoController => write!(f, "the pod has no controller: nothing would start it elsewhere"),
            MoveRefusal::StatefulSet { name } => write!(
                f,
                "StatefulSet {name} cannot surge: its pods keep their identities, so a new one starts only once the old one is gone"
            ),
            MoveRefusal::NotADeployment { kind, name } => {
                write!(f, "{kind} {name} owns the pod: only a Deployment's count can be surged and put back")
            }
            MoveRefusal::Autoscaled { autoscaler } => write!(
                f,
                "HorizontalPodAutoscaler {autoscaler} sets this Deployment's replicas and would undo the surge; raise its minReplicas instead"
            ),
            MoveRefusal::ReplicasApplied { manager } => write!(
                f,
                "{manager} applies this Deployment's replicas (server-side apply) and would undo the surge; scale it there instead"
            ),
            MoveRefusal::Paused => {
                write!(f, "the Deployment is paused: its new pods would not roll out; resume it first")
            }
            MoveRefusal::Moving { node, by } => {
                write!(f, "the Deployment is being moved already, for node {node} by {by}")
            }
            MoveRefusal::TooMany { pods } => {
                write!(f, "{pods} of its pods are on the node: a move surges for at most {MAX_SURGE}")
            }
        }
    }
}

/// Whether the pod's `blockers` are the kind a surge answers: a budget that allows no disruption with every pod
/// it counts healthy, which more Ready pods elsewhere would let go.
pub fn surge_helps(blockers: &[Blocker]) -> bool {
    blockers.iter().any(|b| matches!(b, Blocker::BudgetAtZero { .. } | Blocker::BudgetNever { .. }))
}

/// The Deployment to surge for a pod owned by `owner`, or why there is none.
pub fn deployment(owner: &Owner) -> Result<&str, MoveRefusal> {
    match owner {
        Owner::None => Err(MoveRefusal::NoController),
        Owner::ReplicaSet { deployment: Some(d), .. } => Ok(d),
        Owner::ReplicaSet { name, deployment: None } => {
            Err(MoveRefusal::NotADeployment { kind: "ReplicaSet".into(), name: name.clone() })
        }
        Owner::Other { kind, name } if kind == "StatefulSet" => Err(MoveRefusal::StatefulSet { name: name.clone() }),
        Owner::Other { kind, name } => Err(MoveRefusal::NotADeployment { kind: kind.clone(), name: name.clone() }),
    }
}

/// The manager that applies the Deployment's `spec.replicas` declaratively, if any: a server-side apply entry
/// owning the field. Imperative updates (`kubectl scale`, an edit) own it too, but nothing re-asserts them.
pub fn replicas_applied_by(managers: &[FieldManager]) -> Option<&str> {
    managers.iter().find(|m| m.owns_replicas && m.operation == "Apply").map(|m| m.manager.as_str())
}

/// What a move will do, for the person to confirm: the Deployment, its count now and during the move, and the
/// pods that go once the new ones are Ready.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovePreview {
    pub namespace: String,
    pub deployment: String,
    pub original: i32,
    pub surged: i32,
    pub pods: Vec<String>,
}

/// The server's answer to a move: what it would do (no consent given yet), or that it started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoveAnswer {
    Preview(MovePreview),
    Started(MovePreview),
}

/// Whether a move recorded on a Deployment should be put back now: its drain no longer runs, or every pod it
/// moved is gone from the node (`left` is how many are still there).
pub fn restore_due(drain_running: bool, left: usize) -> bool {
    !drain_running || left == 0
}

/// The count to put back, given the Deployment's count now: the original when it is still the surged count;
/// `None` when someone changed it since, whose count stands (only the record is removed).
pub fn restored_count(record: &MoveRecord, now: i32) -> Option<i32> {
    (record.surged() == Some(now)).then_some(record.original)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> MoveRecord {
        MoveRecord {
            original: 1,
            surge: 1,
            node: "n1".into(),
            drain_id: "d1".into(),
            pods: vec!["uid-1".into()],
            by: "alice".into(),
            at: Timestamp::UNIX_EPOCH,
        }
    }

    #[cfg(feature = "k8s")]
    #[test]
    fn a_record_survives_the_annotation() {
        let r = record();
        assert_eq!(MoveRecord::from_annotation(&r.to_annotation()), Some(r));
    }

    #[cfg(feature = "k8s")]
    #[test]
    fn a_record_out_of_range_is_not_read() {
        let mut r = record();
        r.surge = 0;
        assert_eq!(MoveRecord::from_annotation(&r.to_annotation()), None);
        r.surge = MAX_SURGE + 1;
        assert_eq!(MoveRecord::from_annotation(&r.to_annotation()), None);
        r.surge = 1;
        r.original = -1;
        assert_eq!(MoveRecord::from_annotation(&r.to_annotation()), None);
        r.original = i32::MAX;
        assert_eq!(MoveRecord::from_annotation(&r.to_annotation()), None, "the surged count would overflow");
        assert_eq!(MoveRecord::from_annotation("not json"), None);
        let long = format!("{{\"by\":\"{}\"}}", "a".repeat(MAX_RECORD_BYTES));
        assert_eq!(MoveRecord::from_annotation(&long), None);
    }

    #[cfg(feature = "k8s")]
    #[test]
    fn a_record_whose_names_are_not_names_is_not_read() {
        let bad: [fn(&mut MoveRecord); 5] = [
            |r| r.node = "Not_A_Node".into(),
            |r| r.drain_id = String::new(),
            |r| r.by = "a\nforged line".into(),
            |r| r.by = "a".repeat(257),
            |r| r.pods = vec!["uid".into(); (MAX_SURGE + 1) as usize],
        ];
        for spoil in bad {
            let mut r = record();
            spoil(&mut r);
            assert_eq!(MoveRecord::from_annotation(&r.to_annotation()), None, "{r:?}");
        }
    }

    #[test]
    fn only_a_deployment_is_moved() {
        let rs = |d: Option<&str>| Owner::ReplicaSet { name: "web-1".into(), deployment: d.map(Into::into) };
        assert_eq!(deployment(&rs(Some("web"))), Ok("web"));
        assert_eq!(
            deployment(&rs(None)),
            Err(MoveRefusal::NotADeployment { kind: "ReplicaSet".into(), name: "web-1".into() })
        );
        let sts = Owner::Other { kind: "StatefulSet".into(), name: "db".into() };
        assert_eq!(deployment(&sts), Err(MoveRefusal::StatefulSet { name: "db".into() }));
        assert_eq!(deployment(&Owner::None), Err(MoveRefusal::NoController));
    }

    #[test]
    fn an_applied_count_refuses_but_an_imperative_one_does_not() {
        let m = |manager: &str, operation: &str, owns_replicas| FieldManager {
            manager: manager.into(),
            operation: operation.into(),
            owns_replicas,
        };
        assert_eq!(replicas_applied_by(&[m("kubectl-scale", "Update", true), m("argocd", "Apply", false)]), None);
        assert_eq!(
            replicas_applied_by(&[m("kube-controller-manager", "Update", false), m("flux", "Apply", true)]),
            Some("flux")
        );
    }

    #[test]
    fn only_a_budget_at_zero_is_answered_by_a_surge() {
        let zero = Blocker::BudgetAtZero { budget: "b".into(), healthy: 1, desired: 1, to_become_ready: 1 };
        let never = Blocker::BudgetNever { budget: "b".into(), expected: 1, desired: 1 };
        let unhealthy = Blocker::HeldWhileUnhealthy { budget: "b".into(), healthy: 0, desired: 1 };
        assert!(surge_helps(&[zero]));
        assert!(surge_helps(&[never]));
        assert!(!surge_helps(&[unhealthy]));
        assert!(!surge_helps(&[]));
    }

    #[test]
    fn the_count_goes_back_only_when_nobody_changed_it() {
        let r = record();
        assert_eq!(restored_count(&r, 2), Some(1));
        assert_eq!(restored_count(&r, 5), None, "someone scaled it during the move: their count stands");
        assert!(restore_due(false, 1));
        assert!(restore_due(true, 0));
        assert!(!restore_due(true, 1));
    }
}
