//! Who each call is made as: loading the user's kubeconfig, and one client per identity.
//!
//! Every API call is made with the credentials of the person behind the request, never with a service account of
//! Drainboard's own. Today there is one person, the operator who started the server with their kubeconfig; the
//! registry is keyed by [`Identity`] so that signed-in users each get their own client (and, later, caches).

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, RwLock},
    time::Duration,
};

use kube::{
    Client, Config,
    config::{KubeConfigOptions, Kubeconfig, KubeconfigError},
};

use crate::{Error, Result};

/// Who an API call is made as: the user's credentials on one cluster.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    /// The API server's URL.
    pub cluster: String,
    /// The kubeconfig user (AuthInfo) name, or the signed-in user's name.
    pub user: String,
}

/// Kubernetes clients keyed by identity, shared by every request and task of the server.
#[derive(Clone)]
pub struct KubeAccess {
    inner: Arc<Inner>,
}

struct Inner {
    operator: Identity,
    clients: RwLock<HashMap<Identity, Client>>,
}

impl KubeAccess {
    /// Access for a server run by one operator with their own kubeconfig: every request acts as them.
    pub fn single_user(connected: Connected) -> Self {
        let clients = HashMap::from([(connected.identity.clone(), connected.client)]);
        KubeAccess { inner: Arc::new(Inner { operator: connected.identity, clients: RwLock::new(clients) }) }
    }

    /// The identity the current request acts as. Single-user mode: the operator who started the server.
    pub fn identity_for_request(&self) -> Identity {
        self.inner.operator.clone()
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

/// A client built from a kubeconfig, with the names that error messages and the UI need.
pub struct Connected {
    pub client: Client,
    pub identity: Identity,
    /// The kubeconfig file(s) it came from, for messages.
    pub source: String,
    pub context: String,
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
    let client = Client::try_from(config).map_err(|e| invalid(chain(&e)))?;

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

    Ok(Connected { client, identity: Identity { cluster: server, user }, source, context })
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

    #[test]
    fn chain_joins_sources_once() {
        let err = Outer(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused"));
        assert_eq!(chain(&err), "outer: connection refused");
    }
}
