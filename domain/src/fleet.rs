//! The fleet map: every node as one small cell, grouped by a label, with one state each. A wall screen is looked
//! at, not read, so the state is the one thing a cell says; the cell's shape and letter say it as well as its
//! colour does (see [`MapState::letter`]).
//!
//! The map's keyboard moves (one tab stop, arrow keys inside) are plain geometry over the cells' positions, so
//! they are tested here rather than in a browser.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{ReadyStatus, node::NodeCard, progress::DrainSummary};

/// The label the map groups by unless the viewer picks another.
pub const DEFAULT_GROUP_LABEL: &str = "topology.kubernetes.io/zone";

/// The longest label key the map groups by: a qualified name's 253-character prefix, a slash and its 63-character
/// name. A longer one cannot be a label key, and is not looked up.
pub const MAX_LABEL_KEY: usize = 317;

/// What a cell shows, most urgent first: a node that stopped reporting matters more than a maintenance step, and
/// a drain under way more than a node that is only cordoned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum MapState {
    /// The node's Ready condition is False.
    NotReady,
    /// The node stopped reporting: Ready is Unknown.
    Unknown,
    /// A drain runs on it (here, or on another server through its Lease).
    Draining,
    /// Cordoned, and its last drain emptied it.
    Drained,
    /// Cordoned, with no drain that emptied it.
    Cordoned,
    Ready,
}

impl MapState {
    /// Every state, in legend order.
    pub const ALL: [MapState; 6] = [
        MapState::Ready,
        MapState::Cordoned,
        MapState::Draining,
        MapState::Drained,
        MapState::NotReady,
        MapState::Unknown,
    ];

    /// The letter a cell carries, so that the state never rests on colour alone.
    pub fn letter(self) -> &'static str {
        match self {
            MapState::Ready => "R",
            MapState::Cordoned => "C",
            MapState::Draining => "D",
            MapState::Drained => "E",
            MapState::NotReady => "N",
            MapState::Unknown => "?",
        }
    }

    /// A stable name for the state, for CSS classes and tests.
    pub fn key(self) -> &'static str {
        match self {
            MapState::Ready => "ready",
            MapState::Cordoned => "cordoned",
            MapState::Draining => "draining",
            MapState::Drained => "drained",
            MapState::NotReady => "not-ready",
            MapState::Unknown => "unknown",
        }
    }
}

/// The state of a node's cell: its Ready condition first, then its drain (the live one, or else the one recorded
/// on the node), then its cordon.
pub fn map_state(card: &NodeCard, drain: Option<&DrainSummary>) -> MapState {
    match card.ready {
        ReadyStatus::NotReady => return MapState::NotReady,
        ReadyStatus::Unknown => return MapState::Unknown,
        ReadyStatus::Ready => {}
    }
    let live = drain.map(|d| &d.state);
    if live.is_some_and(|s| s.is_running()) {
        return MapState::Draining;
    }
    if !card.unschedulable {
        return MapState::Ready;
    }
    // A recorded drain that still says running belongs to a server that stopped: the node is not being drained.
    let emptied = match live {
        Some(state) => state.is_final_ok(),
        None => card.drain_record.as_ref().is_some_and(|r| r.state.is_final_ok()),
    };
    if emptied { MapState::Drained } else { MapState::Cordoned }
}

/// One cell of the map.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MapCell {
    pub name: String,
    pub state: MapState,
    /// The node carries the sign that it needs a reboot ([`crate::reboot`]).
    pub reboot: bool,
    /// Other tools seen at work on the node ([`crate::actor`]) and what each does, as its card names them: only
    /// what the cell shows, so that a marker's time filled in later does not draw the cell anew.
    pub actors: Vec<(crate::actor::Actor, crate::actor::Doing)>,
}

/// The cells of one value of the grouping label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapGroup {
    /// The label's value; `None` for the nodes without the label, which come last.
    pub value: Option<String>,
    pub cells: Vec<MapCell>,
}

impl MapGroup {
    /// How many of the group's cells are in each state that is not Ready, for the group's heading.
    pub fn counts(&self) -> BTreeMap<MapState, usize> {
        let mut counts = BTreeMap::new();
        for cell in self.cells.iter().filter(|c| c.state != MapState::Ready) {
            *counts.entry(cell.state).or_insert(0) += 1;
        }
        counts
    }
}

/// The map of `cards` (in name order, as the board keeps them), grouped by the value of `label` (a label key, or a
/// version's path as [`crate::verify::Component::path`] writes it): groups in order
/// of their value, the nodes without the label last, and each group's cells in the cards' order.
pub fn layout<'a>(
    cards: impl IntoIterator<Item = &'a NodeCard>,
    drains: &BTreeMap<String, DrainSummary>,
    label: &str,
) -> Vec<MapGroup> {
    let label = label.trim();
    let label = (label.len() <= MAX_LABEL_KEY).then_some(label).filter(|l| !l.is_empty());
    // A version's path (`.status.nodeInfo.kubeletVersion`) groups by what the nodes report there.
    let version = label.and_then(crate::verify::Component::from_path);
    let mut groups: BTreeMap<Option<&str>, Vec<MapCell>> = BTreeMap::new();
    for card in cards {
        let value = match version {
            Some(component) => component.of(card),
            None => label.and_then(|l| card.labels.get(l)).map(String::as_str),
        };
        let state = map_state(card, drains.get(&card.name));
        groups.entry(value).or_default().push(MapCell {
            name: card.name.clone(),
            state,
            reboot: card.reboot.is_some(),
            actors: card.actors.iter().map(|s| (s.actor, s.doing)).collect(),
        });
    }
    let mut out: Vec<MapGroup> = Vec::with_capacity(groups.len());
    let mut unlabelled = None;
    for (value, cells) in groups {
        match value {
            Some(v) => out.push(MapGroup { value: Some(v.to_owned()), cells }),
            None => unlabelled = Some(MapGroup { value: None, cells }),
        }
    }
    out.extend(unlabelled);
    out
}

/// The group of `value` in a [`layout`] (groups in order of value, the unlabelled last), found by bisection: a map
/// grouped by a label every node has its own value of (`kubernetes.io/hostname`) has as many groups as nodes, and
/// each group looks itself up at every change.
pub fn find_group<'a>(groups: &'a [MapGroup], value: &Option<String>) -> Option<&'a MapGroup> {
    use std::cmp::Ordering;
    // `None` sorts last here, where `Option`'s own order puts it first.
    let order = |g: &MapGroup| match (&g.value, value) {
        (Some(a), Some(b)) => a.cmp(b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    groups.binary_search_by(order).ok().map(|i| &groups[i])
}

/// How large the map draws its cells: as large as still fits the whole fleet on one 1920×1080 screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellSize {
    /// A few dozen nodes: cells a room can read.
    Huge,
    Large,
    Medium,
    Small,
}

impl CellSize {
    pub fn for_nodes(nodes: usize) -> Self {
        match nodes {
            0..=100 => CellSize::Huge,
            101..=400 => CellSize::Large,
            401..=1500 => CellSize::Medium,
            _ => CellSize::Small,
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            CellSize::Huge => "huge",
            CellSize::Large => "large",
            CellSize::Medium => "medium",
            CellSize::Small => "small",
        }
    }
}

/// An arrow key inside the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Left,
    Right,
    Up,
    Down,
    First,
    Last,
}

impl Step {
    /// The step of a `KeyboardEvent.key`, if it is one the map answers.
    pub fn from_key(key: &str) -> Option<Self> {
        Some(match key {
            "ArrowLeft" => Step::Left,
            "ArrowRight" => Step::Right,
            "ArrowUp" => Step::Up,
            "ArrowDown" => Step::Down,
            "Home" => Step::First,
            "End" => Step::Last,
            _ => return None,
        })
    }
}

/// Where a key moves the map's focus, given each cell's position on the page (`(x, y)` of its top left corner, in
/// the order the cells are read). Left and right go to the previous and next cell; up and down to the nearest
/// cell in the row above or below, which may be in another group. At an edge the focus stays.
pub fn step(positions: &[(i32, i32)], from: usize, key: Step) -> usize {
    let Some(&(x, y)) = positions.get(from) else {
        return 0;
    };
    let last = positions.len().saturating_sub(1);
    match key {
        Step::Left => from.saturating_sub(1),
        Step::Right => (from + 1).min(last),
        Step::First => 0,
        Step::Last => last,
        Step::Up | Step::Down => {
            let up = key == Step::Up;
            // The nearest row in that direction, then the cell in it nearest in x.
            let row = positions
                .iter()
                .map(|p| p.1)
                .filter(|&py| if up { py < y } else { py > y })
                .min_by_key(|&py| (i64::from(py) - i64::from(y)).abs());
            let Some(row) = row else { return from };
            positions
                .iter()
                .enumerate()
                .filter(|(_, p)| p.1 == row)
                .min_by_key(|(_, p)| (i64::from(p.0) - i64::from(x)).abs())
                .map_or(from, |(i, _)| i)
        }
    }
}

/// How much of the span from `start` to `end` has passed at `now`, in thousandths (0 to 1,000): what a countdown's
/// bar or ring fills with. An end at or before its start reads as full; the timestamps may come from anyone who
/// can write a node's status, so nothing here can overflow.
pub fn elapsed_permille(start: Timestamp, end: Timestamp, now: Timestamp) -> u16 {
    let total = end.as_millisecond().saturating_sub(start.as_millisecond());
    if total <= 0 {
        return 1000;
    }
    let done = now.as_millisecond().saturating_sub(start.as_millisecond()).clamp(0, total);
    // done ≤ total, so the quotient is at most 1,000; i128 keeps the product from overflowing.
    let permille = i128::from(done) * 1000 / i128::from(total);
    u16::try_from(permille).unwrap_or(1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::{DrainRecord, DrainState};

    fn card(name: &str, ready: ReadyStatus, cordoned: bool) -> NodeCard {
        NodeCard { name: name.into(), ready, unschedulable: cordoned, ..Default::default() }
    }

    fn summary(node: &str, state: DrainState) -> DrainSummary {
        DrainSummary {
            id: "d1".into(),
            node: node.into(),
            started_by: "alice".into(),
            started_at: Timestamp::UNIX_EPOCH,
            reason: None,
            dry_run: false,
            state,
            total: 3,
            done: 1,
            blocked_by: None,
            blocked_in: None,
            blocker: None,
            shutting_down_until: None,
            finished_at: None,
            elsewhere: None,
        }
    }

    fn record(state: DrainState) -> DrainRecord {
        DrainRecord {
            id: "d0".into(),
            started_by: "bob".into(),
            started_at: Timestamp::UNIX_EPOCH,
            reason: None,
            options: Default::default(),
            state,
            pods_left: 0,
            finished_at: None,
        }
    }

    #[test]
    fn a_cell_says_the_most_urgent_state() {
        let ready = card("a", ReadyStatus::Ready, false);
        assert_eq!(map_state(&ready, None), MapState::Ready);
        assert_eq!(map_state(&card("a", ReadyStatus::NotReady, true), None), MapState::NotReady);
        assert_eq!(map_state(&card("a", ReadyStatus::Unknown, false), None), MapState::Unknown);
        let cordoned = card("a", ReadyStatus::Ready, true);
        assert_eq!(map_state(&cordoned, None), MapState::Cordoned);
        // A stopped node stays a problem even while its drain runs.
        let evicting = summary("a", DrainState::Evicting);
        assert_eq!(map_state(&card("a", ReadyStatus::Unknown, true), Some(&evicting)), MapState::Unknown);
        assert_eq!(map_state(&cordoned, Some(&evicting)), MapState::Draining);
        assert_eq!(map_state(&cordoned, Some(&summary("a", DrainState::Drained))), MapState::Drained);
        assert_eq!(map_state(&cordoned, Some(&summary("a", DrainState::Cancelled))), MapState::Cordoned);
        // A drained node that was uncordoned is simply ready again.
        assert_eq!(map_state(&ready, Some(&summary("a", DrainState::Drained))), MapState::Ready);
    }

    #[test]
    fn the_record_on_the_node_counts_when_no_drain_is_live() {
        let mut node = card("a", ReadyStatus::Ready, true);
        node.drain_record = Some(record(DrainState::Drained));
        assert_eq!(map_state(&node, None), MapState::Drained);
        // Left saying "running" by a server that stopped: not draining, not drained.
        node.drain_record = Some(record(DrainState::Evicting));
        assert_eq!(map_state(&node, None), MapState::Cordoned);
        // The live drain wins over the record.
        node.drain_record = Some(record(DrainState::Drained));
        assert_eq!(
            map_state(&node, Some(&summary("a", DrainState::Failed(crate::failure::Failure::WatchEnded)))),
            MapState::Cordoned
        );
    }

    #[test]
    fn every_state_has_its_own_letter_and_key() {
        let letters: std::collections::BTreeSet<_> = MapState::ALL.iter().map(|s| s.letter()).collect();
        let keys: std::collections::BTreeSet<_> = MapState::ALL.iter().map(|s| s.key()).collect();
        assert_eq!(letters.len(), MapState::ALL.len());
        assert_eq!(keys.len(), MapState::ALL.len());
    }

    #[test]
    fn groups_follow_the_label_and_the_unlabelled_come_last() {
        let mut cards = Vec::new();
        for (name, zone) in [("n1", Some("b")), ("n2", None), ("n3", Some("a")), ("n4", Some("b"))] {
            let mut c = card(name, ReadyStatus::Ready, false);
            if let Some(z) = zone {
                c.labels.insert(DEFAULT_GROUP_LABEL.into(), z.into());
            }
            c.labels.insert("pool".into(), "web".into());
            cards.push(c);
        }
        let drains = BTreeMap::from([("n4".to_string(), summary("n4", DrainState::Evicting))]);
        cards[3].unschedulable = true;
        let groups = layout(&cards, &drains, DEFAULT_GROUP_LABEL);
        let shape: Vec<(Option<&str>, Vec<&str>)> =
            groups.iter().map(|g| (g.value.as_deref(), g.cells.iter().map(|c| c.name.as_str()).collect())).collect();
        assert_eq!(shape, vec![(Some("a"), vec!["n3"]), (Some("b"), vec!["n1", "n4"]), (None, vec!["n2"])]);
        assert_eq!(groups[1].cells[1].state, MapState::Draining);
        assert_eq!(groups[1].counts(), BTreeMap::from([(MapState::Draining, 1)]));
        // Another label, or none at all.
        assert_eq!(layout(&cards, &drains, "pool").len(), 1);
        let all = layout(&cards, &drains, "");
        assert_eq!((all.len(), all[0].value.clone(), all[0].cells.len()), (1, None, 4));
        assert_eq!(layout(&cards, &drains, &"k".repeat(MAX_LABEL_KEY + 1))[0].cells.len(), 4);
        assert!(layout(std::iter::empty(), &drains, "pool").is_empty());
        // Each group is found by its value, the unlabelled too.
        for g in &groups {
            assert_eq!(find_group(&groups, &g.value), Some(g));
        }
        assert_eq!(find_group(&groups, &Some("zz".into())), None);
        assert_eq!(find_group(&groups[..2], &None), None);
    }

    #[test]
    fn a_versions_path_groups_by_what_the_nodes_report() {
        let mut cards = Vec::new();
        for (name, kubelet, kernel) in
            [("n1", Some("v1.36.3"), "6.12"), ("n2", Some("v1.35.1"), "6.1"), ("n3", None, "6.12")]
        {
            let mut c = card(name, ReadyStatus::Ready, false);
            c.kubelet_version = kubelet.map(Into::into);
            c.kernel_version = Some(kernel.into());
            // A label of the same name does not count: the path is not a label key.
            c.labels.insert("status.nodeInfo.kubeletVersion".into(), "label".into());
            cards.push(c);
        }
        let shape = |path: &str| -> Vec<(Option<String>, Vec<String>)> {
            layout(&cards, &BTreeMap::new(), path)
                .into_iter()
                .map(|g| (g.value, g.cells.into_iter().map(|c| c.name).collect()))
                .collect()
        };
        let s = |v: &str| Some(v.to_string());
        let names = |v: &[&str]| v.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        assert_eq!(
            shape(crate::verify::Component::Kubelet.path()),
            [(s("v1.35.1"), names(&["n2"])), (s("v1.36.3"), names(&["n1"])), (None, names(&["n3"]))]
        );
        assert_eq!(
            shape(".status.nodeInfo.kernelVersion"),
            [(s("6.1"), names(&["n2"])), (s("6.12"), names(&["n1", "n3"]))]
        );
        assert_eq!(shape(" .status.nodeInfo.osImage "), [(None, names(&["n1", "n2", "n3"]))]);
        assert_eq!(shape("status.nodeInfo.kubeletVersion"), [(s("label"), names(&["n1", "n2", "n3"]))]);
    }

    #[test]
    fn cells_get_smaller_as_the_fleet_grows() {
        assert_eq!(CellSize::for_nodes(6), CellSize::Huge);
        assert_eq!(CellSize::for_nodes(300), CellSize::Large);
        assert_eq!(CellSize::for_nodes(1000), CellSize::Medium);
        assert_eq!(CellSize::for_nodes(5000), CellSize::Small);
        assert_eq!(CellSize::for_nodes(usize::MAX), CellSize::Small);
    }

    #[test]
    fn arrow_keys_move_by_cell_and_by_row() {
        // Two groups: three cells in a row of 2 and a row of 1, then a row of two a little lower.
        let positions = [(0, 0), (10, 0), (0, 10), (0, 40), (10, 40)];
        assert_eq!(step(&positions, 0, Step::Right), 1);
        assert_eq!(step(&positions, 1, Step::Right), 2);
        assert_eq!(step(&positions, 4, Step::Right), 4);
        assert_eq!(step(&positions, 0, Step::Left), 0);
        assert_eq!(step(&positions, 1, Step::Down), 2);
        assert_eq!(step(&positions, 2, Step::Down), 3);
        assert_eq!(step(&positions, 4, Step::Up), 2);
        assert_eq!(step(&positions, 1, Step::Up), 1);
        assert_eq!(step(&positions, 4, Step::Down), 4);
        assert_eq!(step(&positions, 3, Step::First), 0);
        assert_eq!(step(&positions, 0, Step::Last), 4);
        assert_eq!(step(&positions, 9, Step::Down), 0);
        assert_eq!(step(&[], 0, Step::Right), 0);
        assert_eq!(Step::from_key("ArrowDown"), Some(Step::Down));
        assert_eq!(Step::from_key("a"), None);
    }

    #[test]
    fn a_countdown_fills_with_time_and_never_overflows() {
        let t = |s: i64| Timestamp::from_second(s).unwrap();
        assert_eq!(elapsed_permille(t(100), t(400), t(100)), 0);
        assert_eq!(elapsed_permille(t(100), t(400), t(250)), 500);
        assert_eq!(elapsed_permille(t(100), t(400), t(50)), 0);
        assert_eq!(elapsed_permille(t(100), t(400), t(900)), 1000);
        assert_eq!(elapsed_permille(t(400), t(100), t(200)), 1000);
        assert_eq!(elapsed_permille(Timestamp::MIN, Timestamp::MAX, Timestamp::MAX), 1000);
        assert_eq!(elapsed_permille(Timestamp::MIN, Timestamp::MAX, Timestamp::MIN), 0);
    }
}
