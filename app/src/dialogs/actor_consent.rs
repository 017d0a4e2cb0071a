use domain::actor::{Actor, confirmed, ids, undone_by_uncordon};
use leptos::prelude::*;

use crate::{
    AppError,
    i18n::{t_string, use_i18n},
    live::LiveNow,
};

/// The tools an uncordon of `node` would undo: from the live board's card, and from the server's refusal (409) when
/// the board had not yet seen them. The server decides; this only asks first.
pub fn undone_actors(node: StoredValue<String>, refused: Signal<Option<Vec<Actor>>>) -> Memo<Vec<Actor>> {
    let live = use_context::<LiveNow>();
    Memo::new(move |_| {
        let mut actors = live
            .and_then(|l| {
                l.board.with(|b| {
                    b.as_ref().and_then(|b| node.with_value(|n| b.cards.get(n).map(|c| undone_by_uncordon(&c.actors))))
                })
            })
            .unwrap_or_default();
        actors.extend(refused.get().unwrap_or_default());
        actors.sort();
        actors.dedup();
        actors
    })
}

/// The actors named in an uncordon's refusal, if that is what it was.
pub fn refused_actors(answer: Option<Result<domain::progress::CordonOutcome, AppError>>) -> Option<Vec<Actor>> {
    match answer {
        Some(Err(AppError::Refused { refusal: domain::failure::StartRefusal::OtherActors { actors, .. }, .. })) => {
            Some(actors)
        }
        _ => None,
    }
}

/// Whether `typed` names every tool in `actors`: the uncordon's confirm button waits for it.
pub fn consented(actors: Memo<Vec<Actor>>, typed: RwSignal<String>) -> Signal<bool> {
    Signal::derive(move || actors.with(|a| typed.with(|t| confirmed(a, Some(t)))))
}

/// Asks the person to type the name of each tool whose work an uncordon would undo: "cluster-autoscaler is removing
/// this node; uncordoning would undo that".
#[component]
pub fn ActorConsent(actors: Memo<Vec<Actor>>, typed: RwSignal<String>) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let names = actors.with(|a| ids(a));
        (!names.is_empty()).then(|| {
            let (shown, asked) = (names.clone(), names.clone());
            view! {
                <div class="actor-consent" data-testid="uncordon-actors" data-actors=names>
                    <p class="warning" role="note">{t_string!(i18n, cordon.other_actors, names = shown)}</p>
                    <label class="stacked">
                        {t_string!(i18n, cordon.type_actors, names = asked)}
                        <input type="text" maxlength="300" autocomplete="off" data-testid="uncordon-type-actors"
                            prop:value=move || typed.get() on:input=move |ev| typed.set(event_target_value(&ev)) />
                    </label>
                </div>
            }
        })
    }
}
