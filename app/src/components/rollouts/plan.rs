//! One rollout in the panel: its header with pause, resume and a stop that asks first, each node's step, and what
//! the people watching must do when every node waits to come back.

use domain::{
    rollout::{Back, RolloutNode, RolloutProgress, RolloutState, Step},
    verify::Verify,
};
use leptos::prelude::*;

use crate::{
    dialogs::{Actions, Dialog},
    i18n::{I18n, drain_state_text, failure_text, t_string, use_i18n},
    rollouts::{CancelRollout, PauseRollout},
};

/// Where a node of a rollout is, in words; `verify`, the plan's checks.
fn step_text(i18n: I18n, node: &RolloutNode, verify: Option<&Verify>) -> String {
    match (&node.back, &node.step) {
        (Some(Back::Waiting(_)), _) => t_string!(i18n, rollout.back_waiting).to_string(),
        // A person's word is not a reboot: the row says whose, and whether the node had rebooted.
        (Some(Back::Uncordoned), _) if node.said_back.is_some() => said_back_text(i18n, node, verify),
        (Some(Back::Uncordoned), _) => t_string!(i18n, rollout.back_uncordoned).to_string(),
        (Some(Back::Recovering), _) => t_string!(i18n, rollout.back_recovering).to_string(),
        (Some(Back::Unrecovered(failed)), _) => {
            t_string!(i18n, rollout.back_unrecovered, why = crate::i18n::checks_text(i18n, failed)).to_string()
        }
        (Some(Back::Failed(failure)), _) => {
            t_string!(i18n, rollout.back_failed, error = failure_text(i18n, failure)).to_string()
        }
        (Some(Back::Unverified(failed)), _) => {
            t_string!(i18n, rollout.back_unverified, why = crate::i18n::checks_text(i18n, failed)).to_string()
        }
        (Some(Back::Left), Step::Ended(state)) => {
            format!("{} · {}", drain_state_text(i18n, state, 0), t_string!(i18n, rollout.back_left))
        }
        (_, Step::Queued) => t_string!(i18n, rollout.queued).to_string(),
        (_, Step::Draining(_)) => t_string!(i18n, rollout.draining).to_string(),
        (_, Step::Ended(state)) => drain_state_text(i18n, state, 0),
        (_, Step::NotStarted) => t_string!(i18n, rollout.not_started).to_string(),
    }
}

/// A node taken as back on a person's word: who, whether it had a new boot id, and which of the plan's checks it
/// passed first, where it came by the plan's own "It is back".
/// The other tools at work on the node when its turn came: it waits for them, or was skipped for them.
fn others_view(i18n: I18n, node: &RolloutNode) -> Option<impl IntoView + use<>> {
    if node.others.is_empty() {
        return None;
    }
    let tools = domain::actor::ids(&node.others);
    let (state, text) = match node.step {
        Step::Queued => ("waiting", t_string!(i18n, rollout.others_waiting, tools = tools).to_string()),
        _ => ("skipped", t_string!(i18n, rollout.others_skipped, tools = tools).to_string()),
    };
    Some(view! { <span class="others" data-testid="rollout-node-others" data-state=state>" · " {text}</span> })
}

/// What the node's app teams were told (`domain::teams`), when any was: the latest notice and to whom.
fn told_view(i18n: I18n, told: Option<&domain::teams::Told>) -> Option<impl IntoView + use<>> {
    let told = told.filter(|t| !t.teams.is_empty())?;
    let teams = told.teams.join(", ");
    let (stage, text) = match told.stage {
        domain::teams::Stage::Ahead => ("ahead", t_string!(i18n, rollout.teams_ahead, teams = teams).to_string()),
        domain::teams::Stage::Evicted => ("evicted", t_string!(i18n, rollout.teams_evicted, teams = teams).to_string()),
        domain::teams::Stage::Back => ("back", t_string!(i18n, rollout.teams_back, teams = teams).to_string()),
    };
    Some(view! { <span class="told" data-testid="rollout-node-told" data-stage=stage>" · " {text}</span> })
}

fn said_back_text(i18n: I18n, node: &RolloutNode, verify: Option<&Verify>) -> String {
    let Some(said) = &node.said_back else { return String::new() };
    // Named only where they used the plan's own "It is back" (`domain::plan_step`).
    let by = said.by.clone().unwrap_or_else(|| t_string!(i18n, rollout.back_said_someone).to_string());
    let text = if said.new_boot {
        t_string!(i18n, rollout.back_said_rebooted, by).to_string()
    } else {
        t_string!(i18n, rollout.back_said_no_boot, by).to_string()
    };
    match verify.filter(|_| said.checked) {
        Some(v) => {
            let checks = crate::i18n::verify_checks_text(i18n, v);
            format!("{text}{}", t_string!(i18n, rollout.back_checks_passed, checks))
        }
        None => text,
    }
}

/// A stable name for a node's step, for tests and styles.
fn step_label(step: &Step) -> &'static str {
    match step {
        Step::Queued => "queued",
        Step::Draining(_) => "draining",
        Step::Ended(state) if state.is_drained() => "drained",
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
pub(super) fn RolloutView(id: String, rollouts: RwSignal<Vec<RolloutProgress>>) -> impl IntoView {
    let i18n = use_i18n();
    let actions = expect_context::<Actions>();
    let rollout = {
        let id = id.clone();
        Memo::new(move |_| rollouts.with(|r| r.iter().find(|x| x.id == id).cloned()))
    };
    let pause = ServerAction::<PauseRollout>::new();
    let stopping = RwSignal::new(false);
    let cancel = ServerAction::<CancelRollout>::new();
    let error = move || {
        [pause.value().get().and_then(Result::err), cancel.value().get().and_then(Result::err)]
            .into_iter()
            .flatten()
            .next()
            .map(|error| crate::i18n::failed_text(i18n, &error))
    };
    let id = StoredValue::new(id);
    let state = move || rollout.with(|r| r.as_ref().map(|r| r.state.clone()).unwrap_or(RolloutState::Finished));
    let live = move || matches!(state(), RolloutState::Running | RolloutState::Paused);
    let paused = move || state() == RolloutState::Paused;
    // The same counts and phase as the plan's status and kubectl's columns (`domain::tally`).
    let counts = move || {
        rollout.with(|r| {
            let nodes = r.as_ref().map(|r| r.nodes.as_slice()).unwrap_or_default();
            crate::i18n::tally_text(i18n, &domain::tally::Tally::of(nodes))
        })
    };
    let phase = move || rollout.with(|r| r.as_ref().map(RolloutProgress::phase).unwrap_or("Complete"));
    let heading = move || {
        rollout.with(|r| {
            r.as_ref()
                .map(|r| t_string!(i18n, rollout.by, count = r.nodes.len(), by = &r.started_by).to_string())
                .unwrap_or_default()
        })
    };
    let reason = move || rollout.with(|r| r.as_ref().and_then(|r| r.reason.clone()));
    let verify = move || rollout.with(|r| r.as_ref().and_then(|r| r.options.verify.clone()));
    let row = move |node: RolloutNode| {
        let checks = verify();
        let drain = node.drain_id.clone();
        let name = node.name.clone();
        view! {
            <tr
                data-testid="rollout-node"
                data-node=node.name.clone()
                data-step=step_label(&node.step)
                data-back=back_label(&node.back)
                data-standing=domain::tally::Standing::of(&node).label()
                data-said-back=node.said_back.as_ref().map(|s| s.by.clone().unwrap_or_default())
            >
                <td>{node.name.clone()}</td>
                <td>{node.zone.clone().unwrap_or_default()}</td>
                <td>
                    {step_text(i18n, &node, checks.as_ref())}
                    {others_view(i18n, &node)}
                    {told_view(i18n, node.told.as_ref())}
                </td>
                <td>
                    {drain.map(|drain| view! {
                        <button type="button" data-testid="rollout-node-details" on:click=move |_| actions.open(Dialog::Progress(drain.clone()))>
                            {t_string!(i18n, rollout.details)}
                        </button>
                    })}
                    {match &node.back {
                        Some(Back::Waiting(boot)) => Some(view! {
                            <super::back::BackAction plan=id.get_value() node=name.clone() boot_then=boot.clone() />
                        }),
                        _ => None,
                    }}
                </td>
            </tr>
        }
    };
    view! {
        <article class="rollout" data-testid="rollout" data-id=id.get_value() data-state=move || state_label(&state())>
            <header>
                <strong data-testid="rollout-name">{id.get_value()}</strong>
                " " <span>{heading}</span>
                " " <span class="badge" data-testid="rollout-state" data-phase=phase>{move || crate::i18n::plan_phase_text(i18n, phase())}</span>
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
                            aria-expanded=move || stopping.get().to_string()
                            on:click=move |_| stopping.set(true)
                        >
                            {t_string!(i18n, rollout.stop)}
                        </button>
                    }
                })}
            </header>
            {move || reason().map(|why| view! { <p class="plan-reason" data-testid="rollout-reason">{why}</p> })}
            // Stopping cancels the drains running and starts nothing more: it asks first, in place.
            {move || (stopping.get() && live()).then(|| view! {
                <p class="confirm-stop" role="alert" data-testid="rollout-stop-ask">
                    {t_string!(i18n, rollout.stop_ask)} " "
                    <button
                        type="button"
                        class="danger"
                        data-testid="rollout-stop-confirm"
                        on:click=move |_| {
                            stopping.set(false);
                            cancel.dispatch(CancelRollout { id: id.get_value() });
                        }
                    >
                        {t_string!(i18n, rollout.stop_confirm)}
                    </button>
                    " "
                    <button type="button" data-testid="rollout-stop-keep" on:click=move |_| stopping.set(false)>
                        {t_string!(i18n, rollout.stop_keep)}
                    </button>
                </p>
            })}
            {move || {
                let nodes: Vec<String> = rollout.with(|r| {
                    r.as_ref().map(|r| r.to_bring_back().into_iter().map(str::to_owned).collect()).unwrap_or_default()
                });
                (!nodes.is_empty()).then(|| view! {
                    <p class="hint" data-testid="rollout-bring-back">
                        {t_string!(i18n, rollout.bring_back, count = nodes.len(), nodes = nodes.join(", "))}
                    </p>
                })
            }}
            <crate::components::PlanRunner id rollout />
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

/// Whether a rollout has ended (finished or stopped): it folds away in the panel.
pub(super) fn is_ended(state: &RolloutState) -> bool {
    matches!(state, RolloutState::Finished | RolloutState::Cancelled)
}

pub(super) fn state_label(state: &RolloutState) -> &'static str {
    match state {
        RolloutState::Running => "running",
        RolloutState::Paused => "paused",
        RolloutState::Finished => "finished",
        RolloutState::Cancelled => "cancelled",
    }
}
