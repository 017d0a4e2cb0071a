//! Who a call is made as. Apart from the sessions and the clients, since every layer names an identity (the cache,
//! the drain, the audit record, the server's session layer) while only the access layer keeps credentials.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::signin::Person;

/// Who an API call is made as: one kind of principal ([`Kind`]) on one cluster.
///
/// The kind is part of what an identity is, not a name to compare: a person whose user name happens to read like
/// the server's own identity is still a person, and two sign-ins with the same user name are two identities, so
/// that their clients, caches and the authorizer's answers are never shared (two tokens of one user name may carry
/// different groups, and so different rights).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    /// The API server's URL.
    pub cluster: String,
    /// The name shown and recorded: the kubeconfig user (AuthInfo) name, or the signed-in user's name.
    pub user: String,
    pub kind: Kind,
}

/// The kinds of identity the server acts as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The server's own read-only identity (team mode): its shared cache and the history it keeps.
    Server,
    /// Local mode's operator: a context of the kubeconfig the server was started with.
    Operator,
    /// The server's maintenance identity (team mode, with `--unattended-plans`): the same credentials as
    /// [`Kind::Server`], to which the operator bound drain rights with the `unattended` component. It runs the
    /// plans marked unattended, and nothing else; no request ever acts as it.
    Maintenance,
    /// An unattended wall screen (team mode): reads what the server's own identity reads, and does nothing.
    Wall,
    /// A person signed in (team mode). `credential` numbers each sign-in, so that each has its own client.
    Person { credential: u64 },
}

/// The next sign-in's number: unique in this process, which is as far as an identity goes.
/// (0 is no sign-in's: it stands for all of a person's, see [`Identity::principal`].)
static NEXT_CREDENTIAL: AtomicU64 = AtomicU64::new(1);

impl Identity {
    /// Local mode's operator, acting with the kubeconfig user `user` on `cluster`.
    pub fn operator(cluster: impl Into<String>, user: impl Into<String>) -> Self {
        Identity { cluster: cluster.into(), user: user.into(), kind: Kind::Operator }
    }

    /// The server's own read-only identity on `cluster`.
    pub fn server(cluster: impl Into<String>) -> Self {
        Identity { cluster: cluster.into(), user: SERVER_USER.into(), kind: Kind::Server }
    }

    /// The server's maintenance identity on `cluster`, which runs unattended plans.
    pub fn maintenance(cluster: impl Into<String>) -> Self {
        Identity { cluster: cluster.into(), user: MAINTENANCE_USER.into(), kind: Kind::Maintenance }
    }

    /// A wall screen on `cluster`.
    pub fn wall(cluster: impl Into<String>) -> Self {
        Identity { cluster: cluster.into(), user: WALL_USER.into(), kind: Kind::Wall }
    }

    /// A new sign-in of `user` on `cluster`: an identity no other sign-in shares.
    pub fn person(cluster: impl Into<String>, user: impl Into<String>) -> Self {
        let credential = NEXT_CREDENTIAL.fetch_add(1, Ordering::Relaxed);
        Identity { cluster: cluster.into(), user: user.into(), kind: Kind::Person { credential } }
    }

    /// The person (or the server) behind this identity, the same for each of their sign-ins: what per-person limits
    /// count by. Never a key to credentials or rights.
    pub fn principal(&self) -> Identity {
        let kind = match self.kind {
            Kind::Person { .. } => Kind::Person { credential: 0 },
            kind => kind,
        };
        Identity { cluster: self.cluster.clone(), user: self.user.clone(), kind }
    }

    /// Whether this identity reads with the server's own rights (the server itself, or a wall screen).
    pub fn is_server_side(&self) -> bool {
        matches!(self.kind, Kind::Server | Kind::Maintenance | Kind::Wall)
    }
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
}

impl Caller {
    /// Team mode: an unattended wall screen, signed in with `--wall-token`. It reads the board as the server's
    /// read-only identity, and may do nothing else.
    pub fn is_wall(&self) -> bool {
        self.identity.kind == Kind::Wall
    }
}

/// Who a wall screen's session says it is.
pub const WALL_USER: &str = "wall screen";

/// Who an unattended plan runs as: recorded on its drains, its Events and the audit file.
pub const MAINTENANCE_USER: &str = "drainboard (unattended maintenance)";

/// The name of the server's own read-only identity in team mode.
pub const SERVER_USER: &str = "drainboard (server, read-only)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_alone_makes_no_identity_the_same() {
        let server = Identity::server("c");
        let namesake = Identity::person("c", SERVER_USER);
        assert_ne!(server, namesake, "a person named like the server is not the server");
        assert!(!namesake.is_server_side());
        assert!(server.is_server_side() && Identity::wall("c").is_server_side());
        assert_ne!(Identity::person("c", "alice"), Identity::person("c", "alice"), "each sign-in is its own");
        assert_ne!(Identity::operator("c", WALL_USER), Identity::wall("c"));
        assert_eq!(Identity::operator("c", "admin"), Identity::operator("c", "admin"));
        assert_eq!(Identity::person("c", "alice").principal(), Identity::person("c", "alice").principal());
        assert_ne!(Identity::person("c", "alice").principal(), Identity::person("c", "bob").principal());
        assert_ne!(Identity::person("c", SERVER_USER).principal(), Identity::server("c").principal());
        assert_ne!(Identity::person("c", MAINTENANCE_USER), Identity::maintenance("c"));
        assert!(!Identity::person("c", MAINTENANCE_USER).is_server_side());
    }
}
