//! Records other tools' work on each node (`domain::actor`) in its durable history, as the health recorder
//! (`crate::health`) records failures: a sighting when a tool's marker appears, an end when it is gone, so that the
//! timeline shows when Karpenter, the cluster autoscaler or kured had a node, after the markers are gone and after
//! restarts. The entries are decided by `domain::actor_history::entries`.
//!
//! Every replica sees the nodes: an entry stamped with the marker's own time is the same entry on each, which the
//! history appends once; one stamped when seen may be written twice, and the timeline reads the second as a repeat.
//! It adds no watch: the cards come from the cache the server keeps anyway.

use std::{
    collections::{BTreeMap, HashMap},
    sync::Arc,
    time::Duration,
};

use domain::{
    actor::{Actor, Doing, Sighting},
    audit::AuditAction,
    node::NodeCard,
};
use jiff::Timestamp;
use tokio::sync::watch;

use crate::{history::History, recent::Recent, tasks::Tasks};

/// How long the recorder waits after a failed write before it looks again, whether or not a card changes.
const RETRY: Duration = Duration::from_secs(30);

/// The tools at work on a node, as the recorder compares them from one round to the next.
fn at_work(card: &NodeCard) -> Vec<(Actor, Doing)> {
    let mut work: Vec<(Actor, Doing)> = card.actors.iter().filter(|s| !s.stale).map(|s| (s.actor, s.doing)).collect();
    work.sort();
    work
}

/// The newest of the history's entry and this task's own, by tool: what it appended counts before the history's
/// watch brings it back.
fn merged(
    history: BTreeMap<String, (AuditAction, Timestamp)>,
    mine: Option<&BTreeMap<String, (AuditAction, Timestamp)>>,
) -> BTreeMap<String, (AuditAction, Timestamp)> {
    let mut out = history;
    for (id, &(action, at)) in mine.into_iter().flatten() {
        if out.get(id).is_none_or(|(_, theirs)| *theirs <= at) {
            out.insert(id.clone(), (action, at));
        }
    }
    out
}

/// Follows `cards` until shutdown, appending each tool's sighting and end to the node's history.
pub fn record(tasks: &Tasks, mut cards: watch::Receiver<Arc<Vec<Arc<NodeCard>>>>, history: History, recent: Recent) {
    let shutdown = tasks.shutdown_signal().clone();
    tasks.spawn(async move {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = recent.synced() => {}
        }
        let mut seen: HashMap<String, Vec<(Actor, Doing)>> = HashMap::new();
        let mut mine: HashMap<String, BTreeMap<String, (AuditAction, Timestamp)>> = HashMap::new();
        loop {
            let now = cards.borrow_and_update().clone();
            let mut failed = false;
            for card in now.iter() {
                let work = at_work(card);
                // A node whose tools are as last recorded is skipped without a look at its history: almost every
                // node, at every round. A node first seen is looked at once (a tool may have ended while no server
                // ran), and one whose write failed again each round.
                if seen.get(&card.name) == Some(&work) {
                    continue;
                }
                let recorded = merged(recent.actors(&card.name), mine.get(&card.name));
                let sightings: Vec<Sighting> = card.actors.clone();
                let due = domain::actor_history::entries(&card.name, &sightings, &recorded, Timestamp::now());
                let mut written = true;
                for entry in due {
                    if let Err(err) = history.append(&entry).await {
                        tracing::warn!(node = %card.name, error = %crate::kube_error::api_message(&err), "could not record another tool's work in the node's history");
                        written = false;
                        failed = true;
                        break;
                    }
                    if let Some(id) = entry.reason.clone() {
                        mine.entry(card.name.clone()).or_default().insert(id, (entry.action, entry.at));
                    }
                }
                if written {
                    seen.insert(card.name.clone(), work);
                } else {
                    seen.remove(&card.name);
                }
            }
            tokio::select! {
                () = shutdown.cancelled() => return,
                changed = cards.changed() => if changed.is_err() { return },
                () = tokio::time::sleep(RETRY), if failed => {}
            }
        }
    });
}
