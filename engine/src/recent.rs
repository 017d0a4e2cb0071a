//! The last day of every node's durable history, kept in memory from one watch of the history objects: what the
//! maintenance timeline shows, served without a request to the API server, and what the health recorder
//! (`crate::health`) reads to record each change of a node's health once.
//!
//! Only the window's entries are kept (and each node's last health entry, however old), so the memory follows the
//! day's maintenance, not the history's length.

use std::{collections::BTreeMap, sync::Arc};

use domain::{
    audit::{AuditAction, AuditEntry},
    timeline::WINDOW,
};
use futures::StreamExt;
use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::runtime::{WatchStreamExt, watcher};
use parking_lot::RwLock;
use tokio::sync::watch;

use crate::{history::History, tasks::Tasks};

/// The most entries the timeline is sent: a busy day of a large fleet's rolling maintenance, newest kept.
pub const MAX_ENTRIES: usize = 20_000;

/// Entries kept a little past the window, so that one read at its edge still finds them.
const SLACK: SignedDuration = SignedDuration::from_hours(1);

/// One node's part.
#[derive(Default)]
struct NodeRecent {
    /// Entries of the window (and its slack), oldest first.
    entries: Vec<AuditEntry>,
    /// The newest entry about the node's health, however old.
    health: Option<(AuditAction, Timestamp)>,
    /// The newest cordon or uncordon, however old.
    cordon: Option<(AuditAction, Timestamp)>,
    /// Each other tool's newest sighting or end (`AuditAction::ActorSeen`, `ActorGone`), by its id, however old.
    actors: BTreeMap<String, (AuditAction, Timestamp)>,
    /// The newest uncordon's author and time, however old (a claim, as the history is: shown, never acted on).
    uncordon: Option<domain::plan_step::Uncordon>,
    /// Its newest drains' median times for a pod to stop (newest first, at most [`LEARN_FROM`]), however old:
    /// what estimates learn from.
    stops: Vec<(Timestamp, u32)>,
}

/// How many past drains of a node (or of the others, for a node with none) an estimate learns from.
pub const LEARN_FROM: usize = 5;

/// The last day of every node's history.
#[derive(Clone)]
pub struct Recent {
    nodes: Arc<RwLock<BTreeMap<String, NodeRecent>>>,
    /// Bumped at each change; the board streams tell their viewers, who then ask again.
    version: Arc<watch::Sender<u64>>,
    /// Set once the first list has arrived.
    synced: Arc<watch::Sender<bool>>,
}

impl Recent {
    fn new() -> Self {
        Recent {
            nodes: Default::default(),
            version: Arc::new(watch::channel(0).0),
            synced: Arc::new(watch::channel(false).0),
        }
    }

    /// Follows `history`'s objects until shutdown, with the history's own identity.
    pub fn follow(history: &History, tasks: &Tasks) -> Self {
        let recent = Recent::new();
        let config = watcher::Config::default().labels(&crate::history::selector());
        let events = watcher(history.api(), config).default_backoff();
        let shutdown = tasks.shutdown_signal().clone();
        let keeper = recent.clone();
        tasks.spawn(async move {
            let mut events = std::pin::pin!(events);
            let mut listing: Option<BTreeMap<String, NodeRecent>> = None;
            loop {
                let event = tokio::select! {
                    () = shutdown.cancelled() => break,
                    event = events.next() => event,
                };
                match event {
                    None => break,
                    Some(Err(err)) => tracing::warn!(error = %err, "the history watch failed; retrying"),
                    Some(Ok(event)) => keeper.apply(event, &mut listing, Timestamp::now()),
                }
            }
        });
        recent
    }

    /// Takes one watch event in: a relist is gathered aside and replaces everything at its end.
    fn apply(
        &self,
        event: watcher::Event<ConfigMap>,
        listing: &mut Option<BTreeMap<String, NodeRecent>>,
        now: Timestamp,
    ) {
        match event {
            watcher::Event::Init => *listing = Some(BTreeMap::new()),
            watcher::Event::InitApply(object) => {
                if let (Some(list), Some((node, part))) = (listing.as_mut(), part(&object, now)) {
                    list.insert(node, part);
                }
            }
            watcher::Event::InitDone => {
                if let Some(list) = listing.take() {
                    *self.nodes.write() = list;
                }
                self.synced.send_replace(true);
                self.changed();
            }
            watcher::Event::Apply(object) => {
                if let Some((node, part)) = part(&object, now) {
                    self.nodes.write().insert(node, part);
                    self.changed();
                }
            }
            watcher::Event::Delete(object) => {
                if let Some(node) = object.metadata.name.as_deref().and_then(crate::history::node_of) {
                    self.nodes.write().remove(node);
                    self.changed();
                }
            }
        }
    }

    fn changed(&self) {
        self.version.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// Moves at each change of any node's history.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    /// Waits for the first list (or for ever, if it never comes).
    pub async fn synced(&self) {
        let mut synced = self.synced.subscribe();
        let _ = synced.wait_for(|s| *s).await;
    }

    /// Every node's entries from the window before `now`, oldest first; at most [`MAX_ENTRIES`], the newest.
    pub fn entries(&self, now: Timestamp) -> Vec<AuditEntry> {
        let since = now.checked_sub(WINDOW).unwrap_or(Timestamp::MIN);
        let nodes = self.nodes.read();
        let mut all: Vec<AuditEntry> =
            nodes.values().flat_map(|n| n.entries.iter().filter(|e| e.at >= since && e.at <= now).cloned()).collect();
        all.sort_by_key(|e| e.at);
        let excess = all.len().saturating_sub(MAX_ENTRIES);
        all.drain(..excess);
        all
    }

    /// How `node`'s history says drain `id`, started at `started`, ended, and when: `None` when memory cannot
    /// tell (the first list has not come, or the drain began before the window, whose end may be older than what
    /// is kept), `Some(None)` when the history has no end for it.
    pub fn drain_end(
        &self,
        node: &str,
        id: &str,
        started: Timestamp,
        now: Timestamp,
    ) -> Option<Option<(domain::progress::DrainState, Timestamp)>> {
        let since = now.checked_sub(WINDOW).ok()?;
        if !*self.synced.borrow() || started < since {
            return None;
        }
        let nodes = self.nodes.read();
        let end = nodes.get(node).and_then(|n| {
            n.entries
                .iter()
                .rev()
                .filter(|e| e.action == AuditAction::DrainEnded && e.drain_id.as_deref() == Some(id))
                .find_map(|e| Some((e.ended.clone().filter(|state| !state.is_running())?, e.at)))
        });
        Some(end)
    }

    /// The newest health entry of `node`'s history: what it last recorded of the node's Ready condition, and when.
    pub fn last_health(&self, node: &str) -> Option<(AuditAction, Timestamp)> {
        self.nodes.read().get(node).and_then(|n| n.health)
    }

    /// What pods took to stop in the newest drains of `nodes` or, where they have none, of the other nodes
    /// ([`domain::estimate::Learned`]).
    pub fn learned(&self, nodes: &[&str]) -> Option<domain::estimate::Learned> {
        let all = self.nodes.read();
        let mut seen: Vec<(Timestamp, u32, bool)> = all
            .iter()
            .flat_map(|(node, part)| {
                let own = nodes.contains(&node.as_str());
                part.stops.iter().map(move |(at, stop)| (*at, *stop, own))
            })
            .collect();
        seen.sort_by_key(|(at, ..)| std::cmp::Reverse(*at));
        domain::estimate::Learned::from_drains(seen.into_iter().map(|(_, stop, own)| (stop, own)), LEARN_FROM)
    }

    /// Who last uncordoned `node`, as its history says, when, and why.
    pub fn last_uncordon(&self, node: &str) -> Option<domain::plan_step::Uncordon> {
        self.nodes.read().get(node).and_then(|n| n.uncordon.clone())
    }

    /// Each other tool's newest entry in `node`'s history (a sighting or an end), by its id, however old.
    pub fn actors(&self, node: &str) -> BTreeMap<String, (AuditAction, Timestamp)> {
        self.nodes.read().get(node).map(|n| n.actors.clone()).unwrap_or_default()
    }

    /// The newest cordon or uncordon of `node`'s history, and when.
    pub fn last_cordon(&self, node: &str) -> Option<(AuditAction, Timestamp)> {
        self.nodes.read().get(node).and_then(|n| n.cordon)
    }
}

/// A history object's node and what of it is kept at `now`; `None` for an object that is not a history.
fn part(object: &ConfigMap, now: Timestamp) -> Option<(String, NodeRecent)> {
    let node = crate::history::node_of(object.metadata.name.as_deref()?)?;
    let keep_from = now.checked_sub(WINDOW).and_then(|t| t.checked_sub(SLACK)).unwrap_or(Timestamp::MIN);
    // An entry naming another node is not this node's, whoever wrote it.
    let entries: Vec<AuditEntry> = crate::history::read(object).into_iter().filter(|e| e.node == node).collect();
    let newest = |pick: fn(AuditAction) -> bool| {
        entries.iter().filter(|e| pick(e.action)).max_by_key(|e| e.at).map(|e| (e.action, e.at))
    };
    let health = newest(AuditAction::is_health);
    let cordon = newest(|a| matches!(a, AuditAction::Cordon | AuditAction::Uncordon));
    let mut actors: BTreeMap<String, (AuditAction, Timestamp)> = BTreeMap::new();
    for e in entries.iter().filter(|e| e.action.is_actor()) {
        let Some(id) = e.reason.as_deref().filter(|id| domain::actor::Actor::from_id(id).is_some()) else { continue };
        let newer = actors.get(id).is_none_or(|(_, at)| *at <= e.at);
        if newer {
            actors.insert(id.to_owned(), (e.action, e.at));
        }
    }
    let mut stops: Vec<(Timestamp, u32)> = entries
        .iter()
        .filter(|e| e.action == AuditAction::DrainEnded)
        .filter_map(|e| Some((e.at, e.timing.as_ref()?.stop_seconds?)))
        .collect();
    stops.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    stops.truncate(LEARN_FROM);
    let uncordon = entries
        .iter()
        .filter(|e| e.action == AuditAction::Uncordon)
        .max_by_key(|e| e.at)
        .map(|e| domain::plan_step::Uncordon { by: e.user.clone(), at: e.at, reason: e.reason.clone() });
    let entries = entries.into_iter().filter(|e| e.at >= keep_from).collect();
    Some((node.to_owned(), NodeRecent { entries, health, cordon, actors, uncordon, stops }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::api::ObjectMeta;

    fn object(name: &str, entries: &[AuditEntry]) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta { name: Some(name.into()), ..Default::default() },
            data: Some(BTreeMap::from([("entries".to_string(), serde_json::to_string(entries).unwrap())])),
            ..Default::default()
        }
    }

    fn entry(node: &str, action: AuditAction, at: Timestamp) -> AuditEntry {
        AuditEntry::new("alice", action, node, at)
    }

    #[test]
    fn the_window_is_kept_and_each_nodes_last_health_however_old() {
        let now = Timestamp::from_second(10 * 86_400).unwrap();
        let hours = |h: i64| now.checked_sub(SignedDuration::from_hours(h)).unwrap();
        let recent = Recent::new();
        let mut listing = None;
        recent.apply(watcher::Event::Init, &mut listing, now);
        let n1 = [
            entry("n1", AuditAction::NodeNotReady, hours(50)),
            entry("n1", AuditAction::Cordon, hours(3)),
            // Another node's entry, written into n1's object: not n1's.
            entry("n2", AuditAction::Cordon, hours(2)),
        ];
        recent.apply(watcher::Event::InitApply(object("drainboard-history.n1", &n1)), &mut listing, now);
        recent.apply(watcher::Event::InitApply(object("something-else", &n1)), &mut listing, now);
        assert!(recent.entries(now).is_empty(), "nothing shows before the list is whole");
        let version = recent.changes();
        recent.apply(watcher::Event::InitDone, &mut listing, now);
        assert!(version.has_changed().unwrap());
        let entries = recent.entries(now);
        assert_eq!(
            entries.iter().map(|e| (e.node.as_str(), e.action)).collect::<Vec<_>>(),
            [("n1", AuditAction::Cordon)]
        );
        assert_eq!(recent.last_health("n1"), Some((AuditAction::NodeNotReady, hours(50))));
        assert_eq!(recent.last_health("n2"), None);

        let n3 = [entry("n3", AuditAction::Uncordon, hours(1)), entry("n3", AuditAction::Cordon, hours(30))];
        recent.apply(watcher::Event::Apply(object("drainboard-history.n3", &n3)), &mut listing, now);
        assert_eq!(recent.entries(now).len(), 2);
        recent.apply(watcher::Event::Delete(object("drainboard-history.n1", &[])), &mut listing, now);
        assert_eq!(recent.entries(now).iter().map(|e| e.node.as_str()).collect::<Vec<_>>(), ["n3"]);
        // A day later the window has moved on.
        assert!(recent.entries(hours(-24)).is_empty());
    }

    /// Estimates learn from the node's own past drains, however old, and from the others' when it has none.
    #[test]
    fn estimates_learn_from_the_nodes_own_drains_first() {
        let now = Timestamp::from_second(10 * 86_400).unwrap();
        let hours = |h: i64| now.checked_sub(SignedDuration::from_hours(h)).unwrap();
        let ended = |node: &str, h: i64, stop: u32| {
            let mut e = entry(node, AuditAction::DrainEnded, hours(h));
            e.timing = Some(domain::estimate::DrainTiming { stop_seconds: Some(stop), ..Default::default() });
            e
        };
        let recent = Recent::new();
        let mut listing = None;
        recent.apply(watcher::Event::Init, &mut listing, now);
        let n1 = [ended("n1", 100, 12), ended("n1", 2, 8), entry("n1", AuditAction::DrainEnded, hours(1))];
        let n2 = [ended("n2", 3, 30)];
        recent.apply(watcher::Event::InitApply(object("drainboard-history.n1", &n1)), &mut listing, now);
        recent.apply(watcher::Event::InitApply(object("drainboard-history.n2", &n2)), &mut listing, now);
        recent.apply(watcher::Event::InitDone, &mut listing, now);
        let own = recent.learned(&["n1"]).unwrap();
        assert_eq!((own.low_seconds, own.likely_seconds, own.drains, own.this_node), (8, 10, 2, true));
        let other = recent.learned(&["n3"]).unwrap();
        assert_eq!((other.drains, other.this_node, other.low_seconds), (3, false, 8));
        assert_eq!(Recent::new().learned(&["n1"]), None, "no history: the grace periods alone");
    }

    /// A drain's end is answered from memory when the window covers the drain; before the first list, or for a
    /// drain begun before the window, memory cannot tell and says so.
    #[test]
    fn a_drains_end_is_known_from_memory_only_within_the_window() {
        let now = Timestamp::from_second(10 * 86_400).unwrap();
        let hours = |h: i64| now.checked_sub(SignedDuration::from_hours(h)).unwrap();
        let mut ended = entry("n1", AuditAction::DrainEnded, hours(1));
        ended.drain_id = Some("d1".into());
        ended.ended = Some(domain::progress::DrainState::Drained);
        let recent = Recent::new();
        let mut listing = None;
        recent.apply(watcher::Event::Init, &mut listing, now);
        recent.apply(watcher::Event::InitApply(object("drainboard-history.n1", &[ended])), &mut listing, now);
        assert_eq!(recent.drain_end("n1", "d1", hours(2), now), None, "not listed yet: ask the API server");
        recent.apply(watcher::Event::InitDone, &mut listing, now);
        assert_eq!(
            recent.drain_end("n1", "d1", hours(2), now),
            Some(Some((domain::progress::DrainState::Drained, hours(1))))
        );
        assert_eq!(recent.drain_end("n1", "d2", hours(2), now), Some(None), "no end recorded: interrupted");
        assert_eq!(recent.drain_end("n9", "d1", hours(2), now), Some(None));
        assert_eq!(recent.drain_end("n1", "d1", hours(30), now), None, "begun before the window: ask");
    }
}
