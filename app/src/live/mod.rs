//! What keeps the page current: the board's event stream, a node's preview stream and a drain's progress stream.
//! Each opens only in the browser, and closes when the component that asked for it goes away.

pub mod board;
#[cfg(feature = "hydrate")]
pub(crate) mod dom;
pub mod preview;
pub mod progress;

pub use board::{Connection, Current, DrainsByNode, LiveBoard};

/// The page's live plans and board, in context for the parts deep inside a card or a panel row that need them: a
/// card names the plan that waits for its node, and "It is back" asks first when the node reported no new boot.
#[derive(Clone, Copy)]
pub struct LiveNow {
    pub plans: leptos::prelude::RwSignal<Option<Vec<domain::rollout::RolloutProgress>>>,
    pub board: leptos::prelude::RwSignal<Option<domain::board::Board>>,
}

impl LiveNow {
    pub fn of(live: &LiveBoard) -> Self {
        LiveNow { plans: live.plans, board: live.board }
    }
}
