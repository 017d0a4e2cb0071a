use domain::{ReadyStatus, node::NodeCard, progress::DrainSummary};
use jiff::Timestamp;
use leptos::prelude::*;

use crate::i18n::{age_since, ready_text, t_string, use_i18n};

/// The node's name (a link to its page), its Ready badge, Cordoned and Draining, and a line of roles, zone, version
/// and age.
#[component]
pub fn CardHeader(
    name: String,
    card: Memo<NodeCard>,
    server_now: Signal<Timestamp>,
    drain: Signal<Option<DrainSummary>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let ready_class = move || match card.with(|c| c.ready) {
        ReadyStatus::Ready => "badge ok",
        ReadyStatus::NotReady => "badge bad",
        ReadyStatus::Unknown => "badge unknown",
    };
    view! {
        <header>
            <crate::components::rollouts::SelectBox name=name.clone() />
            <h2 class="node-name" data-testid="node-name">
                <a href=crate::context::href(&format!("/nodes/{name}"))>{super::conditions::breakable(&name)}</a>
            </h2>
            <span class=ready_class data-testid="node-ready">{move || ready_text(i18n, card.with(|c| c.ready))}</span>
            {move || card.with(|c| c.unschedulable).then(|| view! {
                <span class="badge warn" data-testid="node-cordoned">{t_string!(i18n, card.cordoned)}</span>
            })}
            // A drain running here or on another server: the node is being emptied, not only cordoned.
            {move || drain.with(|d| d.as_ref().is_some_and(|d| d.state.is_running())).then(|| view! {
                <span class="badge draining" data-testid="node-draining">{t_string!(i18n, card.draining_badge)}</span>
            })}
            <crate::components::windows::HeldBadge name=name.clone() />
            // A claim anyone who may write the node can make: shown with the signal and what it says.
            {move || card.with(|c| c.reboot.clone()).map(|sign| {
                let said = match &sign.value {
                    Some(value) => format!("{}: {value}", sign.signal),
                    None => sign.signal.clone(),
                };
                view! {
                    <span class="badge reboot" data-testid="node-reboot" data-signal=sign.signal title=t_string!(i18n, card.reboot_title, said).to_string()>
                        {t_string!(i18n, card.reboot_badge)}
                    </span>
                }
            })}
        </header>
        <p class="meta">
            {move || card.with(|c| {
                let mut parts = Vec::new();
                if !c.roles.is_empty() { parts.push(c.roles.join(",")); }
                if let Some(z) = &c.zone { parts.push(z.clone()); }
                if let Some(v) = &c.kubelet_version { parts.push(v.clone()); }
                parts.join(" · ")
            })}
            " · " {move || age_since(i18n, server_now.get(), card.with(|c| c.created)).unwrap_or_default()}
        </p>
    }
}
