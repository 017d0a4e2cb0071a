//! The domain's states in words, from the catalogue: one function per state type, so that every component says the
//! same thing the same way.

use domain::{
    ReadyStatus,
    actions::Unavailable,
    budget::PdbStatus,
    drain::{DestructiveOption, DrainOption, EvictNote, Refusal, SkipReason},
    failure::{ApiAnswer, Failure, StartRefusal},
    pod::PodPhase,
    progress::{DrainState, PodState},
};

use super::{I18n, t_string};

/// A node's Ready status, as the card's badge shows it.
pub fn ready_text(i18n: I18n, ready: ReadyStatus) -> String {
    match ready {
        ReadyStatus::Ready => t_string!(i18n, card.ready).to_string(),
        ReadyStatus::NotReady => t_string!(i18n, card.not_ready).to_string(),
        ReadyStatus::Unknown => t_string!(i18n, card.unknown).to_string(),
    }
}

/// Why an action is not available.
pub fn unavailable_text(i18n: I18n, why: &Unavailable) -> String {
    match why {
        Unavailable::AlreadyCordoned => t_string!(i18n, actions.already_cordoned).to_string(),
        Unavailable::NotCordoned => t_string!(i18n, actions.not_cordoned).to_string(),
        Unavailable::DrainRunning => t_string!(i18n, actions.drain_running).to_string(),
        Unavailable::Missing(p) => missing_permission_text(i18n, p),
        Unavailable::Checking => t_string!(i18n, actions.checking_permissions).to_string(),
    }
}

/// A permission the person lacks, named as the API server names it.
pub fn missing_permission_text(i18n: I18n, permissions: &str) -> String {
    t_string!(i18n, actions.missing_permission, permissions).to_string()
}

/// The state of a drain, with the pods `left` on the node where that matters.
pub fn drain_state_text(i18n: I18n, state: &DrainState, left: usize) -> String {
    let left = left as u64;
    match state {
        DrainState::Cordoning => t_string!(i18n, drain_state.cordoning).to_string(),
        DrainState::Planning => t_string!(i18n, drain_state.planning).to_string(),
        DrainState::Evicting => t_string!(i18n, drain_state.evicting).to_string(),
        DrainState::Drained => t_string!(i18n, drain_state.drained).to_string(),
        DrainState::DrainedExceptTerminating(n) => t_string!(i18n, drain_state.drained_except, count = *n).to_string(),
        DrainState::Detaching(v) => t_string!(i18n, drain_state.detaching, count = v.count as u64).to_string(),
        DrainState::DrainedVolumesAttached(v) => {
            t_string!(i18n, drain_state.volumes_attached, count = v.count as u64).to_string()
        }
        DrainState::DrainedVolumesUnknown(a) => {
            t_string!(i18n, drain_state.volumes_unknown, answer = answer_text(i18n, a)).to_string()
        }
        DrainState::Refused => t_string!(i18n, drain_state.refused).to_string(),
        DrainState::DryRunPlanned => t_string!(i18n, drain_state.dry_run_planned).to_string(),
        DrainState::DryRunAccepted => t_string!(i18n, drain_state.dry_run_accepted).to_string(),
        DrainState::TimedOut => t_string!(i18n, drain_state.timed_out, count = left).to_string(),
        DrainState::Cancelled => t_string!(i18n, drain_state.cancelled, count = left).to_string(),
        DrainState::Failed(failure) => {
            t_string!(i18n, drain_state.failed, error = failure_text(i18n, failure)).to_string()
        }
        DrainState::Interrupted => t_string!(i18n, drain_state.interrupted).to_string(),
    }
}

/// How a drain ended, in a word or two, for a drain that is history: what it left on the node is no longer there,
/// so the long forms ("the node stays cordoned", "It can be resumed") would say what is no longer true.
pub fn drain_outcome_text(i18n: I18n, state: &DrainState) -> String {
    match state {
        DrainState::Cordoning
        | DrainState::Planning
        | DrainState::Evicting
        | DrainState::Detaching(_)
        | DrainState::Interrupted => t_string!(i18n, drain_outcome.interrupted).to_string(),
        DrainState::Drained => t_string!(i18n, drain_outcome.drained).to_string(),
        DrainState::DrainedExceptTerminating(_) => t_string!(i18n, drain_outcome.drained_except).to_string(),
        DrainState::DrainedVolumesAttached(_) => t_string!(i18n, drain_outcome.volumes_attached).to_string(),
        DrainState::DrainedVolumesUnknown(_) => t_string!(i18n, drain_outcome.volumes_unknown).to_string(),
        DrainState::Refused => t_string!(i18n, drain_outcome.refused).to_string(),
        DrainState::DryRunPlanned | DrainState::DryRunAccepted => t_string!(i18n, drain_outcome.dry_run).to_string(),
        DrainState::TimedOut => t_string!(i18n, drain_outcome.timed_out).to_string(),
        DrainState::Cancelled => t_string!(i18n, drain_outcome.cancelled).to_string(),
        DrainState::Failed(_) => t_string!(i18n, drain_outcome.failed).to_string(),
    }
}

/// Why a drain or a pod's eviction failed. Only what the API server (or the server itself, in its own words) said
/// stays as it was said.
pub fn failure_text(i18n: I18n, failure: &Failure) -> String {
    match failure {
        Failure::CredentialsExpired => t_string!(i18n, failure.credentials_expired).to_string(),
        Failure::TimedOut { seconds } => t_string!(i18n, failure.timed_out, seconds).to_string(),
        Failure::NotEvicted { failed, of } => {
            t_string!(i18n, failure.not_evicted, failed, count = *of as u64).to_string()
        }
        Failure::Cordon(a) => t_string!(i18n, failure.cordon, answer = answer_text(i18n, a)).to_string(),
        Failure::ListPods(a) => t_string!(i18n, failure.list_pods, answer = answer_text(i18n, a)).to_string(),
        Failure::Api(a) | Failure::TwoBudgets { answer: a, .. } => answer_text(i18n, a),
        Failure::WebhookDenied { .. } => t_string!(i18n, failure.webhook_denied).to_string(),
        Failure::Unavailable { tries, answer } => {
            t_string!(i18n, failure.unavailable, tries, answer = answer_text(i18n, answer)).to_string()
        }
        Failure::NotFoundYetPresent { tries, answer } => {
            t_string!(i18n, failure.not_found_yet_present, tries, answer = answer_text(i18n, answer)).to_string()
        }
        Failure::WatchLost { seconds, error } => t_string!(i18n, failure.watch_lost, seconds, error).to_string(),
        Failure::WatchEnded => t_string!(i18n, failure.watch_ended).to_string(),
        Failure::WatchRefused(a) => t_string!(i18n, failure.watch_refused, answer = answer_text(i18n, a)).to_string(),
        Failure::Internal { detail } => t_string!(i18n, failure.internal, detail).to_string(),
        Failure::NotListed { seconds } => t_string!(i18n, failure.not_listed, seconds = *seconds).to_string(),
        Failure::Refused(refusal) => start_refusal_text(i18n, refusal),
        Failure::Server { message } | Failure::Other(message) => message.clone(),
    }
}

/// "Failed: " and what went wrong, as a dialog or a panel shows an answer that is not a success: Drainboard's own
/// refusal and a conflict in the catalogue's words, anything else as the server wrote it.
pub fn failed_text(i18n: I18n, error: &crate::AppError) -> String {
    t_string!(i18n, app.failed, error = error_text(i18n, error)).to_string()
}

/// What went wrong, in words: Drainboard's own refusals, conflicts and denials in the catalogue's (each is data on
/// the wire), anything else as the server wrote it.
pub fn error_text(i18n: I18n, error: &crate::AppError) -> String {
    match error {
        crate::AppError::Refused { refusal, .. } => start_refusal_text(i18n, refusal),
        crate::AppError::Conflict { conflict, .. } => super::conflict_text(i18n, conflict),
        crate::AppError::Denied { denial, .. } => super::denial_text(i18n, denial),
        other => other.to_string(),
    }
}

/// Why Drainboard itself did not start a drain: names and numbers are data, the words the catalogue's.
fn start_refusal_text(i18n: I18n, refusal: &StartRefusal) -> String {
    match refusal {
        StartRefusal::Stopping { node } => t_string!(i18n, failure.refused_stopping, node).to_string(),
        StartRefusal::NoSuchNode { node } => t_string!(i18n, failure.refused_no_such_node, node).to_string(),
        StartRefusal::MayNotDrain { user, node, lacks, role } => {
            t_string!(i18n, failure.refused_may_not_drain, user, node, lacks, role).to_string()
        }
        StartRefusal::NoLease { node, answer } => {
            t_string!(i18n, failure.refused_no_lease, node, answer = answer_text(i18n, answer)).to_string()
        }
        StartRefusal::ServerFull { most, dry_run: false } => {
            t_string!(i18n, failure.refused_server_full, most).to_string()
        }
        StartRefusal::ServerFull { most, dry_run: true } => {
            t_string!(i18n, failure.refused_server_full_dry, most).to_string()
        }
        StartRefusal::PersonFull { user, most, dry_run: false } => {
            t_string!(i18n, failure.refused_person_full, user, most).to_string()
        }
        StartRefusal::PersonFull { user, most, dry_run: true } => {
            t_string!(i18n, failure.refused_person_full_dry, user, most).to_string()
        }
        StartRefusal::Held(held) => t_string!(
            i18n,
            failure.refused_held,
            node = held.node.clone(),
            why = super::hold_text(i18n, &held.hold, held.at),
            window = held.window.clone()
        )
        .to_string(),
        StartRefusal::MayNotOverride { user, lacks } => {
            t_string!(i18n, failure.refused_may_not_override, user, lacks).to_string()
        }
        StartRefusal::OtherActors { node, actors } => {
            let names = domain::actor::ids(actors);
            t_string!(i18n, failure.refused_other_actors, node, names).to_string()
        }
    }
}

/// What the API server answered: its message, with its status code when it gave one.
pub(super) fn answer_text(i18n: I18n, answer: &ApiAnswer) -> String {
    match answer.code {
        Some(code) => t_string!(i18n, failure.answer, message = answer.message.clone(), code).to_string(),
        None => answer.message.clone(),
    }
}

/// A budget that holds up an eviction: what it allows and what it needs.
pub fn blocked_by_pdb_text(i18n: I18n, pdb: &PdbStatus) -> String {
    let (name, count) = (&pdb.name, pdb.disruptions_allowed);
    let (desired, current) = (pdb.desired_healthy, pdb.current_healthy);
    if pdb.never_allows() {
        // Not a wait: the budget needs every pod it counts healthy, so no eviction ever passes as things stand.
        return t_string!(i18n, pod_state.blocked_pdb_never, name, desired).to_string();
    }
    if count > 0 {
        // The budget allows one now, yet the pod waits: it was refused at its last try, when the numbers were
        // different, and is tried again. Say both, so that the moment's numbers do not read as the reason.
        return t_string!(i18n, pod_state.blocked_pdb_retrying, name, count, desired, current).to_string();
    }
    t_string!(i18n, pod_state.blocked_pdb, name, count, desired, current).to_string()
}

/// Where one pod's eviction stands.
pub fn pod_state_text(i18n: I18n, state: &PodState) -> String {
    match state {
        PodState::Pending => t_string!(i18n, pod_state.pending).to_string(),
        PodState::Evicting => t_string!(i18n, pod_state.evicting).to_string(),
        PodState::Blocked { pdb: Some(pdb), .. } => blocked_by_pdb_text(i18n, pdb),
        PodState::Blocked { message, .. } => t_string!(i18n, pod_state.blocked, message).to_string(),
        PodState::Terminating { .. } => t_string!(i18n, pod_state.terminating).to_string(),
        PodState::Gone => t_string!(i18n, pod_state.gone).to_string(),
        PodState::DryRunAccepted => t_string!(i18n, pod_state.dry_run_accepted).to_string(),
        PodState::NoLongerWaited => t_string!(i18n, pod_state.no_longer_waited).to_string(),
        PodState::Failed(failure) => t_string!(i18n, pod_state.failed, error = failure_text(i18n, failure)).to_string(),
    }
}

/// A pod the drain left on the node when it ended (cancelled, timed out, interrupted, failed): not evicted, and
/// why, in place of the state it last had, which is no longer going on.
pub fn pod_left_text(i18n: I18n, drain: &DrainState) -> String {
    match drain {
        DrainState::Cancelled => t_string!(i18n, pod_state.left_cancelled).to_string(),
        DrainState::TimedOut => t_string!(i18n, pod_state.left_timed_out).to_string(),
        DrainState::Interrupted => t_string!(i18n, pod_state.left_interrupted).to_string(),
        DrainState::Failed(_) => t_string!(i18n, pod_state.left_failed).to_string(),
        _ => t_string!(i18n, pod_state.left).to_string(),
    }
}

/// An option's name, as its toggle shows it.
pub fn option_text(i18n: I18n, option: DrainOption) -> String {
    match option {
        DrainOption::Force => t_string!(i18n, drain.force).to_string(),
        DrainOption::IgnoreDaemonsets => t_string!(i18n, drain.ignore_daemonsets).to_string(),
        DrainOption::DeleteEmptydirData => t_string!(i18n, drain.delete_emptydir).to_string(),
    }
}

/// An option that destroys something, by its kubectl flag.
pub fn flag_text(i18n: I18n, option: DestructiveOption) -> String {
    match option {
        DestructiveOption::Force => t_string!(i18n, drain.flag_force).to_string(),
        DestructiveOption::DeleteEmptydirData => t_string!(i18n, drain.flag_delete_emptydir).to_string(),
        DestructiveOption::DisableEviction => t_string!(i18n, drain.flag_disable_eviction).to_string(),
    }
}

/// What an eviction will cost.
pub fn note_text(i18n: I18n, note: &EvictNote) -> String {
    match note {
        EvictNote::LocalStorageLost => t_string!(i18n, preview.note_emptydir_lost).to_string(),
        EvictNote::NoController => t_string!(i18n, preview.note_no_controller).to_string(),
        EvictNote::DaemonSetMissing(_) => t_string!(i18n, preview.note_daemonset_missing).to_string(),
        EvictNote::OwnerAsked(asked) => {
            t_string!(i18n, preview.note_owner_asked, annotation = annotation_text(*asked)).to_string()
        }
    }
}

/// Why a pod is skipped.
pub fn skip_text(i18n: I18n, reason: &SkipReason) -> String {
    match reason {
        SkipReason::MirrorPod => t_string!(i18n, preview.skip_mirror).to_string(),
        SkipReason::DaemonSetIgnored => t_string!(i18n, preview.skip_daemonset).to_string(),
        SkipReason::DeletingTooLong => t_string!(i18n, preview.skip_deleting).to_string(),
    }
}

/// Why a pod is refused.
pub fn refusal_text(i18n: I18n, refusal: &Refusal) -> String {
    match refusal {
        Refusal::DaemonSetManaged => t_string!(i18n, preview.refuse_daemonset).to_string(),
        Refusal::DaemonSetMissing(detail) => t_string!(i18n, preview.refuse_daemonset_missing, detail).to_string(),
        Refusal::DaemonSetLookupFailed(detail) => t_string!(i18n, preview.refuse_lookup_failed, detail).to_string(),
        Refusal::LocalStorage => t_string!(i18n, preview.refuse_emptydir).to_string(),
        Refusal::NoController => t_string!(i18n, preview.refuse_no_controller).to_string(),
        Refusal::OwnerAsked(asked) => {
            t_string!(i18n, preview.refuse_owner_asked, annotation = annotation_text(*asked)).to_string()
        }
    }
}

/// The annotation an owner asked by, as written on the pod (`key: "value"`).
fn annotation_text(asked: domain::pod::DoNotDisrupt) -> String {
    let (key, value) = asked.annotation();
    format!("{key}: \"{value}\"")
}

/// A pod's phase.
pub fn phase_text(i18n: I18n, phase: PodPhase) -> String {
    match phase {
        PodPhase::Pending => t_string!(i18n, detail.phase_pending).to_string(),
        PodPhase::Running => t_string!(i18n, detail.phase_running).to_string(),
        PodPhase::Succeeded => t_string!(i18n, detail.phase_succeeded).to_string(),
        PodPhase::Failed => t_string!(i18n, detail.phase_failed).to_string(),
        PodPhase::Unknown => t_string!(i18n, detail.phase_unknown).to_string(),
    }
}

/// A fleet map cell's state, as the legend and the cell's label say it.
pub fn map_state_text(i18n: I18n, state: domain::fleet::MapState) -> String {
    use domain::fleet::MapState;
    // The states a card shows too are worded as the card words them.
    match state {
        MapState::Ready => ready_text(i18n, ReadyStatus::Ready),
        MapState::NotReady => ready_text(i18n, ReadyStatus::NotReady),
        MapState::Unknown => ready_text(i18n, ReadyStatus::Unknown),
        MapState::Cordoned => t_string!(i18n, card.cordoned).to_string(),
        MapState::Draining => t_string!(i18n, map.draining).to_string(),
        MapState::Drained => t_string!(i18n, map.drained).to_string(),
    }
}

/// Why a label selector could not be read, in the page's language.
pub fn selector_error_text(i18n: I18n, error: &domain::selector::SelectorError) -> String {
    use domain::selector::SelectorError as E;
    match error {
        E::Unbalanced { text } => t_string!(i18n, selector_error.unbalanced, text = text.clone()).to_string(),
        E::BadKey { key, term } => {
            t_string!(i18n, selector_error.bad_key, key = key.clone(), term = term.clone()).to_string()
        }
        E::BadValue { value, term } => {
            t_string!(i18n, selector_error.bad_value, value = value.clone(), term = term.clone()).to_string()
        }
        E::Unclosed { term } => t_string!(i18n, selector_error.unclosed, term = term.clone()).to_string(),
        E::NoOperator { term } => t_string!(i18n, selector_error.no_operator, term = term.clone()).to_string(),
        E::NoValues { term } => t_string!(i18n, selector_error.no_values, term = term.clone()).to_string(),
    }
}
