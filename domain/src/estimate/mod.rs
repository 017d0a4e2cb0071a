//! How long a drain, or a plan of drains, should take, before anyone clicks: a range, and the likely value within
//! it.
//!
//! A node's drain ends when the last pod it evicts is gone. What decides when that is, and so what this models:
//! - **each pod's time to stop** once evicted: at most its grace period; what the pods of past drains took, where
//!   the durable history has it ([`Learned`]);
//! - **budgets**: a budget lets go only as many of its pods at once as it allows; each further one waits until a
//!   replacement is Ready elsewhere, which takes as long as that workload's pods took to become Ready, read from
//!   their own conditions ([`BudgetForecast::ready_seconds`]), plus the controllers' reaction;
//! - **the pace**: every eviction, and each node's cordon and records, spends a token of the server's bucket, which
//!   every node of a plan shares ([`Pace`]);
//! - in a plan, **at most `max_parallel` nodes at once**, and the settle time after each.
//!
//! It is a small simulation of exactly that, run three times: every pod stopping as fast as the evidence allows
//! (the low end), as past drains saw (the likely value), and taking its whole grace period (the high end).
//!
//! What it leaves out, and so where it errs: replacements that land on nodes of the plan still queued and are
//! evicted again, other drains' use of the same budgets, the API server's own latency, and the one-per-zone rule
//! (which only delays, so the high end of such a plan is low).

mod inputs;
mod sim;

pub use inputs::*;

use serde::{Deserialize, Serialize};

/// What past drains saw pods take to stop once evicted: each drain's median, over this node's recent drains or,
/// where it has none, other nodes'.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Learned {
    /// The least of those medians.
    pub low_seconds: u32,
    /// Their median.
    pub likely_seconds: u32,
    /// How many drains they come from.
    pub drains: u32,
    /// They are this node's own drains (else other nodes').
    pub this_node: bool,
}

impl Learned {
    /// Reads `(stop_seconds of a drain, of this node)` pairs, newest first: this node's own drains when it has any,
    /// else the others'. At most `keep` drains count.
    pub fn from_drains(drains: impl IntoIterator<Item = (u32, bool)>, keep: usize) -> Option<Learned> {
        let all: Vec<(u32, bool)> = drains.into_iter().collect();
        let this_node = all.iter().any(|(_, own)| *own);
        let mut seen: Vec<u32> =
            all.iter().filter(|(_, own)| *own == this_node).map(|(s, _)| *s).take(keep.max(1)).collect();
        if seen.is_empty() {
            return None;
        }
        seen.sort_unstable();
        Some(Learned {
            low_seconds: seen[0],
            likely_seconds: median(&seen),
            drains: u32::try_from(seen.len()).unwrap_or(u32::MAX),
            this_node,
        })
    }
}

/// What an estimate is founded on, so that the page can say how far to trust it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Basis {
    /// No past drain says how fast pods stop: the likely value takes each pod's whole grace period.
    GracePeriods,
    /// The pods of these past drains' stop times.
    PastDrains { drains: u32, this_node: bool },
}

impl Basis {
    /// A stable name for it, for the page's test ids: `grace`, `own` or `others`.
    pub fn label(&self) -> &'static str {
        match self {
            Basis::GracePeriods => "grace",
            Basis::PastDrains { this_node: true, .. } => "own",
            Basis::PastDrains { this_node: false, .. } => "others",
        }
    }
}

/// How long a drain should take, in seconds from its start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Estimate {
    pub low_seconds: u64,
    pub likely_seconds: u64,
    pub high_seconds: u64,
    pub basis: Basis,
    /// The drain's timeout, where the high end reaches it: the drain may end then with pods left (`TimedOut`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<u64>,
    /// What it counts of the waits for nodes to come back (a plan's; a single drain awaits nothing).
    #[serde(default, skip_serializing_if = "Reboots::is_not_awaited")]
    pub reboots: Reboots,
}

/// What a drain's entries in the history say of its time: the estimate made before it started (on its start and
/// its end), and on its end how long it took and how long its pods took to stop, which later estimates learn from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainTiming {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub took_seconds: Option<u64>,
    /// The median time its evicted pods took from the eviction to gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_seconds: Option<u32>,
}

impl DrainTiming {
    /// How far off its estimate was: the time it took over the estimate's likely time (2.0: twice as long, 0.5:
    /// half as long), each at least a second so that a drain estimated or done in under one reads as 1 s. `None`
    /// without an estimate or an end.
    pub fn estimate_ratio(&self) -> Option<f64> {
        let (estimate, took) = (self.estimate.as_ref()?, self.took_seconds?);
        // Seconds of a drain are far below 2^52: exact as f64.
        Some(took.max(1) as f64 / estimate.likely_seconds.max(1) as f64)
    }
}

/// A plan's estimate: its total, and each node's own drain in its order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanEstimate {
    pub total: Estimate,
    pub nodes: Vec<Estimate>,
    /// The first maintenance window covering its nodes to close, for the page to set the total against; `None`
    /// where no window open now covers them (the server fills it in: the estimate itself knows no windows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<crate::window::WindowFit>,
}

/// How a plan's estimate sits against a window's close, as far as the estimate covers the plan: its high end
/// counts each awaited node's deadline, and with no deadline nothing can be told (unless the drains alone run past).
pub fn fit(window: &crate::window::WindowFit, estimate: &Estimate) -> crate::window::Fit {
    use crate::window::Fit;
    let drains = window.fit(estimate.likely_seconds, estimate.likely_seconds);
    match estimate.reboots {
        Reboots::Unbounded if drains != Fit::LikelyOver => Fit::Untold,
        _ => window.fit(estimate.likely_seconds, estimate.high_seconds),
    }
}

/// The estimate of one node's drain, with its options' `limits`.
pub fn drain(
    forecast: &Forecast,
    pace: Pace,
    limits: Limits,
    learned: Option<&Learned>,
) -> Result<Estimate, NoEstimate> {
    let shape = Shape { max_parallel: 1, settle_seconds: 0, pace, limits, reboots: Reboots::NotAwaited };
    plan(std::slice::from_ref(forecast), shape, learned).map(|p| p.total)
}

/// The estimate of a plan draining `nodes` in their order, with `shape`.
pub fn plan(nodes: &[Forecast], shape: Shape, learned: Option<&Learned>) -> Result<PlanEstimate, NoEstimate> {
    let skip_wait = shape.limits.skip_wait_seconds.map(|s| s.min(u64::from(MAX_STOP_SECONDS)));
    if skip_wait.is_none() && nodes.iter().any(|n| n.unreachable && !n.pods.is_empty()) {
        return Err(NoEstimate::Unreachable);
    }
    let stop = |node: &Forecast, pod: &PodForecast, case: Case| -> u64 {
        let grace = shape.limits.grace_seconds.unwrap_or(pod.grace_seconds).min(MAX_STOP_SECONDS);
        // On a node that stopped reporting a pod is never seen gone: the drain stops waiting for it once it has
        // been deleting for the skip-wait limit past its deletion time (its grace period from the eviction).
        if let (true, Some(skip)) = (node.unreachable, skip_wait) {
            return (u64::from(grace) + skip) * 1_000;
        }
        let seconds = match (case, learned) {
            (Case::High, _) => grace,
            (Case::Low, None) => 0,
            (Case::Low, Some(l)) => l.low_seconds.min(grace),
            (Case::Likely, None) => grace,
            (Case::Likely, Some(l)) => l.likely_seconds.min(grace),
        };
        u64::from(seconds) * 1_000
    };
    // Only a deadline bounds the wait for a node to come back, and only the high end counts it.
    let hold = |case: Case| match (case, shape.reboots) {
        (Case::High, Reboots::UpTo { seconds }) => seconds.saturating_mul(1_000),
        _ => 0,
    };
    let run = |case: Case| sim::simulate(nodes, shape, hold(case), |node, pod| stop(node, pod, case));
    let (low, likely, high) = (run(Case::Low)?, run(Case::Likely)?, run(Case::High)?);
    let timeout = shape.limits.timeout_seconds;
    let basis = match learned {
        Some(l) => Basis::PastDrains { drains: l.drains, this_node: l.this_node },
        None => Basis::GracePeriods,
    };
    // A drain reaches its timeout when its high end does (its span stops there: END_SEEN_MS after the limit).
    let cut = |span_ms: u64| timeout.filter(|t| span_ms >= t.saturating_mul(1_000));
    let estimate = |low: u64, likely: u64, high: u64, timeout_seconds: Option<u64>, reboots: Reboots| Estimate {
        low_seconds: seconds(low.min(likely)),
        likely_seconds: seconds(likely),
        high_seconds: seconds(high.max(likely)),
        basis: basis.clone(),
        timeout_seconds,
        reboots,
    };
    let each: Vec<Estimate> = (0..nodes.len())
        .map(|i| estimate(low.spans[i], likely.spans[i], high.spans[i], cut(high.spans[i]), Reboots::NotAwaited))
        .collect();
    let cut_any = each.iter().find_map(|e| e.timeout_seconds);
    let total = estimate(low.end, likely.end, high.end, cut_any, shape.reboots);
    Ok(PlanEstimate { total, nodes: each, window: None })
}

#[derive(Clone, Copy)]
enum Case {
    Low,
    Likely,
    High,
}

/// Milliseconds to whole seconds, rounded.
fn seconds(ms: u64) -> u64 {
    ms.saturating_add(500) / 1_000
}

fn median(sorted: &[u32]) -> u32 {
    match sorted.len() {
        0 => 0,
        n if n % 2 == 1 => sorted[n / 2],
        n => u32::try_from((u64::from(sorted[n / 2 - 1]) + u64::from(sorted[n / 2])) / 2).unwrap_or(u32::MAX),
    }
}

/// The median of `values`, if there are any: what the workload's pods took to become Ready, say.
pub fn median_of(values: impl IntoIterator<Item = u32>) -> Option<u32> {
    let mut v: Vec<u32> = values.into_iter().collect();
    v.sort_unstable();
    (!v.is_empty()).then(|| median(&v))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn the_estimate_ratio_is_the_time_taken_over_the_likely_time() {
        let estimate = |likely| Estimate {
            low_seconds: 0,
            likely_seconds: likely,
            high_seconds: likely * 2,
            basis: Basis::GracePeriods,
            timeout_seconds: None,
            reboots: Reboots::default(),
        };
        let timing =
            |likely, took| DrainTiming { estimate: Some(estimate(likely)), took_seconds: took, stop_seconds: None };
        assert_eq!(timing(60, Some(120)).estimate_ratio(), Some(2.0));
        assert_eq!(timing(60, Some(15)).estimate_ratio(), Some(0.25));
        // Under a second either way reads as one.
        assert_eq!(timing(0, Some(0)).estimate_ratio(), Some(1.0));
        assert_eq!(timing(0, Some(30)).estimate_ratio(), Some(30.0));
        assert_eq!(timing(60, None).estimate_ratio(), None);
        assert_eq!(DrainTiming { took_seconds: Some(5), ..DrainTiming::default() }.estimate_ratio(), None);
    }

    fn pods(n: usize, budget: Option<&str>, grace: u32) -> Vec<PodForecast> {
        (0..n).map(|_| PodForecast { budget: budget.map(str::to_owned), grace_seconds: grace }).collect()
    }

    fn budget(allowed: u32, ready_seconds: u32) -> BudgetForecast {
        BudgetForecast { allowed, ready_seconds, never: false }
    }

    const FREE: Pace = Pace { per_second: 0, burst: 0 };
    const NONE: Limits = Limits { grace_seconds: None, timeout_seconds: None, skip_wait_seconds: None };

    #[test]
    fn pods_without_budgets_go_together_and_take_their_grace_at_most() {
        let node = Forecast { pods: pods(5, None, 30), ..Default::default() };
        let e = drain(&node, FREE, NONE, None).unwrap();
        assert_eq!((e.low_seconds, e.likely_seconds, e.high_seconds), (0, 30, 30));
        assert_eq!(e.basis, Basis::GracePeriods);
    }

    #[test]
    fn past_drains_set_the_likely_value_within_the_grace() {
        let node = Forecast { pods: pods(5, None, 30), ..Default::default() };
        let learned = Learned { low_seconds: 8, likely_seconds: 10, drains: 3, this_node: true };
        let e = drain(&node, FREE, NONE, Some(&learned)).unwrap();
        assert_eq!((e.low_seconds, e.likely_seconds, e.high_seconds), (8, 10, 30));
        let short = Forecast { pods: pods(1, None, 5), ..Default::default() };
        assert_eq!(drain(&short, FREE, NONE, Some(&learned)).unwrap().likely_seconds, 5, "never past the grace period");
    }

    #[test]
    fn a_budget_serialises_its_pods_one_replacement_at_a_time() {
        // Four pods under a budget that allows one: each after the last one's replacement is Ready (9 s + 1 s).
        let node = Forecast {
            pods: pods(4, Some("ns/web"), 0),
            budgets: [("ns/web".into(), budget(1, 9))].into(),
            unreachable: false,
        };
        let e = drain(&node, FREE, NONE, None).unwrap();
        assert_eq!(e.likely_seconds, 30, "three waits of 10 s, then the last pod goes at once");
        // Allowing two: two waves.
        let wide = Forecast { budgets: [("ns/web".into(), budget(2, 9))].into(), ..node.clone() };
        assert_eq!(drain(&wide, FREE, NONE, None).unwrap().likely_seconds, 10);
        // The budget's wait and the pods' stop overlap: the last pod goes at 30 s and takes its 20 s.
        let slow = Forecast { pods: pods(4, Some("ns/web"), 20), ..node };
        assert_eq!(drain(&slow, FREE, NONE, None).unwrap().likely_seconds, 50);
    }

    #[test]
    fn a_budget_that_allows_nothing_for_now_waits_one_replacement() {
        let node = Forecast {
            pods: pods(1, Some("ns/web"), 0),
            budgets: [("ns/web".into(), budget(0, 4))].into(),
            unreachable: false,
        };
        assert_eq!(drain(&node, FREE, NONE, None).unwrap().likely_seconds, 5);
    }

    #[test]
    fn a_budget_that_never_allows_has_no_end() {
        let never = BudgetForecast { allowed: 0, ready_seconds: 1, never: true };
        let node = Forecast {
            pods: pods(2, Some("ns/db"), 30),
            budgets: [("ns/db".into(), never)].into(),
            unreachable: false,
        };
        assert_eq!(drain(&node, FREE, NONE, None), Err(NoEstimate::Held { budget: "ns/db".into() }));
    }

    #[test]
    fn the_pace_spaces_the_evictions() {
        // 30 evictions: 10 at once, then 5 a second, so the last goes at 20 / 5 = 4 s (the cordon spends no token).
        let node = Forecast { pods: pods(30, None, 10), ..Default::default() };
        let e = drain(&node, Pace { per_second: 5, burst: 10 }, NONE, None).unwrap();
        assert_eq!(e.likely_seconds, 14, "4 s of pace, 10 s to stop, 0.3 s to see it");
        let free = drain(&node, FREE, NONE, None).unwrap();
        assert_eq!(free.likely_seconds, 10, "without a bucket all go at once");
    }

    #[test]
    fn a_plan_shares_budgets_and_the_pace_across_its_nodes() {
        // Ten nodes, each with one pod of each of ten workloads; every budget allows one (the rollout benchmark).
        let budgets: BTreeMap<String, BudgetForecast> = (0..10).map(|w| (format!("ns/w{w}"), budget(1, 0))).collect();
        let node = Forecast {
            pods: (0..10).map(|w| PodForecast { budget: Some(format!("ns/w{w}")), grace_seconds: 10 }).collect(),
            budgets,
            unreachable: false,
        };
        let nodes = vec![node; 10];
        let shape = |max_parallel| Shape {
            max_parallel,
            settle_seconds: 0,
            pace: Pace { per_second: 5, burst: 10 },
            limits: NONE,
            reboots: Reboots::NotAwaited,
        };
        let all = plan(&nodes, shape(10), None).unwrap();
        let one = plan(&nodes, shape(1), None).unwrap();
        // Every budget lets one pod go a second: ten rounds of ten, at most 5 a second, then the last pod's 10 s.
        assert!((25..=35).contains(&all.total.likely_seconds), "{:?}", all.total);
        assert!(one.total.likely_seconds > 100, "one node at a time pays the 10 s shutdown ten times: {:?}", one.total);
        assert_eq!(all.nodes.len(), 10);
        assert!(all.nodes.iter().all(|n| n.likely_seconds <= all.total.likely_seconds));
        // The first node takes every budget's one allowance at once and is done after its pods' 10 s; from then
        // the budgets' turns are spread over the others, as the evictions' race does, so each of them ends late
        // rather than one after the other.
        assert_eq!(all.nodes[0].likely_seconds, 10);
        let late = all.nodes[1..].iter().map(|n| n.likely_seconds).min().unwrap_or(0);
        assert!(late + 6 >= all.total.likely_seconds, "{late} s against {:?}", all.total);
        // Settling adds its wait after each node but the plan's end does not wait for the last one's.
        let settled = plan(&nodes, Shape { settle_seconds: 5, ..shape(1) }, None).unwrap();
        assert_eq!(settled.total.likely_seconds, one.total.likely_seconds + 45);
    }

    #[test]
    fn learned_prefers_this_nodes_own_drains() {
        let l = Learned::from_drains([(12, false), (9, true), (11, true), (40, false)], 5).unwrap();
        assert_eq!((l.low_seconds, l.likely_seconds, l.drains, l.this_node), (9, 10, 2, true));
        let others = Learned::from_drains([(12, false), (40, false), (20, false)], 2).unwrap();
        assert_eq!((others.likely_seconds, others.drains, others.this_node), (26, 2, false));
        assert_eq!(Learned::from_drains([], 5), None);
    }

    #[test]
    fn an_empty_node_ends_at_once_and_a_huge_grace_does_not_overflow() {
        assert_eq!(drain(&Forecast::default(), FREE, NONE, None).unwrap().likely_seconds, 0);
        let node = Forecast { pods: pods(1, None, u32::MAX), ..Default::default() };
        assert_eq!(drain(&node, FREE, NONE, None).unwrap().high_seconds, u64::from(MAX_STOP_SECONDS));
    }

    #[test]
    fn the_drains_grace_period_replaces_each_pods_and_its_timeout_ends_the_drain() {
        let node = Forecast { pods: pods(3, None, 30), ..Default::default() };
        // The walk-through's drain: 600 s of grace, a 10 s timeout. The drain ends at the timeout, pods left.
        let limits = Limits { grace_seconds: Some(600), timeout_seconds: Some(10), skip_wait_seconds: None };
        let e = drain(&node, FREE, limits, None).unwrap();
        assert_eq!((e.low_seconds, e.likely_seconds, e.high_seconds), (0, 10, 10));
        assert_eq!(e.timeout_seconds, Some(10), "the high end reaches the timeout, and says so");
        // Without the timeout the grace is the drain's, not the pods' own.
        let long = Limits { timeout_seconds: None, ..limits };
        let e = drain(&node, FREE, long, None).unwrap();
        assert_eq!((e.likely_seconds, e.high_seconds, e.timeout_seconds), (600, 600, None));
        // A timeout the drain ends before is not named.
        let roomy = Limits { grace_seconds: Some(5), timeout_seconds: Some(60), skip_wait_seconds: None };
        assert_eq!(drain(&node, FREE, roomy, None).unwrap().timeout_seconds, None);
    }

    #[test]
    fn an_unreachable_node_has_no_estimate_unless_the_drain_stops_waiting_for_its_pods() {
        let node = Forecast { pods: pods(2, None, 30), unreachable: true, ..Default::default() };
        assert_eq!(drain(&node, FREE, NONE, None), Err(NoEstimate::Unreachable));
        // With skip-wait 20 s, each pod is given up 20 s past its deletion time (its grace from the eviction).
        let skip = Limits { skip_wait_seconds: Some(20), ..NONE };
        let e = drain(&node, FREE, skip, None).unwrap();
        assert_eq!((e.low_seconds, e.likely_seconds, e.high_seconds), (50, 50, 50));
        let empty = Forecast { unreachable: true, ..Default::default() };
        assert!(drain(&empty, FREE, NONE, None).is_ok(), "nothing to wait for");
    }

    #[test]
    fn a_plan_that_awaits_its_nodes_counts_each_deadline_at_the_high_end_and_says_what_it_leaves_out() {
        let nodes = vec![Forecast { pods: pods(1, None, 10), ..Default::default() }; 3];
        let shape = |reboots| Shape { max_parallel: 1, settle_seconds: 0, pace: FREE, limits: NONE, reboots };
        let drains = plan(&nodes, shape(Reboots::NotAwaited), None).unwrap();
        let awaited = plan(&nodes, shape(Reboots::UpTo { seconds: 600 }), None).unwrap();
        // One at a time, each node holds its place until back: three deadlines of 10 min on top of the drains.
        assert_eq!(awaited.total.high_seconds, drains.total.high_seconds + 1_800);
        assert_eq!(awaited.total.likely_seconds, drains.total.likely_seconds, "the likely value counts drains alone");
        assert_eq!(awaited.total.reboots, Reboots::UpTo { seconds: 600 });
        assert_eq!(awaited.nodes[0].high_seconds, drains.nodes[0].high_seconds, "a node's span is its drain");
        let unbounded = plan(&nodes, shape(Reboots::Unbounded), None).unwrap();
        assert_eq!(
            (unbounded.total.high_seconds, unbounded.total.reboots),
            (drains.total.high_seconds, Reboots::Unbounded)
        );
        // Two at once: the deadlines overlap in pairs.
        let pairs = plan(&nodes, Shape { max_parallel: 2, ..shape(Reboots::UpTo { seconds: 600 }) }, None).unwrap();
        assert!((1_200..1_260).contains(&pairs.total.high_seconds), "{:?}", pairs.total);
    }
}

#[cfg(test)]
mod fit_tests {
    use crate::{
        estimate::{Basis, Estimate, Reboots, fit},
        window::{Fit, WindowFit},
    };
    use jiff::Timestamp;

    fn estimate(likely: u64, high: u64, reboots: Reboots) -> Estimate {
        Estimate {
            low_seconds: 0,
            likely_seconds: likely,
            high_seconds: high,
            basis: Basis::GracePeriods,
            timeout_seconds: None,
            reboots,
        }
    }

    #[test]
    fn the_fit_is_made_against_what_the_estimate_covers() {
        let at = Timestamp::UNIX_EPOCH;
        let closes = at.checked_add(jiff::SignedDuration::from_secs(3_600)).unwrap();
        let w = WindowFit {
            window: "w".into(),
            closes,
            local: "Mon 04:00".into(),
            zone: "UTC".into(),
            closes_local: None,
            at,
        };
        // Drains of 31 s with three 10-min deadlines counted at the high end: 31 min fits an hour.
        assert_eq!(fit(&w, &estimate(31, 1_831, Reboots::UpTo { seconds: 600 })), Fit::Fits);
        assert_eq!(fit(&w, &estimate(31, 5_431, Reboots::UpTo { seconds: 1_800 })), Fit::HighOver);
        // Nodes awaited with no deadline: the drains fit, but nothing can be said of the whole.
        assert_eq!(fit(&w, &estimate(31, 31, Reboots::Unbounded)), Fit::Untold);
        // Though the drains alone running past it can be.
        assert_eq!(fit(&w, &estimate(4_000, 4_000, Reboots::Unbounded)), Fit::LikelyOver);
        assert_eq!(fit(&w, &estimate(31, 31, Reboots::NotAwaited)), Fit::Fits);
    }
}
