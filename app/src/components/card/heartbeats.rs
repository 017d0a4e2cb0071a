use domain::{board::BoardSettings, node::NodeCard};
use jiff::Timestamp;
use leptos::prelude::*;

use crate::i18n::{age_since, t_string, use_i18n};

/// The age of the node's Lease renewal (its liveness) and, as a detail, of its Ready condition's heartbeat, each
/// marked stale past the grace period.
#[component]
pub fn Heartbeats(
    card: Memo<NodeCard>,
    server_now: Signal<Timestamp>,
    settings: Signal<BoardSettings>,
) -> impl IntoView {
    let i18n = use_i18n();
    let grace = move || settings.with(|s| s.grace_seconds);
    let heartbeat_stale = move || card.with(|c| c.heartbeat_stale(server_now.get(), grace()));
    let lease_stale = move || card.with(|c| c.lease_stale(server_now.get(), grace()));
    let ago = move |t: Option<Timestamp>| {
        age_since(i18n, server_now.get(), t).map(|age| t_string!(i18n, card.ago, age).to_string()).unwrap_or_default()
    };
    // The Lease first: the kubelet renews it every 10 s, so its age is the node's liveness. The Ready condition's
    // heartbeat is refreshed only every few minutes while nothing changes: "8m ago" on a healthy node is normal,
    // and shown as a detail, with its meaning on hover.
    view! {
        <p class="heartbeats">
            <span data-testid="lease-age" class:stale=lease_stale title=t_string!(i18n, card.lease_help)>
                {t_string!(i18n, card.lease)} ": " {move || ago(card.with(|c| c.lease_renewed))}
            </span>
            " "
            <span class="muted" data-testid="heartbeat-age" class:stale=heartbeat_stale title=t_string!(i18n, card.heartbeat_help)>
                {t_string!(i18n, card.heartbeat)} ": " {move || ago(card.with(|c| c.ready_heartbeat))}
            </span>
            {move || (lease_stale() || heartbeat_stale()).then(|| view! {
                <span class="badge warn" data-testid="heartbeat-stale">{t_string!(i18n, card.stale)}</span>
            })}
        </p>
    }
}
