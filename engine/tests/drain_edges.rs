//! Branches of kubectl's eviction loop, delete path and cordon that the happy paths of `drain.rs` do not reach, each
//! against the real control plane (the numbers are the rows of docs/kubectl-parity.md). Each test drains a kwok node
//! of its own.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A test that cannot set up fails, with the reason.

mod support;

use std::{
    collections::BTreeSet,
    time::{Duration, Instant},
};

use domain::{
    drain::{Decision, DrainOptions, DryRun, SkipReason},
    failure::{ApiAnswer, Failure},
    progress::{DrainProgress, DrainState, PodState},
};
use engine::drain::RECORD_ANNOTATION;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::{Value, json};
use support::{Scenario, eventually, finish, impersonating};

fn with(f: impl FnOnce(&mut DrainOptions)) -> DrainOptions {
    let mut o = DrainOptions::default();
    f(&mut o);
    o
}

/// How long the drain took, by its own clock.
fn took(progress: &DrainProgress) -> f64 {
    progress.finished_at.unwrap().duration_since(progress.started_at).as_secs_f64()
}

/// The scenario's pods, by name, with their UIDs and whether they are deleting.
async fn pods_as_they_are(s: &Scenario) -> Vec<(String, String, bool)> {
    let mut pods: Vec<_> = s
        .pods()
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|p| (p.metadata.name.unwrap(), p.metadata.uid.unwrap(), p.metadata.deletion_timestamp.is_some()))
        .collect();
    pods.sort();
    pods
}

/// The RBAC rules that cover what a drain reads and writes, with `pod_verbs` on pods and `node_verbs` on nodes.
fn drain_rules(pod_verbs: &[&str], node_verbs: &[&str]) -> Value {
    json!([
        {"apiGroups": [""], "resources": ["pods"], "verbs": pod_verbs},
        {"apiGroups": [""], "resources": ["nodes"], "verbs": node_verbs},
        {"apiGroups": [""], "resources": ["pods/eviction", "pods/status", "nodes/status", "namespaces", "events"],
         "verbs": ["*"]},
        {"apiGroups": ["apps", "policy", "batch"], "resources": ["*"], "verbs": ["*"]},
    ])
}

/// Every verb but `delete` and `deletecollection`.
const ALL_BUT_DELETE: &[&str] = &["get", "list", "watch", "create", "update", "patch"];
/// Every verb but `patch` and `update`.
const ALL_BUT_WRITE: &[&str] = &["get", "list", "watch", "create", "delete", "deletecollection"];

/// Row 2.1: a drain with nothing to evict (an empty node, then a node holding only a mirror pod, which is skipped)
/// cordons the node and ends Drained at once, rather than waiting for pods that will never come.
#[tokio::test]
async fn a_drain_with_nothing_to_evict_ends_drained() {
    let s = Scenario::new("nothing").await;
    let empty = s.drain(DrainOptions::default()).await;
    assert_eq!(empty.state, DrainState::Drained, "{empty:?}");
    assert!(empty.plan.as_ref().unwrap().pods.is_empty() && empty.pods.is_empty(), "{empty:?}");
    assert!(s.unschedulable().await, "the node is cordoned");
    assert!(took(&empty) < 5.0, "an empty node is drained at once: {} s", took(&empty));

    s.apply(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "static-web", "annotations": {"kubernetes.io/config.mirror": "abc"}},
        "spec": {"nodeName": s.node, "containers": [{"name": "c", "image": "nginx:1.27"}]}}));
    s.wait_running(1).await;
    let mirror_only = s.drain(DrainOptions::default()).await;
    assert_eq!(mirror_only.state, DrainState::Drained, "{mirror_only:?}");
    let plan = mirror_only.plan.as_ref().unwrap();
    assert_eq!(plan.pods.len(), 1);
    assert_eq!(plan.pods[0].decision, Decision::Skip(SkipReason::MirrorPod));
    assert!(mirror_only.pods.is_empty(), "nothing to evict: {:?}", mirror_only.pods);
    assert!(took(&mirror_only) < 5.0, "{} s", took(&mirror_only));
    assert_eq!(s.pods_on_node().await, ["static-web"]);
}

/// Row 2.4 (and 4.3): the drain's grace period reaches the API server on both paths, 0 included: the pod's
/// `deletionGracePeriodSeconds` while it terminates is the drain's, not the pod's own 45 s. A finalizer holds each
/// pod terminating, and kwok is held off (it would delete the pod again with a grace period of 0 of its own).
#[tokio::test]
async fn grace_periods_reach_the_api_server_on_both_paths_zero_included() {
    let s = Scenario::new("grace-paths").await;
    for (name, disable_eviction, grace) in
        [("evicted-0", false, 0), ("deleted-0", true, 0), ("deleted-7", true, 7), ("evicted-none", false, -1)]
    {
        s.held_pod(name, json!({"terminationGracePeriodSeconds": 45}));
        s.wait_running(1).await;
        s.set_simulated(false).await;
        let registry = support::registry();
        let options = with(|o| {
            o.force = true; // a bare pod
            o.disable_eviction = disable_eviction;
            o.grace_period_seconds = Some(grace);
        });
        let id = s.start(&registry, options);
        let mut rx = registry.subscribe(&id).unwrap();
        rx.wait_for(|p| {
            p.pods.iter().any(|pod| matches!(pod.state, PodState::Terminating { deletion_deadline: Some(_), .. }))
        })
        .await
        .unwrap();
        let pod = s.pods().get(name).await.unwrap();
        let want = if grace < 0 { 45 } else { grace };
        assert_eq!(
            pod.metadata.deletion_grace_period_seconds,
            Some(want),
            "{name}: the grace period sent (disable_eviction {disable_eviction})"
        );
        s.release_holds();
        s.set_simulated(true).await;
        let done = finish(&registry, &id, Duration::from_secs(30)).await;
        assert_eq!(done.state, DrainState::Drained, "{name}: {done:?}");
        assert!(s.pods().get_opt(name).await.unwrap().is_none(), "{name} is gone");
        s.uncordon().await;
    }
}

/// Rows 2.21 and 2.24: the timeout reached while waiting for a pod to go (its eviction or DELETE accepted, its
/// deletion held by a finalizer) ends the drain TimedOut with the pod Failed, still on the node, on both paths.
#[tokio::test]
async fn a_timeout_reached_while_waiting_for_deletion_fails_the_pod() {
    let s = Scenario::new("timeout-wait").await;
    for disable_eviction in [false, true] {
        s.held_pod("held", json!({}));
        s.wait_running(1).await;
        let registry = support::registry();
        let options = with(|o| {
            o.force = true;
            o.disable_eviction = disable_eviction;
            o.timeout_seconds = Some(3);
        });
        let id = s.start(&registry, options);
        let mut rx = registry.subscribe(&id).unwrap();
        let waiting = rx
            .wait_for(|p| {
                !p.state.is_running() || p.pods.iter().any(|pod| matches!(pod.state, PodState::Terminating { .. }))
            })
            .await
            .unwrap()
            .clone();
        assert!(matches!(waiting.pods[0].state, PodState::Terminating { .. }), "accepted, then waited: {waiting:?}");
        let done = finish(&registry, &id, Duration::from_secs(30)).await;
        assert_eq!(done.state, DrainState::TimedOut, "disable_eviction {disable_eviction}: {done:?}");
        assert_eq!(done.pods[0].state, PodState::Failed(Failure::TimedOut { seconds: 3 }));
        assert!((3.0..10.0).contains(&took(&done)), "the timeout ends the wait: {} s", took(&done));
        let pod = s.pods().get("held").await.unwrap();
        assert!(pod.metadata.deletion_timestamp.is_some(), "the pod is still there, terminating");
        assert_eq!(pod.spec.unwrap().node_name.as_deref(), Some(s.node.as_str()));
        s.release_holds();
        eventually("the held pod gone", Duration::from_secs(30), || async {
            s.pods().get_opt("held").await.unwrap().is_none().then_some(())
        })
        .await;
        s.uncordon().await;
    }
}

/// Rows 2.9 and 2.23: a pod that is gone by the time its eviction or DELETE is sent (the API answers 404) counts
/// as gone, not failed, on both paths; the drain goes on with the other pod and ends Drained. A test hook holds
/// the drain at the start of evicting while the pod is deleted.
#[cfg(feature = "test-hooks")] // ./test-all turns it on
#[tokio::test]
async fn a_pod_gone_before_its_eviction_or_delete_counts_as_gone() {
    use engine::drain::{Phase, TestHooks};
    let s = Scenario::new("gone-first").await;
    for disable_eviction in [false, true] {
        s.bare_pod("early", json!({}));
        s.bare_pod("late", json!({}));
        s.wait_running(2).await;
        let hooks = TestHooks { pause: Some((Phase::Evicting, Duration::from_secs(5))), panic: None };
        let registry = support::registry().with_test_hooks(hooks);
        let options = with(|o| {
            o.force = true;
            o.disable_eviction = disable_eviction;
        });
        let id = s.start(&registry, options);
        let mut rx = registry.subscribe(&id).unwrap();
        rx.wait_for(|p| p.state == DrainState::Evicting).await.unwrap();
        // With no grace period the API server removes it at once, whatever kwok is busy with.
        s.pods().delete("early", &DeleteParams { grace_period_seconds: Some(0), ..Default::default() }).await.unwrap();
        eventually("early gone", Duration::from_secs(4), || async {
            s.pods().get_opt("early").await.unwrap().is_none().then_some(())
        })
        .await;
        assert!(rx.borrow().pods.iter().all(|p| p.state == PodState::Pending), "still held: {:?}", rx.borrow().pods);
        let done = finish(&registry, &id, Duration::from_secs(30)).await;
        assert_eq!(done.state, DrainState::Drained, "disable_eviction {disable_eviction}: {done:?}");
        assert!(done.pods.iter().all(|p| p.state == PodState::Gone), "{:?}", done.pods);
        assert!(s.pods_on_node().await.is_empty());
        s.uncordon().await;
    }
}

/// Row 2.23: on the DELETE path (disable_eviction), a DELETE the API server refuses (403: the user may do anything a
/// drain does but delete pods) stops the drain at that pod, as kubectl's `deletePods` returns at the first error:
/// the drain ends Failed, the refused pod Failed with the API's message, the other never tried, both still there.
#[tokio::test]
async fn a_refused_delete_stops_the_delete_path_at_the_first_error() {
    let s = Scenario::new("delete-refused").await;
    s.deployment("web", 2, json!({}));
    s.wait_running(2).await;
    let before = pods_as_they_are(&s).await;
    let user = impersonating("no-pod-delete", drain_rules(ALL_BUT_DELETE, &["*"])).await;
    let registry = support::registry();
    let options = with(|o| o.disable_eviction = true);
    let id = registry.start(user.client.clone(), &user.identity, s.node.clone(), options, None).unwrap().id;
    let done = finish(&registry, &id, Duration::from_secs(30)).await;
    assert!(matches!(&done.state, DrainState::Failed(_)), "{done:?}");
    let failed: Vec<_> = done.pods.iter().filter(|p| matches!(&p.state, PodState::Failed(_))).collect();
    assert_eq!(failed.len(), 1, "the first refusal stops the deletes: {:?}", done.pods);
    let PodState::Failed(Failure::Api(ApiAnswer { code: Some(403), message })) = &failed[0].state else {
        panic!("the API's refusal: {:?}", failed[0].state)
    };
    assert!(message.contains("forbidden") && message.contains("delete"), "the API's message: {message}");
    let untried: Vec<_> = done.pods.iter().filter(|p| p.state == PodState::Pending).collect();
    assert_eq!(untried.len(), 1, "the other pod is never tried: {:?}", done.pods);
    assert_eq!(pods_as_they_are(&s).await, before, "both pods still there, not deleting");
    assert!(s.unschedulable().await, "the node stays cordoned");
    s.uncordon().await;
}

/// Row 2.23, the pods deleted before the refusal: kubectl sends no more DELETEs after the first error, and
/// neither does Drainboard; but the pod whose DELETE was accepted is followed until it is gone, so the ended drain
/// shows it `Gone`, not `Evicting` (a request in flight). The user may delete `a-first` only; pods are listed, and
/// deleted, in name order.
#[tokio::test]
async fn a_pod_deleted_before_a_refused_delete_is_not_left_evicting() {
    let s = Scenario::new("delete-half").await;
    s.bare_pod("a-first", json!({}));
    s.bare_pod("b-second", json!({}));
    s.wait_running(2).await;
    let mut rules = drain_rules(ALL_BUT_DELETE, &["*"]);
    rules
        .as_array_mut()
        .unwrap()
        .push(json!({"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"], "resourceNames": ["a-first"]}));
    let user = impersonating("delete-a-first-only", rules).await;
    let registry = support::registry();
    let options = with(|o| {
        o.force = true;
        o.disable_eviction = true;
    });
    let id = registry.start(user.client.clone(), &user.identity, s.node.clone(), options, None).unwrap().id;
    let done = finish(&registry, &id, Duration::from_secs(30)).await;
    assert!(matches!(&done.state, DrainState::Failed(_)), "{done:?}");
    let state = |name: &str| done.pods.iter().find(|p| p.name == name).unwrap().state.clone();
    assert!(
        matches!(state("b-second"), PodState::Failed(Failure::Api(a)) if a.message.contains("forbidden")),
        "{:?}",
        done.pods
    );
    eventually("a-first deleted", Duration::from_secs(10), || async {
        s.pods().get_opt("a-first").await.unwrap().is_none().then_some(())
    })
    .await;
    assert_eq!(state("a-first"), PodState::Gone, "followed until it went: {:?}", done.pods);
}

/// Row 2.25: a server dry run of the DELETE path (disable_eviction) changes nothing, is not held by a budget that
/// allows no disruption (DELETE does not consult it), and ends DryRunAccepted at once, where kubectl 1.36 would
/// wait for pods a dry run never deletes.
#[tokio::test]
async fn a_server_dry_run_of_the_delete_path_changes_nothing_and_ends_accepted() {
    let s = Scenario::new("dry-delete").await;
    s.guarded_web().await;
    let before = pods_as_they_are(&s).await;
    let done = s
        .drain(with(|o| {
            o.disable_eviction = true;
            o.dry_run = DryRun::Server;
        }))
        .await;
    assert_eq!(done.state, DrainState::DryRunAccepted, "{done:?}");
    assert_eq!(done.pods.len(), 2);
    assert!(done.pods.iter().all(|p| p.state == PodState::DryRunAccepted), "{:?}", done.pods);
    assert!(took(&done) < 10.0, "no wait for pods a dry run does not delete: {} s", took(&done));
    assert_eq!(pods_as_they_are(&s).await, before, "the same pods, none deleting");
    assert!(!s.unschedulable().await, "the node stays schedulable");
    let node = Api::<Node>::all(s.client.clone()).get(&s.node).await.unwrap();
    assert!(!node.metadata.annotations.unwrap_or_default().contains_key(RECORD_ANNOTATION), "no record");
}

/// Row 3.4: a cordon the API server refuses inside the drain task (the user may do anything a drain does but patch
/// nodes) ends the drain Failed("could not cordon …") before it plans or evicts anything.
#[tokio::test]
async fn a_refused_cordon_fails_the_drain_and_evicts_nothing() {
    let s = Scenario::new("cordon-refused").await;
    s.deployment("web", 2, json!({}));
    s.wait_running(2).await;
    let before = pods_as_they_are(&s).await;
    let user = impersonating("no-node-patch", drain_rules(&["*"], ALL_BUT_WRITE)).await;
    let registry = support::registry();
    let id =
        registry.start(user.client.clone(), &user.identity, s.node.clone(), DrainOptions::default(), None).unwrap().id;
    let done = finish(&registry, &id, Duration::from_secs(30)).await;
    let DrainState::Failed(Failure::Cordon(answer)) = &done.state else { panic!("the drain fails: {done:?}") };
    assert_eq!(answer.code, Some(403), "{answer:?}");
    assert!(answer.message.contains("forbidden"), "with the API's message: {answer:?}");
    assert!(done.plan.is_none() && done.pods.is_empty(), "nothing planned: {done:?}");
    assert_eq!(pods_as_they_are(&s).await, before, "nothing evicted");
    assert!(!s.unschedulable().await);
}

/// Row 4.9: a server dry run whose evictions a budget refuses (it allows no disruption) retries as a real drain
/// would, but only up to the dry run's 15 s cap, which the registry applies to every caller (a script's request
/// with no timeout included): it ends TimedOut there, the pods blocked then failed, none evicted.
#[tokio::test]
async fn a_server_dry_run_held_by_a_budget_ends_at_the_cap() {
    let s = Scenario::new("dry-pdb").await;
    s.guarded_web().await;
    let before = pods_as_they_are(&s).await;
    // As a script sends it: no timeout at all.
    let options = DrainOptions { dry_run: DryRun::Server, ..Default::default() };
    let registry = support::registry();
    let id = s.start(&registry, options);
    let mut rx = registry.subscribe(&id).unwrap();
    rx.wait_for(|p| {
        !p.state.is_running() || p.pods.iter().any(|pod| matches!(&pod.state, PodState::Blocked { pdb: Some(_), .. }))
    })
    .await
    .unwrap();
    assert!(rx.borrow().state.is_running(), "blocked by the budget, still running: {:?}", *rx.borrow());
    let done = finish(&registry, &id, Duration::from_secs(40)).await;
    assert_eq!(done.state, DrainState::TimedOut, "{done:?}");
    let cap = domain::drain::DRY_RUN_TIMEOUT_SECONDS;
    assert!((cap as f64..cap as f64 + 10.0).contains(&took(&done)), "ends at the cap: {} s", took(&done));
    assert!(
        done.pods.iter().all(|p| p.state == PodState::Failed(Failure::TimedOut { seconds: cap })),
        "{:?}",
        done.pods
    );
    assert_eq!(pods_as_they_are(&s).await, before, "nothing evicted");
    assert!(!s.unschedulable().await);
}

/// Row 4.10: the node's pods are listed page by page (500 at a time) and the pages followed to the end: a node with
/// 501 pods is planned whole. The pods are bound with `nodeName`, past the scheduler and the node's pod capacity.
#[tokio::test]
async fn a_node_with_more_than_500_pods_is_listed_whole() {
    let s = Scenario::new("paging").await;
    let names: BTreeSet<String> = (0..501).map(|i| format!("p-{i:03}")).collect();
    let started = Instant::now();
    futures::stream::iter(names.iter().map(|name| {
        let pod: Pod = serde_json::from_value(json!({"metadata": {"name": name},
            "spec": {"nodeName": s.node, "containers": [{"name": "c", "image": "nginx:1.27"}]}}))
        .unwrap();
        let pods = s.pods();
        async move { pods.create(&PostParams::default(), &pod).await }
    }))
    .buffer_unordered(16)
    .try_collect::<Vec<_>>()
    .await
    .expect("501 pods created");
    eprintln!("501 pods created in {:?}", started.elapsed());
    eventually("501 pods on the node", Duration::from_secs(60), || async {
        (s.pods_on_node().await.len() == 501).then_some(())
    })
    .await;

    let done = s
        .drain(with(|o| {
            o.force = true;
            o.dry_run = DryRun::Client;
        }))
        .await;
    assert_eq!(done.state, DrainState::DryRunPlanned, "{:?}", done.state);
    let plan = done.plan.as_ref().unwrap();
    let planned: BTreeSet<String> = plan.pods.iter().map(|p| p.name.clone()).collect();
    assert_eq!(plan.pods.len(), 501, "each pod once");
    assert_eq!(planned, names, "every pod of the node, past the first page");
}

/// Row 2.17, another UID: a pod blocked by its budget is replaced, between two retries, by a new pod of the same
/// name (as a StatefulSet or an operator recreates one). kubectl would then evict the replacement; Drainboard counts
/// the pod it planned as gone and never touches the new one, which stays on the node.
#[tokio::test]
async fn a_pod_replaced_under_its_name_between_retries_counts_as_gone_and_the_new_one_is_left() {
    let s = Scenario::new("replaced").await;
    s.bare_pod("solo", json!({}));
    s.apply(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "solo-pdb"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "solo"}}}}));
    s.wait_running(1).await;
    s.wait_pdb("solo-pdb", 0).await;
    let original = s.pods().get("solo").await.unwrap().metadata.uid.unwrap();
    let registry = support::registry();
    let id = s.start(&registry, with(|o| o.force = true));
    eventually("the eviction blocked by the budget", Duration::from_secs(30), || async {
        let p = registry.progress(&id)?;
        p.pods.iter().any(|pod| matches!(pod.state, PodState::Blocked { .. })).then_some(())
    })
    .await;
    // Replaced under the same name: the old one deleted at once, a new one made in its place.
    s.pods()
        .delete("solo", &kube::api::DeleteParams { grace_period_seconds: Some(0), ..Default::default() })
        .await
        .unwrap();
    eventually("the old pod gone", Duration::from_secs(15), || async {
        s.pods().get_opt("solo").await.unwrap().is_none().then_some(())
    })
    .await;
    s.bare_pod("solo", json!({}));
    let done = finish(&registry, &id, Duration::from_secs(30)).await;
    assert_eq!(done.state, DrainState::Drained, "{done:?}");
    assert_eq!(done.pods.len(), 1);
    assert_eq!((done.pods[0].uid.as_str(), &done.pods[0].state), (original.as_str(), &PodState::Gone));
    let replacement = s.pods().get("solo").await.expect("the new pod is still there");
    assert_ne!(replacement.metadata.uid.as_deref(), Some(original.as_str()));
    assert!(replacement.metadata.deletion_timestamp.is_none(), "the replacement was not evicted");
    s.uncordon().await;
}

/// Row 1.9: a DaemonSet lookup the API server refuses (the user may do everything a drain does except read
/// DaemonSets) refuses that pod with the API's message, whatever the options (`force` and `ignore_daemonsets` both
/// on here): kubectl's `daemonSetFilter` makes any error but not-found fatal. Nothing is evicted.
#[tokio::test]
async fn a_daemonset_lookup_the_api_refuses_refuses_the_pod_whatever_the_options() {
    let s = Scenario::new("ds-forbidden").await;
    s.daemonset("agent");
    s.deployment("web", 1, json!({}));
    s.wait_running(2).await;
    let before = pods_as_they_are(&s).await;
    let rules = json!([
        {"apiGroups": [""], "resources": ["pods", "nodes"], "verbs": ["*"]},
        {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["*"]},
        {"apiGroups": ["policy"], "resources": ["*"], "verbs": ["*"]},
    ]);
    let user = impersonating("no-daemonsets", rules).await;
    let registry = support::registry();
    let options = with(|o| {
        o.force = true;
        o.ignore_daemonsets = true;
    });
    let id = registry.start(user.client.clone(), &user.identity, s.node.clone(), options, None).unwrap().id;
    let done = finish(&registry, &id, Duration::from_secs(30)).await;
    assert_eq!(done.state, DrainState::Refused, "{done:?}");
    let plan = done.plan.expect("a plan");
    let refused: Vec<_> = plan.refused().collect();
    assert_eq!(refused.len(), 1, "only the DaemonSet pod: {plan:?}");
    assert!(refused[0].name.starts_with("agent-"), "{plan:?}");
    let reason = format!("{:?}", refused[0].decision);
    assert!(reason.contains("DaemonSetLookupFailed") && reason.contains("forbidden"), "{reason}");
    assert_eq!(pods_as_they_are(&s).await, before, "nothing evicted");
    s.uncordon().await;
}
