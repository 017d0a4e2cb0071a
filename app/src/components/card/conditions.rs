use domain::node::{ApiCondition, Condition, ConditionHealth, NodeCard};
use leptos::prelude::*;

use crate::i18n::{t_string, use_i18n};

/// The node's conditions as a table, and as the API's JSON with a button that copies it.
#[component]
pub fn Conditions(card: Memo<NodeCard>) -> impl IntoView {
    let i18n = use_i18n();
    // Written when first opened: the cards on the wire carry the conditions once, structured.
    let opened = RwSignal::new(false);
    let json = move || {
        card.with(|c| {
            let api: Vec<ApiCondition> = c.conditions.iter().map(Condition::as_api).collect();
            serde_json::to_string_pretty(&api).unwrap_or_default()
        })
    };
    // A node whose every condition is as it should be folds them away; one with a problem shows them.
    let healthy = Memo::new(move |_| card.with(|c| c.conditions.iter().all(|x| x.health() == ConditionHealth::Good)));
    view! {
        <details class="conditions-fold" data-testid="conditions" prop:open=move || !healthy.get()>
        <summary>
            {move || if healthy.get() { t_string!(i18n, card.conditions_ok).to_string() } else { t_string!(i18n, card.conditions).to_string() }}
        </summary>
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
                            <td>{breakable(&cond.reason.clone().unwrap_or_default())}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        </details>
        <details class="conditions-json" on:toggle=move |_| opened.set(true)>
            <summary>{t_string!(i18n, card.conditions_json)}</summary>
            <button
                type="button"
                data-testid="copy-conditions"
                on:click=move |_| {
                    #[cfg(feature = "hydrate")]
                    if let Some(window) = web_sys::window() {
                        let _ = window.navigator().clipboard().write_text(&json());
                    }
                }
            >
                {t_string!(i18n, card.copy)}
            </button>
            <pre data-testid="conditions-json">{move || opened.get().then(json)}</pre>
        </details>
    }
}

/// A CamelCase word (a condition's reason) with places to wrap between its words (`<wbr>`), so that a narrow card
/// wraps "KubeletHasSufficientMemory" as "KubeletHasSufficient|Memory", never in the middle of a word.
pub fn breakable(text: &str) -> impl IntoView + use<> {
    domain::board::word_parts(text)
        .into_iter()
        .enumerate()
        .map(|(i, part)| view! { {(i > 0).then(|| view! { <wbr /> })} {part} })
        .collect_view()
}
