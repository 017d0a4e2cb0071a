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
    provide_context(crate::live::LiveNow::of(&live));
    let actions = Actions::new();
    provide_context(actions);
    // The tab names the node (set in the browser: see `dom::set_title`).
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| crate::live::dom::set_title(&t_string!(i18n, app.title_node, node = name()).to_string()));
    view! {
        <section class="node-detail" data-testid="node-detail" data-hydrated=move || live.hydrated.get().to_string()>
            <nav class="toolbar">
                <a href=crate::context::href("/") data-testid="back-to-board">{t_string!(i18n, detail.back)}</a>
                <ConnectionBadge live />
            </nav>
            <Notice notice=actions.notice />
            <DialogHost server_now=live.server_now() board=live.board />
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
                                    // In the browser only, once hydrated, as the pods below: the history's code
                                    // loads with the node page, not with the board.
                                    {move || live.hydrated.get().then(|| {
                                        // The card's records move as an action lands, but the history entry is
                                        // written after it: the histories' version, which moves once the entry
                                        // is kept, asks again then, so the page never stops one entry short.
                                        let changes = Signal::derive(move || {
                                            let card = current.with(|b| b.cards.get(&name()).map(history_key).unwrap_or_default());
                                            format!("{card}/{}", live.history.get())
                                        });
                                        view! { <Suspense fallback=|| ()>{Suspend::new(node_history_view(name(), changes))}</Suspense> }
                                    })}
                                </Show>
                            }
                            .into_any()
                        }
                        Err(err) => view! {
                            <p class="error" role="alert">{t_string!(i18n, app.nodes_error, error = crate::i18n::error_text(i18n, &err))}</p>
                        }
                        .into_any(),
                    }
                })}
            </Suspense>
            <h2>{t_string!(i18n, detail.pods_title)}</h2>
            // In the browser only, once hydrated: the pods come from the preview stream, which only the browser
            // follows, and the planner that reads them loads with this part.
            {move || live.hydrated.get().then(|| view! { <Suspense fallback=|| ()>{Suspend::new(node_pods_view(name()))}</Suspense> })}
        </section>
    }
}

/// What moves when the node's history gains an entry: its cordon, and its drain's start and end. Not a drain's pods
/// left, which change with every eviction and add no entry.
fn history_key(card: &domain::node::NodeCard) -> String {
    let cordoned = card.cordon_record.as_ref().map(|r| r.at.as_millisecond());
    let drain =
        card.drain_record.as_ref().map(|r| (r.id.as_str(), &r.state, r.finished_at.map(|t| t.as_millisecond())));
    format!("{cordoned:?}{drain:?}")
}

/// The node's maintenance history, its code loaded when a node page first shows it (a part of the wasm of its own
/// with `--split`).
#[lazy]
fn node_history_view(node: String, changes: Signal<String>) -> AnyView {
    view! { <NodeHistory node changes /> }.into_any()
}

/// The node's pods, following its preview stream, with the planner's verdict on each: its code loaded when a node
/// page first shows it (a part of the wasm of its own with `--split`, shared with the drain dialog), so that the
/// board's first load does not carry the planner.
#[lazy]
fn node_pods_view(node: String) -> AnyView {
    let feed = follow_preview(&node);
    (move || feed.inputs.with(|i| i.as_ref().map(|i| view! { <NodePods inputs=i.clone() /> }))).into_any()
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
    // As the drain dialog would start: the page and the dialog say the same of DaemonSet pods.
    let options = domain::drain::DrainOptions::dialog_defaults();
    let plan = domain::preview::preview(&inputs, &options).unwrap_or_default();
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

#[cfg(test)]
mod tests {
    use domain::{
        node::NodeCard,
        progress::{DrainRecord, DrainState},
    };

    use super::history_key;

    #[test]
    fn the_history_reloads_when_a_drain_starts_or_ends_not_with_each_eviction() {
        let record = DrainRecord {
            id: "d1".into(),
            started_by: "ana".into(),
            started_at: "2026-12-01T10:00:00Z".parse().unwrap(),
            reason: None,
            options: Default::default(),
            state: DrainState::Evicting,
            pods_left: 5,
            finished_at: None,
        };
        let card = |record: Option<DrainRecord>| NodeCard { drain_record: record, ..NodeCard::default() };
        let evicting = history_key(&card(Some(record.clone())));
        assert_ne!(history_key(&card(None)), evicting, "a drain started");
        assert_eq!(history_key(&card(Some(DrainRecord { pods_left: 4, ..record.clone() }))), evicting, "an eviction");
        let ended = DrainRecord {
            state: DrainState::Drained,
            pods_left: 0,
            finished_at: Some("2026-12-01T10:05:00Z".parse().unwrap()),
            ..record
        };
        assert_ne!(history_key(&card(Some(ended))), evicting, "the drain ended");
    }
}
