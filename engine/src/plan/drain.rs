//! Parts of a plan's spec in camelCase, as Kubernetes objects write them: its drain options, as `kubectl drain`
//! names them (a single drain's `domain::drain::DrainOptions`, less the dry run: a plan drains for real), and what
//! it verifies of each node once back (`domain::verify::Verify`); and, in the status, what each node's drain
//! touched (`domain::recovery::Touched`) and what it was expected to take (`domain::estimate::Estimate`).

use domain::{
    drain::{DrainOptions, DryRun},
    estimate::{Basis, Estimate, Reboots},
    recovery::{BudgetBefore, MAX_TOUCHED, Touched, WorkloadRef},
    verify::Verify,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A drain's options, as `kubectl drain` names them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanDrain {
    #[serde(default)]
    pub force: bool,
    #[serde(default)]
    pub ignore_daemonsets: bool,
    #[serde(default)]
    pub delete_emptydir_data: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<i64>", range(min = 0))]
    pub timeout_seconds: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_selector: Option<String>,
    #[serde(default)]
    pub disable_eviction: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<i64>", range(min = 0))]
    pub skip_wait_for_delete_timeout_seconds: Option<u64>,
    /// Refuse a node while a pod's owner asked that it not be disrupted (not kubectl's; off by default).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub respect_do_not_disrupt: bool,
}

impl From<&PlanDrain> for DrainOptions {
    fn from(d: &PlanDrain) -> Self {
        DrainOptions {
            force: d.force,
            ignore_daemonsets: d.ignore_daemonsets,
            delete_emptydir_data: d.delete_emptydir_data,
            grace_period_seconds: d.grace_period_seconds,
            timeout_seconds: d.timeout_seconds,
            pod_selector: d.pod_selector.clone(),
            disable_eviction: d.disable_eviction,
            skip_wait_for_delete_timeout_seconds: d.skip_wait_for_delete_timeout_seconds,
            respect_do_not_disrupt: d.respect_do_not_disrupt,
            // A plan drains for real; a dry run is a preview, which is not kept.
            dry_run: DryRun::None,
        }
    }
}

impl From<&DrainOptions> for PlanDrain {
    fn from(d: &DrainOptions) -> Self {
        PlanDrain {
            force: d.force,
            ignore_daemonsets: d.ignore_daemonsets,
            delete_emptydir_data: d.delete_emptydir_data,
            grace_period_seconds: d.grace_period_seconds,
            timeout_seconds: d.timeout_seconds,
            pod_selector: d.pod_selector.clone(),
            disable_eviction: d.disable_eviction,
            skip_wait_for_delete_timeout_seconds: d.skip_wait_for_delete_timeout_seconds,
            respect_do_not_disrupt: d.respect_do_not_disrupt,
        }
    }
}

/// What a plan checks of each node once it is back, before it is uncordoned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanVerify {
    /// How long a drained node has to come back and pass every check, from the end of its drain (default 600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<i64>", range(min = 1, max = 86400))]
    pub deadline_seconds: Option<u64>,
    /// Expected `status.nodeInfo` values, each exact or a prefix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubelet_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_runtime: Option<String>,
    /// Go on with the next nodes when one fails its checks (it stays cordoned either way).
    #[serde(default)]
    pub continue_on_failure: bool,
}

impl From<&PlanVerify> for Verify {
    fn from(v: &PlanVerify) -> Self {
        let default = Verify::default();
        Verify {
            deadline_seconds: v.deadline_seconds.unwrap_or(default.deadline_seconds),
            kubelet_version: v.kubelet_version.clone(),
            kernel_version: v.kernel_version.clone(),
            os_image: v.os_image.clone(),
            container_runtime: v.container_runtime.clone(),
            continue_on_failure: v.continue_on_failure,
        }
    }
}

impl From<&Verify> for PlanVerify {
    fn from(v: &Verify) -> Self {
        PlanVerify {
            deadline_seconds: Some(v.deadline_seconds),
            kubelet_version: v.kubelet_version.clone(),
            kernel_version: v.kernel_version.clone(),
            os_image: v.os_image.clone(),
            container_runtime: v.container_runtime.clone(),
            continue_on_failure: v.continue_on_failure,
        }
    }
}

/// What a node's drain touched (`domain::recovery::Touched`), as the status keeps it: recorded when the drain
/// starts, in a plan that verifies, and checked once the node is back.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanTouched {
    /// The controllers of the pods it evicts, as `Kind namespace/name` parts.
    #[serde(default)]
    #[schemars(length(max = 250))]
    pub workloads: Vec<PlanWorkload>,
    /// The budgets covering those pods, with the disruptions each allowed then.
    #[serde(default)]
    #[schemars(length(max = 250))]
    pub budgets: Vec<PlanBudget>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanWorkload {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanBudget {
    pub namespace: String,
    pub name: String,
    pub allowed_before: i32,
}

impl From<&Touched> for PlanTouched {
    fn from(t: &Touched) -> Self {
        PlanTouched {
            workloads: t
                .workloads
                .iter()
                .map(|w| PlanWorkload { kind: w.kind.clone(), namespace: w.namespace.clone(), name: w.name.clone() })
                .collect(),
            budgets: t
                .budgets
                .iter()
                .map(|b| PlanBudget { namespace: b.namespace.clone(), name: b.name.clone(), allowed_before: b.allowed })
                .collect(),
        }
    }
}

impl From<&PlanTouched> for Touched {
    /// Held to [`MAX_TOUCHED`] again: the status is whatever its writers wrote.
    fn from(t: &PlanTouched) -> Self {
        Touched {
            workloads: t
                .workloads
                .iter()
                .take(MAX_TOUCHED)
                .map(|w| WorkloadRef { kind: w.kind.clone(), namespace: w.namespace.clone(), name: w.name.clone() })
                .collect(),
            budgets: t
                .budgets
                .iter()
                .take(MAX_TOUCHED)
                .map(|b| BudgetBefore {
                    namespace: b.namespace.clone(),
                    name: b.name.clone(),
                    allowed: b.allowed_before,
                })
                .collect(),
        }
    }
}

/// A drain's or the whole plan's estimate (`domain::estimate::Estimate`), as the status keeps it: written once,
/// as the plan starts, so that each node's real time can be read beside what was expected.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanEstimate {
    #[schemars(with = "i64")]
    pub low_seconds: u64,
    #[schemars(with = "i64")]
    pub likely_seconds: u64,
    #[schemars(with = "i64")]
    pub high_seconds: u64,
    /// How many past drains' stop times it learned from (0: the pods' grace periods alone).
    #[serde(default)]
    #[schemars(with = "i32")]
    pub past_drains: u32,
    /// Those drains were of this plan's own nodes.
    #[serde(default)]
    pub own_nodes: bool,
    /// The drains' timeout, where the high end reaches it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<i64>")]
    pub timeout_seconds: Option<u64>,
    /// What the figures count of the waits for nodes to come back: `NotAwaited`, `UpTo` (the high end counts each
    /// node's deadline, `rebootSeconds`) or `Unbounded` (the figures count the drains alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reboots: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<i64>")]
    pub reboot_seconds: Option<u64>,
}

impl From<&Estimate> for PlanEstimate {
    fn from(e: &Estimate) -> Self {
        let (past_drains, own_nodes) = match e.basis {
            Basis::GracePeriods => (0, false),
            Basis::PastDrains { drains, this_node } => (drains, this_node),
        };
        let (reboots, reboot_seconds) = match e.reboots {
            Reboots::NotAwaited => (None, None),
            Reboots::UpTo { seconds } => (Some("UpTo"), Some(seconds)),
            Reboots::Unbounded => (Some("Unbounded"), None),
        };
        PlanEstimate {
            low_seconds: e.low_seconds,
            likely_seconds: e.likely_seconds,
            high_seconds: e.high_seconds,
            past_drains,
            own_nodes,
            timeout_seconds: e.timeout_seconds,
            reboots: reboots.map(str::to_owned),
            reboot_seconds,
        }
    }
}

impl From<&PlanEstimate> for Estimate {
    fn from(e: &PlanEstimate) -> Self {
        Estimate {
            low_seconds: e.low_seconds,
            likely_seconds: e.likely_seconds,
            high_seconds: e.high_seconds,
            basis: match e.past_drains {
                0 => Basis::GracePeriods,
                drains => Basis::PastDrains { drains, this_node: e.own_nodes },
            },
            timeout_seconds: e.timeout_seconds,
            reboots: match (e.reboots.as_deref(), e.reboot_seconds) {
                (Some("UpTo"), Some(seconds)) => Reboots::UpTo { seconds },
                (Some("Unbounded"), _) => Reboots::Unbounded,
                _ => Reboots::NotAwaited,
            },
        }
    }
}

/// A condition, in Kubernetes' own type (`metav1.Condition`), schema and all.
pub use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition as PlanCondition;

/// A status field kept as a domain type's own JSON (`domain::plan_block::Blocked`, a mix of bare names and objects
/// that a structural schema cannot spell): the API server keeps it as written, and the reader checks it, since
/// anyone who may patch the status may write it (it is shown, never acted on).
pub(super) fn any_value(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "x-kubernetes-preserve-unknown-fields": true })
}
