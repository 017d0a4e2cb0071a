//! The drain's record on its Node (annotation [`RECORD_ANNOTATION`]): what other replicas, and a restarted server,
//! know of it. Reading the records back is [`super::recorded`].

use domain::{
    drain::DryRun,
    failure::Failure,
    progress::{DrainProgress, DrainRecord, DrainState, RECORD_ANNOTATION},
};
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Node;
use kube::{
    Api, Client,
    api::{Patch, PatchParams},
};
use tokio::sync::watch;

use crate::kube_error::api_message;

/// Writes the drain's record on the Node. Dry runs change nothing, so they write nothing. A failed write is
/// logged, not fatal: the drain itself is what matters, and its progress stays visible here.
pub(super) async fn record(client: &Client, node: &str, progress: &watch::Sender<DrainProgress>) {
    let record = {
        let progress = progress.borrow();
        if progress.options.dry_run != DryRun::None {
            return;
        }
        DrainRecord::from(&*progress)
    };
    let Ok(value) = serde_json::to_string(&record) else {
        return;
    };
    let nodes: Api<Node> = Api::all(client.clone());
    let patch = serde_json::json!({"metadata": {"annotations": {RECORD_ANNOTATION: value}}});
    if let Err(err) = nodes.patch(node, &PatchParams::default(), &Patch::Merge(patch)).await {
        tracing::warn!(%node, error = %api_message(&err), "could not record the drain on the node");
    }
}

/// Ends a drain whose task failed outright (a panic): Failed with the reason, on the progress and on the node,
/// so that nobody waits on it and the node can be drained again.
pub(super) async fn fail(client: &Client, node: &str, progress: &watch::Sender<DrainProgress>, why: Failure) {
    progress.send_modify(|p| {
        p.state = DrainState::Failed(why);
        p.finished_at = Some(Timestamp::now());
    });
    record(client, node, progress).await;
}
