//! Against the local control plane (started by the test command): the node listing the server function uses sees
//! what the API server reports. (control_plane.rs checks that it follows nodes through NotReady and Unknown.)

mod support;

use app::kube_access;
use domain::ReadyStatus;
use support::{connect, kubectl};

#[tokio::test]
async fn lists_the_same_nodes_and_statuses_as_kubectl() {
    let connected = connect().await;
    let listed = kube_access::list_nodes(&connected.client).await.unwrap();
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
    let mut got: Vec<_> = listed.iter().map(|n| (n.name.clone(), n.ready)).collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(got.len() >= 2, "the cluster has several nodes");
    assert_eq!(got, expected);
}
