#![cfg(test)]

//! The plan's step, row by row. Each row gives a status in short form (`n1@a:q`: node n1 in zone a, queued; see
//! [`given`]), changes to the options, the status and the look, and what must come of it: the nodes in the same
//! short form, the effects in words ([`said`]), what comes next and why the plan is blocked, if it is.

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};

use super::*;
use crate::{
    drain::DrainOptions,
    failure::Failure,
    node::NodeCard,
    pin::{SpecChanged, Unpinned},
    plan_block::Blocked,
    progress::DrainRecord,
    recovery::Touched,
    recovery::WorkloadRef,
    rollout::{RolloutNode, RolloutOptions},
    verify::Verify,
    window::HeldNode,
};

pub(crate) fn t0() -> Timestamp {
    "2026-12-06T10:00:00Z".parse().unwrap()
}

pub(crate) fn now() -> Timestamp {
    t0() + SignedDuration::from_secs(60)
}

/// A status from its nodes in short form: `name[@zone]:code`, where the code is `q` queued, `d` draining (drain
/// `d-name`), `e` drained, `t` timed out, `w` drained and awaited back (boot id `boot-1`, since `t0`), `r`
/// recovering (its drain touched a Deployment), `u` back and uncordoned. Ended nodes were done at `t0`.
pub(crate) fn given(nodes: &str) -> RolloutProgress {
    let nodes = nodes
        .split_whitespace()
        .map(|token| {
            let (name, code) = token.split_once(':').unwrap();
            let (name, zone) = match name.split_once('@') {
                Some((name, zone)) => (name, Some(zone.to_owned())),
                None => (name, None),
            };
            let mut node = RolloutNode::queued(name.into(), zone);
            let drained = Step::Ended(DrainState::Drained);
            match code {
                "q" => {}
                "d" => {
                    node.step = Step::Draining(format!("d-{name}"));
                    node.drain_id = Some(format!("d-{name}"));
                }
                "e" => node.step = drained,
                "t" => node.step = Step::Ended(DrainState::TimedOut),
                "w" => {
                    node.step = drained;
                    node.drain_id = Some(format!("d-{name}"));
                    node.back = Some(Back::Waiting(Some("boot-1".into())));
                    node.waiting_since = Some(t0());
                }
                "r" => {
                    node.step = drained;
                    node.back = Some(Back::Recovering);
                    node.waiting_since = Some(t0());
                    let web = WorkloadRef { kind: "Deployment".into(), namespace: "shop".into(), name: "web".into() };
                    node.touched = Some(Touched { workloads: vec![web], budgets: Vec::new() });
                }
                "u" => {
                    node.step = drained;
                    node.back = Some(Back::Uncordoned);
                }
                other => panic!("no such code {other}"),
            }
            if node.done() {
                node.done_at = Some(t0());
            }
            node
        })
        .collect();
    RolloutProgress {
        id: "night".into(),
        started_by: "alice".into(),
        started_at: t0(),
        reason: Some("kernel".into()),
        options: RolloutOptions {
            max_parallel: 1,
            one_per_zone: false,
            stop_on_failure: false,
            drain: DrainOptions { ignore_daemonsets: true, ..DrainOptions::default() },
            uncordon_when_back: false,
            verify: None,
            unattended: false,
            settle_seconds: 0,
            others_at_work: Default::default(),
        },
        state: RolloutState::Running,
        nodes,
        finished_at: None,
        runner: Some("replica-a as alice".into()),
        blocked: None,
        held: None,
        continued_by: None,
        estimate: None,
        spec_changed: None,
    }
}

/// The nodes in short form, as [`given`] reads them, with `x` not started, `i` interrupted, `c` cancelled, `f`
/// failed to start, `l` left awaited back, `v` unverified, `z` unrecovered and `b` back but its uncordon failed.
pub(crate) fn short(p: &RolloutProgress) -> String {
    let code = |n: &RolloutNode| match (&n.step, &n.back) {
        (Step::Queued, _) => "q",
        (Step::Draining(_), _) => "d",
        (Step::NotStarted, _) => "x",
        (_, Some(Back::Waiting(_))) => "w",
        (_, Some(Back::Recovering)) => "r",
        (_, Some(Back::Uncordoned)) => "u",
        (_, Some(Back::Left)) => "l",
        (_, Some(Back::Unverified(_))) => "v",
        (_, Some(Back::Unrecovered(_))) => "z",
        (_, Some(Back::Failed(_))) => "b",
        (Step::Ended(DrainState::Drained), None) => "e",
        (Step::Ended(DrainState::TimedOut), None) => "t",
        (Step::Ended(DrainState::Interrupted), None) => "i",
        (Step::Ended(DrainState::Cancelled), None) => "c",
        (Step::Ended(DrainState::Failed(_)), None) => "f",
        (Step::Ended(_), None) => "?",
    };
    p.nodes.iter().map(|n| format!("{}:{}", n.name, code(n))).collect::<Vec<_>>().join(" ")
}

/// The effects in words: `start n1`, `start n1 once its teams are told`, `start n1 past windows` (`, recording` on the override's first use),
/// `resume n1`, `restart n1`, `uncordon n1`, `cancel d-n1`, `done n1`, `ended Complete`, `silences`, `silences off`.
pub(crate) fn said(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .map(|e| match e {
            Effect::Start { node, teams_untold: true, .. } => format!("start {node} once its teams are told"),
            Effect::Start { node, window_override: None, .. } => format!("start {node}"),
            Effect::Start { node, record_override: true, .. } => format!("start {node} past windows, recording"),
            Effect::Start { node, .. } => format!("start {node} past windows"),
            Effect::Resume { node, window_override: None } => format!("resume {node}"),
            Effect::Resume { node, .. } => format!("resume {node} past windows"),
            Effect::Restart { node } => format!("restart {node}"),
            Effect::Uncordon { node } => format!("uncordon {node}"),
            Effect::Cancel { drains } => format!("cancel {}", drains.join(",")),
            Effect::Notify(Notice::NodeDone { node, .. }) => format!("done {node}"),
            Effect::Notify(Notice::PlanEnded { phase, failed, .. }) if failed.is_empty() => format!("ended {phase}"),
            Effect::Notify(Notice::PlanEnded { phase, failed, .. }) => format!("ended {phase} ({})", failed.join(",")),
            Effect::Notify(other) => format!("notify {}", other.kind()),
            Effect::Tell { team, notice } => {
                format!("tell {team} {} {}", notice.kind().rsplit('.').next().unwrap_or(""), notice.subject())
            }
            Effect::Silences { ending: false } => "silences".into(),
            Effect::Silences { ending: true } => "silences off".into(),
        })
        .collect()
}

pub(crate) fn look() -> Look {
    Look {
        now: now(),
        plan: PlanSeen { spec: SpecSeen::Same, ..PlanSeen::default() },
        lease_lost: false,
        stopping: false,
        maintenance: false,
        confirmed: false,
        drains: BTreeMap::new(),
        cards: BTreeMap::new(),
        unrecovered: BTreeMap::new(),
        uncordons: BTreeMap::new(),
        others: BTreeMap::new(),
        notify_lead: None,
        opens: BTreeMap::new(),
        teams: BTreeMap::new(),
    }
}

pub(crate) fn here(look: &mut Look, node: &str, state: DrainState) {
    look.drains.insert(node.into(), DrainSeen::Here(state));
}

/// The record a plan's own drain on `node` left, interrupted, with the plan's options as [`given`] has them.
fn own_record(node: &str, state: DrainState) -> DrainRecord {
    DrainRecord {
        id: format!("d-{node}"),
        started_by: "alice".into(),
        started_at: t0(),
        reason: Some("kernel".into()),
        options: given("").options.drain,
        state,
        pods_left: 1,
        finished_at: None,
    }
}

fn recorded(look: &mut Look, node: &str, record: DrainRecord) {
    look.drains.insert(node.into(), DrainSeen::Recorded(record));
}

/// A node's card: cordoned, Ready, with boot id `boot`, its Lease renewed now, kubelet v1.36.3.
fn card(look: &mut Look, node: &str, boot: &str, ready: bool) {
    let card = NodeCard {
        name: node.into(),
        unschedulable: true,
        ready: if ready { crate::ReadyStatus::Ready } else { crate::ReadyStatus::NotReady },
        boot_id: Some(boot.into()),
        lease_renewed: Some(now()),
        kubelet_version: Some("v1.36.3".into()),
        ..NodeCard::default()
    };
    look.cards.insert(node.into(), card);
}

fn verify(p: &mut RolloutProgress, deadline_seconds: u64) {
    p.options.uncordon_when_back = true;
    p.options.verify = Some(Verify { deadline_seconds, kubelet_version: Some("v1.37".into()), ..Verify::default() });
}

fn spec_change() -> SpecChanged {
    SpecChanged {
        pinned: 1,
        generation: 2,
        changes: vec![crate::spec_change::SpecChange {
            field: crate::spec_change::Field::Drain(crate::spec_change::DrainField::DisableEviction),
            pinned: "false".into(),
            now: "true".into(),
        }],
    }
}

/// The plan blocked for the spec change of [`spec_change`].
fn changed() -> Blocked {
    Blocked::Unpinned(Unpinned::SpecChanged { pinned: 1, generation: 2, changes: spec_change().changes })
}

fn keep<T>(_: &mut T) {}

/// What a row runs: a look, the end, or an outcome folded in.
#[derive(Clone, Copy)]
enum Run {
    Step,
    Finish { cancelled: bool },
    Absorb(fn() -> Outcome),
}

struct Row {
    name: &'static str,
    given: &'static str,
    status: fn(&mut RolloutProgress),
    look: fn(&mut Look),
    run: Run,
    then: &'static str,
    effects: &'static [&'static str],
    next: Next,
    /// Words the `blocked` reason holds; `None`: not blocked.
    blocked: Option<&'static str>,
    /// Anything else the row asserts.
    also: fn(&RolloutProgress) -> bool,
}

const ROW: Row = Row {
    name: "",
    given: "",
    status: keep::<RolloutProgress>,
    look: keep::<Look>,
    run: Run::Step,
    then: "",
    effects: &[],
    next: Next::Look,
    blocked: None,
    also: |_| true,
};

#[rustfmt::skip]
fn rows() -> Vec<Row> {
    let max2: fn(&mut RolloutProgress) = |p| p.options.max_parallel = 2;
    let evicting: fn(&mut Look) = |l| here(l, "n1", DrainState::Evicting);
    vec![
        // Phases and limits.
        Row { name: "a new plan starts its first node, one at a time", given: "n1:q n2:q", then: "n1:q n2:q",
              effects: &["start n1", "silences"], ..ROW },
        Row { name: "max_parallel 2 starts two", given: "n1:q n2:q n3:q", status: max2, then: "n1:q n2:q n3:q",
              effects: &["start n1", "start n2", "silences"], ..ROW },
        Row { name: "a draining node holds its place", given: "n1:d n2:q", look: evicting, then: "n1:d n2:q",
              effects: &["silences"], ..ROW },
        Row { name: "one per zone passes over a zone with a node out of service", given: "n1@a:d n2@a:q n3@b:q",
              status: |p| { p.options.max_parallel = 3; p.options.one_per_zone = true; }, look: evicting,
              then: "n1:d n2:q n3:q", effects: &["start n3", "silences"], ..ROW },
        Row { name: "one per zone starts one node of a zone per look", given: "n1@a:q n2@a:q n3@b:q", status: |p| {
              p.options.max_parallel = 3; p.options.one_per_zone = true; }, then: "n1:q n2:q n3:q",
              effects: &["start n1", "start n3", "silences"], ..ROW },
        Row { name: "a drain that ends frees its place in the same look, and is told", given: "n1:d n2:q",
              look: |l| here(l, "n1", DrainState::Drained), then: "n1:e n2:q",
              effects: &["done n1", "start n2", "silences"], ..ROW },
        Row { name: "a settle time holds the next start", given: "n1:e n2:q",
              status: |p| { p.options.settle_seconds = 120; }, then: "n1:e n2:q", effects: &["silences"], ..ROW },
        Row { name: "the next node starts once the settle time has passed", given: "n1:e n2:q",
              status: |p| { p.options.settle_seconds = 30; }, then: "n1:e n2:q",
              effects: &["start n2", "silences"], ..ROW },
        Row { name: "a paused plan starts nothing", given: "n1:q", look: |l| l.plan.paused = true, then: "n1:q",
              effects: &["silences"], also: |p| p.state == RolloutState::Paused, ..ROW },
        Row { name: "a paused plan still follows its drains", given: "n1:d n2:q",
              look: |l| { l.plan.paused = true; here(l, "n1", DrainState::Drained); }, then: "n1:e n2:q",
              effects: &["done n1", "silences"], also: |p| p.state == RolloutState::Paused, ..ROW },
        Row { name: "unpaused, it runs again", given: "n1:q", status: |p| p.state = RolloutState::Paused,
              then: "n1:q", effects: &["start n1", "silences"], also: |p| p.state == RolloutState::Running, ..ROW },
        Row { name: "every node ended: the plan ends", given: "n1:e n2:e", then: "n1:e n2:e",
              next: Next::End { cancelled: false }, ..ROW },
        Row { name: "stop on failure: a failure starts nothing more, and the plan ends", given: "n1:t n2:q",
              status: |p| p.options.stop_on_failure = true, then: "n1:t n2:q", next: Next::End { cancelled: false },
              ..ROW },
        Row { name: "stop on failure: the nodes draining finish first", given: "n1:d n2:t n3:q",
              status: |p| { p.options.stop_on_failure = true; p.options.max_parallel = 3; }, look: evicting,
              then: "n1:d n2:t n3:q", effects: &["silences"], ..ROW },
        Row { name: "without stop on failure the next node starts after a failure", given: "n1:t n2:q",
              then: "n1:t n2:q", effects: &["start n2", "silences"], ..ROW },
        Row { name: "a drain that times out ends failed", given: "n1:d",
              look: |l| here(l, "n1", DrainState::TimedOut), then: "n1:t", next: Next::End { cancelled: false },
              ..ROW },
        Row { name: "the end tells Complete and lifts the silences", given: "n1:e n2:e",
              run: Run::Finish { cancelled: false }, then: "n1:e n2:e", effects: &["ended Complete", "silences off"],
              next: Next::End { cancelled: false }, also: |p| p.state == RolloutState::Finished
                  && p.finished_at == Some(now()) && p.runner.is_none(), ..ROW },
        Row { name: "the end names the failed nodes", given: "n1:e n2:t", run: Run::Finish { cancelled: false },
              then: "n1:e n2:t", effects: &["ended Failed (n2)", "silences off"],
              next: Next::End { cancelled: false }, ..ROW },
        Row { name: "the end tells a node done in its last look", given: "n1:e n2:e",
              status: |p| p.nodes[1].done_at = None, run: Run::Finish { cancelled: false }, then: "n1:e n2:e",
              effects: &["done n2", "ended Complete", "silences off"], next: Next::End { cancelled: false }, ..ROW },
        // Cancel and delete.
        Row { name: "a cancel cancels the drains running and ends the plan", given: "n1:d n2:q",
              look: |l| { l.plan.cancelled = true; here(l, "n1", DrainState::Evicting); }, then: "n1:d n2:q",
              effects: &["cancel d-n1"], next: Next::End { cancelled: true }, ..ROW },
        Row { name: "a delete is a cancel", given: "n1:d", look: |l| l.plan.deleting = true, then: "n1:d",
              effects: &["cancel d-n1"], next: Next::End { cancelled: true }, ..ROW },
        Row { name: "a plan gone is a cancel", given: "n1:q", look: |l| l.plan.gone = true, then: "n1:q",
              next: Next::End { cancelled: true }, ..ROW },
        Row { name: "a cancelled plan resumes nothing it finds interrupted", given: "n1:d", look: |l| {
              l.plan.cancelled = true; recorded(l, "n1", own_record("n1", DrainState::Interrupted)); },
              then: "n1:d", effects: &["cancel d-n1"], next: Next::End { cancelled: true }, ..ROW },
        Row { name: "a cancelled plan ends: queued not started, a drain still running interrupted",
              given: "n1:d n2:q", look: evicting, run: Run::Finish { cancelled: true }, then: "n1:i n2:x",
              effects: &["ended Cancelled (n1)", "silences off"], next: Next::End { cancelled: true },
              also: |p| p.state == RolloutState::Cancelled, ..ROW },
        Row { name: "a cancelled drain reads cancelled at the end", given: "n1:d n2:q",
              look: |l| here(l, "n1", DrainState::Cancelled), run: Run::Finish { cancelled: true },
              then: "n1:c n2:x", effects: &["ended Cancelled (n1)", "silences off"], next: Next::End { cancelled: true },
              ..ROW },
        Row { name: "the end leaves a node awaited back cordoned", given: "n1:w", run: Run::Finish { cancelled: true },
              then: "n1:l", effects: &["ended Cancelled", "silences off"], next: Next::End { cancelled: true }, ..ROW },
        Row { name: "the end reads a node still recovering as unrecovered", given: "n1:r",
              run: Run::Finish { cancelled: true }, then: "n1:z", effects: &["ended Cancelled (n1)", "silences off"],
              next: Next::End { cancelled: true }, ..ROW },
        // Fencing.
        Row { name: "a lost Lease: nothing is done or written", given: "n1:d n2:q",
              look: |l| { l.lease_lost = true; here(l, "n1", DrainState::Drained); }, then: "n1:d n2:q",
              next: Next::Drop, ..ROW },
        Row { name: "a server that stops hands the plan over", given: "n1:d n2:q",
              look: |l| { l.stopping = true; here(l, "n1", DrainState::Interrupted); }, then: "n1:d n2:q",
              next: Next::Handover, also: |p| p.runner.is_none(), ..ROW },
        // Windows.
        Row { name: "a start carries the pinned override, recorded on its first use", given: "n1:q",
              look: |l| l.plan.window_override = Some("hotfix".into()), then: "n1:q",
              effects: &["start n1 past windows, recording", "silences"], ..ROW },
        Row { name: "an override recorded for a node is not recorded again", given: "n1:q",
              status: |p| p.nodes[0].overridden_at = Some(t0()),
              look: |l| l.plan.window_override = Some("hotfix".into()), then: "n1:q",
              effects: &["start n1 past windows", "silences"], ..ROW },
        Row { name: "what held a node is said anew at each look", given: "n1:q",
              status: |p| p.held = Some(held("n1")), then: "n1:q", effects: &["start n1", "silences"],
              also: |p| p.held.is_none(), ..ROW },
        Row { name: "a node a window holds waits, and the plan says why", given: "n1:q",
              run: Run::Absorb(|| Outcome::Held(held("n1"))), then: "n1:q",
              also: |p| p.held.as_ref().is_some_and(|h| h.window == "tokyo-nights"), ..ROW },
        Row { name: "an override used is kept with the node", given: "n1:q",
              run: Run::Absorb(|| Outcome::Overridden { node: "n1".into() }), then: "n1:q",
              also: |p| p.nodes[0].overridden_at == Some(now()), ..ROW },
        // Takeover.
        Row { name: "a takeover resumes the plan's own interrupted drain", given: "n1:d n2:q",
              look: |l| recorded(l, "n1", own_record("n1", DrainState::Interrupted)), then: "n1:d n2:q",
              effects: &["resume n1", "silences"], ..ROW },
        Row { name: "a takeover resumes past windows only with the pinned override", given: "n1:d", look: |l| {
              l.plan.window_override = Some("hotfix".into());
              recorded(l, "n1", own_record("n1", DrainState::Interrupted)); },
              then: "n1:d", effects: &["resume n1 past windows", "silences"], ..ROW },
        Row { name: "a takeover takes a drain that ended as ended", given: "n1:d",
              look: |l| recorded(l, "n1", own_record("n1", DrainState::Drained)), then: "n1:e",
              next: Next::End { cancelled: false }, ..ROW },
        Row { name: "a takeover waits for a drain another server still runs", given: "n1:d n2:q",
              look: |l| recorded(l, "n1", own_record("n1", DrainState::Evicting)), then: "n1:d n2:q",
              effects: &["silences"], ..ROW },
        Row { name: "a takeover with interrupted, ended and queued nodes", given: "n1:d n2:d n3:q n4:q",
              status: max2, look: |l| {
                  recorded(l, "n1", own_record("n1", DrainState::Interrupted));
                  recorded(l, "n2", own_record("n2", DrainState::Drained)); },
              then: "n1:d n2:e n3:q n4:q", effects: &["resume n1", "done n2", "start n3", "silences"], ..ROW },
        Row { name: "a record that names another drain blocks the plan, and nothing runs, nor resumes",
              given: "n1:d n2:d n3:q", look: |l| {
                  recorded(l, "n1", DrainRecord { id: "forged".into(), ..own_record("n1", DrainState::Interrupted) });
                  recorded(l, "n2", own_record("n2", DrainState::Interrupted)); },
              then: "n1:d n2:d n3:q", next: Next::Leave, blocked: Some("names drain forged, not this plan's drain d-n1"),
              also: |p| p.runner.is_none(), ..ROW },
        Row { name: "a record rewritten with other options blocks the plan", given: "n1:d", look: |l| {
              let mut record = own_record("n1", DrainState::Interrupted);
              record.options.disable_eviction = true;
              record.options.force = true;
              recorded(l, "n1", record); },
              then: "n1:d", next: Next::Leave, blocked: Some("asks for other drain options"), ..ROW },
        Row { name: "after a person confirmed the pin, a record's options choose nothing: resumed with the pin's",
              given: "n1:d", look: |l| {
                  l.confirmed = true;
                  let mut record = own_record("n1", DrainState::Interrupted);
                  record.options.force = true;
                  recorded(l, "n1", record); },
              then: "n1:d", effects: &["resume n1", "silences"], ..ROW },
        Row { name: "a drain that left no record starts again", given: "n1:d",
              look: |l| { l.drains.insert("n1".into(), DrainSeen::NoRecord); }, then: "n1:d",
              effects: &["restart n1", "silences"], ..ROW },
        Row { name: "a record that cannot be read is waited for", given: "n1:d",
              look: |l| { l.drains.insert("n1".into(), DrainSeen::Unread); }, then: "n1:d",
              effects: &["silences"], ..ROW },
        Row { name: "a drain interrupted here, as the server stops, stays draining for another to resume",
              given: "n1:d", look: |l| here(l, "n1", DrainState::Interrupted), then: "n1:d",
              effects: &["silences"], ..ROW },
        Row { name: "a resumed drain runs on under its new id", given: "n1:d",
              run: Run::Absorb(|| Outcome::Started { node: "n1".into(), drain: "d-n1-again".into() }), then: "n1:d",
              also: |p| p.nodes[0].step == Step::Draining("d-n1-again".into())
                  && p.nodes[0].drain_id.as_deref() == Some("d-n1-again"), ..ROW },
        // The pin.
        Row { name: "a spec change blocks new starts; the drains are still followed, and the runner stays",
              given: "n1:d n2:q", look: |l| {
                  l.plan.spec = SpecSeen::Changed {
                      why: Unpinned::SpecChanged { pinned: 1, generation: 2, changes: spec_change().changes },
                      diff: Some(spec_change()) };
                  here(l, "n1", DrainState::Drained); },
              then: "n1:e n2:q", blocked: Some("spec changed"),
              also: |p| p.spec_changed == Some(spec_change()) && p.runner.is_some(), ..ROW },
        Row { name: "a spec put back as it was confirmed goes on", given: "n1:e n2:q",
              status: |p| { p.spec_changed = Some(spec_change()); p.blocked = Some(changed()); },
              then: "n1:e n2:q", effects: &["start n2", "silences"], also: |p| p.spec_changed.is_none(), ..ROW },
        Row { name: "a spec not read this look stays as it was", given: "n1:e n2:q",
              status: |p| { p.spec_changed = Some(spec_change()); p.blocked = Some(changed()); },
              look: |l| l.plan.spec = SpecSeen::Unread, then: "n1:e n2:q", blocked: Some("the spec changed"), ..ROW },
        Row { name: "a plan never pinned waits for a person", given: "n1:q",
              look: |l| l.plan.spec = SpecSeen::Changed { why: Unpinned::NotPinned, diff: None }, then: "n1:q",
              next: Next::Leave, blocked: Some(""), also: |p| p.runner.is_none(), ..ROW },
        Row { name: "a forged pin waits for a person", given: "n1:q",
              look: |l| l.plan.spec = SpecSeen::Changed { why: Unpinned::PinForged, diff: None }, then: "n1:q",
              next: Next::Leave, blocked: Some(""), ..ROW },
        Row { name: "unattended taken off: the maintenance identity runs nothing more", given: "n1:q",
              look: |l| l.maintenance = true, then: "n1:q", next: Next::Leave, blocked: Some("no longer unattended"),
              ..ROW },
        Row { name: "an unattended plan runs as the maintenance identity", given: "n1:q",
              look: |l| { l.maintenance = true; l.plan.unattended = true; }, then: "n1:q",
              effects: &["start n1", "silences"], ..ROW },
        Row { name: "credentials refused block the plan", given: "n1:q",
              run: Run::Absorb(|| Outcome::CredentialsRefused { user: "alice".into() }), then: "n1:q",
              blocked: Some("credentials of alice are no longer accepted"), ..ROW },
        Row { name: "a blocked plan is left for a person", given: "n1:q n2:q",
              status: |p| p.blocked = Some(Blocked::NeedsMaintainer), then: "n1:q n2:q", next: Next::Leave,
              blocked: Some("needs a maintainer"), also: |p| p.runner.is_none(), ..ROW },
        Row { name: "a drain that could not start ends failed", given: "n1:q",
              run: Run::Absorb(|| Outcome::Failed { node: "n1".into(), failure: Failure::CredentialsExpired }),
              then: "n1:f", ..ROW },
        // The way back.
        Row { name: "a drained node is awaited back from the boot id it had", given: "n1:d",
              status: |p| p.options.uncordon_when_back = true,
              look: |l| { here(l, "n1", DrainState::Drained); card(l, "n1", "boot-1", true); }, then: "n1:w",
              effects: &["silences"], also: |p| p.nodes[0].back == Some(Back::Waiting(Some("boot-1".into())))
                  && p.nodes[0].waiting_since == Some(now()), ..ROW },
        Row { name: "a node back with a new boot id is uncordoned", given: "n1:w",
              status: |p| p.options.uncordon_when_back = true, look: |l| card(l, "n1", "boot-2", true),
              then: "n1:w", effects: &["uncordon n1", "silences"], also: |p| p.nodes[0].back_seen == Some(now()),
              ..ROW },
        Row { name: "a node Ready with the same boot id is not back", given: "n1:w",
              status: |p| p.options.uncordon_when_back = true, look: |l| card(l, "n1", "boot-1", true),
              then: "n1:w", effects: &["silences"], ..ROW },
        Row { name: "a node rebooted but not Ready is not back", given: "n1:w",
              status: |p| p.options.uncordon_when_back = true, look: |l| card(l, "n1", "boot-2", false),
              then: "n1:w", effects: &["silences"], ..ROW },
        Row { name: "a node not back by the deadline stays cordoned, unverified, and is not told as done", given: "n1:w n2:q",
              status: |p| { verify(p, 30); p.options.max_parallel = 2; }, look: |l| card(l, "n1", "boot-1", true),
              then: "n1:v n2:q", effects: &["silences"], next: Next::Look, ..ROW },
        Row { name: "a node back that fails a check waits until its deadline", given: "n1:w",
              status: |p| verify(p, 600), look: |l| card(l, "n1", "boot-2", true), then: "n1:w",
              effects: &["silences"], ..ROW },
        Row { name: "a node back that still fails a check at its deadline stays cordoned", given: "n1:w",
              status: |p| verify(p, 30), look: |l| card(l, "n1", "boot-2", true), then: "n1:v",
              effects: &["silences"], ..ROW },
        Row { name: "a node back that checks out is uncordoned", given: "n1:w",
              status: |p| { verify(p, 600); p.options.verify.as_mut().unwrap().kubelet_version = Some("v1.36".into()); },
              look: |l| card(l, "n1", "boot-2", true), then: "n1:w", effects: &["uncordon n1", "silences"], ..ROW },
        Row { name: "a node a person uncordoned is back", given: "n1:w",
              status: |p| p.options.uncordon_when_back = true,
              look: |l| {
                  card(l, "n1", "boot-1", true);
                  let c = l.cards.get_mut("n1").unwrap();
                  c.unschedulable = false;
                  c.drain_record = Some(own_record("n1", DrainState::Drained));
                  // Uncordoned by hand, not by the plan's "It is back": who did it is not copied into the plan.
                  let uncordon = super::facts::Uncordon { by: "ann".into(), at: now(), reason: None };
                  l.uncordons.insert("n1".into(), uncordon);
              },
              then: "n1:u", effects: &["done n1", "silences"],
              also: |p| p.nodes[0].said_back
                  == Some(crate::rollout::SaidBack { by: None, new_boot: false, checked: false }),
              ..ROW },
        Row { name: "who said a node was back is named once the history has it", given: "n1:u n2:q",
              status: |p| {
                  p.options.uncordon_when_back = true;
                  p.nodes[0].waiting_since = Some(t0());
                  p.nodes[0].said_back = Some(crate::rollout::SaidBack { by: None, new_boot: false, checked: false });
                  verify(p, 600);
              },
              look: |l| {
                  let reason = Some(super::facts::said_back_reason("night"));
                  l.uncordons.insert("n1".into(), super::facts::Uncordon { by: "ann".into(), at: now(), reason });
              },
              then: "n1:u n2:q", effects: &["start n2", "silences"],
              also: |p| p.nodes[0].said_back
                  == Some(crate::rollout::SaidBack { by: Some("ann".into()), new_boot: false, checked: true }),
              ..ROW },
        Row { name: "a card from before the drain's cordon is not a person's uncordon", given: "n1:w",
              status: |p| p.options.uncordon_when_back = true,
              look: |l| { card(l, "n1", "boot-1", true); l.cards.get_mut("n1").unwrap().unschedulable = false; },
              then: "n1:w", effects: &["silences"], ..ROW },
        Row { name: "a node whose drain touched a workload recovers once it is back", given: "n1:r",
              status: |p| verify(p, 600), look: |l| { l.unrecovered.insert("n1".into(), Vec::new()); },
              then: "n1:u", effects: &["done n1", "silences"], ..ROW },
        Row { name: "a node whose workload has not recovered by its deadline stops the plan, not told as done", given: "n1:r n2:q",
              status: |p| { verify(p, 30); p.options.max_parallel = 2; }, look: |l| {
                  let failed = vec![CheckFailure::NotReady { node: "n1".into() }];
                  l.unrecovered.insert("n1".into(), failed); },
              then: "n1:z n2:q", effects: &["silences"], ..ROW },
        Row { name: "a recovering node not looked at waits", given: "n1:r", status: |p| verify(p, 30),
              then: "n1:r", effects: &["silences"], ..ROW },
        Row { name: "an uncordon done: a node whose drain touched workloads recovers first", given: "n1:r",
              run: Run::Absorb(|| Outcome::Uncordoned { node: "n1".into(), result: Ok(()) }), then: "n1:r", ..ROW },
        Row { name: "an uncordon done: a node that touched nothing is back", given: "n1:w",
              run: Run::Absorb(|| Outcome::Uncordoned { node: "n1".into(), result: Ok(()) }), then: "n1:u", ..ROW },
        Row { name: "an uncordon refused leaves the node cordoned, saying why", given: "n1:w",
              run: Run::Absorb(|| Outcome::Uncordoned { node: "n1".into(), result: Err(Failure::CredentialsExpired) }),
              then: "n1:b", ..ROW },
    ]
}

fn held(node: &str) -> HeldNode {
    HeldNode {
        node: node.into(),
        window: "tokyo-nights".into(),
        hold: crate::window::Hold::Frozen { reason: "release".into(), until: now(), ends: None, zone: "UTC".into() },
        at: t0(),
    }
}

#[test]
fn each_row_of_the_plan_step_table() {
    let rows = rows();
    assert!(rows.len() >= 40, "the table has {} rows", rows.len());
    let mut failed = Vec::new();
    for row in &rows {
        let mut status = given(row.given);
        (row.status)(&mut status);
        let mut seen = look();
        (row.look)(&mut seen);
        let stepped = match row.run {
            Run::Step => step(&status, &seen),
            Run::Finish { cancelled } => finish(&status, &seen, cancelled),
            Run::Absorb(outcome) => {
                let mut p = status.clone();
                absorb(&mut p, outcome(), now());
                Stepped { status: p, effects: Vec::new(), next: Next::Look }
            }
        };
        let p = &stepped.status;
        let blocked_ok = match (row.blocked, &p.blocked) {
            (None, None) => true,
            (Some(words), Some(why)) => why.english().contains(words),
            _ => false,
        };
        let ok = short(p) == row.then
            && said(&stepped.effects) == row.effects
            && stepped.next == row.next
            && blocked_ok
            && (row.also)(p);
        if !ok {
            failed.push(format!(
                "{}:\n  nodes   {} (wanted {})\n  effects {:?} (wanted {:?})\n  next    {:?} (wanted {:?})\n  \
                 blocked {:?} (wanted {:?})\n  also    {}",
                row.name,
                short(p),
                row.then,
                said(&stepped.effects),
                row.effects,
                stepped.next,
                row.next,
                p.blocked,
                row.blocked,
                (row.also)(p),
            ));
        }
    }
    assert!(failed.is_empty(), "{} of {} rows failed:\n{}", failed.len(), rows.len(), failed.join("\n"));
}

#[test]
fn a_step_is_the_same_for_the_same_look() {
    let status = given("n1:d n2:q n3:w");
    let mut seen = look();
    here(&mut seen, "n1", DrainState::Drained);
    card(&mut seen, "n3", "boot-2", true);
    let (a, b) = (step(&status, &seen), step(&status, &seen));
    assert_eq!(a.status, b.status);
    assert_eq!(a.effects, b.effects);
}

#[test]
fn a_runner_looks_again_by_itself_only_while_time_or_a_node_decides() {
    type Change = fn(&mut RolloutProgress);
    let rows: Vec<(&str, &str, Change, Wake)> = vec![
        ("a node awaited back", "n1:w n2:q", |_| {}, Wake::Soon),
        ("a node recovering", "n1:r n2:e", |_| {}, Wake::Soon),
        ("awaited back while paused", "n1:w", |p| p.state = RolloutState::Paused, Wake::Soon),
        ("a window holds the next node", "n1:e n2:q", |p| p.held = Some(held("n2")), Wake::Soon),
        ("settling after a node, the next draining", "n1:e n2:d n3:q", |p| p.options.settle_seconds = 600, Wake::Soon),
        ("queued, none draining, nothing said why", "n1:q", |_| {}, Wake::Soon),
        ("a drain runs", "n1:d n2:q", |_| {}, Wake::Later),
        ("a drain runs while paused", "n1:d n2:q", |p| p.state = RolloutState::Paused, Wake::Later),
        ("paused with nodes queued", "n1:e n2:q", |p| p.state = RolloutState::Paused, Wake::OnChange),
        ("blocked for a person", "n1:e n2:q", |p| p.blocked = Some(Blocked::NeedsMaintainer), Wake::OnChange),
        (
            "a held node of a paused plan",
            "n1:q",
            |p| {
                p.state = RolloutState::Paused;
                p.held = Some(held("n1"));
            },
            Wake::OnChange,
        ),
        ("settled long ago, the next draining", "n1:e n2:d n3:q", |p| p.options.settle_seconds = 30, Wake::Later),
        ("stopped at a failure, none draining", "n1:t n2:q", |p| p.options.stop_on_failure = true, Wake::OnChange),
        ("ended", "n1:w", |p| p.state = RolloutState::Finished, Wake::OnChange),
        ("every node done, not yet ended", "n1:e n2:u", |_| {}, Wake::OnChange),
    ];
    let mut failed = Vec::new();
    for (name, nodes, change, wanted) in &rows {
        let mut p = given(nodes);
        change(&mut p);
        let got = wake(&p, now());
        if got != *wanted {
            failed.push(format!("{name}: {got:?} (wanted {wanted:?})"));
        }
    }
    assert!(failed.is_empty(), "{} of {} rows failed:\n{}", failed.len(), rows.len(), failed.join("\n"));
}

fn sighting(actor: crate::actor::Actor, doing: crate::actor::Doing, stale: bool) -> crate::actor::Sighting {
    crate::actor::Sighting { actor, doing, marker: "taint x".into(), at: None, detail: None, stale }
}

#[test]
fn a_node_another_tool_takes_down_waits_passed_over_or_is_skipped_and_names_the_tool() {
    use crate::actor::{Actor, Doing};
    use crate::rollout::OthersAtWork;
    let p = given("a:q b:q c:q");
    let mut l = look();
    l.others.insert("a".into(), vec![sighting(Actor::Karpenter, Doing::Disrupting, false)]);
    // Wait: a is passed over, b takes its room.
    let waited = step(&p, &l);
    assert_eq!(said(&waited.effects), ["start b", "silences"]);
    assert_eq!(short(&waited.status), "a:q b:q c:q");
    assert_eq!(waited.status.nodes[0].others, [Actor::Karpenter]);
    // Karpenter is done with it: a starts when there is room, its tools forgotten.
    let mut free = waited.status.clone();
    free.nodes[1].step = Step::Queued;
    let started = step(&free, &look());
    assert_eq!(said(&started.effects), ["start a", "silences"]);
    assert!(started.status.nodes[0].others.is_empty());
    // Skip: a is not started, and says why; b starts.
    let mut skipping = p.clone();
    skipping.options.others_at_work = OthersAtWork::Skip;
    let skipped = step(&skipping, &l);
    assert_eq!(said(&skipped.effects), ["start b", "silences"]);
    assert_eq!(short(&skipped.status), "a:x b:q c:q");
    assert_eq!(skipped.status.nodes[0].others, [Actor::Karpenter]);
    // A plain cordon, a soft candidate and a claim left behind hold nothing up.
    for (actor, doing, stale) in [
        (Actor::Unknown, Doing::Cordoned, false),
        (Actor::ClusterAutoscaler, Doing::RemovalCandidate, false),
        (Actor::Lifecycle, Doing::Draining, true),
    ] {
        let mut l = look();
        l.others.insert("a".into(), vec![sighting(actor, doing, stale)]);
        assert_eq!(said(&step(&skipping, &l).effects), ["start a", "silences"], "{actor:?} {doing:?} stale {stale}");
    }
    // A paused plan skips nothing.
    let mut paused_look = l.clone();
    paused_look.plan.paused = true;
    assert_eq!(short(&step(&skipping, &paused_look).status), "a:q b:q c:q");
}
