//! Rolling maintenance on the board: choosing nodes (cards, or every node the filters show), and the panel of
//! rollouts that everyone watching sees, with each node's step and the rollout's pause, resume and stop.

use std::collections::BTreeSet;

mod back;
mod plan;

pub use back::BackAction;

use domain::rollout::RolloutProgress;
use leptos::prelude::*;

use crate::{
    dialogs::{Actions, Dialog},
    i18n::{t_string, use_i18n},
    live::Current,
    state::{Filters, Selection},
};
use plan::RolloutView;

/// A card's checkbox: present only where a [`Selection`] is (the board).
#[component]
pub fn SelectBox(name: String) -> impl IntoView {
    let i18n = use_i18n();
    use_context::<Selection>().map(|selection| {
        let Selection(chosen) = selection;
        let label = t_string!(i18n, rollout.select, node = &name).to_string();
        let (checked, toggled) = (name.clone(), name);
        view! {
            <input
                type="checkbox"
                class="card-select"
                data-testid="card-select"
                aria-label=label
                prop:checked=move || chosen.with(|c| c.contains(&checked))
                on:change=move |ev| {
                    selection.set(&toggled, event_target_checked(&ev));
                }
            />
        }
    })
}

/// The bar above the cards: select every node the filters show (the label filter is a label selector), clear,
/// and open the rollout dialog for the chosen nodes.
#[component]
pub fn RolloutBar(current: Current, filters: Filters) -> impl IntoView {
    let i18n = use_i18n();
    let actions = expect_context::<Actions>();
    let Selection(chosen) = expect_context::<Selection>();
    let shown = Memo::new(move |_| {
        let filter = filters.filter();
        current.with(|b| b.cards.values().filter(|c| filter.matches(c)).map(|c| c.name.clone()).collect::<Vec<_>>())
    });
    let count = move || chosen.with(BTreeSet::len);
    view! {
        <div class="rollout-bar" data-testid="rollout-bar">
            <button
                type="button"
                data-testid="select-shown"
                // Nothing shown, nothing to select: "Select the 0 nodes shown" would do nothing.
                disabled=move || shown.with(Vec::is_empty)
                on:click=move |_| chosen.update(|c| c.extend(shown.get_untracked()))
            >
                {move || t_string!(i18n, rollout.select_shown, count = shown.with(Vec::len)).to_string()}
            </button>
            {move || (count() > 0).then(|| view! {
                <span data-testid="selected-count" data-count=count()>{t_string!(i18n, rollout.selected, count = count())}</span>
                <button type="button" data-testid="clear-selection" on:click=move |_| chosen.set(BTreeSet::new())>
                    {t_string!(i18n, rollout.clear)}
                </button>
                <button
                    type="button"
                    class="primary"
                    data-testid="open-rollout"
                    on:click=move |_| actions.open(Dialog::Rollout(chosen.get_untracked().into_iter().collect(), None))
                >
                    {t_string!(i18n, rollout.open)}
                </button>
            })}
        </div>
    }
}

/// Every plan, latest first, as the board stream sends them after each change (no polling).
#[component]
pub fn RolloutsPanel(plans: RwSignal<Option<Vec<RolloutProgress>>>) -> impl IntoView {
    let rollouts = RwSignal::new(Vec::<RolloutProgress>::new());
    Effect::new(move |_| {
        if let Some(list) = plans.get() {
            rollouts.set(list);
        }
    });
    // The list is empty until the browser's first answer, so the server renders nothing here and hydration finds
    // nothing to match: the panel's code can load when there is a rollout to show.
    view! {
        <Show when=move || rollouts.with(|r| !r.is_empty())>
            <Suspense fallback=|| ()>{Suspend::new(rollouts_view(rollouts))}</Suspense>
        </Show>
    }
}

/// The panel itself, its code loaded when the first rollout appears (a part of the wasm of its own with `--split`):
/// most boards have none running.
#[lazy]
fn rollouts_view(rollouts: RwSignal<Vec<RolloutProgress>>) -> AnyView {
    let i18n = use_i18n();
    // Rollouts not ended first; the ended ones fold away below them, so that they do not hold the top of the page.
    let ids = move |ended: bool| {
        rollouts
            .with(|r| r.iter().filter(|r| plan::is_ended(&r.state) == ended).map(|r| r.id.clone()).collect::<Vec<_>>())
    };
    let ended_count = move || rollouts.with(|r| r.iter().filter(|r| plan::is_ended(&r.state)).count());
    view! {
        <section class="rollouts" data-testid="rollouts">
            <h2>{t_string!(i18n, rollout.panel)}</h2>
            <For each=move || ids(false) key=|id| id.clone() let(id)>
                <RolloutView id rollouts />
            </For>
            <Show when=move || { ended_count() > 0 }>
                <details class="rollouts-ended" data-testid="rollouts-ended">
                    <summary>{move || t_string!(i18n, rollout.ended, count = ended_count())}</summary>
                    <For each=move || ids(true) key=|id| id.clone() let(id)>
                        <RolloutView id rollouts />
                    </For>
                </details>
            </Show>
        </section>
    }
    .into_any()
}
