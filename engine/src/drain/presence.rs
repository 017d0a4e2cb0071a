//! The pods on a node, kept current by one watch while a drain waits for them to go: which UIDs exist, and when
//! each that is deleting goes.

use std::{collections::HashMap, time::Duration};

use domain::failure::Failure;
use futures::StreamExt;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Pod;
use kube::{
    Api, Client,
    runtime::{WatchStreamExt, watcher},
};
use tokio::{sync::watch, time::Instant};

use crate::{kube_error, tasks::Tasks};

pub(super) struct Presence {
    pub rx: watch::Receiver<PresentPods>,
    task: tokio::task::JoinHandle<()>,
}

#[derive(Default)]
pub(super) struct PresentPods {
    /// The first full list has arrived; before that, absence means nothing.
    pub synced: bool,
    pub present: HashMap<String, Present>,
    /// Why the watch was given up, if it was: the waits end there instead of hanging until the timeout.
    pub lost: Option<Failure>,
}

/// What the waits need of a pod that is still on the node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Present {
    /// Its deletion timestamp, once deleting: when its grace period ends.
    pub deletion: Option<Timestamp>,
    /// What may hold it past its grace period (at most [`domain::blocker::MAX_NAMES`] kept).
    pub finalizers: Vec<String>,
}

impl From<&Pod> for Present {
    fn from(pod: &Pod) -> Self {
        let finalizers = pod.metadata.finalizers.iter().flatten().take(domain::blocker::MAX_NAMES).cloned().collect();
        Present { deletion: pod.metadata.deletion_timestamp.as_ref().map(|t| t.0), finalizers }
    }
}

/// The retry pace of the waits' watch: from 200 ms to at most 2 s between tries, reset by any success. People are
/// waiting on it (kube's default, for background caches, grows to 30 s, so a drain noticed pods gone up to 20 s
/// late after an API server restart); one watch per running drain is cheap for the API server.
fn wait_backoff() -> kube::runtime::watcher::ExponentialBackoff {
    crate::retry::watch_backoff(Duration::from_millis(200), Duration::from_secs(2))
}

/// How long the watch may fail without a break before the waits give up on it. Long enough for an API server to
/// restart; short enough that nobody waits for ever on a watch that will never work.
const WATCH_GIVE_UP: Duration = Duration::from_secs(120);

/// The API's refusal in a watch error (401 or 403): it will not change by retrying.
fn refusal(err: &watcher::Error) -> Option<Failure> {
    let status = kube_error::watch_refusal(err)?;
    Some(match status.code {
        401 => Failure::CredentialsExpired,
        code => Failure::WatchRefused(domain::failure::ApiAnswer { code: Some(code), message: status.message.clone() }),
    })
}

impl Presence {
    pub fn watch(tasks: &Tasks, client: Client, node: &str) -> Self {
        let (tx, rx) = watch::channel(PresentPods::default());
        let pods: Api<Pod> = Api::all(client);
        let config = watcher::Config::default().fields(&format!("spec.nodeName={node}"));
        let node = node.to_string();
        let task = tasks.spawn(async move {
            let mut stream = std::pin::pin!(watcher(pods, config).backoff(wait_backoff()));
            let mut buffer = HashMap::new();
            let entry = |pod: &Pod| (pod.metadata.uid.clone().unwrap_or_default(), Present::from(pod));
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
                            (since.elapsed() >= WATCH_GIVE_UP).then(|| Failure::WatchLost {
                                seconds: WATCH_GIVE_UP.as_secs(),
                                error: err.to_string(),
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
    use domain::failure::ApiAnswer;
    use kube::core::Status;

    fn status(json: serde_json::Value) -> Status {
        serde_json::from_value(json).expect("a Status")
    }

    #[test]
    fn a_watch_is_given_up_only_on_a_refusal() {
        let forbidden = kube::Error::Api(Box::new(status(serde_json::json!({"code": 403,
            "message": "pods is forbidden: User \"admin\" cannot watch resource \"pods\" in API group \"\" at the cluster scope",
            "reason": "Forbidden", "details": {"kind": "pods"}}))));
        assert_eq!(
            refusal(&watcher::Error::InitialListFailed(forbidden)),
            Some(Failure::WatchRefused(ApiAnswer {
                code: Some(403),
                message: "pods is forbidden: User \"admin\" cannot watch resource \"pods\" in API group \"\" at the cluster scope"
                    .into()
            }))
        );
        let expired = kube::Error::Api(Box::new(status(serde_json::json!({"code": 401, "message": "Unauthorized"}))));
        assert_eq!(refusal(&watcher::Error::WatchStartFailed(expired)), Some(Failure::CredentialsExpired));
        let gone = status(serde_json::json!({"code": 410, "message": "too old resource version"}));
        assert_eq!(refusal(&watcher::Error::WatchError(Box::new(gone))), None, "a desync is not a refusal");
        let down = status(serde_json::json!({"code": 500, "message": "etcd unavailable"}));
        assert_eq!(refusal(&watcher::Error::WatchError(Box::new(down))), None);
    }
}
