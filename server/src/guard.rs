//! The request guard: no other web page can drive Drainboard. It sits in front of every route, as a tower layer.
//!
//! - **Host** must be an allowed name: the loopback names, plus `--allowed-host` values. A page on a rebinding
//!   domain (`evil.example` resolving to 127.0.0.1) sends its own name as Host, and is refused.
//! - **Every request that can change something** (anything but GET and HEAD) must come from the same origin:
//!   `Sec-Fetch-Site` exactly `same-origin` (ports count, so `same-site` is refused); without it, an `Origin`
//!   naming an allowed host. A request with neither comes from no browser (curl, scripts) and passes.
//! - Its body must be JSON, a form, or empty: a `text/plain` POST is what a foreign page can send without a
//!   preflight, and no server function takes one.
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

/// The hosts a request may name.
#[derive(Clone, Debug)]
pub struct AllowedHosts(Arc<Vec<String>>);

/// Names that always reach this machine only.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

impl AllowedHosts {
    /// The loopback names plus `extra` (host names or addresses, with or without a port).
    pub fn new(extra: &[String]) -> Self {
        let mut hosts: Vec<String> = LOOPBACK.iter().map(|h| h.to_string()).collect();
        hosts.extend(extra.iter().map(|h| h.trim().to_ascii_lowercase()).filter(|h| !h.is_empty()));
        AllowedHosts(Arc::new(hosts))
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

/// Why a request is refused, or `None` when it may pass.
pub fn refusal(
    method: &Method,
    headers: &HeaderMap,
    uri_authority: Option<&str>,
    hosts: &AllowedHosts,
) -> Option<String> {
    let header = |name: &header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let Some(host) = header(&header::HOST).or(uri_authority) else {
        return Some("the request names no Host".into());
    };
    if !hosts.allows(host) {
        return Some(format!(
            "Host {host:?} is not allowed: open Drainboard by a loopback address, or start it with --allowed-host {}",
            host_of(host)
        ));
    }
    if matches!(*method, Method::GET | Method::HEAD) {
        return None;
    }
    match (headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()), header(&header::ORIGIN)) {
        (Some("same-origin"), _) => {}
        (Some(site), _) => return Some(format!("a {site} page may not act on Drainboard (Sec-Fetch-Site: {site})")),
        (None, Some(origin)) => {
            let authority = origin.split_once("://").map(|(_, rest)| rest).unwrap_or(origin);
            if origin == "null" || !hosts.allows(authority) {
                return Some(format!("a page of origin {origin} may not act on Drainboard"));
            }
        }
        (None, None) => {}
    }
    // An empty body carries nothing, whatever type it claims (fetch labels an empty string text/plain).
    let has_body = match header(&header::CONTENT_LENGTH) {
        Some(length) => length.trim() != "0",
        None => header(&header::TRANSFER_ENCODING).is_some(),
    };
    let media =
        header(&header::CONTENT_TYPE).map(|t| t.split(';').next().unwrap_or_default().trim().to_ascii_lowercase());
    match media.as_deref() {
        _ if !has_body => None,
        Some("application/json" | "application/x-www-form-urlencoded") => None,
        other => {
            Some(format!("a request body of type {} is not accepted: send application/json", other.unwrap_or("(none)")))
        }
    }
}

/// The guard as an axum middleware: `axum::middleware::from_fn_with_state(hosts, guard::layer)`.
pub async fn layer(State(hosts): State<AllowedHosts>, request: Request, next: Next) -> Response {
    let authority = request.uri().authority().map(|a| a.as_str().to_owned());
    match refusal(request.method(), request.headers(), authority.as_deref(), &hosts) {
        None => next.run(request).await,
        Some(why) => {
            let peer = request.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0);
            tracing::warn!(method = %request.method(), path = %request.uri().path(), ?peer, %why, "request refused");
            AppError::Forbidden(why).into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(method: Method, pairs: &[(&str, &str)]) -> Option<String> {
        let mut headers = HeaderMap::new();
        for (k, v) in pairs {
            headers.insert(header::HeaderName::from_bytes(k.as_bytes()).unwrap(), v.parse().unwrap());
        }
        refusal(&method, &headers, None, &AllowedHosts::new(&["board.example.com".into(), "10.0.0.5:8080".into()]))
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
        // An older browser sends Origin only.
        assert_eq!(check(Method::POST, &[host, ("origin", "http://localhost:3000"), JSON, BODY]), None);
        for origin in ["http://evil.example", "null", "http://evil.example:3000"] {
            assert!(check(Method::POST, &[host, ("origin", origin), JSON, BODY]).is_some(), "{origin}");
        }
        // No browser sent it.
        assert_eq!(check(Method::POST, &[host, JSON, BODY]), None);
        // Reading is not acting: a GET from anywhere passes the origin rules (the Host rule still applies).
        assert_eq!(check(Method::GET, &[host, ("sec-fetch-site", "cross-site")]), None);
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
    }
}
