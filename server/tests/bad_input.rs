//! A bad kubeconfig, context or server stops `drainboard` with one clear line that names what is wrong, a non-zero
//! exit, and no panic.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A test that cannot set up fails, with the reason.

use std::{net::TcpListener, path::Path, process::Command};

fn run_drainboard(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_drainboard"))
        .args(args)
        .args(["--addr", "127.0.0.1:0"])
        .env_remove("KUBECONFIG")
        .env("RUST_LOG", "off")
        .output()
        .expect("drainboard runs");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn assert_one_clear_line(stderr: &str, must_name: &[&str]) {
    assert!(!stderr.contains("panicked"), "no panic: {stderr}");
    let lines: Vec<_> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "exactly one line: {stderr}");
    assert!(lines[0].starts_with("drainboard: error: "), "{stderr}");
    for needle in must_name {
        assert!(lines[0].contains(needle), "names {needle}: {stderr}");
    }
}

fn kubeconfig(dir: &Path, server: &str) -> String {
    let path = dir.join("config");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {{server: '{server}', insecure-skip-tls-verify: true}}\n\
             users:\n- name: u\n  user: {{token: not-a-real-token}}\ncontexts:\n- name: real\n  context: {{cluster: c, user: u}}\n\
             current-context: real\n"
        ),
    )
    .unwrap();
    path.display().to_string()
}

#[test]
fn a_missing_kubeconfig_names_the_file() {
    let (ok, stderr) = run_drainboard(&["--kubeconfig", "/nonexistent"]);
    assert!(!ok);
    assert_one_clear_line(&stderr, &["/nonexistent", "No such file"]);
}

#[test]
fn an_unknown_context_names_the_context_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = kubeconfig(dir.path(), "https://127.0.0.1:1");
    let (ok, stderr) = run_drainboard(&["--kubeconfig", &path, "--context", "nope"]);
    assert!(!ok);
    assert_one_clear_line(&stderr, &["\"nope\"", &path, "real"]);
}

#[test]
fn a_server_that_is_not_listening_is_named() {
    let dir = tempfile::tempdir().unwrap();
    // A port that was free a moment ago: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let server = format!("https://127.0.0.1:{port}");
    let path = kubeconfig(dir.path(), &server);
    let (ok, stderr) = run_drainboard(&["--kubeconfig", &path]);
    assert!(!ok);
    assert_one_clear_line(&stderr, &[&server, "\"real\"", &path]);
}

#[test]
fn a_kubeconfig_that_is_not_yaml_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken");
    std::fs::write(&path, "clusters: [: this is not yaml").unwrap();
    let (ok, stderr) = run_drainboard(&["--kubeconfig", &path.display().to_string()]);
    assert!(!ok);
    assert_one_clear_line(&stderr, &[&path.display().to_string()]);
}

#[test]
fn a_non_loopback_address_is_refused_in_one_line() {
    let out = Command::new(env!("CARGO_BIN_EXE_drainboard"))
        .args(["--kubeconfig", "/nonexistent", "--addr", "0.0.0.0:0"])
        .env("RUST_LOG", "off")
        .output()
        .expect("drainboard runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_one_clear_line(&stderr, &["0.0.0.0:0", "loopback"]);
}

#[test]
fn in_a_pod_without_a_kubeconfig_the_pods_service_account_is_tried() {
    // A pod's environment, with no kubeconfig anywhere: the in-cluster config is read (here it is missing, as on any
    // machine that is not a pod), and the error says which identity it tried.
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_drainboard"))
        .args(["--addr", "127.0.0.1:0"])
        .env_remove("KUBECONFIG")
        .env("HOME", home.path())
        .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        .env("KUBERNETES_SERVICE_PORT", "1")
        .env("RUST_LOG", "off")
        .output()
        .expect("drainboard runs");
    assert!(!out.status.success());
    assert_one_clear_line(&String::from_utf8_lossy(&out.stderr), &["the pod's service account (in-cluster)"]);
}

/// A fixed local secret that is short, or would break the printed URL, stops the start before anything connects,
/// naming the variable and how to make a good one.
#[test]
fn a_bad_local_secret_is_refused_in_one_line() {
    for secret in ["short", "a secret with spaces that is long enough to pass", "0123456789abcdef0123456789abcdef&x=1"]
    {
        let out = Command::new(env!("CARGO_BIN_EXE_drainboard"))
            .args(["--addr", "127.0.0.1:0", "--kubeconfig", "/nonexistent/config"])
            .env("DRAINBOARD_LOCAL_TOKEN", secret)
            .env("RUST_LOG", "off")
            .output()
            .expect("drainboard runs");
        assert!(!out.status.success(), "{secret}");
        assert_one_clear_line(
            &String::from_utf8_lossy(&out.stderr),
            &["DRAINBOARD_LOCAL_TOKEN", "openssl rand -hex 32"],
        );
    }
}
