//! The request guard: no other web page can drive Drainboard. It sits in front of every route, as a tower layer.
//!
//! - **Host** must be an allowed name: the loopback names, plus `--allowed-host` values. A page on a rebinding
//!   domain (`evil.example` resolving to 127.0.0.1) sends its own name as Host, and is refused.
//! - **Every request that can change something** (anything but GET and HEAD) must come from the same origin:
//!   `Sec-Fetch-Site` exactly `same-origin` (ports count, so `same-site` is refused); without it, an `Origin`
//!   equal to the server's own scheme and the request's Host, port included. A request with neither comes from no
//!   browser (curl, scripts) and passes.
//! - **A GET of `/api/…` from another site** (`Sec-Fetch-Site` `cross-site` or `same-site`) is refused unless it is
//!   a top-level navigation: an `<img>` or `<script>` on a foreign page has no business with an event stream.
//! - Any body must be JSON, a form, or empty, whether its length is stated or not (HTTP/2 need not state it):
//!   a `text/plain` POST is what a foreign page can send without a preflight, and no server function takes one.
//!
//! A refused request gets 403 and the JSON body of an `AppError::Forbidden` that says why; it never reaches a
//! handler.

use std::sync::Arc;

use app::AppError;
use axum::{
    extract::{Request, State},
    http::{HeaderMap, Method, header},
    middleware::Next,
    response::{IntoResponse, Response},
};

/// The hosts a request may name, and the scheme the browser reaches the server by.
#[derive(Clone, Debug)]
pub struct AllowedHosts(Arc<Vec<String>>, &'static str);

/// Names that always reach this machine only.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

impl AllowedHosts {
    /// The loopback names plus `extra` (host names or addresses, with or without a port).
    pub fn new(extra: &[String]) -> Self {
        let mut hosts: Vec<String> = LOOPBACK.iter().map(|h| h.to_string()).collect();
        hosts.extend(extra.iter().map(|h| h.trim().to_ascii_lowercase()).filter(|h| !h.is_empty()));
        AllowedHosts(Arc::new(hosts), "http")
    }

    /// The same hosts, reached by the browser over `scheme` (`https` in team mode, directly or through the TLS
    /// proxy `--insecure-http` expects): what an `Origin` must name.
    pub fn reached_by(self, scheme: &'static str) -> Self {
        AllowedHosts(self.0, scheme)
    }

    /// Whether `authority` (`host`, `host:port`, `[v6]:port`) names an allowed host. An entry with a port allows
    /// that port only; one without allows any port.
    fn allows(&self, authority: &str) -> bool {
        let authority = authority.trim().to_ascii_lowercase();
        let host = host_of(&authority);
        self.0.iter().any(|allowed| {
            let allowed_has_port = allowed.rsplit_once(':').is_some_and(|(h, p)| {
                !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && (!h.contains(':') || h.ends_with(']'))
            });
            if allowed_has_port { *allowed == authority } else { host == allowed.trim_matches(['[', ']']) }
        })
    }
}

/// The host part of an authority, without brackets or port.
fn host_of(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// What the guard looks at in a request.
pub struct Asked<'a> {
    pub method: &'a Method,
    pub path: &'a str,
    pub headers: &'a HeaderMap,
    /// The request target's authority (HTTP/2's `:authority`), if it has one.
    pub authority: Option<&'a str>,
    /// Whether the body is known to be empty (no body, or a stated length of 0).
    pub body_empty: bool,
}

/// Why the guard refused a request: a kind from a fixed set (the refusals metric's label, so that no request can
/// grow its series) and the words the person reads.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    pub kind: &'static str,
    pub why: String,
}

impl Refusal {
    fn new(kind: &'static str, why: impl Into<String>) -> Option<Self> {
        Some(Refusal { kind, why: why.into() })
    }
}

/// Why a request is refused, or `None` when it may pass.
pub fn refusal(asked: &Asked<'_>, hosts: &AllowedHosts) -> Option<Refusal> {
    let Asked { method, path, headers, authority: uri_authority, body_empty } = *asked;
    let header = |name: &header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let Some(host) = header(&header::HOST).or(uri_authority) else {
        return Refusal::new("host", "the request names no Host");
    };
    if !hosts.allows(host) {
        return Refusal::new(
            "host",
            format!(
                "Host {host:?} is not allowed: open Drainboard by a loopback address, or start it with \
                 --allowed-host {}",
                host_of(host)
            ),
        );
    }
    let site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    if matches!(*method, Method::GET | Method::HEAD) {
        let navigation = header(&header::HeaderName::from_static("sec-fetch-mode")) == Some("navigate")
            && header(&header::HeaderName::from_static("sec-fetch-dest")) == Some("document");
        return match site {
            Some(site @ ("cross-site" | "same-site")) if path.starts_with("/api/") && !navigation => Refusal::new(
                "other-site-read",
                format!("a {site} page may not read Drainboard's API (Sec-Fetch-Site: {site})"),
            ),
            _ => None,
        };
    }
    match (site, header(&header::ORIGIN)) {
        (Some("same-origin"), _) => {}
        (Some(site), _) => {
            return Refusal::new(
                "other-site",
                format!("a {site} page may not act on Drainboard (Sec-Fetch-Site: {site})"),
            );
        }
        (None, Some(origin)) => {
            // Scheme, host and port exactly as the browser reaches this server under the request's Host (which
            // the Host rule above allowed).
            let own = format!("{}://{host}", hosts.1);
            if !origin.eq_ignore_ascii_case(own.trim()) {
                return Refusal::new("origin", format!("a page of origin {origin} may not act on Drainboard"));
            }
        }
        (None, None) => {}
    }
    // An empty body carries nothing, whatever type it claims (fetch labels an empty string text/plain).
    let media =
        header(&header::CONTENT_TYPE).map(|t| t.split(';').next().unwrap_or_default().trim().to_ascii_lowercase());
    match media.as_deref() {
        _ if body_empty => None,
        Some("application/json" | "application/x-www-form-urlencoded") => None,
        other => Refusal::new(
            "body-type",
            format!("a request body of type {} is not accepted: send application/json", other.unwrap_or("(none)")),
        ),
    }
}

/// The guard as an axum middleware: `axum::middleware::from_fn_with_state(hosts, guard::layer)`.
pub async fn layer(State(hosts): State<AllowedHosts>, request: Request, next: Next) -> Response {
    use axum::body::HttpBody;
    let asked = Asked {
        method: request.method(),
        path: request.uri().path(),
        headers: request.headers(),
        authority: request.uri().authority().map(|a| a.as_str()),
        // The body's own account: a length of 0 stated, or no body at all (HTTP/1 with neither a length nor
        // chunks, HTTP/2 with the stream ended at the headers). Unknown is not empty.
        body_empty: request.body().size_hint().exact() == Some(0),
    };
    match refusal(&asked, &hosts) {
        None => next.run(request).await,
        Some(Refusal { kind, why }) => {
            let peer = request.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0);
            tracing::warn!(method = %request.method(), path = %request.uri().path(), ?peer, %why, "request refused");
            engine::metrics::METRICS.request_refused(kind);
            AppError::Forbidden(why).into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (k, v) in pairs {
            headers.insert(header::HeaderName::from_bytes(k.as_bytes()).unwrap(), v.parse().unwrap());
        }
        headers
    }

    fn hosts() -> AllowedHosts {
        AllowedHosts::new(&["board.example.com".into(), "10.0.0.5:8080".into()])
    }

    /// The guard's answer to a request to `path`; its body is empty unless it states a length other than 0.
    fn check_at(method: Method, path: &str, pairs: &[(&str, &str)]) -> Option<String> {
        let headers = headers(pairs);
        let body_empty = headers.get("content-length").is_none_or(|v| v == "0");
        refusal(&Asked { method: &method, path, headers: &headers, authority: None, body_empty }, &hosts())
            .map(|r| r.why)
    }

    /// The guard's answer to a POST of `/api/board` with `headers`, its body known empty or not.
    fn post(headers: &HeaderMap, body_empty: bool, hosts: &AllowedHosts) -> Option<String> {
        refusal(&Asked { method: &Method::POST, path: "/api/board", headers, authority: None, body_empty }, hosts)
            .map(|r| r.why)
    }

    fn check(method: Method, pairs: &[(&str, &str)]) -> Option<String> {
        check_at(method, "/api/board", pairs)
    }

    #[test]
    fn each_refusal_names_its_kind_from_a_fixed_set() {
        let kind = |method: Method, path: &str, pairs: &[(&str, &str)]| {
            let headers = headers(pairs);
            let body_empty = headers.get("content-length").is_none_or(|v| v == "0");
            refusal(&Asked { method: &method, path, headers: &headers, authority: None, body_empty }, &hosts())
                .map(|r| r.kind)
        };
        let host = ("host", "127.0.0.1:3000");
        let cases = [
            (kind(Method::GET, "/", &[("host", "evil.example")]), Some("host")),
            (kind(Method::GET, "/", &[]), Some("host")),
            (
                kind(Method::GET, "/api/board/events", &[host, ("sec-fetch-site", "cross-site")]),
                Some("other-site-read"),
            ),
            (kind(Method::POST, "/api/board", &[host, ("sec-fetch-site", "same-site")]), Some("other-site")),
            (kind(Method::POST, "/api/board", &[host, ("origin", "http://evil.example")]), Some("origin")),
            (kind(Method::POST, "/api/board", &[host, ("content-type", "text/plain"), BODY]), Some("body-type")),
            (kind(Method::POST, "/api/board", &[host, JSON, BODY]), None),
        ];
        for (i, (got, want)) in cases.into_iter().enumerate() {
            assert_eq!(got, want, "case {i}");
            // The metric starts each kind's series at zero: a kind it does not know would start late.
            assert!(got.is_none_or(|kind| engine::metrics::REFUSAL_REASONS.contains(&kind)), "case {i}");
        }
    }

    const JSON: (&str, &str) = ("content-type", "application/json");
    const BODY: (&str, &str) = ("content-length", "17");

    #[test]
    fn hosts_must_be_loopback_or_allowed() {
        for host in
            ["localhost:3000", "127.0.0.1:3000", "[::1]:3000", "LOCALHOST", "board.example.com", "10.0.0.5:8080"]
        {
            assert_eq!(check(Method::GET, &[("host", host)]), None, "{host}");
        }
        for host in
            ["evil.example:3000", "rebind.test:3000", "10.0.0.5:9090", "127.0.0.2:3000", "localhost.evil.example"]
        {
            assert!(check(Method::GET, &[("host", host)]).is_some_and(|why| why.contains("--allowed-host")), "{host}");
        }
        assert!(check(Method::GET, &[]).is_some(), "no Host at all");
    }

    #[test]
    fn posts_must_come_from_the_same_origin() {
        let host = ("host", "127.0.0.1:3000");
        assert_eq!(check(Method::POST, &[host, ("sec-fetch-site", "same-origin"), JSON, BODY]), None);
        for site in ["same-site", "cross-site", "none"] {
            assert!(check(Method::POST, &[host, ("sec-fetch-site", site), JSON, BODY]).is_some(), "{site}");
        }
        // An older browser sends Origin only: scheme, host and port as the request's Host, exactly.
        assert_eq!(check(Method::POST, &[host, ("origin", "http://127.0.0.1:3000"), JSON, BODY]), None);
        for origin in [
            "http://evil.example",
            "null",
            "http://evil.example:3000",
            "http://localhost:3000",
            "http://127.0.0.1:3001",
            "https://127.0.0.1:3000",
            "http://127.0.0.1:3000/",
            "http://127.0.0.1",
        ] {
            assert!(check(Method::POST, &[host, ("origin", origin), JSON, BODY]).is_some(), "{origin}");
        }
        // No browser sent it.
        assert_eq!(check(Method::POST, &[host, JSON, BODY]), None);
    }

    #[test]
    fn an_origin_names_the_scheme_the_server_is_reached_by() {
        let headers = headers(&[("host", "board.example.com"), ("origin", "https://board.example.com"), JSON]);
        let asked = |hosts: &AllowedHosts| post(&headers, true, hosts);
        assert_eq!(asked(&hosts().reached_by("https")), None);
        assert!(asked(&hosts()).is_some(), "served over http, a page of https://… is another origin");
    }

    #[test]
    fn another_site_reads_the_api_only_by_a_top_level_navigation() {
        let host = ("host", "127.0.0.1:3000");
        for site in ["cross-site", "same-site"] {
            let from = ("sec-fetch-site", site);
            assert!(check_at(Method::GET, "/api/board/events", &[host, from]).is_some(), "{site} fetch or img");
            let image = [host, from, ("sec-fetch-mode", "no-cors"), ("sec-fetch-dest", "image")];
            assert!(check_at(Method::GET, "/api/board/events", &image).is_some(), "{site} image");
            let link = [host, from, ("sec-fetch-mode", "navigate"), ("sec-fetch-dest", "document")];
            assert_eq!(check_at(Method::GET, "/api/board/events", &link), None, "{site} link followed");
            assert_eq!(check_at(Method::GET, "/", &[host, from]), None, "{site} page: the board itself");
        }
        assert_eq!(check_at(Method::GET, "/api/board/events", &[host, ("sec-fetch-site", "same-origin")]), None);
        assert_eq!(check_at(Method::GET, "/api/board/events", &[host]), None, "no browser sent it");
    }

    #[test]
    fn bodies_must_be_json_a_form_or_empty() {
        let host = ("host", "localhost:3000");
        assert_eq!(check(Method::POST, &[host, JSON, BODY]), None);
        assert_eq!(check(Method::POST, &[host, ("content-type", "application/json; charset=utf-8"), BODY]), None);
        assert_eq!(check(Method::POST, &[host, ("content-type", "application/x-www-form-urlencoded"), BODY]), None);
        assert_eq!(check(Method::POST, &[host, ("content-length", "0")]), None);
        assert_eq!(check(Method::POST, &[host, ("content-type", "text/plain"), ("content-length", "0")]), None);
        assert_eq!(check(Method::POST, &[host]), None);
        for kind in ["text/plain", "multipart/form-data; boundary=x"] {
            assert!(check(Method::POST, &[host, ("content-type", kind), BODY]).is_some(), "{kind}");
        }
        assert!(check(Method::POST, &[host, BODY]).is_some(), "a body of no stated type");
        // A body of unstated length (HTTP/2, or chunked) is typed as any other.
        let unstated = |pairs: &[(&str, &str)]| post(&headers(pairs), false, &hosts());
        assert!(unstated(&[host, ("content-type", "text/plain")]).is_some(), "text/plain, no length");
        assert!(unstated(&[host]).is_some(), "no type, no length");
        assert_eq!(unstated(&[host, JSON]), None);
    }
}
