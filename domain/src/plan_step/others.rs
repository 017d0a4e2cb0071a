//! A queued node another tool is taking down when its turn comes (`crate::actor::disrupting`): the plan never starts
//! a drain over another tool's work. With [`OthersAtWork::Wait`] the node is passed over, and starts once the tool
//! is done with it; with [`OthersAtWork::Skip`] it is not started. Either way the node names the tools.

use std::collections::BTreeSet;

use crate::{
    plan_step::Look,
    rollout::{OthersAtWork, RolloutProgress, Step},
};

/// Marks each queued node's tools at work as `look` sees them, skipping those the plan skips; answers the nodes
/// passed over for now.
pub(super) fn at_work(p: &mut RolloutProgress, look: &Look) -> BTreeSet<usize> {
    let mut passed = BTreeSet::new();
    if p.state != crate::rollout::RolloutState::Running {
        return passed;
    }
    let skip = p.options.others_at_work == OthersAtWork::Skip;
    for (i, node) in p.nodes.iter_mut().enumerate() {
        if node.step != Step::Queued {
            continue;
        }
        let actors = look.others.get(&node.name).map(|s| crate::actor::disrupting(s)).unwrap_or_default();
        if actors.is_empty() {
            node.others.clear();
            continue;
        }
        node.others = actors;
        if skip {
            node.step = Step::NotStarted;
        } else {
            passed.insert(i);
        }
    }
    passed
}
