//! The plans' former addresses. Maintenance plans were served under `/api/rollouts/*` before they had one name;
//! each such address is now an alias of its `/api/plans/*` address, kept for one release so that scripts written
//! against it go on working. The request is rewritten before anything else reads its path (the session layer's
//! rules, the routes), so an alias is guarded exactly as its plan address is; its answer says it is deprecated
//! (`Deprecation`, RFC 9745) and names the address to use (`Link: <…>; rel="successor-version"`).

use axum::{
    extract::Request,
    http::{HeaderValue, Uri},
    middleware::Next,
    response::Response,
};

const OLD: &str = "/api/rollouts";
const NEW: &str = "/api/plans";

/// The plan address an alias stands for: `/api/rollouts/start` is `/api/plans/start`. `None` for any other path
/// (`/api/rollouts-x` included).
pub fn canonical(path: &str) -> Option<String> {
    let rest = path.strip_prefix(OLD)?;
    (rest.is_empty() || rest.starts_with('/')).then(|| format!("{NEW}{rest}"))
}

/// Rewrites an alias to its plan address, and marks the answer deprecated.
pub async fn layer(mut request: Request, next: Next) -> Response {
    let Some(path) = canonical(request.uri().path()) else { return next.run(request).await };
    let uri = match request.uri().query() {
        Some(query) => format!("{path}?{query}"),
        None => path.clone(),
    };
    if let Ok(uri) = uri.parse::<Uri>() {
        *request.uri_mut() = uri;
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert("deprecation", HeaderValue::from_static("true"));
    if let Ok(link) = HeaderValue::from_str(&format!("<{path}>; rel=\"successor-version\"")) {
        headers.insert("link", link);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_plans_former_addresses_are_aliases() {
        assert_eq!(canonical("/api/rollouts").as_deref(), Some("/api/plans"));
        assert_eq!(canonical("/api/rollouts/start").as_deref(), Some("/api/plans/start"));
        assert_eq!(canonical("/api/rollouts/continue").as_deref(), Some("/api/plans/continue"));
        assert_eq!(canonical("/api/rollouts-x"), None);
        assert_eq!(canonical("/api/plans/start"), None);
        assert_eq!(canonical("/ctx/b/api/rollouts/start"), None, "the context layer takes its prefix off first");
        assert_eq!(canonical("/api/drains/start"), None);
    }
}

#[cfg(test)]
mod routed {
    use axum::{
        body::Body,
        http::{Request, StatusCode},
    };
    use tower::ServiceExt;

    /// A POST of `body` to `path` from a page of `site` (`Sec-Fetch-Site`), through the whole router.
    async fn post(path: &str, site: &str, body: &str) -> axum::response::Response {
        let request = Request::post(path)
            .header("host", "127.0.0.1:3000")
            .header("sec-fetch-site", site)
            .header("content-type", "application/json")
            .body(Body::from(body.to_owned()))
            .unwrap();
        crate::fuzz::router_with(leptos::config::LeptosOptions::builder().output_name("drainboard").build())
            .oneshot(request)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn an_alias_is_guarded_and_answered_as_its_plan_address_and_says_it_is_deprecated() {
        for (site, body) in [
            ("cross-site", r#"{"nodes": ["n1"], "options": {"max_parallel": 1}}"#),
            ("same-origin", r#"{"nodes": "not a list"}"#),
            ("same-origin", r#"{"nodes": ["../etc"], "options": {"max_parallel": 1}}"#),
        ] {
            let plan = post("/api/plans/start", site, body).await;
            let alias = post("/api/rollouts/start", site, body).await;
            assert_eq!(alias.status(), plan.status(), "{site} {body}");
            assert!(plan.status().is_client_error(), "{site} {body}: {}", plan.status());
            assert!(plan.headers().get("deprecation").is_none());
            if site == "cross-site" {
                // Refused by the guard, outside everything else: it reached no address, an alias or not.
                continue;
            }
            assert_eq!(alias.headers().get("deprecation").map(|v| v.to_str().unwrap()), Some("true"));
            let link = alias.headers().get("link").map(|v| v.to_str().unwrap().to_owned());
            assert_eq!(link.as_deref(), Some(r#"</api/plans/start>; rel="successor-version""#));
        }
        let foreign = post("/api/rollouts/cancel", "cross-site", r#"{"id": "p"}"#).await;
        assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    }
}
