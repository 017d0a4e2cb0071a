use domain::{board::BoardSettings, node::NodeCard, progress::DrainSummary};
use jiff::{SignedDuration, Timestamp};
use leptos::prelude::*;

use crate::i18n::{age_text, t_string, use_i18n};

/// Who cordoned the node, how long ago and why, from the record the cordon wrote on the node; and a warning when
/// the cordon has stood past `--stale-cordon` with no drain running (here, or on another server's Lease), since a forgotten cordon keeps capacity out
/// of the cluster.
#[component]
pub fn CardCordon(
    card: Memo<NodeCard>,
    server_now: Signal<Timestamp>,
    settings: Signal<BoardSettings>,
    drain: Signal<Option<DrainSummary>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let record = Memo::new(move |_| card.with(|c| c.cordon_record.clone()));
    let draining = Memo::new(move |_| drain.with(|d| d.as_ref().is_some_and(|d| d.state.is_running())));
    move || {
        record.get().map(|record| {
            let who = record.by.clone();
            let age = age_text(i18n, server_now.get().duration_since(record.at));
            let forgotten = card
                .with(|c| c.cordon_forgotten(server_now.get(), settings.get().stale_cordon_seconds, draining.get()));
            let limit = age_text(
                i18n,
                SignedDuration::from_secs(i64::try_from(settings.get().stale_cordon_seconds).unwrap_or(i64::MAX)),
            );
            view! {
                <div class="card-cordon" data-testid="card-cordon" data-forgotten=forgotten.to_string()>
                    <p>
                        <span data-testid="card-cordon-text">{t_string!(i18n, card.cordoned_by, who, age)}</span>
                        {record.reason.clone().map(|r| view! { <span class="muted">" · " {r}</span> })}
                    </p>
                    {forgotten.then(|| view! {
                        <p class="warning" role="note" data-testid="card-cordon-forgotten">
                            {t_string!(i18n, card.cordon_forgotten, limit)}
                        </p>
                    })}
                </div>
            }
        })
    }
}
