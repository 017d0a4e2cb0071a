//! The error type every server function returns, serialised to the browser as JSON.

use leptos::server_fn::{
    codec::JsonEncoding,
    error::{FromServerFnError, ServerFnErrorErr},
};
use serde::{Deserialize, Serialize};

/// What went wrong, in terms an operator can act on. Variants carry messages rather than source errors because
/// they cross the wire to the browser.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    /// The Kubernetes API answered with an error (permission denied, not found, conflict, ...).
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
    /// The request conflicts with what runs (a drain of the node with other options).
    #[error("conflict: {0}")]
    Conflict(String),
    /// Over a limit of what may run at once (drains, streams); wait and try again.
    #[error("too many at once: {0}")]
    TooMany(String),
    /// The server function machinery itself failed (request encoding, network between browser and server).
    #[error("{0}")]
    ServerFn(String),
}

impl AppError {
    /// The HTTP status that says what kind of failure this is, so that scripts need not read the body: 400 bad
    /// input, 401 no credentials, 403/404/409 the API server's own refusal, 404 an unknown node or drain, 502 the
    /// API server failed, 503 it cannot be reached.
    pub fn status(&self) -> u16 {
        match self {
            AppError::Api { code: code @ 400..=499, .. } => *code,
            AppError::Api { .. } => 502,
            AppError::Connection(_) => 503,
            AppError::NotFound(_) => 404,
            AppError::Invalid(_) => 400,
            AppError::NotSignedIn(_) => 401,
            AppError::TooMany(_) => 429,
            AppError::Conflict(_) => 409,
            AppError::ServerFn(_) => 500,
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

/// The one place an engine error becomes the browser's: an API server's refusal keeps its code and message, and
/// everything else keeps its message under the variant the page acts on.
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
            err @ Error::NotListed(_) => AppError::Connection(err.to_string()),
            Error::Unavailable(why) => AppError::Connection(why),
            Error::TooMany(why) => AppError::TooMany(why),
            Error::Conflict(why) => AppError::Conflict(why),
            Error::Forbidden(why) => AppError::Api { code: 403, message: why },
            Error::Internal(why) => AppError::Api { code: 500, message: why },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_failure_has_its_status() {
        let api = |code| AppError::Api { code, message: String::new() };
        let cases = [
            (AppError::Invalid(String::new()), 400),
            (AppError::NotSignedIn(String::new()), 401),
            (api(403), 403),
            (api(404), 404),
            (AppError::NotFound(String::new()), 404),
            (AppError::Conflict(String::new()), 409),
            (api(409), 409),
            (AppError::TooMany(String::new()), 429),
            (api(500), 502),
            (AppError::Connection(String::new()), 503),
            (AppError::ServerFn(String::new()), 500),
        ];
        for (error, status) in cases {
            assert_eq!(error.status(), status, "{error:?}");
        }
        let undecodable = AppError::from_server_fn_error(ServerFnErrorErr::Deserialization("eof".into()));
        assert!(matches!(&undecodable, AppError::Invalid(why) if why.contains("cannot be read")), "{undecodable:?}");
    }
}
