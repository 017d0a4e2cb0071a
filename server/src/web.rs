//! The HTTP router: server-rendered pages, server functions, event streams and the compiled site files.

use app::{App, cluster_cache::ClusterCaches, drain::DrainRegistry, kube_access::KubeAccess, shell};
use axum::{Router, routing::get};
use domain::board::BoardSettings;
use leptos::prelude::*;
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::compression::CompressionLayer;

use crate::events::{self, Streams};

pub fn router(
    options: LeptosOptions,
    access: KubeAccess,
    settings: BoardSettings,
    shutdown: tokio_util::sync::CancellationToken,
) -> Router {
    let routes = generate_route_list(App);
    let caches = ClusterCaches::default();
    // Single-user mode: the operator's cache starts with the server and lives as long, so that even the first page
    // finds it listed and every stream shares it.
    let operator = access.identity_for_request();
    let operator_cache = access.client_for(&operator).ok().map(|client| caches.for_identity(&operator, client));
    let streams = Streams {
        access,
        caches,
        _operator_cache: operator_cache,
        drains: DrainRegistry::default(),
        settings,
        viewers: Default::default(),
        shutdown,
    };
    let context = {
        let s = streams.clone();
        move || {
            provide_context(s.access.clone());
            provide_context(s.caches.clone());
            provide_context(s.drains.clone());
            provide_context(s.settings);
        }
    };
    let event_routes = Router::new()
        .route("/api/board/events", get(events::board_events))
        .route("/api/drains/{id}/events", get(events::drain_events))
        .route("/api/nodes/{node}/preview/events", get(events::preview_events))
        .route("/metrics", get(events::metrics))
        .with_state(streams);
    Router::new()
        .leptos_routes_with_context(&options, routes, context, {
            let options = options.clone();
            move || shell(options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler(shell))
        .with_state(options)
        .merge(event_routes)
        // The wasm bundle is large; compressing it cuts the first load several times over. Event streams are
        // left alone by the layer (it does not compress text/event-stream).
        .layer(CompressionLayer::new())
}
