//! A plan's node as the status keeps it ([`PlanNode`]), to and from the page's view (`domain::rollout::RolloutNode`):
//! steps and outcomes by name, what carries more as data beside it, and English words where `kubectl` shows them.
//! A status an older build wrote, with that data as JSON inside strings, still reads.

use domain::{
    progress::DrainState,
    rollout::{Back, RolloutNode, Step},
    verify::CheckFailure,
};

use jiff::Timestamp;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::drain::{PlanEstimate, PlanTouched, any_value};

/// One node of a plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanNode {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<String>,
    /// `Queued`, `Draining`, `Ended` or `NotStarted`.
    pub step: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain_id: Option<String>,
    /// How its drain ended (`Drained`, `Failed`, `Cancelled`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// How its drain ended, whole, as data (a failure's answer, say); `outcome` is its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "any_value")]
    pub ended: Option<domain::progress::DrainState>,
    /// The same as JSON inside a string, as statuses written before `ended` keep it: read when `ended` is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome_detail: Option<String>,
    /// Whether it was cordoned before the plan touched it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cordoned_before: Option<bool>,
    /// With `uncordonWhenBack`, after its drain: `Waiting`, `Uncordoned`, `Failed` or `Left`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back: Option<String>,
    /// Its boot id when its drain ended, while it is awaited back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_id_before: Option<String>,
    /// In English words, for `kubectl describe`: the failure of the uncordon once back, or, `Unverified` and
    /// `Unrecovered`, the checks it failed. No code reads them back but to show a status an older build wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back_detail: Option<String>,
    /// `Failed`: the uncordon's failure, as data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "any_value")]
    pub back_failure: Option<domain::failure::Failure>,
    /// `Unverified` and `Unrecovered`: the checks it failed, as data, so that any replica's page words them in the
    /// reader's language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "any_value")]
    pub failed_checks: Option<Vec<domain::verify::CheckFailure>>,
    /// The same as JSON inside a string, as statuses written before `failedChecks` keep it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back_checks: Option<String>,
    /// When it began to be awaited back: the verification's deadline counts from here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub waiting_since: Option<Timestamp>,
    /// When it was first seen back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub back_seen: Option<Timestamp>,
    /// With verification: what its drain touched, recorded as it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub touched: Option<PlanTouched>,
    /// When it was done (drained, and back if awaited): the settle time counts from here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub done_at: Option<Timestamp>,
    /// Its drain's estimate, made as the plan started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<PlanEstimate>,
    /// When the plan's window override first let it past a maintenance window (the override was recorded then):
    /// a server that takes the plan over records it no more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub overridden_at: Option<Timestamp>,
    /// Taken as back on a person's word: `{"by": name or null, "new_boot": bool}`, `by` as the node's cordon record
    /// claims it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "any_value")]
    pub said_back: Option<domain::rollout::SaidBack>,
    /// Other tools seen taking it down when its turn came (`Actor` ids: `karpenter`, `cluster-autoscaler`, …): it
    /// waits for them, or was skipped for them (`spec.othersAtWork`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 11))]
    pub others_at_work: Vec<String>,
    /// What the app teams whose pods run on it were told (API.md, "App teams told"): a server taking the plan over
    /// tells nothing twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub told: Option<domain::teams::Told>,
}

/// A drain state from its name and, when it carries more, its JSON (as an older build wrote it).
fn state_from(outcome: Option<&str>, detail: Option<&str>) -> Option<DrainState> {
    if let Some(state) = detail.and_then(|d| serde_json::from_str(d).ok()) {
        return Some(state);
    }
    serde_json::from_value(serde_json::Value::String(outcome?.to_owned())).ok()
}

impl PlanNode {
    /// The node as the status records it.
    pub fn from_rollout(node: &RolloutNode) -> Self {
        let (step, drain_id, outcome) = match &node.step {
            Step::Queued => ("Queued", node.drain_id.clone(), None),
            Step::Draining(id) => ("Draining", Some(id.clone()), None),
            Step::Ended(state) => ("Ended", node.drain_id.clone(), Some(state)),
            Step::NotStarted => ("NotStarted", node.drain_id.clone(), None),
        };
        let checks = |failed: &[CheckFailure]| (Some(CheckFailure::english_all(failed)), None, Some(failed.to_vec()));
        let (back, boot_id_before, (back_detail, back_failure, failed_checks)) = match &node.back {
            None => (None, None, (None, None, None)),
            Some(Back::Waiting(boot)) => (Some("Waiting"), boot.clone(), (None, None, None)),
            Some(Back::Uncordoned) => (Some("Uncordoned"), None, (None, None, None)),
            Some(Back::Failed(failure)) => {
                (Some("Failed"), None, (Some(failure.english()), Some(failure.clone()), None))
            }
            Some(Back::Left) => (Some("Left"), None, (None, None, None)),
            Some(Back::Recovering) => (Some("Recovering"), None, (None, None, None)),
            Some(Back::Unrecovered(failed)) => (Some("Unrecovered"), None, checks(failed)),
            Some(Back::Unverified(failed)) => (Some("Unverified"), None, checks(failed)),
        };
        PlanNode {
            name: node.name.clone(),
            zone: node.zone.clone(),
            step: step.to_owned(),
            drain_id,
            outcome: outcome.map(|s| s.label().to_owned()),
            ended: outcome.cloned(),
            outcome_detail: None,
            cordoned_before: node.cordoned_before,
            back: back.map(str::to_owned),
            boot_id_before,
            back_detail,
            back_failure,
            failed_checks,
            back_checks: None,
            waiting_since: node.waiting_since,
            back_seen: node.back_seen,
            touched: node.touched.as_ref().map(Into::into),
            done_at: node.done_at,
            estimate: node.estimate.as_ref().map(Into::into),
            overridden_at: node.overridden_at,
            said_back: node.said_back.clone(),
            others_at_work: node.others.iter().map(|a| a.id().to_owned()).collect(),
            told: node.told.clone(),
        }
    }

    /// The checks it failed: as the status keeps them, or, written by an older build, as JSON in a string or as
    /// its words.
    fn failed_checks(&self) -> Vec<CheckFailure> {
        if let Some(failed) = &self.failed_checks {
            return failed.clone();
        }
        match self.back_checks.as_deref().and_then(|json| serde_json::from_str(json).ok()) {
            Some(failed) => failed,
            None => self.back_detail.iter().map(|text| CheckFailure::Text(text.clone())).collect(),
        }
    }

    /// The node as the page reads it. A step this server does not know (a newer server wrote it) reads as queued.
    pub fn to_rollout(&self) -> RolloutNode {
        let step = match (self.step.as_str(), &self.drain_id) {
            ("Draining", Some(id)) => Step::Draining(id.clone()),
            ("Ended", _) => Step::Ended(
                self.ended
                    .clone()
                    .or_else(|| state_from(self.outcome.as_deref(), self.outcome_detail.as_deref()))
                    .unwrap_or(DrainState::Interrupted),
            ),
            ("NotStarted", _) => Step::NotStarted,
            _ => Step::Queued,
        };
        let back = match self.back.as_deref() {
            Some("Waiting") => Some(Back::Waiting(self.boot_id_before.clone())),
            Some("Uncordoned") => Some(Back::Uncordoned),
            Some("Failed") => Some(Back::Failed(
                self.back_failure
                    .clone()
                    .or_else(|| self.back_detail.as_deref().and_then(|d| serde_json::from_str(d).ok()))
                    .unwrap_or(domain::failure::Failure::Internal { detail: "the uncordon failed".into() }),
            )),
            Some("Left") => Some(Back::Left),
            Some("Recovering") => Some(Back::Recovering),
            Some("Unrecovered") => Some(Back::Unrecovered(self.failed_checks())),
            Some("Unverified") => Some(Back::Unverified(self.failed_checks())),
            _ => None,
        };
        RolloutNode {
            name: self.name.clone(),
            zone: self.zone.clone(),
            step,
            drain_id: self.drain_id.clone(),
            back,
            cordoned_before: self.cordoned_before,
            waiting_since: self.waiting_since,
            back_seen: self.back_seen,
            touched: self.touched.as_ref().map(Into::into),
            done_at: self.done_at,
            estimate: self.estimate.as_ref().map(Into::into),
            overridden_at: self.overridden_at,
            said_back: self.said_back.clone(),
            others: self.others_at_work.iter().filter_map(|id| domain::actor::Actor::from_id(id)).collect(),
            told: self.told.clone(),
        }
    }
}
