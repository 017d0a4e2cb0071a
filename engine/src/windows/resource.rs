//! The `MaintenanceWindow` resource (`drainboard.dev/v1alpha1`, cluster-scoped): when maintenance may start on
//! the nodes it covers, and what must hold it. Its spec is `domain::window::Spec`, written by people with
//! `kubectl apply`; its status says whether the spec reads, written by the servers that follow it.

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// When maintenance may start on some nodes, and what holds it otherwise.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "drainboard.dev",
    version = "v1alpha1",
    kind = "MaintenanceWindow",
    plural = "maintenancewindows",
    shortname = "mwin",
    status = "WindowStatus",
    derive = "PartialEq",
    doc = "When Drainboard may start maintenance on the nodes it covers: schedules, freezes, a budget and gates.",
    printcolumn = r#"{"name": "Selector", "type": "string", "jsonPath": ".spec.nodeSelector"}"#,
    printcolumn = r#"{"name": "Zone", "type": "string", "jsonPath": ".spec.timeZone"}"#,
    printcolumn = r#"{"name": "Budget", "type": "string", "jsonPath": ".spec.maxInMaintenance"}"#,
    printcolumn = r#"{"name": "Valid", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Valid\")].status"}"#,
    printcolumn = r#"{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}"#
)]
pub struct WindowSpec {
    #[serde(flatten)]
    pub spec: domain::window::Spec,
}

/// Whether the spec reads, for the generation it answers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WindowStatus {
    #[serde(default)]
    pub observed_generation: Option<i64>,
    /// `Valid`: `True`, or `False` with what to fix. A window that does not read holds every node it may cover.
    #[serde(default)]
    pub conditions: Vec<crate::plan::resource::PlanCondition>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_definition_is_the_one_the_code_makes() {
        let made = crate::windows::crd_yaml();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/crds/maintenancewindow.yaml");
        if std::env::var_os("DRAINBOARD_WRITE_CRD").is_some() {
            std::fs::write(path, &made).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(committed == made, "deploy/crds/maintenancewindow.yaml is out of date: run `drainboard crd` into it");
    }

    #[test]
    fn a_window_reads_from_yaml_as_a_person_writes_it() {
        let w: MaintenanceWindow = serde_yaml::from_str(
            r#"
apiVersion: drainboard.dev/v1alpha1
kind: MaintenanceWindow
metadata: {name: nights}
spec:
  nodeSelector: pool=db
  timeZone: Asia/Tokyo
  schedules: [{days: [Tue], weeks: [1], start: "02:00", end: "05:00"}]
  freezes: [{start: "2026-12-24", end: "2026-12-26", reason: holidays}]
  maxInMaintenance: "25%"
  gates: {maxNotReady: 2, pods: [{selector: app=backup, anywhere: true}], alerts: [{matchers: ["severity=critical"]}]}
"#,
        )
        .unwrap();
        assert_eq!(w.spec.spec.node_selector.as_deref(), Some("pool=db"));
        assert_eq!(w.spec.spec.schedules[0].weeks, vec![1]);
        assert_eq!(w.spec.spec.gates.max_not_ready, Some(2));
        let schema = serde_json::to_value(<MaintenanceWindow as kube::CustomResourceExt>::crd()).unwrap();
        let props = &schema["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
        for field in ["nodeSelector", "timeZone", "schedules", "freezes", "maxInMaintenance", "gates"] {
            assert!(props.get(field).is_some(), "the schema lists {field}: {props}");
        }
    }
}
