//! How a drain takes its pods off the node: an eviction per pod, retried while the API server says "not now"
//! ([`super::evict::classify`] says which answers do), or kubectl's `--disable-eviction` DELETEs one after another;
//! then the wait until each is gone. A room of its own, beside the task's phases in [`super::task`].

use std::time::Duration;

use domain::{
    PodRef, PodSummary,
    blocker::{Blocker, MAX_NAMES},
    budget::PdbStatus,
    failure::Failure,
    progress::PodState,
};
use futures::future::join_all;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Pod;
use kube::Api;
use tokio::time::Instant;

use super::{
    evict::{self, Answer, EVICT_RETRY_DELAY, MAX_TROUBLES, trouble_backoff},
    ops,
    presence::Presence,
    task::Drain,
};
use crate::kube_error;

/// Where one pod's eviction stands between tries.
struct Attempt {
    /// The pod as last read: its budgets and deletion are judged on this.
    current: PodSummary,
    /// Answers in a row that say nothing about the pod: the API server unreachable, restarting (5xx with a
    /// Retry-After), or a 404 for a pod that is still there.
    troubles: u32,
    /// The budget that refused the last eviction, to watch while waiting to retry.
    budget: Option<(String, PdbStatus)>,
    /// Whether the next eviction is a retry (the first is not).
    retry: bool,
}

/// What an answer that was not a yes leads to.
enum Next {
    /// Try again after this wait.
    Retry(Duration),
    /// The pod is on its way out all the same (its namespace is deleting it): wait for it to go.
    Going,
    /// The pod's eviction ends here, in this state.
    Ends(PodState),
}

/// The pod read again before a retry.
enum Reread {
    /// Gone, or replaced by another pod of the same name.
    Gone,
    Now(Box<PodSummary>),
    /// The read failed: the retry goes on with the pod as last seen.
    Unknown,
}

impl Drain {
    /// Evicts one pod, retrying while the API says "not now" ([`evict::classify`] says which answers do, and
    /// [`Self::after_refusal`] what each leads to), then waits until it is gone.
    pub(super) async fn evict_one(&self, pod: &PodSummary, deadline: Option<Instant>, presence: Option<&Presence>) {
        let uid = pod.uid.as_str();
        // Checked before every eviction: once a Cancel is acknowledged, nothing more is evicted.
        if self.cancel.is_cancelled() {
            return;
        }
        self.set_pod(uid, PodState::Evicting);
        let mut attempt = Attempt { current: pod.clone(), troubles: 0, budget: None, retry: false };
        loop {
            if self.cancel.is_cancelled() {
                return;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return self.set_pod(uid, PodState::Failed(self.timed_out()));
            }
            let answer = {
                let _slot = self.in_flight.acquire().await;
                self.pacer.ready().await;
                let retry = std::mem::replace(&mut attempt.retry, true);
                ops::evict(&self.client, &pod.namespace, &pod.name, &self.options, retry).await
            };
            let Err(err) = answer else { break };
            let wait = match self.after_refusal(&mut attempt, &err).await {
                Next::Retry(wait) => wait,
                Next::Going => break,
                Next::Ends(state) => return self.set_pod(uid, state),
            };
            if !self.pause_for_budget(wait, deadline, attempt.budget.take()).await {
                return self.stopped(uid, deadline);
            }
            match self.read_again(pod).await {
                Reread::Gone => return self.set_pod(uid, PodState::Gone),
                Reread::Now(fresh) => attempt.current = *fresh,
                Reread::Unknown => {}
            }
            self.set_pod(uid, PodState::Evicting);
        }
        match presence {
            None => self.set_pod(uid, PodState::DryRunAccepted),
            Some(presence) => self.wait_gone(uid, deadline, presence).await,
        }
    }

    /// What the API server's refusal `err` of the eviction leads to, by its class ([`evict::classify`]); records
    /// why a pod is held while it waits.
    async fn after_refusal(&self, attempt: &mut Attempt, err: &kube::Error) -> Next {
        let current = &attempt.current;
        let uid = current.uid.as_str();
        match evict::classify(err) {
            Answer::Gone(answer) => {
                attempt.troubles += 1;
                if attempt.troubles > MAX_TROUBLES {
                    return Next::Ends(PodState::Failed(Failure::NotFoundYetPresent { tries: MAX_TROUBLES, answer }));
                }
                Next::Retry(trouble_backoff(attempt.troubles))
            }
            Answer::Blocked { message, wait, asked } => {
                attempt.troubles = 0;
                let (pdb, blockers) = self.budget_refused(current).await;
                if !asked {
                    attempt.budget = pdb.clone().map(|pdb| (current.namespace.clone(), pdb));
                }
                self.set_pod(uid, PodState::Blocked { pdb, message, retry_at: Timestamp::now() + wait, blockers });
                Next::Retry(wait)
            }
            Answer::Throttled { message, wait } => {
                attempt.troubles = 0;
                tracing::debug!(pod = %current.key(), %message, "eviction throttled; backing off");
                Next::Retry(wait)
            }
            Answer::NamespaceTerminating { .. } if current.deletion_timestamp.is_some() => Next::Going,
            Answer::NamespaceTerminating { message } => {
                attempt.troubles = 0;
                let retry_at = Timestamp::now() + EVICT_RETRY_DELAY;
                let blockers = vec![Blocker::NamespaceTerminating { namespace: current.namespace.clone() }];
                self.set_pod(uid, PodState::Blocked { pdb: None, message, retry_at, blockers });
                Next::Retry(EVICT_RETRY_DELAY)
            }
            Answer::RetryLater { answer, wait } => {
                attempt.troubles += 1;
                if attempt.troubles > MAX_TROUBLES {
                    return Next::Ends(PodState::Failed(Failure::Unavailable { tries: MAX_TROUBLES, answer }));
                }
                tracing::info!(pod = %current.key(), code = ?answer.code, message = %answer.message, "eviction not answered, or asked to retry; backing off");
                Next::Retry(wait.unwrap_or_else(|| trouble_backoff(attempt.troubles)))
            }
            Answer::Denied { webhook, message } => {
                let configuration = super::facts::webhook_configuration(&self.client, &webhook).await;
                Next::Ends(PodState::Failed(Failure::WebhookDenied { webhook, configuration, message }))
            }
            Answer::Failed(Failure::Api(answer)) if answer.code == Some(500) => {
                // The API server's 500 for a pod under more than one budget: named, when the budgets say so.
                let budgets = self.budgets(current).await;
                let covering = domain::budget::covering_all(&budgets, &current.namespace, &current.labels);
                let failure = if covering.len() > 1 {
                    let budgets = covering.iter().take(MAX_NAMES).map(|b| b.status.name.clone()).collect();
                    Failure::TwoBudgets { budgets, answer }
                } else {
                    Failure::Api(answer)
                };
                Next::Ends(PodState::Failed(failure))
            }
            Answer::Failed(failure) => Next::Ends(PodState::Failed(failure)),
        }
    }

    /// The pod as it is now, before a retry: gone, replaced, or starting to terminate.
    async fn read_again(&self, pod: &PodSummary) -> Reread {
        let pods: Api<Pod> = Api::namespaced(self.client.clone(), &pod.namespace);
        self.pacer.ready().await;
        match pods.get_opt(&pod.name).await {
            Ok(None) => Reread::Gone,
            Ok(Some(fresh)) if fresh.metadata.uid.as_deref() != Some(pod.uid.as_str()) => Reread::Gone,
            Ok(Some(fresh)) => Reread::Now(Box::new(PodSummary::from(&fresh))),
            Err(_) => Reread::Unknown,
        }
    }

    /// The disable-eviction path: DELETE each pod in turn (stopping at the first error), then wait for every pod
    /// deleted. As in kubectl, the timeout counts from after the last DELETE; the deadline it set is returned.
    pub(super) async fn delete_all(&self, targets: &[PodSummary], presence: Option<&Presence>) -> Option<Instant> {
        for pod in targets {
            if self.cancel.is_cancelled() {
                return None;
            }
            self.set_pod(&pod.uid, PodState::Evicting);
            self.pacer.ready().await;
            match ops::delete(&self.client, &pod.namespace, &pod.name, &self.options).await {
                Ok(()) => {}
                Err(e) if crate::kube_error::not_found(&e) => self.set_pod(&pod.uid, PodState::Gone),
                Err(err) => {
                    let why = if kube_error::unauthorized(&err) {
                        Failure::CredentialsExpired
                    } else {
                        Failure::Api(kube_error::answer(&err))
                    };
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
}
