//! Rolling maintenance as a server task: many nodes drained with limits (`domain::rollout` decides which node starts
//! when), each through the same drain as a single one, as the person who started the rollout, with its Lease, its
//! budgets through the Eviction API, and its record. The rollout belongs to the server, not to the request: closing
//! the tab changes nothing, and anyone can follow it.

use std::{collections::HashMap, sync::Arc};

use domain::rollout::RolloutProgress;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// How many ended rollouts are kept for late viewers.
const KEEP_ENDED: usize = 50;

/// Every rollout this server runs or ran.
#[derive(Clone, Default)]
pub struct Rollouts {
    inner: Arc<parking_lot::Mutex<Inner>>,
}

#[derive(Default)]
struct Inner {
    by_id: HashMap<String, Entry>,
    order: Vec<String>,
}

struct Entry {
    progress: watch::Receiver<RolloutProgress>,
    cancel: CancellationToken,
    paused: watch::Sender<bool>,
}

impl Rollouts {
    fn lock(&self) -> parking_lot::MutexGuard<'_, Inner> {
        self.inner.lock()
    }

    /// The rollout's progress now.
    pub fn progress(&self, id: &str) -> Option<RolloutProgress> {
        self.lock().by_id.get(id).map(|e| e.progress.borrow().clone())
    }

    /// The rollouts held, the latest first.
    pub fn list(&self) -> Vec<RolloutProgress> {
        let inner = self.lock();
        inner.order.iter().rev().filter_map(|id| inner.by_id.get(id)).map(|e| e.progress.borrow().clone()).collect()
    }

    /// Asks a rollout to stop: no node starts any more, and the running drains are cancelled.
    pub fn cancel(&self, id: &str) -> bool {
        self.lock().by_id.get(id).map(|e| e.cancel.cancel()).is_some()
    }

    /// Keeps a new rollout, and forgets the oldest ended ones past [`KEEP_ENDED`].
    pub(crate) fn insert(
        &self,
        id: String,
        progress: watch::Receiver<RolloutProgress>,
        cancel: CancellationToken,
        paused: watch::Sender<bool>,
    ) {
        let mut inner = self.lock();
        inner.by_id.insert(id.clone(), Entry { progress, cancel, paused });
        inner.order.push(id.clone());
        if inner.order.len() > KEEP_ENDED {
            let ended: Vec<String> = inner
                .order
                .iter()
                .filter(|id| inner.by_id.get(*id).is_some_and(|e| e.progress.borrow().finished_at.is_some()))
                .take(inner.order.len() - KEEP_ENDED)
                .cloned()
                .collect();
            inner.order.retain(|id| !ended.contains(id));
            inner.by_id.retain(|id, _| !ended.contains(id));
        }
    }

    /// Pauses (`true`) or resumes a rollout: while paused no node starts; those draining go on.
    pub fn pause(&self, id: &str, paused: bool) -> bool {
        self.lock().by_id.get(id).map(|e| e.paused.send_replace(paused)).is_some()
    }
}

/// How a person changes a rollout's course.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Cancel,
    Pause(bool),
}
