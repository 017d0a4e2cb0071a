use domain::node::{ConditionHealth, NodeCard};
use leptos::prelude::*;

use crate::i18n::{t_string, use_i18n};

/// The node's conditions as a table, and as the API's JSON with a button that copies it.
#[component]
pub fn Conditions(card: Memo<NodeCard>) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <table class="conditions" data-testid="conditions-table">
            <caption class="visually-hidden">{t_string!(i18n, card.conditions)}</caption>
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
            <summary>{t_string!(i18n, card.conditions_json)}</summary>
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
                {t_string!(i18n, card.copy)}
            </button>
            <pre data-testid="conditions-json">{move || card.with(|c| c.conditions_json.clone())}</pre>
        </details>
    }
}
