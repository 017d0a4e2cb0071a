//! Move first, against the cluster (the rules are `domain::moving`): find the Deployment behind a pod, check
//! nothing else owns its count, surge it with the move recorded on it in the same write, and put the count back
//! once the moved pods are gone or their drain stops. The record lives on the Deployment, so a server that stops
//! midway leaves what any server needs to put the count back ([`sweep`]).

use domain::conflict::Conflict;
use std::time::Duration;

use domain::moving::{self, FieldManager, MOVING_LABEL, MoveRecord, MoveRefusal, Owner, RECORD_ANNOTATION};
use k8s_openapi::api::{
    apps::v1::{Deployment, ReplicaSet},
    autoscaling::v2::HorizontalPodAutoscaler,
    core::v1::Pod,
};
use kube::{
    Api, Client, ResourceExt,
    api::{ListParams, Patch, PatchParams},
};

use crate::{Error, Result, kube_error};

/// How often a move in progress looks at its pods and its drain.
pub const FOLLOW_EVERY: Duration = Duration::from_secs(2);
/// How often a server looks for moves nobody follows (their server stopped).
pub const SWEEP_EVERY: Duration = Duration::from_secs(30);
/// How many times a write that lost a race (409) is tried again with a fresh read.
const WRITE_TRIES: usize = 5;

/// The Deployment a move surges, as read now.
pub struct Target {
    pub deployment: Deployment,
    /// The ReplicaSet whose pods on the node the move counts.
    pub replica_set_uid: String,
}

/// The controller behind `pod`, through its ReplicaSet for a Deployment's pod.
pub async fn owner(client: &Client, pod: &Pod) -> Result<Owner> {
    let namespace = pod.namespace().unwrap_or_default();
    let Some(controller) = pod.owner_references().iter().find(|o| o.controller == Some(true)) else {
        return Ok(Owner::None);
    };
    if controller.kind != "ReplicaSet" {
        return Ok(Owner::Other { kind: controller.kind.clone(), name: controller.name.clone() });
    }
    let sets: Api<ReplicaSet> = Api::namespaced(client.clone(), &namespace);
    let set = sets.get(&controller.name).await.map_err(Error::Kube)?;
    let deployment = set
        .owner_references()
        .iter()
        .find(|o| o.controller == Some(true) && o.kind == "Deployment")
        .map(|o| o.name.clone());
    Ok(Owner::ReplicaSet { name: controller.name.clone(), deployment })
}

/// The Deployment behind `pod`, checked for what would fight a surge: an autoscaler, a declarative owner of its
/// count, a pause, a move already under way.
pub async fn target(client: &Client, pod: &Pod) -> Result<Target> {
    let namespace = pod.namespace().unwrap_or_default();
    let owner = owner(client, pod).await?;
    let name = moving::deployment(&owner).map_err(refused)?.to_owned();
    let replica_set_uid =
        pod.owner_references().iter().find(|o| o.controller == Some(true)).map(|o| o.uid.clone()).unwrap_or_default();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &namespace);
    let deployment = deployments.get(&name).await.map_err(Error::Kube)?;
    if let Some(record) = deployment.annotations().get(RECORD_ANNOTATION) {
        let (node, by) = MoveRecord::from_annotation(record).map(|r| (r.node, r.by)).unwrap_or_default();
        return Err(refused(MoveRefusal::Moving { node, by }));
    }
    let spec = deployment.spec.as_ref();
    if spec.and_then(|s| s.paused) == Some(true) {
        return Err(refused(MoveRefusal::Paused));
    }
    let managers = field_managers(&deployment);
    if let Some(manager) = moving::replicas_applied_by(&managers) {
        return Err(refused(MoveRefusal::ReplicasApplied { manager: manager.to_owned() }));
    }
    let autoscalers: Api<HorizontalPodAutoscaler> = Api::namespaced(client.clone(), &namespace);
    let autoscalers = autoscalers.list(&ListParams::default()).await.map_err(|e| {
        Error::Conflict(Conflict::AutoscalersUnknown {
            deployment: name.clone(),
            namespace: namespace.clone(),
            answer: kube_error::answer(&e),
        })
    })?;
    let autoscaler = autoscalers.items.iter().find(|h| {
        let target = &h.spec.scale_target_ref;
        target.kind == "Deployment" && target.name == name
    });
    if let Some(autoscaler) = autoscaler {
        return Err(refused(MoveRefusal::Autoscaled { autoscaler: autoscaler.name_any() }));
    }
    Ok(Target { deployment, replica_set_uid })
}

/// The entries of the Deployment's `managedFields`, each with whether it owns `spec.replicas`.
fn field_managers(deployment: &Deployment) -> Vec<FieldManager> {
    deployment
        .managed_fields()
        .iter()
        .map(|entry| {
            let owns_replicas = entry
                .fields_v1
                .as_ref()
                .and_then(|f| f.0.get("f:spec"))
                .and_then(|spec| spec.get("f:replicas"))
                .is_some();
            FieldManager {
                manager: entry.manager.clone().unwrap_or_default(),
                operation: entry.operation.clone().unwrap_or_default(),
                owns_replicas,
            }
        })
        .collect()
}

/// The pods of the target's ReplicaSet on `node` that are not being deleted: those the move surges for.
pub async fn pods_on_node(client: &Client, namespace: &str, node: &str, replica_set_uid: &str) -> Result<Vec<Pod>> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let on_node = ListParams::default().fields(&format!("spec.nodeName={node}"));
    let list = pods.list(&on_node).await.map_err(Error::Kube)?;
    Ok(list
        .items
        .into_iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .filter(|p| p.owner_references().iter().any(|o| o.controller == Some(true) && o.uid == replica_set_uid))
        .collect())
}

/// Surges the Deployment to `record.surged()`, with the record and the label in the same write, on the version
/// read (a change since is a 409: the person looks again).
pub async fn surge(client: &Client, deployment: &Deployment, record: &MoveRecord) -> Result<()> {
    let surged = record.surged().ok_or_else(|| Error::Invalid("the surged replica count would overflow".into()))?;
    let patch = serde_json::json!({
        "metadata": {
            "resourceVersion": deployment.resource_version(),
            "annotations": {RECORD_ANNOTATION: record.to_annotation()},
            "labels": {MOVING_LABEL: "true"},
        },
        "spec": {"replicas": surged},
    });
    let api: Api<Deployment> = Api::namespaced(client.clone(), &deployment.namespace().unwrap_or_default());
    api.patch(&deployment.name_any(), &PatchParams::default(), &Patch::Merge(&patch)).await.map_err(|e| {
        if kube_error::conflict(&e) {
            Error::Conflict(Conflict::DeploymentChanged { deployment: deployment.name_any() })
        } else {
            Error::Kube(e)
        }
    })?;
    Ok(())
}

/// What putting a count back did.
#[derive(Debug, PartialEq, Eq)]
pub enum Restored {
    /// The count went back to this.
    Count(i32),
    /// Someone changed the count during the move: theirs stands; only the record went.
    Kept(i32),
    /// The Deployment or its record is gone: nothing to put back.
    Gone,
}

/// Puts the count of Deployment `namespace/name` back to the one its record names, and removes the record; the
/// count stays if someone changed it since the surge. Tried again on a race.
pub async fn restore(client: &Client, namespace: &str, name: &str) -> Result<Restored> {
    let api: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    for _ in 0..WRITE_TRIES {
        let Some(deployment) = api.get_opt(name).await.map_err(Error::Kube)? else { return Ok(Restored::Gone) };
        let record = deployment.annotations().get(RECORD_ANNOTATION).and_then(|r| MoveRecord::from_annotation(r));
        let has_label = deployment.labels().contains_key(MOVING_LABEL);
        let now = deployment.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
        let back = record.as_ref().and_then(|r| moving::restored_count(r, now));
        if record.is_none() && !has_label && !deployment.annotations().contains_key(RECORD_ANNOTATION) {
            return Ok(Restored::Gone);
        }
        let mut patch = serde_json::json!({
            "metadata": {
                "resourceVersion": deployment.resource_version(),
                "annotations": {RECORD_ANNOTATION: null},
                "labels": {MOVING_LABEL: null},
            },
        });
        if let Some(count) = back {
            patch["spec"] = serde_json::json!({"replicas": count});
        }
        match api.patch(name, &PatchParams::default(), &Patch::Merge(&patch)).await {
            Ok(_) => return Ok(back.map_or(Restored::Kept(now), Restored::Count)),
            Err(e) if kube_error::conflict(&e) => continue,
            Err(e) => return Err(Error::Kube(e)),
        }
    }
    Err(Error::Unavailable(format!("Deployment {namespace}/{name} kept changing: its count was not put back yet")))
}

/// How many of the moved pods (by uid) are still on `node`.
pub async fn left_on_node(client: &Client, namespace: &str, node: &str, uids: &[String]) -> Result<usize> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let on_node = ListParams::default().fields(&format!("spec.nodeName={node}"));
    let list = pods.list(&on_node).await.map_err(Error::Kube)?;
    Ok(list.items.iter().filter(|p| p.metadata.uid.as_ref().is_some_and(|u| uids.contains(u))).count())
}

/// Every Deployment a move left its record on, with the record (unreadable ones with none: their label and
/// annotation still go).
pub async fn recorded(client: &Client) -> Result<Vec<(String, String, Option<MoveRecord>)>> {
    let api: Api<Deployment> = Api::all(client.clone());
    let list = api.list(&ListParams::default().labels(MOVING_LABEL)).await.map_err(Error::Kube)?;
    Ok(list
        .items
        .iter()
        .map(|d| {
            let record = d.annotations().get(RECORD_ANNOTATION).and_then(|r| MoveRecord::from_annotation(r));
            (d.namespace().unwrap_or_default(), d.name_any(), record)
        })
        .collect())
}

fn refused(refusal: MoveRefusal) -> Error {
    Error::Conflict(Conflict::Move { pod: None, refusal })
}
