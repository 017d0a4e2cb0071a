//! The scale rig for the cache's memory (BENCHMARKS.md, P4a): Kubernetes' largest supported cluster fed through the
//! same path as the watches' events, in process, since etcd cannot hold it on this project's machines.
//!
//!   cargo run --release -p engine --example cache_memory -- MODE [NODES] [PODS]
//!
//! MODE is how the pods are kept: `compact` (the cache now: `engine::pods::CachedPod`), `trimmed` (the previous
//! version: the API's `Pod` with its containers, volumes and status trimmed away) or `whole` (the `Pod` as it
//! arrives). Nodes, node Leases (one per node) and PodDisruptionBudgets (one per 30 pods) are kept as the cache keeps
//! them in every mode. Each object is written as the API server would send it, read from JSON as a watch event is,
//! converted, and applied to a reflector store. Then the cards are built once, and the process prints its resident
//! memory (VmRSS, VmHWM) and the time each step took. Run each mode in a process of its own.
//!
//! With `DHAT_OUT=FILE` it also writes a heap profile (dhat's JSON) of what is still allocated at the end, with the
//! call stack of each allocation: `end2end/bench/dhat-summary.py FILE` says where the bytes go. Profiling slows it
//! several times over, so use a tenth of the size for it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A measurement that cannot set up stops, with the reason.

use std::time::Instant;

use engine::{
    cards::CardBuilder,
    pods::{CachedPod, Shared},
    trim,
};
use k8s_openapi::api::{
    coordination::v1::Lease,
    core::v1::{Node, Pod, PodSpec},
    policy::v1::PodDisruptionBudget,
};
use kube::runtime::{
    reflector::{self, store::Writer},
    watcher::Event,
};
use serde_json::json;

/// The previous version's trimming of a pod: identity, owner, labels, node, tolerations, emptyDir volumes, phase
/// and Ready; containers gone.
fn previous_trim(mut pod: Pod) -> Pod {
    pod.metadata.managed_fields = None;
    pod.metadata.annotations = None;
    if let Some(spec) = pod.spec.take() {
        pod.spec = Some(PodSpec {
            node_name: spec.node_name,
            tolerations: spec.tolerations,
            volumes: spec.volumes.map(|vs| vs.into_iter().filter(|v| v.empty_dir.is_some()).collect()),
            ..Default::default()
        });
    }
    if let Some(status) = pod.status.as_mut() {
        status.container_statuses = None;
        status.init_container_statuses = None;
        status.pod_ips = None;
        status.host_ips = None;
    }
    pod
}

fn node_conditions() -> Vec<serde_json::Value> {
    ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"]
        .iter()
        .map(|t| {
            json!({"type": t, "status": if *t == "Ready" { "True" } else { "False" }, "reason": format!("Kubelet{t}"),
                   "message": format!("kubelet reports {t}"),
                   "lastHeartbeatTime": "2026-11-30T10:00:00Z", "lastTransitionTime": "2026-11-30T09:00:00Z"})
        })
        .collect()
}

fn pod_conditions() -> Vec<serde_json::Value> {
    ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
        .iter()
        .map(|t| json!({"type": t, "status": "True", "lastTransitionTime": "2026-11-30T09:00:00Z"}))
        .collect()
}

fn node(i: usize) -> serde_json::Value {
    let name = format!("node-{i:05}");
    json!({
        "metadata": {"name": name, "uid": format!("00000000-0000-0000-0000-{i:012}"), "resourceVersion": "1",
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": format!("zone-{}", i % 3),
                       "kwok.x-k8s.io/node": "fake", "node-role.kubernetes.io/worker": ""},
            "annotations": {"node.alpha.kubernetes.io/ttl": "0", "kwok.x-k8s.io/node": "fake"}},
        "spec": {},
        "status": {
            "allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110", "ephemeral-storage": "100Gi"},
            "capacity": {"cpu": "32", "memory": "256Gi", "pods": "110", "ephemeral-storage": "100Gi"},
            "conditions": node_conditions(),
            "nodeInfo": {"architecture": "amd64", "bootID": format!("boot-{i}"), "containerRuntimeVersion": "kwok",
                "kernelVersion": "6.1", "kubeProxyVersion": "v1.36.3", "kubeletVersion": "v1.36.3", "machineID": "m",
                "operatingSystem": "linux", "osImage": "Debian", "systemUUID": "u"},
            "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}, {"type": "Hostname", "address": name}]
        }
    })
}

fn lease(i: usize) -> serde_json::Value {
    json!({"metadata": {"name": format!("node-{i:05}"), "namespace": "kube-node-lease", "resourceVersion": "1"},
           "spec": {"holderIdentity": format!("node-{i:05}"), "leaseDurationSeconds": 40,
                    "renewTime": "2026-11-30T10:00:00.000000Z"}})
}

/// A pod as a kwok cluster's API server sends it: one container with ports, env, requests, limits and a probe, an
/// emptyDir and the token volume, the default tolerations, five conditions and a container status.
fn pod(i: usize, nodes: usize) -> serde_json::Value {
    let app = format!("app-{}", i / 30);
    json!({
        "metadata": {"name": format!("{app}-7d9f8b6c5-{i:06}"), "namespace": format!("team-{}", i % 50),
            "uid": format!("11111111-0000-0000-0000-{i:012}"), "resourceVersion": "1",
            "labels": {"app": app, "pod-template-hash": "7d9f8b6c5", "tier": "web"},
            "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-11-30T09:00:00Z", "prometheus.io/scrape": "true"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{app}-7d9f8b6c5"),
                "uid": "22222222-0000-0000-0000-000000000000", "controller": true, "blockOwnerDeletion": true}]},
        "spec": {
            "nodeName": format!("node-{:05}", i % nodes),
            "containers": [{"name": "app", "image": "registry.example/web:1.27.3",
                "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                "env": [{"name": "MODE", "value": "production"}, {"name": "LOG_LEVEL", "value": "info"}],
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
                "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
                "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"},
                    {"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}],
                "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"}],
            "volumes": [{"name": "scratch", "emptyDir": {}},
                {"name": "kube-api-access", "projected": {"sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}}]}}],
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
            "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "serviceAccountName": "default",
            "schedulerName": "default-scheduler", "priority": 0, "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority"
        },
        "status": {
            "phase": "Running", "podIP": "10.1.0.1", "hostIP": "10.0.0.1", "qosClass": "Burstable",
            "startTime": "2026-11-30T09:00:00Z",
            "conditions": pod_conditions(),
            "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0, "started": true,
                "image": "registry.example/web:1.27.3", "imageID": "sha256:abc", "containerID": "kwok://abc",
                "state": {"running": {"startedAt": "2026-11-30T09:00:00Z"}}}]
        }
    })
}

fn pdb(i: usize) -> serde_json::Value {
    json!({"metadata": {"name": format!("app-{i}"), "namespace": format!("team-{}", (i * 30) % 50), "resourceVersion": "1"},
           "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": format!("app-{i}")}}},
           "status": {"currentHealthy": 30, "desiredHealthy": 29, "disruptionsAllowed": 1, "expectedPods": 30, "observedGeneration": 1}})
}

/// Applies `count` objects to `writer` as one initial list, each read from its JSON text as the watch reads it.
fn list<S: serde::de::DeserializeOwned, K>(
    writer: &mut Writer<K>,
    count: usize,
    make: impl Fn(usize) -> serde_json::Value,
    keep: impl Fn(S) -> K,
) where
    K: reflector::Lookup + Clone,
    K::DynamicType: Eq + std::hash::Hash + Clone,
{
    writer.apply_watcher_event(&Event::Init);
    for i in 0..count {
        let text = make(i).to_string();
        let object: S = serde_json::from_str(&text).expect("a valid object");
        writer.apply_watcher_event(&Event::InitApply(keep(object)));
    }
    writer.apply_watcher_event(&Event::InitDone);
}

fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let read = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .unwrap_or(0)
    };
    (read("VmRSS:"), read("VmHWM:"))
}

/// Forwards to the system allocator, and records each allocation only while a profiler runs (`DHAT_OUT`).
#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

fn main() {
    let profiler = std::env::var("DHAT_OUT")
        .ok()
        .map(|file| dhat::Profiler::builder().file_name(file).trim_backtraces(Some(16)).build());
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("compact");
    let nodes: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(5_000);
    let pods: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(150_000);
    eprintln!(
        "sizes: CachedPod {} PodSummary {} PodNeeds {} ObjectMeta {} ObjectRef {}",
        std::mem::size_of::<CachedPod>(),
        std::mem::size_of::<domain::PodSummary>(),
        std::mem::size_of::<domain::capacity::PodNeeds>(),
        std::mem::size_of::<kube::api::ObjectMeta>(),
        std::mem::size_of::<kube::runtime::reflector::ObjectRef<CachedPod>>()
    );
    let (base, _) = memory();
    let start = Instant::now();

    let (node_store, mut node_writer) = reflector::store::<Node>();
    list(&mut node_writer, nodes, node, |mut n: Node| {
        trim::node(&mut n);
        n
    });
    let (lease_store, mut lease_writer) = reflector::store::<Lease>();
    list(&mut lease_writer, nodes, lease, |mut l: Lease| {
        trim::lease(&mut l);
        l
    });
    let (_pdb_store, mut pdb_writer) = reflector::store::<PodDisruptionBudget>();
    list(&mut pdb_writer, pods / 30, pdb, |mut b: PodDisruptionBudget| {
        trim::pdb(&mut b);
        b
    });
    let (after_others, _) = memory();

    // The pods, kept as `mode` says; the cards are built from the compact form in every mode.
    let (compact_store, mut compact_writer) = reflector::store::<CachedPod>();
    let (_pod_store, mut pod_writer) = reflector::store::<Pod>();
    let pods_started = Instant::now();
    match mode {
        "compact" => {
            let shared = Shared::default();
            list(&mut compact_writer, pods, |i| pod(i, nodes), |p: Pod| CachedPod::new(p, &shared))
        }
        "trimmed" => list(&mut pod_writer, pods, |i| pod(i, nodes), previous_trim),
        "whole" => list(&mut pod_writer, pods, |i| pod(i, nodes), |p: Pod| p),
        other => panic!("unknown mode {other}: compact, trimmed or whole"),
    }
    let pods_took = pods_started.elapsed();
    let (after_pods, _) = memory();

    let cards_started = Instant::now();
    let cards = CardBuilder::default().build(&node_store, &compact_store, &lease_store, 1);
    let cards_took = cards_started.elapsed();
    let (rss, hwm) = memory();
    println!(
        "mode={mode} nodes={nodes} pods={pods} cards={} rss_mib={:.1} hwm_mib={:.1} base_mib={:.1} \
         nodes_leases_pdbs_mib={:.1} pods_mib={:.1} bytes_per_pod={} pods_s={:.2} cards_s={:.2} total_s={:.2}",
        cards.len(),
        rss as f64 / 1024.0,
        hwm as f64 / 1024.0,
        base as f64 / 1024.0,
        (after_others.saturating_sub(base)) as f64 / 1024.0,
        (after_pods.saturating_sub(after_others)) as f64 / 1024.0,
        (after_pods.saturating_sub(after_others) * 1024).checked_div(pods.max(1) as u64).unwrap_or(0),
        pods_took.as_secs_f64(),
        cards_took.as_secs_f64(),
        start.elapsed().as_secs_f64(),
    );
    // Written while the stores are still held: the profile's figures at the end are what the caches keep.
    drop(profiler);
}
