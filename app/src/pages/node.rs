//! One node: its card with the actions, and every pod on it with its owner, phase, and what a drain with the
//! default options would do with it. Linked from each card's name.

use domain::{
    PodRef,
    preview::{Preview, PreviewGroup, PreviewInputs},
};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::{
    api::board_snapshot,
    components::{ConnectionBadge, NodeHistory, Notice, card::CardView},
    dialogs::{Actions, DialogHost},
    i18n::{I18n, phase_text, t_string, use_i18n},
    live::{LiveBoard, preview::follow_preview},
};

#[component]
pub fn NodePage() -> impl IntoView {
    let i18n = use_i18n();
    let params = use_params_map();
    let name = move || params.with(|p| p.get("name").unwrap_or_default());
    let snapshot = Resource::new(|| (), |_| board_snapshot(None));
    let live = LiveBoard::new();
    let actions = Actions::new();
    provide_context(actions);
    let feed = follow_preview(&name());
    view! {
        <section class="node-detail" data-testid="node-detail" data-hydrated=move || live.hydrated.get().to_string()>
            <nav class="toolbar">
                <a href=crate::context::href("/") data-testid="back-to-board">{t_string!(i18n, detail.back)}</a>
                <ConnectionBadge live />
            </nav>
            <Notice notice=actions.notice />
            <DialogHost server_now=live.server_now() />
            <Suspense fallback=move || view! { <p>{t_string!(i18n, app.loading_nodes)}</p> }>
                {move || Suspend::new(async move {
                    match snapshot.await {
                        Ok(snap) => {
                            let current = live.current(&snap);
                            let exists = move || current.with(|b| b.cards.contains_key(&name()));
                            view! {
                                <Show
                                    when=exists
                                    fallback=move || view! {
                                        <p class="error" data-testid="node-missing">{move || t_string!(i18n, detail.no_such_node, name = name())}</p>
                                    }
                                >
                                    <div class="detail-card">
                                        <CardView name=name() current now=live.now drains=live.drains />
                                    </div>
                                    <NodeHistory node=name() changes=Signal::derive(move || current.with(|b| {
                                        b.cards.get(&name()).map(|c| format!("{:?}{:?}", c.cordon_record, c.drain_record)).unwrap_or_default()
                                    })) />
                                </Show>
                            }
                            .into_any()
                        }
                        Err(err) => view! {
                            <p class="error" role="alert">{t_string!(i18n, app.nodes_error, error = err.to_string())}</p>
                        }
                        .into_any(),
                    }
                })}
            </Suspense>
            <h2>{t_string!(i18n, detail.pods_title)}</h2>
            {move || feed.inputs.with(|i| i.as_ref().map(|i| view! { <NodePods inputs=i.clone() /> }))}
        </section>
    }
}

/// What a drain with default options does with the pod `key`, in words.
fn verdict(i18n: I18n, plan: &Preview, key: &str) -> String {
    match plan.group_of(key) {
        Some(PreviewGroup::Evict) => t_string!(i18n, detail.would_evict).to_string(),
        Some(PreviewGroup::Skip) => t_string!(i18n, detail.would_skip).to_string(),
        Some(PreviewGroup::Refuse) => t_string!(i18n, detail.would_refuse).to_string(),
        None => String::new(),
    }
}

/// The node's pods as a table.
#[component]
fn NodePods(inputs: PreviewInputs) -> impl IntoView {
    let i18n = use_i18n();
    let plan = domain::preview::preview(&inputs, &Default::default()).unwrap_or_default();
    view! {
        <table class="pod-table" data-testid="node-pods">
            <thead>
                <tr>
                    <th>{t_string!(i18n, detail.pod)}</th>
                    <th>{t_string!(i18n, detail.owner)}</th>
                    <th>{t_string!(i18n, detail.phase)}</th>
                    <th>{t_string!(i18n, detail.default_drain)}</th>
                </tr>
            </thead>
            <tbody>
                {inputs.pods.iter().map(|p| view! {
                    <tr data-testid="node-pod" data-pod=p.key()>
                        <td><code>{p.key()}</code></td>
                        <td>{p.controller.as_ref().map_or_else(|| t_string!(i18n, detail.no_controller).to_string(), |c| c.label())}</td>
                        <td>{phase_text(i18n, p.phase)}</td>
                        <td>{verdict(i18n, &plan, &p.key())}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}
