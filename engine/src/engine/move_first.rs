//! Move first, for a person (`domain::moving`): for a pod of the running drain that a budget at zero holds, and
//! whose Deployment nothing else scales, preview the surge, or, once the person typed the Deployment's name,
//! make it with their credentials and follow it to the end: the drain's own retries evict the old pods once the
//! new ones are Ready elsewhere, and the count goes back when they are gone or the drain stops.

use domain::conflict::Conflict;
use domain::{
    PodRef,
    audit::{AuditAction, AuditEntry},
    drain::DryRun,
    moving::{self, MAX_SURGE, MoveAnswer, MovePreview, MoveRecord, MoveRefusal},
    progress::PodState,
};
use k8s_openapi::api::core::v1::Pod;
use kube::{Api, ResourceExt};

use super::{Acting, Engine};
use crate::{Error, Result, moving as cluster};

impl Acting<'_> {
    /// Previews moving the pod `namespace/pod` of the running drain `id` first, or, when `confirm` is the
    /// Deployment's name, starts the move. Refused, with the reason, where a surge would not help or would fight
    /// whatever owns the count.
    pub async fn move_first(&self, id: &str, namespace: &str, pod: &str, confirm: Option<&str>) -> Result<MoveAnswer> {
        let engine = self.engine;
        let progress = engine.drain_progress(id)?;
        if !progress.state.is_running() || progress.options.dry_run != DryRun::None {
            return Err(Error::Conflict(Conflict::NothingToMove { drain: id.to_owned() }));
        }
        self.may_change(&progress.started_by, domain::denial::Change::MovePods).await?;
        let Some(held) = progress.pods.iter().find(|p| p.namespace == namespace && p.name == pod) else {
            return Err(Error::NotFound(format!("the drain {id} has no pod {namespace}/{pod}")));
        };
        let blocked = matches!(&held.state, PodState::Blocked { blockers, .. } if moving::surge_helps(blockers));
        if !blocked {
            return Err(Error::Conflict(Conflict::Move {
                pod: Some(held.key()),
                refusal: MoveRefusal::NotHeldByBudget,
            }));
        }
        let client = self.client()?;
        let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
        let live = pods.get_opt(pod).await.map_err(Error::Kube)?;
        let Some(live) = live.filter(|p| p.metadata.uid.as_deref() == Some(held.uid.as_str())) else {
            return Err(Error::Conflict(Conflict::PodGone { pod: format!("{namespace}/{pod}") }));
        };
        let target = cluster::target(&client, &live).await?;
        let moved = cluster::pods_on_node(&client, namespace, &progress.node, &target.replica_set_uid).await?;
        let surge = i32::try_from(moved.len()).unwrap_or(i32::MAX).max(1);
        if surge > MAX_SURGE {
            return Err(Error::Conflict(Conflict::Move { pod: None, refusal: MoveRefusal::TooMany { pods: surge } }));
        }
        let deployment = target.deployment.name_any();
        let original = target.deployment.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
        let record = MoveRecord {
            original,
            surge,
            node: progress.node.clone(),
            drain_id: progress.id.clone(),
            pods: moved.iter().filter_map(|p| p.metadata.uid.clone()).collect(),
            by: self.identity.user.clone(),
            at: jiff::Timestamp::now(),
        };
        let surged = record.surged().ok_or_else(|| Error::Invalid("the surged replica count would overflow".into()))?;
        let preview = MovePreview {
            namespace: namespace.to_owned(),
            deployment: deployment.clone(),
            original,
            surged,
            pods: moved.iter().map(ResourceExt::name_any).collect(),
        };
        match confirm.map(str::trim) {
            None | Some("") => return Ok(MoveAnswer::Preview(preview)),
            Some(word) if word != deployment => {
                return Err(Error::Invalid(format!("type {deployment} to confirm: its replica count changes")));
            }
            Some(_) => {}
        }
        cluster::surge(&client, &target.deployment, &record).await?;
        let outcome = format!(
            "scaled Deployment {namespace}/{deployment} from {original} to {surged} to move {} first",
            preview.pods.join(", ")
        );
        let mut entry =
            AuditEntry::new(&self.identity.user, AuditAction::Moved, &progress.node, jiff::Timestamp::now());
        entry.drain_id = Some(progress.id.clone());
        entry.outcome = Some(outcome);
        engine.audit.record(entry).await;
        let (engine, user) = (engine.clone(), self.identity.user.clone());
        let namespace = namespace.to_owned();
        engine.tasks.clone().spawn(async move { follow(engine, client, user, namespace, deployment, record).await });
        Ok(MoveAnswer::Started(preview))
    }
}

/// Follows a move this server made until the moved pods are gone or their drain stops, then puts the count back
/// as `user`. A server that stops first leaves the record to [`Engine::sweep_moves`].
async fn follow(
    engine: Engine,
    client: kube::Client,
    user: String,
    namespace: String,
    deployment: String,
    record: MoveRecord,
) {
    let stop = engine.tasks.shutdown_signal().clone();
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(cluster::FOLLOW_EVERY) => {}
        }
        let running = engine.drains.progress(&record.drain_id).is_some_and(|p| p.state.is_running());
        let left = match cluster::left_on_node(&client, &namespace, &record.node, &record.pods).await {
            Ok(left) => left,
            Err(err) if running => {
                tracing::warn!(%namespace, %deployment, error = %err, "could not look at a move's pods; trying again");
                continue;
            }
            Err(_) => record.pods.len(),
        };
        if moving::restore_due(running, left) {
            engine.put_back(&client, &user, &namespace, &deployment, &record.node, &record.drain_id).await;
            return;
        }
    }
}

impl Engine {
    /// Puts a moved Deployment's count back, and records it (or why it could not be).
    async fn put_back(
        &self,
        client: &kube::Client,
        user: &str,
        namespace: &str,
        deployment: &str,
        node: &str,
        drain: &str,
    ) {
        let outcome = match cluster::restore(client, namespace, deployment).await {
            Ok(cluster::Restored::Count(count)) => format!("put Deployment {namespace}/{deployment} back to {count}"),
            Ok(cluster::Restored::Kept(count)) => {
                format!("left Deployment {namespace}/{deployment} at {count}: its count was changed during the move")
            }
            Ok(cluster::Restored::Gone) => return,
            Err(err) => {
                tracing::warn!(%namespace, %deployment, error = %err, "could not put a moved Deployment's count back");
                format!("could not put Deployment {namespace}/{deployment} back yet: {err}")
            }
        };
        tracing::info!(%namespace, %deployment, %outcome, "move ended");
        if node.is_empty() {
            return; // An unreadable record names no node to record it on.
        }
        let mut entry = AuditEntry::new(user, AuditAction::Moved, node, jiff::Timestamp::now());
        entry.drain_id = Some(drain.to_owned());
        entry.outcome = Some(outcome);
        self.audit.record(entry).await;
    }

    /// Puts back the count of every move whose drain runs nowhere now (its server stopped), with the server's
    /// own client: the operator's in single-user mode; in team mode the server's identity, which may patch
    /// Deployments only where the operator bound it that right (the unattended maintenance role does). Moves
    /// this server or a live replica follows are left to them.
    pub async fn sweep_moves(&self) -> Result<usize> {
        let Some(client) = self.server_client() else { return Ok(0) };
        let mut put_back = 0;
        for (namespace, deployment, record) in cluster::recorded(&client).await? {
            if let Some(record) = &record {
                if self.drains.progress(&record.drain_id).is_some_and(|p| p.state.is_running()) {
                    continue;
                }
                // One record whose Lease cannot be read now is looked at again next time; the others go on.
                let elsewhere = match self.drains.leases() {
                    Some(leases) => leases.held_elsewhere(&record.node).await,
                    None => Ok(None),
                };
                match elsewhere {
                    Ok(None) => {}
                    Ok(Some(_)) => continue,
                    Err(err) => {
                        tracing::warn!(%namespace, %deployment, node = %record.node, error = %err, "could not read the node's Lease; the move is looked at again later");
                        continue;
                    }
                }
            }
            let (node, drain, user) = match &record {
                Some(r) => (r.node.as_str(), r.drain_id.as_str(), r.by.as_str()),
                None => ("", "", ""),
            };
            self.put_back(&client, user, &namespace, &deployment, node, drain).await;
            put_back += 1;
        }
        Ok(put_back)
    }

    /// Starts looking for moves nobody follows: at once (a server that restarts puts back what it left), then
    /// every [`cluster::SWEEP_EVERY`]. Only where the server's own identity may list and patch Deployments (in
    /// team mode, the unattended component grants it): elsewhere it says once that a stopped server's move waits
    /// for its person, and does not knock on the API server every half minute to be refused.
    pub fn sweep_moves_always(&self) {
        let engine = self.clone();
        self.tasks.supervise("moves", move || {
            let engine = engine.clone();
            async move {
                let Some(client) = engine.server_client() else { return };
                let may = |verb| crate::authz::may(&client, verb, "apps", "deployments", None);
                loop {
                    match (may("list").await, may("patch").await) {
                        (Ok(true), Ok(true)) => break,
                        (Ok(_), Ok(_)) => {
                            tracing::info!(
                                "the server's identity has no right to list and patch Deployments: a move whose \
                                 server stopped keeps its surge until someone puts the count back (bind the unattended \
                                 component to have any replica do it)"
                            );
                            return;
                        }
                        (Err(err), _) | (_, Err(err)) => {
                            tracing::warn!(error = %err, "could not ask whether this server may put moves back");
                            tokio::time::sleep(cluster::SWEEP_EVERY).await;
                        }
                    }
                }
                loop {
                    if let Err(err) = engine.sweep_moves().await {
                        tracing::warn!(error = %err, "could not look for moves left over");
                    }
                    tokio::time::sleep(cluster::SWEEP_EVERY).await;
                }
            }
        });
    }
}
