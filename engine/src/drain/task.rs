//! One drain, run as a server task: cordon, plan, evict every pod in parallel, wait until each is gone.
//!
//! Its parts live beside it: [`super::evict`] sorts the API's answers to an eviction, [`super::wait`] holds the
//! waits, [`super::presence`] watches the node's pods, [`super::renew`] keeps the node's Lease, [`super::record`]
//! writes the drain on its Node, and [`super::hooks`] holds the faults tests ask for.

use std::{collections::HashMap, time::Duration};

use domain::{
    PodSummary,
    audit::{AuditAction, AuditEntry},
    drain::{DrainOptions, DryRun},
    failure::Failure,
    progress::{CordonOutcome, CordonRecord, DrainProgress, DrainState, PodProgress, PodState},
};
use futures::future::join_all;
use jiff::Timestamp;
use kube::Client;
use tokio::{sync::watch, time::Instant};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "test-hooks")]
use super::hooks::TestHooks;
use super::{
    hooks::Phase,
    ops,
    pace::Pacer,
    presence::Presence,
    renew::{AbortOnDrop, renew},
};
use crate::{kube_error, tasks::Tasks};

pub(super) struct Drain {
    pub client: Client,
    pub node: String,
    pub options: DrainOptions,
    pub progress: watch::Sender<DrainProgress>,
    /// Cancelled by a person's Cancel, or by the server's shutdown (see [`Drain::stop_reason`]).
    pub cancel: CancellationToken,
    pub tasks: Tasks,
    #[cfg(feature = "test-hooks")]
    pub hooks: TestHooks,
    /// The identity's cache, when the drain has one: a blocked eviction reads its budget there, instead of listing
    /// the namespace's budgets on every retry.
    pub cache: Option<std::sync::Arc<crate::cache::ClusterCache>>,
    /// The server's token bucket, shared by every drain.
    pub pacer: Pacer,
    /// This drain's bound on evictions in flight.
    pub in_flight: tokio::sync::Semaphore,
    /// Where the drain's end is recorded (real drains only).
    pub audit: crate::audit::Audit,
    /// Publishes the drain's lifecycle conditions on the node, with the server's identity (team mode).
    pub lifecycle: Option<crate::lifecycle::Publisher>,
    /// Set once the node is cordoned with the person's own credentials: only then does the server publish anything
    /// for this drain, so a person who may not cordon the node cannot have the server write on it.
    pub cordoned: std::sync::atomic::AtomicBool,
    /// What this drain last published and the node took: the same again (the record's next write while the drain
    /// still runs) makes no call.
    pub published: parking_lot::Mutex<Option<Vec<domain::lifecycle::Wanted>>>,
    /// The node's Lease, renewed while the drain runs (real drains, when Leases are kept).
    pub lease: Option<crate::lease::Leases>,
    /// Set when the Lease could not be renewed in time: the drain stops as interrupted, since another server may
    /// take the node over once the Lease expires.
    pub lost_lease: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The record this drain last wrote on the node: each later write lands only while the node still carries it
    /// (`super::record::record`). Shared with the supervisor that records a panic.
    pub written: std::sync::Arc<parking_lot::Mutex<Option<String>>>,
}

impl Drain {
    pub async fn run(self) {
        // Aborted when this function returns or unwinds (a panic): a dead drain must not keep its Lease alive.
        let renewer = self.lease.clone().map(|leases| {
            let (node, cancel, lost) = (self.node.clone(), self.cancel.clone(), self.lost_lease.clone());
            let progress = self.progress.subscribe();
            AbortOnDrop(self.tasks.spawn(renew(leases, node, progress, cancel, lost)))
        });
        tracing::info!("drain started");
        let state = self.execute().await;
        drop(renewer);
        tracing::info!(outcome = %state.outcome_text(), "drain ended");
        self.progress.send_modify(|p| {
            p.state = state;
            p.finished_at = Some(Timestamp::now());
        });
        self.record().await;
        let entry = {
            let p = self.progress.borrow();
            (p.options.dry_run == DryRun::None).then(|| {
                let mut entry = AuditEntry::new(&p.started_by, AuditAction::DrainEnded, &p.node, Timestamp::now());
                entry.outcome = Some(p.state.outcome_text());
                let timing = p.timing();
                crate::metrics::METRICS.drain_ended(p.state.label(), timing.took_seconds.map(Duration::from_secs));
                // The estimate is of a drain to its end; one stopped early says nothing of it.
                if let Some(ratio) = p.state.is_final_ok().then(|| timing.estimate_ratio()).flatten() {
                    crate::metrics::METRICS.estimate_was(ratio);
                }
                entry.ended = Some(p.state.clone());
                entry.reason = p.reason.clone();
                entry.drain_id = Some(p.id.clone());
                entry.timing = Some(timing);
                entry
            })
        };
        if let Some(entry) = entry {
            self.audit.record(entry).await;
        }
        if let Some(leases) = &self.lease
            && !self.lost_lease.load(std::sync::atomic::Ordering::Relaxed)
        {
            leases.release(&self.node).await;
        }
    }

    async fn execute(&self) -> DrainState {
        let dry_run = self.options.dry_run;
        self.hook(Phase::Cordoning).await;
        let record = {
            let progress = self.progress.borrow();
            CordonRecord { by: progress.started_by.clone(), at: progress.started_at, reason: progress.reason.clone() }
        };
        match ops::set_unschedulable(&self.client, &self.node, true, dry_run, Some(&record)).await {
            // The drain's cordon is a cordon like a person's, in the history with who and why (and the drain's id),
            // so that the timeline's span of it has its start. A node cordoned before is not cordoned again.
            Ok(CordonOutcome::Changed) if dry_run == DryRun::None => {
                let entry = {
                    let p = self.progress.borrow();
                    let mut entry = AuditEntry::new(&p.started_by, AuditAction::Cordon, &p.node, Timestamp::now());
                    entry.reason = p.reason.clone();
                    entry.drain_id = Some(p.id.clone());
                    entry
                };
                self.audit.record(entry).await;
            }
            Ok(_) => {}
            Err(err) if kube_error::unauthorized(&err) => return DrainState::Failed(Failure::CredentialsExpired),
            Err(err) => return DrainState::Failed(Failure::Cordon(kube_error::answer(&err))),
        }
        self.cordoned.store(true, std::sync::atomic::Ordering::Relaxed);
        self.record().await;

        self.set_state(DrainState::Planning);
        self.hook(Phase::Planning).await;
        let listed = match ops::list_node_pods(&self.client, &self.node, self.options.pod_selector.as_deref()).await {
            Ok(pods) => pods,
            Err(err) if kube_error::unauthorized(&err) => return DrainState::Failed(Failure::CredentialsExpired),
            Err(err) => return DrainState::Failed(Failure::ListPods(kube_error::answer(&err))),
        };
        if let Some(stopped) = self.stop_reason() {
            return stopped;
        }
        let pods: Vec<PodSummary> = listed.iter().map(PodSummary::from).collect();
        let plan = ops::plan(&self.client, &pods, &self.options).await;
        let by_uid: HashMap<&str, &PodSummary> = pods.iter().map(|p| (p.uid.as_str(), p)).collect();
        let targets: Vec<PodSummary> =
            plan.to_evict().filter_map(|p| by_uid.get(p.uid.as_str()).map(|s| (*s).clone())).collect();
        let blocked = plan.is_blocked();
        self.progress.send_modify(|p| {
            p.plan = Some(plan);
            p.pods = targets
                .iter()
                .map(|t| PodProgress {
                    namespace: t.namespace.clone(),
                    name: t.name.clone(),
                    uid: t.uid.clone(),
                    state: PodState::Pending,
                    started_at: None,
                    finished_at: None,
                    evicted_at: None,
                })
                .collect();
        });
        if blocked {
            return DrainState::Refused;
        }
        if dry_run == DryRun::Client {
            return DrainState::DryRunPlanned;
        }
        // A Cancel (or shutdown) acknowledged while the drain was cordoning or planning evicts nothing.
        if let Some(stopped) = self.stop_reason() {
            return stopped;
        }

        self.set_state(DrainState::Evicting);
        self.record().await;
        self.hook(Phase::Evicting).await;
        // A Cancel that arrived while the drain was waiting above evicts nothing either.
        if let Some(stopped) = self.stop_reason() {
            return stopped;
        }
        // Watch the node's pods before the first eviction, so that no deletion is missed.
        let presence = (dry_run == DryRun::None).then(|| Presence::watch(&self.tasks, self.client.clone(), &self.node));
        let (state, deadline) = if self.options.disable_eviction {
            let deadline = self.delete_all(&targets, presence.as_ref()).await;
            (self.outcome(deadline), deadline)
        } else {
            let deadline = self.deadline();
            join_all(targets.iter().map(|pod| self.evict_one(pod, deadline, presence.as_ref()))).await;
            (self.outcome(deadline), deadline)
        };
        // Safe to reboot means the storage is off the node too.
        match state {
            DrainState::Drained => {
                drop(presence);
                self.wait_volumes(deadline).await
            }
            other => other,
        }
    }

    /// The final state, from the pods' states.
    fn outcome(&self, deadline: Option<Instant>) -> DrainState {
        let progress = self.progress.borrow();
        let not_waited = progress.pods.iter().filter(|p| p.state == PodState::NoLongerWaited).count();
        let left = progress.pods.len() - progress.done();
        if left > 0 && left == not_waited {
            return DrainState::DrainedExceptTerminating(not_waited);
        }
        if left == 0 {
            return if self.options.dry_run == DryRun::Server {
                DrainState::DryRunAccepted
            } else {
                DrainState::Drained
            };
        }
        if let Some(stopped) = self.stop_reason() {
            return stopped;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return DrainState::TimedOut;
        }
        if progress.pods.iter().any(|p| p.state == PodState::Failed(Failure::CredentialsExpired)) {
            // The node stays cordoned; whoever signs in again may resume.
            return DrainState::Failed(Failure::CredentialsExpired);
        }
        let failed = progress.pods.iter().filter(|p| matches!(p.state, PodState::Failed(_))).count();
        DrainState::Failed(Failure::NotEvicted { failed, of: progress.pods.len() })
    }

    /// The test hooks of `phase` (the `test-hooks` feature only): see [`super::hooks`].
    async fn hook(&self, phase: Phase) {
        #[cfg(feature = "test-hooks")]
        self.hooks.at(phase, &self.cancel).await;
        #[cfg(not(feature = "test-hooks"))]
        let _ = phase;
    }

    /// The drain's deadline, counted from now. A timeout past what the clock can hold is no timeout at all.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.options.timeout().and_then(|s| Instant::now().checked_add(Duration::from_secs(s)))
    }

    /// Why the drain was told to stop, if it was: the server shutting down leaves it interrupted (resumable), and
    /// a person's Cancel leaves it cancelled.
    pub(super) fn stop_reason(&self) -> Option<DrainState> {
        if self.tasks.is_shutting_down() || self.lost_lease.load(std::sync::atomic::Ordering::Relaxed) {
            Some(DrainState::Interrupted)
        } else if self.cancel.is_cancelled() {
            Some(DrainState::Cancelled)
        } else {
            None
        }
    }

    /// How a pod fails when the drain's timeout passes.
    pub(super) fn timed_out(&self) -> Failure {
        Failure::TimedOut { seconds: self.options.timeout_seconds.unwrap_or_default() }
    }

    pub(super) fn set_state(&self, state: DrainState) {
        self.progress.send_modify(|p| p.state = state);
    }

    pub(super) fn pod_state(&self, uid: &str) -> Option<PodState> {
        self.progress.borrow().pods.iter().find(|p| p.uid == uid).map(|p| p.state.clone())
    }

    pub(super) fn set_pod(&self, uid: &str, state: PodState) {
        let now = Timestamp::now();
        self.progress.send_if_modified(|p| {
            let Some(pod) = p.pods.iter_mut().find(|p| p.uid == uid) else {
                return false;
            };
            if pod.state == state {
                return false;
            }
            if pod.started_at.is_none() {
                pod.started_at = Some(now);
            }
            if matches!(state, PodState::Terminating { .. }) && pod.evicted_at.is_none() {
                pod.evicted_at = Some(now);
            }
            if state.is_final() {
                pod.finished_at = Some(now);
            }
            pod.state = state;
            true
        });
    }

    /// Writes the drain's record on the Node. Dry runs change nothing, so they write nothing. A failed write is
    /// logged, not fatal: the drain itself is what matters, and its progress stays visible here.
    async fn record(&self) {
        let last = self.written.lock().clone();
        let now = super::record::record(&self.client, &self.node, &self.progress, last).await;
        *self.written.lock() = now;
        self.publish().await;
    }

    /// Publishes the drain's lifecycle conditions for its state now (`domain::lifecycle::for_drain`): at each of
    /// the record's writes, so the two say the same. Dry runs publish nothing.
    async fn publish(&self) {
        let Some(publisher) = &self.lifecycle else { return };
        if !self.cordoned.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let wanted = {
            let p = self.progress.borrow();
            if p.options.dry_run != DryRun::None {
                return;
            }
            domain::lifecycle::for_drain(&p.state, &p.started_by, &p.id, p.reason.as_deref())
        };
        let Some(wanted) = wanted else { return };
        if self.published.lock().as_ref() == Some(&wanted) {
            return;
        }
        let landed = publisher.publish(&self.node, &wanted, &domain::lifecycle::Kind::DRAIN).await;
        *self.published.lock() = landed.then_some(wanted);
    }
}
