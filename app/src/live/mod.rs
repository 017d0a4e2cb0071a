//! What keeps the page current: the board's event stream, a node's preview stream and a drain's progress stream.
//! Each opens only in the browser, and closes when the component that asked for it goes away.

pub mod board;
#[cfg(feature = "hydrate")]
pub(crate) mod dom;
#[cfg(feature = "hydrate")]
mod plans;
pub mod preview;
pub mod progress;

pub use board::{Connection, Current, DrainsByNode, LiveBoard};

/// The page's live plans and board, in context for the parts deep inside a card or a panel row that need them: a
/// card names the plan that waits for its node, and "It is back" asks first when the node reported no new boot.
#[derive(Clone, Copy)]
pub struct LiveNow {
    pub plans: leptos::prelude::RwSignal<Option<Vec<domain::rollout::RolloutProgress>>>,
    pub board: leptos::prelude::RwSignal<Option<domain::board::Board>>,
    /// Each node that a plan not ended holds, by name: built once per change of the plans, so that a card looks
    /// its node up rather than every card scanning every plan.
    pub part_of: leptos::prelude::Memo<std::collections::BTreeMap<String, InPlan>>,
}

/// Where a node stands in the plan not ended that holds it (the latest, where several do).
#[derive(Clone, Debug, PartialEq)]
pub struct InPlan {
    pub plan: String,
    pub standing: domain::tally::Standing,
    /// Awaited back: its boot id when its drain ended.
    pub awaited_from: Option<Option<String>>,
}

impl LiveNow {
    pub fn of(live: &LiveBoard) -> Self {
        use domain::rollout::{Back, RolloutState};
        use leptos::prelude::*;
        let plans = live.plans;
        let part_of = Memo::new(move |_| {
            let mut index = std::collections::BTreeMap::new();
            plans.with(|list| {
                let live = list
                    .iter()
                    .flatten()
                    .filter(|p| !matches!(p.state, RolloutState::Finished | RolloutState::Cancelled));
                for p in live {
                    for n in &p.nodes {
                        let awaited_from = match &n.back {
                            Some(Back::Waiting(boot)) => Some(boot.clone()),
                            _ => None,
                        };
                        let standing = domain::tally::Standing::of(n);
                        index.entry(n.name.clone()).or_insert(InPlan { plan: p.id.clone(), standing, awaited_from });
                    }
                }
            });
            index
        });
        LiveNow { plans, board: live.board, part_of }
    }
}
