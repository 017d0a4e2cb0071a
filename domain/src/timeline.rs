//! The maintenance timeline: a node's last day as spans of time (cordoned, draining, not Ready) read from its
//! durable history, so that what happened an hour ago is still on the screen after a restart.
//!
//! The history holds events (a cordon, a drain's start and end); a span pairs them. The window is given, not read
//! from a clock, and an event whose pair lies before the window starts its span at the window's edge.

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::{
    audit::{AuditAction, AuditEntry},
    progress::DrainState,
};

/// How far back the timeline reaches.
pub const WINDOW: SignedDuration = SignedDuration::from_hours(24);

/// How much of the last day the timeline shows: a two-minute cordon is a sliver of a day, but a mark of an hour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Zoom {
    /// The last hour.
    Hour,
    /// The last 12 hours: tonight's maintenance.
    Tonight,
    /// The whole window.
    #[default]
    Day,
}

impl Zoom {
    pub const ALL: [Zoom; 3] = [Zoom::Hour, Zoom::Tonight, Zoom::Day];

    /// How far back it reaches from now.
    pub fn span(self) -> SignedDuration {
        match self {
            Zoom::Hour => SignedDuration::from_hours(1),
            Zoom::Tonight => SignedDuration::from_hours(12),
            Zoom::Day => WINDOW,
        }
    }

    /// The narrowest zoom that still shows all of the last day's work, whose first start is `earliest` (`None`:
    /// nothing happened in the day). The wall has no zoom buttons: tonight's hour of work is drawn across its
    /// width, not as a sliver at the end of a day.
    pub fn to_fit(earliest: Option<Timestamp>, now: Timestamp) -> Zoom {
        let Some(earliest) = earliest else { return Zoom::Day };
        Zoom::ALL
            .into_iter()
            .find(|zoom| now.checked_sub(zoom.span()).is_ok_and(|since| since <= earliest))
            .unwrap_or(Zoom::Day)
    }

    /// A stable name, for the page's test ids and the address.
    pub fn key(self) -> &'static str {
        match self {
            Zoom::Hour => "hour",
            Zoom::Tonight => "tonight",
            Zoom::Day => "day",
        }
    }
}

/// A maintenance plan's span on the timeline: from its start to its end (or now), cut to the window; `None` when
/// it lies wholly before the window.
pub fn plan_span(
    started: Timestamp,
    finished: Option<Timestamp>,
    since: Timestamp,
    now: Timestamp,
) -> Option<(Timestamp, Timestamp)> {
    let end = finished.unwrap_or(now).min(now);
    (end >= since).then(|| (started.max(since), end))
}

/// What a span of a node's time was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SpanKind {
    /// From a cordon to its uncordon.
    Cordoned,
    /// From a drain's start (or resume) to its end.
    Drain,
    /// From the node's Ready condition going False or Unknown to its coming back.
    NotReady,
    /// From another tool first seen at work on the node to its no longer being seen (`by` is the tool's id,
    /// `outcome` what it did, as [`crate::actor::Doing::name`] says).
    OtherTool,
}

impl SpanKind {
    /// A stable name, for CSS classes and tests.
    pub fn key(self) -> &'static str {
        match self {
            SpanKind::Cordoned => "cordoned",
            SpanKind::Drain => "drain",
            SpanKind::NotReady => "not-ready",
            SpanKind::OtherTool => "other-tool",
        }
    }
}

/// One span on a node's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineSpan {
    pub kind: SpanKind,
    /// The start, or the window's start when the span began before it. For a span whose start is not in the
    /// history ([`Self::start_unknown`]), its end: nothing is invented for it.
    pub from: Timestamp,
    /// Whether the span began before the window (its start is not in it).
    pub began_before: bool,
    /// Whether the history holds no start for this span at all (an uncordon, a drain's end or a recovery with
    /// nothing before it): only its end is known, and the page says so instead of drawing a start.
    pub start_unknown: bool,
    /// Whether its end was stamped when the server saw it, not from the API's own time or a person's action (a node
    /// seen Ready again whose condition's transition time had not moved, [`crate::audit::READY_OBSERVED`]; an
    /// uncordon made outside Drainboard, [`crate::audit::UNCORDON_OBSERVED`]).
    pub end_observed: bool,
    /// The end; `None` while it lasts.
    pub to: Option<Timestamp>,
    /// Who started it (a cordon or a drain); empty for a node's own failure.
    pub by: String,
    /// The drain's id, for its record.
    pub drain_id: Option<String>,
    /// How a drain ended, in words; the reason the node gave for a failure.
    pub outcome: Option<String>,
    /// How a drain ended, as a state the page can put in its own words; `None` for an entry written before the
    /// history kept it (the page then shows `outcome`), and for other spans.
    pub ended: Option<crate::progress::DrainState>,
    /// Whether a drain that ended emptied the node; `None` while it runs, and for other spans.
    pub ok: Option<bool>,
    /// The reason the person gave.
    pub reason: Option<String>,
}

impl TimelineSpan {
    /// How long it lasted, or has lasted until `now`.
    pub fn duration(&self, now: Timestamp) -> SignedDuration {
        self.to.unwrap_or(now).duration_since(self.from)
    }
}

/// One node's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineRow {
    pub node: String,
    /// In order of their start.
    pub spans: Vec<TimelineSpan>,
    /// The node's newest entry: rows are shown newest first.
    pub latest: Timestamp,
}

/// The timeline of `entries` (any nodes, any order) in the window from `since` to `now`: a row per node with an
/// entry in the window, the most recently active first, at most `limit` rows.
pub fn timeline(entries: &[AuditEntry], since: Timestamp, now: Timestamp, limit: usize) -> Vec<TimelineRow> {
    let mut by_node: BTreeMap<&str, Vec<&AuditEntry>> = BTreeMap::new();
    for entry in entries.iter().filter(|e| e.at <= now) {
        by_node.entry(entry.node.as_str()).or_default().push(entry);
    }
    let mut rows: Vec<TimelineRow> = by_node
        .into_iter()
        .filter_map(|(node, mut entries)| {
            entries.sort_by_key(|e| e.at);
            let latest = entries.last()?.at;
            let spans = spans(&entries, since);
            (latest >= since && !spans.is_empty()).then(|| TimelineRow { node: node.to_owned(), spans, latest })
        })
        .collect();
    rows.sort_by(|a, b| b.latest.cmp(&a.latest).then_with(|| a.node.cmp(&b.node)));
    rows.truncate(limit);
    rows
}

/// One node's entries, oldest first, paired into spans; those that ended before `since` are left out.
fn spans(entries: &[&AuditEntry], since: Timestamp) -> Vec<TimelineSpan> {
    let mut done: Vec<TimelineSpan> = Vec::new();
    let mut open: BTreeMap<&'static str, TimelineSpan> = BTreeMap::new();
    let start = |kind: SpanKind, e: &AuditEntry| TimelineSpan {
        kind,
        from: e.at.max(since),
        began_before: e.at < since,
        start_unknown: false,
        end_observed: false,
        to: None,
        by: e.user.clone(),
        drain_id: e.drain_id.clone(),
        outcome: None,
        ended: None,
        ok: None,
        reason: e.reason.clone(),
    };
    // An end whose start is not in the history: only the end is known, and the span is drawn as that moment.
    let orphan = |kind: SpanKind, e: &AuditEntry| TimelineSpan {
        from: e.at.max(since),
        began_before: false,
        start_unknown: true,
        by: String::new(),
        reason: None,
        ..start(kind, e)
    };
    // The last health entry seen: a second `NodeReady` after one (two servers that each saw the recovery) is a
    // repeat, not a recovery without a failure.
    let mut last_health = None;
    // Each tool's open span, by tool.
    let mut tools: BTreeMap<crate::actor::Actor, TimelineSpan> = BTreeMap::new();
    for e in entries {
        match e.action {
            AuditAction::Cordon => {
                open.entry("cordon").or_insert_with(|| start(SpanKind::Cordoned, e));
            }
            AuditAction::Uncordon => {
                let observed = e.reason.as_deref() == Some(crate::audit::UNCORDON_OBSERVED);
                // A server that saw the uncordon Drainboard itself made (racing its entry) says it again: a repeat.
                if observed && !open.contains_key("cordon") {
                    continue;
                }
                let mut span = open.remove("cordon").unwrap_or_else(|| orphan(SpanKind::Cordoned, e));
                span.to = Some(e.at);
                span.end_observed = observed;
                done.push(span);
            }
            AuditAction::DrainStarted | AuditAction::DrainResumed => {
                // A drain left open by a server that stopped (killed, so it wrote no end) ends where the next one
                // starts, interrupted.
                if let Some(mut left) = open.remove("drain") {
                    left.to = Some(e.at);
                    left.ended = Some(DrainState::Interrupted);
                    left.outcome = Some(DrainState::Interrupted.outcome_text());
                    left.ok = Some(false);
                    done.push(left);
                }
                open.insert("drain", start(SpanKind::Drain, e));
            }
            AuditAction::DrainEnded => {
                let mut span = open.remove("drain").unwrap_or_else(|| orphan(SpanKind::Drain, e));
                span.to = Some(e.at);
                span.outcome = e.outcome.clone();
                span.ended = e.ended.clone();
                span.ok = Some(match &e.ended {
                    Some(state) => state.is_final_ok(),
                    None => e.outcome.as_deref() == Some("Drained"),
                });
                if span.drain_id.is_none() {
                    span.drain_id = e.drain_id.clone();
                }
                done.push(span);
            }
            // The drain's own end follows, with its outcome; an unblocking happens within the drain's span.
            AuditAction::DrainCancelled
            | AuditAction::Unblocked
            | AuditAction::Moved
            | AuditAction::WindowOverridden => {}
            // Marks in the history; the freeze that set them is the window's, shown with the windows.
            AuditAction::OthersHeld | AuditAction::OthersReleased => {}
            AuditAction::NodeNotReady => {
                last_health = Some(e.action);
                open.entry("health").or_insert_with(|| TimelineSpan {
                    outcome: e.reason.clone(),
                    reason: None,
                    ..start(SpanKind::NotReady, e)
                });
            }
            AuditAction::ActorSeen => {
                let Some(actor) = e.reason.as_deref().and_then(crate::actor::Actor::from_id) else { continue };
                // A second sighting while one is open (two servers that each saw it) is a repeat.
                tools.entry(actor).or_insert_with(|| TimelineSpan {
                    by: actor.id().to_owned(),
                    outcome: e.outcome.clone(),
                    reason: None,
                    ..start(SpanKind::OtherTool, e)
                });
            }
            AuditAction::ActorGone => {
                let Some(actor) = e.reason.as_deref().and_then(crate::actor::Actor::from_id) else { continue };
                // Gone with no sighting open: a repeat, or its start is past the history. Nothing is invented.
                if let Some(mut span) = tools.remove(&actor) {
                    span.to = Some(e.at);
                    done.push(span);
                }
            }
            AuditAction::NodeReady => {
                let repeat = last_health == Some(AuditAction::NodeReady) && !open.contains_key("health");
                last_health = Some(e.action);
                if repeat {
                    continue;
                }
                let mut span = open.remove("health").unwrap_or_else(|| orphan(SpanKind::NotReady, e));
                span.to = Some(e.at);
                span.end_observed = e.reason.as_deref() == Some(crate::audit::READY_OBSERVED);
                done.push(span);
            }
        }
    }
    done.extend(open.into_values());
    done.extend(tools.into_values());
    done.retain(|s| s.to.is_none_or(|to| to >= since));
    done.sort_by_key(|s| s.from);
    done
}

/// The most nodes a timeline asks for: a wall screen shows a dozen, the board's timeline a page.
pub const MAX_NODES: usize = 500;

/// What `POST /api/history/recent` answers: the last day's entries of the most recently active nodes, and the
/// server's clock, which the window is read against.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecentHistory {
    pub server_time: Option<Timestamp>,
    /// Whether the server keeps a history at all (it needs an identity of its own that may write it).
    pub kept: bool,
    pub entries: Vec<AuditEntry>,
}

/// The entries of the `nodes` nodes whose newest entry is newest, in their order.
pub fn most_active(entries: Vec<AuditEntry>, nodes: usize) -> Vec<AuditEntry> {
    let mut newest: BTreeMap<&str, Timestamp> = BTreeMap::new();
    for e in &entries {
        let t = newest.entry(e.node.as_str()).or_insert(e.at);
        *t = (*t).max(e.at);
    }
    let mut ranked: Vec<(&str, Timestamp)> = newest.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let keep: std::collections::BTreeSet<String> = ranked.into_iter().take(nodes).map(|(n, _)| n.to_owned()).collect();
    entries.into_iter().filter(|e| keep.contains(&e.node)).collect()
}

/// Where `t` falls in the window from `since` to `now`, in thousandths of its width (0 at `since`, 1,000 at `now`).
pub fn position(t: Timestamp, since: Timestamp, now: Timestamp) -> u16 {
    crate::fleet::elapsed_permille(since, now, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::DrainState;

    #[test]
    fn the_wall_zooms_to_the_narrowest_span_that_holds_the_day_s_work() {
        let now = at(0);
        let cases = [
            (None, Zoom::Day, "nothing happened: the whole day"),
            (Some(now), Zoom::Hour, "a start just now"),
            (Some(at(1)), Zoom::Hour, "a start an hour ago, at the hour's edge"),
            (Some(at(1).checked_sub(SignedDuration::from_secs(1)).unwrap()), Zoom::Tonight, "a second before the hour"),
            (Some(at(12)), Zoom::Tonight, "twelve hours ago"),
            (Some(at(13)), Zoom::Day, "thirteen hours ago"),
            (Some(at(30)), Zoom::Day, "before the day: the day, the widest there is"),
        ];
        for (earliest, zoom, why) in cases {
            assert_eq!(Zoom::to_fit(earliest, now), zoom, "{why}");
        }
    }

    #[test]
    fn a_zoom_reaches_back_its_span_and_a_plan_is_cut_to_it() {
        assert_eq!(Zoom::Hour.span(), SignedDuration::from_hours(1));
        assert_eq!(Zoom::default(), Zoom::Day);
        let now = at(0);
        let since = now.checked_sub(Zoom::Tonight.span()).unwrap();
        // A plan from 20 h ago still running: from the window's start to now.
        assert_eq!(plan_span(at(20), None, since, now), Some((since, now)));
        // One that ended 2 h ago, started 3 h ago: as it was.
        assert_eq!(plan_span(at(3), Some(at(2)), since, now), Some((at(3), at(2))));
        // One that ended before the window: not shown.
        assert_eq!(plan_span(at(20), Some(at(13)), since, now), None);
        // A two-minute cordon is a mark of an hour's width, not a sliver of a day's.
        let two_minutes = now.checked_sub(SignedDuration::from_mins(2)).unwrap();
        let hour = now.checked_sub(Zoom::Hour.span()).unwrap();
        assert!(1000 - position(two_minutes, hour, now) >= 33);
        assert!(1000 - position(two_minutes, at(24), now) <= 2);
    }

    fn at(hours_ago: i64) -> Timestamp {
        Timestamp::from_second(100 * 3600 - hours_ago * 3600).unwrap()
    }

    fn entry(node: &str, action: AuditAction, hours_ago: i64) -> AuditEntry {
        AuditEntry::new("alice", action, node, at(hours_ago))
    }

    fn ended(node: &str, hours_ago: i64, state: DrainState) -> AuditEntry {
        let mut e = entry(node, AuditAction::DrainEnded, hours_ago);
        e.outcome = Some(state.outcome_text());
        e.ended = Some(state);
        e.drain_id = Some("d1".into());
        e
    }

    #[test]
    fn events_pair_into_spans_with_durations_and_outcomes() {
        let mut start = entry("n1", AuditAction::DrainStarted, 5);
        start.drain_id = Some("d1".into());
        start.reason = Some("kernel".into());
        let entries = vec![
            entry("n1", AuditAction::Uncordon, 2),
            entry("n1", AuditAction::Cordon, 6),
            ended("n1", 4, DrainState::Drained),
            start,
        ];
        let rows = timeline(&entries, at(24), at(0), 10);
        assert_eq!(rows.len(), 1);
        let spans = &rows[0].spans;
        assert_eq!(spans.iter().map(|s| s.kind).collect::<Vec<_>>(), [SpanKind::Cordoned, SpanKind::Drain]);
        let drain = &spans[1];
        assert_eq!((drain.from, drain.to), (at(5), Some(at(4))));
        assert_eq!(drain.duration(at(0)), SignedDuration::from_hours(1));
        assert_eq!(drain.ok, Some(true));
        assert_eq!(drain.drain_id.as_deref(), Some("d1"));
        assert_eq!(drain.reason.as_deref(), Some("kernel"));
        assert_eq!(spans[0].to, Some(at(2)));
        assert_eq!(rows[0].latest, at(2));
    }

    #[test]
    fn open_spans_last_until_now_and_failed_drains_are_not_ok() {
        let mut down = entry("n2", AuditAction::NodeNotReady, 3);
        down.reason = Some("NodeStatusUnknown".into());
        down.user = String::new();
        let entries = vec![
            down,
            entry("n2", AuditAction::DrainStarted, 2),
            ended("n2", 1, DrainState::Failed(crate::failure::Failure::WatchEnded)),
        ];
        let rows = timeline(&entries, at(24), at(0), 10);
        let spans = &rows[0].spans;
        assert_eq!(spans[0].kind, SpanKind::NotReady);
        assert_eq!(spans[0].to, None);
        assert_eq!(spans[0].outcome.as_deref(), Some("NodeStatusUnknown"));
        assert_eq!(spans[0].duration(at(0)), SignedDuration::from_hours(3));
        assert_eq!(spans[1].ok, Some(false));
    }

    #[test]
    fn the_window_clips_old_spans_and_an_orphan_end_is_only_its_end() {
        let entries = vec![
            entry("old", AuditAction::Cordon, 40),
            entry("old", AuditAction::Uncordon, 30),
            entry("edge", AuditAction::Cordon, 30),
            entry("edge", AuditAction::Uncordon, 10),
            entry("orphan", AuditAction::NodeReady, 5),
        ];
        let rows = timeline(&entries, at(24), at(0), 10);
        let names: Vec<_> = rows.iter().map(|r| r.node.as_str()).collect();
        assert_eq!(names, ["orphan", "edge"], "newest first; nothing of the window in `old`");
        let edge = &rows[1].spans[0];
        assert!(edge.began_before);
        assert_eq!((edge.from, edge.to), (at(24), Some(at(10))));
        let orphan = &rows[0].spans[0];
        // Nothing is invented for it: not a start at the window's edge, not a day-long span.
        assert_eq!((orphan.kind, orphan.from, orphan.to), (SpanKind::NotReady, at(5), Some(at(5))));
        assert!(orphan.start_unknown && !orphan.began_before);
        assert_eq!(orphan.duration(at(0)), SignedDuration::ZERO);
        assert!(!edge.start_unknown, "a start before the window is known, only not drawn");
    }

    #[test]
    fn an_uncordon_without_its_cordon_says_its_start_is_unknown_and_a_drains_cordon_gives_one() {
        // Before drains wrote their cordon: a drain's uncordon had no start in the history.
        let mut bob_uncordons = entry("n1", AuditAction::Uncordon, 2);
        bob_uncordons.user = "bob".into();
        let rows = timeline(&[entry("n1", AuditAction::DrainStarted, 6), bob_uncordons.clone()], at(24), at(0), 10);
        let cordon = rows[0].spans.iter().find(|s| s.kind == SpanKind::Cordoned).unwrap();
        assert!(cordon.start_unknown);
        assert_eq!((cordon.from, cordon.to, cordon.by.as_str()), (at(2), Some(at(2)), ""));
        // Now: the drain's cordon is an entry of its own, by whoever drained, and pairs with the uncordon.
        let mut drain_cordon = entry("n1", AuditAction::Cordon, 6);
        drain_cordon.drain_id = Some("d1".into());
        let rows = timeline(
            &[
                drain_cordon,
                entry("n1", AuditAction::DrainStarted, 6),
                ended("n1", 5, DrainState::Drained),
                bob_uncordons,
            ],
            at(24),
            at(0),
            10,
        );
        let cordon = rows[0].spans.iter().find(|s| s.kind == SpanKind::Cordoned).unwrap();
        assert!(!cordon.start_unknown);
        assert_eq!((cordon.from, cordon.to, cordon.by.as_str()), (at(6), Some(at(2)), "alice"));
    }

    #[test]
    fn an_uncordon_seen_by_the_server_closes_the_cordon_and_a_repeat_of_drainboards_own_is_dropped() {
        let observed = |hours_ago| {
            let mut e = entry("n1", AuditAction::Uncordon, hours_ago);
            e.user = String::new();
            e.reason = Some(crate::audit::UNCORDON_OBSERVED.into());
            e
        };
        let rows = timeline(&[entry("n1", AuditAction::Cordon, 5), observed(2)], at(24), at(0), 10);
        let spans = &rows[0].spans;
        assert_eq!((spans.len(), spans[0].from, spans[0].to), (1, at(5), Some(at(2))));
        assert!(spans[0].end_observed && !spans[0].start_unknown);
        let rows = timeline(
            &[entry("n1", AuditAction::Cordon, 5), entry("n1", AuditAction::Uncordon, 3), observed(2)],
            at(24),
            at(0),
            10,
        );
        let spans = &rows[0].spans;
        assert_eq!(spans.len(), 1, "{spans:?}");
        assert!(!spans[0].end_observed, "Drainboard's own uncordon, with who made it");
    }

    #[test]
    fn a_recovery_seen_by_the_server_closes_the_span_and_says_so_and_a_repeat_is_no_orphan() {
        let down = entry("n1", AuditAction::NodeNotReady, 3);
        let mut seen = entry("n1", AuditAction::NodeReady, 2);
        seen.reason = Some(crate::audit::READY_OBSERVED.into());
        // A second server saw it too, a moment later.
        let mut again = entry("n1", AuditAction::NodeReady, 1);
        again.reason = seen.reason.clone();
        let rows = timeline(&[down, seen, again], at(24), at(0), 10);
        let spans = &rows[0].spans;
        assert_eq!(spans.len(), 1, "{spans:?}");
        assert_eq!((spans[0].from, spans[0].to), (at(3), Some(at(2))));
        assert!(spans[0].end_observed);
        // A recovery with no failure in the history at all is still shown, as an end alone.
        let rows = timeline(&[entry("n2", AuditAction::NodeReady, 1)], at(24), at(0), 10);
        assert!(rows[0].spans[0].start_unknown);
    }

    #[test]
    fn a_drain_left_open_ends_where_the_next_starts_and_rows_are_limited() {
        let entries = vec![
            entry("a", AuditAction::DrainStarted, 6),
            entry("a", AuditAction::DrainResumed, 3),
            entry("b", AuditAction::Cordon, 2),
            entry("c", AuditAction::Cordon, 1),
            // From the future (a clock that runs ahead): left out.
            entry("d", AuditAction::Cordon, -5),
        ];
        let rows = timeline(&entries, at(24), at(0), 2);
        assert_eq!(rows.iter().map(|r| r.node.as_str()).collect::<Vec<_>>(), ["c", "b"]);
        let all = timeline(&entries, at(24), at(0), 10);
        let a = all.iter().find(|r| r.node == "a").unwrap();
        assert_eq!(a.spans.len(), 2);
        assert_eq!(a.spans[0].to, Some(at(3)));
        // It carries its outcome: the server that ran it stopped.
        assert_eq!((a.spans[0].ended.clone(), a.spans[0].ok), (Some(DrainState::Interrupted), Some(false)));
        assert_eq!(a.spans[0].outcome.as_deref(), Some(DrainState::Interrupted.outcome_text().as_str()));
        assert_eq!(a.spans[1].to, None);
        assert!(timeline(&[], at(24), at(0), 10).is_empty());
    }

    #[test]
    fn only_the_most_recently_active_nodes_are_sent() {
        let entries = vec![
            entry("a", AuditAction::Cordon, 9),
            entry("b", AuditAction::Cordon, 5),
            entry("a", AuditAction::Uncordon, 1),
            entry("c", AuditAction::Cordon, 3),
        ];
        let kept = most_active(entries.clone(), 2);
        let nodes: Vec<_> = kept.iter().map(|e| e.node.as_str()).collect();
        assert_eq!(nodes, ["a", "a", "c"]);
        assert!(most_active(entries, 0).is_empty());
    }

    #[test]
    fn positions_run_across_the_window() {
        assert_eq!(position(at(24), at(24), at(0)), 0);
        assert_eq!(position(at(12), at(24), at(0)), 500);
        assert_eq!(position(at(30), at(24), at(0)), 0);
        assert_eq!(position(at(0), at(24), at(0)), 1000);
    }
}
