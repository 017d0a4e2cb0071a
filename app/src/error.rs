//! The error type every server function returns, serialised to the browser as JSON.

use leptos::server_fn::{
    codec::JsonEncoding,
    error::{FromServerFnError, ServerFnErrorErr},
};
use serde::{Deserialize, Serialize};

/// What went wrong, in terms an operator can act on. Variants carry messages rather than source errors because
/// they cross the wire to the browser. Every answer that is not a success carries one, as its JSON body: server
/// functions through their encoding, the HTTP layers and the event streams through [`IntoResponse`] (`ssr`), so
/// the browser decodes them all the same way.
///
/// The wording says whose fault it is: only an answer the API server really gave reads "the Kubernetes API
/// refused"; Drainboard's own refusals and faults say so in its own words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    /// The Kubernetes API answered with an error (permission denied, not found, conflict, its own failure, ...).
    #[error("the Kubernetes API refused: {message} ({code})")]
    Api { code: u16, message: String },
    /// The Kubernetes API could not be reached or the answer could not be read.
    #[error("cannot talk to the Kubernetes API: {0}")]
    Connection(String),
    /// What the request names does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// The request is malformed; the message says how to fix it.
    #[error("invalid request: {0}")]
    Invalid(String),
    /// The request carries no identity the server holds credentials for.
    #[error("not signed in: {0}")]
    NotSignedIn(String),
    /// Drainboard itself refuses the request: the person lacks a right it checks for, a wall screen asks for more
    /// than the wall, another site's page tries to act. The message says which.
    #[error("not allowed: {0}")]
    Forbidden(String),
    /// Drainboard denies the person what they asked for want of a right it checks for (`Denial`: reading the board
    /// or the windows, starting or continuing a plan, changing what a colleague started): the reason as data, which
    /// the page words in its own language, and in English for scripts.
    #[error("not allowed: {message}")]
    Denied { denial: Box<domain::denial::Denial>, message: String },
    /// Drainboard does not start what was asked, for a reason of its own (`StartRefusal`: a right it checks for, a
    /// maintenance window, a limit, a node that is not there, the server stopping): the reason as data, which the
    /// page words in its own language, and in English for scripts. Its status follows the reason.
    #[error("not started: {message}")]
    Refused { refusal: domain::failure::StartRefusal, message: String },
    /// The request conflicts with what is, or with what runs (`Conflict`: a drain of the node with other options,
    /// a pod or a budget that changed, a move that cannot help): the reason as data, which the page words in its
    /// own language, and in English for scripts.
    #[error("conflict: {message}")]
    Conflict { conflict: Box<domain::conflict::Conflict>, message: String },
    /// Over a limit of what may run at once (drains, streams); wait and try again.
    #[error("too many at once: {0}")]
    TooMany(String),
    /// The request's body is over the server's limit, and was not read.
    #[error("too large: {0}")]
    TooLarge(String),
    /// The server gave up on the request after its time limit; what it did meanwhile may or may not have happened.
    #[error("timed out: {0}")]
    TimedOut(String),
    /// Something the request needs cannot be had now (the server is stopping, a node's Lease, a cache's first
    /// list); the message says what, and to try again.
    #[error("not available now: {0}")]
    Unavailable(String),
    /// A fault of Drainboard's own (a task that panicked): nothing the person or the API server did.
    #[error("internal error: {0}")]
    Internal(String),
    /// The server function machinery itself failed (request encoding, network between browser and server).
    #[error("{0}")]
    ServerFn(String),
}

impl AppError {
    /// The HTTP status that says what kind of failure this is, so that scripts need not read the body: 400 bad
    /// input, 401 no credentials, 403 Drainboard's refusal, 404 an unknown node or drain, 403/404/409 and the
    /// other 4xx the API server's own refusal with its code, 413 a body over the limit, 500 Drainboard's own fault,
    /// 502 the API server failed, 503 it cannot be reached or the server cannot serve this now (stopping, a Lease, a
    /// first list), 504 the server's own time limit for a request.
    pub fn status(&self) -> u16 {
        match self {
            AppError::Api { code: code @ 400..=499, .. } => *code,
            AppError::Api { .. } => 502,
            AppError::Connection(_) | AppError::Unavailable(_) => 503,
            AppError::NotFound(_) => 404,
            AppError::Invalid(_) => 400,
            AppError::NotSignedIn(_) => 401,
            AppError::Forbidden(_) | AppError::Denied { .. } => 403,
            AppError::TooMany(_) => 429,
            AppError::TooLarge(_) => 413,
            AppError::TimedOut(_) => 504,
            AppError::Conflict { .. } => 409,
            AppError::Internal(_) | AppError::ServerFn(_) => 500,
            AppError::Refused { refusal, .. } => {
                use domain::failure::StartRefusal;
                match refusal {
                    StartRefusal::Stopping { .. } | StartRefusal::NoLease { .. } => 503,
                    StartRefusal::NoSuchNode { .. } => 404,
                    StartRefusal::MayNotDrain { .. } | StartRefusal::Held(_) | StartRefusal::MayNotOverride { .. } => {
                        403
                    }
                    StartRefusal::ServerFull { .. } | StartRefusal::PersonFull { .. } => 429,
                    StartRefusal::OtherActors { .. } => 409,
                }
            }
        }
    }
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    /// A request the server function could not decode is bad input (400), and says so; anything else is the
    /// machinery's own failure.
    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        let error = match value {
            ServerFnErrorErr::Args(why) | ServerFnErrorErr::Deserialization(why) => {
                AppError::Invalid(format!("the request's arguments cannot be read: {why}"))
            }
            ServerFnErrorErr::MissingArg(what) => AppError::Invalid(format!("the request lacks {what}")),
            other => AppError::ServerFn(other.to_string()),
        };
        #[cfg(feature = "ssr")]
        error.set_status();
        error
    }

    /// Decoded from text, as a page's resources are when it hydrates, rather than from bytes as the encoding
    /// would: serde_json builds a decoder per kind of input, and this error's (every refusal and denial in it) is
    /// among the largest in the browser's first load. One is enough.
    fn de(data: leptos::server_fn::Bytes) -> Self {
        match std::str::from_utf8(&data)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str(text).map_err(|e| e.to_string()))
        {
            Ok(error) => error,
            Err(why) => Self::from_server_fn_error(ServerFnErrorErr::Deserialization(why)),
        }
    }
}

#[cfg(feature = "ssr")]
impl AppError {
    /// Sets the response's status from [`Self::status`], when answering a request.
    pub fn set_status(&self) {
        if let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>()
            && let Ok(status) = axum::http::StatusCode::from_u16(self.status())
        {
            response.set_status(status);
        }
    }
}

/// The answer of an HTTP layer or an event stream that fails: the status of [`Self::status`], and the very body a
/// server function's error has (its encoding's bytes and content type), so that the browser decodes a refusal of
/// the session layer, the guard or the contexts layer as it decodes any other [`AppError`].
#[cfg(feature = "ssr")]
impl axum::response::IntoResponse for AppError {
    fn into_response(self) -> axum::response::Response {
        use axum::http::{StatusCode, header};
        use leptos::server_fn::ContentType;
        let status = StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, [(header::CONTENT_TYPE, JsonEncoding::CONTENT_TYPE)], self.ser()).into_response()
    }
}

/// The one place an engine error becomes the browser's. An answer of the API server keeps its code and message
/// (a 4xx is its refusal, a 5xx its failure: 502); an API server that cannot be reached, or something that cannot
/// be had now, is 503; Drainboard's own refusal is 403 and its own fault 500, each in its own words.
#[cfg(feature = "ssr")]
impl From<engine::Error> for AppError {
    fn from(err: engine::Error) -> Self {
        use engine::Error;
        match err {
            Error::Kube(_) => match err.api_code() {
                Some(code) => AppError::Api { code, message: err.to_string() },
                None => AppError::Connection(err.to_string()),
            },
            Error::NotFound(what) => AppError::NotFound(what),
            Error::Invalid(why) => AppError::Invalid(why),
            err @ Error::NotSignedIn { .. } => AppError::NotSignedIn(err.to_string()),
            err @ Error::NotListed(_) => AppError::Unavailable(err.to_string()),
            Error::Unavailable(why) => AppError::Unavailable(why),
            Error::TooMany(why) => AppError::TooMany(why),
            Error::Conflict(conflict) => {
                AppError::Conflict { message: conflict.english(), conflict: Box::new(conflict) }
            }
            Error::Forbidden(denial) => AppError::Denied { message: denial.english(), denial: Box::new(denial) },
            Error::Internal(why) => AppError::Internal(why),
            Error::Refused(refusal) => AppError::Refused { message: refusal.english(), refusal },
        }
    }
}

#[cfg(test)]
mod tests {
    use domain::conflict::Conflict;

    use super::*;

    #[test]
    fn each_kind_of_failure_has_its_status() {
        let api = |code| AppError::Api { code, message: String::new() };
        let cases = [
            (AppError::Invalid(String::new()), 400),
            (AppError::NotSignedIn(String::new()), 401),
            (AppError::Forbidden(String::new()), 403),
            (api(403), 403),
            (api(404), 404),
            (AppError::NotFound(String::new()), 404),
            (
                AppError::Conflict {
                    conflict: Box::new(Conflict::PlanElsewhere { plan: "p".into() }),
                    message: String::new(),
                },
                409,
            ),
            (api(409), 409),
            (api(422), 422),
            (AppError::TooMany(String::new()), 429),
            (AppError::TooLarge(String::new()), 413),
            (AppError::TimedOut(String::new()), 504),
            (AppError::Internal(String::new()), 500),
            (AppError::ServerFn(String::new()), 500),
            (api(500), 502),
            (api(503), 502),
            (AppError::Connection(String::new()), 503),
            (AppError::Unavailable(String::new()), 503),
        ];
        for (error, status) in cases {
            assert_eq!(error.status(), status, "{error:?}");
        }
        let undecodable = AppError::from_server_fn_error(ServerFnErrorErr::Deserialization("eof".into()));
        assert!(matches!(&undecodable, AppError::Invalid(why) if why.contains("cannot be read")), "{undecodable:?}");
    }

    #[test]
    fn only_an_answer_of_the_api_server_reads_as_its_refusal() {
        let said_by_the_api = AppError::Api { code: 403, message: "pods is forbidden".into() };
        assert!(said_by_the_api.to_string().starts_with("the Kubernetes API refused"), "{said_by_the_api}");
        for own in [
            AppError::Forbidden("team-bob may not drain node-2".into()),
            AppError::Internal("the capacity check failed".into()),
            AppError::Unavailable("the server is stopping".into()),
            AppError::Connection("connection refused".into()),
        ] {
            assert!(!own.to_string().contains("Kubernetes API refused"), "{own}");
        }
    }
}

/// The engine's errors through the answer a request gets: the same mapping and response a server function, an
/// HTTP layer and an event stream use.
#[cfg(all(test, feature = "ssr"))]
mod answers {
    use std::{
        pin::pin,
        task::{Context, Poll, Waker},
    };

    use axum::response::IntoResponse;

    use super::*;

    /// The status, content type and body `error` answers with, decoded as the browser decodes it.
    fn answer(error: engine::Error) -> (u16, String, AppError) {
        let response = AppError::from(error).into_response();
        let status = response.status().as_u16();
        let kind = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        // A body held in memory is ready at the first poll.
        let mut read = pin!(axum::body::to_bytes(response.into_body(), 64 * 1024));
        let Poll::Ready(Ok(body)) = read.as_mut().poll(&mut Context::from_waker(Waker::noop())) else {
            panic!("an error's body is in memory");
        };
        let decoded =
            serde_json::from_slice::<AppError>(&body).unwrap_or_else(|e| panic!("the browser decodes it: {e}"));
        assert_eq!(decoded, AppError::de(body), "the server function client decodes it the same");
        (status, kind, decoded)
    }

    #[test]
    fn an_internal_fault_answers_500_in_drainboards_words() {
        let (status, kind, error) = answer(engine::Error::Internal("the capacity check failed: it panicked".into()));
        assert_eq!((status, kind.as_str()), (500, "application/json"));
        assert_eq!(error, AppError::Internal("the capacity check failed: it panicked".into()));
        assert!(!error.to_string().contains("Kubernetes"), "{error}");
    }

    #[test]
    fn a_server_that_is_stopping_answers_503() {
        let (status, _, error) = answer(engine::Error::Unavailable("the server is stopping".into()));
        assert_eq!(status, 503);
        assert_eq!(error, AppError::Unavailable("the server is stopping".into()));
        let (status, _, error) = answer(engine::Error::NotListed(90));
        assert_eq!(status, 503);
        assert!(matches!(&error, AppError::Unavailable(why) if why.contains("90 s")), "{error:?}");
    }

    #[test]
    fn drainboards_own_denial_is_403_as_data_and_in_its_own_words() {
        use domain::denial::{Change, Denial};
        let denial = Denial::MayNotChange {
            user: "team-bob".into(),
            change: Change::StopDrain,
            started_by: "alice".into(),
            lacks: "patch nodes".into(),
        };
        let (status, _, error) = answer(engine::Error::Forbidden(denial.clone()));
        assert_eq!(status, 403);
        let why = "team-bob may not stop a drain alice started: lacks patch nodes, which draining takes";
        assert_eq!(error, AppError::Denied { denial: Box::new(denial), message: why.into() });
        assert_eq!(error.to_string(), format!("not allowed: {why}"));
    }

    #[test]
    fn a_start_refusal_crosses_as_data_with_its_english_and_its_status() {
        use domain::{failure::StartRefusal, window};
        let at = jiff::Timestamp::from_second(1_800_000_000).unwrap_or_default();
        let held = window::HeldNode {
            node: "n1".into(),
            window: "nights".into(),
            hold: window::Hold::Budget { in_maintenance: 1, max: 1 },
            at,
        };
        let cases = [
            (
                StartRefusal::Held(Box::new(held)),
                403,
                "1 of its nodes are in maintenance, and it allows 1 at once (window nights)",
            ),
            (StartRefusal::PersonFull { user: "u".into(), most: 1, dry_run: false }, 429, "1 drains running"),
            (StartRefusal::NoSuchNode { node: "n9".into() }, 404, "node n9 does not exist"),
            (StartRefusal::Stopping { node: "n1".into() }, 503, "the server is stopping"),
            (
                StartRefusal::OtherActors {
                    node: "n1".into(),
                    actors: vec![domain::actor::Actor::ClusterAutoscaler, domain::actor::Actor::Karpenter],
                },
                409,
                "then type cluster-autoscaler, karpenter to confirm",
            ),
        ];
        for (refusal, status, words) in cases {
            let (answered, _, decoded) = answer(engine::Error::Refused(refusal.clone()));
            assert_eq!(answered, status, "{refusal:?}");
            let AppError::Refused { refusal: typed, message } = decoded else { panic!("typed: {refusal:?}") };
            assert_eq!(typed, refusal, "the reason crosses as data");
            assert!(message.contains(words), "{message} says {words}");
        }
    }

    #[test]
    fn a_conflict_crosses_as_data_with_its_english_as_409() {
        use domain::conflict::Conflict;
        let conflict = Conflict::AlreadyDraining { node: "n1".into(), drain: "d1".into() };
        let (status, _, decoded) = answer(engine::Error::Conflict(conflict.clone()));
        assert_eq!(status, 409);
        let AppError::Conflict { conflict: typed, message } = decoded else { panic!("typed: {conflict:?}") };
        assert_eq!(*typed, conflict, "the reason crosses as data");
        assert!(message.contains("n1 is being drained already") && message.contains("drain d1"), "{message}");
    }

    #[test]
    fn every_other_engine_error_keeps_its_kind() {
        let cases = [
            (engine::Error::NotFound("node n9 does not exist".into()), 404),
            (engine::Error::Invalid("bad".into()), 400),
            (engine::Error::NotSignedIn { user: "u".into(), cluster: "c".into() }, 401),
            (engine::Error::TooMany("wait".into()), 429),
        ];
        for (error, status) in cases {
            let text = error.to_string();
            let (answered, _, decoded) = answer(error);
            assert_eq!(answered, status, "{text}");
            assert!(decoded.to_string().ends_with(&text), "{decoded} carries {text}");
        }
    }
}
