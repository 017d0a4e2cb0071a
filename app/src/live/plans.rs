//! The board stream's plans, in order, decoded by a lazily loaded part of the wasm: a list of plans is the largest
//! thing the stream sends, and its decoding was the largest part of the first load that most boards (no plan
//! running) never use. An empty list is taken as is; anything else loads the part once, and each event waits for
//! the one before it, so that a change is never applied before the list it changes.

use std::collections::VecDeque;

use domain::rollout::RolloutProgress;
use leptos::prelude::*;

/// The events not applied yet: (a whole list, its JSON), oldest first, and whether they are being applied.
#[derive(Clone, Copy)]
pub struct PlanFeed {
    queue: StoredValue<VecDeque<(bool, String)>, LocalStorage>,
    applying: StoredValue<bool, LocalStorage>,
}

impl PlanFeed {
    pub fn new() -> Self {
        PlanFeed { queue: StoredValue::new_local(VecDeque::new()), applying: StoredValue::new_local(false) }
    }

    /// Queues a `plans` event (`whole`) or a `plans-changed` one, and applies the queue to `plans` unless it is
    /// already being applied.
    pub fn push(self, whole: bool, text: String, plans: RwSignal<Option<Vec<RolloutProgress>>>) {
        self.queue.update_value(|q| q.push_back((whole, text)));
        if self.applying.get_value() {
            return;
        }
        self.applying.set_value(true);
        leptos::task::spawn_local(async move {
            while let Some((whole, text)) = self.queue.try_update_value(VecDeque::pop_front).flatten() {
                let Some(current) = plans.try_get_untracked() else { return };
                let next = match whole && text.trim() == "[]" {
                    true => Some(Vec::new()),
                    false => next_plans(current, whole, text).await,
                };
                if let Some(next) = next {
                    plans.try_set(Some(next));
                }
            }
            let _ = self.applying.try_set_value(false);
        });
    }
}

/// The plans after one event: the whole list it sends, or `current` with its changes; `None` if it does not read.
#[lazy]
fn next_plans(current: Option<Vec<RolloutProgress>>, whole: bool, text: String) -> Option<Vec<RolloutProgress>> {
    if whole {
        return serde_json::from_str(&text).ok();
    }
    let changed = serde_json::from_str::<domain::plan_feed::PlansChanged>(&text).ok()?;
    let mut plans = current.unwrap_or_default();
    domain::plan_feed::apply(&mut plans, changed);
    Some(plans)
}
