//! The node's Lease, renewed while its drain runs: other servers show the drain from it, and leave the node alone.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use domain::progress::{DrainProgress, DrainSummary};
use tokio::{sync::watch, time::Instant};
use tokio_util::sync::CancellationToken;

use crate::{
    kube_error::api_message,
    lease::{GIVE_UP_AFTER, Leases, RENEW_EVERY},
};

/// A task that ends with its owner.
pub(super) struct AbortOnDrop(pub tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Renews the node's Lease every [`RENEW_EVERY`] until aborted. When no renewal has succeeded for
/// [`GIVE_UP_AFTER`], or another server holds the Lease now, the drain is stopped (and ends interrupted,
/// resumable): evicting on would race the server that may take the node over.
pub(super) async fn renew(
    leases: Leases,
    node: String,
    progress: watch::Receiver<DrainProgress>,
    cancel: CancellationToken,
    lost: Arc<AtomicBool>,
) {
    let mut last_renewed = Instant::now();
    // The first renewal at once, so that other servers show the drain from its start.
    let mut first = true;
    loop {
        if !std::mem::take(&mut first) {
            tokio::time::sleep(RENEW_EVERY).await;
        }
        // Every other server shows the drain from this: its progress, at most one renewal behind.
        let summary = DrainSummary::from(&*progress.borrow());
        // The deadline holds whatever the call does: an answer that asks to retry after a minute, or one that never
        // comes, must not keep this drain evicting past it.
        let left = GIVE_UP_AFTER.saturating_sub(last_renewed.elapsed());
        let Ok(renewed) = tokio::time::timeout(left, leases.renew(&node, Some(&summary))).await else {
            tracing::error!(%node, "the node's Lease could not be renewed in time; stopping this drain");
            break;
        };
        match renewed {
            Ok(true) => last_renewed = Instant::now(),
            Ok(false) => {
                tracing::error!(%node, "another server holds the node's Lease now; stopping this drain");
                break;
            }
            Err(err) => {
                tracing::warn!(%node, error = %api_message(&err), "could not renew the node's Lease");
                if last_renewed.elapsed() >= GIVE_UP_AFTER {
                    tracing::error!(%node, "the node's Lease could not be renewed in time; stopping this drain");
                    break;
                }
            }
        }
    }
    lost.store(true, Ordering::Relaxed);
    cancel.cancel();
}
