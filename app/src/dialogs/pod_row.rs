//! One pod's row of a drain's progress panel: its state, why it waits (`domain::blocker`) with the ways out, and
//! the consented actions for a pod a budget holds (Delete this pod, AlwaysAllow, Move first), which stay open while
//! the stream moves on.

use domain::{
    PodRef,
    drain::DryRun,
    progress::{DrainProgress, PodProgress, PodState},
};
use jiff::Timestamp;
use leptos::prelude::*;

use crate::i18n::{blocker_text, elapsed_text, fixes_text, pod_left_text, pod_state_text, t_string, use_i18n};

/// One pod of the drain, following its own entry so that an update touches only the rows that changed.
#[component]
pub(super) fn PodRow(
    uid: String,
    progress: RwSignal<Option<DrainProgress>>,
    server_now: Signal<Timestamp>,
) -> impl IntoView {
    let i18n = use_i18n();
    let pod =
        Memo::new(move |_| progress.with(|p| p.as_ref().and_then(|p| p.pods.iter().find(|x| x.uid == uid).cloned())));
    let key = pod.with_untracked(|p| p.as_ref().map(PodRef::key).unwrap_or_default());
    let state = Memo::new(move |_| pod.with(|p| p.as_ref().map(|p| p.state.clone())).unwrap_or(PodState::Pending));
    // How the drain ended, once it has: a pod it left behind says so, and its timer stops with the drain.
    let drain_end = Memo::new(move |_| {
        progress.with(|p| p.as_ref().filter(|p| !p.state.is_running()).map(|p| (p.state.clone(), p.finished_at)))
    });
    let left = Memo::new(move |_| {
        drain_end.with(|end| end.as_ref().filter(|(d, _)| state.with(|s| s.left_by(d))).map(|(d, _)| d.clone()))
    });
    let took = move || {
        pod.with(|p| {
            let p: &PodProgress = p.as_ref()?;
            let stopped = drain_end.with(|end| end.as_ref().and_then(|(_, at)| *at));
            let end = p.finished_at.or(stopped).unwrap_or_else(|| server_now.get());
            p.started_at.map(|s| elapsed_text(i18n, end.duration_since(s)))
        })
    };
    let key_of = move || if left.with(Option::is_some) { "left".to_owned() } else { state.get().key().to_owned() };
    // Why a pod stays, or why its eviction was denied, and the ways out (`domain::blocker`), while the drain still
    // waits on it or once it failed on it.
    let blockers =
        move || if left.with(Option::is_some) { Vec::new() } else { state.with(|s| s.blockers_at(server_now.get())) };
    // A blocked pod's cause is said once, by its blockers below, with the ways out; the state says only that it
    // waits.
    let text = move || match left.get() {
        Some(drain) => pod_left_text(i18n, &drain),
        None if matches!(state.get(), PodState::Blocked { .. }) && !blockers().is_empty() => {
            t_string!(i18n, pod_state.waiting).to_string()
        }
        None => pod_state_text(i18n, &state.get()),
    };
    // Who the consented ways out would act on, while the drain runs and a budget short of healthy pods holds the pod.
    let held = Memo::new(move |_| {
        let running =
            progress.with(|p| p.as_ref().is_some_and(|p| p.state.is_running() && p.options.dry_run == DryRun::None));
        let budget = state.with(|s| match s {
            PodState::Blocked { blockers, .. } => domain::blocker::Unblock::budget(blockers).map(str::to_owned),
            _ => None,
        });
        let id = progress.with(|p| p.as_ref().map(|p| p.id.clone()));
        let (namespace, name) = pod.with(|p| p.as_ref().map(|p| (p.namespace.clone(), p.name.clone())))?;
        Some(super::unblock::Held { id: id?, namespace, pod: name, budget: budget.filter(|_| running)? })
    });
    // The pod to move first, while the drain runs and a budget at zero holds it (`domain::moving`).
    let movable = Memo::new(move |_| {
        let running =
            progress.with(|p| p.as_ref().is_some_and(|p| p.state.is_running() && p.options.dry_run == DryRun::None));
        let helps =
            state.with(|s| matches!(s, PodState::Blocked { blockers, .. } if domain::moving::surge_helps(blockers)));
        let id = progress.with(|p| p.as_ref().map(|p| p.id.clone()));
        let (namespace, pod) = pod.with(|p| p.as_ref().map(|p| (p.namespace.clone(), p.name.clone())))?;
        (running && helps).then_some(super::move_first::Movable { id: id?, namespace, pod })
    });
    // Once offered, an action stays mounted until the row goes: between two eviction attempts a pod's state flips
    // (held, evicting, held), and an update must not take away a confirmation a person is typing. Its button is
    // offered only while the action applies; an open confirmation stays until Confirm or Cancel.
    let held_offered = Signal::derive(move || held.with(Option::is_some));
    let held =
        Memo::new(move |prev: Option<&Option<super::unblock::Held>>| held.get().or_else(|| prev.cloned().flatten()));
    let movable_offered = Signal::derive(move || movable.with(Option::is_some));
    let movable = Memo::new(move |prev: Option<&Option<super::move_first::Movable>>| {
        movable.get().or_else(|| prev.cloned().flatten())
    });
    let shown = key.clone();
    view! {
        <tr data-testid="progress-pod" data-pod=key data-state=key_of>
            <td><code>{shown}</code></td>
            <td class=move || format!("pod-state {}", key_of())>
                {text}
                {move || blocker_list(i18n, blockers())}
                {move || held.get().map(|held| view! { <super::unblock::UnblockActions held offered=held_offered /> }.into_any())}
                {move || movable.get().map(|movable| view! { <super::move_first::MoveFirstAction movable offered=movable_offered /> }.into_any())}
            </td>
            <td class="muted">{took}</td>
        </tr>
    }
}

/// Each reason a blocked pod stays, with its ways out; nothing when there is none. A view of its own type: the
/// panel's type is deep enough already.
fn blocker_list(i18n: crate::i18n::I18n, list: Vec<domain::blocker::Blocker>) -> AnyView {
    if list.is_empty() {
        return ().into_any();
    }
    view! {
        <ul class="blockers" data-testid="blockers">
            {list.into_iter().map(|b| view! {
                <li data-testid="blocker" data-class=b.key()>
                    {blocker_text(i18n, &b)}
                    <br />
                    <span class="muted" data-testid="blocker-fixes">{fixes_text(i18n, &b)}</span>
                </li>
            }).collect_view()}
        </ul>
    }
    .into_any()
}
