//! Who else is taking a node down. A cluster has several actors that cordon, drain, reboot or remove nodes, each
//! assuming it is alone: kubectl, kured, Karpenter, the cluster autoscaler, Cluster API, the node-maintenance
//! operator and the clouds' managed upgrades. Each leaves a marker on the Node (a taint, a label, an annotation or a
//! lifecycle condition); this is the one table that reads them, for the card, the board's filter and the uncordon
//! guard alike. Every key here was checked against the tool's own source or its vendor's documentation, listed in
//! `docs/actors.md`.
//!
//! A marker is a claim anyone with `patch nodes` can write. It names who is at work so that a person can look; it
//! never chooses whose rights are used or what is destroyed.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::condition::Condition;
use crate::eviction::Taint;

pub use doing::Doing;

mod doing;
#[cfg(test)]
mod tests;

/// A tool (or a person) other than Drainboard that takes nodes down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Actor {
    ClusterAutoscaler,
    Karpenter,
    Kured,
    NodeMaintenance,
    ClusterApi,
    Gke,
    Aks,
    Eks,
    /// `kubectl drain`, known by the reasons its proposed `--report-node-conditions` writes (`KubectlDrain…`).
    KubectlDrain,
    /// A lifecycle condition written by a tool that does not say which (its reason names no known writer).
    Lifecycle,
    /// A cordon with no Drainboard record and no tool's marker: `kubectl cordon`, or a tool that leaves no trace.
    Unknown,
}

impl Actor {
    /// Every actor, in the board filter's order.
    pub const ALL: [Actor; 11] = [
        Actor::ClusterAutoscaler,
        Actor::Karpenter,
        Actor::Kured,
        Actor::NodeMaintenance,
        Actor::ClusterApi,
        Actor::Gke,
        Actor::Aks,
        Actor::Eks,
        Actor::KubectlDrain,
        Actor::Lifecycle,
        Actor::Unknown,
    ];

    /// The name a person types to confirm undoing this actor's work, and the board filter's value: the tool's own
    /// name, in every language.
    pub fn id(self) -> &'static str {
        match self {
            Actor::ClusterAutoscaler => "cluster-autoscaler",
            Actor::Karpenter => "karpenter",
            Actor::Kured => "kured",
            Actor::NodeMaintenance => "node-maintenance-operator",
            Actor::ClusterApi => "cluster-api",
            Actor::Gke => "gke",
            Actor::Aks => "aks",
            Actor::Eks => "eks",
            Actor::KubectlDrain => "kubectl-drain",
            Actor::Lifecycle => "another-tool",
            Actor::Unknown => "kubectl",
        }
    }

    /// The actor a filter value or a typed confirmation names; `None` for anything else.
    pub fn from_id(id: &str) -> Option<Actor> {
        Actor::ALL.into_iter().find(|a| a.id() == id.trim())
    }
}

/// One actor seen at work on a node, and the marker that says so.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sighting {
    pub actor: Actor,
    pub doing: Doing,
    /// The marker, as `taint KEY`, `label KEY`, `annotation KEY`, `condition TYPE` or `spec.unschedulable`.
    pub marker: String,
    /// Since when, where the marker says; for [`Doing::MaintenanceScheduled`], when it is due.
    pub at: Option<Timestamp>,
    /// The writer's own words (a condition's reason and message), cut to [`DETAIL_CHARS`].
    pub detail: Option<String>,
    /// A drain claimed by a condition on a node that is not cordoned: most likely left behind (KEP-5683's hint).
    pub stale: bool,
}

/// At most this many characters of a writer's words are kept.
pub const DETAIL_CHARS: usize = 160;

/// How a marker's value says when.
#[derive(Clone, Copy)]
enum When {
    /// The taint's `timeAdded`.
    Added,
    /// The value is Unix seconds.
    UnixSeconds,
    /// The value is an RFC 3339 time.
    Rfc3339,
}

#[derive(Clone, Copy)]
enum Kind {
    Taint,
    Label,
    Annotation,
}

/// One row of the table: a marker, the value it must have (any, when `None`), whom it names and what they do.
struct Rule {
    kind: Kind,
    key: &'static str,
    value: Option<&'static str>,
    actor: Actor,
    doing: Doing,
    when: When,
}

const fn rule(
    kind: Kind,
    key: &'static str,
    value: Option<&'static str>,
    actor: Actor,
    doing: Doing,
    when: When,
) -> Rule {
    Rule { kind, key, value, actor, doing, when }
}

/// The markers, each checked against its source (`docs/actors.md` cites file and commit).
const RULES: &[Rule] = &[
    rule(
        Kind::Taint,
        "ToBeDeletedByClusterAutoscaler",
        None,
        Actor::ClusterAutoscaler,
        Doing::Removing,
        When::UnixSeconds,
    ),
    rule(
        Kind::Taint,
        "DeletionCandidateOfClusterAutoscaler",
        None,
        Actor::ClusterAutoscaler,
        Doing::RemovalCandidate,
        When::UnixSeconds,
    ),
    rule(Kind::Taint, "karpenter.sh/disrupted", None, Actor::Karpenter, Doing::Disrupting, When::Added),
    rule(Kind::Annotation, "weave.works/kured-reboot-in-progress", None, Actor::Kured, Doing::Rebooting, When::Rfc3339),
    rule(Kind::Taint, "medik8s.io/drain", None, Actor::NodeMaintenance, Doing::Maintenance, When::Added),
    rule(
        Kind::Taint,
        "node.cluster.x-k8s.io/outdated-revision",
        None,
        Actor::ClusterApi,
        Doing::Replacing,
        When::Added,
    ),
    rule(
        Kind::Label,
        "cloud.google.com/scheduled-maintenance-time",
        None,
        Actor::Gke,
        Doing::MaintenanceScheduled,
        When::UnixSeconds,
    ),
    rule(
        Kind::Label,
        "cloud.google.com/active-node-maintenance",
        Some("ONGOING"),
        Actor::Gke,
        Doing::Maintenance,
        When::Added,
    ),
    rule(Kind::Taint, "cloud.google.com/impending-node-termination", None, Actor::Gke, Doing::Terminating, When::Added),
    rule(
        Kind::Label,
        "kubernetes.azure.com/upgrade-status",
        Some("Quarantined"),
        Actor::Aks,
        Doing::Quarantined,
        When::Added,
    ),
    rule(Kind::Taint, "remediator.kubernetes.azure.com/unschedulable", None, Actor::Aks, Doing::Draining, When::Added),
    rule(Kind::Taint, "eks.amazonaws.com/nodegroup", Some("unschedulable"), Actor::Eks, Doing::Replacing, When::Added),
];

/// The node annotations the table reads: the server's cache keeps them when it trims a node's annotations.
pub const ANNOTATIONS: &[&str] = &["weave.works/kured-reboot-in-progress"];

/// At most this many bytes of such an annotation are kept: kured's is a time, about 25. Anyone who may patch nodes
/// could otherwise have every node's cached copy hold as much as the API server allows an object's annotations.
pub const ANNOTATION_BYTES: usize = 64;

/// Whether the server's cache keeps a node annotation for the table: one the table reads, of a sane length.
pub fn keeps_annotation(key: &str, value: &str) -> bool {
    (ANNOTATIONS.contains(&key) || crate::hold_others::ANNOTATIONS.contains(&key)) && value.len() <= ANNOTATION_BYTES
}

/// The lifecycle conditions of KEP-5683, and what each says when `True`.
const CONDITIONS: &[(&str, Doing)] = &[
    ("DrainInProgress", Doing::Draining),
    ("Drained", Doing::Drained),
    ("MaintenancePlanned", Doing::MaintenanceScheduled),
    ("MaintenanceInProgress", Doing::Maintenance),
];

/// The reasons Drainboard writes on the lifecycle conditions start so: its own are not another actor's.
pub const OUR_REASON_PREFIX: &str = "Drainboard";

/// What the table reads of a node.
pub struct Marks<'a> {
    pub labels: &'a BTreeMap<String, String>,
    pub annotations: &'a BTreeMap<String, String>,
    pub taints: &'a [Taint],
    pub conditions: &'a [Condition],
    pub unschedulable: bool,
    /// The node carries Drainboard's own cordon record: its cordon is ours, not someone else's.
    pub cordon_is_ours: bool,
}

/// Every actor other than Drainboard seen at work on the node, sorted by actor, then by what they do.
pub fn sightings(marks: &Marks) -> Vec<Sighting> {
    let mut seen: Vec<Sighting> = RULES.iter().filter_map(|rule| matched(rule, marks)).collect();
    seen.extend(marks.conditions.iter().filter_map(|c| condition(c, marks.unschedulable)));
    if marks.unschedulable && !marks.cordon_is_ours && !seen.iter().any(|s| s.doing.cordons()) {
        let at = marks.taints.iter().find(|t| t.key == "node.kubernetes.io/unschedulable").and_then(|t| t.time_added);
        seen.push(Sighting {
            actor: Actor::Unknown,
            doing: Doing::Cordoned,
            marker: "spec.unschedulable".into(),
            at,
            detail: None,
            stale: false,
        });
    }
    seen.sort_by(|a, b| (a.actor, a.doing, &a.marker).cmp(&(b.actor, b.doing, &b.marker)));
    seen.dedup_by(|a, b| a.actor == b.actor && a.doing == b.doing);
    seen
}

/// How many actors work on the node at once, Drainboard counted when `ours` (its cordon or a drain of its own).
pub fn actors_at_work(sightings: &[Sighting], ours: bool) -> usize {
    let mut actors: Vec<Actor> = sightings.iter().map(|s| s.actor).collect();
    actors.sort();
    actors.dedup();
    actors.len() + usize::from(ours)
}

/// The tools whose work uncordoning the node would undo: each one seen doing work that cordons it. A cordon that
/// names no one ([`Actor::Unknown`]) is not among them: Drainboard's own cordon record, or its absence, already says
/// who, as the card shows.
pub fn undone_by_uncordon(sightings: &[Sighting]) -> Vec<Actor> {
    let mut actors: Vec<Actor> =
        sightings.iter().filter(|s| s.doing.cordons() && s.actor != Actor::Unknown).map(|s| s.actor).collect();
    actors.sort();
    actors.dedup();
    actors
}

/// The tools taking the node down now, whose work a plan does not start a drain over: each seen doing work that
/// cordons it (removing, disrupting, rebooting, draining, …), a claim left behind on a schedulable node not counted.
pub fn disrupting(sightings: &[Sighting]) -> Vec<Actor> {
    let mut actors: Vec<Actor> = sightings.iter().filter(|s| s.doing.cordons() && !s.stale).map(|s| s.actor).collect();
    actors.sort();
    actors.dedup();
    actors
}

/// The ids of `actors`, as a person types them to confirm: `cluster-autoscaler, karpenter`.
pub fn ids(actors: &[Actor]) -> String {
    actors.iter().map(|a| a.id()).collect::<Vec<_>>().join(", ")
}

/// At most this many characters are read of what a person typed to confirm: every id at once fits in it.
pub const MAX_TYPED_CHARS: usize = 300;

/// What a person typed to confirm, checked: trimmed, at most [`MAX_TYPED_CHARS`].
pub fn typed(text: Option<&str>) -> Result<Option<String>, String> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let chars = text.chars().count();
    if chars > MAX_TYPED_CHARS {
        return Err(format!("confirm has {chars} characters; type the tools' names, at most {MAX_TYPED_CHARS}"));
    }
    Ok(Some(text.to_string()))
}

/// Whether what a person typed names every one of `actors` by [`Actor::id`], separated by commas or spaces: the
/// consent to undo another tool's work.
pub fn confirmed(actors: &[Actor], typed: Option<&str>) -> bool {
    let words: Vec<&str> = typed.unwrap_or_default().split([',', ' ']).filter(|w| !w.is_empty()).collect();
    actors.iter().all(|a| words.contains(&a.id()))
}

fn matched(rule: &Rule, marks: &Marks) -> Option<Sighting> {
    let (kind, value, added) = match rule.kind {
        Kind::Taint => {
            let taint = marks.taints.iter().find(|t| t.key == rule.key)?;
            ("taint", taint.value.clone().unwrap_or_default(), taint.time_added)
        }
        Kind::Label => ("label", marks.labels.get(rule.key)?.clone(), None),
        Kind::Annotation => ("annotation", marks.annotations.get(rule.key)?.clone(), None),
    };
    if rule.value.is_some_and(|wanted| wanted != value) {
        return None;
    }
    let at = match rule.when {
        When::Added => added,
        When::UnixSeconds => value.trim().parse::<i64>().ok().and_then(|s| Timestamp::from_second(s).ok()),
        When::Rfc3339 => value.trim().parse::<Timestamp>().ok(),
    };
    Some(Sighting {
        actor: rule.actor,
        doing: rule.doing,
        marker: format!("{kind} {}", rule.key),
        at,
        detail: None,
        stale: false,
    })
}

fn condition(c: &Condition, unschedulable: bool) -> Option<Sighting> {
    let doing = CONDITIONS.iter().find(|(t, _)| *t == c.type_).map(|(_, d)| *d)?;
    if c.status != "True" {
        return None;
    }
    let reason = c.reason.as_deref().unwrap_or_default();
    if reason.starts_with(OUR_REASON_PREFIX) {
        return None;
    }
    let actor = if reason.starts_with("KubectlDrain") { Actor::KubectlDrain } else { Actor::Lifecycle };
    let words = match (c.reason.as_deref(), c.message.as_deref()) {
        (Some(r), Some(m)) if !m.is_empty() => Some(format!("{r}: {m}")),
        (Some(r), _) if !r.is_empty() => Some(r.to_string()),
        (_, Some(m)) if !m.is_empty() => Some(m.to_string()),
        _ => None,
    };
    Some(Sighting {
        actor,
        doing,
        marker: format!("condition {}", c.type_),
        at: c.last_transition,
        detail: words.map(|w| cut(&w, DETAIL_CHARS)),
        stale: matches!(doing, Doing::Draining) && !unschedulable,
    })
}

/// `text`, at most `chars` characters of it, with an ellipsis where it was cut.
fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}
