//! Move first (`domain::moving`), under a pod a budget at zero holds while the drain runs: a button that asks the
//! server what the move would do, shows it with its cost, and makes it once the Deployment's name is typed, as the
//! server checks too. The server's refusal (an autoscaler, a StatefulSet, ...) shows in its place.

use domain::moving::{MoveAnswer, MovePreview};
use leptos::prelude::*;

use crate::{
    api::MoveFirst,
    i18n::{t_string, use_i18n},
};

/// The pod to move, of the drain `id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Movable {
    pub id: String,
    pub namespace: String,
    pub pod: String,
}

/// `offered`: whether the pod is still held so that a move would help; the button shows only then, while a
/// confirmation once opened stays until Confirm or Cancel (the server checks again).
#[component]
pub fn MoveFirstAction(movable: Movable, offered: Signal<bool>) -> impl IntoView {
    let i18n = use_i18n();
    let movable = StoredValue::new(movable);
    let look = ServerAction::<MoveFirst>::new();
    let act = ServerAction::<MoveFirst>::new();
    let typed = RwSignal::new(String::new());
    let ask = move |confirm: Option<String>| {
        let m = movable.get_value();
        MoveFirst { id: m.id, namespace: m.namespace, pod: m.pod, confirm }
    };
    let open = move |_| {
        typed.set(String::new());
        act.clear();
        look.dispatch(ask(None));
    };
    let preview = move || match look.value().get() {
        Some(Ok(MoveAnswer::Preview(p) | MoveAnswer::Started(p))) => Some(Ok(p)),
        Some(Err(e)) => Some(Err(e)),
        None => None,
    };
    let form = move |p: MovePreview| {
        let expected = p.deployment.clone();
        let ready = move || typed.get().trim() == expected;
        let cost = t_string!(
            i18n,
            move_first.cost,
            deployment = p.deployment.clone(),
            original = p.original,
            surged = p.surged,
            pods = p.pods.join(", ")
        )
        .to_string();
        let word = p.deployment.clone();
        view! {
            <div class="unblock-confirm" role="group" data-testid="move-first-form" data-deployment=p.deployment.clone()>
                <p class="hint" data-testid="move-first-preview">{cost}</p>
                <label>
                    {t_string!(i18n, unblock.type_name, name = word)}
                    " "
                    <input type="text" data-testid="move-first-confirm-input" autocomplete="off"
                        prop:value=move || typed.get() on:input=move |e| typed.set(event_target_value(&e)) />
                </label>
                " "
                <button type="button" class="danger" data-testid="move-first-confirm" disabled=move || !ready()
                    on:click=move |_| {
                        act.dispatch(ask(Some(typed.get_untracked())));
                        look.clear();
                    }>
                    {t_string!(i18n, unblock.confirm)}
                </button>
                " "
                <button type="button" data-testid="move-first-cancel" on:click=move |_| look.clear()>
                    {t_string!(i18n, unblock.cancel)}
                </button>
            </div>
        }
        .into_any()
    };
    view! {
        <div class="unblock" data-testid="move-first">
            {move || offered.get().then(|| view! {
                <button type="button" data-testid="move-first-open" on:click=open>{t_string!(i18n, move_first.button)}</button>
            })}
            {move || look.pending().get().then(|| view! {
                <p class="muted" role="status">{t_string!(i18n, move_first.checking)}</p>
            })}
            {move || preview().map(|answer| match answer {
                Ok(p) => form(p),
                Err(error) => view! {
                    <p class="error" role="alert" data-testid="move-first-error">{crate::i18n::failed_text(i18n, &error)}</p>
                }.into_any(),
            })}
            {move || act.value().get().map(|answer| match answer {
                Ok(_) => view! {
                    <p class="muted" role="status" data-testid="move-first-result">{t_string!(i18n, move_first.done)}</p>
                }.into_any(),
                Err(error) => view! {
                    <p class="error" role="alert" data-testid="move-first-error">{crate::i18n::failed_text(i18n, &error)}</p>
                }.into_any(),
            })}
        </div>
    }
}
