//! The drain engine against the real control plane: one test per rule of kubectl's filter chain and eviction loop.
//! Each test drains a kwok node of its own, so the tests run side by side.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A test that cannot set up fails, with the reason.

mod support;

use std::time::Duration;

use domain::{
    drain::{Decision, DrainOption, DrainOptions, DryRun, Refusal, SkipReason},
    failure::Failure,
    progress::{CordonOutcome, DrainProgress, DrainRecord, DrainState, PodState},
};
use engine::drain::{RECORD_ANNOTATION, ops};
use k8s_openapi::api::{apps::v1::Deployment, core::v1::Node};
use kube::{
    Api,
    api::{DeleteParams, Patch, PatchParams},
};
use serde_json::json;
use support::{Scenario, eventually, finish};

fn names(progress: &DrainProgress, pick: fn(&Decision) -> bool) -> Vec<String> {
    let mut v: Vec<_> =
        progress.plan.iter().flat_map(|p| &p.pods).filter(|p| pick(&p.decision)).map(|p| p.name.clone()).collect();
    v.sort();
    v
}

fn refused(progress: &DrainProgress) -> Vec<String> {
    names(progress, |d| matches!(d, Decision::Refuse { .. }))
}

fn evicted(progress: &DrainProgress) -> Vec<String> {
    names(progress, |d| matches!(d, Decision::Evict { .. }))
}

fn with(f: impl FnOnce(&mut DrainOptions)) -> DrainOptions {
    let mut o = DrainOptions::default();
    f(&mut o);
    o
}

#[tokio::test]
async fn cordon_and_uncordon_report_when_nothing_changes() {
    let s = Scenario::new("cordon").await;
    let c = &s.client;
    let record = domain::progress::CordonRecord {
        by: "alice".into(),
        at: jiff::Timestamp::now(),
        reason: Some("kernel 6.12".into()),
    };
    let annotation = || async {
        let node = kube::Api::<k8s_openapi::api::core::v1::Node>::all(c.clone()).get(&s.node).await.unwrap();
        node.metadata.annotations.and_then(|a| a.get(domain::progress::CORDON_ANNOTATION).cloned())
    };
    let cordon = |on: bool| ops::set_unschedulable(c, &s.node, on, DryRun::None, Some(&record));
    assert_eq!(cordon(true).await.unwrap(), CordonOutcome::Changed);
    assert!(s.unschedulable().await);
    let written = annotation().await.expect("the cordon is recorded in the same patch");
    assert_eq!(domain::progress::CordonRecord::parse(&written).as_ref(), Some(&record));
    assert_eq!(cordon(true).await.unwrap(), CordonOutcome::AlreadyDone);
    assert_eq!(cordon(false).await.unwrap(), CordonOutcome::Changed);
    assert!(!s.unschedulable().await);
    assert_eq!(annotation().await, None, "the uncordon removes the record");
    assert_eq!(cordon(false).await.unwrap(), CordonOutcome::AlreadyDone);
    match ops::set_unschedulable(c, "no-such-node", true, DryRun::None, None).await {
        Err(kube::Error::Api(status)) => assert_eq!(status.code, 404),
        other => panic!("a missing node is an error, got {other:?}"),
    }
}

#[tokio::test]
async fn empty_dir_is_refused_then_allowed_with_the_option() {
    let s = Scenario::new("emptydir").await;
    s.deployment("cache", 1, json!({"volumes": [{"name": "scratch", "emptyDir": {"medium": "Memory"}}]}));
    s.deployment("web", 1, json!({}));
    s.wait_running(2).await;

    let first = s.drain(DrainOptions::default()).await;
    assert_eq!(first.state, DrainState::Refused);
    let plan = first.plan.as_ref().unwrap();
    let cache = plan.pods.iter().find(|p| p.name.starts_with("cache-")).unwrap();
    assert_eq!(
        cache.decision,
        Decision::Refuse { reason: Refusal::LocalStorage, needs: vec![DrainOption::DeleteEmptydirData] }
    );
    assert_eq!(s.pods_on_node().await.len(), 2, "a refused drain evicts nothing, not even the web pod");
    assert!(s.unschedulable().await, "the node stays cordoned, as with kubectl");

    let second = s.drain(with(|o| o.delete_emptydir_data = true)).await;
    assert_eq!(second.state, DrainState::Drained, "{second:?}");
    assert_eq!(s.pods_on_node().await, Vec::<String>::new());
}

#[tokio::test]
async fn daemonset_pods_are_refused_then_left_in_place() {
    let s = Scenario::new("daemonset").await;
    s.daemonset("agent");
    s.deployment("web", 1, json!({}));
    s.wait_running(2).await;

    let first = s.drain(DrainOptions::default()).await;
    assert_eq!(first.state, DrainState::Refused);
    let agent = refused(&first);
    assert_eq!(agent.len(), 1);
    assert!(agent[0].starts_with("agent-"));

    let second = s.drain(with(|o| o.ignore_daemonsets = true)).await;
    assert_eq!(second.state, DrainState::Drained, "{second:?}");
    let skipped: Vec<_> = second.plan.as_ref().unwrap().skipped().map(|p| p.decision.clone()).collect();
    assert_eq!(skipped, [Decision::Skip(SkipReason::DaemonSetIgnored)]);
    let left = s.pods_on_node().await;
    assert!(left.len() == 1 && left[0].starts_with("agent-"), "only the DaemonSet pod stays: {left:?}");
}

#[tokio::test]
async fn a_daemonset_pod_whose_daemonset_is_gone_needs_force() {
    let s = Scenario::new("orphan-ds").await;
    s.daemonset("agent");
    s.wait_running(1).await;
    // Stop kwok from finishing deletions on this node, as a busy kubelet would be slow to, then delete the
    // DaemonSet: its pod is left terminating, still naming the DaemonSet as its controller.
    s.set_simulated(false).await;
    let daemonsets: Api<k8s_openapi::api::apps::v1::DaemonSet> = Api::namespaced(s.client.clone(), &s.namespace);
    daemonsets.delete("agent", &DeleteParams::background()).await.unwrap();
    eventually("the pod terminating", Duration::from_secs(30), || async {
        let pods = s.pods().list(&Default::default()).await.unwrap().items;
        pods.iter().any(|p| p.metadata.deletion_timestamp.is_some()).then_some(())
    })
    .await;

    let first = s.drain(with(|o| o.ignore_daemonsets = true)).await;
    assert_eq!(first.state, DrainState::Refused);
    let pod = &first.plan.as_ref().unwrap().pods[0];
    assert!(
        matches!(&pod.decision, Decision::Refuse { reason: Refusal::DaemonSetMissing(m), needs } if m.contains("not found") && needs == &[DrainOption::Force]),
        "{pod:?}"
    );

    let registry = support::registry();
    let id = s.start(
        &registry,
        with(|o| {
            o.ignore_daemonsets = true;
            o.force = true;
        }),
    );
    let mut rx = registry.subscribe(&id).unwrap();
    rx.wait_for(|p| p.pods.iter().any(|pod| matches!(pod.state, PodState::Terminating { .. }))).await.unwrap();
    s.set_simulated(true).await;
    let done = finish(&registry, &id, Duration::from_secs(60)).await;
    assert_eq!(done.state, DrainState::Drained, "{done:?}");
    assert!(s.pods_on_node().await.is_empty());
}

#[tokio::test]
async fn a_bare_pod_is_refused_then_deleted_with_force() {
    let s = Scenario::new("bare").await;
    s.bare_pod("debug", json!({}));
    s.wait_running(1).await;
    let first = s.drain(DrainOptions::default()).await;
    assert_eq!(first.state, DrainState::Refused);
    assert_eq!(refused(&first), ["debug"]);
    let second = s.drain(with(|o| o.force = true)).await;
    assert_eq!(second.state, DrainState::Drained, "{second:?}");
    assert!(s.pods().get_opt("debug").await.unwrap().is_none(), "the bare pod is gone for good");
}

#[tokio::test]
async fn a_completed_job_pod_is_evicted_and_a_mirror_pod_skipped() {
    let s = Scenario::new("job-mirror").await;
    let spec = s.pinned_spec(json!({"restartPolicy": "Never"}));
    s.apply(json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "report"},
        "spec": {"template": {"metadata": {"labels": {"app": "report"}}, "spec": spec}}}));
    s.apply(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "static-web", "annotations": {"kubernetes.io/config.mirror": "abc"}},
        "spec": {"nodeName": s.node, "containers": [{"name": "c", "image": "nginx:1.27"}]}}));
    s.wait_running(2).await; // the Job's pod Succeeded, the mirror pod Running

    let done = s.drain(DrainOptions::default()).await;
    assert_eq!(done.state, DrainState::Drained, "{done:?}");
    let evicted = evicted(&done);
    assert!(evicted.len() == 1 && evicted[0].starts_with("report-"), "the completed pod is evicted: {evicted:?}");
    let skipped: Vec<_> = done.plan.as_ref().unwrap().skipped().map(|p| (p.name.clone(), p.decision.clone())).collect();
    assert_eq!(skipped, [("static-web".to_string(), Decision::Skip(SkipReason::MirrorPod))]);
    assert_eq!(s.pods_on_node().await, ["static-web"]);
}

#[tokio::test]
async fn the_grace_period_reaches_the_api_server_and_terminating_pods_are_followed() {
    let s = Scenario::new("grace").await;
    s.deployment("web", 1, json!({"terminationGracePeriodSeconds": 45}));
    s.wait_running(1).await;
    // With kwok holding off, the evicted pod stays terminating, as behind a slow kubelet.
    s.set_simulated(false).await;
    let registry = support::registry();
    let id = s.start(&registry, with(|o| o.grace_period_seconds = Some(7)));
    let mut rx = registry.subscribe(&id).unwrap();
    let terminating = rx
        .wait_for(|p| {
            p.pods.iter().any(|pod| matches!(pod.state, PodState::Terminating { deletion_deadline: Some(_), .. }))
        })
        .await
        .unwrap()
        .clone();
    let name = &terminating.pods[0].name;
    let pod = s.pods().get(name).await.unwrap();
    assert_eq!(pod.metadata.deletion_grace_period_seconds, Some(7), "the drain's grace period, not the pod's 45 s");
    let PodState::Terminating { deletion_deadline: Some(deadline), .. } = terminating.pods[0].state else {
        unreachable!()
    };
    assert_eq!(
        Some(deadline),
        pod.metadata.deletion_timestamp.map(|t| t.0),
        "grace left is shown from the API's deadline"
    );
    assert!(terminating.state.is_running(), "a terminating pod is not gone yet");
    s.set_simulated(true).await;
    let done = finish(&registry, &id, Duration::from_secs(30)).await;
    assert_eq!(done.state, DrainState::Drained, "{done:?}");
}

#[tokio::test]
async fn pods_deleting_past_the_skip_wait_limit_are_no_longer_waited_for() {
    let s = Scenario::new("skip-wait").await;
    s.deployment("web", 1, json!({}));
    s.wait_running(1).await;
    // Nothing will finish this pod's deletion, as on a node that is down.
    s.set_simulated(false).await;
    let done = s
        .drain(with(|o| {
            o.grace_period_seconds = Some(1);
            o.skip_wait_for_delete_timeout_seconds = Some(2);
        }))
        .await;
    assert_eq!(done.state, DrainState::DrainedExceptTerminating(1), "{done:?}");
    assert_eq!(done.pods[0].state, PodState::NoLongerWaited);
    let pod = s.pods().get(&done.pods[0].name).await.unwrap();
    assert!(pod.metadata.deletion_timestamp.is_some(), "the pod is still there, terminating");
    s.set_simulated(true).await;
}

#[tokio::test]
async fn a_pod_in_a_terminating_namespace_is_waited_for_not_failed() {
    let s = Scenario::new("ns-terminating").await;
    s.deployment("web", 1, json!({}));
    s.wait_running(1).await;
    s.set_simulated(false).await;
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(s.client.clone());
    namespaces.delete(&s.namespace, &DeleteParams::default()).await.unwrap();
    eventually("the pod terminating with its namespace", Duration::from_secs(30), || async {
        let pods = s.pods().list(&Default::default()).await.unwrap().items;
        pods.iter().all(|p| p.metadata.deletion_timestamp.is_some()).then_some(())
    })
    .await;
    // The eviction is refused (403 NamespaceTerminating); the pod is already deleting, so the drain waits for it.
    let registry = support::registry();
    let id = s.start(&registry, DrainOptions::default());
    let mut rx = registry.subscribe(&id).unwrap();
    let waiting = rx
        .wait_for(|p| p.pods.iter().any(|pod| matches!(pod.state, PodState::Terminating { .. } | PodState::Failed(_))))
        .await
        .unwrap()
        .clone();
    assert!(matches!(waiting.pods[0].state, PodState::Terminating { .. }), "{:?}", waiting.pods);
    s.set_simulated(true).await;
    let done = finish(&registry, &id, Duration::from_secs(30)).await;
    assert_eq!(done.state, DrainState::Drained, "{done:?}");
}

#[tokio::test]
async fn a_pdb_blocks_by_name_until_the_deployment_grows() {
    let s = Scenario::new("pdb").await;
    s.guarded_web().await;
    // Replacements need somewhere to go once the drained node is cordoned.
    s.add_spare_node().await;

    let registry = support::registry();
    let id = s.start(&registry, DrainOptions::default());
    let mut rx = registry.subscribe(&id).unwrap();
    let blocked = rx
        .wait_for(|p| {
            p.pods
                .iter()
                .any(|pod| matches!(&pod.state, PodState::Blocked { pdb: Some(pdb), .. } if pdb.name == "web-pdb"))
        })
        .await
        .unwrap()
        .clone();
    let PodState::Blocked { pdb: Some(pdb), message, blockers, .. } =
        blocked.pods.iter().map(|p| p.state.clone()).find(|st| matches!(st, PodState::Blocked { .. })).unwrap()
    else {
        unreachable!()
    };
    assert_eq!((pdb.disruptions_allowed, pdb.current_healthy, pdb.desired_healthy), (0, 2, 2));
    // Why it stays, by the budget's own numbers: every pod it counts must stay healthy.
    assert_eq!(
        blockers,
        [domain::blocker::Blocker::BudgetNever { budget: "web-pdb".into(), expected: pdb.expected_pods, desired: 2 }],
        "{pdb:?}"
    );
    assert!(message.contains("disruption budget"), "{message}");
    assert!(blocked.state.is_running());

    let deployments: Api<Deployment> = Api::namespaced(s.client.clone(), &s.namespace);
    deployments.patch("web", &PatchParams::default(), &Patch::Merge(json!({"spec": {"replicas": 3}}))).await.unwrap();
    let done = finish(&registry, &id, Duration::from_secs(90)).await;
    assert_eq!(done.state, DrainState::Drained, "{done:?}");
    assert!(s.pods_on_node().await.is_empty());
}

#[tokio::test]
async fn a_pod_under_two_pdbs_fails_naming_both_with_the_apis_message() {
    let s = Scenario::new("two-pdbs").await;
    s.deployment("web", 1, json!({}));
    for name in ["pdb-a", "pdb-b"] {
        s.apply(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
            "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}}));
    }
    s.wait_running(1).await;
    s.wait_pdb("pdb-a", 1).await;
    s.wait_pdb("pdb-b", 1).await;
    let done = s.drain(DrainOptions::default()).await;
    assert!(matches!(done.state, DrainState::Failed(_)), "{done:?}");
    match &done.pods[0].state {
        PodState::Failed(Failure::TwoBudgets { budgets, answer }) => {
            assert_eq!(budgets, &["pdb-a", "pdb-b"]);
            assert_eq!(answer.code, Some(500));
            assert!(answer.message.contains("more than one PodDisruptionBudget"), "{answer:?}")
        }
        other => panic!("the pod fails: {other:?}"),
    }
    assert_eq!(s.pods_on_node().await.len(), 1, "the pod is still there");
}

#[tokio::test]
async fn the_pod_selector_limits_the_drain() {
    let s = Scenario::new("selector").await;
    s.deployment("web", 2, json!({}));
    s.deployment("db", 1, json!({}));
    s.wait_running(3).await;
    let done = s.drain(with(|o| o.pod_selector = Some("app=web".into()))).await;
    assert_eq!(done.state, DrainState::Drained, "{done:?}");
    assert_eq!(done.pods.len(), 2);
    let left = s.pods_on_node().await;
    assert!(left.len() == 1 && left[0].starts_with("db-"), "{left:?}");
}

#[tokio::test]
async fn a_timeout_reports_the_pods_left() {
    let s = Scenario::new("timeout").await;
    s.guarded_web().await;
    let done = s.drain(with(|o| o.timeout_seconds = Some(3))).await;
    assert_eq!(done.state, DrainState::TimedOut, "{done:?}");
    assert_eq!(done.pods_left(), 2);
    assert!(
        done.pods.iter().all(|p| matches!(&p.state, PodState::Failed(Failure::TimedOut { seconds: 3 }))),
        "{:?}",
        done.pods
    );
    let took = done.finished_at.unwrap().duration_since(done.started_at).as_secs_f64();
    assert!(took < 10.0, "the timeout ends the drain: {took} s");
    assert_eq!(s.pods_on_node().await.len(), 2);
}

#[tokio::test]
async fn disable_eviction_deletes_despite_the_pdb() {
    let s = Scenario::new("delete").await;
    s.guarded_web().await;
    let done = s.drain(with(|o| o.disable_eviction = true)).await;
    assert_eq!(done.state, DrainState::Drained, "{done:?}");
    assert!(s.pods_on_node().await.is_empty());
}

#[tokio::test]
async fn dry_runs_change_nothing() {
    let s = Scenario::new("dry-run").await;
    s.deployment("web", 2, json!({}));
    s.wait_running(2).await;
    let before = s.pods_on_node().await;
    for (mode, want) in [(DryRun::Client, DrainState::DryRunPlanned), (DryRun::Server, DrainState::DryRunAccepted)] {
        let done = s.drain(with(|o| o.dry_run = mode)).await;
        assert_eq!(done.state, want, "{mode:?}: {done:?}");
        assert_eq!(evicted(&done).len(), 2, "{mode:?}");
        assert!(!s.unschedulable().await, "{mode:?} leaves the node schedulable");
        assert_eq!(s.pods_on_node().await, before, "{mode:?} leaves the pods");
        let node = Api::<Node>::all(s.client.clone()).get(&s.node).await.unwrap();
        assert!(
            !node.metadata.annotations.unwrap_or_default().contains_key(RECORD_ANNOTATION),
            "{mode:?} records nothing"
        );
    }
    let server = s.drain(with(|o| o.dry_run = DryRun::Server)).await;
    assert!(server.pods.iter().all(|p| p.state == PodState::DryRunAccepted), "{:?}", server.pods);
}

#[tokio::test]
async fn a_statefulset_pod_recreated_under_the_same_name_counts_as_gone() {
    let s = Scenario::new("statefulset").await;
    let spec = s.pinned_spec(json!({}));
    s.apply(json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
        "spec": {"serviceName": "db", "replicas": 1, "selector": {"matchLabels": {"app": "db"}},
                 "template": {"metadata": {"labels": {"app": "db"}}, "spec": spec}}}));
    s.wait_running(1).await;
    let old_uid = s.pods().get("db-0").await.unwrap().metadata.uid.unwrap();
    s.add_spare_node().await;
    let done = s.drain(DrainOptions::default()).await;
    assert_eq!(done.state, DrainState::Drained, "{done:?}");
    let new =
        eventually("db-0 recreated", Duration::from_secs(30), || async { s.pods().get_opt("db-0").await.unwrap() })
            .await;
    assert_ne!(new.metadata.uid.unwrap(), old_uid, "a new pod under the same name");
    assert_ne!(new.spec.unwrap().node_name.as_deref(), Some(s.node.as_str()));
}

#[tokio::test]
async fn cancel_stops_a_blocked_drain_and_keeps_the_node_cordoned() {
    let s = Scenario::new("cancel").await;
    s.guarded_web().await;
    s.deployment("api", 1, json!({}));
    s.wait_running(3).await;

    let registry = support::registry();
    let id = s.start(&registry, DrainOptions::default());
    let mut rx = registry.subscribe(&id).unwrap();
    rx.wait_for(|p| {
        p.pods.iter().filter(|pod| matches!(pod.state, PodState::Blocked { .. })).count() == 2
            && p.pods.iter().any(|pod| pod.state == PodState::Gone)
    })
    .await
    .unwrap();
    // A second request for the same node attaches to the running drain; one with other options conflicts.
    let again = registry.start(s.client.clone(), &s.identity, s.node.clone(), DrainOptions::default(), None).unwrap();
    assert!(again.attached && again.id == id);
    let other = with(|o| o.grace_period_seconds = Some(1));
    let conflict = registry.start(s.client.clone(), &s.identity, s.node.clone(), other, None).unwrap_err();
    assert!(
        matches!(&conflict, engine::Error::Conflict(domain::conflict::Conflict::AlreadyDraining { drain, .. }) if *drain == id),
        "{conflict}"
    );

    assert!(registry.cancel(&id));
    let done = finish(&registry, &id, Duration::from_secs(10)).await;
    assert_eq!(done.state, DrainState::Cancelled);
    assert_eq!(done.pods_left(), 2);
    assert!(s.unschedulable().await);
    assert_eq!(s.pods_on_node().await.len(), 2);
    // The record on the node says how it ended (it is written just after the final state is published).
    let record = eventually("the final record on the node", Duration::from_secs(10), || async {
        let node = Api::<Node>::all(s.client.clone()).get(&s.node).await.unwrap();
        let record: DrainRecord = serde_json::from_str(&node.metadata.annotations.unwrap()[RECORD_ANNOTATION]).unwrap();
        (record.state == DrainState::Cancelled).then_some(record)
    })
    .await;
    assert_eq!((record.id, record.pods_left, record.reason), (id, 2, Some("test".into())));
    s.uncordon().await;
}

/// Each node's drain record, as a cache of the nodes reads it (listed here, to test the reading on its own).
async fn on_nodes(s: &Scenario) -> Vec<(String, domain::progress::DrainRecord)> {
    let nodes =
        kube::Api::<k8s_openapi::api::core::v1::Node>::all(s.client.clone()).list(&Default::default()).await.unwrap();
    nodes
        .items
        .into_iter()
        .filter_map(|n| {
            let text = n.metadata.annotations.as_ref()?.get(domain::progress::RECORD_ANNOTATION)?;
            Some((n.metadata.name.clone()?, serde_json::from_str(text).ok()?))
        })
        .collect()
}

#[tokio::test]
async fn a_drain_left_running_by_a_stopped_server_reads_as_interrupted_and_resumes() {
    let s = Scenario::new("interrupted").await;
    s.guarded_web().await;

    let first_server = support::registry();
    let options = with(|o| o.grace_period_seconds = Some(7));
    let id = first_server
        .start(s.client.clone(), &s.identity, s.node.clone(), options.clone(), Some("kernel 6.12".into()))
        .unwrap()
        .id;
    let mut rx = first_server.subscribe(&id).unwrap();
    rx.wait_for(|p| p.pods.iter().any(|pod| matches!(pod.state, PodState::Blocked { .. }))).await.unwrap();

    let find = |records: Vec<domain::progress::NodeDrainRecord>| {
        records.into_iter().find(|r| r.node == s.node).map(|r| r.record)
    };
    // The server that runs it sees it running.
    let own =
        find(engine::drain::recorded::recorded(on_nodes(&s).await, &first_server, None, &s.identity.cluster).await)
            .unwrap();
    assert_eq!((own.id.as_str(), own.state.clone()), (id.as_str(), DrainState::Evicting));
    // A server that does not (restarted, or another replica) sees it interrupted, with who, why and how.
    let restarted = support::registry();
    let seen = find(engine::drain::recorded::recorded(on_nodes(&s).await, &restarted, None, &s.identity.cluster).await)
        .unwrap();
    assert_eq!(seen.state, DrainState::Interrupted);
    assert_eq!((seen.started_by.as_str(), seen.reason.as_deref()), (s.identity.user.as_str(), Some("kernel 6.12")));
    assert_eq!(seen.options, options);

    // Resuming starts it again with the recorded options.
    first_server.cancel(&id);
    finish(&first_server, &id, Duration::from_secs(10)).await;
    let resumed = restarted.start(s.client.clone(), &s.identity, s.node.clone(), seen.options, seen.reason).unwrap();
    assert!(!resumed.attached);
    let mut rx = restarted.subscribe(&resumed.id).unwrap();
    let blocked =
        rx.wait_for(|p| p.pods.iter().any(|pod| matches!(pod.state, PodState::Blocked { .. }))).await.unwrap().clone();
    assert_eq!(blocked.options.grace_period_seconds, Some(7));
    restarted.cancel(&resumed.id);
    finish(&restarted, &resumed.id, Duration::from_secs(10)).await;
    s.uncordon().await;
}

/// Over the limits, a drain (here a dry run, under the dry runs' own cap) is refused with a message that says to
/// wait, and starts nothing.
#[tokio::test]
async fn drains_over_the_limits_are_refused() {
    let s = Scenario::new("limits").await;
    let limits = engine::drain::DrainLimits { dry_runs: 2, dry_runs_per_identity: 1, ..Default::default() };
    let registry = engine::drain::DrainRegistry::new(&support::tasks(), limits);
    let dry = with(|o| o.dry_run = DryRun::Client);
    let first = registry.start(s.client.clone(), &s.identity, s.node.clone(), dry.clone(), None).unwrap();
    let refused = registry.start(s.client.clone(), &s.identity, s.node.clone(), dry.clone(), None).unwrap_err();
    assert!(
        matches!(
            &refused,
            engine::Error::Refused(domain::failure::StartRefusal::PersonFull { most: 1, dry_run: true, .. })
        ),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("1 dry runs running"), "{refused}");
    finish(&registry, &first.id, Duration::from_secs(30)).await;
    // Finished drains no longer count.
    registry.start(s.client.clone(), &s.identity, s.node.clone(), dry, None).unwrap();
}

/// Cancel is checked before every eviction: acknowledged while the drain cordons, plans, or is about to evict, it
/// evicts nothing at all. A test hook holds the drain in each phase long enough for the Cancel to land there.
#[cfg(feature = "test-hooks")] // ./test-all turns it on
#[tokio::test]
async fn cancel_in_any_running_state_evicts_nothing() {
    use engine::drain::{Phase, TestHooks};
    for (phase, state, name) in [
        (Phase::Cordoning, DrainState::Cordoning, "cancel-cordoning"),
        (Phase::Planning, DrainState::Planning, "cancel-planning"),
        (Phase::Evicting, DrainState::Evicting, "cancel-evicting"),
    ] {
        let s = Scenario::new(name).await;
        s.deployment("web", 2, json!({}));
        s.wait_running(2).await;
        let hooks = TestHooks { pause: Some((phase, Duration::from_secs(30))), panic: None };
        let registry = support::registry().with_test_hooks(hooks);
        let id = s.start(&registry, DrainOptions::default());
        let mut rx = registry.subscribe(&id).unwrap();
        rx.wait_for(|p| p.state == state).await.unwrap();
        assert!(registry.cancel(&id));
        let done = finish(&registry, &id, Duration::from_secs(10)).await;
        assert_eq!(done.state, DrainState::Cancelled, "{phase:?}");
        assert!(done.pods.iter().all(|p| p.state == PodState::Pending), "{phase:?}: nothing evicted: {:?}", done.pods);
        assert_eq!(s.pods_on_node().await.len(), 2, "{phase:?}: every pod still on the node");
        s.uncordon().await;
    }
}

/// A drain task that panics ends Failed with the reason, on its progress and its node's record, and frees the node:
/// the next drain of it starts afresh instead of attaching to a dead one.
#[cfg(feature = "test-hooks")] // ./test-all turns it on
#[tokio::test]
async fn a_drain_that_panics_ends_failed_and_the_node_can_be_drained_again() {
    use engine::drain::{Phase, TestHooks};
    let s = Scenario::new("panic").await;
    s.deployment("web", 1, json!({}));
    s.wait_running(1).await;
    let broken = support::registry().with_test_hooks(TestHooks { pause: None, panic: Some(Phase::Evicting) });
    let id = s.start(&broken, DrainOptions::default());
    let done = finish(&broken, &id, Duration::from_secs(30)).await;
    assert!(
        matches!(&done.state, DrainState::Failed(Failure::Internal { detail }) if detail.contains("test hook")),
        "{:?}",
        done.state
    );
    let record = eventually("the final record on the node", Duration::from_secs(10), || async {
        let node = Api::<Node>::all(s.client.clone()).get(&s.node).await.unwrap();
        let record: DrainRecord = serde_json::from_str(&node.metadata.annotations.unwrap()[RECORD_ANNOTATION]).unwrap();
        (record.state == done.state).then_some(record)
    })
    .await;
    assert_eq!(record.id, id);
    assert_eq!(broken.running_on(&s.identity.cluster, &s.node), None, "the node is free");

    let again = broken.start(s.client.clone(), &s.identity, s.node.clone(), DrainOptions::default(), None).unwrap();
    assert!(!again.attached && again.id != id, "a new drain, not the dead one");
    finish(&broken, &again.id, Duration::from_secs(30)).await;
    let healthy = support::registry();
    let done = healthy.start(s.client.clone(), &s.identity, s.node.clone(), DrainOptions::default(), None).unwrap();
    let done = finish(&healthy, &done.id, Duration::from_secs(60)).await;
    assert_eq!(done.state, DrainState::Drained);
    s.uncordon().await;
}
