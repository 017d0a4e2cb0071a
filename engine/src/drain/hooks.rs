//! Faults a test can ask a drain for: a pause at the start of a phase, so that a Cancel can land there, and a panic,
//! so that supervision can be seen to work.
//!
//! Compiled into debug builds only (`debug_assertions`): the engine's integration tests and the browser tests run
//! debug builds, and a release build carries no deliberate panic. The server reads them from
//! `DRAINBOARD_TEST_HOOKS`, in debug builds too.

#[cfg(debug_assertions)]
use std::time::Duration;

/// A phase of a drain, where a test hook can act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Cordoning,
    Planning,
    Evicting,
}

/// The faults asked for; none unless set.
#[cfg(debug_assertions)]
#[derive(Clone, Debug, Default)]
pub struct TestHooks {
    pub pause: Option<(Phase, Duration)>,
    pub panic: Option<Phase>,
}

#[cfg(debug_assertions)]
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

#[cfg(debug_assertions)]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_read_as_written_and_unknown_ones_are_refused() {
        let hooks = TestHooks::parse("pause:planning:3, panic:evicting").expect("valid");
        assert_eq!(hooks.pause, Some((Phase::Planning, Duration::from_secs(3))));
        assert_eq!(hooks.panic, Some(Phase::Evicting));
        assert!(TestHooks::parse("").expect("none").pause.is_none());
        assert!(TestHooks::parse("pause:boiling:3").is_err());
        assert!(TestHooks::parse("pause:planning:soon").is_err());
        assert!(TestHooks::parse("explode").is_err());
    }
}
