//! The connection loop: hyper-util's server builder instead of `axum::serve`, which sets no timeouts. A client
//! that sends its headers slowly, or leaves a connection idle, is cut off, so that nobody can hold the server's
//! connections open for free. Event streams are responses, not idle connections, and are not affected.

use std::{io, time::Duration};

use axum::Router;
use hyper_util::{
    rt::{TokioExecutor, TokioIo, TokioTimer},
    server::{conn::auto, graceful::GracefulShutdown},
    service::TowerToHyperService,
};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// How long a client has to send a request's headers, counted from the moment the connection waits for them:
/// so it is also how long an idle keep-alive connection stays open.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `router` on `listener` until `shutdown`, then waits up to `drain_limit` for open connections to finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
    drain_limit: Duration,
) -> io::Result<()> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    builder.http2().timer(TokioTimer::new());
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
        let service = TowerToHyperService::new(router.clone());
        let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service).into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
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
