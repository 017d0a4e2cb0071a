//! Holds other tools while a freeze is in force (a window's `holdOthers`; the rules in `domain::hold_others`),
//! with the server's own identity: Karpenter's and the cluster autoscaler's switches on each covered node, and
//! kured's lock on its DaemonSet. Exactly what Drainboard set is removed once no freeze wants it.
//!
//! Level-triggered: every round reads the windows and the nodes as they are, so a replica, or the same server
//! after it was killed, finishes what another began. Each write is made on the version just read (a merge patch
//! that carries the `resourceVersion`): one that raced another writer is refused, and the next round decides
//! again. Every switch set and removed is recorded in the node's history and as an Event; kured's lock, which is
//! the DaemonSet's and not one node's, in the audit log and as an Event on the DaemonSet.

use std::{
    collections::{BTreeMap, BTreeSet},
    time::Duration,
};

use domain::{
    audit::{AuditAction, AuditEntry},
    hold_others::{self, MARK, ON, Switch, kured},
};
use jiff::Timestamp;
use k8s_openapi::api::{apps::v1::DaemonSet, core::v1::Node};
use kube::{
    Api, Client, ResourceExt,
    api::{Patch, PatchParams},
};
use serde_json::{Map, Value, json};

use super::Windows;
use crate::{audit::Audit, cache::ClusterCache, tasks::Tasks};

/// How often the switches are brought to what the windows want.
const ROUND: Duration = Duration::from_secs(5);
/// The field manager the API server records for these writes.
const MANAGER: &str = "drainboard-hold-others";
/// Who the history names for these entries: the server, on a window's behalf.
const WHO: &str = "drainboard";

/// What the rounds last logged: each lasting trouble is said once, then again only once it changes.
#[derive(Default)]
struct Said {
    /// The nodes whose last write failed.
    nodes: std::collections::HashSet<String>,
    /// What was last said of kured's lock.
    kured: Option<String>,
    /// Whether kured's lock was Drainboard's after the last round that read it (`None`: not read yet, or the read
    /// failed).
    kured_ours: Option<bool>,
}

/// What the rounds need. Cheap to clone.
#[derive(Clone)]
pub struct HoldOthers {
    pub client: Client,
    pub windows: Windows,
    pub cache: std::sync::Arc<ClusterCache>,
    pub audit: Audit,
    /// Where kured's DaemonSet is: its namespace and name.
    pub kured: (String, String),
}

impl HoldOthers {
    /// Runs a round every [`ROUND`] until shutdown.
    pub fn run(self, tasks: &Tasks) {
        let shutdown = tasks.shutdown_signal().clone();
        tasks.spawn(async move {
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = self.windows.known() => {}
            }
            let mut said = Said::default();
            loop {
                self.round(&mut said).await;
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    () = tokio::time::sleep(ROUND) => {}
                }
            }
        });
    }

    /// One round. `said`: what was last logged, so that a lasting refusal or a busy lock is said once.
    async fn round(&self, said: &mut Said) {
        let policies = self.windows.policies();
        // A window that does not read (or windows not read yet) may still want what was set: nothing is removed.
        let keep = policies.iter().any(|p| p.broken.is_some());
        let now = Timestamp::now();
        // No freeze holding any tool now: only the nodes Drainboard marked may need anything (a removal).
        let holding = policies.iter().any(|p| !p.holding_others(now).is_empty());
        for (node, labels, annotations) in self.cache.hold_marks(!holding) {
            let wanted = hold_others::wanted_by(&policies, Some(&labels), now);
            let switches: BTreeSet<Switch> = wanted.keys().copied().collect();
            if !hold_others::node_change(&switches, &annotations, keep).writes() {
                continue;
            }
            match self.node(&node, &wanted, keep).await {
                Ok(()) => {
                    said.nodes.remove(&node);
                }
                Err(err) => {
                    let error = crate::kube_error::api_message(&err);
                    if said.nodes.insert(node.clone()) {
                        tracing::warn!(%node, %error, "could not set or remove other tools' switches on the node (deploy/components/hold-others grants the rights); trying again each round");
                    } else {
                        tracing::debug!(%node, %error, "could not set or remove other tools' switches on the node");
                    }
                }
            }
        }
        let lists_kured = policies.iter().any(|p| p.hold_others.contains(&Switch::Kured));
        let want = hold_others::wanted_by(&policies, None, now).remove(&Switch::Kured);
        // The DaemonSet is read while the lock is wanted, or may still be Drainboard's: not every round of a
        // window whose freeze is weeks away.
        if lists_kured && (want.is_some() || said.kured_ours != Some(false)) {
            let said_now = match self.kured(want.as_deref(), keep, now).await {
                Ok((words, ours)) => {
                    said.kured_ours = Some(ours);
                    words
                }
                Err(err) => {
                    said.kured_ours = None;
                    Some(format!("could not read or write kured's lock: {}", crate::kube_error::api_message(&err)))
                }
            };
            if let Some(words) = said_now.as_deref().filter(|_| said_now != said.kured) {
                tracing::warn!(daemonset = %format!("{}/{}", self.kured.0, self.kured.1), "{words}");
            }
            said.kured = said_now;
        }
    }

    /// Brings `node` to `wanted` on a fresh read, and records what changed.
    async fn node(&self, node: &str, wanted: &BTreeMap<Switch, String>, keep: bool) -> Result<(), kube::Error> {
        let api: Api<Node> = Api::all(self.client.clone());
        let current = api.get(node).await?;
        let annotations: BTreeMap<String, String> = current.metadata.annotations.clone().unwrap_or_default();
        let switches: BTreeSet<Switch> = wanted.keys().copied().collect();
        let change = hold_others::node_change(&switches, &annotations, keep);
        if !change.writes() {
            return Ok(());
        }
        let mut patch = Map::new();
        for key in change.set.iter().filter_map(|s| s.annotation()) {
            patch.insert(key.into(), json!(ON));
        }
        for key in change.unset.iter().filter_map(|s| s.annotation()) {
            patch.insert(key.into(), Value::Null);
        }
        if let Some(mark) = &change.mark {
            patch.insert(MARK.into(), json!(mark));
        }
        let body = json!({"metadata": {"resourceVersion": current.resource_version(), "annotations": patch}});
        let params = PatchParams { field_manager: Some(MANAGER.into()), ..PatchParams::default() };
        api.patch(node, &params, &Patch::Merge(body)).await?;
        let ids = |s: &[Switch]| s.iter().map(|s| s.id()).collect::<Vec<_>>().join(", ");
        if !change.set.is_empty() {
            let windows: BTreeSet<&str> = change.set.iter().filter_map(|s| wanted.get(s)).map(String::as_str).collect();
            let windows = windows.into_iter().collect::<Vec<_>>().join(", ");
            self.record(node, AuditAction::OthersHeld, Some(windows), ids(&change.set)).await;
        }
        if !change.unset.is_empty() {
            self.record(node, AuditAction::OthersReleased, None, ids(&change.unset)).await;
        }
        Ok(())
    }

    async fn record(&self, node: &str, action: AuditAction, windows: Option<String>, switches: String) {
        let mut entry = AuditEntry::new(WHO, action, node, Timestamp::now());
        entry.reason = windows;
        entry.outcome = Some(switches);
        self.audit.record(entry).await;
    }

    /// Brings kured's lock to held by `window` (`None`: given back, if Drainboard's). Answers what is worth
    /// saying when the lock cannot be had, and whether the lock is Drainboard's now.
    async fn kured(
        &self,
        window: Option<&str>,
        keep: bool,
        now: Timestamp,
    ) -> Result<(Option<String>, bool), kube::Error> {
        let (namespace, name) = &self.kured;
        let api: Api<DaemonSet> = Api::namespaced(self.client.clone(), namespace);
        let Some(ds) = api.get_opt(name).await? else {
            let words = window.map(|_| format!("kured's DaemonSet {namespace}/{name} is not there: nothing to hold"));
            return Ok((words, false));
        };
        let args: Vec<String> = ds
            .spec
            .as_ref()
            .and_then(|s| s.template.spec.as_ref())
            .and_then(|p| p.containers.iter().find(|c| c.name == "kured").or(p.containers.first()))
            .and_then(|c| c.args.clone().or_else(|| c.command.clone()))
            .unwrap_or_default();
        let (concurrency, key) = kured::flags(&args);
        let current = ds.annotations().get(&key).cloned();
        let was_ours = kured::ours(current.as_deref());
        if keep && window.is_none() {
            return Ok((None, was_ours));
        }
        let value = match kured::change(window, current.as_deref(), concurrency, now) {
            kured::Change::Keep => return Ok((None, was_ours)),
            kured::Change::Busy(holder) => {
                return Ok((Some(format!("kured's lock is held by {holder}: taken once it is released")), was_ours));
            }
            kured::Change::Unreadable => {
                let words = format!("kured's lock annotation {key} is not in kured's format: left alone");
                return Ok((Some(words), was_ours));
            }
            kured::Change::Write(value) => Value::String(value),
            kured::Change::Remove => Value::Null,
        };
        let ours = kured::ours(value.as_str());
        let body = json!({"metadata": {"resourceVersion": ds.resource_version(), "annotations": {key: value}}});
        let params = PatchParams { field_manager: Some(MANAGER.into()), ..PatchParams::default() };
        api.patch(name, &params, &Patch::Merge(body)).await?;
        // A renewal is no news: only a take and a give-back are recorded.
        if ours != was_ours {
            let action = if ours { AuditAction::OthersHeld } else { AuditAction::OthersReleased };
            let mut entry = AuditEntry::new(WHO, action, &format!("daemonset/{namespace}/{name}"), now);
            entry.reason = window.map(str::to_owned);
            entry.outcome = Some(Switch::Kured.id().into());
            self.audit.record_about_object(entry, &ds).await;
        }
        Ok((None, ours))
    }
}
