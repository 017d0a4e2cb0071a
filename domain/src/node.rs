//! The node view model: what the dashboard shows about a node, trimmed from the API object.

use serde::{Deserialize, Serialize};

use crate::ReadyStatus;

pub use crate::condition::{ApiCondition, Condition, ConditionHealth};

/// When one pod on a tainted node goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodEta {
    pub namespace: String,
    pub name: String,
    pub eviction: crate::eviction::PodEviction,
}

crate::impl_pod_ref!(PodEta);

/// Everything a node card shows. The server builds it from the Node, its Lease and the pods on it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeCard {
    pub name: String,
    pub roles: Vec<String>,
    pub zone: Option<String>,
    pub kubelet_version: Option<String>,
    /// `status.nodeInfo`'s kernel, OS image and container runtime: what the versions view counts, and what a
    /// maintenance plan's verification compares with what it expects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_runtime: Option<String>,
    /// `status.nodeInfo.bootID`: new at each boot, so a rollout can tell a node came back from a reboot.
    #[serde(default)]
    pub boot_id: Option<String>,
    pub created: Option<jiff::Timestamp>,
    pub ready: ReadyStatus,
    /// When `Ready` last changed: the start of the guide's eviction countdown.
    pub ready_since: Option<jiff::Timestamp>,
    /// `Ready`'s `lastHeartbeatTime`.
    pub ready_heartbeat: Option<jiff::Timestamp>,
    /// The node Lease's `renewTime`: the liveness signal the node lifecycle controller reads.
    pub lease_renewed: Option<jiff::Timestamp>,
    pub unschedulable: bool,
    pub taints: Vec<crate::eviction::Taint>,
    /// `status.allocatable` for cpu, memory and pods, as quantities.
    pub allocatable: std::collections::BTreeMap<String, String>,
    pub conditions: Vec<Condition>,
    /// Pods on the node that have not finished.
    pub pod_count: usize,
    pub labels: std::collections::BTreeMap<String, String>,
    /// For a node with `NoExecute` taints: when each of its pods goes. Empty otherwise.
    pub pod_evictions: Vec<PodEta>,
    /// The latest drain recorded on the node (annotation `drainboard.dev/drain`), by any server.
    pub drain_record: Option<crate::progress::DrainRecord>,
    /// Who cordoned the node, when and why (annotation `drainboard.dev/cordon`), while it is cordoned.
    #[serde(default)]
    pub cordon_record: Option<crate::progress::CordonRecord>,
    /// The node's sign that it needs a reboot, by the signals the server was given ([`crate::reboot`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reboot: Option<crate::reboot::RebootSign>,
    /// Other actors seen at work on the node, by their markers ([`crate::actor`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actors: Vec<crate::actor::Sighting>,
    /// Unfinished pods per namespace: what [`Self::visible_to`] counts for a person who may list pods in some
    /// namespaces only. Kept on the server; never sent.
    #[serde(skip)]
    pub pods_by_namespace: std::collections::BTreeMap<String, usize>,
}

impl NodeCard {
    /// Whether the node's Lease was last renewed more than `grace_seconds` before `now`. A node without a Lease has
    /// nothing to judge here.
    pub fn lease_stale(&self, now: jiff::Timestamp, grace_seconds: i64) -> bool {
        older_than(self.lease_renewed, now, grace_seconds)
    }

    /// Whether `Ready`'s heartbeat is older than `grace_seconds` at `now`, judged only for a node without a Lease.
    /// The Lease is the node's heartbeat: with one, kubelets refresh `lastHeartbeatTime` only when the status
    /// changes or every few minutes, so its age alone means nothing.
    pub fn heartbeat_stale(&self, now: jiff::Timestamp, grace_seconds: i64) -> bool {
        self.lease_renewed.is_none() && older_than(self.ready_heartbeat, now, grace_seconds)
    }

    /// The card as a person who may list pods only in `namespaces` sees it: the node as it is, but only their
    /// pods counted and timed.
    pub fn visible_to(&self, namespaces: &std::collections::BTreeSet<String>) -> NodeCard {
        let mut card = self.clone();
        card.pods_by_namespace.retain(|namespace, _| namespaces.contains(namespace));
        card.pod_count = card.pods_by_namespace.values().sum();
        card.pod_evictions.retain(|pod| namespaces.contains(&pod.namespace));
        card
    }

    /// Whether the node has stood cordoned longer than `limit_seconds` with no drain running on it (`draining`: a
    /// live drain, on this server or another's Lease): a cordon someone forgot, which keeps capacity out of the
    /// cluster. The drain record on the node is not asked, since one left saying "running" by a server that stopped
    /// would silence the warning for ever. Judged from the cordon record, so only cordons made through Drainboard
    /// are timed.
    pub fn cordon_forgotten(&self, now: jiff::Timestamp, limit_seconds: u64, draining: bool) -> bool {
        self.unschedulable && !draining && self.cordon_record.as_ref().is_some_and(|c| c.older_than(now, limit_seconds))
    }
}

#[cfg(feature = "k8s")]
impl NodeCard {
    /// `spec.taints`, as the countdowns and the capacity check read them.
    pub fn taints_of(node: &k8s_openapi::api::core::v1::Node) -> Vec<crate::eviction::Taint> {
        node.spec
            .as_ref()
            .and_then(|s| s.taints.as_ref())
            .map(|ts| {
                ts.iter()
                    .map(|t| crate::eviction::Taint {
                        key: t.key.clone(),
                        value: t.value.clone(),
                        effect: t.effect.clone(),
                        time_added: t.time_added.as_ref().map(|x| x.0),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The card of `node`, without Lease and pod count (the caller has those), and without a reboot sign.
    pub fn from_node(node: &k8s_openapi::api::core::v1::Node) -> Self {
        Self::read(node, &[])
    }

    /// The card of `node`, with its reboot sign by `reboot` (the server's `--reboot-required`).
    pub fn read(node: &k8s_openapi::api::core::v1::Node, reboot: &[crate::reboot::Signal]) -> Self {
        let labels = node.metadata.labels.clone().unwrap_or_default();
        let status = node.status.as_ref();
        let api_conditions = status.and_then(|s| s.conditions.clone()).unwrap_or_default();
        let conditions: Vec<Condition> = api_conditions.iter().map(Condition::from).collect();
        let ready = conditions.iter().find(|c| c.type_ == "Ready");
        let unschedulable = node.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false);
        let no_annotations = std::collections::BTreeMap::new();
        let annotations = node.metadata.annotations.as_ref().unwrap_or(&no_annotations);
        // A record left on a node uncordoned by other means says nothing true any more.
        let cordon_record = annotations
            .get(crate::progress::CORDON_ANNOTATION)
            .and_then(|text| crate::progress::CordonRecord::parse(text))
            .filter(|_| unschedulable);
        let taints = Self::taints_of(node);
        let actors = crate::actor::sightings(&crate::actor::Marks {
            labels: &labels,
            annotations,
            taints: &taints,
            conditions: &conditions,
            unschedulable,
            cordon_is_ours: cordon_record.is_some(),
        });
        let reboot = crate::reboot::sign(
            reboot,
            &crate::reboot::Marks { labels: &labels, annotations, conditions: &conditions },
        );
        NodeCard {
            name: node.metadata.name.clone().unwrap_or_default(),
            roles: roles(&labels),
            zone: labels.get("topology.kubernetes.io/zone").cloned(),
            kubelet_version: status.and_then(|s| s.node_info.as_ref()).map(|i| i.kubelet_version.clone()),
            kernel_version: status.and_then(|s| s.node_info.as_ref()).map(|i| i.kernel_version.clone()),
            os_image: status.and_then(|s| s.node_info.as_ref()).map(|i| i.os_image.clone()),
            container_runtime: status.and_then(|s| s.node_info.as_ref()).map(|i| i.container_runtime_version.clone()),
            boot_id: status.and_then(|s| s.node_info.as_ref()).map(|i| i.boot_id.clone()).filter(|b| !b.is_empty()),
            created: node.metadata.creation_timestamp.as_ref().map(|t| t.0),
            ready: ready.map_or(ReadyStatus::Unknown, |c| ReadyStatus::from_condition_status(Some(&c.status))),
            ready_since: ready.and_then(|c| c.last_transition),
            ready_heartbeat: ready.and_then(|c| c.last_heartbeat),
            lease_renewed: None,
            unschedulable,
            taints,
            allocatable: status
                .and_then(|s| s.allocatable.as_ref())
                .map(|a| {
                    a.iter()
                        .filter(|(k, _)| matches!(k.as_str(), "cpu" | "memory" | "pods"))
                        .map(|(k, v)| (k.clone(), v.0.clone()))
                        .collect()
                })
                .unwrap_or_default(),
            conditions,
            pod_count: 0,
            pods_by_namespace: Default::default(),
            labels,
            pod_evictions: Vec::new(),
            drain_record: annotations
                .get(crate::progress::RECORD_ANNOTATION)
                .and_then(|text| serde_json::from_str(text).ok()),
            cordon_record,
            reboot,
            actors,
        }
    }
}

/// The roles of a node, from its `node-role.kubernetes.io/<role>` labels (and the older `kubernetes.io/role`),
/// sorted, as `kubectl get nodes` shows them.
pub fn roles(labels: &std::collections::BTreeMap<String, String>) -> Vec<String> {
    let mut roles: Vec<String> = labels
        .iter()
        .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
            Some(role) if !role.is_empty() => Some(role.to_string()),
            _ if k == "kubernetes.io/role" && !v.is_empty() => Some(v.clone()),
            _ => None,
        })
        .collect();
    roles.sort();
    roles.dedup();
    roles
}

/// Whether `time` is more than `seconds` before `now`; never for no time at all.
fn older_than(time: Option<jiff::Timestamp>, now: jiff::Timestamp, seconds: i64) -> bool {
    time.is_some_and(|t| now.duration_since(t).as_secs() > seconds)
}

#[cfg(test)]
mod visibility_tests {
    use super::*;
    use crate::eviction::PodEviction;

    #[test]
    fn a_person_limited_to_some_namespaces_sees_only_their_pods() {
        let eta = |namespace: &str, name: &str| PodEta {
            namespace: namespace.into(),
            name: name.into(),
            eviction: PodEviction::Immediately,
        };
        let card = NodeCard {
            name: "n1".into(),
            unschedulable: true,
            pod_count: 5,
            pods_by_namespace: [("team-a".to_string(), 2), ("team-b".to_string(), 3)].into(),
            pod_evictions: vec![eta("team-a", "web"), eta("team-b", "db")],
            ..Default::default()
        };
        let seen = card.visible_to(&["team-a".to_string(), "elsewhere".to_string()].into());
        assert_eq!(seen.pod_count, 2);
        assert_eq!(seen.pod_evictions, vec![eta("team-a", "web")]);
        assert!(seen.unschedulable, "the node itself is as it is");
        assert_eq!(card.visible_to(&Default::default()).pod_count, 0);
        let text = serde_json::to_string(&card).expect("a card serializes");
        assert!(!text.contains("pods_by_namespace"), "the namespaces' counts stay on the server");
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
            assert_eq!(ReadyStatus::from_condition_status(status), want, "{status:?}");
        }
    }

    #[test]
    fn condition_colours_mean_something() {
        let c = |t: &str, s: &str| Condition {
            type_: t.into(),
            status: s.into(),
            reason: None,
            message: None,
            last_heartbeat: None,
            last_transition: None,
        };
        assert_eq!(c("Ready", "True").health(), ConditionHealth::Good);
        assert_eq!(c("Ready", "False").health(), ConditionHealth::Bad);
        assert_eq!(c("Ready", "Unknown").health(), ConditionHealth::Unknown);
        assert_eq!(c("MemoryPressure", "True").health(), ConditionHealth::Bad);
        assert_eq!(c("DiskPressure", "False").health(), ConditionHealth::Good);
        assert_eq!(c("NetworkUnavailable", "True").health(), ConditionHealth::Bad);
    }

    #[test]
    fn roles_come_from_labels() {
        let labels = [
            ("node-role.kubernetes.io/worker", ""),
            ("node-role.kubernetes.io/gpu", "true"),
            ("kubernetes.io/role", "worker"),
            ("node-role.kubernetes.io/", "x"),
            ("app", "web"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(roles(&labels), ["gpu", "worker"]);
    }

    #[test]
    fn heartbeats_are_stale_past_the_grace_period_and_the_lease_comes_first() {
        let now: jiff::Timestamp = "2026-11-30T12:00:00Z".parse().unwrap();
        let ago = |secs: i64| Some(now - jiff::SignedDuration::from_secs(secs));
        let card =
            |lease, heartbeat| NodeCard { lease_renewed: lease, ready_heartbeat: heartbeat, ..Default::default() };
        assert!(card(ago(41), None).lease_stale(now, 40));
        assert!(!card(ago(40), None).lease_stale(now, 40), "strictly older than the grace period");
        assert!(!card(None, ago(3600)).lease_stale(now, 40), "no Lease, nothing to judge");
        assert!(card(None, ago(41)).heartbeat_stale(now, 40), "without a Lease, Ready's heartbeat is judged");
        assert!(!card(None, ago(40)).heartbeat_stale(now, 40));
        assert!(!card(ago(1), ago(3600)).heartbeat_stale(now, 40), "with a Lease, Ready's heartbeat may be old");
        assert!(!card(None, None).heartbeat_stale(now, 40));
        assert!(!card(ago(-5), None).lease_stale(now, 40), "a clock ahead of the server's is not stale");
    }

    #[cfg(feature = "k8s")]
    fn node(json: serde_json::Value) -> k8s_openapi::api::core::v1::Node {
        serde_json::from_value(json).expect("valid node JSON")
    }

    #[cfg(feature = "k8s")]
    #[test]
    fn reads_ready_and_cordon_from_the_api_object() {
        let card = NodeCard::from_node(&node(serde_json::json!({
            "metadata": {"name": "n1"},
            "spec": {"unschedulable": true},
            "status": {"conditions": [
                {"type": "MemoryPressure", "status": "False"},
                {"type": "Ready", "status": "True", "reason": "KubeletReady"}
            ]}
        })));
        assert_eq!((card.name.as_str(), card.ready, card.unschedulable), ("n1", ReadyStatus::Ready, true));
    }

    #[cfg(feature = "k8s")]
    #[test]
    fn conditions_are_written_back_as_the_api_wrote_them() {
        let conditions = serde_json::json!([
            {"lastHeartbeatTime": "2026-11-30T10:00:00Z", "lastTransitionTime": "2026-11-30T09:00:00Z",
             "message": "kubelet is posting ready status", "reason": "KubeletReady", "status": "True", "type": "Ready"},
            {"status": "False", "type": "MemoryPressure"}
        ]);
        let card = NodeCard::from_node(&node(
            serde_json::json!({"metadata": {"name": "n1"}, "status": {"conditions": conditions}}),
        ));
        let api: Vec<ApiCondition> = card.conditions.iter().map(Condition::as_api).collect();
        assert_eq!(serde_json::to_value(&api).unwrap(), conditions);
        assert_eq!(
            serde_json::to_string(&api[1]).unwrap(),
            r#"{"status":"False","type":"MemoryPressure"}"#,
            "the API's field order, and no empty fields"
        );
    }

    #[cfg(feature = "k8s")]
    #[test]
    fn a_node_without_a_ready_condition_is_unknown() {
        let card = NodeCard::from_node(&node(serde_json::json!({"metadata": {"name": "n2"}})));
        assert_eq!(card.ready, ReadyStatus::Unknown);
        assert!(!card.unschedulable);
    }

    #[test]
    fn a_cordon_is_forgotten_only_when_old_and_no_drain_runs() {
        use crate::progress::{CordonRecord, DrainRecord, DrainState};
        let now: jiff::Timestamp = "2026-11-30T12:00:00Z".parse().unwrap();
        let old = CordonRecord { by: "alice".into(), at: "2026-11-28T12:00:00Z".parse().unwrap(), reason: None };
        let card = NodeCard { unschedulable: true, cordon_record: Some(old.clone()), ..Default::default() };
        assert!(card.cordon_forgotten(now, 24 * 3600, false));
        assert!(!card.cordon_forgotten(now, 3 * 24 * 3600, false), "not past a longer limit");
        let uncordoned = NodeCard { unschedulable: false, ..card.clone() };
        assert!(!uncordoned.cordon_forgotten(now, 24 * 3600, false));
        assert!(!card.cordon_forgotten(now, 24 * 3600, true), "a drain running on it is not forgetting it");
        // A record left saying "running" by a server that stopped is no drain.
        let stuck = NodeCard {
            drain_record: Some(DrainRecord {
                id: "d".into(),
                started_by: "alice".into(),
                started_at: "2026-11-28T12:00:00Z".parse().unwrap(),
                reason: None,
                options: Default::default(),
                state: DrainState::Evicting,
                pods_left: 1,
                finished_at: None,
            }),
            ..card.clone()
        };
        assert!(stuck.cordon_forgotten(now, 24 * 3600, false), "a stuck record does not silence the warning");
        let unrecorded = NodeCard { cordon_record: None, ..card };
        assert!(!unrecorded.cordon_forgotten(now, 24 * 3600, false), "a cordon made elsewhere is not timed");
    }
}
