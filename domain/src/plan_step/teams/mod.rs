//! When a plan's app teams are told (`crate::teams`): ahead, as the plan's timing brings each node within the lead
//! ([`due`]), once its pods are evicted, and once it is back. Each look of the step calls these; what was told is
//! kept on the node, so that nothing is told twice, even by a server taking the plan over.

mod starts;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use jiff::{SignedDuration, Timestamp};

pub use starts::{due, earliest};

use crate::{
    notice::Notice,
    plan_step::{Effect, Look},
    rollout::{self, Back, RolloutProgress, Step},
    teams::{MAX_TEAMS, Stage, Told},
};

/// Tells ahead the teams of each node [`due`] at the look's time, and of each node in `starting` (the plan starts
/// it now) not told yet, unless the look saw a window hold it past now. `look.teams` holds, by node, each team's
/// pods there: a node missing from it was not looked at, and waits for the next look (and so does its start).
/// `lead`: how far ahead.
pub fn ahead(
    p: &mut RolloutProgress,
    look: &Look,
    lead: SignedDuration,
    starting: &[usize],
    effects: &mut Vec<Effect>,
) {
    let now = look.now;
    let mut tell: BTreeMap<usize, Timestamp> = due(p, now, lead, &look.opens).into_iter().collect();
    for &i in starting {
        let free = look.opens.get(&p.nodes[i].name).is_none_or(|&lifts| lifts <= now);
        if p.nodes[i].told.is_none() && free {
            tell.entry(i).or_insert(now);
        }
    }
    for (i, expected) in tell {
        let node = p.nodes[i].name.clone();
        let Some(found) = look.teams.get(&node) else { continue };
        for (team, pods) in found.iter().take(MAX_TEAMS) {
            let notice = Notice::TeamAhead {
                plan: p.id.clone(),
                node: node.clone(),
                team: team.clone(),
                namespaces: pods.namespaces.clone(),
                pods: pods.pods.clone(),
                more: pods.more,
                expected,
            };
            effects.push(Effect::Tell { team: team.clone(), notice });
        }
        let teams = found.keys().take(MAX_TEAMS).cloned().collect();
        p.nodes[i].told = Some(Told { stage: Stage::Ahead, teams, expected, at: now });
    }
}

/// The nodes whose teams' pods a look finds for the step (`Look::teams`), by the step's own rules at `look`
/// (its `others` read): those [`due`] were no window to hold them (a hold only delays a node), and those the plan
/// may start now and has not told. The runner asks the windows for these alone.
pub fn asked(p: &RolloutProgress, look: &Look, lead: SignedDuration) -> Vec<usize> {
    let mut asked: BTreeSet<usize> = due(p, look.now, lead, &BTreeMap::new()).into_iter().map(|(i, _)| i).collect();
    let mut q = p.clone();
    let passed = super::others::at_work(&mut q, look);
    let untold = |&i: &usize| q.nodes[i].told.is_none();
    asked.extend(rollout::startable_but(&q, &passed).into_iter().filter(untold));
    asked.into_iter().collect()
}

/// Tells the teams told ahead of each node that their pods there were evicted (its drain ended drained), and then
/// that the node is back (uncordoned by the plan, or said back by a person). A node whose drain failed or was
/// cancelled is told no more: the plan's own notices say how it ended.
pub fn after(p: &mut RolloutProgress, effects: &mut Vec<Effect>) {
    let plan = p.id.clone();
    for node in &mut p.nodes {
        let Some(told) = &mut node.told else { continue };
        let drained = matches!(&node.step, Step::Ended(state) if state.is_drained());
        let back = matches!(node.back, Some(Back::Uncordoned | Back::Recovering | Back::Unrecovered(_)));
        if told.stage == Stage::Ahead && drained {
            told.stage = Stage::Evicted;
            for team in &told.teams {
                let notice = Notice::TeamEvicted { plan: plan.clone(), node: node.name.clone(), team: team.clone() };
                effects.push(Effect::Tell { team: team.clone(), notice });
            }
        }
        if told.stage == Stage::Evicted && back {
            told.stage = Stage::Back;
            for team in &told.teams {
                let notice = Notice::TeamBack { plan: plan.clone(), node: node.name.clone(), team: team.clone() };
                effects.push(Effect::Tell { team: team.clone(), notice });
            }
        }
    }
}
