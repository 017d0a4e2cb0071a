//! Server functions: the browser's only way to reach the server's Kubernetes access.
//!
//! Every function has an explicit, stable endpoint under `/api`; `API.md` documents each one for scripts.

use domain::NodeSummary;
use leptos::prelude::*;

use crate::AppError;

/// Lists every node, sorted for display (problems first). `POST /api/nodes`.
#[server(prefix = "/api", endpoint = "nodes")]
pub async fn list_nodes() -> Result<Vec<NodeSummary>, AppError> {
    let access = expect_context::<crate::kube_access::KubeAccess>();
    let client = access.client_for(&access.identity_for_request())?;
    crate::kube_access::list_nodes(&client).await
}
