use super::*;
use crate::{failure::Failure, volume::Attached};

fn at(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn cond(type_: &str, status: &str, reason: &str, message: &str, transition: &str) -> Condition {
    Condition {
        type_: type_.into(),
        status: status.into(),
        reason: Some(reason.into()),
        message: Some(message.into()),
        last_heartbeat: Some(at(transition)),
        last_transition: Some(at(transition)),
    }
}

/// Each drain state and what it publishes: (state, DrainInProgress, Drained, reason).
#[test]
fn each_drain_state_publishes_both_types_with_one_reason() {
    let rows: Vec<(DrainState, bool, bool, &str)> = vec![
        (DrainState::Cordoning, true, false, "DrainboardDrainStarted"),
        (DrainState::Planning, true, false, "DrainboardDrainStarted"),
        (DrainState::Evicting, true, false, "DrainboardDrainStarted"),
        (DrainState::Detaching(Attached { count: 1, named: vec![] }), true, false, "DrainboardDrainStarted"),
        (DrainState::Drained, false, true, "DrainboardDrainCompleted"),
        (DrainState::DrainedExceptTerminating(2), false, false, "DrainboardDrainIncomplete"),
        (
            DrainState::DrainedVolumesAttached(Attached { count: 1, named: vec![] }),
            false,
            false,
            "DrainboardDrainIncomplete",
        ),
        (DrainState::Refused, false, false, "DrainboardDrainFailed"),
        (DrainState::TimedOut, false, false, "DrainboardDrainFailed"),
        (DrainState::Failed(Failure::CredentialsExpired), false, false, "DrainboardDrainFailed"),
        (DrainState::Cancelled, false, false, "DrainboardDrainCancelled"),
        (DrainState::Interrupted, false, false, "DrainboardDrainInterrupted"),
    ];
    for (state, running, drained, reason) in rows {
        let wanted = for_drain(&state, "alice", "d-1", Some("kernel 6.12")).unwrap();
        assert_eq!(wanted.len(), 2, "{state:?}");
        assert_eq!((wanted[0].kind, wanted[0].status), (Kind::DrainInProgress, running), "{state:?}");
        assert_eq!((wanted[1].kind, wanted[1].status), (Kind::Drained, drained), "{state:?}");
        for w in &wanted {
            assert_eq!(w.reason, reason, "{state:?}");
            assert!(w.reason.starts_with(OUR_REASON_PREFIX));
            assert!(w.message.contains("d-1 by alice (kernel 6.12)"), "{state:?}: {}", w.message);
        }
    }
}

#[test]
fn dry_runs_publish_nothing() {
    assert_eq!(for_drain(&DrainState::DryRunPlanned, "alice", "d-1", None), None);
    assert_eq!(for_drain(&DrainState::DryRunAccepted, "alice", "d-1", None), None);
}

#[test]
fn a_long_message_is_cut_to_its_bound() {
    let person = "p".repeat(500);
    let wanted = for_drain(&DrainState::Evicting, &person, "d-1", None).unwrap();
    assert_eq!(wanted[0].message.chars().count(), MESSAGE_CHARS);
    assert!(wanted[0].message.ends_with('…'));
}

#[test]
fn a_node_without_them_gets_both() {
    let now = at("2026-12-07T10:00:00Z");
    let wanted = for_drain(&DrainState::Evicting, "alice", "d-1", None).unwrap();
    let out = changes(&[], &wanted, &Kind::DRAIN, now);
    assert_eq!(out.len(), 2);
    for change in out {
        let Change::Set { last_transition, last_heartbeat, .. } = change else { panic!("{change:?}") };
        assert_eq!((last_transition, last_heartbeat), (now, now));
    }
}

#[test]
fn an_unchanged_condition_is_not_written_again() {
    let now = at("2026-12-07T10:00:00Z");
    let wanted = for_drain(&DrainState::Evicting, "alice", "d-1", None).unwrap();
    let current: Vec<Condition> = wanted
        .iter()
        .map(|w| {
            let status = if w.status { "True" } else { "False" };
            cond(w.kind.as_str(), status, w.reason, &w.message, "2026-12-07T09:00:00Z")
        })
        .collect();
    assert_eq!(changes(&current, &wanted, &Kind::DRAIN, now), vec![]);
}

#[test]
fn the_transition_time_moves_only_with_the_status() {
    let now = at("2026-12-07T10:00:00Z");
    let current = vec![
        cond("DrainInProgress", "True", "DrainboardDrainStarted", "old", "2026-12-07T09:00:00Z"),
        cond("Drained", "False", "DrainboardDrainStarted", "old", "2026-12-07T09:00:00Z"),
    ];
    let wanted = for_drain(&DrainState::Drained, "alice", "d-1", None).unwrap();
    let out = changes(&current, &wanted, &Kind::DRAIN, now);
    let transitions: Vec<(Kind, Timestamp)> = out
        .iter()
        .map(|c| match c {
            Change::Set { wanted, last_transition, .. } => (wanted.kind, *last_transition),
            other => panic!("{other:?}"),
        })
        .collect();
    // Both flip (True → False, False → True): both transition now.
    assert_eq!(transitions, vec![(Kind::DrainInProgress, now), (Kind::Drained, now)]);

    let still_running = for_drain(&DrainState::Evicting, "alice", "d-2", None).unwrap();
    let out = changes(&current, &still_running, &Kind::DRAIN, now);
    let Change::Set { last_transition, .. } = &out[0] else { panic!("{out:?}") };
    assert_eq!(*last_transition, at("2026-12-07T09:00:00Z"), "still True: the transition stays");
}

#[test]
fn another_writers_condition_is_never_changed_or_removed() {
    let now = at("2026-12-07T10:00:00Z");
    let theirs = vec![
        cond("DrainInProgress", "True", "KubectlDrainStarted", "kubectl drain started", "2026-12-07T09:00:00Z"),
        cond("Drained", "False", "MaintenanceWindow", "", "2026-12-07T09:00:00Z"),
    ];
    let wanted = for_drain(&DrainState::Drained, "alice", "d-1", None).unwrap();
    assert_eq!(changes(&theirs, &wanted, &Kind::DRAIN, now), vec![], "setting");
    assert_eq!(changes(&theirs, &[], &Kind::DRAIN, now), vec![], "clearing");
    let no_reason = Condition { reason: None, ..theirs[0].clone() };
    assert_eq!(changes(&[no_reason], &[], &Kind::DRAIN, now), vec![], "a condition without a reason is not ours");
}

#[test]
fn clearing_removes_only_ours() {
    let now = at("2026-12-07T10:00:00Z");
    let current = vec![
        cond("DrainInProgress", "False", "DrainboardDrainCompleted", "m", "2026-12-07T09:00:00Z"),
        cond("Drained", "True", "KubectlDrainCompleted", "m", "2026-12-07T09:00:00Z"),
        cond("Ready", "True", "KubeletReady", "m", "2026-12-07T09:00:00Z"),
    ];
    assert_eq!(changes(&current, &[], &Kind::DRAIN, now), vec![Change::Remove(Kind::DrainInProgress)]);
}

#[test]
fn ours_are_stale_only_on_a_schedulable_node() {
    let ours = vec![
        cond("DrainInProgress", "False", "DrainboardDrainCompleted", "m", "2026-12-07T09:00:00Z"),
        cond("Drained", "True", "DrainboardDrainCompleted", "m", "2026-12-07T09:00:00Z"),
    ];
    assert_eq!(stale(true, &ours), vec![], "cordoned: still true");
    assert_eq!(stale(false, &ours), vec![Kind::DrainInProgress, Kind::Drained]);
    let theirs = vec![cond("Drained", "True", "KubectlDrainCompleted", "m", "2026-12-07T09:00:00Z")];
    assert_eq!(stale(false, &theirs), vec![], "another writer's is theirs to clear");
}

/// Each step of a plan's node and what the plan publishes for it: (node, ended, type and reason or none).
#[test]
fn a_plan_publishes_planned_while_queued_and_in_progress_while_awaiting_back() {
    use crate::rollout::{Back, RolloutNode, Step};
    let node = |step: Step, back: Option<Back>| RolloutNode { step, back, ..RolloutNode::queued("n1".into(), None) };
    let drained = || Step::Ended(DrainState::Drained);
    type Row = (RolloutNode, bool, Option<(&'static str, &'static str)>);
    let rows: Vec<Row> = vec![
        (node(Step::Queued, None), false, Some(("MaintenancePlanned", "DrainboardPlanQueued"))),
        // The drain publishes its own conditions while it runs.
        (node(Step::Draining("d-1".into()), None), false, None),
        (
            node(drained(), Some(Back::Waiting(None))),
            false,
            Some(("MaintenanceInProgress", "DrainboardPlanAwaitingBack")),
        ),
        (node(drained(), Some(Back::Recovering)), false, Some(("MaintenanceInProgress", "DrainboardPlanAwaitingBack"))),
        (node(drained(), Some(Back::Uncordoned)), false, None),
        (node(drained(), None), false, None),
        (node(Step::NotStarted, None), false, None),
        // An ended plan publishes nothing, whatever its nodes' last step.
        (node(Step::Queued, None), true, None),
        (node(drained(), Some(Back::Waiting(None))), true, None),
    ];
    for (n, ended, want) in rows {
        let got = for_plan_node(&n, "night", "alice", Some("kernel"), ended);
        let got: Vec<(&str, &str)> = got.iter().map(|w| (w.kind.as_str(), w.reason)).collect();
        assert_eq!(got, want.into_iter().collect::<Vec<_>>(), "{:?} {:?}, ended {ended}", n.step, n.back);
    }
    let queued = for_plan_node(&node(Step::Queued, None), "night", "alice", Some("kernel"), false);
    assert_eq!(queued[0].message, "Drainboard maintenance plan night by alice (kernel) will drain this node");
    assert!(queued[0].status);
    // Only the plan's own types are managed: a drain's are left to the drain.
    assert!(Kind::PLAN.iter().all(|k| !Kind::DRAIN.contains(k)));
}
