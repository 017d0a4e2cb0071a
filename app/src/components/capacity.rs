//! The capacity check, in the drain dialog and the rollout dialog: whether the pods to be evicted fit on the nodes
//! that stay schedulable. It runs when asked, not live: it reads every pod's requests on the server, and its answer
//! is an estimate that the dialog says is one.

use domain::{
    PodRef,
    capacity::{CantTell, CapacityReport, PodVerdict, Verdict, pending_text},
};
use leptos::prelude::*;

use crate::{
    i18n::{I18n, t_string, use_i18n},
    rollouts::CapacityCheck,
};

fn cant_tell_text(i18n: I18n, why: CantTell) -> String {
    match why {
        CantTell::PodAffinity => t_string!(i18n, capacity.why_pod_affinity),
        CantTell::PodAntiAffinity => t_string!(i18n, capacity.why_pod_anti_affinity),
        CantTell::TopologySpread => t_string!(i18n, capacity.why_topology_spread),
        CantTell::HostPorts => t_string!(i18n, capacity.why_host_ports),
        CantTell::Volumes => t_string!(i18n, capacity.why_volumes),
        CantTell::Unreadable => t_string!(i18n, capacity.why_unreadable),
    }
    .to_string()
}

/// The check of draining `nodes`: a button, then the pods that would stay Pending and why, and those it cannot
/// tell about.
#[component]
pub fn CapacitySection(#[prop(into)] nodes: Signal<Vec<String>>) -> impl IntoView {
    let i18n = use_i18n();
    let check = ServerAction::<CapacityCheck>::new();
    let busy = check.pending();
    view! {
        <section class="capacity" data-testid="capacity">
            <h3>{t_string!(i18n, capacity.title)}</h3>
            <button
                type="button"
                data-testid="capacity-check"
                disabled=move || busy.get()
                on:click=move |_| { check.dispatch(CapacityCheck { nodes: nodes.get_untracked() }); }
            >
                {move || if busy.get() { t_string!(i18n, capacity.checking) } else { t_string!(i18n, capacity.check) }}
            </button>
            <p class="hint">{t_string!(i18n, capacity.note)}</p>
            {move || match check.value().get() {
                None => None,
                Some(Err(error)) => Some(view! {
                    <p class="error" role="alert" data-testid="capacity-error">{crate::i18n::failed_text(i18n, &error)}</p>
                }.into_any()),
                Some(Ok(report)) => Some(view! { <Report report /> }.into_any()),
            }}
        </section>
    }
}

#[component]
fn Report(report: CapacityReport) -> impl IntoView {
    let i18n = use_i18n();
    let (pending, cant_tell) = (report.pending().count(), report.cant_tell().count());
    let (count, nodes) = (report.pods.len(), report.nodes_left);
    let summary = if pending == 0 && cant_tell == 0 {
        t_string!(i18n, capacity.all_fit, count, nodes).to_string()
    } else {
        t_string!(i18n, capacity.some_pending, count, nodes, pending, cant_tell).to_string()
    };
    let row = move |p: &PodVerdict| {
        let text = match &p.verdict {
            Verdict::Pending(reasons) => pending_text(report.nodes_left, reasons),
            Verdict::CantTell(why) => why.iter().map(|w| cant_tell_text(i18n, *w)).collect::<Vec<_>>().join(", "),
            Verdict::Fits(node) => node.clone(),
        };
        let from = t_string!(i18n, capacity.from, node = &p.from).to_string();
        view! {
            <li data-testid="capacity-pod" data-pod=p.key()>
                <code>{p.key()}</code> " " <small>{from}</small> ": " {text}
            </li>
        }
    };
    let pending_rows: Vec<_> = report.pending().map(row).collect();
    let cant_rows: Vec<_> = report.cant_tell().map(row).collect();
    view! {
        <p
            class=if pending == 0 { "ok" } else { "warn" }
            data-testid="capacity-summary"
            data-pending=pending
            data-cant-tell=cant_tell
        >
            {summary}
        </p>
        {(!pending_rows.is_empty()).then(|| view! {
            <h4>{t_string!(i18n, capacity.pending)}</h4>
            <ul class="capacity-pending" data-testid="capacity-pending">{pending_rows}</ul>
        })}
        {(!cant_rows.is_empty()).then(|| view! {
            <h4>{t_string!(i18n, capacity.cant_tell)}</h4>
            <ul class="capacity-cant-tell" data-testid="capacity-cant-tell">{cant_rows}</ul>
        })}
        {(!report.not_recreated.is_empty()).then(|| view! {
            <p class="hint" data-testid="capacity-not-recreated">
                {t_string!(i18n, capacity.not_recreated, pods = report.not_recreated.join(", "))}
            </p>
        })}
        {(report.hidden > 0).then(|| view! {
            <p class="hint" data-testid="capacity-hidden">{t_string!(i18n, capacity.hidden, count = report.hidden)}</p>
        })}
    }
}
