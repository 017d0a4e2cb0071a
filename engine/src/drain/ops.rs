//! The Kubernetes calls a drain makes, each the way kubectl makes it.

use domain::{
    PodSummary,
    budget::PdbInfo,
    drain::{DaemonSetLookup, DrainOptions, DrainPlan, DryRun},
    pod::ControllerRef,
    progress::{CORDON_ANNOTATION, CordonOutcome, CordonRecord},
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

pub use crate::kube_error::api_message;

/// Sets `spec.unschedulable` with the strategic-merge patch kubectl sends (`null` to uncordon, since the field is
/// omitted when false). Reads the node first, so that a node already in the wanted state costs no write.
///
/// The same patch writes who cordoned and why (`record`, annotation `drainboard.dev/cordon`) or, to uncordon,
/// removes it: one write, so the node is never cordoned without its record or the other way round.
pub async fn set_unschedulable(
    client: &Client,
    node: &str,
    unschedulable: bool,
    dry_run: DryRun,
    record: Option<&CordonRecord>,
) -> Result<CordonOutcome, kube::Error> {
    let written = set_unschedulable_unless(client, node, unschedulable, dry_run, record, |_| Vec::<()>::new()).await?;
    // Nothing refuses here, so the write is never held back.
    Ok(written.unwrap_or(CordonOutcome::AlreadyDone))
}

/// [`set_unschedulable`], unless `refuse` names someone on the node as read (the tools whose work an uncordon
/// would undo): then nothing is written, and `Ok(Err(them))`. One read serves both the check and the write.
pub async fn set_unschedulable_unless<T>(
    client: &Client,
    node: &str,
    unschedulable: bool,
    dry_run: DryRun,
    record: Option<&CordonRecord>,
    refuse: impl FnOnce(&Node) -> Vec<T>,
) -> Result<Result<CordonOutcome, Vec<T>>, kube::Error> {
    let nodes: Api<Node> = Api::all(client.clone());
    let current = nodes.get(node).await?;
    if current.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false) == unschedulable {
        return Ok(Ok(CordonOutcome::AlreadyDone));
    }
    let refused = refuse(&current);
    if !refused.is_empty() {
        return Ok(Err(refused));
    }
    if dry_run == DryRun::Client {
        return Ok(Ok(CordonOutcome::Changed));
    }
    let value = if unschedulable { json!(true) } else { json!(null) };
    let annotation = match record.filter(|_| unschedulable) {
        Some(record) => json!(serde_json::to_string(record).map_err(kube::Error::SerdeError)?),
        None => json!(null),
    };
    let patch = json!({
        "metadata": {"annotations": {CORDON_ANNOTATION: annotation}},
        "spec": {"unschedulable": value},
    });
    let params = PatchParams { dry_run: dry_run == DryRun::Server, ..Default::default() };
    nodes.patch(node, &params, &Patch::Strategic(patch)).await?;
    Ok(Ok(CordonOutcome::Changed))
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

/// Plans the drain of `pods`, looking up each DaemonSet owner once, and only for pods that reach kubectl's
/// DaemonSet rule (not those skipped first for deleting too long).
pub async fn plan(client: &Client, pods: &[PodSummary], options: &DrainOptions) -> DrainPlan {
    let now = jiff::Timestamp::now();
    let mut lookups: std::collections::HashMap<String, DaemonSetLookup> = Default::default();
    for pod in pods.iter().filter(|pod| !domain::drain::deleting_too_long(pod, options, now)) {
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
    domain::drain::plan(pods, looked_up, options, now)
}

pub async fn lookup_daemonset(client: &Client, namespace: &str, owner: &ControllerRef) -> DaemonSetLookup {
    let daemonsets: Api<DaemonSet> = Api::namespaced(client.clone(), namespace);
    match daemonsets.get(&owner.name).await {
        Ok(_) => DaemonSetLookup::Exists,
        Err(err) if crate::kube_error::not_found(&err) => DaemonSetLookup::NotFound(api_message(&err)),
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

/// The largest error answer read from the API server: a Status is a few hundred bytes; anything bigger is cut
/// off rather than held in memory.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// POSTs a `policy/v1` Eviction for the pod. kube's own `evict` helper sends its delete options under a
/// snake-case key the API server ignores, so the body is built here as kubectl builds it.
///
/// Sent raw, so that the answer's `Retry-After` header is read: client-go waits what the header says, and the
/// API server's own throttling names its delay only there. The header's value (when it holds whole seconds)
/// goes into the Status's `details.retryAfterSeconds`, where [`crate::kube_error::retry_after`] reads it.
///
/// `retry` says whether an earlier request for this pod was refused; the metrics count first tries and retries
/// apart.
pub async fn evict(
    client: &Client,
    namespace: &str,
    name: &str,
    options: &DrainOptions,
    retry: bool,
) -> Result<(), kube::Error> {
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
        .header(http::header::ACCEPT, "application/json")
        .body(kube::client::Body::from(serde_json::to_vec(&body).map_err(kube::Error::SerdeError)?))
        .map_err(kube::Error::HttpError)?;
    let answer = client.send(request).await;
    crate::metrics::METRICS.eviction_answered(answer.as_ref().ok().map(|a| a.status().as_u16()), retry);
    let answer = answer?;
    let code = answer.status();
    if code.is_success() {
        return Ok(());
    }
    let header = answer
        .headers()
        .get(http::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u32>().ok());
    let bytes = http_body_util::BodyExt::collect(http_body_util::Limited::new(answer.into_body(), MAX_ANSWER_BYTES))
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    Err(kube::Error::Api(Box::new(answer_status(code, &bytes, header))))
}

/// The Status of an error answer: its JSON if it is one, else the text as the message (a proxy, or a throttling
/// filter that writes plain text), with the `Retry-After` header's seconds in its details.
pub(super) fn answer_status(code: http::StatusCode, body: &[u8], retry_after_header: Option<u32>) -> Status {
    let mut status = serde_json::from_slice::<Status>(body).unwrap_or_else(|_| {
        let text = String::from_utf8_lossy(body);
        let text = text.trim();
        let message = if text.is_empty() { code.to_string() } else { text.chars().take(500).collect() };
        Status::failure(&message, code.canonical_reason().unwrap_or_default())
    });
    status.code = code.as_u16();
    if let Some(seconds) = retry_after_header.filter(|s| *s > 0) {
        match status.details.as_mut() {
            Some(details) => details.retry_after_seconds = seconds,
            None => {
                // StatusDetails has no Default; every field of it is optional on the wire.
                status.details = serde_json::from_value(json!({ "retryAfterSeconds": seconds })).ok();
            }
        }
    }
    status
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

/// The PodDisruptionBudgets of a namespace, read fresh, to say what an eviction waits for.
pub async fn budgets_in(client: &Client, namespace: &str) -> Result<Vec<PdbInfo>, kube::Error> {
    let pdbs: Api<PodDisruptionBudget> = Api::namespaced(client.clone(), namespace);
    let list = pdbs.list(&ListParams::default()).await?;
    Ok(list.items.iter().filter_map(PdbInfo::from_k8s).collect())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::kube_error::{MAX_RETRY_AFTER, retry_after};

    #[test]
    fn an_answer_keeps_its_status_and_takes_the_header_delay() {
        let json = br#"{"kind":"Status","status":"Failure","code":429,"reason":"TooManyRequests",
            "message":"Cannot evict pod","details":{"causes":[{"reason":"DisruptionBudget","message":"needs 2"}],
            "retryAfterSeconds":10}}"#;
        let status = answer_status(http::StatusCode::TOO_MANY_REQUESTS, json, Some(3));
        assert_eq!(status.message, "Cannot evict pod");
        assert_eq!(status.details.as_ref().map(|d| d.causes.len()), Some(1));
        assert_eq!(retry_after(&status), Some(Duration::from_secs(3)), "the header wins, as in client-go");
        let body_only = answer_status(http::StatusCode::TOO_MANY_REQUESTS, json, None);
        assert_eq!(retry_after(&body_only), Some(Duration::from_secs(10)));
    }

    #[test]
    fn a_plain_text_answer_becomes_a_status_with_its_code() {
        let status = answer_status(http::StatusCode::SERVICE_UNAVAILABLE, b"  shutting down\n", Some(1));
        assert_eq!(status.code, 503);
        assert_eq!(status.message, "shutting down");
        assert_eq!(retry_after(&status), Some(Duration::from_secs(1)));
        let empty = answer_status(http::StatusCode::BAD_GATEWAY, b"", None);
        assert_eq!(empty.message, "502 Bad Gateway");
        assert_eq!(retry_after(&empty), None);
        let huge = answer_status(http::StatusCode::TOO_MANY_REQUESTS, b"x", Some(u32::MAX));
        assert_eq!(retry_after(&huge), Some(MAX_RETRY_AFTER), "an answer cannot park a drain for years");
    }
}
