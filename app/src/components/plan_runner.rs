//! Who runs a maintenance plan, and why it waits when nobody can: the lines under a rollout's header, with the
//! Continue button that hands this server the viewer's credentials for a plan whose server stopped, and, once the
//! plan has ended, Undo with what it did node by node.

use domain::{
    rollout::{RolloutProgress, RolloutState},
    undo::{LeaveReason, UndoNode, UndoStep},
};
use leptos::prelude::*;

use crate::{
    i18n::I18n,
    i18n::{t_string, use_i18n},
    rollouts::{ContinueRollout, UndoRollout},
};

/// Why undo left a node alone, in words.
fn leave_text(i18n: I18n, reason: &LeaveReason) -> String {
    match reason {
        LeaveReason::CordonedBefore => t_string!(i18n, rollout.undo_cordoned_before).to_string(),
        LeaveReason::NotDrained => t_string!(i18n, rollout.undo_not_drained).to_string(),
        LeaveReason::NotCordoned => t_string!(i18n, rollout.undo_not_cordoned).to_string(),
        LeaveReason::DrainedSince { by, .. } => t_string!(i18n, rollout.undo_drained_since, by = by).to_string(),
        LeaveReason::CordonedSince { by } => {
            t_string!(i18n, rollout.undo_cordoned_since, by = by.as_deref().unwrap_or("?")).to_string()
        }
        LeaveReason::Gone => t_string!(i18n, rollout.undo_gone).to_string(),
    }
}

/// One node's line of an undo's answer.
fn undo_line(i18n: I18n, line: UndoNode) -> impl IntoView {
    let text = match (&line.step, &line.error) {
        (UndoStep::Uncordon, None) => t_string!(i18n, rollout.undo_uncordoned).to_string(),
        (UndoStep::Uncordon, Some(error)) => t_string!(i18n, app.failed, error = error.as_str()).to_string(),
        (UndoStep::Leave(reason), _) => leave_text(i18n, reason),
    };
    let done = line.step == UndoStep::Uncordon && line.error.is_none();
    let name = line.node.clone();
    view! {
        <li data-testid="plan-undo-node" data-node=name data-uncordoned=done.to_string()>
            {line.node} ": " {text}
        </li>
    }
}

/// Who runs a plan, from its status' "host/1f2e as alice", in the page's language.
fn runner_text(i18n: I18n, runner: &str) -> String {
    match runner.rsplit_once(" as ") {
        Some((server, user)) => t_string!(i18n, rollout.run_by_as, server = server, user = user).to_string(),
        None => t_string!(i18n, rollout.run_by, runner = runner).to_string(),
    }
}

/// The runner, the plan's blocked reason and who continued it, for the rollout `rollout` (by id `id`).
#[component]
pub fn PlanRunner(id: StoredValue<String>, rollout: Memo<Option<RolloutProgress>>) -> impl IntoView {
    let i18n = use_i18n();
    let resume = ServerAction::<ContinueRollout>::new();
    let undo = ServerAction::<UndoRollout>::new();
    let ended = move || {
        rollout
            .with(|r| r.as_ref().is_some_and(|r| matches!(r.state, RolloutState::Finished | RolloutState::Cancelled)))
    };
    let runner = move || rollout.with(|r| r.as_ref().and_then(|r| r.runner.clone()));
    let blocked = move || rollout.with(|r| r.as_ref().and_then(|r| r.blocked.clone()));
    let continued = move || rollout.with(|r| r.as_ref().and_then(|r| r.continued_by.clone()));
    // A spec changed since it was confirmed: the changes, and the generation Continue confirms.
    let changed = move || rollout.with(|r| r.as_ref().and_then(|r| r.spec_changed.clone()));
    // A window that holds the next node, in the reader's language; the plan goes on by itself once it may.
    let held = move || {
        rollout.with(|r| {
            let held = r.as_ref().filter(|r| r.blocked.is_none())?.held.as_ref()?;
            let why = crate::i18n::hold_text(i18n, &held.hold, held.at);
            Some(t_string!(i18n, rollout.held, node = held.node.clone(), window = held.window.clone(), why).to_string())
        })
    };
    let error = move || resume.value().get().and_then(Result::err).map(|error| crate::i18n::failed_text(i18n, &error));
    let live = use_context::<crate::live::LiveNow>();
    let undo_preview = move || {
        let board = live?.board;
        rollout.with(|r| {
            let r = r.as_ref()?;
            board.with(|b| {
                let b = b.as_ref()?;
                Some(
                    r.nodes
                        .iter()
                        .filter(|n| domain::undo::decide(n, b.cards.get(&n.name)) == UndoStep::Uncordon)
                        .map(|n| n.name.clone())
                        .collect::<Vec<_>>(),
                )
            })
        })
    };
    view! {
        {move || runner().map(|runner| view! {
            <p class="plan-runner" data-testid="plan-runner">{runner_text(i18n, &runner)}</p>
        })}
        {move || continued().map(|by| view! {
            <p class="plan-continued" data-testid="plan-continued-by">{t_string!(i18n, rollout.continued_by, by = by)}</p>
        })}
        {move || blocked().map(|why| view! {
            <p class="plan-blocked" role="status" data-testid="plan-blocked" data-reason=why.reason()>
                {t_string!(i18n, rollout.blocked, why = crate::i18n::plan_blocked_text(i18n, &why))} " "
                <button
                    type="button"
                    class="primary"
                    data-testid="plan-continue"
                    disabled=move || resume.pending().get()
                    on:click=move |_| {
                        let generation = changed().map(|c| c.generation);
                        resume.dispatch(ContinueRollout { id: id.get_value(), generation });
                    }
                >
                    {move || match changed() {
                        Some(c) => t_string!(i18n, rollout.continue_confirming, generation = c.generation).to_string(),
                        None => t_string!(i18n, rollout.continue_as_me).to_string(),
                    }}
                </button>
            </p>
        })}
        {move || changed().map(|c| view! {
            <div class="plan-spec-changed" data-testid="plan-spec-changed" data-generation=c.generation.to_string()>
                <p>{t_string!(i18n, rollout.spec_changed, pinned = c.pinned, generation = c.generation)}</p>
                <ul>
                    {c.changes.into_iter().map(|change| view! {
                        <li data-testid="plan-spec-change" data-field=change.field.path()>
                            <code>{change.field.path()}</code> ": " {change.pinned} " → " {change.now}
                        </li>
                    }).collect_view()}
                </ul>
            </div>
        })}
        {move || held().map(|text| view! { <p class="plan-held" role="status" data-testid="plan-held">{text}</p> })}
        {move || ended().then(|| view! {
            <p class="plan-undo">
                // What it would uncordon, as the board sees the nodes now (`domain::undo::decide`, the rule the
                // server applies again when asked); off once used.
                {move || undo_preview().map(|nodes| view! {
                    <span class="hint" data-testid="plan-undo-preview" data-nodes=nodes.len()>
                        {if nodes.is_empty() {
                            t_string!(i18n, rollout.undo_preview_none).to_string()
                        } else {
                            t_string!(i18n, rollout.undo_preview, nodes = nodes.join(", ")).to_string()
                        }}
                    </span>
                })}
                " "
                <button
                    type="button"
                    data-testid="plan-undo"
                    disabled=move || undo.pending().get() || undo.value().with(|v| matches!(v, Some(Ok(_))))
                    on:click=move |_| { undo.dispatch(UndoRollout { id: id.get_value() }); }
                >
                    {t_string!(i18n, rollout.undo)}
                </button>
            </p>
        })}
        {move || undo.value().get().and_then(Result::ok).map(|lines| view! {
            <ul class="plan-undo-result" data-testid="plan-undo-result">
                {lines.into_iter().map(|line| undo_line(i18n, line)).collect_view()}
            </ul>
        })}
        {move || error().map(|e| view! { <p class="error" role="alert" data-testid="plan-continue-error">{e}</p> })}
    }
}
