//! The ways out a person may take, with consent, for a pod a budget short of healthy pods holds up
//! (`domain::blocker::Unblock`): each a button that opens its own confirmation, where the name of what changes must
//! be typed, as the server checks it too. Shown under the pod's blocker while the drain runs.

use domain::blocker::Unblock;
use leptos::prelude::*;

use crate::{
    api::UnblockDrain,
    i18n::{t_string, use_i18n},
};

/// What the actions act on: the drain, the pod, and the budget that holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    pub id: String,
    pub namespace: String,
    pub pod: String,
    pub budget: String,
}

/// The two actions, each behind its typed confirmation; the outcome, or the server's refusal, below. `offered`:
/// whether the budget still holds the pod; the buttons show only then, while a confirmation once opened stays
/// until Confirm or Cancel (the server checks again).
#[component]
pub fn UnblockActions(held: Held, offered: Signal<bool>) -> impl IntoView {
    let i18n = use_i18n();
    let chosen = RwSignal::new(None::<Unblock>);
    let typed = RwSignal::new(String::new());
    let act = ServerAction::<UnblockDrain>::new();
    // The action last sent, to word its outcome in the page's language (the answer is the server's record).
    let sent = RwSignal::new(None::<Unblock>);
    let held = StoredValue::new(held);
    let word = move |action: Unblock| held.with_value(|h| action.consent_word(&h.pod, &h.budget).to_owned());
    let open = move |action: Unblock| {
        typed.set(String::new());
        chosen.set(Some(action));
    };
    let confirm = move |_| {
        let Some(action) = chosen.get_untracked() else { return };
        let h = held.get_value();
        act.dispatch(UnblockDrain {
            id: h.id,
            namespace: h.namespace,
            pod: h.pod,
            action,
            confirm: Some(typed.get_untracked()),
        });
        sent.set(Some(action));
        chosen.set(None);
    };
    let budget = held.with_value(|h| h.budget.clone());
    view! {
        <div class="unblock" data-testid="unblock">
            {move || offered.get().then(|| {
                let budget = budget.clone();
                view! {
                    <button type="button" data-testid="unblock-delete-pod" on:click=move |_| open(Unblock::DeleteUnreadyPod)>
                        {t_string!(i18n, unblock.delete_pod)}
                    </button>
                    " "
                    <button type="button" data-testid="unblock-always-allow" on:click=move |_| open(Unblock::AlwaysAllow)>
                        {t_string!(i18n, unblock.always_allow, budget)}
                    </button>
                }
            })}
            {move || chosen.get().map(|action| {
                let expected = word(action);
                let cost = match action {
                    Unblock::DeleteUnreadyPod => t_string!(i18n, unblock.delete_pod_cost).to_string(),
                    Unblock::AlwaysAllow => t_string!(i18n, unblock.always_allow_cost).to_string(),
                };
                let ready = {
                    let expected = expected.clone();
                    move || typed.get().trim() == expected
                };
                view! {
                    <div class="unblock-confirm" role="group" data-testid="unblock-form" data-action=format!("{action:?}")>
                        <p class="hint">{cost}</p>
                        <label>
                            {t_string!(i18n, unblock.type_name, name = expected.clone())}
                            " "
                            <input type="text" data-testid="unblock-confirm-input" autocomplete="off"
                                prop:value=move || typed.get() on:input=move |e| typed.set(event_target_value(&e)) />
                        </label>
                        " "
                        <button type="button" class="danger" data-testid="unblock-confirm"
                            disabled=move || !ready() on:click=confirm>
                            {t_string!(i18n, unblock.confirm)}
                        </button>
                        " "
                        <button type="button" data-testid="unblock-cancel" on:click=move |_| chosen.set(None)>
                            {t_string!(i18n, unblock.cancel)}
                        </button>
                    </div>
                }
            })}
            {move || act.value().get().map(|answer| match (answer, sent.get()) {
                (Ok(_), Some(Unblock::DeleteUnreadyPod)) => view! {
                    <p class="muted" role="status" data-testid="unblock-result">{t_string!(i18n, unblock.done_delete_pod)}</p>
                }.into_any(),
                (Ok(_), _) => view! {
                    <p class="muted" role="status" data-testid="unblock-result">{t_string!(i18n, unblock.done_always_allow)}</p>
                }.into_any(),
                (Err(error), _) => view! {
                    <p class="error" role="alert" data-testid="unblock-error">{crate::i18n::failed_text(i18n, &error)}</p>
                }.into_any(),
            })}
        </div>
    }
}
