//! What another tool is doing to a node, as its markers say ([`Doing`]), and its name in a node's history.

use serde::{Deserialize, Serialize};

/// What the actor is doing to the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Doing {
    /// Cordoned, with nothing to say by whom.
    Cordoned,
    /// About to be drained and deleted (the cluster autoscaler's scale-down).
    Removing,
    /// Marked as a soft candidate for removal; nothing is evicted yet.
    RemovalCandidate,
    /// Chosen for disruption (Karpenter: drift, emptiness or consolidation; replaced or removed).
    Disrupting,
    /// A reboot under way (kured, with its node annotations on).
    Rebooting,
    /// Maintenance under way.
    Maintenance,
    /// Maintenance expected: `at` is when, where the marker says.
    MaintenanceScheduled,
    /// The machine is about to be terminated by its cloud.
    Terminating,
    /// Due to be replaced by a newer machine or image (a node group or machine rollout).
    Replacing,
    /// An upgrade could not drain it and left it cordoned.
    Quarantined,
    /// Being drained.
    Draining,
    /// Drained.
    Drained,
}

impl Doing {
    /// Every kind of work.
    pub const ALL: [Doing; 12] = [
        Doing::Cordoned,
        Doing::Removing,
        Doing::RemovalCandidate,
        Doing::Disrupting,
        Doing::Rebooting,
        Doing::Maintenance,
        Doing::MaintenanceScheduled,
        Doing::Terminating,
        Doing::Replacing,
        Doing::Quarantined,
        Doing::Draining,
        Doing::Drained,
    ];

    /// Its name, as a node's history records it.
    pub fn name(self) -> &'static str {
        match self {
            Doing::Cordoned => "Cordoned",
            Doing::Removing => "Removing",
            Doing::RemovalCandidate => "RemovalCandidate",
            Doing::Disrupting => "Disrupting",
            Doing::Rebooting => "Rebooting",
            Doing::Maintenance => "Maintenance",
            Doing::MaintenanceScheduled => "MaintenanceScheduled",
            Doing::Terminating => "Terminating",
            Doing::Replacing => "Replacing",
            Doing::Quarantined => "Quarantined",
            Doing::Draining => "Draining",
            Doing::Drained => "Drained",
        }
    }

    /// The work a history's name stands for; `None` for anything else (the history is anyone's claim).
    pub fn from_name(name: &str) -> Option<Doing> {
        Doing::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Whether this work cordons the node itself, so that a cordon beside it is explained by it.
    pub(super) fn cordons(self) -> bool {
        !matches!(self, Doing::Cordoned | Doing::RemovalCandidate | Doing::MaintenanceScheduled | Doing::Replacing)
    }
}
