//! Checks of the local control plane's own behaviour that the rest of Drainboard relies on: PodDisruptionBudgets
//! are enforced by the eviction API (so the disruption controller runs), and a node that stops heartbeating or
//! reports NotReady gets its NoExecute taint and loses its pods after the default toleration.
//!
//! Each test works in its own namespace and pins its pods with `nodeName`, so tests don't disturb each other. The
//! failure tests use node-3 and node-4, one per zone, so that no zone ever counts as disrupted.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A test that cannot set up fails, with the reason.

mod support;

use std::{process::Command, time::Duration};

use domain::ReadyStatus;
use k8s_openapi::api::{
    apps::v1::Deployment,
    core::v1::{Namespace, Node, Pod},
    policy::v1::PodDisruptionBudget,
};
use kube::{
    Api, Client,
    api::{DeleteParams, EvictParams, ListParams, Patch, PatchParams, PostParams},
};
use serde_json::json;
use support::{HARNESS, env, eventually_timed as eventually, harness};

async fn client() -> Client {
    support::connect().await.client
}

async fn fresh_namespace(client: &Client, name: &str) -> Api<Pod> {
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    namespaces.create(&PostParams::default(), &ns).await.expect("namespace created");
    Api::namespaced(client.clone(), name)
}

async fn running_pods(pods: &Api<Pod>, selector: &str) -> Vec<Pod> {
    pods.list(&ListParams::default().labels(selector))
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|p| {
            p.metadata.deletion_timestamp.is_none()
                && p.status
                    .as_ref()
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
        })
        .collect()
}

#[tokio::test]
async fn a_pdb_blocks_eviction_until_the_deployment_grows() {
    let client = client().await;
    let pods = fresh_namespace(&client, "cp-pdb").await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "cp-pdb");
    let pdbs: Api<PodDisruptionBudget> = Api::namespaced(client.clone(), "cp-pdb");
    let deployment = serde_json::from_value(json!({
        "metadata": {"name": "guarded"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "guarded"}},
            "template": {
                "metadata": {"labels": {"app": "guarded"}},
                "spec": {
                    // Away from node-3 and node-4, which the failure tests take down meanwhile.
                    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-1", "node-2"]}]}
                    ]}}},
                    "containers": [{"name": "c", "image": "nginx:1.27"}]
                }
            }
        }
    }))
    .unwrap();
    deployments.create(&PostParams::default(), &deployment).await.unwrap();
    let pdb = serde_json::from_value(json!({
        "metadata": {"name": "guarded-pdb"},
        "spec": {"minAvailable": 3, "selector": {"matchLabels": {"app": "guarded"}}}
    }))
    .unwrap();
    pdbs.create(&PostParams::default(), &pdb).await.unwrap();

    let (ready, _) = eventually("3 ready pods", Duration::from_secs(60), || async {
        let ready = running_pods(&pods, "app=guarded").await;
        (ready.len() == 3).then_some(ready)
    })
    .await;
    // The disruption controller must have processed the budget, or every eviction gets 429 regardless.
    eventually("the PDB to be processed with 3 healthy", Duration::from_secs(30), || async {
        let pdb = pdbs.get("guarded-pdb").await.unwrap();
        let status = pdb.status?;
        (status.observed_generation.is_some()
            && status.observed_generation >= pdb.metadata.generation
            && status.current_healthy == Some(3))
        .then_some(())
    })
    .await;

    let victim = ready[0].metadata.name.clone().unwrap();
    match pods.evict(&victim, &EvictParams::default()).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 429, "blocked by the budget: {status:?}")
        }
        other => {
            panic!("eviction should be refused while the PDB allows 0 disruptions, got {other:?}")
        }
    }

    deployments
        .patch("guarded", &PatchParams::default(), &Patch::Merge(json!({"spec": {"replicas": 4}})))
        .await
        .unwrap();
    eventually("the PDB to allow one disruption", Duration::from_secs(60), || async {
        let status = pdbs.get("guarded-pdb").await.unwrap().status?;
        (status.disruptions_allowed == Some(1)).then_some(())
    })
    .await;
    pods.evict(&victim, &EvictParams::default()).await.expect("eviction allowed once the Deployment grew");
    eventually("the evicted pod to be gone", Duration::from_secs(30), || async {
        pods.get_opt(&victim).await.unwrap().is_none().then_some(())
    })
    .await;

    Api::<Namespace>::all(client).delete("cp-pdb", &DeleteParams::default()).await.unwrap();
}

/// Restores a failed node even when the test fails half-way, so that later tests find every node healthy.
struct RestoreOnDrop {
    dir: String,
    node: String,
}

impl Drop for RestoreOnDrop {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // Best effort while unwinding: a second panic would abort and hide the first.
            let _ = Command::new(HARNESS).args(["restore", &self.dir, &self.node]).status();
        } else {
            harness(&["restore", &self.dir, &self.node]);
        }
    }
}

/// Makes a node fail with `switch`, then checks what the node listing reports, the taint, and the eviction of a
/// pod after the default toleration; then restores the node.
async fn node_failure_evicts_pods(namespace: &str, node_name: &str, switch: &str, taint: &str, reads: ReadyStatus) {
    let client = client().await;
    let toleration: u64 = env("TOLERATION_SECONDS").parse().unwrap();
    let pods = fresh_namespace(&client, namespace).await;
    let nodes: Api<Node> = Api::all(client.clone());
    let pod = serde_json::from_value(json!({
        "metadata": {"name": "victim", "labels": {"app": "victim"}},
        "spec": {"nodeName": node_name, "containers": [{"name": "c", "image": "busybox:1.37"}]}
    }))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    eventually("the pod to run", Duration::from_secs(30), || async {
        (running_pods(&pods, "app=victim").await.len() == 1).then_some(())
    })
    .await;
    // The DefaultTolerationSeconds admission plugin stamped the cluster's toleration on the pod.
    let stamped = pods.get("victim").await.unwrap().spec.unwrap().tolerations.unwrap_or_default();
    assert!(
        stamped.iter().any(|t| t.key.as_deref() == Some(taint) && t.toleration_seconds == Some(toleration as i64)),
        "pod tolerates {taint} for {toleration} s: {stamped:?}"
    );

    let caches = support::caches();
    let connected = support::connect().await;
    let cache = caches.for_identity(&connected.identity, connected.client);
    tokio::time::timeout(Duration::from_secs(30), cache.ready()).await.expect("the cache lists within 30 s");
    let dir = env("DRAINBOARD_CLUSTER_DIR");
    harness(&[switch, &dir, node_name]);
    let restore = RestoreOnDrop { dir: dir.clone(), node: node_name.to_string() };
    // The cards, as the board's cache keeps them.
    let (_, flipped_after) = eventually(&format!("{node_name} to read {reads:?}"), Duration::from_secs(60), || async {
        cache.cards().iter().any(|n| n.name == node_name && n.ready == reads).then_some(())
    })
    .await;
    eprintln!("{node_name}: reads {reads:?} after {flipped_after:?}");
    let (added, tainted_after) =
        eventually(&format!("{node_name} to get {taint}"), Duration::from_secs(60), || async {
            let node = nodes.get(node_name).await.unwrap();
            node.spec?.taints?.into_iter().find(|t| t.key == taint && t.effect == "NoExecute")?.time_added
        })
        .await;
    eprintln!("{node_name}: {taint}:NoExecute after {tainted_after:?}");
    // Seen either terminating (unreachable: nobody finalises the deletion) or already gone (not-ready: kwok still
    // manages the node and finishes the deletion at once).
    eventually("the pod to be evicted", Duration::from_secs(toleration + 30), || async {
        let pod = pods.get_opt("victim").await.unwrap();
        pod.is_none_or(|p| p.metadata.deletion_timestamp.is_some()).then_some(())
    })
    .await;
    // Taint-based eviction fires at timeAdded + tolerationSeconds; timeAdded has 1 s resolution and we poll.
    let delay = jiff::Timestamp::now().duration_since(added.0).as_secs_f64();
    eprintln!("{node_name}: pod evicted {delay:.1} s after the taint (toleration {toleration} s)");
    assert!(
        (toleration as f64 - 1.0..=toleration as f64 + 3.0).contains(&delay),
        "evicted {delay:.1} s after the taint, toleration {toleration} s"
    );

    drop(restore);
    eventually(&format!("{node_name} to be Ready and untainted"), Duration::from_secs(60), || async {
        let node = nodes.get(node_name).await.unwrap();
        let ready = node.status?.conditions?.iter().any(|c| c.type_ == "Ready" && c.status == "True");
        let tainted = node.spec?.taints.unwrap_or_default().iter().any(|t| t.key == taint);
        (ready && !tainted).then_some(())
    })
    .await;
    // Once the node is managed again, the evicted pod's deletion is finished, as a kubelet would.
    eventually("the evicted pod to be removed", Duration::from_secs(30), || async {
        pods.get_opt("victim").await.unwrap().is_none().then_some(())
    })
    .await;
    Api::<Namespace>::all(client).delete(namespace, &DeleteParams::default()).await.unwrap();
}

#[tokio::test]
async fn an_unreachable_node_is_tainted_and_its_pods_evicted_after_the_toleration() {
    node_failure_evicts_pods(
        "cp-unreachable",
        "node-4",
        "unreachable",
        "node.kubernetes.io/unreachable",
        ReadyStatus::Unknown,
    )
    .await;
}

#[tokio::test]
async fn a_not_ready_node_is_tainted_and_its_pods_evicted_after_the_toleration() {
    node_failure_evicts_pods(
        "cp-not-ready",
        "node-3",
        "not-ready",
        "node.kubernetes.io/not-ready",
        ReadyStatus::NotReady,
    )
    .await;
}
