//! Connecting at start-up (and, in local mode, on a context's first request): the kubeconfig or the pod's service
//! account, made into a client that is checked before it is used. A room of its own, since it runs once per context
//! and reports to the person starting the server, while the rest of `access` serves every request.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use kube::{
    Client, Config,
    config::{KubeConfigOptions, Kubeconfig, KubeconfigError},
};

use super::identity::Identity;
use crate::kube_error::chain;

/// How long the first connection may take before the server says the API server is not there.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the check that the API server answers may take.
const PROBE_LIMIT: Duration = Duration::from_secs(15);

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
    let place = Place { source, context };
    let config =
        Config::from_custom_kubeconfig(config_file.clone(), &options).await.map_err(|e| place.invalid(chain(&e)))?;
    let (client, config) = checked_client(config, &place).await?;
    let contexts = config_file.contexts.iter().map(|named| named.name.clone()).collect();
    Ok(Connected {
        client,
        identity: Identity::operator(config.cluster_url.to_string(), user),
        config,
        source: place.source,
        context: place.context,
        contexts,
        in_cluster: false,
    })
}

/// Where a connection's settings came from, for its error messages.
struct Place {
    source: String,
    context: String,
}

impl Place {
    fn invalid(&self, reason: String) -> ConnectError {
        ConnectError::InvalidConfig { path: self.source.clone(), context: self.context.clone(), reason }
    }
}

/// The client for `config`, set up as every client of the server is, once the API server has answered.
async fn checked_client(mut config: Config, place: &Place) -> Result<(Client, Config), ConnectError> {
    // Fail fast when the server is not there; the default would wait for the OS to give up.
    config.connect_timeout = Some(CONNECT_TIMEOUT);
    // No silent retries: kube's default retries 429 answers for minutes, which would hide a PodDisruptionBudget
    // refusal inside one slow call. Callers see every answer and decide (the drain loop retries evictions itself).
    config.default_retry = false;
    let client = crate::retry::client(config.clone()).map_err(|e| place.invalid(chain(&e)))?;
    let unreachable = |reason: String| ConnectError::Unreachable {
        server: config.cluster_url.to_string(),
        context: place.context.clone(),
        path: place.source.clone(),
        reason,
    };
    match tokio::time::timeout(PROBE_LIMIT, client.apiserver_version()).await {
        Err(_) => Err(unreachable(format!("no answer within {} s", PROBE_LIMIT.as_secs()))),
        Ok(Err(e)) => Err(unreachable(chain(&e))),
        Ok(Ok(_)) => Ok((client, config)),
    }
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
    let place = Place { source: "the pod's service account (in-cluster)".into(), context: "in-cluster".into() };
    let config = Config::incluster().map_err(|e| place.invalid(chain(&e)))?;
    let (client, config) = checked_client(config, &place).await?;
    let identity = Identity::operator(config.cluster_url.to_string(), "in-cluster service account");
    Ok(Connected {
        client,
        config,
        identity,
        source: place.source,
        contexts: vec![place.context.clone()],
        context: place.context,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_api_server_that_is_not_there_is_named_with_the_place_it_came_from() {
        let config = Config::new("https://127.0.0.1:9".parse().expect("a URL"));
        let place = Place { source: "test.kubeconfig".into(), context: "t".into() };
        let Err(err) = checked_client(config, &place).await else { panic!("nothing listens there") };
        assert!(
            matches!(&err, ConnectError::Unreachable { context, path, .. } if context == "t" && path == "test.kubeconfig"),
            "{err}"
        );
    }
}
