//! Parity with kubectl: the same node and options through `kubectl drain --dry-run=server` (the kubectl built
//! from the pinned Kubernetes release) and through Drainboard's drain, comparing which pods each would evict and
//! which it refuses.

mod support;

use std::collections::BTreeSet;

use domain::{
    drain::{Decision, DrainOptions, DryRun},
    progress::DrainState,
};
use serde_json::json;
use support::{Scenario, kubectl};

// Not compared: --disable-eviction. On its delete path kubectl prints no per-pod line, and kubectl 1.36 waits
// forever after a server dry run there (fixed upstream after 1.36), so there is nothing to compare with.

/// What kubectl said it would do: pods it would evict, pods it refuses.
fn kubectl_dry_run(node: &str, flags: &[&str]) -> (BTreeSet<String>, BTreeSet<String>, String) {
    let mut args = vec!["drain", node, "--dry-run=server"];
    args.extend_from_slice(flags);
    let (_, stdout, stderr) = kubectl(&args);
    let evicted = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("evicting pod "))
        .map(|rest| rest.trim_end_matches(" (server dry run)").to_string())
        .collect();
    // "cannot delete <why>: ns/a, ns/b" (several such errors are joined in one line, in brackets).
    let mut refused = BTreeSet::new();
    for part in stderr.split("cannot delete ").skip(1) {
        let pods = part.split_once("): ").map_or("", |(_, pods)| pods);
        for pod in pods.split(", ") {
            let pod: String = pod.chars().take_while(|c| !c.is_whitespace() && *c != ']' && *c != ',').collect();
            if pod.contains('/') {
                refused.insert(pod);
            }
        }
    }
    (evicted, refused, format!("stdout:\n{stdout}\nstderr:\n{stderr}"))
}

#[tokio::test]
async fn drainboard_decides_as_kubectl_drain_does() {
    let s = Scenario::new("parity").await;
    s.deployment("web", 2, json!({}));
    s.deployment("cache", 1, json!({"volumes": [{"name": "scratch", "emptyDir": {}}]}));
    s.daemonset("agent");
    s.bare_pod("debug", json!({}));
    let job_spec = s.pinned_spec(json!({"restartPolicy": "Never"}));
    s.apply(json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "report"},
        "spec": {"template": {"metadata": {"labels": {"app": "report"}}, "spec": job_spec}}}));
    s.apply(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "static-web", "labels": {"app": "static"}, "annotations": {"kubernetes.io/config.mirror": "abc"}},
        "spec": {"nodeName": s.node, "containers": [{"name": "c", "image": "nginx:1.27"}]}}));
    s.wait_running(7).await;
    // The drain dialog's preview plans from the live cache; it must agree with kubectl too.
    let caches = support::caches();
    let cache = caches.for_identity(&s.identity, s.client.clone());
    tokio::time::timeout(std::time::Duration::from_secs(30), cache.ready()).await.expect("the cache lists");
    let mut source = engine::drain::preview::PreviewSource::new(s.client.clone(), s.node.clone());
    let started = std::time::Instant::now();
    let inputs = loop {
        let inputs = source.inputs(&cache).await;
        if inputs.pods.len() == 7
            && inputs.pods.iter().all(|p| p.phase == domain::pod::PodPhase::Running || p.name.starts_with("report"))
        {
            break inputs;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "the cache holds the 7 pods: {inputs:?}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };

    let cases: Vec<(&[&str], DrainOptions)> = vec![
        (&[], DrainOptions::default()),
        (&["--ignore-daemonsets"], DrainOptions { ignore_daemonsets: true, ..Default::default() }),
        (
            &["--ignore-daemonsets", "--delete-emptydir-data"],
            DrainOptions { ignore_daemonsets: true, delete_emptydir_data: true, ..Default::default() },
        ),
        (
            &["--ignore-daemonsets", "--delete-emptydir-data", "--force"],
            DrainOptions { ignore_daemonsets: true, delete_emptydir_data: true, force: true, ..Default::default() },
        ),
        (
            &["--force", "--delete-emptydir-data"],
            DrainOptions { delete_emptydir_data: true, force: true, ..Default::default() },
        ),
        (
            &["--force", "--pod-selector", "app notin (agent,cache)"],
            DrainOptions { force: true, pod_selector: Some("app notin (agent,cache)".into()), ..Default::default() },
        ),
    ];
    for (flags, options) in cases {
        let (k_evicted, k_refused, output) = kubectl_dry_run(&s.node, flags);
        let ours = s.drain(DrainOptions { dry_run: DryRun::Server, ..options.clone() }).await;
        let plan = ours.plan.as_ref().expect("a plan");
        let key = |p: &domain::drain::PodPlan| format!("{}/{}", p.namespace, p.name);
        let refused: BTreeSet<String> = plan.refused().map(key).collect();
        // kubectl prints evictions only when nothing is refused.
        let evicted: BTreeSet<String> =
            if plan.is_blocked() { BTreeSet::new() } else { plan.to_evict().map(key).collect() };
        assert_eq!(refused, k_refused, "refused with {flags:?}\nkubectl {output}");
        assert_eq!(evicted, k_evicted, "evicted with {flags:?}\nkubectl {output}");
        let want = if plan.is_blocked() { DrainState::Refused } else { DrainState::DryRunAccepted };
        assert_eq!(ours.state, want, "{flags:?}");
        assert!(plan.pods.iter().all(|p| p.name != "static-web" || matches!(p.decision, Decision::Skip(_))));
        let preview = domain::preview::preview(&inputs, &options).expect("a readable selector");
        let name = |p: &domain::preview::PreviewPod| format!("{}/{}", p.namespace, p.name);
        let preview_refused: BTreeSet<String> = preview.refused.iter().map(|r| name(&r.pod)).collect();
        let preview_evicted: BTreeSet<String> =
            if preview.is_blocked() { BTreeSet::new() } else { preview.evict.iter().map(|e| name(&e.pod)).collect() };
        assert_eq!(preview_refused, k_refused, "preview refused with {flags:?}\nkubectl {output}");
        assert_eq!(preview_evicted, k_evicted, "preview evicted with {flags:?}\nkubectl {output}");
        eprintln!(
            "{flags:?}: {} evicted, {} refused, same as kubectl, in the drain and in the preview",
            evicted.len(),
            refused.len()
        );
    }
    assert!(!s.unschedulable().await, "server dry runs leave the node schedulable");
}
