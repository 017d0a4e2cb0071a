//! One module per page.

pub mod board;
mod map;
pub mod node;
pub mod sign_in;
mod versions;
pub mod wall;

/// How many cards one page shows; a cluster of thousands of nodes is paged, not rendered at once.
pub const PAGE_SIZE: usize = 60;

/// Keeps the tab's title counting the nodes on `board` that are not Ready, so that a board in a background tab still
/// tells. In the browser only: see `live::dom::set_title`.
#[cfg(feature = "hydrate")]
fn title_counts_problems(board: leptos::prelude::RwSignal<Option<domain::board::Board>>) {
    use crate::i18n::{t_string, use_i18n};
    use leptos::prelude::*;
    let i18n = use_i18n();
    Effect::new(move |_| {
        let not_ready = |c: &domain::node::NodeCard| c.ready != domain::ReadyStatus::Ready;
        let problems = board.with(|b| b.as_ref().map_or(0, |b| b.cards.values().filter(|c| not_ready(c)).count()));
        let title = match problems {
            0 => t_string!(i18n, app.name).to_string(),
            count => t_string!(i18n, app.title_problems, count).to_string(),
        };
        crate::live::dom::set_title(&title);
    });
}
