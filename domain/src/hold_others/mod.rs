//! Holding other tools during a freeze (a window's `holdOthers`): while a freeze of the window is in force, each
//! listed tool's own documented switch is set, and exactly the switches Drainboard set are removed once no freeze
//! wants them. A switch someone else set is never taken over nor removed.
//!
//! The switches, as each tool's source reads them (checked against it, and cited in docs/actors.md):
//! - Karpenter: the node annotation `karpenter.sh/do-not-disrupt: "true"` (`pkg/apis/v1`, `DoNotDisruptAnnotationKey`);
//!   its disruption controller does not voluntarily disrupt a node that carries it.
//! - The cluster autoscaler: the node annotation `cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"`
//!   (`ScaleDownDisabledKey`); the node is never a scale-down candidate.
//! - kured: its lock, the annotation `weave.works/kured-node-lock` on its DaemonSet, in kured's own JSON
//!   (`pkg/daemonsetlock`): while another holds it, no kured node takes it and reboots. The lock is the whole
//!   DaemonSet's, so it holds every node kured runs on, not only the window's (`kured`).
//!
//! What Drainboard set on a node is written beside the switches ([`MARK`]), so that any replica, or the same
//! server after a restart, removes exactly those. The mark is a claim anyone who may patch the node can write; so
//! is the switch itself: the mark never lets anyone remove more than they could remove themselves.

// Only the server writes kured's lock; the browser never sees its JSON.
#[cfg(feature = "k8s")]
pub mod kured;
pub mod switch;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;

pub use switch::{Switch, parse};

use crate::window::Policy;

/// The annotation on a node that lists, by id, the switches Drainboard set there (`karpenter,clusterAutoscaler`).
pub const MARK: &str = "drainboard.dev/holding-others";
/// The value Drainboard writes on a node switch, and the only one it removes.
pub const ON: &str = "true";

/// The node annotations the server's cache keeps for this (short values only: see `crate::actor::keeps_annotation`).
pub const ANNOTATIONS: [&str; 3] =
    [MARK, "karpenter.sh/do-not-disrupt", "cluster-autoscaler.kubernetes.io/scale-down-disabled"];

/// The switches the windows want on at `now`, each with the window that wants it first: those of every window
/// with a freeze in force that lists it. A schedule alone never holds another tool; a window that does not read
/// wants nothing (what it set stays until it reads again, see [`node_change`]).
pub fn wanted_by(
    windows: &[Policy],
    labels: Option<&BTreeMap<String, String>>,
    now: Timestamp,
) -> BTreeMap<Switch, String> {
    let mut wanted = BTreeMap::new();
    for w in windows.iter().filter(|w| w.broken.is_none() && w.frozen_at(now).is_some()) {
        if labels.is_some_and(|l| !w.selector.matches(l)) {
            continue;
        }
        for &switch in &w.hold_others {
            wanted.entry(switch).or_insert_with(|| w.name.clone());
        }
    }
    wanted
}

/// What to change on one node's annotations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeChange {
    /// Switches to set now (absent before): Drainboard's from now on.
    pub set: Vec<Switch>,
    /// Drainboard's switches to remove: no freeze wants them.
    pub unset: Vec<Switch>,
    /// Wanted, but already set by someone else: left as they are, and never removed.
    pub theirs: Vec<Switch>,
    /// The mark's new value, when it changes (`Some(None)`: removed).
    pub mark: Option<Option<String>>,
}

impl NodeChange {
    /// Whether anything is written.
    pub fn writes(&self) -> bool {
        !self.set.is_empty() || !self.unset.is_empty() || self.mark.is_some()
    }
}

/// Drainboard's switches on a node, by its mark: only those still on as it set them. One someone else removed or
/// changed since is no longer its own.
pub fn ours(annotations: &BTreeMap<String, String>) -> BTreeSet<Switch> {
    let Some(mark) = annotations.get(MARK) else { return BTreeSet::new() };
    mark.split(',')
        .filter_map(|id| Switch::from_id(id.trim()))
        .filter(|s| s.annotation().is_some_and(|key| annotations.get(key).map(String::as_str) == Some(ON)))
        .collect()
}

/// What brings a node with `annotations` to the node switches `wanted` (kured's, on its DaemonSet, is left out):
/// an absent switch is set; Drainboard's own that no freeze wants is removed; anyone else's is left alone. With
/// `keep` (a window that does not read, or windows not read yet), nothing is removed.
pub fn node_change(wanted: &BTreeSet<Switch>, annotations: &BTreeMap<String, String>, keep: bool) -> NodeChange {
    let mine = ours(annotations);
    let mut change = NodeChange::default();
    let mut after = BTreeSet::new();
    for &switch in wanted {
        let Some(key) = switch.annotation() else { continue };
        if mine.contains(&switch) {
            after.insert(switch);
        } else if annotations.contains_key(key) {
            change.theirs.push(switch);
        } else {
            change.set.push(switch);
            after.insert(switch);
        }
    }
    for &switch in &mine {
        if wanted.contains(&switch) {
            continue;
        }
        if keep {
            after.insert(switch);
        } else {
            change.unset.push(switch);
        }
    }
    let mark = (!after.is_empty()).then(|| after.iter().map(|s| s.id()).collect::<Vec<_>>().join(","));
    if mark.as_ref() != annotations.get(MARK) {
        change.mark = Some(mark);
    }
    change
}
