//! The drain dialog: the live preview, the options, and the confirm button that says what will happen.

mod form;
mod preview;

use domain::{
    actions::may_drain,
    drain::{DrainOptions, DryRun, destructive_options},
    preview::{Preview, can_confirm, destructive_in_effect, idle_destructive_off, preview},
    progress::DrainRecord,
    selector::SelectorError,
};
use leptos::prelude::*;

pub(super) use self::form::{Draft, DrainForm, OptionsForm};
use self::preview::PreviewSection;
pub(super) use self::preview::needs_text;
use super::{
    Actions, Dialog,
    window_hold::{WindowHoldSection, WindowWay, held_nodes, refused_hold, undecided},
};
use crate::{
    api::StartDrain,
    components::{CapacitySection, Modal},
    i18n::{missing_permission_text, t_string, use_i18n},
    live::preview::follow_preview,
};

/// The drain dialog of `node`. Confirming starts the drain and opens its progress in place of the dialog.
#[component]
pub fn DrainDialog(
    node: String,
    /// A recorded drain to resume: the form starts with its options and reason.
    #[prop(optional)]
    resume: Option<DrainRecord>,
    /// The form as the person left it for a server dry run.
    #[prop(optional)]
    draft: Option<Draft>,
) -> impl IntoView {
    let i18n = use_i18n();
    let actions = expect_context::<Actions>();
    let feed = follow_preview(&node);
    let form = DrainForm::new();
    if let Some(record) = &resume {
        form.fill(&record.options, record.reason.as_deref());
    }
    if let Some(draft) = &draft {
        form.restore(draft);
    }
    let options = Memo::new(move |_| form.options());
    // The preview follows the last options that read: a number being typed does not blank it.
    let shown = Memo::new(move |before: Option<&DrainOptions>| {
        options.get().unwrap_or_else(|_| before.cloned().unwrap_or_default())
    });
    let planned = Memo::new(move |_| -> Option<Result<Preview, SelectorError>> {
        shown.with(|options| feed.inputs.with(|i| i.as_ref().map(|i| preview(i, options))))
    });
    let title = t_string!(i18n, drain.title, node = &node).to_string();
    let node = StoredValue::new(node);
    let start = ServerAction::<StartDrain>::new();
    let busy = start.pending();
    // The form as it was when a server dry run was asked for: its panel comes back here when closed.
    let tried = StoredValue::new(None::<Draft>);
    Effect::new(move |_| {
        if let Some(Ok(started)) = start.value().get() {
            match tried.get_value() {
                Some(draft) => actions.open(Dialog::DryRun(started.id, Box::new(draft))),
                None => actions.open(Dialog::Progress(started.id)),
            }
        }
    });
    let error = move || match start.value().get() {
        Some(Err(error)) if !busy.get() => Some(crate::i18n::failed_text(i18n, &error)),
        _ => None,
    };
    let way = WindowWay::new();
    let held = held_nodes(
        Signal::derive(move || vec![node.get_value()]),
        Signal::derive(move || refused_hold(start.value().get())),
    );
    let held_back = undecided(held, way);
    // Only the destructive options that change something on this node ask for its name, as the server checks.
    let destructive = Signal::derive(move || {
        shown.with(|o| {
            planned.with(|p| match p {
                Some(Ok(p)) => destructive_in_effect(p, o),
                _ => destructive_options(o),
            })
        })
    });
    let confirmable = Signal::derive(move || {
        let Ok(o) = options.get() else { return false };
        planned.with(|p| p.as_ref().is_some_and(|p| node.with_value(|n| can_confirm(p, &o, n, &form.typed.get()))))
            && !busy.get()
            && !held_back.get()
            && actions.lacking.with(|l| may_drain(l.as_ref(), &o).is_ok())
    });
    let dry_runnable = Signal::derive(move || {
        options.with(Result::is_ok) && planned.with(|p| matches!(p, Some(Ok(p)) if !p.is_blocked())) && !busy.get()
    });
    let evict_count = move || planned.with(|p| p.as_ref().and_then(|p| p.as_ref().ok()).map_or(0, |p| p.evict.len()));
    let begin = Callback::new(move |dry_run: DryRun| {
        let Ok(options) = options.get_untracked() else { return };
        // Without the name typed, a destructive option that changes nothing here is not sent: the server asks
        // consent for every one it is sent.
        let typed = node.with_value(|n| form.typed.get_untracked().trim() == n);
        let options = match planned.get_untracked() {
            Some(Ok(p)) if !typed => idle_destructive_off(&p, &options),
            _ => options,
        };
        tried.set_value((dry_run == DryRun::Server).then(|| node.with_value(|n| form.draft(n))));
        let options = options.for_dry_run(dry_run);
        // The typed name goes along: the server asks for it too before anything destructive.
        let confirm = Some(form.typed.get_untracked()).filter(|t| !t.trim().is_empty());
        start.dispatch(StartDrain {
            node: node.get_value(),
            options,
            reason: form.reason_untracked(),
            confirm,
            // A dry run changes nothing, and no window holds it.
            override_window: Some(way)
                .filter(|_| dry_run == DryRun::None && !held.with_untracked(Vec::is_empty))
                .and_then(WindowWay::override_reason),
        });
    });
    let close = Callback::new(move |_| actions.close());
    view! {
        <Modal title testid="drain-dialog" wide=true on_close=close>
            // A window's hold first: on a phone, below the preview it would be a long scroll away.
            <WindowHoldSection held way />
            <div class="drain-layout">
                <div>
                    <PreviewSection node feed planned />
                    <CapacitySection nodes=Signal::stored(vec![node.get_value()]) />
                </div>
                <OptionsForm form node destructive owners=Signal::derive(move || planned.with(|p| matches!(p, Some(Ok(p)) if p.owners_asked()))) />
            </div>
            {move || options.with(Result::is_err).then(|| view! {
                <p class="hint" data-testid="options-error">{t_string!(i18n, drain.bad_number_hint)}</p>
            })}
            {move || planned.with(|p| matches!(p, Some(Ok(p)) if p.is_blocked())).then(|| view! {
                <p class="hint" data-testid="blocked-hint">{t_string!(i18n, drain.blocked_hint)}</p>
            })}
            {move || {
                let missing = options.with(|o| {
                    let o = o.as_ref().ok()?;
                    actions.lacking.with(|l| l.as_ref()?.delete_pods_for(o).map(str::to_string))
                });
                missing.map(|m| view! {
                    <p class="hint" data-testid="delete-permission-hint">{missing_permission_text(i18n, &m)}</p>
                })
            }}
            {move || error().map(|e| view! { <p class="error" role="alert" data-testid="dialog-error">{e}</p> })}
            <div class="modal-buttons">
                <button type="button" data-testid="dialog-cancel" on:click=move |_| close.run(())>{t_string!(i18n, actions.cancel)}</button>
                <button
                    type="button"
                    data-testid="server-dry-run"
                    disabled=move || !dry_runnable.get()
                    on:click=move |_| begin.run(DryRun::Server)
                >
                    {t_string!(i18n, drain.server_dry_run)}
                </button>
                <button
                    type="button"
                    class="primary danger"
                    data-testid="confirm-drain"
                    disabled=move || !confirmable.get()
                    on:click=move |_| begin.run(DryRun::None)
                >
                    {move || node.with_value(|node| t_string!(i18n, drain.confirm, node, count = evict_count()).to_string())}
                </button>
            </div>
        </Modal>
    }
}
