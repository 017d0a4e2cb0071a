//! Reading the needs of a pod and the room of a node from the API's objects. Every quantity is untrusted:
//! one that cannot be read makes the pod "can't tell" or the node unusable, never a guess.

use super::*;
use k8s_openapi::{
    api::core::v1::{Container, Node, NodeSelectorRequirement, Pod},
    apimachinery::pkg::api::resource::Quantity,
};

/// A quantity in its base unit times `scale` (1000 for millicores), rounded up; `None` if it cannot be read
/// or does not fit in a u64.
fn amount(quantity: &Quantity, scale: f64) -> Option<u64> {
    let parsed = kube_quantity::ParsedQuantity::try_from(quantity).ok()?;
    let value = parsed.to_bytes_f64()? * scale;
    (value.is_finite() && (0.0..1.8e19).contains(&value)).then(|| value.ceil() as u64)
}

/// CPU (millicores) and memory (bytes) requested by `containers`, summed; `None` if a request is unreadable.
fn requests<'a>(containers: impl Iterator<Item = &'a Container>, sum: bool) -> Option<(u64, u64)> {
    let mut total = (0u64, 0u64);
    for container in containers {
        let requests = container.resources.as_ref().and_then(|r| r.requests.as_ref());
        let get = |key: &str, scale: f64| match requests.and_then(|r| r.get(key)) {
            Some(q) => amount(q, scale),
            None => Some(0),
        };
        let (cpu, memory) = (get("cpu", 1000.0)?, get("memory", 1.0)?);
        total = if sum {
            (total.0.checked_add(cpu)?, total.1.checked_add(memory)?)
        } else {
            (total.0.max(cpu), total.1.max(memory))
        };
    }
    Some(total)
}

fn requirements(rs: Option<&Vec<NodeSelectorRequirement>>) -> Vec<Requirement> {
    rs.into_iter()
        .flatten()
        .map(|r| Requirement {
            key: r.key.clone(),
            operator: r.operator.clone(),
            values: r.values.clone().unwrap_or_default(),
        })
        .collect()
}

/// The terms of a required node selector (a pod's required node affinity, a volume's node affinity).
pub(crate) fn terms(selector: &k8s_openapi::api::core::v1::NodeSelector) -> Vec<NodeSelectorTerm> {
    selector
        .node_selector_terms
        .iter()
        .map(|t| NodeSelectorTerm {
            expressions: requirements(t.match_expressions.as_ref()),
            fields: requirements(t.match_fields.as_ref()),
        })
        .collect()
}

impl From<&Pod> for PodNeeds {
    fn from(pod: &Pod) -> Self {
        let meta = &pod.metadata;
        let mut needs = PodNeeds {
            namespace: meta.namespace.clone().unwrap_or_default(),
            name: meta.name.clone().unwrap_or_default(),
            ..PodNeeds::default()
        };
        let Some(spec) = pod.spec.as_ref() else { return needs };
        let containers = requests(spec.containers.iter(), true);
        let init = requests(spec.init_containers.iter().flatten(), false);
        let overhead = match spec.overhead.as_ref() {
            Some(o) => {
                let get = |key: &str, scale: f64| o.get(key).map_or(Some(0), |q| amount(q, scale));
                get("cpu", 1000.0).zip(get("memory", 1.0))
            }
            None => Some((0, 0)),
        };
        match (containers, init, overhead) {
            (Some(c), Some(i), Some(o)) => {
                needs.cpu_milli = c.0.max(i.0).saturating_add(o.0);
                needs.memory = c.1.max(i.1).saturating_add(o.1);
            }
            _ => needs.cant_tell.push(CantTell::Unreadable),
        }
        needs.node_selector = spec.node_selector.clone().unwrap_or_default();
        if let Some(affinity) = spec.affinity.as_ref() {
            if affinity.pod_affinity.as_ref().is_some_and(|a| {
                a.required_during_scheduling_ignored_during_execution.as_ref().is_some_and(|r| !r.is_empty())
            }) {
                needs.cant_tell.push(CantTell::PodAffinity);
            }
            if affinity.pod_anti_affinity.as_ref().is_some_and(|a| {
                a.required_during_scheduling_ignored_during_execution.as_ref().is_some_and(|r| !r.is_empty())
            }) {
                needs.cant_tell.push(CantTell::PodAntiAffinity);
            }
            if let Some(required) = affinity
                .node_affinity
                .as_ref()
                .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref())
            {
                needs.affinity = terms(required);
                if needs.affinity.is_empty() {
                    // No term at all matches no node.
                    needs.affinity.push(NodeSelectorTerm::default());
                }
            }
        }
        if spec
            .topology_spread_constraints
            .as_ref()
            .is_some_and(|t| t.iter().any(|c| c.when_unsatisfiable == "DoNotSchedule"))
        {
            needs.cant_tell.push(CantTell::TopologySpread);
        }
        let all = spec.containers.iter().chain(spec.init_containers.iter().flatten());
        if all.flat_map(|c| c.ports.iter().flatten()).any(|p| p.host_port.is_some_and(|h| h > 0)) {
            needs.cant_tell.push(CantTell::HostPorts);
        }
        if spec.volumes.iter().flatten().any(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some()) {
            needs.cant_tell.push(CantTell::Volumes);
        }
        needs.tolerations = crate::pod::tolerations(spec.tolerations.as_ref());
        needs
    }
}

impl NodeRoom {
    /// The room of `node`, before its pods are counted.
    pub fn from_node(node: &Node) -> Self {
        let allocatable = node.status.as_ref().and_then(|s| s.allocatable.as_ref());
        let get = |key: &str, scale: f64| allocatable.and_then(|a| a.get(key)).and_then(|q| amount(q, scale));
        let (cpu, memory, pods) = (get("cpu", 1000.0), get("memory", 1.0), get("pods", 1.0));
        let card = crate::node::NodeCard::taints_of(node);
        NodeRoom {
            name: node.metadata.name.clone().unwrap_or_default(),
            labels: node.metadata.labels.clone().unwrap_or_default(),
            taints: card,
            cpu_milli: cpu.unwrap_or(0),
            memory: memory.unwrap_or(0),
            pods: pods.unwrap_or(0),
            unreadable: cpu.is_none() || memory.is_none() || pods.is_none(),
            ..NodeRoom::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_as_the_scheduler_sums_them() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "a", "namespace": "ns"},
            "spec": {
                "containers": [
                    {"name": "c1", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
                    {"name": "c2", "resources": {"requests": {"cpu": "0.5", "memory": "1G"}}}
                ],
                "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "2", "memory": "1Mi"}}}],
                "overhead": {"cpu": "10m"},
                "nodeSelector": {"disk": "ssd"},
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                ]}}}
            }
        }))
        .unwrap();
        let needs = PodNeeds::from(&pod);
        assert_eq!(needs.cpu_milli, 2010, "the init container's 2 cores outweigh the 750m sum, plus overhead");
        assert_eq!(needs.memory, 64 * 1024 * 1024 + 1_000_000_000);
        assert_eq!(needs.node_selector.get("disk").map(String::as_str), Some("ssd"));
        assert_eq!(needs.affinity.len(), 1);
        assert!(needs.cant_tell.is_empty());
    }

    #[test]
    fn what_the_check_does_not_model_is_named_not_guessed() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "a", "namespace": "ns"},
            "spec": {
                "containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}],
                                "resources": {"requests": {"cpu": "nonsense"}}}],
                "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "kubernetes.io/hostname", "labelSelector": {}}
                ]}},
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
                "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]
            }
        }))
        .unwrap();
        let mut cant = PodNeeds::from(&pod).cant_tell;
        cant.sort();
        assert_eq!(
            cant,
            vec![
                CantTell::PodAntiAffinity,
                CantTell::TopologySpread,
                CantTell::HostPorts,
                CantTell::Volumes,
                CantTell::Unreadable
            ]
        );
    }

    #[test]
    fn a_node_reads_its_allocatable_and_refuses_what_it_cannot_read() {
        let node: Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "n1"},
            "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "3500m", "memory": "2Gi", "pods": "110"}}
        }))
        .unwrap();
        let room = NodeRoom::from_node(&node);
        assert_eq!((room.cpu_milli, room.memory, room.pods), (3500, 2 * 1024 * 1024 * 1024, 110));
        assert!(!room.unreadable);
        assert_eq!(room.taints.len(), 1);
        let bad: Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "n2"}, "status": {"allocatable": {"cpu": "-1e400", "memory": "2Gi"}}
        }))
        .unwrap();
        assert!(NodeRoom::from_node(&bad).unreadable, "a quantity out of range or a missing one is not guessed");
    }
}
