//! A window as a person writes it ([`Spec`], the object's spec: plain strings, as `kubectl get -o yaml` shows
//! them), and its checked form ([`Policy`]), which is what the rules read. Everything in a spec is untrusted: each
//! list and string is bounded, each time, day, zone and matcher is read strictly, and a window that does not read
//! is reported with what to write instead, never half applied.

use jiff::{
    Timestamp,
    civil::{Date, DateTime, Time, Weekday},
    tz::TimeZone,
};
use serde::{Deserialize, Serialize};

use crate::selector::LabelSelector;

pub use super::written::*;

/// The most schedules, freezes and gates one window may list: enough for any calendar, small enough that a
/// decision stays cheap.
pub const MAX_SCHEDULES: usize = 20;
pub const MAX_FREEZES: usize = 50;
pub const MAX_GATES: usize = 10;
pub const MAX_MATCHERS: usize = 10;
/// The longest text of one field (a reason, a matcher, a selector).
pub const MAX_TEXT: usize = 500;

/// A window, checked: what the rules read.
#[derive(Clone, Debug)]
pub struct Policy {
    pub name: String,
    pub selector: LabelSelector,
    pub zone: TimeZone,
    pub zone_name: String,
    pub schedules: Vec<Schedule>,
    pub freezes: Vec<Freeze>,
    pub budget: Option<Budget>,
    pub gates: Gates,
    /// The label a silence matches on, and its margin in seconds.
    pub silence: Option<(String, u32)>,
    /// The tools its freezes hold (`crate::hold_others`).
    pub hold_others: Vec<crate::hold_others::switch::Switch>,
    /// Why the window does not read (or cannot be known yet): then it holds every node it covers, since a
    /// policy that cannot be read must not be taken as allowing everything.
    pub broken: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub days: Vec<Weekday>,
    pub weeks: Vec<i8>,
    pub start: Time,
    pub end: Time,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Freeze {
    pub start: Timestamp,
    pub end: Timestamp,
    pub reason: String,
}

/// How many of a window's nodes may be in maintenance at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Budget {
    Nodes(u32),
    Percent(u32),
}

#[derive(Clone, Debug, Default)]
pub struct Gates {
    pub alerts: Vec<Vec<super::matcher::Matcher>>,
    pub pods: Vec<PodGate>,
    pub max_not_ready: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodGate {
    pub selector: LabelSelector,
    pub namespace: Option<String>,
    pub anywhere: bool,
}

impl Policy {
    /// Checks `spec` (window `name`), with `zone` resolving an IANA name (the server's bundled database). The
    /// error says which field is wrong and how to write it.
    pub fn parse(name: &str, spec: &Spec, zone: impl Fn(&str) -> Option<TimeZone>) -> Result<Policy, String> {
        let zone_name = spec.time_zone.clone().unwrap_or_else(|| "UTC".into());
        let tz = bounded("timeZone", &zone_name).ok().and_then(|_| zone(&zone_name)).ok_or_else(|| {
            format!("timeZone \"{zone_name}\" is not an IANA time zone; write one such as Europe/Berlin")
        })?;
        let selector = spec.node_selector.as_deref().unwrap_or("");
        bounded("nodeSelector", selector)?;
        let selector = LabelSelector::parse(selector).map_err(|e| format!("nodeSelector: {e}"))?;
        at_most("schedules", spec.schedules.len(), MAX_SCHEDULES)?;
        at_most("freezes", spec.freezes.len(), MAX_FREEZES)?;
        at_most("gates.alerts", spec.gates.alerts.len(), MAX_GATES)?;
        at_most("gates.pods", spec.gates.pods.len(), MAX_GATES)?;
        let schedules = spec.schedules.iter().enumerate().map(|(i, s)| schedule(i, s)).collect::<Result<_, _>>()?;
        let freezes = spec.freezes.iter().enumerate().map(|(i, f)| freeze(i, f, &tz)).collect::<Result<_, _>>()?;
        let budget = spec.max_in_maintenance.as_deref().map(budget).transpose()?;
        let alerts = spec
            .gates
            .alerts
            .iter()
            .enumerate()
            .map(|(i, gate)| {
                at_most(&format!("gates.alerts[{i}].matchers"), gate.matchers.len(), MAX_MATCHERS)?;
                if gate.matchers.is_empty() {
                    return Err(format!(
                        "gates.alerts[{i}] lists no matchers; write one such as severity=\"critical\""
                    ));
                }
                gate.matchers.iter().map(|m| super::matcher::Matcher::parse(m)).collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<_, _>>()?;
        let pods = spec
            .gates
            .pods
            .iter()
            .enumerate()
            .map(|(i, gate)| {
                bounded("gates.pods.selector", &gate.selector)?;
                if gate.selector.trim().is_empty() {
                    return Err(format!(
                        "gates.pods[{i}].selector is empty; write the pods' labels, such as app=backup"
                    ));
                }
                let selector =
                    LabelSelector::parse(&gate.selector).map_err(|e| format!("gates.pods[{i}].selector: {e}"))?;
                if let Some(ns) = &gate.namespace {
                    crate::input::namespace_name(ns).map_err(|e| format!("gates.pods[{i}].namespace: {e}"))?;
                }
                Ok(PodGate { selector, namespace: gate.namespace.clone(), anywhere: gate.anywhere })
            })
            .collect::<Result<_, String>>()?;
        let gates = Gates { alerts, pods, max_not_ready: spec.gates.max_not_ready };
        let silence = spec.silence.as_ref().map(silence).transpose()?;
        let hold_others = crate::hold_others::switch::parse(&spec.hold_others)?;
        Ok(Policy {
            name: name.into(),
            selector,
            zone: tz,
            zone_name,
            schedules,
            freezes,
            budget,
            gates,
            silence,
            hold_others,
            broken: None,
        })
    }

    /// A window that holds every node `selector` covers (every node, when its own selector does not read either),
    /// for `why`.
    pub fn broken(name: &str, selector: Option<&str>, why: String) -> Policy {
        let selector = selector.and_then(|s| LabelSelector::parse(s).ok()).unwrap_or_default();
        Policy {
            name: name.into(),
            selector,
            zone: TimeZone::UTC,
            zone_name: "UTC".into(),
            schedules: Vec::new(),
            freezes: Vec::new(),
            budget: None,
            gates: Gates::default(),
            silence: None,
            hold_others: Vec::new(),
            broken: Some(why),
        }
    }
}

fn at_most(field: &str, n: usize, max: usize) -> Result<(), String> {
    if n > max { Err(format!("{field} lists {n}; at most {max} are allowed")) } else { Ok(()) }
}

fn bounded(field: &str, text: &str) -> Result<(), String> {
    if text.len() > MAX_TEXT { Err(format!("{field} is longer than {MAX_TEXT} bytes")) } else { Ok(()) }
}

fn schedule(i: usize, s: &ScheduleSpec) -> Result<Schedule, String> {
    at_most(&format!("schedules[{i}].days"), s.days.len(), 7)?;
    at_most(&format!("schedules[{i}].weeks"), s.weeks.len(), 6)?;
    let days = s
        .days
        .iter()
        .map(|d| {
            weekday(d)
                .ok_or_else(|| format!("schedules[{i}].days: \"{}\" is not a day; write Mon, Tue, … Sun", clip(d)))
        })
        .collect::<Result<_, _>>()?;
    let weeks = s
        .weeks
        .iter()
        .map(|&w| match w {
            1..=5 | -1 => Ok(w as i8),
            _ => Err(format!("schedules[{i}].weeks: {w} is not a week of the month; write 1 to 5, or -1 for the last")),
        })
        .collect::<Result<_, _>>()?;
    if !s.weeks.is_empty() && s.days.is_empty() {
        return Err(format!("schedules[{i}] gives weeks but no days; write the day too, as days: [Tue], weeks: [1]"));
    }
    let time = |field: &str, text: &str| {
        let t = text.trim();
        let ok = t.len() == 5 && t.as_bytes()[2] == b':';
        ok.then(|| t.parse::<Time>().ok())
            .flatten()
            .ok_or_else(|| format!("schedules[{i}].{field}: \"{}\" is not a time; write HH:MM, as 02:00", clip(text)))
    };
    Ok(Schedule { days, weeks, start: time("start", &s.start)?, end: time("end", &s.end)? })
}

fn freeze(i: usize, f: &FreezeSpec, zone: &TimeZone) -> Result<Freeze, String> {
    bounded(&format!("freezes[{i}].reason"), &f.reason)?;
    if f.reason.trim().is_empty() {
        return Err(format!("freezes[{i}] gives no reason; say why nothing may start then"));
    }
    let start = instant(&f.start, zone, false).ok_or_else(|| {
        format!(
            "freezes[{i}].start: \"{}\" is not a date or time; write 2026-12-24 or 2026-12-24T18:00",
            clip(&f.start)
        )
    })?;
    let end = instant(&f.end, zone, true).ok_or_else(|| {
        format!("freezes[{i}].end: \"{}\" is not a date or time; write 2026-12-24 or 2026-12-24T18:00", clip(&f.end))
    })?;
    if end <= start {
        return Err(format!("freezes[{i}] ends before it starts"));
    }
    Ok(Freeze { start, end, reason: f.reason.trim().into() })
}

/// A freeze's bound: an instant with its offset, a local date and time, or a date (its start, or for an end the
/// start of the next day, so that `end: 2026-12-26` freezes the 26th too).
fn instant(text: &str, zone: &TimeZone, end: bool) -> Option<Timestamp> {
    let text = text.trim();
    if text.len() > 64 {
        return None;
    }
    if let Ok(t) = text.parse::<Timestamp>() {
        return Some(t);
    }
    let local = match text.parse::<DateTime>() {
        Ok(dt) if text.contains('T') => dt,
        _ => {
            let date = text.parse::<Date>().ok()?;
            let date = if end { date.tomorrow().ok()? } else { date };
            date.to_datetime(Time::midnight())
        }
    };
    zone.to_ambiguous_zoned(local).compatible().ok().map(|z| z.timestamp())
}

fn budget(text: &str) -> Result<Budget, String> {
    let t = text.trim();
    let wrong = || format!("maxInMaintenance \"{}\" is not a count or share; write 2 or 25%", clip(text));
    match t.strip_suffix('%') {
        Some(p) => match p.parse::<u32>() {
            Ok(p @ 1..=100) => Ok(Budget::Percent(p)),
            _ => Err(wrong()),
        },
        None => match t.parse::<u32>() {
            Ok(n @ 1..) => Ok(Budget::Nodes(n)),
            _ => Err(wrong()),
        },
    }
}

/// A silence's label (a Prometheus label name) and margin.
fn silence(s: &SilenceSpec) -> Result<(String, u32), String> {
    let label = s.label.clone().unwrap_or_else(|| "node".into());
    let valid = label.len() <= 100
        && label.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!(
            "silence.label \"{}\" is not a label name; write one such as node or instance",
            clip(&label)
        ));
    }
    match s.margin_seconds.unwrap_or(600) {
        margin @ 0..=86_400 => Ok((label, margin)),
        margin => Err(format!("silence.marginSeconds {margin} is more than a day (86400)")),
    }
}

/// A day of the week, by its short or full English name.
pub fn weekday(text: &str) -> Option<Weekday> {
    let t = text.trim().to_ascii_lowercase();
    let day = match t.get(..3)? {
        "mon" => Weekday::Monday,
        "tue" => Weekday::Tuesday,
        "wed" => Weekday::Wednesday,
        "thu" => Weekday::Thursday,
        "fri" => Weekday::Friday,
        "sat" => Weekday::Saturday,
        "sun" => Weekday::Sunday,
        _ => return None,
    };
    let full = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
    (t.len() == 3 || full.contains(&t.as_str())).then_some(day)
}

/// At most 40 characters of an untrusted value, for an error that quotes it.
fn clip(text: &str) -> String {
    text.chars().take(40).collect()
}

#[cfg(test)]
mod tests;
