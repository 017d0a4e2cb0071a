//! A drain's waits: for a pod to go once its eviction was accepted, and before retrying an eviction a budget held
//! up. Each ends early on a Cancel and at the drain's deadline.

use std::time::Duration;

use domain::{
    PodSummary,
    blocker::Blocker,
    budget::{PdbInfo, PdbStatus},
    failure::Failure,
    progress::PodState,
};
use jiff::Timestamp;
use tokio::time::Instant;

use super::{ops, presence::Presence, task::Drain};

impl Drain {
    /// Waits until the pod is gone (its UID no longer on the node), no longer waited for (kubectl's
    /// `--skip-wait-for-delete-timeout`), or failed (the deadline, or the watch given up).
    pub(super) async fn wait_gone(&self, uid: &str, deadline: Option<Instant>, presence: &Presence) {
        self.set_pod(uid, PodState::Terminating { deletion_deadline: None, blockers: Vec::new() });
        let mut rx = presence.rx.clone();
        let mut shown = None;
        loop {
            let (gone, present, lost) = {
                let pods = rx.borrow_and_update();
                (pods.synced && !pods.present.contains_key(uid), pods.present.get(uid).cloned(), pods.lost.clone())
            };
            if gone {
                return self.set_pod(uid, PodState::Gone);
            }
            if let Some(lost) = lost {
                return self.set_pod(uid, PodState::Failed(lost));
            }
            let deletion = present.as_ref().and_then(|p| p.deletion);
            // kubectl's --skip-wait-for-delete-timeout: stop waiting for a pod deleting for longer than that.
            let give_up_at = deletion
                .zip(self.options.skip_wait_for_delete_timeout_seconds.filter(|n| *n > 0))
                .and_then(|(deleted, limit)| {
                    let limit = i64::try_from(limit).ok()?.checked_add(1)?;
                    deleted.checked_add(jiff::SignedDuration::from_secs(limit)).ok()
                });
            if give_up_at.is_some_and(|at| Timestamp::now() >= at) {
                return self.set_pod(uid, PodState::NoLongerWaited);
            }
            // Past its grace period, what holds it (its finalizers) is named; within it, the deadline says enough.
            let now = Timestamp::now();
            let blockers = match &present {
                Some(p) if deletion.is_some_and(|d| d <= now) => {
                    domain::blocker::terminating(deletion, &p.finalizers, now)
                }
                _ => Vec::new(),
            };
            let state = PodState::Terminating { deletion_deadline: deletion, blockers };
            if deletion.is_some() && shown.as_ref() != Some(&state) {
                self.set_pod(uid, state.clone());
                shown = Some(state);
            }
            // Woken at the end of the grace period, to say what holds the pod past it.
            let grace_end = deletion.filter(|d| *d > now).map(to_instant);
            tokio::select! {
                changed = rx.changed() => if changed.is_err() {
                    return self.set_pod(uid, PodState::Failed(Failure::WatchEnded));
                },
                () = self.cancel.cancelled() => return,
                () = sleep_until(deadline) => return self.set_pod(uid, PodState::Failed(self.timed_out())),
                () = sleep_until(give_up_at.map(to_instant)) => {},
                () = sleep_until(grace_end.map(|at| at + Duration::from_millis(100))) => {},
            }
        }
    }

    /// Sleeps before retrying an eviction that `budget` (its namespace, and its status when it refused) held up:
    /// at most `wait`, and less once the cache sees the budget change and allow a disruption, which is when a
    /// replacement pod became ready. kubectl waits the whole 5 s every time; a rollout of many nodes under tight
    /// budgets spends most of its time in those waits. False when the drain was cancelled or ran out of time.
    pub(super) async fn pause_for_budget(
        &self,
        wait: Duration,
        deadline: Option<Instant>,
        budget: Option<(String, PdbStatus)>,
    ) -> bool {
        let (Some(cache), Some((namespace, seen))) = (&self.cache, budget) else {
            return self.pause(wait, deadline).await;
        };
        let until = Instant::now() + wait;
        let mut changes = cache.changes();
        let mut budgets_seen = cache.pdb_changes();
        loop {
            tokio::select! {
                changed = changes.changed() => {
                    if changed.is_err() {
                        return self.pause(until.saturating_duration_since(Instant::now()), deadline).await;
                    }
                    // Most changes are Lease renewals: the budget is looked up only when some budget changed.
                    let budgets_now = cache.pdb_changes();
                    if budgets_now != budgets_seen {
                        budgets_seen = budgets_now;
                        if cache.pdb_status(&namespace, &seen.name).is_some_and(|now| now != seen && now.disruptions_allowed > 0) {
                            return true;
                        }
                    }
                }
                () = tokio::time::sleep_until(until) => return true,
                () = self.cancel.cancelled() => return false,
                () = sleep_until(deadline) => return false,
            }
        }
    }

    /// Sleeps before a retry. False when the drain was cancelled or ran out of time meanwhile.
    async fn pause(&self, wait: Duration, deadline: Option<Instant>) -> bool {
        tokio::select! {
            () = tokio::time::sleep(wait) => true,
            () = self.cancel.cancelled() => false,
            () = sleep_until(deadline) => false,
        }
    }

    /// After a pause cut short: the pod fails if the drain ran out of time (a Cancel leaves it as it was).
    pub(super) fn stopped(&self, uid: &str, deadline: Option<Instant>) {
        if !self.cancel.is_cancelled() && deadline.is_some_and(|d| Instant::now() >= d) {
            self.set_pod(uid, PodState::Failed(self.timed_out()));
        }
    }

    /// The budgets in `pod`'s namespace now: from the cache when the drain has one, else listed from the API
    /// (none when the list fails: the explanation is then only the API server's message).
    pub(super) async fn budgets(&self, pod: &PodSummary) -> Vec<PdbInfo> {
        match &self.cache {
            Some(cache) => cache.pdbs_in(&std::iter::once(pod.namespace.clone()).collect()),
            None => ops::budgets_in(&self.client, &pod.namespace).await.unwrap_or_default(),
        }
    }

    /// After a budget refused `pod`'s eviction: the budget the API server consulted (the first that covers it),
    /// and why the pod stays, by `domain::blocker`'s rules.
    pub(super) async fn budget_refused(&self, pod: &PodSummary) -> (Option<PdbStatus>, Vec<Blocker>) {
        let budgets = self.budgets(pod).await;
        let covering = domain::budget::covering_all(&budgets, &pod.namespace, &pod.labels);
        let first = covering.first().map(|b| b.status.clone());
        let mut blockers = domain::blocker::budget_refused(pod.ready, &covering, jiff::Timestamp::now());
        // A budget short of healthy pods may be waiting for a replacement the scheduler cannot place.
        let short = covering.first().filter(|b| b.status.current_healthy <= b.status.desired_healthy);
        if let (Some(budget), true) = (short, blockers.iter().any(domain::blocker::Blocker::waits_for_replacement)) {
            let pending = super::facts::pending_for(&self.client, budget).await;
            blockers.extend(domain::blocker::replacements(&pending));
        }
        (first, blockers)
    }
}

pub(super) async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// The monotonic instant of a wall-clock time (now, if it has passed).
fn to_instant(at: Timestamp) -> Instant {
    let ahead = at.duration_since(Timestamp::now());
    Instant::now() + Duration::try_from(ahead).unwrap_or_default()
}
