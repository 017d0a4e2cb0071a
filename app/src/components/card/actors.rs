use domain::{node::NodeCard, progress::DrainSummary};
use jiff::Timestamp;
use leptos::prelude::*;

use crate::i18n::{sighting_text, sighting_when, t_string, use_i18n};

/// Who else is taking this node down, and since when: the markers other tools leave (`domain::actor`), each line
/// naming the tool and what it does, the marker itself on hover. When more than one actor works on the node at
/// once (Drainboard's own cordon or drain counted), a warning says so: each of them assumes it is alone.
#[component]
pub fn CardActors(
    card: Memo<NodeCard>,
    server_now: Signal<Timestamp>,
    drain: Signal<Option<DrainSummary>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let seen = Memo::new(move |_| card.with(|c| c.actors.clone()));
    let ours = Memo::new(move |_| {
        card.with(|c| c.cordon_record.is_some()) || drain.with(|d| d.as_ref().is_some_and(|d| d.state.is_running()))
    });
    move || {
        let seen = seen.get();
        (!seen.is_empty()).then(|| {
            let count = domain::actor::actors_at_work(&seen, ours.get());
            let now = server_now.get();
            let lines = seen
                .into_iter()
                .map(|s| {
                    let when = sighting_when(i18n, &s, now).map(|w| view! { <span class="muted">" · " {w}</span> });
                    let detail = s.detail.clone().map(|d| view! { <span class="muted">" · " {d}</span> });
                    let stale = s.stale.then(|| {
                        view! { <span class="warning" data-testid="card-actor-stale">" " {t_string!(i18n, actors.stale)}</span> }
                    });
                    let marker = s.marker.clone();
                    view! {
                        <li
                            data-testid="card-actor"
                            data-actor=s.actor.id()
                            data-doing=format!("{:?}", s.doing)
                            title=t_string!(i18n, actors.marker, marker).to_string()
                        >
                            <span data-testid="card-actor-text">{sighting_text(i18n, &s)}</span>
                            {when}
                            {detail}
                            {stale}
                        </li>
                    }
                })
                .collect_view();
            view! {
                <div class="card-actors" data-testid="card-actors" role="group" aria-label=t_string!(i18n, actors.heading).to_string()>
                    <ul>{lines}</ul>
                    {(count > 1).then(|| view! {
                        <p class="warning" role="note" data-testid="card-actors-crowded">
                            {t_string!(i18n, actors.crowded, count)}
                        </p>
                    })}
                </div>
            }
        })
    }
}
