//! Who each call is made as: loading the user's kubeconfig, and one client per identity.
//!
//! Every API call is made with the credentials of the person behind the request, never with a service account of
//! Drainboard's own. Today there is one person, the operator who started the server with their kubeconfig; the
//! registry is keyed by [`Identity`] so that signed-in users each get their own client (and, later, caches).

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, RwLock},
    time::{Duration, Instant},
};

use kube::{
    Client, Config,
    config::{KubeConfigOptions, Kubeconfig, KubeconfigError},
};

use crate::{
    Error, Result,
    signin::{self, Credentials, Person},
};

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

/// The wall screen's session id for `token`: a digest of it, so that the id does not give the token away. It has
/// the form of every session id (64 hex digits).
fn wall_session_id(token: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::new().chain_update(b"drainboard wall session v1\n").chain_update(token.as_bytes()).finalize();
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The shortest `--wall-token` accepted: 32 characters, at least 128 bits when random.
pub const MIN_WALL_TOKEN: usize = 32;

/// Kubernetes clients keyed by identity, shared by every request and task of the server.
#[derive(Clone)]
pub struct KubeAccess {
    inner: Arc<Inner>,
}

struct Inner {
    mode: Mode,
    clients: RwLock<HashMap<Identity, Client>>,
}

enum Mode {
    /// One operator's kubeconfig: every request acts as them.
    SingleUser(Identity),
    /// Each person signs in; `base` is the server's own connection (cluster URL, CA, timeouts), whose credentials
    /// are never lent to anyone.
    Team {
        base: Box<Config>,
        cluster: String,
        sessions: Mutex<HashMap<String, Session>>,
        /// Sign-in attempts, all together: each costs the API server a SelfSubjectReview, so guessing tokens
        /// through Drainboard is held to this pace.
        attempts: governor::DefaultDirectRateLimiter,
        /// `--wall-token`: the secret an unattended wall screen signs in with, if the server has one.
        wall_token: Option<secrecy::SecretString>,
        /// The wall screen's session id, derived once from the token (see [`wall_session_id`]).
        wall_session: Option<String>,
        /// When stale sessions and their credentials were last swept.
        swept: Mutex<Instant>,
    },
}

/// How often a request sweeps the sessions that went stale, and the credentials of people left with none.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// A signed-in person: who the API server says they are, and when they were last seen.
struct Session {
    person: Person,
    identity: Identity,
    last_seen: Instant,
    started: Instant,
}

/// A session unused this long is forgotten (its credentials with it).
pub const SESSION_IDLE: Duration = Duration::from_secs(12 * 3600);
/// No session lives longer than this, used or not: the person signs in again.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(24 * 3600);
/// Sign-ins the server tries a second, all people together, after a burst.
const SIGN_INS_PER_SECOND: std::num::NonZeroU32 = std::num::NonZeroU32::new(5).expect("non-zero");
const SIGN_IN_BURST: std::num::NonZeroU32 = std::num::NonZeroU32::new(20).expect("non-zero");

/// The most sessions the server holds; the oldest idle one makes room.
pub const MAX_SESSIONS: usize = 10_000;

impl KubeAccess {
    /// Access for a server run by one operator with their own kubeconfig: every request acts as them.
    pub fn single_user(connected: Connected) -> Self {
        let clients = HashMap::from([(connected.identity.clone(), connected.client)]);
        KubeAccess {
            inner: Arc::new(Inner { mode: Mode::SingleUser(connected.identity), clients: RwLock::new(clients) }),
        }
    }

    /// Access for a team: nobody acts until they sign in, and each then acts as themselves on the server's cluster.
    /// The server's own credentials in `connected` are never used for a person's request.
    pub fn team(connected: Connected) -> Self {
        Self::team_with_wall(connected, None)
    }

    /// Team mode, with `wall_token` (at least [`MIN_WALL_TOKEN`] characters) for an unattended wall screen.
    pub fn team_with_wall(connected: Connected, wall_token: Option<secrecy::SecretString>) -> Self {
        let wall_session = wall_token.as_ref().map(|t| {
            use secrecy::ExposeSecret;
            wall_session_id(t.expose_secret())
        });
        let mode = Mode::Team {
            wall_token,
            wall_session,
            base: Box::new(connected.config),
            cluster: connected.identity.cluster,
            sessions: Default::default(),
            swept: Mutex::new(Instant::now()),
            attempts: governor::RateLimiter::direct(
                governor::Quota::per_second(SIGN_INS_PER_SECOND).allow_burst(SIGN_IN_BURST),
            ),
        };
        KubeAccess { inner: Arc::new(Inner { mode, clients: Default::default() }) }
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
    pub async fn sign_in(&self, credentials: &Credentials) -> Result<(String, Person, Identity)> {
        let Mode::Team { base, cluster, sessions, attempts, .. } = &self.inner.mode else {
            return Err(Error::Invalid("this server runs for one operator (local mode): there is no sign-in".into()));
        };
        if attempts.check().is_err() {
            return Err(Error::TooMany(
                "too many sign-in attempts at once on this server; wait a moment and try again".into(),
            ));
        }
        let auth = signin::auth_info(credentials)?;
        let client = signin::client(base, auth)?;
        let person = signin::review(&client).await?;
        let identity = Identity { cluster: cluster.clone(), user: person.username.clone() };
        let id = new_session(sessions, person.clone(), identity.clone());
        // The latest sign-in's credentials serve the person's calls (and their cache, once it starts).
        let sessions = lock(sessions);
        let mut clients = self.inner.clients.write().unwrap_or_else(|p| p.into_inner());
        clients.insert(identity.clone(), client);
        keep_live(&mut clients, &sessions);
        Ok((id, person, identity))
    }

    /// Signs a wall screen in with `--wall-token`: the id of the wall's session ([`Self::is_wall_session`]).
    /// Refused without a wall token, or with another token.
    pub fn wall_sign_in(&self, token: &str) -> Result<String> {
        use secrecy::ExposeSecret;
        use subtle::ConstantTimeEq;
        let Mode::Team { attempts, wall_token, wall_session, .. } = &self.inner.mode else {
            return Err(Error::Invalid(
                "this server runs for one operator (local mode): there is no wall token".into(),
            ));
        };
        if attempts.check().is_err() {
            return Err(Error::TooMany("too many sign-in attempts at once on this server; wait a moment".into()));
        }
        let matches = wall_token
            .as_ref()
            .is_some_and(|expected| bool::from(expected.expose_secret().as_bytes().ct_eq(token.as_bytes())));
        if !matches {
            return Err(Error::Forbidden("that is not this server's wall token".into()));
        }
        Ok(wall_session.clone().unwrap_or_else(|| wall_session_id(token)))
    }

    /// Whether `id` is the wall screen's session: the one derived from this server's `--wall-token`. It is kept
    /// nowhere, so it outlives a restart of the server, and every replica with the same token accepts it: an
    /// unattended screen comes back by itself. Changing the token ends it.
    pub fn is_wall_session(&self, id: &str) -> bool {
        use subtle::ConstantTimeEq;
        let Mode::Team { wall_session: Some(wall), .. } = &self.inner.mode else {
            return false;
        };
        bool::from(wall.as_bytes().ct_eq(id.as_bytes()))
    }

    /// Who a session id belongs to, if it is current. Each use keeps it from going idle.
    pub fn session(&self, id: &str) -> Option<Caller> {
        let Mode::Team { sessions, swept, .. } = &self.inner.mode else {
            return None;
        };
        let mut sessions = lock(sessions);
        // Sessions nobody uses again go stale silently: a minute's sweep keeps their credentials from staying.
        let mut swept = lock(swept);
        if swept.elapsed() >= SWEEP_EVERY {
            *swept = Instant::now();
            forget_stale(&mut sessions);
            keep_live(&mut self.inner.clients.write().unwrap_or_else(|p| p.into_inner()), &sessions);
        }
        drop(swept);
        let session = sessions.get_mut(id)?;
        if stale(session) {
            sessions.remove(id);
            return None;
        }
        session.last_seen = Instant::now();
        Some(Caller {
            identity: session.identity.clone(),
            person: Some(session.person.clone()),
            session: Some(id.to_owned()),
            // A wall screen's session is not kept here (see `is_wall_session`).
            wall: false,
        })
    }

    /// Forgets every session of `identity` and its credentials: the API server no longer accepts them (401).
    pub fn forget(&self, identity: &Identity) {
        let Mode::Team { sessions, .. } = &self.inner.mode else {
            return;
        };
        lock(sessions).retain(|_, s| &s.identity != identity);
        self.inner.clients.write().unwrap_or_else(|p| p.into_inner()).remove(identity);
    }

    /// Forgets a session; the person's credentials go too once no other session of theirs remains.
    pub fn sign_out(&self, id: &str) {
        let Mode::Team { sessions, .. } = &self.inner.mode else {
            return;
        };
        let mut sessions = lock(sessions);
        if let Some(gone) = sessions.remove(id)
            && !sessions.values().any(|s| s.identity == gone.identity)
        {
            self.inner.clients.write().unwrap_or_else(|p| p.into_inner()).remove(&gone.identity);
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
        let clients = self.inner.clients.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        clients
            .get(identity)
            .cloned()
            .ok_or_else(|| Error::NotSignedIn { user: identity.user.clone(), cluster: identity.cluster.clone() })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn stale(session: &Session) -> bool {
    session.last_seen.elapsed() >= SESSION_IDLE || session.started.elapsed() >= SESSION_LIFETIME
}

fn forget_stale(sessions: &mut HashMap<String, Session>) {
    sessions.retain(|_, s| !stale(s));
}

/// Keeps the credentials of those with a session left, and drops the rest: a session that went stale, or made room
/// at the cap, must not leave its person's credentials in memory. (A drain keeps its own client until it ends.)
fn keep_live<C>(clients: &mut HashMap<Identity, C>, sessions: &HashMap<String, Session>) {
    let live: std::collections::HashSet<&Identity> =
        sessions.values().filter(|s| !stale(s)).map(|s| &s.identity).collect();
    clients.retain(|identity, _| live.contains(identity));
}

/// Keeps a new session and returns its id: 256 random bits, hex. The oldest idle session makes room at the cap.
fn new_session(sessions: &Mutex<HashMap<String, Session>>, person: Person, identity: Identity) -> String {
    let id = format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple());
    let mut sessions = lock(sessions);
    forget_stale(&mut sessions);
    if sessions.len() >= MAX_SESSIONS
        && let Some(oldest) = sessions.iter().min_by_key(|(_, s)| s.last_seen).map(|(id, _)| id.clone())
    {
        sessions.remove(&oldest);
    }
    let now = Instant::now();
    sessions.insert(id.clone(), Session { person, identity, last_seen: now, started: now });
    id
}

/// A client built from a kubeconfig, with the names that error messages and the UI need.
pub struct Connected {
    pub client: Client,
    /// What the client was built from: team mode builds each person's client from it, with their credentials.
    pub config: Config,
    pub identity: Identity,
    /// The kubeconfig file(s) it came from, for messages.
    pub source: String,
    pub context: String,
    /// Every context the kubeconfig names, in its order: what a local-mode server can switch between.
    pub contexts: Vec<String>,
    /// Whether this is the pod's own service account (no kubeconfig inside a pod).
    pub in_cluster: bool,
}

/// Why the server could not get a working client. Every message names the file, context or server involved.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot read kubeconfig {path}: {reason}")]
    ReadKubeconfig { path: String, reason: String },
    #[error("no kubeconfig found ({reason}): pass --kubeconfig or set KUBECONFIG")]
    NoKubeconfig { reason: String },
    #[error("context \"{context}\" is not in kubeconfig {path}; it has: {available}")]
    UnknownContext { context: String, path: String, available: String },
    #[error("kubeconfig {path} has no current-context: pass --context (it has: {available})")]
    NoContext { path: String, available: String },
    #[error("kubeconfig {path}, context \"{context}\": {reason}")]
    InvalidConfig { path: String, context: String, reason: String },
    #[error("cannot reach the Kubernetes API server {server} (context \"{context}\" in {path}): {reason}")]
    Unreachable { server: String, context: String, path: String, reason: String },
}

/// Builds a client from `--kubeconfig`/`$KUBECONFIG` (or `~/.kube/config`) and an optional context, then checks that
/// the API server answers, so that a bad setup fails at start-up with one clear line rather than on first use.
pub async fn connect(kubeconfig: Option<&Path>, context: Option<&str>) -> Result<Connected, ConnectError> {
    if kubeconfig.is_none() && context.is_none() && in_a_pod() {
        return connect_in_cluster().await;
    }
    let (config_file, source) = match kubeconfig {
        Some(path) => {
            let kc = Kubeconfig::read_from(path).map_err(|e| ConnectError::ReadKubeconfig {
                path: path.display().to_string(),
                reason: read_reason(&e),
            })?;
            (kc, path.display().to_string())
        }
        None => {
            let source = std::env::var("KUBECONFIG").unwrap_or_else(|_| default_kubeconfig_path());
            let kc = Kubeconfig::read().map_err(|e| match std::env::var_os("KUBECONFIG") {
                Some(_) => ConnectError::ReadKubeconfig { path: source.clone(), reason: read_reason(&e) },
                None => ConnectError::NoKubeconfig { reason: read_reason(&e) },
            })?;
            (kc, source)
        }
    };

    let available = || {
        let names: Vec<_> = config_file.contexts.iter().map(|c| c.name.as_str()).collect();
        if names.is_empty() { "no contexts".to_string() } else { names.join(", ") }
    };
    let context = match context.map(str::to_owned).or_else(|| config_file.current_context.clone()) {
        Some(c) if config_file.contexts.iter().any(|named| named.name == c) => c,
        Some(c) => {
            return Err(ConnectError::UnknownContext { context: c, path: source, available: available() });
        }
        None => {
            return Err(ConnectError::NoContext { path: source, available: available() });
        }
    };
    let user = config_file
        .contexts
        .iter()
        .find(|named| named.name == context)
        .and_then(|named| named.context.as_ref())
        .and_then(|ctx| ctx.user.clone())
        .unwrap_or_default();

    let options = KubeConfigOptions { context: Some(context.clone()), ..Default::default() };
    let invalid =
        |reason: String| ConnectError::InvalidConfig { path: source.clone(), context: context.clone(), reason };
    let mut config =
        Config::from_custom_kubeconfig(config_file.clone(), &options).await.map_err(|e| invalid(chain(&e)))?;
    // Fail fast when the server is not there; the default would wait for the OS to give up.
    config.connect_timeout = Some(Duration::from_secs(5));
    // No silent retries: kube's default retries 429 answers for minutes, which would hide a PodDisruptionBudget
    // refusal inside one slow call. Callers see every answer and decide (the drain loop retries evictions itself).
    config.default_retry = false;
    let server = config.cluster_url.to_string();
    let client = crate::retry::client(config.clone()).map_err(|e| invalid(chain(&e)))?;

    let probe = tokio::time::timeout(Duration::from_secs(15), client.apiserver_version()).await;
    let unreachable = |reason: String| ConnectError::Unreachable {
        server: server.clone(),
        context: context.clone(),
        path: source.clone(),
        reason,
    };
    match probe {
        Err(_) => return Err(unreachable("no answer within 15 s".into())),
        Ok(Err(e)) => return Err(unreachable(chain(&e))),
        Ok(Ok(_)) => {}
    }

    let contexts = config_file.contexts.iter().map(|named| named.name.clone()).collect();
    Ok(Connected {
        client,
        config,
        identity: Identity { cluster: server, user },
        source,
        context,
        contexts,
        in_cluster: false,
    })
}

/// Whether the server runs in a pod with no kubeconfig of its own: the API server's address in the environment
/// Kubernetes gives every pod, and neither `$KUBECONFIG` nor `~/.kube/config`.
fn in_a_pod() -> bool {
    std::env::var_os("KUBERNETES_SERVICE_HOST").is_some()
        && std::env::var_os("KUBECONFIG").is_none()
        && !Path::new(&default_kubeconfig_path()).exists()
}

/// The pod's own service account: the in-cluster config. It serves the server's own identity only (its read-only
/// cache and its bookkeeping); every person acts with their own credentials (team mode, which the server requires
/// here).
async fn connect_in_cluster() -> Result<Connected, ConnectError> {
    let source = "the pod's service account (in-cluster)".to_string();
    let context = "in-cluster".to_string();
    let invalid =
        |reason: String| ConnectError::InvalidConfig { path: source.clone(), context: context.clone(), reason };
    let mut config = Config::incluster().map_err(|e| invalid(chain(&e)))?;
    config.connect_timeout = Some(Duration::from_secs(5));
    config.default_retry = false;
    let server = config.cluster_url.to_string();
    let client = crate::retry::client(config.clone()).map_err(|e| invalid(chain(&e)))?;
    match tokio::time::timeout(Duration::from_secs(15), client.apiserver_version()).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => {
            return Err(ConnectError::Unreachable { server, context, path: source, reason: chain(&e) });
        }
        Err(_) => {
            let reason = "no answer within 15 s".into();
            return Err(ConnectError::Unreachable { server, context, path: source, reason });
        }
    }
    let identity = Identity { cluster: server, user: "in-cluster service account".into() };
    Ok(Connected {
        client,
        config,
        identity,
        source,
        context: context.clone(),
        contexts: vec![context],
        in_cluster: true,
    })
}

fn default_kubeconfig_path() -> String {
    std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".kube/config").display().to_string())
        .unwrap_or_else(|| "~/.kube/config".into())
}

/// The innermost useful reason of a kubeconfig read error (the I/O or YAML error, without the path repeated).
fn read_reason(err: &KubeconfigError) -> String {
    match err {
        KubeconfigError::ReadConfig(io, _) => io.to_string(),
        other => chain(other),
    }
}

/// Whether the client's identity may `verb` the resource, cluster-wide, asked of the API server.
pub async fn may(client: &Client, verb: &str, group: &str, resource: &str, subresource: Option<&str>) -> Result<bool> {
    may_in(client, None, verb, group, resource, subresource).await
}

/// Whether the client's identity may `verb` the resource in `namespace` (cluster-wide with `None`), asked of the
/// API server.
pub async fn may_in(
    client: &Client,
    namespace: Option<&str>,
    verb: &str,
    group: &str,
    resource: &str,
    subresource: Option<&str>,
) -> Result<bool> {
    use k8s_openapi::api::authorization::v1::{
        ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
    };
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.into()),
                group: Some(group.into()),
                resource: Some(resource.into()),
                subresource: subresource.map(Into::into),
                namespace: namespace.map(Into::into),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let answer = kube::Api::<SelfSubjectAccessReview>::all(client.clone())
        .create(&kube::api::PostParams::default(), &review)
        .await?;
    Ok(answer.status.is_some_and(|s| s.allowed))
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

    #[tokio::test]
    async fn sign_in_attempts_are_held_to_a_pace() {
        let config = Config::new("https://127.0.0.1:9".parse().expect("a URL"));
        let client = Client::try_from(config.clone()).expect("a client");
        let identity = Identity { cluster: "https://127.0.0.1:9".into(), user: "server".into() };
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
        let answers: Vec<_> = (0..21).map(|_| access.sign_in(&empty)).collect();
        let mut results = Vec::new();
        for answer in answers {
            results.push(answer.await);
        }
        assert!(results[..20].iter().all(|r| matches!(r, Err(Error::Invalid(_)))), "the burst is checked as usual");
        assert!(matches!(results[20], Err(Error::TooMany(_))), "then held back");
    }

    #[test]
    fn credentials_go_with_the_last_live_session_of_their_person() {
        let who = |user: &str| Identity { cluster: "c".into(), user: user.into() };
        // (An idle session cannot be made here: on a machine up for less than 12 h there is no Instant that old.)
        let session = |user: &str| Session {
            person: Person { username: user.into(), groups: Vec::new() },
            identity: who(user),
            last_seen: Instant::now(),
            started: Instant::now(),
        };
        let sessions = HashMap::from([("a1".to_owned(), session("alice")), ("a2".to_owned(), session("alice"))]);
        let mut clients = HashMap::from([(who("alice"), ()), (who("bob"), ())]);
        keep_live(&mut clients, &sessions);
        assert_eq!(clients.into_keys().map(|i| i.user).collect::<Vec<_>>(), ["alice"], "bob has no session left");
    }

    #[test]
    fn a_wall_session_is_derived_from_the_token_and_gives_it_nothing_away() {
        let token = "a".repeat(40);
        let id = wall_session_id(&token);
        assert!(id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()), "the form of every session id");
        assert!(!id.contains(&token));
        assert_eq!(id, wall_session_id(&token), "the same on every server with the token, and after a restart");
        assert_ne!(id, wall_session_id(&"b".repeat(40)));
    }

    #[test]
    fn chain_joins_sources_once() {
        let err = Outer(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused"));
        assert_eq!(chain(&err), "outer: connection refused");
    }
}
