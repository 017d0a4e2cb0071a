//! The caches of every identity: one per person, shared by all their tabs, kept a while after its last use.

use std::{
    collections::HashMap,
    sync::{
        Arc, Weak,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use kube::Client;
use tokio::time::Instant;

use super::ClusterCache;
use crate::{Identity, tasks::Tasks};

/// How long a cache stays after its last use by default, so that a page load followed by its event stream, or a
/// quick reload, reuses the watches instead of listing the cluster again.
pub const DEFAULT_LINGER: Duration = Duration::from_secs(60);

/// The caches of every identity, and how many watches they have started (for tests and metrics).
#[derive(Clone)]
pub struct ClusterCaches {
    caches: Arc<parking_lot::Mutex<HashMap<Identity, Held>>>,
    watches_started: Arc<AtomicU64>,
    linger: Duration,
    tasks: Tasks,
    /// The signals that a node needs a reboot (`--reboot-required`), the same for every identity's cards.
    reboot: Arc<[domain::reboot::Signal]>,
}

/// A cache as the registry holds it: weakly, plus strongly until `until` after its last use.
struct Held {
    cache: Weak<ClusterCache>,
    keep: Option<(Arc<ClusterCache>, Instant)>,
}

impl ClusterCaches {
    /// Caches whose tasks run under `tasks`, kept `linger` after their last use. With a linger, one sweeper task
    /// lets go of the caches nobody used for that long; no timer is started per request.
    pub fn new(tasks: &Tasks, linger: Duration) -> Self {
        Self::reading(tasks, linger, Arc::default())
    }

    /// [`Self::new`], whose cards carry each node's sign that it needs a reboot by `reboot`.
    pub fn reading(tasks: &Tasks, linger: Duration, reboot: Arc<[domain::reboot::Signal]>) -> Self {
        let caches = ClusterCaches {
            caches: Default::default(),
            watches_started: Default::default(),
            linger,
            tasks: tasks.clone(),
            reboot,
        };
        if !linger.is_zero() {
            let sweeper = caches.clone();
            let shutdown = tasks.shutdown_signal().clone();
            let period = (linger / 4).max(Duration::from_millis(250));
            tasks.spawn(async move {
                loop {
                    tokio::select! {
                        () = tokio::time::sleep(period) => sweeper.sweep(Instant::now()),
                        () = shutdown.cancelled() => break,
                    }
                }
                // Dropping the held caches aborts their watches, so shutdown does not wait on them.
                sweeper.lock().clear();
            });
        }
        caches
    }

    /// The cache of `identity`, started with `client` (that identity's client) if none is running.
    pub fn for_identity(&self, identity: &Identity, client: Client) -> Arc<ClusterCache> {
        let mut caches = self.lock();
        let cache = match caches.get(identity).and_then(|held| held.cache.upgrade()) {
            Some(cache) => cache,
            None => {
                caches.retain(|_, held| held.cache.strong_count() > 0);
                let cache =
                    Arc::new(ClusterCache::start(client, &self.watches_started, &self.tasks, self.reboot.clone()));
                caches.insert(identity.clone(), Held { cache: Arc::downgrade(&cache), keep: None });
                cache
            }
        };
        if !self.linger.is_zero()
            && let Some(held) = caches.get_mut(identity)
        {
            held.keep = Some((cache.clone(), Instant::now() + self.linger));
        }
        cache
    }

    /// Watches started since this server began (one per resource per cache).
    pub fn watches_started(&self) -> u64 {
        self.watches_started.load(Ordering::Relaxed)
    }

    /// Lets go of caches unused since before `now - linger`; a cache someone still holds keeps running.
    fn sweep(&self, now: Instant) {
        let mut caches = self.lock();
        for held in caches.values_mut() {
            if held.keep.as_ref().is_some_and(|(_, until)| *until <= now) {
                held.keep = None;
            }
        }
        caches.retain(|_, held| held.cache.strong_count() > 0);
    }

    fn lock(&self) -> parking_lot::MutexGuard<'_, HashMap<Identity, Held>> {
        self.caches.lock()
    }
}
