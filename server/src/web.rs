//! The HTTP router: server-rendered pages, server functions, event streams and the compiled site files.

use app::{App, shell};
use axum::{Router, response::Redirect, routing::get};
use domain::board::BoardSettings;
use engine::Engine;
use leptos::prelude::*;
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::compression::CompressionLayer;

use crate::{
    events::{self, Streams},
    guard::{self, AllowedHosts},
};

pub fn router(options: LeptosOptions, engine: Engine, settings: BoardSettings, hosts: AllowedHosts) -> Router {
    let routes = generate_route_list(App);
    let streams = Streams { engine, settings, viewers: Default::default() };
    let context = {
        let s = streams.clone();
        move || {
            provide_context(s.engine.clone());
            provide_context(s.settings);
        }
    };
    let event_routes = Router::new()
        .route("/api/board/events", get(events::board_events))
        .route("/api/drains/{id}/events", get(events::drain_events))
        .route("/api/nodes/{node}/preview/events", get(events::preview_events))
        .route("/metrics", get(events::metrics))
        // Browsers ask for /favicon.ico before they read the page's icon link; the site has one icon, an SVG.
        .route("/favicon.ico", get(|| async { Redirect::permanent("/favicon.svg") }))
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
        // Outermost: a refused request reaches nothing else.
        .layer(axum::middleware::from_fn_with_state(hosts, guard::layer))
}
