//! Publishes Drainboard's node lifecycle conditions (`DrainInProgress`, `Drained`; see [`domain::lifecycle`]) with
//! the server's own identity, so that other tools and people see its drains in the Node itself.
//!
//! Each write reads the node, decides with [`domain::lifecycle::changes`] (never another writer's condition), and
//! patches `nodes/status` on the version it read (a strategic merge by condition type, with the read's
//! `resourceVersion`): a write that raced another is refused and made again from a fresh read. A failed write is
//! logged and counted, never the drain's failure: the drain is what matters, and the card shows it either way.

use std::{collections::HashMap, sync::Arc, time::Duration};

use domain::lifecycle::{Change, Kind, Wanted};
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Node;
use kube::{
    Api, Client,
    api::{Patch, PatchParams},
};
use serde_json::{Value, json};
use tokio::{sync::watch, time::Instant};

use crate::tasks::Tasks;

/// How many times a write that lost a race is made again from a fresh read.
const ATTEMPTS: usize = 3;

/// How long the sweep leaves a node whose stale conditions it could not clear before it tries again.
const SWEEP_RETRY: Duration = Duration::from_secs(30);

/// The field manager the API server records for these writes.
const MANAGER: &str = "drainboard-lifecycle";

/// Writes the conditions with the server's own client. Cheap to clone.
#[derive(Clone)]
pub struct Publisher {
    client: Client,
}

impl Publisher {
    pub fn new(client: Client) -> Self {
        Publisher { client }
    }

    /// Brings the `managed` types on `node` to `wanted` (an absent type: Drainboard's removed). Logs what failed;
    /// answers whether the node now says what was wanted.
    pub async fn publish(&self, node: &str, wanted: &[Wanted], managed: &[Kind]) -> bool {
        self.bring(node, wanted, managed, false).await
    }

    /// Removes Drainboard's drain conditions from `node` (after its uncordon).
    pub async fn clear(&self, node: &str) {
        self.bring(node, &[], &Kind::DRAIN, false).await;
    }

    /// [`Self::publish`], each attempt a read and at most one write on that read's version; with `only_schedulable`,
    /// nothing is written to a node the read finds cordoned.
    async fn bring(&self, node: &str, wanted: &[Wanted], managed: &[Kind], only_schedulable: bool) -> bool {
        for attempt in 1..=ATTEMPTS {
            match self.write(node, wanted, managed, only_schedulable).await {
                Ok(wrote) => {
                    if wrote {
                        crate::metrics::METRICS.node_conditions_written(true);
                    }
                    return true;
                }
                Err(kube::Error::Api(answer)) if answer.code == 409 && attempt < ATTEMPTS => continue,
                Err(err) => {
                    crate::metrics::METRICS.node_conditions_written(false);
                    tracing::warn!(%node, error = %err, "could not publish the node's lifecycle conditions");
                    return false;
                }
            }
        }
        false
    }

    /// One read and, if anything is to change, one write on that read's version. Answers whether it wrote.
    async fn write(
        &self,
        node: &str,
        wanted: &[Wanted],
        managed: &[Kind],
        only_schedulable: bool,
    ) -> Result<bool, kube::Error> {
        let api: Api<Node> = Api::all(self.client.clone());
        let current = api.get(node).await?;
        if only_schedulable && current.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false) {
            return Ok(false);
        }
        let changes = domain::lifecycle::changes(&conditions(&current), wanted, managed, Timestamp::now());
        if changes.is_empty() {
            return Ok(false);
        }
        let body = patch_body(current.metadata.resource_version.as_deref(), &changes);
        let params = PatchParams { field_manager: Some(MANAGER.to_owned()), ..PatchParams::default() };
        api.patch_status(node, &params, &Patch::Strategic(body)).await?;
        Ok(true)
    }

    /// Clears Drainboard's drain conditions from every node seen back in service (`domain::lifecycle::stale`),
    /// whoever uncordoned it: a `Drained` left on a node that runs pods again could tell another tool it may reboot
    /// it. Reads the cards the server's own watch keeps.
    pub fn sweep(&self, tasks: &Tasks, mut cards: watch::Receiver<Arc<Vec<Arc<domain::node::NodeCard>>>>) {
        let publisher = self.clone();
        let shutdown = tasks.shutdown_signal().clone();
        tasks.spawn(async move {
            let mut tried: HashMap<String, Instant> = HashMap::new();
            loop {
                let stale: Vec<String> = cards
                    .borrow_and_update()
                    .iter()
                    .filter(|c| !domain::lifecycle::stale(c.unschedulable, &c.conditions).is_empty())
                    .map(|c| c.name.clone())
                    .collect();
                tried.retain(|node, at| stale.contains(node) && at.elapsed() < SWEEP_RETRY);
                for node in stale {
                    if tried.contains_key(&node) {
                        continue;
                    }
                    tried.insert(node.clone(), Instant::now());
                    // Read again: cordoned since the card, it is left as it is.
                    publisher.bring(&node, &[], &Kind::DRAIN, true).await;
                }
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    changed = cards.changed() => if changed.is_err() { return },
                    // A node whose clearing failed is tried again even if nothing else changes.
                    () = tokio::time::sleep(SWEEP_RETRY) => {}
                }
            }
        });
    }
}

/// Whether `node` carries any of Drainboard's own drain conditions: an uncordon of a node without them has nothing
/// to clear, and makes no further call.
pub fn has_ours(node: &Node) -> bool {
    // Seen as if schedulable: `stale` then names every drain condition of Drainboard's on it.
    !domain::lifecycle::stale(false, &conditions(node)).is_empty()
}

/// The node's conditions, as the domain reads them.
fn conditions(node: &Node) -> Vec<domain::condition::Condition> {
    let conditions = node.status.as_ref().and_then(|s| s.conditions.as_ref());
    conditions.map(|cs| cs.iter().map(Into::into).collect()).unwrap_or_default()
}

/// The strategic merge patch for `changes`, on `resource_version` (the API server refuses it if the node changed
/// since): conditions merge by `type`, so only these are touched.
fn patch_body(resource_version: Option<&str>, changes: &[Change]) -> Value {
    let conditions: Vec<Value> = changes
        .iter()
        .map(|change| match change {
            Change::Set { wanted, last_transition, last_heartbeat } => json!({
                "type": wanted.kind.as_str(),
                "status": if wanted.status { "True" } else { "False" },
                "reason": wanted.reason,
                "message": wanted.message,
                "lastTransitionTime": last_transition.to_string(),
                "lastHeartbeatTime": last_heartbeat.to_string(),
            }),
            Change::Remove(kind) => json!({ "$patch": "delete", "type": kind.as_str() }),
        })
        .collect();
    let mut body = json!({ "status": { "conditions": conditions } });
    if let Some(rv) = resource_version {
        body["metadata"] = json!({ "resourceVersion": rv });
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patch_sets_and_removes_by_type_on_the_version_read() {
        let now: Timestamp = "2026-12-07T10:00:00Z".parse().unwrap();
        let wanted =
            domain::lifecycle::for_drain(&domain::progress::DrainState::Drained, "alice", "d-1", None).unwrap();
        let changes = vec![
            Change::Set { wanted: wanted[1].clone(), last_transition: now, last_heartbeat: now },
            Change::Remove(Kind::DrainInProgress),
        ];
        let body = patch_body(Some("42"), &changes);
        assert_eq!(body["metadata"]["resourceVersion"], "42");
        let conditions = body["status"]["conditions"].as_array().unwrap();
        assert_eq!(conditions[0]["type"], "Drained");
        assert_eq!(conditions[0]["status"], "True");
        assert_eq!(conditions[0]["reason"], "DrainboardDrainCompleted");
        assert_eq!(conditions[0]["lastTransitionTime"], "2026-12-07T10:00:00Z");
        assert_eq!(conditions[1], json!({ "$patch": "delete", "type": "DrainInProgress" }));
        assert!(patch_body(None, &changes).get("metadata").is_none());
    }
}
