//! Trimming objects as they arrive: the caches keep only the fields the cards, countdowns and drain previews read,
//! which keeps a large cluster's cache small. Pods, the bulk of it, are not kept as the API's type at all
//! ([`crate::pods`]).

use k8s_openapi::api::{coordination::v1::Lease, core::v1::Node, policy::v1::PodDisruptionBudget};

fn meta(meta: &mut kube::api::ObjectMeta) {
    meta.managed_fields = None;
    if let Some(annotations) = meta.annotations.as_mut() {
        // The mirror marker, the drain and cordon records and other actors' markers are the annotations Drainboard
        // reads; the rest (last-applied configs) can be large.
        annotations.retain(|k, v| {
            k == domain::pod::MIRROR_ANNOTATION
                || k == domain::progress::RECORD_ANNOTATION
                || k == domain::progress::CORDON_ANNOTATION
                || domain::actor::keeps_annotation(k, v)
        });
    }
}

pub fn node(node: &mut Node) {
    meta(&mut node.metadata);
    if let Some(status) = node.status.as_mut() {
        status.images = None;
        status.volumes_attached = None;
        status.volumes_in_use = None;
    }
}

pub fn lease(lease: &mut Lease) {
    meta(&mut lease.metadata);
}

pub fn pdb(pdb: &mut PodDisruptionBudget) {
    meta(&mut pdb.metadata);
    if let Some(status) = pdb.status.as_mut() {
        status.disrupted_pods = None;
        status.conditions = None;
    }
}
