//! Which kubeconfig context the page shows (local mode): the server serves each under its own address prefix
//! (`domain::context`), and every link, server function and event stream of the page keeps to it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The request's context, as the server found it in the address: the prefix (`""` for the server's first
/// context) and the context's name. The server puts it in every request's extensions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContextPath {
    pub prefix: String,
    pub name: String,
}

/// Every context the server can show, as (name, address prefix); empty in team mode. The server puts it in every
/// request's extensions.
#[derive(Clone, Debug, Default)]
pub struct ContextList(pub Arc<Vec<(String, String)>>);

/// A context in the header's switcher.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextLink {
    pub name: String,
    /// Its board's address.
    pub href: String,
    /// Whether this page shows it.
    pub current: bool,
}

/// The address prefix of the page being rendered: from the request on the server, from the address in the
/// browser; both split it with `domain::context::split`, so that hydration sees the same links.
pub fn prefix() -> String {
    #[cfg(feature = "ssr")]
    {
        leptos::prelude::use_context::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<ContextPath>().map(|path| path.prefix.clone()))
            .unwrap_or_default()
    }
    #[cfg(not(feature = "ssr"))]
    {
        browser_prefix()
    }
}

/// The prefix of the browser's address.
#[cfg(not(feature = "ssr"))]
pub fn browser_prefix() -> String {
    let path = leptos::prelude::window().location().pathname().unwrap_or_default();
    domain::context::split(&path).map(|split| split.prefix.to_owned()).unwrap_or_default()
}

/// A page's address in the page's own context: `href("/nodes/n1")`; the board of another context is its bare
/// prefix (`/ctx/NAME`, as the routes have it).
pub fn href(path: &str) -> String {
    let prefix = prefix();
    if path == "/" && !prefix.is_empty() { prefix } else { format!("{prefix}{path}") }
}

/// An endpoint's address in the page's context, for an event stream: server functions get the prefix from
/// `server_fn`'s server URL, set once at hydration.
pub fn api(path: &str) -> String {
    format!("{}{path}", prefix())
}
