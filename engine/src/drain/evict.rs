//! What an eviction's refusal means for the drain, sorted once: [`classify`] reads the API server's answer and says
//! what to do next, and the eviction loop ([`super::task`]) only acts on that. Pure, so that every answer the drain
//! tells apart is tested on the body the API server writes.

use std::time::Duration;

use domain::failure::{ApiAnswer, Failure};

use crate::kube_error;

/// kubectl's pause after a 429 answer that names no Retry-After.
pub const EVICT_RETRY_DELAY: Duration = Duration::from_secs(5);

/// How many answers in a row that say nothing about the pod (no answer at all, a 5xx naming a Retry-After, a 404
/// for a pod that exists) an eviction rides out before it fails: client-go retries such answers 10 times.
pub const MAX_TROUBLES: u32 = 12;

/// What an eviction's refusal means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The API server says the pod is not there (404). kubectl takes that as gone; the drain re-reads the pod first,
    /// since a proxy or an API server in trouble can say it of a pod that is still there, and "gone" must be true.
    Gone(ApiAnswer),
    /// A budget allows no disruption now (429 with a `DisruptionBudget` cause). Retried after `wait`: the answer's
    /// Retry-After when it names one (a budget still being processed, as client-go honours), else kubectl's 5 s,
    /// or sooner once the budget allows a disruption again (`asked` false: no delay was asked for).
    Blocked { message: String, wait: Duration, asked: bool },
    /// The API server's own throttling (any other 429): backed off as long as it asks, without calling the pod
    /// blocked.
    Throttled { message: String, wait: Duration },
    /// Not now: a 5xx naming when to come back (`wait`: a server shutting down, or overloaded), or no answer at all
    /// (`wait` none: refused, reset, timed out; the eviction may not have been received, and sending it again is
    /// safe). Ridden out a bounded number of times, as client-go does; kubectl fails the pod on no answer, and a
    /// restarting API server should not.
    RetryLater { answer: ApiAnswer, wait: Option<Duration> },
    /// The pod's namespace is being deleted (403 with a `NamespaceTerminating` cause): its controller deletes the
    /// pod, so the drain waits for that rather than failing.
    NamespaceTerminating { message: String },
    /// An admission webhook denied the eviction (any refusal but a 429 worded as the API server words a webhook's
    /// denial): the webhook's name and its own message. kubectl fails the pod; so does the drain, naming it.
    Denied { webhook: String, message: String },
    /// The pod's eviction failed; the others go on.
    Failed(Failure),
}

/// What the API server's refusal of an eviction means.
pub fn classify(err: &kube::Error) -> Answer {
    let Some(status) = kube_error::status(err) else {
        if kube_error::unreachable(err) {
            return Answer::RetryLater { answer: kube_error::answer(err), wait: None };
        }
        return Answer::Failed(Failure::Api(kube_error::answer(err)));
    };
    let message = status.message.clone();
    if status.code != 429
        && let Some((webhook, message)) = domain::blocker::webhook_denial(&message)
    {
        return Answer::Denied { webhook, message };
    }
    match status.code {
        404 => Answer::Gone(kube_error::answer(err)),
        429 if kube_error::budget_refusal(status) => {
            let asked = kube_error::retry_after(status);
            Answer::Blocked { message, wait: asked.unwrap_or(EVICT_RETRY_DELAY), asked: asked.is_some() }
        }
        429 => Answer::Throttled { message, wait: kube_error::retry_after(status).unwrap_or(EVICT_RETRY_DELAY) },
        403 if kube_error::namespace_terminating(status) => Answer::NamespaceTerminating { message },
        _ if kube_error::retry_later(status) => {
            Answer::RetryLater { answer: kube_error::answer(err), wait: kube_error::retry_after(status) }
        }
        // The person's credentials expired or were revoked: nothing more can be done as them.
        401 => Answer::Failed(Failure::CredentialsExpired),
        _ => Answer::Failed(Failure::Api(kube_error::answer(err))),
    }
}

/// The pause after the `n`th troubled answer in a row (from 1): 1, 2, 4, then 5 s, so that the tries span about a
/// minute, about as long as an API server takes to restart.
pub fn trouble_backoff(n: u32) -> Duration {
    Duration::from_secs(1u64.checked_shl(n.saturating_sub(1)).unwrap_or(u64::MAX).min(5))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error answer as the API server writes it (`metav1.Status`), with the Retry-After header's seconds where
    /// the eviction call puts them.
    fn refusal(json: serde_json::Value) -> kube::Error {
        kube::Error::Api(Box::new(serde_json::from_value(json).expect("a Status")))
    }

    fn api(code: u16, message: &str) -> ApiAnswer {
        ApiAnswer { code: Some(code), message: message.into() }
    }

    const BUDGET: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

    /// An answer the API server gave, recorded by `end2end/scripts/record-eviction-answers.sh`, read as the drain
    /// reads an answer (`ops::answer_status`: the body, the status and the Retry-After header), with its message.
    fn recorded(name: &str) -> (kube::Error, String) {
        let text = match name {
            "budget-at-zero" => include_str!("answers/budget-at-zero.json"),
            "two-budgets" => include_str!("answers/two-budgets.json"),
            "gone" => include_str!("answers/gone.json"),
            "rbac" => include_str!("answers/rbac.json"),
            "unauthorized" => include_str!("answers/unauthorized.json"),
            "namespace-terminating" => include_str!("answers/namespace-terminating.json"),
            other => panic!("no recorded answer {other}"),
        };
        let answer: serde_json::Value = serde_json::from_str(text).expect("a recording");
        let code =
            http::StatusCode::from_u16(answer["code"].as_u64().and_then(|c| u16::try_from(c).ok()).expect("a code"))
                .expect("a status");
        let retry = answer["retryAfter"].as_u64().and_then(|s| u32::try_from(s).ok());
        let body = serde_json::to_vec(&answer["body"]).expect("a body");
        let status = super::super::ops::answer_status(code, &body, retry);
        let message = status.message.clone();
        (kube::Error::Api(Box::new(status)), message)
    }

    /// The answers the API server gives on demand, as it gave them (see [`recorded`]).
    #[test]
    fn the_api_servers_own_answers() {
        type Expected = fn(String) -> Answer;
        let cases: Vec<(&str, Expected)> = vec![
            ("gone", |m| Answer::Gone(api(404, &m))),
            ("budget-at-zero", |message| Answer::Blocked { message, wait: EVICT_RETRY_DELAY, asked: false }),
            ("two-budgets", |m| Answer::Failed(Failure::Api(api(500, &m)))),
            ("rbac", |m| Answer::Failed(Failure::Api(api(403, &m)))),
            ("unauthorized", |_| Answer::Failed(Failure::CredentialsExpired)),
            ("namespace-terminating", |message| Answer::NamespaceTerminating { message }),
        ];
        for (name, expected) in cases {
            let (err, message) = recorded(name);
            assert!(!message.is_empty(), "{name}: the recording has the API server's message");
            assert_eq!(classify(&err), expected(message), "{name}");
        }
    }

    /// The answers that cannot be had on demand (priority and fairness, a budget still being processed, an API
    /// server shutting down or failing, webhooks, a proxy's plain text), written as the API server writes them.
    #[test]
    fn every_other_answer_the_drain_tells_apart() {
        let cases: Vec<(&str, kube::Error, Answer)> = vec![
            (
                "429 from a budget still being processed, naming a Retry-After: blocked, retried when asked",
                refusal(serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": BUDGET, "reason": "TooManyRequests",
                    "details": {"causes": [{"reason": "DisruptionBudget",
                        "message": "The disruption budget web-pdb is still being processed by the server."}],
                        "retryAfterSeconds": 3},
                    "code": 429})),
                Answer::Blocked { message: BUDGET.into(), wait: Duration::from_secs(3), asked: true },
            ),
            (
                "429 from priority and fairness: throttled for as long as it asks",
                refusal(serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "Too many requests, please try again later.", "reason": "TooManyRequests",
                    "details": {"retryAfterSeconds": 1}, "code": 429})),
                Answer::Throttled {
                    message: "Too many requests, please try again later.".into(),
                    wait: Duration::from_secs(1),
                },
            ),
            (
                "a plain-text 429 naming no delay: throttled for kubectl's 5 s",
                refusal(
                    serde_json::json!({"status": "Failure", "message": "Too many requests, please try again later.",
                    "reason": "Too Many Requests", "code": 429}),
                ),
                Answer::Throttled {
                    message: "Too many requests, please try again later.".into(),
                    wait: EVICT_RETRY_DELAY,
                },
            ),
            (
                "503 with a Retry-After, as an API server shutting down answers: retried later",
                refusal(serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "The apiserver is shutting down, please try again later.",
                    "reason": "ServiceUnavailable", "details": {"retryAfterSeconds": 1}, "code": 503})),
                Answer::RetryLater {
                    answer: api(503, "The apiserver is shutting down, please try again later."),
                    wait: Some(Duration::from_secs(1)),
                },
            ),
            (
                "500 with retryAfterSeconds in its body: retried later",
                refusal(serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "Internal error occurred: etcdserver: request timed out", "reason": "InternalError",
                    "details": {"causes": [{"message": "etcdserver: request timed out"}], "retryAfterSeconds": 2},
                    "code": 500})),
                Answer::RetryLater {
                    answer: api(500, "Internal error occurred: etcdserver: request timed out"),
                    wait: Some(Duration::from_secs(2)),
                },
            ),
            (
                "400 from an admission webhook that denied the eviction: denied, naming the webhook",
                refusal(serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "admission webhook \"deny.drainboard.test\" denied the request: maintenance freeze",
                    "reason": "BadRequest", "code": 400})),
                Answer::Denied { webhook: "deny.drainboard.test".into(), message: "maintenance freeze".into() },
            ),
            (
                "403 from a webhook that set its own code: denied",
                refusal(serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "admission webhook \"deny.drainboard.test\" denied the request without explanation",
                    "reason": "Forbidden", "code": 403})),
                Answer::Denied { webhook: "deny.drainboard.test".into(), message: "without explanation".into() },
            ),
            (
                "500 naming no delay: failed",
                refusal(serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "Internal error occurred: etcd is on fire", "reason": "InternalError", "code": 500})),
                Answer::Failed(Failure::Api(api(500, "Internal error occurred: etcd is on fire"))),
            ),
            (
                "504 from a gateway: failed",
                refusal(serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "Timeout: request did not complete within the allotted timeout", "reason": "Timeout",
                    "code": 504})),
                Answer::Failed(Failure::Api(api(504, "Timeout: request did not complete within the allotted timeout"))),
            ),
            (
                "403 worded like a budget but without its cause: failed",
                refusal(serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": BUDGET, "reason": "Forbidden", "code": 403})),
                Answer::Failed(Failure::Api(api(403, BUDGET))),
            ),
        ];
        for (case, err, expected) in cases {
            assert_eq!(classify(&err), expected, "{case}");
        }
    }

    #[test]
    fn no_answer_at_all_is_retried_later() {
        // As a connection refused reaches kube: an error of the client's service, with no Status.
        let err = kube::Error::Service(Box::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "tcp connect error: Connection refused (os error 111)",
        )));
        let Answer::RetryLater { answer, wait: None } = classify(&err) else { panic!("{:?}", classify(&err)) };
        assert_eq!(answer.code, None);
        assert!(answer.message.contains("Connection refused"), "{}", answer.message);
    }

    #[test]
    fn an_error_of_the_request_itself_fails_the_pod() {
        let err = kube::Error::SerdeError(serde_json::from_str::<u8>("x").expect_err("not a number"));
        assert!(matches!(classify(&err), Answer::Failed(Failure::Api(ApiAnswer { code: None, .. }))));
    }

    #[test]
    fn troubles_back_off_to_five_seconds_and_span_about_a_minute() {
        let pauses: Vec<u64> = (1..=MAX_TROUBLES).map(|n| trouble_backoff(n).as_secs()).collect();
        assert_eq!(&pauses[..4], &[1, 2, 4, 5]);
        let total: u64 = pauses.iter().sum();
        assert!((45..=75).contains(&total), "{total} s");
        assert_eq!(trouble_backoff(0), Duration::from_secs(1));
        assert_eq!(trouble_backoff(u32::MAX), Duration::from_secs(5), "no overflow");
    }
}
