//! The drain dialog's preview: what the drain would do with each pod, following every option and every change of
//! the node's pods.

use domain::{
    PodRef,
    drain::DrainOption,
    preview::{Preview, PreviewPod},
    selector::SelectorError,
};
use leptos::prelude::*;

use crate::{
    i18n::{
        I18n, basis_text, estimate_text, no_estimate_text, note_text, option_text, refusal_text, skip_text, t_string,
        use_i18n,
    },
    live::preview::{PreviewFeed, PreviewTrouble},
};

/// The preview column: the three groups once the pods are in, else why not.
#[component]
pub fn PreviewSection(
    node: StoredValue<String>,
    feed: PreviewFeed,
    planned: Memo<Option<Result<Preview, SelectorError>>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let waiting = move || match feed.trouble.get() {
        None => t_string!(i18n, drain.preview_loading).to_string(),
        Some(PreviewTrouble::Unreadable(error)) => {
            node.with_value(|node| t_string!(i18n, drain.preview_unreadable, node, error).to_string())
        }
        Some(PreviewTrouble::Closed) => node.with_value(|node| t_string!(i18n, drain.preview_closed, node).to_string()),
    };
    view! {
        <section class="preview" aria-live="polite" data-testid="drain-preview">
            {move || match planned.get() {
                None => view! { <p data-testid="preview-loading">{waiting}</p> }.into_any(),
                Some(Err(e)) => view! {
                    <p class="error" role="alert" data-testid="selector-error">
                        {t_string!(i18n, drain.selector_error, error = crate::i18n::selector_error_text(i18n, &e))}
                    </p>
                }
                .into_any(),
                Some(Ok(p)) => view! { <PreviewGroups preview=p /> }.into_any(),
            }}
        </section>
    }
}

/// `Kind/name` of the pod's controller, or that it has none.
fn owner_text(i18n: I18n, pod: &PreviewPod) -> String {
    pod.owner.as_ref().map_or_else(|| t_string!(i18n, preview.no_controller).to_string(), |o| o.label())
}

/// The options a refused pod needs, or that none helps.
pub(in crate::dialogs) fn needs_text(i18n: I18n, needs: &[DrainOption]) -> String {
    if needs.is_empty() {
        return t_string!(i18n, preview.no_option_helps).to_string();
    }
    let options = needs.iter().map(|o| option_text(i18n, *o)).collect::<Vec<_>>().join(" + ");
    t_string!(i18n, preview.needs, options).to_string()
}

/// The preview's three groups: evicted (with owner, budget and notes), skipped and refused (with the options
/// that would override).
#[component]
fn PreviewGroups(preview: Preview) -> impl IntoView {
    let i18n = use_i18n();
    // Budgets that allow no disruption: those that never will (every pod they count must stay healthy) apart from
    // those that may once a pod elsewhere is Ready, since only the second kind is worth waiting for.
    let (never, now): (Vec<_>, Vec<_>) = preview.blocking_pdbs().into_iter().partition(|p| p.never_allows());
    let names = |pdbs: &[&domain::budget::PdbStatus]| pdbs.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
    let (never, blocking) = (names(&never), names(&now));
    let empty = move || view! { <li class="muted">{t_string!(i18n, preview.none)}</li> };
    // How long it should take, once there is something to evict and nothing holds the drain back.
    let estimate = preview.estimate.clone().filter(|_| !preview.evict.is_empty() && !preview.is_blocked()).map(|e| match e {
        Ok(e) => view! {
            <p class="hint" data-testid="drain-estimate" data-basis=e.basis.label() data-likely=e.likely_seconds data-low=e.low_seconds data-high=e.high_seconds>
                {estimate_text(i18n, &e, false)}
                <span class="muted" data-testid="estimate-basis">" · " {basis_text(i18n, &e.basis, false)}</span>
            </p>
            {crate::i18n::covers_text(i18n, &e).map(|text| view! { <p class="hint" data-testid="drain-estimate-covers">{text}</p> })}
        }
        .into_any(),
        Err(why) => view! { <p class="hint bad" data-testid="drain-estimate">{no_estimate_text(i18n, &why)}</p> }.into_any(),
    });
    view! {
        {estimate}
        <h3>{t_string!(i18n, preview.evict, count = preview.evict.len())}</h3>
        <ul class="pods" data-testid="group-evict">
            {preview.evict.is_empty().then(empty)}
            {preview.evict.iter().map(|p| view! {
                <li data-testid="preview-pod" data-pod=p.pod.key()>
                    <code>{p.pod.key()}</code>
                    <span class="muted">" · " {owner_text(i18n, &p.pod)}</span>
                    {p.pdb.as_ref().map(|b| view! {
                        <span class={if b.disruptions_allowed > 0 { "pdb" } else { "pdb blocking" }} data-testid="preview-pdb">
                            " · " {if b.disruptions_allowed > 0 {
                                t_string!(i18n, preview.pdb_allowance, name = &b.name, count = b.disruptions_allowed).to_string()
                            } else {
                                t_string!(i18n, preview.pdb_allowance_none, name = &b.name).to_string()
                            }}
                        </span>
                    })}
                    {p.notes.iter().map(|n| view! {
                        <span class="note" data-testid="preview-note">" · " {note_text(i18n, n)}</span>
                    }).collect_view()}
                </li>
            }).collect_view()}
        </ul>
        {(!never.is_empty()).then(|| view! {
            <p class="hint bad" data-testid="pdb-never">{t_string!(i18n, preview.pdb_never, names = never.join(", "))}</p>
        })}
        {(!blocking.is_empty()).then(|| view! {
            <p class="hint" data-testid="pdb-will-wait">{t_string!(i18n, preview.pdb_will_wait, names = blocking.join(", "))}</p>
        })}
        <h3>{t_string!(i18n, preview.skipped, count = preview.skipped.len())}</h3>
        <ul class="pods" data-testid="group-skipped">
            {preview.skipped.is_empty().then(empty)}
            {preview.skipped.iter().map(|(p, why)| view! {
                <li data-testid="preview-pod" data-pod=p.key()>
                    <code>{p.key()}</code>
                    <span class="muted">" · " {skip_text(i18n, why)}</span>
                </li>
            }).collect_view()}
        </ul>
        <h3 class:bad=!preview.refused.is_empty()>{t_string!(i18n, preview.refused, count = preview.refused.len())}</h3>
        <ul class="pods" data-testid="group-refused">
            {preview.refused.is_empty().then(empty)}
            {preview.refused.iter().map(|p| view! {
                <li data-testid="preview-pod" data-pod=p.pod.key()>
                    <code>{p.pod.key()}</code>
                    <span class="muted">" · " {owner_text(i18n, &p.pod)}</span>
                    <span class="bad">" · " {refusal_text(i18n, &p.reason)}</span>
                    // The separator stays outside: the Japanese layout makes the span an inline block, which drops a
                    // leading space.
                    " · "
                    <span class="needs" data-testid="refused-needs">{needs_text(i18n, &p.needs)}</span>
                </li>
            }).collect_view()}
        </ul>
        {(preview.not_selected > 0).then(|| view! { <p class="muted">{t_string!(i18n, preview.not_selected, count = preview.not_selected)}</p> })}
    }
}
