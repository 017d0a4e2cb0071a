//! Rolling maintenance on the board: choosing nodes (cards, or every node the filters show), and the panel of
//! rollouts that everyone watching sees, with each node's step and the rollout's pause, resume and stop.

use std::collections::BTreeSet;

use domain::{
    progress::DrainState,
    rollout::{Back, RolloutNode, RolloutProgress, RolloutState, Step},
};
use leptos::prelude::*;

use crate::{
    dialogs::{Actions, Dialog},
    i18n::{I18n, drain_state_text, failure_text, t_string, use_i18n},
    live::Current,
    rollouts::{CancelRollout, PauseRollout, RolloutNodeBack},
    state::{Filters, Selection},
};

/// A card's checkbox: present only where a [`Selection`] is (the board).
#[component]
pub fn SelectBox(name: String) -> impl IntoView {
    let i18n = use_i18n();
    use_context::<Selection>().map(|selection| {
        let Selection(chosen) = selection;
        let label = t_string!(i18n, rollout.select, node = &name).to_string();
        let (checked, toggled) = (name.clone(), name);
        view! {
            <input
                type="checkbox"
                class="card-select"
                data-testid="card-select"
                aria-label=label
                prop:checked=move || chosen.with(|c| c.contains(&checked))
                on:change=move |ev| {
                    selection.set(&toggled, event_target_checked(&ev));
                }
            />
        }
    })
}

/// The bar above the cards: select every node the filters show (the label filter is a label selector), clear,
/// and open the rollout dialog for the chosen nodes.
#[component]
pub fn RolloutBar(current: Current, filters: Filters) -> impl IntoView {
    let i18n = use_i18n();
    let actions = expect_context::<Actions>();
    let Selection(chosen) = expect_context::<Selection>();
    let shown = Memo::new(move |_| {
        let filter = filters.filter();
        current.with(|b| b.cards.values().filter(|c| filter.matches(c)).map(|c| c.name.clone()).collect::<Vec<_>>())
    });
    let count = move || chosen.with(BTreeSet::len);
    view! {
        <div class="rollout-bar" data-testid="rollout-bar">
            <button
                type="button"
                data-testid="select-shown"
                // Nothing shown, nothing to select: "Select the 0 nodes shown" would do nothing.
                disabled=move || shown.with(Vec::is_empty)
                on:click=move |_| chosen.update(|c| c.extend(shown.get_untracked()))
            >
                {move || t_string!(i18n, rollout.select_shown, count = shown.with(Vec::len)).to_string()}
            </button>
            {move || (count() > 0).then(|| view! {
                <span data-testid="selected-count" data-count=count()>{t_string!(i18n, rollout.selected, count = count())}</span>
                <button type="button" data-testid="clear-selection" on:click=move |_| chosen.set(BTreeSet::new())>
                    {t_string!(i18n, rollout.clear)}
                </button>
                <button
                    type="button"
                    class="primary"
                    data-testid="open-rollout"
                    on:click=move |_| actions.open(Dialog::Rollout(chosen.get_untracked().into_iter().collect()))
                >
                    {t_string!(i18n, rollout.open)}
                </button>
            })}
        </div>
    }
}

/// Every plan, latest first, as the board stream sends them after each change (no polling).
#[component]
pub fn RolloutsPanel(plans: RwSignal<Option<Vec<RolloutProgress>>>) -> impl IntoView {
    let rollouts = RwSignal::new(Vec::<RolloutProgress>::new());
    Effect::new(move |_| {
        if let Some(list) = plans.get() {
            rollouts.set(list);
        }
    });
    // The list is empty until the browser's first answer, so the server renders nothing here and hydration finds
    // nothing to match: the panel's code can load when there is a rollout to show.
    view! {
        <Show when=move || rollouts.with(|r| !r.is_empty())>
            <Suspense fallback=|| ()>{Suspend::new(rollouts_view(rollouts))}</Suspense>
        </Show>
    }
}

/// The panel itself, its code loaded when the first rollout appears (a part of the wasm of its own with `--split`):
/// most boards have none running.
#[lazy]
fn rollouts_view(rollouts: RwSignal<Vec<RolloutProgress>>) -> AnyView {
    let i18n = use_i18n();
    view! {
        <section class="rollouts" data-testid="rollouts">
            <h2>{t_string!(i18n, rollout.panel)}</h2>
            <For each=move || rollouts.with(|r| r.iter().map(|r| r.id.clone()).collect::<Vec<_>>()) key=|id| id.clone() let(id)>
                <RolloutView id rollouts />
            </For>
        </section>
    }
    .into_any()
}

fn state_text(i18n: I18n, state: &RolloutState) -> String {
    match state {
        RolloutState::Running => t_string!(i18n, rollout.state_running),
        RolloutState::Paused => t_string!(i18n, rollout.state_paused),
        RolloutState::Finished => t_string!(i18n, rollout.state_finished),
        RolloutState::Cancelled => t_string!(i18n, rollout.state_cancelled),
    }
    .to_string()
}

/// Where a node of a rollout is, in words.
fn step_text(i18n: I18n, node: &RolloutNode) -> String {
    match (&node.back, &node.step) {
        (Some(Back::Waiting(_)), _) => t_string!(i18n, rollout.back_waiting).to_string(),
        (Some(Back::Uncordoned), _) => t_string!(i18n, rollout.back_uncordoned).to_string(),
        (Some(Back::Recovering), _) => t_string!(i18n, rollout.back_recovering).to_string(),
        (Some(Back::Unrecovered(why)), _) => t_string!(i18n, rollout.back_unrecovered, why = why.as_str()).to_string(),
        (Some(Back::Failed(failure)), _) => {
            t_string!(i18n, rollout.back_failed, error = failure_text(i18n, failure)).to_string()
        }
        (Some(Back::Unverified(why)), _) => t_string!(i18n, rollout.back_unverified, why = why.as_str()).to_string(),
        (Some(Back::Left), Step::Ended(state)) => {
            format!("{} · {}", drain_state_text(i18n, state, 0), t_string!(i18n, rollout.back_left))
        }
        (_, Step::Queued) => t_string!(i18n, rollout.queued).to_string(),
        (_, Step::Draining(_)) => t_string!(i18n, rollout.draining).to_string(),
        (_, Step::Ended(state)) => drain_state_text(i18n, state, 0),
        (_, Step::NotStarted) => t_string!(i18n, rollout.not_started).to_string(),
    }
}

/// A stable name for a node's step, for tests and styles.
fn step_label(step: &Step) -> &'static str {
    match step {
        Step::Queued => "queued",
        Step::Draining(_) => "draining",
        Step::Ended(DrainState::Drained | DrainState::DrainedExceptTerminating(_)) => "drained",
        Step::Ended(_) => "failed",
        Step::NotStarted => "not-started",
    }
}

fn back_label(back: &Option<Back>) -> &'static str {
    match back {
        None => "",
        Some(Back::Waiting(_)) => "waiting",
        Some(Back::Uncordoned) => "uncordoned",
        Some(Back::Failed(_)) => "failed",
        Some(Back::Left) => "left",
        Some(Back::Recovering) => "recovering",
        Some(Back::Unrecovered(_)) => "unrecovered",
        Some(Back::Unverified(_)) => "unverified",
    }
}

/// One rollout, following it in the panel's list by id: its header and buttons stay, its rows follow its nodes.
#[component]
fn RolloutView(id: String, rollouts: RwSignal<Vec<RolloutProgress>>) -> impl IntoView {
    let i18n = use_i18n();
    let actions = expect_context::<Actions>();
    let rollout = {
        let id = id.clone();
        Memo::new(move |_| rollouts.with(|r| r.iter().find(|x| x.id == id).cloned()))
    };
    let pause = ServerAction::<PauseRollout>::new();
    let cancel = ServerAction::<CancelRollout>::new();
    let back = ServerAction::<RolloutNodeBack>::new();
    let error = move || {
        [
            pause.value().get().and_then(Result::err),
            cancel.value().get().and_then(Result::err),
            back.value().get().and_then(Result::err),
        ]
        .into_iter()
        .flatten()
        .next()
        .map(|error| t_string!(i18n, app.failed, error).to_string())
    };
    let id = StoredValue::new(id);
    let state = move || rollout.with(|r| r.as_ref().map(|r| r.state.clone()).unwrap_or(RolloutState::Finished));
    let live = move || matches!(state(), RolloutState::Running | RolloutState::Paused);
    let paused = move || state() == RolloutState::Paused;
    let counts = move || {
        rollout.with(|r| {
            let nodes = r.as_ref().map(|r| r.nodes.as_slice()).unwrap_or_default();
            let count = |label: &str| nodes.iter().filter(|n| step_label(&n.step) == label).count();
            t_string!(
                i18n,
                rollout.counts,
                queued = count("queued"),
                draining = count("draining"),
                done = count("drained"),
                failed = count("failed")
            )
            .to_string()
        })
    };
    let heading = move || {
        rollout.with(|r| {
            r.as_ref()
                .map(|r| t_string!(i18n, rollout.by, count = r.nodes.len(), by = &r.started_by).to_string())
                .unwrap_or_default()
        })
    };
    let row = move |node: RolloutNode| {
        let drain = node.drain_id.clone();
        let name = node.name.clone();
        view! {
            <tr data-testid="rollout-node" data-node=node.name.clone() data-step=step_label(&node.step) data-back=back_label(&node.back)>
                <td>{node.name.clone()}</td>
                <td>{node.zone.clone().unwrap_or_default()}</td>
                <td>{step_text(i18n, &node)}</td>
                <td>
                    {drain.map(|drain| view! {
                        <button type="button" data-testid="rollout-node-details" on:click=move |_| actions.open(Dialog::Progress(drain.clone()))>
                            {t_string!(i18n, rollout.details)}
                        </button>
                    })}
                    {node.waiting_back().then(|| view! {
                        <button
                            type="button"
                            data-testid="rollout-node-back"
                            on:click=move |_| { back.dispatch(RolloutNodeBack { id: id.get_value(), node: name.clone() }); }
                        >
                            {t_string!(i18n, rollout.is_back)}
                        </button>
                    })}
                </td>
            </tr>
        }
    };
    view! {
        <article class="rollout" data-testid="rollout" data-id=id.get_value() data-state=move || state_label(&state())>
            <header>
                <strong>{heading}</strong>
                " " <span class="badge" data-testid="rollout-state">{move || state_text(i18n, &state())}</span>
                " " <span data-testid="rollout-counts">{counts}</span>
                {move || live().then(|| {
                    let paused = paused();
                    view! {
                        <button
                            type="button"
                            data-testid=if paused { "rollout-resume" } else { "rollout-pause" }
                            on:click=move |_| { pause.dispatch(PauseRollout { id: id.get_value(), paused: !paused }); }
                        >
                            {if paused { t_string!(i18n, rollout.resume) } else { t_string!(i18n, rollout.pause) }}
                        </button>
                        <button
                            type="button"
                            class="danger"
                            data-testid="rollout-stop"
                            on:click=move |_| { cancel.dispatch(CancelRollout { id: id.get_value() }); }
                        >
                            {t_string!(i18n, rollout.stop)}
                        </button>
                    }
                })}
            </header>
            <super::PlanRunner id rollout />
            {move || error().map(|e| view! { <p class="error" role="alert" data-testid="rollout-error">{e}</p> })}
            <table class="rollout-nodes">
                <tbody>
                    {move || rollout.with(|r| r.as_ref().map(|r| r.nodes.clone()).unwrap_or_default()).into_iter().map(row).collect_view()}
                </tbody>
            </table>
        </article>
    }
    .into_any()
}

fn state_label(state: &RolloutState) -> &'static str {
    match state {
        RolloutState::Running => "running",
        RolloutState::Paused => "paused",
        RolloutState::Finished => "finished",
        RolloutState::Cancelled => "cancelled",
    }
}
