//! The node card: one node's status, heartbeats, countdowns, conditions, its drain and its actions. It follows its
//! node in the live board by name, so that an update re-renders only what changed.

mod actions;
mod actors;
mod conditions;
mod cordon;
mod countdowns;
mod drain;
mod facts;
mod header;
mod heartbeats;
mod plan;

use domain::{ReadyStatus, board::BoardSettings};
use jiff::Timestamp;
use leptos::prelude::*;

pub use actions::CardActions;
pub use drain::CardDrain;

use crate::live::{Current, DrainsByNode};

/// One card, following its node in the live board by name.
#[component]
pub fn CardView(
    name: String,
    current: Current,
    now: RwSignal<Timestamp>,
    drains: RwSignal<DrainsByNode>,
) -> impl IntoView {
    let card = {
        let name = name.clone();
        Memo::new(move |_| current.with(|board| board.cards.get(&name).cloned()).unwrap_or_default())
    };
    let drain = {
        let name = name.clone();
        Signal::derive(move || drains.with(|d| d.get(&name).cloned()))
    };
    let server_now = Signal::derive(move || current.with(|board| board.server_now(now.get())));
    let settings: Signal<BoardSettings> = Signal::derive(move || current.with(|board| board.settings));
    let node = name.clone();
    view! {
        <article
            class=move || if card.with(|c| c.ready != ReadyStatus::Ready) { "node-card problem" } else { "node-card" }
            data-testid="node-row"
            data-node=node
            data-ready=move || card.with(|c| c.ready.label())
        >
            <header::CardHeader name card server_now drain />
            <cordon::CardCordon card server_now settings drain />
            <actors::CardActors card server_now drain />
            <plan::CardPlan card />
            <CardDrain card drain server_now />
            <CardActions card drain />
            <countdowns::Countdowns card server_now settings />
            <heartbeats::Heartbeats card server_now settings />
            <facts::Facts card />
            <countdowns::PodEtas card server_now />
            <conditions::Conditions card />
        </article>
    }
    // A card's static view type is deep; erasing it keeps the page's type within the compiler's limits.
    .into_any()
}
