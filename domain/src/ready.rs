//! A node's Ready status: what the card's badge, the eviction countdown, the map and a rollout all read first.

use serde::{Deserialize, Serialize};

/// The status of a node's `Ready` condition, as the node lifecycle controller reads it.
///
/// A missing `Ready` condition counts as `Unknown`: the kubelet (or kwok) has not reported yet, and the node
/// lifecycle controller treats it the same way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReadyStatus {
    Ready,
    NotReady,
    #[default]
    Unknown,
}

impl ReadyStatus {
    /// Reads a condition's `status` string (`"True"`, `"False"` or anything else).
    pub fn from_condition_status(status: Option<&str>) -> Self {
        match status {
            Some("True") => Self::Ready,
            Some("False") => Self::NotReady,
            _ => Self::Unknown,
        }
    }

    /// The label shown on the badge, matching what `kubectl get nodes` prints.
    pub fn label(self) -> &'static str {
        match self {
            Self::Ready => "Ready",
            Self::NotReady => "NotReady",
            Self::Unknown => "Unknown",
        }
    }
}
