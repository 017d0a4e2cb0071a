//! The progress of one drain, live: a row per pod, a bar, the elapsed time, Cancel while it runs, and a final
//! state that says what is true. Anyone can open it; closing it does not stop the drain.

use domain::{
    board::Board,
    drain::DryRun,
    progress::{DrainProgress, DrainState},
    tense::Tense,
};
use jiff::Timestamp;
use leptos::prelude::*;

use super::{Actions, Dialog, Draft};
use crate::{
    api::CancelDrain,
    components::Modal,
    i18n::{age_text, drain_outcome_text, drain_state_text, elapsed_text, t_string, use_i18n},
    live::progress::follow_progress,
};

/// The panel of drain `id`.
#[component]
pub fn ProgressPanel(
    id: String,
    server_now: Signal<Timestamp>,
    board: RwSignal<Option<Board>>,
    /// The drain dialog a server dry run came from: closing the panel goes back to it.
    #[prop(optional)]
    back: Option<Draft>,
) -> impl IntoView {
    let i18n = use_i18n();
    let actions = expect_context::<Actions>();
    let feed = follow_progress(&id);
    let progress = feed.progress;
    let id = StoredValue::new(id);
    let cancel = ServerAction::<CancelDrain>::new();
    let title = Signal::derive(move || {
        progress
            .with(|p| {
                p.as_ref().map(|p| {
                    let node = &p.node;
                    match p.options.dry_run {
                        DryRun::None => t_string!(i18n, progress.title, node).to_string(),
                        _ => t_string!(i18n, progress.dry_run_title, node).to_string(),
                    }
                })
            })
            .unwrap_or_else(|| t_string!(i18n, actions.show_progress).to_string())
    });
    let arrived = Memo::new(move |_| progress.with(Option::is_some));
    let running = Memo::new(move |_| progress.with(|p| p.as_ref().is_some_and(|p| p.state.is_running())));
    let error = move || match cancel.value().get() {
        Some(Err(error)) => Some(crate::i18n::failed_text(i18n, &error)),
        _ => None,
    };
    let back = StoredValue::new(back);
    let close = Callback::new(move |_| match back.get_value() {
        Some(draft) => actions.open(Dialog::Again(Box::new(draft))),
        None => actions.close(),
    });
    let close_text = move || match back.with_value(Option::is_some) {
        true => t_string!(i18n, progress.back_to_dialog).to_string(),
        false => t_string!(i18n, actions.close).to_string(),
    };
    view! {
        <Modal title testid="progress-panel" wide=true on_close=close>
            {move || feed.missing.get().then(|| view! {
                <p class="error" role="alert" data-testid="progress-missing">{t_string!(i18n, progress.not_here)}</p>
            })}
            <Show when=move || arrived.get()>
                <ProgressBody progress server_now board />
            </Show>
            {move || error().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <div class="modal-buttons">
                <Show when=move || running.get()>
                    <button
                        type="button"
                        class="danger"
                        data-testid="cancel-drain"
                        disabled=cancel.pending()
                        on:click=move |_| {
                            cancel.dispatch(CancelDrain { id: id.get_value() });
                        }
                    >
                        {t_string!(i18n, progress.cancel_drain)}
                    </button>
                </Show>
                <button type="button" data-testid="progress-close" on:click=move |_| close.run(())>{close_text}</button>
            </div>
        </Modal>
    }
}

/// Everything the panel says about a drain once its first progress has come.
#[component]
fn ProgressBody(
    progress: RwSignal<Option<DrainProgress>>,
    server_now: Signal<Timestamp>,
    board: RwSignal<Option<Board>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let actions = expect_context::<Actions>();
    let with = move |f: &dyn Fn(&DrainProgress) -> String| progress.with(|p| p.as_ref().map(f)).unwrap_or_default();
    let state = Memo::new(move |_| progress.with(|p| p.as_ref().map(|p| (p.state.clone(), p.pods_left()))));
    let counts = Memo::new(move |_| progress.with(|p| p.as_ref().map_or((0, 0), |p| (p.done(), p.pods.len()))));
    let dry_run = Memo::new(move |_| progress.with(|p| p.as_ref().is_some_and(|p| p.options.dry_run != DryRun::None)));
    let state_class = move || match state.get().map(|(s, _)| s) {
        Some(s) if s.is_running() => "drain-state",
        // A dry run changed nothing: neither a success nor a failure of the node's drain.
        Some(_) if dry_run.get() => "drain-state neutral",
        Some(s) if s.is_final_ok() => "drain-state ok",
        _ => "drain-state bad",
    };
    // The bar fills as pods go; once a drain stops short (or a dry run only counts), it no longer reads as progress.
    let bar_class = move || match state.get().map(|(s, _)| s) {
        Some(s) if s.is_running() => "",
        Some(s) if s.is_final_ok() && !dry_run.get() => "ok",
        _ => "neutral",
    };
    let took = move || {
        with(&|p| elapsed_text(i18n, p.finished_at.unwrap_or_else(|| server_now.get()).duration_since(p.started_at)))
    };
    let uids = move || progress.with(|p| p.as_ref().map(|p| p.pods.iter().map(|x| x.uid.clone()).collect::<Vec<_>>()));
    // Returning the node to service needs no uncordon; one that comes back into service does, while the node is
    // still cordoned as the drain left it (`domain::tense`). Until the board has come, the drain alone decides.
    let after = Memo::new(move |_| {
        progress.with(|p| {
            let p = p.as_ref().filter(|p| p.offers_uncordon())?;
            let ended = p.finished_at.unwrap_or(p.started_at);
            let tense = board.with(|b| {
                let card = b.as_ref()?.cards.get(&p.node)?;
                Some(Tense::at(ended, card.unschedulable, card.cordon_record.as_ref()))
            });
            Some((p.node.clone(), tense.unwrap_or(Tense::Present)))
        })
    });
    let offer_uncordon = move || after.get().filter(|(_, t)| *t == Tense::Present).map(|(node, _)| node);
    let uncordoned_since = move || after.get().is_some_and(|(_, t)| t.is_past());
    view! {
        <p class="muted">
            {move || with(&|p| {
                let ago = age_text(i18n, server_now.get().duration_since(p.started_at));
                t_string!(i18n, progress.started_by, who = &p.started_by, ago).to_string()
            })}
            {move || progress.with(|p| p.as_ref().and_then(|p| p.reason.clone())).map(|r| view! {
                " · " <span data-testid="progress-reason">{r}</span>
            })}
        </p>
        <p
            class=state_class
            role="status"
            data-testid="progress-state"
            data-state=move || state.get().map(|(s, _)| format!("{s:?}"))
        >
            // Once the node was uncordoned after the drain, the long form ("safe to reboot or return", "the node
            // stays cordoned") is no longer true: the outcome alone, with the note below.
            {move || state.get().map(|(s, left)| match uncordoned_since() {
                true => drain_outcome_text(i18n, &s),
                false => drain_state_text(i18n, &s, left),
            })}
        </p>
        {move || state.get().map(|(s, _)| volume_list(i18n, &s, server_now.get()))}
        <div class="progress-line">
            <progress
                max=move || counts.get().1.max(1)
                value=move || counts.get().0
                class=bar_class
                data-testid="progress-bar"
                aria-label=t_string!(i18n, progress.pods_gone)
            ></progress>
            <span data-testid="progress-count">{move || {
                let (done, total) = counts.get();
                if dry_run.get() {
                    t_string!(i18n, progress.pods_would_go, done, count = total).to_string()
                } else {
                    t_string!(i18n, progress.pods_done, done, count = total).to_string()
                }
            }}</span>
            <span class="muted">{t_string!(i18n, progress.elapsed)} " " <span data-testid="progress-elapsed">{took}</span></span>
        </div>
        <table class="pod-progress" data-testid="progress-pods">
            <tbody>
                <For each=move || uids().unwrap_or_default() key=|uid| uid.clone() let(uid)>
                    <super::pod_row::PodRow uid progress server_now />
                </For>
            </tbody>
        </table>
        {move || uncordoned_since().then(|| view! {
            <p class="muted" data-testid="progress-uncordoned-since">{t_string!(i18n, progress.uncordoned_since)}</p>
        })}
        {move || offer_uncordon().map(|node| view! {
            <div class="after-drain">
                <p class="muted">{t_string!(i18n, progress.returning_note)}</p>
                <button
                    type="button"
                    data-testid="progress-uncordon"
                    on:click=move |_| actions.open(Dialog::Uncordon(node.clone()))
                >
                    {t_string!(i18n, progress.uncordon)}
                </button>
            </div>
        })}
    }
}

/// The volumes still attached to a drained node (`DrainState::Detaching`, `DrainedVolumesAttached`): each by its
/// attachment, its volume, its attacher and how long it has been attached. Nothing for any other state.
fn volume_list(i18n: crate::i18n::I18n, state: &DrainState, now: Timestamp) -> AnyView {
    let (DrainState::Detaching(attached) | DrainState::DrainedVolumesAttached(attached)) = state else {
        return ().into_any();
    };
    view! {
        <ul class="volumes" data-testid="volumes">
            {attached.named.iter().map(|v| {
                let age = v.since.map(|since| elapsed_text(i18n, now.duration_since(since))).unwrap_or_default();
                view! {
                    <li data-testid="volume" data-attachment=v.attachment.clone()>
                        {t_string!(i18n, progress.volume, attachment = v.attachment.clone(),
                            volume = v.volume.clone(), attacher = v.attacher.clone(), age)}
                    </li>
                }
            }).collect_view()}
        </ul>
    }
    .into_any()
}
