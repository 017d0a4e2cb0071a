//! What an estimate reads: the pods a drain would evict with their budgets ([`Forecast`]), the server's pace, and
//! how a plan runs ([`Shape`]); and why there may be none ([`NoEstimate`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The grace period of a pod that sets none (the API's default).
pub const DEFAULT_GRACE_SECONDS: u32 = 30;

/// How long a replacement takes to become Ready when none of its workload's pods says: a cautious guess.
pub const DEFAULT_READY_SECONDS: u32 = 10;

/// The longest time to Ready read from a pod (an hour): a pod Ready later than that was not Ready for long; its
/// time says nothing of how long its workload takes to start.
pub const MAX_READY_SECONDS: u32 = 3_600;

/// The longest any one pod is taken to stop (a day): a grace period is an `int64`, and a bad one must not overflow.
pub(crate) const MAX_STOP_SECONDS: u32 = 86_400;

/// The most pods one simulation places (a plan of 1,000 nodes of 110 pods, with room to spare).
pub(crate) const MAX_PODS: usize = 200_000;

/// One pod a drain will evict, as the estimate reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodForecast {
    /// The budget that covers it (`namespace/name`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<String>,
    pub grace_seconds: u32,
}

/// A budget over some of the pods to evict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetForecast {
    /// Disruptions it allows now.
    pub allowed: u32,
    /// How long its workload's pods took to become Ready after they were created (their median).
    pub ready_seconds: u32,
    /// It can never allow an eviction as its workload stands (see `PdbStatus::never_allows`).
    #[serde(default)]
    pub never: bool,
}

/// One node's drain, as the estimate reads it: what [`crate::preview::preview`] plans to evict.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forecast {
    pub pods: Vec<PodForecast>,
    /// By `namespace/name`.
    pub budgets: BTreeMap<String, BudgetForecast>,
    /// The node stopped reporting (its `Ready` is `Unknown`): no kubelet confirms a pod's end, so its evicted pods
    /// stay Terminating until it is back, or until the drain's skip-wait limit lets them be.
    #[serde(default)]
    pub unreachable: bool,
}

/// What a drain's own options change in its time (`crate::drain::DrainOptions`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Every pod's grace period, where the drain sets one (kubectl's `--grace-period`; a negative one keeps each
    /// pod's own).
    pub grace_seconds: Option<u32>,
    /// The drain ends by then at the latest, pods left or not (`--timeout`).
    pub timeout_seconds: Option<u64>,
    /// A pod deleting for longer than this past its deletion time is no longer waited for
    /// (`--skip-wait-for-delete-timeout`).
    pub skip_wait_seconds: Option<u64>,
}

/// What a plan that awaits its nodes back holds each node's place for after its drain, as far as the estimate can
/// tell: nothing tells how long a reboot takes, so only a deadline bounds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reboots {
    /// The plan does not await its nodes back: a drained node is done, and the figures are the whole plan.
    #[default]
    NotAwaited,
    /// Each node is awaited back for at most this long (its verification's deadline, from its drain's end): the
    /// high end counts it in full; the low and likely values count the drains alone.
    UpTo { seconds: u64 },
    /// Each node is awaited back with no deadline: nothing bounds the plan, and every figure counts the drains
    /// alone.
    Unbounded,
}

/// The server's token bucket (its `--api-qps` and `--api-burst`); `per_second` 0 is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pace {
    pub per_second: u32,
    pub burst: u32,
}

impl Default for Pace {
    /// The server's default pace.
    fn default() -> Self {
        Pace { per_second: 50, burst: 100 }
    }
}

impl Reboots {
    pub fn is_not_awaited(&self) -> bool {
        *self == Reboots::NotAwaited
    }
}

/// Why there is no estimate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoEstimate {
    /// The drain will not end by itself: this budget (`namespace/name`) allows no eviction as its workload stands.
    Held { budget: String },
    /// More pods than one estimate places ([`MAX_PODS`]).
    TooLarge,
    /// A node stopped reporting, and the drain has no skip-wait limit: its pods stay Terminating until it is back,
    /// which nothing can tell.
    Unreachable,
}

/// How the plan runs, as far as the estimate cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub max_parallel: u32,
    pub settle_seconds: u64,
    pub pace: Pace,
    /// Each node's drain options' limits.
    pub limits: Limits,
    /// What each node is awaited back for after its drain.
    pub reboots: Reboots,
}
