//! The server's error type: everything that can stop `drainboard` from starting or serving.

use std::{io, net::SocketAddr};

use engine::access::ConnectError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Connect(#[from] ConnectError),
    #[error("cannot read the site configuration (run through cargo-leptos, or set LEPTOS_* variables): {0}")]
    SiteConfig(String),
    #[error(
        "refusing to serve on {0}: every request acts with your kubeconfig's credentials, so Drainboard listens on \
         loopback only (use --addr 127.0.0.1:PORT, and an SSH tunnel or a proxy to reach it from elsewhere)"
    )]
    NotLoopback(SocketAddr),
    #[error("DRAINBOARD_TEST_HOOKS: {0}")]
    TestHooks(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: io::Error },
    #[error("serving failed: {0}")]
    Serve(io::Error),
}
