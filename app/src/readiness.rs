//! The readiness check's server function (`engine::Acting::readiness`): what would hold the next drain of each
//! node named. Thin, as in `api`.

use leptos::{prelude::*, server_fn::codec::Json};

use crate::AppError;

/// What would hold a drain of each of `nodes` (1 to 500), with the cluster's budgets that select no pod: each hold
/// names its objects and their namespace. Read from the board's cache as the person sees it, and the persistent
/// volumes listed as them; changes nothing. `POST /api/readiness` with `{"nodes": ["..."]}`.
#[server(prefix = "/api", endpoint = "readiness", input = Json)]
pub async fn readiness_check(nodes: Vec<String>) -> Result<domain::readiness::Readiness, AppError> {
    crate::api::respond(
        async {
            let nodes = domain::input::node_list(&nodes).map_err(AppError::Invalid)?;
            let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
            Ok(engine.acting_as(&caller).readiness(&nodes).await?)
        }
        .await,
    )
}
