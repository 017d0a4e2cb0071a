//! Who a call is made as. Apart from the sessions and the clients, since every layer names an identity (the cache,
//! the drain, the audit record, the server's session layer) while only the access layer keeps credentials.

use crate::signin::Person;

/// Who an API call is made as: the user's credentials on one cluster.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    /// The API server's URL.
    pub cluster: String,
    /// The kubeconfig user (AuthInfo) name, or the signed-in user's name.
    pub user: String,
}

/// Who a request acts as: the identity its calls are made with, and, in team mode, the signed-in person and their
/// session. The server's session layer puts one on every request it lets through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub identity: Identity,
    /// Team mode: who the API server said the person is.
    pub person: Option<Person>,
    /// Team mode: the session id (the cookie's value), for signing out.
    pub session: Option<String>,
    /// Team mode: an unattended wall screen, signed in with `--wall-token`. It reads the board as the server's
    /// read-only identity, and may do nothing else.
    pub wall: bool,
}

/// Who a wall screen's session says it is.
pub const WALL_USER: &str = "wall screen";
