//! The plans as a board stream sends them: every plan once, then only what changed (`PlansChanged`), so that a
//! fleet's worth of plans is not sent again whole at each step of one. The server makes the change with [`diff`];
//! the browser (and any script following the stream) puts it into its list with [`apply`], the same rule at both
//! ends.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::rollout::RolloutProgress;

/// What changed in the list of plans since it was last sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlansChanged {
    /// Each plan new or changed, whole.
    pub changed: Vec<RolloutProgress>,
    /// The ids of the plans no longer listed.
    pub removed: Vec<String>,
    /// Every listed plan's id, in the list's order (the latest first): a plan's place moves when one is made.
    pub order: Vec<String>,
}

/// What changed from `before` to `now`; `None` when nothing did.
pub fn diff(before: &[RolloutProgress], now: &[RolloutProgress]) -> Option<PlansChanged> {
    if before == now {
        return None;
    }
    let old: HashMap<&str, &RolloutProgress> = before.iter().map(|p| (p.id.as_str(), p)).collect();
    let listed: std::collections::HashSet<&str> = now.iter().map(|p| p.id.as_str()).collect();
    Some(PlansChanged {
        changed: now.iter().filter(|p| old.get(p.id.as_str()) != Some(p)).cloned().collect(),
        removed: before.iter().filter(|p| !listed.contains(p.id.as_str())).map(|p| p.id.clone()).collect(),
        order: now.iter().map(|p| p.id.clone()).collect(),
    })
}

/// Puts `changed` into `list`: the plans changed replace theirs or join, the removed go, and the list takes the
/// new order. A plan the order names that neither the list nor the change has is left out (a change missed: the
/// next full list, on a reconnect, brings it).
pub fn apply(list: &mut Vec<RolloutProgress>, changed: PlansChanged) {
    let mut by_id: HashMap<String, RolloutProgress> = list.drain(..).map(|p| (p.id.clone(), p)).collect();
    for id in &changed.removed {
        by_id.remove(id);
    }
    for plan in changed.changed {
        by_id.insert(plan.id.clone(), plan);
    }
    list.extend(changed.order.iter().filter_map(|id| by_id.remove(id)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rollout::{RolloutNode, RolloutState, Step};

    fn plan(id: &str, step: Step) -> RolloutProgress {
        let mut node = RolloutNode::queued(format!("{id}-n1"), None);
        node.step = step;
        RolloutProgress {
            id: id.into(),
            started_by: "alice".into(),
            started_at: "2026-12-06T10:00:00Z".parse().unwrap(),
            reason: None,
            options: crate::rollout::RolloutOptions {
                max_parallel: 1,
                one_per_zone: false,
                stop_on_failure: false,
                drain: Default::default(),
                uncordon_when_back: false,
                verify: None,
                unattended: false,
                settle_seconds: 0,
                others_at_work: Default::default(),
            },
            state: RolloutState::Running,
            nodes: vec![node],
            finished_at: None,
            runner: None,
            blocked: None,
            held: None,
            continued_by: None,
            estimate: None,
            spec_changed: None,
        }
    }

    #[test]
    fn only_what_changed_is_sent_and_the_list_is_rebuilt_as_it_is() {
        let a = plan("a", Step::Queued);
        let b = plan("b", Step::Queued);
        let c = plan("c", Step::Queued);
        let a2 = plan("a", Step::Draining("d1".into()));
        // A row: its name, the list before and now, the ids sent as changed, and those sent as removed.
        type Row<'a> = (&'a str, Vec<RolloutProgress>, Vec<RolloutProgress>, Vec<&'a str>, Vec<&'a str>);
        let rows: Vec<Row> = vec![
            ("one plan moves a step", vec![a.clone(), b.clone()], vec![a2.clone(), b.clone()], vec!["a"], vec![]),
            (
                "a plan is made first",
                vec![a.clone(), b.clone()],
                vec![c.clone(), a.clone(), b.clone()],
                vec!["c"],
                vec![],
            ),
            ("a plan goes", vec![c.clone(), a.clone(), b.clone()], vec![c.clone(), b.clone()], vec![], vec!["a"]),
            ("all at once", vec![a.clone(), b.clone()], vec![c.clone(), a2.clone()], vec!["c", "a"], vec!["b"]),
            ("from nothing", vec![], vec![a.clone()], vec!["a"], vec![]),
            ("to nothing", vec![a.clone(), b.clone()], vec![], vec![], vec!["a", "b"]),
        ];
        for (name, before, now, changed, removed) in rows {
            let diffed = diff(&before, &now).unwrap_or_else(|| panic!("{name}: a change"));
            let ids: Vec<&str> = diffed.changed.iter().map(|p| p.id.as_str()).collect();
            assert_eq!(ids, changed, "{name}");
            assert_eq!(diffed.removed, removed, "{name}");
            let mut list = before.clone();
            apply(&mut list, diffed);
            assert_eq!(list, now, "{name}");
        }
        assert_eq!(diff(&[a.clone(), b.clone()], &[a, b]), None, "nothing changed, nothing sent");
    }

    #[test]
    fn a_change_that_names_a_plan_never_sent_leaves_it_out() {
        let mut list = vec![plan("a", Step::Queued)];
        apply(&mut list, PlansChanged { changed: vec![], removed: vec![], order: vec!["z".into(), "a".into()] });
        assert_eq!(list.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["a"]);
    }
}
