//! The Kubernetes calls a drain makes, each the way kubectl makes it.

use std::time::Duration;

use domain::{
    PodSummary,
    drain::{DaemonSetLookup, DrainOptions, DrainPlan, DryRun},
    pod::ControllerRef,
    preview::{PdbInfo, covering_pdb as covering},
    progress::{CordonOutcome, PdbStatus},
};
use k8s_openapi::api::{
    apps::v1::DaemonSet,
    core::v1::{Node, Pod},
    policy::v1::PodDisruptionBudget,
};
use kube::{
    Api, Client,
    api::{DeleteParams, ListParams, Patch, PatchParams},
    core::Status,
};
use serde_json::json;

pub use crate::access::api_message;

/// kubectl's pause after a 429 answer that names no Retry-After.
pub const EVICT_RETRY_DELAY: Duration = Duration::from_secs(5);

/// Sets `spec.unschedulable` with the strategic-merge patch kubectl sends (`null` to uncordon, since the field is
/// omitted when false). Reads the node first, so that a node already in the wanted state costs no write.
pub async fn set_unschedulable(
    client: &Client,
    node: &str,
    unschedulable: bool,
    dry_run: DryRun,
) -> Result<CordonOutcome, kube::Error> {
    let nodes: Api<Node> = Api::all(client.clone());
    let current = nodes.get(node).await?;
    if current.spec.and_then(|s| s.unschedulable).unwrap_or(false) == unschedulable {
        return Ok(CordonOutcome::AlreadyDone);
    }
    if dry_run == DryRun::Client {
        return Ok(CordonOutcome::Changed);
    }
    let value = if unschedulable { json!(true) } else { json!(null) };
    let params = PatchParams { dry_run: dry_run == DryRun::Server, ..Default::default() };
    nodes.patch(node, &params, &Patch::Strategic(json!({"spec": {"unschedulable": value}}))).await?;
    Ok(CordonOutcome::Changed)
}

/// Lists the node's pods by field selector (and the drain's pod selector), page by page, as kubectl does.
pub async fn list_node_pods(client: &Client, node: &str, pod_selector: Option<&str>) -> Result<Vec<Pod>, kube::Error> {
    let pods: Api<Pod> = Api::all(client.clone());
    let mut params = ListParams::default().fields(&format!("spec.nodeName={node}")).limit(500);
    if let Some(selector) = pod_selector.filter(|s| !s.trim().is_empty()) {
        params = params.labels(selector);
    }
    let mut all = Vec::new();
    loop {
        let page = pods.list(&params).await?;
        all.extend(page.items);
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => params = params.continue_token(&token),
            _ => return Ok(all),
        }
    }
}

/// Plans the drain of `pods`, looking up each DaemonSet owner once.
pub async fn plan(client: &Client, pods: &[PodSummary], options: &DrainOptions) -> DrainPlan {
    let mut lookups: std::collections::HashMap<String, DaemonSetLookup> = Default::default();
    for pod in pods {
        if let (Some(owner), Some(key)) = (pod.daemonset_owner(), pod.daemonset_key())
            && let std::collections::hash_map::Entry::Vacant(slot) = lookups.entry(key)
        {
            slot.insert(lookup_daemonset(client, &pod.namespace, owner).await);
        }
    }
    let looked_up = |pod: &PodSummary, _: &ControllerRef| {
        pod.daemonset_key()
            .and_then(|key| lookups.get(&key))
            .cloned()
            .unwrap_or_else(|| DaemonSetLookup::Failed("not looked up".into()))
    };
    domain::drain::plan(pods, looked_up, options, jiff::Timestamp::now())
}

pub async fn lookup_daemonset(client: &Client, namespace: &str, owner: &ControllerRef) -> DaemonSetLookup {
    let daemonsets: Api<DaemonSet> = Api::namespaced(client.clone(), namespace);
    match daemonsets.get(&owner.name).await {
        Ok(_) => DaemonSetLookup::Exists,
        Err(kube::Error::Api(status)) if status.code == 404 => DaemonSetLookup::NotFound(status.message.clone()),
        Err(err) => DaemonSetLookup::Failed(api_message(&err)),
    }
}

/// The delete options of a drain, identical for eviction and deletion: a grace period only when one is given,
/// `dryRun: ["All"]` for a server dry run, nothing else.
fn delete_options(options: &DrainOptions) -> serde_json::Value {
    let mut body = serde_json::Map::new();
    if let Some(grace) = options.grace_period_seconds.filter(|g| *g >= 0) {
        body.insert("gracePeriodSeconds".into(), json!(grace));
    }
    if options.dry_run == DryRun::Server {
        body.insert("dryRun".into(), json!(["All"]));
    }
    serde_json::Value::Object(body)
}

/// POSTs a `policy/v1` Eviction for the pod. kube's own `evict` helper sends its delete options under a
/// snake-case key the API server ignores, so the body is built here as kubectl builds it.
pub async fn evict(client: &Client, namespace: &str, name: &str, options: &DrainOptions) -> Result<(), kube::Error> {
    let mut url = format!("/api/v1/namespaces/{namespace}/pods/{name}/eviction");
    if options.dry_run == DryRun::Server {
        url.push_str("?dryRun=All");
    }
    let body = json!({
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": name, "namespace": namespace},
        "deleteOptions": delete_options(options),
    });
    let request = http::Request::post(url)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(serde_json::to_vec(&body).map_err(kube::Error::SerdeError)?)
        .map_err(kube::Error::HttpError)?;
    client.request::<Status>(request).await.map(|_| ())
}

/// DELETEs the pod (the disable-eviction path): PodDisruptionBudgets are not consulted.
pub async fn delete(client: &Client, namespace: &str, name: &str, options: &DrainOptions) -> Result<(), kube::Error> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let params = DeleteParams {
        dry_run: options.dry_run == DryRun::Server,
        grace_period_seconds: options
            .grace_period_seconds
            .filter(|g| *g >= 0)
            .map(|g| u32::try_from(g).unwrap_or(u32::MAX)),
        ..Default::default()
    };
    pods.delete(name, &params).await.map(|_| ())
}

/// The PodDisruptionBudget that covers a pod, read fresh, to say what an eviction waits for.
pub async fn covering_pdb(client: &Client, pod: &PodSummary) -> Result<Option<PdbStatus>, kube::Error> {
    let pdbs: Api<PodDisruptionBudget> = Api::namespaced(client.clone(), &pod.namespace);
    let list = pdbs.list(&ListParams::default()).await?;
    let budgets: Vec<PdbInfo> = list.items.iter().filter_map(PdbInfo::from_k8s).collect();
    Ok(covering(&budgets, &pod.namespace, &pod.labels).map(|b| b.status.clone()))
}
