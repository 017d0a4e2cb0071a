use domain::progress::CordonOutcome;
use leptos::prelude::*;

use super::Actions;
use crate::{
    api::{CordonNode, UncordonNode},
    components::Modal,
    strings,
};

/// Cordon or uncordon, after a short confirmation. Success is reported only when the API server has answered.
#[component]
pub fn CordonDialog(node: String, cordon: bool) -> impl IntoView {
    let a = strings::actions();
    let actions = expect_context::<Actions>();
    let cordon_action = ServerAction::<CordonNode>::new();
    let uncordon_action = ServerAction::<UncordonNode>::new();
    let busy = move || if cordon { cordon_action.pending().get() } else { uncordon_action.pending().get() };
    let result = move || if cordon { cordon_action.value().get() } else { uncordon_action.value().get() };
    let node = StoredValue::new(node);
    Effect::new(move |_| {
        if let Some(Ok(outcome)) = result() {
            let node = node.get_value();
            let message = match (outcome, cordon) {
                (CordonOutcome::AlreadyDone, _) => (a.already_done)(&node),
                (CordonOutcome::Changed, true) => (a.cordoned_done)(&node),
                (CordonOutcome::Changed, false) => (a.uncordoned_done)(&node),
            };
            actions.notice.set(Some((true, message)));
            actions.close();
        }
    });
    // A retry hides the last failure until it has its own answer.
    let error = move || match result() {
        Some(Err(err)) if !busy() => Some(format!("{} {err}", a.failed_prefix)),
        _ => None,
    };
    let confirm = move |_| {
        let node = node.get_value();
        if cordon {
            cordon_action.dispatch(CordonNode { node });
        } else {
            uncordon_action.dispatch(UncordonNode { node });
        }
    };
    let close = Callback::new(move |_| actions.close());
    let title = node.with_value(|n| if cordon { (a.cordon_title)(n) } else { (a.uncordon_title)(n) });
    view! {
        <Modal title testid="cordon-dialog" on_close=close>
            <p>{if cordon { a.cordon_explain } else { a.uncordon_explain }}</p>
            {move || error().map(|e| view! { <p class="error" role="alert" data-testid="dialog-error">{e}</p> })}
            <div class="modal-buttons">
                <button type="button" data-testid="dialog-cancel" on:click=move |_| close.run(())>{a.cancel}</button>
                <button type="button" class="primary" data-testid="dialog-confirm" disabled=busy on:click=confirm>
                    {move || if busy() { a.working } else if cordon { a.cordon } else { a.uncordon }}
                </button>
            </div>
        </Modal>
    }
}
