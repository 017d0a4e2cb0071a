//! Against the local control plane (started by the test command): the node listing the server function uses sees
//! what the API server reports. (control_plane.rs checks that it follows nodes through NotReady and Unknown.)

use std::{path::PathBuf, process::Command};

use app::kube_access::{self, Connected};
use domain::ReadyStatus;

fn cluster_dir() -> String {
    std::env::var("DRAINBOARD_CLUSTER_DIR")
        .expect("DRAINBOARD_CLUSTER_DIR is not set: run these tests through ./test-all")
}

async fn connect() -> Connected {
    let kubeconfig = PathBuf::from(cluster_dir()).join("admin.kubeconfig");
    kube_access::connect(Some(&kubeconfig), None)
        .await
        .expect("the local control plane answers")
}

fn kubectl(args: &[&str]) -> String {
    let dir = cluster_dir();
    let bin = std::env::var("DRAINBOARD_CLUSTER_BIN").expect("DRAINBOARD_CLUSTER_BIN is set");
    let out = Command::new(format!("{bin}/kubectl"))
        .args(["--kubeconfig", &format!("{dir}/admin.kubeconfig")])
        .args(args)
        .output()
        .expect("kubectl runs");
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test]
async fn lists_the_same_nodes_and_statuses_as_kubectl() {
    let connected = connect().await;
    let listed = kube_access::list_nodes(&connected.client).await.unwrap();
    let out = kubectl(&[
        "get",
        "nodes",
        "-o",
        r#"jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}"#,
    ]);
    let mut expected: Vec<(String, ReadyStatus)> = out
        .lines()
        .map(|line| {
            let (name, status) = line.split_once('=').unwrap();
            (
                name.to_string(),
                ReadyStatus::from_condition_status(Some(status)),
            )
        })
        .collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    let mut got: Vec<_> = listed.iter().map(|n| (n.name.clone(), n.ready)).collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(got.len() >= 2, "the cluster has several nodes");
    assert_eq!(got, expected);
}
