//! Against the local control plane (started by the test command): the node cards the board is built from name the
//! same nodes, with the same Ready states, as kubectl. (control_plane.rs checks that they follow nodes through
//! NotReady and Unknown.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // A test that cannot set up fails, with the reason.

mod support;

use std::time::Duration;

use domain::ReadyStatus;
use support::{connect, kubectl};

#[tokio::test]
async fn cards_name_the_same_nodes_and_statuses_as_kubectl() {
    let connected = connect().await;
    let caches = support::caches();
    let cache = caches.for_identity(&connected.identity, connected.client.clone());
    tokio::time::timeout(Duration::from_secs(30), cache.ready()).await.expect("the cache lists within 30 s");
    let cards = cache.cards();
    let (ok, out, err) = kubectl(&[
        "get",
        "nodes",
        "-o",
        r#"jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}"#,
    ]);
    assert!(ok, "kubectl get nodes: {err}");
    let mut expected: Vec<(String, ReadyStatus)> = out
        .lines()
        .map(|line| {
            let (name, status) = line.split_once('=').unwrap();
            (name.to_string(), ReadyStatus::from_condition_status(Some(status)))
        })
        .collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    let mut got: Vec<_> = cards.iter().map(|n| (n.name.clone(), n.ready)).collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(got.len() >= 2, "the cluster has several nodes");
    assert_eq!(got, expected);
}
