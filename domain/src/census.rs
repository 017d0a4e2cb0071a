//! The fleet's maintenance in counts, for the gauges of `/metrics` (API.md, "Metrics"): how many nodes are in each
//! state, how many plans in each phase and where their nodes stand, and the cordons nobody's maintenance explains.
//! Read from the same cards, drains and plans the board shows, by the same rules (`fleet::map_state`,
//! `tally::Standing`), so that a dashboard and the board never disagree.

use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::{
    fleet::{MapState, map_state},
    node::NodeCard,
    progress::{DrainProgress, DrainSummary, PodState},
    rollout::{RolloutProgress, RolloutState},
    tally::Standing,
    window::decide::Decision,
};

/// Every phase a plan reads as (`RolloutProgress::phase`), each a series of its own even when no plan is in it.
pub const PHASES: [&str; 6] = ["Running", "Paused", "Blocked", "Complete", "Failed", "Cancelled"];

/// The taint the API server's node controller puts on a cordoned node; its `timeAdded` dates a cordon that carries
/// no record of ours (a `kubectl cordon`).
const UNSCHEDULABLE_TAINT: &str = "node.kubernetes.io/unschedulable";

/// The counts, each map holding every key (a zero included), so that a series never vanishes from a scrape.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Nodes by the state the fleet map shows.
    pub nodes: BTreeMap<MapState, usize>,
    /// Plans by phase, ended ones included for as long as they are kept.
    pub plans: BTreeMap<&'static str, usize>,
    /// The nodes of the plans that have not ended, by where they stand.
    pub plan_nodes: BTreeMap<Standing, usize>,
    /// Cordoned nodes that no running drain and no plan still under way explains: a cordon by hand, or a drain's
    /// cordon left behind after it ended.
    pub unexplained_cordons: usize,
    /// When the oldest of them began, among those whose start is known (a cordon record, the drain that made it,
    /// or the unschedulable taint's time).
    pub oldest_unexplained_cordon: Option<Timestamp>,
    /// The pods the running drains wait on, by the class of what holds each ([`waiting`]): the drains whose
    /// progress this server has, its own.
    pub waiting: BTreeMap<&'static str, usize>,
    /// The nodes a maintenance window holds now, by the kind of the deciding window's hold ([`held`]).
    pub held: BTreeMap<&'static str, usize>,
    /// The nodes a maintenance window holds now, by the deciding window's name ([`held_by_window`]).
    pub held_by_window: BTreeMap<String, usize>,
    /// The windows with alert gates: those that an Alertmanager the server cannot ask holds (unless it fails open).
    pub alert_gated_windows: usize,
    /// The nodes that carry the sign that they need a reboot (`crate::reboot`).
    pub need_reboot: usize,
}

impl Census {
    /// How long the oldest unexplained cordon has lasted at `now`, in whole seconds (0 when there is none).
    pub fn oldest_unexplained_seconds(&self, now: Timestamp) -> i64 {
        self.oldest_unexplained_cordon.map_or(0, |since| now.duration_since(since).as_secs().max(0))
    }
}

/// Counts `cards`, with `drains` the drain each node's card shows (one a node: the running one, or else the latest,
/// dry runs left out, as the engine's drain registry gives them for the board) and `plans` every plan.
pub fn census<'a>(
    cards: impl IntoIterator<Item = &'a NodeCard>,
    drains: &[DrainSummary],
    plans: &[RolloutProgress],
) -> Census {
    let mut census = Census {
        nodes: MapState::ALL.into_iter().map(|s| (s, 0)).collect(),
        plans: PHASES.into_iter().map(|p| (p, 0)).collect(),
        plan_nodes: Standing::ALL.into_iter().map(|s| (s, 0)).collect(),
        waiting: crate::blocker::CLASSES.into_iter().map(|c| (c, 0)).collect(),
        held: crate::window::decide::HOLD_KINDS.into_iter().map(|k| (k, 0)).collect(),
        ..Census::default()
    };
    let shown: BTreeMap<&str, &DrainSummary> = drains.iter().map(|d| (d.node.as_str(), d)).collect();
    let mut in_plans: BTreeMap<&str, ()> = BTreeMap::new();
    for plan in plans {
        *census.plans.entry(plan.phase()).or_default() += 1;
        if matches!(plan.state, RolloutState::Finished | RolloutState::Cancelled) {
            continue;
        }
        for node in &plan.nodes {
            *census.plan_nodes.entry(Standing::of(node)).or_default() += 1;
            in_plans.insert(&node.name, ());
        }
    }
    for card in cards {
        let drain = shown.get(card.name.as_str()).copied();
        *census.nodes.entry(map_state(card, drain)).or_default() += 1;
        census.need_reboot += usize::from(card.reboot.is_some());
        let draining = drain.is_some_and(|d| d.state.is_running());
        if !card.unschedulable || draining || in_plans.contains_key(card.name.as_str()) {
            continue;
        }
        census.unexplained_cordons += 1;
        let since = card
            .cordon_record
            .as_ref()
            .map(|c| c.at)
            .or_else(|| card.drain_record.as_ref().map(|d| d.started_at))
            .or_else(|| card.taints.iter().find(|t| t.key == UNSCHEDULABLE_TAINT).and_then(|t| t.time_added));
        if let Some(since) = since {
            census.oldest_unexplained_cordon = Some(census.oldest_unexplained_cordon.map_or(since, |o| o.min(since)));
        }
    }
    census
}

/// The pods the running drains of `drains` wait on at `now`, by the class of what holds each: its first blocker
/// as the drain page shows it (`PodState::blockers_at`), `unknown` when none is known. A pod queued, being evicted or
/// gone waits on nothing and is not counted; every class has its key, a zero included.
pub fn waiting<'a>(
    drains: impl IntoIterator<Item = &'a DrainProgress>,
    now: Timestamp,
) -> BTreeMap<&'static str, usize> {
    let mut waiting: BTreeMap<&'static str, usize> = crate::blocker::CLASSES.into_iter().map(|c| (c, 0)).collect();
    for drain in drains.into_iter().filter(|d| d.state.is_running()) {
        for pod in &drain.pods {
            if !matches!(pod.state, PodState::Blocked { .. } | PodState::Terminating { .. }) {
                continue;
            }
            let class = pod.state.blockers_at(now).first().map_or("unknown", crate::blocker::Blocker::class);
            *waiting.entry(class).or_default() += 1;
        }
    }
    waiting
}

/// The nodes of `decisions` that a window holds, each once, by the kind of the hold of the window that decides
/// (the one the board names); every kind has its key, a zero included.
pub fn held<'a>(decisions: impl IntoIterator<Item = &'a Decision>) -> BTreeMap<&'static str, usize> {
    let mut held: BTreeMap<&'static str, usize> =
        crate::window::decide::HOLD_KINDS.into_iter().map(|k| (k, 0)).collect();
    for hold in decisions.into_iter().filter_map(Decision::deciding) {
        *held.entry(hold.hold.kind()).or_default() += 1;
    }
    held
}

/// The most windows named in [`held_by_window`]'s keys: a metric's series are few, whatever the cluster holds.
pub const MAX_WINDOW_SERIES: usize = 50;
/// The key of the windows past [`MAX_WINDOW_SERIES`], which no window's name can be (names are DNS subdomains).
pub const OTHER_WINDOWS: &str = "(others)";

/// The nodes of `decisions` that a window holds, each once, by the name of the window that decides; every window of
/// `windows` has its key, a zero included. The first [`MAX_WINDOW_SERIES`] names in order are keys of their own;
/// the rest count under [`OTHER_WINDOWS`].
pub fn held_by_window<'a>(
    decisions: impl IntoIterator<Item = &'a Decision>,
    windows: &[&str],
) -> BTreeMap<String, usize> {
    let mut named: Vec<&str> = windows.to_vec();
    named.sort_unstable();
    named.dedup();
    let over = named.len() > MAX_WINDOW_SERIES;
    named.truncate(MAX_WINDOW_SERIES);
    let mut held: BTreeMap<String, usize> = named.iter().map(|w| ((*w).to_owned(), 0)).collect();
    if over {
        held.insert(OTHER_WINDOWS.to_owned(), 0);
    }
    for window in decisions.into_iter().filter_map(Decision::deciding).map(|h| h.window.as_str()) {
        let key = if named.binary_search(&window).is_ok() { window } else { OTHER_WINDOWS };
        *held.entry(key.to_owned()).or_default() += 1;
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        ReadyStatus,
        eviction::Taint,
        progress::{CordonRecord, DrainState},
        rollout::{RolloutNode, RolloutOptions, Step},
    };

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn card(name: &str, cordoned: bool) -> NodeCard {
        NodeCard { name: name.into(), ready: ReadyStatus::Ready, unschedulable: cordoned, ..Default::default() }
    }

    fn drain(node: &str, state: DrainState, started: &str) -> DrainSummary {
        DrainSummary {
            id: format!("{node}-{started}"),
            node: node.into(),
            started_by: "alice".into(),
            started_at: at(started),
            reason: None,
            dry_run: false,
            state,
            total: 1,
            done: 0,
            blocked_by: None,
            blocked_in: None,
            blocker: None,
            shutting_down_until: None,
            finished_at: None,
            elsewhere: None,
        }
    }

    fn plan(state: RolloutState, nodes: &[(&str, Step)]) -> RolloutProgress {
        let options: RolloutOptions = serde_json::from_str("{}").unwrap();
        RolloutProgress {
            id: "maintenance-a".into(),
            started_by: "alice".into(),
            started_at: at("2026-12-06T20:00:00Z"),
            reason: None,
            options,
            state,
            nodes: nodes
                .iter()
                .map(|(name, step)| RolloutNode { step: step.clone(), ..RolloutNode::queued((*name).into(), None) })
                .collect(),
            finished_at: None,
            runner: None,
            blocked: None,
            held: None,
            continued_by: None,
            estimate: None,
            spec_changed: None,
        }
    }

    #[test]
    fn a_held_node_counts_once_by_its_deciding_windows_hold() {
        use crate::window::decide::{Held, Hold};
        let frozen = Hold::Frozen {
            reason: "release".into(),
            until: at("2026-12-07T00:00:00Z"),
            ends: None,
            zone: "UTC".into(),
        };
        let budget = Hold::Budget { in_maintenance: 2, max: 2 };
        let decision = |node: &str, holds: Vec<Held>, decided_by: Option<&str>| Decision {
            node: node.into(),
            windows: holds.iter().map(|h| h.window.clone()).collect(),
            holds,
            decided_by: decided_by.map(Into::into),
            opens: None,
        };
        let both = vec![
            Held { window: "nights".into(), hold: budget.clone() },
            Held { window: "freeze".into(), hold: frozen.clone() },
        ];
        let decisions = [
            decision("a", both.clone(), Some("freeze")),
            decision("b", both, Some("nights")),
            decision("c", vec![Held { window: "nights".into(), hold: budget }], Some("nights")),
            decision("d", Vec::new(), None),
        ];
        let held = held(&decisions);
        assert_eq!((held["frozen"], held["budget"], held["alert"]), (1, 2, 0));
        assert_eq!(held.values().sum::<usize>(), 3);
        assert_eq!(held.len(), crate::window::decide::HOLD_KINDS.len());
    }

    #[test]
    fn held_nodes_count_by_their_deciding_window_and_many_windows_share_one_key() {
        use crate::window::decide::{Held, Hold};
        let decision = |node: &str, window: Option<&str>| Decision {
            node: node.into(),
            windows: window.into_iter().map(Into::into).collect(),
            holds: window
                .map(|w| Held { window: w.into(), hold: Hold::Budget { in_maintenance: 1, max: 1 } })
                .into_iter()
                .collect(),
            decided_by: window.map(Into::into),
            opens: None,
        };
        let decisions = [decision("a", Some("nights")), decision("b", Some("nights")), decision("c", None)];
        let held = held_by_window(&decisions, &["nights", "weekends"]);
        assert_eq!(held, BTreeMap::from([("nights".into(), 2), ("weekends".into(), 0)]));
        // Sixty windows: the first fifty by name have keys; a node held by the sixtieth counts under the rest.
        let names: Vec<String> = (0..60).map(|i| format!("w{i:02}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let held = held_by_window(&[decision("a", Some("w59")), decision("b", Some("w00"))], &refs);
        assert_eq!(held.len(), MAX_WINDOW_SERIES + 1);
        assert_eq!((held["w00"], held[OTHER_WINDOWS], held.get("w59")), (1, 1, None));
    }

    #[test]
    fn the_pods_a_running_drain_waits_on_count_by_their_first_blockers_class() {
        use crate::{
            blocker::Blocker,
            drain::DrainOptions,
            progress::{PodProgress, PodState},
        };
        let now = at("2026-12-06T20:00:00Z");
        let pod = |name: &str, state: PodState| PodProgress {
            namespace: "ns".into(),
            name: name.into(),
            uid: name.into(),
            state,
            started_at: None,
            finished_at: None,
            evicted_at: None,
        };
        let blocked =
            |blockers: Vec<Blocker>| PodState::Blocked { pdb: None, message: "429".into(), retry_at: now, blockers };
        let never = Blocker::BudgetNever { budget: "db".into(), expected: 3, desired: 3 };
        let zero = Blocker::BudgetAtZero { budget: "web".into(), healthy: 2, desired: 2, to_become_ready: 1 };
        let drain = |state: DrainState, pods: Vec<PodProgress>| DrainProgress {
            id: "d".into(),
            node: "n".into(),
            started_by: "alice".into(),
            started_at: now,
            reason: None,
            options: DrainOptions::default(),
            state,
            plan: None,
            pods,
            finished_at: None,
            estimate: None,
        };
        let running = drain(
            DrainState::Evicting,
            vec![
                pod("a", blocked(vec![never.clone(), zero.clone()])),
                pod("b", blocked(vec![zero.clone()])),
                pod("c", blocked(Vec::new())),
                // Shutting down within its grace period: the drain page's blocker, counted down from its deadline.
                pod(
                    "d",
                    PodState::Terminating { deletion_deadline: Some(at("2026-12-06T20:00:30Z")), blockers: vec![] },
                ),
                // Waiting on nothing.
                pod("e", PodState::Pending),
                pod("f", PodState::Evicting),
                pod("g", PodState::Gone),
            ],
        );
        // A drain that ended waits on nothing, whatever its pods last said.
        let ended = drain(DrainState::TimedOut, vec![pod("h", blocked(vec![never.clone()]))]);
        let waiting = waiting([&running, &ended], now);
        assert_eq!(waiting["budget-never"], 1);
        assert_eq!(waiting["budget-at-zero"], 1);
        assert_eq!(waiting["unknown"], 1);
        assert_eq!(waiting["shutting-down"], 1);
        assert_eq!(waiting.values().sum::<usize>(), 4);
        assert_eq!(waiting.len(), crate::blocker::CLASSES.len(), "every class, a zero included");
    }

    #[test]
    fn every_series_is_there_even_at_zero() {
        let c = census([], &[], &[]);
        assert_eq!(c.nodes.len(), MapState::ALL.len());
        assert_eq!(c.plans.len(), PHASES.len());
        assert_eq!(c.plan_nodes.len(), Standing::ALL.len());
        assert!(c.nodes.values().chain(c.plans.values()).chain(c.plan_nodes.values()).all(|n| *n == 0));
        assert_eq!(c.oldest_unexplained_seconds(at("2026-12-06T20:00:00Z")), 0);
    }

    #[test]
    fn a_cordon_is_explained_by_a_running_drain_or_a_plan_under_way_and_else_counted_with_its_age() {
        let now = at("2026-12-06T20:00:00Z");
        let mut by_hand = card("by-hand", true);
        by_hand.cordon_record = Some(CordonRecord { by: "bob".into(), at: at("2026-12-06T08:00:00Z"), reason: None });
        let mut by_kubectl = card("by-kubectl", true);
        by_kubectl.taints = vec![Taint {
            key: UNSCHEDULABLE_TAINT.into(),
            value: None,
            effect: "NoSchedule".into(),
            time_added: Some(at("2026-12-06T02:00:00Z")),
        }];
        let undated = card("undated", true);
        let cards = [
            card("ready", false),
            by_hand,
            by_kubectl,
            undated,
            card("draining", true),
            card("left-drained", true),
            card("in-plan", true),
            card("in-ended-plan", true),
        ];
        let drains = [
            drain("draining", DrainState::Evicting, "2026-12-06T19:00:00Z"),
            drain("left-drained", DrainState::Drained, "2026-12-06T10:00:00Z"),
        ];
        let plans = [
            plan(RolloutState::Running, &[("in-plan", Step::Queued)]),
            plan(RolloutState::Finished, &[("in-ended-plan", Step::Queued)]),
        ];
        let c = census(&cards, &drains, &plans);
        // Explained: the running drain and the plan under way; not the ended plan, nor a drain that has ended.
        assert_eq!(c.unexplained_cordons, 5, "{c:?}");
        // The kubectl cordon, dated by its taint, is the oldest; the undated one counts but has no age.
        assert_eq!(c.oldest_unexplained_cordon, Some(at("2026-12-06T02:00:00Z")));
        assert_eq!(c.oldest_unexplained_seconds(now), 18 * 3600);
        assert_eq!(c.nodes[&MapState::Ready], 1);
        assert_eq!(c.nodes[&MapState::Draining], 1);
        assert_eq!(c.nodes[&MapState::Drained], 1, "the drain that emptied left-drained");
        assert_eq!(c.nodes[&MapState::Cordoned], 5);
        assert_eq!(c.nodes.values().sum::<usize>(), cards.len());
    }

    #[test]
    fn plans_count_by_phase_and_only_those_under_way_count_their_nodes() {
        let plans = [
            plan(RolloutState::Running, &[("a", Step::Queued), ("b", Step::Queued)]),
            plan(RolloutState::Paused, &[("c", Step::Queued)]),
            plan(RolloutState::Cancelled, &[("d", Step::Queued)]),
        ];
        let c = census([], &[], &plans);
        assert_eq!((c.plans["Running"], c.plans["Paused"], c.plans["Cancelled"], c.plans["Complete"]), (1, 1, 1, 0));
        assert_eq!(c.plan_nodes[&Standing::Queued], 3, "{c:?}");
        assert_eq!(c.plan_nodes.values().sum::<usize>(), 3, "the cancelled plan's node is not counted");
    }
}
