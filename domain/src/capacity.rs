//! The capacity check: can the pods a drain evicts be placed on the nodes that stay schedulable?
//!
//! An estimate, by a few of the scheduler's filters, in the order it runs them: taints against tolerations (`NoSchedule`
//! and `NoExecute`), the node selector and required node affinity, then requests (CPU, memory, pod count) against
//! what is left of each node's allocatable. Pods are placed one by one, largest first, each on the fitting node with
//! the most CPU left, and each placement uses up room for the next. Rules the check does not model are not guessed:
//! a pod with pod (anti-)affinity, topology spread constraints, host ports or persistent volume claims (which may be
//! bound to one zone) is reported as "can't tell". Nothing is scheduled; the scheduler stays the judge.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{eviction::Taint, pod::Toleration, selector::Requirement};

/// The most nodes one check takes (as a rollout).
pub const MAX_NODES: usize = crate::input::MAX_NODES;

/// One term of required node affinity: every requirement holds. Terms are ORed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSelectorTerm {
    /// On the node's labels: `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`.
    pub expressions: Vec<Requirement>,
    /// On the node's fields: only `metadata.name` exists.
    pub fields: Vec<Requirement>,
}

/// A rule of the scheduler the check does not model, so a pod that has it is not guessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CantTell {
    PodAffinity,
    PodAntiAffinity,
    TopologySpread,
    HostPorts,
    /// Persistent volume claims, whose volumes may be bound to a zone or a node.
    Volumes,
    /// A request or an allocatable quantity that could not be read.
    Unreadable,
}

/// What one pod needs of a node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodNeeds {
    pub namespace: String,
    pub name: String,
    /// CPU in millicores and memory in bytes: the larger of the containers' sum and the largest init container,
    /// plus the pod's overhead, as the scheduler counts them.
    pub cpu_milli: u64,
    pub memory: u64,
    pub node_selector: BTreeMap<String, String>,
    /// Required node affinity; empty means none.
    pub affinity: Vec<NodeSelectorTerm>,
    pub tolerations: Vec<Toleration>,
    pub cant_tell: Vec<CantTell>,
}

crate::impl_pod_ref!(PodNeeds);

/// What a node offers: its allocatable, less what its pods request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRoom {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<Taint>,
    pub cpu_milli: u64,
    pub memory: u64,
    pub pods: u64,
    pub used_cpu_milli: u64,
    pub used_memory: u64,
    pub used_pods: u64,
    /// Its allocatable could not be read: nothing is placed on it.
    pub unreadable: bool,
}

impl NodeRoom {
    /// Counts `needs` as placed here: a pod already on the node, or one the check places.
    pub fn take(&mut self, needs: &PodNeeds) {
        self.used_cpu_milli = self.used_cpu_milli.saturating_add(needs.cpu_milli);
        self.used_memory = self.used_memory.saturating_add(needs.memory);
        self.used_pods = self.used_pods.saturating_add(1);
    }
}

/// Why a node cannot take a pod: the first of the scheduler's filters it fails, in the scheduler's words.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Misfit {
    /// A taint the pod does not tolerate, written `key=value:Effect`.
    Taint(String),
    /// The node selector or required node affinity does not match the node.
    Selector,
    TooManyPods,
    InsufficientCpu,
    InsufficientMemory,
    /// The node's allocatable could not be read.
    Unreadable,
}

impl Misfit {
    /// The scheduler's phrase for it, as operators know it from `FailedScheduling` events.
    pub fn phrase(&self) -> String {
        match self {
            Misfit::Taint(taint) => format!("untolerated taint {taint}"),
            Misfit::Selector => "didn't match Pod's node affinity/selector".into(),
            Misfit::TooManyPods => "Too many pods".into(),
            Misfit::InsufficientCpu => "Insufficient cpu".into(),
            Misfit::InsufficientMemory => "Insufficient memory".into(),
            Misfit::Unreadable => "allocatable unreadable".into(),
        }
    }
}

/// Where one evicted pod would go.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// It fits on this node (one possible placement, not a promise).
    Fits(String),
    /// It fits on no node that stays schedulable: how many nodes fail it for each reason.
    Pending(Vec<(Misfit, u32)>),
    /// It has rules the check does not model.
    CantTell(Vec<CantTell>),
}

/// One evicted pod and its verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodVerdict {
    pub namespace: String,
    pub name: String,
    /// The node it is on now.
    pub from: String,
    pub verdict: Verdict,
}

crate::impl_pod_ref!(PodVerdict);

/// The whole answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapacityReport {
    /// How many nodes stay schedulable.
    pub nodes_left: u32,
    /// The pods their controllers will create again, each with its verdict, in namespace and name order.
    pub pods: Vec<PodVerdict>,
    /// Pods the drain removes for good (no controller to create them again): not placed.
    pub not_recreated: Vec<String>,
    /// Pods in namespaces the person may not see: counted, not named.
    pub hidden: u32,
}

impl CapacityReport {
    pub fn pending(&self) -> impl Iterator<Item = &PodVerdict> {
        self.pods.iter().filter(|p| matches!(p.verdict, Verdict::Pending(_)))
    }

    pub fn cant_tell(&self) -> impl Iterator<Item = &PodVerdict> {
        self.pods.iter().filter(|p| matches!(p.verdict, Verdict::CantTell(_)))
    }

    /// Keeps the pods of `namespaces` by name and counts the rest.
    pub fn visible_to(mut self, namespaces: &std::collections::BTreeSet<String>) -> Self {
        let before = self.pods.len() + self.not_recreated.len();
        self.pods.retain(|p| namespaces.contains(&p.namespace));
        self.not_recreated.retain(|key| key.split_once('/').is_some_and(|(ns, _)| namespaces.contains(ns)));
        let after = self.pods.len() + self.not_recreated.len();
        self.hidden = self.hidden.saturating_add(u32::try_from(before - after).unwrap_or(u32::MAX));
        self
    }
}

/// What becomes of a pod when its node is drained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Its controller creates it again elsewhere: it needs a place.
    Recreated,
    /// Removed for good: no controller (only a forced drain removes it).
    Gone,
    /// Not placed: a DaemonSet's pod (left in place, or not created again on a cordoned node), a mirror pod, or a
    /// finished one.
    Stays,
}

/// [`Fate`] of `pod`, by the drain's own rules of what it removes.
pub fn fate(pod: &crate::pod::PodSummary) -> Fate {
    if pod.mirror || pod.phase.is_terminal() || pod.controller.as_ref().is_some_and(|c| c.is_daemonset()) {
        Fate::Stays
    } else if pod.controller.is_some() {
        Fate::Recreated
    } else {
        Fate::Gone
    }
}

/// Why `node` cannot take `pod` now, or `None` if it can.
pub fn misfit(pod: &PodNeeds, node: &NodeRoom) -> Option<Misfit> {
    if let Some(taint) = node
        .taints
        .iter()
        .filter(|t| t.effect == "NoSchedule" || t.effect == crate::eviction::NO_EXECUTE)
        .find(|t| !pod.tolerations.iter().any(|tol| tol.tolerates(t)))
    {
        let value = taint.value.as_deref().map(|v| format!("={v}")).unwrap_or_default();
        return Some(Misfit::Taint(format!("{}{value}:{}", taint.key, taint.effect)));
    }
    let selector = pod.node_selector.iter().all(|(k, v)| node.labels.get(k) == Some(v));
    let affinity = pod.affinity.is_empty() || pod.affinity.iter().any(|term| term_matches(term, node));
    if !selector || !affinity {
        return Some(Misfit::Selector);
    }
    if node.unreadable {
        return Some(Misfit::Unreadable);
    }
    if node.used_pods.saturating_add(1) > node.pods {
        return Some(Misfit::TooManyPods);
    }
    if node.used_cpu_milli.saturating_add(pod.cpu_milli) > node.cpu_milli {
        return Some(Misfit::InsufficientCpu);
    }
    if node.used_memory.saturating_add(pod.memory) > node.memory {
        return Some(Misfit::InsufficientMemory);
    }
    None
}

/// A term with no requirement matches nothing, as the API defines it.
pub(crate) fn term_matches(term: &NodeSelectorTerm, node: &NodeRoom) -> bool {
    if term.expressions.is_empty() && term.fields.is_empty() {
        return false;
    }
    let name = BTreeMap::from([("metadata.name".to_string(), node.name.clone())]);
    term.expressions.iter().all(|r| requirement_matches(r, &node.labels))
        && term.fields.iter().all(|r| requirement_matches(r, &name))
}

/// A node selector requirement: a label selector's operators, and `Gt`/`Lt`, which compare integers.
fn requirement_matches(r: &Requirement, labels: &BTreeMap<String, String>) -> bool {
    let ord = match r.operator.as_str() {
        "Gt" => std::cmp::Ordering::Greater,
        "Lt" => std::cmp::Ordering::Less,
        _ => return r.matches(labels),
    };
    let number = |s: &str| s.parse::<i64>().ok();
    match (labels.get(&r.key).and_then(|v| number(v)), r.values.as_slice()) {
        (Some(have), [want]) => number(want).is_some_and(|want| have.cmp(&want) == ord),
        _ => false,
    }
}

/// Places `pods` (each with the node it leaves) on `nodes`, the nodes that stay schedulable. Largest requests go
/// first, as they are the hardest to place; each goes to the fitting node with the most CPU left, then the most
/// memory, then by name, so that the answer does not depend on the order of the input.
pub fn check(pods: Vec<(String, PodNeeds)>, mut nodes: Vec<NodeRoom>, not_recreated: Vec<String>) -> CapacityReport {
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    let mut order: Vec<usize> = (0..pods.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&pods[a].1, &pods[b].1);
        (b.cpu_milli, b.memory)
            .cmp(&(a.cpu_milli, a.memory))
            .then_with(|| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)))
    });
    let mut verdicts: Vec<Option<Verdict>> = vec![None; pods.len()];
    for i in order {
        let pod = &pods[i].1;
        if !pod.cant_tell.is_empty() {
            verdicts[i] = Some(Verdict::CantTell(pod.cant_tell.clone()));
            continue;
        }
        let mut reasons: BTreeMap<Misfit, u32> = BTreeMap::new();
        let mut best: Option<usize> = None;
        for (n, node) in nodes.iter().enumerate() {
            match misfit(pod, node) {
                Some(why) => *reasons.entry(why).or_default() += 1,
                None => {
                    let room = |n: &NodeRoom| {
                        (n.cpu_milli.saturating_sub(n.used_cpu_milli), n.memory.saturating_sub(n.used_memory))
                    };
                    if best.is_none_or(|b| room(node) > room(&nodes[b])) {
                        best = Some(n);
                    }
                }
            }
        }
        verdicts[i] = Some(match best {
            Some(n) => {
                nodes[n].take(pod);
                Verdict::Fits(nodes[n].name.clone())
            }
            None => Verdict::Pending(reasons.into_iter().collect()),
        });
    }
    let mut report: Vec<PodVerdict> = pods
        .into_iter()
        .zip(verdicts)
        .map(|((from, pod), verdict)| PodVerdict {
            namespace: pod.namespace,
            name: pod.name,
            from,
            verdict: verdict.unwrap_or(Verdict::CantTell(vec![CantTell::Unreadable])),
        })
        .collect();
    report.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    let mut not_recreated = not_recreated;
    not_recreated.sort();
    CapacityReport {
        nodes_left: u32::try_from(nodes.len()).unwrap_or(u32::MAX),
        pods: report,
        not_recreated,
        hidden: 0,
    }
}

/// How a pending pod's reasons read, as the scheduler writes them: "0/3 nodes are available: 2 Insufficient cpu,
/// 1 untolerated taint dedicated=db:NoSchedule."
pub fn pending_text(nodes_left: u32, reasons: &[(Misfit, u32)]) -> String {
    if nodes_left == 0 {
        return "0/0 nodes are available: no node stays schedulable.".into();
    }
    let parts: Vec<String> = reasons.iter().map(|(why, n)| format!("{n} {}", why.phrase())).collect();
    format!("0/{nodes_left} nodes are available: {}.", parts.join(", "))
}

#[cfg(feature = "k8s")]
pub(crate) mod k8s;

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, cpu: u64, used: u64) -> NodeRoom {
        NodeRoom {
            name: name.into(),
            cpu_milli: cpu,
            memory: 1 << 40,
            pods: 110,
            used_cpu_milli: used,
            ..NodeRoom::default()
        }
    }

    fn pod(name: &str, cpu: u64) -> (String, PodNeeds) {
        ("gone".into(), PodNeeds { namespace: "ns".into(), name: name.into(), cpu_milli: cpu, ..PodNeeds::default() })
    }

    fn verdict<'a>(report: &'a CapacityReport, name: &str) -> &'a Verdict {
        &report.pods.iter().find(|p| p.name == name).unwrap().verdict
    }

    #[test]
    fn placements_use_up_room_for_the_next_pod() {
        let report = check(vec![pod("a", 600), pod("b", 600)], vec![node("n1", 1000, 0)], vec![]);
        assert_eq!(verdict(&report, "a"), &Verdict::Fits("n1".into()));
        assert_eq!(verdict(&report, "b"), &Verdict::Pending(vec![(Misfit::InsufficientCpu, 1)]));
        let report =
            check(vec![pod("a", 600), pod("b", 600)], vec![node("n1", 1000, 0), node("n2", 1000, 300)], vec![]);
        assert!(report.pending().next().is_none(), "one on each node: {report:?}");
    }

    #[test]
    fn the_largest_pod_is_placed_first_so_small_ones_do_not_crowd_it_out() {
        let report =
            check(vec![pod("small", 300), pod("big", 900)], vec![node("n1", 1000, 0), node("n2", 400, 0)], vec![]);
        assert_eq!(verdict(&report, "big"), &Verdict::Fits("n1".into()));
        assert_eq!(verdict(&report, "small"), &Verdict::Fits("n2".into()));
    }

    #[test]
    fn taints_selectors_and_affinity_are_filters() {
        let mut tainted = node("tainted", 4000, 0);
        tainted.taints.push(Taint {
            key: "dedicated".into(),
            value: Some("db".into()),
            effect: "NoSchedule".into(),
            time_added: None,
        });
        let mut labelled = node("labelled", 4000, 0);
        labelled.labels.insert("disk".into(), "ssd".into());
        let nodes = vec![tainted.clone(), labelled.clone()];

        let (_, mut wants_ssd) = pod("ssd", 100);
        wants_ssd.node_selector.insert("disk".into(), "ssd".into());
        let (_, mut wants_hdd) = pod("hdd", 100);
        wants_hdd.node_selector.insert("disk".into(), "hdd".into());
        let (_, mut tolerant) = pod("tolerant", 100);
        tolerant.tolerations.push(Toleration {
            key: Some("dedicated".into()),
            operator: Some("Exists".into()),
            ..Toleration::default()
        });
        tolerant.affinity = vec![NodeSelectorTerm {
            fields: vec![Requirement {
                key: "metadata.name".into(),
                operator: "In".into(),
                values: vec!["tainted".into()],
            }],
            ..NodeSelectorTerm::default()
        }];

        let report = check(
            vec![("x".into(), wants_ssd), ("x".into(), wants_hdd), ("x".into(), tolerant)],
            nodes,
            vec!["ns/bare".into()],
        );
        assert_eq!(verdict(&report, "ssd"), &Verdict::Fits("labelled".into()));
        assert_eq!(
            verdict(&report, "hdd"),
            &Verdict::Pending(vec![(Misfit::Taint("dedicated=db:NoSchedule".into()), 1), (Misfit::Selector, 1)])
        );
        assert_eq!(verdict(&report, "tolerant"), &Verdict::Fits("tainted".into()));
        assert_eq!(report.not_recreated, vec!["ns/bare".to_string()]);
        let Verdict::Pending(reasons) = verdict(&report, "hdd") else { unreachable!() };
        assert_eq!(
            pending_text(report.nodes_left, reasons),
            "0/2 nodes are available: 1 untolerated taint dedicated=db:NoSchedule, 1 didn't match Pod's node affinity/selector."
        );
    }

    #[test]
    fn gt_lt_and_empty_terms_follow_the_api() {
        let mut n = node("n", 1000, 0);
        n.labels.insert("gen".into(), "5".into());
        let term = |op: &str, v: &str| NodeSelectorTerm {
            expressions: vec![Requirement { key: "gen".into(), operator: op.into(), values: vec![v.into()] }],
            ..NodeSelectorTerm::default()
        };
        assert!(term_matches(&term("Gt", "4"), &n));
        assert!(!term_matches(&term("Gt", "5"), &n));
        assert!(term_matches(&term("Lt", "6"), &n));
        assert!(!term_matches(&term("Lt", "x"), &n), "a value that is no integer matches nothing");
        assert!(!term_matches(&NodeSelectorTerm::default(), &n), "an empty term matches no node");
    }

    #[test]
    fn pods_and_counts_and_unreadable_nodes_are_limits() {
        let mut full = node("full", 4000, 0);
        full.pods = 2;
        full.used_pods = 2;
        let mut unknown = node("unknown", 4000, 0);
        unknown.unreadable = true;
        let report = check(vec![pod("a", 1)], vec![full, unknown], vec![]);
        assert_eq!(verdict(&report, "a"), &Verdict::Pending(vec![(Misfit::TooManyPods, 1), (Misfit::Unreadable, 1)]));
        let report = check(vec![pod("a", 1)], vec![], vec![]);
        assert_eq!(pending_text(report.nodes_left, &[]), "0/0 nodes are available: no node stays schedulable.");
    }

    #[test]
    fn cant_tell_is_reported_and_takes_no_room() {
        let (from, mut spread) = pod("spread", 900);
        spread.cant_tell.push(CantTell::TopologySpread);
        let report = check(vec![(from, spread), pod("b", 900)], vec![node("n1", 1000, 0)], vec![]);
        assert_eq!(verdict(&report, "spread"), &Verdict::CantTell(vec![CantTell::TopologySpread]));
        assert_eq!(verdict(&report, "b"), &Verdict::Fits("n1".into()));
        assert_eq!(report.cant_tell().count(), 1);
    }

    #[test]
    fn a_narrow_viewer_sees_counts_not_names() {
        let report = check(vec![pod("a", 1)], vec![node("n", 10, 0)], vec!["other/bare".into()]);
        let seen = report.visible_to(&["mine".to_string()].into());
        assert!(seen.pods.is_empty() && seen.not_recreated.is_empty());
        assert_eq!(seen.hidden, 2);
    }
}
