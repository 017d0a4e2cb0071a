//! The simulation behind an estimate: events in time order (a node's cordon made, a pod gone, a budget allowing
//! again, a slot free), a token bucket for the pace, and per budget a queue of the pods waiting on it. Integer
//! milliseconds throughout, so that the browser and the server compute the same numbers.

use std::{
    cmp::Reverse,
    collections::{BinaryHeap, VecDeque},
};

use super::inputs::{Forecast, MAX_PODS, MAX_STOP_SECONDS, NoEstimate, Pace, PodForecast, Shape};

/// From a replacement's Ready to its budget allowing again: the ReplicaSet controller creates it, the scheduler
/// binds it, and the disruption controller counts it. About a second each on a healthy control plane, overlapping.
const BUDGET_RECOUNT_MS: u64 = 1_000;

/// From the last pod gone to the drain's end: the watch brings the deletion, and the record is written.
const END_SEEN_MS: u64 = 300;

/// The most waiting pods of a budget looked at to choose the next one to go.
const CHOOSE_FROM: usize = 64;

/// What one run of the simulation gives: each node's drain time, and the plan's end (ms).
pub(super) struct Run {
    pub spans: Vec<u64>,
    pub end: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// This node's cordon is made: its pods may go.
    Started(usize),
    /// A pod of this node is gone.
    Gone(usize),
    /// This budget allows one more disruption.
    Allows(usize),
    /// A slot for the next node is free (after the settle time).
    Slot,
    /// This node's drain reaches its timeout: it ends, pods left or not.
    TimedOut(usize),
}

/// The token bucket, in thousandths of a token and milliseconds, so that browser and server compute alike.
struct Bucket {
    per_second: u64,
    cap: u64,
    milli_tokens: u64,
    at: u64,
}

impl Bucket {
    fn new(pace: Pace) -> Self {
        let burst = u64::from(pace.burst.max(1));
        Bucket { per_second: u64::from(pace.per_second), cap: burst * 1_000, milli_tokens: burst * 1_000, at: 0 }
    }

    /// When a request wanted at `now` may go.
    fn take(&mut self, now: u64) -> u64 {
        if self.per_second == 0 {
            return now;
        }
        let t = now.max(self.at);
        // A millisecond refills `per_second` thousandths of a token.
        let refill = (t - self.at).saturating_mul(self.per_second);
        self.milli_tokens = self.milli_tokens.saturating_add(refill).min(self.cap);
        self.at = t;
        if self.milli_tokens >= 1_000 {
            self.milli_tokens -= 1_000;
            return t;
        }
        let wait = (1_000 - self.milli_tokens).div_ceil(self.per_second);
        self.milli_tokens = (self.milli_tokens + wait * self.per_second).saturating_sub(1_000);
        self.at = t + wait;
        self.at
    }
}

/// The simulation's state: time in milliseconds from the plan's start.
struct Sim {
    heap: BinaryHeap<Reverse<(u64, u64, Event)>>,
    seq: u64,
    bucket: Bucket,
    /// Per budget: disruptions allowed, the wait for a replacement, and the pods waiting on it (node, pod).
    allowed: Vec<u32>,
    ready_ms: Vec<u64>,
    waiting: Vec<VecDeque<(usize, usize)>>,
    left: Vec<usize>,
}

impl Sim {
    fn push(&mut self, at: u64, event: Event) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, event)));
    }

    fn evict(&mut self, now: u64, node: usize, budget: Option<usize>, stop_ms: u64) {
        let at = self.bucket.take(now);
        self.push(at.saturating_add(stop_ms), Event::Gone(node));
        if let Some(b) = budget {
            self.push(at.saturating_add(self.ready_ms[b]), Event::Allows(b));
        }
    }
}

/// Runs the plan: each pod of a node takes `stop_ms` to stop once evicted, and each node then holds its place for
/// `hold_ms` (awaited back) before the settle time and the next node. A node's span is its drain alone; the plan's
/// end waits for the last node's hold.
pub(super) fn simulate(
    nodes: &[Forecast],
    shape: Shape,
    hold_ms: u64,
    stop_ms: impl Fn(&Forecast, &PodForecast) -> u64,
) -> Result<Run, NoEstimate> {
    if nodes.iter().map(|n| n.pods.len()).fold(0usize, usize::saturating_add) > MAX_PODS {
        return Err(NoEstimate::TooLarge);
    }
    // Budgets by name, with every node's view merged (the first word on a budget is as good as any: one moment).
    let mut names: Vec<&str> = Vec::new();
    let mut sim = Sim {
        heap: BinaryHeap::new(),
        seq: 0,
        bucket: Bucket::new(shape.pace),
        allowed: Vec::new(),
        ready_ms: Vec::new(),
        waiting: Vec::new(),
        left: nodes.iter().map(|n| n.pods.len()).collect(),
    };
    let mut never = Vec::new();
    for (name, budget) in nodes.iter().flat_map(|n| n.budgets.iter()) {
        if !names.contains(&name.as_str()) {
            names.push(name);
            sim.allowed.push(budget.allowed);
            sim.ready_ms.push(u64::from(budget.ready_seconds.min(MAX_STOP_SECONDS)) * 1_000 + BUDGET_RECOUNT_MS);
            sim.waiting.push(VecDeque::new());
            never.push(budget.never);
        }
    }
    // A budget that allows nothing now, but only for the moment, allows again once a replacement is Ready.
    let recovering: Vec<(usize, u64)> =
        (0..names.len()).filter(|&b| sim.allowed[b] == 0 && !never[b]).map(|b| (b, sim.ready_ms[b])).collect();
    for (b, at) in recovering {
        sim.push(at, Event::Allows(b));
    }
    let budget_of: Vec<Vec<Option<usize>>> = nodes
        .iter()
        .map(|n| n.pods.iter().map(|p| p.budget.as_deref().and_then(|b| names.iter().position(|n| *n == b))).collect())
        .collect();

    let settle = shape.settle_seconds.min(u64::from(MAX_STOP_SECONDS)) * 1_000;
    let mut queue: VecDeque<usize> = (0..nodes.len()).collect();
    let mut slots = shape.max_parallel.max(1);
    let mut start = vec![0u64; nodes.len()];
    let mut end = vec![0u64; nodes.len()];
    let mut finished = vec![false; nodes.len()];
    let timeout = shape.limits.timeout_seconds.map(|t| t.min(u64::from(MAX_STOP_SECONDS)) * 1_000);
    let mut now = 0u64;
    loop {
        while slots > 0 {
            let Some(i) = queue.pop_front() else { break };
            slots -= 1;
            start[i] = now;
            // Only evictions and deletions spend the pace's tokens; the cordon and the records do not.
            sim.push(now, Event::Started(i));
            if let Some(t) = timeout {
                sim.push(now.saturating_add(t), Event::TimedOut(i));
            }
        }
        let Some(Reverse((at, _, event))) = sim.heap.pop() else {
            // Nothing more will happen: every node done, or some held by a budget that never allows.
            if let Some(b) = sim.waiting.iter().position(|w| !w.is_empty()) {
                return Err(NoEstimate::Held { budget: names[b].to_owned() });
            }
            break;
        };
        now = at;
        let finish = |sim: &mut Sim, i: usize, end: &mut Vec<u64>, finished: &mut Vec<bool>| {
            if std::mem::replace(&mut finished[i], true) {
                return;
            }
            end[i] = now + END_SEEN_MS;
            sim.push(end[i].saturating_add(hold_ms).saturating_add(settle), Event::Slot);
        };
        match event {
            Event::Started(i) => {
                if nodes[i].pods.is_empty() {
                    finish(&mut sim, i, &mut end, &mut finished);
                }
                for (p, pod) in nodes[i].pods.iter().enumerate() {
                    let budget = budget_of[i][p];
                    match budget {
                        Some(b) if sim.allowed[b] == 0 => sim.waiting[b].push_back((i, p)),
                        Some(b) => {
                            sim.allowed[b] -= 1;
                            sim.evict(now, i, budget, stop_ms(&nodes[i], pod));
                        }
                        None => sim.evict(now, i, None, stop_ms(&nodes[i], pod)),
                    }
                }
            }
            Event::Gone(i) => {
                sim.left[i] = sim.left[i].saturating_sub(1);
                if sim.left[i] == 0 {
                    finish(&mut sim, i, &mut end, &mut finished);
                }
            }
            Event::Allows(b) => {
                // Every waiting eviction is retried as the budget allows; which one wins is not known. Taking the one
                // whose node has the most pods still to go spreads the budget over the nodes, as the race does on
                // average: each node's last pod goes late, rather than one node's all first.
                let chosen = sim.waiting[b]
                    .iter()
                    .take(CHOOSE_FROM)
                    .enumerate()
                    // Ties go round the nodes, each budget from a node of its own.
                    .max_by_key(|(k, (i, _))| (sim.left[*i], std::cmp::Reverse(((*i + b) % nodes.len(), *k))))
                    .map(|(k, _)| k);
                if let Some((i, p)) = chosen.and_then(|k| sim.waiting[b].remove(k)) {
                    sim.evict(now, i, Some(b), stop_ms(&nodes[i], &nodes[i].pods[p]));
                } else {
                    sim.allowed[b] = sim.allowed[b].saturating_add(1);
                }
            }
            Event::Slot => slots += 1,
            Event::TimedOut(i) => {
                // Its pods still waiting on a budget are given up with it: they must not hold the budget's turns.
                for waiting in &mut sim.waiting {
                    waiting.retain(|(node, _)| *node != i);
                }
                finish(&mut sim, i, &mut end, &mut finished);
            }
        }
    }
    let spans = (0..nodes.len()).map(|i| end[i].saturating_sub(start[i])).collect();
    let last = end.iter().map(|e| e.saturating_add(hold_ms)).max().unwrap_or(0);
    Ok(Run { spans, end: last })
}
