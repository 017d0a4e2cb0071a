//! Server functions of maintenance windows (`engine::windows`): what the page reads of them. Thin, as in `api`.

use leptos::{prelude::*, server_fn::codec::Json};

use crate::AppError;

/// Every node the person may read, with whether maintenance may start on it now, what holds it (each window and
/// why) and when its windows next open together. `POST /api/windows` with `{}`; changes nothing.
#[server(prefix = "/api", endpoint = "windows", input = Json)]
pub async fn window_decisions() -> Result<domain::window::Now, AppError> {
    crate::api::respond(now().await)
}

#[cfg(feature = "ssr")]
async fn now() -> Result<domain::window::Now, AppError> {
    let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
    Ok(engine.acting_as(&caller).window_decisions().await?)
}
