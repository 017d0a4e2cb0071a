//! Trimming objects as they arrive: the caches keep only the fields the cards, countdowns and drain previews read,
//! which keeps a large cluster's cache small.

use k8s_openapi::api::{
    coordination::v1::Lease,
    core::v1::{
        Affinity, Container, Node, NodeAffinity, Pod, PodAffinity, PodAntiAffinity, PodSpec, ResourceRequirements,
        Volume,
    },
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

/// Keeps what the cards, eviction countdowns, drain previews and the capacity check read: identity, owner, labels,
/// node, tolerations, which volumes are emptyDir or claims, phase and Ready; of the containers, only their CPU and
/// memory requests and host ports; the node selector, required affinity and hard topology spread. Images, env,
/// probes and the rest go.
pub fn pod(pod: &mut Pod) {
    meta(&mut pod.metadata);
    if let Some(spec) = pod.spec.take() {
        let affinity = spec.affinity.map(|a| Affinity {
            node_affinity: a.node_affinity.map(|n| NodeAffinity {
                required_during_scheduling_ignored_during_execution: n
                    .required_during_scheduling_ignored_during_execution,
                preferred_during_scheduling_ignored_during_execution: None,
            }),
            pod_affinity: a.pod_affinity.map(|p| PodAffinity {
                required_during_scheduling_ignored_during_execution: p
                    .required_during_scheduling_ignored_during_execution,
                preferred_during_scheduling_ignored_during_execution: None,
            }),
            pod_anti_affinity: a.pod_anti_affinity.map(|p| PodAntiAffinity {
                required_during_scheduling_ignored_during_execution: p
                    .required_during_scheduling_ignored_during_execution,
                preferred_during_scheduling_ignored_during_execution: None,
            }),
        });
        pod.spec = Some(PodSpec {
            node_name: spec.node_name,
            tolerations: spec.tolerations,
            volumes: spec.volumes.map(|vs| {
                vs.into_iter()
                    .filter(|v| v.empty_dir.is_some() || v.persistent_volume_claim.is_some() || v.ephemeral.is_some())
                    .map(|v| Volume {
                        name: v.name,
                        empty_dir: v.empty_dir,
                        persistent_volume_claim: v.persistent_volume_claim,
                        ephemeral: v.ephemeral.map(|_| Default::default()),
                        ..Default::default()
                    })
                    .collect()
            }),
            containers: spec.containers.into_iter().map(container).collect(),
            init_containers: spec.init_containers.map(|cs| cs.into_iter().map(container).collect()),
            node_selector: spec.node_selector,
            affinity,
            topology_spread_constraints: spec
                .topology_spread_constraints
                .map(|cs| cs.into_iter().filter(|c| c.when_unsatisfiable == "DoNotSchedule").collect()),
            overhead: spec.overhead,
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

/// A container as the capacity check reads it: CPU and memory requests, and the ports bound on the host.
fn container(c: Container) -> Container {
    let requests = c.resources.and_then(|r| r.requests).map(|mut r| {
        r.retain(|k, _| k == "cpu" || k == "memory");
        r
    });
    Container {
        resources: requests.map(|r| ResourceRequirements { requests: Some(r), ..Default::default() }),
        ports: c.ports.map(|ps| ps.into_iter().filter(|p| p.host_port.is_some()).collect()),
        ..Default::default()
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

#[cfg(test)]
mod tests {
    use super::*;
    use domain::{capacity::PodNeeds, pod::PodSummary};

    #[test]
    fn a_trimmed_pod_reads_the_same_to_the_drain_and_the_capacity_check() {
        let original: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web-1", "namespace": "shop", "labels": {"app": "web"},
                         "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{...}"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "r", "controller": true}]},
            "spec": {
                "nodeName": "n1",
                "containers": [{"name": "app", "image": "web:1", "env": [{"name": "A", "value": "b"}],
                                "ports": [{"containerPort": 80}, {"containerPort": 9100, "hostPort": 9100}],
                                "resources": {"requests": {"cpu": "250m", "memory": "1Gi", "ephemeral-storage": "1Gi"},
                                              "limits": {"cpu": "1"}}}],
                "initContainers": [{"name": "init", "image": "x", "resources": {"requests": {"cpu": "2"}}}],
                "nodeSelector": {"disk": "ssd"},
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}},
                             "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "web"}}}]}},
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
                                              {"maxSkew": 1, "topologyKey": "host", "whenUnsatisfiable": "ScheduleAnyway"}],
                "tolerations": [{"key": "k", "operator": "Exists"}],
                "volumes": [{"name": "cfg", "configMap": {"name": "c"}}, {"name": "scratch", "emptyDir": {}},
                            {"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]
            },
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
        }))
        .unwrap();
        let mut trimmed = original.clone();
        pod(&mut trimmed);
        assert_eq!(PodSummary::from(&trimmed), PodSummary::from(&original));
        assert_eq!(PodNeeds::from(&trimmed), PodNeeds::from(&original));
        let spec = trimmed.spec.unwrap();
        assert!(spec.containers[0].image.is_none() && spec.containers[0].env.is_none(), "images and env go");
        assert_eq!(spec.containers[0].ports.as_ref().unwrap().len(), 1, "only the host port stays");
        assert_eq!(spec.volumes.unwrap().len(), 2, "the config map volume goes");
        assert!(trimmed.metadata.annotations.unwrap().is_empty(), "the last-applied configuration goes");
    }
}
