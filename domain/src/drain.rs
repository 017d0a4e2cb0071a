//! Drain planning: which pods a drain evicts, which it leaves, and which stop it, decided the way `kubectl drain`
//! decides, as a pure function of the node's pods, DaemonSet lookups and the options.
//!
//! kubectl runs a chain of filters over each pod, in order: already-deleted, DaemonSet, mirror, local storage,
//! unreplicated. The chain stops at the first filter that keeps the pod, and the last filter that ran decides.
//! The consequences a naive version gets wrong are kept here on purpose: completed pods are evicted (they pass
//! every check); only DaemonSet owners are looked up; mirror pods are skipped silently; any `emptyDir` counts.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::pod::{ControllerRef, PodSummary};

/// How a dry run is done. A client dry run changes nothing at all; a server dry run sends `dryRun=All`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DryRun {
    #[default]
    None,
    Client,
    Server,
}

/// The longest a server dry run waits for its evictions, in seconds.
pub const DRY_RUN_TIMEOUT_SECONDS: u64 = 15;

/// The options of a drain, with kubectl's defaults (`Default`). Fields left out of a request take the default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DrainOptions {
    /// Delete pods with no controller, and DaemonSet pods whose DaemonSet is gone.
    pub force: bool,
    /// Leave DaemonSet pods in place instead of refusing to drain.
    pub ignore_daemonsets: bool,
    /// Evict pods with `emptyDir` volumes; their data is lost.
    pub delete_emptydir_data: bool,
    /// Grace period for each pod; `None` means the pod's own `terminationGracePeriodSeconds`. 0 is sent as 0.
    pub grace_period_seconds: Option<i64>,
    /// Limit for evicting and waiting, per node; `None` waits as long as it takes.
    pub timeout_seconds: Option<u64>,
    /// Only pods matching this label selector are drained.
    pub pod_selector: Option<String>,
    /// DELETE pods instead of evicting them: PodDisruptionBudgets are not consulted.
    pub disable_eviction: bool,
    /// Pods already deleting for longer than this are skipped and not waited for.
    pub skip_wait_for_delete_timeout_seconds: Option<u64>,
    pub dry_run: DryRun,
    /// Refuse to drain while a pod's owner asked that it not be disrupted (`karpenter.sh/do-not-disrupt`,
    /// `cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`), as Karpenter and the cluster autoscaler do.
    /// Off by default, as kubectl ignores them; the preview warns of them either way.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub respect_do_not_disrupt: bool,
}

impl DrainOptions {
    /// What these options change in a drain's time, as its estimate reads them (`crate::estimate::Limits`).
    pub fn limits(&self) -> crate::estimate::Limits {
        let most = crate::estimate::MAX_STOP_SECONDS;
        crate::estimate::Limits {
            grace_seconds: self
                .grace_period_seconds
                .filter(|g| *g >= 0)
                .map(|g| u32::try_from(g).unwrap_or(u32::MAX).min(most)),
            timeout_seconds: self.timeout(),
            skip_wait_seconds: self.skip_wait_for_delete_timeout_seconds.filter(|s| *s > 0),
        }
    }

    /// The options the page's drain dialogs start from, and what the node page's "a drain would" column assumes:
    /// kubectl's defaults, but with DaemonSet pods left in place, since every real node runs some and kubectl's
    /// default refuses every first drain. The API keeps kubectl's defaults.
    pub fn dialog_defaults() -> Self {
        DrainOptions { ignore_daemonsets: true, ..Default::default() }
    }

    /// These options for a run of kind `dry_run`. A server dry run waits at most [`DRY_RUN_TIMEOUT_SECONDS`]: a
    /// budget that allows nothing makes the API answer "not now" for ever, and a dry run reports that and stops.
    pub fn for_dry_run(mut self, dry_run: DryRun) -> Self {
        self.dry_run = dry_run;
        if dry_run == DryRun::Server {
            let timeout = self.timeout().unwrap_or(DRY_RUN_TIMEOUT_SECONDS);
            self.timeout_seconds = Some(timeout.min(DRY_RUN_TIMEOUT_SECONDS));
        }
        self
    }

    /// The drain's time limit, as kubectl reads `--timeout`: 0, like none given, means no limit.
    pub fn timeout(&self) -> Option<u64> {
        self.timeout_seconds.filter(|s| *s > 0)
    }
}

/// An option that overrides a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DrainOption {
    Force,
    IgnoreDaemonsets,
    DeleteEmptydirData,
}

impl DrainOption {
    fn enable(self, options: &mut DrainOptions) {
        match self {
            Self::Force => options.force = true,
            Self::IgnoreDaemonsets => options.ignore_daemonsets = true,
            Self::DeleteEmptydirData => options.delete_emptydir_data = true,
        }
    }
}

/// An option that destroys something that will not come back: data, bare pods, or the protection of budgets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DestructiveOption {
    Force,
    DeleteEmptydirData,
    DisableEviction,
}

impl DestructiveOption {
    /// The option's kubectl flag, without the dashes: `force`, `delete-emptydir-data`, `disable-eviction`.
    pub fn flag(self) -> &'static str {
        match self {
            Self::Force => "force",
            Self::DeleteEmptydirData => "delete-emptydir-data",
            Self::DisableEviction => "disable-eviction",
        }
    }

    /// `options` with this option off.
    pub fn turned_off(self, mut options: DrainOptions) -> DrainOptions {
        match self {
            Self::Force => options.force = false,
            Self::DeleteEmptydirData => options.delete_emptydir_data = false,
            Self::DisableEviction => options.disable_eviction = false,
        }
        options
    }
}

/// The destructive options that `options` turns on. The dialog asks for the node's name to be typed before a drain with any of them.
pub fn destructive_options(options: &DrainOptions) -> Vec<DestructiveOption> {
    [
        (options.force, DestructiveOption::Force),
        (options.delete_emptydir_data, DestructiveOption::DeleteEmptydirData),
        (options.disable_eviction, DestructiveOption::DisableEviction),
    ]
    .into_iter()
    .filter_map(|(on, option)| on.then_some(option))
    .collect()
}

/// What looking up a pod's DaemonSet found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DaemonSetLookup {
    Exists,
    /// The DaemonSet is gone; the message is the API's.
    NotFound(String),
    /// The lookup failed for another reason (forbidden, unreachable); the message is the API's.
    Failed(String),
}

/// Why a pod is left in place without stopping the drain.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SkipReason {
    /// A static pod's mirror: the kubelet owns it, the API can't remove it.
    MirrorPod,
    /// A DaemonSet pod, left in place with `ignore_daemonsets`; the DaemonSet would recreate it anyway.
    DaemonSetIgnored,
    /// Already deleting for longer than `skip_wait_for_delete_timeout_seconds`.
    DeletingTooLong,
}

/// Why a pod stops the drain, unless an option overrides it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Refusal {
    /// Managed by a DaemonSet that exists. Override: `ignore_daemonsets`.
    DaemonSetManaged,
    /// Its DaemonSet is gone. Override: `force`.
    DaemonSetMissing(String),
    /// Its DaemonSet could not be looked up. No option overrides that: fix the access, then retry.
    DaemonSetLookupFailed(String),
    /// Has `emptyDir` data that would be lost. Override: `delete_emptydir_data`.
    LocalStorage,
    /// No controller: once deleted it never comes back. Override: `force`.
    NoController,
    /// Its owner asked that it not be disrupted, and the drain was asked to respect that. No option overrides it:
    /// the person turns `respect_do_not_disrupt` off, or the owner removes the annotation.
    OwnerAsked(crate::pod::DoNotDisrupt),
}

impl Refusal {
    /// The option that would let the drain go ahead for this reason.
    pub fn overridden_by(&self) -> Option<DrainOption> {
        match self {
            Self::DaemonSetManaged => Some(DrainOption::IgnoreDaemonsets),
            Self::DaemonSetMissing(_) | Self::NoController => Some(DrainOption::Force),
            Self::LocalStorage => Some(DrainOption::DeleteEmptydirData),
            Self::DaemonSetLookupFailed(_) | Self::OwnerAsked(_) => None,
        }
    }
}

/// Something an operator should know about a pod that will be evicted.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EvictNote {
    /// Its `emptyDir` data will be lost.
    LocalStorageLost,
    /// It has no controller: it will not come back.
    NoController,
    /// Its DaemonSet is gone; it is deleted for good.
    DaemonSetMissing(String),
    /// Its owner asked that it not be disrupted; kubectl evicts it anyway, and so does this drain.
    OwnerAsked(crate::pod::DoNotDisrupt),
}

/// The decision for one pod.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    Evict {
        notes: Vec<EvictNote>,
    },
    Skip(SkipReason),
    /// Refused: the drain evicts nothing while any pod is refused. `needs` lists every option this pod needs
    /// (a pod can be refused for one reason, then for the next once that is overridden); empty when no option
    /// helps.
    Refuse {
        reason: Refusal,
        needs: Vec<DrainOption>,
    },
}

/// One pod of the plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodPlan {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub controller: Option<ControllerRef>,
    pub decision: Decision,
}

crate::impl_pod_ref!(PodPlan);

/// The plan for one node: a decision for every pod, in the order the pods were listed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainPlan {
    pub pods: Vec<PodPlan>,
}

impl DrainPlan {
    pub fn to_evict(&self) -> impl Iterator<Item = &PodPlan> {
        self.pods.iter().filter(|p| matches!(p.decision, Decision::Evict { .. }))
    }

    pub fn skipped(&self) -> impl Iterator<Item = &PodPlan> {
        self.pods.iter().filter(|p| matches!(p.decision, Decision::Skip(_)))
    }

    pub fn refused(&self) -> impl Iterator<Item = &PodPlan> {
        self.pods.iter().filter(|p| matches!(p.decision, Decision::Refuse { .. }))
    }

    /// A drain with any refused pod evicts nothing.
    pub fn is_blocked(&self) -> bool {
        self.refused().next().is_some()
    }

    /// Every option that some refused pod needs, sorted.
    pub fn options_needed(&self) -> Vec<DrainOption> {
        let mut needed: Vec<_> = self
            .pods
            .iter()
            .filter_map(|p| match &p.decision {
                Decision::Refuse { needs, .. } => Some(needs.iter().copied()),
                _ => None,
            })
            .flatten()
            .collect();
        needed.sort();
        needed.dedup();
        needed
    }
}

/// Plans the drain of one node's pods. `daemonset` is asked only about pods whose controller is a DaemonSet and
/// that have not finished, as kubectl asks; `now` is the server's clock, for `skip_wait_for_delete_timeout_seconds`.
///
/// The pod selector is not applied here: the pods given are the ones the selector already chose.
pub fn plan(
    pods: &[PodSummary],
    mut daemonset: impl FnMut(&PodSummary, &ControllerRef) -> DaemonSetLookup,
    options: &DrainOptions,
    now: Timestamp,
) -> DrainPlan {
    let pods = pods
        .iter()
        .map(|pod| {
            let asked = !deleting_too_long(pod, options, now);
            let lookup = pod.daemonset_owner().filter(|_| asked).map(|c| daemonset(pod, c));
            PodPlan {
                namespace: pod.namespace.clone(),
                name: pod.name.clone(),
                uid: pod.uid.clone(),
                controller: pod.controller.clone(),
                decision: decide_with_needs(pod, lookup.as_ref(), options, now),
            }
        })
        .collect();
    DrainPlan { pods }
}

/// The decision for one pod, with the full list of options a refused pod needs.
fn decide_with_needs(
    pod: &PodSummary,
    lookup: Option<&DaemonSetLookup>,
    options: &DrainOptions,
    now: Timestamp,
) -> Decision {
    let Decision::Refuse { reason, .. } = decide(pod, lookup, options, now) else {
        return decide(pod, lookup, options, now);
    };
    // Turn on each overriding option in turn and see what refuses next, so the preview can say everything a pod
    // needs at once. The chain has three overridable filters, so this ends within three rounds.
    let mut needs = Vec::new();
    let mut trial = options.clone();
    let mut current = reason.clone();
    while let Some(option) = current.overridden_by() {
        if needs.contains(&option) {
            break;
        }
        needs.push(option);
        option.enable(&mut trial);
        match decide(pod, lookup, &trial, now) {
            Decision::Refuse { reason: next, .. } => current = next,
            _ => break,
        }
    }
    if current.overridden_by().is_none() && current != reason {
        // Some later filter refuses for a reason no option overrides: the options alone won't do.
        needs.clear();
    }
    needs.sort();
    Decision::Refuse { reason, needs }
}

/// kubectl's first filter: with `skip_wait_for_delete_timeout_seconds` N > 0, a pod deleting for more than N whole
/// seconds is skipped before any other rule, so nothing else (a DaemonSet lookup included) is asked about it.
pub fn deleting_too_long(pod: &PodSummary, options: &DrainOptions, now: Timestamp) -> bool {
    match (options.skip_wait_for_delete_timeout_seconds, pod.deletion_timestamp) {
        (Some(limit), Some(deleted)) if limit > 0 => {
            i64::try_from(limit).is_ok_and(|limit| now.duration_since(deleted).as_secs() > limit)
        }
        _ => false,
    }
}

/// kubectl's filter chain for one pod.
fn decide(pod: &PodSummary, lookup: Option<&DaemonSetLookup>, options: &DrainOptions, now: Timestamp) -> Decision {
    let mut notes = Vec::new();
    let terminal = pod.phase.is_terminal();

    // 1. Already deleting for longer than the limit: skip.
    if deleting_too_long(pod, options, now) {
        return Decision::Skip(SkipReason::DeletingTooLong);
    }

    // 2. DaemonSet pods (not finished ones: those pass, and are evicted).
    if let Some(lookup) = lookup {
        match lookup {
            DaemonSetLookup::NotFound(message) if options.force => {
                notes.push(EvictNote::DaemonSetMissing(message.clone()));
            }
            DaemonSetLookup::NotFound(message) => {
                return refuse(Refusal::DaemonSetMissing(message.clone()));
            }
            DaemonSetLookup::Failed(message) => {
                return refuse(Refusal::DaemonSetLookupFailed(message.clone()));
            }
            DaemonSetLookup::Exists if !options.ignore_daemonsets => {
                return refuse(Refusal::DaemonSetManaged);
            }
            DaemonSetLookup::Exists => return Decision::Skip(SkipReason::DaemonSetIgnored),
        }
    }

    // 3. Mirror pods: skip.
    if pod.mirror {
        return Decision::Skip(SkipReason::MirrorPod);
    }

    // 4. emptyDir data, of any medium.
    if pod.empty_dir && !terminal {
        if !options.delete_emptydir_data {
            return refuse(Refusal::LocalStorage);
        }
        notes.push(EvictNote::LocalStorageLost);
    }

    // 5. Pods with no controller (of any kind; whether it still exists is never checked).
    if !terminal && pod.controller.is_none() {
        if !options.force {
            return refuse(Refusal::NoController);
        }
        notes.push(EvictNote::NoController);
    }

    // 6. Not kubectl's: the owner's request not to disrupt, refused only when the person asked to respect it.
    if let Some(asked) = pod.do_not_disrupt.filter(|_| !terminal) {
        if options.respect_do_not_disrupt {
            return refuse(Refusal::OwnerAsked(asked));
        }
        notes.push(EvictNote::OwnerAsked(asked));
    }

    Decision::Evict { notes }
}

fn refuse(reason: Refusal) -> Decision {
    Decision::Refuse { reason, needs: Vec::new() }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::pod::PodPhase;

    fn now() -> Timestamp {
        "2026-11-30T12:00:00Z".parse().unwrap()
    }

    fn pod(name: &str) -> PodSummary {
        PodSummary {
            namespace: "ns".into(),
            name: name.into(),
            uid: format!("uid-{name}"),
            node_name: Some("n1".into()),
            phase: PodPhase::Running,
            ready: true,
            controller: Some(owner("ReplicaSet", "apps/v1", "rs")),
            mirror: false,
            empty_dir: false,
            deletion_timestamp: None,
            labels: BTreeMap::new(),
            tolerations: Vec::new(),
            do_not_disrupt: None,
            grace_seconds: None,
            ready_after_seconds: None,
        }
    }

    fn owner(kind: &str, api_version: &str, name: &str) -> ControllerRef {
        ControllerRef { api_version: api_version.into(), kind: kind.into(), name: name.into() }
    }

    fn decide_one(p: PodSummary, lookup: DaemonSetLookup, options: DrainOptions) -> Decision {
        let plan = plan(&[p], |_, _| lookup.clone(), &options, now());
        plan.pods.into_iter().next().unwrap().decision
    }

    fn evict(notes: Vec<EvictNote>) -> Decision {
        Decision::Evict { notes }
    }

    fn refused(reason: Refusal, needs: Vec<DrainOption>) -> Decision {
        Decision::Refuse { reason, needs }
    }

    fn ds_pod() -> PodSummary {
        PodSummary { controller: Some(owner("DaemonSet", "apps/v1", "exporter")), ..pod("ds") }
    }

    fn bare() -> PodSummary {
        PodSummary { controller: None, ..pod("bare") }
    }

    #[test]
    fn the_filter_chain_table() {
        let force = DrainOptions { force: true, ..Default::default() };
        let ignore_ds = DrainOptions { ignore_daemonsets: true, ..Default::default() };
        let emptydir = DrainOptions { delete_emptydir_data: true, ..Default::default() };
        let exists = DaemonSetLookup::Exists;
        let gone = DaemonSetLookup::NotFound("daemonsets.apps \"exporter\" not found".into());
        let gone_note = EvictNote::DaemonSetMissing("daemonsets.apps \"exporter\" not found".into());
        let forbidden = DaemonSetLookup::Failed("forbidden".into());
        let with_empty_dir = PodSummary { empty_dir: true, ..pod("cache") };
        let completed = |p: PodSummary| PodSummary { phase: PodPhase::Succeeded, ..p };
        let cases: Vec<(&str, PodSummary, DaemonSetLookup, DrainOptions, Decision)> = vec![
            ("a managed pod is evicted", pod("web"), exists.clone(), DrainOptions::default(), evict(vec![])),
            (
                "a DaemonSet pod is refused",
                ds_pod(),
                exists.clone(),
                DrainOptions::default(),
                refused(Refusal::DaemonSetManaged, vec![DrainOption::IgnoreDaemonsets]),
            ),
            ("a DaemonSet pod is left with ignore_daemonsets", ds_pod(), exists.clone(), ignore_ds.clone(), {
                Decision::Skip(SkipReason::DaemonSetIgnored)
            }),
            (
                "a DaemonSet pod whose DaemonSet is gone is refused",
                ds_pod(),
                gone.clone(),
                ignore_ds.clone(),
                refused(
                    Refusal::DaemonSetMissing(String::from("daemonsets.apps \"exporter\" not found")),
                    vec![DrainOption::Force],
                ),
            ),
            ("... and deleted with force", ds_pod(), gone.clone(), force.clone(), evict(vec![gone_note])),
            (
                "a failed DaemonSet lookup refuses with no override",
                ds_pod(),
                forbidden.clone(),
                force.clone(),
                refused(Refusal::DaemonSetLookupFailed("forbidden".into()), vec![]),
            ),
            (
                "only apps/v1 DaemonSets count",
                PodSummary { controller: Some(owner("DaemonSet", "extensions/v1beta1", "x")), ..pod("old") },
                forbidden.clone(),
                DrainOptions::default(),
                evict(vec![]),
            ),
            (
                "a completed DaemonSet pod is evicted",
                completed(ds_pod()),
                forbidden.clone(),
                DrainOptions::default(),
                { evict(vec![]) },
            ),
            (
                "a mirror pod is skipped, even with no controller",
                PodSummary { mirror: true, controller: None, ..pod("static") },
                exists.clone(),
                DrainOptions::default(),
                Decision::Skip(SkipReason::MirrorPod),
            ),
            (
                "emptyDir is refused",
                with_empty_dir.clone(),
                exists.clone(),
                DrainOptions::default(),
                refused(Refusal::LocalStorage, vec![DrainOption::DeleteEmptydirData]),
            ),
            ("emptyDir is evicted with the option", with_empty_dir.clone(), exists.clone(), emptydir.clone(), {
                evict(vec![EvictNote::LocalStorageLost])
            }),
            (
                "a completed pod with emptyDir is evicted",
                completed(with_empty_dir.clone()),
                exists.clone(),
                { DrainOptions::default() },
                evict(vec![]),
            ),
            (
                "a bare pod is refused",
                bare(),
                exists.clone(),
                DrainOptions::default(),
                refused(Refusal::NoController, vec![DrainOption::Force]),
            ),
            ("a bare pod is deleted with force", bare(), exists.clone(), force.clone(), {
                evict(vec![EvictNote::NoController])
            }),
            ("a completed bare pod is evicted", completed(bare()), exists.clone(), DrainOptions::default(), {
                evict(vec![])
            }),
            (
                "a bare pod with emptyDir needs both options",
                PodSummary { empty_dir: true, ..bare() },
                exists.clone(),
                DrainOptions::default(),
                refused(Refusal::LocalStorage, vec![DrainOption::Force, DrainOption::DeleteEmptydirData]),
            ),
            (
                "an owner of any other kind counts as a controller, existing or not",
                PodSummary { controller: Some(owner("Job", "batch/v1", "deleted-long-ago")), ..pod("job") },
                forbidden.clone(),
                DrainOptions::default(),
                evict(vec![]),
            ),
        ];
        for (what, p, lookup, options, want) in cases {
            assert_eq!(decide_one(p, lookup, options), want, "{what}");
        }
    }

    #[test]
    fn deleting_pods_are_skipped_only_past_the_limit() {
        let deleting = |secs: i64| PodSummary {
            deletion_timestamp: Some(now() - jiff::SignedDuration::from_secs(secs)),
            ..pod("going")
        };
        let limit = |n| DrainOptions { skip_wait_for_delete_timeout_seconds: Some(n), ..Default::default() };
        assert_eq!(
            decide_one(deleting(11), DaemonSetLookup::Exists, limit(10)),
            Decision::Skip(SkipReason::DeletingTooLong)
        );
        assert_eq!(decide_one(deleting(10), DaemonSetLookup::Exists, limit(10)), evict(vec![]), "strictly greater");
        assert_eq!(decide_one(deleting(3600), DaemonSetLookup::Exists, limit(0)), evict(vec![]), "0 disables");
        assert_eq!(decide_one(deleting(3600), DaemonSetLookup::Exists, DrainOptions::default()), evict(vec![]));
        assert_eq!(decide_one(deleting(3600), DaemonSetLookup::Exists, limit(u64::MAX)), evict(vec![]), "no wrap");
    }

    #[test]
    fn daemonsets_are_looked_up_only_for_unfinished_daemonset_pods() {
        let pods = [pod("web"), bare(), ds_pod(), PodSummary { phase: PodPhase::Failed, ..ds_pod() }];
        let mut asked = Vec::new();
        let plan = plan(
            &pods,
            |p, c| {
                asked.push((p.name.clone(), c.name.clone()));
                DaemonSetLookup::Exists
            },
            &DrainOptions::default(),
            now(),
        );
        assert_eq!(asked, [("ds".to_string(), "exporter".to_string())]);
        assert!(plan.is_blocked());
        assert_eq!(plan.options_needed(), [DrainOption::Force, DrainOption::IgnoreDaemonsets]);
        assert_eq!(plan.to_evict().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["web", "ds"]);
        assert_eq!(plan.refused().count(), 2);
    }

    #[test]
    fn a_daemonset_pod_skipped_for_deleting_too_long_is_not_looked_up() {
        let deleting = PodSummary { deletion_timestamp: Some(now() - jiff::SignedDuration::from_secs(60)), ..ds_pod() };
        let options = DrainOptions { skip_wait_for_delete_timeout_seconds: Some(10), ..Default::default() };
        let mut asked = 0;
        let planned = plan(
            std::slice::from_ref(&deleting),
            |_, _| {
                asked += 1;
                DaemonSetLookup::Exists
            },
            &options,
            now(),
        );
        assert_eq!(asked, 0, "kubectl's first filter decides before the DaemonSet rule asks");
        assert_eq!(planned.pods[0].decision, Decision::Skip(SkipReason::DeletingTooLong));
        // Without the limit the same pod reaches the DaemonSet rule, and is asked about.
        let _ = plan(
            &[deleting],
            |_, _| {
                asked += 1;
                DaemonSetLookup::Exists
            },
            &DrainOptions::default(),
            now(),
        );
        assert_eq!(asked, 1);
    }

    #[test]
    fn a_server_dry_run_waits_at_most_15_seconds() {
        let with = |timeout_seconds| DrainOptions { timeout_seconds, force: true, ..Default::default() };
        let server = |timeout| with(timeout).for_dry_run(DryRun::Server);
        assert_eq!(server(None).timeout_seconds, Some(15), "no limit: a budget that allows nothing never ends");
        assert_eq!(server(Some(600)).timeout_seconds, Some(15));
        assert_eq!(server(Some(5)).timeout_seconds, Some(5), "a shorter limit stays");
        assert_eq!(server(None), DrainOptions { dry_run: DryRun::Server, ..with(Some(15)) }, "nothing else changes");
        assert_eq!(with(None).for_dry_run(DryRun::Client), DrainOptions { dry_run: DryRun::Client, ..with(None) });
        assert_eq!(with(Some(600)).for_dry_run(DryRun::None), with(Some(600)), "a real drain keeps its limit");
    }

    #[test]
    fn destructive_options_are_named_by_their_kubectl_flags() {
        let flags =
            [DestructiveOption::Force, DestructiveOption::DeleteEmptydirData, DestructiveOption::DisableEviction]
                .map(DestructiveOption::flag);
        assert_eq!(flags, ["force", "delete-emptydir-data", "disable-eviction"]);
    }

    #[test]
    fn a_timeout_of_zero_is_no_limit_as_in_kubectl() {
        let with = |t| DrainOptions { timeout_seconds: t, ..Default::default() };
        assert_eq!(with(Some(0)).timeout(), None);
        assert_eq!(with(None).timeout(), None);
        assert_eq!(with(Some(30)).timeout(), Some(30));
        assert_eq!(with(Some(0)).for_dry_run(DryRun::Server).timeout_seconds, Some(DRY_RUN_TIMEOUT_SECONDS));
    }

    #[test]
    fn the_owners_request_is_a_warning_unless_the_drain_respects_it() {
        use crate::pod::DoNotDisrupt;
        let asked = PodSummary { do_not_disrupt: Some(DoNotDisrupt::Karpenter), ..pod("web") };
        let kubectl = DrainOptions::default();
        assert_eq!(
            decide_one(asked.clone(), DaemonSetLookup::Exists, kubectl.clone()),
            evict(vec![EvictNote::OwnerAsked(DoNotDisrupt::Karpenter)]),
            "kubectl evicts it; the preview says the owner asked"
        );
        let respect = DrainOptions { respect_do_not_disrupt: true, ..kubectl };
        assert_eq!(
            decide_one(asked.clone(), DaemonSetLookup::Exists, respect.clone()),
            refused(Refusal::OwnerAsked(DoNotDisrupt::Karpenter), vec![])
        );
        // A bare pod the owner asked about: force alone does not get past the request.
        let bare_asked = PodSummary { controller: None, ..asked.clone() };
        assert_eq!(
            decide_one(bare_asked, DaemonSetLookup::Exists, respect.clone()),
            refused(Refusal::NoController, vec![]),
            "no option set alone lets it go"
        );
        // A finished pod is removed whatever was asked.
        let done = PodSummary { phase: PodPhase::Succeeded, ..asked };
        assert_eq!(decide_one(done, DaemonSetLookup::Exists, respect), evict(vec![]));
        let read = |k: &str, v: &str| DoNotDisrupt::read(&BTreeMap::from([(k.to_string(), v.to_string())]));
        assert_eq!(
            read("cluster-autoscaler.kubernetes.io/safe-to-evict", "false"),
            Some(DoNotDisrupt::ClusterAutoscaler)
        );
        assert_eq!(read("cluster-autoscaler.kubernetes.io/safe-to-evict", "true"), None);
        assert_eq!(read("karpenter.sh/do-not-disrupt", "true"), Some(DoNotDisrupt::Karpenter));
        let json = serde_json::to_string(&DrainOptions::default()).expect("serialises");
        assert!(!json.contains("respect_do_not_disrupt"), "kubectl's options read as before: {json}");
    }
}
