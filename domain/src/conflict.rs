//! Why a request conflicts with what is, or with what runs (HTTP 409): another drain of the node, a plan another
//! server runs, a pod or a budget that changed since the page showed it, a move that cannot help. Kept typed, as
//! [`crate::failure::StartRefusal`] is, so that the page words each reason in the person's language with only
//! names and numbers as data; [`Conflict::english`] is the API's message, for scripts, logs and the audit trail.

use serde::{Deserialize, Serialize};

use crate::{failure::ApiAnswer, moving::MoveRefusal, verify::CheckFailure};

/// Why a request conflicts with what is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Conflict {
    /// This server drains the node already, with other options than asked (the same options attach instead).
    AlreadyDraining { node: String, drain: String },
    /// Another Drainboard server drains the node: its live Lease names it, and is taken over `lease_seconds` after
    /// that server stops.
    DrainingElsewhere { node: String, holder: String, lease_seconds: i32 },
    /// Another Drainboard server runs the plan.
    PlanElsewhere { plan: String },
    /// The plan's spec differs from what a person confirmed (`crate::pin`): continuing it confirms generation
    /// `generation`, which the request must name after its person has seen `changes`.
    SpecUnconfirmed { plan: String, generation: i64, changes: Vec<crate::pin::SpecChange> },
    /// A person's word that a node is back, for a plan that verifies: the node fails these checks, and stays
    /// cordoned.
    NotCheckedOut { node: String, failed: Vec<CheckFailure> },
    /// The node's last drain is past: the node was uncordoned after it, so a resume would cordon and drain a node
    /// back in service.
    PastDrain { node: String, drain: String },
    /// A move was asked of a drain that no longer runs.
    NothingToMove { drain: String },
    /// An unblock was asked of a drain that no longer runs.
    NothingToUnblock { drain: String },
    /// The pod (`namespace/name`) is not held by a budget short of healthy pods: nothing to unblock.
    NotShortOfHealthy { pod: String },
    /// The pod is gone already: the drain goes on by itself.
    PodGone { pod: String },
    /// The pod is Ready now: its eviction waits for the budget, not for the pod.
    PodReady { pod: String },
    /// The budget no longer holds the pod: its eviction goes through now.
    BudgetReleased { budget: String, pod: String },
    /// The budget is gone: the drain goes on by itself.
    BudgetGone { budget: String },
    /// The pod (`namespace/name`, when the refusal is about one) cannot be moved first, for this reason.
    Move { pod: Option<String>, refusal: MoveRefusal },
    /// Whether an autoscaler sets the Deployment's replicas cannot be told: the autoscalers of its namespace could
    /// not be listed (the API server's answer).
    AutoscalersUnknown { deployment: String, namespace: String, answer: ApiAnswer },
    /// The Deployment changed while its move was asked: look again.
    DeploymentChanged { deployment: String },
    /// The wall screens' revocations kept changing under every attempt to sign one out.
    WallRevocationsBusy { attempts: u32 },
}

impl Conflict {
    /// The conflict in plain English, for the API's answer, logs and the audit trail (the page words it through the
    /// catalogue).
    pub fn english(&self) -> String {
        match self {
            Self::AlreadyDraining { node, drain } => {
                format!(
                    "{node} is being drained already, with other options (drain {drain}); cancel it or wait for it to end"
                )
            }
            Self::DrainingElsewhere { node, holder, lease_seconds } => format!(
                "{node} is being drained by another Drainboard server ({holder}); follow it there, or resume it once \
                 that server's Lease on the node has expired ({lease_seconds} s after it stops)"
            ),
            Self::PlanElsewhere { plan } => {
                format!("another Drainboard server runs the maintenance plan {plan}; follow it there")
            }
            Self::SpecUnconfirmed { plan, generation, changes } if changes.is_empty() => format!(
                "the maintenance plan {plan} is at generation {generation}, not the one confirmed: look at it again, \
                 then continue it confirming generation {generation}"
            ),
            Self::SpecUnconfirmed { plan, generation, changes } => format!(
                "the maintenance plan {plan}'s spec changed since it was confirmed ({}): continue it confirming \
                 generation {generation} once you have seen the change",
                crate::pin::SpecChange::english_all(changes)
            ),
            Self::NotCheckedOut { node, failed } => {
                format!("{node} does not check out yet, so it stays cordoned: {}", CheckFailure::english_all(failed))
            }
            Self::PastDrain { node, drain } => format!(
                "{node}'s last drain ({drain}) cannot be resumed: the node was uncordoned after it, so resuming would \
                 cordon and drain a node back in service; start a new drain if that is what you want"
            ),
            Self::NothingToMove { drain } => format!("the drain {drain} is not running: there is nothing to move"),
            Self::NothingToUnblock { drain } => {
                format!("the drain {drain} is not running: there is nothing to unblock")
            }
            Self::NotShortOfHealthy { pod } => {
                format!("{pod} is not held by a budget short of healthy pods; nothing to unblock")
            }
            Self::PodGone { pod } => format!("{pod} is gone already: the drain goes on by itself"),
            Self::PodReady { pod } => format!("{pod} is Ready now: its eviction waits for the budget"),
            Self::BudgetReleased { budget, pod } => {
                format!("PDB {budget} no longer holds {pod}: its eviction goes through now")
            }
            Self::BudgetGone { budget } => format!("PDB {budget} is gone: the drain goes on by itself"),
            Self::Move { pod: Some(pod), refusal } => format!("{pod}: {refusal}"),
            Self::Move { pod: None, refusal } => refusal.to_string(),
            Self::AutoscalersUnknown { deployment, namespace, answer } => format!(
                "cannot tell whether an autoscaler sets Deployment {deployment}'s replicas ({}); a move needs to list \
                 HorizontalPodAutoscalers in {namespace}",
                answer.message
            ),
            Self::DeploymentChanged { deployment } => {
                format!("Deployment {deployment} changed while the move was asked: look again")
            }
            Self::WallRevocationsBusy { attempts } => {
                format!("the wall screens' revocations kept changing under {attempts} attempts to sign out")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_conflict_names_its_objects_and_crosses_the_wire_as_data() {
        let cases = [
            (Conflict::AlreadyDraining { node: "n1".into(), drain: "d1".into() }, vec!["n1", "d1", "cancel it"]),
            (
                Conflict::DrainingElsewhere { node: "n1".into(), holder: "pod-a".into(), lease_seconds: 40 },
                vec!["n1", "pod-a", "40 s"],
            ),
            (Conflict::PlanElsewhere { plan: "p1".into() }, vec!["p1"]),
            (
                Conflict::SpecUnconfirmed {
                    plan: "p1".into(),
                    generation: 3,
                    changes: vec![crate::pin::SpecChange {
                        field: crate::pin::Field::Drain(crate::pin::DrainField::DisableEviction),
                        pinned: "false".into(),
                        now: "true".into(),
                    }],
                },
                vec!["p1", "spec.drain.disableEviction: false → true", "generation 3"],
            ),
            (
                Conflict::NotCheckedOut {
                    node: "n1".into(),
                    failed: vec![CheckFailure::NotReady { node: "n1".into() }],
                },
                vec!["n1 does not check out yet", "stays cordoned"],
            ),
            (Conflict::PastDrain { node: "n1".into(), drain: "d1".into() }, vec!["n1", "d1", "uncordoned after it"]),
            (
                Conflict::Move { pod: Some("ns/web-1".into()), refusal: MoveRefusal::Paused },
                vec!["ns/web-1: ", "paused"],
            ),
            (
                Conflict::AutoscalersUnknown {
                    deployment: "web".into(),
                    namespace: "ns".into(),
                    answer: ApiAnswer { code: Some(403), message: "forbidden".into() },
                },
                vec!["web", "forbidden", "ns"],
            ),
            (Conflict::WallRevocationsBusy { attempts: 5 }, vec!["5 attempts"]),
        ];
        for (conflict, words) in cases {
            let english = conflict.english();
            for word in words {
                assert!(english.contains(word), "{english:?} lacks {word:?}");
            }
            let wire = serde_json::to_string(&conflict).unwrap();
            assert_eq!(serde_json::from_str::<Conflict>(&wire).unwrap(), conflict, "{wire}");
        }
    }
}
