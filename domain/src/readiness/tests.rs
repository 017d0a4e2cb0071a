#![cfg(test)]

//! The readiness rules, a row per class: each row is a node's pods and budgets, and the holds expected of it.

use std::collections::BTreeMap;

use super::*;
use crate::{
    budget::{PdbStatus, UnhealthyPolicy},
    capacity::{Misfit, PodVerdict},
    drain::DaemonSetLookup,
    pod::{ControllerRef, PodPhase, PodSummary},
    selector::LabelSelector,
};

fn pod(name: &str, app: &str) -> PodSummary {
    PodSummary {
        namespace: "shop".into(),
        name: name.into(),
        uid: format!("uid-{name}"),
        node_name: Some("n1".into()),
        phase: PodPhase::Running,
        ready: true,
        controller: Some(ControllerRef {
            api_version: "apps/v1".into(),
            kind: "ReplicaSet".into(),
            name: format!("{app}-rs"),
        }),
        mirror: false,
        empty_dir: false,
        deletion_timestamp: None,
        labels: [("app".to_string(), app.to_string())].into(),
        tolerations: Vec::new(),
        do_not_disrupt: None,
        grace_seconds: None,
        ready_after_seconds: None,
    }
}

/// A budget over `app` counting `expected` pods, wanting `desired` healthy.
fn budget(name: &str, app: &str, expected: i32, desired: i32) -> PdbInfo {
    PdbInfo {
        namespace: "shop".into(),
        selector: LabelSelector::parse(&format!("app={app}")).unwrap(),
        status: PdbStatus {
            name: name.into(),
            disruptions_allowed: (expected - desired).max(0),
            current_healthy: expected,
            desired_healthy: desired,
            expected_pods: expected,
        },
        policy: UnhealthyPolicy::IfHealthyBudget,
    }
}

fn inputs(pods: Vec<PodSummary>, pdbs: Vec<PdbInfo>) -> PreviewInputs {
    let daemonsets = pods
        .iter()
        .filter_map(|p| p.daemonset_key())
        .map(|key| {
            let lookup =
                if key_gone(&key) { DaemonSetLookup::NotFound("gone".into()) } else { DaemonSetLookup::Exists };
            (key, lookup)
        })
        .collect();
    PreviewInputs { node: "n1".into(), pods, pdbs, daemonsets, ..PreviewInputs::default() }
}

fn key_gone(key: &str) -> bool {
    key.ends_with("/gone")
}

/// Each hold as `class namespace/object`, for a compact row.
fn shape(readiness: &NodeReadiness) -> Vec<String> {
    readiness.holds.iter().map(|h| format!("{} {}/{}", h.class(), h.namespace(), super::pod_of(h))).collect()
}

#[test]
fn each_class_is_found_on_its_own() {
    let with = |f: fn(&mut PodSummary)| {
        let mut p = pod("p", "solo");
        f(&mut p);
        p
    };
    // (what the row shows, the node's pods, its budgets, the holds expected)
    type Row = (&'static str, Vec<PodSummary>, Vec<PdbInfo>, Vec<&'static str>);
    let table: Vec<Row> = vec![
        ("nothing holds it", vec![pod("web-1", "web")], vec![budget("web-pdb", "web", 3, 2)], vec![]),
        (
            "a budget that allows one of three now",
            vec![pod("web-1", "web")],
            vec![budget("web-pdb", "web", 3, 2)],
            vec![],
        ),
        (
            "minAvailable at the replicas",
            vec![pod("web-1", "web"), pod("web-2", "web")],
            vec![budget("web-pdb", "web", 3, 3)],
            vec!["budget-never shop/web-pdb"],
        ),
        (
            "maxUnavailable 0 over one replica",
            vec![pod("db-0", "db")],
            vec![budget("db-pdb", "db", 1, 1)],
            vec!["single-replica shop/db-0"],
        ),
        (
            "two budgets over one pod",
            vec![pod("api-1", "api")],
            vec![budget("api-a", "api", 3, 1), budget("api-b", "api", 3, 1)],
            vec!["two-budgets shop/api-1"],
        ),
        ("emptyDir data", vec![with(|p| p.empty_dir = true)], vec![], vec!["refused shop/p"]),
        ("no controller", vec![with(|p| p.controller = None)], vec![], vec!["refused shop/p"]),
        (
            "a DaemonSet that is gone",
            vec![with(|p| {
                p.controller =
                    Some(ControllerRef { api_version: "apps/v1".into(), kind: "DaemonSet".into(), name: "gone".into() })
            })],
            vec![],
            vec!["refused shop/p"],
        ),
        (
            "a DaemonSet's pod is left in place",
            vec![with(|p| {
                p.controller = Some(ControllerRef {
                    api_version: "apps/v1".into(),
                    kind: "DaemonSet".into(),
                    name: "agent".into(),
                })
            })],
            vec![],
            vec![],
        ),
        (
            "the owner asked",
            vec![with(|p| p.do_not_disrupt = Some(DoNotDisrupt::Karpenter))],
            vec![],
            vec!["owner-asked shop/p"],
        ),
        (
            "a budget in another namespace covers nothing here",
            vec![pod("web-1", "web")],
            vec![PdbInfo { namespace: "other".into(), ..budget("web-pdb", "web", 3, 3) }],
            vec![],
        ),
        ("a finished pod", vec![with(|p| p.phase = PodPhase::Succeeded)], vec![budget("p-pdb", "solo", 1, 1)], vec![]),
    ];
    for (what, pods, pdbs, expected) in table {
        let found = of_node(&inputs(pods, pdbs), &[], None);
        assert_eq!(shape(&found), expected, "{what}");
        assert_eq!(found.stalls(), expected.iter().any(|h| !h.starts_with("owner-asked")), "{what}: stalls");
    }
}

#[test]
fn the_refusal_names_the_option_that_would_take_the_pod() {
    let mut p = pod("cache-0", "cache");
    p.empty_dir = true;
    let found = of_node(&inputs(vec![p], vec![]), &[], None);
    let [Hold::Refused { reason, needs, .. }] = found.holds.as_slice() else { panic!("{found:?}") };
    assert_eq!((reason, needs), (&Refusal::LocalStorage, &Some(DrainOption::DeleteEmptydirData)));
}

#[test]
fn one_hold_per_budget_with_its_pods_and_the_worst_first() {
    let pods = vec![pod("web-2", "web"), pod("web-1", "web"), pod("db-0", "db"), {
        let mut p = pod("tmp", "tmp");
        p.empty_dir = true;
        p
    }];
    let pdbs = vec![budget("web-pdb", "web", 2, 2), budget("db-pdb", "db", 1, 1)];
    let local = [LocalBound { namespace: "shop".into(), pod: "db-0".into(), volume: "local-pv-1".into() }];
    let report = CapacityReport {
        nodes_left: 3,
        pods: vec![
            PodVerdict {
                namespace: "shop".into(),
                name: "web-1".into(),
                from: "n1".into(),
                verdict: Verdict::Pending(vec![(Misfit::InsufficientCpu, 3)]),
            },
            PodVerdict {
                namespace: "shop".into(),
                name: "web-9".into(),
                from: "n2".into(),
                verdict: Verdict::Pending(vec![(Misfit::InsufficientCpu, 3)]),
            },
            PodVerdict {
                namespace: "shop".into(),
                name: "web-2".into(),
                from: "n1".into(),
                verdict: Verdict::Fits("n3".into()),
            },
        ],
        not_recreated: Vec::new(),
        hidden: 0,
    };
    let found = of_node(&inputs(pods, pdbs), &local, Some(&report));
    assert_eq!(
        shape(&found),
        [
            "budget-never shop/web-pdb",
            "single-replica shop/db-0",
            "refused shop/tmp",
            "local-volume shop/db-0",
            "no-room shop/web-1"
        ]
    );
    let Hold::BudgetNever { pods, expected, desired, .. } = &found.holds[0] else { panic!() };
    assert_eq!((pods.as_slice(), *expected, *desired), (&["web-1".to_string(), "web-2".to_string()][..], 2, 2));
    let Hold::NoRoom { why, .. } = &found.holds[4] else { panic!() };
    assert_eq!(
        why, "0/3 nodes are available: 3 Insufficient cpu.",
        "the capacity check's words, this node's pods only"
    );
}

#[test]
fn a_budget_names_a_bounded_number_of_pods() {
    let pods: Vec<PodSummary> = (0..20).map(|i| pod(&format!("web-{i:02}"), "web")).collect();
    let found = of_node(&inputs(pods, vec![budget("web-pdb", "web", 20, 20)]), &[], None);
    let [Hold::BudgetNever { pods, .. }] = found.holds.as_slice() else { panic!("{found:?}") };
    assert_eq!(pods.len(), MAX_PODS_NAMED);
}

#[test]
fn budgets_that_select_nothing_are_found_cluster_wide() {
    let pdbs = vec![
        budget("web-pdb", "web", 3, 2),
        budget("old-pdb", "renamed", 0, 1),
        PdbInfo { namespace: "other".into(), ..budget("web-pdb", "web", 0, 1) },
    ];
    let web: BTreeMap<String, String> = [("app".to_string(), "web".to_string())].into();
    let idle = idle_budgets(&pdbs, [("shop", &web)]);
    assert_eq!(
        idle,
        [
            IdleBudget { namespace: "other".into(), budget: "web-pdb".into() },
            IdleBudget { namespace: "shop".into(), budget: "old-pdb".into() },
        ],
        "a pod of another namespace does not count"
    );
    assert!(idle_budgets(&[], [("shop", &web)]).is_empty());
}

#[test]
fn a_volume_pins_its_pods_to_a_node_only_by_name() {
    use crate::{capacity::NodeSelectorTerm, selector::Requirement};
    let req = |key: &str, op: &str, values: &[&str]| Requirement {
        key: key.into(),
        operator: op.into(),
        values: values.iter().map(|v| v.to_string()).collect(),
    };
    let labels: BTreeMap<String, String> = [
        ("kubernetes.io/hostname".to_string(), "host-1".to_string()),
        ("topology.kubernetes.io/zone".to_string(), "a".to_string()),
    ]
    .into();
    let term = |r: Requirement| NodeSelectorTerm { expressions: vec![r], fields: vec![] };
    let volume = |local: bool, terms: Vec<NodeSelectorTerm>| Volume { name: "pv".into(), local, terms, claim: None };
    // (what, the volume, whether it pins the pods to node-1, whose hostname is host-1)
    let table = [
        ("a local disk of this host", volume(true, vec![term(req("kubernetes.io/hostname", "In", &["host-1"]))]), true),
        (
            "a local disk of another host",
            volume(true, vec![term(req("kubernetes.io/hostname", "In", &["host-2"]))]),
            false,
        ),
        (
            "any volume pinned by hostname",
            volume(false, vec![term(req("kubernetes.io/hostname", "In", &["host-1", "host-3"]))]),
            true,
        ),
        (
            "by the node's name",
            volume(
                false,
                vec![NodeSelectorTerm { expressions: vec![], fields: vec![req("metadata.name", "In", &["node-1"])] }],
            ),
            true,
        ),
        (
            "a zonal disk: other nodes of the zone take it",
            volume(false, vec![term(req("topology.kubernetes.io/zone", "In", &["a"]))]),
            false,
        ),
        (
            "a local disk pinned by zone",
            volume(true, vec![term(req("topology.kubernetes.io/zone", "In", &["a"]))]),
            true,
        ),
        ("no node affinity", volume(true, vec![]), false),
    ];
    for (what, volume, expected) in table {
        assert_eq!(pins(&volume, "node-1", &labels), expected, "{what}");
    }
}

#[test]
fn each_window_has_its_nodes_and_its_opening_and_a_line_names_the_first_stall() {
    use crate::window::decide::{Decision, Held, Hold as WindowHold};
    let outside = |window: &str| Held {
        window: window.into(),
        hold: WindowHold::OutsideWindow {
            opens: None,
            local: Some("Mon 22:00".into()),
            zone: "Asia/Tokyo".into(),
            at: None,
        },
    };
    let decision = |node: &str, windows: &[&str], holds: Vec<Held>| Decision {
        node: node.into(),
        windows: windows.iter().map(|w| w.to_string()).collect(),
        holds,
        decided_by: None,
        opens: None,
    };
    let decisions = [
        decision("n2", &["tonight"], vec![outside("tonight")]),
        decision("n1", &["tonight", "always"], vec![outside("tonight")]),
        decision("n3", &[], vec![]),
    ];
    let scopes = window_scopes(&decisions);
    type Shape<'a> = (&'a str, Vec<&'a str>, usize, Option<(&'a str, &'a str)>);
    let shape: Vec<Shape> = scopes
        .iter()
        .map(|s| {
            (
                s.window.as_str(),
                s.nodes.iter().map(String::as_str).collect(),
                s.covering,
                s.opens.as_ref().map(|(l, z)| (l.as_str(), z.as_str())),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [("always", vec!["n1"], 1, None), ("tonight", vec!["n1", "n2"], 2, Some(("Mon 22:00", "Asia/Tokyo")))],
        "an open window has no opening; nodes in name order; a node of no window in none"
    );

    let hold = |class: &str| match class {
        "owner" => Hold::OwnerAsked { namespace: "shop".into(), pod: "p".into(), annotation: "a: b".into() },
        _ => Hold::SingleReplica { namespace: "shop".into(), budget: "db-pdb".into(), pod: "db-0".into() },
    };
    let answer = |nodes: Vec<(&str, Vec<Hold>)>| Readiness {
        nodes: nodes.into_iter().map(|(n, holds)| NodeReadiness { node: n.into(), holds }).collect(),
        ..Readiness::default()
    };
    assert_eq!(
        first_stall(&answer(vec![("n1", vec![]), ("n2", vec![hold("owner")])])),
        None,
        "an owner's request alone stalls nothing"
    );
    let stalls =
        answer(vec![("n1", vec![hold("owner"), hold("single")]), ("n2", vec![hold("single")]), ("n3", vec![])]);
    let (node, first, more) = first_stall(&stalls).unwrap();
    assert_eq!((node, first.class(), more), ("n1", "single-replica", 1));
}
