//! A drained node's way back, in a plan with `uncordon_when_back`: awaited until it is back (Ready with a new boot
//! id), then, when the plan verifies, checked (`crate::verify`) until it checks out or its deadline passes, and
//! only then uncordoned ([`Effect::Uncordon`]). Once uncordoned, what its drain touched must recover before the
//! plan moves on. A node that does not check out in time stays cordoned as unverified, its failure naming each
//! check; one that never comes back fails when the deadline passes.

use crate::{
    ReadyStatus,
    rollout::{self, Back, RolloutNode, RolloutProgress},
    verify::{self, CheckFailure, Verify},
};

use super::facts::{Effect, Look};

/// Moves on each node awaited back or recovering whose way back moved on.
pub(super) fn bring_back(p: &mut RolloutProgress, look: &Look, effects: &mut Vec<Effect>) {
    let checks = p.options.verify.clone();
    let now = look.now;
    // Who said a node was back is named only where they did so by the plan's own "It is back" (its history entry
    // names the plan): an action on the plan, as continuing it is, which anyone who reads the plan may see. Who
    // uncordoned a node some other way stays in the node's history, for those who may read it. The entry may
    // reach the history a moment after the uncordon: named once it does. In a plan that verifies, that action
    // uncordons only once the plan's checks pass.
    let ours = super::facts::said_back_reason(&p.id);
    let verified = checks.is_some();
    let said = |uncordon: Option<&super::facts::Uncordon>, since: Option<jiff::Timestamp>| {
        uncordon
            .filter(|u| since.is_none_or(|s| u.at >= s) && u.reason.as_deref() == Some(ours.as_str()))
            .map(|u| (u.by.clone(), verified))
    };
    for node in &mut p.nodes {
        let since = node.waiting_since;
        if let Some(back) = node.said_back.as_mut().filter(|s| s.by.is_none())
            && let Some((by, checked)) = said(look.uncordons.get(&node.name), since)
        {
            back.by = Some(by);
            back.checked = checked;
        }
    }
    for node in p.nodes.iter_mut().filter(|n| n.waiting_back() || n.recovering()) {
        let since = node.waiting_since;
        let past = |v: &Verify| since.is_some_and(|since| verify::past_deadline(v, since, now));
        if node.recovering() {
            // Uncordoned already: what its drain touched must recover before the plan moves on.
            let failed = match (&node.touched, look.unrecovered.get(&node.name)) {
                (Some(_), Some(failed)) => failed.clone(),
                (Some(_), None) => continue,
                (None, _) => Vec::new(),
            };
            if failed.is_empty() {
                node.back = Some(Back::Uncordoned);
            } else if checks.as_ref().is_some_and(past) {
                node.back = Some(Back::Unrecovered(failed));
            }
            continue;
        }
        let Some(Back::Waiting(then)) = &node.back else { continue };
        let Some(card) = look.cards.get(&node.name) else { continue };
        // The cache may not have seen the drain's cordon yet (a drain of an empty node ends at once): only a card
        // that carries this drain's record, written after its cordon, is read after it. An older card says nothing
        // of a person's uncordon.
        let after_cordon = card.drain_record.as_ref().is_some_and(|r| node.drain_id.as_deref() == Some(r.id.as_str()));
        if !card.unschedulable && !after_cordon {
            continue;
        }
        if !card.unschedulable {
            // A person uncordoned it (the plan's "it is back", once it checked out, or by hand): what its drain
            // touched must still recover before the plan moves on. Who, and whether it had rebooted, is kept for
            // the row: a person's word is not a reboot.
            let (by, checked) = said(look.uncordons.get(&node.name), since).unzip();
            let new_boot = rollout::is_back(then.as_deref(), card.boot_id.as_deref(), true);
            node.said_back = Some(rollout::SaidBack { by, new_boot, checked: checked.unwrap_or(false) });
            node.back = Some(if touched(node) { Back::Recovering } else { Back::Uncordoned });
            continue;
        }
        let back = node.back_seen.is_some()
            || rollout::is_back(then.as_deref(), card.boot_id.as_deref(), card.ready == ReadyStatus::Ready);
        if !back {
            if let Some(v) = checks.as_ref().filter(|v| past(v)) {
                let seconds = v.deadline_seconds;
                node.back = Some(Back::Unverified(vec![CheckFailure::NotBack { node: node.name.clone(), seconds }]));
            }
            continue;
        }
        let seen = *node.back_seen.get_or_insert(now);
        if let Some(v) = &checks {
            let failed = verify::failures(card, v, seen);
            if !failed.is_empty() {
                if past(v) {
                    node.back = Some(Back::Unverified(failed));
                }
                continue;
            }
        }
        effects.push(Effect::Uncordon { node: node.name.clone() });
    }
}

/// Whether the node's drain touched workloads or budgets that must recover once it is uncordoned.
fn touched(node: &RolloutNode) -> bool {
    node.touched.as_ref().is_some_and(|t| !t.workloads.is_empty() || !t.budgets.is_empty())
}
