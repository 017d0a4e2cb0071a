//! The durable maintenance history: per node, the last [`KEEP`] audit entries, in a ConfigMap of the server's
//! namespace (`drainboard-history.<node>`). Events expire after an hour and the audit log lives on one server's
//! disk; this survives restarts and is shared by every replica, and the node page and the team screen read it.
//!
//! A ConfigMap, not a resource of Drainboard's own: it needs no CustomResourceDefinition (so no cluster-admin to
//! install), any cluster already has it, and `kubectl get cm -o yaml` reads it. One object per node keeps each
//! write small, and bounds what one busy node can take from the others.
//!
//! Written with the server's own identity, with optimistic concurrency: a conflict (another replica wrote first)
//! re-reads and appends again.

use std::collections::BTreeMap;

use domain::audit::AuditEntry;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::{
    Api, Client,
    api::{ObjectMeta, PostParams},
};

/// How many entries a node's history keeps: weeks of maintenance, within a few dozen kilobytes.
pub const KEEP: usize = 100;

const KEY: &str = "entries";
/// The longest user name kept: Kubernetes user names are far shorter.
const MAX_USER_CHARS: usize = 256;
const LABEL: &str = "app.kubernetes.io/managed-by";

/// The history object's name for `node`, if one fits in a name (253 characters).
pub fn object_name(node: &str) -> Option<String> {
    let name = format!("drainboard-history.{node}");
    (name.len() <= 253).then_some(name)
}

/// The node whose history `object_name` names, if it is one of ours.
pub(crate) fn node_of(object_name: &str) -> Option<&str> {
    object_name.strip_prefix("drainboard-history.").filter(|n| domain::input::node_name(n).is_ok())
}

/// The label every history object carries, as a selector.
pub(crate) fn selector() -> String {
    format!("{LABEL}=drainboard")
}

/// Where histories are kept, and with which identity.
#[derive(Clone)]
pub struct History {
    client: Client,
    namespace: String,
}

impl History {
    pub fn new(client: Client, namespace: impl Into<String>) -> Self {
        History { client, namespace: namespace.into() }
    }

    pub(crate) fn api(&self) -> Api<ConfigMap> {
        Api::namespaced(self.client.clone(), &self.namespace)
    }

    /// Appends `entry` to its node's history, keeping the newest [`KEEP`].
    pub async fn append(&self, entry: &AuditEntry) -> Result<(), kube::Error> {
        let Some(name) = object_name(&entry.node) else {
            return Ok(());
        };
        let api = self.api();
        for _ in 0..5 {
            let current = api.get_opt(&name).await?;
            let mut entries = current.as_ref().map(read).unwrap_or_default();
            // Another replica recorded this very entry (a node's health change, which every replica sees).
            if entries.iter().any(|e| same(e, entry)) {
                return Ok(());
            }
            entries.push(entry.clone());
            let excess = entries.len().saturating_sub(KEEP);
            entries.drain(..excess);
            let text = serde_json::to_string(&entries).map_err(kube::Error::SerdeError)?;
            let result = match current {
                Some(mut object) => {
                    object.data = Some(BTreeMap::from([(KEY.to_string(), text)]));
                    api.replace(&name, &PostParams::default(), &object).await
                }
                None => {
                    let object = ConfigMap {
                        metadata: ObjectMeta {
                            name: Some(name.clone()),
                            namespace: Some(self.namespace.clone()),
                            labels: Some(BTreeMap::from([(LABEL.to_string(), "drainboard".to_string())])),
                            ..Default::default()
                        },
                        data: Some(BTreeMap::from([(KEY.to_string(), text)])),
                        ..Default::default()
                    };
                    api.create(&PostParams::default(), &object).await
                }
            };
            match result {
                Ok(_) => return Ok(()),
                // Another replica wrote (or created) it first: read again and append to that.
                Err(e) if crate::kube_error::conflict(&e) => continue,
                Err(err) => return Err(err),
            }
        }
        Err(kube::Error::Api(Box::new(kube::core::Status::failure(
            "the history kept changing under five attempts to append to it",
            "Conflict",
        ))))
    }

    /// The node's history, newest first; empty if none was kept.
    pub async fn read(&self, node: &str) -> Result<Vec<AuditEntry>, kube::Error> {
        let Some(name) = object_name(node) else {
            return Ok(Vec::new());
        };
        let mut entries = self.api().get_opt(&name).await?.as_ref().map(read).unwrap_or_default();
        entries.reverse();
        Ok(entries)
    }
}

/// Whether two entries record the same thing: the same action on the same node by the same person at the same
/// instant, for the same drain.
fn same(a: &AuditEntry, b: &AuditEntry) -> bool {
    a.at == b.at
        && a.action == b.action
        && a.node == b.node
        && a.user == b.user
        && a.drain_id == b.drain_id
        // Two tools seen at the same moment are two entries.
        && (!a.action.is_actor() || a.reason == b.reason)
}

/// The entries an object holds. Anyone who may edit ConfigMaps there could have written it, so a malformed one
/// reads as empty and every entry is bounded on the way out.
pub(crate) fn read(object: &ConfigMap) -> Vec<AuditEntry> {
    let Some(text) = object.data.as_ref().and_then(|d| d.get(KEY)) else {
        return Vec::new();
    };
    // Entry by entry: one a newer server wrote in a form this one does not know is left out, not the whole list.
    let values: Vec<serde_json::Value> = serde_json::from_str(text).unwrap_or_default();
    let mut entries: Vec<AuditEntry> = values.into_iter().filter_map(|v| serde_json::from_value(v).ok()).collect();
    let excess = entries.len().saturating_sub(KEEP);
    entries.drain(..excess);
    let fits = |e: &AuditEntry| {
        e.user.chars().count() <= MAX_USER_CHARS
            && e.reason.as_deref().is_none_or(|r| r.chars().count() <= domain::input::MAX_REASON_CHARS)
    };
    entries.retain(fits);
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::audit::AuditAction;

    fn object(text: &str) -> ConfigMap {
        ConfigMap { data: Some(BTreeMap::from([(KEY.to_string(), text.to_string())])), ..Default::default() }
    }

    #[test]
    fn names_fit_or_there_is_no_history() {
        assert_eq!(object_name("node-3").as_deref(), Some("drainboard-history.node-3"));
        assert_eq!(object_name(&"a".repeat(253)), None);
    }

    #[test]
    fn a_history_is_read_as_a_claim() {
        let entry = AuditEntry::new("alice", AuditAction::Cordon, "n1", jiff::Timestamp::now());
        let good = serde_json::to_string(&vec![entry.clone(); 3]).unwrap();
        assert_eq!(read(&object(&good)).len(), 3);
        assert!(read(&object("not json")).is_empty());
        let too_many = serde_json::to_string(&vec![entry.clone(); KEEP + 50]).unwrap();
        assert_eq!(read(&object(&too_many)).len(), KEEP);
        let mut forged = entry;
        forged.reason = Some("x".repeat(501));
        assert!(read(&object(&serde_json::to_string(&vec![forged]).unwrap())).is_empty());
        assert!(read(&ConfigMap::default()).is_empty());
    }
}
