//! The progress of a drain, as every viewer sees it: one snapshot the server updates and pushes.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{
    budget::PdbStatus,
    drain::{DrainOptions, DrainPlan, DryRun},
    failure::Failure,
};

mod summary;

pub use summary::{DrainSummary, MAX_SUMMARY_BYTES};

/// Where one pod's eviction stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PodState {
    Pending,
    Evicting,
    /// The API refused for now (429): a PDB allows no disruption, or is still being processed. Retried.
    Blocked {
        pdb: Option<PdbStatus>,
        message: String,
        retry_at: Timestamp,
        /// Why it stays and what would let it go (`domain::blocker`); empty in records of older builds.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        blockers: Vec<crate::blocker::Blocker>,
    },
    /// Eviction accepted; the pod is shutting down until `deletion_deadline` (its deletion timestamp).
    Terminating {
        deletion_deadline: Option<Timestamp>,
        /// What holds it past its grace period (its finalizers); empty while it shuts down, and in records of older
        /// builds.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        blockers: Vec<crate::blocker::Blocker>,
    },
    Gone,
    /// A server dry run: the API server accepted the eviction and changed nothing.
    DryRunAccepted,
    /// Still terminating, but for longer than `skip_wait_for_delete_timeout_seconds`: no longer waited for, as
    /// kubectl does (typically a pod of a node that is down, which nothing will finish deleting).
    NoLongerWaited,
    /// The eviction, or the wait for the pod to go, failed.
    Failed(Failure),
}

impl PodState {
    /// Whether the drain (in `drain`) ended with this pod not evicted: its row must say so, and its timer stop.
    pub fn left_by(&self, drain: &DrainState) -> bool {
        !drain.is_running() && !self.is_final()
    }

    pub fn is_final(&self) -> bool {
        matches!(self, Self::Gone | Self::DryRunAccepted | Self::NoLongerWaited | Self::Failed(_))
    }

    /// Why the drain still waits on this pod, or why its eviction was denied (`domain::blocker`); empty when no
    /// known class applies.
    pub fn blockers(&self) -> Vec<crate::blocker::Blocker> {
        match self {
            Self::Blocked { blockers, .. } | Self::Terminating { blockers, .. } => blockers.clone(),
            Self::Failed(Failure::WebhookDenied { webhook, configuration, message }) => {
                vec![crate::blocker::Blocker::WebhookDenied {
                    webhook: webhook.clone(),
                    configuration: configuration.clone(),
                    message: message.clone(),
                }]
            }
            Self::Failed(Failure::TwoBudgets { budgets, .. }) => {
                vec![crate::blocker::Blocker::TwoBudgets { budgets: budgets.clone() }]
            }
            _ => Vec::new(),
        }
    }

    /// [`Self::blockers`] as they read at `now`: a pod shutting down within its grace period, which the drain
    /// records once with no blocker, shows the time it has left, counting down without a new update.
    pub fn blockers_at(&self, now: Timestamp) -> Vec<crate::blocker::Blocker> {
        match self {
            Self::Terminating { deletion_deadline, blockers } if blockers.is_empty() => {
                crate::blocker::terminating(*deletion_deadline, &[], now)
            }
            _ => self.blockers(),
        }
    }

    /// The pod counts as done: gone, or accepted by a server dry run.
    pub fn is_done(&self) -> bool {
        matches!(self, Self::Gone | Self::DryRunAccepted)
    }

    /// The state's stable name, in kebab case (`dry-run-accepted`): what pages and their tests match a state by.
    pub fn key(&self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Evicting => "evicting",
            Self::Blocked { .. } => "blocked",
            Self::Terminating { .. } => "terminating",
            Self::Gone => "gone",
            Self::DryRunAccepted => "dry-run-accepted",
            Self::NoLongerWaited => "no-longer-waited",
            Self::Failed(_) => "failed",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodProgress {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub state: PodState,
    pub started_at: Option<Timestamp>,
    pub finished_at: Option<Timestamp>,
    /// When its eviction (or deletion) was accepted: its time to stop counts from here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evicted_at: Option<Timestamp>,
}

crate::impl_pod_ref!(PodProgress);

/// Where the drain as a whole stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DrainState {
    Cordoning,
    Planning,
    Evicting,
    /// Every pod to evict is gone, and no volume is attached to the node: it is safe to reboot or return.
    Drained,
    /// Every pod is gone; the drain waits for the node's volumes to detach before it calls the node safe.
    Detaching(crate::volume::Attached),
    /// Every pod is gone, but these volumes were still attached when the wait ended: not safe to reboot yet.
    DrainedVolumesAttached(crate::volume::Attached),
    /// Every pod is gone; whether volumes are still attached is not known (the person may not list
    /// `VolumeAttachment`s, or the API server did not answer): the API's answer says why.
    DrainedVolumesUnknown(crate::failure::ApiAnswer),
    /// Every pod is gone except these many, which were deleting for longer than the skip-wait limit and were no
    /// longer waited for (kubectl reports such a drain as done).
    DrainedExceptTerminating(usize),
    /// Some pods are refused: nothing was evicted. The plan says why and which options would override.
    Refused,
    /// A client dry run: the plan only; nothing changed.
    DryRunPlanned,
    /// A server dry run: the API server accepted every eviction with `dryRun=All`; nothing changed.
    DryRunAccepted,
    /// The timeout passed with pods still on the node.
    TimedOut,
    /// Stopped by a person; the node stays cordoned.
    Cancelled,
    /// The drain could not go on, or some evictions failed.
    Failed(Failure),
    /// The server stopped while this drain ran; it can be resumed.
    Interrupted,
}

impl DrainState {
    /// The state's name alone, without what it carries: a label for metrics, from a fixed set.
    pub fn label(&self) -> &'static str {
        match self {
            Self::Cordoning => "Cordoning",
            Self::Planning => "Planning",
            Self::Evicting => "Evicting",
            Self::Drained => "Drained",
            Self::Detaching(_) => "Detaching",
            Self::DrainedVolumesAttached(_) => "DrainedVolumesAttached",
            Self::DrainedVolumesUnknown(_) => "DrainedVolumesUnknown",
            Self::DrainedExceptTerminating(_) => "DrainedExceptTerminating",
            Self::Refused => "Refused",
            Self::DryRunPlanned => "DryRunPlanned",
            Self::DryRunAccepted => "DryRunAccepted",
            Self::TimedOut => "TimedOut",
            Self::Cancelled => "Cancelled",
            Self::Failed(_) => "Failed",
            Self::Interrupted => "Interrupted",
        }
    }

    /// The state in plain English, for logs and the audit trail (the page words it through the catalogue).
    pub fn outcome_text(&self) -> String {
        match self {
            Self::DrainedExceptTerminating(n) => format!("Drained except {n} pods still terminating"),
            Self::DrainedVolumesAttached(v) => format!("Drained, but {} volumes still attached", v.count),
            Self::DrainedVolumesUnknown(a) => format!("Drained; volumes not checked: {}", a.message),
            Self::Failed(why) => format!("Failed: {}", why.english()),
            other => format!("{other:?}"),
        }
    }

    pub fn is_running(&self) -> bool {
        matches!(self, Self::Cordoning | Self::Planning | Self::Evicting | Self::Detaching(_))
    }
    /// The node counts as drained for what follows (a plan waiting for it to come back, the rollout's count): every
    /// pod gone (kubectl's skip-wait aside), and no volume known to be still attached.
    pub fn is_drained(&self) -> bool {
        matches!(self, Self::Drained | Self::DrainedExceptTerminating(_) | Self::DrainedVolumesUnknown(_))
    }

    /// The drain ended with everything it set out to do done: drained, or every eviction accepted by a server dry
    /// run. A drain that left pods behind, or a client dry run that only planned, did not.
    pub fn is_final_ok(&self) -> bool {
        matches!(self, Self::Drained | Self::DryRunAccepted)
    }
}

/// The whole story of one drain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainProgress {
    pub id: String,
    pub node: String,
    pub started_by: String,
    pub started_at: Timestamp,
    pub reason: Option<String>,
    pub options: DrainOptions,
    pub state: DrainState,
    pub plan: Option<DrainPlan>,
    pub pods: Vec<PodProgress>,
    pub finished_at: Option<Timestamp>,
    /// How long it should take, as estimated before it started ([`crate::estimate`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<crate::estimate::Estimate>,
}

impl DrainProgress {
    /// What its end's history entry says of its time: the estimate, how long it took, and the median time its
    /// pods took to stop once evicted (pods that went before the drain saw them accepted do not count).
    pub fn timing(&self) -> crate::estimate::DrainTiming {
        let stops = self.pods.iter().filter(|p| p.state == PodState::Gone).filter_map(|p| {
            let (from, to) = (p.evicted_at?, p.finished_at?);
            u32::try_from(to.duration_since(from).as_secs()).ok()
        });
        crate::estimate::DrainTiming {
            estimate: self.estimate.clone(),
            took_seconds: self
                .finished_at
                .and_then(|end| u64::try_from(end.duration_since(self.started_at).as_secs()).ok()),
            stop_seconds: crate::estimate::median_of(stops),
        }
    }

    /// The drain as a person who may list pods only in `namespaces` sees it: their pods only, and no plan (its
    /// lists name every namespace's pods).
    pub fn visible_to(mut self, namespaces: &std::collections::BTreeSet<String>) -> Self {
        self.pods.retain(|pod| namespaces.contains(&pod.namespace));
        self.plan = None;
        self
    }

    /// Pods done ([`PodState::is_done`]), of `pods.len()`.
    pub fn done(&self) -> usize {
        self.pods.iter().filter(|p| p.state.is_done()).count()
    }

    /// Pods evicted or being evicted that are not gone yet.
    pub fn pods_left(&self) -> usize {
        self.pods.iter().filter(|p| p.state != PodState::Gone).count()
    }

    /// Whether to offer an uncordon once the drain is over: a real drain that got as far as cordoning and
    /// evicting. A dry run changed nothing, and a refused drain evicted nothing (the node was cordoned on purpose).
    pub fn offers_uncordon(&self) -> bool {
        self.options.dry_run == DryRun::None && !self.state.is_running() && self.state != DrainState::Refused
    }
}

/// The annotation on the Node that records the latest drain, so that other replicas and a restarted server know.
pub const RECORD_ANNOTATION: &str = "drainboard.dev/drain";

/// The annotation that says who cordoned a node, when and why (the latest cordon made through Drainboard).
pub const CORDON_ANNOTATION: &str = "drainboard.dev/cordon";

/// Who cordoned a node, when and why: written with the cordon itself, in the same patch, and removed with the
/// uncordon. Anyone who may patch nodes can write it, so it is read as a claim and bounded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CordonRecord {
    pub by: String,
    pub at: Timestamp,
    pub reason: Option<String>,
}

impl CordonRecord {
    /// The longest annotation read, and the longest name kept: a record is a few hundred bytes.
    #[cfg(feature = "k8s")]
    const MAX_TEXT: usize = 4096;
    #[cfg(feature = "k8s")]
    const MAX_NAME_CHARS: usize = 256;

    /// Reads the annotation; anything too long, malformed or with an over-long field reads as no record.
    #[cfg(feature = "k8s")]
    pub fn parse(text: &str) -> Option<Self> {
        if text.len() > Self::MAX_TEXT {
            return None;
        }
        let record: CordonRecord = serde_json::from_str(text).ok()?;
        let fits = record.by.chars().count() <= Self::MAX_NAME_CHARS
            && record.reason.as_deref().is_none_or(|r| r.chars().count() <= crate::input::MAX_REASON_CHARS);
        fits.then_some(record)
    }

    /// Whether the cordon has stood longer than `limit_seconds` at `now` (a node left cordoned and forgotten).
    pub fn older_than(&self, now: Timestamp, limit_seconds: u64) -> bool {
        let limit = i64::try_from(limit_seconds).unwrap_or(i64::MAX);
        now.duration_since(self.at).as_secs() > limit
    }
}

/// What a drain leaves on its Node (annotation `drainboard.dev/drain`): enough for another replica, or this server
/// after a restart, to show who drained the node, how, and how it ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DrainRecord {
    pub id: String,
    pub started_by: String,
    pub started_at: Timestamp,
    pub reason: Option<String>,
    pub options: DrainOptions,
    pub state: DrainState,
    pub pods_left: usize,
    pub finished_at: Option<Timestamp>,
}

impl From<&DrainProgress> for DrainRecord {
    fn from(p: &DrainProgress) -> Self {
        DrainRecord {
            id: p.id.clone(),
            started_by: p.started_by.clone(),
            started_at: p.started_at,
            reason: p.reason.clone(),
            options: p.options.clone(),
            state: p.state.clone(),
            pods_left: p.pods_left(),
            finished_at: p.finished_at,
        }
    }
}

impl DrainRecord {
    /// A record that says "running" but that no live task owns was left by a server that stopped mid-drain.
    pub fn interrupted(mut self) -> Self {
        if self.state.is_running() {
            self.state = DrainState::Interrupted;
        }
        self
    }
}

/// Whether a cordon or uncordon changed anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CordonOutcome {
    Changed,
    /// The node was already in the wanted state; no call was made.
    AlreadyDone,
}

/// The answer to a request to start a drain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainStarted {
    pub id: String,
    /// A drain of this node was already running: this is its id, and the request's options were not used.
    pub attached: bool,
}

/// A drain recorded on a node, as another replica or a restarted server finds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeDrainRecord {
    pub node: String,
    pub record: DrainRecord,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_shutting_down_counts_its_grace_time_down() {
        use crate::blocker::Blocker;
        let deadline: Timestamp = "2026-01-01T00:02:00Z".parse().unwrap();
        let state = PodState::Terminating { deletion_deadline: Some(deadline), blockers: Vec::new() };
        let at = |t: &str| state.blockers_at(t.parse().unwrap());
        assert_eq!(at("2026-01-01T00:00:00Z"), vec![Blocker::ShuttingDown { left_seconds: 120 }]);
        assert_eq!(at("2026-01-01T00:01:30Z"), vec![Blocker::ShuttingDown { left_seconds: 30 }]);
        assert_eq!(at("2026-01-01T00:03:00Z"), Vec::new(), "past its grace with no finalizer: nothing named");
        let held = PodState::Terminating {
            deletion_deadline: Some(deadline),
            blockers: vec![Blocker::Finalizers { finalizers: vec!["example.com/keep".into()] }],
        };
        assert_eq!(
            held.blockers_at("2026-01-01T00:00:00Z".parse().unwrap()),
            held.blockers(),
            "what the drain saw stands"
        );
    }

    fn pod(name: &str, state: PodState) -> PodProgress {
        PodProgress {
            namespace: "ns".into(),
            name: name.into(),
            uid: name.into(),
            state,
            started_at: None,
            finished_at: None,
            evicted_at: None,
        }
    }

    #[test]
    fn a_drains_timing_is_its_length_and_its_pods_median_time_to_stop() {
        let at = |s: i64| Timestamp::from_second(s).unwrap();
        let gone = |name: &str, evicted: Option<i64>, finished: i64| PodProgress {
            evicted_at: evicted.map(at),
            finished_at: Some(at(finished)),
            ..pod(name, PodState::Gone)
        };
        let mut progress = progress(DrainState::Drained, DryRun::None);
        progress.started_at = at(100);
        progress.finished_at = Some(at(142));
        progress.pods = vec![
            gone("a", Some(110), 120),
            gone("b", Some(110), 140),
            gone("c", Some(111), 123),
            gone("d", None, 101),
            PodProgress {
                evicted_at: Some(at(110)),
                ..pod("e", PodState::Failed(crate::failure::Failure::Internal { detail: "x".into() }))
            },
        ];
        let timing = progress.timing();
        assert_eq!((timing.took_seconds, timing.stop_seconds), (Some(42), Some(12)), "10, 12, 30: the median 12");
        progress.pods.clear();
        assert_eq!(progress.timing().stop_seconds, None, "no pod: nothing learned");
    }

    #[test]
    fn summary_counts_gone_pods_and_names_the_first_blocking_budget() {
        let pdb = PdbStatus {
            name: "web-pdb".into(),
            disruptions_allowed: 0,
            current_healthy: 3,
            desired_healthy: 3,
            expected_pods: 3,
        };
        let progress = DrainProgress {
            id: "d1".into(),
            node: "n1".into(),
            started_by: "alice".into(),
            started_at: Timestamp::UNIX_EPOCH,
            reason: Some("kernel".into()),
            options: DrainOptions::default(),
            state: DrainState::Evicting,
            plan: None,
            pods: vec![
                pod("a", PodState::Gone),
                pod(
                    "b",
                    PodState::Blocked {
                        pdb: Some(pdb.clone()),
                        message: "no".into(),
                        retry_at: Timestamp::UNIX_EPOCH,
                        blockers: Vec::new(),
                    },
                ),
                pod("c", PodState::Terminating { deletion_deadline: None, blockers: Vec::new() }),
            ],
            finished_at: None,
            estimate: None,
        };
        let summary = DrainSummary::from(&progress);
        assert_eq!((summary.total, summary.done), (3, 1));
        assert_eq!(summary.blocked_by, Some(pdb.clone()));
        assert_eq!(summary.blocked_in.as_deref(), Some("ns"));
        assert!(!summary.dry_run);
        let theirs = summary.clone().visible_to(&["ns".to_string()].into());
        assert_eq!((theirs.blocked_by, theirs.total, theirs.done), (Some(pdb), 3, 1), "their namespace's budget");
        let others = summary.visible_to(&["other".to_string()].into());
        assert_eq!((others.blocked_by, others.blocked_in, others.total), (None, None, 3), "another's budget is hidden");
        assert_eq!(progress.pods_left(), 2);
        let record = DrainRecord::from(&progress);
        assert_eq!(
            record.clone().interrupted().state,
            DrainState::Interrupted,
            "a running record reads as interrupted"
        );
        let mut done = record;
        done.state = DrainState::Drained;
        assert_eq!(done.clone().interrupted(), done, "a finished record stays as it is");
    }

    #[test]
    fn summary_names_a_blocker_other_than_a_budget_and_hides_it_from_other_namespaces() {
        let held = crate::blocker::Blocker::Finalizers { finalizers: vec!["example.com/flush".into()] };
        let mut p = progress(DrainState::Evicting, DryRun::None);
        p.pods = vec![
            pod("a", PodState::Evicting),
            pod("b", PodState::Terminating { deletion_deadline: None, blockers: vec![held.clone()] }),
        ];
        let summary = DrainSummary::from(&p);
        assert_eq!((summary.blocker.as_ref(), summary.blocked_by.as_ref()), (Some(&held), None));
        assert_eq!(summary.blocked_in.as_deref(), Some("ns"));
        assert_eq!(summary.clone().visible_to(&["other".to_string()].into()).blocker, None);
        // A webhook's denial is named from the pod's failure.
        let denied = Failure::WebhookDenied { webhook: "w".into(), configuration: None, message: "no".into() };
        p.pods = vec![pod("a", PodState::Failed(denied))];
        assert!(matches!(DrainSummary::from(&p).blocker, Some(crate::blocker::Blocker::WebhookDenied { .. })));
    }

    #[test]
    fn the_card_counts_down_the_last_grace_period_when_nothing_else_holds_the_drain() {
        use crate::blocker::Blocker;
        let at = |t: &str| -> Timestamp { t.parse().unwrap() };
        let mut p = progress(DrainState::Evicting, DryRun::None);
        let shutting =
            |deadline: &str| PodState::Terminating { deletion_deadline: Some(at(deadline)), blockers: vec![] };
        p.pods = vec![pod("a", shutting("2026-01-01T00:00:30Z")), pod("b", shutting("2026-01-01T00:01:00Z"))];
        let summary = DrainSummary::from(&p);
        assert_eq!(summary.shutting_down_until, Some(at("2026-01-01T00:01:00Z")), "the last deadline");
        assert_eq!(summary.blocker_at(at("2026-01-01T00:00:00Z")), Some(Blocker::ShuttingDown { left_seconds: 60 }));
        assert_eq!(summary.blocker_at(at("2026-01-01T00:00:45Z")), Some(Blocker::ShuttingDown { left_seconds: 15 }));
        assert_eq!(summary.blocker_at(at("2026-01-01T00:02:00Z")), None, "past its grace: nothing to count down");
        // A pod with a blocker is named instead.
        let held = Blocker::Finalizers { finalizers: vec!["example.com/flush".into()] };
        p.pods.push(pod("c", PodState::Terminating { deletion_deadline: None, blockers: vec![held.clone()] }));
        let summary = DrainSummary::from(&p);
        assert_eq!((summary.shutting_down_until, summary.blocker_at(at("2026-01-01T00:00:00Z"))), (None, Some(held)));
    }

    fn progress(state: DrainState, dry_run: DryRun) -> DrainProgress {
        DrainProgress {
            id: "d1".into(),
            node: "n1".into(),
            started_by: "alice".into(),
            started_at: Timestamp::UNIX_EPOCH,
            reason: None,
            options: DrainOptions { dry_run, ..Default::default() },
            state,
            plan: None,
            pods: Vec::new(),
            finished_at: None,
            estimate: None,
        }
    }

    fn every_drain_state() -> Vec<DrainState> {
        use DrainState::*;
        vec![
            Cordoning,
            Planning,
            Evicting,
            Drained,
            DrainedExceptTerminating(1),
            Refused,
            DryRunPlanned,
            DryRunAccepted,
            TimedOut,
            Cancelled,
            Failed(crate::failure::Failure::WatchEnded),
            Interrupted,
        ]
    }

    #[test]
    fn only_drained_and_an_accepted_dry_run_end_ok() {
        let ok: Vec<_> = every_drain_state().into_iter().filter(DrainState::is_final_ok).collect();
        assert_eq!(ok, [DrainState::Drained, DrainState::DryRunAccepted]);
    }

    #[test]
    fn uncordon_is_offered_after_a_real_drain_that_ran() {
        let offered: Vec<_> =
            every_drain_state().into_iter().filter(|s| progress(s.clone(), DryRun::None).offers_uncordon()).collect();
        use DrainState::*;
        assert_eq!(
            offered,
            [
                Drained,
                DrainedExceptTerminating(1),
                DryRunPlanned,
                DryRunAccepted,
                TimedOut,
                Cancelled,
                Failed(crate::failure::Failure::WatchEnded),
                Interrupted
            ]
        );
        for dry_run in [DryRun::Client, DryRun::Server] {
            for state in every_drain_state() {
                assert!(!progress(state.clone(), dry_run).offers_uncordon(), "{dry_run:?} {state:?}");
            }
        }
    }

    #[test]
    fn pod_states_have_stable_kebab_case_keys() {
        let at = Timestamp::UNIX_EPOCH;
        let keys = [
            PodState::Pending,
            PodState::Evicting,
            PodState::Blocked { pdb: None, message: "no".into(), retry_at: at, blockers: Vec::new() },
            PodState::Terminating { deletion_deadline: Some(at), blockers: Vec::new() },
            PodState::Gone,
            PodState::DryRunAccepted,
            PodState::NoLongerWaited,
            PodState::Failed(crate::failure::Failure::WatchEnded),
        ]
        .map(|s| s.key());
        assert_eq!(
            keys,
            ["pending", "evicting", "blocked", "terminating", "gone", "dry-run-accepted", "no-longer-waited", "failed"]
        );
    }
}

#[cfg(all(test, feature = "k8s"))]
mod cordon_record_tests {
    use super::CordonRecord;

    #[test]
    fn a_cordon_record_is_read_only_when_it_fits() {
        let ok = r#"{"by":"alice","at":"2026-11-30T10:00:00Z","reason":"kernel 6.12"}"#;
        let record = CordonRecord::parse(ok).expect("a record");
        assert_eq!((record.by.as_str(), record.reason.as_deref()), ("alice", Some("kernel 6.12")));
        let long_reason = format!(r#"{{"by":"a","at":"2026-11-30T10:00:00Z","reason":"{}"}}"#, "x".repeat(501));
        assert_eq!(CordonRecord::parse(&long_reason), None, "a reason longer than the input rule allows");
        let long_name = format!(r#"{{"by":"{}","at":"2026-11-30T10:00:00Z","reason":null}}"#, "b".repeat(257));
        assert_eq!(CordonRecord::parse(&long_name), None);
        assert_eq!(CordonRecord::parse(&"x".repeat(5000)), None);
        assert_eq!(CordonRecord::parse("not json"), None);
        assert_eq!(CordonRecord::parse(r#"{"by":"a","at":"not a time"}"#), None);
    }

    #[test]
    fn a_cordon_is_old_only_past_the_limit_and_huge_limits_do_not_overflow() {
        let record = CordonRecord { by: "a".into(), at: "2026-11-29T10:00:00Z".parse().unwrap(), reason: None };
        let now: jiff::Timestamp = "2026-11-30T10:00:01Z".parse().unwrap();
        assert!(record.older_than(now, 24 * 3600));
        assert!(!record.older_than(now, 24 * 3600 + 1));
        assert!(!record.older_than(now, u64::MAX));
    }
}
