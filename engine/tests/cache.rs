//! The per-identity cluster cache against the local control plane: one watch per resource however many viewers,
//! cards that agree with the API server, Ready flips followed live, and pods trimmed.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A test that cannot set up fails, with the reason.

mod support;

use std::{sync::Arc, time::Duration};

use domain::ReadyStatus;
use support::{connect, env, harness, kubectl};

#[tokio::test]
async fn one_cache_per_identity_follows_the_cluster() {
    let connected = connect().await;
    let caches = support::caches();
    let tabs: Vec<_> = (0..5).map(|_| caches.for_identity(&connected.identity, connected.client.clone())).collect();
    assert!(tabs.iter().all(|t| Arc::ptr_eq(t, &tabs[0])), "every viewer of one identity shares the cache");
    assert_eq!(caches.watches_started(), 4, "one watch each for nodes, pods, Leases and PodDisruptionBudgets");
    let cache = tabs[0].clone();
    tokio::time::timeout(Duration::from_secs(30), cache.ready()).await.expect("the caches list within 30 s");

    // The cards agree with the API server.
    let cards = cache.cards();
    let (ok, names, _) = kubectl(&["get", "nodes", "-o", "jsonpath={.items[*].metadata.name}"]);
    assert!(ok);
    let mut expected: Vec<&str> = names.split_whitespace().collect();
    expected.sort();
    assert_eq!(cards.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), expected);
    assert!(cards.iter().all(|c| c.lease_renewed.is_some()), "every kwok node renews its Lease");
    let (_, on_node_2, _) = kubectl(&[
        "get",
        "pods",
        "-A",
        "--field-selector",
        "spec.nodeName=node-2,status.phase!=Succeeded,status.phase!=Failed",
        "-o",
        "name",
    ]);
    let node_2 = cards.iter().find(|c| c.name == "node-2").unwrap();
    assert_eq!(node_2.pod_count, on_node_2.lines().count());
    assert_eq!(node_2.zone.as_deref(), Some("zone-b"));
    assert_eq!(node_2.roles, ["worker"]);
    assert!(node_2.conditions.iter().any(|c| c.reason.as_deref() == Some("KubeletReady")), "{:?}", node_2.conditions);

    // Pods are kept compact (what the countdowns, the drain and the capacity check read, not the API's object),
    // each under its own namespace and name.
    let pods = cache.pods_on("node-2");
    assert!(!pods.is_empty());
    let (_, listed, _) = kubectl(&[
        "get",
        "pods",
        "-A",
        "--field-selector",
        "spec.nodeName=node-2",
        "-o",
        "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{\"\\n\"}{end}",
    ]);
    for pod in &pods {
        assert!(listed.lines().any(|l| l == pod.key()), "{} not in {listed}", pod.key());
        let summary = pod.summary();
        assert_eq!((summary.namespace.as_str(), summary.name.as_str()), (pod.namespace(), pod.name()));
        assert_eq!(pod.node(), Some("node-2"));
    }
    assert!(pods.iter().any(|p| !p.tolerations().is_empty()));

    // A Ready flip reaches the cache, with the taint the countdowns read.
    let mut changes = cache.changes();
    harness(&["not-ready", &env("DRAINBOARD_CLUSTER_DIR"), "node-3"]);
    let flipped = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            changes.changed().await.unwrap();
            let cards = cache.cards();
            let card = cards.iter().find(|c| c.name == "node-3").unwrap();
            if card.ready == ReadyStatus::NotReady
                && card.taints.iter().any(|t| t.key == "node.kubernetes.io/not-ready")
            {
                return card.clone();
            }
        }
    })
    .await;
    harness(&["restore", &env("DRAINBOARD_CLUSTER_DIR"), "node-3"]);
    let flipped = flipped.expect("node-3 reads NotReady within 30 s");
    assert!(flipped.ready_since.is_some());

    // When the last viewer goes, the watches stop; the next viewer starts new ones.
    drop(tabs);
    drop(cache);
    let _again = caches.for_identity(&connected.identity, connected.client.clone());
    assert_eq!(caches.watches_started(), 8);
}

/// Several requests may wait for a new cache at once (a page render and its event stream, say). Each store's own
/// readiness wakes only the last waiter, so a cache whose readiness others also waited on used to leave its card
/// computation waiting for ever: the board stream then sent nothing.
#[tokio::test]
async fn concurrent_waiters_do_not_starve_the_cards() {
    let connected = connect().await;
    let caches = support::caches();
    let cache = caches.for_identity(&connected.identity, connected.client.clone());
    let waiters: Vec<_> = (0..5)
        .map(|_| {
            let cache = cache.clone();
            tokio::spawn(async move { tokio::time::timeout(Duration::from_secs(30), cache.ready()).await.is_ok() })
        })
        .collect();
    for waiter in waiters {
        assert!(waiter.await.unwrap(), "every waiter sees the cache ready within 30 s");
    }
    let mut cards = cache.live_cards();
    tokio::time::timeout(Duration::from_secs(10), cards.wait_for(|c| !c.is_empty()))
        .await
        .expect("the cards are computed once the cache is ready, whoever else waited")
        .unwrap();
}
