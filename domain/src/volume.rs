//! The storage side of "safe to reboot": a node whose pods are gone may still have volumes attached
//! (`VolumeAttachment`s naming it), which a reboot or a hand-back would tear from under their storage. A drain
//! waits for them to detach before it says the node is safe.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// How long a drain waits for the node's volumes to detach, at most: the attach-detach controller detaches a volume
/// by force after six minutes of a pod gone, so a volume still attached after that will not go by waiting.
pub const DETACH_WAIT_SECONDS: u64 = 360;

/// The most volumes a drain's state names (the count says how many there are): the state travels to every viewer
/// and into the node's Lease.
pub const MAX_NAMED: usize = 8;

/// One volume still attached to the node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachedVolume {
    /// The `VolumeAttachment`'s name.
    pub attachment: String,
    /// `spec.attacher`: the CSI driver that detaches it.
    pub attacher: String,
    /// The PersistentVolume it attaches, or `inline` for an inline volume.
    pub volume: String,
    /// Since when it has been attached (the object's creation), to say how long it has waited.
    pub since: Option<Timestamp>,
}

/// The volumes still attached, as a drain's state carries them: the first [`MAX_NAMED`], and how many in all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attached {
    pub count: usize,
    pub named: Vec<AttachedVolume>,
}

impl Attached {
    pub fn new(mut all: Vec<AttachedVolume>) -> Self {
        all.sort_by(|a, b| a.attachment.cmp(&b.attachment));
        let count = all.len();
        all.truncate(MAX_NAMED);
        Attached { count, named: all }
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

#[cfg(feature = "k8s")]
mod k8s {
    use k8s_openapi::api::storage::v1::VolumeAttachment;

    use super::AttachedVolume;
    use crate::blocker::bounded;

    /// The attachment, if it names `node` and is attached (or not yet known to be detached).
    pub fn on_node(va: &VolumeAttachment, node: &str) -> Option<AttachedVolume> {
        if va.spec.node_name != node {
            return None;
        }
        let source = &va.spec.source;
        let volume = source.persistent_volume_name.as_deref().map_or_else(|| "inline".to_owned(), bounded);
        Some(AttachedVolume {
            attachment: bounded(va.metadata.name.as_deref().unwrap_or_default()),
            attacher: bounded(&va.spec.attacher),
            volume,
            since: va.metadata.creation_timestamp.as_ref().map(|t| t.0),
        })
    }
}

#[cfg(feature = "k8s")]
pub use k8s::on_node;

#[cfg(test)]
mod tests {
    use super::*;

    fn volume(name: &str) -> AttachedVolume {
        AttachedVolume { attachment: name.into(), attacher: "csi.example.com".into(), volume: "pv".into(), since: None }
    }

    #[test]
    fn a_long_list_is_counted_whole_and_named_in_part() {
        let all: Vec<_> = (0..20).map(|i| volume(&format!("csi-{i:02}"))).collect();
        let attached = Attached::new(all);
        assert_eq!((attached.count, attached.named.len()), (20, MAX_NAMED));
        assert_eq!(attached.named[0].attachment, "csi-00", "in a stable order");
        assert!(Attached::new(Vec::new()).is_empty());
    }

    #[cfg(feature = "k8s")]
    #[test]
    fn only_the_nodes_attachments_count() {
        let va: k8s_openapi::api::storage::v1::VolumeAttachment = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "csi-abc", "creationTimestamp": "2026-12-03T10:00:00Z"},
            "spec": {"attacher": "csi.example.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv-data"}}
        }))
        .expect("a VolumeAttachment");
        let on = on_node(&va, "n1").expect("n1's");
        assert_eq!(
            (on.attachment.as_str(), on.attacher.as_str(), on.volume.as_str()),
            ("csi-abc", "csi.example.com", "pv-data")
        );
        assert!(on.since.is_some());
        assert_eq!(on_node(&va, "n2"), None);
    }
}
