//! A maintenance plan's counts and phase in the page's language (`domain::tally`, `RolloutProgress::phase`): the
//! panel and the wall say the same as the plan's status and kubectl's columns.

use domain::{rollout::RolloutProgress, tally::Tally};

use super::{I18n, t_string};

/// "1 of 3 done · 1 draining · 2 awaiting a reboot": done out of all, then every other way a node stands that some
/// node does, so that a node out of service is never hidden in "done".
pub fn tally_text(i18n: I18n, tally: &Tally) -> String {
    let mut parts = vec![t_string!(i18n, plan_tally.done, done = tally.done, total = tally.total).to_string()];
    let others = [
        (tally.draining, t_string!(i18n, plan_tally.draining, count = tally.draining).to_string()),
        (tally.awaited, t_string!(i18n, plan_tally.awaited, count = tally.awaited).to_string()),
        (tally.recovering, t_string!(i18n, plan_tally.recovering, count = tally.recovering).to_string()),
        (tally.queued, t_string!(i18n, plan_tally.queued, count = tally.queued).to_string()),
        (tally.left_cordoned, t_string!(i18n, plan_tally.left_cordoned, count = tally.left_cordoned).to_string()),
        (tally.stopped, t_string!(i18n, plan_tally.stopped, count = tally.stopped).to_string()),
        (tally.failed, t_string!(i18n, plan_tally.failed, count = tally.failed).to_string()),
        (tally.not_started, t_string!(i18n, plan_tally.not_started, count = tally.not_started).to_string()),
    ];
    parts.extend(others.into_iter().filter(|(n, _)| *n > 0).map(|(_, text)| text));
    parts.join(" · ")
}

/// The plan's phase as its status and kubectl say it (`Running`, `Blocked`, …), in words.
pub fn plan_phase_text(i18n: I18n, phase: &str) -> String {
    match phase {
        "Paused" => t_string!(i18n, plan_tally.phase_paused),
        "Blocked" => t_string!(i18n, plan_tally.phase_blocked),
        "Complete" => t_string!(i18n, plan_tally.phase_complete),
        "Failed" => t_string!(i18n, plan_tally.phase_failed),
        "Cancelled" => t_string!(i18n, plan_tally.phase_cancelled),
        _ => t_string!(i18n, plan_tally.phase_running),
    }
    .to_string()
}

/// What holds the plan now, if anything does: why it is blocked, the window that holds its next node (with when it
/// opens), or that it is paused.
pub fn holding_text(i18n: I18n, plan: &RolloutProgress) -> Option<String> {
    if let Some(why) = &plan.blocked {
        return Some(t_string!(i18n, rollout.blocked, why = super::plan_blocked_text(i18n, why)).to_string());
    }
    if plan.phase() == "Paused" {
        return Some(t_string!(i18n, plan_tally.paused).to_string());
    }
    let held = plan.held.as_ref().filter(|_| plan.phase() == "Blocked")?;
    let why = super::hold_text(i18n, &held.hold, held.at);
    Some(t_string!(i18n, plan_tally.held, node = held.node.clone(), window = held.window.clone(), why).to_string())
}
