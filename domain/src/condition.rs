//! A node condition as the dashboard keeps it, and how it reads: one home for the card, the lifecycle conditions of
//! [`crate::actor`] and the checks of a node back from maintenance.

use serde::{Deserialize, Serialize};

/// One row of a node's `status.conditions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: Option<String>,
    pub message: Option<String>,
    pub last_heartbeat: Option<jiff::Timestamp>,
    pub last_transition: Option<jiff::Timestamp>,
}

#[cfg(feature = "k8s")]
impl From<&k8s_openapi::api::core::v1::NodeCondition> for Condition {
    fn from(c: &k8s_openapi::api::core::v1::NodeCondition) -> Self {
        Condition {
            type_: c.type_.clone(),
            status: c.status.clone(),
            reason: c.reason.clone(),
            message: c.message.clone(),
            last_heartbeat: c.last_heartbeat_time.as_ref().map(|t| t.0),
            last_transition: c.last_transition_time.as_ref().map(|t| t.0),
        }
    }
}

/// A condition as the API writes it in `status.conditions`, for the card's JSON view. The browser writes it when
/// the view is opened, so that the cards on the wire do not carry every condition twice.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiCondition<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    last_heartbeat_time: Option<jiff::Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_transition_time: Option<jiff::Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    status: &'a str,
    #[serde(rename = "type")]
    type_: &'a str,
}

impl Condition {
    /// This condition in the API's own form and field order.
    pub fn as_api(&self) -> ApiCondition<'_> {
        ApiCondition {
            last_heartbeat_time: self.last_heartbeat,
            last_transition_time: self.last_transition,
            message: self.message.as_deref(),
            reason: self.reason.as_deref(),
            status: &self.status,
            type_: &self.type_,
        }
    }
}

/// How a condition reads for an operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConditionHealth {
    Good,
    Bad,
    Unknown,
}

impl Condition {
    /// `Ready` is good when True; every other condition (the pressures, `NetworkUnavailable`) is bad when True.
    pub fn health(&self) -> ConditionHealth {
        let good_when_true = self.type_ == "Ready";
        match (self.status.as_str(), good_when_true) {
            ("True", true) | ("False", false) => ConditionHealth::Good,
            ("True", false) | ("False", true) => ConditionHealth::Bad,
            _ => ConditionHealth::Unknown,
        }
    }
}
