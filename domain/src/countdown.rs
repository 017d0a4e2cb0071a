//! The one countdown a node that stopped reporting shows: when its pods go, by the rule that decides it now.
//!
//! Two rules say when: the seed guide's node-level pod-eviction timeout (5 minutes from Ready's change), and the
//! cluster's own, NoExecute taints plus each pod's toleration. Shown side by side they said the same thing twice on
//! a modern cluster, or two things that could not both be true. Once the node carries a NoExecute taint and a pod
//! will go, the pods' rule is what the cluster does, so it is the one shown; before that, the guide's.

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::{
    board::{self, BoardSettings},
    eviction::{PodEviction, remaining},
    node::NodeCard,
};

/// Which rule a countdown follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Rule {
    /// The guide's pod-eviction timeout from Ready's change.
    Node,
    /// The NoExecute taint and the pods' tolerations: the first pod's eviction.
    Pods,
}

/// How near the end a countdown is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Urgency {
    /// More than half the wait and more than a minute left.
    Waiting,
    /// Past half the wait, or within a minute.
    Soon,
    /// Due or past: the pods are going now.
    Due,
}

impl Urgency {
    /// The CSS class that colours it.
    pub fn class(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Soon => "soon",
            Self::Due => "due",
        }
    }
}

/// A card's countdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Countdown {
    pub rule: Rule,
    /// Time left; `None` when due.
    pub left: Option<SignedDuration>,
    /// How many pods will go, by the pods' rule (0 by the node's, which does not know).
    pub going: usize,
    /// How much of the wait has passed, in thousandths.
    pub permille: u16,
}

impl Countdown {
    pub fn urgency(&self) -> Urgency {
        match self.left {
            None => Urgency::Due,
            Some(left) if self.permille >= 500 || left <= SignedDuration::from_secs(60) => Urgency::Soon,
            Some(_) => Urgency::Waiting,
        }
    }
}

/// The countdown `card` shows at `now`, if its pods are to go at all.
pub fn countdown(card: &NodeCard, settings: &BoardSettings, now: Timestamp) -> Option<Countdown> {
    if let Some((earliest, going)) = board::earliest_pod_eviction(card) {
        let left = match earliest {
            PodEviction::At(at) => remaining(at, now),
            _ => None,
        };
        let permille = board::pod_countdown_permille(card, now).unwrap_or(1000);
        return Some(Countdown { rule: Rule::Pods, left, going, permille });
    }
    let deadline = board::node_deadline(card, settings)?;
    let permille = board::node_countdown_permille(card, settings, now).unwrap_or(1000);
    Some(Countdown { rule: Rule::Node, left: remaining(deadline, now), going: 0, permille })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{eviction::Taint, node::PodEta, ready::ReadyStatus};

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn unknown_since(since: &str) -> NodeCard {
        NodeCard { name: "n1".into(), ready: ReadyStatus::Unknown, ready_since: Some(ts(since)), ..Default::default() }
    }

    fn tainted(mut card: NodeCard, at: &str, pods: &[PodEviction]) -> NodeCard {
        card.taints.push(Taint {
            key: "node.kubernetes.io/unreachable".into(),
            value: None,
            effect: "NoExecute".into(),
            time_added: Some(ts(at)),
        });
        card.pod_evictions = pods
            .iter()
            .enumerate()
            .map(|(i, e)| PodEta { namespace: "ns".into(), name: format!("p{i}"), eviction: *e })
            .collect();
        card
    }

    #[test]
    fn a_ready_node_has_none() {
        let card = NodeCard { ready: ReadyStatus::Ready, ..unknown_since("2026-12-01T10:00:00Z") };
        assert_eq!(countdown(&card, &BoardSettings::default(), ts("2026-12-01T10:01:00Z")), None);
    }

    #[test]
    fn the_guides_rule_until_the_taint_then_the_pods() {
        let settings = BoardSettings::default(); // 300 s
        let card = unknown_since("2026-12-01T10:00:00Z");
        let now = ts("2026-12-01T10:01:00Z");
        let c = countdown(&card, &settings, now).unwrap();
        assert_eq!((c.rule, c.left, c.going, c.permille), (Rule::Node, Some(SignedDuration::from_secs(240)), 0, 200));
        assert_eq!(c.urgency(), Urgency::Waiting);

        let at = PodEviction::At(ts("2026-12-01T10:05:40Z"));
        let never = PodEviction::Never;
        let card = tainted(card, "2026-12-01T10:00:40Z", &[at, never, PodEviction::At(ts("2026-12-01T10:06:00Z"))]);
        let c = countdown(&card, &settings, now).unwrap();
        assert_eq!((c.rule, c.left, c.going), (Rule::Pods, Some(SignedDuration::from_secs(280)), 2), "one countdown");
        assert_eq!(c.permille, 66, "20 s of the 300 s from the taint");
        assert_eq!(c.urgency(), Urgency::Waiting);
    }

    #[test]
    fn urgency_follows_the_time_left() {
        let settings = BoardSettings::default();
        let card = unknown_since("2026-12-01T10:00:00Z");
        let at = |s| countdown(&card, &settings, ts(s)).unwrap().urgency();
        assert_eq!(at("2026-12-01T10:02:00Z"), Urgency::Waiting);
        assert_eq!(at("2026-12-01T10:02:30Z"), Urgency::Soon, "half the wait gone");
        assert_eq!(at("2026-12-01T10:05:00Z"), Urgency::Due);
        let short = BoardSettings { eviction_timeout_seconds: 100, ..settings };
        let c = countdown(&card, &short, ts("2026-12-01T10:00:45Z")).unwrap();
        assert_eq!((c.permille, c.urgency()), (450, Urgency::Soon), "within a minute");
    }

    #[test]
    fn pods_going_now_are_due() {
        let card = tainted(unknown_since("2026-12-01T10:00:00Z"), "2026-12-01T10:00:40Z", &[PodEviction::Immediately]);
        let c = countdown(&card, &BoardSettings::default(), ts("2026-12-01T10:01:00Z")).unwrap();
        assert_eq!((c.rule, c.left, c.going, c.urgency()), (Rule::Pods, None, 1, Urgency::Due));
    }
}
