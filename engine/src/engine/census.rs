//! The fleet's maintenance in counts, for `/metrics`: the nodes as the server's own view sees them (its shared
//! cache), the drains this server knows of, and every plan, counted by `domain::census`, the same rules the board
//! shows them by.

use domain::{census::Census, rollout::RolloutProgress};

use super::Engine;
use crate::plan::resource::MaintenancePlan;

impl Engine {
    /// The counts now; `None` when the server has no view of its own (team mode without credentials of its own),
    /// or its cache has not listed the nodes yet: no gauge is better than a fleet of zero.
    pub fn census(&self) -> Option<Census> {
        let (_, cache) = self.shared.as_ref()?;
        if !cache.is_ready() {
            return None;
        }
        let cards = cache.live_cards().borrow().clone();
        let drains = self.drains.summaries(&self.access.cluster().unwrap_or_default());
        let plans: Vec<RolloutProgress> =
            self.plans.as_ref().map(|p| p.list().iter().map(MaintenancePlan::progress).collect()).unwrap_or_default();
        let mut census = domain::census::census(cards.iter().map(AsRef::as_ref), &drains, &plans);
        let now = jiff::Timestamp::now();
        census.waiting = self.drains.waiting(&self.access.cluster().unwrap_or_default(), now);
        if let Some(windows) = &self.windows {
            let names: Vec<&str> = cards.iter().map(|c| c.name.as_str()).collect();
            let decisions = windows.decide(cache, &names, &[], now);
            let policies = windows.policies();
            let windows: Vec<&str> = policies.iter().map(|p| p.name.as_str()).collect();
            census.held = domain::census::held(&decisions);
            census.held_by_window = domain::census::held_by_window(&decisions, &windows);
            census.alert_gated_windows = policies.iter().filter(|p| !p.gates.alerts.is_empty()).count();
        }
        Some(census)
    }
}
