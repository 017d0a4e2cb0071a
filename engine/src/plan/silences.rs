//! The Alertmanager silences a plan keeps (`crate::windows::silences`), kept by its runner (`runner`):
//! each node in maintenance (draining, awaited back, recovering) whose window asks for one has a live silence,
//! extended while it stays; a node done has none; a plan that ends leaves none. A silence lasts [`AHEAD`] plus the
//! window's margin past each extension, so one a stopped server leaves ends by itself soon after.
//!
//! An Alertmanager that cannot be asked is asked again at the pace of [`crate::retry::watch_backoff`], from
//! [`RETRY_FIRST`] doubling to [`RETRY_MOST`] (jittered): the plan's runner looks every second while a node is awaited back, and one that asked each
//! time would wait out the client's timeout on every look (and log each) for as long as Alertmanager is down.

use std::time::{Duration, Instant};

use domain::rollout::{RolloutNode, RolloutProgress, Step};
use jiff::{Timestamp, ToSpan};

use kube::runtime::{utils::Backoff, watcher::ExponentialBackoff};

use crate::engine::Engine;
use crate::windows::silences::comment;

/// How often the silences are looked at with nothing changed.
const EVERY: Duration = Duration::from_secs(20);
/// How far past now each silence is kept, extended once less than half of it is left.
const AHEAD_SECONDS: i64 = 600;
/// The shortest and the longest wait (before jitter) before asking again after Alertmanager could not be asked.
const RETRY_FIRST: Duration = Duration::from_secs(5);
const RETRY_MOST: Duration = Duration::from_secs(10);

pub(super) struct Silences {
    last: Option<Instant>,
    wanted_before: Vec<String>,
    /// After a failure: not before when.
    retry_at: Option<Instant>,
    /// The waits after failures in a row; reset by a good answer.
    backoff: ExponentialBackoff,
}

impl Default for Silences {
    fn default() -> Self {
        Silences {
            last: None,
            wanted_before: Vec::new(),
            retry_at: None,
            backoff: crate::retry::watch_backoff(RETRY_FIRST, RETRY_MOST),
        }
    }
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
        let backing_off = self.retry_at.is_some_and(|at| Instant::now() < at);
        if (quiet || backing_off) && !ending {
            return;
        }
        let ours = match am.our_silences().await {
            Ok(all) => all.into_iter().filter(|s| s.of_plan(&progress.id)).collect::<Vec<_>>(),
            Err(why) => {
                let wait = self.backoff.next().unwrap_or(EVERY);
                self.retry_at = Instant::now().checked_add(wait);
                tracing::warn!(%why, retry_in_seconds = wait.as_secs(), "could not read Alertmanager's silences");
                return;
            }
        };
        self.retry_at = None;
        self.backoff.reset();
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
    fn a_failing_alertmanager_is_asked_less_often_and_at_once_again_after_a_good_answer() {
        let mut silences = Silences::default();
        let waits: Vec<Duration> = (0..6).map(|_| silences.backoff.next().unwrap_or_default()).collect();
        // Jitter adds up to the wait itself: 5 to 10 s first, then never more than twice the longest.
        assert!((RETRY_FIRST..=RETRY_FIRST * 2).contains(&waits[0]), "{waits:?}");
        assert!(waits.iter().all(|w| *w >= RETRY_FIRST && *w <= RETRY_MOST * 2), "{waits:?}");
        assert!(waits[5] >= RETRY_MOST, "it grows to the longest: {waits:?}");
        silences.backoff.reset();
        assert!(silences.backoff.next().is_some_and(|w| w <= RETRY_FIRST * 2), "a good answer starts it over");
    }
}
