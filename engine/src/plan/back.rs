//! A plan's node on its way back, as the page asks of it: its card now, and why a person may not say it is back
//! yet. The plan's own way back (awaited, checked, uncordoned) is decided in `domain::plan_step`.

use domain::{
    node::NodeCard,
    verify::{self, CheckFailure},
};

use crate::engine::Acting;

/// `name`'s card now, with its node Lease's renewal (the live cards carry it; a card made from the Node alone does
/// not).
pub(super) fn card_now(cache: &crate::cache::ClusterCache, name: &str) -> Option<NodeCard> {
    let live = cache.live_cards().borrow().clone();
    live.iter().find(|c| c.name == name).map(|c| (**c).clone()).or_else(|| cache.node_card(name))
}

/// Why a person may not say `node` is back yet, in a plan that verifies: the checks of the node itself, as the plan
/// would make them, with its Lease renewed since its drain ended. Empty when it checks out (or nothing is checked).
pub(super) async fn not_yet_back(
    acting: &Acting<'_>,
    node: &domain::rollout::RolloutNode,
    checks: Option<&verify::Verify>,
) -> crate::Result<Vec<CheckFailure>> {
    let Some(checks) = checks else { return Ok(Vec::new()) };
    let cache = acting.cache().await?;
    let Some(card) = card_now(&cache, &node.name) else {
        return Err(crate::Error::NotFound(format!("node {} does not exist", node.name)));
    };
    let since = node.back_seen.or(node.waiting_since).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let failed = verify::failures(&card, checks, since);
    Ok(failed)
}
