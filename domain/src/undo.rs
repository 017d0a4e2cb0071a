//! Undoing a maintenance plan: which of its nodes to uncordon. Exactly those the plan cordoned and that are still
//! cordoned by it: a node cordoned before the plan, one drained again since, or one someone cordoned since (its
//! cordon record is no longer the one the plan's drain wrote) is left alone, and the answer says why.

use serde::{Deserialize, Serialize};

use crate::{node::NodeCard, rollout::RolloutNode};

/// What undo does with one node of a plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UndoStep {
    /// Cordoned by the plan and still so: it is uncordoned.
    Uncordon,
    /// Left as it is, for this reason.
    Leave(LeaveReason),
}

/// Why undo leaves a node alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LeaveReason {
    /// It was cordoned before the plan touched it (or the plan never recorded whether it was).
    CordonedBefore,
    /// The plan never drained it.
    NotDrained,
    /// It is schedulable already.
    NotCordoned,
    /// Drained again since, by this drain.
    DrainedSince { drain_id: String, by: String },
    /// Cordoned since by someone else (or by hand, leaving no record).
    CordonedSince { by: Option<String> },
    /// It no longer exists.
    Gone,
}

/// One node's line of an undo's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndoNode {
    pub node: String,
    pub step: UndoStep,
    /// For an uncordon: whether it failed, and why (the node stays cordoned).
    #[serde(default)]
    pub error: Option<String>,
}

/// What undo does with `node` of a plan, given its card now (`None`: the node is gone).
pub fn decide(node: &RolloutNode, card: Option<&NodeCard>) -> UndoStep {
    let leave = UndoStep::Leave;
    if node.cordoned_before != Some(false) {
        return leave(LeaveReason::CordonedBefore);
    }
    let Some(drain_id) = node.drain_id.as_deref() else { return leave(LeaveReason::NotDrained) };
    let Some(card) = card else { return leave(LeaveReason::Gone) };
    if !card.unschedulable {
        return leave(LeaveReason::NotCordoned);
    }
    let Some(drain) = &card.drain_record else { return leave(LeaveReason::CordonedSince { by: None }) };
    if drain.id != drain_id {
        return leave(LeaveReason::DrainedSince { drain_id: drain.id.clone(), by: drain.started_by.clone() });
    }
    // The plan's drain cordoned the node (schedulable when the plan began) with a record of its start, or an
    // earlier drain of the plan did, which this one resumed: a record dated after this drain's start is a later
    // cordon, someone else's.
    match &card.cordon_record {
        Some(cordon) if cordon.at <= drain.started_at => UndoStep::Uncordon,
        Some(cordon) => leave(LeaveReason::CordonedSince { by: Some(cordon.by.clone()) }),
        None => leave(LeaveReason::CordonedSince { by: None }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        drain::DrainOptions,
        progress::{CordonRecord, DrainRecord, DrainState},
        rollout::Step,
    };
    use jiff::Timestamp;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn drained(before: Option<bool>) -> RolloutNode {
        RolloutNode {
            step: Step::Ended(DrainState::Drained),
            drain_id: Some("d1".into()),
            cordoned_before: before,
            ..RolloutNode::queued("n1".into(), None)
        }
    }

    fn card(unschedulable: bool, drain: Option<(&str, &str)>, cordon: Option<(&str, &str)>) -> NodeCard {
        NodeCard {
            name: "n1".into(),
            unschedulable,
            drain_record: drain.map(|(id, by)| DrainRecord {
                id: id.into(),
                started_by: by.into(),
                started_at: at("2026-12-02T10:00:00Z"),
                reason: None,
                options: DrainOptions::default(),
                state: DrainState::Drained,
                pods_left: 0,
                finished_at: Some(at("2026-12-02T10:05:00Z")),
            }),
            cordon_record: cordon.map(|(by, when)| CordonRecord { by: by.into(), at: at(when), reason: None }),
            ..Default::default()
        }
    }

    #[test]
    fn only_a_node_the_plan_cordoned_and_that_stays_so_is_uncordoned() {
        let by_plan = card(true, Some(("d1", "alice")), Some(("alice", "2026-12-02T10:00:00Z")));
        assert_eq!(decide(&drained(Some(false)), Some(&by_plan)), UndoStep::Uncordon);
        assert_eq!(
            decide(&drained(Some(true)), Some(&by_plan)),
            UndoStep::Leave(LeaveReason::CordonedBefore),
            "cordoned before the plan"
        );
        assert_eq!(decide(&drained(None), Some(&by_plan)), UndoStep::Leave(LeaveReason::CordonedBefore), "not known");
        let uncordoned = card(false, Some(("d1", "alice")), None);
        assert_eq!(decide(&drained(Some(false)), Some(&uncordoned)), UndoStep::Leave(LeaveReason::NotCordoned));
        let later = card(true, Some(("d1", "alice")), Some(("bob", "2026-12-02T11:00:00Z")));
        assert_eq!(
            decide(&drained(Some(false)), Some(&later)),
            UndoStep::Leave(LeaveReason::CordonedSince { by: Some("bob".into()) }),
            "bob cordoned it since"
        );
        let by_hand = card(true, Some(("d1", "alice")), None);
        assert_eq!(
            decide(&drained(Some(false)), Some(&by_hand)),
            UndoStep::Leave(LeaveReason::CordonedSince { by: None })
        );
        let resumed = card(true, Some(("d1", "alice")), Some(("alice", "2026-12-02T09:50:00Z")));
        assert_eq!(
            decide(&drained(Some(false)), Some(&resumed)),
            UndoStep::Uncordon,
            "a resumed drain keeps the cordon its first run made"
        );
        let again = card(true, Some(("d2", "carol")), Some(("carol", "2026-12-02T10:00:00Z")));
        assert_eq!(
            decide(&drained(Some(false)), Some(&again)),
            UndoStep::Leave(LeaveReason::DrainedSince { drain_id: "d2".into(), by: "carol".into() })
        );
        assert_eq!(decide(&drained(Some(false)), None), UndoStep::Leave(LeaveReason::Gone));
        let never = RolloutNode { cordoned_before: Some(false), ..RolloutNode::queued("n1".into(), None) };
        assert_eq!(decide(&never, Some(&by_plan)), UndoStep::Leave(LeaveReason::NotDrained));
    }
}
