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

/// Each held node's holds, as (window, why in words), the deciding one first: what its card's badge says. Every
/// hold is kept: a budget that is full now must not hide a freeze that lasts the weekend.
#[derive(Clone, Copy)]
pub struct WindowHolds(pub RwSignal<BTreeMap<String, Vec<(String, String)>>>);

impl WindowHolds {
    pub fn new() -> Self {
        WindowHolds(RwSignal::new(BTreeMap::new()))
    }
}

/// Whether any maintenance window covers a node, as the last answer said: what the board's readiness line waits
/// for before it loads its code, which a cluster without windows never needs.
#[derive(Clone, Copy)]
pub struct WindowsCover(pub RwSignal<bool>);

/// The cluster's line, with each window that holds nodes, how many and why; nothing while no window covers a
/// node. Fills the [`WindowHolds`] in context, if any, for the cards.
#[component]
pub fn WindowsNow(now: Signal<Timestamp>) -> impl IntoView {
    let i18n = use_i18n();
    let answer = Resource::new(move || now.get().as_second() / REFRESH_SECONDS, |_| window_decisions());
    if let Some(WindowsCover(cover)) = use_context::<WindowsCover>() {
        Effect::new(move || {
            if let Some(Ok(answer)) = answer.get() {
                let covers = answer.keeps_windows && answer.nodes.iter().any(|d| !d.windows.is_empty());
                if cover.get_untracked() != covers {
                    cover.set(covers);
                }
            }
        });
    }
    if let Some(WindowHolds(holds)) = use_context::<WindowHolds>() {
        Effect::new(move || {
            if let Some(Ok(answer)) = answer.get() {
                let at = now.get_untracked();
                holds.set(
                    answer
                        .nodes
                        .iter()
                        .map(|d| (d.node.clone(), every_hold(i18n, d, at)))
                        .filter(|(_, h)| !h.is_empty())
                        .collect(),
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

/// Every hold of a node, as (window, why in words): the deciding window's first, then the others in the order the
/// decision lists them.
fn every_hold(i18n: I18n, d: &Decision, now: Timestamp) -> Vec<(String, String)> {
    let deciding = d.decided_by.as_deref();
    let mut holds: Vec<&domain::window::Held> = d.holds.iter().collect();
    holds.sort_by_key(|h| Some(h.window.as_str()) != deciding);
    holds.into_iter().map(|h| (h.window.clone(), hold_text(i18n, &h.hold, now))).collect()
}

/// A node's holds in one line, each naming its window.
pub fn holds_line(i18n: I18n, holds: &[(String, String)]) -> String {
    holds
        .iter()
        .map(|(window, why)| t_string!(i18n, windows.node_held, window = window.clone(), why = why.clone()).to_string())
        .collect::<Vec<_>>()
        .join(" · ")
}

fn summary(i18n: I18n, answer: &Now, now: Timestamp) -> AnyView {
    let covered: Vec<&Decision> = answer.nodes.iter().filter(|d| !d.windows.is_empty()).collect();
    if !answer.keeps_windows || covered.is_empty() {
        return ().into_any();
    }
    // Other tools a freeze holds by their own switches, said beside what holds Drainboard.
    let others = answer
        .others_held
        .iter()
        .map(|(window, tools)| {
            let tools = tools.join(", ");
            let text = t_string!(i18n, windows.others_held, window = window.clone(), tools).to_string();
            view! { <li data-testid="windows-others-held" data-window=window.clone()>{text}</li> }
        })
        .collect_view();
    let total = covered.len();
    let mut groups: BTreeMap<(String, String), usize> = BTreeMap::new();
    // Each hold is a line of its own: a node held twice counts under both.
    for d in covered.iter().filter(|d| !d.may_start()) {
        for key in every_hold(i18n, d, now) {
            *groups.entry(key).or_default() += 1;
        }
    }
    // Until when maintenance may start, on the closing window's clock.
    let until = answer.closes.as_ref().and_then(|c| {
        let local = c.closes_local.as_ref()?;
        let far = now.duration_until(c.closes) > jiff::SignedDuration::from_hours(20);
        let after = crate::i18n::elapsed_text(i18n, now.duration_until(c.closes).max(jiff::SignedDuration::ZERO));
        let local = crate::i18n::local_time_text(i18n, local, far);
        Some(t_string!(i18n, windows.open_until, window = c.window.clone(), local, after).to_string())
    });
    if groups.is_empty() {
        return view! {
            <p class="windows-now open" data-testid="windows-now" data-state="open">
                {t_string!(i18n, windows.open_all, total)}
                {until.map(|u| view! { " " <span data-testid="windows-open-until">{u}</span> })}
            </p>
        }
        .into_any();
    }
    let held = covered.iter().filter(|d| !d.may_start()).count();
    view! {
        <section class="windows-now held" data-testid="windows-now" data-state="held" role="status">
            <p>
                {t_string!(i18n, windows.held_some, held, total)}
                {until.map(|u| view! { " " <span data-testid="windows-open-until">{u}</span> })}
            </p>
            <ul>
                {groups
                    .into_iter()
                    .map(|((window, why), n)| {
                        let text = t_string!(i18n, windows.group, window = window.clone(), total = n, why).to_string();
                        view! { <li data-testid="window-hold" data-window=window data-nodes=n>{text}</li> }
                    })
                    .collect_view()}
                {others}
            </ul>
        </section>
    }
    .into_any()
}

/// A held card's badge: every window that holds it, and why, the deciding one first.
#[component]
pub fn HeldBadge(name: String) -> impl IntoView {
    let i18n = use_i18n();
    let holds = use_context::<WindowHolds>();
    move || {
        let held = holds?.0.with(|h| h.get(&name).cloned())?;
        let text = holds_line(i18n, &held);
        let title = text.clone();
        Some(view! {
            <span class="badge held" data-testid="card-window-hold" data-holds=held.len() title=title>{text}</span>
        })
    }
}
