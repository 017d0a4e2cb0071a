//! The board's versions view: for each of kubelet, kernel, OS image and container runtime, how many of the nodes
//! the filters show report each value, and how many of them need a reboot. "Plan the stragglers" on a value opens
//! the rollout dialog with the nodes not on it, its verification expecting that value once each is back; "Plan
//! the nodes that need a reboot" opens it with those. The counts and the lists are `domain::versions`'s. Its code
//! loads when first shown.

use domain::{node::NodeCard, verify::Component, versions};
use leptos::prelude::*;

use crate::{
    dialogs::{Actions, Dialog},
    i18n::{I18n, component_text, t_string, use_i18n},
    live::Current,
    state::Filters,
};

/// The versions view, its code loaded when first shown.
#[lazy]
pub(super) fn versions_view(current: Current, filters: Filters) -> AnyView {
    view! { <Versions current filters /> }.into_any()
}

/// The cards the filters show, read in place: the board holds thousands at scale, and each table's memo walks them
/// by reference rather than a copy of them all at every board update.
#[derive(Clone, Copy)]
struct Shown {
    current: Current,
    filters: Filters,
}

impl Shown {
    /// `f` over the cards the filters show, in name order.
    fn with<T>(&self, f: impl FnOnce(&mut dyn Iterator<Item = &NodeCard>) -> T) -> T {
        let filter = self.filters.filter();
        self.current.with(|b| f(&mut b.cards.values().filter(|c| filter.matches(c))))
    }
}

/// The readiness check, the nodes that need a reboot, and a table per version.
#[component]
fn Versions(current: Current, filters: Filters) -> AnyView {
    let i18n = use_i18n();
    let actions = expect_context::<Actions>();
    let shown = Shown { current, filters };
    let need_reboot = Memo::new(move |_| shown.with(|cards| versions::need_reboot(cards)));
    let names = Memo::new(move |_| shown.with(|cards| cards.map(|c| c.name.clone()).collect::<Vec<_>>()));
    view! {
        <section class="versions" data-testid="versions">
            <crate::components::readiness::CheckReadiness nodes=names.into() />
            {move || {
                let nodes = need_reboot.get();
                let count = nodes.len();
                view! {
                    <p class="versions-reboot" data-testid="versions-reboot" data-count=count>
                        {if count == 0 {
                            t_string!(i18n, versions.no_reboot).to_string()
                        } else {
                            t_string!(i18n, versions.need_reboot, count).to_string()
                        }}
                        " "
                        {(count > 0).then(|| view! {
                            <button
                                type="button"
                                data-testid="versions-plan-reboot"
                                on:click=move |_| actions.open(Dialog::Rollout(nodes.clone(), None))
                            >
                                {t_string!(i18n, versions.plan_reboot, count)}
                            </button>
                        })}
                    </p>
                }
                .into_any()
            }}
            {Component::ALL.into_iter().map(|component| view! { <Table component shown i18n actions /> }).collect_view()}
        </section>
    }
    .into_any()
}

/// One version's values, most nodes first.
#[component]
fn Table(component: Component, shown: Shown, i18n: I18n, actions: Actions) -> AnyView {
    let rows = Memo::new(move |_| shown.with(|cards| versions::tally(cards, component)));
    let total = Memo::new(move |_| shown.with(|cards| cards.count()));
    let row = move |count: versions::ValueCount| {
        let value = count.value.clone();
        let others = total.get().saturating_sub(count.nodes);
        let plan = value.clone().filter(|_| others > 0).map(|target| {
            view! {
                <button
                    type="button"
                    data-testid="versions-plan-stragglers"
                    on:click=move |_| {
                        let nodes = shown.with(|cards| versions::stragglers(cards, component, &target));
                        actions.open(Dialog::Rollout(nodes, Some((component, target.clone()))));
                    }
                >
                    {t_string!(i18n, versions.plan_stragglers, count = others)}
                </button>
            }
        });
        view! {
            <tr data-testid="versions-row" data-value=value.clone().unwrap_or_default() data-nodes=count.nodes data-reboot=count.need_reboot>
                <th scope="row">
                    {match &value {
                        Some(v) => view! { <code>{v.clone()}</code> }.into_any(),
                        None => view! { <em>{t_string!(i18n, versions.not_reported)}</em> }.into_any(),
                    }}
                </th>
                <td data-testid="versions-count">{count.nodes}</td>
                <td data-testid="versions-reboot-count">{count.need_reboot}</td>
                <td>{plan}</td>
            </tr>
        }
        .into_any()
    };
    view! {
        <table class="versions-table" data-testid="versions-table" data-component=component.key()>
            <caption>
                {component_text(i18n, component)} " " <small class="muted"><code>{component.path()}</code></small>
            </caption>
            <thead>
                <tr>
                    <th scope="col">{t_string!(i18n, versions.value)}</th>
                    <th scope="col">{t_string!(i18n, versions.nodes)}</th>
                    <th scope="col">{t_string!(i18n, versions.need_reboot_column)}</th>
                    <th scope="col"><span class="visually-hidden">{t_string!(i18n, versions.actions)}</span></th>
                </tr>
            </thead>
            <tbody>{move || rows.get().into_iter().map(row).collect_view()}</tbody>
        </table>
    }
    // A static view type this deep overflows the compiler's limits once hydrated; erased, it does not.
    .into_any()
}
