//! The first window to close over a plan's nodes ([`closing`]): what [`super::fit`] sets a plan's estimate against.

use std::collections::BTreeMap;

use jiff::Timestamp;

use super::{fit::WindowFit, spec::Policy};

/// The window that closes first among `windows` open at `now` covering one of the nodes labelled `nodes`; `None`
/// when none covers them, none is open now (the plan waits for its opening, as the holds say), or none closes
/// within the calendar's horizon.
pub fn closing(windows: &[Policy], nodes: &[&BTreeMap<String, String>], now: Timestamp) -> Option<WindowFit> {
    windows
        .iter()
        .filter(|w| w.broken.is_none() && nodes.iter().any(|labels| w.selector.matches(labels)))
        .filter_map(|w| Some((w, w.closes(now)?)))
        .min_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.name.cmp(&b.0.name)))
        .map(|(w, closes)| WindowFit {
            window: w.name.clone(),
            closes,
            local: closes.to_zoned(w.zone.clone()).strftime("%a %H:%M").to_string(),
            zone: w.zone_name.clone(),
            closes_local: Some(super::LocalTime::at(closes, &w.zone)),
            at: now,
        })
}

#[cfg(test)]
mod tests {
    use jiff::tz::TimeZone;

    use super::*;
    use crate::window::{
        Fit,
        spec::{ScheduleSpec, Spec},
    };

    fn window(name: &str, selector: &str, start: &str, end: &str) -> Policy {
        let spec = Spec {
            node_selector: Some(selector.into()),
            time_zone: Some("Asia/Tokyo".into()),
            schedules: vec![ScheduleSpec { days: vec![], weeks: vec![], start: start.into(), end: end.into() }],
            ..Spec::default()
        };
        Policy::parse(name, &spec, |z| TimeZone::get(z).ok()).unwrap()
    }

    #[test]
    fn the_first_covering_window_to_close_decides_and_the_estimate_is_set_against_it() {
        // 10:00 in Tokyo.
        let now: Timestamp = "2026-12-01T01:00:00Z".parse().unwrap();
        let windows = [
            window("late", "pool=a", "09:00", "13:00"),
            window("early", "pool=b", "09:00", "11:30"),
            window("other", "pool=c", "09:00", "10:15"),
        ];
        let a: BTreeMap<String, String> = [("pool".into(), "a".into())].into();
        let b: BTreeMap<String, String> = [("pool".into(), "b".into())].into();
        let fit = closing(&windows, &[&a, &b], now).unwrap();
        assert_eq!((fit.window.as_str(), fit.local.as_str(), fit.zone.as_str()), ("early", "Tue 11:30", "Asia/Tokyo"));
        assert_eq!(fit.seconds_left(), 5_400, "an hour and a half; window other covers neither node");
        assert_eq!(fit.fit(3_600, 5_400), Fit::Fits);
        assert_eq!(fit.fit(3_600, 5_401), Fit::HighOver);
        assert_eq!(fit.fit(5_401, 9_000), Fit::LikelyOver);
        let none: BTreeMap<String, String> = [("pool".into(), "z".into())].into();
        assert_eq!(closing(&windows, &[&none], now), None, "no window covers it");
        assert_eq!(
            closing(&windows, &[&a], "2026-12-01T05:00:00Z".parse().unwrap()),
            None,
            "closed now: it waits instead"
        );
    }
}
