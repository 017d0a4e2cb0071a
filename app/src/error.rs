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
    /// The server function machinery itself failed (request encoding, network between browser and server).
    #[error("{0}")]
    ServerFn(String),
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        AppError::ServerFn(value.to_string())
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
        }
    }
}
