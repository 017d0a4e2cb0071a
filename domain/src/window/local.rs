//! A moment as a window's own clock shows it, as data: the page words it in the reader's language ("Sun 19:00 JST"
//! or "12月7日(日) 19:00 JST"), where the browser has no time zone database of its own.

use jiff::{Timestamp, tz::TimeZone};
use serde::{Deserialize, Serialize};

/// A moment in a window's zone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalTime {
    pub year: i16,
    pub month: i8,
    pub day: i8,
    /// 1 for Monday to 7 for Sunday.
    pub weekday: i8,
    pub hour: i8,
    pub minute: i8,
    /// The zone's abbreviation then ("JST", "CET"), or its offset ("+0530") where it has none.
    pub abbreviation: String,
}

impl LocalTime {
    /// `t` on the clock of `zone`.
    pub fn at(t: Timestamp, zone: &TimeZone) -> LocalTime {
        let z = t.to_zoned(zone.clone());
        let abbreviation = z.strftime("%Z").to_string();
        LocalTime {
            year: z.year(),
            month: z.month(),
            day: z.day(),
            weekday: z.weekday().to_monday_one_offset(),
            hour: z.hour(),
            minute: z.minute(),
            abbreviation,
        }
    }

    /// In English, for logs and the API's words: "Sun 19:00 JST".
    pub fn english(&self) -> String {
        const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
        let day = DAYS.get(usize::try_from(self.weekday - 1).unwrap_or(0)).unwrap_or(&"");
        format!("{day} {:02}:{:02} {}", self.hour, self.minute, self.abbreviation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moment_reads_on_the_windows_clock() {
        let t: Timestamp = "2026-12-06T10:00:00Z".parse().unwrap();
        let tokyo = LocalTime::at(t, &TimeZone::get("Asia/Tokyo").unwrap());
        assert_eq!((tokyo.year, tokyo.month, tokyo.day, tokyo.weekday, tokyo.hour), (2026, 12, 6, 7, 19));
        assert_eq!(tokyo.abbreviation, "JST");
        assert_eq!(tokyo.english(), "Sun 19:00 JST");
        let utc = LocalTime::at(t, &TimeZone::UTC);
        assert_eq!(utc.english(), "Sun 10:00 UTC");
    }
}
