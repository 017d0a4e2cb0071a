//! P11's core: every node's window decision at once, as `POST /api/windows` and a plan's admission make it, at
//! 5,000 nodes and 20 windows (selectors, calendars, freezes, budgets, pod and alert gates). Prints the time of each
//! round's decisions as p50, p99 and the longest, in milliseconds, and a checksum of what they decided so that two
//! builds can be seen to decide alike.
//!   cargo run --release -p domain --example windows_at_scale -- [--nodes 5000] [--windows 20] [--rounds 50]
//! The engine decides every node the way `decide_all` below does (`engine::windows::Windows::decide`).

use std::{collections::BTreeMap, time::Instant};

use domain::window::{
    Facts, NodeFact, PodFact, Policy, Spec,
    decide::{Alerts, Decision},
    written::{AlertGateSpec, FreezeSpec, GatesSpec, PodGateSpec, ScheduleSpec},
};

/// The engine's call: every node, from one set of facts.
fn decide_all(windows: &[Policy], names: &[&str], facts: &Facts) -> Vec<Decision> {
    let decider = domain::window::decide::Decider::new(windows, facts);
    names.iter().map(|n| decider.decide(n)).collect()
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn labels(pairs: &[(&str, String)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

/// Window `i` of a fleet: a mix of what operators write.
fn window(i: usize) -> Spec {
    let pool = format!("pool-{}", i % 10);
    let zone = format!("zone-{}", i % 4);
    let schedule =
        |start: &str, end: &str| ScheduleSpec { days: vec![], weeks: vec![], start: start.into(), end: end.into() };
    let mut spec = Spec {
        node_selector: Some(match i % 4 {
            0 => format!("pool={pool}"),
            1 => format!("topology.kubernetes.io/zone={zone},pool!=pool-9"),
            2 => format!("pool in (pool-{},pool-{})", i % 10, (i + 3) % 10),
            _ => "tier=worker".into(),
        }),
        time_zone: Some(["UTC", "Asia/Tokyo", "Europe/Berlin", "America/New_York"][i % 4].into()),
        schedules: vec![schedule(
            ["22:00", "01:00", "09:00", "13:30"][i % 4],
            ["04:00", "05:00", "17:00", "13:00"][i % 4],
        )],
        max_in_maintenance: Some(if i.is_multiple_of(2) { "10%".into() } else { format!("{}", 3 + i % 5) }),
        ..Spec::default()
    };
    if i.is_multiple_of(5) {
        spec.freezes.push(FreezeSpec {
            start: "2026-12-24T00:00".into(),
            end: "2026-12-27T00:00".into(),
            reason: "holidays".into(),
        });
    }
    spec.gates = GatesSpec {
        pods: match i % 3 {
            0 => vec![PodGateSpec { selector: "app=backup".into(), namespace: Some("ops".into()), anywhere: false }],
            1 => vec![PodGateSpec { selector: "app=migrate".into(), namespace: None, anywhere: true }],
            _ => vec![],
        },
        alerts: if i % 4 == 1 {
            vec![AlertGateSpec { matchers: vec!["severity=\"critical\"".into()] }]
        } else {
            vec![]
        },
        max_not_ready: i.is_multiple_of(6).then_some(50),
    };
    spec
}

fn main() {
    let (n, w, rounds) = (arg("--nodes", 5_000), arg("--windows", 20), arg("--rounds", 50));
    let zone = |name: &str| jiff::tz::TimeZone::get(name).ok();
    let windows: Vec<Policy> = (0..w)
        .map(|i| {
            Policy::parse(&format!("window-{i:02}"), &window(i), zone).unwrap_or_else(|e| panic!("window {i}: {e}"))
        })
        .collect();
    let nodes: Vec<NodeFact> = (0..n)
        .map(|i| NodeFact {
            name: format!("node-{i}"),
            labels: labels(&[
                ("pool", format!("pool-{}", i % 10)),
                ("topology.kubernetes.io/zone", format!("zone-{}", i % 4)),
                ("tier", "worker".into()),
                ("kubernetes.io/hostname", format!("node-{i}")),
                ("node.kubernetes.io/instance-type", "m6i.2xlarge".into()),
            ]),
            ready: i % 97 != 0,
            in_maintenance: i % 2_500 == 0,
        })
        .collect();
    // The pods a gate could match (the engine passes only those): a backup on every 25th node.
    let pods: Vec<PodFact> = (0..n / 25)
        .map(|i| PodFact {
            namespace: "ops".into(),
            name: format!("backup-{i}"),
            node: Some(format!("node-{}", i * 25)),
            labels: labels(&[("app", "backup".into())]),
        })
        .collect();
    let alerts = Alerts::Known(vec![labels(&[("alertname", "Disk".into()), ("severity", "warning".into())])]);
    let now: jiff::Timestamp = "2026-12-07T12:00:00Z".parse().unwrap_or_else(|e| panic!("{e}"));
    let facts = Facts { now, nodes: &nodes, pods: &pods, alerts: &alerts, fail_closed: true };
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    let mut times = Vec::with_capacity(rounds);
    let mut checksum = (0usize, 0usize);
    for _ in 0..rounds {
        let start = Instant::now();
        let decisions = decide_all(&windows, &names, &facts);
        times.push(start.elapsed().as_secs_f64() * 1e3);
        checksum = (decisions.iter().filter(|d| d.may_start()).count(), decisions.iter().map(|d| d.holds.len()).sum());
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{n} nodes, {w} windows, {rounds} rounds: p50 {:.1} ms, p99 {:.1} ms, longest {:.1} ms; {} may start, {} holds",
        at(0.5),
        at(0.99),
        at(1.0),
        checksum.0,
        checksum.1
    );
}
