use domain::node::NodeCard;
use leptos::prelude::*;

use crate::strings;

/// How many pods run on the node, what it can allocate, and its taints.
#[component]
pub fn Facts(card: Memo<NodeCard>) -> impl IntoView {
    let b = strings::board();
    view! {
        <dl class="facts">
            <dt>{b.pods}</dt>
            <dd data-testid="pod-count">{move || card.with(|c| c.pod_count)}</dd>
            <dt>{b.allocatable}</dt>
            <dd>
                {move || card.with(|c| c.allocatable.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "))}
            </dd>
            <dt>{b.taints}</dt>
            <dd data-testid="taints">
                {move || card.with(|c| if c.taints.is_empty() {
                    b.no_taints.to_string()
                } else {
                    c.taints.iter().map(|t| format!("{}:{}", t.key, t.effect)).collect::<Vec<_>>().join(", ")
                })}
            </dd>
        </dl>
    }
}
