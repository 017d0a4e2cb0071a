//! Faults a test can ask a drain for: a pause at the start of a phase, so that a Cancel can land there, and a panic,
//! so that supervision can be seen to work.
//!
//! Compiled only with the `test-hooks` feature, which `./test-all` turns on for the engine's integration tests (they
//! set them on a registry of their own): the server, the image and the benchmarks are built without it, so nothing
//! anyone runs carries a deliberate panic.

#[cfg(feature = "test-hooks")]
use std::time::Duration;

/// A phase of a drain, where a test hook can act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Cordoning,
    Planning,
    Evicting,
}

/// The faults asked for; none unless set.
#[cfg(feature = "test-hooks")]
#[derive(Clone, Debug, Default)]
pub struct TestHooks {
    pub pause: Option<(Phase, Duration)>,
    pub panic: Option<Phase>,
}

#[cfg(feature = "test-hooks")]
impl TestHooks {
    /// What the hooks do at the start of `phase`: a pause (cut short by `cancel`), or a panic.
    pub async fn at(&self, phase: Phase, cancel: &tokio_util::sync::CancellationToken) {
        if let Some((_, pause)) = self.pause.filter(|(at, _)| *at == phase) {
            tokio::select! {
                () = tokio::time::sleep(pause) => {}
                () = cancel.cancelled() => {}
            }
        }
        if self.panic == Some(phase) {
            panic!("test hook: panic while {phase:?}");
        }
    }
}
