//! After every pod is gone: the wait for the node's volumes to detach (`VolumeAttachment`s that still name it), so
//! that "safe to reboot" is true of the storage too. Read with the person's credentials every two seconds; a
//! drain waits on one node, so a list now and then costs the API server less than a watch per drain would hold.

use std::time::Duration;

use domain::{
    failure::ApiAnswer,
    progress::DrainState,
    volume::{Attached, DETACH_WAIT_SECONDS, on_node},
};
use k8s_openapi::api::storage::v1::VolumeAttachment;
use kube::{Api, api::ListParams};
use tokio::time::Instant;

use super::{task::Drain, wait::sleep_until};
use crate::kube_error;

/// Between two looks at the node's attachments.
const POLL: Duration = Duration::from_secs(2);

impl Drain {
    /// Waits until no volume is attached to the node: `Drained` then; `DrainedVolumesAttached` with what is still
    /// attached once [`DETACH_WAIT_SECONDS`] (or the drain's own deadline, if sooner) pass; `DrainedVolumesUnknown`
    /// when the attachments cannot be read. A Cancel ends the wait as the drain's cancel does.
    pub(super) async fn wait_volumes(&self, deadline: Option<Instant>) -> DrainState {
        let own = Instant::now() + Duration::from_secs(DETACH_WAIT_SECONDS);
        let until = deadline.map_or(own, |d| d.min(own));
        let api: Api<VolumeAttachment> = Api::all(self.client.clone());
        let mut failing: Option<ApiAnswer>;
        let mut attached = Attached::default();
        loop {
            self.pacer.ready().await;
            match api.list(&ListParams::default()).await {
                Ok(list) => {
                    failing = None;
                    attached = Attached::new(list.items.iter().filter_map(|va| on_node(va, &self.node)).collect());
                    if attached.is_empty() {
                        return DrainState::Drained;
                    }
                    if self.progress.borrow().state != DrainState::Detaching(attached.clone()) {
                        self.set_state(DrainState::Detaching(attached.clone()));
                    }
                }
                // Not allowed to read them: say so at once rather than wait to no purpose.
                Err(err) if kube_error::status(&err).is_some_and(|s| matches!(s.code, 401 | 403)) => {
                    return DrainState::DrainedVolumesUnknown(kube_error::answer(&err));
                }
                Err(err) => {
                    tracing::info!(error = %err, "volume attachments not read; trying again");
                    failing = Some(kube_error::answer(&err));
                }
            }
            tokio::select! {
                () = tokio::time::sleep(POLL) => {},
                () = self.cancel.cancelled() => return self.stop_reason().unwrap_or(DrainState::Cancelled),
                () = sleep_until(Some(until)) => {
                    return match failing {
                        Some(answer) => DrainState::DrainedVolumesUnknown(answer),
                        None => DrainState::DrainedVolumesAttached(attached),
                    };
                }
            }
        }
    }
}
