//! One look of a maintenance plan's runner, as a pure function. From the plan's status (its progress, whose
//! options are the spec as pinned: `crate::pin`) and what the runner sees now ([`Look`]: the plan as read, each of
//! its drains, each node awaited back, the time), [`step`] gives the status as it should be, what to do
//! ([`Effect`]) and what comes next ([`Next`]). The engine gathers the look, carries out the effects as the person
//! the plan runs as, and folds each one's outcome back in with [`absorb`]; at the end, [`finish`] says how each
//! node reads. Every decision a plan makes is here, so that it is tested row by row (`tests.rs`) without a cluster,
//! a server or a clock, and the engine around it only reads and writes.
//!
//! What anyone else may write counts only as a fact to judge: a drain record is weighed against the plan's own
//! drain and pinned options (`crate::pin::judge_record`), and a spec that differs from its pin blocks the plan.

mod back;
mod elsewhere;
mod facts;
mod others;
pub mod teams;
#[cfg(test)]
pub(crate) mod tests;
mod wake;

use jiff::Timestamp;

pub use elsewhere::{GRACE, RETRY_CAPPED, RETRY_REFUSED, Unrun, Unrunning, unrun};
pub use facts::{
    DrainSeen, Effect, Look, NEEDS_MAINTAINER, Next, Outcome, PlanSeen, SpecSeen, Stepped, Uncordon, said_back_reason,
};
pub use wake::{Wake, wake};

use crate::{
    notice::Notice,
    pin::RecordVerdict,
    plan_block::Blocked,
    progress::DrainState,
    rollout::{self, Back, RolloutProgress, RolloutState, Step},
    verify::CheckFailure,
};

/// One look: the status as it should be, what to do, and what comes next.
pub fn step(status: &RolloutProgress, look: &Look) -> Stepped {
    let mut p = status.clone();
    let mut effects = Vec::new();
    if look.lease_lost {
        return Stepped { status: p, effects, next: Next::Drop };
    }
    match &look.plan.spec {
        SpecSeen::Unread => {}
        SpecSeen::Same => {
            // Put back as it was confirmed (or confirmed anew): it goes on.
            if p.spec_changed.take().is_some() {
                p.blocked = None;
            }
        }
        SpecSeen::Changed { why, diff } => {
            // Nothing more starts until a person confirms it; the drains running are still followed.
            p.spec_changed = diff.clone();
            p.blocked = Some(Blocked::Unpinned(why.clone()));
        }
    }
    let plan = &look.plan;
    let cancelled = plan.gone || plan.cancelled || plan.deleting;
    if look.maintenance && !plan.unattended {
        // Someone took "unattended" off: the maintenance identity runs nothing it was not asked to.
        p.blocked = Some(Blocked::NoLongerUnattended);
    }
    follow(&mut p, look, &mut effects);
    teams::after(&mut p, &mut effects);
    p.state = if plan.paused { RolloutState::Paused } else { RolloutState::Running };
    if cancelled {
        let drains: Vec<String> = p.nodes.iter().filter_map(draining).collect();
        effects.retain(|e| !matches!(e, Effect::Resume { .. } | Effect::Restart { .. }));
        if !drains.is_empty() {
            effects.push(Effect::Cancel { drains });
        }
        return Stepped { status: p, effects, next: Next::End { cancelled: true } };
    }
    if look.stopping {
        p.runner = None;
        // Only what is told goes out: it is written as told in the status left for whoever takes the plan over.
        effects.retain(Effect::is_notice);
        return Stepped { status: p, effects, next: Next::Handover };
    }
    if p.settled() {
        return Stepped { status: p, effects, next: Next::End { cancelled: false } };
    }
    if p.blocked.is_none() {
        back::bring_back(&mut p, look, &mut effects);
        done(&mut p, look.now, &mut effects);
        // What holds a node is said anew at each look, from the outcomes of its starts and resumes.
        p.held = None;
        let passed = others::at_work(&mut p, look);
        let starting = if rollout::settling(&p, look.now) { Vec::new() } else { rollout::startable_but(&p, &passed) };
        if let Some(lead) = look.notify_lead {
            teams::ahead(&mut p, look, lead, &starting, &mut effects);
        }
        for i in starting {
            let node = &p.nodes[i];
            effects.push(Effect::Start {
                node: node.name.clone(),
                window_override: plan.window_override.clone(),
                record_override: node.overridden_at.is_none(),
                // No node's pods go before its teams are told.
                teams_untold: look.notify_lead.is_some() && node.told.is_none(),
            });
        }
        effects.push(Effect::Silences { ending: false });
    }
    if p.blocked.is_some() && p.spec_changed.is_none() {
        // Nothing more can be done as this person: the plan is left for whoever continues it, and nothing new
        // (not even a resume) is begun as it goes.
        p.runner = None;
        effects.retain(Effect::is_notice);
        return Stepped { status: p, effects, next: Next::Leave };
    }
    Stepped { status: p, effects, next: Next::Look }
}

impl Effect {
    /// A notice (to the webhooks or a team): no action, and always sent, since the status records it as told.
    pub fn is_notice(&self) -> bool {
        matches!(self, Effect::Notify(_) | Effect::Tell { .. })
    }
}

/// Where each draining node's drain is now: one that ended ends the node's step; one interrupted and the plan's
/// own (its id, its pinned options) is resumed; any other record blocks the plan, and nothing runs on that node.
fn follow(p: &mut RolloutProgress, look: &Look, effects: &mut Vec<Effect>) {
    let uncordon_when_back = p.options.uncordon_when_back;
    for i in 0..p.nodes.len() {
        let Step::Draining(id) = p.nodes[i].step.clone() else { continue };
        let name = p.nodes[i].name.clone();
        let state = match look.drains.get(&name) {
            // Interrupted here: the node stays draining, to be resumed from its record (this server stops, or
            // lost the node's Lease and another server may hold it).
            Some(DrainSeen::Here(DrainState::Interrupted)) => continue,
            Some(DrainSeen::Here(state)) => state.clone(),
            Some(DrainSeen::Recorded(record)) => {
                match crate::pin::judge_record(&name, &id, record, &p.options.drain, look.confirmed) {
                    RecordVerdict::Resume => {
                        let window_override = look.plan.window_override.clone();
                        effects.push(Effect::Resume { node: name, window_override });
                        continue;
                    }
                    RecordVerdict::Running => continue,
                    RecordVerdict::Ended(state) => state,
                    RecordVerdict::Mismatch(mismatch) => {
                        p.blocked = Some(Blocked::RecordMismatch(mismatch));
                        continue;
                    }
                }
            }
            Some(DrainSeen::NoRecord) => {
                effects.push(Effect::Restart { node: name });
                continue;
            }
            Some(DrainSeen::Unread) | None => continue,
        };
        if state.is_running() {
            continue;
        }
        let node = &mut p.nodes[i];
        if uncordon_when_back && state.is_drained() {
            let boot = look.cards.get(&name).and_then(|c| c.boot_id.clone());
            node.back = Some(Back::Waiting(boot));
            node.waiting_since = Some(look.now);
        }
        node.step = Step::Ended(state);
    }
}

/// Notes each node the plan is newly finished with (the settle time counts from then), and tells of those that are
/// done as `crate::tally` counts it: a node that failed is named when the plan ends, never told as done.
fn done(p: &mut RolloutProgress, now: Timestamp, effects: &mut Vec<Effect>) {
    let before: Vec<bool> = p.nodes.iter().map(|n| n.done_at.is_some()).collect();
    rollout::mark_done(p, now);
    let verified = p.options.verify.is_some();
    for (node, was) in p.nodes.iter().zip(before) {
        if node.done_at.is_some() && !was && crate::tally::Standing::of(node) == crate::tally::Standing::Done {
            effects.push(Effect::Notify(Notice::NodeDone { plan: p.id.clone(), node: node.name.clone(), verified }));
        }
    }
}

fn draining(node: &rollout::RolloutNode) -> Option<String> {
    match &node.step {
        Step::Draining(id) => Some(id.clone()),
        _ => None,
    }
}

/// The plan's end, once its drains are cancelled when `cancelled`: the last nodes done are told, queued nodes not
/// started, nodes awaited back left cordoned, nodes still recovering read as not seen recovered (an ended plan
/// does not say it still waits), and a drain still running (the cancel did not end it in time) as interrupted.
pub fn finish(status: &RolloutProgress, look: &Look, cancelled: bool) -> Stepped {
    let mut p = status.clone();
    let mut effects = Vec::new();
    done(&mut p, look.now, &mut effects);
    teams::after(&mut p, &mut effects);
    for node in &mut p.nodes {
        if node.waiting_back() {
            node.back = Some(Back::Left);
        }
        if node.recovering() {
            node.back = Some(Back::Unrecovered(vec![CheckFailure::PlanEnded]));
        }
        match &node.step {
            Step::Queued => node.step = Step::NotStarted,
            Step::Draining(_) => {
                let state = match look.drains.get(&node.name) {
                    Some(DrainSeen::Here(state)) if !state.is_running() => state.clone(),
                    _ => DrainState::Interrupted,
                };
                node.step = Step::Ended(state);
            }
            _ => {}
        }
    }
    p.state = if cancelled { RolloutState::Cancelled } else { RolloutState::Finished };
    p.finished_at = Some(look.now);
    p.runner = None;
    p.held = None;
    effects.push(Effect::Notify(Notice::PlanEnded {
        plan: p.id.clone(),
        phase: p.phase().into(),
        failed: p.nodes.iter().filter(|n| n.failed()).map(|n| n.name.clone()).collect(),
    }));
    effects.push(Effect::Silences { ending: true });
    Stepped { status: p, effects, next: Next::End { cancelled } }
}

/// Folds an effect's outcome into the status.
pub fn absorb(p: &mut RolloutProgress, outcome: Outcome, now: Timestamp) {
    let index = |p: &RolloutProgress, node: &str| p.nodes.iter().position(|n| n.name == node);
    match outcome {
        Outcome::Started { node, drain } => {
            if let Some(i) = index(p, &node) {
                p.nodes[i].drain_id = Some(drain.clone());
                p.nodes[i].step = Step::Draining(drain);
            }
        }
        Outcome::Held(hold) => {
            p.held.get_or_insert(hold);
        }
        Outcome::Overridden { node } => {
            if let Some(i) = index(p, &node) {
                p.nodes[i].overridden_at.get_or_insert(now);
            }
        }
        Outcome::Failed { node, failure } => {
            if let Some(i) = index(p, &node) {
                p.nodes[i].step = Step::Ended(DrainState::Failed(failure));
            }
        }
        Outcome::CredentialsRefused { user } => {
            p.blocked = Some(Blocked::CredentialsRefused { user });
        }
        Outcome::Touched { node, touched } => {
            if let Some(i) = index(p, &node) {
                p.nodes[i].touched = Some(touched);
            }
        }
        Outcome::Estimated(estimate) => {
            if p.estimate.is_none() {
                for (n, e) in p.nodes.iter_mut().zip(estimate.nodes) {
                    n.estimate = Some(e);
                }
                p.estimate = Some(estimate.total);
            }
        }
        Outcome::Uncordoned { node, result } => {
            if let Some(i) = index(p, &node) {
                let n = &mut p.nodes[i];
                let touched = n.touched.as_ref().is_some_and(|t| !t.workloads.is_empty() || !t.budgets.is_empty());
                n.back = Some(match result {
                    Ok(()) if touched => Back::Recovering,
                    Ok(()) => Back::Uncordoned,
                    Err(failure) => Back::Failed(failure),
                });
            }
        }
    }
}
