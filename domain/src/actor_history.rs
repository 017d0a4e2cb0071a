//! Other tools' work in a node's durable history: the entries that bring what the history says (each tool's newest
//! sighting or end) to what the node's markers show now, so that the timeline keeps when a tool began and ended its
//! work after the markers are gone. A marker is a claim (anyone who may patch the node can write one): the history
//! records that it was seen, never that the tool truly worked.

use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::actor::{Actor, Doing, Sighting};
use crate::audit::{AuditAction, AuditEntry};

/// What a node's history entry of another tool's work says (`crate::audit::AuditAction::ActorSeen`): the tool and
/// what it did, as a sighting the page words as the card does; `None` for an entry that does not read.
pub fn of_entry(entry: &crate::audit::AuditEntry) -> Option<Sighting> {
    let actor = Actor::from_id(entry.reason.as_deref()?)?;
    let doing = entry.outcome.as_deref().and_then(Doing::from_name).unwrap_or(Doing::Cordoned);
    Some(Sighting { actor, doing, marker: String::new(), at: Some(entry.at), detail: None, stale: false })
}

/// The entries that bring `recorded` (each tool's newest entry in the node's history, by id) to `seen` (the node's
/// sightings now), at `now`: a sighting for each tool at work that the history does not hold at work, stamped with
/// the marker's own time where it gives one (so that every server that sees it writes the same entry), and an end
/// for each tool the history holds at work that no marker shows any longer. A claim left behind on a schedulable
/// node (`stale`) is no work. A bare cordon ([`Actor::Unknown`]) is not recorded: a tool cordons a moment before it
/// marks the node, so every tool's work would begin with one, and when a cordon made outside began is not known
/// (the health recorder leaves it out for the same reason). No entry is stamped before the history's newest for its
/// tool.
pub fn entries(
    node: &str,
    seen: &[Sighting],
    recorded: &BTreeMap<String, (AuditAction, Timestamp)>,
    now: Timestamp,
) -> Vec<AuditEntry> {
    let mut at_work: BTreeMap<Actor, &Sighting> = BTreeMap::new();
    for s in seen.iter().filter(|s| !s.stale && s.actor != Actor::Unknown) {
        at_work.entry(s.actor).or_insert(s);
    }
    let mut out = Vec::new();
    for (actor, s) in &at_work {
        let last = recorded.get(actor.id());
        if matches!(last, Some((AuditAction::ActorSeen, _))) {
            continue;
        }
        let floor = last.map(|(_, at)| *at);
        let at = s.at.filter(|&t| t <= now).unwrap_or(now).max(floor.unwrap_or(Timestamp::MIN));
        let mut entry = AuditEntry::new("", AuditAction::ActorSeen, node, at);
        entry.reason = Some(actor.id().to_owned());
        entry.outcome = Some(s.doing.name().to_owned());
        out.push(entry);
    }
    for (id, (action, at)) in recorded {
        let gone = Actor::from_id(id).is_some_and(|a| !at_work.contains_key(&a));
        if *action == AuditAction::ActorSeen && gone {
            let mut entry = AuditEntry::new("", AuditAction::ActorGone, node, now.max(*at));
            entry.reason = Some(id.clone());
            out.push(entry);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Timestamp {
        Timestamp::from_second(s).unwrap()
    }

    fn sighting(actor: Actor, doing: Doing, at: Option<i64>, stale: bool) -> Sighting {
        Sighting { actor, doing, marker: "taint x".into(), at: at.map(t), detail: None, stale }
    }

    fn said(entries: &[AuditEntry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| {
                let what = e.outcome.as_deref().map(|o| format!(" {o}")).unwrap_or_default();
                format!("{:?} {}{what} @{}", e.action, e.reason.as_deref().unwrap_or(""), e.at.as_second())
            })
            .collect()
    }

    #[test]
    fn each_tool_is_recorded_once_when_seen_and_once_when_gone() {
        let karpenter = sighting(Actor::Karpenter, Doing::Disrupting, None, false);
        let ca = sighting(Actor::ClusterAutoscaler, Doing::Removing, Some(500), false);
        let seen_at = |id: &str, at: i64| (id.to_owned(), (AuditAction::ActorSeen, t(at)));
        let gone_at = |id: &str, at: i64| (id.to_owned(), (AuditAction::ActorGone, t(at)));
        type Recorded = BTreeMap<String, (AuditAction, Timestamp)>;
        let rows: Vec<(Vec<Sighting>, Recorded, Vec<&str>)> = vec![
            // First seen: stamped now, or with the marker's own time (the autoscaler's taint value).
            (
                vec![karpenter.clone(), ca.clone()],
                BTreeMap::new(),
                vec!["ActorSeen cluster-autoscaler Removing @500", "ActorSeen karpenter Disrupting @1000"],
            ),
            // Already recorded at work: nothing.
            (vec![karpenter.clone()], [seen_at("karpenter", 900)].into(), vec![]),
            // No marker any more: its end, now.
            (vec![], [seen_at("karpenter", 900)].into(), vec!["ActorGone karpenter @1000"]),
            // Ended before and back again: a new sighting, never before the end.
            (
                vec![sighting(Actor::ClusterAutoscaler, Doing::Removing, Some(100), false)],
                [gone_at("cluster-autoscaler", 800)].into(),
                vec!["ActorSeen cluster-autoscaler Removing @800"],
            ),
            // A bare cordon is not a tool's work to record.
            (vec![sighting(Actor::Unknown, Doing::Cordoned, None, false)], BTreeMap::new(), vec![]),
            // A claim left behind is no work; one already ended stays ended.
            (vec![sighting(Actor::Lifecycle, Doing::Draining, None, true)], [gone_at("karpenter", 900)].into(), vec![]),
            // A marker's time in the future is not believed.
            (
                vec![sighting(Actor::Kured, Doing::Rebooting, Some(5_000), false)],
                BTreeMap::new(),
                vec!["ActorSeen kured Rebooting @1000"],
            ),
        ];
        for (seen, recorded, want) in rows {
            assert_eq!(said(&entries("n1", &seen, &recorded, t(1000))), want, "{seen:?} over {recorded:?}");
        }
    }

    #[test]
    fn an_entry_reads_back_as_the_sighting_the_card_words() {
        let e =
            &entries("n1", &[sighting(Actor::Karpenter, Doing::Disrupting, None, false)], &BTreeMap::new(), t(9))[0];
        let back = of_entry(e).unwrap();
        assert_eq!((back.actor, back.doing, back.at), (Actor::Karpenter, Doing::Disrupting, Some(t(9))));
        let mut forged = e.clone();
        forged.reason = Some("rm -rf".into());
        assert!(of_entry(&forged).is_none());
    }
}
