//! The drain dialog's preview: what a drain of one node would do with the options chosen, before anything happens.
//!
//! The server sends the node's pods, the result of each DaemonSet lookup and the PodDisruptionBudgets of the pods'
//! namespaces ([`PreviewInputs`]), again whenever they change. The browser runs [`preview`] on them at every
//! option change, so the preview follows each toggle with no round trip, and it uses the same planner as the
//! drain itself.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{
    PodRef, PodSummary,
    budget::{PdbInfo, PdbStatus, covering_pdb},
    drain::{
        DaemonSetLookup, Decision, DestructiveOption, DrainOption, DrainOptions, EvictNote, Refusal, SkipReason,
        destructive_options, plan,
    },
    estimate::{
        BudgetForecast, DEFAULT_GRACE_SECONDS, DEFAULT_READY_SECONDS, Estimate, Forecast, Learned, NoEstimate, Pace,
        PodForecast, median_of,
    },
    pod::{ControllerRef, pod_key},
    selector::{LabelSelector, SelectorError},
};

crate::impl_pod_ref!(PreviewPod);

/// What the preview of one node's drain is computed from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewInputs {
    pub node: String,
    /// Every pod on the node, finished or not, as the drain would list them without a pod selector.
    pub pods: Vec<PodSummary>,
    /// The lookup of each DaemonSet that owns an unfinished pod here, by `namespace/name`.
    pub daemonsets: BTreeMap<String, DaemonSetLookup>,
    /// The PodDisruptionBudgets of the namespaces of those pods.
    pub pdbs: Vec<PdbInfo>,
    pub server_time: Timestamp,
    /// What the estimate of the drain's duration reads besides the pods: the server's pace and what past drains
    /// saw ([`crate::estimate`]).
    #[serde(default)]
    pub timing: Timing,
    /// The node stopped reporting (`Ready` `Unknown`): its evicted pods stay Terminating until it is back.
    #[serde(default)]
    pub unreachable: bool,
}

/// The server's side of a drain's estimate.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    pub pace: Pace,
    /// What pods took to stop in recent drains, of this node or others.
    #[serde(default)]
    pub learned: Option<Learned>,
}

impl PreviewInputs {
    /// The inputs as a person who may list pods only in `namespaces` sees them: their pods, and the DaemonSets
    /// and budgets of their namespaces.
    pub fn visible_to(mut self, namespaces: &std::collections::BTreeSet<String>) -> Self {
        self.pods.retain(|pod| namespaces.contains(&pod.namespace));
        self.daemonsets
            .retain(|key, _| key.split_once('/').is_some_and(|(namespace, _)| namespaces.contains(namespace)));
        self.pdbs.retain(|pdb| namespaces.contains(&pdb.namespace));
        self
    }
}

/// One pod of the preview.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewPod {
    pub namespace: String,
    pub name: String,
    /// `Kind/name` of the controller, or `None` for a bare pod.
    pub owner: Option<ControllerRef>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvictedPod {
    pub pod: PreviewPod,
    /// The first PodDisruptionBudget that covers the pod, with its allowance now.
    pub pdb: Option<PdbStatus>,
    pub notes: Vec<EvictNote>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedPod {
    pub pod: PreviewPod,
    pub reason: Refusal,
    /// Every option this pod needs; empty when none helps.
    pub needs: Vec<DrainOption>,
}

/// The group of the preview a pod falls into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PreviewGroup {
    Evict,
    Skip,
    Refuse,
}

/// The preview, grouped as the dialog shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preview {
    pub evict: Vec<EvictedPod>,
    pub skipped: Vec<(PreviewPod, SkipReason)>,
    pub refused: Vec<RefusedPod>,
    /// Pods the pod selector leaves out.
    pub not_selected: usize,
    /// Every option some refused pod needs.
    pub options_needed: Vec<DrainOption>,
    /// The pods to evict as the estimate reads them: a plan's dialog adds up its nodes' forecasts.
    #[serde(default)]
    pub forecast: Forecast,
    /// How long the drain should take ([`crate::estimate::drain`]).
    #[serde(default)]
    pub estimate: Option<Result<Estimate, NoEstimate>>,
}

impl Preview {
    /// A drain evicts nothing while any pod is refused.
    pub fn is_blocked(&self) -> bool {
        !self.refused.is_empty()
    }

    /// Whether some pod's owner asked that it not be disrupted: only then does the dialog offer to respect it.
    pub fn owners_asked(&self) -> bool {
        self.evict.iter().any(|p| p.notes.iter().any(|n| matches!(n, EvictNote::OwnerAsked(_))))
            || self.refused.iter().any(|p| matches!(p.reason, Refusal::OwnerAsked(_)))
    }

    /// PodDisruptionBudgets that allow no disruption now, covering pods to evict: those evictions will wait.
    pub fn blocking_pdbs(&self) -> Vec<&PdbStatus> {
        let mut seen = Vec::<&PdbStatus>::new();
        for pdb in self.evict.iter().filter_map(|p| p.pdb.as_ref()) {
            if pdb.disruptions_allowed <= 0 && !seen.iter().any(|s| s.name == pdb.name) {
                seen.push(pdb);
            }
        }
        seen
    }

    /// The group of the pod whose [`PodRef::key`] is `key`; `None` for a pod the preview does not hold (one the
    /// pod selector leaves out, or one that came after it was planned).
    pub fn group_of(&self, key: &str) -> Option<PreviewGroup> {
        if self.evict.iter().any(|e| e.pod.key() == key) {
            Some(PreviewGroup::Evict)
        } else if self.skipped.iter().any(|(p, _)| p.key() == key) {
            Some(PreviewGroup::Skip)
        } else if self.refused.iter().any(|r| r.pod.key() == key) {
            Some(PreviewGroup::Refuse)
        } else {
            None
        }
    }
}

/// Plans the drain of `inputs.node` with `options`, as the drain task would, and groups the result.
pub fn preview(inputs: &PreviewInputs, options: &DrainOptions) -> Result<Preview, SelectorError> {
    let selector = match options.pod_selector.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(text) => Some(LabelSelector::parse(text)?),
        None => None,
    };
    let (selected, not_selected): (Vec<&PodSummary>, Vec<&PodSummary>) =
        inputs.pods.iter().partition(|p| selector.as_ref().is_none_or(|s| s.matches(&p.labels)));
    let selected: Vec<PodSummary> = selected.into_iter().cloned().collect();
    let lookup = |pod: &PodSummary, _: &ControllerRef| {
        pod.daemonset_key()
            .and_then(|key| inputs.daemonsets.get(&key))
            .cloned()
            .unwrap_or_else(|| DaemonSetLookup::Failed("not looked up yet".into()))
    };
    let plan = plan(&selected, lookup, options, inputs.server_time);
    let by_uid: BTreeMap<&str, &PodSummary> = selected.iter().map(|p| (p.uid.as_str(), p)).collect();
    let mut out =
        Preview { not_selected: not_selected.len(), options_needed: plan.options_needed(), ..Default::default() };
    for p in &plan.pods {
        let pod = PreviewPod { namespace: p.namespace.clone(), name: p.name.clone(), owner: p.controller.clone() };
        match &p.decision {
            Decision::Evict { notes } => {
                let summary = by_uid.get(p.uid.as_str());
                let covering = summary.and_then(|s| covering_pdb(&inputs.pdbs, &s.namespace, &s.labels));
                let pdb = covering.map(|b| b.status.clone());
                // Deleted past their budgets, pods wait for none.
                let budget = covering.filter(|_| !options.disable_eviction);
                if let Some(b) = budget {
                    let ready =
                        selected.iter().filter(|s| covering_pdb(&inputs.pdbs, &s.namespace, &s.labels) == Some(b));
                    out.forecast.budgets.entry(pod_key(&b.namespace, &b.status.name)).or_insert_with(|| {
                        BudgetForecast {
                            allowed: u32::try_from(b.status.disruptions_allowed).unwrap_or(0),
                            ready_seconds: median_of(ready.filter_map(|s| s.ready_after_seconds))
                                .unwrap_or(DEFAULT_READY_SECONDS),
                            never: b.status.never_allows(),
                        }
                    });
                }
                out.forecast.pods.push(PodForecast {
                    budget: budget.map(|b| pod_key(&b.namespace, &b.status.name)),
                    grace_seconds: summary.and_then(|s| s.grace_seconds).unwrap_or(DEFAULT_GRACE_SECONDS),
                });
                out.evict.push(EvictedPod { pod, pdb, notes: notes.clone() });
            }
            Decision::Skip(reason) => out.skipped.push((pod, reason.clone())),
            Decision::Refuse { reason, needs } => {
                out.refused.push(RefusedPod { pod, reason: reason.clone(), needs: needs.clone() })
            }
        }
    }
    out.forecast.unreachable = inputs.unreachable;
    let limits = options.limits();
    out.estimate =
        Some(crate::estimate::drain(&out.forecast, inputs.timing.pace, limits, inputs.timing.learned.as_ref()));
    Ok(out)
}

/// The destructive options of `options` that change something on this node, as `preview` plans it: force for a
/// pod without a controller or whose DaemonSet is gone, delete-emptydir-data for a pod with emptyDir data, and
/// disable-eviction for any pod at all, since each is deleted past its budgets. Only these need the node's name
/// typed.
pub fn destructive_in_effect(preview: &Preview, options: &DrainOptions) -> Vec<DestructiveOption> {
    let noted = |wanted: fn(&EvictNote) -> bool| preview.evict.iter().any(|p| p.notes.iter().any(wanted));
    destructive_options(options)
        .into_iter()
        .filter(|option| match option {
            DestructiveOption::Force => {
                noted(|n| matches!(n, EvictNote::NoController | EvictNote::DaemonSetMissing(_)))
            }
            DestructiveOption::DeleteEmptydirData => noted(|n| matches!(n, EvictNote::LocalStorageLost)),
            DestructiveOption::DisableEviction => !preview.evict.is_empty(),
        })
        .collect()
}

/// `options` as the dialog sends them when no name was typed: the destructive options that change nothing on this
/// node turned off. The server still asks consent for every destructive option it is sent (`input::consent`), and
/// a pod that arrives before the drain starts and would need one is refused rather than destroyed.
pub fn idle_destructive_off(preview: &Preview, options: &DrainOptions) -> DrainOptions {
    let in_effect = destructive_in_effect(preview, options);
    destructive_options(options)
        .into_iter()
        .filter(|option| !in_effect.contains(option))
        .fold(options.clone(), |o, option| option.turned_off(o))
}

/// Whether the drain may be confirmed: nothing refused, the selector readable, and the node's name typed exactly
/// when a destructive option changes something on this node.
pub fn can_confirm(preview: &Result<Preview, SelectorError>, options: &DrainOptions, node: &str, typed: &str) -> bool {
    match preview {
        Ok(p) => !p.is_blocked() && (destructive_in_effect(p, options).is_empty() || typed.trim() == node),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{drain::DestructiveOption, pod::PodPhase};

    fn pod(name: &str, owner: Option<(&str, &str)>, labels: &[(&str, &str)]) -> PodSummary {
        PodSummary {
            namespace: "ns".into(),
            name: name.into(),
            uid: format!("uid-{name}"),
            node_name: Some("n1".into()),
            phase: PodPhase::Running,
            ready: true,
            controller: owner.map(|(kind, name)| ControllerRef {
                api_version: "apps/v1".into(),
                kind: kind.into(),
                name: name.into(),
            }),
            mirror: false,
            empty_dir: false,
            deletion_timestamp: None,
            labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            tolerations: Vec::new(),
            do_not_disrupt: None,
            grace_seconds: None,
            ready_after_seconds: None,
        }
    }

    fn pdb(name: &str, app: &str, allowed: i32) -> PdbInfo {
        PdbInfo {
            namespace: "ns".into(),
            selector: LabelSelector::parse(&format!("app={app}")).unwrap(),
            status: PdbStatus {
                name: name.into(),
                disruptions_allowed: allowed,
                current_healthy: 3,
                desired_healthy: 3 - allowed,
                expected_pods: 3,
            },
            policy: Default::default(),
        }
    }

    fn inputs() -> PreviewInputs {
        let mut scratch = pod("scratch", Some(("ReplicaSet", "scratch-1")), &[("app", "scratch")]);
        scratch.empty_dir = true;
        PreviewInputs {
            node: "n1".into(),
            pods: vec![
                pod("web-1", Some(("ReplicaSet", "web-1")), &[("app", "web")]),
                pod("agent", Some(("DaemonSet", "agent")), &[("app", "agent")]),
                pod("bare", None, &[("app", "bare")]),
                scratch,
            ],
            daemonsets: [("ns/agent".to_string(), DaemonSetLookup::Exists)].into(),
            pdbs: vec![pdb("web-pdb", "web", 0)],
            server_time: Timestamp::UNIX_EPOCH,
            timing: Default::default(),
            unreachable: false,
        }
    }

    fn names(pods: impl IntoIterator<Item = PreviewPod>) -> Vec<String> {
        pods.into_iter().map(|p| p.name).collect()
    }

    #[test]
    fn defaults_refuse_daemonset_bare_and_emptydir_pods() {
        let p = preview(&inputs(), &DrainOptions::default()).unwrap();
        assert!(p.is_blocked());
        assert_eq!(names(p.evict.iter().map(|e| e.pod.clone())), ["web-1"]);
        assert_eq!(names(p.refused.iter().map(|r| r.pod.clone())), ["agent", "bare", "scratch"]);
        assert_eq!(
            p.options_needed,
            [DrainOption::Force, DrainOption::IgnoreDaemonsets, DrainOption::DeleteEmptydirData]
        );
        assert_eq!(p.evict[0].pdb.as_ref().map(|b| b.name.as_str()), Some("web-pdb"));
        assert_eq!(p.blocking_pdbs().len(), 1, "web-pdb allows 0 disruptions");
    }

    #[test]
    fn the_estimate_reads_the_pods_to_evict_their_grace_and_their_budget() {
        let mut inputs = inputs();
        inputs.pods[0].grace_seconds = Some(45);
        inputs.pods[0].ready_after_seconds = Some(3);
        let p = preview(&inputs, &DrainOptions::default()).unwrap();
        assert_eq!(p.forecast.pods, [PodForecast { budget: Some("ns/web-pdb".into()), grace_seconds: 45 }]);
        let budget = &p.forecast.budgets["ns/web-pdb"];
        assert_eq!((budget.allowed, budget.ready_seconds, budget.never), (0, 3, true));
        assert_eq!(p.estimate, Some(Err(NoEstimate::Held { budget: "ns/web-pdb".into() })), "it never allows");
        // Past its budget, the pod waits for nothing but its own grace period.
        let options =
            DrainOptions { disable_eviction: true, pod_selector: Some("app=web".into()), ..Default::default() };
        let p = preview(&inputs, &options).unwrap();
        assert_eq!(p.forecast.pods[0].budget, None);
        assert_eq!(p.estimate.unwrap().unwrap().high_seconds, 45);
    }

    #[test]
    fn each_option_moves_its_pods() {
        let options =
            DrainOptions { ignore_daemonsets: true, force: true, delete_emptydir_data: true, ..Default::default() };
        let p = preview(&inputs(), &options).unwrap();
        assert!(!p.is_blocked());
        assert_eq!(names(p.evict.iter().map(|e| e.pod.clone())), ["web-1", "bare", "scratch"]);
        assert_eq!(names(p.skipped.iter().map(|(p, _)| p.clone())), ["agent"]);
        assert_eq!(p.skipped[0].1, SkipReason::DaemonSetIgnored);
        let scratch = p.evict.iter().find(|e| e.pod.name == "scratch").unwrap();
        assert_eq!(scratch.notes, [EvictNote::LocalStorageLost]);
    }

    #[test]
    fn pod_selector_limits_the_drain_and_bad_selectors_are_errors() {
        let options = DrainOptions { pod_selector: Some("app in (web, bare)".into()), ..Default::default() };
        let p = preview(&inputs(), &options).unwrap();
        assert_eq!(p.not_selected, 2);
        assert_eq!(names(p.evict.iter().map(|e| e.pod.clone())), ["web-1"]);
        assert_eq!(names(p.refused.iter().map(|r| r.pod.clone())), ["bare"]);
        let bad = DrainOptions { pod_selector: Some("app in (web".into()), ..Default::default() };
        assert!(preview(&inputs(), &bad).is_err());
        assert!(!can_confirm(&preview(&inputs(), &bad), &bad, "n1", "n1"));
    }

    #[test]
    fn confirming_needs_no_refusal_and_the_typed_name_for_destructive_options() {
        let safe = DrainOptions { pod_selector: Some("app=web".into()), ..Default::default() };
        assert!(can_confirm(&preview(&inputs(), &safe), &safe, "n1", ""), "nothing destructive: no typing");
        let blocked = DrainOptions::default();
        assert!(!can_confirm(&preview(&inputs(), &blocked), &blocked, "n1", "n1"));
        let all =
            DrainOptions { ignore_daemonsets: true, force: true, delete_emptydir_data: true, ..Default::default() };
        assert_eq!(destructive_options(&all), [DestructiveOption::Force, DestructiveOption::DeleteEmptydirData]);
        assert!(!can_confirm(&preview(&inputs(), &all), &all, "n1", ""));
        assert!(!can_confirm(&preview(&inputs(), &all), &all, "n1", "n2"));
        assert!(can_confirm(&preview(&inputs(), &all), &all, "n1", " n1 "));
        let disable =
            DrainOptions { disable_eviction: true, pod_selector: Some("app=web".into()), ..Default::default() };
        assert!(!can_confirm(&preview(&inputs(), &disable), &disable, "n1", ""), "disable-eviction bypasses PDBs");
        assert_eq!(destructive_options(&disable), [DestructiveOption::DisableEviction]);
        assert!(destructive_options(&safe).is_empty());
    }

    #[test]
    fn only_the_options_that_change_this_node_need_its_name() {
        // The test node holds a bare pod, a pod with emptyDir data and a DaemonSet pod, among others.
        let all = DrainOptions {
            ignore_daemonsets: true,
            force: true,
            delete_emptydir_data: true,
            disable_eviction: true,
            ..Default::default()
        };
        let planned = preview(&inputs(), &all).unwrap();
        assert_eq!(destructive_in_effect(&planned, &all), destructive_options(&all), "each changes something here");
        // A selector that leaves only a managed pod without local data: force and the emptyDir option change
        // nothing; disable-eviction still deletes that pod past its budget.
        let web = DrainOptions { pod_selector: Some("app=web".into()), ..all.clone() };
        let planned = preview(&inputs(), &web).unwrap();
        assert_eq!(destructive_in_effect(&planned, &web), [DestructiveOption::DisableEviction]);
        assert!(can_confirm(&Ok(planned.clone()), &web, "n1", "n1"));
        assert!(!can_confirm(&Ok(planned), &web, "n1", ""));
        let keep_budgets = DrainOptions { disable_eviction: false, ..web };
        let planned = preview(&inputs(), &keep_budgets).unwrap();
        assert!(destructive_in_effect(&planned, &keep_budgets).is_empty());
        assert!(
            can_confirm(&Ok(planned), &keep_budgets, "n1", ""),
            "force and delete-emptydir-data change nothing here"
        );
        let nothing = DrainOptions { pod_selector: Some("app=none".into()), ..all };
        let planned = preview(&inputs(), &nothing).unwrap();
        assert!(planned.evict.is_empty());
        assert!(destructive_in_effect(&planned, &nothing).is_empty(), "no pod evicted: nothing to destroy");
    }

    #[test]
    fn a_daemonset_not_looked_up_yet_refuses_rather_than_guessing() {
        let mut i = inputs();
        i.daemonsets.clear();
        let options =
            DrainOptions { ignore_daemonsets: true, force: true, delete_emptydir_data: true, ..Default::default() };
        let p = preview(&i, &options).unwrap();
        assert_eq!(names(p.refused.iter().map(|r| r.pod.clone())), ["agent"]);
    }

    #[test]
    fn each_pod_is_found_in_its_group_by_key() {
        let options = DrainOptions { ignore_daemonsets: true, ..Default::default() };
        let p = preview(&inputs(), &options).unwrap();
        assert_eq!(p.group_of("ns/web-1"), Some(PreviewGroup::Evict));
        assert_eq!(p.group_of("ns/agent"), Some(PreviewGroup::Skip));
        assert_eq!(p.group_of("ns/bare"), Some(PreviewGroup::Refuse));
        assert_eq!(p.group_of("ns/scratch"), Some(PreviewGroup::Refuse));
        assert_eq!(p.group_of("other/web-1"), None, "the namespace is part of the key");
        assert_eq!(p.group_of("web-1"), None);
        let narrowed = DrainOptions { pod_selector: Some("app=web".into()), ..Default::default() };
        assert_eq!(preview(&inputs(), &narrowed).unwrap().group_of("ns/bare"), None, "left out by the selector");
    }

    #[test]
    fn the_option_to_respect_owners_is_offered_only_where_an_owner_asked() {
        let options =
            DrainOptions { ignore_daemonsets: true, force: true, delete_emptydir_data: true, ..Default::default() };
        assert!(!preview(&inputs(), &options).unwrap().owners_asked());
        let mut asked = inputs();
        asked.pods[0].do_not_disrupt = Some(crate::pod::DoNotDisrupt::ClusterAutoscaler);
        assert!(preview(&asked, &options).unwrap().owners_asked(), "warned of");
        let respect = DrainOptions { respect_do_not_disrupt: true, ..options };
        let refused = preview(&asked, &respect).unwrap();
        assert!(refused.owners_asked() && refused.is_blocked(), "refused, and still offered, to be turned off");
    }
}
