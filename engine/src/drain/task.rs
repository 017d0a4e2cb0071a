//! One drain, run as a server task: cordon, plan, evict every pod in parallel, wait until each is gone.

use std::{collections::HashMap, time::Duration};

use domain::{
    PodSummary,
    drain::{DrainOptions, DryRun},
    progress::{CordonRecord, DrainProgress, DrainRecord, DrainState, PodProgress, PodState},
};
use futures::{StreamExt, future::join_all};
use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::{
    Api, Client,
    api::{Patch, PatchParams},
    core::Status,
    runtime::{WatchStreamExt, watcher},
};
use tokio::{sync::watch, time::Instant};
use tokio_util::sync::CancellationToken;

use super::{
    ops::{self, EVICT_RETRY_DELAY, api_message},
    pace::Pacer,
};
use crate::tasks::Tasks;

/// A phase of a drain, for [`TestHooks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Cordoning,
    Planning,
    Evicting,
}

/// Faults a test can ask a drain for: a pause at the start of a phase, so that a Cancel can land there, and a panic,
/// so that supervision can be seen to work. Off unless set; the server binary reads them only in debug builds.
#[derive(Clone, Debug, Default)]
pub struct TestHooks {
    pub pause: Option<(Phase, Duration)>,
    pub panic: Option<Phase>,
}

impl TestHooks {
    /// Reads `pause:PHASE:SECONDS` and `panic:PHASE`, comma-separated (e.g. `pause:planning:3,panic:evicting`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let phase = |name: &str| match name {
            "cordoning" => Ok(Phase::Cordoning),
            "planning" => Ok(Phase::Planning),
            "evicting" => Ok(Phase::Evicting),
            other => Err(format!("unknown phase {other:?}")),
        };
        let mut hooks = TestHooks::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split(':').collect::<Vec<_>>().as_slice() {
                ["pause", name, seconds] => {
                    let seconds: u64 = seconds.parse().map_err(|_| format!("bad seconds in {part:?}"))?;
                    hooks.pause = Some((phase(name)?, Duration::from_secs(seconds)));
                }
                ["panic", name] => hooks.panic = Some(phase(name)?),
                _ => return Err(format!("unknown hook {part:?}")),
            }
        }
        Ok(hooks)
    }
}

pub use domain::progress::RECORD_ANNOTATION;

pub(super) struct Drain {
    pub client: Client,
    pub node: String,
    pub options: DrainOptions,
    pub progress: watch::Sender<DrainProgress>,
    /// Cancelled by a person's Cancel, or by the server's shutdown (see [`Drain::stop_reason`]).
    pub cancel: CancellationToken,
    pub tasks: Tasks,
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
    /// The node's Lease, renewed while the drain runs (real drains, when Leases are kept).
    pub lease: Option<crate::lease::Leases>,
    /// Set when the Lease could not be renewed in time: the drain stops as interrupted, since another server may
    /// take the node over once the Lease expires.
    pub lost_lease: std::sync::Arc<std::sync::atomic::AtomicBool>,
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
                let mut entry = domain::audit::AuditEntry::new(
                    &p.started_by,
                    domain::audit::AuditAction::DrainEnded,
                    &p.node,
                    jiff::Timestamp::now(),
                );
                entry.outcome = Some(p.state.outcome_text());
                crate::metrics::METRICS.drain_ended(p.state.label());
                entry.ended = Some(p.state.clone());
                entry.reason = p.reason.clone();
                entry.drain_id = Some(p.id.clone());
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
        if let Err(err) = ops::set_unschedulable(&self.client, &self.node, true, dry_run, Some(&record)).await {
            if unauthorized(&err) {
                return DrainState::Failed(EXPIRED.into());
            }
            return DrainState::Failed(format!("could not cordon {}: {}", self.node, api_message(&err)));
        }
        self.record().await;

        self.set_state(DrainState::Planning);
        self.hook(Phase::Planning).await;
        let listed = match ops::list_node_pods(&self.client, &self.node, self.options.pod_selector.as_deref()).await {
            Ok(pods) => pods,
            Err(err) if unauthorized(&err) => return DrainState::Failed(EXPIRED.into()),
            Err(err) => {
                return DrainState::Failed(format!("could not list the pods of {}: {}", self.node, api_message(&err)));
            }
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
        if self.options.disable_eviction {
            let deadline = self.delete_all(&targets, presence.as_ref()).await;
            self.outcome(deadline)
        } else {
            let deadline = self.deadline();
            join_all(targets.iter().map(|pod| self.evict_one(pod, deadline, presence.as_ref()))).await;
            self.outcome(deadline)
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
        if progress.pods.iter().any(|p| p.state == PodState::Failed(EXPIRED.into())) {
            // The node stays cordoned; whoever signs in again may resume.
            return DrainState::Failed(EXPIRED.into());
        }
        let failed = progress.pods.iter().filter(|p| matches!(p.state, PodState::Failed(_))).count();
        DrainState::Failed(format!("{failed} of {} pods could not be evicted", progress.pods.len()))
    }

    /// Evicts one pod, retrying while the API says "not now", then waits until it is gone.
    async fn evict_one(&self, pod: &PodSummary, deadline: Option<Instant>, presence: Option<&Presence>) {
        let uid = pod.uid.as_str();
        // Checked before every eviction: once a Cancel is acknowledged, nothing more is evicted.
        if self.cancel.is_cancelled() {
            return;
        }
        self.set_pod(uid, PodState::Evicting);
        let mut current = pod.clone();
        // Answers in a row that say nothing about the pod: the API server unreachable, restarting (5xx with a
        // Retry-After), or a 404 for a pod that is still there.
        let mut troubles = 0u32;
        // The budget that refused the last eviction, to watch while waiting to retry.
        let mut budget = None;
        let mut retry = false;
        loop {
            if self.cancel.is_cancelled() {
                return;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return self.set_pod(uid, PodState::Failed(self.timeout_message()));
            }
            let answer = {
                let _slot = self.in_flight.acquire().await;
                self.pacer.ready().await;
                ops::evict(&self.client, &pod.namespace, &pod.name, &self.options, std::mem::replace(&mut retry, true))
                    .await
            };
            let wait = match answer {
                Ok(()) => break,
                Err(kube::Error::Api(status)) if status.code == 404 => {
                    // kubectl takes a 404 as the pod gone. Here the re-read below confirms it first: a proxy or an
                    // API server in trouble can say it of a pod that is still there, and "gone" must be true.
                    troubles += 1;
                    if troubles > MAX_TROUBLES {
                        let why =
                            format!("the API server keeps answering 404 for a pod that exists: {}", status.message);
                        return self.set_pod(uid, PodState::Failed(why));
                    }
                    trouble_backoff(troubles)
                }
                Err(kube::Error::Api(status)) if status.code == 429 && budget_refusal(&status) => {
                    // A PDB allows no disruption (retry within 5 s, as kubectl, and as soon as the watched budget
                    // allows one again), or is still being processed (the API names a Retry-After, which
                    // client-go honours).
                    troubles = 0;
                    let asked = ops::retry_after(&status);
                    let wait = asked.unwrap_or(EVICT_RETRY_DELAY);
                    let pdb = self.covering_pdb(&current).await;
                    if asked.is_none() {
                        budget = pdb.clone().map(|pdb| (current.namespace.clone(), pdb));
                    }
                    let retry_at = Timestamp::now() + wait;
                    self.set_pod(uid, PodState::Blocked { pdb, message: status.message.clone(), retry_at });
                    wait
                }
                Err(kube::Error::Api(status)) if status.code == 429 => {
                    // The API server's own throttling, not a budget: back off as long as it asks, without calling
                    // the pod blocked.
                    troubles = 0;
                    tracing::debug!(pod = %domain::PodRef::key(&current), message = %status.message, "eviction throttled; backing off");
                    ops::retry_after(&status).unwrap_or(EVICT_RETRY_DELAY)
                }
                Err(kube::Error::Api(status)) if status.code == 403 && namespace_terminating(&status) => {
                    if current.deletion_timestamp.is_some() {
                        break;
                    }
                    troubles = 0;
                    let retry_at = Timestamp::now() + EVICT_RETRY_DELAY;
                    self.set_pod(uid, PodState::Blocked { pdb: None, message: status.message.clone(), retry_at });
                    EVICT_RETRY_DELAY
                }
                Err(kube::Error::Api(status)) if status.code >= 500 && ops::retry_after(&status).is_some() => {
                    // A server shutting down (or overloaded) names when to come back; client-go retries such
                    // answers, so kubectl rides them out, and so does a drain, a bounded number of times.
                    troubles += 1;
                    if troubles > MAX_TROUBLES {
                        return self.set_pod(uid, PodState::Failed(status.message.clone()));
                    }
                    tracing::info!(pod = %domain::PodRef::key(&current), code = status.code, message = %status.message, "eviction answered with a retry; backing off");
                    ops::retry_after(&status).unwrap_or(EVICT_RETRY_DELAY)
                }
                Err(err) if unreachable(&err) => {
                    // No answer at all (refused, reset, timed out): the eviction may not have been received, and
                    // sending it again is safe. kubectl fails the pod here; a restarting API server should not.
                    troubles += 1;
                    if troubles > MAX_TROUBLES {
                        let why =
                            format!("could not reach the API server ({MAX_TROUBLES} tries): {}", api_message(&err));
                        return self.set_pod(uid, PodState::Failed(why));
                    }
                    tracing::info!(pod = %domain::PodRef::key(&current), error = %api_message(&err), "API server unreachable; retrying the eviction");
                    trouble_backoff(troubles)
                }
                Err(err) if unauthorized(&err) => {
                    // The person's credentials expired or were revoked: nothing more can be done as them.
                    return self.set_pod(uid, PodState::Failed(EXPIRED.into()));
                }
                Err(err) => return self.set_pod(uid, PodState::Failed(api_message(&err))),
            };
            if !self.pause_for_budget(wait, deadline, budget.take()).await {
                return self.stopped(uid, deadline);
            }
            // Retry with the pod as it is now: gone, replaced, or starting to terminate.
            let pods: Api<Pod> = Api::namespaced(self.client.clone(), &pod.namespace);
            self.pacer.ready().await;
            match pods.get_opt(&pod.name).await {
                Ok(None) => return self.set_pod(uid, PodState::Gone),
                Ok(Some(fresh)) if fresh.metadata.uid.as_deref() != Some(uid) => {
                    return self.set_pod(uid, PodState::Gone);
                }
                Ok(Some(fresh)) => current = PodSummary::from(&fresh),
                Err(_) => {}
            }
            self.set_pod(uid, PodState::Evicting);
        }
        match presence {
            None => self.set_pod(uid, PodState::DryRunAccepted),
            Some(presence) => self.wait_gone(uid, deadline, presence).await,
        }
    }

    /// The disable-eviction path: DELETE each pod in turn (stopping at the first error), then wait for every pod
    /// deleted. As in kubectl, the timeout counts from after the last DELETE; the deadline it set is returned.
    async fn delete_all(&self, targets: &[PodSummary], presence: Option<&Presence>) -> Option<Instant> {
        for pod in targets {
            if self.cancel.is_cancelled() {
                return None;
            }
            self.set_pod(&pod.uid, PodState::Evicting);
            self.pacer.ready().await;
            match ops::delete(&self.client, &pod.namespace, &pod.name, &self.options).await {
                Ok(()) => {}
                Err(kube::Error::Api(status)) if status.code == 404 => self.set_pod(&pod.uid, PodState::Gone),
                Err(err) => {
                    let why = if unauthorized(&err) { EXPIRED.to_owned() } else { api_message(&err) };
                    // As kubectl, no more DELETEs after a refusal; unlike kubectl, the pods already deleted are
                    // still followed below, so that each ends in its true state rather than mid-request.
                    self.set_pod(&pod.uid, PodState::Failed(why));
                    break;
                }
            }
        }
        let deadline = self.deadline();
        let waits = targets.iter().filter(|p| self.pod_state(&p.uid) == Some(PodState::Evicting)).map(|pod| async {
            match presence {
                None => self.set_pod(&pod.uid, PodState::DryRunAccepted),
                Some(presence) => self.wait_gone(&pod.uid, deadline, presence).await,
            }
        });
        join_all(waits).await;
        deadline
    }

    /// The drain's deadline, counted from now. A timeout past what the clock can hold is no timeout at all.
    fn deadline(&self) -> Option<Instant> {
        self.options.timeout().and_then(|s| Instant::now().checked_add(Duration::from_secs(s)))
    }

    async fn wait_gone(&self, uid: &str, deadline: Option<Instant>, presence: &Presence) {
        self.set_pod(uid, PodState::Terminating { deletion_deadline: None });
        let mut rx = presence.rx.clone();
        let mut shown = None;
        loop {
            let (gone, deletion, lost) = {
                let pods = rx.borrow_and_update();
                (
                    pods.synced && !pods.present.contains_key(uid),
                    pods.present.get(uid).copied().flatten(),
                    pods.lost.clone(),
                )
            };
            if gone {
                return self.set_pod(uid, PodState::Gone);
            }
            if let Some(lost) = lost {
                return self.set_pod(uid, PodState::Failed(lost));
            }
            // kubectl's --skip-wait-for-delete-timeout: stop waiting for a pod deleting for longer than that.
            let give_up_at = deletion
                .zip(self.options.skip_wait_for_delete_timeout_seconds.filter(|n| *n > 0))
                .and_then(|(deleted, limit)| {
                    let limit = i64::try_from(limit).ok()?.checked_add(1)?;
                    deleted.checked_add(jiff::SignedDuration::from_secs(limit)).ok()
                });
            if give_up_at.is_some_and(|at| Timestamp::now() >= at) {
                return self.set_pod(uid, PodState::NoLongerWaited);
            }
            if deletion.is_some() && deletion != shown {
                shown = deletion;
                self.set_pod(uid, PodState::Terminating { deletion_deadline: deletion });
            }
            tokio::select! {
                changed = rx.changed() => if changed.is_err() {
                    return self.set_pod(uid, PodState::Failed("lost the watch on the node's pods".into()));
                },
                () = self.cancel.cancelled() => return,
                () = sleep_until(deadline) => return self.set_pod(uid, PodState::Failed(self.timeout_message())),
                () = sleep_until(give_up_at.map(to_instant)) => {},
            }
        }
    }

    /// Sleeps before retrying an eviction that `budget` (its namespace, and its status when it refused) held up:
    /// at most `wait`, and less once the cache sees the budget change and allow a disruption, which is when a
    /// replacement pod became ready. kubectl waits the whole 5 s every time; a rollout of many nodes under tight
    /// budgets spends most of its time in those waits. False when the drain was cancelled or ran out of time.
    async fn pause_for_budget(
        &self,
        wait: Duration,
        deadline: Option<Instant>,
        budget: Option<(String, domain::budget::PdbStatus)>,
    ) -> bool {
        let (Some(cache), Some((namespace, seen))) = (&self.cache, budget) else {
            return self.pause(wait, deadline).await;
        };
        let until = Instant::now() + wait;
        let mut changes = cache.changes();
        let mut budgets_seen = cache.pdb_changes();
        loop {
            tokio::select! {
                changed = changes.changed() => {
                    if changed.is_err() {
                        return self.pause(until.saturating_duration_since(Instant::now()), deadline).await;
                    }
                    // Most changes are Lease renewals: the budget is looked up only when some budget changed.
                    let budgets_now = cache.pdb_changes();
                    if budgets_now != budgets_seen {
                        budgets_seen = budgets_now;
                        if cache.pdb_status(&namespace, &seen.name).is_some_and(|now| now != seen && now.disruptions_allowed > 0) {
                            return true;
                        }
                    }
                }
                () = tokio::time::sleep_until(until) => return true,
                () = self.cancel.cancelled() => return false,
                () = sleep_until(deadline) => return false,
            }
        }
    }

    /// Sleeps before a retry. False when the drain was cancelled or ran out of time meanwhile.
    async fn pause(&self, wait: Duration, deadline: Option<Instant>) -> bool {
        tokio::select! {
            () = tokio::time::sleep(wait) => true,
            () = self.cancel.cancelled() => false,
            () = sleep_until(deadline) => false,
        }
    }

    fn stopped(&self, uid: &str, deadline: Option<Instant>) {
        if !self.cancel.is_cancelled() && deadline.is_some_and(|d| Instant::now() >= d) {
            self.set_pod(uid, PodState::Failed(self.timeout_message()));
        }
    }

    /// The budget that covers `pod` now: from the cache when the drain has one, else listed from the API.
    async fn covering_pdb(&self, pod: &PodSummary) -> Option<domain::budget::PdbStatus> {
        match &self.cache {
            Some(cache) => {
                let budgets = cache.pdbs_in(&std::iter::once(pod.namespace.clone()).collect());
                domain::budget::covering_pdb(&budgets, &pod.namespace, &pod.labels).map(|b| b.status.clone())
            }
            None => ops::covering_pdb(&self.client, pod).await.ok().flatten(),
        }
    }

    /// The test hooks of `phase`: a pause (cut short by a Cancel), or a panic.
    async fn hook(&self, phase: Phase) {
        if let Some((_, pause)) = self.hooks.pause.filter(|(at, _)| *at == phase) {
            tokio::select! {
                () = tokio::time::sleep(pause) => {}
                () = self.cancel.cancelled() => {}
            }
        }
        if self.hooks.panic == Some(phase) {
            panic!("test hook: panic while {phase:?}");
        }
    }

    /// Why the drain was told to stop, if it was: the server shutting down leaves it interrupted (resumable), and
    /// a person's Cancel leaves it cancelled.
    fn stop_reason(&self) -> Option<DrainState> {
        if self.tasks.is_shutting_down() || self.lost_lease.load(std::sync::atomic::Ordering::Relaxed) {
            Some(DrainState::Interrupted)
        } else if self.cancel.is_cancelled() {
            Some(DrainState::Cancelled)
        } else {
            None
        }
    }

    fn timeout_message(&self) -> String {
        format!("timed out after {} s", self.options.timeout_seconds.unwrap_or_default())
    }

    fn set_state(&self, state: DrainState) {
        self.progress.send_modify(|p| p.state = state);
    }

    fn pod_state(&self, uid: &str) -> Option<PodState> {
        self.progress.borrow().pods.iter().find(|p| p.uid == uid).map(|p| p.state.clone())
    }

    fn set_pod(&self, uid: &str, state: PodState) {
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
        record(&self.client, &self.node, &self.progress).await;
    }
}

/// A task that ends with its owner.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Renews the node's Lease every [`crate::lease::RENEW_EVERY`] until aborted. When no renewal has succeeded for
/// [`crate::lease::GIVE_UP_AFTER`], or another server holds the Lease now, the drain is stopped (and ends
/// interrupted, resumable): evicting on would race the server that may take the node over.
async fn renew(
    leases: crate::lease::Leases,
    node: String,
    progress: watch::Receiver<DrainProgress>,
    cancel: CancellationToken,
    lost: std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    let mut last_renewed = Instant::now();
    // The first renewal at once, so that other servers show the drain from its start.
    let mut first = true;
    loop {
        if !std::mem::take(&mut first) {
            tokio::time::sleep(crate::lease::RENEW_EVERY).await;
        }
        // Every other server shows the drain from this: its progress, at most one renewal behind.
        let summary = domain::progress::DrainSummary::from(&*progress.borrow());
        // The deadline holds whatever the call does: an answer that asks to retry after a minute, or one that never
        // comes, must not keep this drain evicting past it.
        let left = crate::lease::GIVE_UP_AFTER.saturating_sub(last_renewed.elapsed());
        let Ok(renewed) = tokio::time::timeout(left, leases.renew(&node, Some(&summary))).await else {
            tracing::error!(%node, "the node's Lease could not be renewed in time; stopping this drain");
            break;
        };
        match renewed {
            Ok(true) => last_renewed = Instant::now(),
            Ok(false) => {
                tracing::error!(%node, "another server holds the node's Lease now; stopping this drain");
                break;
            }
            Err(err) => {
                tracing::warn!(%node, error = %api_message(&err), "could not renew the node's Lease");
                if last_renewed.elapsed() >= crate::lease::GIVE_UP_AFTER {
                    tracing::error!(%node, "the node's Lease could not be renewed in time; stopping this drain");
                    break;
                }
            }
        }
    }
    lost.store(true, std::sync::atomic::Ordering::Relaxed);
    cancel.cancel();
}

/// Writes the drain's record on the Node. Dry runs change nothing, so they write nothing. A failed write is
/// logged, not fatal: the drain itself is what matters, and its progress stays visible here.
pub(super) async fn record(client: &Client, node: &str, progress: &watch::Sender<DrainProgress>) {
    let record = {
        let progress = progress.borrow();
        if progress.options.dry_run != DryRun::None {
            return;
        }
        DrainRecord::from(&*progress)
    };
    let Ok(value) = serde_json::to_string(&record) else {
        return;
    };
    let nodes: Api<Node> = Api::all(client.clone());
    let patch = serde_json::json!({"metadata": {"annotations": {RECORD_ANNOTATION: value}}});
    if let Err(err) = nodes.patch(node, &PatchParams::default(), &Patch::Merge(patch)).await {
        tracing::warn!(%node, error = %api_message(&err), "could not record the drain on the node");
    }
}

/// Ends a drain whose task failed outright (a panic): Failed with the reason, on the progress and on the node,
/// so that nobody waits on it and the node can be drained again.
pub(super) async fn fail(client: &Client, node: &str, progress: &watch::Sender<DrainProgress>, why: String) {
    progress.send_modify(|p| {
        p.state = DrainState::Failed(why);
        p.finished_at = Some(Timestamp::now());
    });
    record(client, node, progress).await;
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// The monotonic instant of a wall-clock time (now, if it has passed).
fn to_instant(at: Timestamp) -> Instant {
    let ahead = at.duration_since(Timestamp::now());
    Instant::now() + Duration::try_from(ahead).unwrap_or_default()
}

/// How many answers in a row that say nothing about the pod (no answer at all, a 5xx naming a Retry-After, a 404
/// for a pod that exists) an eviction rides out before it fails: client-go retries such answers 10 times.
const MAX_TROUBLES: u32 = 12;

/// The pause after the `n`th such answer in a row (from 1): 1, 2, 4, then 5 s, so that the tries span about a
/// minute, about as long as an API server takes to restart.
fn trouble_backoff(n: u32) -> Duration {
    Duration::from_secs(1u64.checked_shl(n.saturating_sub(1)).unwrap_or(u64::MAX).min(5))
}

/// What a drain says when the API server stops accepting its person's credentials (401).
pub const EXPIRED: &str = "credentials expired (or were revoked): sign in again, then resume the drain";

fn unauthorized(err: &kube::Error) -> bool {
    matches!(err, kube::Error::Api(status) if status.code == 401)
}

/// Whether an error is no answer at all: the connection failed, was reset, or timed out.
fn unreachable(err: &kube::Error) -> bool {
    matches!(err, kube::Error::HyperError(_) | kube::Error::Service(_))
}

/// Whether a 429 is the budget check's: the eviction subresource names a `DisruptionBudget` cause. Any other 429
/// is the API server's own throttling (priority and fairness, or max-in-flight).
fn budget_refusal(status: &Status) -> bool {
    status.details.as_ref().is_some_and(|d| d.causes.iter().any(|c| c.reason == "DisruptionBudget"))
}

fn namespace_terminating(status: &Status) -> bool {
    status.details.as_ref().is_some_and(|d| d.causes.iter().any(|c| c.reason == "NamespaceTerminating"))
}

/// The pods on a node, kept current by one watch: which UIDs exist, and when each that is deleting goes.
struct Presence {
    rx: watch::Receiver<PresentPods>,
    task: tokio::task::JoinHandle<()>,
}

#[derive(Default)]
struct PresentPods {
    /// The first full list has arrived; before that, absence means nothing.
    synced: bool,
    present: HashMap<String, Option<Timestamp>>,
    /// Why the watch was given up, if it was: the waits end there instead of hanging until the timeout.
    lost: Option<String>,
}

/// The retry pace of the waits' watch: from 200 ms to at most 2 s between tries, reset by any success. People are
/// waiting on it (kube's default, for background caches, grows to 30 s, so a drain noticed pods gone up to 20 s
/// late after an API server restart); one watch per running drain is cheap for the API server.
fn wait_backoff() -> kube::runtime::watcher::ExponentialBackoff {
    backon::ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(200))
        .with_max_delay(Duration::from_secs(2))
        .with_factor(2.0)
        .with_jitter()
        .without_max_times()
        .into()
}

/// How long the watch may fail without a break before the waits give up on it. Long enough for an API server to
/// restart; short enough that nobody waits for ever on a watch that will never work.
const WATCH_GIVE_UP: Duration = Duration::from_secs(120);

/// The API's refusal in a watch error (401 or 403): it will not change by retrying.
fn refusal(err: &watcher::Error) -> Option<String> {
    let status = match err {
        watcher::Error::InitialListFailed(kube::Error::Api(s))
        | watcher::Error::WatchStartFailed(kube::Error::Api(s))
        | watcher::Error::WatchFailed(kube::Error::Api(s)) => s.as_ref(),
        watcher::Error::WatchError(s) => s.as_ref(),
        _ => return None,
    };
    match status.code {
        401 => Some(EXPIRED.to_owned()),
        403 => Some(format!("could not watch the node's pods: {}", status.message)),
        _ => None,
    }
}

impl Presence {
    fn watch(tasks: &Tasks, client: Client, node: &str) -> Self {
        let (tx, rx) = watch::channel(PresentPods::default());
        let pods: Api<Pod> = Api::all(client);
        let config = watcher::Config::default().fields(&format!("spec.nodeName={node}"));
        let node = node.to_string();
        let task = tasks.spawn(async move {
            let mut stream = std::pin::pin!(watcher(pods, config).backoff(wait_backoff()));
            let mut buffer = HashMap::new();
            let entry = |pod: &Pod| {
                (pod.metadata.uid.clone().unwrap_or_default(), pod.metadata.deletion_timestamp.as_ref().map(|t| t.0))
            };
            let mut failing_since: Option<Instant> = None;
            while let Some(event) = stream.next().await {
                if event.is_ok() {
                    failing_since = None;
                }
                match event {
                    Ok(watcher::Event::Init) => buffer.clear(),
                    Ok(watcher::Event::InitApply(pod)) => {
                        let (uid, deletion) = entry(&pod);
                        buffer.insert(uid, deletion);
                    }
                    Ok(watcher::Event::InitDone) => tx.send_modify(|s| {
                        s.present = std::mem::take(&mut buffer);
                        s.synced = true;
                    }),
                    Ok(watcher::Event::Apply(pod)) => {
                        let (uid, deletion) = entry(&pod);
                        tx.send_modify(|s| {
                            s.present.insert(uid, deletion);
                        });
                    }
                    Ok(watcher::Event::Delete(pod)) => {
                        let (uid, _) = entry(&pod);
                        tx.send_modify(|s| {
                            s.present.remove(&uid);
                        });
                    }
                    Err(err) => {
                        let since = *failing_since.get_or_insert_with(Instant::now);
                        let lost = refusal(&err).or_else(|| {
                            (since.elapsed() >= WATCH_GIVE_UP).then(|| {
                                format!("lost the watch on the node's pods for {} s: {err}", WATCH_GIVE_UP.as_secs())
                            })
                        });
                        if let Some(lost) = lost {
                            tracing::warn!(%node, error = %err, "watch of the node's pods given up");
                            tx.send_modify(|s| s.lost = Some(lost));
                            return;
                        }
                        tracing::warn!(%node, error = %err, "watch of the node's pods failed; retrying")
                    }
                }
            }
        });
        Presence { rx, task }
    }
}

impl Drop for Presence {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(json: serde_json::Value) -> Status {
        serde_json::from_value(json).expect("a Status")
    }

    #[test]
    fn budget_429s_are_told_apart_from_throttling() {
        // As the eviction subresource answers for a budget that allows no disruption.
        let budget = status(serde_json::json!({
            "status": "Failure", "code": 429, "reason": "TooManyRequests",
            "message": "Cannot evict pod as it would violate the pod's disruption budget.",
            "details": {"causes": [{"reason": "DisruptionBudget",
                "message": "The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]}
        }));
        // As priority and fairness answers an overloaded server.
        let throttled = status(serde_json::json!({
            "status": "Failure", "code": 429, "reason": "TooManyRequests",
            "message": "Too many requests, please try again later.", "details": {"retryAfterSeconds": 1}
        }));
        assert!(budget_refusal(&budget));
        assert!(!budget_refusal(&throttled));
        assert_eq!(ops::retry_after(&throttled), Some(Duration::from_secs(1)));
    }

    #[test]
    fn troubles_back_off_to_five_seconds_and_span_about_a_minute() {
        let pauses: Vec<u64> = (1..=MAX_TROUBLES).map(|n| trouble_backoff(n).as_secs()).collect();
        assert_eq!(&pauses[..4], &[1, 2, 4, 5]);
        let total: u64 = pauses.iter().sum();
        assert!((45..=75).contains(&total), "{total} s");
        assert_eq!(trouble_backoff(0), Duration::from_secs(1));
        assert_eq!(trouble_backoff(u32::MAX), Duration::from_secs(5), "no overflow");
    }

    #[test]
    fn a_watch_is_given_up_only_on_a_refusal() {
        let forbidden =
            kube::Error::Api(Box::new(status(serde_json::json!({"code": 403, "message": "pods is forbidden"}))));
        assert_eq!(
            refusal(&watcher::Error::InitialListFailed(forbidden)).as_deref(),
            Some("could not watch the node's pods: pods is forbidden")
        );
        let expired = kube::Error::Api(Box::new(status(serde_json::json!({"code": 401, "message": "Unauthorized"}))));
        assert_eq!(refusal(&watcher::Error::WatchStartFailed(expired)).as_deref(), Some(EXPIRED));
        let gone = status(serde_json::json!({"code": 410, "message": "too old resource version"}));
        assert_eq!(refusal(&watcher::Error::WatchError(Box::new(gone))), None, "a desync is not a refusal");
        let down = status(serde_json::json!({"code": 500, "message": "etcd unavailable"}));
        assert_eq!(refusal(&watcher::Error::WatchError(Box::new(down))), None);
    }
}
