//! The node view model: what the dashboard shows about a node, trimmed from the API object.

use serde::{Deserialize, Serialize};

/// The status of a node's `Ready` condition, as the node lifecycle controller reads it.
///
/// A missing `Ready` condition counts as `Unknown`: the kubelet (or kwok) has not reported yet, and the node
/// lifecycle controller treats it the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReadyStatus {
    Ready,
    NotReady,
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

/// One node as the node list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSummary {
    pub name: String,
    pub ready: ReadyStatus,
    /// `spec.unschedulable`: the node is cordoned.
    pub unschedulable: bool,
}

impl NodeSummary {
    /// Sorts a node list for display: problems first (NotReady and Unknown), then cordoned nodes, then the rest,
    /// each group by name.
    pub fn sort_for_display(nodes: &mut [NodeSummary]) {
        nodes.sort_by(|a, b| {
            a.display_rank()
                .cmp(&b.display_rank())
                .then_with(|| a.name.cmp(&b.name))
        });
    }

    fn display_rank(&self) -> u8 {
        match (self.ready, self.unschedulable) {
            (ReadyStatus::NotReady | ReadyStatus::Unknown, _) => 0,
            (ReadyStatus::Ready, true) => 1,
            (ReadyStatus::Ready, false) => 2,
        }
    }
}

#[cfg(feature = "k8s")]
mod from_k8s {
    use super::*;
    use k8s_openapi::api::core::v1::Node;

    impl From<&Node> for NodeSummary {
        fn from(node: &Node) -> Self {
            let ready = node
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
                .map(|c| ReadyStatus::from_condition_status(Some(&c.status)))
                .unwrap_or(ReadyStatus::Unknown);
            NodeSummary {
                name: node.metadata.name.clone().unwrap_or_default(),
                ready,
                unschedulable: node
                    .spec
                    .as_ref()
                    .and_then(|s| s.unschedulable)
                    .unwrap_or(false),
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn node(json: serde_json::Value) -> Node {
            serde_json::from_value(json).expect("valid node JSON")
        }

        #[test]
        fn reads_ready_and_cordon_from_the_api_object() {
            let n = node(serde_json::json!({
                "metadata": {"name": "n1"},
                "spec": {"unschedulable": true},
                "status": {"conditions": [
                    {"type": "MemoryPressure", "status": "False"},
                    {"type": "Ready", "status": "True", "reason": "KubeletReady"}
                ]}
            }));
            assert_eq!(
                NodeSummary::from(&n),
                NodeSummary {
                    name: "n1".into(),
                    ready: ReadyStatus::Ready,
                    unschedulable: true
                }
            );
        }

        #[test]
        fn a_node_without_a_ready_condition_is_unknown() {
            let n = node(serde_json::json!({"metadata": {"name": "n2"}}));
            let s = NodeSummary::from(&n);
            assert_eq!(s.ready, ReadyStatus::Unknown);
            assert!(!s.unschedulable);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn condition_status_strings() {
        for (status, want) in [
            (Some("True"), ReadyStatus::Ready),
            (Some("False"), ReadyStatus::NotReady),
            (Some("Unknown"), ReadyStatus::Unknown),
            (Some("true"), ReadyStatus::Unknown),
            (None, ReadyStatus::Unknown),
        ] {
            assert_eq!(
                ReadyStatus::from_condition_status(status),
                want,
                "{status:?}"
            );
        }
    }

    #[test]
    fn display_order_puts_problems_first_then_cordoned() {
        let n = |name: &str, ready, unschedulable| NodeSummary {
            name: name.into(),
            ready,
            unschedulable,
        };
        let mut nodes = vec![
            n("a", ReadyStatus::Ready, false),
            n("b", ReadyStatus::Ready, true),
            n("c", ReadyStatus::Unknown, false),
            n("d", ReadyStatus::NotReady, true),
            n("e", ReadyStatus::Ready, false),
        ];
        NodeSummary::sort_for_display(&mut nodes);
        let names: Vec<_> = nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["c", "d", "b", "a", "e"]);
    }
}
