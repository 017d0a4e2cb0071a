use domain::{
    PodRef,
    board::{self, BoardSettings},
    countdown::{Countdown, Rule, countdown},
    eviction::{PodEviction, remaining},
    node::NodeCard,
};
use jiff::Timestamp;
use leptos::prelude::*;

use crate::i18n::{t_string, use_i18n};

/// When a node that stopped reporting loses its pods: one countdown, by the rule that decides it now (see
/// `domain::countdown`), coloured by how near it is.
#[component]
pub fn Countdowns(
    card: Memo<NodeCard>,
    server_now: Signal<Timestamp>,
    settings: Signal<BoardSettings>,
) -> impl IntoView {
    let i18n = use_i18n();
    let now = Memo::new(move |_| card.with(|c| countdown(c, &settings.get(), server_now.get())));
    let text = move |c: Countdown| match (c.rule, c.left) {
        (Rule::Node, Some(left)) => t_string!(i18n, card.node_countdown, countdown = board::clock(left)).to_string(),
        (Rule::Node, None) => t_string!(i18n, card.eviction_due).to_string(),
        (Rule::Pods, Some(left)) => {
            t_string!(i18n, card.pod_countdown, countdown = board::clock(left), count = c.going).to_string()
        }
        (Rule::Pods, None) => t_string!(i18n, card.pods_going_now).to_string(),
    };
    let help = move |rule: Rule| match rule {
        Rule::Node => t_string!(i18n, card.node_rule_help).to_string(),
        Rule::Pods => t_string!(i18n, card.eta_estimate).to_string(),
    };
    // A bar that fills with the time gone, readable at a glance; the text beside it says it for screen readers.
    move || {
        now.get().map(|c| {
            let rule = match c.rule {
                Rule::Node => "node",
                Rule::Pods => "pods",
            };
            view! {
                <p class=format!("countdown {}", c.urgency().class()) data-testid="countdown" data-rule=rule>
                    <meter class="countdown-bar" data-testid="countdown-bar" min="0" max="1000" high="500" optimum="0" value=c.permille aria-label=t_string!(i18n, card.countdown_bar)></meter>
                    <span data-testid="countdown-text" title=help(c.rule)>{text(c)}</span>
                </p>
            }
        })
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
