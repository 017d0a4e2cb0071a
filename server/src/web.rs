//! The HTTP router: server-rendered pages, server functions, event streams and the compiled site files.

use app::shell;
use axum::{Router, response::Redirect, routing::get};
use domain::board::BoardSettings;
use engine::Engine;
use leptos::prelude::*;
use leptos_axum::{LeptosRoutes, generate_route_list};
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use tower_http::{
    compression::CompressionLayer, limit::RequestBodyLimitLayer, set_header::SetResponseHeaderLayer,
    timeout::TimeoutLayer,
};

use crate::{
    contexts::{self, Contexts},
    events::{self, StreamLimits, Streams},
    guard::{self, AllowedHosts},
    local_lock::{self, LocalLock},
    session,
};

/// The largest request body accepted: every server function's arguments fit in a few hundred bytes, and team
/// mode's sign-in takes one context's kubeconfig (at most 15 KiB, `engine::signin::MAX_CREDENTIAL_BYTES`).
pub const BODY_LIMIT: usize = 16 * 1024;

/// How long a page or server function may take: a new cache's first list may take 90 s on a large cluster.
/// Event streams are meant to stay open, and are left out.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// The body and time limits answer with tower-http's own bodies (plain text, or none); in their place goes the same
/// status with an `AppError` body, so that the browser decodes these refusals as it decodes every other. An answer
/// that is JSON already (a server function's own error) is left as it is.
pub(crate) async fn limits_as_app_errors(response: axum::response::Response) -> axum::response::Response {
    use axum::response::IntoResponse;
    let json =
        response.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    match response.status() {
        _ if json => response,
        StatusCode::PAYLOAD_TOO_LARGE => app::AppError::TooLarge(format!(
            "the request body is over {} KiB, the most this server reads: send less (a kubeconfig of one context)",
            BODY_LIMIT / 1024
        ))
        .into_response(),
        StatusCode::GATEWAY_TIMEOUT => app::AppError::TimedOut(format!(
            "the request took over {} s and the server gave up on it: look at the board before trying again, since \
             what it asked for may have happened",
            REQUEST_TIMEOUT.as_secs()
        ))
        .into_response(),
        _ => response,
    }
}

/// Times a request into the `http_request_duration_seconds` histogram. The route label is the matched route's
/// template, so the labels stay within the routes that exist whatever a request names.
async fn timed(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    let method = match *request.method() {
        axum::http::Method::GET => "GET",
        axum::http::Method::POST => "POST",
        axum::http::Method::HEAD => "HEAD",
        _ => "other",
    };
    // Every route, server functions included, is registered by its own template; anything else is "other".
    let route = request
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or_else(|| "other".to_owned(), |p| p.as_str().to_owned());
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    let status = response.status().as_u16();
    engine::metrics::METRICS
        .requests
        .get_or_create(&engine::metrics::RequestLabels { method: method.to_owned(), route, status })
        .observe(started.elapsed().as_secs_f64());
    response
}

fn always(name: HeaderName, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(name, HeaderValue::from_static(value))
}

/// Two years, the value the HSTS preload list asks for. Without `includeSubDomains`: the server does not know what
/// else runs under its domain.
const HSTS: &str = "max-age=63072000";

/// Whether a path names one of the site's files (the compiled bundle under `/pkg/`, the icon), which may be cached.
fn site_file(path: &str) -> bool {
    path.starts_with("/pkg/") || path == "/favicon.svg"
}

/// `Cache-Control: no-store` on every answer but the site's files: pages, API answers and event streams carry the
/// cluster's state and who is signed in, which no shared cache, and no browser cache on a shared machine, should
/// keep, nor serve to the next person after a sign-out.
async fn no_store(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    let cacheable = site_file(request.uri().path());
    let mut response = next.run(request).await;
    if !cacheable {
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

pub fn router(
    options: LeptosOptions,
    contexts: Contexts,
    settings: BoardSettings,
    hosts: AllowedHosts,
    limits: StreamLimits,
    https: bool,
    lock: Option<LocalLock>,
) -> Router {
    let engine: Engine = contexts.first().clone();
    let routes = generate_route_list(app::RouteList);
    let sessions = engine.clone();
    let streams = Streams { engine, settings, limits };
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
    let app = Router::new()
        .leptos_routes_with_context(&options, routes, context.clone(), {
            let options = options.clone();
            move || shell(options.clone())
        })
        // Anything else renders the app too (its not-found page, or a route the router matches and axum does not,
        // such as a trailing slash), so it needs the same context.
        .fallback(leptos_axum::file_and_error_handler_with_context(context, shell))
        .with_state(options)
        .layer(TimeoutLayer::with_status_code(StatusCode::GATEWAY_TIMEOUT, REQUEST_TIMEOUT))
        .merge(event_routes)
        // A body over the limit is refused with 413 before anything reads it.
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(axum::middleware::from_fn(crate::empty_body::layer))
        .layer(axum::middleware::map_response(limits_as_app_errors))
        // On every response. The page's content security policy carries a per-render nonce, so the shell sets it
        // (app::security); these need none.
        .layer(always(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(always(header::REFERRER_POLICY, "same-origin"))
        .layer(always(header::X_FRAME_OPTIONS, "DENY"))
        // The wasm bundle is large; compressing it cuts the first load several times over. Event streams are
        // left alone by the layer (it does not compress text/event-stream): they are compressed event by event.
        .layer(CompressionLayer::new())
        .layer(axum::middleware::from_fn(crate::compress::event_streams))
        // Who the request acts as; in team mode, nothing but the sign-in page and its endpoints without a session.
        .layer(axum::middleware::from_fn_with_state(sessions, session::layer))
        // How long each answer took, by route: outermost of the routed layers, so that it times them all.
        .layer(axum::middleware::from_fn(timed));
    // The plans' former addresses, rewritten to their own before anything reads the path (`aliases`).
    let app = tower::Layer::layer(&axum::middleware::from_fn(crate::aliases::layer), app);
    // Which cluster the request is for: around the routes, since it takes the context's prefix off API addresses
    // before they are routed.
    let app = tower::Layer::layer(&axum::middleware::from_fn_with_state(contexts, contexts::layer), app);
    let router = Router::new().fallback_service(app);
    // Local mode's secret, checked before the context is chosen: a request without it connects no context.
    let router = match lock {
        Some(lock) => router.layer(axum::middleware::from_fn_with_state(lock, local_lock::layer)),
        None => router,
    };
    let router = router
        // Outermost: a refused request reaches nothing else, not even a new context's connection.
        .layer(axum::middleware::from_fn_with_state(hosts, guard::layer))
        // Around the guard, so that its refusals carry them too. Neither another site's page nor a window it
        // opened may embed the answers or reach into the board's window.
        .layer(always(HeaderName::from_static("cross-origin-resource-policy"), "same-origin"))
        .layer(always(HeaderName::from_static("cross-origin-opener-policy"), "same-origin"))
        .layer(axum::middleware::from_fn(no_store));
    // Team mode is reached over HTTPS: served by this server (TLS), or by the TLS-terminating proxy in front of
    // it (--insecure-http), whose HTTPS answers pass the header on. A browser ignores it on a plain-HTTP answer,
    // so a misplaced one does no harm; local mode is plain HTTP on loopback, and sends none.
    if https { router.layer(always(header::STRICT_TRANSPORT_SECURITY, HSTS)) } else { router }
}

#[cfg(test)]
mod tests {
    use axum::{body::Body, http::Request};
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    /// The site's files are compressed ahead of time in a release build (`build-site.sh --release`): the precompressed
    /// file is served as it is, so no request pays for compressing the wasm; without one, the file is compressed on
    /// the fly.
    #[tokio::test]
    async fn precompressed_site_files_are_served_as_they_are() {
        let site = tempfile::tempdir().unwrap();
        std::fs::create_dir(site.path().join("pkg")).unwrap();
        let wasm = vec![7u8; 64 * 1024];
        std::fs::write(site.path().join("pkg/drainboard.wasm"), &wasm).unwrap();
        std::fs::write(site.path().join("pkg/drainboard.wasm.br"), b"brotli bytes made ahead of time").unwrap();
        let options = leptos::config::LeptosOptions::builder()
            .output_name("drainboard")
            .site_root(site.path().to_string_lossy().to_string())
            .build();
        let get = |encoding: &'static str| {
            Request::get("/pkg/drainboard.wasm")
                .header("host", "localhost")
                .header("accept-encoding", encoding)
                .body(Body::empty())
                .unwrap()
        };
        let res = crate::fuzz::router_with(options.clone()).oneshot(get("br, gzip")).await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(res.headers()["content-encoding"], "br");
        let body = res.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], b"brotli bytes made ahead of time", "the precompressed file, not a new compression");

        let res = crate::fuzz::router_with(options).oneshot(get("gzip")).await.unwrap();
        assert_eq!(res.headers()["content-encoding"], "gzip", "no .gz file: compressed on the fly");
        let body = res.into_body().collect().await.unwrap().to_bytes();
        assert!(body.len() < wasm.len() / 10, "{} bytes", body.len());
    }

    /// Pages, API answers and refusals are not stored by any cache and cannot be embedded by another origin;
    /// the site's files keep their own caching. HSTS is sent in team mode only (reached over HTTPS).
    #[tokio::test]
    async fn answers_are_not_stored_and_stay_same_origin() {
        let site = tempfile::tempdir().unwrap();
        std::fs::create_dir(site.path().join("pkg")).unwrap();
        std::fs::write(site.path().join("pkg/drainboard.js"), b"export {}").unwrap();
        let options = leptos::config::LeptosOptions::builder()
            .output_name("drainboard")
            .site_root(site.path().to_string_lossy().to_string())
            .build();
        let request = |method: &str, path: &str, host: &str| {
            Request::builder().method(method).uri(path).header("host", host).body(Body::empty()).unwrap()
        };
        let team = crate::fuzz::router_over(options.clone(), true);
        for (what, req) in [
            ("an API answer", request("POST", "/api/session/me", "localhost")),
            ("a page", request("GET", "/", "localhost")),
            ("a refusal", request("GET", "/", "evil.example")),
        ] {
            let res = tokio::time::timeout(std::time::Duration::from_secs(10), team.clone().oneshot(req))
                .await
                .unwrap()
                .unwrap();
            let headers = res.headers();
            assert_eq!(headers["cache-control"], "no-store", "{what}: {headers:?}");
            assert_eq!(headers["cross-origin-resource-policy"], "same-origin", "{what}");
            assert_eq!(headers["cross-origin-opener-policy"], "same-origin", "{what}");
            assert_eq!(headers["strict-transport-security"], "max-age=63072000", "{what}");
        }
        let res = team.clone().oneshot(request("GET", "/pkg/drainboard.js", "localhost")).await.unwrap();
        assert_eq!(res.status(), 200);
        assert_ne!(res.headers().get("cache-control").map(|v| v.to_str().unwrap()), Some("no-store"), "a site file");
        assert_eq!(res.headers()["cross-origin-resource-policy"], "same-origin");

        let local = crate::fuzz::router_over(options, false);
        let res = local.oneshot(request("POST", "/api/session/me", "localhost")).await.unwrap();
        assert_eq!(res.headers()["cache-control"], "no-store");
        assert!(res.headers().get("strict-transport-security").is_none(), "local mode is plain HTTP on loopback");
    }
}
