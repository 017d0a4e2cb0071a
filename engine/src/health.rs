//! Records each node's failures and recoveries in its durable history, so that the maintenance timeline shows
//! when a node stopped being Ready and for how long, after Events have expired and after restarts.
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
}

/// The entry a node's health calls for, given the history's last health entry; `None` when the history already
/// says it.
fn entry_for(node: &str, health: &Health, last: Option<(AuditAction, Timestamp)>) -> Option<AuditEntry> {
    let since = health.since?;
    let action = match health.ready {
        ReadyStatus::Ready => match last {
            // Back after a failure the history holds, and not before it.
            Some((AuditAction::NodeNotReady, down)) if down <= since => AuditAction::NodeReady,
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
    Health { ready: card.ready, since: card.ready_since, reason: ready_reason(card).map(str::to_owned) }
}

/// The reason of a card's Ready condition.
fn ready_reason(card: &NodeCard) -> Option<&str> {
    card.conditions.iter().find(|c| c.type_ == "Ready").and_then(|c| c.reason.as_deref())
}

impl Health {
    /// Whether `card` still says this, compared in place: every round walks every card, and almost none changed.
    fn is(&self, card: &NodeCard) -> bool {
        self.ready == card.ready && self.since == card.ready_since && self.reason.as_deref() == ready_reason(card)
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
        let mut backoff = Backoff::default();
        loop {
            let now = cards.borrow_and_update().clone();
            for card in now.iter() {
                if seen.get(&card.name).is_some_and(|h| h.is(card)) {
                    continue;
                }
                let health = health_of(card);
                let last = newest(recent.last_health(&card.name), mine.get(&card.name).copied());
                if let Some(entry) = entry_for(&card.name, &health, last) {
                    // Not remembered as seen while held back or after a failure: a later round tries again.
                    if backoff.holds(std::time::Instant::now()) {
                        continue;
                    }
                    if let Err(err) = history.append(&entry).await {
                        let pause = backoff.failed(std::time::Instant::now());
                        tracing::warn!(node = %card.name, error = %crate::kube_error::api_message(&err), pause_seconds = pause.as_secs(), "could not record the node's health in its history; trying again after a pause");
                        continue;
                    }
                    backoff = Backoff::default();
                    mine.insert(card.name.clone(), (entry.action, entry.at));
                }
                seen.insert(card.name.clone(), health);
            }
            tokio::select! {
                () = shutdown.cancelled() => return,
                changed = cards.changed() => if changed.is_err() { return },
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Timestamp {
        Timestamp::from_second(s).unwrap()
    }

    fn health(ready: ReadyStatus, since: i64) -> Health {
        Health { ready, since: Some(t(since)), reason: Some("KubeletNotReady".into()) }
    }

    #[test]
    fn a_failure_is_recorded_once_and_a_recovery_only_after_one() {
        let down = health(ReadyStatus::NotReady, 100);
        let entry = entry_for("n1", &down, None).unwrap();
        assert_eq!(
            (entry.action, entry.at, entry.reason.as_deref()),
            (AuditAction::NodeNotReady, t(100), Some("KubeletNotReady"))
        );
        assert!(entry_for("n1", &down, Some((AuditAction::NodeNotReady, t(100)))).is_none());
        // A later failure after a recovery is new.
        assert!(entry_for("n1", &health(ReadyStatus::Unknown, 300), Some((AuditAction::NodeReady, t(200)))).is_some());
        // Going on from NotReady to Unknown is the same failure.
        assert!(
            entry_for("n1", &health(ReadyStatus::Unknown, 90), Some((AuditAction::NodeNotReady, t(100)))).is_none()
        );

        let up = health(ReadyStatus::Ready, 200);
        let back = entry_for("n1", &up, Some((AuditAction::NodeNotReady, t(100)))).unwrap();
        assert_eq!((back.action, back.at, back.reason), (AuditAction::NodeReady, t(200), None));
        assert!(entry_for("n1", &up, None).is_none(), "a node that never failed records nothing");
        assert!(entry_for("n1", &up, Some((AuditAction::NodeReady, t(200)))).is_none());
        let no_time = Health { since: None, ..down };
        assert!(entry_for("n1", &no_time, None).is_none());
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
        assert_eq!(entry_for("n1", &up, newest(Some(old), Some(down))).map(|e| e.action), Some(AuditAction::NodeReady));
        assert!(entry_for("n1", &up, Some(old)).is_none());
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
        let entry = entry_for("n1", &down, None).unwrap();
        assert_eq!(entry.reason.unwrap().chars().count(), MAX_REASON_CHARS);
    }
}
