use domain::{
    audit::{AuditAction, AuditEntry, READY_OBSERVED, UNCORDON_OBSERVED},
    progress::DrainState,
};
use leptos::prelude::*;

use crate::{
    history::node_history,
    i18n::{I18n, date_time_text, drain_outcome_text, failure_text, t_string, took_text, use_i18n},
};

/// A node's maintenance history, newest first, from the durable record every replica writes to: who cordoned,
/// drained and uncordoned it, when, why, and how each drain ended. `changes` moves whenever the node's cordon or
/// drain record changes, which reloads it.
#[component]
pub fn NodeHistory(node: String, changes: Signal<String>) -> impl IntoView {
    let i18n = use_i18n();
    let history = Resource::new(move || (node.clone(), changes.get()), |(node, _)| node_history(node));
    // A drain's record, opened from the timeline (`?record=ID`): its entries stand out.
    let query = leptos_router::hooks::use_query_map();
    let selected = move || query.with(|q| q.get("record"));
    view! {
        <section class="node-history" data-testid="node-history">
            <h2>{t_string!(i18n, history.title)}</h2>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match history.await {
                        Ok(entries) if entries.is_empty() => {
                            view! { <p class="muted" data-testid="history-empty">{t_string!(i18n, history.empty)}</p> }.into_any()
                        }
                        Ok(entries) => view! {
                            <ol class="history">
                                {entries.into_iter().map(|e| {
                                    let chosen = e.drain_id.is_some() && e.drain_id == selected();
                                    view! { <Entry entry=e chosen /> }
                                }).collect_view()}
                            </ol>
                        }
                        .into_any(),
                        Err(err) => view! {
                            <p class="error" role="alert">{t_string!(i18n, history.failed, error = crate::i18n::error_text(i18n, &err))}</p>
                        }
                        .into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn Entry(entry: AuditEntry, chosen: bool) -> impl IntoView {
    let i18n = use_i18n();
    let time = date_time_text(i18n, entry.at);
    let when = t_string!(i18n, history.at, time).to_string();
    view! {
        <li
            data-testid="history-entry"
            data-action=format!("{:?}", entry.action)
            data-drain-id=entry.drain_id.clone()
            class:chosen=chosen
            aria-current=chosen.then_some("true")
        >
            <time datetime=entry.at.to_string()>{when}</time>
            " · "
            <span>{what(i18n, &entry)}</span>
            // A drain's end, its real time beside what was expected as it started.
            {entry.timing.as_ref().filter(|_| entry.action == AuditAction::DrainEnded).and_then(|t| {
                let text = took_text(i18n, t)?;
                Some(view! {
                    <span class="muted" data-testid="history-took" data-took=t.took_seconds
                        data-likely=t.estimate.as_ref().map(|e| e.likely_seconds)>" · " {text}</span>
                })
            })}
            {entry.reason.clone().filter(|r| r != READY_OBSERVED && r != UNCORDON_OBSERVED).map(|r| view! { <span class="muted">" · " {t_string!(i18n, history.reason, reason = r)}</span> })}
        </li>
    }
}

fn what(i18n: I18n, entry: &AuditEntry) -> String {
    let who = entry.user.clone();
    // How a drain ended in the page's language (with a failure's own words); an entry written before the history
    // kept the state, as it was written.
    let outcome = match &entry.ended {
        Some(DrainState::Failed(failure)) => {
            format!(
                "{}: {}",
                drain_outcome_text(i18n, &DrainState::Failed(failure.clone())),
                failure_text(i18n, failure)
            )
        }
        Some(state) => drain_outcome_text(i18n, state),
        None => entry.outcome.clone().unwrap_or_default(),
    };
    match entry.action {
        AuditAction::Cordon if entry.drain_id.is_some() => t_string!(i18n, history.cordon_by_drain, who).to_string(),
        AuditAction::Cordon => t_string!(i18n, history.cordon, who).to_string(),
        AuditAction::Uncordon if entry.reason.as_deref() == Some(UNCORDON_OBSERVED) => {
            t_string!(i18n, history.uncordon_observed).to_string()
        }
        AuditAction::Uncordon => t_string!(i18n, history.uncordon, who).to_string(),
        AuditAction::DrainStarted => t_string!(i18n, history.drain_started, who).to_string(),
        AuditAction::DrainEnded => t_string!(i18n, history.drain_ended, who, outcome).to_string(),
        AuditAction::DrainCancelled => t_string!(i18n, history.drain_cancelled, who).to_string(),
        AuditAction::DrainResumed => t_string!(i18n, history.drain_resumed, who).to_string(),
        AuditAction::Unblocked => t_string!(i18n, history.unblocked, who, outcome).to_string(),
        AuditAction::Moved => t_string!(i18n, history.moved, who, outcome).to_string(),
        AuditAction::WindowOverridden => t_string!(i18n, history.window_overridden, who, outcome).to_string(),
        AuditAction::NodeNotReady => {
            t_string!(i18n, history.node_not_ready, outcome = entry.reason.clone().unwrap_or_default()).to_string()
        }
        AuditAction::NodeReady if entry.reason.as_deref() == Some(READY_OBSERVED) => {
            t_string!(i18n, history.node_ready_observed).to_string()
        }
        AuditAction::NodeReady => t_string!(i18n, history.node_ready).to_string(),
        AuditAction::ActorSeen => match domain::actor_history::of_entry(entry) {
            Some(sighting) => crate::i18n::sighting_text(i18n, &sighting),
            None => entry.reason.clone().unwrap_or_default(),
        },
        AuditAction::ActorGone => {
            let who = match domain::actor_history::of_entry(entry) {
                Some(s) => crate::i18n::actor_name(i18n, s.actor),
                None => entry.reason.clone().unwrap_or_default(),
            };
            t_string!(i18n, history.actor_gone, who).to_string()
        }
        AuditAction::OthersHeld | AuditAction::OthersReleased => {
            // The window that asked, and the switches by their ids (`domain::hold_others`).
            let window = entry.reason.clone().unwrap_or_default();
            let switches = entry.outcome.clone().unwrap_or_default();
            if entry.action == AuditAction::OthersHeld {
                t_string!(i18n, history.others_held, switches, window).to_string()
            } else {
                t_string!(i18n, history.others_released, switches).to_string()
            }
        }
    }
}
