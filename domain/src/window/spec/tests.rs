use jiff::{civil::Weekday, tz::TimeZone};

use super::*;

fn zone(name: &str) -> Option<TimeZone> {
    TimeZone::get(name).ok()
}

fn spec(schedules: Vec<ScheduleSpec>) -> Spec {
    Spec { time_zone: Some("Asia/Tokyo".into()), schedules, ..Spec::default() }
}

fn at(start: &str, end: &str) -> ScheduleSpec {
    ScheduleSpec { days: vec!["Tue".into(), "thursday".into()], weeks: vec![], start: start.into(), end: end.into() }
}

#[test]
fn a_window_reads_into_its_checked_form() {
    let mut s = spec(vec![at("22:00", "04:00")]);
    s.node_selector = Some("pool=db".into());
    s.max_in_maintenance = Some("25%".into());
    s.freezes = vec![FreezeSpec { start: "2026-12-24".into(), end: "2026-12-26".into(), reason: "holidays".into() }];
    s.gates.alerts = vec![AlertGateSpec { matchers: vec!["severity=\"critical\"".into()] }];
    s.gates.pods = vec![PodGateSpec { selector: "app=backup".into(), namespace: Some("ops".into()), anywhere: true }];
    let p = Policy::parse("night", &s, zone).unwrap();
    assert_eq!(p.zone_name, "Asia/Tokyo");
    assert_eq!(p.schedules[0].days, vec![Weekday::Tuesday, Weekday::Thursday]);
    assert_eq!((p.schedules[0].start.hour(), p.schedules[0].end.hour()), (22, 4));
    assert_eq!(p.budget, Some(Budget::Percent(25)));
    // A dated end freezes that whole day: until the next day's midnight in Tokyo (15:00 UTC the day before).
    assert_eq!(p.freezes[0].start.to_string(), "2026-12-23T15:00:00Z");
    assert_eq!(p.freezes[0].end.to_string(), "2026-12-26T15:00:00Z");
    assert_eq!(p.gates.alerts[0][0].value, "critical");
    assert!(p.gates.pods[0].anywhere);
}

#[test]
fn each_wrong_field_is_named_with_what_to_write() {
    let cases: Vec<(Spec, &str)> = vec![
        (Spec { time_zone: Some("Mars/Olympus".into()), ..Spec::default() }, "is not an IANA time zone"),
        (spec(vec![at("2:00", "04:00")]), "schedules[0].start: \"2:00\" is not a time; write HH:MM"),
        (spec(vec![at("25:00", "04:00")]), "schedules[0].start"),
        (spec(vec![at("02:00", "4pm")]), "schedules[0].end"),
        (spec(vec![ScheduleSpec { days: vec!["Funday".into()], ..at("02:00", "04:00") }]), "\"Funday\" is not a day"),
        (spec(vec![ScheduleSpec { days: vec!["tues".into()], ..at("02:00", "04:00") }]), "\"tues\" is not a day"),
        (spec(vec![ScheduleSpec { weeks: vec![6], ..at("02:00", "04:00") }]), "6 is not a week of the month"),
        (spec(vec![ScheduleSpec { days: vec![], weeks: vec![1], ..at("02:00", "04:00") }]), "gives weeks but no days"),
        (Spec { max_in_maintenance: Some("0".into()), ..Spec::default() }, "write 2 or 25%"),
        (Spec { max_in_maintenance: Some("150%".into()), ..Spec::default() }, "write 2 or 25%"),
        (Spec { max_in_maintenance: Some("-1".into()), ..Spec::default() }, "write 2 or 25%"),
        (Spec { node_selector: Some("a in (b".into()), ..Spec::default() }, "nodeSelector"),
    ];
    for (s, expected) in cases {
        let err = Policy::parse("w", &s, zone).unwrap_err();
        assert!(err.contains(expected), "{err:?} should contain {expected:?}");
    }
}

#[test]
fn freezes_and_gates_are_checked_too() {
    let freeze = |start: &str, end: &str, reason: &str| Spec {
        freezes: vec![FreezeSpec { start: start.into(), end: end.into(), reason: reason.into() }],
        ..Spec::default()
    };
    for (s, expected) in [
        (freeze("2026-12-24", "2026-12-20", "x"), "ends before it starts"),
        (freeze("Christmas", "2026-12-26", "x"), "freezes[0].start: \"Christmas\" is not a date"),
        (freeze("2026-12-24", "2026-12-26", "  "), "gives no reason"),
        (freeze("2026-12-24", "2026-12-26", &"x".repeat(501)), "longer than 500 bytes"),
        (
            Spec {
                gates: GatesSpec { alerts: vec![AlertGateSpec { matchers: vec![] }], ..GatesSpec::default() },
                ..Spec::default()
            },
            "lists no matchers",
        ),
        (
            Spec {
                gates: GatesSpec {
                    alerts: vec![AlertGateSpec { matchers: vec!["severity".into()] }],
                    ..GatesSpec::default()
                },
                ..Spec::default()
            },
            "has no operator",
        ),
        (
            Spec {
                gates: GatesSpec {
                    alerts: vec![AlertGateSpec { matchers: vec!["job=~\"(\"".into()] }],
                    ..GatesSpec::default()
                },
                ..Spec::default()
            },
            "not a valid regex",
        ),
        (
            Spec {
                gates: GatesSpec {
                    pods: vec![PodGateSpec { selector: "".into(), namespace: None, anywhere: false }],
                    ..GatesSpec::default()
                },
                ..Spec::default()
            },
            "selector is empty",
        ),
        (
            Spec {
                gates: GatesSpec {
                    pods: vec![PodGateSpec {
                        selector: "a=b".into(),
                        namespace: Some("Bad_NS".into()),
                        anywhere: false,
                    }],
                    ..GatesSpec::default()
                },
                ..Spec::default()
            },
            "gates.pods[0].namespace",
        ),
        (Spec { schedules: vec![at("02:00", "03:00"); 21], ..Spec::default() }, "schedules lists 21; at most 20"),
    ] {
        let err = Policy::parse("w", &s, zone).unwrap_err();
        assert!(err.contains(expected), "{err:?} should contain {expected:?}");
    }
    // Local dates and times, and instants with an offset, are read as such.
    let p = Policy::parse(
        "w",
        &Spec {
            time_zone: Some("Europe/Berlin".into()),
            ..freeze("2026-07-01T18:00", "2026-07-02T06:00:00+00:00", "x")
        },
        zone,
    )
    .unwrap();
    assert_eq!(p.freezes[0].start.to_string(), "2026-07-01T16:00:00Z");
    assert_eq!(p.freezes[0].end.to_string(), "2026-07-02T06:00:00Z");
}

#[test]
fn a_share_rounds_down_but_never_to_none() {
    assert_eq!(Budget::Percent(25).max(10), 2);
    assert_eq!(Budget::Percent(10).max(5), 1);
    assert_eq!(Budget::Percent(100).max(0), 1);
    assert_eq!(Budget::Nodes(3).max(1), 3);
    assert_eq!(Budget::Percent(100).max(u32::MAX), u32::MAX);
}

#[test]
fn a_silence_names_a_label_and_a_margin() {
    let with = |label: Option<&str>, margin: Option<u32>| Spec {
        silence: Some(SilenceSpec { label: label.map(Into::into), margin_seconds: margin }),
        ..Spec::default()
    };
    assert_eq!(Policy::parse("w", &with(None, None), zone).unwrap().silence, Some(("node".into(), 600)));
    assert_eq!(
        Policy::parse("w", &with(Some("instance"), Some(0)), zone).unwrap().silence,
        Some(("instance".into(), 0))
    );
    assert!(Policy::parse("w", &with(Some("bad-label"), None), zone).unwrap_err().contains("is not a label name"));
    assert!(Policy::parse("w", &with(None, Some(90_000)), zone).unwrap_err().contains("more than a day"));
    assert_eq!(Policy::parse("w", &Spec::default(), zone).unwrap().silence, None);
}
