//! The recognition table, row by row: each actor's real marker, the values that must not match, and the cordon
//! that is or is not explained.

use super::*;

/// A node's marks, as a line of the table writes them.
#[derive(Default)]
struct Node {
    labels: BTreeMap<String, String>,
    annotations: BTreeMap<String, String>,
    taints: Vec<Taint>,
    conditions: Vec<Condition>,
    cordoned: bool,
    ours: bool,
}

impl Node {
    fn marks(&self) -> Marks<'_> {
        Marks {
            labels: &self.labels,
            annotations: &self.annotations,
            taints: &self.taints,
            conditions: &self.conditions,
            unschedulable: self.cordoned,
            cordon_is_ours: self.ours,
        }
    }
}

/// A node's marks in a line: `t:KEY=VALUE` a taint (`t:KEY` without a value), `l:KEY=VALUE` a label,
/// `a:KEY=VALUE` an annotation, `c:TYPE=STATUS/REASON` a condition, `cordoned` and `ours` the cordon and its
/// Drainboard record.
fn marks_of(line: &str) -> Node {
    let mut node = Node::default();
    for word in line.split_whitespace() {
        let (kind, rest) = word.split_once(':').unwrap_or((word, ""));
        let (key, value) = rest.split_once('=').map_or((rest, None), |(k, v)| (k, Some(v)));
        let value_or_empty = value.unwrap_or_default().to_string();
        match kind {
            "t" => node.taints.push(Taint {
                key: key.into(),
                value: value.map(String::from),
                effect: "NoSchedule".into(),
                time_added: Some(Timestamp::from_second(1_800_000_000).unwrap()),
            }),
            "l" => {
                node.labels.insert(key.to_string(), value_or_empty);
            }
            "a" => {
                node.annotations.insert(key.to_string(), value_or_empty);
            }
            "c" => {
                let (status, reason) = value_or_empty.split_once('/').unwrap_or((value_or_empty.as_str(), ""));
                node.conditions.push(Condition {
                    type_: key.into(),
                    status: status.into(),
                    reason: Some(reason.to_string()).filter(|r| !r.is_empty()),
                    message: None,
                    last_heartbeat: None,
                    last_transition: Some(Timestamp::from_second(1_800_000_100).unwrap()),
                });
            }
            "cordoned" => node.cordoned = true,
            "ours" => node.ours = true,
            other => panic!("unknown mark {other}"),
        }
    }
    node
}

/// The sightings in a line: `actor-id:Doing@unix-seconds`, `!` after a stale one.
fn seen(line: &str) -> String {
    sightings(&marks_of(line).marks())
        .iter()
        .map(|s| {
            let at = s.at.map_or(String::new(), |t| format!("@{}", t.as_second()));
            format!("{}:{:?}{at}{}", s.actor.id(), s.doing, if s.stale { "!" } else { "" })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn each_actor_is_known_by_its_own_marker() {
    let rows: &[(&str, &str)] = &[
        // Nothing at work.
        ("", ""),
        ("l:kubernetes.io/hostname=n1 l:karpenter.sh/nodepool=default l:eks.amazonaws.com/nodegroup=ng", ""),
        // A bare cordon: kubectl, or a tool that leaves no trace. Timed by the unschedulable taint.
        ("cordoned", "kubectl:Cordoned"),
        ("cordoned t:node.kubernetes.io/unschedulable", "kubectl:Cordoned@1800000000"),
        // Drainboard's own cordon is no one else's.
        ("cordoned ours", ""),
        // The cluster autoscaler: the taints' values are Unix seconds.
        ("cordoned t:ToBeDeletedByClusterAutoscaler=1700000000", "cluster-autoscaler:Removing@1700000000"),
        ("t:DeletionCandidateOfClusterAutoscaler=1700000001", "cluster-autoscaler:RemovalCandidate@1700000001"),
        ("t:ToBeDeletedByClusterAutoscaler=soon", "cluster-autoscaler:Removing"),
        // A candidate does not cordon: a cordon beside it is someone else's.
        ("cordoned t:DeletionCandidateOfClusterAutoscaler=1", "cluster-autoscaler:RemovalCandidate@1 kubectl:Cordoned"),
        // Karpenter: the taint has no value; when is when it was added.
        ("cordoned t:karpenter.sh/disrupted", "karpenter:Disrupting@1800000000"),
        // kured, with --annotate-nodes: an RFC 3339 time.
        ("cordoned a:weave.works/kured-reboot-in-progress=2026-12-07T01:02:03Z", "kured:Rebooting@1796605323"),
        ("a:weave.works/kured-most-recent-reboot-needed=2026-12-07T01:02:03Z", ""),
        // The node-maintenance operator's taint.
        ("cordoned t:medik8s.io/drain", "node-maintenance-operator:Maintenance@1800000000"),
        // Cluster API: an outdated machine, due to be replaced; its own drain only cordons.
        ("t:node.cluster.x-k8s.io/outdated-revision", "cluster-api:Replacing@1800000000"),
        // GKE: maintenance due at a time the label gives; active; termination.
        ("l:cloud.google.com/scheduled-maintenance-time=1900000000", "gke:MaintenanceScheduled@1900000000"),
        ("l:cloud.google.com/active-node-maintenance=ONGOING", "gke:Maintenance"),
        ("l:cloud.google.com/active-node-maintenance=DONE", ""),
        ("cordoned t:cloud.google.com/impending-node-termination", "gke:Terminating@1800000000"),
        // AKS: only the quarantine value; the auto-drain taint.
        ("cordoned l:kubernetes.azure.com/upgrade-status=Quarantined", "aks:Quarantined"),
        ("l:kubernetes.azure.com/upgrade-status=Upgraded", ""),
        ("cordoned t:remediator.kubernetes.azure.com/unschedulable", "aks:Draining@1800000000"),
        // EKS: the node group's taint, only with its value.
        ("t:eks.amazonaws.com/nodegroup=unschedulable", "eks:Replacing@1800000000"),
        ("t:eks.amazonaws.com/nodegroup=other", ""),
        // Lifecycle conditions: kubectl's proposed reasons name kubectl; Drainboard's own are skipped.
        ("cordoned c:DrainInProgress=True/KubectlDrainStarted", "kubectl-drain:Draining@1800000100"),
        ("cordoned c:Drained=True/KubectlDrainCompleted", "kubectl-drain:Drained@1800000100"),
        ("cordoned c:DrainInProgress=True/DrainboardDrain", "kubectl:Cordoned"),
        ("cordoned ours c:DrainInProgress=True/DrainboardDrain", ""),
        ("c:DrainInProgress=False/KubectlDrainCompleted", ""),
        ("c:MaintenancePlanned=True/MaintenanceWindow", "another-tool:MaintenanceScheduled@1800000100"),
        ("cordoned c:MaintenanceInProgress=True/AdminRequested", "another-tool:Maintenance@1800000100"),
        // A drain claimed on a node that is not cordoned is likely left behind.
        ("c:DrainInProgress=True/AdminRequested", "another-tool:Draining@1800000100!"),
        // Two actors at once, in the table's order.
        (
            "cordoned ours t:ToBeDeletedByClusterAutoscaler=5 t:karpenter.sh/disrupted",
            "cluster-autoscaler:Removing@5 karpenter:Disrupting@1800000000",
        ),
    ];
    for (line, want) in rows {
        assert_eq!(seen(line), *want, "marks: {line:?}");
    }
}

#[test]
fn a_writers_words_are_kept_short() {
    let condition = Condition {
        type_: "DrainInProgress".into(),
        status: "True".into(),
        reason: Some("AdminRequested".into()),
        message: Some("é".repeat(500)),
        last_heartbeat: None,
        last_transition: None,
    };
    let empty = BTreeMap::new();
    let conditions = [condition];
    let marks = Marks {
        labels: &empty,
        annotations: &empty,
        taints: &[],
        conditions: &conditions,
        unschedulable: true,
        cordon_is_ours: false,
    };
    let detail = sightings(&marks)[0].detail.clone().unwrap();
    assert_eq!(detail.chars().count(), DETAIL_CHARS + 1);
    assert!(detail.starts_with("AdminRequested: é"));
    assert!(detail.ends_with('…'));
}

#[test]
fn actors_at_work_counts_each_once_and_drainboard_when_ours() {
    let node = marks_of(
        "cordoned t:ToBeDeletedByClusterAutoscaler=5 t:DeletionCandidateOfClusterAutoscaler=4 t:karpenter.sh/disrupted",
    );
    let seen = sightings(&node.marks());
    assert_eq!(actors_at_work(&seen, false), 2);
    assert_eq!(actors_at_work(&seen, true), 3);
    assert_eq!(actors_at_work(&[], true), 1);
}

#[test]
fn ids_name_one_actor_each() {
    for actor in Actor::ALL {
        assert_eq!(Actor::from_id(actor.id()), Some(actor), "{actor:?}");
    }
    assert_eq!(Actor::from_id(" kured "), Some(Actor::Kured));
    assert_eq!(Actor::from_id("Kured"), None);
}

#[test]
fn an_uncordon_undoes_only_the_tools_that_cordon_and_needs_each_named() {
    let undone = |line: &str| undone_by_uncordon(&sightings(&marks_of(line).marks()));
    assert_eq!(undone("cordoned"), vec![], "a cordon nobody recorded names no tool");
    assert_eq!(undone("cordoned ours"), vec![]);
    assert_eq!(
        undone("cordoned t:DeletionCandidateOfClusterAutoscaler=1"),
        vec![],
        "a candidate is not cordoned by it"
    );
    assert_eq!(undone("cordoned ours t:ToBeDeletedByClusterAutoscaler=1"), vec![Actor::ClusterAutoscaler]);
    let two = undone(
        "cordoned t:ToBeDeletedByClusterAutoscaler=1 t:karpenter.sh/disrupted t:DeletionCandidateOfClusterAutoscaler=1",
    );
    assert_eq!(two, vec![Actor::ClusterAutoscaler, Actor::Karpenter]);
    assert!(!confirmed(&two, None));
    assert!(!confirmed(&two, Some("cluster-autoscaler")), "each must be named");
    assert!(confirmed(&two, Some("cluster-autoscaler, karpenter")));
    assert!(confirmed(&two, Some("karpenter cluster-autoscaler")));
    assert!(!confirmed(&two, Some("Karpenter, cluster-autoscaler")), "the name exactly");
    assert!(confirmed(&[], None), "nothing to confirm");
}

#[test]
fn the_cache_keeps_only_the_annotations_the_table_reads_and_only_short() {
    let key = "weave.works/kured-reboot-in-progress";
    assert!(keeps_annotation(key, "2026-12-07T10:02:03+09:00"));
    assert!(keeps_annotation(key, &"x".repeat(ANNOTATION_BYTES)));
    assert!(!keeps_annotation(key, &"x".repeat(ANNOTATION_BYTES + 1)), "a forged giant is dropped");
    assert!(!keeps_annotation("weave.works/kured-most-recent-reboot-needed", "2026-12-07T01:02:03Z"));
}
