//! The facts `domain::blocker` reads beyond the pod itself, gathered with the person's credentials when an
//! eviction is refused: the webhook configuration that denied it, and the Pending pods a budget waits for. Each is
//! best effort: a person who may not read them still gets the API server's own words.

use domain::{
    blocker::{MAX_NAMES, PendingPod, bounded},
    budget::PdbInfo,
};
use k8s_openapi::api::{admissionregistration::v1::ValidatingWebhookConfiguration, core::v1::Pod};
use kube::{Api, Client, api::ListParams};

/// How many Pending pods of a namespace are read to find a budget's: enough for any workload's surge, bounded so
/// that a namespace of thousands costs one page.
const PENDING_PAGE: u32 = 100;

/// The name of the validating webhook configuration that holds the webhook named `webhook` (webhook names are
/// unique within a configuration, not across them: the first is named). `None` when none does, or the person may
/// not list them.
pub async fn webhook_configuration(client: &Client, webhook: &str) -> Option<String> {
    let configs: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
    let list = configs.list(&ListParams::default()).await.ok()?;
    holding(&list.items, webhook)
}

fn holding(configs: &[ValidatingWebhookConfiguration], webhook: &str) -> Option<String> {
    configs
        .iter()
        .find(|c| c.webhooks.iter().flatten().any(|w| w.name == webhook))
        .and_then(|c| c.metadata.name.as_deref())
        .map(bounded)
}

/// The pods in `budget`'s namespace that it counts and the scheduler cannot place, with the scheduler's reason:
/// while they wait, the budget cannot recover. Empty when they cannot be read.
pub async fn pending_for(client: &Client, budget: &PdbInfo) -> Vec<PendingPod> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), &budget.namespace);
    let params = ListParams::default().fields("status.phase=Pending").limit(PENDING_PAGE);
    match pods.list(&params).await {
        Ok(list) => unplaced(&list.items, budget),
        Err(err) => {
            tracing::debug!(error = %err, namespace = %budget.namespace, "Pending pods not read");
            Vec::new()
        }
    }
}

/// Of `pods`, those `budget` counts whose `PodScheduled` condition is False, with its reason and message.
fn unplaced(pods: &[Pod], budget: &PdbInfo) -> Vec<PendingPod> {
    pods.iter()
        .filter(|p| budget.selector.matches(p.metadata.labels.as_ref().unwrap_or(&Default::default())))
        .filter_map(|p| {
            let conditions = p.status.as_ref()?.conditions.as_ref()?;
            let scheduled = conditions.iter().find(|c| c.type_ == "PodScheduled" && c.status == "False")?;
            Some(PendingPod {
                name: p.metadata.name.clone()?,
                reason: bounded(scheduled.reason.as_deref().unwrap_or("Unschedulable")),
                message: bounded(scheduled.message.as_deref().unwrap_or_default()),
            })
        })
        .take(MAX_NAMES)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(json: serde_json::Value) -> Pod {
        serde_json::from_value(json).expect("a pod")
    }

    #[test]
    fn a_budgets_unplaced_pods_are_read_with_the_schedulers_words() {
        let budget: PdbInfo = serde_json::from_value(serde_json::json!({
            "namespace": "shop", "selector": {"match_labels": {"app": "web"}, "match_expressions": []},
            "status": {"name": "web-pdb", "disruptions_allowed": 0, "current_healthy": 1, "desired_healthy": 1,
                "expected_pods": 2}
        }))
        .expect("a budget");
        let unplaced_web = pod(serde_json::json!({"metadata": {"name": "web-9", "labels": {"app": "web"}},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                "reason": "Unschedulable",
                "message": "0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu."}]}}));
        let other_app = pod(serde_json::json!({"metadata": {"name": "db-1", "labels": {"app": "db"}},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]}}));
        let placed = pod(serde_json::json!({"metadata": {"name": "web-8", "labels": {"app": "web"}},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}]}}));
        let found = unplaced(&[unplaced_web, other_app, placed], &budget);
        assert_eq!(
            found,
            [PendingPod {
                name: "web-9".into(),
                reason: "Unschedulable".into(),
                message: "0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu.".into(),
            }]
        );
    }

    #[test]
    fn the_configuration_holding_a_webhook_is_named() {
        let configs: Vec<ValidatingWebhookConfiguration> = serde_json::from_value(serde_json::json!([
            {"metadata": {"name": "other"}, "webhooks": [{"name": "a.example.com", "clientConfig": {},
                "admissionReviewVersions": ["v1"], "sideEffects": "None"}]},
            {"metadata": {"name": "freeze"}, "webhooks": [{"name": "deny.example.com", "clientConfig": {},
                "admissionReviewVersions": ["v1"], "sideEffects": "None"}]}
        ]))
        .expect("configurations");
        assert_eq!(holding(&configs, "deny.example.com").as_deref(), Some("freeze"));
        assert_eq!(holding(&configs, "nobody.example.com"), None);
    }
}
