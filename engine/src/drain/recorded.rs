//! The drains recorded on the nodes, as a page reads them: each node's record, told apart from a drain that still
//! runs here or on another server, and completed from the history when the server that ran it stopped. Apart from
//! [`super::record`], which writes the records, since reading them needs the registry and writing must not.

use domain::progress::{DrainRecord, NodeDrainRecord};

use super::DrainRegistry;

/// How the history says drain `id` of `node`, started at `started`, ended, and when, if it does: from the
/// server's watch of the histories (`recent`) when that covers the drain, else read.
async fn ended_in_history(
    registry: &DrainRegistry,
    recent: Option<&crate::recent::Recent>,
    node: &str,
    id: &str,
    started: jiff::Timestamp,
) -> Option<(domain::progress::DrainState, jiff::Timestamp)> {
    if let Some(known) = recent.and_then(|r| r.drain_end(node, id, started, jiff::Timestamp::now())) {
        return known;
    }
    let entries = registry.audit.history()?.read(node).await.ok()?;
    entries
        .into_iter()
        .filter(|entry| entry.action == domain::audit::AuditAction::DrainEnded && entry.drain_id.as_deref() == Some(id))
        .find_map(|entry| Some((entry.ended.filter(|state| !state.is_running())?, entry.at)))
}

/// What the drains `on_nodes` (each node's name and the record on it, as a cache of the nodes read them) say now.
/// A record that says running while no drain runs here for it was left by a server that stopped mid-drain, and
/// reads as interrupted.
///
/// With Leases, a record that says running while another server holds the node's live Lease is that server's
/// drain, still running: it reads as interrupted only once the Lease has expired. Both the Lease and the history
/// are read from the server's watches (the drain Leases, and the last day of the histories); only a record the
/// watches cannot answer (before their first list, or a drain begun over a day ago) costs a call to the API
/// server.
pub async fn recorded(
    on_nodes: impl IntoIterator<Item = (String, DrainRecord)>,
    registry: &DrainRegistry,
    recent: Option<&crate::recent::Recent>,
    cluster: &str,
) -> Vec<NodeDrainRecord> {
    let mut records = Vec::new();
    for (node, record) in on_nodes {
        let live_here = registry.running_on(cluster, &node).is_some_and(|id| id == record.id);
        let live_elsewhere = !live_here
            && record.state.is_running()
            && match registry.leases() {
                Some(leases) => leases.held_elsewhere(&node).await.ok().flatten().is_some(),
                None => false,
            };
        let record = if live_here || live_elsewhere {
            record
        } else if record.state.is_running() {
            // The server that ran it stopped, or could not write its end on the node (the person's credentials
            // had expired): the history, which the server writes with its own identity, may know how it ended.
            match ended_in_history(registry, recent, &node, &record.id, record.started_at).await {
                Some((state, at)) => DrainRecord { state, finished_at: Some(at), ..record },
                None => record.interrupted(),
            }
        } else {
            record
        };
        records.push(NodeDrainRecord { node, record });
    }
    records
}
