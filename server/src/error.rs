//! The server's error type: everything that can stop `drainboard` from starting or serving.

use std::{io, net::SocketAddr};

use engine::access::ConnectError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Connect(#[from] ConnectError),
    #[error(
        "cannot read the site configuration (set LEPTOS_SITE_ROOT and the other LEPTOS_* variables, as ./run does): {0}"
    )]
    SiteConfig(String),
    #[error(
        "refusing to serve on {0}: every request acts with your kubeconfig's credentials, so Drainboard listens on \
         loopback only (use --addr 127.0.0.1:PORT, or --team so that each person signs in as themselves)"
    )]
    NotLoopback(SocketAddr),
    #[error(
        "team mode serves HTTPS: pass --tls-cert and --tls-key, or --insecure-http when a proxy in front \
         terminates TLS"
    )]
    TeamWithoutTls,
    #[error("{0} is a team-mode flag: add --team, or leave it out")]
    TeamOnly(&'static str),
    #[error("--wall-token needs at least {0} characters: make one with `openssl rand -hex 32`")]
    ShortWallToken(usize),
    #[error(
        "running in a pod with the pod's service account: add --team, so that each person signs in and acts as \
         themselves (the service account only reads and keeps the server's own records)"
    )]
    InClusterNeedsTeam,
    #[error("{0}")]
    LocalToken(String),
    #[error("TLS: {0}")]
    Tls(String),
    #[error("{0}")]
    Alertmanager(String),
    #[error("{0}")]
    Webhooks(String),
    #[error("--reboot-required: {0}")]
    RebootSignals(String),
    #[error("cannot open the audit log {path}: {source}")]
    AuditLog { path: String, source: io::Error },
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: io::Error },
    #[error("serving failed: {0}")]
    Serve(io::Error),
}
