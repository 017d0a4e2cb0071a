//! One node: its card with the actions, and every pod on it with its owner, phase, and what a drain with the
//! default options would do with it. Linked from each card's name.

use domain::{
    PodRef,
    preview::{Preview, PreviewInputs},
};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::{
    api::board_snapshot,
    components::{ConnectionBadge, Notice, card::CardView},
    dialogs::{Actions, DialogHost},
    live::{LiveBoard, preview::follow_preview},
    strings::{self, DetailStrings},
};

#[component]
pub fn NodePage() -> impl IntoView {
    let s = strings::current();
    let d = strings::detail();
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
                <a href="/" data-testid="back-to-board">{d.back}</a>
                <ConnectionBadge connection=live.connection />
            </nav>
            <Notice notice=actions.notice />
            <DialogHost server_now=live.server_now() />
            <Suspense fallback=move || view! { <p>{s.loading_nodes}</p> }>
                {move || Suspend::new(async move {
                    match snapshot.await {
                        Ok(snap) => {
                            let current = Memo::new(move |_| live.current(&snap));
                            let exists = move || current.with(|b| b.cards.contains_key(&name()));
                            view! {
                                <Show
                                    when=exists
                                    fallback=move || view! {
                                        <p class="error" data-testid="node-missing">{(d.no_such_node)(&name())}</p>
                                    }
                                >
                                    <div class="detail-card">
                                        <CardView name=name() current now=live.now drains=live.drains />
                                    </div>
                                </Show>
                            }
                            .into_any()
                        }
                        Err(err) => view! {
                            <p class="error" role="alert">{s.nodes_error_prefix} " " {err.to_string()}</p>
                        }
                        .into_any(),
                    }
                })}
            </Suspense>
            <h2>{d.pods_title}</h2>
            {move || feed.inputs.with(|i| i.as_ref().map(|i| view! { <NodePods inputs=i.clone() /> }))}
        </section>
    }
}

/// What a drain with default options does with the pod `key`, in words.
fn verdict(d: &DetailStrings, plan: &Preview, key: &str) -> &'static str {
    if plan.evict.iter().any(|e| e.pod.key() == key) {
        d.would_evict
    } else if plan.skipped.iter().any(|(p, _)| p.key() == key) {
        d.would_skip
    } else if plan.refused.iter().any(|r| r.pod.key() == key) {
        d.would_refuse
    } else {
        ""
    }
}

/// The node's pods as a table.
#[component]
fn NodePods(inputs: PreviewInputs) -> impl IntoView {
    let d = strings::detail();
    let plan = domain::preview::preview(&inputs, &Default::default()).unwrap_or_default();
    view! {
        <table class="pod-table" data-testid="node-pods">
            <thead>
                <tr><th>{d.pod}</th><th>{d.owner}</th><th>{d.phase}</th><th>{d.default_drain}</th></tr>
            </thead>
            <tbody>
                {inputs.pods.iter().map(|p| view! {
                    <tr data-testid="node-pod" data-pod=p.key()>
                        <td><code>{p.key()}</code></td>
                        <td>{p.controller.as_ref().map_or_else(|| d.no_controller.to_string(), |c| c.label())}</td>
                        <td>{format!("{:?}", p.phase)}</td>
                        <td>{verdict(d, &plan, &p.key())}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}
