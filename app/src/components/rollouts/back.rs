//! "It is back", for a node a maintenance plan awaits: in the plan's panel and on the node's card. A node that
//! reported no new boot id since its drain did not reboot, as far as the cluster can tell: the action asks first,
//! naming that, and uncordons only on the person's word.

use leptos::prelude::*;

use crate::{
    i18n::{t_string, use_i18n},
    live::LiveNow,
    rollouts::RolloutNodeBack,
};

/// The button for `node` of plan `plan`, which awaited it from boot id `boot_then`.
#[component]
pub fn BackAction(plan: String, node: String, boot_then: Option<String>) -> impl IntoView {
    let i18n = use_i18n();
    let back = ServerAction::<RolloutNodeBack>::new();
    let asking = RwSignal::new(false);
    let live = use_context::<LiveNow>();
    let (plan, node) = (StoredValue::new(plan), StoredValue::new(node));
    // A new boot id since the drain (`domain::rollout::is_back`, readiness aside: the server checks the rest).
    let rebooted = move || {
        let now = live.and_then(|l| {
            l.board.with(|b| b.as_ref().and_then(|b| b.cards.get(&node.get_value()).and_then(|c| c.boot_id.clone())))
        });
        domain::rollout::is_back(boot_then.as_deref(), now.as_deref(), true)
    };
    let send = move || {
        asking.set(false);
        back.dispatch(RolloutNodeBack { id: plan.get_value(), node: node.get_value() });
    };
    let error = move || back.value().get().and_then(Result::err).map(|e| crate::i18n::failed_text(i18n, &e));
    view! {
        <button
            type="button"
            data-testid="rollout-node-back"
            data-node=node.get_value()
            disabled=move || back.pending().get()
            on:click=move |_| if rebooted() { send() } else { asking.set(true) }
        >
            {t_string!(i18n, rollout.is_back)}
        </button>
        {move || asking.get().then(|| view! {
            <span class="confirm-back" role="alert" data-testid="rollout-node-back-ask">
                {t_string!(i18n, rollout.back_no_boot, node = node.get_value())} " "
                <button type="button" class="danger" data-testid="rollout-node-back-confirm" on:click=move |_| send()>
                    {t_string!(i18n, rollout.back_on_my_word)}
                </button>
                " "
                <button type="button" data-testid="rollout-node-back-cancel" on:click=move |_| asking.set(false)>
                    {t_string!(i18n, unblock.cancel)}
                </button>
            </span>
        })}
        {move || error().map(|e| view! { <span class="error" role="alert" data-testid="rollout-node-back-error">{e}</span> })}
    }
}
