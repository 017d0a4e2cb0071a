use domain::{
    node::NodeCard,
    progress::{DrainRecord, DrainState, DrainSummary},
    tense::{self, Tense},
};
use jiff::Timestamp;
use leptos::prelude::*;

use crate::{
    dialogs::{Actions, Dialog},
    i18n::{age_text, blocked_by_pdb_text, blocker_text, drain_outcome_text, drain_state_text, t_string, use_i18n},
};

/// The drain strip of a card: the live drain from this server, or else the record on the node. A drain that ended
/// before the node was uncordoned reads as past (`domain::tense`): what it said about the node is no longer true.
#[component]
pub fn CardDrain(
    card: Memo<NodeCard>,
    drain: Signal<Option<DrainSummary>>,
    server_now: Signal<Timestamp>,
) -> impl IntoView {
    // Only a change of the record or the node's cordon re-renders the strip, not every change of the card.
    let record = Memo::new(move |_| card.with(|c| (c.drain_record.clone(), c.unschedulable, c.cordon_record.clone())));
    move || {
        let (record, unschedulable, cordon) = record.get();
        match (drain.get(), record) {
            (Some(d), _) if d.state.is_running() => view! { <LiveDrain d server_now /> }.into_any(),
            (Some(d), record) => {
                // The record of the same drain knows when it ended; a summary only when it started.
                let ended = record.filter(|r| r.id == d.id).map_or(d.started_at, |r| tense::ended_at(&r));
                if Tense::at(ended, unschedulable, cordon.as_ref()).is_past() {
                    let past = Past { who: d.started_by, state: d.state, ended };
                    view! { <PastDrain past server_now /> }.into_any()
                } else {
                    view! { <LiveDrain d server_now /> }.into_any()
                }
            }
            (None, Some(record)) => {
                let record = record.interrupted();
                if Tense::of(&record, unschedulable, cordon.as_ref()).is_past() {
                    let ended = tense::ended_at(&record);
                    let past = Past { who: record.started_by, state: record.state, ended };
                    view! { <PastDrain past server_now /> }.into_any()
                } else {
                    let resumable = tense::may_resume(&record, unschedulable, cordon.as_ref());
                    view! { <RecordedDrain record resumable node=card.with_untracked(|c| c.name.clone()) /> }.into_any()
                }
            }
            (None, None) => ().into_any(),
        }
    }
}

/// A drain the node has left behind: who ran it, how it ended, and when.
#[derive(Clone)]
struct Past {
    who: String,
    state: DrainState,
    ended: Timestamp,
}

/// A past drain, muted and with nothing to act on: "Last drain by admin: Drained, 8 min ago; uncordoned since".
#[component]
fn PastDrain(past: Past, server_now: Signal<Timestamp>) -> impl IntoView {
    let i18n = use_i18n();
    let shown_state = format!("{:?}", past.state);
    let outcome = drain_outcome_text(i18n, &past.state);
    let text = move || {
        let age = age_text(i18n, server_now.get().duration_since(past.ended));
        t_string!(i18n, card.past_drain, who = &past.who, outcome = &outcome, age).to_string()
    };
    view! {
        <div class="card-drain past" data-testid="card-drain" data-state=shown_state data-tense="past">
            <p class="muted"><span data-testid="card-drain-text">{text}</span></p>
        </div>
    }
}

/// A drain this server runs or ran, or another server runs (from its node Lease): who, how far, why, and the
/// budget that holds it up.
#[component]
fn LiveDrain(d: DrainSummary, server_now: Signal<Timestamp>) -> impl IntoView {
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
    // Any other reason the drain waits (the budget's own line says as much for a budget at zero), the grace time
    // left counting down with the clock.
    let blocker = {
        let d = d.clone();
        move || {
            d.blocker_at(server_now.get()).filter(|b| {
                running
                    && !matches!(
                        b,
                        domain::blocker::Blocker::BudgetAtZero { .. } | domain::blocker::Blocker::BudgetNever { .. }
                    )
            })
        }
    };
    view! {
        <div class="card-drain" data-testid="card-drain" data-state=format!("{:?}", d.state) data-drain-id=d.id.clone() data-tense="present">
            <p>
                <span data-testid="card-drain-text">{text}</span>
                {d.reason.clone().map(|r| view! { <span class="muted">" · " {r}</span> })}
            </p>
            {running.then(|| view! {
                <progress max=d.total.max(1) value=d.done aria-label=t_string!(i18n, card.drain_progress)></progress>
            })}
            {blocked.map(|b| view! { <p class="blocked" data-testid="card-drain-blocked">{b}</p> })}
            {move || blocker().map(|b| view! {
                <p class="blocked" data-testid="card-drain-blocker" data-class=b.key()>{blocker_text(i18n, &b)}</p>
            })}
            {d.elsewhere.clone().filter(|_| running).map(|holder| view! {
                <p class="muted" data-testid="card-drain-elsewhere">{t_string!(i18n, card.elsewhere, holder)}</p>
            })}
        </div>
    }
}

/// The drain recorded on the node, by this server or another, while the node is still cordoned as it left it; an
/// interrupted one can be resumed from here (`resumable`).
#[component]
fn RecordedDrain(record: DrainRecord, resumable: bool, node: String) -> impl IntoView {
    let i18n = use_i18n();
    let actions = use_context::<Actions>();
    let state = drain_state_text(i18n, &record.state, record.pods_left);
    let text = t_string!(i18n, card.last_drain, who = &record.started_by, state).to_string();
    let shown_state = format!("{:?}", record.state);
    view! {
        <div class="card-drain" data-testid="card-drain" data-state=shown_state data-tense="present">
            <p><span data-testid="card-drain-text">{text}</span></p>
            {actions.filter(|_| resumable).map(|actions| view! {
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
