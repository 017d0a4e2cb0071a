//! Server functions of the maintenance history: a node's, and the last day's for the timeline. Thin, as in `api`.

use domain::timeline::RecentHistory;
use leptos::{prelude::*, server_fn::codec::Json};

use crate::AppError;
#[cfg(feature = "ssr")]
use crate::api::{caller, engine, input, respond};
#[cfg(feature = "ssr")]
use domain::input::node_name;

/// The node's maintenance history, newest first: every cordon, uncordon, drain start and end, cancel and resume
/// made through Drainboard, from the durable record in the server's namespace (empty when none is kept).
/// `POST /api/nodes/history` with `{"node": "..."}`.
#[server(prefix = "/api", endpoint = "nodes/history", input = Json)]
pub async fn node_history(node: String) -> Result<Vec<domain::audit::AuditEntry>, AppError> {
    respond(history(node).await)
}

#[cfg(feature = "ssr")]
async fn history(node: String) -> Result<Vec<domain::audit::AuditEntry>, AppError> {
    let node = input(node_name(node.trim()))?;
    // Only someone the server lets in may read it (team mode: a signed-in person).
    let (engine, caller) = (engine(), caller()?);
    Ok(engine.acting_as(&caller).history(node).await?)
}

/// The last day's maintenance of the most recently active nodes, for the timeline: every node's durable history
/// from the last 24 hours (cordons, drains, uncordons, and the node's own failures), served from the server's
/// memory. `POST /api/history/recent` with `{"nodes": N}` (optional: 1 to 500 nodes, 50 by default).
#[server(prefix = "/api", endpoint = "history/recent", input = Json)]
pub async fn maintenance_timeline(#[server(default)] nodes: Option<usize>) -> Result<RecentHistory, AppError> {
    respond(recent(nodes).await)
}

#[cfg(feature = "ssr")]
async fn recent(nodes: Option<usize>) -> Result<RecentHistory, AppError> {
    use domain::timeline::{MAX_NODES, most_active};
    let nodes = nodes.unwrap_or(50);
    if !(1..=MAX_NODES).contains(&nodes) {
        return Err(AppError::Invalid(format!("\"nodes\" must be 1 to {MAX_NODES}; got {nodes}")));
    }
    let (engine, caller) = (engine(), caller()?);
    let acting = engine.acting_as(&caller);
    let now = jiff::Timestamp::now();
    Ok(RecentHistory {
        server_time: Some(now),
        kept: acting.keeps_history(),
        entries: most_active(acting.recent_history(now).await?, nodes),
    })
}
