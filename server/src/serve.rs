//! The connection loop: hyper-util's server builder instead of `axum::serve`, which sets no timeouts. Every
//! connection is held to [`Limits`]: a client that connects and asks nothing (sends no byte, part of a request's
//! headers, or part of the HTTP/2 preface), or leaves a connection idle, is cut off, and connections are capped
//! in all and per peer address, so that nobody can hold the server's connections (and file descriptors) for free.
//! Event streams are requests in flight, not idle connections, and are not affected; over HTTP/2, pings find the
//! peers that vanished under them.
//!
//! In team mode the loop serves HTTPS: each connection's TLS handshake runs in its own task, within the
//! connection's first-request deadline, so a client that stalls mid-handshake holds up no one else.

use std::{convert::Infallible, io, net::SocketAddr, path::Path, sync::Arc, time::Duration};

use axum::{Router, extract::ConnectInfo, http::Request};
use hyper::body::Incoming;
use hyper_util::{
    rt::{TokioExecutor, TokioIo, TokioTimer},
    server::conn::auto,
};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
use tokio::{
    io::{AsyncRead, AsyncWrite},
    net::TcpListener,
    time::Instant,
};
use tokio_rustls::TlsAcceptor;
use tokio_util::{sync::CancellationToken, task::TaskTracker};
use tower::Service;

use crate::limits::{Activity, Limits, Slots, Tracked};

#[cfg(test)]
mod tests;

/// The TLS settings of a certificate chain and its key, both PEM files.
pub fn tls_config(cert: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<_, _>>())
        .map_err(|e| format!("cannot read the certificate {}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no PEM certificate", cert.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| format!("cannot read the key {}: {e}", key.display()))?;
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("the certificate and key do not make a TLS identity: {e}"))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Serves `router` on `listener` (over TLS with `tls`) within `limits` until `shutdown`, then waits up to
/// `drain_limit` for open connections to finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    tls: Option<Arc<rustls::ServerConfig>>,
    shutdown: CancellationToken,
    drain_limit: Duration,
    limits: Limits,
) -> io::Result<()> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.idle);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(limits.ping_interval)
        .keep_alive_timeout(limits.ping_timeout)
        .max_concurrent_streams(limits.streams);
    let acceptor = tls.map(TlsAcceptor::from);
    let slots = Slots::default();
    let connections = TaskTracker::new();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors, say: wait a moment rather than spin.
                    tracing::warn!(error = %err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = shutdown.cancelled() => break,
        };
        let accepted = Instant::now();
        // Over the cap, the connection is closed at once: dropping the stream closes it.
        let Some(slot) = slots.take(peer.ip(), &limits) else {
            slots.refused(peer.ip(), &limits);
            continue;
        };
        let (builder, router, acceptor, shutdown) =
            (builder.clone(), router.clone(), acceptor.clone(), shutdown.clone());
        connections.spawn(async move {
            let _slot = slot;
            let activity = Activity::new(accepted);
            let result = match acceptor {
                None => connection(&builder, router, stream, peer, activity, &limits, &shutdown).await,
                Some(acceptor) => {
                    match tokio::time::timeout_at(accepted + limits.first_request, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => connection(&builder, router, tls, peer, activity, &limits, &shutdown).await,
                        Ok(Err(err)) => Err(err.into()),
                        Err(_) => Err("TLS handshake timed out".into()),
                    }
                }
            };
            if let Err(err) = result {
                tracing::debug!(%peer, error = %err, "connection ended");
            }
        });
    }
    drop(listener);
    connections.close();
    if tokio::time::timeout(drain_limit, connections.wait()).await.is_err() {
        tracing::warn!("connections still open {} s after the shutdown signal; stopping anyway", drain_limit.as_secs());
    }
    Ok(())
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Serves one connection until it ends, goes idle past its limit (the first request's limit before anything was
/// asked) or the server stops; then closes it gracefully (HTTP/2's GOAWAY), within `limits.closing`.
async fn connection<S>(
    builder: &auto::Builder<TokioExecutor>,
    router: Router,
    stream: S,
    peer: SocketAddr,
    activity: Activity,
    limits: &Limits,
    shutdown: &CancellationToken,
) -> Result<(), BoxError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = {
        let activity = activity.clone();
        hyper::service::service_fn(move |mut request: Request<Incoming>| {
            let in_flight = activity.start();
            // The peer's address, for whoever logs a decision about the request (`ConnectInfo`, as axum's own
            // loop would give it).
            request.extensions_mut().insert(ConnectInfo(peer));
            let mut router = router.clone();
            async move {
                // A router is always ready: it needs no `poll_ready` first.
                let response = router.call(request).await?;
                Ok::<_, Infallible>(response.map(|body| Tracked::body(body, in_flight)))
            }
        })
    };
    let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let idle = async {
        loop {
            match activity.idle_deadline(limits) {
                Some(deadline) if deadline <= Instant::now() => break,
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                // A request in flight: look again a while later (a response ending moves the deadline).
                None => tokio::time::sleep(limits.idle).await,
            }
        }
    };
    tokio::select! {
        result = connection.as_mut() => return result,
        () = idle => tracing::debug!(%peer, "closing an idle connection"),
        () = shutdown.cancelled() => {}
    }
    connection.as_mut().graceful_shutdown();
    match tokio::time::timeout(limits.closing, connection).await {
        Ok(result) => result,
        Err(_) => Err("the connection did not close in time".into()),
    }
}
