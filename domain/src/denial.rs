//! Why Drainboard denies a person what they asked (HTTP 403) for want of a right it checks for: reading the board,
//! the drains and plans the server keeps or the maintenance windows, starting or continuing a plan, changing what a
//! colleague started. Kept typed, as [`crate::failure::StartRefusal`] is, so that the page words each in the
//! person's language, naming the permission they lack and the role that grants it; [`Denial::english`] is the
//! API's message, for scripts, logs and the audit trail.
//!
//! The request guard's refusals (another site's page, a host not allowed, a wall's token) stay plain text: they
//! answer scripts and other sites, not a person on the page.

use serde::{Deserialize, Serialize};

/// What a person asked to change, of something a colleague started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Change {
    StopDrain,
    ChangeRollout,
    UndoRollout,
    MovePods,
    Unblock,
}

impl Change {
    fn english(self) -> &'static str {
        match self {
            Change::StopDrain => "stop a drain",
            Change::ChangeRollout => "change a plan",
            Change::UndoRollout => "undo a plan",
            Change::MovePods => "move pods for a drain",
            Change::Unblock => "unblock a drain",
        }
    }
}

/// Why a person is denied what they asked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Denial {
    /// The board needs list and watch on nodes, pods, budgets and node Leases: the kinds the API server refused,
    /// and its first answer.
    NoBoardRead { refused: Vec<String>, answer: String },
    /// What the server keeps in memory (drains, history, rollouts) shows nodes and pods: reading it needs list and
    /// watch of nodes and of Leases, in the whole cluster.
    NoSight,
    /// The person may not start a plan: the rights to drain it lacks, and the role that grants them.
    MayNotStartPlan { user: String, lacks: String, role: String },
    /// The person may not continue the plan: the rights to drain it lacks, and the role that grants them.
    MayNotContinuePlan { user: String, plan: String, lacks: String, role: String },
    /// The person may not change what `started_by` started: the rights to drain it lacks.
    MayNotChange { user: String, change: Change, started_by: String, lacks: String },
    /// The person may not list the maintenance windows, which say what holds maintenance.
    MayNotListWindows { user: String },
    /// A wall screen's sign-in with a token that is not this server's `--wall-token`.
    WrongWallToken,
}

impl Denial {
    /// The denial in plain English, for the API's answer, logs and the audit trail (the page words it through the
    /// catalogue).
    pub fn english(&self) -> String {
        match self {
            Self::NoBoardRead { refused, answer } => format!(
                "the board needs list and watch on nodes, pods, PodDisruptionBudgets and the Leases in \
                 kube-node-lease, and the API server refused {} ({answer}); ask for read access (the \
                 drainboard-viewer role)",
                refused.join(", ")
            ),
            Self::NoSight => "the drains, the maintenance history and the rollouts this server keeps show nodes and \
                 pods: reading them needs list and watch of nodes, and of leases (coordination.k8s.io), in the whole \
                 cluster; ask a cluster administrator for a role that grants them"
                .to_owned(),
            Self::MayNotStartPlan { user, lacks, role } => {
                format!("{user} may not start a plan: lacks {lacks}, which draining takes; ask for the {role} role")
            }
            Self::MayNotContinuePlan { user, plan, lacks, role } => {
                format!("{user} may not continue the maintenance plan {plan}: lacks {lacks}; ask for the {role} role")
            }
            Self::MayNotChange { user, change, started_by, lacks } => {
                format!("{user} may not {} {started_by} started: lacks {lacks}, which draining takes", change.english())
            }
            Self::MayNotListWindows { user } => format!(
                "{user} may not list maintenancewindows (drainboard.dev), which says what holds maintenance; ask for \
                 the drainboard-viewer role"
            ),
            Self::WrongWallToken => "that is not this server's wall token".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_denial_names_who_what_and_the_fix_and_crosses_the_wire_as_data() {
        let cases = [
            (
                Denial::NoBoardRead { refused: vec!["nodes".into(), "pods".into()], answer: "forbidden".into() },
                vec!["refused nodes, pods (forbidden)", "drainboard-viewer"],
            ),
            (Denial::NoSight, vec!["list and watch of nodes"]),
            (
                Denial::MayNotStartPlan { user: "bob".into(), lacks: "patch nodes".into(), role: "r".into() },
                vec!["bob may not start a plan: lacks patch nodes", "the r role"],
            ),
            (
                Denial::MayNotContinuePlan {
                    user: "bob".into(),
                    plan: "p1".into(),
                    lacks: "patch nodes".into(),
                    role: "r".into(),
                },
                vec!["bob may not continue the maintenance plan p1"],
            ),
            (
                Denial::MayNotChange {
                    user: "bob".into(),
                    change: Change::StopDrain,
                    started_by: "alice".into(),
                    lacks: "patch nodes".into(),
                },
                vec!["bob may not stop a drain alice started: lacks patch nodes"],
            ),
            (Denial::MayNotListWindows { user: "bob".into() }, vec!["bob may not list maintenancewindows"]),
            (Denial::WrongWallToken, vec!["not this server's wall token"]),
        ];
        for (denial, words) in cases {
            let english = denial.english();
            for word in words {
                assert!(english.contains(word), "{english:?} lacks {word:?}");
            }
            let wire = serde_json::to_string(&denial).unwrap();
            assert_eq!(serde_json::from_str::<Denial>(&wire).unwrap(), denial, "{wire}");
        }
    }
}
