//! When a plan's app teams are told (`crate::teams`): ahead, as the plan's timing brings each node within the lead
//! ([`due`]), once its pods are evicted, and once it is back. Each look of the step calls these; what was told is
//! kept on the node, so that nothing is told twice, even by a server taking the plan over.

mod starts;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use jiff::Timestamp;

pub use starts::{due, earliest};

use crate::{
    notice::Notice,
    plan_step::Effect,
    rollout::{Back, RolloutProgress, Step},
    teams::{MAX_TEAMS, Stage, TeamPods, Told},
};

/// Tells ahead the teams of each node [`due`] at `now`: `teams` holds, by node, each team's pods there (a node
/// missing from it was not looked at, and waits for the next look). `lead`: how far ahead.
pub fn ahead(
    p: &mut RolloutProgress,
    now: Timestamp,
    lead: jiff::SignedDuration,
    opens: &BTreeMap<String, Timestamp>,
    teams: &BTreeMap<String, BTreeMap<String, TeamPods>>,
    effects: &mut Vec<Effect>,
) {
    for (i, expected) in due(p, now, lead, opens) {
        let node = p.nodes[i].name.clone();
        let Some(found) = teams.get(&node) else { continue };
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
