//! Property tests: whatever a request, a pod spec or a node annotation carries, the rules answer without
//! panicking. Values come from anyone who may write a pod or patch a node, so every extreme is fair game.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A test that cannot set up fails, with the reason.

use domain::{
    PodSummary,
    board::{Span, clock, elapsed, short_age},
    drain::{DaemonSetLookup, DrainOptions, plan},
    eviction::{NO_EXECUTE, Taint, node_eviction_deadline, pod_eviction, remaining},
    input,
    pod::{PodPhase, Toleration},
    selector::LabelSelector,
};
use jiff::{SignedDuration, Timestamp};
use proptest::prelude::*;

fn timestamp() -> impl Strategy<Value = Timestamp> {
    (Timestamp::MIN.as_second()..=Timestamp::MAX.as_second()).prop_map(|s| Timestamp::from_second(s).unwrap())
}

fn toleration() -> impl Strategy<Value = Toleration> {
    (
        proptest::option::of(prop_oneof![Just("node.kubernetes.io/unreachable".to_string()), ".{0,8}"]),
        proptest::option::of(prop_oneof![Just("Exists".to_string()), Just("Equal".to_string()), ".{0,5}"]),
        proptest::option::of(prop_oneof![Just(NO_EXECUTE.to_string()), ".{0,5}"]),
        proptest::option::of(any::<i64>()),
    )
        .prop_map(|(key, operator, effect, toleration_seconds)| Toleration {
            key,
            operator,
            value: None,
            effect,
            toleration_seconds,
        })
}

fn taint() -> impl Strategy<Value = Taint> {
    (prop_oneof![Just("node.kubernetes.io/unreachable".to_string()), ".{0,8}"], proptest::option::of(timestamp()))
        .prop_map(|(key, time_added)| Taint { key, value: None, effect: NO_EXECUTE.into(), time_added })
}

fn options() -> impl Strategy<Value = DrainOptions> {
    (
        proptest::option::of(any::<i64>()),
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<u64>()),
        proptest::option::of(".{0,40}"),
        any::<[bool; 4]>(),
    )
        .prop_map(|(grace, timeout, skip, selector, [force, ignore, emptydir, disable])| DrainOptions {
            force,
            ignore_daemonsets: ignore,
            delete_emptydir_data: emptydir,
            disable_eviction: disable,
            grace_period_seconds: grace,
            timeout_seconds: timeout,
            skip_wait_for_delete_timeout_seconds: skip,
            pod_selector: selector,
            ..Default::default()
        })
}

proptest! {
    #[test]
    fn countdowns_never_panic(
        taints in proptest::collection::vec(taint(), 0..4),
        tolerations in proptest::collection::vec(toleration(), 0..4),
        since in proptest::option::of(timestamp()),
        timeout in any::<i64>(),
        now in timestamp(),
    ) {
        let _ = pod_eviction(&taints, &tolerations);
        for status in [domain::ReadyStatus::NotReady, domain::ReadyStatus::Unknown] {
            if let Some(deadline) = node_eviction_deadline(status, since, SignedDuration::from_secs(timeout)) {
                let _ = remaining(deadline, now).map(clock);
            }
        }
    }

    #[test]
    fn durations_always_split(seconds in any::<i64>(), nanos in -999_999_999i32..=999_999_999) {
        let d = SignedDuration::new(seconds, if seconds >= 0 { nanos.abs() } else { -nanos.abs() });
        prop_assert!(!clock(d).is_empty());
        for span in [elapsed(d), short_age(d)] {
            let ok = match span {
                Span::Tenths { seconds, tenths } => (0..10).contains(&seconds) && (0..10).contains(&tenths),
                Span::Seconds(n) | Span::Minutes(n) | Span::Hours(n) | Span::Days(n) => n >= 0,
                Span::MinutesSeconds(m, s) | Span::HoursMinutes(m, s) => m >= 0 && (0..60).contains(&s),
            };
            prop_assert!(ok, "{span:?}");
        }
    }

    #[test]
    fn request_values_are_checked_never_trusted(
        name in ".{0,300}",
        reason in proptest::option::of(".{0,600}"),
        confirm in proptest::option::of(".{0,20}"),
        options in options(),
        deleted in proptest::option::of(timestamp()),
        now in timestamp(),
    ) {
        let _ = input::node_name(&name);
        let _ = input::reason(reason.as_deref());
        let valid = input::drain_options(&options).is_ok();
        let _ = input::consent(&options, &name, confirm.as_deref());
        if let Some(selector) = options.pod_selector.as_deref() {
            let _ = LabelSelector::parse(selector);
        }
        // The planner reads the skip-wait limit against any deletion time.
        let pod = PodSummary {
            namespace: "ns".into(),
            name: "p".into(),
            uid: "u".into(),
            node_name: None,
            phase: PodPhase::Running,
            ready: true,
            controller: None,
            mirror: false,
            empty_dir: false,
            deletion_timestamp: deleted,
            labels: Default::default(),
            tolerations: Vec::new(),
            do_not_disrupt: None,
            grace_seconds: None,
            ready_after_seconds: None,
        };
        let planned = plan(&[pod], |_, _| DaemonSetLookup::Exists, &options, now);
        prop_assert_eq!(planned.pods.len(), 1);
        if valid {
            prop_assert!(options.timeout_seconds.is_none_or(|t| t <= input::MAX_SECONDS));
        }
    }
}
