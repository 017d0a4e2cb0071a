//! A plan's drain options, as `kubectl drain` names them and in camelCase, as Kubernetes objects write them; the
//! same as a single drain's `domain::drain::DrainOptions`, less the dry run (a plan drains for real).

use domain::drain::{DrainOptions, DryRun};
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
        }
    }
}
