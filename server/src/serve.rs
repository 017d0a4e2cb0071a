//! The connection loop: hyper-util's server builder instead of `axum::serve`, which sets no timeouts. A client
//! that sends its headers slowly, or leaves a connection idle, is cut off, so that nobody can hold the server's
//! connections open for free. Event streams are responses, not idle connections, and are not affected.
//!
//! In team mode the loop serves HTTPS: each connection's TLS handshake runs in its own task, under the same
//! deadline as a request's headers, so a client that stalls mid-handshake holds up no one else.

use std::{io, path::Path, sync::Arc, time::Duration};

use axum::Router;
use hyper_util::{
    rt::{TokioExecutor, TokioIo, TokioTimer},
    server::{conn::auto, graceful::GracefulShutdown},
    service::TowerToHyperService,
};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
use tokio::{
    io::{AsyncRead, AsyncWrite},
    net::TcpListener,
};
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

/// How long a client has to send a request's headers, counted from the moment the connection waits for them:
/// so it is also how long an idle keep-alive connection stays open, and how long a TLS handshake may take.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

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

/// Serves `router` on `listener` (over TLS with `tls`) until `shutdown`, then waits up to `drain_limit` for open
/// connections to finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    tls: Option<Arc<rustls::ServerConfig>>,
    shutdown: CancellationToken,
    drain_limit: Duration,
) -> io::Result<()> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    builder.http2().timer(TokioTimer::new());
    let acceptor = tls.map(TlsAcceptor::from);
    let graceful = GracefulShutdown::new();
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
        let (builder, router, watcher, acceptor) =
            (builder.clone(), router.clone(), graceful.watcher(), acceptor.clone());
        tokio::spawn(async move {
            let result = match acceptor {
                None => connection(&builder, router, watcher, stream).await,
                Some(acceptor) => match tokio::time::timeout(HEADER_READ_TIMEOUT, acceptor.accept(stream)).await {
                    Ok(Ok(tls)) => connection(&builder, router, watcher, tls).await,
                    Ok(Err(err)) => Err(err.into()),
                    Err(_) => Err("TLS handshake timed out".into()),
                },
            };
            if let Err(err) = result {
                tracing::debug!(%peer, error = %err, "connection ended");
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(drain_limit, graceful.shutdown()).await.is_err() {
        tracing::warn!("connections still open {} s after the shutdown signal; stopping anyway", drain_limit.as_secs());
    }
    Ok(())
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

async fn connection<S>(
    builder: &auto::Builder<TokioExecutor>,
    router: Router,
    watcher: hyper_util::server::graceful::Watcher,
    stream: S,
) -> Result<(), BoxError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = TowerToHyperService::new(router);
    let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
    watcher.watch(connection.into_owned()).await
}
