//! The board's line per maintenance window: each window's nodes and opening, and the first stall of its check.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Hold, MAX_NODES, Readiness};

/// A maintenance window as the board's readiness line reads it: the nodes it covers, and when it next opens on
/// its own clock, while it is closed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowScope {
    pub window: String,
    /// The nodes it covers, in name order: at most [`MAX_NODES`] are checked.
    pub nodes: Vec<String>,
    /// How many it covers in all.
    pub covering: usize,
    /// When it next opens, on its clock, and the clock's zone: `None` while it is open.
    pub opens: Option<(String, String)>,
}

/// Each window of `decisions` (as `POST /api/windows` answers), in name order, with its nodes.
pub fn window_scopes(decisions: &[crate::window::Decision]) -> Vec<WindowScope> {
    let mut scopes: BTreeMap<&str, WindowScope> = BTreeMap::new();
    for decision in decisions {
        for window in &decision.windows {
            let scope = scopes.entry(window).or_insert_with(|| WindowScope {
                window: window.clone(),
                nodes: Vec::new(),
                covering: 0,
                opens: None,
            });
            scope.covering += 1;
            if scope.nodes.len() < MAX_NODES {
                scope.nodes.push(decision.node.clone());
            }
            for held in decision.holds.iter().filter(|h| &h.window == window) {
                if let crate::window::decide::Hold::OutsideWindow { local: Some(local), zone, .. } = &held.hold {
                    scope.opens.get_or_insert_with(|| (local.clone(), zone.clone()));
                }
            }
        }
    }
    scopes
        .into_values()
        .map(|mut s| {
            s.nodes.sort();
            s
        })
        .collect()
}

/// A window's line: the first node whose drain would stall, its first hold that stalls, and how many more of
/// the window's nodes would stall; `None` when none would.
pub fn first_stall(readiness: &Readiness) -> Option<(&str, &Hold, usize)> {
    let mut stalling = readiness.stalling();
    let first = stalling.next()?;
    let hold = first.holds.iter().find(|h| h.stalls())?;
    Some((first.node.as_str(), hold, stalling.count()))
}
