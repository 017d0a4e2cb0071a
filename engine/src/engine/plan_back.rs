//! A drained node's way back, in a plan with `uncordon_when_back`: awaited until it is back (Ready with a new boot
//! id), then, when the plan verifies, checked (`domain::verify`, and `plan_checks` for the workloads and budgets
//! its drain touched) until it checks out or its deadline passes, and
//! only then uncordoned, as the person the plan runs as. A node that does not check out in time stays cordoned as
//! unverified, its failure naming each check; one that never comes back fails when the deadline passes.

use domain::{
    ReadyStatus,
    node::NodeCard,
    rollout::{self, Back, RolloutProgress},
    verify::{self, CheckFailure},
};

use super::Acting;

/// Looks at every node awaited back, and moves those whose way back has moved on.
pub(super) async fn bring_back(acting: &Acting<'_>, progress: &mut RolloutProgress) {
    if !progress.nodes.iter().any(|n| n.waiting_back() || n.recovering()) {
        return;
    }
    let Ok(cache) = acting.cache().await else { return };
    let card = |name: &str| card_now(&cache, name);
    let checks = progress.options.verify.clone();
    let now = jiff::Timestamp::now();
    for node in progress.nodes.iter_mut().filter(|n| n.waiting_back() || n.recovering()) {
        let past = |v: &verify::Verify| node.waiting_since.is_some_and(|since| verify::past_deadline(v, since, now));
        if node.recovering() {
            // Uncordoned already: what its drain touched must recover before the plan moves on.
            let failed = match &node.touched {
                Some(touched) => super::plan_checks::failures(acting, &node.name, touched).await,
                None => Vec::new(),
            };
            if failed.is_empty() {
                node.back = Some(Back::Uncordoned);
            } else if checks.as_ref().is_some_and(past) {
                let words = CheckFailure::english_all(&failed);
                tracing::warn!(node = %node.name, failed = %words, "what the node's drain touched did not recover");
                node.back = Some(Back::Unrecovered(failed));
            }
            continue;
        }
        let Some(Back::Waiting(then)) = &node.back else { continue };
        let Some(card) = card(&node.name) else { continue };
        if !card.unschedulable {
            // A person uncordoned it (the plan's "it is back", once it checked out, or by hand): what its drain
            // touched must still recover before the plan moves on.
            let touched = node.touched.as_ref().is_some_and(|t| !t.workloads.is_empty() || !t.budgets.is_empty());
            node.back = Some(if touched { Back::Recovering } else { Back::Uncordoned });
            continue;
        }
        let back = node.back_seen.is_some()
            || rollout::is_back(then.as_deref(), card.boot_id.as_deref(), card.ready == ReadyStatus::Ready);
        if !back {
            if let Some(v) = checks.as_ref().filter(|v| past(v)) {
                node.back = Some(Back::Unverified(vec![CheckFailure::NotBack {
                    node: node.name.clone(),
                    seconds: v.deadline_seconds,
                }]));
            }
            continue;
        }
        let seen = *node.back_seen.get_or_insert(now);
        if let Some(v) = &checks {
            let failed = verify::failures(&card, v, seen);
            if !failed.is_empty() {
                if past(v) {
                    let words = CheckFailure::english_all(&failed);
                    tracing::warn!(node = %node.name, failed = %words, "node did not check out; it stays cordoned");
                    node.back = Some(Back::Unverified(failed));
                }
                continue;
            }
        }
        tracing::info!(node = %node.name, "node is back and checks out; uncordoning it");
        let touched = node.touched.as_ref().is_some_and(|t| !t.workloads.is_empty() || !t.budgets.is_empty());
        node.back = Some(match acting.set_unschedulable(&node.name, false, None).await {
            Ok(_) if touched => Back::Recovering,
            Ok(_) => Back::Uncordoned,
            Err(err) => Back::Failed(err.failure()),
        });
    }
}

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
