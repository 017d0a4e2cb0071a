//! The drain dialog's preview: what the drain would do with each pod, following every option and every change of
//! the node's pods.

use domain::{
    PodRef,
    drain::{DrainOption, DrainOptions, EvictNote, Refusal, SkipReason},
    preview::{Preview, PreviewPod},
    selector::SelectorError,
};
use leptos::prelude::*;

use super::form::BadNumber;
use crate::{
    live::preview::{PreviewFeed, PreviewTrouble},
    strings::{self, ActionStrings},
};

/// The preview column: the three groups once the pods are in, else why not.
#[component]
pub fn PreviewSection(
    node: StoredValue<String>,
    feed: PreviewFeed,
    options: Memo<Result<DrainOptions, BadNumber>>,
    planned: Memo<Option<Result<Preview, SelectorError>>>,
) -> impl IntoView {
    let a = strings::actions();
    let waiting = move || match feed.trouble.get() {
        None => a.preview_loading.to_string(),
        Some(PreviewTrouble::Unreadable(why)) => why,
        Some(PreviewTrouble::Closed) => {
            node.with_value(|n| format!("could not read the pods of {n}: reopen the dialog to try again"))
        }
    };
    view! {
        <section class="preview" aria-live="polite" data-testid="drain-preview">
            {move || match planned.get() {
                None => match options.get() {
                    Err(BadNumber) => view! { <p class="error" data-testid="options-error">{a.bad_number}</p> }.into_any(),
                    Ok(_) => view! { <p data-testid="preview-loading">{waiting}</p> }.into_any(),
                },
                Some(Err(e)) => view! {
                    <p class="error" role="alert" data-testid="selector-error">{a.pod_selector} ": " {e.to_string()}</p>
                }
                .into_any(),
                Some(Ok(p)) => view! { <PreviewGroups preview=p /> }.into_any(),
            }}
        </section>
    }
}

fn owner_text(a: &ActionStrings, pod: &PreviewPod) -> String {
    pod.owner.as_ref().map_or_else(|| a.bare_pod.to_string(), |o| o.label())
}

fn option_name(a: &ActionStrings, o: DrainOption) -> &'static str {
    match o {
        DrainOption::Force => a.opt_force,
        DrainOption::IgnoreDaemonsets => a.opt_ignore_daemonsets,
        DrainOption::DeleteEmptydirData => a.opt_delete_emptydir,
    }
}

/// The preview's three groups: evicted (with owner, budget and notes), skipped and refused (with the options
/// that would override).
#[component]
fn PreviewGroups(preview: Preview) -> impl IntoView {
    let a = strings::actions();
    let blocking = preview.blocking_pdbs().iter().map(|p| p.name.clone()).collect::<Vec<_>>();
    let note = |n: &EvictNote| match n {
        EvictNote::LocalStorageLost => a.note_emptydir_lost,
        EvictNote::NoController => a.note_no_controller,
        EvictNote::DaemonSetMissing(_) => a.note_daemonset_missing,
    };
    let skip = |r: &SkipReason| match r {
        SkipReason::MirrorPod => a.skip_mirror,
        SkipReason::DaemonSetIgnored => a.skip_daemonset,
        SkipReason::DeletingTooLong => a.skip_deleting,
    };
    let refusal = |r: &Refusal| match r {
        Refusal::DaemonSetManaged => a.refuse_daemonset.to_string(),
        Refusal::DaemonSetMissing(m) => format!("{}: {m}", a.refuse_daemonset_missing),
        Refusal::DaemonSetLookupFailed(m) => format!("{}: {m}", a.refuse_lookup_failed),
        Refusal::LocalStorage => a.refuse_emptydir.to_string(),
        Refusal::NoController => a.refuse_no_controller.to_string(),
    };
    let needs = |needs: &[DrainOption]| {
        if needs.is_empty() {
            a.no_option_helps.to_string()
        } else {
            format!("{} {}", a.needs_option, needs.iter().map(|o| option_name(a, *o)).collect::<Vec<_>>().join(" + "))
        }
    };
    let empty = || view! { <li class="muted">{a.none}</li> };
    view! {
        <h3>{a.group_evict} " (" {preview.evict.len()} ")"</h3>
        <ul class="pods" data-testid="group-evict">
            {preview.evict.is_empty().then(empty)}
            {preview.evict.iter().map(|p| view! {
                <li data-testid="preview-pod" data-pod=p.pod.key()>
                    <code>{p.pod.key()}</code>
                    <span class="muted">" · " {owner_text(a, &p.pod)}</span>
                    {p.pdb.as_ref().map(|b| view! {
                        <span class={if b.disruptions_allowed > 0 { "pdb" } else { "pdb blocking" }} data-testid="preview-pdb">
                            " · " {(a.pdb_allowance)(&b.name, b.disruptions_allowed)}
                        </span>
                    })}
                    {p.notes.iter().map(|n| view! { <span class="note">" · " {note(n)}</span> }).collect_view()}
                </li>
            }).collect_view()}
        </ul>
        {(!blocking.is_empty()).then(|| view! {
            <p class="hint" data-testid="pdb-will-wait">{(a.pdb_will_wait)(&blocking.join(", "))}</p>
        })}
        <h3>{a.group_skipped} " (" {preview.skipped.len()} ")"</h3>
        <ul class="pods" data-testid="group-skipped">
            {preview.skipped.is_empty().then(empty)}
            {preview.skipped.iter().map(|(p, why)| view! {
                <li data-testid="preview-pod" data-pod=p.key()>
                    <code>{p.key()}</code>
                    <span class="muted">" · " {skip(why)}</span>
                </li>
            }).collect_view()}
        </ul>
        <h3 class:bad=!preview.refused.is_empty()>{a.group_refused} " (" {preview.refused.len()} ")"</h3>
        <ul class="pods" data-testid="group-refused">
            {preview.refused.is_empty().then(empty)}
            {preview.refused.iter().map(|p| view! {
                <li data-testid="preview-pod" data-pod=p.pod.key()>
                    <code>{p.pod.key()}</code>
                    <span class="muted">" · " {owner_text(a, &p.pod)}</span>
                    <span class="bad">" · " {refusal(&p.reason)}</span>
                    <span class="needs" data-testid="refused-needs">" · " {needs(&p.needs)}</span>
                </li>
            }).collect_view()}
        </ul>
        {(preview.not_selected > 0).then(|| view! { <p class="muted">{(a.not_selected)(preview.not_selected)}</p> })}
    }
}
