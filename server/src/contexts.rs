//! Which cluster each request is for. In local mode the server serves every context of the operator's kubeconfig,
//! each with an engine of its own (clients, caches, drains, Leases): the context it started with at `/`, any other
//! under `/ctx/NAME/` (`domain::context`). Another context is connected on its first request, as `kubectl
//! --context NAME` would, and kept for the server's life.
//!
//! This layer wraps the whole router, so that it can take the prefix off server-function and stream addresses
//! before routing (`/ctx/b/api/board` is `/api/board` for context `b`); pages keep it, and the app's routes match
//! both forms. It puts the context's [`Engine`] and its [`ContextPath`] in the request's extensions, where the
//! session layer, the server functions and the streams read them. Team mode serves the one cluster the server
//! runs in: `/ctx/` addresses are not found there.

use std::{collections::HashMap, path::PathBuf, sync::Arc};

use app::AppError;
use app::context::{ContextList, ContextPath};
use axum::{
    extract::{Request, State},
    http::Uri,
    middleware::Next,
    response::{IntoResponse, Response},
};
use engine::{Engine, access::Connected};
use tokio::sync::OnceCell;

/// Makes a context's engine from its connection, with the server's settings.
pub type Build = Arc<dyn Fn(Connected) -> Result<Engine, crate::error::Error> + Send + Sync>;

/// The contexts a server can serve, and their engines once connected.
#[derive(Clone)]
pub struct Contexts {
    inner: Arc<Inner>,
}

struct Inner {
    first: Engine,
    first_name: String,
    /// Every context of the kubeconfig, in its order; empty in team mode.
    names: Vec<String>,
    kubeconfig: Option<PathBuf>,
    build: Option<Build>,
    others: parking_lot::Mutex<HashMap<String, Arc<OnceCell<Engine>>>>,
    /// What the header lists, made once.
    list: ContextList,
}

impl Contexts {
    /// Local mode: `first` serves `first_name` at `/`, and every other name in `names` is connected through
    /// `kubeconfig` on demand and made an engine by `build`.
    pub fn local(
        first: Engine,
        first_name: String,
        names: Vec<String>,
        kubeconfig: Option<PathBuf>,
        build: Build,
    ) -> Self {
        let list = ContextList(Arc::new(links(&first_name, &names)));
        let inner =
            Inner { first, first_name, names, kubeconfig, build: Some(build), others: Default::default(), list };
        Contexts { inner: Arc::new(inner) }
    }

    /// One engine and no other context: team mode, and tests.
    pub fn only(first: Engine) -> Self {
        let inner = Inner {
            first,
            first_name: String::new(),
            names: Vec::new(),
            kubeconfig: None,
            build: None,
            others: Default::default(),
            list: ContextList::default(),
        };
        Contexts { inner: Arc::new(inner) }
    }

    /// The engine of the context the server started with.
    pub fn first(&self) -> &Engine {
        &self.inner.first
    }

    /// The engine of context `name`, connecting it on first use.
    async fn engine(&self, name: &str) -> Result<Engine, AppError> {
        if name == self.inner.first_name {
            return Ok(self.inner.first.clone());
        }
        let Some(build) = self.inner.build.as_ref().filter(|_| self.inner.names.iter().any(|n| n == name)) else {
            let why = if self.inner.names.is_empty() {
                "this server serves one cluster; open / instead".to_string()
            } else {
                format!("no context {name:?} in the kubeconfig; it has: {}", self.inner.names.join(", "))
            };
            return Err(AppError::NotFound(why));
        };
        let cell = self.inner.others.lock().entry(name.to_owned()).or_default().clone();
        cell.get_or_try_init(|| async {
            let connected = engine::access::connect(self.inner.kubeconfig.as_deref(), Some(name)).await?;
            tracing::info!(context = %name, server = %connected.identity.cluster, "connected to another context");
            build(connected)
        })
        .await
        .cloned()
        // Not kept: the next request tries again, as the cluster may be back.
        .map_err(not_connected)
    }
}

/// Every context's name and the prefix of its addresses, the first one's empty: what the header lists.
fn links(first_name: &str, names: &[String]) -> Vec<(String, String)> {
    names
        .iter()
        .map(|name| {
            let prefix = if name == first_name { String::new() } else { domain::context::prefix_for(name) };
            (name.clone(), prefix)
        })
        .collect()
}

/// Why another context could not be served: its API server cannot be reached (503, as for the first context), or
/// its entry of the kubeconfig, or the engine made for it, fails (500: the server's own setup, not the request).
fn not_connected(err: crate::error::Error) -> AppError {
    match err {
        crate::error::Error::Connect(err @ engine::access::ConnectError::Unreachable { .. }) => {
            AppError::Connection(err.to_string())
        }
        other => AppError::Internal(other.to_string()),
    }
}

/// The layer: finds the request's context, and puts its engine and prefix in the request's extensions.
pub async fn layer(State(contexts): State<Contexts>, mut request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let split = match domain::context::split(&path) {
        Ok(split) => split,
        Err(why) => return AppError::NotFound(why).into_response(),
    };
    // Another context's first request connects it, which may run its exec plugin: not for a request another site
    // made (an image or a link on a foreign page), which the guard lets through as a GET. The address bar, a
    // bookmark and Drainboard's own pages send `none` or `same-origin`; scripts send nothing.
    if split.name.is_some()
        && let Some(site) = request.headers().get("sec-fetch-site").and_then(|v| v.to_str().ok())
        && site != "same-origin"
        && site != "none"
    {
        let why = "another site's request cannot open a context: open the address yourself, or use the header's links";
        return AppError::Forbidden(why.into()).into_response();
    }
    let engine = match &split.name {
        None => contexts.first().clone(),
        Some(name) => match contexts.engine(name).await {
            Ok(engine) => engine,
            Err(refused) => return refused.into_response(),
        },
    };
    // Server functions and streams have one address each; the prefix only chose the engine.
    if !split.prefix.is_empty() && split.rest.starts_with("/api/") {
        let rest = match request.uri().query() {
            Some(query) => format!("{}?{query}", split.rest),
            None => split.rest.to_owned(),
        };
        match rest.parse::<Uri>() {
            Ok(uri) => *request.uri_mut() = uri,
            Err(_) => return AppError::NotFound("not a valid address".into()).into_response(),
        }
    }
    let path = ContextPath {
        prefix: split.prefix.to_owned(),
        name: split.name.unwrap_or_else(|| contexts.inner.first_name.clone()),
    };
    request.extensions_mut().insert(engine);
    request.extensions_mut().insert(path);
    request.extensions_mut().insert(contexts.inner.list.clone());
    next.run(request).await
}
