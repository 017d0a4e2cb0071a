//! Whether a drain's record on a node still describes the node, or only its past.
//!
//! A drain's record (annotation `drainboard.dev/drain`) outlives the drain: it stays on the node after the node is
//! uncordoned and back in service. Read as current, it says things that are no longer true ("the node stays
//! cordoned" on a schedulable node) and offers things that would do harm (Resume cordons and drains a node someone
//! put back on purpose). The card, the node page and the progress panel all ask this one rule.

use jiff::Timestamp;

use crate::progress::{CordonRecord, DrainRecord, DrainState};

/// How a drain's record reads now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tense {
    /// The node is still cordoned as the drain left it: the record describes the node now.
    Present,
    /// The node was uncordoned after the drain (and perhaps cordoned again by someone since): the record is history.
    Past,
}

impl Tense {
    /// The tense of `record` on a node that is `unschedulable` now, with `cordon` the node's current cordon record.
    ///
    /// A drain cordons its node and writes a cordon record dated at its start; a person's cordon made before the
    /// drain is older still. A cordon record dated after the drain ended is someone else's, made after the node was
    /// uncordoned: the drain's record is then past even though the node is cordoned.
    pub fn of(record: &DrainRecord, unschedulable: bool, cordon: Option<&CordonRecord>) -> Tense {
        Tense::at(ended_at(record), unschedulable, cordon)
    }

    /// The tense of a drain that ended (or, never having recorded an end, started) at `ended`: the same rule for a
    /// live drain's progress, which is not a record.
    pub fn at(ended: Timestamp, unschedulable: bool, cordon: Option<&CordonRecord>) -> Tense {
        if !unschedulable {
            return Tense::Past;
        }
        match cordon {
            Some(cordon) if cordon.at > ended => Tense::Past,
            _ => Tense::Present,
        }
    }

    pub fn is_past(self) -> bool {
        self == Tense::Past
    }
}

/// Whether the page offers to resume the drain recorded on the node: only one the server stopped in, and only while
/// the node is still cordoned as that drain left it. Resuming on a node back in service would cordon and drain it.
pub fn may_resume(record: &DrainRecord, unschedulable: bool, cordon: Option<&CordonRecord>) -> bool {
    let interrupted = matches!(record.state, DrainState::Interrupted) || record.state.is_running();
    interrupted && Tense::of(record, unschedulable, cordon) == Tense::Present
}

/// Whether a finished drain's panel offers Uncordon: while the node is still cordoned as the drain left it.
pub fn offers_uncordon(record: &DrainRecord, unschedulable: bool, cordon: Option<&CordonRecord>) -> bool {
    !record.state.is_running() && Tense::of(record, unschedulable, cordon) == Tense::Present
}

/// When a past record's drain ended, for "ended 8 min ago": its end, or its start when it never recorded one (a
/// server that stopped mid-drain).
pub fn ended_at(record: &DrainRecord) -> Timestamp {
    record.finished_at.unwrap_or(record.started_at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drain::DrainOptions;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn record(state: DrainState, finished: Option<&str>) -> DrainRecord {
        DrainRecord {
            id: "d1".into(),
            started_by: "admin".into(),
            started_at: at("2026-12-03T10:00:00Z"),
            reason: None,
            options: DrainOptions::default(),
            state,
            pods_left: 0,
            finished_at: finished.map(at),
        }
    }

    fn cordon(when: &str) -> CordonRecord {
        CordonRecord { by: "someone".into(), at: at(when), reason: None }
    }

    #[test]
    fn a_record_on_a_schedulable_node_is_past_whatever_it_says() {
        for state in [DrainState::Drained, DrainState::Cancelled, DrainState::Interrupted, DrainState::Evicting] {
            let r = record(state.clone(), Some("2026-12-03T10:05:00Z"));
            assert_eq!(Tense::of(&r, false, None), Tense::Past, "{state:?}");
            assert!(!may_resume(&r, false, None), "no Resume on a node in service: {state:?}");
            assert!(!offers_uncordon(&r, false, None), "nothing to uncordon: {state:?}");
        }
    }

    #[test]
    fn a_node_still_cordoned_by_the_drain_or_before_it_reads_present() {
        let r = record(DrainState::Drained, Some("2026-12-03T10:05:00Z"));
        assert_eq!(Tense::of(&r, true, None), Tense::Present, "cordoned, no record of who");
        let by_the_drain = cordon("2026-12-03T10:00:00Z");
        assert_eq!(Tense::of(&r, true, Some(&by_the_drain)), Tense::Present);
        let before = cordon("2026-12-03T09:00:00Z");
        assert_eq!(Tense::of(&r, true, Some(&before)), Tense::Present);
        assert!(offers_uncordon(&r, true, Some(&by_the_drain)));
    }

    #[test]
    fn a_cordon_made_after_the_drain_ended_makes_the_drain_past() {
        let r = record(DrainState::Cancelled, Some("2026-12-03T10:05:00Z"));
        let later = cordon("2026-12-03T11:00:00Z");
        assert_eq!(Tense::of(&r, true, Some(&later)), Tense::Past);
        assert!(!offers_uncordon(&r, true, Some(&later)), "the cordon is someone else's now");
        // Exactly at the end is the drain's own moment, not a later cordon.
        let same = cordon("2026-12-03T10:05:00Z");
        assert_eq!(Tense::of(&r, true, Some(&same)), Tense::Present);
    }

    #[test]
    fn resume_is_offered_only_for_an_interrupted_drain_on_its_still_cordoned_node() {
        let interrupted = record(DrainState::Interrupted, Some("2026-12-03T10:05:00Z"));
        assert!(may_resume(&interrupted, true, None));
        assert!(may_resume(&interrupted, true, Some(&cordon("2026-12-03T10:00:00Z"))));
        assert!(!may_resume(&interrupted, false, None), "uncordoned on purpose");
        assert!(!may_resume(&interrupted, true, Some(&cordon("2026-12-03T12:00:00Z"))), "re-cordoned by someone");
        // A record left saying "running" by a server that stopped, with no end: judged from its start.
        let left_running = record(DrainState::Evicting, None);
        assert!(may_resume(&left_running, true, Some(&cordon("2026-12-03T10:00:00Z"))));
        assert!(!may_resume(&left_running, true, Some(&cordon("2026-12-03T10:00:01Z"))));
        assert!(!may_resume(&record(DrainState::Drained, Some("2026-12-03T10:05:00Z")), true, None));
        assert!(!may_resume(&record(DrainState::Cancelled, Some("2026-12-03T10:05:00Z")), true, None));
    }

    #[test]
    fn a_past_record_ends_at_its_end_or_else_its_start() {
        assert_eq!(ended_at(&record(DrainState::Drained, Some("2026-12-03T10:05:00Z"))), at("2026-12-03T10:05:00Z"));
        assert_eq!(ended_at(&record(DrainState::Interrupted, None)), at("2026-12-03T10:00:00Z"));
    }
}
