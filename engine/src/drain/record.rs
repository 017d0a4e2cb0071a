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
///
/// `last` is the record this drain last wrote, if any: the write then lands only while the node still carries it
/// (a JSON Patch `test` of the annotation, then its `replace`), so that a drain cut off from the API server, whose
/// write arrives late, never overwrites the record of the drain another server resumed since. The record written,
/// for the next write's test; `last` unchanged when this one did not land.
pub(super) async fn record(
    client: &Client,
    node: &str,
    progress: &watch::Sender<DrainProgress>,
    last: Option<String>,
) -> Option<String> {
    let record = {
        let progress = progress.borrow();
        if progress.options.dry_run != DryRun::None {
            return last;
        }
        DrainRecord::from(&*progress)
    };
    let Ok(value) = serde_json::to_string(&record) else {
        return last;
    };
    let nodes: Api<Node> = Api::all(client.clone());
    let written = match &last {
        None => {
            let patch = serde_json::json!({"metadata": {"annotations": {RECORD_ANNOTATION: value}}});
            nodes.patch(node, &PatchParams::default(), &Patch::Merge(patch)).await
        }
        Some(last) => {
            let path = format!("/metadata/annotations/{}", RECORD_ANNOTATION.replace('~', "~0").replace('/', "~1"));
            let ops = serde_json::json!([
                {"op": "test", "path": path, "value": last},
                {"op": "replace", "path": path, "value": value},
            ]);
            match serde_json::from_value::<json_patch::Patch>(ops) {
                Ok(ops) => nodes.patch(node, &PatchParams::default(), &Patch::<()>::Json(ops)).await,
                Err(_) => return Some(last.clone()),
            }
        }
    };
    match written {
        Ok(_) => Some(value),
        // The test failed: someone wrote the node's record since this drain last did.
        Err(kube::Error::Api(answer)) if answer.code == 422 => {
            tracing::warn!(%node, "the node's drain record changed since this drain wrote it; this drain's record is not written over it");
            last
        }
        Err(err) => {
            tracing::warn!(%node, error = %api_message(&err), "could not record the drain on the node");
            last
        }
    }
}

/// Ends a drain whose task failed outright (a panic): Failed with the reason, on the progress and on the node,
/// so that nobody waits on it and the node can be drained again.
pub(super) async fn fail(
    client: &Client,
    node: &str,
    progress: &watch::Sender<DrainProgress>,
    last: Option<String>,
    why: Failure,
) {
    progress.send_modify(|p| {
        p.state = DrainState::Failed(why);
        p.finished_at = Some(Timestamp::now());
    });
    record(client, node, progress, last).await;
}
