//! Why a pod a drain waits on is still on the node, and what would let it go: one class per reason, the object
//! that blocks, the numbers behind it, and the fixes with what each costs. The engine gathers the facts (the pod,
//! the budgets that cover it, the API server's last answer to its eviction, its workload's Pending pods); these
//! rules read them, the same in the browser and on the server.
//!
//! The eviction rules follow the API server's: a Ready pod is evicted only while every budget covering it allows a
//! disruption. A pod that is running but not Ready is judged by the budget's `unhealthyPodEvictionPolicy`: with
//! `IfHealthyBudget` (the default) only while the budget has its desired healthy pods, with `AlwaysAllow` always.
//! A pod covered by more than one budget is never evicted: the API server answers 500.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::budget::{PdbInfo, PdbStatus, UnhealthyPolicy};

/// A budget that covers the pod, with its policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    pub status: PdbStatus,
    pub policy: UnhealthyPolicy,
}

impl From<&PdbInfo> for Budget {
    fn from(info: &PdbInfo) -> Self {
        Budget { status: info.status.clone(), policy: info.policy }
    }
}

/// What the API server last answered to this pod's eviction, as far as the classes need it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LastAnswer {
    /// 429: a budget does not allow it now.
    Budget,
    /// 500: more than one budget covers the pod.
    TwoBudgets,
    /// An admission webhook denied it: the webhook's name (from the answer), its configuration's name when the
    /// person may read it, and the webhook's own message.
    Webhook { webhook: String, configuration: Option<String>, message: String },
    /// 403 or 409 because the namespace is being deleted.
    NamespaceTerminating,
}

/// A pod of the same workload that the scheduler cannot place, with its own reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingPod {
    pub name: String,
    /// The `PodScheduled` condition's reason, such as `Unschedulable`.
    pub reason: String,
    /// The scheduler's message, such as "0/5 nodes are available: 3 Insufficient cpu, 2 node(s) were unschedulable".
    pub message: String,
}

/// The facts about one pod the drain still waits on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitingPod {
    pub namespace: String,
    pub name: String,
    pub ready: bool,
    /// `metadata.deletionTimestamp`, once its deletion was asked: when its grace period ends.
    pub deletion_deadline: Option<Timestamp>,
    pub finalizers: Vec<String>,
    pub annotations: BTreeMap<String, String>,
    /// Every budget that covers it.
    pub budgets: Vec<Budget>,
    pub last_answer: Option<LastAnswer>,
    pub namespace_terminating: bool,
    /// Its workload's pods the scheduler cannot place.
    pub pending: Vec<PendingPod>,
}

/// One reason a pod stays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Blocker {
    /// A budget allows no disruption with every pod it counts healthy: `to_become_ready` more must be Ready
    /// elsewhere before one may go.
    BudgetAtZero { budget: String, healthy: i32, desired: i32, to_become_ready: i32 },
    /// A budget that needs every pod it counts healthy: waiting never helps.
    BudgetNever { budget: String, expected: i32, desired: i32 },
    /// The pod is not Ready and its budget is short of healthy pods: `IfHealthyBudget` keeps it; `AlwaysAllow`
    /// would let it go.
    HeldWhileUnhealthy { budget: String, healthy: i32, desired: i32 },
    /// More than one budget covers the pod; the API server refuses every eviction of it.
    TwoBudgets { budgets: Vec<String> },
    /// An admission webhook denies the eviction: its name, its configuration's (when the person may read it), and
    /// its own message.
    WebhookDenied { webhook: String, configuration: Option<String>, message: String },
    /// The pod is past its grace period, held by finalizers.
    Finalizers { finalizers: Vec<String> },
    /// The pod is shutting down within its grace period (a `preStop` hook runs in it).
    ShuttingDown { left_seconds: i64 },
    /// The workload's replacement cannot be placed, so its budget cannot recover.
    ReplacementPending { pod: String, reason: String, message: String },
    /// The pod's namespace is being deleted.
    NamespaceTerminating { namespace: String },
    /// The owner asked that the pod not be disrupted (kubectl ignores it).
    OwnerAsked { annotation: String },
}

/// An action that would unblock, each with its cost in the catalogue's words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fix {
    /// Scale the workload up by `by`, so that a pod may go while the budget holds.
    ScaleUp { by: i32 },
    /// Relax the budget's `minAvailable` or `maxUnavailable`.
    RelaxBudget { budget: String },
    /// Set the budget's `unhealthyPodEvictionPolicy` to `AlwaysAllow`.
    AlwaysAllow { budget: String },
    /// Delete the not-Ready pod past its budget.
    DeleteUnreadyPod,
    /// Remove every budget but one.
    OneBudget,
    /// Ask the webhook's owner, or change the webhook.
    AskWebhookOwner,
    /// Remove the finalizers once whatever they wait for is done.
    RemoveFinalizers,
    /// Wait: the time is known.
    Wait { seconds: i64 },
    /// Make room where the scheduler can place the replacement.
    MakeRoom,
    /// Stop the drain, or let its timeout end it.
    CancelOrTimeout,
}

/// An action a person may take, with consent, to let a drain held by a budget short of healthy pods go on
/// ([`Blocker::HeldWhileUnhealthy`]), without forcing anything past a budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Unblock {
    /// Delete the not-Ready pod (with its own grace period): it serves nothing, and its controller replaces it.
    DeleteUnreadyPod,
    /// Set the budget's `unhealthyPodEvictionPolicy` to `AlwaysAllow`: not-Ready pods it covers may then be
    /// evicted whatever its health, now and later.
    AlwaysAllow,
}

impl Unblock {
    /// The budget holding the pod up that this action answers, if `blockers` (the pod's now) has one: only a
    /// pod held while unhealthy may be unblocked so.
    pub fn budget(blockers: &[Blocker]) -> Option<&str> {
        blockers.iter().find_map(|b| match b {
            Blocker::HeldWhileUnhealthy { budget, .. } => Some(budget.as_str()),
            _ => None,
        })
    }

    /// The name the person types to consent: the pod's to delete it, the budget's to change it.
    pub fn consent_word<'a>(self, pod: &'a str, budget: &'a str) -> &'a str {
        match self {
            Unblock::DeleteUnreadyPod => pod,
            Unblock::AlwaysAllow => budget,
        }
    }
}

/// Whether the owner asked that this pod not be disrupted, and by which annotation.
pub fn owner_asked(annotations: &BTreeMap<String, String>) -> Option<&'static str> {
    crate::pod::DoNotDisrupt::read(annotations).map(|asked| asked.annotation().0)
}

/// Every reason `pod` stays at `now`, the most decisive first; empty when none of the known classes applies.
pub fn explain(pod: &WaitingPod, now: Timestamp) -> Vec<Blocker> {
    let mut out = Vec::new();
    if pod.deletion_deadline.is_some() {
        return terminating(pod.deletion_deadline, &pod.finalizers, now);
    }
    if pod.namespace_terminating || pod.last_answer == Some(LastAnswer::NamespaceTerminating) {
        out.push(Blocker::NamespaceTerminating { namespace: pod.namespace.clone() });
    }
    if let Some(LastAnswer::Webhook { webhook, configuration, message }) = &pod.last_answer {
        out.push(Blocker::WebhookDenied {
            webhook: webhook.clone(),
            configuration: configuration.clone(),
            message: message.clone(),
        });
    }
    if pod.budgets.len() > 1 || pod.last_answer == Some(LastAnswer::TwoBudgets) {
        let budgets = pod.budgets.iter().take(MAX_NAMES).map(|b| b.status.name.clone()).collect();
        out.push(Blocker::TwoBudgets { budgets });
    } else if let Some(budget) = pod.budgets.first() {
        out.extend(budget_blocker(pod, budget));
    }
    if out.iter().any(Blocker::waits_for_replacement) {
        out.extend(replacements(&pod.pending));
    }
    if let Some(annotation) = owner_asked(&pod.annotations) {
        out.push(Blocker::OwnerAsked { annotation: annotation.to_string() });
    }
    out
}

/// The blocker a budget's unplaceable pod makes (the first of `pending`: one names the scheduler's reason).
pub fn replacements(pending: &[PendingPod]) -> Vec<Blocker> {
    pending
        .iter()
        .take(1)
        .map(|p| Blocker::ReplacementPending {
            pod: p.name.clone(),
            reason: bounded(&p.reason),
            message: bounded(&p.message),
        })
        .collect()
}

/// Why a pod whose deletion was asked (its grace period ending at `deadline`) is still there at `now`: shutting
/// down within its grace period (a `preStop` hook runs in it), or past it and held by `finalizers`. Nothing when
/// it is past its grace with no finalizer: the kubelet has not confirmed, which kubectl's skip-wait limit covers.
pub fn terminating(deadline: Option<Timestamp>, finalizers: &[String], now: Timestamp) -> Vec<Blocker> {
    let Some(deadline) = deadline else { return Vec::new() };
    let left = deadline.duration_since(now).as_secs();
    if left > 0 {
        vec![Blocker::ShuttingDown { left_seconds: left }]
    } else if finalizers.is_empty() {
        Vec::new()
    } else {
        let finalizers = finalizers.iter().take(MAX_NAMES).map(|f| bounded(f)).collect();
        vec![Blocker::Finalizers { finalizers }]
    }
}

/// The most characters of a message from the cluster (a webhook's, a scheduler's) a blocker carries: it travels
/// to every watcher, and into the node's Lease.
pub const MAX_MESSAGE_CHARS: usize = 512;

/// The most names (finalizers, budgets) one blocker lists.
pub const MAX_NAMES: usize = 16;

/// `text` cut to [`MAX_MESSAGE_CHARS`], marked with an ellipsis where it was cut.
pub fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => text.to_owned(),
        Some((at, _)) => format!("{}…", &text[..at]),
    }
}

/// The webhook's name and its own message in the API server's answer to a request an admission webhook denied
/// (`admission webhook "NAME" denied the request: MESSAGE`, or `... without explanation`); `None` for any other
/// answer.
pub fn webhook_denial(message: &str) -> Option<(String, String)> {
    let rest = message.strip_prefix("admission webhook \"")?;
    let (name, rest) = rest.split_once('"')?;
    let rest = rest.strip_prefix(" denied the request")?;
    let own = rest.strip_prefix(": ").unwrap_or_else(|| rest.trim_start());
    (!name.is_empty()).then(|| (bounded(name), bounded(own)))
}

/// What one budget does to this pod, by the API server's rule.
fn budget_blocker(pod: &WaitingPod, budget: &Budget) -> Option<Blocker> {
    let s = &budget.status;
    let name = s.name.clone();
    if !pod.ready {
        // A pod that is not Ready is judged by the policy, not by the allowance.
        let held = budget.policy == UnhealthyPolicy::IfHealthyBudget && s.current_healthy < s.desired_healthy;
        return held.then_some(Blocker::HeldWhileUnhealthy {
            budget: name,
            healthy: s.current_healthy,
            desired: s.desired_healthy,
        });
    }
    if s.disruptions_allowed > 0 {
        return None;
    }
    if s.never_allows() {
        return Some(Blocker::BudgetNever { budget: name, expected: s.expected_pods, desired: s.desired_healthy });
    }
    // One more healthy pod than desired allows one disruption.
    let to_become_ready = s.desired_healthy.saturating_sub(s.current_healthy).saturating_add(1).max(1);
    Some(Blocker::BudgetAtZero {
        budget: name,
        healthy: s.current_healthy,
        desired: s.desired_healthy,
        to_become_ready,
    })
}

/// Every class [`Blocker::class`] names, and `unknown` for a pod that waits with no blocker known: a metric's
/// label values, a fixed set whatever a budget or a webhook is called.
pub const CLASSES: [&str; 11] = [
    "budget-at-zero",
    "budget-never",
    "held-while-unhealthy",
    "two-budgets",
    "webhook-denied",
    "finalizers",
    "shutting-down",
    "replacement-pending",
    "namespace-terminating",
    "owner-asked",
    "unknown",
];

impl Blocker {
    /// The kind of blocker, one of [`CLASSES`]: never a budget's or a pod's name.
    pub fn class(&self) -> &'static str {
        match self {
            Blocker::BudgetAtZero { .. } => "budget-at-zero",
            Blocker::BudgetNever { .. } => "budget-never",
            Blocker::HeldWhileUnhealthy { .. } => "held-while-unhealthy",
            Blocker::TwoBudgets { .. } => "two-budgets",
            Blocker::WebhookDenied { .. } => "webhook-denied",
            Blocker::Finalizers { .. } => "finalizers",
            Blocker::ShuttingDown { .. } => "shutting-down",
            Blocker::ReplacementPending { .. } => "replacement-pending",
            Blocker::NamespaceTerminating { .. } => "namespace-terminating",
            Blocker::OwnerAsked { .. } => "owner-asked",
        }
    }

    /// Whether this budget waits for pods to become Ready, which a replacement the scheduler cannot place never
    /// will.
    pub fn waits_for_replacement(&self) -> bool {
        matches!(self, Blocker::BudgetAtZero { .. } | Blocker::HeldWhileUnhealthy { .. })
    }

    /// What would unblock, the cheapest first.
    pub fn fixes(&self) -> Vec<Fix> {
        match self {
            Blocker::BudgetAtZero { budget, to_become_ready, .. } => vec![
                Fix::ScaleUp { by: *to_become_ready },
                Fix::RelaxBudget { budget: budget.clone() },
                Fix::CancelOrTimeout,
            ],
            Blocker::BudgetNever { budget, .. } => {
                vec![Fix::ScaleUp { by: 1 }, Fix::RelaxBudget { budget: budget.clone() }, Fix::CancelOrTimeout]
            }
            Blocker::HeldWhileUnhealthy { budget, .. } => {
                vec![Fix::DeleteUnreadyPod, Fix::AlwaysAllow { budget: budget.clone() }, Fix::CancelOrTimeout]
            }
            // Both fail the pod's eviction (as kubectl's does): there is no wait to cut short.
            Blocker::TwoBudgets { .. } => vec![Fix::OneBudget],
            Blocker::WebhookDenied { .. } => vec![Fix::AskWebhookOwner],
            Blocker::Finalizers { .. } => vec![Fix::RemoveFinalizers, Fix::CancelOrTimeout],
            Blocker::ShuttingDown { left_seconds } => vec![Fix::Wait { seconds: *left_seconds }],
            Blocker::ReplacementPending { .. } => vec![Fix::MakeRoom, Fix::CancelOrTimeout],
            Blocker::NamespaceTerminating { .. } | Blocker::OwnerAsked { .. } => vec![Fix::CancelOrTimeout],
        }
    }

    /// The class's stable name, in kebab case: what pages and their tests match a blocker by.
    pub fn key(&self) -> &'static str {
        match self {
            Blocker::BudgetAtZero { .. } => "budget-at-zero",
            Blocker::BudgetNever { .. } => "budget-never",
            Blocker::HeldWhileUnhealthy { .. } => "held-while-unhealthy",
            Blocker::TwoBudgets { .. } => "two-budgets",
            Blocker::WebhookDenied { .. } => "webhook-denied",
            Blocker::Finalizers { .. } => "finalizers",
            Blocker::ShuttingDown { .. } => "shutting-down",
            Blocker::ReplacementPending { .. } => "replacement-pending",
            Blocker::NamespaceTerminating { .. } => "namespace-terminating",
            Blocker::OwnerAsked { .. } => "owner-asked",
        }
    }
}

/// Why a Ready or not-Ready pod whose eviction a budget refused stays: `budgets`, every budget that covers it.
/// What the drain knows when the API server answers 429.
pub fn budget_refused(ready: bool, budgets: &[&PdbInfo], now: Timestamp) -> Vec<Blocker> {
    let pod = WaitingPod {
        ready,
        budgets: budgets.iter().map(|b| Budget::from(*b)).collect(),
        last_answer: Some(LastAnswer::Budget),
        ..Default::default()
    };
    explain(&pod, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    const NOW: &str = "2026-12-03T10:00:00Z";

    fn budget(name: &str, allowed: i32, healthy: i32, desired: i32, expected: i32) -> Budget {
        Budget {
            status: PdbStatus {
                name: name.into(),
                disruptions_allowed: allowed,
                current_healthy: healthy,
                desired_healthy: desired,
                expected_pods: expected,
            },
            policy: UnhealthyPolicy::IfHealthyBudget,
        }
    }

    fn pod(budgets: Vec<Budget>) -> WaitingPod {
        WaitingPod { namespace: "shop".into(), name: "web-1".into(), ready: true, budgets, ..Default::default() }
    }

    #[test]
    fn a_budget_at_zero_with_every_pod_healthy_needs_one_more_ready_elsewhere() {
        let p = pod(vec![budget("web-pdb", 0, 3, 3, 4)]);
        let blockers = explain(&p, ts(NOW));
        assert_eq!(
            blockers,
            [Blocker::BudgetAtZero { budget: "web-pdb".into(), healthy: 3, desired: 3, to_become_ready: 1 }]
        );
        assert_eq!(
            blockers[0].fixes(),
            [Fix::ScaleUp { by: 1 }, Fix::RelaxBudget { budget: "web-pdb".into() }, Fix::CancelOrTimeout]
        );
        // Two short: two must become Ready before one may go.
        let short = pod(vec![budget("web-pdb", 0, 2, 3, 4)]);
        assert!(matches!(explain(&short, ts(NOW))[0], Blocker::BudgetAtZero { to_become_ready: 2, .. }));
    }

    #[test]
    fn a_budget_that_needs_every_pod_never_allows() {
        let p = pod(vec![budget("db-pdb", 0, 3, 3, 3)]);
        assert_eq!(explain(&p, ts(NOW)), [Blocker::BudgetNever { budget: "db-pdb".into(), expected: 3, desired: 3 }]);
    }

    #[test]
    fn a_budget_that_allows_a_disruption_blocks_nothing() {
        assert_eq!(explain(&pod(vec![budget("web-pdb", 1, 4, 3, 4)]), ts(NOW)), []);
        assert_eq!(explain(&pod(Vec::new()), ts(NOW)), []);
    }

    #[test]
    fn a_not_ready_pod_is_held_only_by_an_unhealthy_budget_under_if_healthy_budget() {
        let mut p = pod(vec![budget("web-pdb", 0, 2, 3, 3)]);
        p.ready = false;
        let blockers = explain(&p, ts(NOW));
        assert_eq!(blockers, [Blocker::HeldWhileUnhealthy { budget: "web-pdb".into(), healthy: 2, desired: 3 }]);
        assert_eq!(
            blockers[0].fixes(),
            [Fix::DeleteUnreadyPod, Fix::AlwaysAllow { budget: "web-pdb".into() }, Fix::CancelOrTimeout]
        );
        // AlwaysAllow lets it go, however unhealthy the budget.
        p.budgets[0].policy = UnhealthyPolicy::AlwaysAllow;
        assert_eq!(explain(&p, ts(NOW)), []);
        // A healthy budget lets a not-Ready pod go even at zero allowed disruptions.
        let mut p = pod(vec![budget("web-pdb", 0, 3, 3, 4)]);
        p.ready = false;
        assert_eq!(explain(&p, ts(NOW)), []);
        assert_eq!(UnhealthyPolicy::parse(Some("AlwaysAllow")), UnhealthyPolicy::AlwaysAllow);
        assert_eq!(UnhealthyPolicy::parse(None), UnhealthyPolicy::IfHealthyBudget);
        assert_eq!(UnhealthyPolicy::parse(Some("Sometimes")), UnhealthyPolicy::IfHealthyBudget);
    }

    #[test]
    fn two_budgets_over_one_pod_are_both_named() {
        let p = pod(vec![budget("a", 1, 3, 2, 3), budget("b", 1, 3, 2, 3)]);
        assert_eq!(explain(&p, ts(NOW)), [Blocker::TwoBudgets { budgets: vec!["a".into(), "b".into()] }]);
        let mut told = pod(vec![budget("a", 1, 3, 2, 3)]);
        told.last_answer = Some(LastAnswer::TwoBudgets);
        assert!(matches!(&explain(&told, ts(NOW))[0], Blocker::TwoBudgets { .. }), "the API server's 500 says so");
    }

    #[test]
    fn a_webhook_and_a_terminating_namespace_are_named() {
        let mut p = pod(Vec::new());
        p.last_answer = Some(LastAnswer::Webhook {
            webhook: "deny.example.com".into(),
            configuration: Some("deny-evictions".into()),
            message: "frozen".into(),
        });
        assert!(matches!(
            &explain(&p, ts(NOW))[0],
            Blocker::WebhookDenied { configuration: Some(c), message, .. } if c == "deny-evictions" && message == "frozen"
        ));
        let mut p = pod(Vec::new());
        p.namespace_terminating = true;
        assert_eq!(explain(&p, ts(NOW)), [Blocker::NamespaceTerminating { namespace: "shop".into() }]);
    }

    #[test]
    fn a_deleting_pod_shuts_down_within_its_grace_then_finalizers_hold_it() {
        let mut p = pod(vec![budget("web-pdb", 0, 3, 3, 4)]);
        p.deletion_deadline = Some(ts("2026-12-03T10:01:30Z"));
        p.finalizers = vec!["example.com/flush".into()];
        assert_eq!(explain(&p, ts(NOW)), [Blocker::ShuttingDown { left_seconds: 90 }], "budgets no longer matter");
        assert_eq!(explain(&p, ts(NOW))[0].fixes(), [Fix::Wait { seconds: 90 }]);
        p.deletion_deadline = Some(ts("2026-12-03T09:59:40Z"));
        assert_eq!(explain(&p, ts(NOW)), [Blocker::Finalizers { finalizers: vec!["example.com/flush".into()] }]);
        p.finalizers.clear();
        assert_eq!(explain(&p, ts(NOW)), [], "past its grace with nothing holding it: the kubelet has not confirmed");
    }

    #[test]
    fn a_pending_replacement_explains_a_budget_that_cannot_recover() {
        let mut p = pod(vec![budget("web-pdb", 0, 3, 3, 4)]);
        p.pending = vec![PendingPod {
            name: "web-9".into(),
            reason: "Unschedulable".into(),
            message: "0/5 nodes are available: 5 Insufficient cpu.".into(),
        }];
        let blockers = explain(&p, ts(NOW));
        assert_eq!(blockers.len(), 2);
        assert!(matches!(&blockers[1], Blocker::ReplacementPending { pod, .. } if pod == "web-9"));
        // Without a budget in the way, a Pending pod of the workload is not this pod's blocker.
        let mut free = pod(Vec::new());
        free.pending = p.pending.clone();
        assert_eq!(explain(&free, ts(NOW)), []);
    }

    #[test]
    fn a_webhooks_denial_is_read_from_the_api_servers_words() {
        assert_eq!(
            webhook_denial("admission webhook \"deny.example.com\" denied the request: backups run until 03:00"),
            Some(("deny.example.com".into(), "backups run until 03:00".into()))
        );
        assert_eq!(
            webhook_denial("admission webhook \"deny.example.com\" denied the request without explanation"),
            Some(("deny.example.com".into(), "without explanation".into()))
        );
        assert_eq!(webhook_denial("Cannot evict pod as it would violate the pod's disruption budget."), None);
        assert_eq!(webhook_denial("admission webhook \"\" denied the request: x"), None);
        assert_eq!(webhook_denial("admission webhook \"unterminated"), None);
        let long = format!("admission webhook \"w\" denied the request: {}", "é".repeat(2000));
        let (_, own) = webhook_denial(&long).expect("a denial");
        assert_eq!(own.chars().count(), MAX_MESSAGE_CHARS + 1, "cut, with its ellipsis");
        assert!(own.ends_with('…'));
    }

    #[test]
    fn the_owners_request_is_read_from_either_annotation() {
        let with = |k: &str, v: &str| BTreeMap::from([(k.to_string(), v.to_string())]);
        assert_eq!(owner_asked(&with("karpenter.sh/do-not-disrupt", "true")), Some("karpenter.sh/do-not-disrupt"));
        assert_eq!(
            owner_asked(&with("cluster-autoscaler.kubernetes.io/safe-to-evict", "false")),
            Some("cluster-autoscaler.kubernetes.io/safe-to-evict")
        );
        assert_eq!(owner_asked(&with("karpenter.sh/do-not-disrupt", "false")), None);
        assert_eq!(owner_asked(&BTreeMap::new()), None);
        let mut p = pod(Vec::new());
        p.annotations = with("karpenter.sh/do-not-disrupt", "true");
        assert_eq!(explain(&p, ts(NOW)), [Blocker::OwnerAsked { annotation: "karpenter.sh/do-not-disrupt".into() }]);
    }

    #[test]
    fn only_a_pod_held_while_unhealthy_may_be_unblocked_and_the_word_names_what_changes() {
        let held = [Blocker::HeldWhileUnhealthy { budget: "web-pdb".into(), healthy: 1, desired: 2 }];
        assert_eq!(Unblock::budget(&held), Some("web-pdb"));
        let at_zero = [Blocker::BudgetAtZero { budget: "web-pdb".into(), healthy: 2, desired: 2, to_become_ready: 1 }];
        assert_eq!(Unblock::budget(&at_zero), None, "a Ready pod's budget is not the pod's to unblock");
        assert_eq!(Unblock::DeleteUnreadyPod.consent_word("web-1", "web-pdb"), "web-1");
        assert_eq!(Unblock::AlwaysAllow.consent_word("web-1", "web-pdb"), "web-pdb");
    }
}
