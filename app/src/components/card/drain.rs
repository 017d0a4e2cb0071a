use domain::{
    node::NodeCard,
    progress::{DrainRecord, DrainState, DrainSummary},
};
use leptos::prelude::*;

use crate::{
    api::ResumeDrain,
    dialogs::Actions,
    strings::{self, ActionStrings},
};

/// The state of a drain in words, with the pods left where that matters.
pub fn drain_state_text(a: &ActionStrings, state: &DrainState, left: usize) -> String {
    match state {
        DrainState::Cordoning => a.state_cordoning.into(),
        DrainState::Planning => a.state_planning.into(),
        DrainState::Evicting => a.state_evicting.into(),
        DrainState::Drained => a.state_drained.into(),
        DrainState::DrainedExceptTerminating(n) => (a.state_drained_except)(*n),
        DrainState::Refused => a.state_refused.into(),
        DrainState::DryRunPlanned => a.state_dry_planned.into(),
        DrainState::DryRunAccepted => a.state_dry_accepted.into(),
        DrainState::TimedOut => (a.state_timed_out)(left),
        DrainState::Cancelled => (a.state_cancelled)(left),
        DrainState::Failed(why) => (a.state_failed)(why),
        DrainState::Interrupted => a.state_interrupted.into(),
    }
}

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

/// A drain this server runs or ran: who, how far, why, and the budget that holds it up.
#[component]
fn LiveDrain(d: DrainSummary) -> impl IntoView {
    let a = strings::actions();
    let running = d.state.is_running();
    let text = if running {
        (a.card_draining)(&d.started_by, d.done, d.total)
    } else {
        (a.card_last_drain)(&d.started_by, &drain_state_text(a, &d.state, d.total - d.done))
    };
    let blocked = d
        .blocked_by
        .as_ref()
        .filter(|_| running)
        .map(|p| (a.pod_blocked_pdb)(&p.name, p.disruptions_allowed, p.desired_healthy, p.current_healthy));
    view! {
        <div class="card-drain" data-testid="card-drain" data-state=format!("{:?}", d.state) data-drain-id=d.id.clone()>
            <p>
                <span data-testid="card-drain-text">{text}</span>
                {d.reason.clone().map(|r| view! { <span class="muted">" · " {r}</span> })}
            </p>
            {running.then(|| view! {
                <progress max=d.total.max(1) value=d.done aria-label="drain progress"></progress>
            })}
            {blocked.map(|b| view! { <p class="blocked" data-testid="card-drain-blocked">{b}</p> })}
        </div>
    }
}

/// The drain recorded on the node, by this server or another; an interrupted one can be resumed from here.
#[component]
fn RecordedDrain(record: DrainRecord, node: String) -> impl IntoView {
    let a = strings::actions();
    let actions = use_context::<Actions>();
    // A record that says running, with no live drain here, was left by a server that stopped.
    let record = record.interrupted();
    let interrupted = record.state == DrainState::Interrupted;
    let text = (a.card_last_drain)(&record.started_by, &drain_state_text(a, &record.state, record.pods_left));
    view! {
        <div class="card-drain" data-testid="card-drain" data-state=format!("{:?}", record.state)>
            <p><span data-testid="card-drain-text">{text}</span></p>
            {actions.filter(|_| interrupted).map(|actions| view! {
                <button
                    type="button"
                    class="action"
                    data-testid="action-resume"
                    on:click=move |_| {
                        actions.resume.dispatch(ResumeDrain { node: node.clone() });
                    }
                >
                    {a.resume}
                </button>
            })}
        </div>
    }
}
