//! What a Kubernetes error means, in one place: the cache's watches and the drain read answers the same way.
//!
//! Each predicate names one thing the API server (or the lack of it) can say. Pure: no I/O, so each is tested on
//! the Status bodies the API server writes.

use std::time::Duration;

use domain::failure::ApiAnswer;
use kube::{core::Status, runtime::watcher};

/// The longest Retry-After honoured. The value comes from whatever answered; a huge one must not park a drain for
/// years (the API server itself names 1 to 10 s).
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The API server's own answer in an error, if it gave one.
pub fn status(err: &kube::Error) -> Option<&Status> {
    match err {
        kube::Error::Api(status) => Some(status),
        _ => None,
    }
}

/// The API server no longer accepts the credentials (401): they expired or were revoked.
pub fn unauthorized(err: &kube::Error) -> bool {
    status(err).is_some_and(|s| s.code == 401)
}

/// The object is not there (404).
pub fn not_found(err: &kube::Error) -> bool {
    status(err).is_some_and(|s| s.code == 404)
}

/// A write lost a race (409): the object changed since it was read, or already exists.
pub fn conflict(err: &kube::Error) -> bool {
    status(err).is_some_and(|s| s.code == 409)
}

/// No answer at all: the connection failed, was reset, or timed out. A request that got none may not have been
/// received, and sending it again is safe.
pub fn unreachable(err: &kube::Error) -> bool {
    matches!(err, kube::Error::HyperError(_) | kube::Error::Service(_))
}

/// A 429 from the eviction subresource's budget check: it names a `DisruptionBudget` cause. Any other 429 is the
/// API server's own throttling (priority and fairness, or max-in-flight).
pub fn budget_refusal(status: &Status) -> bool {
    status.code == 429 && has_cause(status, "DisruptionBudget")
}

/// A 403 because the pod's namespace is being deleted: the namespace controller will delete the pod itself.
pub fn namespace_terminating(status: &Status) -> bool {
    status.code == 403 && has_cause(status, "NamespaceTerminating")
}

fn has_cause(status: &Status, reason: &str) -> bool {
    status.details.as_ref().is_some_and(|d| d.causes.iter().any(|c| c.reason == reason))
}

/// The delay an answer asks for before a retry: its `Retry-After` (which the eviction call copies into
/// `details.retryAfterSeconds`), capped at [`MAX_RETRY_AFTER`]; none if it names none.
pub fn retry_after(status: &Status) -> Option<Duration> {
    let seconds = status.details.as_ref().map(|d| d.retry_after_seconds).filter(|s| *s > 0)?;
    Some(Duration::from_secs(seconds.into()).min(MAX_RETRY_AFTER))
}

/// A 5xx that names when to come back: a server shutting down, or overloaded. client-go retries these.
pub fn retry_later(status: &Status) -> bool {
    status.code >= 500 && retry_after(status).is_some()
}

/// What the API server answered, as data: its code and message, or no code and why nothing answered.
pub fn answer(err: &kube::Error) -> ApiAnswer {
    ApiAnswer { code: status(err).map(|s| s.code), message: api_message(err) }
}

/// The API server's answer inside a watch error, if the watch got one.
pub fn watch_status(err: &watcher::Error) -> Option<&Status> {
    match err {
        watcher::Error::InitialListFailed(e) | watcher::Error::WatchStartFailed(e) | watcher::Error::WatchFailed(e) => {
            status(e)
        }
        watcher::Error::WatchError(status) => Some(status),
        watcher::Error::NoResourceVersion => None,
    }
}

/// A watch the API server refuses (401 or 403): retrying will not change its mind.
pub fn watch_refusal(err: &watcher::Error) -> Option<&Status> {
    watch_status(err).filter(|s| matches!(s.code, 401 | 403))
}

/// Whether a watch error leaves its watch without a working API server: no answer at all, or an answer that says
/// the server cannot serve now (5xx, 429). A refusal (403: the person may not list that kind) or an expired resource
/// version (410, the watcher's normal resync) is an answer from a working server, and is not.
pub fn watch_unavailable(err: &watcher::Error) -> bool {
    match (err, watch_status(err)) {
        (_, Some(status)) => status.code >= 500 || status.code == 429,
        (watcher::Error::NoResourceVersion, None) => false,
        // No Status: the request failed on the way (no connection, a reset, a body that did not decode).
        (_, None) => true,
    }
}

/// The message of an API error, or the error and its sources for anything else.
pub fn api_message(err: &kube::Error) -> String {
    match err {
        kube::Error::Api(status) => status.message.clone(),
        other => chain(other),
    }
}

/// An error and its sources on one line: "outer: inner: root cause", skipping repeats.
pub fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = vec![err.to_string()];
    let mut source = err.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] std::io::Error);

    #[test]
    fn chain_joins_sources_once() {
        let err = Outer(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused"));
        assert_eq!(chain(&err), "outer: connection refused");
    }

    fn api(code: u16) -> kube::Error {
        kube::Error::Api(Box::new(Status::failure("m", "r").with_code(code)))
    }

    #[test]
    fn each_code_has_one_predicate() {
        assert!(not_found(&api(404)) && !not_found(&api(409)));
        assert!(conflict(&api(409)) && !conflict(&api(404)));
        assert!(unauthorized(&api(401)) && !unauthorized(&api(403)));
        let io = kube::Error::Service(Box::new(std::io::Error::other("reset")));
        assert!(!not_found(&io) && !conflict(&io) && unreachable(&io));
    }

    fn status(json: serde_json::Value) -> Status {
        serde_json::from_value(json).expect("a Status")
    }

    #[test]
    fn budget_429s_are_told_apart_from_throttling() {
        // As the eviction subresource answers for a budget that allows no disruption.
        let budget = status(serde_json::json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "code": 429, "reason": "TooManyRequests",
            "message": "Cannot evict pod as it would violate the pod's disruption budget.",
            "details": {"causes": [{"reason": "DisruptionBudget",
                "message": "The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]}
        }));
        // As priority and fairness answers an overloaded server.
        let throttled = status(serde_json::json!({
            "status": "Failure", "code": 429, "reason": "TooManyRequests",
            "message": "Too many requests, please try again later.", "details": {"retryAfterSeconds": 1}
        }));
        assert!(budget_refusal(&budget));
        assert!(!budget_refusal(&throttled));
        assert_eq!(retry_after(&throttled), Some(Duration::from_secs(1)));
        assert_eq!(retry_after(&budget), None);
    }

    #[test]
    fn a_namespace_terminating_is_its_403_cause_not_its_words() {
        let terminating = status(serde_json::json!({
            "status": "Failure", "code": 403, "reason": "Forbidden",
            "message": "pods is forbidden: unable to create new content in namespace ns because it is being terminated",
            "details": {"causes": [{"reason": "NamespaceTerminating", "message": "namespace ns is being terminated",
                "field": "metadata.namespace"}]}
        }));
        assert!(namespace_terminating(&terminating));
        let worded = status(serde_json::json!({"code": 403, "reason": "Forbidden",
            "message": "unable to create new content in namespace ns because it is being terminated"}));
        assert!(!namespace_terminating(&worded));
    }

    #[test]
    fn a_retry_after_is_capped_and_only_5xx_naming_one_is_retried_later() {
        let huge = status(serde_json::json!({"code": 503, "details": {"retryAfterSeconds": 4_000_000}}));
        assert_eq!(retry_after(&huge), Some(MAX_RETRY_AFTER), "an answer cannot park a drain for years");
        assert!(retry_later(&huge));
        assert!(!retry_later(&status(serde_json::json!({"code": 500, "message": "etcd"}))));
        assert!(!retry_later(&status(serde_json::json!({"code": 429, "details": {"retryAfterSeconds": 1}}))));
    }

    #[test]
    fn an_answer_keeps_the_code_and_the_message() {
        assert_eq!(answer(&api(500)), ApiAnswer { code: Some(500), message: "m".into() });
        assert!(unauthorized(&api(401)));
        assert!(!unauthorized(&api(403)));
        assert!(!unreachable(&api(503)), "an answer, however bad, is an answer");
    }

    #[test]
    fn only_an_api_server_that_cannot_serve_counts_as_unavailable() {
        assert!(watch_unavailable(&watcher::Error::InitialListFailed(api(500))));
        assert!(watch_unavailable(&watcher::Error::WatchStartFailed(api(503))));
        assert!(watch_unavailable(&watcher::Error::InitialListFailed(api(429))));
        assert!(!watch_unavailable(&watcher::Error::InitialListFailed(api(403))), "a refusal is an answer");
        assert!(!watch_unavailable(&watcher::Error::WatchFailed(api(410))), "a resync is normal");
        let gone = Status::failure("too old", "Expired").with_code(410);
        assert!(!watch_unavailable(&watcher::Error::WatchError(Box::new(gone))));
        assert!(!watch_unavailable(&watcher::Error::NoResourceVersion));
        let garbled = kube::Error::SerdeError(serde_json::from_str::<u8>("x").expect_err("not a number"));
        assert!(watch_unavailable(&watcher::Error::WatchFailed(garbled)), "no Status: nothing answered usefully");
    }

    #[test]
    fn a_refusal_is_told_apart_from_an_outage() {
        let message = |err: &watcher::Error| watch_refusal(err).map(|s| s.message.clone());
        assert_eq!(message(&watcher::Error::InitialListFailed(api(403))).as_deref(), Some("m"));
        assert_eq!(message(&watcher::Error::WatchStartFailed(api(401))).as_deref(), Some("m"));
        let refused = Status::failure("pods is forbidden", "Forbidden").with_code(403);
        assert!(watch_refusal(&watcher::Error::WatchError(Box::new(refused))).is_some());
        assert_eq!(message(&watcher::Error::InitialListFailed(api(500))), None);
        assert_eq!(message(&watcher::Error::WatchFailed(api(410))), None);
        let gone = Status::failure("too old resource version", "Expired").with_code(410);
        assert_eq!(message(&watcher::Error::WatchError(Box::new(gone))), None, "a desync is not a refusal");
    }
}
