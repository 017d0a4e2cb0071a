use domain::progress::CordonOutcome;
use leptos::prelude::*;

use super::{
    Actions,
    actor_consent::{ActorConsent, consented, refused_actors, undone_actors},
    window_hold::{WindowHoldSection, WindowWay, held_nodes, refused_hold, undecided},
};
use crate::{
    api::{CordonNode, UncordonNode},
    components::Modal,
    i18n::{t_string, use_i18n},
};

/// Cordon or uncordon, after a short confirmation. Success is reported only when the API server has answered.
#[component]
pub fn CordonDialog(node: String, cordon: bool) -> impl IntoView {
    let i18n = use_i18n();
    let actions = expect_context::<Actions>();
    let cordon_action = ServerAction::<CordonNode>::new();
    let uncordon_action = ServerAction::<UncordonNode>::new();
    let busy = move || if cordon { cordon_action.pending().get() } else { uncordon_action.pending().get() };
    let result = move || if cordon { cordon_action.value().get() } else { uncordon_action.value().get() };
    let node = StoredValue::new(node);
    let reason = RwSignal::new(String::new());
    // Only a cordon starts maintenance: a window never holds an uncordon.
    let way = WindowWay::new();
    let nodes = Signal::derive(move || if cordon { vec![node.get_value()] } else { Vec::new() });
    let held = held_nodes(nodes, Signal::derive(move || refused_hold(cordon_action.value().get())));
    let held_back = undecided(held, way);
    // An uncordon that would undo another tool's work waits for the person to type its name.
    let actors = undone_actors(node, Signal::derive(move || refused_actors(uncordon_action.value().get())));
    let typed = RwSignal::new(String::new());
    let consent = consented(actors, typed);
    Effect::new(move |_| {
        if let Some(Ok(outcome)) = result() {
            let node = node.get_value();
            let message = match (outcome, cordon) {
                (CordonOutcome::AlreadyDone, _) => t_string!(i18n, cordon.already_done, node),
                (CordonOutcome::Changed, true) => t_string!(i18n, cordon.cordoned, node),
                (CordonOutcome::Changed, false) => t_string!(i18n, cordon.uncordoned, node),
            }
            .to_string();
            actions.notice.set(Some((true, message)));
            actions.close();
        }
    });
    // A retry hides the last failure until it has its own answer.
    let error = move || match result() {
        Some(Err(error)) if !busy() => Some(crate::i18n::failed_text(i18n, &error)),
        _ => None,
    };
    let confirm = move |_| {
        let node = node.get_value();
        if cordon {
            let reason = Some(reason.get_untracked()).filter(|r| !r.trim().is_empty());
            let override_window =
                Some(way).filter(|_| !held.with_untracked(Vec::is_empty)).and_then(WindowWay::override_reason);
            cordon_action.dispatch(CordonNode { node, reason, override_window });
        } else {
            let confirm = Some(typed.get_untracked()).filter(|t| !t.trim().is_empty());
            uncordon_action.dispatch(UncordonNode { node, confirm });
        }
    };
    let close = Callback::new(move |_| actions.close());
    let title = node.with_value(|node| {
        if cordon { t_string!(i18n, cordon.cordon_title, node) } else { t_string!(i18n, cordon.uncordon_title, node) }
            .to_string()
    });
    view! {
        <Modal title testid="cordon-dialog" on_close=close>
            <p>
                {if cordon { t_string!(i18n, cordon.cordon_explain) } else { t_string!(i18n, cordon.uncordon_explain) }}
            </p>
            {cordon.then(|| view! {
                <label class="stacked">
                    {t_string!(i18n, cordon.reason_label)}
                    <input type="text" maxlength="500" data-testid="cordon-reason"
                        prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev)) />
                </label>
            })}
            <WindowHoldSection held way />
            {(!cordon).then(|| view! { <ActorConsent actors typed /> })}
            {move || error().map(|e| view! { <p class="error" role="alert" data-testid="dialog-error">{e}</p> })}
            <div class="modal-buttons">
                <button type="button" data-testid="dialog-cancel" on:click=move |_| close.run(())>{t_string!(i18n, actions.cancel)}</button>
                <button type="button" class="primary" data-testid="dialog-confirm" disabled=move || busy() || held_back.get() || !consent.get() on:click=confirm>
                    {move || {
                        if busy() {
                            t_string!(i18n, actions.working)
                        } else if cordon {
                            t_string!(i18n, actions.cordon)
                        } else {
                            t_string!(i18n, actions.uncordon)
                        }
                    }}
                </button>
            </div>
        </Modal>
    }
}
