//! The lifecycle of the server's background work, after mini-redis: one shutdown signal that every task hears,
//! and a tracker that the server waits on before it exits.

use std::{future::Future, time::Duration};

use tokio::task::JoinHandle;
use tokio_util::{sync::CancellationToken, task::TaskTracker};

/// Spawns the engine's tasks and stops them together. Cheap to clone; every clone is the same set.
#[derive(Clone)]
pub struct Tasks {
    shutdown: CancellationToken,
    tracker: TaskTracker,
    /// Caches and drains outlive the request that starts them, and a page render may run on an executor of its
    /// own that stops polling when the render ends; so every task is spawned on the server's runtime.
    runtime: tokio::runtime::Handle,
}

impl Tasks {
    /// The tasks of a server running on `runtime`.
    pub fn new(runtime: tokio::runtime::Handle) -> Self {
        Tasks { shutdown: CancellationToken::new(), tracker: TaskTracker::new(), runtime }
    }

    /// Runs `task` on the server's runtime, tracked: shutdown waits for it.
    pub fn spawn<F>(&self, task: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.tracker.spawn_on(task, &self.runtime)
    }

    /// Cancelled when the server shuts down. Every task selects on it, or on a child of it.
    pub fn shutdown_signal(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// Whether shutdown has begun.
    pub fn is_shutting_down(&self) -> bool {
        self.shutdown.is_cancelled()
    }

    /// Signals shutdown and waits up to `limit` for every task to end. True when all did.
    pub async fn shut_down(&self, limit: Duration) -> bool {
        self.shutdown.cancel();
        self.tracker.close();
        tokio::time::timeout(limit, self.tracker.wait()).await.is_ok()
    }

    /// Tasks still running.
    pub fn running(&self) -> usize {
        self.tracker.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn shutdown_waits_for_tasks_that_hear_it_and_reports_those_that_do_not() {
        let tasks = Tasks::new(tokio::runtime::Handle::current());
        let heard = tasks.clone();
        tasks.spawn(async move { heard.shutdown_signal().cancelled().await });
        assert_eq!(tasks.running(), 1);
        assert!(tasks.shut_down(Duration::from_secs(1)).await, "a task that hears the signal ends");
        assert_eq!(tasks.running(), 0);

        let deaf = Tasks::new(tokio::runtime::Handle::current());
        deaf.spawn(std::future::pending::<()>());
        assert!(!deaf.shut_down(Duration::from_millis(50)).await, "a task that ignores it is reported");
    }
}
