#![cfg(test)]

//! When the teams are told, row by row: the earliest starts, which nodes are due, and what each look tells.

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};

use super::*;
use crate::{
    estimate::{Basis, Estimate, Reboots},
    plan_step::{
        self, Next,
        tests::{given, here, look, now, said},
    },
    progress::DrainState,
    rollout::RolloutState,
    teams::{TeamPods, held_until},
    window::{HeldNode, Hold},
};

fn at(minutes: i64) -> Timestamp {
    now() + SignedDuration::from_mins(minutes)
}

fn likely(seconds: u64) -> Estimate {
    Estimate {
        low_seconds: seconds,
        likely_seconds: seconds,
        high_seconds: seconds,
        basis: Basis::GracePeriods,
        timeout_seconds: None,
        reboots: Reboots::NotAwaited,
    }
}

/// `p` with an estimate: each node `minutes` long.
fn estimated(mut p: RolloutProgress, minutes: u64) -> RolloutProgress {
    for n in &mut p.nodes {
        n.estimate = Some(likely(minutes * 60));
    }
    p.estimate = Some(likely(minutes * 60 * p.nodes.len() as u64));
    p
}

fn pods(team_pods: &[(&str, &[&str])]) -> BTreeMap<String, TeamPods> {
    team_pods
        .iter()
        .map(|(team, pods)| {
            let namespaces = pods.iter().map(|p| p.split('/').next().unwrap().to_owned()).collect();
            let pods = pods.iter().map(|p| (*p).to_owned()).collect();
            ((*team).to_owned(), TeamPods { namespaces, pods, more: 0 })
        })
        .collect()
}

#[test]
fn earliest_starts_fill_the_slots_in_order_and_wait_for_a_window() {
    let none = BTreeMap::new();
    // (nodes, parallel, settle seconds, minutes per node, holds lifting (node, minutes), earliest in minutes)
    type Row<'a> = (&'a str, u32, u64, Option<u64>, &'a [(&'a str, i64)], &'a [Option<i64>]);
    let rows: [Row; 7] = [
        ("a:q b:q c:q", 1, 0, Some(10), &[], &[Some(0), Some(10), Some(20)]),
        ("a:q b:q c:q", 2, 0, Some(10), &[], &[Some(0), Some(0), Some(10)]),
        ("a:q b:q c:q", 1, 300, Some(10), &[], &[Some(0), Some(15), Some(30)]),
        // A node out of service may come back any moment: its slot counts as free now.
        ("a:d b:w c:q", 1, 0, Some(10), &[], &[None, None, Some(0)]),
        // A window opening in an hour holds the first node, and the rest after it.
        ("a:q b:q", 1, 0, Some(10), &[("a", 60)], &[Some(60), Some(70)]),
        // Without an estimate, only the nodes next in line are told.
        ("a:q b:q c:q", 2, 0, None, &[], &[Some(0), Some(0), None]),
        ("a:e b:q c:q", 1, 0, None, &[("b", 30)], &[None, Some(30), None]),
    ];
    for (nodes, parallel, settle, minutes, holds, want) in rows {
        let mut p = given(nodes);
        p.options.max_parallel = parallel;
        p.options.settle_seconds = settle;
        if let Some(m) = minutes {
            p = estimated(p, m);
        }
        let opens: BTreeMap<String, Timestamp> = holds.iter().map(|(n, m)| ((*n).into(), at(*m))).collect();
        let got = earliest(&p, now(), if holds.is_empty() { &none } else { &opens });
        let want: Vec<Option<Timestamp>> = want.iter().map(|m| m.map(at)).collect();
        assert_eq!(got, want, "{nodes}, {parallel} at once, settle {settle}, holds {holds:?}");
    }
}

#[test]
fn due_within_the_lead_untold_and_only_while_the_plan_runs() {
    let opens = BTreeMap::new();
    let mut p = estimated(given("a:q b:q c:q d:q"), 20);
    let lead = SignedDuration::from_mins(30);
    let due_names = |p: &RolloutProgress| -> Vec<String> {
        due(p, now(), lead, &opens).into_iter().map(|(i, _)| p.nodes[i].name.clone()).collect()
    };
    // a at once, b in 20 min: within 30; c in 40 min is not.
    assert_eq!(due_names(&p), ["a", "b"]);
    p.nodes[0].told = Some(Told { stage: Stage::Ahead, teams: Vec::new(), expected: now(), at: now() });
    assert_eq!(due_names(&p), ["b"]);
    p.state = RolloutState::Paused;
    assert!(due_names(&p).is_empty(), "a paused plan reaches no node");
    p.state = RolloutState::Running;
    p.blocked = Some(crate::plan_block::Blocked::NoLongerUnattended);
    assert!(due_names(&p).is_empty(), "a blocked plan reaches no node");
}

#[test]
fn a_step_tells_each_team_ahead_once_then_evicted_then_back() {
    let mut p = estimated(given("a:q b:q"), 10);
    p.options.uncordon_when_back = true;
    let mut l = look();
    l.notify_lead = Some(SignedDuration::from_mins(5));
    l.teams.insert("a".into(), pods(&[("payments", &["pay/api-1", "pay/api-2"]), ("search", &["find/idx-0"])]));
    let stepped = plan_step::step(&p, &l);
    assert_eq!(said(&stepped.effects), ["tell payments ahead a", "tell search ahead a", "start a", "silences"]);
    let told = stepped.status.nodes[0].told.clone().unwrap();
    assert_eq!(
        (told.stage, told.teams, told.expected),
        (Stage::Ahead, vec!["payments".into(), "search".into()], now())
    );
    // b starts in 10 min, past the 5-minute lead: not told yet.
    assert_eq!(stepped.status.nodes[1].told, None);
    let Some(plan_step::Effect::Tell { notice: Notice::TeamAhead { pods, namespaces, expected, .. }, .. }) =
        stepped.effects.first()
    else {
        panic!("no ahead notice first")
    };
    assert_eq!(
        (pods.len(), namespaces.as_slice(), *expected),
        (2, ["pay".to_owned(), "pay".to_owned()].as_slice(), now())
    );

    // Told once: the next look, with the node now draining, tells nothing ahead.
    let mut p = stepped.status;
    p.nodes[0].step = Step::Draining("d-a".into());
    let mut l2 = l.clone();
    l2.teams.clear();
    here(&mut l2, "a", DrainState::Evicting);
    let again = plan_step::step(&p, &l2);
    assert!(said(&again.effects).iter().all(|e| !e.starts_with("tell")), "{:?}", said(&again.effects));

    // Drained: each team told once that its pods were evicted; the node is awaited back.
    here(&mut l2, "a", DrainState::Drained);
    let evicted = plan_step::step(&again.status, &l2);
    let tells: Vec<String> = said(&evicted.effects).into_iter().filter(|e| e.starts_with("tell")).collect();
    assert_eq!(tells, ["tell payments evicted a", "tell search evicted a"]);
    assert_eq!(evicted.status.nodes[0].told.as_ref().unwrap().stage, Stage::Evicted);

    // Back and uncordoned: told once more, then never again.
    let mut back = evicted.status.clone();
    back.nodes[0].back = Some(Back::Uncordoned);
    let mut after_effects = Vec::new();
    super::after(&mut back, &mut after_effects);
    assert_eq!(said(&after_effects), ["tell payments back a", "tell search back a"]);
    let mut twice = Vec::new();
    super::after(&mut back, &mut twice);
    assert!(twice.is_empty());
}

#[test]
fn nothing_is_told_without_a_lead_nor_for_a_node_without_annotated_pods_nor_past_a_failure() {
    let p = estimated(given("a:q"), 10);
    let mut l = look();
    l.teams.insert("a".into(), pods(&[("payments", &["pay/api-1"])]));
    // No team has a webhook: nothing is told, nothing is kept.
    let stepped = plan_step::step(&p, &l);
    assert_eq!(said(&stepped.effects), ["start a", "silences"]);
    assert_eq!(stepped.status.nodes[0].told, None);
    // A node with no annotated pods is marked told, to no one, and looked at no more.
    l.notify_lead = Some(SignedDuration::from_mins(5));
    l.teams.insert("a".into(), BTreeMap::new());
    let stepped = plan_step::step(&p, &l);
    assert_eq!(said(&stepped.effects), ["start a", "silences"]);
    assert_eq!(stepped.status.nodes[0].told.as_ref().map(|t| t.teams.len()), Some(0));
    // A node the engine did not look at waits.
    l.teams.clear();
    assert_eq!(plan_step::step(&p, &l).status.nodes[0].told, None);
    // A drain that failed tells nothing more.
    let mut failed = given("a:q");
    failed.nodes[0].step = Step::Ended(DrainState::Failed(crate::failure::Failure::Internal { detail: "x".into() }));
    failed.nodes[0].told =
        Some(Told { stage: Stage::Ahead, teams: vec!["payments".into()], expected: now(), at: now() });
    let mut effects = Vec::new();
    super::after(&mut failed, &mut effects);
    assert!(effects.is_empty());
}

#[test]
fn a_window_hold_tells_the_team_the_lead_before_it_lifts() {
    let mut p = estimated(given("a:q"), 10);
    let opens_in = at(120);
    let hold = Hold::OutsideWindow { opens: Some(opens_in), local: None, zone: "UTC".into(), at: None };
    assert_eq!(held_until(&hold), Some(opens_in));
    p.held = Some(HeldNode { node: "a".into(), window: "nights".into(), hold, at: now() });
    let mut l = look();
    l.notify_lead = Some(SignedDuration::from_mins(60));
    l.opens.insert("a".into(), opens_in);
    l.teams.insert("a".into(), pods(&[("payments", &["pay/api-1"])]));
    assert!(said(&plan_step::step(&p, &l).effects).iter().all(|e| !e.starts_with("tell")));
    l.now = at(61);
    let stepped = plan_step::step(&p, &l);
    assert_eq!(said(&stepped.effects)[0], "tell payments ahead a");
    assert_eq!(stepped.status.nodes[0].told.as_ref().unwrap().expected, opens_in);
}

#[test]
fn a_plan_left_for_a_person_still_sends_what_it_records_as_told() {
    let mut p = given("a:d b:q");
    p.nodes[0].told = Some(Told { stage: Stage::Ahead, teams: vec!["payments".into()], expected: now(), at: now() });
    let mut l = look();
    here(&mut l, "a", DrainState::Drained);
    // The maintenance identity runs a plan no longer unattended: left for a person, nothing begun, the notice sent.
    l.maintenance = true;
    let stepped = plan_step::step(&p, &l);
    assert_eq!(stepped.next, Next::Leave);
    assert_eq!(said(&stepped.effects), ["tell payments evicted a"]);
    assert_eq!(stepped.status.nodes[0].told.as_ref().unwrap().stage, Stage::Evicted);
}

#[test]
fn no_node_starts_before_its_teams_are_told() {
    use crate::actor::{Actor, Doing, Sighting};
    let karpenter = || Sighting {
        actor: Actor::Karpenter,
        doing: Doing::Disrupting,
        marker: "taint x".into(),
        at: None,
        detail: None,
        stale: false,
    };
    // (case, nodes, a window's hold on `a` lifting in minutes, whose pods the look found, Karpenter at work on `a`,
    //  the effects)
    type Row<'a> = (&'a str, &'a str, Option<i64>, &'a [&'a str], bool, &'a [&'a str]);
    let rows: [Row; 6] = [
        ("told as it starts", "a:q", None, &["a"], false, &["tell payments ahead a", "start a", "silences"]),
        // The look saw a window hold it; the hold lifted before the start: nothing goes untold.
        ("held when looked at", "a:q", Some(600_000), &["a"], false, &["start a once its teams are told", "silences"]),
        // A hold that lifted by the look's time holds nothing.
        ("a hold already lifted", "a:q", Some(-1), &["a"], false, &["tell payments ahead a", "start a", "silences"]),
        ("its pods not looked at", "a:q", None, &[], false, &["start a once its teams are told", "silences"]),
        // Without an estimate only the first in line is due (a, which starts once Karpenter is done with it); b
        // takes the room a leaves, and is told first.
        (
            "passed over, the next told",
            "a:q b:q",
            None,
            &["a", "b"],
            true,
            &["tell payments ahead a", "tell payments ahead b", "start b", "silences"],
        ),
        (
            "passed over, the next not looked at",
            "a:q b:q",
            None,
            &["a"],
            true,
            &["tell payments ahead a", "start b once its teams are told", "silences"],
        ),
    ];
    for (case, nodes, lifts, found, others, want) in rows {
        let p = given(nodes);
        let mut l = look();
        l.notify_lead = Some(SignedDuration::from_mins(60));
        if let Some(minutes) = lifts {
            l.opens.insert("a".into(), at(minutes));
        }
        for node in found {
            l.teams.insert((*node).into(), pods(&[("payments", &["pay/api-1"])]));
        }
        if others {
            l.others.insert("a".into(), vec![karpenter()]);
        }
        let stepped = plan_step::step(&p, &l);
        assert_eq!(said(&stepped.effects), *want, "{case}");
        for (node, effect) in p.nodes.iter().zip(&stepped.status.nodes) {
            let started = want.contains(&format!("start {}", node.name).as_str());
            assert!(!started || effect.told.is_some(), "{case}: {} started untold", node.name);
        }
        // What the look asks the engine for is what the step would tell or start.
        let asked: Vec<&str> =
            asked(&p, &l, SignedDuration::from_mins(60)).into_iter().map(|i| p.nodes[i].name.as_str()).collect();
        let want_asked: &[&str] = if nodes == "a:q" { &["a"] } else { &["a", "b"] };
        assert_eq!(asked, want_asked, "{case}");
    }
}
