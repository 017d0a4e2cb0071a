//! Whether maintenance may start now, as the maintenance windows decide it (`domain::window`), for the cluster
//! and per node: the board's and the wall's line, and the badge on each held card. Read from `POST /api/windows`
//! every few seconds; the server decides, with its own view of the windows and the cluster, and names only what
//! the person may read.

use std::collections::BTreeMap;

use domain::window::{Decision, Now};
use jiff::Timestamp;
use leptos::prelude::*;

use crate::{
    i18n::{I18n, hold_text, t_string, use_i18n},
    windows::window_decisions,
};

/// How often the answer is read again: a gate that closes shows within this.
const REFRESH_SECONDS: i64 = 5;

/// Each held node's deciding window and why, in words: what its card's badge says.
#[derive(Clone, Copy)]
pub struct WindowHolds(pub RwSignal<BTreeMap<String, (String, String)>>);

impl WindowHolds {
    pub fn new() -> Self {
        WindowHolds(RwSignal::new(BTreeMap::new()))
    }
}

/// The cluster's line, with each window that holds nodes, how many and why; nothing while no window covers a
/// node. Fills the [`WindowHolds`] in context, if any, for the cards.
#[component]
pub fn WindowsNow(now: Signal<Timestamp>) -> impl IntoView {
    let i18n = use_i18n();
    let answer = Resource::new(move || now.get().as_second() / REFRESH_SECONDS, |_| window_decisions());
    if let Some(WindowHolds(holds)) = use_context::<WindowHolds>() {
        Effect::new(move || {
            if let Some(Ok(answer)) = answer.get() {
                let at = now.get_untracked();
                holds.set(
                    answer.nodes.iter().filter_map(|d| deciding(i18n, d, at).map(|h| (d.node.clone(), h))).collect(),
                );
            }
        });
    }
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                match answer.await {
                    Ok(answer) => summary(i18n, &answer, now.get_untracked()),
                    Err(_) => ().into_any(),
                }
            })}
        </Transition>
    }
}

/// The deciding window of a held node, and its hold in words.
fn deciding(i18n: I18n, d: &Decision, now: Timestamp) -> Option<(String, String)> {
    let window = d.decided_by.clone()?;
    let held = d.holds.iter().find(|h| h.window == window)?;
    Some((window, hold_text(i18n, &held.hold, now)))
}

fn summary(i18n: I18n, answer: &Now, now: Timestamp) -> AnyView {
    let covered: Vec<&Decision> = answer.nodes.iter().filter(|d| !d.windows.is_empty()).collect();
    if !answer.keeps_windows || covered.is_empty() {
        return ().into_any();
    }
    let total = covered.len();
    let mut groups: BTreeMap<(String, String), usize> = BTreeMap::new();
    for d in covered.iter().filter(|d| !d.may_start()) {
        if let Some(key) = deciding(i18n, d, now) {
            *groups.entry(key).or_default() += 1;
        }
    }
    if groups.is_empty() {
        return view! {
            <p class="windows-now open" data-testid="windows-now" data-state="open">
                {t_string!(i18n, windows.open_all, total)}
            </p>
        }
        .into_any();
    }
    let held: usize = groups.values().sum();
    view! {
        <section class="windows-now held" data-testid="windows-now" data-state="held" role="status">
            <p>{t_string!(i18n, windows.held_some, held, total)}</p>
            <ul>
                {groups
                    .into_iter()
                    .map(|((window, why), n)| {
                        let text = t_string!(i18n, windows.group, window = window.clone(), total = n, why).to_string();
                        view! { <li data-testid="window-hold" data-window=window data-nodes=n>{text}</li> }
                    })
                    .collect_view()}
            </ul>
        </section>
    }
    .into_any()
}

/// A held card's badge: the deciding window, and why in its title.
#[component]
pub fn HeldBadge(name: String) -> impl IntoView {
    let i18n = use_i18n();
    let holds = use_context::<WindowHolds>();
    move || {
        let (window, why) = holds?.0.with(|h| h.get(&name).cloned())?;
        let text = t_string!(i18n, windows.node_held, window, why).to_string();
        let title = text.clone();
        Some(view! { <span class="badge held" data-testid="card-window-hold" title=title>{text}</span> })
    }
}
