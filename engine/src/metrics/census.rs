//! The fleet's maintenance as gauges, made for each scrape from `domain::census`: the counts belong to the
//! reader's context and rights, not to the process.

use prometheus_client::{
    encoding::EncodeLabelSet,
    metrics::{family::Family, gauge::Gauge},
    registry::Registry,
};

/// A node's maintenance state, as the fleet map shows it (`domain::fleet::MapState::key`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StateLabels {
    pub state: &'static str,
}

/// A plan's phase (`RolloutProgress::phase`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PhaseLabels {
    pub phase: &'static str,
}

/// Where a node of a plan under way stands (`domain::tally::Standing::label`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StandingLabels {
    pub standing: &'static str,
}

/// The class of what holds a pod a drain waits on (`domain::blocker::Blocker::class`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BlockerLabels {
    pub blocker: &'static str,
}

/// The kind of a maintenance window's hold (`domain::window::decide::Hold::kind`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HoldLabels {
    pub hold: &'static str,
}

/// A maintenance window, by name: a cluster object's name, few by nature, and capped (`domain::census`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WindowLabels {
    pub window: String,
}

/// The fleet's maintenance (`domain::census`) as gauges: nodes by state, plans by phase, the nodes of plans under way
/// by standing, and the cordons no running drain or plan explains with the age of the oldest.
pub(super) fn registry(census: &domain::census::Census, now: jiff::Timestamp) -> Registry {
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    let mut registry = Registry::with_prefix("drainboard");
    let nodes = Family::<StateLabels, Gauge>::default();
    for (state, n) in &census.nodes {
        nodes.get_or_create(&StateLabels { state: state.key() }).set(count(*n));
    }
    let plans = Family::<PhaseLabels, Gauge>::default();
    for (phase, n) in &census.plans {
        plans.get_or_create(&PhaseLabels { phase }).set(count(*n));
    }
    let plan_nodes = Family::<StandingLabels, Gauge>::default();
    for (standing, n) in &census.plan_nodes {
        plan_nodes.get_or_create(&StandingLabels { standing: standing.label() }).set(count(*n));
    }
    let waiting = Family::<BlockerLabels, Gauge>::default();
    for (blocker, n) in &census.waiting {
        waiting.get_or_create(&BlockerLabels { blocker }).set(count(*n));
    }
    let held = Family::<HoldLabels, Gauge>::default();
    for (hold, n) in &census.held {
        held.get_or_create(&HoldLabels { hold }).set(count(*n));
    }
    let by_window = Family::<WindowLabels, Gauge>::default();
    for (window, n) in &census.held_by_window {
        by_window.get_or_create(&WindowLabels { window: window.clone() }).set(count(*n));
    }
    let gated = Gauge::<i64>::default();
    gated.set(count(census.alert_gated_windows));
    let unexplained_cordons = Gauge::<i64>::default();
    unexplained_cordons.set(count(census.unexplained_cordons));
    let need_reboot = Gauge::<i64>::default();
    need_reboot.set(count(census.need_reboot));
    let unexplained_cordon_age = Gauge::<i64>::default();
    unexplained_cordon_age.set(census.oldest_unexplained_seconds(now));
    registry.register(
        "nodes",
        "Nodes by maintenance state, as the fleet map shows them (ready, cordoned, draining, drained, not-ready, \
         unknown)",
        nodes,
    );
    registry.register("plans", "Maintenance plans by phase, ended ones included while kept", plans);
    registry.register(
        "plan_nodes",
        "The nodes of the maintenance plans under way, by where each stands (queued, draining, awaited, \
         recovering, done, …)",
        plan_nodes,
    );
    registry.register(
        "pods_waiting",
        "Pods the drains this server runs wait on, by the class of what holds each (budget-at-zero, budget-never, \
         finalizers, …, unknown)",
        waiting,
    );
    registry.register(
        "window_holds",
        "Nodes a maintenance window holds now, by the kind of the deciding window's hold (outside-window, frozen, \
         budget, alert, alerts-unknown, pod, not-ready-storm, invalid)",
        held,
    );
    registry.register(
        "window_held_nodes",
        "Nodes a maintenance window holds now, by the deciding window (its name; past fifty windows, the rest as \
         \"(others)\")",
        by_window,
    );
    registry.register(
        "alert_gated_windows",
        "Maintenance windows with alert gates, which hold while Alertmanager cannot be asked (unless the server \
         fails open)",
        gated,
    );
    registry.register(
        "nodes_reboot_required",
        "Nodes that carry the sign that they need a reboot, by the server's --reboot-required signals (0 without any)",
        need_reboot,
    );
    registry.register(
        "unexplained_cordons",
        "Cordoned nodes that no running drain and no plan under way explains",
        unexplained_cordons,
    );
    registry.register_with_unit(
        "unexplained_cordon_oldest_age",
        "How long the oldest cordon that no running drain and no plan under way explains has lasted (0: none, or \
         none whose start is known)",
        prometheus_client::registry::Unit::Seconds,
        unexplained_cordon_age,
    );
    registry
}
