//! The pod view model: the fields of a pod that drain planning and eviction countdowns read, and nothing else.
//!
//! Trimming happens once, when the server receives a pod, so that caches of many thousands of pods stay small and
//! the browser can run the same rules on the same data.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// `status.phase`. An absent or unrecognised phase reads as `Unknown`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PodPhase {
    Pending,
    Running,
    Succeeded,
    Failed,
    Unknown,
}

impl PodPhase {
    pub fn parse(phase: Option<&str>) -> Self {
        match phase {
            Some("Pending") => Self::Pending,
            Some("Running") => Self::Running,
            Some("Succeeded") => Self::Succeeded,
            Some("Failed") => Self::Failed,
            _ => Self::Unknown,
        }
    }

    /// Succeeded and Failed pods are finished: drain removes them without the usual checks.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed)
    }
}

/// The owner reference marked `controller: true`; other owner references play no part in draining.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ControllerRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
}

impl ControllerRef {
    /// A DaemonSet owner, as kubectl recognises one: kind `DaemonSet` in `apps/v1`.
    pub fn is_daemonset(&self) -> bool {
        self.kind == "DaemonSet" && self.api_version == "apps/v1"
    }

    /// `Kind/name`, the way operators name an owner.
    pub fn label(&self) -> String {
        format!("{}/{}", self.kind, self.name)
    }
}

/// A toleration, kept whole because the eviction countdown needs the first one that matches each taint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Toleration {
    pub key: Option<String>,
    pub operator: Option<String>,
    pub value: Option<String>,
    pub effect: Option<String>,
    pub toleration_seconds: Option<i64>,
}

/// The annotation by which a workload's owner asked that its pods not be disrupted: Karpenter's and the cluster
/// autoscaler's. kubectl ignores both; the preview warns of them, and a drain may be asked to respect them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DoNotDisrupt {
    /// `karpenter.sh/do-not-disrupt: "true"`.
    Karpenter,
    /// `cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`.
    ClusterAutoscaler,
}

impl DoNotDisrupt {
    /// The annotation and the value that ask.
    pub fn annotation(self) -> (&'static str, &'static str) {
        match self {
            Self::Karpenter => ("karpenter.sh/do-not-disrupt", "true"),
            Self::ClusterAutoscaler => ("cluster-autoscaler.kubernetes.io/safe-to-evict", "false"),
        }
    }

    /// The first request among `annotations`, if the owner made one.
    pub fn read(annotations: &BTreeMap<String, String>) -> Option<Self> {
        [Self::Karpenter, Self::ClusterAutoscaler].into_iter().find(|asked| {
            let (key, value) = asked.annotation();
            annotations.get(key).map(String::as_str) == Some(value)
        })
    }
}

/// One pod as Drainboard keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodSummary {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub node_name: Option<String>,
    pub phase: PodPhase,
    /// The `Ready` condition is True.
    pub ready: bool,
    pub controller: Option<ControllerRef>,
    /// Has the `kubernetes.io/config.mirror` annotation: the API's copy of a static pod the kubelet runs.
    pub mirror: bool,
    /// Has at least one `emptyDir` volume, of any medium. Its data is lost when the pod goes.
    pub empty_dir: bool,
    pub deletion_timestamp: Option<Timestamp>,
    pub labels: BTreeMap<String, String>,
    pub tolerations: Vec<Toleration>,
    /// The owner asked that it not be disrupted (kubectl ignores it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub do_not_disrupt: Option<DoNotDisrupt>,
    /// `spec.terminationGracePeriodSeconds`: the longest it takes to stop once evicted (`None`: the API's 30 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_seconds: Option<u32>,
    /// How long it took from its creation to Ready (its `Ready` condition's last transition), while it is Ready:
    /// how long a replacement of its workload should take, which a drain's estimate reads
    /// ([`crate::estimate`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_after_seconds: Option<u32>,
}

impl PodSummary {
    /// The DaemonSet that must be looked up before this pod is planned: its controller, when that is a DaemonSet
    /// and the pod is still running. A finished pod is removed whatever owns it, so it needs no lookup.
    pub fn daemonset_owner(&self) -> Option<&ControllerRef> {
        self.controller.as_ref().filter(|c| c.is_daemonset() && !self.phase.is_terminal())
    }

    /// The key of [`Self::daemonset_owner`]'s lookup, `namespace/name`: one lookup per DaemonSet, shared by its pods.
    pub fn daemonset_key(&self) -> Option<String> {
        self.daemonset_owner().map(|owner| pod_key(&self.namespace, &owner.name))
    }
}

/// What every view of a pod shares: where it is and what it is called.
pub trait PodRef {
    fn namespace(&self) -> &str;
    fn name(&self) -> &str;

    /// `namespace/name`, the way operators write a pod, and the key that pods are matched by across views.
    fn key(&self) -> String {
        pod_key(self.namespace(), self.name())
    }
}

/// Implements [`PodRef`] for a view type with `namespace` and `name` fields.
#[macro_export]
macro_rules! impl_pod_ref {
    ($($ty:ty),+ $(,)?) => {$(
        impl $crate::pod::PodRef for $ty {
            fn namespace(&self) -> &str {
                &self.namespace
            }
            fn name(&self) -> &str {
                &self.name
            }
        }
    )+};
}

impl_pod_ref!(PodSummary);

/// The annotation that marks a mirror pod.
pub const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// `namespace/name`: the one way a namespaced object's key is written.
pub fn pod_key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

/// A pod's tolerations, as the countdowns and the capacity check read them.
#[cfg(feature = "k8s")]
pub fn tolerations(tolerations: Option<&Vec<k8s_openapi::api::core::v1::Toleration>>) -> Vec<Toleration> {
    tolerations
        .into_iter()
        .flatten()
        .map(|t| Toleration {
            key: t.key.clone(),
            operator: t.operator.clone(),
            value: t.value.clone(),
            effect: t.effect.clone(),
            toleration_seconds: t.toleration_seconds,
        })
        .collect()
}

#[cfg(feature = "k8s")]
mod from_k8s {
    use super::*;
    use k8s_openapi::api::core::v1::Pod;

    impl From<&Pod> for PodSummary {
        fn from(pod: &Pod) -> Self {
            let meta = &pod.metadata;
            let spec = pod.spec.as_ref();
            let status = pod.status.as_ref();
            let controller = meta.owner_references.iter().flatten().find(|o| o.controller == Some(true)).map(|o| {
                ControllerRef { api_version: o.api_version.clone(), kind: o.kind.clone(), name: o.name.clone() }
            });
            let ready_condition = status
                .and_then(|s| s.conditions.as_ref())
                .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready" && c.status == "True"));
            let ready = ready_condition.is_some();
            // Untrusted numbers: a negative or absurd value reads as unknown, never as a wrap-around.
            let ready_after_seconds = ready_condition
                .and_then(|c| c.last_transition_time.as_ref())
                .zip(meta.creation_timestamp.as_ref())
                .and_then(|(ready, created)| u32::try_from(ready.0.duration_since(created.0).as_secs()).ok())
                .filter(|s| *s <= crate::estimate::MAX_READY_SECONDS);
            let grace_seconds =
                spec.and_then(|s| s.termination_grace_period_seconds).and_then(|g| u32::try_from(g).ok());
            PodSummary {
                namespace: meta.namespace.clone().unwrap_or_default(),
                name: meta.name.clone().unwrap_or_default(),
                uid: meta.uid.clone().unwrap_or_default(),
                node_name: spec.and_then(|s| s.node_name.clone()),
                phase: PodPhase::parse(status.and_then(|s| s.phase.as_deref())),
                ready,
                controller,
                mirror: meta.annotations.as_ref().is_some_and(|a| a.contains_key(MIRROR_ANNOTATION)),
                empty_dir: spec
                    .and_then(|s| s.volumes.as_ref())
                    .is_some_and(|vs| vs.iter().any(|v| v.empty_dir.is_some())),
                deletion_timestamp: meta.deletion_timestamp.as_ref().map(|t| t.0),
                labels: meta.labels.clone().unwrap_or_default(),
                tolerations: super::tolerations(spec.and_then(|s| s.tolerations.as_ref())),
                do_not_disrupt: meta.annotations.as_ref().and_then(DoNotDisrupt::read),
                grace_seconds,
                ready_after_seconds,
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn trims_a_pod_to_what_drain_reads() {
            let pod: Pod = serde_json::from_value(serde_json::json!({
                "metadata": {
                    "name": "web-1", "namespace": "shop", "uid": "u1",
                    "labels": {"app": "web"},
                    "annotations": {"kubernetes.io/config.mirror": "x"},
                    "ownerReferences": [
                        {"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": "n"},
                        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "r", "controller": true}
                    ]
                },
                "spec": {
                    "nodeName": "n1",
                    "containers": [{"name": "c"}],
                    "volumes": [{"name": "cfg", "configMap": {"name": "x"}}, {"name": "s", "emptyDir": {"medium": "Memory"}}],
                    "tolerations": [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]
                },
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
            }))
            .unwrap();
            let s = PodSummary::from(&pod);
            assert_eq!(s.key(), "shop/web-1");
            assert_eq!(s.node_name.as_deref(), Some("n1"));
            assert_eq!(s.phase, PodPhase::Running);
            assert!(s.ready && s.mirror && s.empty_dir);
            assert_eq!(s.controller.unwrap().name, "web-abc", "only the controller owner counts");
            assert_eq!(s.tolerations[0].toleration_seconds, Some(300));
            assert_eq!((s.grace_seconds, s.ready_after_seconds), (None, None), "not said: the API's defaults");
        }

        #[test]
        fn reads_the_grace_period_and_the_time_to_ready_as_untrusted_numbers() {
            let pod = |grace: i64, created: &str, ready: &str| -> PodSummary {
                let pod: Pod = serde_json::from_value(serde_json::json!({
                    "metadata": {"name": "p", "namespace": "ns", "creationTimestamp": created},
                    "spec": {"containers": [{"name": "c"}], "terminationGracePeriodSeconds": grace},
                    "status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": ready}]}
                }))
                .unwrap();
                PodSummary::from(&pod)
            };
            let s = pod(45, "2026-01-01T00:00:00Z", "2026-01-01T00:00:07Z");
            assert_eq!((s.grace_seconds, s.ready_after_seconds), (Some(45), Some(7)));
            let bad = pod(-1, "2026-01-01T00:00:07Z", "2026-01-01T00:00:00Z");
            assert_eq!((bad.grace_seconds, bad.ready_after_seconds), (None, None), "negative: unknown");
            let late = pod(i64::MAX, "2026-01-01T00:00:00Z", "2026-01-03T00:00:00Z");
            assert_eq!((late.grace_seconds, late.ready_after_seconds), (None, None), "past u32, and Ready days later");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(kind: &str, api_version: &str, phase: PodPhase) -> PodSummary {
        PodSummary {
            namespace: "kube-system".into(),
            name: "agent-x1".into(),
            uid: "u".into(),
            node_name: None,
            phase,
            ready: true,
            controller: Some(ControllerRef {
                api_version: api_version.into(),
                kind: kind.into(),
                name: "agent".into(),
            }),
            mirror: false,
            empty_dir: false,
            deletion_timestamp: None,
            labels: BTreeMap::new(),
            tolerations: Vec::new(),
            do_not_disrupt: None,
            grace_seconds: None,
            ready_after_seconds: None,
        }
    }

    #[test]
    fn only_a_running_daemonset_pod_needs_a_lookup() {
        let running = pod("DaemonSet", "apps/v1", PodPhase::Running);
        assert_eq!(running.daemonset_key().as_deref(), Some("kube-system/agent"));
        assert_eq!(running.key(), "kube-system/agent-x1");
        assert_eq!(running.controller.as_ref().map(ControllerRef::label).as_deref(), Some("DaemonSet/agent"));
        assert_eq!(pod("DaemonSet", "apps/v1", PodPhase::Succeeded).daemonset_owner(), None, "finished");
        assert_eq!(pod("DaemonSet", "extensions/v1beta1", PodPhase::Running).daemonset_owner(), None, "old group");
        assert_eq!(pod("ReplicaSet", "apps/v1", PodPhase::Running).daemonset_key(), None);
    }
}
