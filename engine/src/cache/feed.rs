//! One watch of a cache: a reflector that trims objects as they arrive, and reports to the cache's [`Feed`] whether
//! the API server answers for its kind, and whether it refuses it.

use std::{
    collections::{BTreeMap, HashMap},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use futures::{StreamExt, TryStreamExt};
use kube::{
    Api, Resource,
    runtime::{
        WatchStreamExt,
        reflector::{self},
        watcher,
    },
};
use tokio::{sync::watch, task::JoinHandle};

use crate::{kube_error, tasks::Tasks};

/// What every watch of a cache reports to: a counter that moves on each change, and whether the API server answers.
#[derive(Clone)]
pub(super) struct Feed {
    pub version: Arc<watch::Sender<u64>>,
    pub lost_since: Arc<watch::Sender<Option<jiff::Timestamp>>>,
    /// Since when each kind's watch has been failing. The cache is lost while any kind is: a good Lease event says
    /// nothing about a nodes watch that keeps failing.
    pub failing: Arc<parking_lot::Mutex<HashMap<String, jiff::Timestamp>>>,
    /// The kinds the identity may not list or watch (401/403), with the API's message.
    pub refused: Arc<watch::Sender<BTreeMap<String, String>>>,
}

impl Feed {
    /// Marks `kind`'s watch failing (from now, unless it already was) or working, and sets the cache's lost time
    /// to the earliest failure of any kind.
    fn set_failing(&self, kind: &str, failing: bool) {
        let lost = {
            let mut kinds = self.failing.lock();
            if failing {
                kinds.entry(kind.to_owned()).or_insert_with(jiff::Timestamp::now);
            } else {
                kinds.remove(kind);
            }
            kinds.values().min().copied()
        };
        self.lost_since.send_if_modified(|current| {
            let changed = *current != lost;
            *current = lost;
            changed
        });
    }
}

/// Runs a reflector for `api` into `writer`, trimming objects as they arrive and bumping `version` (and `count`,
/// when given) on each change.
pub(super) fn reflect<S, K>(
    tasks: &Tasks,
    api: Api<S>,
    writer: reflector::store::Writer<K>,
    keep: impl Fn(S) -> K + Send + 'static,
    feed: Feed,
    count: Option<Arc<AtomicU64>>,
) -> JoinHandle<()>
where
    S: Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + Sync + 'static,
    S::DynamicType: Default,
    K: reflector::Lookup + Clone + Send + Sync + 'static,
    K::DynamicType: Default + Eq + std::hash::Hash + Clone + Send + Sync,
{
    let shutdown = tasks.shutdown_signal().clone();
    tasks.spawn(async move {
        let probe_api = api.clone();
        // `reflector` rather than `.reflect`: it needs only `Lookup`, so a store can key what it keeps without an
        // `ObjectMeta` (see `pods::CachedPod`).
        let stream = reflector::reflector(
            writer,
            watcher(api, watcher::Config::default()).backoff(cache_backoff()).map_ok(move |event| kept(event, &keep)),
        );
        let mut stream = std::pin::pin!(stream.take_until(shutdown.cancelled_owned()));
        let kind = S::kind(&Default::default()).to_string();
        // While this kind's watch is failing: a watch that resumes from where it was sends nothing until something
        // changes (a quiet kind may not change for minutes), so a small list every few seconds says when the API
        // server answers for this kind again.
        let mut failing = false;
        let mut probe = tokio::time::interval(PROBE_EVERY);
        probe.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                event = stream.next() => {
                    let Some(event) = event else { break };
                    match event {
                        Ok(_) => {
                            if let Some(count) = &count {
                                count.fetch_add(1, Ordering::Relaxed);
                            }
                            feed.version.send_modify(|v| *v += 1);
                            failing = false;
                            feed.set_failing(&kind, false);
                            feed.refused.send_if_modified(|r| r.remove(&kind).is_some());
                        }
                        Err(err) => {
                            // No answer, a 5xx or a 429 leaves this kind's cards stale until it answers again.
                            failing = kube_error::watch_unavailable(&err);
                            crate::metrics::METRICS.watch_failed(&kind);
                            feed.set_failing(&kind, failing);
                            if let Some(refused) = kube_error::watch_refusal(&err) {
                                let why = refused.message.clone();
                                feed.refused.send_if_modified(|r| r.insert(kind.clone(), why).is_none());
                            }
                            tracing::warn!(error = %err, %kind, "watch failed; retrying")
                        }
                    }
                }
                _ = probe.tick(), if failing => {
                    if probe_api.list_metadata(&kube::api::ListParams::default().limit(1)).await.is_ok() {
                        failing = false;
                        feed.set_failing(&kind, false);
                    }
                }
            }
        }
    })
}

/// A watch event with its object converted to what the store keeps, as it arrives.
fn kept<S, K>(event: watcher::Event<S>, keep: &impl Fn(S) -> K) -> watcher::Event<K> {
    match event {
        watcher::Event::Apply(o) => watcher::Event::Apply(keep(o)),
        watcher::Event::Delete(o) => watcher::Event::Delete(keep(o)),
        watcher::Event::Init => watcher::Event::Init,
        watcher::Event::InitApply(o) => watcher::Event::InitApply(keep(o)),
        watcher::Event::InitDone => watcher::Event::InitDone,
    }
}

/// A trimming in place as a conversion.
pub(super) fn trimmed<K>(trim: fn(&mut K)) -> impl Fn(K) -> K {
    move |mut o| {
        trim(&mut o);
        o
    }
}

/// The retry pace of the cache's watches: from 500 ms to at most 5 s, reset by any success. kube's default grows to
/// 30 s, which left the cards stale for up to that long after the API server came back, while the lost notice had
/// already cleared. One set of watches per cache keeps this cheap for the API server.
fn cache_backoff() -> kube::runtime::watcher::ExponentialBackoff {
    crate::retry::watch_backoff(Duration::from_millis(500), Duration::from_secs(5))
}

/// How often a failing kind's API is asked whether it answers again.
const PROBE_EVERY: Duration = Duration::from_secs(2);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_lost_while_any_kind_fails_from_the_first_failure() {
        let (tx, rx) = watch::channel(None);
        let (version, _) = watch::channel(0);
        let feed = Feed {
            version: Arc::new(version),
            lost_since: Arc::new(tx),
            failing: Default::default(),
            refused: Arc::new(watch::channel(Default::default()).0),
        };
        feed.set_failing("Node", true);
        let first = *rx.borrow();
        assert!(first.is_some());
        feed.set_failing("Lease", true);
        feed.set_failing("Lease", false);
        assert_eq!(*rx.borrow(), first, "a Lease event says nothing about the nodes watch");
        feed.set_failing("Node", true);
        assert_eq!(*rx.borrow(), first, "lost since the first failure, not the latest");
        feed.set_failing("Node", false);
        assert_eq!(*rx.borrow(), None);
    }
}
