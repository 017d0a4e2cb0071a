//! A plan's pin as its status keeps it (`status.pinned`): the spec a person confirmed, with who, when and the
//! servers' seal (`super::seal`), in the resource's camelCase. The rule that reads it is `domain::pin`.

use domain::rollout::{OthersAtWork, RolloutOptions};
use jiff::Timestamp;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::drain::{PlanDrain, PlanVerify};

/// What a person confirmed of a plan, and when: written by the server that runs it, sealed with a key only the
/// servers read (`super::seal`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanPin {
    /// The spec's `metadata.generation` confirmed.
    pub generation: i64,
    /// Who confirmed it: the person who started or continued the plan, or the unattended identity for a plan whose
    /// every change was judged at admission.
    pub by: String,
    #[schemars(with = "String")]
    pub at: Timestamp,
    pub spec: PinnedSpec,
    /// HMAC-SHA256 of the plan's uid and the fields above, hex.
    pub seal: String,
}

/// The spec's fields that decide what a plan drains and how (`domain::pin::Pinned`), as the spec names them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PinnedSpec {
    #[serde(default)]
    #[schemars(length(max = 500))]
    pub nodes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<String>,
    #[schemars(with = "i32")]
    pub max_parallel: u32,
    #[serde(default)]
    pub one_per_zone: bool,
    #[serde(default)]
    pub stop_on_failure: bool,
    #[serde(default)]
    pub uncordon_when_back: bool,
    #[serde(default)]
    pub drain: PlanDrain,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<PlanVerify>,
    #[serde(default)]
    #[schemars(with = "i32")]
    pub settle_seconds: u32,
    /// Left out when `Wait`, so that a pin sealed before the field existed still checks out.
    #[serde(default, skip_serializing_if = "OthersAtWork::is_wait")]
    pub others_at_work: OthersAtWork,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_override: Option<String>,
    #[serde(default)]
    pub unattended: bool,
}

impl PinnedSpec {
    /// The rule's view of it.
    pub fn to_domain(&self) -> domain::pin::Pinned {
        domain::pin::Pinned {
            nodes: self.nodes.clone(),
            node_selector: self.node_selector.clone(),
            options: RolloutOptions {
                max_parallel: self.max_parallel,
                one_per_zone: self.one_per_zone,
                stop_on_failure: self.stop_on_failure,
                drain: (&self.drain).into(),
                uncordon_when_back: self.uncordon_when_back,
                verify: self.verify.as_ref().map(Into::into),
                unattended: self.unattended,
                settle_seconds: self.settle_seconds.into(),
                others_at_work: self.others_at_work,
            },
            window_override: self.window_override.clone(),
        }
    }
}
