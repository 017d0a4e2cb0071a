//! A plan's node as the status keeps it ([`PlanNode`]), to and from the page's view (`domain::rollout::RolloutNode`):
//! steps and outcomes by name, what carries more as data beside it, and English words where `kubectl` shows them.
//! A status an older build wrote, with that data as JSON inside strings, still reads.

use domain::{
    progress::DrainState,
    rollout::{Back, RolloutNode, Step},
    verify::CheckFailure,
};

use super::resource::PlanNode;

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
            told: self.told.clone(),
        }
    }
}
