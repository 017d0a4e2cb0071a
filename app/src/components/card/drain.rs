use domain::{
    node::NodeCard,
    progress::{DrainRecord, DrainState, DrainSummary},
};
use leptos::prelude::*;

use crate::{
    dialogs::{Actions, Dialog},
    i18n::{blocked_by_pdb_text, drain_state_text, t_string, use_i18n},
};

/// The drain strip of a card: the live drain from this server, or else the record on the node.
#[component]
pub fn CardDrain(card: Memo<NodeCard>, drain: Signal<Option<DrainSummary>>) -> impl IntoView {
    // Only a change of the record re-renders the strip, not every change of the card.
    let record = Memo::new(move |_| card.with(|c| c.drain_record.clone()));
    move || match (drain.get(), record.get()) {
        (Some(d), _) => view! { <LiveDrain d /> }.into_any(),
        (None, Some(record)) => {
            view! { <RecordedDrain record node=card.with_untracked(|c| c.name.clone()) /> }.into_any()
        }
        (None, None) => ().into_any(),
    }
}

/// A drain this server runs or ran, or another server runs (from its node Lease): who, how far, why, and the
/// budget that holds it up.
#[component]
fn LiveDrain(d: DrainSummary) -> impl IntoView {
    let i18n = use_i18n();
    let running = d.state.is_running();
    let who = &d.started_by;
    let text = if running {
        t_string!(i18n, card.draining, who, done = d.done, total = d.total).to_string()
    } else {
        let state = drain_state_text(i18n, &d.state, d.total - d.done);
        t_string!(i18n, card.last_drain, who, state).to_string()
    };
    let blocked = d.blocked_by.as_ref().filter(|_| running).map(|p| blocked_by_pdb_text(i18n, p));
    view! {
        <div class="card-drain" data-testid="card-drain" data-state=format!("{:?}", d.state) data-drain-id=d.id.clone()>
            <p>
                <span data-testid="card-drain-text">{text}</span>
                {d.reason.clone().map(|r| view! { <span class="muted">" · " {r}</span> })}
            </p>
            {running.then(|| view! {
                <progress max=d.total.max(1) value=d.done aria-label=t_string!(i18n, card.drain_progress)></progress>
            })}
            {blocked.map(|b| view! { <p class="blocked" data-testid="card-drain-blocked">{b}</p> })}
            {d.elsewhere.clone().filter(|_| running).map(|holder| view! {
                <p class="muted" data-testid="card-drain-elsewhere">{t_string!(i18n, card.elsewhere, holder)}</p>
            })}
        </div>
    }
}

/// The drain recorded on the node, by this server or another; an interrupted one can be resumed from here.
#[component]
fn RecordedDrain(record: DrainRecord, node: String) -> impl IntoView {
    let i18n = use_i18n();
    let actions = use_context::<Actions>();
    // A record that says running, with no live drain here, was left by a server that stopped.
    let record = record.interrupted();
    let interrupted = record.state == DrainState::Interrupted;
    let state = drain_state_text(i18n, &record.state, record.pods_left);
    let text = t_string!(i18n, card.last_drain, who = &record.started_by, state).to_string();
    let shown_state = format!("{:?}", record.state);
    view! {
        <div class="card-drain" data-testid="card-drain" data-state=shown_state>
            <p><span data-testid="card-drain-text">{text}</span></p>
            {actions.filter(|_| interrupted).map(|actions| view! {
                <button
                    type="button"
                    class="action"
                    data-testid="action-resume"
                    on:click=move |_| actions.open(Dialog::Resume(node.clone(), Box::new(record.clone())))
                >
                    {t_string!(i18n, card.resume)}
                </button>
            })}
        </div>
    }
}
