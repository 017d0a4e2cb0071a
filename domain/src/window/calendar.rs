//! When a window is open, and when it next opens. Schedules are local times in the window's zone: each occurrence
//! is placed on the calendar of that zone, so a window at 02:00 stays at 02:00 across a daylight-saving change
//! (a start in the hour the clocks skip begins when the clocks resume, one in the hour they repeat at its first
//! pass). A freeze always wins over a schedule.

use jiff::{Timestamp, ToSpan, civil::Date, tz::TimeZone};

use super::spec::{Freeze, Policy, Schedule};

/// How far ahead a next opening is looked for: more than a year, so that a monthly window such as "the fifth
/// Monday" is found, and a window that never opens is reported as such rather than searched for ever.
pub const HORIZON_DAYS: i32 = 400;

impl Schedule {
    /// Whether an occurrence starts on `date` (local).
    pub fn on(&self, date: Date) -> bool {
        let day = date.weekday();
        (self.days.is_empty() || self.days.contains(&day))
            && (self.weeks.is_empty()
                || self.weeks.iter().any(|&w| date.nth_weekday_of_month(w, day).is_ok_and(|d| d == date)))
    }

    /// The occurrence that starts on `date`, as instants `[start, end)`; an end at or before the start is on the
    /// next day.
    pub fn occurrence(&self, date: Date, zone: &TimeZone) -> Option<(Timestamp, Timestamp)> {
        if !self.on(date) {
            return None;
        }
        let at = |d: Date, t| zone.to_ambiguous_zoned(d.to_datetime(t)).compatible().ok().map(|z| z.timestamp());
        let start = at(date, self.start)?;
        let end_date = if self.end <= self.start { date.tomorrow().ok()? } else { date };
        let end = at(end_date, self.end)?;
        (start < end).then_some((start, end))
    }
}

impl Policy {
    /// The freeze in force at `t` that lasts longest, if any.
    pub fn frozen_at(&self, t: Timestamp) -> Option<&Freeze> {
        self.freezes.iter().filter(|f| f.start <= t && t < f.end).max_by_key(|f| f.end)
    }

    /// Whether a schedule allows a start at `t` (no schedule: always).
    pub fn scheduled_at(&self, t: Timestamp) -> bool {
        if self.schedules.is_empty() {
            return true;
        }
        let today = t.to_zoned(self.zone.clone()).date();
        let days = [today.yesterday().ok(), Some(today)];
        self.schedules.iter().any(|s| {
            days.iter().flatten().filter_map(|d| s.occurrence(*d, &self.zone)).any(|(start, end)| start <= t && t < end)
        })
    }

    /// Whether maintenance may start at `t` as far as the calendar goes: scheduled and not frozen.
    pub fn open_at(&self, t: Timestamp) -> bool {
        self.frozen_at(t).is_none() && self.scheduled_at(t)
    }

    /// The first instant at or after `t` when a schedule allows a start (ignoring freezes). `None` when none does
    /// within [`HORIZON_DAYS`].
    fn next_scheduled(&self, t: Timestamp) -> Option<Timestamp> {
        if self.schedules.is_empty() {
            return Some(t);
        }
        let today = t.to_zoned(self.zone.clone()).date();
        let mut date = today.yesterday().ok()?;
        for _ in 0..=HORIZON_DAYS + 1 {
            // Occurrences that start on a later date start later: the first date with one still to come has the
            // earliest.
            let first = self
                .schedules
                .iter()
                .filter_map(|s| s.occurrence(date, &self.zone))
                .filter(|&(_, end)| end > t)
                .map(|(start, _)| start.max(t))
                .min();
            if first.is_some() {
                return first;
            }
            date = date.tomorrow().ok()?;
        }
        None
    }

    /// The first instant at or after `t` when the calendar allows a start: `t` itself when it is open now.
    /// `None` when it does not open within [`HORIZON_DAYS`] of `t`.
    pub fn next_open(&self, t: Timestamp) -> Option<Timestamp> {
        let limit = t.checked_add((24 * i64::from(HORIZON_DAYS)).hours()).ok()?;
        let mut at = t;
        // Each turn moves past a freeze or to an occurrence; a calendar cannot need more turns than it has
        // freezes and occurrence starts in the horizon, which this bound exceeds.
        for _ in 0..1_000 {
            if at > limit {
                return None;
            }
            if let Some(freeze) = self.frozen_at(at) {
                at = freeze.end;
                continue;
            }
            let next = self.next_scheduled(at)?;
            if next == at {
                return Some(at);
            }
            at = next;
        }
        None
    }
}

impl Policy {
    /// When the calendar stops allowing starts, from `t` at which it allows one: the end of the schedule's
    /// occurrences that run on from `t` (one that starts as another ends continues it), or the start of the next
    /// freeze if that comes first. `None` when it does not allow a start at `t`, or does not close within
    /// [`HORIZON_DAYS`].
    pub fn closes(&self, t: Timestamp) -> Option<Timestamp> {
        if !self.open_at(t) {
            return None;
        }
        let freeze = self.freezes.iter().map(|f| f.start).filter(|start| *start > t).min();
        let scheduled = if self.schedules.is_empty() { None } else { self.schedule_ends(t) };
        match (scheduled, freeze) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The end of the occurrences that cover `t` and those that continue them without a gap.
    fn schedule_ends(&self, t: Timestamp) -> Option<Timestamp> {
        let mut at = t;
        // Each turn moves to the end of an occurrence, at most a day on: the horizon bounds the turns.
        for _ in 0..=HORIZON_DAYS {
            let today = at.to_zoned(self.zone.clone()).date();
            let end = [today.yesterday().ok(), Some(today)]
                .into_iter()
                .flatten()
                .flat_map(|d| self.schedules.iter().filter_map(move |s| s.occurrence(d, &self.zone)))
                .filter(|&(start, end)| start <= at && at < end)
                .map(|(_, end)| end)
                .max()?;
            at = end;
            if !self.scheduled_at(at) {
                return Some(at);
            }
        }
        None
    }
}

/// The first instant at or after `t` when every window in `windows` is open at once. `None` when that does not
/// happen within [`HORIZON_DAYS`] of `t` (windows that never overlap, say).
pub fn next_open_all(windows: &[&Policy], t: Timestamp) -> Option<Timestamp> {
    let limit = t.checked_add((24 * i64::from(HORIZON_DAYS)).hours()).ok()?;
    let mut at = t;
    for _ in 0..1_000 {
        let mut moved = false;
        for w in windows {
            let next = w.next_open(at)?;
            if next > at {
                at = next;
                moved = true;
            }
        }
        if !moved {
            return Some(at);
        }
        if at > limit {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests;
