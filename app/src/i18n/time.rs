//! Durations and dates in the page's language. The domain cuts a duration into units (`domain::board::Span`); the
//! catalogue's `time` messages put them into words ("3m05s", "3分05秒"), and its `time.date_time` places a date's
//! fields ("2026-11-30 12:00:00", "2026年11月30日 12:00:00"), since the order of a date is the language's to choose.
//! Not a strftime pattern: jiff's strftime can print time zones, and that brings its time zone code into the wasm.

use catalogue::Locale;
use domain::board::{Span, elapsed, short_age};
use jiff::{SignedDuration, Timestamp};
use leptos_i18n::td_string;

use super::I18n;

/// A span in words.
pub fn span_text(i18n: I18n, span: Span) -> String {
    span_in(i18n.get_locale(), span)
}

/// An age as a card shows it, in its largest unit: "45s", "45秒".
pub fn age_text(i18n: I18n, d: SignedDuration) -> String {
    span_text(i18n, short_age(d))
}

/// The age of a moment `t` (if known) at `now`, on the server's clock: "5m", "5分".
pub fn age_since(i18n: I18n, now: Timestamp, t: Option<Timestamp>) -> Option<String> {
    t.map(|t| age_text(i18n, now.duration_since(t)))
}

/// How long something took, for drain progress: "3m05s", "3分05秒".
pub fn elapsed_text(i18n: I18n, d: SignedDuration) -> String {
    span_text(i18n, elapsed(d))
}

/// A moment, to the second, in UTC (the messages that show it say so).
pub fn date_time_text(i18n: I18n, t: Timestamp) -> String {
    date_time_in(i18n.get_locale(), t)
}

fn span_in(locale: Locale, span: Span) -> String {
    match span {
        Span::Tenths { seconds, tenths } => td_string!(locale, time.tenths, seconds, tenths).to_string(),
        Span::Seconds(n) => td_string!(locale, time.seconds, n).to_string(),
        Span::Minutes(n) => td_string!(locale, time.minutes, n).to_string(),
        Span::Hours(n) => td_string!(locale, time.hours, n).to_string(),
        Span::Days(n) => td_string!(locale, time.days, n).to_string(),
        Span::MinutesSeconds(minutes, seconds) => {
            td_string!(locale, time.minutes_seconds, minutes, seconds = format!("{seconds:02}")).to_string()
        }
        Span::HoursMinutes(hours, minutes) => {
            td_string!(locale, time.hours_minutes, hours, minutes = format!("{minutes:02}")).to_string()
        }
    }
}

/// The time of day of `t` in UTC, "09:07:01", the same in every language.
pub fn clock_text(t: Timestamp) -> String {
    let at = jiff::tz::Offset::UTC.to_datetime(t);
    format!("{:02}:{:02}:{:02}", at.hour(), at.minute(), at.second())
}

fn date_time_in(locale: Locale, t: Timestamp) -> String {
    let at = jiff::tz::Offset::UTC.to_datetime(t);
    let (month, day) = (format!("{:02}", at.month()), format!("{:02}", at.day()));
    td_string!(locale, time.date_time, year = at.year(), month, day, time = clock_text(t)).to_string()
}

/// A moment on a maintenance window's clock, in the page's language: "Sun 19:00 JST", "日 19:00 JST"; with
/// `date`, the day too ("Mon 2026-12-07 15:00 JST", "2026年12月07日(月) 15:00 JST"), for a moment more than a day
/// off.
pub fn local_time_text(i18n: I18n, t: &domain::window::LocalTime, date: bool) -> String {
    let locale = i18n.get_locale();
    let weekday = match t.weekday {
        1 => td_string!(locale, time.mon),
        2 => td_string!(locale, time.tue),
        3 => td_string!(locale, time.wed),
        4 => td_string!(locale, time.thu),
        5 => td_string!(locale, time.fri),
        6 => td_string!(locale, time.sat),
        _ => td_string!(locale, time.sun),
    }
    .to_string();
    let time = format!("{:02}:{:02}", t.hour, t.minute);
    let zone = t.abbreviation.clone();
    if date {
        let (year, month, day) = (t.year, format!("{:02}", t.month), format!("{:02}", t.day));
        td_string!(locale, time.local_date, weekday, year, month, day, time, zone).to_string()
    } else {
        td_string!(locale, time.local, weekday, time, zone).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: i64) -> SignedDuration {
        SignedDuration::from_secs(s)
    }

    #[test]
    fn english_keeps_its_short_units() {
        let age = |s| span_in(Locale::en, short_age(secs(s)));
        assert_eq!([age(45), age(125), age(5 * 3600), age(3 * 86400)], ["45s", "2m", "5h", "3d"]);
        let took = |ms| span_in(Locale::en, elapsed(SignedDuration::from_millis(ms)));
        assert_eq!([took(420), took(45_000), took(185_000), took(7_800_000)], ["0.4s", "45s", "3m05s", "2h10m"]);
    }

    #[test]
    fn japanese_reads_each_unit_in_words() {
        let age = |s| span_in(Locale::ja, short_age(secs(s)));
        assert_eq!([age(3), age(125), age(5 * 3600), age(3 * 86400)], ["3秒", "2分", "5時間", "3日"]);
        let took = |ms| span_in(Locale::ja, elapsed(SignedDuration::from_millis(ms)));
        assert_eq!(
            [took(420), took(45_000), took(185_000), took(7_800_000)],
            ["0.4秒", "45秒", "3分05秒", "2時間10分"]
        );
        assert_eq!(td_string!(Locale::ja, card.ago, age = age(3)).to_string(), "3秒前");
    }

    #[test]
    fn dates_follow_each_language() {
        let t: Timestamp = "2026-03-05T09:07:01Z".parse().unwrap();
        assert_eq!(date_time_in(Locale::en, t), "2026-03-05 09:07:01");
        assert_eq!(date_time_in(Locale::ja, t), "2026年03月05日 09:07:01");
        assert_eq!(clock_text("2026-03-05T23:59:59.9Z".parse().unwrap()), "23:59:59");
        // Debug builds' pseudo-locale wraps the pattern itself; what is around the fields stays as written.
        if let Ok(pseudo) = "en-XA".parse::<Locale>() {
            assert_eq!(date_time_in(pseudo, t), "⟦2026-03-05 09:07:01⟧");
        }
    }

    #[test]
    fn counts_take_the_plural_of_each_language() {
        assert_eq!(td_string!(Locale::en, board.nodes, count = 1).to_string(), "1 node");
        assert_eq!(td_string!(Locale::en, board.nodes, count = 3).to_string(), "3 nodes");
        assert_eq!(td_string!(Locale::ja, board.nodes, count = 1).to_string(), "1ノード");
        assert_eq!(td_string!(Locale::ja, board.nodes, count = 3).to_string(), "3ノード");
        let confirm = |locale: Locale, count: usize| td_string!(locale, drain.confirm, node = "w1", count).to_string();
        assert_eq!(confirm(Locale::en, 1), "Drain w1: evict 1 pod");
        assert_eq!(confirm(Locale::ja, 2), "w1をドレーン: 2個のPodをeviction");
    }
}
