//! When pods leave a node that is not Ready: the two countdowns Drainboard shows.
//!
//! - **The node rule** from the maintenance guide: once `Ready` has been False or Unknown for the controller
//!   manager's pod-eviction timeout (5 minutes there), all the node's pods are deleted. Current Kubernetes no
//!   longer has that flag, but operators still reason with it, so it is shown with a configurable timeout.
//! - **The pod rule** current clusters apply, as the taint-eviction controller decides it (`processPodOnNode`,
//!   `getMinTolerationTime`). The node lifecycle controller puts a `NoExecute` taint (`node.kubernetes.io/not-ready`
//!   or `unreachable`) on the node. For every `NoExecute` taint, the first toleration in the pod's list that
//!   tolerates it is the one that counts. A taint no toleration matches deletes the pod at once. Otherwise, each time
//!   the taints change, the controller takes the shortest `tolerationSeconds` of those tolerations (≤ 0 counts as
//!   0; none at all means forever): forever cancels any scheduled deletion; a finite limit schedules one for then
//!   plus the limit, unless one is scheduled already, which stays as it is. So the time is fixed by the first moment
//!   every taint was tolerated with a finite limit, and a taint added later does not move it.
//!
//! The controller starts its timer when it observes a change, normally within milliseconds of the taint's
//! `timeAdded`, which is the best public estimate; a controller-manager restart restarts every timer. A taint with
//! no `timeAdded`, or a limit the controller's own arithmetic cannot hold, reads as unknown.

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::{ReadyStatus, pod::Toleration};

/// A node taint.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Taint {
    pub key: String,
    pub value: Option<String>,
    pub effect: String,
    pub time_added: Option<Timestamp>,
}

pub const NO_EXECUTE: &str = "NoExecute";

impl Toleration {
    /// Whether this toleration tolerates `taint`, by the API's rules: an empty effect matches every effect; an
    /// empty key with `Exists` matches every key; `Exists` ignores the value; `Equal` (the default) compares it.
    pub fn tolerates(&self, taint: &Taint) -> bool {
        if let Some(effect) = self.effect.as_deref().filter(|e| !e.is_empty())
            && effect != taint.effect
        {
            return false;
        }
        let key = self.key.as_deref().unwrap_or("");
        let exists = self.operator.as_deref() == Some("Exists");
        if key.is_empty() {
            return exists;
        }
        if key != taint.key {
            return false;
        }
        match self.operator.as_deref() {
            Some("Exists") => true,
            None | Some("") | Some("Equal") => {
                self.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or("")
            }
            Some(_) => false,
        }
    }
}

/// When a pod on a tainted node is evicted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PodEviction {
    /// The node has no `NoExecute` taint: nothing is scheduled.
    NotScheduled,
    /// Every `NoExecute` taint is tolerated with no time limit (DaemonSet pods, typically).
    Never,
    /// A taint is not tolerated, or the deletion was scheduled with a limit ≤ 0 s: the pod goes as soon as the
    /// controller acts.
    Immediately,
    /// The pod goes at this time.
    At(Timestamp),
    /// A deletion is scheduled, but its time cannot be told: a taint has no `timeAdded`, or a limit is past what
    /// the controller's duration arithmetic holds.
    Unknown,
}

/// The longest limit the taint-eviction controller can hold: it turns seconds into nanoseconds in an `i64`, and a
/// longer one overflows there (about 292 years).
pub const MAX_CONTROLLER_SECONDS: i64 = i64::MAX / 1_000_000_000;

/// The eviction time of a pod with `tolerations` on a node with `taints`, replaying the taints' arrivals as the
/// taint-eviction controller saw them.
pub fn pod_eviction(taints: &[Taint], tolerations: &[Toleration]) -> PodEviction {
    let no_execute: Vec<&Taint> = taints.iter().filter(|t| t.effect == NO_EXECUTE).collect();
    if no_execute.is_empty() {
        return PodEviction::NotScheduled;
    }
    // For each taint, the first toleration in pod order that matches (not the most lenient one), and its limit.
    let mut limits: Vec<(&Taint, Option<i64>)> = Vec::with_capacity(no_execute.len());
    for taint in &no_execute {
        let Some(toleration) = tolerations.iter().find(|t| t.tolerates(taint)) else {
            return PodEviction::Immediately;
        };
        limits.push((taint, toleration.toleration_seconds.map(|s| s.max(0))));
    }
    if limits.iter().all(|(_, limit)| limit.is_none()) {
        return PodEviction::Never;
    }
    // Taints tolerated forever never change the shortest limit, so when they came does not matter; a timed one
    // with no `timeAdded` leaves the start unknown.
    limits.retain(|(_, limit)| limit.is_some());
    if limits.iter().any(|(taint, _)| taint.time_added.is_none()) {
        return PodEviction::Unknown;
    }
    // Replay: at each moment a taint appeared, the taints present then decide.
    limits.sort_by_key(|(taint, _)| taint.time_added);
    let mut scheduled: Option<PodEviction> = None;
    for (i, (taint, _)) in limits.iter().enumerate() {
        let Some(at) = taint.time_added else { return PodEviction::Unknown };
        if limits.get(i + 1).is_some_and(|(next, _)| next.time_added == Some(at)) {
            continue; // taints added at the same moment are seen together
        }
        let shortest = limits[..=i].iter().filter_map(|(_, limit)| *limit).min();
        if shortest.is_some_and(|s| s > MAX_CONTROLLER_SECONDS) {
            return PodEviction::Unknown; // the controller's own arithmetic overflows here
        }
        scheduled = match (shortest, scheduled) {
            (None, _) => None,
            (Some(_), Some(kept)) => Some(kept),
            (Some(0), None) => Some(PodEviction::Immediately),
            (Some(seconds), None) => {
                Some(at.checked_add(SignedDuration::from_secs(seconds)).map_or(PodEviction::Unknown, PodEviction::At))
            }
        };
    }
    scheduled.unwrap_or(PodEviction::Unknown)
}

/// The node rule: when a node that is not Ready loses its pods, `timeout` after Ready last changed. `None` for a
/// Ready node, or when the transition time is unknown.
pub fn node_eviction_deadline(
    ready: ReadyStatus,
    last_transition: Option<Timestamp>,
    timeout: SignedDuration,
) -> Option<Timestamp> {
    match ready {
        ReadyStatus::Ready => None,
        ReadyStatus::NotReady | ReadyStatus::Unknown => last_transition.and_then(|t| t.checked_add(timeout).ok()),
    }
}

/// How a countdown reads at `now`: the time left, or `None` once it is due.
pub fn remaining(deadline: Timestamp, now: Timestamp) -> Option<SignedDuration> {
    let left = deadline.duration_since(now);
    (left > SignedDuration::ZERO).then_some(left)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn taint(key: &str, effect: &str, added: &str) -> Taint {
        Taint { key: key.into(), value: None, effect: effect.into(), time_added: Some(ts(added)) }
    }

    fn tol(key: &str, operator: &str, effect: &str, seconds: Option<i64>) -> Toleration {
        Toleration {
            key: (!key.is_empty()).then(|| key.into()),
            operator: (!operator.is_empty()).then(|| operator.into()),
            value: None,
            effect: (!effect.is_empty()).then(|| effect.into()),
            toleration_seconds: seconds,
        }
    }

    const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
    const NOT_READY: &str = "node.kubernetes.io/not-ready";
    const T0: &str = "2026-11-30T12:00:00Z";

    #[test]
    fn pod_eviction_table() {
        let unreachable = taint(UNREACHABLE, NO_EXECUTE, T0);
        let default_tolerations =
            vec![tol(NOT_READY, "Exists", NO_EXECUTE, Some(300)), tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(300))];
        let daemonset_tolerations =
            vec![tol(NOT_READY, "Exists", NO_EXECUTE, None), tol(UNREACHABLE, "Exists", NO_EXECUTE, None)];
        let at = |s: &str| PodEviction::At(ts(s));
        let cases: Vec<(&str, Vec<Taint>, Vec<Toleration>, PodEviction)> = vec![
            ("no taints", vec![], default_tolerations.clone(), PodEviction::NotScheduled),
            (
                "a NoSchedule taint alone schedules nothing",
                vec![taint("node.kubernetes.io/unschedulable", "NoSchedule", T0)],
                vec![],
                PodEviction::NotScheduled,
            ),
            ("the default 300 s", vec![unreachable.clone()], default_tolerations.clone(), at("2026-11-30T12:05:00Z")),
            ("DaemonSet pods stay", vec![unreachable.clone()], daemonset_tolerations.clone(), PodEviction::Never),
            ("an untolerated taint means now", vec![unreachable.clone()], vec![], PodEviction::Immediately),
            (
                "a toleration of another effect does not match",
                vec![unreachable.clone()],
                vec![tol(UNREACHABLE, "Exists", "NoSchedule", None)],
                PodEviction::Immediately,
            ),
            (
                "tolerationSeconds 0 means now",
                vec![unreachable.clone()],
                vec![tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(0))],
                PodEviction::Immediately,
            ),
            (
                "negative tolerationSeconds means now",
                vec![unreachable.clone()],
                vec![tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(-5))],
                PodEviction::Immediately,
            ),
            (
                "the first matching toleration counts, not the most lenient",
                vec![unreachable.clone()],
                vec![tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(30)), tol(UNREACHABLE, "Exists", "", Some(3600))],
                at("2026-11-30T12:00:30Z"),
            ),
            (
                "... and a first match with no seconds means never, whatever follows",
                vec![unreachable.clone()],
                vec![tol("", "Exists", "", None), tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(10))],
                PodEviction::Never,
            ),
            (
                "the minimum across taints",
                vec![unreachable.clone(), taint("example.com/maintenance", NO_EXECUTE, T0)],
                vec![
                    tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(300)),
                    tol("example.com/maintenance", "Exists", "", Some(60)),
                ],
                at("2026-11-30T12:01:00Z"),
            ),
            (
                "one taint untolerated among tolerated ones means now",
                vec![unreachable.clone(), taint("example.com/maintenance", NO_EXECUTE, T0)],
                default_tolerations.clone(),
                PodEviction::Immediately,
            ),
            (
                "untimed plus timed: the timed one decides",
                vec![unreachable.clone(), taint("example.com/maintenance", NO_EXECUTE, T0)],
                vec![tol(UNREACHABLE, "Exists", "", None), tol("example.com/maintenance", "Exists", "", Some(45))],
                at("2026-11-30T12:00:45Z"),
            ),
            (
                "Equal compares values",
                vec![Taint { value: Some("b".into()), ..taint("k", NO_EXECUTE, T0) }],
                vec![
                    Toleration { value: Some("a".into()), ..tol("k", "Equal", NO_EXECUTE, Some(1)) },
                    Toleration { value: Some("b".into()), ..tol("k", "", NO_EXECUTE, Some(20)) },
                ],
                at("2026-11-30T12:00:20Z"),
            ),
        ];
        for (what, taints, tolerations, want) in cases {
            assert_eq!(pod_eviction(&taints, &tolerations), want, "{what}");
        }
    }

    #[test]
    fn limits_past_the_controllers_arithmetic_or_the_calendar_are_unknown_and_never_panic() {
        let unreachable = taint(UNREACHABLE, NO_EXECUTE, T0);
        for seconds in [i64::MAX, MAX_CONTROLLER_SECONDS + 1] {
            let huge = [tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(seconds))];
            assert_eq!(pod_eviction(std::slice::from_ref(&unreachable), &huge), PodEviction::Unknown, "{seconds}");
        }
        let longest = [tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(MAX_CONTROLLER_SECONDS))];
        assert!(matches!(pod_eviction(std::slice::from_ref(&unreachable), &longest), PodEviction::At(_)));
        let late = Taint { time_added: Some(Timestamp::MAX), ..unreachable };
        let a_minute = [tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(60))];
        assert_eq!(pod_eviction(&[late], &a_minute), PodEviction::Unknown);
        assert_eq!(node_eviction_deadline(ReadyStatus::Unknown, Some(Timestamp::MAX), SignedDuration::MAX), None);
    }

    #[test]
    fn the_time_is_fixed_when_every_taint_is_first_tolerated_with_a_limit() {
        let defaults =
            vec![tol(NOT_READY, "Exists", NO_EXECUTE, Some(300)), tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(300))];
        // A months-old taint tolerated forever starts no timer; the fresh unreachable taint does.
        let old = taint("example.com/dedicated", NO_EXECUTE, "2026-06-01T00:00:00Z");
        let mut tolerations = vec![tol("example.com/dedicated", "Exists", NO_EXECUTE, None)];
        tolerations.extend(defaults);
        assert_eq!(
            pod_eviction(&[old, taint(UNREACHABLE, NO_EXECUTE, T0)], &tolerations),
            PodEviction::At(ts("2026-11-30T12:05:00Z"))
        );
        // Two timed taints 10 s apart: the first schedules, and the second, though shorter, does not move it.
        let first = taint(UNREACHABLE, NO_EXECUTE, T0);
        let second = taint("example.com/maintenance", NO_EXECUTE, "2026-11-30T12:00:10Z");
        let both = [tol(UNREACHABLE, "Exists", "", Some(300)), tol("example.com/maintenance", "Exists", "", Some(60))];
        assert_eq!(pod_eviction(&[second.clone(), first.clone()], &both), PodEviction::At(ts("2026-11-30T12:05:00Z")));
        // Added at the same moment, they are seen together: the shorter limit decides.
        let together = Taint { time_added: first.time_added, ..second };
        assert_eq!(pod_eviction(&[first, together], &both), PodEviction::At(ts("2026-11-30T12:01:00Z")));
        // A timed taint without timeAdded: the controller knows when it saw it; we do not.
        let undated = Taint { time_added: None, ..taint(UNREACHABLE, NO_EXECUTE, T0) };
        assert_eq!(pod_eviction(std::slice::from_ref(&undated), &both), PodEviction::Unknown);
        // ... but an untolerated one means now, dated or not.
        assert_eq!(pod_eviction(std::slice::from_ref(&undated), &[]), PodEviction::Immediately);
        // An undated taint tolerated forever does not matter: it never moves the time.
        let forever_undated = Taint { key: "example.com/dedicated".into(), ..undated };
        let dated = taint(UNREACHABLE, NO_EXECUTE, T0);
        assert_eq!(pod_eviction(&[forever_undated, dated], &tolerations), PodEviction::At(ts("2026-11-30T12:05:00Z")));
    }

    #[test]
    fn the_node_rule_counts_from_the_last_transition() {
        let five_minutes = SignedDuration::from_mins(5);
        let t = Some(ts(T0));
        assert_eq!(node_eviction_deadline(ReadyStatus::Ready, t, five_minutes), None);
        for status in [ReadyStatus::NotReady, ReadyStatus::Unknown] {
            assert_eq!(node_eviction_deadline(status, t, five_minutes), Some(ts("2026-11-30T12:05:00Z")));
        }
        assert_eq!(node_eviction_deadline(ReadyStatus::Unknown, None, five_minutes), None);
        let deadline = ts("2026-11-30T12:05:00Z");
        assert_eq!(remaining(deadline, ts("2026-11-30T12:01:48Z")), Some(SignedDuration::from_secs(192)));
        assert_eq!(remaining(deadline, deadline), None, "due");
    }
}
