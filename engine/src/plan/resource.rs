//! The `MaintenancePlan` resource (`drainboard.dev/v1alpha1`): a rolling maintenance kept in the Kubernetes API, so
//! that it outlives the server that runs it. The spec is what a person asks for (and what `kubectl patch` changes:
//! `paused`, `cancelled`); the status is where the plan is, node by node, written only by the server that runs it.
//!
//! Its fields are camelCase and plain (strings, numbers, lists), as Kubernetes objects are, so that `kubectl get -o
//! yaml` reads well and the schema stays structural. The page's view of a plan is `domain::rollout::RolloutProgress`;
//! [`MaintenancePlan::progress`] and [`PlanNode::from_rollout`] convert between the two.

use domain::rollout::{OthersAtWork, RolloutNode, RolloutOptions, RolloutProgress, RolloutState};
use jiff::Timestamp;
use kube::{CustomResource, ResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::drain::any_value;
pub use super::drain::{PlanCondition, PlanDrain, PlanEstimate, PlanVerify};
pub use super::node::PlanNode;
pub use super::pinned::{PinnedSpec, PlanPin};

/// The `Blocked` condition's reason while a maintenance window holds the next node: the plan waits, and goes on by
/// itself once the window allows.
pub const HELD_BY_WINDOW: &str = "MaintenanceWindow";

/// The finalizer a plan carries while a server may still have to stop its drains when it is deleted.
pub const FINALIZER: &str = "drainboard.dev/plan";
/// The annotation that names who asked for a plan through the page (a plan made with `kubectl apply` has none).
pub const STARTED_BY: &str = "drainboard.dev/started-by";

/// A rolling maintenance of some nodes: each drained as a single drain is, with limits on how many at once.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "drainboard.dev",
    version = "v1alpha1",
    kind = "MaintenancePlan",
    plural = "maintenanceplans",
    shortname = "mplan",
    status = "PlanStatus",
    derive = "PartialEq",
    doc = "A rolling maintenance of nodes that Drainboard runs: each node drained in turn, with limits.",
    printcolumn = r#"{"name": "Phase", "type": "string", "jsonPath": ".status.phase"}"#,
    printcolumn = r#"{"name": "Nodes", "type": "integer", "jsonPath": ".status.total"}"#,
    printcolumn = r#"{"name": "Done", "type": "integer", "jsonPath": ".status.done"}"#,
    printcolumn = r#"{"name": "Draining", "type": "integer", "jsonPath": ".status.draining"}"#,
    printcolumn = r#"{"name": "Awaited", "type": "integer", "jsonPath": ".status.awaited"}"#,
    printcolumn = r#"{"name": "Failed", "type": "integer", "jsonPath": ".status.failed"}"#,
    printcolumn = r#"{"name": "Unattended", "type": "boolean", "jsonPath": ".spec.unattended"}"#,
    printcolumn = r#"{"name": "Queued", "type": "integer", "jsonPath": ".status.queued", "priority": 1}"#,
    printcolumn = r#"{"name": "Left Cordoned", "type": "integer", "jsonPath": ".status.leftCordoned", "priority": 1}"#,
    printcolumn = r#"{"name": "Not Started", "type": "integer", "jsonPath": ".status.notStarted", "priority": 1}"#,
    printcolumn = r#"{"name": "Runner", "type": "string", "jsonPath": ".status.runner", "priority": 1}"#,
    printcolumn = r#"{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct PlanSpec {
    /// The nodes, in the order they are drained.
    #[serde(default)]
    #[schemars(length(max = 500))]
    pub nodes: Vec<String>,
    /// Or a label selector of nodes, resolved once when the plan starts and recorded in the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<String>,
    /// At most this many nodes in maintenance at once (1 to 50).
    #[serde(default = "domain::rollout::default_max_parallel")]
    // Typed as a signed integer in the schema: the API server knows no `uint32` format and warns of one.
    #[schemars(with = "i32", range(min = 1, max = 50))]
    pub max_parallel: u32,
    /// At most one node per zone (`topology.kubernetes.io/zone`) at once.
    #[serde(default)]
    pub one_per_zone: bool,
    /// Start no other node once one has failed.
    #[serde(default)]
    pub stop_on_failure: bool,
    /// Uncordon each drained node once it is back (a new boot id, or a person's word).
    #[serde(default)]
    pub uncordon_when_back: bool,
    /// Each node's drain options.
    #[serde(default)]
    pub drain: PlanDrain,
    /// With `uncordonWhenBack`: what each node must check out on once back, before it is uncordoned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<PlanVerify>,
    /// Why, recorded with every drain (at most 500 characters, as the page allows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 500))]
    pub reason: Option<String>,
    /// Run by the server's maintenance identity rather than as a person: only where the operator installed the
    /// `unattended` component (its admission policy checks the rights of whoever sets this), and the server runs
    /// with `--unattended-plans`.
    #[serde(default)]
    pub unattended: bool,
    /// Seconds to wait after a node is done before the next starts (0 to 3600; default 0).
    #[serde(default)]
    #[schemars(with = "i32", range(min = 0, max = 3600))]
    pub settle_seconds: u32,
    /// What the plan does with a node another tool (Karpenter, the cluster autoscaler, kured, …) is taking down
    /// when its turn comes: `Wait` (the default: passed over until the tool is done) or `Skip` (not started).
    #[serde(default, skip_serializing_if = "OthersAtWork::is_wait")]
    pub others_at_work: OthersAtWork,
    /// Start each node even while a maintenance window holds it, for this reason. Honoured only while whoever runs
    /// the plan may `update maintenancewindows/override`, asked of the API server as them at each such start (a
    /// plan written with `kubectl` gains nothing by setting it), and recorded for each node it lets start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 500))]
    pub window_override: Option<String>,
    /// No node starts while true; those in maintenance go on.
    #[serde(default)]
    pub paused: bool,
    /// Start nothing more and cancel the running drains; the plan ends `Cancelled`.
    #[serde(default)]
    pub cancelled: bool,
}

/// Where a plan is, written by the server that runs it. Its optional fields are written as `null` when empty, so
/// that a merge patch of the status clears them (a runner that has stopped, say) instead of leaving them be.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanStatus {
    /// The spec generation this status answers.
    #[serde(default)]
    pub observed_generation: Option<i64>,
    /// `Pending`, `Running`, `Paused`, `Blocked`, `Complete`, `Failed` or `Cancelled`.
    #[serde(default)]
    pub phase: Option<String>,
    #[serde(default)]
    pub started_by: Option<String>,
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub started_at: Option<Timestamp>,
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub finished_at: Option<Timestamp>,
    /// The server that runs it now and as whom, as "host/1f2e3d4c as alice".
    #[serde(default)]
    pub runner: Option<String>,
    /// Who continued it after the server that ran it stopped.
    #[serde(default)]
    pub continued_by: Option<String>,
    #[serde(default)]
    #[schemars(with = "i32")]
    pub total: u32,
    /// Nodes the plan is done with and that are in service: back, uncordoned and verified, or drained for a plan
    /// that does not await them (`domain::tally`). The counts below are the other ways a node stands; with `done`
    /// they add up to `total`.
    #[serde(default)]
    #[schemars(with = "i32")]
    pub done: u32,
    /// Nodes whose drain runs.
    #[serde(default)]
    #[schemars(with = "i32")]
    pub draining: u32,
    /// Nodes drained and cordoned, awaited back (a reboot, or a person's word).
    #[serde(default)]
    #[schemars(with = "i32")]
    pub awaited: u32,
    /// Nodes back and uncordoned, whose plan waits for what their drain moved to recover.
    #[serde(default)]
    #[schemars(with = "i32")]
    pub recovering: u32,
    /// Nodes not started yet.
    #[serde(default)]
    #[schemars(with = "i32")]
    pub queued: u32,
    /// Nodes drained that stay cordoned: the plan ended before they came back.
    #[serde(default)]
    #[schemars(with = "i32")]
    pub left_cordoned: u32,
    /// Nodes whose drain was stopped: cordoned, not drained.
    #[serde(default)]
    #[schemars(with = "i32")]
    pub stopped: u32,
    /// Nodes whose drain failed, or that came back and did not check out.
    #[serde(default)]
    #[schemars(with = "i32")]
    pub failed: u32,
    /// Nodes the plan ended before starting.
    #[serde(default)]
    #[schemars(with = "i32")]
    pub not_started: u32,
    #[serde(default)]
    pub nodes: Vec<PlanNode>,
    #[serde(default)]
    pub conditions: Vec<PlanCondition>,
    /// How long the whole plan should take, estimated as it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<PlanEstimate>,
    /// Why no node starts now, as data (the `Blocked` condition says it in English): any replica shows it in the
    /// reader's language, and nothing reads the words back.
    #[serde(default)]
    #[schemars(schema_with = "any_value")]
    pub blocked: Option<domain::plan_block::Blocked>,
    /// While a maintenance window holds the next node: the hold, as data, so that any replica shows it in the
    /// reader's language. The `Blocked` condition says it in English.
    #[serde(default)]
    #[schemars(schema_with = "any_value")]
    pub held: Option<domain::window::HeldNode>,
    /// The same as JSON inside a string, as statuses written before `held` keep it: read when `held` is absent,
    /// and written empty (a merge patch's null), so that it goes.
    #[serde(default)]
    pub held_detail: Option<String>,
    /// The spec a person with the rights started or last continued the plan with: the only spec its runner acts
    /// on (`domain::pin`). Sealed by the servers' key, so a pin written by anyone else does not count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<PlanPin>,
}

/// The phases in which nothing more happens.
pub fn is_final(phase: Option<&str>) -> bool {
    matches!(phase, Some("Complete" | "Failed" | "Cancelled"))
}

impl MaintenancePlan {
    /// The options the spec asks for, as a rollout's.
    pub fn options(&self) -> RolloutOptions {
        RolloutOptions {
            max_parallel: self.spec.max_parallel,
            one_per_zone: self.spec.one_per_zone,
            stop_on_failure: self.spec.stop_on_failure,
            drain: (&self.spec.drain).into(),
            uncordon_when_back: self.spec.uncordon_when_back,
            verify: self.spec.verify.as_ref().map(Into::into),
            unattended: self.spec.unattended,
            settle_seconds: self.spec.settle_seconds.into(),
            others_at_work: self.spec.others_at_work,
        }
    }

    /// The fields of its spec a person confirms, as they are now.
    pub fn pinnable(&self) -> PinnedSpec {
        let spec = &self.spec;
        PinnedSpec {
            nodes: spec.nodes.clone(),
            node_selector: spec.node_selector.clone(),
            max_parallel: spec.max_parallel,
            one_per_zone: spec.one_per_zone,
            stop_on_failure: spec.stop_on_failure,
            uncordon_when_back: spec.uncordon_when_back,
            drain: spec.drain.clone(),
            verify: spec.verify.clone(),
            settle_seconds: spec.settle_seconds,
            others_at_work: spec.others_at_work,
            window_override: spec.window_override.clone(),
            unattended: spec.unattended,
        }
    }

    /// How its spec differs from its pin now, as the page shows it (whether the pin is genuine is the runner's
    /// call, with the seal's key): `None` with no pin, or no difference.
    pub fn spec_changed(&self) -> Option<domain::pin::SpecChanged> {
        let pin = self.status.as_ref()?.pinned.as_ref()?;
        let changes = domain::pin::changes(&pin.spec.to_domain(), &self.pinnable().to_domain());
        let generation = self.metadata.generation.unwrap_or_default();
        (!changes.is_empty()).then_some(domain::pin::SpecChanged { pinned: pin.generation, generation, changes })
    }

    /// Who asked for it: the page's annotation, or, for a plan made otherwise, that it was made so.
    pub fn started_by(&self) -> String {
        self.status
            .as_ref()
            .and_then(|s| s.started_by.clone())
            .or_else(|| self.annotations().get(STARTED_BY).cloned())
            .unwrap_or_else(|| "(made with kubectl)".to_owned())
    }

    /// Whether it has ended: nothing more happens.
    pub fn ended(&self) -> bool {
        is_final(self.status.as_ref().and_then(|s| s.phase.as_deref()))
    }

    /// Why it waits, while it has not ended: kept as data; a status written before it was names only the
    /// condition's reason. Read alone, without the whole progress, by the coordinator at each reconcile.
    pub fn blocked(&self) -> Option<domain::plan_block::Blocked> {
        let status = self.status.as_ref().filter(|_| !self.ended())?;
        status.blocked.clone().or_else(|| {
            let condition = status.conditions.iter().find(|c| c.type_ == "Blocked" && c.status == "True");
            condition
                .filter(|c| c.reason != HELD_BY_WINDOW)
                .map(|c| domain::plan_block::Blocked::from_reason(&c.reason))
        })
    }

    /// The plan as the page shows it.
    pub fn progress(&self) -> RolloutProgress {
        let status = self.status.clone().unwrap_or_default();
        let nodes = if status.nodes.is_empty() {
            self.spec.nodes.iter().map(|n| RolloutNode::queued(n.clone(), None)).collect()
        } else {
            status.nodes.iter().map(PlanNode::to_rollout).collect()
        };
        let state = match status.phase.as_deref() {
            Some("Cancelled") => RolloutState::Cancelled,
            Some("Complete" | "Failed") => RolloutState::Finished,
            _ if self.spec.paused => RolloutState::Paused,
            _ => RolloutState::Running,
        };
        let blocked_by = |window: bool| {
            status
                .conditions
                .iter()
                .find(|c| c.type_ == "Blocked" && c.status == "True")
                .filter(|c| (c.reason == HELD_BY_WINDOW) == window)
                .map(|c| c.message.clone())
                .filter(|_| !self.ended())
        };
        let blocked = self.blocked();
        let held = blocked_by(true).and_then(|_| {
            status.held.clone().or_else(|| {
                let json = status.held_detail.as_deref()?;
                serde_json::from_str::<domain::window::HeldNode>(json).ok()
            })
        });
        RolloutProgress {
            id: self.name_any(),
            started_by: self.started_by(),
            started_at: status
                .started_at
                .or_else(|| self.metadata.creation_timestamp.as_ref().map(|t| t.0))
                .unwrap_or(Timestamp::UNIX_EPOCH),
            reason: self.spec.reason.clone(),
            options: self.options(),
            state,
            nodes,
            finished_at: status.finished_at,
            runner: status.runner.filter(|_| !self.ended()),
            blocked,
            held,
            continued_by: status.continued_by,
            estimate: status.estimate.as_ref().map(Into::into),
            spec_changed: self.spec_changed().filter(|_| !self.ended()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::{
        progress::DrainState,
        rollout::{Back, Step},
        verify::CheckFailure,
    };
    use kube::CustomResourceExt;

    #[test]
    fn the_definition_is_structural_and_names_its_status() {
        let crd = MaintenancePlan::crd();
        assert_eq!(crd.metadata.name.as_deref(), Some("maintenanceplans.drainboard.dev"));
        assert_eq!(crd.spec.scope, "Cluster");
        let version = &crd.spec.versions[0];
        assert_eq!(version.name, "v1alpha1");
        assert!(version.subresources.as_ref().and_then(|s| s.status.as_ref()).is_some(), "status subresource");
        let columns: Vec<&str> = version.additional_printer_columns.iter().flatten().map(|c| c.name.as_str()).collect();
        assert_eq!(
            columns,
            [
                "Phase",
                "Nodes",
                "Done",
                "Draining",
                "Awaited",
                "Failed",
                "Unattended",
                "Queued",
                "Left Cordoned",
                "Not Started",
                "Runner",
                "Age"
            ]
        );
        // Every property has a type: the API server refuses a schema that leaves one out.
        fn typed(schema: &serde_json::Value, path: &str, missing: &mut Vec<String>) {
            if let Some(props) = schema.get("properties").and_then(|p| p.as_object()) {
                for (name, prop) in props {
                    let here = format!("{path}.{name}");
                    // Kubernetes' structural rule: a type everywhere, but for int-or-string and kept-as-written
                    // values.
                    let open = ["x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields"];
                    if prop.get("type").is_none() && !open.iter().any(|o| prop.get(*o).is_some()) {
                        missing.push(here.clone());
                    }
                    typed(prop, &here, missing);
                    if let Some(items) = prop.get("items") {
                        typed(items, &here, missing);
                    }
                }
            }
        }
        let schema = serde_json::to_value(&version.schema).unwrap();
        let mut missing = Vec::new();
        typed(&schema["openAPIV3Schema"], "", &mut missing);
        assert_eq!(missing, Vec::<String>::new());
    }

    #[test]
    fn the_committed_definition_is_the_one_the_code_makes() {
        let made = crate::plan::crd_yaml();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/crds/maintenanceplan.yaml");
        if std::env::var_os("DRAINBOARD_WRITE_CRD").is_some() {
            std::fs::write(path, &made).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(committed == made, "deploy/crds/maintenanceplan.yaml is out of date: run `drainboard crd` into it");
    }

    #[test]
    fn each_step_reads_back_as_it_was_written() {
        let failure = domain::failure::Failure::NotEvicted { failed: 1, of: 3 };
        let nodes = [
            RolloutNode::queued("a".into(), Some("z1".into())),
            RolloutNode {
                step: Step::Draining("d1".into()),
                drain_id: Some("d1".into()),
                ..RolloutNode::queued("b".into(), None)
            },
            RolloutNode {
                step: Step::Ended(DrainState::Failed(failure.clone())),
                drain_id: Some("d2".into()),
                cordoned_before: Some(true),
                ..RolloutNode::queued("c".into(), None)
            },
            RolloutNode {
                step: Step::Ended(DrainState::DrainedExceptTerminating(2)),
                back: Some(Back::Waiting(Some("boot-1".into()))),
                ..RolloutNode::queued("d".into(), None)
            },
            RolloutNode {
                step: Step::Ended(DrainState::Drained),
                back: Some(Back::Failed(failure)),
                ..RolloutNode::queued("e".into(), None)
            },
            RolloutNode { step: Step::NotStarted, back: Some(Back::Left), ..RolloutNode::queued("f".into(), None) },
            RolloutNode {
                step: Step::Ended(DrainState::Drained),
                back: Some(Back::Unverified(vec![CheckFailure::Version {
                    node: "g".into(),
                    component: domain::verify::Component::Kernel,
                    found: "6.1".into(),
                    expected: "6.12".into(),
                }])),
                waiting_since: Some("2026-12-02T10:00:00Z".parse().unwrap()),
                back_seen: Some("2026-12-02T10:03:00Z".parse().unwrap()),
                ..RolloutNode::queued("g".into(), None)
            },
            RolloutNode {
                step: Step::Draining("d3".into()),
                drain_id: Some("d3".into()),
                overridden_at: Some("2026-12-02T11:00:00Z".parse().unwrap()),
                ..RolloutNode::queued("h".into(), None)
            },
        ];
        for node in nodes {
            let written = PlanNode::from_rollout(&node);
            let json = serde_json::to_value(&written).unwrap();
            let read: PlanNode = serde_json::from_value(json).unwrap();
            assert_eq!(read.to_rollout(), node);
        }
        let unknown = PlanNode { name: "x".into(), step: "Teleporting".into(), ..Default::default() };
        assert_eq!(unknown.to_rollout().step, Step::Queued, "a step from a newer server reads as queued");
        // The failed checks are kept as data, and in English for `kubectl describe`; an older build's words read as
        // they were written.
        let written = PlanNode::from_rollout(&RolloutNode {
            back: Some(Back::Unrecovered(vec![CheckFailure::PlanEnded])),
            ..RolloutNode::queued("h".into(), None)
        });
        assert_eq!(
            written.back_detail.as_deref(),
            Some("the plan ended before its workloads and budgets were seen recovered")
        );
        let older = PlanNode {
            name: "i".into(),
            step: "Ended".into(),
            back: Some("Unverified".into()),
            back_detail: Some("i is not Ready".into()),
            ..Default::default()
        };
        assert_eq!(older.to_rollout().back, Some(Back::Unverified(vec![CheckFailure::Text("i is not Ready".into())])));
        // What carries more than a name is an object in the status, not JSON inside a string.
        let failure = domain::failure::Failure::NotEvicted { failed: 1, of: 3 };
        let json = serde_json::to_value(PlanNode::from_rollout(&RolloutNode {
            step: Step::Ended(DrainState::Failed(failure.clone())),
            back: Some(Back::Failed(failure.clone())),
            ..RolloutNode::queued("j".into(), None)
        }))
        .unwrap();
        assert!(json["ended"].is_object() && json["backFailure"].is_object(), "{json}");
        assert!(json.get("outcomeDetail").is_none() && json.get("backChecks").is_none(), "{json}");
        assert_eq!(json["backDetail"], failure.english(), "the words are for kubectl describe");
        // A status an older build wrote, with that data as JSON inside strings, reads the same.
        let older = PlanNode {
            name: "k".into(),
            step: "Ended".into(),
            outcome: Some("Failed".into()),
            outcome_detail: serde_json::to_string(&DrainState::Failed(failure.clone())).ok(),
            back: Some("Failed".into()),
            back_detail: serde_json::to_string(&failure).ok(),
            ..Default::default()
        };
        let read = older.to_rollout();
        assert_eq!(read.step, Step::Ended(DrainState::Failed(failure.clone())));
        assert_eq!(read.back, Some(Back::Failed(failure)));
        let older = PlanNode {
            name: "l".into(),
            back: Some("Unrecovered".into()),
            back_checks: serde_json::to_string(&[CheckFailure::PlanEnded]).ok(),
            ..Default::default()
        };
        assert_eq!(older.to_rollout().back, Some(Back::Unrecovered(vec![CheckFailure::PlanEnded])));
    }

    #[test]
    fn a_plan_made_with_kubectl_reads_with_defaults() {
        let plan: MaintenancePlan = serde_json::from_value(serde_json::json!({
            "apiVersion": "drainboard.dev/v1alpha1", "kind": "MaintenancePlan",
            "metadata": {"name": "kernel"}, "spec": {"nodes": ["n1", "n2"]}
        }))
        .unwrap();
        let progress = plan.progress();
        assert_eq!(progress.options.max_parallel, 1);
        assert_eq!(progress.nodes.len(), 2);
        assert_eq!(progress.started_by, "(made with kubectl)");
        assert_eq!(progress.state, RolloutState::Running);
        assert!(!plan.ended());
    }
}
