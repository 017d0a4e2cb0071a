//! Other actors at work on a node, in words: who ("cluster-autoscaler", "Karpenter") and what they do, from
//! [`domain::actor`]'s sightings.

use domain::actor::{Actor, Doing, Sighting};
use jiff::Timestamp;

use super::{I18n, age_text, t_string};

/// The actor's name: a tool's own name in every language; a writer or a cordon that names no one, in words.
pub fn actor_name(i18n: I18n, actor: Actor) -> String {
    // Tools' names read the same in every language; they are in the catalogue all the same, so that every word the
    // page shows comes from it (the pseudo-locale test checks that).
    match actor {
        Actor::ClusterAutoscaler => t_string!(i18n, actors.name_cluster_autoscaler),
        Actor::Karpenter => t_string!(i18n, actors.name_karpenter),
        Actor::Kured => t_string!(i18n, actors.name_kured),
        Actor::NodeMaintenance => t_string!(i18n, actors.name_node_maintenance),
        Actor::ClusterApi => t_string!(i18n, actors.name_cluster_api),
        Actor::Gke => t_string!(i18n, actors.name_gke),
        Actor::Aks => t_string!(i18n, actors.name_aks),
        Actor::Eks => t_string!(i18n, actors.name_eks),
        Actor::KubectlDrain => t_string!(i18n, actors.name_kubectl_drain),
        Actor::Lifecycle => t_string!(i18n, actors.another_tool),
        Actor::Unknown => t_string!(i18n, actors.someone),
    }
    .to_string()
}

/// What a sighting says: "cluster-autoscaler is removing this node".
pub fn sighting_text(i18n: I18n, sighting: &Sighting) -> String {
    work_text(i18n, sighting.actor, sighting.doing)
}

/// What `actor` doing `doing` says: "cluster-autoscaler is removing this node".
pub fn work_text(i18n: I18n, actor: domain::actor::Actor, doing: Doing) -> String {
    let who = actor_name(i18n, actor);
    match doing {
        Doing::Cordoned => t_string!(i18n, actors.cordoned, who).to_string(),
        Doing::Removing => t_string!(i18n, actors.removing, who).to_string(),
        Doing::RemovalCandidate => t_string!(i18n, actors.removal_candidate, who).to_string(),
        Doing::Disrupting => t_string!(i18n, actors.disrupting, who).to_string(),
        Doing::Rebooting => t_string!(i18n, actors.rebooting, who).to_string(),
        Doing::Maintenance => t_string!(i18n, actors.maintenance, who).to_string(),
        Doing::MaintenanceScheduled => t_string!(i18n, actors.maintenance_scheduled, who).to_string(),
        Doing::Terminating => t_string!(i18n, actors.terminating, who).to_string(),
        Doing::Replacing => t_string!(i18n, actors.replacing, who).to_string(),
        Doing::Quarantined => t_string!(i18n, actors.quarantined, who).to_string(),
        Doing::Draining => t_string!(i18n, actors.draining, who).to_string(),
        Doing::Drained => t_string!(i18n, actors.drained, who).to_string(),
    }
}

/// When, at `now`: "since 5m ago", or for planned maintenance "due in 2h" / "was due 5m ago".
pub fn sighting_when(i18n: I18n, sighting: &Sighting, now: Timestamp) -> Option<String> {
    let at = sighting.at?;
    let age = age_text(i18n, now.duration_since(at).abs());
    Some(match sighting.doing {
        Doing::MaintenanceScheduled if at > now => t_string!(i18n, actors.due_in, age).to_string(),
        Doing::MaintenanceScheduled => t_string!(i18n, actors.was_due, age).to_string(),
        _ => t_string!(i18n, actors.since, age).to_string(),
    })
}
