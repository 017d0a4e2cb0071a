//! Whether a plan fits the windows its nodes are in: the earliest instant at which a window covering one of its
//! nodes, open now, stops allowing starts ([`super::closing`]), set against the plan's estimate. A plan that does
//! not fit is not refused: the nodes it has not started by then wait for the next opening. The page says so before
//! it starts. This file names no window's rules, so that an estimate may carry its answer.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The first window, among those open now that cover one of a plan's nodes, to stop allowing starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowFit {
    pub window: String,
    pub closes: Timestamp,
    /// When it closes, as the window's local time and zone ("Tue 04:00", "Asia/Tokyo").
    pub local: String,
    pub zone: String,
    /// The close on the window's clock, for the page to word in the reader's language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closes_local: Option<super::LocalTime>,
    /// When this was worked out.
    pub at: Timestamp,
}

/// How an estimate sits against the time left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fit {
    /// Even the high estimate ends before the window closes.
    Fits,
    /// The likely estimate fits, the high one does not.
    HighOver,
    /// The likely estimate runs past the close.
    LikelyOver,
    /// The estimate leaves out what may take longest (nodes awaited back with no deadline): no verdict.
    Untold,
}

impl WindowFit {
    /// Seconds left from `at` to the close.
    pub fn seconds_left(&self) -> u64 {
        u64::try_from(self.at.duration_until(self.closes).as_secs()).unwrap_or(0)
    }

    /// How a plan that should take `likely_seconds`, and at most `high_seconds`, sits against the close.
    pub fn fit(&self, likely_seconds: u64, high_seconds: u64) -> Fit {
        let left = self.seconds_left();
        if high_seconds <= left {
            Fit::Fits
        } else if likely_seconds <= left {
            Fit::HighOver
        } else {
            Fit::LikelyOver
        }
    }
}
