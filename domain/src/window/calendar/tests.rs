//! "Now" is an argument everywhere here: each case names its instant.

use jiff::{Timestamp, tz::TimeZone};
use proptest::prelude::*;

use super::*;
use crate::window::spec::{FreezeSpec, ScheduleSpec, Spec};

fn ts(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn window(zone: &str, schedules: &[(&[&str], &[i32], &str, &str)], freezes: &[(&str, &str)]) -> Policy {
    let spec = Spec {
        time_zone: Some(zone.into()),
        schedules: schedules
            .iter()
            .map(|(days, weeks, start, end)| ScheduleSpec {
                days: days.iter().map(|d| d.to_string()).collect(),
                weeks: weeks.to_vec(),
                start: start.to_string(),
                end: end.to_string(),
            })
            .collect(),
        freezes: freezes
            .iter()
            .map(|(start, end)| FreezeSpec { start: start.to_string(), end: end.to_string(), reason: "freeze".into() })
            .collect(),
        ..Spec::default()
    };
    Policy::parse("w", &spec, |z| TimeZone::get(z).ok()).unwrap()
}

#[test]
fn a_weekday_window_is_open_inside_and_next_opens_the_next_weekday() {
    // Mon to Fri, 02:00 to 05:00 in Berlin (UTC+1 in December).
    let w = window("Europe/Berlin", &[(&["Mon", "Tue", "Wed", "Thu", "Fri"], &[], "02:00", "05:00")], &[]);
    assert!(w.open_at(ts("2026-12-01T02:30:00Z")), "Tue 03:30 local");
    assert!(!w.open_at(ts("2026-12-01T04:00:00Z")), "Tue 05:00 local: the end is not inside");
    assert_eq!(w.next_open(ts("2026-12-01T04:00:00Z")), Some(ts("2026-12-02T01:00:00Z")));
    assert_eq!(w.next_open(ts("2026-12-01T02:30:00Z")), Some(ts("2026-12-01T02:30:00Z")), "open now: now");
    // Friday after the window: Monday.
    assert_eq!(w.next_open(ts("2026-12-04T12:00:00Z")), Some(ts("2026-12-07T01:00:00Z")));
}

#[test]
fn a_window_across_midnight_belongs_to_the_day_it_starts() {
    let w = window("UTC", &[(&["Fri"], &[], "22:00", "04:00")], &[]);
    assert!(w.open_at(ts("2026-12-05T01:00:00Z")), "Saturday 01:00 is Friday night's window");
    assert!(!w.open_at(ts("2026-12-06T01:00:00Z")), "Sunday 01:00 is not");
    assert!(!w.open_at(ts("2026-12-04T01:00:00Z")), "Friday 01:00 is Thursday night's, which there is not");
    assert_eq!(w.next_open(ts("2026-12-05T04:00:00Z")), Some(ts("2026-12-11T22:00:00Z")));
}

#[test]
fn monthly_forms_pick_the_nth_and_the_last_day() {
    let first_tuesday = window("UTC", &[(&["Tue"], &[1], "02:00", "06:00")], &[]);
    // From Wednesday 2 December 2026 the next first Tuesday is 5 January 2027.
    assert_eq!(first_tuesday.next_open(ts("2026-12-02T00:00:00Z")), Some(ts("2027-01-05T02:00:00Z")));
    assert!(first_tuesday.open_at(ts("2026-12-01T03:00:00Z")));
    assert!(!first_tuesday.open_at(ts("2026-12-08T03:00:00Z")), "the second Tuesday is not");
    let last_sunday = window("UTC", &[(&["Sun"], &[-1], "00:00", "00:00")], &[]);
    assert_eq!(last_sunday.next_open(ts("2026-12-01T00:00:00Z")), Some(ts("2026-12-27T00:00:00Z")));
    assert!(last_sunday.open_at(ts("2026-12-27T23:59:59Z")), "00:00 to 00:00 is the whole day");
    // A fifth Monday is months away at times: it is still found.
    let fifth_monday = window("UTC", &[(&["Mon"], &[5], "02:00", "03:00")], &[]);
    // December 2026 has four Mondays, and so have January and February 2027.
    assert_eq!(fifth_monday.next_open(ts("2026-12-01T00:00:00Z")), Some(ts("2027-03-29T02:00:00Z")));
    assert_eq!(fifth_monday.next_open(ts("2027-03-30T00:00:00Z")), Some(ts("2027-05-31T02:00:00Z")));
}

#[test]
fn in_tokyo_it_is_already_monday_while_utc_is_on_sunday() {
    let w = window("Asia/Tokyo", &[(&["Mon"], &[], "02:00", "04:00")], &[]);
    // Sunday 18:00 UTC is Monday 03:00 in Tokyo.
    assert!(w.open_at(ts("2026-12-06T18:00:00Z")));
    assert!(!w.open_at(ts("2026-12-07T18:00:00Z")), "Monday 18:00 UTC is Tuesday in Tokyo");
    assert_eq!(w.next_open(ts("2026-12-07T00:00:00Z")), Some(ts("2026-12-13T17:00:00Z")));
}

#[test]
fn a_freeze_holds_whatever_the_schedule_says_and_the_next_opening_is_after_it() {
    let w = window("UTC", &[], &[("2026-12-24", "2026-12-26")]);
    assert!(w.open_at(ts("2026-12-23T23:59:59Z")));
    assert!(!w.open_at(ts("2026-12-24T00:00:00Z")));
    assert!(!w.open_at(ts("2026-12-26T23:00:00Z")), "the end date is frozen too");
    assert_eq!(w.next_open(ts("2026-12-25T00:00:00Z")), Some(ts("2026-12-27T00:00:00Z")));
    // With a schedule, the first occurrence after the freeze.
    let nightly = window("UTC", &[(&[], &[], "02:00", "04:00")], &[("2026-12-24", "2026-12-26")]);
    assert_eq!(nightly.next_open(ts("2026-12-24T03:00:00Z")), Some(ts("2026-12-27T02:00:00Z")));
    // A freeze that ends inside an occurrence opens at its end.
    let late = window("UTC", &[(&[], &[], "02:00", "04:00")], &[("2026-12-24T00:00:00Z", "2026-12-24T03:00:00Z")]);
    assert_eq!(late.next_open(ts("2026-12-24T01:00:00Z")), Some(ts("2026-12-24T03:00:00Z")));
}

#[test]
fn a_start_in_the_hour_the_clocks_skip_begins_when_they_resume() {
    // Berlin skips 02:00 to 03:00 on 29 March 2026: a 02:30 start begins at 03:30 CEST (01:30 UTC).
    let w = window("Europe/Berlin", &[(&[], &[], "02:30", "05:00")], &[]);
    assert_eq!(w.next_open(ts("2026-03-28T23:00:00Z")), Some(ts("2026-03-29T01:30:00Z")));
    // On 25 October 02:30 happens twice: the first pass (CEST, 00:30 UTC).
    assert_eq!(w.next_open(ts("2026-10-24T23:00:00Z")), Some(ts("2026-10-25T00:30:00Z")));
}

#[test]
fn every_window_must_be_open_together() {
    let mornings = window("UTC", &[(&[], &[], "06:00", "10:00")], &[]);
    let tuesdays = window("Asia/Tokyo", &[(&["Tue"], &[], "00:00", "00:00")], &[]);
    // Tuesday in Tokyo is Monday 15:00 to Tuesday 15:00 UTC: the mornings that fall in it are Tuesday's.
    let next = next_open_all(&[&mornings, &tuesdays], ts("2026-12-02T12:00:00Z")).unwrap();
    assert_eq!(next, ts("2026-12-08T06:00:00Z"));
    let never = window("UTC", &[(&[], &[], "12:00", "13:00")], &[]);
    assert_eq!(next_open_all(&[&mornings, &never], ts("2026-12-02T00:00:00Z")), None);
    assert_eq!(next_open_all(&[], ts("2026-12-02T00:00:00Z")), Some(ts("2026-12-02T00:00:00Z")));
}

const ZONES: &[&str] = &[
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "America/Santiago",
    "Asia/Tokyo",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "Pacific/Chatham",
    "Pacific/Apia",
];
const DAYS: &[&str] = &["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

fn schedules() -> impl Strategy<Value = Vec<ScheduleSpec>> {
    let one = (
        proptest::sample::subsequence(DAYS.to_vec(), 0..=3),
        proptest::sample::subsequence(vec![1, 2, 3, 4, 5, -1], 0..=2),
        0u32..24,
        prop::sample::select(vec![0u32, 15, 30, 45]),
        0u32..24,
        prop::sample::select(vec![0u32, 30]),
    )
        .prop_map(|(days, weeks, sh, sm, eh, em)| ScheduleSpec {
            weeks: if days.is_empty() { vec![] } else { weeks },
            days: days.iter().map(|d| d.to_string()).collect(),
            start: format!("{sh:02}:{sm:02}"),
            end: format!("{eh:02}:{em:02}"),
        });
    proptest::collection::vec(one, 0..=3)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The next opening is open, nothing before it is, and an open instant is its own next opening: across zones
    /// whose daylight-saving changes fall on many dates (the sampled instants span 2024 to 2028).
    #[test]
    fn the_next_opening_is_the_first_open_instant(
        zone in prop::sample::select(ZONES.to_vec()),
        schedules in schedules(),
        from in 1_704_067_200i64..1_830_297_600,
        freeze_at in 0i64..864_000,
        freeze_len in 0i64..259_200,
    ) {
        let mut spec = Spec { time_zone: Some(zone.into()), schedules, ..Spec::default() };
        if freeze_len > 0 {
            let start = Timestamp::from_second(from + freeze_at).unwrap();
            let end = Timestamp::from_second(from + freeze_at + freeze_len).unwrap();
            spec.freezes.push(FreezeSpec { start: start.to_string(), end: end.to_string(), reason: "r".into() });
        }
        let w = Policy::parse("w", &spec, |z| TimeZone::get(z).ok()).unwrap();
        let t = Timestamp::from_second(from).unwrap();
        match w.next_open(t) {
            Some(next) => {
                prop_assert!(next >= t);
                prop_assert!(w.open_at(next), "{next} is not open");
                prop_assert_eq!(w.open_at(t), next == t);
                // Nothing between: checked every 10 minutes, and the second before.
                let gap = next.as_second() - t.as_second();
                let mut at = t.as_second();
                while at < next.as_second() {
                    prop_assert!(!w.open_at(Timestamp::from_second(at).unwrap()), "open at {at}, before {next}");
                    at += 600;
                }
                if gap > 0 {
                    prop_assert!(!w.open_at(Timestamp::from_second(next.as_second() - 1).unwrap()));
                }
            }
            // Never within the horizon: only a calendar whose schedules never match (a fifth day of a short
            // month and weekday, say) may say so, and it is closed now.
            None => prop_assert!(!w.open_at(t)),
        }
    }
}

#[test]
fn an_open_window_closes_at_the_end_of_its_occurrence_or_at_the_next_freeze() {
    // Mon to Fri, 02:00 to 05:00 in Berlin (UTC+1 in December).
    let w = window("Europe/Berlin", &[(&["Mon", "Tue", "Wed", "Thu", "Fri"], &[], "02:00", "05:00")], &[]);
    assert_eq!(w.closes(ts("2026-12-01T02:30:00Z")), Some(ts("2026-12-01T04:00:00Z")), "Tue 05:00 local");
    assert_eq!(w.closes(ts("2026-12-01T04:00:00Z")), None, "not open: nothing closes");
    // Overnight 22:00 to 02:00, continued by 02:00 to 04:00: one span, to 04:00 the next day.
    let chained = window("UTC", &[(&[], &[], "22:00", "02:00"), (&[], &[], "02:00", "04:00")], &[]);
    assert_eq!(chained.closes(ts("2026-12-01T23:00:00Z")), Some(ts("2026-12-02T04:00:00Z")));
    // A freeze that starts inside the occurrence closes it sooner.
    let frozen = window("UTC", &[(&[], &[], "00:00", "06:00")], &[("2026-12-01T03:00:00Z", "2026-12-01T05:00:00Z")]);
    assert_eq!(frozen.closes(ts("2026-12-01T01:00:00Z")), Some(ts("2026-12-01T03:00:00Z")));
    // No schedule and no freeze ahead: it never closes.
    assert_eq!(window("UTC", &[], &[]).closes(ts("2026-12-01T01:00:00Z")), None);
    // Every day, all day: it never closes within the horizon either.
    assert_eq!(window("UTC", &[(&[], &[], "00:00", "00:00")], &[]).closes(ts("2026-12-01T01:00:00Z")), None);
}
