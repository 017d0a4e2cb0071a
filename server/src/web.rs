//! The HTTP router: server-rendered pages, server functions and the compiled site files.

use app::{App, kube_access::KubeAccess, shell};
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::compression::CompressionLayer;

pub fn router(options: LeptosOptions, access: KubeAccess) -> Router {
    let routes = generate_route_list(App);
    Router::new()
        .leptos_routes_with_context(&options, routes, move || provide_context(access.clone()), {
            let options = options.clone();
            move || shell(options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler(shell))
        // The wasm bundle is large; compressing it cuts the first load several times over.
        .layer(CompressionLayer::new())
        .with_state(options)
}
