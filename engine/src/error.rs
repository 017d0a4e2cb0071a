//! The engine's error: what went wrong, with the Kubernetes error kept as the source. The app turns it into the
//! browser's wire error in one place.

/// Why an engine call failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The API server answered with an error status, or could not be reached.
    #[error("{}", crate::kube_error::api_message(.0))]
    Kube(#[source] kube::Error),
    /// What the request names does not exist (a node, a drain, a record).
    #[error("{0}")]
    NotFound(String),
    /// The request is malformed; the message says how to fix it.
    #[error("{0}")]
    Invalid(String),
    /// The server holds no credentials for the identity.
    #[error("no credentials for {user} on {cluster}")]
    NotSignedIn { user: String, cluster: String },
    /// The person may not do this for want of a right Drainboard checks for: kept typed
    /// (`domain::denial::Denial`), naming the permission they lack, so that the page words it in their language.
    #[error("{}", .0.english())]
    Forbidden(domain::denial::Denial),
    /// What the request asks for conflicts with what is, or with what runs (another drain of the same node): kept
    /// typed (`domain::conflict::Conflict`), so that the page words it in the person's language.
    #[error("{}", .0.english())]
    Conflict(domain::conflict::Conflict),
    /// Over a limit of what may run at once; the message says which, and to wait.
    #[error("{0}")]
    TooMany(String),
    /// Drainboard refuses to start a drain, for one of its own reasons (`domain::failure::StartRefusal`): kept typed, so
    /// that a plan's node that ends on it is worded in the person's language.
    #[error("{}", .0.english())]
    Refused(domain::failure::StartRefusal),
    /// A fault of the server's own (a task that panicked): the message says what failed.
    #[error("{0}")]
    Internal(String),
    /// Something the action needs cannot be had now (the node's Lease); the message says what, and to try again.
    #[error("{0}")]
    Unavailable(String),
    /// A new cache did not finish its first list in time.
    #[error("the cluster's nodes and pods did not finish listing within {0} s; try again shortly")]
    NotListed(u64),
}

impl From<kube::Error> for Error {
    fn from(err: kube::Error) -> Self {
        Error::Kube(err)
    }
}

impl Error {
    /// The API server's status code, when it answered with one.
    pub fn api_code(&self) -> Option<u16> {
        match self {
            Error::Kube(kube::Error::Api(status)) => Some(status.code),
            _ => None,
        }
    }

    /// How an engine error reads as a failure: the API server's answer kept as data, or the server's own words.
    pub fn failure(&self) -> domain::failure::Failure {
        use domain::failure::Failure;
        match self {
            Error::Kube(e) if crate::kube_error::unauthorized(e) => Failure::CredentialsExpired,
            Error::Kube(e) => Failure::Api(crate::kube_error::answer(e)),
            Error::Refused(refusal) => Failure::Refused(refusal.clone()),
            // The server holds no credentials for the person any more (their session ended): as for expired ones,
            // whoever signs in again may go on.
            Error::NotSignedIn { .. } => Failure::CredentialsExpired,
            Error::Internal(detail) => Failure::Internal { detail: detail.clone() },
            Error::NotListed(seconds) => Failure::NotListed { seconds: *seconds },
            other => Failure::Server { message: other.to_string() },
        }
    }

    /// A 404 from the API server becomes [`Error::NotFound`] with `what` as its message.
    pub(crate) fn not_found_as(err: kube::Error, what: impl FnOnce() -> String) -> Self {
        if crate::kube_error::not_found(&err) { Error::NotFound(what()) } else { Error::Kube(err) }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
