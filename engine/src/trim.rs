//! Trimming objects as they arrive: the caches keep only the fields the cards, countdowns and drain previews read,
//! which keeps a large cluster's cache small.

use k8s_openapi::api::{
    coordination::v1::Lease,
    core::v1::{Node, Pod, PodSpec},
    policy::v1::PodDisruptionBudget,
};

fn meta(meta: &mut kube::api::ObjectMeta) {
    meta.managed_fields = None;
    if let Some(annotations) = meta.annotations.as_mut() {
        // The mirror marker and the drain and cordon records are the annotations Drainboard reads; the rest
        // (last-applied configs) can be large.
        annotations.retain(|k, _| {
            k == domain::pod::MIRROR_ANNOTATION
                || k == domain::progress::RECORD_ANNOTATION
                || k == domain::progress::CORDON_ANNOTATION
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

/// Keeps what the cards, eviction countdowns and drain previews read: identity, owner, labels, node, tolerations,
/// which volumes are emptyDir, phase and Ready. Containers, env, probes and the rest go.
pub fn pod(pod: &mut Pod) {
    meta(&mut pod.metadata);
    if let Some(spec) = pod.spec.take() {
        pod.spec = Some(PodSpec {
            node_name: spec.node_name,
            tolerations: spec.tolerations,
            volumes: spec.volumes.map(|vs| {
                vs.into_iter()
                    .filter(|v| v.empty_dir.is_some())
                    .map(|v| k8s_openapi::api::core::v1::Volume {
                        name: v.name,
                        empty_dir: v.empty_dir,
                        ..Default::default()
                    })
                    .collect()
            }),
            ..Default::default()
        });
    }
    if let Some(status) = pod.status.as_mut() {
        status.container_statuses = None;
        status.init_container_statuses = None;
        status.ephemeral_container_statuses = None;
        status.pod_ips = None;
        status.host_ips = None;
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
