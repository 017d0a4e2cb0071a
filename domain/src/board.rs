//! The node board: what the server pushes to every viewer, and the rules the browser applies to it every second.

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::{
    ReadyStatus,
    eviction::{PodEviction, node_eviction_deadline},
    node::NodeCard,
    selector::{LabelSelector, SelectorError},
};

/// Settings the server was started with that the countdowns need.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardSettings {
    /// The node-monitor grace period: heartbeats older than this are stale.
    pub grace_seconds: i64,
    /// The guide's pod-eviction timeout, for the node-level countdown.
    pub eviction_timeout_seconds: i64,
    /// A cordon older than this with no drain running is flagged on its card (`--stale-cordon`).
    #[serde(default = "default_stale_cordon")]
    pub stale_cordon_seconds: u64,
}

/// A day: a cordon left overnight, and then some, is one somebody forgot.
pub const DEFAULT_STALE_CORDON_SECONDS: u64 = 24 * 3600;

fn default_stale_cordon() -> u64 {
    DEFAULT_STALE_CORDON_SECONDS
}

impl Default for BoardSettings {
    fn default() -> Self {
        BoardSettings {
            grace_seconds: 50,
            eviction_timeout_seconds: 300,
            stale_cordon_seconds: DEFAULT_STALE_CORDON_SECONDS,
        }
    }
}

/// One push to the browser: the server's clock, and the cards that changed (all of them when `full`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardUpdate {
    pub server_time: Timestamp,
    /// A full snapshot: replace everything (the first message of every connection, so reconnects resync).
    pub full: bool,
    pub settings: BoardSettings,
    pub upsert: Vec<NodeCard>,
    pub remove: Vec<String>,
    /// Set on a full snapshot that carries only the first cards in display order (a page's worth, for the first
    /// render of a large cluster): the counts of the whole board. The event stream always sends every card.
    #[serde(default)]
    pub partial: Option<Summary>,
}

/// The cards a viewer holds, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Board {
    pub cards: BTreeMap<String, NodeCard>,
    /// The whole board's counts while only its first cards are held.
    pub partial: Option<Summary>,
    pub settings: BoardSettings,
    /// Server clock minus browser clock, so countdowns are right even when the browser's clock is not.
    pub clock_offset: SignedDuration,
}

impl Board {
    /// Applies an update received when the browser's clock read `local_now`.
    pub fn apply(&mut self, update: BoardUpdate, local_now: Timestamp) {
        if update.full {
            self.cards.clear();
            self.partial = update.partial;
        }
        for card in update.upsert {
            self.cards.insert(card.name.clone(), card);
        }
        for name in update.remove {
            self.cards.remove(&name);
        }
        self.settings = update.settings;
        self.clock_offset = update.server_time.duration_since(local_now);
    }

    /// The server's time now, from the browser's clock.
    pub fn server_now(&self, local_now: Timestamp) -> Timestamp {
        local_now + self.clock_offset
    }
}

/// Which cards a filter keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum StatusFilter {
    #[default]
    All,
    /// NotReady or Unknown.
    Problems,
    Cordoned,
    Ready,
    /// Another actor (a tool or a person outside Drainboard) is at work on the node ([`crate::actor`]).
    OtherActors,
    /// The node carries the sign that it needs a reboot ([`crate::reboot`]).
    NeedReboot,
    /// This actor is at work on the node.
    Actor(crate::actor::Actor),
}

/// Whether the server's watches reach the API server: sent on the board stream as a `health` event whenever it
/// changes. While `lost_since` is set, the cards show what the API server said before then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiHealth {
    pub lost_since: Option<Timestamp>,
}

/// Display order: NotReady and Unknown first, then cordoned, then the rest; by name within each.
pub fn display_rank(card: &NodeCard) -> u8 {
    match (card.ready, card.unschedulable) {
        (ReadyStatus::NotReady | ReadyStatus::Unknown, _) => 0,
        (ReadyStatus::Ready, true) => 1,
        (ReadyStatus::Ready, false) => 2,
    }
}

/// The board's filters, read once for many cards: a name substring, a label selector as `kubectl --selector`
/// writes it (`pool=web`, `zone in (a,b)`, `!gpu`, comma-separated), and a status.
#[derive(Clone, Debug)]
pub struct Filter {
    name: String,
    selector: Result<LabelSelector, SelectorError>,
    status: StatusFilter,
}

impl Filter {
    pub fn new(name: &str, label: &str, status: StatusFilter) -> Self {
        Filter { name: name.trim().to_lowercase(), selector: LabelSelector::parse(label.trim()), status }
    }

    /// Why the label selector cannot be read, if it cannot: then no card matches, rather than every card.
    pub fn selector_error(&self) -> Option<&SelectorError> {
        self.selector.as_ref().err()
    }

    /// Whether a node named `name` passes the name filter: the part of the name typed, in any case. The
    /// timeline, which has names and no cards, filters by it too.
    pub fn matches_name(&self, name: &str) -> bool {
        self.name.is_empty() || name.to_lowercase().contains(&self.name)
    }

    /// Whether `card` passes every filter.
    pub fn matches(&self, card: &NodeCard) -> bool {
        if !self.matches_name(&card.name) {
            return false;
        }
        if !self.selector.as_ref().is_ok_and(|s| s.matches(&card.labels)) {
            return false;
        }
        match self.status {
            StatusFilter::All => true,
            StatusFilter::Problems => card.ready != ReadyStatus::Ready,
            StatusFilter::Cordoned => card.unschedulable,
            StatusFilter::Ready => card.ready == ReadyStatus::Ready,
            StatusFilter::OtherActors => !card.actors.is_empty(),
            StatusFilter::NeedReboot => card.reboot.is_some(),
            StatusFilter::Actor(actor) => card.actors.iter().any(|s| s.actor == actor),
        }
    }
}

/// Whether `card` passes the filters (see [`Filter`]); for one card.
pub fn matches(card: &NodeCard, name: &str, label: &str, status: StatusFilter) -> bool {
    Filter::new(name, label, status).matches(card)
}

/// The counts of the summary bar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub nodes: usize,
    pub not_ready: usize,
    pub cordoned: usize,
}

pub fn summary<'a>(cards: impl IntoIterator<Item = &'a NodeCard>) -> Summary {
    cards.into_iter().fold(Summary::default(), |mut s, c| {
        s.nodes += 1;
        s.not_ready += usize::from(c.ready != ReadyStatus::Ready);
        s.cordoned += usize::from(c.unschedulable);
        s
    })
}

/// The first `n` cards in display order (problems first, then cordoned, then by name) and the counts of them all:
/// what a first render needs, without the whole board.
pub fn first_cards(mut cards: Vec<NodeCard>, n: usize) -> (Vec<NodeCard>, Summary) {
    let all = summary(&cards);
    cards.sort_by(|a, b| display_rank(a).cmp(&display_rank(b)).then_with(|| a.name.cmp(&b.name)));
    cards.truncate(n);
    (cards, all)
}

/// The node-level countdown of a card: when, by the guide's rule, the node's pods go.
pub fn node_deadline(card: &NodeCard, settings: &BoardSettings) -> Option<Timestamp> {
    node_eviction_deadline(card.ready, card.ready_since, SignedDuration::from_secs(settings.eviction_timeout_seconds))
}

/// How much of the node-level countdown has passed at `now`, in thousandths: from the Ready condition's change
/// to the deadline. What its bar fills with.
pub fn node_countdown_permille(card: &NodeCard, settings: &BoardSettings, now: Timestamp) -> Option<u16> {
    let deadline = node_deadline(card, settings)?;
    Some(crate::fleet::elapsed_permille(card.ready_since?, deadline, now))
}

/// How much of the wait for the first pod eviction has passed at `now`, in thousandths: from the earliest
/// `timeAdded` of the node's NoExecute taints to the eviction.
pub fn pod_countdown_permille(card: &NodeCard, now: Timestamp) -> Option<u16> {
    let start =
        card.taints.iter().filter(|t| t.effect == crate::eviction::NO_EXECUTE).filter_map(|t| t.time_added).min()?;
    match earliest_pod_eviction(card)?.0 {
        PodEviction::At(at) => Some(crate::fleet::elapsed_permille(start, at, now)),
        _ => Some(1000),
    }
}

/// The earliest pod eviction on a card, and how many pods will go at some point.
pub fn earliest_pod_eviction(card: &NodeCard) -> Option<(PodEviction, usize)> {
    let going: Vec<PodEviction> = card
        .pod_evictions
        .iter()
        .map(|p| p.eviction)
        .filter(|e| matches!(e, PodEviction::Immediately | PodEviction::At(_)))
        .collect();
    let earliest = going.iter().copied().min_by_key(|e| match e {
        PodEviction::Immediately => None,
        PodEviction::At(t) => Some(*t),
        _ => unreachable!(),
    })?;
    Some((earliest, going.len()))
}

/// `fresh`, the names in the board's order now, rearranged to keep the names of `before` where they were: while
/// the board holds its order, a card that changed rank stays under the pointer. Names gone are dropped; new
/// names follow, in their own order.
pub fn keep_order(before: &[String], fresh: Vec<String>) -> Vec<String> {
    let present: std::collections::BTreeSet<&str> = fresh.iter().map(String::as_str).collect();
    let kept: std::collections::BTreeSet<&str> =
        before.iter().map(String::as_str).filter(|n| present.contains(n)).collect();
    let mut out: Vec<String> = before.iter().filter(|n| kept.contains(n.as_str())).cloned().collect();
    out.extend(fresh.into_iter().filter(|n| !kept.contains(n.as_str())));
    out
}

/// "3:12", "1:02:03", for countdowns and ages.
pub fn clock(d: SignedDuration) -> String {
    let total = d.as_secs().max(0);
    let (h, m, s) = (total / 3600, (total % 3600) / 60, total % 60);
    if h > 0 { format!("{h}:{m:02}:{s:02}") } else { format!("{m}:{s:02}") }
}

/// The update that takes a viewer from the cards it was last sent to `cards`, remembering what it now holds.
/// `None` when nothing changed. The first update of a connection is always full.
///
/// Cards are shared (`Arc`): a card the server did not rebuild is the very one last sent, and is passed over by
/// pointer, so a round at 5,000 nodes compares only the cards that were rebuilt.
pub fn diff(
    sent: &mut BTreeMap<String, std::sync::Arc<NodeCard>>,
    cards: &[std::sync::Arc<NodeCard>],
    full: bool,
    settings: BoardSettings,
    server_time: Timestamp,
) -> Option<BoardUpdate> {
    use std::sync::Arc;
    let changed: Vec<&Arc<NodeCard>> = if full {
        sent.clear();
        cards.iter().collect()
    } else {
        cards.iter().filter(|c| sent.get(&c.name).is_none_or(|s| !Arc::ptr_eq(s, c) && **s != ***c)).collect()
    };
    let names: std::collections::BTreeSet<&str> = cards.iter().map(|c| c.name.as_str()).collect();
    let remove: Vec<String> = sent.keys().filter(|k| !names.contains(k.as_str())).cloned().collect();
    if !full && changed.is_empty() && remove.is_empty() {
        return None;
    }
    for name in &remove {
        sent.remove(name);
    }
    let mut upsert = Vec::with_capacity(changed.len());
    for card in changed {
        sent.insert(card.name.clone(), card.clone());
        upsert.push(NodeCard::clone(card));
    }
    Some(BoardUpdate { server_time, full, settings, upsert, remove, partial: None })
}

/// A duration cut into the units a person reads, largest first. The rule (which units, where they change) lives
/// here; the words ("3m05s", "3分05秒") come from the message catalogue, so that every language cuts the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    /// Under ten seconds, to the tenth: `seconds`.`tenths`.
    Tenths {
        seconds: i64,
        tenths: i64,
    },
    Seconds(i64),
    Minutes(i64),
    Hours(i64),
    Days(i64),
    /// Minutes and the seconds past them (0–59).
    MinutesSeconds(i64, i64),
    /// Hours and the minutes past them (0–59).
    HoursMinutes(i64, i64),
}

/// How long something took, for drain progress: tenths under ten seconds (0.4 s, 7.2 s), then whole seconds, then
/// minutes and seconds, then hours and minutes. Negative durations (clock skew) read as zero.
pub fn elapsed(d: SignedDuration) -> Span {
    let ms = d.as_millis().max(0);
    let s = i64::try_from(ms / 1000).unwrap_or(i64::MAX);
    match s {
        0..10 => Span::Tenths { seconds: s, tenths: ((ms % 1000) / 100) as i64 },
        10..60 => Span::Seconds(s),
        60..3600 => Span::MinutesSeconds(s / 60, s % 60),
        _ => Span::HoursMinutes(s / 3600, s % 3600 / 60),
    }
}

/// A name split where a reader would break it across lines: before each capital that follows a lower-case letter or a
/// digit (CamelCase), and after `/`, `:`, `.` and `-` (label keys, taints). The parts joined give the name back.
pub fn word_parts(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut previous: Option<char> = None;
    for c in text.chars() {
        let camel = c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit());
        let after_separator = previous.is_some_and(|p| matches!(p, '/' | ':' | '.' | '-'));
        if (camel || after_separator) && parts.last().is_some_and(|p| !p.is_empty()) {
            parts.push(String::new());
        }
        if let Some(last) = parts.last_mut() {
            last.push(c);
        }
        previous = Some(c);
    }
    parts
}

/// A short age for a card, in its largest whole unit: 45 s, 12 min, 5 h, 3 days.
pub fn short_age(d: SignedDuration) -> Span {
    let s = d.as_secs().max(0);
    match s {
        0..60 => Span::Seconds(s),
        60..3600 => Span::Minutes(s / 60),
        3600..86400 => Span::Hours(s / 3600),
        _ => Span::Days(s / 86400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_times() {
        let tenths = |seconds, tenths| Span::Tenths { seconds, tenths };
        let cases = [
            (-5_000, tenths(0, 0)),
            (0, tenths(0, 0)),
            (420, tenths(0, 4)),
            (9_990, tenths(9, 9)),
            (10_000, Span::Seconds(10)),
            (185_000, Span::MinutesSeconds(3, 5)),
            (7_800_000, Span::HoursMinutes(2, 10)),
        ];
        for (ms, span) in cases {
            assert_eq!(elapsed(SignedDuration::from_millis(ms)), span, "{ms} ms");
        }
    }

    #[test]
    fn names_split_where_a_reader_would_break_them() {
        assert_eq!(word_parts("KubeletHasSufficientMemory"), ["Kubelet", "Has", "Sufficient", "Memory"]);
        assert_eq!(
            word_parts("node.kubernetes.io/unreachable:NoSchedule"),
            ["node.", "kubernetes.", "io/", "unreachable:", "No", "Schedule"]
        );
        assert_eq!(word_parts("IPv4Ready"), ["IPv4", "Ready"]);
        assert_eq!(word_parts(""), [""]);
        for text in ["KubeletReady", "a--b", "ÄrgerÖl", "x"] {
            assert_eq!(word_parts(text).concat(), text, "joined, the parts give the name back");
        }
    }

    #[test]
    fn ages_keep_their_largest_unit() {
        let cases = [
            (-5, Span::Seconds(0)),
            (45, Span::Seconds(45)),
            (60, Span::Minutes(1)),
            (3599, Span::Minutes(59)),
            (3600 * 5 + 59, Span::Hours(5)),
            (86400 * 3 + 7200, Span::Days(3)),
        ];
        for (secs, span) in cases {
            assert_eq!(short_age(SignedDuration::from_secs(secs)), span, "{secs} s");
        }
    }

    use crate::node::PodEta;

    fn card(name: &str, ready: ReadyStatus, unschedulable: bool) -> NodeCard {
        NodeCard { name: name.into(), ready, unschedulable, ..NodeCard::default() }
    }

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn updates_replace_or_patch_and_carry_the_clock_offset() {
        let mut board = Board::default();
        let update = |full, upsert: Vec<NodeCard>, remove: Vec<&str>| BoardUpdate {
            server_time: ts("2026-11-30T12:00:10Z"),
            full,
            settings: BoardSettings::default(),
            upsert,
            remove: remove.into_iter().map(String::from).collect(),
            partial: None,
        };
        board.apply(
            update(true, vec![card("a", ReadyStatus::Ready, false), card("b", ReadyStatus::Ready, false)], vec![]),
            ts("2026-11-30T12:00:00Z"),
        );
        assert_eq!(board.cards.len(), 2);
        assert_eq!(board.clock_offset, SignedDuration::from_secs(10), "the browser is 10 s behind");
        assert_eq!(board.server_now(ts("2026-11-30T12:01:00Z")), ts("2026-11-30T12:01:10Z"));
        board.apply(update(false, vec![card("a", ReadyStatus::Unknown, false)], vec!["b"]), ts("2026-11-30T12:00:10Z"));
        assert_eq!(board.cards.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!(board.cards["a"].ready, ReadyStatus::Unknown);
        board.apply(update(true, vec![card("c", ReadyStatus::Ready, false)], vec![]), ts("2026-11-30T12:00:10Z"));
        assert_eq!(board.cards.keys().collect::<Vec<_>>(), ["c"], "a full update resyncs");
    }

    #[test]
    fn a_held_order_keeps_each_card_in_place() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let before = names(&["a", "b", "c"]);
        // b was cordoned and would rank first; d is new; c is gone (filtered out or removed).
        assert_eq!(keep_order(&before, names(&["b", "d", "a"])), names(&["a", "b", "d"]));
        assert_eq!(keep_order(&[], names(&["x", "y"])), names(&["x", "y"]));
        assert_eq!(keep_order(&before, Vec::new()), Vec::<String>::new());
    }

    #[test]
    fn filters_and_summary() {
        let mut a = card("web-1", ReadyStatus::Ready, false);
        a.labels.insert("pool".into(), "web".into());
        let b = card("db-1", ReadyStatus::Unknown, true);
        assert!(matches(&a, "WEB", "", StatusFilter::All));
        assert!(!matches(&a, "db", "", StatusFilter::All));
        assert!(matches(&a, "", "pool=web", StatusFilter::Ready));
        assert!(matches(&a, "", "pool", StatusFilter::All));
        assert!(!matches(&a, "", "pool=db", StatusFilter::All));
        assert!(matches(&a, "", "pool in (db, web)", StatusFilter::All), "a set-based selector");
        assert!(!matches(&a, "", "!pool", StatusFilter::All));
        assert!(matches(&a, "", "pool!=db,!gpu", StatusFilter::All), "requirements are ANDed");
        let broken = Filter::new("", "pool in (web", StatusFilter::All);
        assert!(broken.selector_error().is_some() && !broken.matches(&a), "an unreadable selector matches nothing");
        assert!(matches(&b, "", "", StatusFilter::Problems) && matches(&b, "", "", StatusFilter::Cordoned));
        assert!(!matches(&a, "", "", StatusFilter::Problems));
        assert!(
            !matches(&b, "", "", StatusFilter::OtherActors),
            "a cordon alone names no actor until the card says so"
        );
        let mut c = b.clone();
        c.actors.push(crate::actor::Sighting {
            actor: crate::actor::Actor::Karpenter,
            doing: crate::actor::Doing::Disrupting,
            marker: "taint karpenter.sh/disrupted".into(),
            at: None,
            detail: None,
            stale: false,
        });
        assert!(matches(&c, "", "", StatusFilter::OtherActors));
        assert!(!matches(&c, "", "", StatusFilter::NeedReboot));
        let signed = NodeCard {
            reboot: Some(crate::reboot::RebootSign { signal: "label:reboot".into(), value: None }),
            ..c.clone()
        };
        assert!(matches(&signed, "", "", StatusFilter::NeedReboot));
        assert!(matches(&c, "", "", StatusFilter::Actor(crate::actor::Actor::Karpenter)));
        assert!(!matches(&c, "", "", StatusFilter::Actor(crate::actor::Actor::ClusterAutoscaler)), "another tool's");
        assert!(!matches(&a, "", "", StatusFilter::Actor(crate::actor::Actor::Karpenter)));
        assert_eq!(summary([&a, &b]), Summary { nodes: 2, not_ready: 1, cordoned: 1 });
        assert!(display_rank(&b) < display_rank(&a));
    }

    #[test]
    fn countdowns() {
        let mut c = card("n", ReadyStatus::Unknown, false);
        c.ready_since = Some(ts("2026-11-30T12:00:00Z"));
        assert_eq!(node_deadline(&c, &BoardSettings::default()), Some(ts("2026-11-30T12:05:00Z")));
        let at = |t: &str| node_countdown_permille(&c, &BoardSettings::default(), ts(t));
        assert_eq!((at("2026-11-30T12:00:00Z"), at("2026-11-30T12:01:00Z")), (Some(0), Some(200)));
        assert_eq!(at("2026-11-30T13:00:00Z"), Some(1000));
        let now = ts("2026-11-30T12:00:15Z");
        assert_eq!(pod_countdown_permille(&c, now), None, "no pods going: no bar");
        let eta = |name: &str, eviction| PodEta { namespace: "ns".into(), name: name.into(), eviction };
        c.pod_evictions = vec![
            eta("ds", PodEviction::Never),
            eta("web", PodEviction::At(ts("2026-11-30T12:05:00Z"))),
            eta("api", PodEviction::At(ts("2026-11-30T12:00:30Z"))),
        ];
        assert_eq!(earliest_pod_eviction(&c), Some((PodEviction::At(ts("2026-11-30T12:00:30Z")), 2)));
        assert_eq!(pod_countdown_permille(&c, now), None, "no NoExecute taint to start from");
        c.taints.push(crate::eviction::Taint {
            key: "node.kubernetes.io/unreachable".into(),
            value: None,
            effect: "NoExecute".into(),
            time_added: Some(ts("2026-11-30T12:00:00Z")),
        });
        assert_eq!(pod_countdown_permille(&c, now), Some(500));
        c.pod_evictions.push(eta("bare", PodEviction::Immediately));
        assert_eq!(earliest_pod_eviction(&c), Some((PodEviction::Immediately, 3)));
        assert_eq!(clock(SignedDuration::from_secs(192)), "3:12");
        assert_eq!(clock(SignedDuration::from_secs(3723)), "1:02:03");
        assert_eq!(clock(SignedDuration::from_secs(-5)), "0:00");
    }

    #[test]
    fn display_order_puts_problems_first_then_cordoned() {
        let cards = vec![
            card("a", ReadyStatus::Ready, false),
            card("b", ReadyStatus::Ready, true),
            card("c", ReadyStatus::Unknown, false),
            card("d", ReadyStatus::NotReady, true),
            card("e", ReadyStatus::Ready, false),
        ];
        let (sorted, all) = first_cards(cards, 5);
        let names: Vec<_> = sorted.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["c", "d", "b", "a", "e"]);
        assert_eq!(all, Summary { nodes: 5, not_ready: 2, cordoned: 2 });
    }

    #[test]
    fn a_partial_snapshot_keeps_the_first_cards_in_display_order_and_counts_all() {
        let card = |name: &str, ready, unschedulable| NodeCard {
            name: name.into(),
            ready,
            unschedulable,
            ..NodeCard::default()
        };
        let cards = vec![
            card("a", ReadyStatus::Ready, false),
            card("b", ReadyStatus::Ready, true),
            card("c", ReadyStatus::Unknown, false),
            card("d", ReadyStatus::Ready, false),
        ];
        let (first, all) = first_cards(cards, 2);
        assert_eq!(first.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["c", "b"]);
        assert_eq!(all, Summary { nodes: 4, not_ready: 1, cordoned: 1 });
        let now: Timestamp = "2026-11-30T12:00:00Z".parse().unwrap();
        let mut board = Board::default();
        let update = |upsert, partial| BoardUpdate {
            server_time: now,
            full: true,
            settings: BoardSettings::default(),
            upsert,
            remove: Vec::new(),
            partial,
        };
        board.apply(update(first, Some(all)), now);
        assert_eq!((board.cards.len(), board.partial), (2, Some(all)));
        board.apply(update(vec![card("a", ReadyStatus::Ready, false)], None), now);
        assert_eq!(board.partial, None, "a full board from the stream replaces the partial one");
    }

    #[test]
    fn only_changes_are_sent_after_the_first_update() {
        let now: Timestamp = "2026-11-30T12:00:00Z".parse().unwrap();
        let card =
            |name: &str, ready| std::sync::Arc::new(NodeCard { name: name.into(), ready, ..NodeCard::default() });
        let mut sent = BTreeMap::new();
        let s = BoardSettings::default();
        let (a, b) = (card("a", ReadyStatus::Ready), card("b", ReadyStatus::Ready));
        let first = diff(&mut sent, &[a.clone(), b.clone()], true, s, now).unwrap();
        assert!(first.full && first.upsert.len() == 2);
        assert_eq!(diff(&mut sent, &[a.clone(), b.clone()], false, s, now), None, "the same cards, by pointer");
        assert_eq!(
            diff(&mut sent, &[card("a", ReadyStatus::Ready), b], false, s, now),
            None,
            "a card rebuilt equal is no change either"
        );
        let next = diff(&mut sent, &[card("a", ReadyStatus::Unknown)], false, s, now).unwrap();
        assert_eq!(
            (next.upsert.len(), next.upsert[0].name.as_str(), next.remove.clone()),
            (1, "a", vec!["b".to_string()])
        );
        assert_eq!(sent.len(), 1);
    }
}
