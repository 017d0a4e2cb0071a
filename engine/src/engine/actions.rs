//! What a caller changes through the engine: cordons, drains (start, resume, cancel), and the audit record of
//! each, including the refused ones. Apart from the reads, since every action here writes to the cluster or the
//! record, and each refuses before it writes when the caller may not act (see [`crate::authz`]).

use domain::conflict::Conflict;
use domain::{
    audit::{AuditAction, AuditEntry},
    drain::{DrainOptions, DryRun},
    failure::StartRefusal,
    progress::{CordonOutcome, CordonRecord, DrainStarted},
    rollout::RolloutProgress,
};
use k8s_openapi::api::core::v1::Node;

use super::{Acting, Engine, no_such_drain};
use crate::{
    Error, Result,
    drain::ops,
    lease::{Claim, LEASE_SECONDS},
};

impl Acting<'_> {
    /// Cordons (`true`) or uncordons a node. A cordon records who made it and why on the node.
    pub async fn set_unschedulable(
        &self,
        node: &str,
        unschedulable: bool,
        reason: Option<String>,
    ) -> Result<CordonOutcome> {
        self.change_cordon(node, unschedulable, reason, |_| Vec::new()).await
    }

    /// Uncordons `node` at a person's ask. When other tools are at work on it (`domain::actor`), only once the person
    /// has typed each one's name in `confirm`, since the uncordon would undo their work (a scale-down, a reboot, a
    /// replacement). Judged on the node as read for the write, with the person's own credentials.
    pub async fn uncordon(&self, node: &str, confirm: Option<&str>) -> Result<CordonOutcome> {
        self.uncordon_because(node, None, confirm).await
    }

    /// [`Self::uncordon`], its record carrying `reason` (a plan's undo, a node said back): no path of Drainboard's
    /// uncordons over another tool's work unless a person typed its name.
    pub(crate) async fn uncordon_because(
        &self,
        node: &str,
        reason: Option<String>,
        confirm: Option<&str>,
    ) -> Result<CordonOutcome> {
        self.change_cordon(node, false, reason, |current| {
            let actors = domain::actor::undone_by_uncordon(&domain::node::NodeCard::from_node(current).actors);
            if domain::actor::confirmed(&actors, confirm) { Vec::new() } else { actors }
        })
        .await
    }

    /// The cordon or uncordon, unless `refuse` names tools at work on the node as read; audited either way.
    async fn change_cordon(
        &self,
        node: &str,
        unschedulable: bool,
        reason: Option<String>,
        refuse: impl FnOnce(&Node) -> Vec<domain::actor::Actor>,
    ) -> Result<CordonOutcome> {
        let client = self.client()?;
        let user = &self.identity.user;
        let record = CordonRecord { by: user.clone(), at: jiff::Timestamp::now(), reason: reason.clone() };
        let action = if unschedulable { AuditAction::Cordon } else { AuditAction::Uncordon };
        let mut entry = AuditEntry::new(user, action, node, jiff::Timestamp::now());
        entry.reason = reason;
        // Whether the node, as the write reads it, carries Drainboard's drain conditions for an uncordon to clear.
        let mut conditions_to_clear = false;
        let read = |current: &Node| {
            conditions_to_clear = crate::lifecycle::has_ours(current);
            refuse(current)
        };
        let written = ops::set_unschedulable_unless(&client, node, unschedulable, DryRun::None, Some(&record), read);
        let outcome = match written.await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(actors)) => {
                let err = Error::Refused(StartRefusal::OtherActors { node: node.to_owned(), actors });
                self.engine.record_refused(entry, &err);
                return Err(err);
            }
            Err(err) => {
                let err = if crate::kube_error::not_found(&err) {
                    Error::Refused(StartRefusal::NoSuchNode { node: node.to_owned() })
                } else {
                    Error::Kube(err)
                };
                self.engine.record_refused(entry, &err);
                return Err(err);
            }
        };
        if outcome == CordonOutcome::Changed {
            self.engine.audit.record(entry).await;
            // Back in service: neither draining nor drained, as far as Drainboard's own conditions say.
            if let (false, true, Some(publisher)) = (unschedulable, conditions_to_clear, &self.engine.lifecycle) {
                publisher.clear(node).await;
            }
        }
        Ok(outcome)
    }

    /// Starts draining `node`, or attaches to the drain of that node already running.
    pub async fn start_drain(
        &self,
        node: String,
        options: DrainOptions,
        reason: Option<String>,
    ) -> Result<DrainStarted> {
        let estimate = self.estimate_drain(&node, &options).await;
        self.start(node, options, reason, AuditAction::DrainStarted, estimate).await
    }

    /// Node `i` of `plan`: drained with the plan's options and reason, and the estimate made as the plan started.
    pub(crate) async fn start_plan_drain(&self, plan: &RolloutProgress, i: usize) -> Result<DrainStarted> {
        let node = &plan.nodes[i];
        let (options, reason) = (plan.options.drain.clone(), plan.reason.clone());
        self.start(node.name.clone(), options, reason, AuditAction::DrainStarted, node.estimate.clone()).await
    }

    /// Starts the drain of `node` again with the options and reason of the drain recorded on it: the same as
    /// [`Self::start_drain`], recorded as a resume.
    pub async fn resume_drain(
        &self,
        node: String,
        options: DrainOptions,
        reason: Option<String>,
    ) -> Result<DrainStarted> {
        let estimate = self.estimate_drain(&node, &options).await;
        self.start(node, options, reason, AuditAction::DrainResumed, estimate).await
    }

    async fn start(
        &self,
        node: String,
        options: DrainOptions,
        reason: Option<String>,
        action: AuditAction,
        estimate: Option<domain::estimate::Estimate>,
    ) -> Result<DrainStarted> {
        let (engine, identity) = (self.engine, self.identity);
        if engine.tasks().is_shutting_down() {
            return Err(Error::Refused(StartRefusal::Stopping { node }));
        }
        let client = self.client()?;
        // Fail here, not in the task, when the node does not exist.
        if let Err(err) = kube::Api::<Node>::all(client.clone()).get(&node).await {
            return Err(if crate::kube_error::not_found(&err) {
                Error::Refused(StartRefusal::NoSuchNode { node })
            } else {
                Error::Kube(err)
            });
        }
        let real = options.dry_run == DryRun::None;
        // In team mode the server's own identity writes the Lease, the history and the Event of a drain, so a
        // person who may not drain gets a 403 here, before any of those is written; the API server would refuse
        // their cordon anyway, but only after the record said they had started.
        if real && engine.is_team() {
            let lacking = self.kept_permissions().await?;
            if let Some(missing) = lacking.drain.as_deref().or(lacking.delete_pods_for(&options)) {
                let err = Error::Refused(StartRefusal::MayNotDrain {
                    user: identity.user.clone(),
                    node: node.clone(),
                    lacks: missing.to_owned(),
                    role: domain::actions::role_granting(missing).to_owned(),
                });
                let mut entry = AuditEntry::new(&identity.user, action, &node, jiff::Timestamp::now());
                entry.reason = reason;
                entry.options = Some(options);
                engine.record_refused(entry, &err);
                return Err(err);
            }
        }
        let cache = self.cache().await.ok();
        let entry = real.then(|| {
            let mut entry = AuditEntry::new(&identity.user, action, &node, jiff::Timestamp::now());
            entry.reason = reason.clone();
            entry.options = Some(options.clone());
            entry.timing = estimate
                .clone()
                .map(|estimate| domain::estimate::DrainTiming { estimate: Some(estimate), ..Default::default() });
            entry
        });
        // Another server may be draining this node: its live Lease says so. A drain already running here holds it.
        let leases =
            engine.drains.leases().filter(|_| real && engine.drains.running_on(&identity.cluster, &node).is_none());
        if let Some(leases) = leases {
            match leases.acquire(&node).await {
                Ok(Claim::Acquired) => {}
                Ok(Claim::HeldBy(holder)) => {
                    return Err(Error::Conflict(Conflict::DrainingElsewhere {
                        node,
                        holder,
                        lease_seconds: LEASE_SECONDS,
                    }));
                }
                // In team mode, replicas may serve the same cluster, and only the Lease keeps two of them from
                // draining one node at once: without it, no drain. A local server is the operator's alone, so it
                // drains on, and says so in its log.
                Err(err) if engine.is_team() => {
                    return Err(Error::Refused(StartRefusal::NoLease {
                        node,
                        answer: crate::kube_error::answer(&err),
                    }));
                }
                Err(err) => {
                    tracing::warn!(%node, error = %crate::kube_error::api_message(&err), "could not take the node's Lease")
                }
            }
        }
        let started = match engine.drains.start_with_cache(
            client,
            identity,
            node.clone(),
            options,
            reason,
            crate::drain::Launch { cache, estimate },
        ) {
            Ok(started) => started,
            Err(err) => {
                if let Some(leases) = leases {
                    leases.release(&node).await;
                }
                return Err(err);
            }
        };
        if let Some(mut entry) = entry.filter(|_| !started.attached) {
            entry.drain_id = Some(started.id.clone());
            engine.audit.record(entry).await;
        }
        Ok(started)
    }

    /// Asks a running drain to stop.
    ///
    /// Stopping a drain changes what happens to a node, so in team mode a person who did not start it must be one
    /// who may drain it (see [`Self::may_change`]), as the API server says; a viewer cannot stop a colleague's
    /// drain.
    pub async fn cancel_drain(&self, id: &str) -> Result<()> {
        let (engine, user) = (self.engine, &self.identity.user);
        let progress = engine.drain_progress(id)?;
        if let Err(err) = self.may_change(&progress.started_by, domain::denial::Change::StopDrain).await {
            let mut entry = AuditEntry::new(user, AuditAction::DrainCancelled, &progress.node, jiff::Timestamp::now());
            entry.drain_id = Some(progress.id.clone());
            engine.record_refused(entry, &err);
            return Err(err);
        }
        if !engine.drains.cancel(id) {
            return Err(no_such_drain(id));
        }
        if progress.options.dry_run == DryRun::None && progress.state.is_running() {
            let mut entry = AuditEntry::new(user, AuditAction::DrainCancelled, &progress.node, jiff::Timestamp::now());
            entry.drain_id = Some(progress.id.clone());
            entry.outcome = Some(format!("stopped; started by {}", progress.started_by));
            engine.audit.record(entry).await;
        }
        Ok(())
    }

    /// Whether the caller may change the course of what `started_by` started (stop a drain, pause or stop a
    /// rollout): in team mode, only its starter or someone who may drain (patch nodes, list pods, create
    /// pods/eviction), as the API server says. Stopping a drain decides a node's fate as much as starting one; a
    /// viewer cannot stop a colleague's work.
    pub(crate) async fn may_change(&self, started_by: &str, change: domain::denial::Change) -> Result<()> {
        let user = &self.identity.user;
        if !self.engine.is_team() || started_by == user {
            return Ok(());
        }
        match self.kept_permissions().await?.drain {
            None => Ok(()),
            Some(missing) => Err(Error::Forbidden(domain::denial::Denial::MayNotChange {
                user: user.clone(),
                change,
                started_by: started_by.to_owned(),
                lacks: missing,
            })),
        }
    }
}

impl Engine {
    /// Puts an action that was refused or failed on the audit log file, with why (see `Audit::record_refused`):
    /// "refused" when the person lacked the rights, "failed" for anything else (an unknown node, a lost API server).
    pub(super) fn record_refused(&self, mut entry: AuditEntry, err: &Error) {
        let refused = matches!(
            err,
            Error::Forbidden(_)
                | Error::Refused(
                    StartRefusal::MayNotDrain { .. } | StartRefusal::Held { .. } | StartRefusal::MayNotOverride { .. }
                )
        ) || matches!(err.api_code(), Some(401 | 403));
        entry.outcome = Some(format!("{}: {err}", if refused { "refused" } else { "failed" }));
        self.audit.record_refused(&entry);
    }
}
