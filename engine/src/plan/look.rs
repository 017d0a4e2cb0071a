//! What a plan's runner sees at one look (`domain::plan_step::Look`), gathered from this server's drains, the
//! nodes' drain records and the cluster cache. Only reads: every decision on what was read is the pure step's.

use std::collections::BTreeMap;

use domain::{
    plan_step::{DrainSeen, Look, PlanSeen},
    progress::DrainState,
    rollout::{RolloutProgress, Step},
};

use crate::Error;
use crate::engine::{Acting, Engine};

/// What the look needs besides what it reads.
pub(super) struct Seeing {
    pub(super) plan: PlanSeen,
    pub(super) lease_lost: bool,
    pub(super) stopping: bool,
    pub(super) maintenance: bool,
    pub(super) confirmed: bool,
}

/// The look at `progress` now.
pub(super) async fn look(engine: &Engine, acting: &Acting<'_>, progress: &RolloutProgress, seeing: Seeing) -> Look {
    let mut look = Look {
        now: jiff::Timestamp::now(),
        plan: seeing.plan,
        lease_lost: seeing.lease_lost,
        stopping: seeing.stopping,
        maintenance: seeing.maintenance,
        confirmed: seeing.confirmed,
        drains: BTreeMap::new(),
        cards: BTreeMap::new(),
        unrecovered: BTreeMap::new(),
        uncordons: BTreeMap::new(),
        others: BTreeMap::new(),
        notify_lead: None,
        opens: BTreeMap::new(),
        teams: BTreeMap::new(),
    };
    if look.lease_lost {
        return look;
    }
    let stopping = engine.shutdown_signal().is_cancelled();
    for node in &progress.nodes {
        let Step::Draining(id) = &node.step else { continue };
        let seen = match engine.drain_progress(id) {
            // Interrupted as this server stops: left for whoever takes the plan over.
            Ok(drain) if drain.state == DrainState::Interrupted && stopping => DrainSeen::Here(drain.state),
            Ok(drain) if drain.state != DrainState::Interrupted => DrainSeen::Here(drain.state),
            // Not run here (a plan taken over), or interrupted here (its node Lease lost): its record says.
            _ => match acting.recorded_drain(&node.name).await {
                Ok(record) => DrainSeen::Recorded(record),
                Err(Error::NotFound(_)) => DrainSeen::NoRecord,
                Err(_) => DrainSeen::Unread,
            },
        };
        look.drains.insert(node.name.clone(), seen);
    }
    let out = |n: &&domain::rollout::RolloutNode| matches!(n.step, Step::Draining(_)) || n.waiting_back();
    if progress.nodes.iter().any(|n| out(&n))
        && let Ok(cache) = acting.cache().await
    {
        for node in progress.nodes.iter().filter(out) {
            if let Some(card) = super::back::card_now(&cache, &node.name) {
                look.cards.insert(node.name.clone(), card);
            }
            if let Some(uncordon) = engine.last_uncordon(&node.name) {
                look.uncordons.insert(node.name.clone(), uncordon);
            }
        }
    }
    // Who said a node was back, where the history had not named them yet when the plan saw it uncordoned.
    for node in progress.nodes.iter().filter(|n| n.said_back.as_ref().is_some_and(|s| s.by.is_none())) {
        if let Some(uncordon) = engine.last_uncordon(&node.name) {
            look.uncordons.insert(node.name.clone(), uncordon);
        }
    }
    for node in progress.nodes.iter().filter(|n| n.recovering()) {
        if let Some(touched) = &node.touched {
            let failed = super::checks::failures(acting, &node.name, touched).await;
            look.unrecovered.insert(node.name.clone(), failed);
        }
    }
    // Other tools at work on the nodes the plan may start next.
    let queued: std::collections::BTreeSet<&str> =
        progress.nodes.iter().filter(|n| n.step == Step::Queued).map(|n| n.name.as_str()).collect();
    if !queued.is_empty() {
        look.others = engine.sightings(&queued);
    }
    teams(engine, progress, &mut look).await;
    look
}

/// For app teams (`domain::teams`): the lead, when a window lifts its hold on each node the step may tell, and
/// the teams' pods on each of those the lead can reach. Which nodes, the step's own rule says
/// (`domain::plan_step::teams::asked`).
async fn teams(engine: &Engine, progress: &RolloutProgress, look: &mut Look) {
    let Some(lead) = engine.teams_lead() else { return };
    look.notify_lead = Some(lead);
    let asked = domain::plan_step::teams::asked(progress, look, lead);
    if asked.is_empty() {
        return;
    }
    let names: Vec<&str> = asked.iter().map(|&i| progress.nodes[i].name.as_str()).collect();
    look.opens = engine.holds_lift(&names).await;
    let by = look.now.checked_add(lead).unwrap_or(jiff::Timestamp::MAX);
    for node in names {
        // A node held past the lead is neither due nor started: its pods are not looked at.
        if look.opens.get(node).is_some_and(|&lifts| lifts > by) {
            continue;
        }
        if let Some(found) = engine.pods_by_team(node) {
            look.teams.insert(node.to_owned(), found);
        }
    }
}

/// The drains of `progress` that still run on this server, as [`domain::plan_step::finish`] reads them.
pub(super) fn drains_here(engine: &Engine, progress: &RolloutProgress, look: &mut Look) {
    look.drains.clear();
    for node in &progress.nodes {
        if let Step::Draining(id) = &node.step
            && let Ok(drain) = engine.drain_progress(id)
        {
            look.drains.insert(node.name.clone(), DrainSeen::Here(drain.state));
        }
    }
    look.now = jiff::Timestamp::now();
}
