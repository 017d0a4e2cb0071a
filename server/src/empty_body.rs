//! An empty body is no arguments. The server functions that take JSON read their arguments with `serde_json`,
//! which fails on nothing at all ("EOF while parsing"), so `curl -X POST …/api/session/sign-out` was a 400 although
//! every argument of sign-out has a default. Here an empty `POST` to `/api/…` that is JSON, or says nothing of its
//! type, reads as `{}`: a function whose arguments all have defaults runs, and one that needs some names the
//! first missing ("missing field `node`") instead of a parse error. A form-encoded request is left as it is.

use axum::{
    body::Body,
    extract::Request,
    http::{HeaderValue, Method, header},
    middleware::Next,
    response::Response,
};
use http_body::Body as _;

/// What an empty body reads as.
const NO_ARGUMENTS: &str = "{}";

pub async fn layer(mut request: Request, next: Next) -> Response {
    if reads_as_no_arguments(&request) {
        let headers = request.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(NO_ARGUMENTS.len()));
        *request.body_mut() = Body::from(NO_ARGUMENTS);
    }
    next.run(request).await
}

/// A `POST` to a server function with a body known to be empty (its length or its stream's end says so), typed as
/// JSON or not typed at all.
fn reads_as_no_arguments(request: &Request) -> bool {
    let json_or_untyped = match request.headers().get(header::CONTENT_TYPE) {
        None => true,
        Some(kind) => kind.to_str().is_ok_and(|kind| kind.trim_start().starts_with("application/json")),
    };
    request.method() == Method::POST
        && request.uri().path().contains("/api/")
        && json_or_untyped
        && request.body().size_hint().exact() == Some(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(path: &str, kind: Option<&str>, body: &'static str) -> Request {
        let mut builder = Request::builder().method(Method::POST).uri(path);
        if let Some(kind) = kind {
            builder = builder.header(header::CONTENT_TYPE, kind);
        }
        builder.body(Body::from(body)).unwrap_or_default()
    }

    #[test]
    fn only_an_empty_json_or_untyped_post_to_the_api_reads_as_no_arguments() {
        let cases = [
            (post("/api/session/sign-out", None, ""), true, "no type, no body"),
            (post("/api/session/sign-out", Some("application/json"), ""), true, "JSON, no body"),
            (
                post("/ctx/staging/api/session/sign-out", Some("application/json; charset=utf-8"), ""),
                true,
                "another context",
            ),
            (post("/api/session/sign-out", Some("application/json"), "{\"ask\":true}"), false, "a body"),
            (post("/api/board", Some("application/x-www-form-urlencoded"), ""), false, "a form"),
            (post("/wall", None, ""), false, "not the API"),
        ];
        for (request, expected, why) in cases {
            assert_eq!(reads_as_no_arguments(&request), expected, "{why}");
        }
        let get = Request::builder().uri("/api/session/sign-out").body(Body::empty()).unwrap_or_default();
        assert!(!reads_as_no_arguments(&get), "a GET");
    }
}
