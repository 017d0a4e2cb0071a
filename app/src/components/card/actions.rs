use domain::{
    actions::{Unavailable, card_actions},
    node::NodeCard,
    progress::DrainSummary,
};
use leptos::prelude::*;

use crate::{
    components::ActionButton,
    dialogs::{Actions, Dialog},
    i18n::{t_string, unavailable_text, use_i18n},
};

/// The card's actions: cordon, drain, uncordon, the progress of its drain, and a missing permission by name.
/// Absent where no dialog host is (the wall).
#[component]
pub fn CardActions(card: Memo<NodeCard>, drain: Signal<Option<DrainSummary>>) -> impl IntoView {
    let i18n = use_i18n();
    let Some(actions) = use_context::<Actions>() else {
        return ().into_any();
    };
    let available = Memo::new(move |_| {
        let unschedulable = card.with(|c| c.unschedulable);
        actions.lacking.with(|l| drain.with(|d| card_actions(unschedulable, d.as_ref(), l.as_ref())))
    });
    let name = move || card.with(|c| c.name.clone());
    let open = move |d: fn(String) -> Dialog| Callback::new(move |_| actions.open(d(name())));
    // Reason-first: a missing permission is named on the card, not only in a tooltip.
    let hint = move || {
        let av = available.get();
        [av.drain.err(), av.cordon.err()].into_iter().flatten().find_map(|why| match why {
            Unavailable::Missing(_) => Some(unavailable_text(i18n, &why)),
            _ => None,
        })
    };
    view! {
        <div class="card-actions" role="group" aria-label=t_string!(i18n, card.actions)>
            <ActionButton
                label=t_string!(i18n, actions.cordon).to_string()
                testid="action-cordon"
                availability=Signal::derive(move || available.get().cordon)
                on_click=open(Dialog::Cordon)
            />
            <ActionButton
                label=t_string!(i18n, actions.drain).to_string()
                testid="action-drain"
                availability=Signal::derive(move || available.get().drain)
                on_click=open(Dialog::Drain)
            />
            <ActionButton
                label=t_string!(i18n, actions.uncordon).to_string()
                testid="action-uncordon"
                availability=Signal::derive(move || available.get().uncordon)
                on_click=open(Dialog::Uncordon)
            />
            // Another server's drain has its detail there.
            {move || drain.get().filter(|d| d.elsewhere.is_none()).map(|d| {
                let id = d.id.clone();
                view! {
                    <button
                        type="button"
                        class="action"
                        data-testid="action-progress"
                        on:click=move |_| actions.open(Dialog::Progress(id.clone()))
                    >
                        {t_string!(i18n, actions.show_progress)}
                    </button>
                }
            })}
            {move || hint().map(|h| view! { <p class="action-hint" data-testid="action-hint">{h}</p> })}
        </div>
    }
    .into_any()
}
