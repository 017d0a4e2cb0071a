//! Who each call is made as, and with what credentials: one client per identity, and team mode's sign-in.
//!
//! Every API call is made with the credentials of the person behind the request, never with a service account of
//! Drainboard's own. In local mode there is one person, the operator who started the server with their kubeconfig;
//! in team mode each person signs in and gets a client of their own, kept while they have a session.
//!
//! The rooms: [`identity`] (who a call is made as), [`sessions`] (the session store and its expiry rule),
//! [`connect`] (the kubeconfig or the pod's service account, checked at start-up). This file keeps the clients
//! and the modes that decide whose they are. The access reviews are in [`crate::authz`].

mod attempts;
mod connect;
mod identity;
mod sessions;
mod wall;

use std::{collections::HashMap, sync::Arc};

use kube::{Client, Config};
use parking_lot::RwLock;

use attempts::Attempts;
pub use attempts::Source;
pub use connect::{ConnectError, Connected, connect};
pub use identity::{Caller, Identity, Kind, MAINTENANCE_USER, SERVER_USER, WALL_USER};
pub use sessions::{MAX_SESSIONS, MAX_SESSIONS_PER_PERSON, SESSION_IDLE, SESSION_LIFETIME, SessionPolicy};
use sessions::{Sessions, SystemClock};
use wall::Walls;
pub use wall::{WALL_OBJECT, WALL_SESSION_LIFETIME, is_ticket_form};

use crate::{
    Error, Result,
    signin::{self, Credentials, Person},
};

/// The shortest `--wall-token` accepted: 32 characters, at least 128 bits when random.
pub const MIN_WALL_TOKEN: usize = 32;

/// Kubernetes clients keyed by identity, shared by every request and task of the server.
#[derive(Clone)]
pub struct KubeAccess {
    inner: Arc<Inner>,
}

struct Inner {
    mode: Mode,
    /// One client per identity. In team mode a person's goes when their last session ends (the session store
    /// calls back), so that no credentials stay in memory after it. (A drain keeps its own client until it ends.)
    clients: Arc<RwLock<HashMap<Identity, Client>>>,
}

enum Mode {
    /// One operator's kubeconfig: every request acts as them.
    SingleUser(Identity),
    /// Each person signs in; `base` is the server's own connection (cluster URL, CA, timeouts), whose credentials
    /// are never lent to anyone.
    Team {
        base: Box<Config>,
        cluster: String,
        sessions: Sessions,
        /// Sign-in attempts: per source, then those that reach the API server all together (see [`attempts`]).
        attempts: Box<Attempts>,
        /// `--wall-token`: the secret an unattended wall screen signs in with, if the server has one.
        wall_token: Option<secrecy::SecretString>,
        /// The wall screens' tickets, when there is a wall token (see [`wall`]).
        walls: Option<Box<Walls>>,
    },
}

impl KubeAccess {
    /// Access for a server run by one operator with their own kubeconfig: every request acts as them.
    pub fn single_user(connected: Connected) -> Self {
        let clients = HashMap::from([(connected.identity.clone(), connected.client)]);
        let inner = Inner { mode: Mode::SingleUser(connected.identity), clients: Arc::new(RwLock::new(clients)) };
        KubeAccess { inner: Arc::new(inner) }
    }

    /// Access for a team: nobody acts until they sign in, and each then acts as themselves on the server's cluster.
    /// The server's own credentials in `connected` are never used for a person's request.
    pub fn team(connected: Connected) -> Self {
        Self::team_with_wall(connected, None, SessionPolicy::default())
    }

    /// Team mode, with `wall_token` (at least [`MIN_WALL_TOKEN`] characters) for an unattended wall screen, and
    /// sessions kept by `policy`.
    pub fn team_with_wall(
        connected: Connected,
        wall_token: Option<secrecy::SecretString>,
        policy: SessionPolicy,
    ) -> Self {
        let walls = wall_token.as_ref().map(|t| {
            use secrecy::ExposeSecret;
            Box::new(Walls::new(t.expose_secret()))
        });
        let clients: Arc<RwLock<HashMap<Identity, Client>>> = Default::default();
        let held = clients.clone();
        let gone = Arc::new(move |identity: &Identity| {
            held.write().remove(identity);
        });
        let mode = Mode::Team {
            wall_token,
            walls,
            base: Box::new(connected.config),
            cluster: connected.identity.cluster,
            sessions: Sessions::new(policy, Arc::new(SystemClock), gone),
            attempts: Box::new(Attempts::new()),
        };
        KubeAccess { inner: Arc::new(Inner { mode, clients }) }
    }

    /// The cluster the server serves: the API server's URL.
    pub fn cluster(&self) -> Option<String> {
        match &self.inner.mode {
            Mode::SingleUser(operator) => Some(operator.cluster.clone()),
            Mode::Team { cluster, .. } => Some(cluster.clone()),
        }
    }

    /// Whether people sign in (team mode).
    pub fn is_team(&self) -> bool {
        matches!(self.inner.mode, Mode::Team { .. })
    }

    /// The operator every request acts as, in single-user mode; none in team mode.
    pub fn operator(&self) -> Option<Identity> {
        match &self.inner.mode {
            Mode::SingleUser(operator) => Some(operator.clone()),
            Mode::Team { .. } => None,
        }
    }

    /// Signs a person in: checks what they pasted, asks the API server who it belongs to, and keeps a client for
    /// them. Returns the new session's id (an unguessable secret, for the browser's cookie) and who they are.
    /// `source` is charged for the attempt whatever it holds; the pace of all sources together only once the
    /// credentials are well-formed and about to be shown to the API server.
    pub async fn sign_in(&self, credentials: &Credentials, source: Source) -> Result<(String, Person, Identity)> {
        let Mode::Team { base, cluster, sessions, attempts, .. } = &self.inner.mode else {
            return Err(Error::Invalid("this server runs for one operator (local mode): there is no sign-in".into()));
        };
        attempts.charge_source(source)?;
        let auth = signin::auth_info(credentials)?;
        let client = signin::client(base, auth)?;
        attempts.charge_api_server()?;
        let person = signin::review(&client).await?;
        let identity = Identity::person(cluster.clone(), person.username.clone());
        // The session first, so that the end of an older one of theirs meanwhile leaves this client alone.
        let id = sessions.insert(person.clone(), identity.clone())?;
        // The latest sign-in's credentials serve the person's calls (and their cache, once it starts).
        self.inner.clients.write().insert(identity.clone(), client);
        Ok((id, person, identity))
    }

    /// Signs a wall screen in with `--wall-token`: a new ticket for its cookie ([`wall`]). Refused without a wall
    /// token, or with another token. Charged to `source` only: the API server is not asked.
    pub fn wall_sign_in(&self, token: &str, source: Source) -> Result<String> {
        use secrecy::ExposeSecret;
        use subtle::ConstantTimeEq;
        let Mode::Team { attempts, wall_token, walls, .. } = &self.inner.mode else {
            return Err(Error::Invalid(
                "this server runs for one operator (local mode): there is no wall token".into(),
            ));
        };
        attempts.charge_source(source)?;
        let matches = wall_token
            .as_ref()
            .is_some_and(|expected| bool::from(expected.expose_secret().as_bytes().ct_eq(token.as_bytes())));
        let (true, Some(walls)) = (matches, walls) else {
            return Err(Error::Forbidden(domain::denial::Denial::WrongWallToken));
        };
        walls.issue(jiff::Timestamp::now().as_second())
    }

    /// Whether `id` is a wall screen's good ticket: signed with this server's `--wall-token`, within its 30 days,
    /// and not revoked. It is kept nowhere, so it outlives a restart of the server and every replica with the same
    /// token accepts it; changing the token ends it too.
    pub fn is_wall_session(&self, id: &str) -> bool {
        let Mode::Team { walls: Some(walls), .. } = &self.inner.mode else {
            return false;
        };
        walls.check(id, jiff::Timestamp::now().as_second())
    }

    /// Ends a wall screen's ticket on every replica (it signs out). Nothing to do for a ticket that is no good.
    pub async fn end_wall_session(&self, id: &str) -> Result<()> {
        let Mode::Team { walls: Some(walls), .. } = &self.inner.mode else {
            return Ok(());
        };
        walls.revoke(id, jiff::Timestamp::now().as_second()).await
    }

    /// Takes the wall screens' revocations as read and empty, for a test of the HTTP layers with no cluster behind
    /// them. A server follows them instead ([`Self::follow_walls`]); a later read replaces this.
    #[doc(hidden)]
    pub fn assume_no_wall_revocations(&self) {
        if let Mode::Team { walls: Some(walls), .. } = &self.inner.mode {
            walls.assume_none_revoked();
        }
    }

    /// Follows the wall screens' revocations in `api` (see [`wall`]); nothing without a wall token.
    pub(crate) fn follow_walls(
        &self,
        api: kube::Api<k8s_openapi::api::core::v1::ConfigMap>,
        tasks: &crate::tasks::Tasks,
    ) {
        if let Mode::Team { walls: Some(walls), .. } = &self.inner.mode {
            walls.follow(api, tasks);
        }
    }

    /// Who a session id belongs to, if it is current. `touch`: the request is the person's own doing, which keeps
    /// the session from going idle (see [`sessions`]).
    pub fn session(&self, id: &str, touch: bool) -> Option<Caller> {
        let Mode::Team { sessions, .. } = &self.inner.mode else {
            return None;
        };
        sessions.get(id, touch)
    }

    /// How long team mode's sessions live; `None` in local mode.
    pub fn session_policy(&self) -> Option<SessionPolicy> {
        match &self.inner.mode {
            Mode::Team { sessions, .. } => Some(sessions.policy()),
            Mode::SingleUser(_) => None,
        }
    }

    /// Forgets every session of `identity`, and with the last its credentials: the API server no longer accepts
    /// them (401).
    pub fn forget(&self, identity: &Identity) {
        if let Mode::Team { sessions, .. } = &self.inner.mode {
            sessions.remove_all(identity);
        }
    }

    /// Forgets a session; the person's credentials go too once no other session of theirs remains.
    pub fn sign_out(&self, id: &str) {
        if let Mode::Team { sessions, .. } = &self.inner.mode {
            sessions.remove(id);
        }
    }

    /// The server's own client: the operator's in local mode; in team mode the one built from the server's own
    /// kubeconfig, which never acts for a person and writes only what the server itself owns (the audit Events).
    pub fn server_client(&self) -> Option<Client> {
        match &self.inner.mode {
            Mode::SingleUser(operator) => self.client_for(operator).ok(),
            Mode::Team { base, .. } => crate::retry::client(base.as_ref().clone()).ok(),
        }
    }

    /// The client that acts as `identity`.
    pub fn client_for(&self, identity: &Identity) -> Result<Client> {
        self.inner
            .clients
            .read()
            .get(identity)
            .cloned()
            .ok_or_else(|| Error::NotSignedIn { user: identity.user.clone(), cluster: identity.cluster.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Junk from one source is held back at that source; another source's attempt is judged as usual.
    #[tokio::test]
    async fn sign_in_attempts_are_held_to_a_pace_per_source() {
        let config = Config::new("https://127.0.0.1:9".parse().expect("a URL"));
        let client = Client::try_from(config.clone()).expect("a client");
        let identity = Identity::operator("https://127.0.0.1:9", "server");
        let access = KubeAccess::team(Connected {
            client,
            config,
            identity,
            source: "test".into(),
            context: "t".into(),
            contexts: vec!["t".into()],
            in_cluster: false,
        });
        let empty = Credentials::Token(String::new().into());
        let flood = Source::new("127.0.0.2".parse().expect("an address"));
        let mut results = Vec::new();
        for _ in 0..40 {
            results.push(access.sign_in(&empty, flood).await);
        }
        assert!(results[..30].iter().all(|r| matches!(r, Err(Error::Invalid(_)))), "the burst is checked as usual");
        assert!(results[30..].iter().all(|r| matches!(r, Err(Error::TooMany(_)))), "then held back");
        let other = Source::new("127.0.0.1".parse().expect("an address"));
        let answer = access.sign_in(&empty, other).await;
        assert!(matches!(answer, Err(Error::Invalid(_))), "another source is not held back: {answer:?}");
    }
}
