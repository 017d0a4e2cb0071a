//! A maintenance window that holds what a dialog would start, and the ways past it: an override with a typed
//! reason, which the server grants only to a person who may `update maintenancewindows/override` and records
//! everywhere; or, for a plan, waiting for the windows. Shown when the board's last read of the windows holds one of
//! the nodes, or when the server has just refused for a window's sake: the server decides either way, so a page a
//! few seconds behind can only ask, never let something past a window.

use domain::{failure::StartRefusal, window::HeldNode};
use leptos::prelude::*;

use crate::{
    AppError,
    components::windows::WindowHolds,
    i18n::{hold_text, t_string, use_i18n},
};

/// How many held nodes the section names; the rest are counted.
const NAMED: usize = 5;

/// What the person chose about the windows: an override's reason, or (a plan only) to wait for them.
#[derive(Clone, Copy)]
pub struct WindowWay {
    pub reason: RwSignal<String>,
    pub wait: RwSignal<bool>,
}

impl WindowWay {
    pub fn new() -> Self {
        WindowWay { reason: RwSignal::new(String::new()), wait: RwSignal::new(false) }
    }

    /// The override's reason to send: typed, and not waiting instead.
    pub fn override_reason(self) -> Option<String> {
        let reason = self.reason.get_untracked();
        (!self.wait.get_untracked()).then(|| reason.trim().to_owned()).filter(|r| !r.is_empty())
    }

    /// Whether the plan is to wait for its windows (nothing typed to override them).
    pub fn waiting(self) -> bool {
        self.wait.get_untracked() && self.override_reason().is_none()
    }

    /// Whether neither way past a hold is chosen yet.
    fn undecided(self) -> bool {
        !self.wait.get() && self.reason.with(|r| r.trim().is_empty())
    }
}

/// The hold in a refusal the server has just given, if that is why it refused.
pub fn refused_hold<T>(answer: Option<Result<T, AppError>>) -> Option<HeldNode> {
    match answer? {
        Err(AppError::Refused { refusal: StartRefusal::Held(held), .. }) => Some(*held),
        _ => None,
    }
}

/// Each of `nodes` a window holds, as (node, window, why in words): the board's last read of the windows, and the
/// hold the server last refused for.
pub fn held_nodes(
    nodes: Signal<Vec<String>>,
    refused: Signal<Option<HeldNode>>,
) -> Memo<Vec<(String, String, String)>> {
    let i18n = use_i18n();
    let holds = use_context::<WindowHolds>();
    Memo::new(move |_| {
        let mut held: Vec<(String, String, String)> = nodes.with(|nodes| {
            let Some(WindowHolds(holds)) = holds else { return Vec::new() };
            holds.with(|h| {
                nodes
                    .iter()
                    .flat_map(|n| h.get(n).into_iter().flatten().map(|(w, why)| (n.clone(), w.clone(), why.clone())))
                    .collect()
            })
        });
        if let Some(r) = refused.get() {
            // The hold the server refused for comes first; the node's other holds stay listed.
            let why = hold_text(i18n, &r.hold, r.at);
            held.retain(|(node, window, _)| !(*node == r.node && *window == r.window));
            held.insert(0, (r.node.clone(), r.window.clone(), why));
        }
        held
    })
}

/// Whether a window holds one of the nodes and the person has not yet chosen a way past it: the confirm button
/// waits for that.
pub fn undecided(held: Memo<Vec<(String, String, String)>>, way: WindowWay) -> Signal<bool> {
    Signal::derive(move || !held.with(Vec::is_empty) && way.undecided())
}

/// The held nodes, and the override's reason (and, for a plan, "wait for the windows"), while any node is held.
#[component]
pub fn WindowHoldSection(
    held: Memo<Vec<(String, String, String)>>,
    way: WindowWay,
    /// A plan may wait for its windows instead.
    #[prop(optional)]
    plan: bool,
) -> impl IntoView {
    let i18n = use_i18n();
    let blocked = undecided(held, way);
    move || {
        let list = held.get();
        if list.is_empty() {
            return None;
        }
        let more = list.len().saturating_sub(NAMED);
        let lines = list
            .into_iter()
            .take(NAMED)
            .map(|(node, window, why)| {
                let text = t_string!(i18n, windows.dialog_node, node = node.clone(), window, why).to_string();
                view! { <li data-testid="dialog-window-node" data-node=node>{text}</li> }
            })
            .collect_view();
        Some(view! {
            <section class="window-hold" data-testid="dialog-window-hold" role="status">
                <h3>{t_string!(i18n, windows.dialog_title)}</h3>
                <ul>
                    {lines}
                    {(more > 0).then(|| view! { <li>{t_string!(i18n, windows.dialog_more, more)}</li> })}
                </ul>
                {plan.then(|| view! {
                    <label class="toggle">
                        <input type="checkbox" data-testid="window-wait"
                            prop:checked=way.wait on:change=move |ev| way.wait.set(event_target_checked(&ev)) />
                        <span>{t_string!(i18n, windows.dialog_wait)}</span>
                    </label>
                })}
                // The hint sits with the field it names, and says why the field is off while the plan waits.
                {move || blocked.get().then(|| view! {
                    <p class="hint" id="window-hold-hint" data-testid="window-hold-hint">
                        {if plan { t_string!(i18n, windows.dialog_hint_plan) } else { t_string!(i18n, windows.dialog_hint) }}
                    </p>
                })}
                <label class="stacked">
                    {t_string!(i18n, windows.dialog_override)}
                    <input type="text" maxlength="500" data-testid="window-override-reason"
                        aria-describedby="window-hold-hint"
                        disabled=move || way.wait.get()
                        prop:value=move || way.reason.get() on:input=move |ev| way.reason.set(event_target_value(&ev)) />
                </label>
                {move || (plan && way.wait.get()).then(|| view! {
                    <p class="hint" data-testid="window-override-off">{t_string!(i18n, windows.dialog_override_off)}</p>
                })}
            </section>
        })
    }
}
