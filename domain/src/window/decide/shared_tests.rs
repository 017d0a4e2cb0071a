//! Many nodes decided at once ([`super::Decider`]) against the rule written plainly, one node at a time.

use super::{
    tests::{facts, labels, node, policy},
    *,
};
use crate::window::spec::{AlertGateSpec, GatesSpec, PodGateSpec, ScheduleSpec, Spec};

/// The rule written plainly, one node at a time, as it was before [`Decider`] shared the work between nodes: the
/// oracle the shared decisions must equal.
fn node_by_node(windows: &[Policy], node: &str, facts: &Facts) -> Decision {
    let fact = facts.nodes.iter().find(|n| n.name == node);
    let empty = BTreeMap::new();
    let labels = fact.map_or(&empty, |n| &n.labels);
    let covering: Vec<&Policy> = windows.iter().filter(|w| w.selector.matches(labels)).collect();
    let mut holds = Vec::new();
    // How long each holding window holds: its next opening, or for ever (`None`) for a gate or the budget.
    let mut until: Vec<(String, Option<Timestamp>)> = Vec::new();
    for w in &covering {
        let before = holds.len();
        let calendar = calendar_hold(w, facts.now);
        let calendar_until = calendar.as_ref().map(|_| w.next_open(facts.now));
        holds.extend(calendar.into_iter().map(|hold| Held { window: w.name.clone(), hold }));
        let gated = gates(w, node, fact, facts);
        let gate_held = !gated.is_empty();
        holds.extend(gated.into_iter().map(|hold| Held { window: w.name.clone(), hold }));
        if holds.len() > before {
            let forever = gate_held || w.broken.is_some();
            until.push((w.name.clone(), if forever { None } else { calendar_until.flatten() }));
        }
    }
    // For ever outranks any instant; among instants the latest; ties go to the first window by name.
    let decided_by = until
        .iter()
        .max_by(|a, b| match (a.1, b.1) {
            (None, None) => b.0.cmp(&a.0),
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(_), None) => std::cmp::Ordering::Less,
            (Some(x), Some(y)) => x.cmp(&y).then(b.0.cmp(&a.0)),
        })
        .map(|(name, _)| name.clone());
    Decision {
        node: node.into(),
        windows: covering.iter().map(|w| w.name.clone()).collect(),
        holds,
        decided_by,
        opens: match covering.iter().any(|w| w.broken.is_some()) {
            true => None,
            false => crate::window::calendar::next_open_all(&covering, facts.now),
        },
    }
}

fn gates(w: &Policy, node: &str, fact: Option<&NodeFact>, facts: &Facts) -> Vec<Hold> {
    let mut holds = Vec::new();
    if let Some(budget) = w.budget {
        let selected: Vec<&NodeFact> = facts.nodes.iter().filter(|n| w.selector.matches(&n.labels)).collect();
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let max = budget.max(count(selected.len()));
        let in_maintenance = count(selected.iter().filter(|n| n.in_maintenance).count());
        let already = fact.is_some_and(|n| n.in_maintenance);
        if !already && in_maintenance >= max {
            holds.push(Hold::Budget { in_maintenance, max });
        }
    }
    if let Some(max) = w.gates.max_not_ready {
        let not_ready = u32::try_from(facts.nodes.iter().filter(|n| !n.ready).count()).unwrap_or(u32::MAX);
        if not_ready > max {
            holds.push(Hold::NotReadyStorm { not_ready, max });
        }
    }
    for gate in &w.gates.pods {
        let running = facts.pods.iter().find(|p| {
            (gate.anywhere || p.node.as_deref() == Some(node))
                && gate.namespace.as_ref().is_none_or(|ns| *ns == p.namespace)
                && gate.selector.matches(&p.labels)
        });
        if let Some(p) = running {
            holds.push(Hold::Pod { namespace: p.namespace.clone(), name: p.name.clone(), node: p.node.clone() });
        }
    }
    if !w.gates.alerts.is_empty() {
        match facts.alerts {
            Alerts::Known(alerts) => {
                for gate in &w.gates.alerts {
                    if let Some(alert) = alerts.iter().find(|a| gate.iter().all(|m| m.matches(a))) {
                        let matched = gate
                            .iter()
                            .map(|m| format!("{}={}", m.name, alert.get(&m.name).map_or("", |v| v)))
                            .collect::<Vec<_>>()
                            .join(", ");
                        let name = alert.get("alertname").cloned().unwrap_or_default();
                        holds.push(Hold::Alert { name, matched });
                    }
                }
            }
            Alerts::Unknown(why) if facts.fail_closed => holds.push(Hold::AlertsUnknown { why: why.clone() }),
            Alerts::None if facts.fail_closed => {
                holds.push(Hold::AlertsUnknown { why: "no Alertmanager is configured (--alertmanager-url)".into() })
            }
            _ => {}
        }
    }
    holds
}

#[test]
fn deciding_many_nodes_at_once_equals_deciding_each_alone() {
    let spec = |selector: &str| Spec { node_selector: Some(selector.into()), ..Spec::default() };
    let windows = vec![
        policy("budget", Spec { max_in_maintenance: Some("30%".into()), ..spec("pool in (db,web)") }),
        policy("two", Spec { max_in_maintenance: Some("2".into()), ..spec("pool=web") }),
        policy(
            "backups",
            Spec {
                gates: GatesSpec {
                    pods: vec![
                        PodGateSpec { selector: "app=backup".into(), namespace: Some("ops".into()), anywhere: false },
                        PodGateSpec { selector: "app=migrate".into(), namespace: None, anywhere: true },
                    ],
                    max_not_ready: Some(3),
                    ..GatesSpec::default()
                },
                ..spec("pool!=gpu")
            },
        ),
        policy(
            "nightly",
            Spec {
                time_zone: Some("Asia/Tokyo".into()),
                schedules: vec![ScheduleSpec {
                    days: vec![],
                    weeks: vec![],
                    start: "02:00".into(),
                    end: "04:00".into(),
                }],
                ..spec("pool=gpu")
            },
        ),
        policy(
            "daytime",
            Spec {
                schedules: vec![ScheduleSpec {
                    days: vec![],
                    weeks: vec![],
                    start: "11:00".into(),
                    end: "13:00".into(),
                }],
                gates: GatesSpec {
                    alerts: vec![AlertGateSpec { matchers: vec!["alertname=Down".into()] }],
                    ..GatesSpec::default()
                },
                ..spec("pool in (gpu,web)")
            },
        ),
        Policy::broken("typo", Some("pool=db"), "schedules[0].start does not read".into()),
    ];
    let pools = ["db", "web", "gpu", "batch"];
    let nodes: Vec<NodeFact> =
        (0..60).map(|i| node(&format!("n{i}"), pools[i % 4], i % 23 != 3, i % 7 == 0 || i % 13 == 5)).collect();
    // Three more not Ready: a storm past the backups window's 3.
    let mut stormy = nodes.clone();
    for n in &mut stormy[10..13] {
        n.ready = false;
    }
    let pod = |ns: &str, name: &str, app: &str, on: Option<&str>| PodFact {
        namespace: ns.into(),
        name: name.into(),
        node: on.map(Into::into),
        labels: labels(&[("app", app)]),
    };
    let pods = [
        pod("ops", "backup-1", "backup", Some("n5")),
        pod("ops", "backup-2", "backup", Some("n5")),
        pod("other", "backup-3", "backup", Some("n6")),
        pod("ops", "backup-4", "backup", None),
        pod("ops", "backup-5", "backup", Some("n9")),
    ];
    let migrate = [pod("apps", "migrate-1", "migrate", Some("n20"))];
    let firing = Alerts::Known(vec![labels(&[("alertname", "Down")])]);
    let all_pods: Vec<PodFact> = pods.iter().chain(&migrate).cloned().collect();
    let unknown = Alerts::Unknown("x".into());
    let mut counts = Vec::new();
    for (nodes, pods, alerts) in
        [(&nodes, &pods[..], &Alerts::None), (&nodes, &all_pods[..], &firing), (&stormy, &pods[..], &unknown)]
    {
        let facts = facts(nodes, pods, alerts);
        let decider = Decider::new(&windows, &facts);
        // In an order that is not the nodes', and with a node the facts do not have.
        let names: Vec<String> = nodes.iter().rev().map(|n| n.name.clone()).chain(["gone".to_string()]).collect();
        let mut held = 0;
        for name in &names {
            let shared = decider.decide(name);
            assert_eq!(shared, node_by_node(&windows, name, &facts), "{name}");
            held += usize::from(!shared.may_start());
        }
        counts.push(held);
    }
    // The first facts hold some nodes and free others; the migration anywhere, and the storm, hold every node.
    assert!(counts[0] > 10 && counts[0] < 61, "{counts:?}");
    assert_eq!(counts[1..], [61, 61]);
}
