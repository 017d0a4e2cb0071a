//! Server functions: the browser's only way to reach the server's engine. Each is thin: it validates what the
//! browser sent, asks the engine as the person behind the request, and maps the engine's error to the wire error.
//!
//! Every function has an explicit, stable endpoint under `/api`; `API.md` documents each one for scripts.

use domain::{
    actions::Lacking,
    board::BoardUpdate,
    drain::DrainOptions,
    preview::{Preview, PreviewInputs},
    progress::{CordonOutcome, DrainProgress, DrainStarted, NodeDrainRecord},
};
use leptos::{prelude::*, server_fn::codec::Json};

use crate::AppError;

/// Every node's card now, with the server's clock and settings: the full board, as the event stream's first
/// message carries it. `POST /api/board`; with `first=N` (form-encoded), only the first N cards in display order
/// and, in `partial`, the counts of them all: what a page's first render needs from a cluster of thousands of nodes.
#[server(prefix = "/api", endpoint = "board")]
pub async fn board_snapshot(#[server(default)] first: Option<usize>) -> Result<BoardUpdate, AppError> {
    let engine = engine();
    let cards = engine.cards(&engine.identity()).await?;
    let (upsert, partial) = match first {
        Some(n) if n < cards.len() => {
            let (first, all) = domain::board::first_cards(cards, n);
            (first, Some(all))
        }
        _ => (cards, None),
    };
    Ok(BoardUpdate {
        server_time: jiff::Timestamp::now(),
        full: true,
        settings: expect_context::<domain::board::BoardSettings>(),
        upsert,
        remove: Vec::new(),
        partial,
    })
}

/// Cordons a node: marks it unschedulable. A node already cordoned is reported as such, and nothing is written.
/// `POST /api/nodes/cordon` with `{"node": "..."}`.
#[server(prefix = "/api", endpoint = "nodes/cordon", input = Json)]
pub async fn cordon_node(node: String) -> Result<CordonOutcome, AppError> {
    let engine = engine();
    Ok(engine.set_unschedulable(&engine.identity(), &valid_node_name(node)?, true).await?)
}

/// Uncordons a node: makes it schedulable again. `POST /api/nodes/uncordon` with `{"node": "..."}`.
#[server(prefix = "/api", endpoint = "nodes/uncordon", input = Json)]
pub async fn uncordon_node(node: String) -> Result<CordonOutcome, AppError> {
    let engine = engine();
    Ok(engine.set_unschedulable(&engine.identity(), &valid_node_name(node)?, false).await?)
}

/// Starts draining a node, as a server task, and answers at once with its id. If that node is already being
/// drained, answers with the running drain's id (`attached: true`). `POST /api/drains/start` with
/// `{"node": "...", "options": {...}, "reason": "..."}`.
#[server(prefix = "/api", endpoint = "drains/start", input = Json)]
pub async fn start_drain(
    node: String,
    #[server(default)] options: DrainOptions,
    #[server(default)] reason: Option<String>,
) -> Result<DrainStarted, AppError> {
    let node = valid_node_name(node)?;
    let reason = reason.map(|r| r.trim().to_string()).filter(|r| !r.is_empty());
    let engine = engine();
    Ok(engine.start_drain(&engine.identity(), node, options, reason).await?)
}

/// The progress of a drain. `POST /api/drains/status` with `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "drains/status", input = Json)]
pub async fn drain_status(id: String) -> Result<DrainProgress, AppError> {
    Ok(engine().drain_progress(&id)?)
}

/// Cancels a running drain: retries and waits stop, the node stays cordoned, and the drain ends as cancelled
/// with the pods still on the node listed. `POST /api/drains/cancel` with `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "drains/cancel", input = Json)]
pub async fn cancel_drain(id: String) -> Result<(), AppError> {
    Ok(engine().cancel_drain(&id)?)
}

/// Every drain this server holds, newest first. `POST /api/drains`.
#[server(prefix = "/api", endpoint = "drains")]
pub async fn list_drains() -> Result<Vec<DrainProgress>, AppError> {
    Ok(engine().drains().all())
}

/// The drains recorded on the nodes (annotation `drainboard.dev/drain`), including those another replica ran.
/// A record that says running, with no drain running here, is reported as interrupted: the server that ran it
/// stopped. `POST /api/drains/recorded`.
#[server(prefix = "/api", endpoint = "drains/recorded")]
pub async fn recorded_drains() -> Result<Vec<NodeDrainRecord>, AppError> {
    let engine = engine();
    Ok(engine.recorded_drains(&engine.identity()).await?)
}

/// Starts a drain of the node again with the options and reason of the drain recorded on it: the resume action
/// for an interrupted drain. `POST /api/drains/resume` with `{"node": "..."}`.
#[server(prefix = "/api", endpoint = "drains/resume", input = Json)]
pub async fn resume_drain(node: String) -> Result<DrainStarted, AppError> {
    let engine = engine();
    Ok(engine.resume_drain(&engine.identity(), valid_node_name(node)?).await?)
}

/// What a drain of the node would do with these options, planned from the live cache exactly as the drain
/// task plans: pods to evict (with the budget that covers each), skipped and refused (with the options that
/// would override). Nothing changes. `POST /api/drains/preview` with `{"node": "...", "options": {...}}`.
#[server(prefix = "/api", endpoint = "drains/preview", input = Json)]
pub async fn drain_preview(node: String, #[server(default)] options: DrainOptions) -> Result<Preview, AppError> {
    let inputs = drain_preview_inputs(node).await?;
    domain::preview::preview(&inputs, &options).map_err(|e| AppError::Invalid(format!("pod selector: {e}")))
}

/// The inputs the drain dialog plans from in the browser: the node's pods, its DaemonSet lookups and the
/// budgets of the pods' namespaces. `POST /api/drains/preview-inputs` with `{"node": "..."}`; the event stream
/// `GET /api/nodes/{node}/preview/events` pushes the same whenever they change.
#[server(prefix = "/api", endpoint = "drains/preview-inputs", input = Json)]
pub async fn drain_preview_inputs(node: String) -> Result<PreviewInputs, AppError> {
    let engine = engine();
    Ok(engine.preview_inputs(&engine.identity(), valid_node_name(node)?).await?)
}

/// What the requesting identity may do, asked of the API server (SelfSubjectAccessReview), so that the page can
/// disable an action and name the permission that is missing. `POST /api/permissions`.
#[server(prefix = "/api", endpoint = "permissions")]
pub async fn permissions() -> Result<Lacking, AppError> {
    let engine = engine();
    Ok(engine.permissions(&engine.identity()).await?)
}

#[cfg(feature = "ssr")]
fn engine() -> engine::Engine {
    expect_context::<engine::Engine>()
}

#[cfg(feature = "ssr")]
fn valid_node_name(node: String) -> Result<String, AppError> {
    let node = node.trim().to_string();
    if node.is_empty() {
        return Err(AppError::Invalid("a node name is required".into()));
    }
    Ok(node)
}
