//! Records each node's failures and recoveries in its durable history, so that the maintenance timeline shows
//! when a node stopped being Ready and for how long, after Events have expired and after restarts; and an uncordon
//! made outside Drainboard, so that a cordon's span does not last for ever on a node back in service.
//!
//! Every replica sees the nodes and may record the same change: an entry is stamped with the Ready condition's
//! own transition time, so the same change makes the same entry, which the history appends once
//! (`History::append` skips an entry it holds). The recorder starts only after the history's first list, so a
//! recovery while no server ran is still paired with the failure before it.

use std::{collections::HashMap, sync::Arc};

use domain::node::NodeCard;
use domain::{
    ReadyStatus,
    audit::{AuditAction, AuditEntry},
};
use jiff::Timestamp;
use tokio::sync::watch;

use crate::{history::History, recent::Recent, tasks::Tasks};

/// The longest condition reason kept: reasons are short CamelCase words, and a node's status is anyone's input.
const MAX_REASON_CHARS: usize = 128;

/// What the recorder knows of a node's Ready condition.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Health {
    ready: ReadyStatus,
    since: Option<Timestamp>,
    reason: Option<String>,
    unschedulable: bool,
}

/// The entry a node's health calls for, given the history's last health entry, seen at `now`; `None` when the
/// history already says it.
fn entry_for(
    node: &str,
    health: &Health,
    last: Option<(AuditAction, Timestamp)>,
    now: Timestamp,
) -> Option<AuditEntry> {
    let since = health.since?;
    let action = match health.ready {
        ReadyStatus::Ready => match last {
            // Back after a failure the history holds, and not before it.
            Some((AuditAction::NodeNotReady, down)) if down <= since => AuditAction::NodeReady,
            // Ready again, but the condition's transition time did not move past the failure (whatever writes the
            // node's status kept it): the recovery is stamped when it was seen, and says so. Another replica that
            // sees it a moment later writes a second such entry; the timeline reads a repeat as one.
            Some((AuditAction::NodeNotReady, down)) => {
                let mut entry = AuditEntry::new("", AuditAction::NodeReady, node, now.max(down));
                entry.reason = Some(domain::audit::READY_OBSERVED.to_owned());
                return Some(entry);
            }
            _ => return None,
        },
        ReadyStatus::NotReady | ReadyStatus::Unknown => {
            if last == Some((AuditAction::NodeNotReady, since)) {
                return None;
            }
            // NotReady to Unknown is one failure going on, not a new one.
            if let Some((AuditAction::NodeNotReady, down)) = last
                && down >= since
            {
                return None;
            }
            AuditAction::NodeNotReady
        }
    };
    let mut entry = AuditEntry::new("", action, node, since);
    if action == AuditAction::NodeNotReady {
        entry.reason = health.reason.as_ref().map(|r| r.chars().take(MAX_REASON_CHARS).collect());
    }
    Some(entry)
}

/// The entry a node's cordon calls for, given the history's last cordon or uncordon, seen at `now`: an uncordon
/// made outside Drainboard, which wrote no entry, closes the cordon the history holds open. Who made it is not
/// known; the entry says it was seen ([`domain::audit::UNCORDON_OBSERVED`]). Drainboard's own uncordon is stamped
/// before its patch, so when this one races it, it comes second and the timeline reads it as a repeat. A cordon
/// made outside is not recorded: when it began is not known, and a span starting when it was seen would say
/// otherwise.
fn uncordon_for(
    node: &str,
    unschedulable: bool,
    last: Option<(AuditAction, Timestamp)>,
    now: Timestamp,
) -> Option<AuditEntry> {
    match last {
        Some((AuditAction::Cordon, at)) if !unschedulable => {
            let mut entry = AuditEntry::new("", AuditAction::Uncordon, node, now.max(at));
            entry.reason = Some(domain::audit::UNCORDON_OBSERVED.to_owned());
            Some(entry)
        }
        _ => None,
    }
}

/// How long the recorder holds back after a failed write: a server that may not write its history (or an API
/// server that refuses) must not be asked again at every card round, for every node.
#[derive(Debug, Default)]
struct Backoff {
    until: Option<std::time::Instant>,
    pause: std::time::Duration,
}

impl Backoff {
    const FIRST: std::time::Duration = std::time::Duration::from_secs(10);
    const LONGEST: std::time::Duration = std::time::Duration::from_secs(300);

    fn holds(&self, now: std::time::Instant) -> bool {
        self.until.is_some_and(|until| now < until)
    }

    /// A write failed at `now`: the pause doubles, from 10 s to at most 5 minutes.
    fn failed(&mut self, now: std::time::Instant) -> std::time::Duration {
        self.pause = if self.pause.is_zero() { Self::FIRST } else { (self.pause * 2).min(Self::LONGEST) };
        self.until = Some(now + self.pause);
        self.pause
    }
}

/// The later of two health entries (this task's own on a tie: the history's copy of it is the same entry).
fn newest(
    history: Option<(AuditAction, Timestamp)>,
    mine: Option<(AuditAction, Timestamp)>,
) -> Option<(AuditAction, Timestamp)> {
    match (history, mine) {
        (Some(h), Some(m)) if h.1 > m.1 => Some(h),
        (h, None) => h,
        (_, m) => m,
    }
}

/// A card's Ready condition, as the recorder compares it.
fn health_of(card: &NodeCard) -> Health {
    Health {
        ready: card.ready,
        since: card.ready_since,
        reason: ready_reason(card).map(str::to_owned),
        unschedulable: card.unschedulable,
    }
}

/// The reason of a card's Ready condition.
fn ready_reason(card: &NodeCard) -> Option<&str> {
    card.conditions.iter().find(|c| c.type_ == "Ready").and_then(|c| c.reason.as_deref())
}

impl Health {
    /// Whether `card` still says this, compared in place: every round walks every card, and almost none changed.
    fn is(&self, card: &NodeCard) -> bool {
        self.ready == card.ready
            && self.since == card.ready_since
            && self.reason.as_deref() == ready_reason(card)
            && self.unschedulable == card.unschedulable
    }
}

/// Follows `cards` (the server's own view of the nodes) until shutdown, appending each change of a node's health
/// to its history. It adds no watch: the cards come from the cache the server keeps anyway.
pub fn record(tasks: &Tasks, mut cards: watch::Receiver<Arc<Vec<Arc<NodeCard>>>>, history: History, recent: Recent) {
    let shutdown = tasks.shutdown_signal().clone();
    tasks.spawn(async move {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = recent.synced() => {}
        }
        let mut seen: HashMap<String, Health> = HashMap::new();
        // What this task appended: the history's watch brings it back a moment later, and a node that recovers
        // within that moment must still be paired with the failure just recorded.
        let mut mine: HashMap<String, (AuditAction, Timestamp)> = HashMap::new();
        let mut mine_cordon: HashMap<String, (AuditAction, Timestamp)> = HashMap::new();
        // When each node was first seen schedulable while its history still holds a cordon open.
        let mut uncordoned_since: HashMap<String, Timestamp> = HashMap::new();
        let mut backoff = Backoff::default();
        loop {
            let now = cards.borrow_and_update().clone();
            for card in now.iter() {
                if seen.get(&card.name).is_some_and(|h| h.is(card)) {
                    continue;
                }
                let health = health_of(card);
                let last = newest(recent.last_health(&card.name), mine.get(&card.name).copied());
                let last_cordon = newest(recent.last_cordon(&card.name), mine_cordon.get(&card.name).copied());
                // An uncordon is recorded only once it has stood UNCORDON_HOLD with no entry: Drainboard's own
                // uncordon writes its entry just after its patch, which this task may see first.
                let at = Timestamp::now();
                let uncordon = uncordon_for(&card.name, health.unschedulable, last_cordon, at);
                let first_seen = match &uncordon {
                    Some(_) => *uncordoned_since.entry(card.name.clone()).or_insert(at),
                    None => {
                        uncordoned_since.remove(&card.name);
                        at
                    }
                };
                let held = uncordon.is_some() && at.duration_since(first_seen) < UNCORDON_HOLD;
                // Stamped when it was first seen, not when the hold ended.
                let uncordon = uncordon
                    .filter(|_| !held)
                    .and_then(|_| uncordon_for(&card.name, health.unschedulable, last_cordon, first_seen));
                let due = [entry_for(&card.name, &health, last, at), uncordon];
                let mut all_written = !held;
                for entry in due.into_iter().flatten() {
                    // Not remembered as seen while held back or after a failure: a later round tries again.
                    if backoff.holds(std::time::Instant::now()) {
                        all_written = false;
                        continue;
                    }
                    if let Err(err) = history.append(&entry).await {
                        let pause = backoff.failed(std::time::Instant::now());
                        tracing::warn!(node = %card.name, error = %crate::kube_error::api_message(&err), pause_seconds = pause.as_secs(), "could not record the node's health in its history; trying again after a pause");
                        all_written = false;
                        continue;
                    }
                    backoff = Backoff::default();
                    let mine = if entry.action == AuditAction::Uncordon { &mut mine_cordon } else { &mut mine };
                    mine.insert(card.name.clone(), (entry.action, entry.at));
                }
                if all_written {
                    seen.insert(card.name.clone(), health);
                }
            }
            // An uncordon held back is looked at again after its hold, whether or not a card changes.
            let recheck = !uncordoned_since.is_empty();
            tokio::select! {
                () = shutdown.cancelled() => return,
                changed = cards.changed() => if changed.is_err() { return },
                () = tokio::time::sleep(UNCORDON_RECHECK), if recheck => {}
            }
        }
    });
}

/// How long a node must stand schedulable, with no uncordon in its history, before the uncordon is recorded as seen.
const UNCORDON_HOLD: jiff::SignedDuration = jiff::SignedDuration::from_secs(10);
/// How often an uncordon held back is looked at again.
const UNCORDON_RECHECK: std::time::Duration = std::time::Duration::from_secs(5);

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Timestamp {
        Timestamp::from_second(s).unwrap()
    }

    fn health(ready: ReadyStatus, since: i64) -> Health {
        Health { ready, since: Some(t(since)), reason: Some("KubeletNotReady".into()), unschedulable: false }
    }

    #[test]
    fn a_failure_is_recorded_once_and_a_recovery_only_after_one() {
        let down = health(ReadyStatus::NotReady, 100);
        let entry = entry_for("n1", &down, None, t(1000)).unwrap();
        assert_eq!(
            (entry.action, entry.at, entry.reason.as_deref()),
            (AuditAction::NodeNotReady, t(100), Some("KubeletNotReady"))
        );
        assert!(entry_for("n1", &down, Some((AuditAction::NodeNotReady, t(100))), t(1000)).is_none());
        // A later failure after a recovery is new.
        assert!(
            entry_for("n1", &health(ReadyStatus::Unknown, 300), Some((AuditAction::NodeReady, t(200))), t(1000))
                .is_some()
        );
        // Going on from NotReady to Unknown is the same failure.
        assert!(
            entry_for("n1", &health(ReadyStatus::Unknown, 90), Some((AuditAction::NodeNotReady, t(100))), t(1000))
                .is_none()
        );

        let up = health(ReadyStatus::Ready, 200);
        let back = entry_for("n1", &up, Some((AuditAction::NodeNotReady, t(100))), t(1000)).unwrap();
        assert_eq!((back.action, back.at, back.reason), (AuditAction::NodeReady, t(200), None));
        assert!(entry_for("n1", &up, None, t(1000)).is_none(), "a node that never failed records nothing");
        assert!(entry_for("n1", &up, Some((AuditAction::NodeReady, t(200))), t(1000)).is_none());
        let no_time = Health { since: None, ..down };
        assert!(entry_for("n1", &no_time, None, t(1000)).is_none());
    }

    #[test]
    fn what_was_just_appended_counts_before_the_watch_brings_it_back() {
        let down = (AuditAction::NodeNotReady, t(100));
        let old = (AuditAction::NodeReady, t(50));
        assert_eq!(newest(Some(old), Some(down)), Some(down));
        assert_eq!(newest(Some(down), None), Some(down));
        assert_eq!(newest(None, Some(down)), Some(down));
        assert_eq!(newest(Some((AuditAction::NodeReady, t(200))), Some(down)), Some((AuditAction::NodeReady, t(200))));
        // So a recovery right after a failure is recorded, although the history still shows the older entry.
        let up = health(ReadyStatus::Ready, 120);
        assert_eq!(
            entry_for("n1", &up, newest(Some(old), Some(down)), t(1000)).map(|e| e.action),
            Some(AuditAction::NodeReady)
        );
        assert!(entry_for("n1", &up, Some(old), t(1000)).is_none());
    }

    /// An uncordon made outside Drainboard closes the cordon the history holds open, stamped when seen; nothing
    /// else calls for an entry.
    #[test]
    fn an_uncordon_made_outside_is_recorded_when_seen_and_only_then() {
        let cordoned = Some((AuditAction::Cordon, t(100)));
        let seen = uncordon_for("n1", false, cordoned, t(400)).unwrap();
        assert_eq!((seen.action, seen.at, seen.user.as_str()), (AuditAction::Uncordon, t(400), ""));
        assert_eq!(seen.reason.as_deref(), Some(domain::audit::UNCORDON_OBSERVED));
        assert!(uncordon_for("n1", true, cordoned, t(400)).is_none(), "still cordoned");
        assert!(uncordon_for("n1", false, Some((AuditAction::Uncordon, t(200))), t(400)).is_none(), "already said");
        assert!(uncordon_for("n1", false, None, t(400)).is_none(), "no cordon in the history");
        assert!(uncordon_for("n1", true, None, t(400)).is_none(), "a cordon made outside is not invented a start");
        assert_eq!(uncordon_for("n1", false, cordoned, t(50)).unwrap().at, t(100), "never before the cordon");
    }

    /// A node Ready again whose condition still carries a transition time from before its failure: the recovery
    /// is recorded when it was seen, marked as such, not left open for ever.
    #[test]
    fn a_recovery_whose_transition_time_did_not_move_is_stamped_when_seen() {
        let up_since_before = health(ReadyStatus::Ready, 50);
        let back = entry_for("n1", &up_since_before, Some((AuditAction::NodeNotReady, t(100))), t(400)).unwrap();
        assert_eq!((back.action, back.at), (AuditAction::NodeReady, t(400)));
        assert_eq!(back.reason.as_deref(), Some(domain::audit::READY_OBSERVED));
        // Seen at a time before the failure (a clock behind): never stamped before the failure it ends.
        let early = entry_for("n1", &up_since_before, Some((AuditAction::NodeNotReady, t(100))), t(90)).unwrap();
        assert_eq!(early.at, t(100));
        // Once recorded, nothing more.
        assert!(entry_for("n1", &up_since_before, Some((AuditAction::NodeReady, t(400))), t(500)).is_none());
    }

    #[test]
    fn failed_writes_hold_the_recorder_back_longer_each_time() {
        let t0 = std::time::Instant::now();
        let mut backoff = Backoff::default();
        assert!(!backoff.holds(t0));
        assert_eq!(backoff.failed(t0), std::time::Duration::from_secs(10));
        assert!(backoff.holds(t0 + std::time::Duration::from_secs(9)));
        assert!(!backoff.holds(t0 + std::time::Duration::from_secs(10)));
        let pauses: Vec<u64> = (0..7).map(|_| backoff.failed(t0).as_secs()).collect();
        assert_eq!(pauses, [20, 40, 80, 160, 300, 300, 300]);
    }

    #[test]
    fn a_card_is_compared_with_what_was_seen_in_place() {
        let mut card = NodeCard {
            name: "n1".into(),
            ready: ReadyStatus::NotReady,
            ready_since: Some(t(100)),
            ..Default::default()
        };
        card.conditions.push(domain::node::Condition {
            type_: "Ready".into(),
            status: "False".into(),
            reason: Some("KubeletNotReady".into()),
            message: None,
            last_heartbeat: None,
            last_transition: Some(t(100)),
        });
        let seen = health_of(&card);
        assert_eq!(seen, health(ReadyStatus::NotReady, 100));
        assert!(seen.is(&card));
        card.conditions[0].reason = Some("NodeStatusUnknown".into());
        assert!(!seen.is(&card), "a new reason");
        card.conditions[0].reason = Some("KubeletNotReady".into());
        card.ready_since = Some(t(101));
        assert!(!seen.is(&card), "a new transition");
    }

    #[test]
    fn a_long_reason_is_cut() {
        let mut down = health(ReadyStatus::NotReady, 100);
        down.reason = Some("x".repeat(10_000));
        let entry = entry_for("n1", &down, None, t(1000)).unwrap();
        assert_eq!(entry.reason.unwrap().chars().count(), MAX_REASON_CHARS);
    }
}
