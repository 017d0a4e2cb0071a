//! The node's Lease, renewed while its drain runs: other servers show the drain from it, and leave the node alone.
//! The renewal itself is the engine's one Lease guard ([`crate::lease::guard`]), which plans use too.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use domain::progress::{DrainProgress, DrainSummary};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::lease::Leases;

/// A task that ends with its owner.
pub(crate) struct AbortOnDrop(pub tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Renews the node's Lease until aborted, publishing the drain's progress on it. When the guard gives up (no
/// renewal for [`crate::lease::GIVE_UP_AFTER`], or another server holds the Lease now), the drain is stopped (and
/// ends interrupted, resumable): evicting on would race the server that may take the node over.
pub(super) async fn renew(
    leases: Leases,
    node: String,
    progress: watch::Receiver<DrainProgress>,
    cancel: CancellationToken,
    lost: Arc<AtomicBool>,
) {
    let what = format!("node {node}");
    crate::lease::guard(&what, || {
        // Every other server shows the drain from this: its progress, at most one renewal behind.
        let summary = DrainSummary::from(&*progress.borrow());
        let (leases, node) = (leases.clone(), node.clone());
        async move { leases.renew(&node, Some(&summary)).await }
    })
    .await;
    // The guard returns only when the Lease is lost; a drain that ends aborts it.
    crate::metrics::METRICS.lease_lost("node");
    lost.store(true, Ordering::Relaxed);
    cancel.cancel();
}
