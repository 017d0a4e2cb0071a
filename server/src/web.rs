//! The HTTP router: server-rendered pages, server functions, event streams and the compiled site files.

use app::{App, drain::DrainRegistry, kube_access::KubeAccess, shell};
use axum::{Router, routing::get};
use leptos::prelude::*;
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::compression::CompressionLayer;

pub fn router(options: LeptosOptions, access: KubeAccess) -> Router {
    let routes = generate_route_list(App);
    let drains = DrainRegistry::default();
    let events = Router::new()
        .route("/api/drains/{id}/events", get(crate::events::drain_events))
        .with_state(drains.clone());
    let context = move || {
        provide_context(access.clone());
        provide_context(drains.clone());
    };
    Router::new()
        .leptos_routes_with_context(&options, routes, context, {
            let options = options.clone();
            move || shell(options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler(shell))
        .with_state(options)
        .merge(events)
        // The wasm bundle is large; compressing it cuts the first load several times over. Event streams are
        // left alone by the layer (it does not compress text/event-stream).
        .layer(CompressionLayer::new())
}
