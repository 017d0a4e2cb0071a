//! Server functions: the browser's only way to reach the server's Kubernetes access.
//!
//! Every function has an explicit, stable endpoint under `/api`; `API.md` documents each one for scripts.

#[cfg(feature = "ssr")]
use domain::drain::DryRun;
use domain::{
    NodeSummary,
    actions::Lacking,
    board::BoardUpdate,
    drain::DrainOptions,
    preview::{Preview, PreviewInputs},
    progress::{CordonOutcome, DrainProgress, DrainStarted, NodeDrainRecord},
};
use leptos::{prelude::*, server_fn::codec::Json};

use crate::AppError;

/// Lists every node, sorted for display (problems first). `POST /api/nodes`.
#[server(prefix = "/api", endpoint = "nodes")]
pub async fn list_nodes() -> Result<Vec<NodeSummary>, AppError> {
    let access = expect_context::<crate::kube_access::KubeAccess>();
    let client = access.client_for(&access.identity_for_request())?;
    crate::kube_access::list_nodes(&client).await
}

/// Every node's card now, with the server's clock and settings: the full board, as the event stream's first
/// message carries it. `POST /api/board`; with `first=N` (form-encoded), only the first N cards in display order
/// and, in `partial`, the counts of them all: what a page's first render needs from a cluster of thousands of nodes.
#[server(prefix = "/api", endpoint = "board")]
pub async fn board_snapshot(#[server(default)] first: Option<usize>) -> Result<BoardUpdate, AppError> {
    let access = expect_context::<crate::kube_access::KubeAccess>();
    let identity = access.identity_for_request();
    let cache =
        expect_context::<crate::cluster_cache::ClusterCaches>().for_identity(&identity, access.client_for(&identity)?);
    cache.ready_for_request().await?;
    // The cards the cache keeps current for every viewer; computed here only before their first round.
    let cards = {
        let live = cache.live_cards().borrow().clone();
        if live.is_empty() { cache.cards() } else { live.as_ref().clone() }
    };
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
    set_unschedulable(node, true).await
}

/// Uncordons a node: makes it schedulable again. `POST /api/nodes/uncordon` with `{"node": "..."}`.
#[server(prefix = "/api", endpoint = "nodes/uncordon", input = Json)]
pub async fn uncordon_node(node: String) -> Result<CordonOutcome, AppError> {
    set_unschedulable(node, false).await
}

#[cfg(feature = "ssr")]
async fn set_unschedulable(node: String, unschedulable: bool) -> Result<CordonOutcome, AppError> {
    let node = valid_node_name(node)?;
    let client = request_client()?;
    crate::drain::ops::set_unschedulable(&client, &node, unschedulable, DryRun::None)
        .await
        .map_err(|err| not_found_as(err, &node))
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
    let access = expect_context::<crate::kube_access::KubeAccess>();
    let identity = access.identity_for_request();
    let client = access.client_for(&identity)?;
    // Fail here, not in the task, when the node does not exist.
    kube::Api::<k8s_openapi::api::core::v1::Node>::all(client.clone())
        .get(&node)
        .await
        .map_err(|err| not_found_as(err, &node))?;
    let reason = reason.map(|r| r.trim().to_string()).filter(|r| !r.is_empty());
    let registry = expect_context::<crate::drain::DrainRegistry>();
    Ok(registry.start(client, &identity, node, options, reason))
}

/// The progress of a drain. `POST /api/drains/status` with `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "drains/status", input = Json)]
pub async fn drain_status(id: String) -> Result<DrainProgress, AppError> {
    let registry = expect_context::<crate::drain::DrainRegistry>();
    registry.progress(&id).ok_or_else(|| AppError::NotFound(format!("no drain with id {id} on this server")))
}

/// Cancels a running drain: retries and waits stop, the node stays cordoned, and the drain ends as cancelled
/// with the pods still on the node listed. `POST /api/drains/cancel` with `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "drains/cancel", input = Json)]
pub async fn cancel_drain(id: String) -> Result<(), AppError> {
    let registry = expect_context::<crate::drain::DrainRegistry>();
    if registry.cancel(&id) { Ok(()) } else { Err(AppError::NotFound(format!("no drain with id {id} on this server"))) }
}

/// Every drain this server holds, newest first. `POST /api/drains`.
#[server(prefix = "/api", endpoint = "drains")]
pub async fn list_drains() -> Result<Vec<DrainProgress>, AppError> {
    Ok(expect_context::<crate::drain::DrainRegistry>().all())
}

/// The drains recorded on the nodes (annotation `drainboard.dev/drain`), including those another replica ran.
/// A record that says running, with no drain running here, is reported as interrupted: the server that ran it
/// stopped. `POST /api/drains/recorded`.
#[server(prefix = "/api", endpoint = "drains/recorded")]
pub async fn recorded_drains() -> Result<Vec<NodeDrainRecord>, AppError> {
    let access = expect_context::<crate::kube_access::KubeAccess>();
    let identity = access.identity_for_request();
    let client = access.client_for(&identity)?;
    let registry = expect_context::<crate::drain::DrainRegistry>();
    Ok(crate::drain::recorded(&client, &registry, &identity.cluster).await?)
}

/// Starts a drain of the node again with the options and reason of the drain recorded on it: the resume action
/// for an interrupted drain. `POST /api/drains/resume` with `{"node": "..."}`.
#[server(prefix = "/api", endpoint = "drains/resume", input = Json)]
pub async fn resume_drain(node: String) -> Result<DrainStarted, AppError> {
    let node = valid_node_name(node)?;
    let access = expect_context::<crate::kube_access::KubeAccess>();
    let identity = access.identity_for_request();
    let client = access.client_for(&identity)?;
    let registry = expect_context::<crate::drain::DrainRegistry>();
    let records = crate::drain::recorded(&client, &registry, &identity.cluster).await?;
    let record = records
        .into_iter()
        .find(|r| r.node == node)
        .ok_or_else(|| AppError::NotFound(format!("node {node} has no recorded drain to resume")))?
        .record;
    Ok(registry.start(client, &identity, node, record.options, record.reason))
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
    let node = valid_node_name(node)?;
    let access = expect_context::<crate::kube_access::KubeAccess>();
    let identity = access.identity_for_request();
    let client = access.client_for(&identity)?;
    let cache = expect_context::<crate::cluster_cache::ClusterCaches>().for_identity(&identity, client.clone());
    cache.ready_for_request().await?;
    if !cache.has_node(&node) {
        return Err(AppError::NotFound(format!("node {node} does not exist")));
    }
    Ok(crate::drain::preview::PreviewSource::new(client, node).inputs(&cache).await)
}

/// What the requesting identity may do, asked of the API server (SelfSubjectAccessReview), so that the page can
/// disable an action and name the permission that is missing. `POST /api/permissions`.
#[server(prefix = "/api", endpoint = "permissions")]
pub async fn permissions() -> Result<Lacking, AppError> {
    let client = request_client()?;
    let patch_nodes = crate::kube_access::may(&client, "patch", "", "nodes", None).await?;
    let list_pods = crate::kube_access::may(&client, "list", "", "pods", None).await?;
    let evict = crate::kube_access::may(&client, "create", "", "pods", Some("eviction")).await?;
    let delete_pods = crate::kube_access::may(&client, "delete", "", "pods", None).await?;
    let missing = |checks: &[(bool, &str)]| {
        let lacking: Vec<&str> = checks.iter().filter(|(ok, _)| !ok).map(|(_, what)| *what).collect();
        (!lacking.is_empty()).then(|| lacking.join(", "))
    };
    Ok(Lacking {
        cordon: missing(&[(patch_nodes, "patch nodes")]),
        drain: missing(&[(patch_nodes, "patch nodes"), (list_pods, "list pods"), (evict, "create pods/eviction")]),
        delete_pods: missing(&[(delete_pods, "delete pods")]),
    })
}

#[cfg(feature = "ssr")]
fn request_client() -> Result<kube::Client, AppError> {
    let access = expect_context::<crate::kube_access::KubeAccess>();
    access.client_for(&access.identity_for_request())
}

#[cfg(feature = "ssr")]
fn valid_node_name(node: String) -> Result<String, AppError> {
    let node = node.trim().to_string();
    if node.is_empty() {
        return Err(AppError::Invalid("a node name is required".into()));
    }
    Ok(node)
}

#[cfg(feature = "ssr")]
fn not_found_as(err: kube::Error, node: &str) -> AppError {
    match &err {
        kube::Error::Api(status) if status.code == 404 => AppError::NotFound(format!("node {node} does not exist")),
        _ => err.into(),
    }
}
