//! How a drain takes its pods off the node: an eviction per pod, retried while the API server says "not now"
//! ([`super::evict::classify`] says which answers do), or kubectl's `--disable-eviction` DELETEs one after another;
//! then the wait until each is gone. A room of its own, beside the task's phases in [`super::task`].

use domain::{
    PodSummary,
    blocker::{Blocker, MAX_NAMES},
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

impl Drain {
    /// Evicts one pod, retrying while the API says "not now" ([`evict::classify`] says which answers do), then
    /// waits until it is gone.
    pub(super) async fn evict_one(&self, pod: &PodSummary, deadline: Option<Instant>, presence: Option<&Presence>) {
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
                return self.set_pod(uid, PodState::Failed(self.timed_out()));
            }
            let answer = {
                let _slot = self.in_flight.acquire().await;
                self.pacer.ready().await;
                ops::evict(&self.client, &pod.namespace, &pod.name, &self.options, std::mem::replace(&mut retry, true))
                    .await
            };
            let Err(err) = answer else { break };
            let key = domain::PodRef::key(&current);
            let wait = match evict::classify(&err) {
                Answer::Gone(answer) => {
                    troubles += 1;
                    if troubles > MAX_TROUBLES {
                        let failure = Failure::NotFoundYetPresent { tries: MAX_TROUBLES, answer };
                        return self.set_pod(uid, PodState::Failed(failure));
                    }
                    trouble_backoff(troubles)
                }
                Answer::Blocked { message, wait, asked } => {
                    troubles = 0;
                    let (pdb, blockers) = self.budget_refused(&current).await;
                    if !asked {
                        budget = pdb.clone().map(|pdb| (current.namespace.clone(), pdb));
                    }
                    self.set_pod(uid, PodState::Blocked { pdb, message, retry_at: Timestamp::now() + wait, blockers });
                    wait
                }
                Answer::Throttled { message, wait } => {
                    troubles = 0;
                    tracing::debug!(pod = %key, %message, "eviction throttled; backing off");
                    wait
                }
                Answer::NamespaceTerminating { message } => {
                    if current.deletion_timestamp.is_some() {
                        break;
                    }
                    troubles = 0;
                    let retry_at = Timestamp::now() + EVICT_RETRY_DELAY;
                    let blockers = vec![Blocker::NamespaceTerminating { namespace: current.namespace.clone() }];
                    self.set_pod(uid, PodState::Blocked { pdb: None, message, retry_at, blockers });
                    EVICT_RETRY_DELAY
                }
                Answer::RetryLater { answer, wait } => {
                    troubles += 1;
                    if troubles > MAX_TROUBLES {
                        let failure = Failure::Unavailable { tries: MAX_TROUBLES, answer };
                        return self.set_pod(uid, PodState::Failed(failure));
                    }
                    tracing::info!(pod = %key, code = ?answer.code, message = %answer.message, "eviction not answered, or asked to retry; backing off");
                    wait.unwrap_or_else(|| trouble_backoff(troubles))
                }
                Answer::Denied { webhook, message } => {
                    let configuration = super::facts::webhook_configuration(&self.client, &webhook).await;
                    let failure = Failure::WebhookDenied { webhook, configuration, message };
                    return self.set_pod(uid, PodState::Failed(failure));
                }
                Answer::Failed(Failure::Api(answer)) if answer.code == Some(500) => {
                    // The API server's 500 for a pod under more than one budget: named, when the budgets say so.
                    let budgets = self.budgets(&current).await;
                    let covering = domain::budget::covering_all(&budgets, &current.namespace, &current.labels);
                    let failure = if covering.len() > 1 {
                        let budgets = covering.iter().take(MAX_NAMES).map(|b| b.status.name.clone()).collect();
                        Failure::TwoBudgets { budgets, answer }
                    } else {
                        Failure::Api(answer)
                    };
                    return self.set_pod(uid, PodState::Failed(failure));
                }
                Answer::Failed(failure) => return self.set_pod(uid, PodState::Failed(failure)),
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
    pub(super) async fn delete_all(&self, targets: &[PodSummary], presence: Option<&Presence>) -> Option<Instant> {
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
