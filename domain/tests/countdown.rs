//! The pod countdown against an independent model of the taint-eviction controller: a literal, event-by-event
//! translation of `processPodOnNode` and `getMinTolerationTime` (k8s.io/kubernetes v1.36,
//! pkg/controller/tainteviction), fed the taints in the order they were added. For random taints and tolerations,
//! extremes included, the countdown equals the model's scheduled deletion.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A test that cannot set up fails, with the reason.

use domain::{
    eviction::{MAX_CONTROLLER_SECONDS, NO_EXECUTE, PodEviction, Taint, pod_eviction},
    pod::Toleration,
};
use jiff::{SignedDuration, Timestamp};
use proptest::prelude::*;

/// The controller's queue entry for the pod: (created at, fire at).
type Work = Option<(Timestamp, Timestamp)>;

/// `getMinTolerationTime`: 0 if any limit ≤ 0, -1 (forever) if none has one, else the least, as Go returns it.
fn min_toleration_time(used: &[&Toleration]) -> Option<i64> {
    if used.is_empty() {
        return Some(0);
    }
    let mut min = i64::MAX;
    for t in used {
        if let Some(s) = t.toleration_seconds {
            if s <= 0 {
                return Some(0);
            } else if s < min {
                min = s;
            }
        }
    }
    if min == i64::MAX { None } else { Some(min) }
}

/// `processPodOnNode` at `now` with the taints present then; `None` in the result means deleted at once.
/// `Err(None)`: deleted at once; `Err(Some(()))`: the limit overflows the controller's Go arithmetic.
fn process(work: Work, taints: &[&Taint], tolerations: &[Toleration], now: Timestamp) -> Result<Work, Option<()>> {
    let mut used = Vec::new();
    for taint in taints {
        match tolerations.iter().find(|t| t.tolerates(taint)) {
            Some(t) => used.push(t),
            None => return Err(None), // not all tolerated: deleted now
        }
    }
    let Some(min) = min_toleration_time(&used) else {
        return Ok(None); // forever: any scheduled work is cancelled
    };
    if min > MAX_CONTROLLER_SECONDS {
        return Err(Some(()));
    }
    let trigger = now + SignedDuration::from_secs(min);
    match work {
        Some((created, fire)) if created + SignedDuration::from_secs(min) < trigger => Ok(Some((created, fire))),
        Some((created, _)) => Ok(Some((created, trigger))),
        None => Ok(Some((now, trigger))),
    }
}

/// The model's answer, in the countdown's terms.
fn model(taints: &[Taint], tolerations: &[Toleration]) -> PodEviction {
    let mut events: Vec<Timestamp> = taints.iter().filter_map(|t| t.time_added).collect();
    events.sort();
    events.dedup();
    let mut work: Work = None;
    let mut overflowed = false;
    for now in events {
        let present: Vec<&Taint> = taints.iter().filter(|t| t.time_added.is_some_and(|a| a <= now)).collect();
        match process(work, &present, tolerations, now) {
            Err(None) => return PodEviction::Immediately,
            // What the controller does next is its overflow's business; a later untolerated taint still deletes now.
            Err(Some(())) => overflowed = true,
            Ok(next) => work = next,
        }
    }
    if overflowed {
        return PodEviction::Unknown;
    }
    match work {
        None => PodEviction::Never,
        Some((created, fire)) if fire == created => PodEviction::Immediately,
        Some((_, fire)) => PodEviction::At(fire),
    }
}

fn toleration() -> impl Strategy<Value = Toleration> {
    (
        prop::sample::select(vec!["a", "b", "c", ""]),
        prop::sample::select(vec!["Exists", "Equal"]),
        prop::sample::select(vec![NO_EXECUTE, ""]),
        prop_oneof![
            Just(None),
            (-5i64..400).prop_map(Some),
            Just(Some(MAX_CONTROLLER_SECONDS)),
            any::<i64>().prop_map(Some)
        ],
    )
        .prop_map(|(key, operator, effect, seconds)| Toleration {
            key: (!key.is_empty()).then(|| key.into()),
            operator: Some(operator.into()),
            value: None,
            effect: (!effect.is_empty()).then(|| effect.into()),
            toleration_seconds: seconds,
        })
}

fn taint() -> impl Strategy<Value = Taint> {
    (prop::sample::select(vec!["a", "b", "c"]), 0i64..60).prop_map(|(key, offset)| Taint {
        key: key.into(),
        value: None,
        effect: NO_EXECUTE.into(),
        time_added: Some(Timestamp::from_second(1_796_000_000 + offset).unwrap()),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn the_countdown_is_the_controllers_schedule(
        taints in prop::collection::vec(taint(), 1..4),
        tolerations in prop::collection::vec(toleration(), 0..5),
    ) {
        // Where a limit past ~9.2e9 s would overflow the controller's own Go arithmetic, both say unknown.
        prop_assert_eq!(pod_eviction(&taints, &tolerations), model(&taints, &tolerations));
    }
}
