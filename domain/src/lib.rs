//! Drainboard's pure logic.
//!
//! Everything here is plain data and functions over it: no I/O, no clocks, no Kubernetes client. The server
//! converts API objects into these trimmed view models (feature `k8s`), which keeps its caches small and lets the
//! browser run the same rules without ever linking the Kubernetes API types.

pub mod actions;
pub mod actor;
pub mod actor_history;
pub mod audit;
pub mod blocker;
pub mod board;
pub mod budget;
pub mod capacity;
pub mod census;
pub mod condition;
pub mod conflict;
pub mod context;
pub mod countdown;
pub mod denial;
pub mod drain;
pub mod estimate;
pub mod eviction;
pub mod failure;
pub mod fleet;
pub mod hold_others;
pub mod input;
pub mod lifecycle;
pub mod moving;
pub mod node;
pub mod notice;
pub mod pin;
pub mod plan_block;
pub mod plan_feed;
pub mod plan_step;
pub mod pod;
pub mod preview;
pub mod progress;
pub mod readiness;
pub mod ready;
pub mod reboot;
pub mod recovery;
pub mod rollout;
pub mod selector;
pub mod spec_change;
pub mod tally;
pub mod teams;
pub mod tense;
pub mod timeline;
pub mod undo;
pub mod verify;
pub mod versions;
pub mod volume;
pub mod window;

pub use pod::{PodRef, PodSummary};
pub use ready::ReadyStatus;
