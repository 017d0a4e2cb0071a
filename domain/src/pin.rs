//! What a maintenance plan may act on: the spec as a person with the rights pinned it, never what anyone else wrote
//! since. A plan's spec can be edited by whoever may patch plans, its status by whoever may patch their status,
//! and a node's drain record by whoever may patch nodes; none of those may choose what the plan's person (or the
//! unattended identity) destroys. So the runner acts only on:
//! - the spec fields that decide what is drained and how ([`Pinned`]), as they were when the plan was started, or
//!   last continued by a person who saw them (a change of any of them blocks the plan: [`judge`]);
//! - a drain record whose id is the one the plan's own runner wrote, with the pinned options ([`judge_record`]).
//!
//! Pausing, cancelling and the reason are not pinned: they take nothing more than the person asked.
//!
//! Pure: the engine reads the facts (the pin from the status, checked against the server's seal; the record from
//! the node) and acts on the verdicts.

use serde::{Deserialize, Serialize};

pub use crate::plan_block::{RecordMismatch, TooMany, Unpinned, over_cap};
pub use crate::spec_change::{DrainField, Field, SpecChange, SpecChanged};
use crate::{
    drain::DrainOptions,
    progress::{DrainRecord, DrainState},
    rollout::RolloutOptions,
};

/// The fields of a plan that decide what it drains and how: the ones a person confirms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pinned {
    pub nodes: Vec<String>,
    #[serde(default)]
    pub node_selector: Option<String>,
    pub options: RolloutOptions,
    /// Start nodes past their maintenance windows, for this reason (honoured only with the right to override).
    #[serde(default)]
    pub window_override: Option<String>,
}

fn shown<T: std::fmt::Display>(value: &Option<T>) -> String {
    value.as_ref().map_or_else(|| "none".to_owned(), ToString::to_string)
}

fn verify_shown(verify: &Option<crate::verify::Verify>) -> String {
    let Some(v) = verify else { return "none".into() };
    let mut parts = vec![format!("deadline {} s", v.deadline_seconds)];
    for (name, value) in [
        ("kubelet", &v.kubelet_version),
        ("kernel", &v.kernel_version),
        ("os", &v.os_image),
        ("runtime", &v.container_runtime),
    ] {
        if let Some(value) = value {
            parts.push(format!("{name} {value}"));
        }
    }
    if v.continue_on_failure {
        parts.push("continue on failure".into());
    }
    parts.join(", ")
}

fn drain_changes(pinned: &DrainOptions, now: &DrainOptions, out: &mut Vec<SpecChange>) {
    let mut differ = |field: DrainField, a: String, b: String| {
        if a != b {
            out.push(SpecChange { field: Field::Drain(field), pinned: a, now: b });
        }
    };
    differ(DrainField::Force, pinned.force.to_string(), now.force.to_string());
    differ(DrainField::IgnoreDaemonsets, pinned.ignore_daemonsets.to_string(), now.ignore_daemonsets.to_string());
    differ(
        DrainField::DeleteEmptydirData,
        pinned.delete_emptydir_data.to_string(),
        now.delete_emptydir_data.to_string(),
    );
    differ(DrainField::GracePeriodSeconds, shown(&pinned.grace_period_seconds), shown(&now.grace_period_seconds));
    differ(DrainField::TimeoutSeconds, shown(&pinned.timeout_seconds), shown(&now.timeout_seconds));
    differ(DrainField::PodSelector, shown(&pinned.pod_selector), shown(&now.pod_selector));
    differ(DrainField::DisableEviction, pinned.disable_eviction.to_string(), now.disable_eviction.to_string());
    differ(
        DrainField::SkipWaitForDeleteTimeoutSeconds,
        shown(&pinned.skip_wait_for_delete_timeout_seconds),
        shown(&now.skip_wait_for_delete_timeout_seconds),
    );
    differ(
        DrainField::RespectDoNotDisrupt,
        pinned.respect_do_not_disrupt.to_string(),
        now.respect_do_not_disrupt.to_string(),
    );
}

/// Every pinned field that differs between `pinned` and `now`, in the spec's order.
pub fn changes(pinned: &Pinned, now: &Pinned) -> Vec<SpecChange> {
    let mut out = Vec::new();
    let mut differ = |field: Field, a: String, b: String| {
        if a != b {
            out.push(SpecChange { field, pinned: a, now: b });
        }
    };
    differ(Field::Nodes, pinned.nodes.join(", "), now.nodes.join(", "));
    differ(Field::NodeSelector, shown(&pinned.node_selector), shown(&now.node_selector));
    let (a, b) = (&pinned.options, &now.options);
    differ(Field::MaxParallel, a.max_parallel.to_string(), b.max_parallel.to_string());
    differ(Field::OnePerZone, a.one_per_zone.to_string(), b.one_per_zone.to_string());
    differ(Field::StopOnFailure, a.stop_on_failure.to_string(), b.stop_on_failure.to_string());
    differ(Field::UncordonWhenBack, a.uncordon_when_back.to_string(), b.uncordon_when_back.to_string());
    drain_changes(&a.drain, &b.drain, &mut out);
    let mut differ = |field: Field, a: String, b: String| {
        if a != b {
            out.push(SpecChange { field, pinned: a, now: b });
        }
    };
    differ(Field::Verify, verify_shown(&a.verify), verify_shown(&b.verify));
    differ(Field::SettleSeconds, a.settle_seconds.to_string(), b.settle_seconds.to_string());
    differ(Field::OthersAtWork, format!("{:?}", a.others_at_work), format!("{:?}", b.others_at_work));
    differ(Field::WindowOverride, shown(&pinned.window_override), shown(&now.window_override));
    differ(Field::Unattended, a.unattended.to_string(), b.unattended.to_string());
    // Two specs that differ only where no field above looks (a dry run's mode, say) still differ.
    if out.is_empty() && pinned != now {
        out.push(SpecChange {
            field: Field::Drain(DrainField::Force),
            pinned: "(other)".into(),
            now: "(other)".into(),
        });
    }
    out
}

/// A plan's pin as the runner reads it from the status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PinRead {
    /// No pin: a plan made with `kubectl` (or by an older server) that no person has continued.
    None,
    /// A pin whose seal does not check out: written by someone other than a Drainboard server.
    Forged,
    /// A pin the server's seal vouches for: this spec, at this generation, by this person.
    Sealed { generation: i64, pinned: Box<Pinned>, by: String },
}

/// What the runner may do with a plan now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Act on the pinned spec. `repin`: only what is not pinned changed (pause, cancel, the reason), so the pin
    /// moves to this generation, by the same person, with no one asked.
    Act { repin: bool },
    /// Act on nothing new: the reason, for the `Blocked` condition and the page.
    Block(Unpinned),
}

/// Whether a plan whose spec is `now` at `generation` may act on its pin `pin`. A plan marked unattended whose
/// every change was judged at admission (the policy in force) is `admitted`: its spec is pinned as it is, each
/// generation.
pub fn judge(pin: &PinRead, now: &Pinned, generation: i64) -> Verdict {
    match pin {
        PinRead::None => Verdict::Block(Unpinned::NotPinned),
        PinRead::Forged => Verdict::Block(Unpinned::PinForged),
        PinRead::Sealed { generation: pinned_at, pinned, .. } => {
            let changes = changes(pinned, now);
            if !changes.is_empty() {
                Verdict::Block(Unpinned::SpecChanged { pinned: *pinned_at, generation, changes })
            } else {
                Verdict::Act { repin: *pinned_at != generation }
            }
        }
    }
}

/// What a node's drain record, read when the plan's runner does not hold its drain (a takeover), lets the runner do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordVerdict {
    /// Resume it, with the pinned options (never the record's).
    Resume,
    /// It runs on another server: wait.
    Running,
    /// It ended so.
    Ended(DrainState),
    /// The record is not the drain the plan started, or asks for other options: nothing runs, and the page says so.
    Mismatch(RecordMismatch),
}

/// Whether the drain recorded on `node` may be resumed by a plan that started drain `expected` there with
/// `pinned` options. Only the plan's own drain (its id) is resumed, and always with the pinned options. A record
/// with other options than the pin's is a conflict, unless a person `confirmed` the pin just now, having been shown
/// it: the plan's spec changed since that drain started (a confirmed change), and what the record asks for chooses
/// nothing either way.
pub fn judge_record(
    node: &str,
    expected: &str,
    record: &DrainRecord,
    pinned: &DrainOptions,
    confirmed: bool,
) -> RecordVerdict {
    if record.id != expected {
        return RecordVerdict::Mismatch(RecordMismatch::OtherDrain {
            node: node.to_owned(),
            expected: expected.to_owned(),
            found: record.id.clone(),
        });
    }
    let mut asked = record.options.clone();
    asked.dry_run = pinned.dry_run;
    if &asked != pinned && !confirmed {
        return RecordVerdict::Mismatch(RecordMismatch::OtherOptions {
            node: node.to_owned(),
            drain: record.id.clone(),
        });
    }
    match &record.state {
        DrainState::Interrupted => RecordVerdict::Resume,
        state if state.is_running() => RecordVerdict::Running,
        state => RecordVerdict::Ended(state.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Verify;

    fn pinned() -> Pinned {
        Pinned {
            nodes: vec!["n1".into(), "n2".into()],
            node_selector: None,
            options: RolloutOptions {
                max_parallel: 1,
                one_per_zone: false,
                stop_on_failure: false,
                drain: DrainOptions { ignore_daemonsets: true, ..Default::default() },
                uncordon_when_back: false,
                verify: None,
                unattended: false,
                settle_seconds: 0,
                others_at_work: Default::default(),
            },
            window_override: None,
        }
    }

    fn sealed(generation: i64, pinned: Pinned) -> PinRead {
        PinRead::Sealed { generation, pinned: Box::new(pinned), by: "alice".into() }
    }

    #[test]
    fn the_runner_acts_only_on_what_was_pinned() {
        type Edit = fn(&mut Pinned);
        /// What, the pin read, the generation now, the edit since, and the verdict (`Ok(repin)` or the reason).
        type Row = (&'static str, PinRead, i64, Edit, Result<bool, &'static str>);
        let none: Edit = |_| {};
        let rows: Vec<Row> = vec![
            ("the pinned spec, unchanged", sealed(1, pinned()), 1, none, Ok(false)),
            (
                "a pause or a new reason (a new generation, nothing pinned changed)",
                sealed(1, pinned()),
                3,
                none,
                Ok(true),
            ),
            ("no pin (made with kubectl)", PinRead::None, 1, none, Err("NotPinned")),
            ("a forged pin", PinRead::Forged, 1, none, Err("PinForged")),
            (
                "disableEviction set",
                sealed(1, pinned()),
                2,
                |p| p.options.drain.disable_eviction = true,
                Err("SpecChanged"),
            ),
            ("force set", sealed(1, pinned()), 2, |p| p.options.drain.force = true, Err("SpecChanged")),
            (
                "emptyDir data",
                sealed(1, pinned()),
                2,
                |p| p.options.drain.delete_emptydir_data = true,
                Err("SpecChanged"),
            ),
            (
                "a grace period",
                sealed(1, pinned()),
                2,
                |p| p.options.drain.grace_period_seconds = Some(0),
                Err("SpecChanged"),
            ),
            (
                "a pod selector",
                sealed(1, pinned()),
                2,
                |p| p.options.drain.pod_selector = Some("a=b".into()),
                Err("SpecChanged"),
            ),
            ("a node added", sealed(1, pinned()), 2, |p| p.nodes.push("n3".into()), Err("SpecChanged")),
            ("the nodes reordered", sealed(1, pinned()), 2, |p| p.nodes.reverse(), Err("SpecChanged")),
            ("a selector", sealed(1, pinned()), 2, |p| p.node_selector = Some("pool=a".into()), Err("SpecChanged")),
            ("more at once", sealed(1, pinned()), 2, |p| p.options.max_parallel = 50, Err("SpecChanged")),
            (
                "a window override",
                sealed(1, pinned()),
                2,
                |p| p.window_override = Some("mine".into()),
                Err("SpecChanged"),
            ),
            ("unattended", sealed(1, pinned()), 2, |p| p.options.unattended = true, Err("SpecChanged")),
            (
                "verification",
                sealed(1, pinned()),
                2,
                |p| p.options.verify = Some(Verify::default()),
                Err("SpecChanged"),
            ),
            ("a settle time", sealed(1, pinned()), 2, |p| p.options.settle_seconds = 60, Err("SpecChanged")),
            ("uncordon once back", sealed(1, pinned()), 2, |p| p.options.uncordon_when_back = true, Err("SpecChanged")),
            ("stop on failure", sealed(1, pinned()), 2, |p| p.options.stop_on_failure = true, Err("SpecChanged")),
            (
                "others at work",
                sealed(1, pinned()),
                2,
                |p| p.options.others_at_work = crate::rollout::OthersAtWork::Skip,
                Err("SpecChanged"),
            ),
            ("one per zone", sealed(1, pinned()), 2, |p| p.options.one_per_zone = true, Err("SpecChanged")),
        ];
        for (what, pin, generation, edit, expected) in rows {
            let mut now = pinned();
            edit(&mut now);
            let verdict = judge(&pin, &now, generation);
            match (expected, verdict) {
                (Ok(repin), Verdict::Act { repin: got }) => assert_eq!(repin, got, "{what}"),
                (Err(reason), Verdict::Block(why)) => assert_eq!(why.reason(), reason, "{what}"),
                (expected, got) => panic!("{what}: expected {expected:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn a_changed_spec_names_each_field_with_both_values() {
        let mut now = pinned();
        now.options.drain.disable_eviction = true;
        now.window_override = Some("freeze".into());
        let Verdict::Block(why) = judge(&sealed(4, pinned()), &now, 6) else { panic!("acts on a changed spec") };
        let Unpinned::SpecChanged { pinned: at, generation, changes } = &why else { panic!("{why:?}") };
        assert_eq!((*at, *generation), (4, 6));
        let lines: Vec<String> = changes.iter().map(SpecChange::english).collect();
        assert_eq!(lines, ["spec.drain.disableEviction: false → true", "spec.windowOverride: none → freeze"]);
        assert!(why.english().contains("confirming generation 6"), "{}", why.english());
    }

    fn record(id: &str, state: DrainState, options: DrainOptions) -> DrainRecord {
        DrainRecord {
            id: id.into(),
            started_by: "alice".into(),
            started_at: jiff::Timestamp::UNIX_EPOCH,
            reason: None,
            options,
            state,
            pods_left: 1,
            finished_at: None,
        }
    }

    #[test]
    fn only_the_plans_own_record_with_its_options_is_resumed() {
        let options = pinned().options.drain;
        let forged = DrainOptions { disable_eviction: true, force: true, ..options.clone() };
        let rows: Vec<(&str, DrainRecord, RecordVerdict)> = vec![
            ("its own, interrupted", record("d1", DrainState::Interrupted, options.clone()), RecordVerdict::Resume),
            (
                "its own, still running elsewhere",
                record("d1", DrainState::Evicting, options.clone()),
                RecordVerdict::Running,
            ),
            (
                "its own, drained",
                record("d1", DrainState::Drained, options.clone()),
                RecordVerdict::Ended(DrainState::Drained),
            ),
            (
                "its own id, forged options",
                record("d1", DrainState::Interrupted, forged.clone()),
                RecordVerdict::Mismatch(RecordMismatch::OtherOptions { node: "n1".into(), drain: "d1".into() }),
            ),
            (
                "another drain's record",
                record("d9", DrainState::Interrupted, options.clone()),
                RecordVerdict::Mismatch(RecordMismatch::OtherDrain {
                    node: "n1".into(),
                    expected: "d1".into(),
                    found: "d9".into(),
                }),
            ),
            (
                "another drain's record, ended: not taken as this plan's end",
                record("d9", DrainState::Drained, options.clone()),
                RecordVerdict::Mismatch(RecordMismatch::OtherDrain {
                    node: "n1".into(),
                    expected: "d1".into(),
                    found: "d9".into(),
                }),
            ),
        ];
        for (what, record, expected) in rows {
            assert_eq!(judge_record("n1", "d1", &record, &options, false), expected, "{what}");
        }
        // A person who continued the plan just now, shown the conflict: its own drain resumes, with the pin's options.
        let forged_own = record("d1", DrainState::Interrupted, forged.clone());
        assert_eq!(judge_record("n1", "d1", &forged_own, &options, true), RecordVerdict::Resume);
        let running_own = record("d1", DrainState::Evicting, forged);
        assert_eq!(judge_record("n1", "d1", &running_own, &options, true), RecordVerdict::Running);
        // Never another drain's.
        let other = record("d9", DrainState::Interrupted, options.clone());
        assert!(matches!(judge_record("n1", "d1", &other, &options, true), RecordVerdict::Mismatch(_)));
    }
}
