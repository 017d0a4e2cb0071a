//! Maintenance windows: when maintenance may start on a node, and what holds it otherwise.
//!
//! A `MaintenanceWindow` object (the engine's `windows` room keeps them) covers the nodes its label selector
//! picks. It says when maintenance may start ([`calendar`]: recurring schedules in an IANA time zone, crossing
//! midnight or not, weekly or monthly, and dated freezes), how many of its nodes may be in maintenance at once (a
//! budget), and which gates must be open ([`decide`]: alerts firing, pods running, a NotReady storm). Several
//! windows may cover one node: every one of them must allow a start, and the one that holds longest decides.
//!
//! Everything here is pure. The clock is an argument, and so are time zones, already resolved: the server bundles
//! the zone database, so a scratch image needs none, while the browser never evaluates a window and so never
//! links one.
//!
//! - [`written`]: the object's spec as a person writes it; [`spec`]: its checked form ([`Policy`]).
//! - [`calendar`]: whether a window is open at an instant, and when it next opens.
//! - [`decide`]: the decision for one node, from the windows and the cluster's facts.
//! - [`closing`] and [`fit`]: the first of a plan's windows to close, and whether its estimate fits before.
//! - [`matcher`]: Alertmanager's label matchers, for the alert gates.

pub mod calendar;
pub mod closing;
pub mod decide;
pub mod fit;
pub mod local;
pub mod matcher;
pub mod spec;
pub mod written;

pub use decide::{Decision, Facts, Held, HeldNode, Hold, NodeFact, PodFact};
pub use fit::{Fit, WindowFit};
pub use local::LocalTime;
pub use spec::{Budget, Policy, Spec};

/// Every node a person may read, with whether maintenance may start on it now: what the page shows.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Now {
    /// Whether the server follows maintenance windows at all (it needs an identity of its own).
    pub keeps_windows: bool,
    pub nodes: Vec<Decision>,
    /// While maintenance may start on some of the nodes the windows cover: the first of their windows to stop
    /// allowing it, so that the board can say until when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closes: Option<WindowFit>,
    /// The windows whose freeze in force holds other tools now (`crate::hold_others`), each with the tools by id,
    /// as this server holds them (team mode only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others_held: Vec<(String, Vec<String>)>,
}

impl Policy {
    /// The tools this window's freeze holds at `now`, by id: none unless a freeze is in force and it lists some.
    pub fn holding_others(&self, now: jiff::Timestamp) -> Vec<String> {
        if self.broken.is_some() || self.frozen_at(now).is_none() {
            return Vec::new();
        }
        self.hold_others.iter().map(|s| s.id().to_owned()).collect()
    }
}

/// The subresource whose `update` lets a person start maintenance that a window holds (with a typed reason): an
/// access review of `maintenancewindows/override` in this group.
pub const OVERRIDE_SUBRESOURCE: &str = "override";
