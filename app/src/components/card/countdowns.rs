use domain::{
    PodRef,
    board::{self, BoardSettings},
    eviction::{PodEviction, remaining},
    node::NodeCard,
};
use jiff::Timestamp;
use leptos::prelude::*;

use crate::i18n::{t_string, use_i18n};

/// When a node that stopped reporting loses its pods: the node timeout's countdown, and the first pod's
/// NoExecute toleration.
#[component]
pub fn Countdowns(
    card: Memo<NodeCard>,
    server_now: Signal<Timestamp>,
    settings: Signal<BoardSettings>,
) -> impl IntoView {
    let i18n = use_i18n();
    let node_countdown = move || {
        let deadline = card.with(|c| board::node_deadline(c, &settings.get()))?;
        Some(match remaining(deadline, server_now.get()) {
            Some(left) => t_string!(i18n, card.node_countdown, countdown = board::clock(left)).to_string(),
            None => t_string!(i18n, card.eviction_due).to_string(),
        })
    };
    let pod_countdown = move || {
        let (earliest, count) = card.with(board::earliest_pod_eviction)?;
        Some(match earliest {
            PodEviction::At(at) => match remaining(at, server_now.get()) {
                Some(left) => t_string!(i18n, card.pod_countdown, countdown = board::clock(left), count).to_string(),
                None => t_string!(i18n, card.pods_going_now).to_string(),
            },
            _ => t_string!(i18n, card.pods_going_now).to_string(),
        })
    };
    // Bars that fill with the time gone, readable at a glance; the text beside them says it for screen readers.
    let node_share = move || card.with(|c| board::node_countdown_permille(c, &settings.get(), server_now.get()));
    let pod_share = move || card.with(|c| board::pod_countdown_permille(c, server_now.get()));
    view! {
        {move || node_countdown().map(|text| view! {
            <p class="countdown">
                <meter class="countdown-bar" data-testid="node-countdown-bar" min="0" max="1000" high="800" optimum="0" value=node_share aria-label=t_string!(i18n, card.countdown_bar)></meter>
                <span data-testid="node-countdown">{text}</span>
            </p>
        })}
        {move || pod_countdown().map(|text| view! {
            <p class="countdown">
                {move || pod_share().map(|v| view! {
                    <meter class="countdown-bar" data-testid="pod-countdown-bar" min="0" max="1000" high="800" optimum="0" value=v aria-label=t_string!(i18n, card.countdown_bar)></meter>
                })}
                <span data-testid="pod-countdown" title=t_string!(i18n, card.eta_estimate)>{text}</span>
            </p>
        })}
    }
}

/// Each pod's own eviction countdown, folded away.
#[component]
pub fn PodEtas(card: Memo<NodeCard>, server_now: Signal<Timestamp>) -> impl IntoView {
    let i18n = use_i18n();
    let eta_text = move |e: PodEviction| match e {
        PodEviction::At(at) => {
            remaining(at, server_now.get()).map_or_else(|| t_string!(i18n, card.eviction_due).to_string(), board::clock)
        }
        PodEviction::Immediately => t_string!(i18n, card.eviction_due).to_string(),
        PodEviction::Never | PodEviction::NotScheduled => t_string!(i18n, card.never).to_string(),
        PodEviction::Unknown => t_string!(i18n, card.eviction_unknown).to_string(),
    };
    move || {
        let etas = card.with(|c| c.pod_evictions.clone());
        (!etas.is_empty()).then(|| {
            view! {
                <details class="pod-etas" data-testid="pod-etas">
                    <summary>{t_string!(i18n, card.pods)}</summary>
                    <p class="muted" data-testid="eta-note">{t_string!(i18n, card.eta_estimate)}</p>
                    <ul>
                        {etas.into_iter().map(|p| view! {
                            <li data-testid="pod-eta-row" data-pod=p.key()>
                                {p.key()} ": " {move || eta_text(p.eviction)}
                            </li>
                        }).collect_view()}
                    </ul>
                </details>
            }
        })
    }
}
