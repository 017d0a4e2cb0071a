//! When pods leave a node that is not Ready: the two countdowns Drainboard shows.
//!
//! - **The node rule** from the maintenance guide: once `Ready` has been False or Unknown for the controller
//!   manager's pod-eviction timeout (5 minutes there), all the node's pods are deleted. Current Kubernetes no
//!   longer has that flag, but operators still reason with it, so it is shown with a configurable timeout.
//! - **The pod rule** current clusters apply: the node lifecycle controller puts a `NoExecute` taint
//!   (`node.kubernetes.io/not-ready` or `unreachable`) on the node, and each pod goes when its toleration of the
//!   taints runs out. For every `NoExecute` taint, the first toleration in the pod's list that tolerates it is the
//!   one that counts; the pod goes at the minimum of their `tolerationSeconds` after the taint appeared. A taint no
//!   toleration matches, or a value ≤ 0, means at once; tolerations without seconds mean never.
//!
//! The taint controller really starts its timer when it sees the taint, normally within milliseconds of the
//! taint's `timeAdded`; a controller restart restarts the timer. `timeAdded` is the best public estimate.

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
    /// A taint is not tolerated, or tolerated for ≤ 0 s: the pod goes as soon as the controller acts.
    Immediately,
    /// The pod goes at this time.
    At(Timestamp),
}

/// The eviction time of a pod with `tolerations` on a node with `taints`.
pub fn pod_eviction(taints: &[Taint], tolerations: &[Toleration]) -> PodEviction {
    let no_execute: Vec<&Taint> = taints.iter().filter(|t| t.effect == NO_EXECUTE).collect();
    if no_execute.is_empty() {
        return PodEviction::NotScheduled;
    }
    let mut min_seconds: Option<i64> = None;
    for taint in &no_execute {
        // The first toleration in pod order that matches, not the most lenient one.
        let Some(toleration) = tolerations.iter().find(|t| t.tolerates(taint)) else {
            return PodEviction::Immediately;
        };
        if let Some(seconds) = toleration.toleration_seconds {
            if seconds <= 0 {
                return PodEviction::Immediately;
            }
            min_seconds = Some(min_seconds.map_or(seconds, |m| m.min(seconds)));
        }
    }
    let Some(seconds) = min_seconds else {
        return PodEviction::Never;
    };
    // The timer started when the first of these taints appeared. A time past the calendar's end (a toleration of
    // billions of years, from a pod spec anyone may write) never comes.
    match no_execute.iter().filter_map(|t| t.time_added).min() {
        Some(start) => {
            start.checked_add(SignedDuration::from_secs(seconds)).map_or(PodEviction::Never, PodEviction::At)
        }
        None => PodEviction::Immediately,
    }
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
    fn times_past_the_calendar_never_come_and_never_panic() {
        let unreachable = taint(UNREACHABLE, NO_EXECUTE, T0);
        let forever = [tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(i64::MAX))];
        assert_eq!(pod_eviction(std::slice::from_ref(&unreachable), &forever), PodEviction::Never);
        let late = Taint { time_added: Some(Timestamp::MAX), ..unreachable };
        let a_minute = [tol(UNREACHABLE, "Exists", NO_EXECUTE, Some(60))];
        assert_eq!(pod_eviction(&[late], &a_minute), PodEviction::Never);
        assert_eq!(node_eviction_deadline(ReadyStatus::Unknown, Some(Timestamp::MAX), SignedDuration::MAX), None);
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
