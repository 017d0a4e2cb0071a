//! The node list: every node with its Ready status, rendered on the server and filterable once hydrated.

use domain::{NodeSummary, ReadyStatus};
use leptos::prelude::*;

use crate::{api::list_nodes, strings};

#[component]
pub fn NodesPage() -> impl IntoView {
    let s = strings::current();
    let nodes = Resource::new(|| (), |_| list_nodes());
    let (filter, set_filter) = signal(String::new());
    // Effects run only in the browser, so this flips once the page is hydrated and interactive. Tests wait on it.
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));

    view! {
        <section class="nodes-page" data-testid="nodes-page" data-hydrated=move || hydrated.get().to_string()>
            <div class="toolbar">
                <label>
                    <span class="visually-hidden">{s.filter_label}</span>
                    <input
                        type="search"
                        data-testid="node-filter"
                        placeholder=s.filter_placeholder
                        prop:value=filter
                        on:input=move |ev| set_filter.set(event_target_value(&ev))
                    />
                </label>
            </div>
            <Suspense fallback=move || view! { <p data-testid="nodes-loading">{s.loading_nodes}</p> }>
                {move || Suspend::new(async move {
                    match nodes.await {
                        Ok(all) => view! { <NodeList all filter /> }.into_any(),
                        Err(err) => view! {
                            <p class="error" role="alert" data-testid="nodes-error">
                                {s.nodes_error_prefix} " " {err.to_string()}
                            </p>
                        }
                        .into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

#[component]
fn NodeList(all: Vec<NodeSummary>, filter: ReadSignal<String>) -> impl IntoView {
    let s = strings::current();
    let total = all.len();
    let shown = Memo::new(move |_| {
        let needle = filter.get().trim().to_lowercase();
        all.iter().filter(|n| needle.is_empty() || n.name.to_lowercase().contains(&needle)).cloned().collect::<Vec<_>>()
    });
    view! {
        <p class="count" data-testid="node-count">{move || (s.showing_nodes)(shown.with(Vec::len), total)}</p>
        <Show when=move || shown.with(|v| !v.is_empty()) fallback=move || view! { <p>{s.no_nodes_match}</p> }>
            <ul class="node-list" data-testid="node-list">
                <For each=move || shown.get() key=|n| n.name.clone() let(node)>
                    <NodeRow node />
                </For>
            </ul>
        </Show>
    }
}

#[component]
fn NodeRow(node: NodeSummary) -> impl IntoView {
    let s = strings::current();
    let class = match node.ready {
        ReadyStatus::Ready => "badge ok",
        ReadyStatus::NotReady => "badge bad",
        ReadyStatus::Unknown => "badge unknown",
    };
    view! {
        <li class="node-row" data-testid="node-row" data-node=node.name.clone()>
            <span class="node-name" data-testid="node-name">{node.name.clone()}</span>
            <span class=class data-testid="node-ready">{node.ready.label()}</span>
            {node.unschedulable.then(|| view! { <span class="badge warn" data-testid="node-cordoned">{s.cordoned}</span> })}
        </li>
    }
}
