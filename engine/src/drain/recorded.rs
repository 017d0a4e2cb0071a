//! The drains recorded on the nodes, as a page reads them: each node's record, told apart from a drain that still
//! runs here or on another server, and completed from the history when the server that ran it stopped. Apart from
//! [`super::record`], which writes the records, since reading them needs the registry and writing must not.

use domain::progress::{DrainRecord, NodeDrainRecord, RECORD_ANNOTATION};
use kube::Client;

use super::DrainRegistry;

/// How the history says drain `id` of `node` ended, and when, if it does.
async fn ended_in_history(
    registry: &DrainRegistry,
    node: &str,
    id: &str,
) -> Option<(domain::progress::DrainState, jiff::Timestamp)> {
    let entries = registry.audit.history()?.read(node).await.ok()?;
    entries
        .into_iter()
        .filter(|entry| entry.action == domain::audit::AuditAction::DrainEnded && entry.drain_id.as_deref() == Some(id))
        .find_map(|entry| Some((entry.ended.filter(|state| !state.is_running())?, entry.at)))
}

/// The drains recorded on the cluster's nodes. A record that says running while no drain runs here for it was
/// left by a server that stopped mid-drain, and reads as interrupted.
///
/// With Leases, a record that says running while another server holds the node's live Lease is that server's
/// drain, still running: it reads as interrupted only once the Lease has expired.
pub async fn recorded(
    client: &Client,
    registry: &DrainRegistry,
    cluster: &str,
) -> Result<Vec<NodeDrainRecord>, kube::Error> {
    let nodes = kube::Api::<k8s_openapi::api::core::v1::Node>::all(client.clone()).list(&Default::default()).await?;
    let mut records = Vec::new();
    for n in &nodes.items {
        let Some(node) = n.metadata.name.clone() else { continue };
        let Some(text) = n.metadata.annotations.as_ref().and_then(|a| a.get(RECORD_ANNOTATION)) else { continue };
        let Ok(record) = serde_json::from_str::<DrainRecord>(text) else { continue };
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
            match ended_in_history(registry, &node, &record.id).await {
                Some((state, at)) => DrainRecord { state, finished_at: Some(at), ..record },
                None => record.interrupted(),
            }
        } else {
            record
        };
        records.push(NodeDrainRecord { node, record });
    }
    Ok(records)
}
