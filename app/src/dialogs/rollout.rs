//! The rollout dialog: many nodes drained with limits. One plan for all the nodes (each node's preview, planned on
//! the server as a single drain's), the capacity check, the settings, and the confirm button that says how many
//! nodes and how many at once.

use std::collections::BTreeMap;

use domain::{
    actions::may_drain,
    board::Board,
    drain::destructive_options,
    preview::Preview,
    rollout::{MAX_PARALLEL, OthersAtWork, RolloutOptions, confirm_word},
};
use leptos::prelude::*;

use super::{
    Actions,
    drain::{DrainForm, OptionsForm},
    rollout_estimate::PlanEstimateLine,
    rollout_verify::{After, AfterEachNode},
    rollout_why::{Held, WhyNotStart, reasons},
    rollout_zones::ZoneWarning,
    window_hold::{WindowHoldSection, WindowWay, held_nodes, refused_hold, undecided},
};
use crate::{
    api::drain_preview,
    components::{CapacitySection, Modal},
    i18n::{t_string, use_i18n},
    rollouts::StartRollout,
    state::Selection,
};

/// What planning one node gave: its preview, or why there is none.
type Plans = BTreeMap<String, Result<Preview, String>>;

/// The rollout settings beyond the drain options.
#[derive(Clone, Copy)]
struct Settings {
    parallel: RwSignal<String>,
    one_per_zone: RwSignal<bool>,
    stop_on_failure: RwSignal<bool>,
    uncordon_when_back: RwSignal<bool>,
    unattended: RwSignal<bool>,
    /// Skip a node another tool is taking down, rather than wait for it.
    skip_others: RwSignal<bool>,
}

impl Settings {
    /// The parallelism typed, if it is a whole number in range.
    fn parallel(&self) -> Option<u32> {
        self.parallel.get().trim().parse::<u32>().ok().filter(|n| (1..=MAX_PARALLEL).contains(n))
    }
}

/// The rolling drain of `nodes`. Confirming starts the rollout on the server; the board's rollouts panel follows
/// it. With `expect`, the plan starts out uncordoning each node once back, after checking it reports that
/// version; the person sees and may change both before confirming.
#[component]
pub fn RolloutDialog(
    nodes: Vec<String>,
    board: RwSignal<Option<Board>>,
    expect: Option<(domain::verify::Component, String)>,
) -> impl IntoView {
    let i18n = use_i18n();
    let actions = expect_context::<Actions>();
    let count = nodes.len();
    let word = StoredValue::new(confirm_word(count));
    let nodes = StoredValue::new(nodes);
    let form = DrainForm::new();
    let settings = Settings {
        parallel: RwSignal::new("2".to_string()),
        one_per_zone: RwSignal::new(false),
        stop_on_failure: RwSignal::new(true),
        uncordon_when_back: RwSignal::new(expect.is_some()),
        unattended: RwSignal::new(false),
        skip_others: RwSignal::new(false),
    };
    // Offered only where the server runs unattended plans; whether this person may ask for one is the cluster's
    // admission policy's call, and its refusal shows as the dialog's error.
    let who = LocalResource::new(crate::session::who_am_i);
    let offers_unattended =
        Signal::derive(move || who.get().is_some_and(|w| w.ok().flatten().is_some_and(|w| w.unattended_plans)));
    let after = After::new();
    if let Some((component, value)) = expect {
        after.expect(component, value);
    }
    let options = Memo::new(move |_| form.options());
    // Each node planned as a single drain, on the server, again whenever the options change.
    let plans = RwSignal::new(None::<Plans>);
    Effect::new(move |_| {
        let Ok(options) = options.get() else { return };
        plans.set(None);
        leptos::task::spawn_local(async move {
            let mut planned = Plans::new();
            for node in nodes.get_value() {
                let preview = drain_preview(node.clone(), options.clone()).await.map_err(|e| e.to_string());
                planned.insert(node, preview);
            }
            // A later change of the options replaces this plan; only the plan of the current options shows.
            if options == options_now(form) {
                plans.set(Some(planned));
            }
        });
    });
    let start = ServerAction::<StartRollout>::new();
    let selection = use_context::<Selection>();
    let busy = start.pending();
    Effect::new(move |_| {
        if let Some(Ok(_)) = start.value().get() {
            actions.notice.set(Some((true, t_string!(i18n, rollout.started).to_string())));
            // The chosen nodes are now the rollout's: a selection left standing would invite a second plan of them.
            if let Some(Selection(chosen)) = selection {
                chosen.set(Default::default());
            }
            actions.close();
        }
    });
    let error = move || match start.value().get() {
        Some(Err(error)) if !busy.get() => Some(crate::i18n::failed_text(i18n, &error)),
        _ => None,
    };
    let way = WindowWay::new();
    let window_held = held_nodes(
        Signal::derive(move || nodes.get_value()),
        Signal::derive(move || refused_hold(start.value().get())),
    );
    let held_back = undecided(window_held, way);
    let destructive = Signal::derive(move || options.get().map(|o| destructive_options(&o)).unwrap_or_default());
    // Everything that holds Start, said beside it; Start is enabled when nothing does.
    let held = Memo::new(move |_| Held {
        bad_option: options.with(Result::is_err),
        bad_setting: settings.parallel().is_none()
            || after.settle_seconds().is_none()
            || after.checks(settings.uncordon_when_back.get()).is_err(),
        untyped: (!destructive.with(Vec::is_empty) && word.with_value(|w| form.typed.get().trim() != w))
            .then(|| word.get_value()),
        unavailable: options.with(|o| {
            let o = o.as_ref().ok()?;
            actions.lacking.with(|l| may_drain(l.as_ref(), o).err())
        }),
    });
    let why = Signal::derive(move || held.with(|h| plans.with(|p| reasons(i18n, p.as_ref(), h))));
    let confirmable = Signal::derive(move || why.with(Vec::is_empty) && !busy.get() && !held_back.get());
    let begin = move |_| {
        let (Ok(drain), Some(max_parallel), Some(settle_seconds), Ok(verify)) = (
            options.get_untracked(),
            settings.parallel(),
            after.settle_seconds(),
            after.checks(settings.uncordon_when_back.get_untracked()),
        ) else {
            return;
        };
        let options = RolloutOptions {
            max_parallel,
            one_per_zone: settings.one_per_zone.get_untracked(),
            stop_on_failure: settings.stop_on_failure.get_untracked(),
            uncordon_when_back: settings.uncordon_when_back.get_untracked(),
            verify,
            unattended: settings.unattended.get_untracked() && offers_unattended.get_untracked(),
            settle_seconds,
            others_at_work: if settings.skip_others.get_untracked() { OthersAtWork::Skip } else { OthersAtWork::Wait },
            drain,
        };
        let confirm = Some(form.typed.get_untracked()).filter(|t| !t.trim().is_empty());
        start.dispatch(StartRollout {
            nodes: nodes.get_value(),
            options,
            reason: form.reason_untracked(),
            confirm,
            wait_for_window: way.waiting(),
            override_window: Some(way)
                .filter(|_| !window_held.with_untracked(Vec::is_empty))
                .and_then(WindowWay::override_reason),
        });
    };
    // The reboots count too: a plan that awaits its nodes back holds each one's place until then.
    let estimate_asked = Memo::new(move |_| {
        let uncordon_when_back = settings.uncordon_when_back.get();
        let verify = after.checks(uncordon_when_back).ok()?;
        Some((options.get().ok()?, settings.parallel()?, after.settle_seconds()?, uncordon_when_back, verify))
    });
    let close = Callback::new(move |_| actions.close());
    let title = t_string!(i18n, rollout.title, count).to_string();
    let node_list = Signal::derive(move || nodes.get_value());
    view! {
        <Modal title testid="rollout-dialog" wide=true on_close=close>
            <p class="hint" data-testid="rollout-draining-note">{t_string!(i18n, rollout.draining_note)}</p>
            <div class="drain-layout">
                <section class="rollout-plan" data-testid="rollout-plan" aria-live="polite">
                    <h3>{t_string!(i18n, rollout.plan)}</h3>
                    {move || match plans.get() {
                        None => view! { <p data-testid="rollout-plan-loading">{t_string!(i18n, rollout.plan_loading)}</p> }.into_any(),
                        Some(plans) => view! {
                            <ul>
                                {plans.into_iter().map(|(node, plan)| {
                                    let text = match &plan {
                                        Ok(p) => t_string!(
                                            i18n, rollout.plan_node,
                                            evict = p.evict.len(), refused = p.refused.len(), blocked = p.blocking_pdbs().len()
                                        ).to_string(),
                                        Err(error) => t_string!(i18n, rollout.plan_error, node = &node, error).to_string(),
                                    };
                                    let blocked = plan.as_ref().map_or(true, Preview::is_blocked);
                                    let shown = node.clone();
                                    view! {
                                        <li data-testid="rollout-plan-node" data-node=node.clone() data-blocked=blocked.to_string()>
                                            <strong>{shown}</strong> ": " {text}
                                        </li>
                                    }
                                }).collect_view()}
                            </ul>
                        }.into_any(),
                    }}
                    <PlanEstimateLine nodes ask=estimate_asked />
                    <CapacitySection nodes=node_list />
                </section>
                <div>
                    {settings_view(settings, after, offers_unattended)}
                    <ZoneWarning
                        nodes
                        board
                        one_per_zone=settings.one_per_zone
                        uncordon_when_back=settings.uncordon_when_back
                    />
                    <OptionsForm form node=word destructive owners=Signal::derive(move || plans.with(|p| {
                        p.as_ref().is_some_and(|p| p.values().any(|plan| plan.as_ref().is_ok_and(Preview::owners_asked)))
                    })) />
                </div>
            </div>
            <WindowHoldSection held=window_held way plan=true />
            {move || error().map(|e| view! { <p class="error" role="alert" data-testid="dialog-error">{e}</p> })}
            <WhyNotStart reasons=why />
            // Waiting for the windows: Start makes the plan now, and says when its first node may begin.
            {move || (way.wait.get() && way.reason.with(|r| r.trim().is_empty())).then(|| {
                window_held.with(|h| h.first().cloned()).map(|(node, window, why)| view! {
                    <p class="hint" data-testid="rollout-begins">
                        {t_string!(i18n, rollout.begins_when, node, window, why)}
                    </p>
                })
            })}
            <div class="modal-buttons">
                <button type="button" data-testid="dialog-cancel" on:click=move |_| close.run(())>{t_string!(i18n, actions.cancel)}</button>
                <button
                    type="button"
                    class="primary danger"
                    data-testid="confirm-rollout"
                    disabled=move || !confirmable.get()
                    on:click=begin
                >
                    {move || t_string!(i18n, rollout.confirm, count, parallel = settings.parallel().unwrap_or(0)).to_string()}
                </button>
            </div>
        </Modal>
    }
}

/// The rollout's settings: parallelism, zones, failures, the way back and what follows each node.
fn settings_view(settings: Settings, after: After, offers_unattended: Signal<bool>) -> AnyView {
    let i18n = use_i18n();
    view! {
        <section class="rollout-settings">
            <label class="field">
                <span>{t_string!(i18n, rollout.max_parallel)}</span>
                <input
                    type="number"
                    min="1"
                    max=MAX_PARALLEL.to_string()
                    data-testid="rollout-max-parallel"
                    prop:value=settings.parallel
                    on:input=move |ev| settings.parallel.set(event_target_value(&ev))
                />
                {move || settings.parallel().is_none().then(|| view! {
                    <small class="error" data-testid="rollout-parallel-error">{t_string!(i18n, rollout.bad_parallel)}</small>
                })}
            </label>
            <Check label=t_string!(i18n, rollout.one_per_zone).to_string() testid="rollout-one-per-zone" value=settings.one_per_zone />
            <Check label=t_string!(i18n, rollout.stop_on_failure).to_string() testid="rollout-stop-on-failure" value=settings.stop_on_failure />
            <Check label=t_string!(i18n, rollout.skip_others).to_string() testid="rollout-skip-others" value=settings.skip_others />
            <Check label=t_string!(i18n, rollout.uncordon_when_back).to_string() testid="rollout-uncordon-when-back" value=settings.uncordon_when_back />
            <AfterEachNode after uncordon_when_back=settings.uncordon_when_back />
            {move || offers_unattended.get().then(|| view! {
                <Check label=t_string!(i18n, rollout.unattended).to_string() testid="rollout-unattended" value=settings.unattended />
                <p class="hint" data-testid="rollout-unattended-hint">{t_string!(i18n, rollout.unattended_hint)}</p>
            })}
        </section>
    }
    .into_any()
}

/// The form's options now, untracked: to tell whether a plan still matches them.
fn options_now(form: DrainForm) -> domain::drain::DrainOptions {
    untrack(|| form.options()).unwrap_or_default()
}

/// A setting that is on or off.
#[component]
fn Check(label: String, testid: &'static str, value: RwSignal<bool>) -> impl IntoView {
    view! {
        <label class="toggle">
            <input type="checkbox" data-testid=testid prop:checked=value on:change=move |ev| value.set(event_target_checked(&ev)) />
            <span><strong>{label}</strong></span>
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Signals live in an owner's arena (the server build sandboxes arenas per request), as a page's do.
    fn in_owner(test: impl FnOnce()) {
        Owner::new().with(test)
    }

    #[test]
    fn the_parallelism_is_a_whole_number_in_range() {
        in_owner(|| {
            let settings = Settings {
                parallel: RwSignal::new(String::new()),
                one_per_zone: RwSignal::new(false),
                stop_on_failure: RwSignal::new(false),
                uncordon_when_back: RwSignal::new(false),
                unattended: RwSignal::new(false),
                skip_others: RwSignal::new(false),
            };
            let (max, over) = (MAX_PARALLEL.to_string(), (MAX_PARALLEL + 1).to_string());
            for (typed, want) in [
                ("1", Some(1)),
                (" 3 ", Some(3)),
                (max.as_str(), Some(MAX_PARALLEL)),
                (over.as_str(), None),
                ("0", None),
                ("-1", None),
                ("two", None),
                ("", None),
            ] {
                settings.parallel.set(typed.to_owned());
                assert_eq!(settings.parallel(), want, "{typed:?}");
            }
        });
    }
}
