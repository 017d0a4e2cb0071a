//! Parity with kubectl: the same node and options through `kubectl drain --dry-run=server` (the kubectl built
//! from the pinned Kubernetes release) and through Drainboard's drain, comparing which pods each would evict and
//! which it refuses.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A test that cannot set up fails, with the reason.

mod support;

use std::{collections::BTreeSet, time::Duration};

use domain::{
    drain::{Decision, DrainOptions, DryRun},
    progress::DrainState,
};
use k8s_openapi::api::{apps::v1::DaemonSet, core::v1::ConfigMap};
use kube::{
    Api,
    api::{DeleteParams, ListParams},
};
use serde_json::json;
use support::{HOLD_FINALIZER, Scenario, eventually, kubectl};

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
    // "cannot delete <why>: ns/a, ns/b" (several such errors are joined in one line, in brackets). <why> is a
    // filter's message ending "(use --force to override)", or the API's error, such as a DaemonSet "not found".
    let mut refused = BTreeSet::new();
    for part in stderr.split("cannot delete ").skip(1) {
        let line = part.lines().next().unwrap_or_default();
        let pods = line.rsplit_once(": ").map_or("", |(_, pods)| pods);
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
    let mut source = engine::drain::preview::PreviewSource::new(s.client.clone(), s.node.clone(), Default::default());
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
        let plan = assert_same_as_kubectl(&s, &inputs, flags, &options).await;
        assert!(plan.pods.iter().all(|p| p.name != "static-web" || matches!(p.decision, Decision::Skip(_))));
    }
    assert!(!s.unschedulable().await, "server dry runs leave the node schedulable");
}

/// Runs `kubectl drain --dry-run=server` with `flags`, then Drainboard's server dry run with `options` and its
/// preview from `inputs`, and asserts that all three refuse the same pods and evict the same pods. Returns
/// Drainboard's plan.
async fn assert_same_as_kubectl(
    s: &Scenario,
    inputs: &domain::preview::PreviewInputs,
    flags: &[&str],
    options: &DrainOptions,
) -> domain::drain::DrainPlan {
    let (k_evicted, k_refused, output) = kubectl_dry_run(&s.node, flags);
    let ours = s.drain(DrainOptions { dry_run: DryRun::Server, ..options.clone() }).await;
    let plan = ours.plan.clone().expect("a plan");
    let key = |p: &domain::drain::PodPlan| format!("{}/{}", p.namespace, p.name);
    let refused: BTreeSet<String> = plan.refused().map(key).collect();
    // kubectl prints evictions only when nothing is refused.
    let evicted: BTreeSet<String> =
        if plan.is_blocked() { BTreeSet::new() } else { plan.to_evict().map(key).collect() };
    assert_eq!(refused, k_refused, "refused with {flags:?}\nkubectl {output}");
    assert_eq!(evicted, k_evicted, "evicted with {flags:?}\nkubectl {output}");
    let want = if plan.is_blocked() { DrainState::Refused } else { DrainState::DryRunAccepted };
    assert_eq!(ours.state, want, "{flags:?}");
    let preview = domain::preview::preview(inputs, options).expect("a readable selector");
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
    plan
}

/// Rows 1.0, 1.2, 1.4, 1.7, 1.8, 1.12, 1.15 and 1.16 against kubectl: one node, every option set kubectl treats
/// differently (`--disable-eviction` aside, see above), and these pods:
///
/// - `legacy-…` (a ReplicationController's), `widget` (its controller a custom resource, `example.com/v1` Widget,
///   that does not exist), `orphan-rs` (its controller a ReplicaSet that does not exist): controllers of any kind,
///   never looked up (1.16);
/// - `no-controller`: owner references to objects that exist, one `controller: false`, one with no `controller`:
///   unmanaged (1.0), so refused without `--force` (1.17, 1.18);
/// - `orphan-ds`: its controller a DaemonSet that does not exist: refused without `--force` even with
///   `--ignore-daemonsets` (1.8), evicted with it (1.7);
/// - `agent-…`: a running DaemonSet pod, for `--ignore-daemonsets` (1.5, 1.6);
/// - `done-agent-…`: a finished DaemonSet pod (1.4); `done`, `done-scratch`: finished bare pods, the second with
///   emptyDir (1.15, 1.12); `scratch-…`: a running emptyDir pod (1.13, 1.14);
/// - with `--skip-wait-for-delete-timeout=1`, the two orphans, deleting for more than 1 s, are skipped (1.2).
///
/// A pod whose owner does not exist is deleted by the garbage collector at once, so a finalizer holds each orphan
/// terminating, as a drain finds a pod whose owner was deleted a moment ago. kwok then deletes it again with no
/// grace period, so its deletion timestamp soon lies in the past.
#[tokio::test]
async fn drainboard_decides_as_kubectl_drain_does_for_every_kind_of_owner() {
    let s = Scenario::new("parity-owners").await;
    for (name, volumes) in [("legacy", json!([])), ("scratch", json!([{"name": "scratch", "emptyDir": {}}]))] {
        let spec = s.pinned_spec(json!({"volumes": volumes}));
        s.apply(json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name},
            "spec": {"replicas": 1, "selector": {"app": name},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}));
    }
    s.pod("widget", controlled_by("example.com/v1", "Widget", "w1", "8a4ad2e8-0000-4000-8000-000000000001"), json!({}));
    // Owners that exist (else the garbage collector deletes the pod), none of them its controller.
    for owner in ["owner-a", "owner-b"] {
        s.apply(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": owner}}));
    }
    let config_maps: Api<ConfigMap> = Api::namespaced(s.client.clone(), &s.namespace);
    let uid = |cm: ConfigMap| cm.metadata.uid.unwrap();
    let (uid_a, uid_b) =
        (uid(config_maps.get("owner-a").await.unwrap()), uid(config_maps.get("owner-b").await.unwrap()));
    s.pod(
        "no-controller",
        json!({"ownerReferences": [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner-a", "uid": uid_a, "controller": false},
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner-b", "uid": uid_b}]}),
        json!({}),
    );
    // Bound to the node directly: the garbage collector deletes an orphan at once, and the scheduler never binds a
    // pod that is being deleted, so one left to the scheduler may never reach the node.
    s.pod(
        "orphan-rs",
        held(controlled_by("apps/v1", "ReplicaSet", "gone-rs", "8a4ad2e8-0000-4000-8000-000000000002")),
        json!({"nodeName": s.node}),
    );
    s.pod(
        "orphan-ds",
        held(controlled_by("apps/v1", "DaemonSet", "gone-ds", "8a4ad2e8-0000-4000-8000-000000000003")),
        json!({"nodeName": s.node}),
    );
    s.daemonset("agent");
    // A finished DaemonSet pod: its DaemonSet must stay (a missing one would be the orphan case) but must not
    // replace the finished pod, as a live DaemonSet controller does at once. One being deleted, held by a
    // finalizer, is left alone by the controller.
    let spec = s.pinned_spec(json!({}));
    s.apply(json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "done-agent", "finalizers": [HOLD_FINALIZER]},
        "spec": {"selector": {"matchLabels": {"app": "done-agent"}},
                 "template": {"metadata": {"labels": {"app": "done-agent"}}, "spec": spec}}}));
    s.bare_pod("done", json!({}));
    s.bare_pod("done-scratch", json!({"volumes": [{"name": "scratch", "emptyDir": {}}]}));
    // Everything but the two orphans runs; those are deleted by the garbage collector, and held.
    s.wait_running(8).await;
    let daemonsets: Api<DaemonSet> = Api::namespaced(s.client.clone(), &s.namespace);
    daemonsets.delete("done-agent", &DeleteParams::background()).await.unwrap();
    // The DaemonSet controller must see the deletion before the pod finishes, or it replaces the pod.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let done_agent = s.pods().list(&ListParams::default().labels("app=done-agent")).await.unwrap().items;
    let done_agent = done_agent[0].metadata.name.clone().unwrap();
    for pod in [done_agent.as_str(), "done", "done-scratch"] {
        s.set_phase(pod, "Succeeded").await;
    }
    // The state the comparison needs, for long enough that `--skip-wait-for-delete-timeout=1` skips the orphans.
    eventually("10 pods: 3 finished, the 2 orphans deleting for over 2 s", Duration::from_secs(60), || async {
        let on_node = ListParams::default().fields(&format!("spec.nodeName={}", s.node));
        let pods = s.pods().list(&on_node).await.unwrap().items;
        let finished =
            pods.iter().filter(|p| p.status.as_ref().and_then(|st| st.phase.as_deref()) == Some("Succeeded"));
        let old = jiff::Timestamp::now() - jiff::SignedDuration::from_secs(3);
        let deleting = pods.iter().filter(|p| p.metadata.deletion_timestamp.as_ref().is_some_and(|t| t.0 < old));
        (pods.len() == 10 && finished.count() == 3 && deleting.count() == 2).then_some(())
    })
    .await;
    let caches = support::caches();
    let cache = caches.for_identity(&s.identity, s.client.clone());
    tokio::time::timeout(Duration::from_secs(30), cache.ready()).await.expect("the cache lists");
    let mut source = engine::drain::preview::PreviewSource::new(s.client.clone(), s.node.clone(), Default::default());
    let started = std::time::Instant::now();
    loop {
        let inputs = source.inputs(&cache).await;
        let finished = inputs.pods.iter().filter(|p| p.phase == domain::pod::PodPhase::Succeeded).count();
        let deleting = inputs.pods.iter().filter(|p| p.deletion_timestamp.is_some()).count();
        if inputs.pods.len() == 10 && finished == 3 && deleting == 2 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the cache holds the 10 pods as they are: {inputs:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let options = |force, ignore_daemonsets, delete_emptydir_data, skip_wait: Option<u64>| DrainOptions {
        force,
        ignore_daemonsets,
        delete_emptydir_data,
        skip_wait_for_delete_timeout_seconds: skip_wait,
        ..Default::default()
    };
    let cases: Vec<(&[&str], DrainOptions)> = vec![
        (&[], options(false, false, false, None)),
        (&["--ignore-daemonsets"], options(false, true, false, None)),
        (&["--force"], options(true, false, false, None)),
        (&["--force", "--ignore-daemonsets"], options(true, true, false, None)),
        (&["--ignore-daemonsets", "--delete-emptydir-data"], options(false, true, true, None)),
        (&["--force", "--ignore-daemonsets", "--delete-emptydir-data"], options(true, true, true, None)),
        (&["--ignore-daemonsets", "--skip-wait-for-delete-timeout=1"], options(false, true, false, Some(1))),
        (
            &["--force", "--ignore-daemonsets", "--delete-emptydir-data", "--skip-wait-for-delete-timeout=1"],
            options(true, true, true, Some(1)),
        ),
    ];
    for (flags, options) in cases {
        let inputs = source.inputs(&cache).await;
        let plan = assert_same_as_kubectl(&s, &inputs, flags, &options).await;
        assert_eq!(plan.pods.len(), 10, "{flags:?}: every pod of the node is planned: {plan:?}");
    }
    assert!(!s.unschedulable().await, "server dry runs leave the node schedulable");
}

/// Pod metadata naming a controller owner, which need not exist.
fn controlled_by(api_version: &str, kind: &str, name: &str, uid: &str) -> serde_json::Value {
    let owner = json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid, "controller": true});
    json!({"ownerReferences": [owner]})
}

/// The same metadata, with the finalizer that holds the pod once deleted.
fn held(mut metadata: serde_json::Value) -> serde_json::Value {
    metadata["finalizers"] = json!([HOLD_FINALIZER]);
    metadata
}
