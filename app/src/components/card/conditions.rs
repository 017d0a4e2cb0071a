use domain::node::{ConditionHealth, NodeCard};
use leptos::prelude::*;

use crate::strings;

/// The node's conditions as a table, and as the API's JSON with a button that copies it.
#[component]
pub fn Conditions(card: Memo<NodeCard>) -> impl IntoView {
    let b = strings::board();
    view! {
        <table class="conditions" data-testid="conditions-table">
            <caption class="visually-hidden">{b.conditions}</caption>
            <tbody>
                {move || card.with(|c| c.conditions.clone()).into_iter().map(|cond| {
                    let class = match cond.health() {
                        ConditionHealth::Good => "good",
                        ConditionHealth::Bad => "bad",
                        ConditionHealth::Unknown => "unknown",
                    };
                    view! {
                        <tr class=class data-condition=cond.type_.clone()>
                            <th scope="row">{cond.type_.clone()}</th>
                            <td>{cond.status.clone()}</td>
                            <td>{cond.reason.clone().unwrap_or_default()}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        <details class="conditions-json">
            <summary>{b.conditions_json}</summary>
            <button
                type="button"
                data-testid="copy-conditions"
                on:click=move |_| {
                    #[cfg(feature = "hydrate")]
                    if let Some(window) = web_sys::window() {
                        let _ = window.navigator().clipboard().write_text(&card.with(|c| c.conditions_json.clone()));
                    }
                }
            >
                {b.copy}
            </button>
            <pre data-testid="conditions-json">{move || card.with(|c| c.conditions_json.clone())}</pre>
        </details>
    }
}
