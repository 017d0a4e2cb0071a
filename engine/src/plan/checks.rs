//! What a plan checks of a node beyond the node itself (`domain::recovery`): as its drain starts, which workloads
//! and budgets it touches, read from the cache of the person the plan runs as; once the node is back, whether those
//! workloads are at their desired ready count again (read from the API, as that person: a ReplicaSet is judged by
//! the Deployment that owns it) and the budgets allow as many disruptions as before.

use domain::{
    capacity::Fate,
    drain::DrainOptions,
    recovery::{self, EvictedPod, Found, Touched, WorkloadRef},
    verify::CheckFailure,
};
use k8s_openapi::api::{
    apps::v1::{Deployment, ReplicaSet, StatefulSet},
    core::v1::ReplicationController,
};
use kube::{Api, Client};

use crate::engine::Acting;

/// What draining `node` with `options` touches now: the pods it would evict (not a DaemonSet's, a mirror's or a
/// finished one; only those the pod selector picks) and the budgets covering them. `None` when the cache cannot
/// be read: the checks then have nothing recorded to wait for.
pub(super) async fn touched(acting: &Acting<'_>, node: &str, options: &DrainOptions) -> Option<Touched> {
    let cache = acting.cache().await.ok()?;
    let selector = match options.pod_selector.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(text) => Some(domain::selector::LabelSelector::parse(text).ok()?),
        None => None,
    };
    let pods = cache.pods_on(node);
    let evicted: Vec<_> = pods
        .iter()
        .filter(|p| p.fate() != Fate::Stays)
        .filter(|p| selector.as_ref().is_none_or(|s| s.matches(p.labels())))
        .collect();
    let namespaces = evicted.iter().map(|p| p.namespace().to_owned()).collect();
    let budgets = cache.pdbs_in(&namespaces);
    let pods =
        evicted.iter().map(|p| EvictedPod { namespace: p.namespace(), controller: p.controller(), labels: p.labels() });
    Some(recovery::record(pods, &budgets))
}

/// Each recovery check of `node` that fails now, in words: its workloads below their desired ready count, and its
/// budgets allowing fewer disruptions than before its drain.
pub(super) async fn failures(acting: &Acting<'_>, node: &str, touched: &Touched) -> Vec<CheckFailure> {
    let mut failed = Vec::new();
    if !touched.workloads.is_empty() {
        match acting.client() {
            Ok(client) => {
                let mut found = Vec::with_capacity(touched.workloads.len());
                for workload in &touched.workloads {
                    found.push(read(&client, workload).await);
                }
                failed.extend(recovery::workload_failures(node, &found));
            }
            Err(err) => {
                failed.push(CheckFailure::Unreadable { what: format!("{node}'s workloads"), why: err.to_string() })
            }
        }
    }
    if !touched.budgets.is_empty() {
        match acting.cache().await {
            Ok(cache) => {
                failed.extend(recovery::budget_failures(node, &touched.budgets, |ns, name| cache.pdb_status(ns, name)))
            }
            Err(err) => {
                failed.push(CheckFailure::Unreadable { what: format!("{node}'s budgets"), why: err.to_string() })
            }
        }
    }
    failed
}

/// A workload's desired and ready replicas now. A ReplicaSet with a Deployment as its controller is judged by the
/// Deployment (a rollout of it may have scaled the ReplicaSet down on purpose).
async fn read(client: &Client, workload: &WorkloadRef) -> Found {
    let ns = workload.namespace.as_str();
    let got = match workload.kind.as_str() {
        "ReplicaSet" => match Api::<ReplicaSet>::namespaced(client.clone(), ns).get_opt(&workload.name).await {
            Ok(Some(rs)) => match rs.metadata.owner_references.iter().flatten().find(|o| o.controller == Some(true)) {
                Some(owner) if owner.kind == "Deployment" => {
                    let deployment =
                        WorkloadRef { kind: "Deployment".into(), namespace: ns.into(), name: owner.name.clone() };
                    return match Api::<Deployment>::namespaced(client.clone(), ns).get_opt(&owner.name).await {
                        Ok(found) => counts(
                            deployment,
                            found.map(|d| (d.spec.and_then(|s| s.replicas), d.status.and_then(|s| s.ready_replicas))),
                        ),
                        Err(err) => unreadable(deployment, &err),
                    };
                }
                _ => Ok(Some((rs.spec.and_then(|s| s.replicas), rs.status.and_then(|s| s.ready_replicas)))),
            },
            Ok(None) => Ok(None),
            Err(err) => Err(err),
        },
        "StatefulSet" => Api::<StatefulSet>::namespaced(client.clone(), ns)
            .get_opt(&workload.name)
            .await
            .map(|s| s.map(|s| (s.spec.and_then(|s| s.replicas), s.status.and_then(|s| s.ready_replicas)))),
        "ReplicationController" => Api::<ReplicationController>::namespaced(client.clone(), ns)
            .get_opt(&workload.name)
            .await
            .map(|s| s.map(|s| (s.spec.and_then(|s| s.replicas), s.status.and_then(|s| s.ready_replicas)))),
        _ => return Found::NotChecked,
    };
    match got {
        Ok(found) => counts(workload.clone(), found),
        Err(err) => unreadable(workload.clone(), &err),
    }
}

/// Replicas default to 1 when the spec leaves them out, as the API server defaults them; ready ones to 0.
fn counts(workload: WorkloadRef, found: Option<(Option<i32>, Option<i32>)>) -> Found {
    match found {
        Some((desired, ready)) => Found::Counts { workload, desired: desired.unwrap_or(1), ready: ready.unwrap_or(0) },
        None => Found::Gone,
    }
}

fn unreadable(workload: WorkloadRef, err: &kube::Error) -> Found {
    Found::Unreadable { workload, why: crate::kube_error::api_message(err) }
}
