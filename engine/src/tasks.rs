//! The lifecycle of the server's background work, after mini-redis: one shutdown signal that every task hears,
//! and a tracker that the server waits on before it exits.

use std::{any::Any, future::Future, panic::AssertUnwindSafe, time::Duration};

use futures::FutureExt;

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

    /// Runs the task `make` makes, supervised: when it panics, the panic is logged and a new one is made, after a
    /// pause, until shutdown. For a task everyone depends on (the card rounds), which must not freeze the board.
    pub fn supervise<F, Fut>(&self, name: &'static str, mut make: F) -> JoinHandle<()>
    where
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let shutdown = self.shutdown.clone();
        self.spawn(async move {
            loop {
                tokio::select! {
                    ended = AssertUnwindSafe(make()).catch_unwind() => match ended {
                        Ok(()) => return,
                        Err(panic) => {
                            tracing::error!(task = name, why = %panic_message(panic.as_ref()), "task panicked; restarting it");
                        }
                    },
                    () = shutdown.cancelled() => return,
                }
                tokio::select! {
                    () = tokio::time::sleep(RESTART_PAUSE) => {}
                    () = shutdown.cancelled() => return,
                }
            }
        })
    }

    /// Cancelled when the server shuts down. Every task selects on it, or on a child of it.
    pub fn shutdown_signal(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// Whether shutdown has begun.
    pub fn is_shutting_down(&self) -> bool {
        self.shutdown.is_cancelled()
    }

    /// Refuses new work once shutdown has begun: a drain or rollout started now would be interrupted at once, so
    /// the person is told to start it again (on another replica, or once this server is back) rather than shown a
    /// start that cannot run. An `Unavailable` error, which the wire answers with 503.
    pub fn refuse_when_stopping(&self, what: &str) -> crate::Result<()> {
        if self.is_shutting_down() {
            return Err(crate::Error::Unavailable(format!(
                "the server is stopping: {what} did not start; start it again once the server is back, or on \
                 another replica"
            )));
        }
        Ok(())
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

/// How long a supervised task that panicked waits before it starts again: long enough not to spin on a fault that
/// comes back at once.
const RESTART_PAUSE: Duration = Duration::from_secs(1);

/// The text of a panic's payload.
pub fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn new_work_is_refused_once_shutdown_has_begun() {
        let tasks = Tasks::new(tokio::runtime::Handle::current());
        assert!(tasks.refuse_when_stopping("the drain").is_ok());
        assert!(tasks.shut_down(Duration::from_secs(1)).await);
        match tasks.refuse_when_stopping("the drain of node-1") {
            Err(crate::Error::Unavailable(why)) => assert!(why.contains("the drain of node-1"), "{why}"),
            other => panic!("expected Unavailable, got {other:?}"),
        }
    }

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

    #[tokio::test(start_paused = true)]
    async fn a_supervised_task_that_panics_is_made_again() {
        let tasks = Tasks::new(tokio::runtime::Handle::current());
        let made = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = made.clone();
        let handle = tasks.supervise("flaky", move || {
            let round = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async move {
                if round < 2 {
                    panic!("round {round} fails");
                }
            }
        });
        handle.await.expect("the supervisor itself does not panic");
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), 3, "made again after each panic, until it ends");
    }
}
