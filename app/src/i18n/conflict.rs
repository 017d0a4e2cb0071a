//! Why a request conflicts with what is (`domain::conflict::Conflict`), and why a pod may not be moved first
//! (`domain::moving::MoveRefusal`), in the page's language: names, numbers and the API's own words are data; the
//! sentence is the catalogue's.

use domain::{conflict::Conflict, moving::MoveRefusal};

use super::{I18n, t_string};

/// A conflict in words.
pub fn conflict_text(i18n: I18n, conflict: &Conflict) -> String {
    match conflict {
        Conflict::AlreadyDraining { node, drain } => {
            t_string!(i18n, conflict.already_draining, node = node.clone(), drain = drain.clone()).to_string()
        }
        Conflict::DrainingElsewhere { node, holder, lease_seconds } => t_string!(
            i18n,
            conflict.draining_elsewhere,
            node = node.clone(),
            holder = holder.clone(),
            seconds = *lease_seconds
        )
        .to_string(),
        Conflict::PlanElsewhere { plan } => t_string!(i18n, conflict.plan_elsewhere, plan = plan.clone()).to_string(),
        // The changes are the spec's own paths and values: data, shown as they are.
        Conflict::SpecUnconfirmed { plan, generation, changes } => t_string!(
            i18n,
            conflict.spec_unconfirmed,
            plan = plan.clone(),
            generation = *generation,
            changes = domain::pin::SpecChange::english_all(changes)
        )
        .to_string(),
        Conflict::NotCheckedOut { node, failed } => {
            t_string!(i18n, conflict.not_checked_out, node = node.clone(), checks = super::checks_text(i18n, failed))
                .to_string()
        }
        Conflict::PastDrain { node, drain } => {
            t_string!(i18n, conflict.past_drain, node = node.clone(), drain = drain.clone()).to_string()
        }
        Conflict::NothingToMove { drain } => {
            t_string!(i18n, conflict.nothing_to_move, drain = drain.clone()).to_string()
        }
        Conflict::NothingToUnblock { drain } => {
            t_string!(i18n, conflict.nothing_to_unblock, drain = drain.clone()).to_string()
        }
        Conflict::NotShortOfHealthy { pod } => {
            t_string!(i18n, conflict.not_short_of_healthy, pod = pod.clone()).to_string()
        }
        Conflict::PodGone { pod } => t_string!(i18n, conflict.pod_gone, pod = pod.clone()).to_string(),
        Conflict::PodReady { pod } => t_string!(i18n, conflict.pod_ready, pod = pod.clone()).to_string(),
        Conflict::BudgetReleased { budget, pod } => {
            t_string!(i18n, conflict.budget_released, budget = budget.clone(), pod = pod.clone()).to_string()
        }
        Conflict::BudgetGone { budget } => t_string!(i18n, conflict.budget_gone, budget = budget.clone()).to_string(),
        Conflict::Move { pod: Some(pod), refusal } => {
            t_string!(i18n, conflict.move_of_pod, pod = pod.clone(), why = move_refusal_text(i18n, refusal)).to_string()
        }
        Conflict::Move { pod: None, refusal } => move_refusal_text(i18n, refusal),
        Conflict::AutoscalersUnknown { deployment, namespace, answer } => t_string!(
            i18n,
            conflict.autoscalers_unknown,
            deployment = deployment.clone(),
            answer = super::answer_text(i18n, answer),
            namespace = namespace.clone()
        )
        .to_string(),
        Conflict::DeploymentChanged { deployment } => {
            t_string!(i18n, conflict.deployment_changed, deployment = deployment.clone()).to_string()
        }
        Conflict::WallRevocationsBusy { attempts } => {
            t_string!(i18n, conflict.wall_busy, attempts = *attempts).to_string()
        }
    }
}

/// Why a pod may not be moved first, in words.
pub fn move_refusal_text(i18n: I18n, refusal: &MoveRefusal) -> String {
    match refusal {
        MoveRefusal::NotHeldByBudget => t_string!(i18n, move_refusal.not_held).to_string(),
        MoveRefusal::NoController => t_string!(i18n, move_refusal.no_controller).to_string(),
        MoveRefusal::StatefulSet { name } => {
            t_string!(i18n, move_refusal.stateful_set, name = name.clone()).to_string()
        }
        MoveRefusal::NotADeployment { kind, name } => {
            t_string!(i18n, move_refusal.not_a_deployment, kind = kind.clone(), name = name.clone()).to_string()
        }
        MoveRefusal::Autoscaled { autoscaler } => {
            t_string!(i18n, move_refusal.autoscaled, autoscaler = autoscaler.clone()).to_string()
        }
        MoveRefusal::ReplicasApplied { manager } => {
            t_string!(i18n, move_refusal.replicas_applied, manager = manager.clone()).to_string()
        }
        MoveRefusal::Paused => t_string!(i18n, move_refusal.paused).to_string(),
        MoveRefusal::Moving { node, by } => {
            t_string!(i18n, move_refusal.moving, node = node.clone(), by = by.clone()).to_string()
        }
        MoveRefusal::TooMany { pods } => {
            t_string!(i18n, move_refusal.too_many, pods = *pods, most = domain::moving::MAX_SURGE).to_string()
        }
    }
}
