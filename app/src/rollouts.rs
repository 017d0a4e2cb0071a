//! Server functions of rolling maintenance: many nodes drained with limits, as a server task (`engine::rollout`).
//! Each is thin, as in `api`: it checks what the browser sent, and asks the engine as the person behind the request.

use domain::rollout::{RolloutOptions, RolloutProgress};
use leptos::{prelude::*, server_fn::codec::Json};

use crate::AppError;

/// Starts draining `nodes`, at most `options.max_parallel` at once (one per zone with `one_per_zone`), each as a
/// single drain with `options.drain`, and answers with the rollout's id. With force, delete-emptydir-data or
/// disable-eviction, `confirm` must be the number of nodes, as "6 nodes". `POST /api/plans/start` with
/// `{"nodes": [...], "options": {...}, "reason": "...", "confirm": "..."}`. A maintenance window that holds one of
/// the nodes now refuses it (403) unless `wait_for_window` is true: then the plan starts, and each node waits until
/// its windows allow. With `override_window` (a reason), a person who may override starts the plan past its
/// windows: each node a window holds as the plan reaches it starts anyway, and that override is recorded.
#[server(prefix = "/api", endpoint = "plans/start", input = Json)]
pub async fn start_rollout(
    nodes: Vec<String>,
    options: RolloutOptions,
    #[server(default)] reason: Option<String>,
    #[server(default)] confirm: Option<String>,
    #[server(default)] wait_for_window: bool,
    #[server(default)] override_window: Option<String>,
) -> Result<String, AppError> {
    crate::api::respond(start(nodes, options, reason, confirm, wait_for_window, override_window).await)
}

#[cfg(feature = "ssr")]
async fn start(
    nodes: Vec<String>,
    options: RolloutOptions,
    reason: Option<String>,
    confirm: Option<String>,
    wait_for_window: bool,
    override_window: Option<String>,
) -> Result<String, AppError> {
    use domain::input;
    let invalid = AppError::Invalid;
    let nodes = input::node_list(&nodes).map_err(invalid)?;
    domain::rollout::check(&nodes, &options).map_err(invalid)?;
    let word = domain::rollout::confirm_word(nodes.len());
    input::consent(&options.drain, &word, confirm.as_deref()).map_err(invalid)?;
    let reason = input::reason(reason.as_deref()).map_err(invalid)?;
    let overriding = input::reason(override_window.as_deref()).map_err(invalid)?;
    if wait_for_window && overriding.is_some() {
        return Err(AppError::Invalid(
            "wait_for_window and override_window exclude each other: wait for the windows, or override them".into(),
        ));
    }
    let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
    let acting = engine.acting_as(&caller);
    let dry = options.drain.dry_run != domain::drain::DryRun::None;
    if !wait_for_window && !dry {
        let action = domain::audit::AuditAction::DrainStarted;
        acting.check_windows(&nodes, action, overriding.as_deref()).await?;
    }
    Ok(acting.start_rollout(nodes, options, reason, overriding.filter(|_| !dry)).await?)
}

/// How long a plan of `nodes` with `options` should take (`domain::estimate::plan`), as the caller sees the
/// cluster: the plan dialog's estimate, the same that a plan records as it starts. `POST /api/plans/estimate`
/// with `{"nodes": [...], "options": {...}}`; changes nothing.
#[server(prefix = "/api", endpoint = "plans/estimate", input = Json)]
pub async fn estimate_rollout(
    nodes: Vec<String>,
    options: RolloutOptions,
) -> Result<Result<domain::estimate::PlanEstimate, domain::estimate::NoEstimate>, AppError> {
    crate::api::respond(
        async {
            let invalid = AppError::Invalid;
            let nodes = domain::input::node_list(&nodes).map_err(invalid)?;
            domain::rollout::check(&nodes, &options).map_err(invalid)?;
            let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
            Ok(engine.acting_as(&caller).estimate_plan(&nodes, &options).await?)
        }
        .await,
    )
}

/// A rollout's progress: each node's step (queued, draining with its drain's id, ended, not started) and the
/// rollout's state. `POST /api/plans/status` with `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "plans/status", input = Json)]
pub async fn rollout_status(id: String) -> Result<RolloutProgress, AppError> {
    crate::api::respond(
        async {
            let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
            Ok(engine.acting_as(&caller).rollout_progress(&id).await?)
        }
        .await,
    )
}

/// Stops a rollout: no node starts any more, and its running drains are cancelled (their nodes stay cordoned).
/// Stopping needs the same rights as cancelling each drain. `POST /api/plans/cancel` with `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "plans/cancel", input = Json)]
pub async fn cancel_rollout(id: String) -> Result<(), AppError> {
    crate::api::respond(change(id, engine::plan::Change::Cancel).await)
}

/// Pauses a rollout (`"paused": true`: no node starts; those draining go on) or resumes it. `POST
/// /api/plans/pause` with `{"id": "...", "paused": true}`.
#[server(prefix = "/api", endpoint = "plans/pause", input = Json)]
pub async fn pause_rollout(id: String, paused: bool) -> Result<(), AppError> {
    crate::api::respond(change(id, engine::plan::Change::Pause(paused)).await)
}

/// Every rollout this server holds, the latest first (the server keeps the last 50 that ended). `POST
/// /api/plans`.
#[server(prefix = "/api", endpoint = "plans")]
pub async fn list_rollouts() -> Result<Vec<RolloutProgress>, AppError> {
    crate::api::respond(
        async {
            let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
            Ok(engine.acting_as(&caller).rollouts().await?)
        }
        .await,
    )
}

/// Says a node drained by a rollout with `uncordon_when_back` is back from its maintenance: it is uncordoned now,
/// as the person who says so, instead of when its boot id changes. `POST /api/plans/back` with `{"id": "...",
/// "node": "..."}`.
#[server(prefix = "/api", endpoint = "plans/back", input = Json)]
pub async fn rollout_node_back(id: String, node: String) -> Result<(), AppError> {
    crate::api::respond(
        async {
            let node = domain::input::node_name(node.trim()).map_err(AppError::Invalid)?.to_owned();
            let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
            Ok(engine.acting_as(&caller).rollout_node_back(&id, &node).await?)
        }
        .await,
    )
}

/// Continues a plan no server runs (the one that ran it stopped, and none holds credentials for it) as the person
/// who asks: this server runs it with their credentials from now on, and the plan records who continued it. Needs
/// the rights to drain (team mode). `POST /api/plans/continue` with `{"id": "...", "generation": N}`: continuing
/// confirms the plan's spec at generation N, which the page shows with what changed since it was last confirmed;
/// without `generation`, a plan whose spec changed is refused (409, with the changes).
#[server(prefix = "/api", endpoint = "plans/continue", input = Json)]
pub async fn continue_rollout(id: String, #[server(default)] generation: Option<i64>) -> Result<(), AppError> {
    crate::api::respond(
        async {
            let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
            Ok(engine.acting_as(&caller).continue_plan(&id, generation).await?)
        }
        .await,
    )
}

/// Undoes a plan that has ended (finished, stopped or failed): uncordons, as the person who asks, exactly the nodes
/// the plan cordoned that are still cordoned by it, and answers each node's step, with why a node was left alone
/// (cordoned before the plan, drained or cordoned since by someone else). `POST /api/plans/undo` with
/// `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "plans/undo", input = Json)]
pub async fn undo_rollout(id: String) -> Result<Vec<domain::undo::UndoNode>, AppError> {
    crate::api::respond(
        async {
            let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
            Ok(engine.acting_as(&caller).undo_plan(&id).await?)
        }
        .await,
    )
}

/// Whether the pods a drain of `nodes` evicts fit on the nodes that stay schedulable: each pod a controller creates
/// again, with a node it fits on, or why it would stay Pending, or "can't tell" for rules the check does not model.
/// An estimate from the board's cache; nothing is scheduled. For one node or a rollout's many. `POST
/// /api/capacity` with `{"nodes": ["..."]}`.
#[server(prefix = "/api", endpoint = "capacity", input = Json)]
pub async fn capacity_check(nodes: Vec<String>) -> Result<domain::capacity::CapacityReport, AppError> {
    crate::api::respond(
        async {
            let nodes = domain::input::node_list(&nodes).map_err(AppError::Invalid)?;
            let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
            Ok(engine.acting_as(&caller).capacity(&nodes).await?)
        }
        .await,
    )
}

#[cfg(feature = "ssr")]
async fn change(id: String, change: engine::plan::Change) -> Result<(), AppError> {
    let (engine, caller) = (crate::api::engine(), crate::api::caller()?);
    Ok(engine.acting_as(&caller).change_rollout(&id, change).await?)
}
