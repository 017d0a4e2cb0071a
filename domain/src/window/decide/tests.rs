use std::collections::BTreeMap;

use jiff::{Timestamp, tz::TimeZone};

use super::*;
use crate::window::{
    matcher::Matcher,
    spec::{AlertGateSpec, GatesSpec, PodGateSpec, ScheduleSpec, Spec},
};

fn ts(text: &str) -> Timestamp {
    text.parse().unwrap()
}

pub(super) fn policy(name: &str, spec: Spec) -> Policy {
    Policy::parse(name, &spec, |z| TimeZone::get(z).ok()).unwrap()
}

pub(super) fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

pub(super) fn node(name: &str, pool: &str, ready: bool, in_maintenance: bool) -> NodeFact {
    NodeFact { name: name.into(), labels: labels(&[("pool", pool)]), ready, in_maintenance }
}

pub(super) fn facts<'a>(nodes: &'a [NodeFact], pods: &'a [PodFact], alerts: &'a Alerts) -> Facts<'a> {
    Facts { now: ts("2026-12-02T12:00:00Z"), nodes, pods, alerts, fail_closed: true }
}

#[test]
fn a_window_that_does_not_cover_the_node_holds_nothing() {
    let w = policy(
        "db",
        Spec { node_selector: Some("pool=db".into()), max_in_maintenance: Some("1".into()), ..Spec::default() },
    );
    let nodes = [node("a", "web", true, false), node("b", "db", true, true)];
    let d = decide(&[w], "a", &facts(&nodes, &[], &Alerts::None));
    assert!(d.may_start(), "{d:?}");
    assert!(d.windows.is_empty());
}

#[test]
fn the_budget_counts_the_window_s_nodes_in_maintenance_and_lets_one_already_in_go_on() {
    let w = policy(
        "db",
        Spec { node_selector: Some("pool=db".into()), max_in_maintenance: Some("50%".into()), ..Spec::default() },
    );
    let nodes = [
        node("a", "db", true, true),
        node("b", "db", true, false),
        node("c", "db", true, false),
        node("d", "db", true, false),
        node("x", "web", true, true),
    ];
    // Half of 4 is 2, and one is in maintenance (x is not the window's): b may start.
    assert!(decide(std::slice::from_ref(&w), "b", &facts(&nodes, &[], &Alerts::None)).may_start());
    let mut two = nodes.clone();
    two[1].in_maintenance = true;
    let d = decide(std::slice::from_ref(&w), "c", &facts(&two, &[], &Alerts::None));
    assert_eq!(d.holds, vec![Held { window: "db".into(), hold: Hold::Budget { in_maintenance: 2, max: 2 } }]);
    assert_eq!(d.decided_by.as_deref(), Some("db"));
    // A node already in maintenance is counted already: its drain may go on.
    assert!(decide(&[w], "a", &facts(&two, &[], &Alerts::None)).may_start());
}

#[test]
fn a_storm_of_not_ready_nodes_holds_everything() {
    let w =
        policy("all", Spec { gates: GatesSpec { max_not_ready: Some(1), ..GatesSpec::default() }, ..Spec::default() });
    let mut nodes = vec![node("a", "p", false, false), node("b", "p", true, false)];
    assert!(decide(std::slice::from_ref(&w), "b", &facts(&nodes, &[], &Alerts::None)).may_start(), "one is allowed");
    nodes.push(node("c", "p", false, false));
    let d = decide(&[w], "b", &facts(&nodes, &[], &Alerts::None));
    assert_eq!(d.holds[0].hold, Hold::NotReadyStorm { not_ready: 2, max: 1 });
    assert_eq!(
        d.reason(ts("2026-12-02T12:00:00Z")).unwrap(),
        "2 nodes are not Ready, more than the 1 it allows (window all)"
    );
}

#[test]
fn a_pod_gate_holds_its_node_or_every_node() {
    let gate = |anywhere| Spec {
        gates: GatesSpec {
            pods: vec![PodGateSpec { selector: "app=backup".into(), namespace: Some("ops".into()), anywhere }],
            ..GatesSpec::default()
        },
        ..Spec::default()
    };
    let nodes = [node("a", "p", true, false), node("b", "p", true, false)];
    let pod = |ns: &str, on: &str| PodFact {
        namespace: ns.into(),
        name: "backup-1".into(),
        node: Some(on.into()),
        labels: labels(&[("app", "backup")]),
    };
    let pods = [pod("ops", "a"), pod("other", "b")];
    let here = policy("w", gate(false));
    assert!(!decide(std::slice::from_ref(&here), "a", &facts(&nodes, &pods, &Alerts::None)).may_start());
    assert!(
        decide(std::slice::from_ref(&here), "b", &facts(&nodes, &pods, &Alerts::None)).may_start(),
        "b's pod is in another namespace"
    );
    let anywhere = policy("w", gate(true));
    let d = decide(&[anywhere], "b", &facts(&nodes, &pods, &Alerts::None));
    assert_eq!(d.holds[0].hold, Hold::Pod { namespace: "ops".into(), name: "backup-1".into(), node: Some("a".into()) });
}

#[test]
fn a_firing_alert_holds_and_an_unknown_alertmanager_fails_closed_unless_told_otherwise() {
    let w = policy(
        "w",
        Spec {
            gates: GatesSpec {
                alerts: vec![AlertGateSpec {
                    matchers: vec!["severity=\"critical\"".into(), "alertname=~\"Node.*\"".into()],
                }],
                ..GatesSpec::default()
            },
            ..Spec::default()
        },
    );
    let nodes = [node("a", "p", true, false)];
    let warning = Alerts::Known(vec![labels(&[("alertname", "NodeDown"), ("severity", "warning")])]);
    assert!(decide(std::slice::from_ref(&w), "a", &facts(&nodes, &[], &warning)).may_start(), "not critical");
    let other = Alerts::Known(vec![labels(&[("alertname", "DiskFull"), ("severity", "critical")])]);
    assert!(decide(std::slice::from_ref(&w), "a", &facts(&nodes, &[], &other)).may_start(), "the regex is anchored");
    let firing = Alerts::Known(vec![labels(&[("alertname", "NodeDown"), ("severity", "critical")])]);
    let d = decide(std::slice::from_ref(&w), "a", &facts(&nodes, &[], &firing));
    assert_eq!(
        d.holds[0].hold,
        Hold::Alert { name: "NodeDown".into(), matched: "severity=critical, alertname=NodeDown".into() }
    );
    let unknown = Alerts::Unknown("connection refused".into());
    let d = decide(std::slice::from_ref(&w), "a", &facts(&nodes, &[], &unknown));
    assert_eq!(d.holds[0].hold, Hold::AlertsUnknown { why: "connection refused".into() });
    let open = Facts { fail_closed: false, ..facts(&nodes, &[], &unknown) };
    assert!(decide(&[w], "a", &open).may_start(), "failing open is a choice the flag makes");
}

#[test]
fn matchers_read_as_alertmanager_writes_them() {
    let m = |t: &str| Matcher::parse(t).unwrap();
    let l = labels(&[("job", "node"), ("env", "prod")]);
    assert!(m("job=node").matches(&l));
    assert!(m("job = \"node\"").matches(&l));
    assert!(m("env!=dev").matches(&l));
    assert!(m("job=~\"no.*\"").matches(&l));
    assert!(!m("job=~\"no\"").matches(&l), "anchored");
    assert!(m("job!~\"x|y\"").matches(&l));
    assert!(m("missing=\"\"").matches(&l), "a missing label is empty");
    assert!(Matcher::parse("=x").is_err());
    assert!(Matcher::parse("bad-name=x").is_err());
    assert!(Matcher::parse(&format!("a={}", "x".repeat(600))).is_err());
}

#[test]
fn the_window_that_holds_longest_decides_and_the_opening_is_when_all_allow() {
    let schedule = |zone: &str, start: &str, end: &str| Spec {
        time_zone: Some(zone.into()),
        schedules: vec![ScheduleSpec { days: vec![], weeks: vec![], start: start.into(), end: end.into() }],
        ..Spec::default()
    };
    // At 12:00 UTC: "soon" opens at 13:00 UTC, "tokyo" at 02:00 Tokyo (17:00 UTC).
    let soon = policy("soon", schedule("UTC", "13:00", "20:00"));
    let tokyo = policy("tokyo", schedule("Asia/Tokyo", "02:00", "04:00"));
    let nodes = [node("a", "p", true, false)];
    let now = ts("2026-12-02T12:00:00Z");
    let d = decide(&[soon, tokyo], "a", &facts(&nodes, &[], &Alerts::None));
    assert_eq!(d.holds.len(), 2);
    assert_eq!(d.decided_by.as_deref(), Some("tokyo"));
    assert_eq!(d.opens, Some(ts("2026-12-02T17:00:00Z")));
    assert_eq!(d.reason(now).unwrap(), "outside window; opens Thu 02:00 Asia/Tokyo, in 5 h 0 min (window tokyo)");
}

#[test]
fn spans_read_as_a_person_says_them() {
    let now = ts("2026-12-02T12:00:00Z");
    assert_eq!(span(now, ts("2026-12-02T12:00:40Z")), "40 s");
    assert_eq!(span(now, ts("2026-12-02T12:03:00Z")), "3 min");
    assert_eq!(span(now, ts("2026-12-02T17:12:00Z")), "5 h 12 min");
    assert_eq!(span(now, ts("2026-12-05T16:00:00Z")), "3 d 4 h");
    assert_eq!(span(now, ts("2026-12-01T00:00:00Z")), "0 s", "the past reads as now");
}

#[test]
fn a_window_that_does_not_read_holds_what_it_covers_until_fixed() {
    let broken = Policy::broken("typo", Some("pool=db"), "schedules[0].start: \"2:00\" is not a time".into());
    let open = policy("open", Spec::default());
    let nodes = [node("a", "db", true, false), node("b", "web", true, false)];
    let d = decide(&[broken.clone(), open], "a", &facts(&nodes, &[], &Alerts::None));
    assert_eq!(d.decided_by.as_deref(), Some("typo"));
    assert_eq!(d.opens, None, "it opens when someone fixes it, not at a known time");
    assert!(d.reason(ts("2026-12-02T12:00:00Z")).unwrap().starts_with("the window cannot be read: schedules[0].start"));
    assert!(decide(std::slice::from_ref(&broken), "b", &facts(&nodes, &[], &Alerts::None)).may_start());
    // A selector that does not read either: every node.
    let all = Policy::broken("worse", Some("a in ("), "nodeSelector".into());
    assert!(!decide(&[all], "b", &facts(&nodes, &[], &Alerts::None)).may_start());
}
