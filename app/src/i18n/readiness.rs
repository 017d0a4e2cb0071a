//! What would hold a node's next drain (`domain::readiness::Hold`), in the reader's language: each names its
//! objects, their namespace (whom to call) and the fix.

use domain::readiness::Hold;

use super::{I18n, refusal_text, t_string};

/// One hold, with its fix.
pub fn readiness_text(i18n: I18n, hold: &Hold) -> String {
    match hold {
        Hold::BudgetNever { namespace, budget, expected, desired, pods } => t_string!(
            i18n,
            readiness.budget_never,
            namespace = namespace.clone(),
            budget = budget.clone(),
            desired = *desired,
            expected = *expected,
            pods = pods.join(", ")
        )
        .to_string(),
        Hold::SingleReplica { namespace, budget, pod } => t_string!(
            i18n,
            readiness.single_replica,
            namespace = namespace.clone(),
            budget = budget.clone(),
            pod = pod.clone()
        )
        .to_string(),
        Hold::TwoBudgets { namespace, pod, budgets } => t_string!(
            i18n,
            readiness.two_budgets,
            namespace = namespace.clone(),
            pod = pod.clone(),
            budgets = budgets.join(", ")
        )
        .to_string(),
        Hold::Refused { namespace, pod, reason, needs } => {
            let why = refusal_text(i18n, reason);
            match needs {
                Some(option) => t_string!(
                    i18n,
                    readiness.refused_option,
                    namespace = namespace.clone(),
                    pod = pod.clone(),
                    why,
                    option = super::option_text(i18n, *option)
                )
                .to_string(),
                None => t_string!(i18n, readiness.refused, namespace = namespace.clone(), pod = pod.clone(), why)
                    .to_string(),
            }
        }
        Hold::OwnerAsked { namespace, pod, annotation } => t_string!(
            i18n,
            readiness.owner_asked,
            namespace = namespace.clone(),
            pod = pod.clone(),
            annotation = annotation.clone()
        )
        .to_string(),
        Hold::LocalVolume { namespace, pod, volume } => t_string!(
            i18n,
            readiness.local_volume,
            namespace = namespace.clone(),
            pod = pod.clone(),
            volume = volume.clone()
        )
        .to_string(),
        Hold::NoRoom { namespace, pod, why } => {
            t_string!(i18n, readiness.no_room, namespace = namespace.clone(), pod = pod.clone(), why = why.clone())
                .to_string()
        }
    }
}
