use domain::node::NodeCard;
use leptos::prelude::*;

use crate::i18n::{t_string, use_i18n};

/// How many pods run on the node, what it can allocate, and its taints.
#[component]
pub fn Facts(card: Memo<NodeCard>) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <dl class="facts">
            <dt>{t_string!(i18n, card.pods)}</dt>
            <dd data-testid="pod-count">{move || card.with(|c| c.pod_count)}</dd>
            <dt>{t_string!(i18n, card.allocatable)}</dt>
            <dd>
                {move || card.with(|c| c.allocatable.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "))}
            </dd>
            <dt>{t_string!(i18n, card.taints)}</dt>
            <dd data-testid="taints">
                // Wrapped only between words: "node.kubernetes.io/unreachable:NoSchedule" breaks after a
                // separator or between "No" and "Schedule", never inside one.
                {move || card.with(|c| if c.taints.is_empty() {
                    t_string!(i18n, card.no_taints).to_string().into_any()
                } else {
                    let text = c.taints.iter().map(|t| format!("{}:{}", t.key, t.effect)).collect::<Vec<_>>().join(", ");
                    super::conditions::breakable(&text).into_any()
                })}
            </dd>
        </dl>
    }
}
