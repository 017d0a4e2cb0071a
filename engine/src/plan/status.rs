//! What a plan's progress says in Kubernetes' terms: its phase, its conditions (`Progressing`, `Paused`, `Blocked`,
//! `Complete`, `Failed`, each with the time it last changed), and an Event on the plan for each step, so that
//! `kubectl describe maintenanceplan` tells the story. Written with the server's own identity.

use domain::rollout::{RolloutProgress, RolloutState, Step};
use jiff::Timestamp;
use kube::{
    Resource, ResourceExt,
    api::{Patch, PatchParams},
    runtime::events::{Event, EventType},
};

use super::{
    Plans,
    resource::{MaintenancePlan, PlanCondition, PlanNode, PlanStatus},
};

/// The phase a plan's progress reads as (`domain::rollout::RolloutProgress::phase`).
pub fn phase(progress: &RolloutProgress) -> &'static str {
    progress.phase()
}

pub use super::resource::HELD_BY_WINDOW;

/// Whether `plan` waits, blocked, for a person to continue it (`domain::plan_block::Blocked::waits_for_a_person`):
/// no server takes such a plan on by itself.
pub fn waits_for_a_person(plan: &MaintenancePlan) -> bool {
    plan.spec_changed().is_some() || plan.blocked().is_some_and(|b| b.waits_for_a_person())
}

fn condition(type_: &str, on: bool, reason: &str, message: String, generation: Option<i64>) -> PlanCondition {
    PlanCondition {
        type_: type_.into(),
        status: if on { "True" } else { "False" }.into(),
        reason: reason.into(),
        message,
        last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(Timestamp::now()),
        observed_generation: generation,
    }
}

/// The conditions of `progress`, each keeping its transition time from `before` when its status did not change.
pub fn conditions(progress: &RolloutProgress, before: &[PlanCondition], generation: Option<i64>) -> Vec<PlanCondition> {
    let phase = phase(progress);
    let failed: Vec<&str> = progress.nodes.iter().filter(|n| n.failed()).map(|n| n.name.as_str()).collect();
    let ended = matches!(phase, "Complete" | "Failed" | "Cancelled");
    let mut now = vec![
        condition(
            "Progressing",
            phase == "Running",
            phase,
            match phase {
                "Running" => "nodes are drained as the limits allow".into(),
                _ => format!("the plan is {}", phase.to_lowercase()),
            },
            generation,
        ),
        condition(
            "Paused",
            phase == "Paused",
            if phase == "Paused" { "Paused" } else { "NotPaused" },
            String::new(),
            generation,
        ),
        match (&progress.blocked, &progress.held) {
            (Some(why), _) if !ended => condition("Blocked", true, why.reason(), why.english(), generation),
            (None, Some(held)) if !ended && phase == "Blocked" => {
                condition("Blocked", true, HELD_BY_WINDOW, format!("{}: {}", held.node, held.english()), generation)
            }
            _ => condition("Blocked", false, "NotBlocked", String::new(), generation),
        },
        condition("Complete", phase == "Complete", if ended { phase } else { "NotEnded" }, String::new(), generation),
        match (failed.is_empty(), phase == "Failed") {
            (false, _) => condition("Failed", true, "NodeFailed", format!("failed: {}", failed.join(", ")), generation),
            (true, true) => condition("Failed", true, "NotStarted", "no node could start".into(), generation),
            (true, false) => condition("Failed", false, "NoFailure", String::new(), generation),
        },
    ];
    for c in &mut now {
        if let Some(old) = before.iter().find(|o| o.type_ == c.type_ && o.status == c.status) {
            c.last_transition_time = old.last_transition_time.clone();
        }
    }
    now
}

/// The status `progress` is written as.
pub fn of(progress: &RolloutProgress, plan: &MaintenancePlan, runner: Option<String>) -> PlanStatus {
    let before = plan.status.clone().unwrap_or_default();
    // The generation this status answers is the one pinned: a spec edit nobody confirmed is not acted on.
    let generation = before.pinned.as_ref().map(|p| p.generation);
    let tally = domain::tally::Tally::of(&progress.nodes);
    PlanStatus {
        observed_generation: generation,
        phase: Some(phase(progress).into()),
        started_by: Some(progress.started_by.clone()),
        started_at: Some(progress.started_at),
        finished_at: progress.finished_at,
        runner,
        continued_by: progress.continued_by.clone(),
        total: tally.total,
        done: tally.done,
        draining: tally.draining,
        awaited: tally.awaited,
        recovering: tally.recovering,
        queued: tally.queued,
        left_cordoned: tally.left_cordoned,
        stopped: tally.stopped,
        failed: tally.failed,
        not_started: tally.not_started,
        nodes: progress.nodes.iter().map(PlanNode::from_rollout).collect(),
        conditions: conditions(progress, &before.conditions, generation),
        estimate: progress.estimate.as_ref().map(Into::into),
        blocked: progress.blocked.clone(),
        held: progress.held.clone(),
        held_detail: None,
        pinned: before.pinned,
    }
}

/// Writes `pin` as the plan's, and the generation it answers, before anything is done on it.
pub async fn write_pin(plans: &Plans, name: &str, pin: &super::resource::PlanPin) -> Result<(), kube::Error> {
    let patch = serde_json::json!({ "status": { "pinned": pin, "observedGeneration": pin.generation } });
    plans.api.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch)).await.map(|_| ())
}

/// Writes the status of `name` only while the plan is at `version` (its `resourceVersion`; any version without
/// one): the API server answers 409 when anyone wrote the plan since. The plan as written.
pub async fn write_on(
    plans: &Plans,
    name: &str,
    status: &PlanStatus,
    version: Option<&str>,
) -> Result<MaintenancePlan, kube::Error> {
    let mut patch = serde_json::json!({ "status": status });
    if let Some(version) = version {
        patch["metadata"] = serde_json::json!({ "resourceVersion": version });
    }
    plans.api.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch)).await
}

/// Publishes an Event on the plan; a failure to is logged, never fatal.
pub async fn event(plans: &Plans, plan: &MaintenancePlan, warning: bool, reason: &str, note: String) {
    event_about(plans, plan, None, warning, reason, note).await
}

/// Publishes an Event on the plan about `node` (its related object): one node's Event is not counted as a repeat
/// of another's, as Events of one reason would be.
pub async fn event_about(
    plans: &Plans,
    plan: &MaintenancePlan,
    node: Option<&str>,
    warning: bool,
    reason: &str,
    note: String,
) {
    let secondary = node.map(|name| k8s_openapi::api::core::v1::ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("Node".into()),
        name: Some(name.into()),
        ..Default::default()
    });
    let event = Event {
        type_: if warning { EventType::Warning } else { EventType::Normal },
        reason: reason.into(),
        note: Some(note.chars().take(1000).collect()),
        action: reason.into(),
        secondary,
    };
    if let Err(err) = plans.recorder.publish(&event, &plan.object_ref(&())).await {
        tracing::debug!(plan = %plan.name_any(), error = %err, "could not publish an Event on the plan");
    }
}

/// The Events between two readings of a plan: each node's start and end, and the plan's own phase.
pub fn story(before: &RolloutProgress, after: &RolloutProgress) -> Vec<(Option<String>, bool, String, String)> {
    let mut told = Vec::new();
    for node in &after.nodes {
        let was = before.nodes.iter().find(|n| n.name == node.name);
        if was.map(|w| &w.step) == Some(&node.step) && was.map(|w| &w.back) == Some(&node.back) {
            continue;
        }
        let about = Some(node.name.clone());
        match &node.step {
            Step::Draining(id) if !matches!(was.map(|w| &w.step), Some(Step::Draining(_))) => {
                told.push((about, false, "NodeDrainStarted".into(), format!("draining {} (drain {id})", node.name)))
            }
            Step::Draining(id) => {
                told.push((about, false, "NodeDrainResumed".into(), format!("resumed {} (drain {id})", node.name)))
            }
            Step::Ended(state) if !matches!(was.map(|w| &w.step), Some(Step::Ended(_))) => told.push((
                about,
                node.failed(),
                if node.failed() { "NodeFailed" } else { "NodeDrained" }.into(),
                format!("{}: {}", node.name, state.label()),
            )),
            _ => {}
        }
        if was.map(|w| &w.back) != Some(&node.back)
            && let Some(back) = &node.back
        {
            use domain::rollout::Back;
            let written = PlanNode::from_rollout(node);
            let (warning, detail) = match back {
                Back::Failed(_) => (true, String::new()),
                // The failed checks, in words, so that `kubectl describe` names them.
                Back::Unverified(failed) | Back::Unrecovered(failed) => {
                    (true, format!(": {}", domain::verify::CheckFailure::english_all(failed)))
                }
                _ => (false, String::new()),
            };
            told.push((
                Some(node.name.clone()),
                warning,
                "NodeBack".into(),
                format!("{}: {}{detail}", node.name, written.back.unwrap_or_default()),
            ));
        }
    }
    let (was, is) = (phase(before), phase(after));
    if was != is {
        let note = match is {
            "Blocked" => after
                .blocked
                .as_ref()
                .map(domain::plan_block::Blocked::english)
                .or_else(|| after.held.as_ref().map(|h| format!("{}: {}", h.node, h.english())))
                .unwrap_or_default(),
            _ => format!("{was} → {is}"),
        };
        told.push((None, matches!(is, "Failed" | "Blocked"), is.into(), note));
    }
    told
}

/// `status` without nodes when the plan never started: its nodes are resolved, each with its zone and whether it
/// was cordoned before, by the server that starts it, and a list written without those would read as if it had.
fn unstarted(mut status: PlanStatus, plan: &MaintenancePlan) -> PlanStatus {
    if plan.status.as_ref().is_none_or(|s| s.nodes.is_empty()) {
        status.nodes.clear();
    }
    status
}

/// Writes that a plan nobody runs is blocked, `why` (needing a maintainer, unless something more precise holds it),
/// once.
pub async fn blocked(plans: &Plans, plan: &MaintenancePlan, why: &domain::plan_block::Blocked) {
    let mut progress = plan.progress();
    // Already waiting, with this reason, or a more precise one than needing a maintainer (the credentials it ran
    // with were refused, say). "Unattended plans are off here" is as weak: a replica started without
    // `--unattended-plans` beside one started with it (a rolling update adding the component) must not flip the
    // reason the other gave back and forth.
    if progress.blocked.as_ref() == Some(why) || (why.weak() && progress.blocked.is_some()) {
        return;
    }
    let before = progress.clone();
    progress.blocked = Some(why.clone());
    let status = unstarted(of(&progress, plan, None), plan);
    // On the version this was decided on: a server whose view is late (cut off, say), or whose write arrives late,
    // never writes over what the plan's runner wrote since.
    if let Err(err) = write_on(plans, &plan.name_any(), &status, plan.resource_version().as_deref()).await {
        tracing::warn!(plan = %plan.name_any(), error = %crate::kube_error::api_message(&err), "could not mark a plan blocked");
        return;
    }
    for (node, warning, reason, note) in story(&before, &progress) {
        event_about(plans, plan, node.as_deref(), warning, &reason, note).await;
    }
}

/// Ends a plan nobody runs (deleted, say) with `phase`'s state, its queued nodes not started.
pub async fn ended_without_runner(plans: &Plans, plan: &MaintenancePlan, phase: &str, why: &str) {
    let mut progress = plan.progress();
    for node in &mut progress.nodes {
        if node.step == Step::Queued {
            node.step = Step::NotStarted;
        }
    }
    progress.state = if phase == "Cancelled" { RolloutState::Cancelled } else { RolloutState::Finished };
    progress.finished_at = Some(Timestamp::now());
    progress.blocked = None;
    let status = unstarted(of(&progress, plan, None), plan);
    if write_on(plans, &plan.name_any(), &status, plan.resource_version().as_deref()).await.is_ok() {
        event(plans, plan, false, phase, why.into()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::{progress::DrainState, rollout::RolloutNode};

    fn ended(steps: Vec<Step>) -> RolloutProgress {
        let plan: MaintenancePlan = serde_json::from_value(serde_json::json!({
            "apiVersion": "drainboard.dev/v1alpha1", "kind": "MaintenancePlan",
            "metadata": {"name": "p"}, "spec": {"nodes": ["a"]}
        }))
        .unwrap();
        let mut progress = plan.progress();
        progress.nodes = steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| RolloutNode { step, ..RolloutNode::queued(format!("n{i}"), None) })
            .collect();
        progress.state = RolloutState::Finished;
        progress
    }

    #[test]
    fn a_plan_reads_complete_only_when_its_nodes_were_drained() {
        let done = ended(vec![Step::Ended(DrainState::Drained), Step::Ended(DrainState::Drained)]);
        assert_eq!(phase(&done), "Complete");
        let one_failed = ended(vec![Step::Ended(DrainState::Drained), Step::Ended(DrainState::Refused)]);
        assert_eq!(phase(&one_failed), "Failed");
        let never = ended(vec![Step::NotStarted, Step::NotStarted]);
        assert_eq!(phase(&never), "Failed", "a plan that could not start is no success");
        let none = ended(vec![]);
        assert_eq!(phase(&none), "Failed", "a selector that named no node");
        let failed = conditions(&never, &[], Some(1));
        let condition = failed.iter().find(|c| c.type_ == "Failed").unwrap();
        assert_eq!((condition.status.as_str(), condition.reason.as_str()), ("True", "NotStarted"));
        let complete = conditions(&done, &[], Some(1));
        assert!(complete.iter().any(|c| c.type_ == "Complete" && c.status == "True"));
        assert!(complete.iter().any(|c| c.type_ == "Failed" && c.status == "False"));
    }

    #[test]
    fn the_status_counts_a_node_done_only_once_it_is_back_and_a_node_never_started_not_at_all() {
        use domain::rollout::Back;
        let plan: MaintenancePlan = serde_json::from_value(serde_json::json!({
            "apiVersion": "drainboard.dev/v1alpha1", "kind": "MaintenancePlan",
            "metadata": {"name": "p"}, "spec": {"nodes": ["a"], "uncordonWhenBack": true}
        }))
        .unwrap();
        let mut running = ended(vec![Step::Ended(DrainState::Drained), Step::Ended(DrainState::Drained)]);
        running.state = RolloutState::Paused;
        running.nodes[0].back = Some(Back::Waiting(Some("b1".into())));
        running.nodes[1].back = Some(Back::Uncordoned);
        let status = of(&running, &plan, None);
        assert_eq!((status.total, status.done, status.awaited), (2, 1, 1));
        let mut cancelled = ended(vec![Step::NotStarted]);
        cancelled.state = RolloutState::Cancelled;
        let status = of(&cancelled, &plan, None);
        assert_eq!(
            (status.phase.as_deref(), status.total, status.done, status.not_started),
            (Some("Cancelled"), 1, 0, 1)
        );
    }

    #[test]
    fn a_blocked_plan_names_what_it_waits_for_as_its_reason_and_in_words() {
        use domain::{
            pin::{RecordMismatch, Unpinned},
            plan_block::Blocked,
        };
        let mut waiting = ended(vec![Step::NotStarted]);
        waiting.state = RolloutState::Running;
        let changed = Unpinned::SpecChanged { pinned: 1, generation: 2, changes: vec![] };
        let rows = [
            (Blocked::NeedsMaintainer, "NeedsMaintainer"),
            (Blocked::UnattendedOff, "UnattendedNotAllowed"),
            (Blocked::UnattendedNotAllowed { why: "the policy is not installed".into() }, "UnattendedNotAllowed"),
            (Blocked::Unpinned(Unpinned::NotPinned), "NotPinned"),
            (Blocked::Unpinned(Unpinned::SealUnavailable { why: "403".into() }), "SealUnavailable"),
            (Blocked::Unpinned(changed), "SpecChanged"),
            (
                Blocked::RecordMismatch(RecordMismatch::OtherOptions { node: "n1".into(), drain: "d1".into() }),
                "RecordMismatch",
            ),
            (domain::pin::over_cap(200, 0, "alice", 200, 10).unwrap(), "TooMany"),
        ];
        for (why, reason) in rows {
            waiting.blocked = Some(why.clone());
            let now = conditions(&waiting, &[], Some(1));
            let blocked = now.iter().find(|c| c.type_ == "Blocked").unwrap().clone();
            assert_eq!(blocked.status, "True");
            assert_eq!((blocked.reason.as_str(), blocked.message), (reason, why.english()));
        }
    }

    #[test]
    fn a_window_hold_is_kept_as_data_and_an_older_status_string_still_reads() {
        let plan: MaintenancePlan = serde_json::from_value(serde_json::json!({
            "apiVersion": "drainboard.dev/v1alpha1", "kind": "MaintenancePlan",
            "metadata": {"name": "p"}, "spec": {"nodes": ["a", "b"]}
        }))
        .unwrap();
        let mut progress = plan.progress();
        progress.nodes = vec![RolloutNode::queued("a".into(), None)];
        let until: Timestamp = "2026-12-06T20:00:00Z".parse().unwrap();
        let held = domain::window::HeldNode {
            node: "a".into(),
            window: "nights".into(),
            hold: domain::window::Hold::Frozen { reason: "release".into(), until, ends: None, zone: "UTC".into() },
            at: "2026-12-06T10:00:00Z".parse().unwrap(),
        };
        progress.held = Some(held.clone());
        let status = of(&progress, &plan, None);
        let json = serde_json::to_value(&status).unwrap();
        assert_eq!(json["held"]["window"], "nights", "the hold is an object, not JSON in a string");
        assert!(json["heldDetail"].is_null(), "the older string is written as null, so that a merge patch drops it");
        let mut written = plan.clone();
        written.status = Some(serde_json::from_value(json).unwrap());
        assert_eq!(written.progress().held, Some(held.clone()));
        // A status an older server wrote: the hold as JSON in `heldDetail`.
        let status = written.status.as_mut().unwrap();
        status.held = None;
        status.held_detail = Some(serde_json::to_string(&held).unwrap());
        assert_eq!(written.progress().held, Some(held));
    }
}
