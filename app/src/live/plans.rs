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
    /// already being applied. Only the decoding is in the lazy part: a change is applied in place, as before.
    pub fn push(self, whole: bool, text: String, plans: RwSignal<Option<Vec<RolloutProgress>>>) {
        self.queue.update_value(|q| q.push_back((whole, text)));
        if self.applying.get_value() {
            return;
        }
        self.applying.set_value(true);
        leptos::task::spawn_local(async move {
            while let Some((whole, text)) = self.queue.try_update_value(VecDeque::pop_front).flatten() {
                let event = match whole && text.trim() == "[]" {
                    true => Some(PlanEvent::All(Vec::new())),
                    false => decode(whole, text).await,
                };
                // A page gone meanwhile has nothing left to update.
                match event {
                    Some(PlanEvent::All(list)) => {
                        let _ = plans.try_set(Some(list));
                    }
                    Some(PlanEvent::Changed(changed)) => {
                        let _ = plans.try_update(|p| domain::plan_feed::apply(p.get_or_insert_with(Vec::new), changed));
                    }
                    None => {}
                }
            }
            let _ = self.applying.try_set_value(false);
        });
    }
}

/// One event of the stream's plans, decoded.
enum PlanEvent {
    All(Vec<RolloutProgress>),
    Changed(domain::plan_feed::PlansChanged),
}

/// The event's JSON decoded: the whole list, or its changes; `None` if it does not read.
#[lazy]
fn decode(whole: bool, text: String) -> Option<PlanEvent> {
    match whole {
        true => serde_json::from_str(&text).ok().map(PlanEvent::All),
        false => serde_json::from_str(&text).ok().map(PlanEvent::Changed),
    }
}
