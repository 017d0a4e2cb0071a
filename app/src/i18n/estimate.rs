//! A drain's or a plan's estimate (`domain::estimate`), and afterwards its real time beside it, in the page's
//! language.

use domain::estimate::{Basis, DrainTiming, Estimate, NoEstimate, Reboots};
use jiff::SignedDuration;

use super::{I18n, elapsed_text, t_string};

/// Whole seconds as a duration in words ("1m05s"); "under a second" for none, never "0.0s".
fn seconds_text(i18n: I18n, seconds: u64) -> String {
    if seconds == 0 {
        return t_string!(i18n, estimate.under_second).to_string();
    }
    elapsed_text(i18n, SignedDuration::from_secs(i64::try_from(seconds).unwrap_or(i64::MAX)))
}

/// What the figures leave out or stop at, said plainly: the drain's timeout the high end reaches, and for a plan
/// that awaits its nodes back, what of those waits it counts. `None` when it covers everything.
pub fn covers_text(i18n: I18n, e: &Estimate) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(timeout) = e.timeout_seconds {
        parts.push(t_string!(i18n, estimate.timeout_cuts, timeout = seconds_text(i18n, timeout)).to_string());
    }
    match e.reboots {
        Reboots::NotAwaited => {}
        Reboots::UpTo { seconds } => {
            parts.push(t_string!(i18n, estimate.reboots_up_to, deadline = seconds_text(i18n, seconds)).to_string())
        }
        Reboots::Unbounded => parts.push(t_string!(i18n, estimate.reboots_unbounded).to_string()),
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// A stable name for what an estimate counts of the reboots, for tests.
pub fn reboots_label(reboots: &Reboots) -> &'static str {
    match reboots {
        Reboots::NotAwaited => "not-awaited",
        Reboots::UpTo { .. } => "up-to",
        Reboots::Unbounded => "unbounded",
    }
}

/// "Should take about 29s (12s to 50s)"; a plan's total with `plan`.
pub fn estimate_text(i18n: I18n, e: &Estimate, plan: bool) -> String {
    // Nothing to wait for: said so, not as a range of nothing.
    if e.high_seconds == 0 {
        return if plan {
            t_string!(i18n, estimate.plan_instant).to_string()
        } else {
            t_string!(i18n, estimate.drain_instant).to_string()
        };
    }
    // Likely over at once, but it may take longer: said so, not as "about under a second".
    if e.likely_seconds == 0 {
        let high = seconds_text(i18n, e.high_seconds);
        return if plan {
            t_string!(i18n, estimate.plan_quick, high).to_string()
        } else {
            t_string!(i18n, estimate.drain_quick, high).to_string()
        };
    }
    let (likely, low, high) =
        (seconds_text(i18n, e.likely_seconds), seconds_text(i18n, e.low_seconds), seconds_text(i18n, e.high_seconds));
    if plan {
        t_string!(i18n, estimate.plan, likely, low, high).to_string()
    } else {
        t_string!(i18n, estimate.drain, likely, low, high).to_string()
    }
}

/// What the estimate rests on; `plan` for a plan's, whose own nodes are "these nodes".
pub fn basis_text(i18n: I18n, basis: &Basis, plan: bool) -> String {
    match *basis {
        Basis::GracePeriods => t_string!(i18n, estimate.basis_grace).to_string(),
        Basis::PastDrains { drains, this_node: true } if plan => {
            t_string!(i18n, estimate.basis_plan, count = drains).to_string()
        }
        Basis::PastDrains { drains, this_node: true } => {
            t_string!(i18n, estimate.basis_own, count = drains).to_string()
        }
        Basis::PastDrains { drains, this_node: false } => {
            t_string!(i18n, estimate.basis_others, count = drains).to_string()
        }
    }
}

/// Why there is no estimate.
pub fn no_estimate_text(i18n: I18n, why: &NoEstimate) -> String {
    match why {
        NoEstimate::Held { budget } => t_string!(i18n, estimate.held, budget).to_string(),
        NoEstimate::TooLarge => t_string!(i18n, estimate.too_large).to_string(),
        NoEstimate::Unreachable => t_string!(i18n, estimate.unreachable).to_string(),
    }
}

/// How long a drain took, beside what was expected when it started, if its history says.
pub fn took_text(i18n: I18n, timing: &DrainTiming) -> Option<String> {
    let took = seconds_text(i18n, timing.took_seconds?);
    Some(match &timing.estimate {
        Some(e) if e.high_seconds == 0 => t_string!(i18n, history.took_instant, took).to_string(),
        Some(e) if e.likely_seconds == 0 => {
            t_string!(i18n, history.took_quick, took, high = seconds_text(i18n, e.high_seconds)).to_string()
        }
        Some(e) => {
            let (likely, low, high) = (
                seconds_text(i18n, e.likely_seconds),
                seconds_text(i18n, e.low_seconds),
                seconds_text(i18n, e.high_seconds),
            );
            t_string!(i18n, history.took, took, likely, low, high).to_string()
        }
        None => t_string!(i18n, history.took_alone, took).to_string(),
    })
}
