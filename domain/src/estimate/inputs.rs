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

/// Why there is no estimate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoEstimate {
    /// The drain will not end by itself: this budget (`namespace/name`) allows no eviction as its workload stands.
    Held { budget: String },
    /// More pods than one estimate places ([`MAX_PODS`]).
    TooLarge,
}

/// How the plan runs, as far as the estimate cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub max_parallel: u32,
    pub settle_seconds: u64,
    pub pace: Pace,
}
