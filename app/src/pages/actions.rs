//! The node actions: cordon, uncordon and drain, each behind a dialog that says what will happen, and the drain
//! progress panel that everyone watching can open. One dialog at a time, hosted by the page.

use std::collections::BTreeMap;

use domain::{
    actions::{Availability, Lacking, Unavailable, card_actions},
    drain::{DrainOption, DrainOptions, DryRun, EvictNote, Refusal, SkipReason},
    node::NodeCard,
    preview::{Preview, PreviewInputs, PreviewPod, can_confirm, destructive_options, preview},
    progress::{CordonOutcome, DrainProgress, DrainState, DrainSummary, PodProgress, PodState},
    selector::SelectorError,
};
use jiff::Timestamp;
use leptos::prelude::*;

#[cfg(feature = "hydrate")]
use super::dom;
use crate::{
    api::{cancel_drain, cordon_node, permissions, resume_drain, start_drain, uncordon_node},
    strings::{self, ActionStrings},
};

/// The dialog open on the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dialog {
    Cordon(String),
    Uncordon(String),
    Drain(String),
    /// A drain's progress, by id.
    Progress(String),
}

/// What the cards and the dialogs share on the board page.
#[derive(Clone, Copy)]
pub struct Actions {
    pub dialog: RwSignal<Option<Dialog>>,
    /// What the person may not do; `None` until the API server has answered.
    pub lacking: RwSignal<Option<Lacking>>,
    /// The last outcome, announced to screen readers and shown under the toolbar: (succeeded, message).
    pub notice: RwSignal<Option<(bool, String)>>,
}

impl Actions {
    /// Asks the API server what this person may do; run once per page.
    pub fn new() -> Self {
        let actions =
            Actions { dialog: RwSignal::new(None), lacking: RwSignal::new(None), notice: RwSignal::new(None) };
        Effect::new(move |_| {
            leptos::task::spawn_local(async move {
                match permissions().await {
                    Ok(lacking) => actions.lacking.set(Some(lacking)),
                    Err(err) => actions.notice.set(Some((false, err.to_string()))),
                }
            });
        });
        actions
    }
}

fn unavailable_text(a: &ActionStrings, why: &Unavailable) -> String {
    match why {
        Unavailable::AlreadyCordoned => a.already_cordoned.into(),
        Unavailable::NotCordoned => a.not_cordoned.into(),
        Unavailable::DrainRunning => a.drain_running.into(),
        Unavailable::Missing(p) => (a.missing_permission)(p),
        Unavailable::Checking => a.checking_permissions.into(),
    }
}

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

/// A button that is disabled with its reason as a visible hint and a tooltip.
#[component]
fn ActionButton(
    label: &'static str,
    testid: &'static str,
    availability: Signal<Availability>,
    on_click: Callback<()>,
) -> impl IntoView {
    let a = strings::actions();
    let reason = move || availability.get().err().map(|why| unavailable_text(a, &why));
    view! {
        <button
            type="button"
            class="action"
            data-testid=testid
            disabled=move || availability.get().is_err()
            title=reason
            data-reason=reason
            on:click=move |_| on_click.run(())
        >
            {label}
        </button>
    }
}

/// The card's actions and its drain, if any.
#[component]
pub fn CardActions(card: Memo<NodeCard>, drain: Signal<Option<DrainSummary>>) -> impl IntoView {
    let a = strings::actions();
    let Some(actions) = use_context::<Actions>() else {
        return ().into_any();
    };
    let available = Memo::new(move |_| {
        let unschedulable = card.with(|c| c.unschedulable);
        actions.lacking.with(|l| drain.with(|d| card_actions(unschedulable, d.as_ref(), l.as_ref())))
    });
    let name = move || card.with(|c| c.name.clone());
    let open = move |d: fn(String) -> Dialog| Callback::new(move |_| actions.dialog.set(Some(d(name()))));
    // Reason-first: a missing permission is named on the card, not only in a tooltip.
    let hint = move || {
        let av = available.get();
        [av.drain.err(), av.cordon.err()].into_iter().flatten().find_map(|why| match why {
            Unavailable::Missing(_) => Some(unavailable_text(a, &why)),
            _ => None,
        })
    };
    view! {
        <div class="card-actions" role="group" aria-label="actions">
            <ActionButton
                label=a.cordon
                testid="action-cordon"
                availability=Signal::derive(move || available.get().cordon)
                on_click=open(Dialog::Cordon)
            />
            <ActionButton
                label=a.drain
                testid="action-drain"
                availability=Signal::derive(move || available.get().drain)
                on_click=open(Dialog::Drain)
            />
            <ActionButton
                label=a.uncordon
                testid="action-uncordon"
                availability=Signal::derive(move || available.get().uncordon)
                on_click=open(Dialog::Uncordon)
            />
            {move || drain.get().map(|d| {
                let id = d.id.clone();
                view! {
                    <button
                        type="button"
                        class="action"
                        data-testid="action-progress"
                        on:click=move |_| actions.dialog.set(Some(Dialog::Progress(id.clone())))
                    >
                        {a.show_progress}
                    </button>
                }
            })}
            {move || hint().map(|h| view! { <p class="action-hint" data-testid="action-hint">{h}</p> })}
        </div>
    }
    .into_any()
}

/// The drain a card shows: the live one from this server, or else the record on the node.
#[component]
pub fn CardDrain(card: Memo<NodeCard>, drain: Signal<Option<DrainSummary>>) -> impl IntoView {
    let a = strings::actions();
    let actions = use_context::<Actions>();
    move || {
        if let Some(d) = drain.get() {
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
            return view! {
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
            .into_any();
        }
        let Some(record) = card.with(|c| c.drain_record.clone()) else {
            return ().into_any();
        };
        // A record that says running, with no live drain here, was left by a server that stopped.
        let record = record.interrupted();
        let interrupted = record.state == DrainState::Interrupted;
        let node = card.with(|c| c.name.clone());
        let text = (a.card_last_drain)(&record.started_by, &drain_state_text(a, &record.state, record.pods_left));
        view! {
            <div class="card-drain" data-testid="card-drain" data-state=format!("{:?}", record.state)>
                <p><span data-testid="card-drain-text">{text}</span></p>
                {(interrupted && actions.is_some()).then(|| view! {
                    <button
                        type="button"
                        class="action"
                        data-testid="action-resume"
                        on:click=move |_| {
                            let node = node.clone();
                            leptos::task::spawn_local(async move {
                                match resume_drain(node).await {
                                    Ok(started) => {
                                        if let Some(actions) = actions {
                                            actions.dialog.set(Some(Dialog::Progress(started.id)));
                                        }
                                    }
                                    Err(err) => {
                                        if let Some(actions) = actions {
                                            actions.notice.set(Some((false, err.to_string())));
                                        }
                                    }
                                }
                            });
                        }
                    >
                        {a.resume}
                    </button>
                })}
            </div>
        }
        .into_any()
    }
}

/// Renders the open dialog, if any, and keeps the URL pointing at an open progress panel so that a reload or a
/// shared link re-attaches to the drain.
#[component]
pub fn DialogHost(server_now: Signal<Timestamp>) -> impl IntoView {
    let actions = expect_context::<Actions>();
    #[cfg(feature = "hydrate")]
    {
        // Open the panel named in the URL, once.
        Effect::new(move |_| {
            if let Some(id) = dom::query_param("drain") {
                actions.dialog.set(Some(Dialog::Progress(id)));
            }
        });
        // Focus goes back to what opened the first dialog once the last one closes (one dialog may open another:
        // the drain dialog opens the progress panel, which may open the uncordon dialog).
        let opener = StoredValue::new(dom::active_element());
        Effect::new(move |was_open: Option<bool>| {
            let open = actions.dialog.with(Option::is_some);
            match (was_open.unwrap_or(false), open) {
                (false, true) => opener.set_value(dom::active_element()),
                (true, false) => dom::restore_focus(opener.get_value()),
                _ => {}
            }
            open
        });
        Effect::new(move |_| {
            let id = actions.dialog.with(|d| match d {
                Some(Dialog::Progress(id)) => Some(id.clone()),
                _ => None,
            });
            dom::set_query_param("drain", id.as_deref());
        });
    }
    move || {
        actions.dialog.get().map(|dialog| match dialog {
            Dialog::Cordon(node) => view! { <CordonDialog node cordon=true /> }.into_any(),
            Dialog::Uncordon(node) => view! { <CordonDialog node cordon=false /> }.into_any(),
            Dialog::Drain(node) => view! { <DrainDialog node /> }.into_any(),
            Dialog::Progress(id) => view! { <ProgressPanel id server_now /> }.into_any(),
        })
    }
}

/// A modal dialog: focus moves in and is trapped there, Escape closes, and focus returns where it was.
#[component]
fn Modal(
    #[prop(into)] title: Signal<String>,
    testid: &'static str,
    #[prop(optional)] wide: bool,
    on_close: Callback<()>,
    children: Children,
) -> impl IntoView {
    let dialog_ref = NodeRef::<leptos::html::Div>::new();
    #[cfg(feature = "hydrate")]
    {
        Effect::new(move |_| {
            if let Some(el) = dialog_ref.get() {
                dom::focus_first(&el);
            }
        });
    }
    let title_id = format!("{testid}-title");
    let labelled_by = title_id.clone();
    view! {
        <div class="modal-backdrop" on:click=move |ev| {
            // A click on the backdrop itself (not inside the dialog) closes, as Escape does.
            if leptos::prelude::event_target::<leptos::web_sys::Element>(&ev).class_name() == "modal-backdrop" {
                on_close.run(());
            }
        }>
            <div
                class={if wide { "modal wide" } else { "modal" }}
                role="dialog"
                aria-modal="true"
                aria-labelledby=labelled_by
                data-testid=testid
                tabindex="-1"
                node_ref=dialog_ref
                on:keydown=move |ev| {
                    if ev.key() == "Escape" {
                        ev.prevent_default();
                        on_close.run(());
                    }
                    #[cfg(feature = "hydrate")]
                    if ev.key() == "Tab"
                        && let Some(el) = dialog_ref.get()
                    {
                        dom::trap_tab(&el, &ev);
                    }
                }
            >
                <h2 id=title_id class="modal-title">{title}</h2>
                {children()}
            </div>
        </div>
    }
}

/// Cordon or uncordon, after a short confirmation. Success is reported only when the API server has answered.
#[component]
fn CordonDialog(node: String, cordon: bool) -> impl IntoView {
    let a = strings::actions();
    let actions = expect_context::<Actions>();
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let close = Callback::new(move |_| actions.dialog.set(None));
    let title = if cordon { (a.cordon_title)(&node) } else { (a.uncordon_title)(&node) };
    let confirm = {
        let node = node.clone();
        move |_| {
            let node = node.clone();
            busy.set(true);
            error.set(None);
            leptos::task::spawn_local(async move {
                let result = if cordon { cordon_node(node.clone()).await } else { uncordon_node(node.clone()).await };
                busy.set(false);
                match result {
                    Ok(outcome) => {
                        let message = match (outcome, cordon) {
                            (CordonOutcome::AlreadyDone, _) => (a.already_done)(&node),
                            (CordonOutcome::Changed, true) => (a.cordoned_done)(&node),
                            (CordonOutcome::Changed, false) => (a.uncordoned_done)(&node),
                        };
                        actions.notice.set(Some((true, message)));
                        actions.dialog.set(None);
                    }
                    Err(err) => error.set(Some(format!("{} {err}", a.failed_prefix))),
                }
            });
        }
    };
    view! {
        <Modal title testid="cordon-dialog" on_close=close>
            <p>{if cordon { a.cordon_explain } else { a.uncordon_explain }}</p>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="dialog-error">{e}</p> })}
            <div class="modal-buttons">
                <button type="button" data-testid="dialog-cancel" on:click=move |_| close.run(())>{a.cancel}</button>
                <button type="button" class="primary" data-testid="dialog-confirm" disabled=busy on:click=confirm>
                    {move || if busy.get() { a.working } else if cordon { a.cordon } else { a.uncordon }}
                </button>
            </div>
        </Modal>
    }
}

/// Parses an optional whole number of seconds: empty is `None`, anything else must be a number.
fn seconds<T: std::str::FromStr>(text: &str) -> Result<Option<T>, ()> {
    let text = text.trim();
    if text.is_empty() { Ok(None) } else { text.parse().map(Some).map_err(|_| ()) }
}

fn owner_text(a: &ActionStrings, pod: &PreviewPod) -> String {
    pod.owner.as_ref().map_or_else(|| a.bare_pod.to_string(), |o| format!("{}/{}", o.kind, o.name))
}

fn option_name(o: DrainOption) -> &'static str {
    let a = strings::actions();
    match o {
        DrainOption::Force => a.opt_force,
        DrainOption::IgnoreDaemonsets => a.opt_ignore_daemonsets,
        DrainOption::DeleteEmptydirData => a.opt_delete_emptydir,
    }
}

/// The drain dialog: the live preview, the options, and the confirm button that says what will happen.
#[component]
fn DrainDialog(node: String) -> impl IntoView {
    let a = strings::actions();
    let actions = expect_context::<Actions>();
    let inputs = RwSignal::new(None::<PreviewInputs>);
    let stream_error = RwSignal::new(None::<String>);
    #[cfg(feature = "hydrate")]
    {
        let url = format!("/api/nodes/{node}/preview/events");
        let unreadable = format!("could not read the pods of {node}: reopen the dialog to try again");
        let source = dom::listen(
            &url,
            &["preview"],
            move |_, data| match serde_json::from_str::<PreviewInputs>(&data) {
                Ok(i) => {
                    inputs.set(Some(i));
                    stream_error.set(None);
                }
                Err(err) => stream_error.set(Some(err.to_string())),
            },
            move |closed| {
                if closed && inputs.with_untracked(Option::is_none) {
                    stream_error.set(Some(unreadable.clone()));
                }
            },
        );
        on_cleanup(move || drop(source));
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = stream_error;

    let ignore_daemonsets = RwSignal::new(false);
    let delete_emptydir = RwSignal::new(false);
    let force = RwSignal::new(false);
    let disable_eviction = RwSignal::new(false);
    let grace = RwSignal::new(String::new());
    let timeout = RwSignal::new(String::new());
    let skip_wait = RwSignal::new(String::new());
    let selector = RwSignal::new(String::new());
    let reason = RwSignal::new(String::new());
    let typed = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);

    let options = Memo::new(move |_| -> Result<DrainOptions, &'static str> {
        Ok(DrainOptions {
            force: force.get(),
            ignore_daemonsets: ignore_daemonsets.get(),
            delete_emptydir_data: delete_emptydir.get(),
            disable_eviction: disable_eviction.get(),
            grace_period_seconds: seconds(&grace.get()).map_err(|_| a.bad_number)?,
            timeout_seconds: seconds(&timeout.get()).map_err(|_| a.bad_number)?,
            skip_wait_for_delete_timeout_seconds: seconds(&skip_wait.get()).map_err(|_| a.bad_number)?,
            pod_selector: Some(selector.get().trim().to_string()).filter(|s| !s.is_empty()),
            ..Default::default()
        })
    });
    let planned = Memo::new(move |_| -> Option<Result<Preview, SelectorError>> {
        let options = options.get().ok()?;
        inputs.with(|i| i.as_ref().map(|i| preview(i, &options)))
    });
    let node_name = StoredValue::new(node.clone());
    let destructive = move || options.get().map(|o| destructive_options(&o)).unwrap_or_default();
    let confirmable = move || {
        let Ok(o) = options.get() else { return false };
        planned.with(|p| p.as_ref().is_some_and(|p| can_confirm(p, &o, &node_name.get_value(), &typed.get())))
            && !busy.get()
            && actions.lacking.with(|l| {
                l.as_ref().is_some_and(|l| l.drain.is_none() && (!o.disable_eviction || l.delete_pods.is_none()))
            })
    };
    let evict_count = move || planned.with(|p| p.as_ref().and_then(|p| p.as_ref().ok()).map_or(0, |p| p.evict.len()));
    let start = move |dry_run: DryRun| {
        let Ok(mut o) = options.get_untracked() else { return };
        o.dry_run = dry_run;
        if dry_run == DryRun::Server {
            // Budgets that allow nothing make the API answer "not now" for ever; a dry run reports that and stops.
            o.timeout_seconds = Some(o.timeout_seconds.unwrap_or(15).min(15));
        }
        let node = node_name.get_value();
        let reason = Some(reason.get_untracked()).filter(|r| !r.trim().is_empty());
        busy.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            let result = start_drain(node, o, reason).await;
            busy.set(false);
            match result {
                Ok(started) => actions.dialog.set(Some(Dialog::Progress(started.id))),
                Err(err) => error.set(Some(format!("{} {err}", a.failed_prefix))),
            }
        });
    };
    let close = Callback::new(move |_| actions.dialog.set(None));

    let toggle = move |label: &'static str, help: &'static str, testid: &'static str, signal: RwSignal<bool>| {
        view! {
            <label class="toggle">
                <input
                    type="checkbox"
                    data-testid=testid
                    prop:checked=signal
                    on:change=move |ev| signal.set(event_target_checked(&ev))
                />
                <span>
                    <strong>{label}</strong>
                    <small>{help}</small>
                </span>
            </label>
        }
    };
    let field = move |label: &'static str, help: &'static str, testid: &'static str, signal: RwSignal<String>| {
        view! {
            <label class="field">
                <span>{label}</span>
                <input
                    type="text"
                    data-testid=testid
                    prop:value=signal
                    on:input=move |ev| signal.set(event_target_value(&ev))
                />
                <small>{help}</small>
            </label>
        }
    };

    view! {
        <Modal title=(a.drain_title)(&node) testid="drain-dialog" wide=true on_close=close>
            <div class="drain-layout">
                <section class="preview" aria-live="polite" data-testid="drain-preview">
                    {move || match planned.get() {
                        None => match options.get() {
                            Err(e) => view! { <p class="error" data-testid="options-error">{e}</p> }.into_any(),
                            Ok(_) => view! {
                                <p data-testid="preview-loading">
                                    {move || stream_error.get().unwrap_or_else(|| a.preview_loading.to_string())}
                                </p>
                            }
                            .into_any(),
                        },
                        Some(Err(e)) => view! {
                            <p class="error" role="alert" data-testid="selector-error">{a.pod_selector} ": " {e.to_string()}</p>
                        }
                        .into_any(),
                        Some(Ok(p)) => view! { <PreviewGroups preview=p /> }.into_any(),
                    }}
                </section>
                <section class="drain-options">
                    <h3>{a.options}</h3>
                    {toggle(a.opt_ignore_daemonsets, a.opt_ignore_daemonsets_help, "opt-ignore-daemonsets", ignore_daemonsets)}
                    {toggle(a.opt_delete_emptydir, a.opt_delete_emptydir_help, "opt-delete-emptydir-data", delete_emptydir)}
                    {toggle(a.opt_force, a.opt_force_help, "opt-force", force)}
                    {toggle(a.opt_disable_eviction, a.opt_disable_eviction_help, "opt-disable-eviction", disable_eviction)}
                    <div class="number-fields">
                        {field(a.grace_period, a.grace_period_help, "opt-grace-period", grace)}
                        {field(a.timeout, a.timeout_help, "opt-timeout", timeout)}
                        {field(a.skip_wait, a.skip_wait_help, "opt-skip-wait", skip_wait)}
                    </div>
                    {field(a.pod_selector, a.pod_selector_help, "opt-pod-selector", selector)}
                    <label class="field">
                        <span>{a.reason}</span>
                        <input
                            type="text"
                            data-testid="drain-reason"
                            placeholder=a.reason_placeholder
                            prop:value=reason
                            on:input=move |ev| reason.set(event_target_value(&ev))
                        />
                    </label>
                    {move || {
                        let chosen = destructive();
                        (!chosen.is_empty()).then(|| view! {
                            <label class="field danger">
                                <span data-testid="type-name-prompt">
                                    {(a.type_node_name)(&node_name.get_value(), &chosen.join(", "))}
                                </span>
                                <input
                                    type="text"
                                    data-testid="type-node-name"
                                    autocomplete="off"
                                    prop:value=typed
                                    on:input=move |ev| typed.set(event_target_value(&ev))
                                />
                            </label>
                        })
                    }}
                </section>
            </div>
            {move || planned.with(|p| matches!(p, Some(Ok(p)) if p.is_blocked())).then(|| view! {
                <p class="hint" data-testid="blocked-hint">{a.blocked_hint}</p>
            })}
            {move || {
                let wants_delete = options.with(|o| o.as_ref().is_ok_and(|o| o.disable_eviction));
                let missing = actions.lacking.with(|l| l.as_ref().and_then(|l| l.delete_pods.clone()));
                missing.filter(|_| wants_delete).map(|m| view! {
                    <p class="hint" data-testid="delete-permission-hint">{(a.missing_permission)(&m)}</p>
                })
            }}
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="dialog-error">{e}</p> })}
            <div class="modal-buttons">
                <button type="button" data-testid="dialog-cancel" on:click=move |_| close.run(())>{a.cancel}</button>
                <button
                    type="button"
                    data-testid="server-dry-run"
                    disabled=move || !planned.with(|p| matches!(p, Some(Ok(p)) if !p.is_blocked())) || busy.get()
                    on:click=move |_| start(DryRun::Server)
                >
                    {a.server_dry_run}
                </button>
                <button
                    type="button"
                    class="primary danger"
                    data-testid="confirm-drain"
                    disabled=move || !confirmable()
                    on:click=move |_| start(DryRun::None)
                >
                    {move || (a.confirm_drain)(&node_name.get_value(), evict_count())}
                </button>
            </div>
        </Modal>
    }
}

/// The preview's three groups.
#[component]
fn PreviewGroups(preview: Preview) -> impl IntoView {
    let a = strings::actions();
    let blocking = preview.blocking_pdbs().iter().map(|p| p.name.clone()).collect::<Vec<_>>();
    let note = |n: &EvictNote| match n {
        EvictNote::LocalStorageLost => a.note_emptydir_lost,
        EvictNote::NoController => a.note_no_controller,
        EvictNote::DaemonSetMissing(_) => a.note_daemonset_missing,
    };
    let skip = |r: &SkipReason| match r {
        SkipReason::MirrorPod => a.skip_mirror,
        SkipReason::DaemonSetIgnored => a.skip_daemonset,
        SkipReason::DeletingTooLong => a.skip_deleting,
    };
    let refusal = |r: &Refusal| match r {
        Refusal::DaemonSetManaged => a.refuse_daemonset.to_string(),
        Refusal::DaemonSetMissing(m) => format!("{}: {m}", a.refuse_daemonset_missing),
        Refusal::DaemonSetLookupFailed(m) => format!("{}: {m}", a.refuse_lookup_failed),
        Refusal::LocalStorage => a.refuse_emptydir.to_string(),
        Refusal::NoController => a.refuse_no_controller.to_string(),
    };
    let empty = || view! { <li class="muted">{a.none}</li> };
    view! {
        <h3>{a.group_evict} " (" {preview.evict.len()} ")"</h3>
        <ul class="pods" data-testid="group-evict">
            {preview.evict.is_empty().then(empty)}
            {preview.evict.iter().map(|p| view! {
                <li data-testid="preview-pod" data-pod=format!("{}/{}", p.pod.namespace, p.pod.name)>
                    <code>{format!("{}/{}", p.pod.namespace, p.pod.name)}</code>
                    <span class="muted">" · " {owner_text(a, &p.pod)}</span>
                    {p.pdb.as_ref().map(|b| view! {
                        <span class={if b.disruptions_allowed > 0 { "pdb" } else { "pdb blocking" }} data-testid="preview-pdb">
                            " · " {(a.pdb_allowance)(&b.name, b.disruptions_allowed)}
                        </span>
                    })}
                    {p.notes.iter().map(|n| view! { <span class="note">" · " {note(n)}</span> }).collect_view()}
                </li>
            }).collect_view()}
        </ul>
        {(!blocking.is_empty()).then(|| view! {
            <p class="hint" data-testid="pdb-will-wait">{(a.pdb_will_wait)(&blocking.join(", "))}</p>
        })}
        <h3>{a.group_skipped} " (" {preview.skipped.len()} ")"</h3>
        <ul class="pods" data-testid="group-skipped">
            {preview.skipped.is_empty().then(empty)}
            {preview.skipped.iter().map(|(p, why)| view! {
                <li data-testid="preview-pod" data-pod=format!("{}/{}", p.namespace, p.name)>
                    <code>{format!("{}/{}", p.namespace, p.name)}</code>
                    <span class="muted">" · " {skip(why)}</span>
                </li>
            }).collect_view()}
        </ul>
        <h3 class:bad=!preview.refused.is_empty()>{a.group_refused} " (" {preview.refused.len()} ")"</h3>
        <ul class="pods" data-testid="group-refused">
            {preview.refused.is_empty().then(empty)}
            {preview.refused.iter().map(|p| {
                let needs = if p.needs.is_empty() {
                    a.no_option_helps.to_string()
                } else {
                    format!("{} {}", a.needs_option, p.needs.iter().map(|o| option_name(*o)).collect::<Vec<_>>().join(" + "))
                };
                view! {
                    <li data-testid="preview-pod" data-pod=format!("{}/{}", p.pod.namespace, p.pod.name)>
                        <code>{format!("{}/{}", p.pod.namespace, p.pod.name)}</code>
                        <span class="muted">" · " {owner_text(a, &p.pod)}</span>
                        <span class="bad">" · " {refusal(&p.reason)}</span>
                        <span class="needs" data-testid="refused-needs">" · " {needs}</span>
                    </li>
                }
            }).collect_view()}
        </ul>
        {(preview.not_selected > 0).then(|| view! { <p class="muted">{(a.not_selected)(preview.not_selected)}</p> })}
    }
}

fn pod_state_text(a: &ActionStrings, state: &PodState) -> String {
    match state {
        PodState::Pending => a.pod_pending.into(),
        PodState::Evicting => a.pod_evicting.into(),
        PodState::Blocked { pdb: Some(p), .. } => {
            (a.pod_blocked_pdb)(&p.name, p.disruptions_allowed, p.desired_healthy, p.current_healthy)
        }
        PodState::Blocked { message, .. } => (a.pod_blocked)(message),
        PodState::Terminating { .. } => a.pod_terminating.into(),
        PodState::Gone => a.pod_gone.into(),
        PodState::DryRunAccepted => a.pod_dry_accepted.into(),
        PodState::NoLongerWaited => a.pod_no_longer_waited.into(),
        PodState::Failed(why) => (a.pod_failed)(why),
    }
}

fn pod_state_key(state: &PodState) -> &'static str {
    match state {
        PodState::Pending => "pending",
        PodState::Evicting => "evicting",
        PodState::Blocked { .. } => "blocked",
        PodState::Terminating { .. } => "terminating",
        PodState::Gone => "gone",
        PodState::DryRunAccepted => "dry-run-accepted",
        PodState::NoLongerWaited => "no-longer-waited",
        PodState::Failed(_) => "failed",
    }
}

/// The progress of one drain, live: a row per pod, a bar, the elapsed time, Cancel while it runs, and a final
/// state that says what is true. Anyone can open it; closing it does not stop the drain.
#[component]
fn ProgressPanel(id: String, server_now: Signal<Timestamp>) -> impl IntoView {
    let a = strings::actions();
    let actions = expect_context::<Actions>();
    let progress = RwSignal::new(None::<DrainProgress>);
    let missing = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    {
        let source = dom::listen(
            &format!("/api/drains/{id}/events"),
            &["progress"],
            move |_, data| {
                if let Ok(p) = serde_json::from_str::<DrainProgress>(&data) {
                    progress.set(Some(p));
                }
            },
            move |closed| {
                if closed && progress.with_untracked(Option::is_none) {
                    missing.set(true);
                }
            },
        );
        // The server ends the stream after the final state; stop the browser from reconnecting to it.
        let source = StoredValue::new_local(Some(source));
        Effect::new(move |_| {
            if progress.with(|p| p.as_ref().is_some_and(|p| !p.state.is_running())) {
                source.update_value(|s| drop(s.take()));
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = missing;
    let cancelling = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let close = Callback::new(move |_| actions.dialog.set(None));
    let drain_id = StoredValue::new(id);
    let title =
        move || progress.with(|p| p.as_ref().map(|p| (a.progress_title)(&p.node, p.options.dry_run != DryRun::None)));
    let elapsed = move || {
        progress.with(|p| {
            p.as_ref().map(|p| {
                let end = p.finished_at.unwrap_or_else(|| server_now.get());
                domain::board::elapsed(end.duration_since(p.started_at))
            })
        })
    };
    view! {
        <Modal title=Signal::derive(move || title().unwrap_or_else(|| a.show_progress.to_string())) testid="progress-panel" wide=true on_close=close>
            {move || missing.get().then(|| view! { <p class="error" role="alert" data-testid="progress-missing">{a.drain_not_here}</p> })}
            {move || progress.get().map(|p| {
                let total = p.pods.len();
                let done = p.pods.iter().filter(|x| matches!(x.state, PodState::Gone | PodState::DryRunAccepted)).count();
                let running = p.state.is_running();
                let dry = p.options.dry_run != DryRun::None;
                let final_ok = matches!(p.state, DrainState::Drained | DrainState::DryRunAccepted);
                let left = p.pods_left();
                let offer_uncordon = !dry && !running && !matches!(p.state, DrainState::Refused);
                let node = p.node.clone();
                view! {
                    <p class="muted">
                        {(a.started_by)(&p.started_by, &domain::board::short_age(server_now.get().duration_since(p.started_at)))}
                        {p.reason.clone().map(|r| view! { " · " <span data-testid="progress-reason">{r}</span> })}
                    </p>
                    <p
                        class={if running { "drain-state" } else if final_ok { "drain-state ok" } else { "drain-state bad" }}
                        role="status"
                        data-testid="progress-state"
                        data-state=format!("{:?}", p.state)
                    >
                        {drain_state_text(a, &p.state, left)}
                    </p>
                    <div class="progress-line">
                        <progress max=total.max(1) value=done data-testid="progress-bar" aria-label="pods gone"></progress>
                        <span data-testid="progress-count">{(a.pods_done)(done, total)}</span>
                        <span class="muted">{a.elapsed} " " <span data-testid="progress-elapsed">{elapsed}</span></span>
                    </div>
                    <table class="pod-progress" data-testid="progress-pods">
                        <tbody>
                            {p.pods.iter().map(|pod| view! { <PodRow pod=pod.clone() server_now /> }).collect_view()}
                        </tbody>
                    </table>
                    {offer_uncordon.then(|| view! {
                        <div class="after-drain">
                            <p class="muted">{a.returning_note}</p>
                            <button
                                type="button"
                                data-testid="progress-uncordon"
                                on:click=move |_| actions.dialog.set(Some(Dialog::Uncordon(node.clone())))
                            >
                                {a.uncordon_after}
                            </button>
                        </div>
                    })}
                }
            })}
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <div class="modal-buttons">
                {move || progress.with(|p| p.as_ref().is_some_and(|p| p.state.is_running())).then(|| view! {
                    <button
                        type="button"
                        class="danger"
                        data-testid="cancel-drain"
                        disabled=cancelling
                        on:click=move |_| {
                            cancelling.set(true);
                            leptos::task::spawn_local(async move {
                                if let Err(err) = cancel_drain(drain_id.get_value()).await {
                                    error.set(Some(format!("{} {err}", a.failed_prefix)));
                                }
                                cancelling.set(false);
                            });
                        }
                    >
                        {a.cancel_drain}
                    </button>
                })}
                <button type="button" data-testid="progress-close" on:click=move |_| close.run(())>{a.close}</button>
            </div>
        </Modal>
    }
}

#[component]
fn PodRow(pod: PodProgress, server_now: Signal<Timestamp>) -> impl IntoView {
    let a = strings::actions();
    let started = pod.started_at;
    let finished = pod.finished_at;
    let took =
        move || started.map(|s| domain::board::elapsed(finished.unwrap_or_else(|| server_now.get()).duration_since(s)));
    view! {
        <tr data-testid="progress-pod" data-pod=format!("{}/{}", pod.namespace, pod.name) data-state=pod_state_key(&pod.state)>
            <td><code>{format!("{}/{}", pod.namespace, pod.name)}</code></td>
            <td class=format!("pod-state {}", pod_state_key(&pod.state))>{pod_state_text(a, &pod.state)}</td>
            <td class="muted">{took}</td>
        </tr>
    }
}

/// The drains of the board, by node, as the board stream sends them.
pub type DrainsByNode = BTreeMap<String, DrainSummary>;
