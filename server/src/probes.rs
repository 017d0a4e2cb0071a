//! The probes, on an address of their own (`--probe-addr`): kubelets and Prometheus reach a pod by its IP, which
//! the Host allowlist of the main address rightly refuses, and they carry no session. Nothing here acts on the
//! cluster or shows its contents.
//!
//! - `GET /healthz`: 200 while the process serves.
//! - `GET /readyz`: 200 once the shared cache has listed everything once, 503 before. It stays 200 while the API
//!   server is away: every replica failing at once would take the Service away, and with it the page that says
//!   the API server is lost.
//! - `GET /metrics`: the server's Prometheus metrics.

use axum::{Router, extract::State, http::StatusCode, routing::get};
use engine::Engine;

pub fn router(engine: Engine) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
        .route(
            "/metrics",
            get(|State(engine): State<Engine>| async move {
                crate::events::metrics_response(crate::events::census(engine).await)
            }),
        )
        .with_state(engine)
}

async fn ready(State(engine): State<Engine>) -> (StatusCode, &'static str) {
    if engine.synced_once() {
        (StatusCode::OK, "ok\n")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "the cluster cache has not listed yet\n")
    }
}
