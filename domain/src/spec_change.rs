//! A maintenance plan's spec as it differs from what a person confirmed (its pin, `crate::pin`): each field that
//! changed, with its value then and now, as the page and the API show them. Apart from the pin's rules, so that
//! the page's view of a plan (`crate::rollout`) carries it without depending on them.

use serde::{Deserialize, Serialize};

/// A pinned field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Field {
    Nodes,
    NodeSelector,
    MaxParallel,
    OnePerZone,
    StopOnFailure,
    UncordonWhenBack,
    /// One of the drain options, named as the spec names it (`drain.disableEviction`).
    Drain(DrainField),
    Verify,
    SettleSeconds,
    OthersAtWork,
    WindowOverride,
    Unattended,
}

/// A drain option, as the plan's spec names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DrainField {
    Force,
    IgnoreDaemonsets,
    DeleteEmptydirData,
    GracePeriodSeconds,
    TimeoutSeconds,
    PodSelector,
    DisableEviction,
    SkipWaitForDeleteTimeoutSeconds,
    RespectDoNotDisrupt,
}

impl Field {
    /// The field's path in the plan's spec, as `kubectl` shows it.
    pub fn path(&self) -> &'static str {
        match self {
            Field::Nodes => "spec.nodes",
            Field::NodeSelector => "spec.nodeSelector",
            Field::MaxParallel => "spec.maxParallel",
            Field::OnePerZone => "spec.onePerZone",
            Field::StopOnFailure => "spec.stopOnFailure",
            Field::UncordonWhenBack => "spec.uncordonWhenBack",
            Field::Drain(DrainField::Force) => "spec.drain.force",
            Field::Drain(DrainField::IgnoreDaemonsets) => "spec.drain.ignoreDaemonsets",
            Field::Drain(DrainField::DeleteEmptydirData) => "spec.drain.deleteEmptydirData",
            Field::Drain(DrainField::GracePeriodSeconds) => "spec.drain.gracePeriodSeconds",
            Field::Drain(DrainField::TimeoutSeconds) => "spec.drain.timeoutSeconds",
            Field::Drain(DrainField::PodSelector) => "spec.drain.podSelector",
            Field::Drain(DrainField::DisableEviction) => "spec.drain.disableEviction",
            Field::Drain(DrainField::SkipWaitForDeleteTimeoutSeconds) => "spec.drain.skipWaitForDeleteTimeoutSeconds",
            Field::Drain(DrainField::RespectDoNotDisrupt) => "spec.drain.respectDoNotDisrupt",
            Field::Verify => "spec.verify",
            Field::SettleSeconds => "spec.settleSeconds",
            Field::OthersAtWork => "spec.othersAtWork",
            Field::WindowOverride => "spec.windowOverride",
            Field::Unattended => "spec.unattended",
        }
    }
}

/// One pinned field that differs now: its value as pinned and as it is, each in short words ("none" when unset).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecChange {
    pub field: Field,
    pub pinned: String,
    pub now: String,
}

impl SpecChange {
    /// "spec.drain.disableEviction: false → true".
    pub fn english(&self) -> String {
        format!("{}: {} → {}", self.field.path(), self.pinned, self.now)
    }

    /// Every change, on one line.
    pub fn english_all(changes: &[SpecChange]) -> String {
        changes.iter().map(SpecChange::english).collect::<Vec<_>>().join("; ")
    }
}

/// A plan's spec as it differs from its pin: the generation a person confirms by continuing it, and each change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecChanged {
    pub pinned: i64,
    pub generation: i64,
    pub changes: Vec<SpecChange>,
}
