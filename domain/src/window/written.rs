//! A window's spec as a person writes it: plain strings, lists and numbers, as `kubectl get -o yaml` shows them.
//! Nothing here is trusted; [`super::spec::Policy::parse`] checks it.

use serde::{Deserialize, Serialize};

/// The spec of a `MaintenanceWindow`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Spec {
    /// The nodes it covers, as `kubectl --selector` writes it; empty or absent: every node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<String>,
    /// The IANA time zone its schedules and dated freezes are read in (default `UTC`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// When maintenance may start; empty: at any time (then only freezes, the budget and the gates hold it).
    #[serde(default)]
    pub schedules: Vec<ScheduleSpec>,
    /// Dated ranges during which nothing starts, whatever the schedules say.
    #[serde(default)]
    pub freezes: Vec<FreezeSpec>,
    /// At most this many of its nodes in maintenance at once (cordoned or draining), across every plan and person:
    /// a count (`"2"`) or a share of its nodes (`"25%"`, rounded down, at least one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_in_maintenance: Option<String>,
    /// What must be quiet before maintenance starts.
    #[serde(default)]
    pub gates: GatesSpec,
    /// While a plan has one of its nodes in maintenance, an Alertmanager silence of that node's alerts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silence: Option<SilenceSpec>,
    /// Other tools held while a freeze is in force, by their own switches (`crate::hold_others`): `karpenter`,
    /// `clusterAutoscaler`, `kured`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hold_others: Vec<String>,
}

/// The silence a window keeps for each node in maintenance: alerts whose `label` equals the node's name exactly
/// (so that no other node's alert is silenced), until the node is done plus `margin_seconds`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SilenceSpec {
    /// The alerts' label that holds the node's name (default `node`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// How long the silence outlasts the node's maintenance, at most (default 600 s; up to a day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<i32>", range(min = 0, max = 86400)))]
    pub margin_seconds: Option<u32>,
}

/// A recurring window: on these days, from `start` to `end` in the window's time zone. An `end` at or before
/// `start` ends on the next day (a window across midnight).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScheduleSpec {
    /// `Mon` … `Sun` (or the full names); empty: every day.
    #[serde(default)]
    pub days: Vec<String>,
    /// Which of the month's such days: `1` to `5`, or `-1` for the last (`days: [Tue], weeks: [1]` is the first
    /// Tuesday of each month); empty: every week.
    #[serde(default)]
    pub weeks: Vec<i32>,
    /// `HH:MM`, local.
    pub start: String,
    /// `HH:MM`, local.
    pub end: String,
}

/// A freeze: from `start` until `end`, with why. Each is a date (`2026-12-24`, the day's start, or for `end` the
/// day's end), a local date and time (`2026-12-24T18:00`), or an instant with its offset.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FreezeSpec {
    pub start: String,
    pub end: String,
    pub reason: String,
}

/// The gates: each closed one holds every start.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GatesSpec {
    /// Closed while an alert that matches every matcher of one entry fires in Alertmanager (silenced and
    /// inhibited alerts do not count). Matchers as Alertmanager writes them: `name=value`, `name!=value`,
    /// `name=~regex`, `name!~regex`.
    #[serde(default)]
    pub alerts: Vec<AlertGateSpec>,
    /// Closed while a pod that matches runs on the node (or anywhere, with `anywhere`).
    #[serde(default)]
    pub pods: Vec<PodGateSpec>,
    /// Closed while more than this many nodes of the cluster are not Ready: a storm is no time for maintenance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    // A signed integer in the schema: the API server knows no `uint32` format and warns of one.
    #[cfg_attr(feature = "schema", schemars(with = "Option<i32>", range(min = 0)))]
    pub max_not_ready: Option<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AlertGateSpec {
    pub matchers: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodGateSpec {
    /// The pods' labels, as `kubectl --selector` writes it.
    pub selector: String,
    /// Only pods of this namespace; absent: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Closed while such a pod runs anywhere in the cluster, not only on the node.
    #[serde(default)]
    pub anywhere: bool,
}
