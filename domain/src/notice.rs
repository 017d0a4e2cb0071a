//! Notices: what Drainboard tells the team's chat and systems as maintenance goes (a plan started, a node blocked
//! too long, a node done, a plan ended, a window overridden), and the two bodies it sends them in: a
//! Slack-compatible incoming-webhook body, and a CloudEvent in its structured JSON form. Pure: the id, the time and
//! the source are arguments; the engine sends them.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// One thing worth telling.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Notice {
    PlanStarted {
        plan: String,
        by: String,
        nodes: usize,
        reason: Option<String>,
    },
    /// A node the plan would start has waited longer than the threshold: what holds it, in words.
    NodeBlocked {
        plan: String,
        node: String,
        why: String,
        seconds: u64,
    },
    /// A node is done: drained, and with `uncordon_when_back` back and uncordoned; `verified` when it checked out.
    NodeDone {
        plan: String,
        node: String,
        verified: bool,
    },
    /// `Complete`, `Failed` or `Cancelled`, with the nodes that failed.
    PlanEnded {
        plan: String,
        phase: String,
        failed: Vec<String>,
    },
    WindowOverridden {
        node: String,
        by: String,
        reason: String,
        why: String,
    },
    /// To an app team (`crate::teams`): a plan will reach `node`, where these pods of theirs run, not before
    /// `expected`.
    TeamAhead {
        plan: String,
        node: String,
        team: String,
        namespaces: Vec<String>,
        pods: Vec<String>,
        more: usize,
        expected: Timestamp,
    },
    /// To an app team: their pods on `node` were evicted, for their controllers to place elsewhere.
    TeamEvicted {
        plan: String,
        node: String,
        team: String,
    },
    /// To an app team: `node` is back in service.
    TeamBack {
        plan: String,
        node: String,
        team: String,
    },
}

impl Notice {
    /// The CloudEvent `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            Notice::PlanStarted { .. } => "dev.drainboard.plan.started",
            Notice::NodeBlocked { .. } => "dev.drainboard.node.blocked",
            Notice::NodeDone { .. } => "dev.drainboard.node.done",
            Notice::PlanEnded { .. } => "dev.drainboard.plan.ended",
            Notice::WindowOverridden { .. } => "dev.drainboard.window.overridden",
            Notice::TeamAhead { .. } => "dev.drainboard.team.ahead",
            Notice::TeamEvicted { .. } => "dev.drainboard.team.evicted",
            Notice::TeamBack { .. } => "dev.drainboard.team.back",
        }
    }

    /// What it is about: the plan, or the node.
    pub fn subject(&self) -> &str {
        match self {
            Notice::PlanStarted { plan, .. } | Notice::PlanEnded { plan, .. } => plan,
            Notice::NodeBlocked { node, .. }
            | Notice::NodeDone { node, .. }
            | Notice::WindowOverridden { node, .. }
            | Notice::TeamAhead { node, .. }
            | Notice::TeamEvicted { node, .. }
            | Notice::TeamBack { node, .. } => node,
        }
    }

    /// One line for a chat.
    pub fn text(&self) -> String {
        match self {
            Notice::PlanStarted { plan, by, nodes, reason } => {
                let why = reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default();
                format!("Maintenance plan {plan} started by {by}, {nodes} node(s){why}")
            }
            Notice::NodeBlocked { plan, node, why, seconds } => {
                format!("Plan {plan}: {node} has waited {seconds} s: {why}")
            }
            Notice::NodeDone { plan, node, verified: true } => format!("Plan {plan}: {node} is done and verified"),
            Notice::NodeDone { plan, node, verified: false } => format!("Plan {plan}: {node} is done"),
            Notice::PlanEnded { plan, phase, failed } if failed.is_empty() => {
                format!("Maintenance plan {plan}: {phase}")
            }
            Notice::PlanEnded { plan, phase, failed } => {
                format!("Maintenance plan {plan}: {phase} (failed: {})", failed.join(", "))
            }
            Notice::WindowOverridden { node, by, reason, why } => {
                format!("{by} overrode a maintenance window on {node} ({why}): {reason}")
            }
            Notice::TeamAhead { plan, node, namespaces, pods, more, expected, .. } => {
                let more = if *more > 0 { format!(" and {more} more") } else { String::new() };
                format!(
                    "Maintenance plan {plan} will drain {node} from {} at the earliest: your pods there in {} will be \
                     evicted and placed elsewhere by their controllers ({}{more})",
                    expected.strftime("%Y-%m-%d %H:%M UTC"),
                    namespaces.join(", "),
                    pods.join(", ")
                )
            }
            Notice::TeamEvicted { plan, node, .. } => {
                format!("Maintenance plan {plan}: your pods on {node} were evicted")
            }
            Notice::TeamBack { plan, node, .. } => format!("Maintenance plan {plan}: {node} is back in service"),
        }
    }
}

/// A Slack-compatible incoming-webhook body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlackBody {
    pub text: String,
}

pub fn slack(notice: &Notice) -> SlackBody {
    SlackBody { text: notice.text() }
}

/// A CloudEvent (v1.0) in the structured JSON form (`application/cloudevents+json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloudEvent {
    pub specversion: String,
    pub id: String,
    pub source: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub subject: String,
    pub time: Timestamp,
    pub datacontenttype: String,
    pub data: Notice,
}

/// `notice` as a CloudEvent with `id` (unique per notice, the same on every retry, so that a receiver can drop a
/// duplicate), sent by `source` at `time`.
pub fn cloud_event(notice: &Notice, id: String, source: String, time: Timestamp) -> CloudEvent {
    CloudEvent {
        specversion: "1.0".into(),
        id,
        source,
        kind: notice.kind().into(),
        subject: notice.subject().into(),
        time,
        datacontenttype: "application/json".into(),
        data: notice.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_notice_has_its_type_subject_and_line() {
        let cases = [
            (
                Notice::PlanStarted { plan: "m-1".into(), by: "ann".into(), nodes: 3, reason: Some("kernel".into()) },
                "dev.drainboard.plan.started",
                "m-1",
                "Maintenance plan m-1 started by ann, 3 node(s): kernel",
            ),
            (
                Notice::NodeBlocked { plan: "m-1".into(), node: "n2".into(), why: "frozen".into(), seconds: 600 },
                "dev.drainboard.node.blocked",
                "n2",
                "Plan m-1: n2 has waited 600 s: frozen",
            ),
            (
                Notice::NodeDone { plan: "m-1".into(), node: "n2".into(), verified: true },
                "dev.drainboard.node.done",
                "n2",
                "Plan m-1: n2 is done and verified",
            ),
            (
                Notice::PlanEnded { plan: "m-1".into(), phase: "Failed".into(), failed: vec!["n3".into()] },
                "dev.drainboard.plan.ended",
                "m-1",
                "Maintenance plan m-1: Failed (failed: n3)",
            ),
            (
                Notice::WindowOverridden {
                    node: "n4".into(),
                    by: "bo".into(),
                    reason: "disk".into(),
                    why: "frozen".into(),
                },
                "dev.drainboard.window.overridden",
                "n4",
                "bo overrode a maintenance window on n4 (frozen): disk",
            ),
            (
                Notice::TeamAhead {
                    plan: "m-1".into(),
                    node: "n5".into(),
                    team: "payments".into(),
                    namespaces: vec!["pay".into()],
                    pods: vec!["pay/api-1".into()],
                    more: 3,
                    expected: "2026-12-07T22:00:00Z".parse().unwrap(),
                },
                "dev.drainboard.team.ahead",
                "n5",
                "Maintenance plan m-1 will drain n5 from 2026-12-07 22:00 UTC at the earliest: your pods there in pay \
                 will be evicted and placed elsewhere by their controllers (pay/api-1 and 3 more)",
            ),
            (
                Notice::TeamEvicted { plan: "m-1".into(), node: "n5".into(), team: "payments".into() },
                "dev.drainboard.team.evicted",
                "n5",
                "Maintenance plan m-1: your pods on n5 were evicted",
            ),
            (
                Notice::TeamBack { plan: "m-1".into(), node: "n5".into(), team: "payments".into() },
                "dev.drainboard.team.back",
                "n5",
                "Maintenance plan m-1: n5 is back in service",
            ),
        ];
        for (notice, kind, subject, text) in cases {
            assert_eq!((notice.kind(), notice.subject(), slack(&notice).text.as_str()), (kind, subject, text));
        }
    }

    #[test]
    fn a_cloud_event_carries_the_notice_as_its_data() {
        let notice = Notice::NodeDone { plan: "m-1".into(), node: "n2".into(), verified: false };
        let at: Timestamp = "2026-12-05T08:00:00Z".parse().unwrap();
        let event = cloud_event(&notice, "id-1".into(), "drainboard/host".into(), at);
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["specversion"], "1.0");
        assert_eq!(json["type"], "dev.drainboard.node.done");
        assert_eq!(json["subject"], "n2");
        assert_eq!(json["time"], "2026-12-05T08:00:00Z");
        assert_eq!(
            json["data"],
            serde_json::json!({"event": "node_done", "plan": "m-1", "node": "n2", "verified": false})
        );
    }
}
