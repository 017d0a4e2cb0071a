//! The Alertmanager silences a plan keeps (`crate::windows::silences`), reconciled from its loop (`plan_run`):
//! each node in maintenance (draining, awaited back, recovering) whose window asks for one has a live silence,
//! extended while it stays; a node done has none; a plan that ends leaves none. A silence lasts [`AHEAD`] plus the
//! window's margin past each extension, so one a stopped server leaves ends by itself soon after.
//!
//! An Alertmanager that cannot be asked is asked again after [`RETRY_FIRST`], doubled on each failure up to
//! [`EVERY`]: the plan's loop looks every second, and one that asked each time would wait out the client's timeout
//! on every look (and log each) for as long as Alertmanager is down.

use std::time::{Duration, Instant};

use domain::rollout::{RolloutNode, RolloutProgress, Step};
use jiff::{Timestamp, ToSpan};

use super::Engine;
use crate::windows::silences::comment;

/// How often the silences are looked at with nothing changed.
const EVERY: Duration = Duration::from_secs(20);
/// How far past now each silence is kept, extended once less than half of it is left.
const AHEAD_SECONDS: i64 = 600;
/// The wait before asking again after Alertmanager could not be asked.
const RETRY_FIRST: Duration = Duration::from_secs(5);

#[derive(Default)]
pub(super) struct Silences {
    last: Option<Instant>,
    wanted_before: Vec<String>,
    /// After a failure: not before when, and the wait that led there.
    retry: Option<(Instant, Duration)>,
}

/// The wait after a failure, given the wait after the one before (none: the first).
fn next_wait(before: Option<Duration>) -> Duration {
    before.map_or(RETRY_FIRST, |wait| wait.saturating_mul(2).min(EVERY))
}

fn in_maintenance(node: &RolloutNode) -> bool {
    matches!(node.step, Step::Draining(_)) || node.waiting_back() || node.recovering()
}

impl Silences {
    /// Makes the silences what `progress` wants now; with `ending`, expires all of the plan's.
    pub(super) async fn keep(&mut self, engine: &Engine, progress: &RolloutProgress, ending: bool) {
        let (Some(windows), Some((_, cache))) = (&engine.windows, &engine.shared) else { return };
        let Some(am) = windows.alertmanager() else { return };
        let wanted: Vec<(String, String, u32)> = match ending {
            true => Vec::new(),
            false => progress
                .nodes
                .iter()
                .filter(|n| in_maintenance(n))
                .filter_map(|n| {
                    windows.silence_of(cache, &n.name).map(|(label, margin)| (n.name.clone(), label, margin))
                })
                .collect(),
        };
        let names: Vec<String> = wanted.iter().map(|(n, ..)| n.clone()).collect();
        let quiet = names == self.wanted_before && self.last.is_some_and(|t| t.elapsed() < EVERY);
        let backing_off = self.retry.is_some_and(|(at, _)| Instant::now() < at);
        if (quiet || backing_off) && !ending {
            return;
        }
        let ours = match am.our_silences().await {
            Ok(all) => all.into_iter().filter(|s| s.of_plan(&progress.id)).collect::<Vec<_>>(),
            Err(why) => {
                let wait = next_wait(self.retry.map(|(_, wait)| wait));
                self.retry = Some((Instant::now() + wait, wait));
                tracing::warn!(%why, retry_in_seconds = wait.as_secs(), "could not read Alertmanager's silences");
                return;
            }
        };
        self.retry = None;
        self.last = Some(Instant::now());
        self.wanted_before = names;
        let now = Timestamp::now();
        for (node, label, margin) in &wanted {
            let until = now.checked_add((AHEAD_SECONDS + i64::from(*margin)).seconds()).unwrap_or(now);
            let kept = ours.iter().find(|s| s.comment == comment(&progress.id, node));
            let fresh = kept.is_some_and(|s| s.ends_at.duration_since(now).as_secs() > AHEAD_SECONDS / 2);
            if fresh {
                continue;
            }
            match am.keep_silence(kept.map(|s| s.id.as_str()), &progress.id, node, label, until).await {
                Ok(id) => {
                    tracing::info!(%node, silence = %id, "keeping an Alertmanager silence while the node is in maintenance")
                }
                Err(why) => tracing::warn!(%node, %why, "could not keep the node's Alertmanager silence"),
            }
        }
        for silence in ours.iter().filter(|s| !wanted.iter().any(|(node, ..)| s.comment == comment(&progress.id, node)))
        {
            match am.expire_silence(&silence.id).await {
                Ok(()) => {
                    tracing::info!(silence = %silence.id, "expired a silence: its node is done, or the plan ended")
                }
                Err(why) => tracing::warn!(silence = %silence.id, %why, "could not expire a silence"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_alertmanager_is_asked_less_often_up_to_the_quiet_interval() {
        let mut waits = Vec::new();
        let mut before = None;
        for _ in 0..5 {
            let wait = next_wait(before);
            waits.push(wait.as_secs());
            before = Some(wait);
        }
        assert_eq!(waits, [5, 10, 20, 20, 20]);
        assert_eq!(next_wait(Some(Duration::MAX)), EVERY, "no overflow");
    }
}
