//! Server functions of rolling maintenance: many nodes drained with limits, as a server task (`engine::rollout`).
//! Each is thin, as in `api`: it checks what the browser sent, and asks the engine as the person behind the request.

use domain::rollout::{RolloutOptions, RolloutProgress};
use leptos::{prelude::*, server_fn::codec::Json};

use crate::AppError;

/// Starts draining `nodes`, at most `options.max_parallel` at once (one per zone with `one_per_zone`), each as a
/// single drain with `options.drain`, and answers with the rollout's id. With force, delete-emptydir-data or
/// disable-eviction, `confirm` must be the number of nodes, as "6 nodes". `POST /api/rollouts/start` with
/// `{"nodes": [...], "options": {...}, "reason": "...", "confirm": "..."}`.
#[server(prefix = "/api", endpoint = "rollouts/start", input = Json)]
pub async fn start_rollout(
    nodes: Vec<String>,
    options: RolloutOptions,
    #[server(default)] reason: Option<String>,
    #[server(default)] confirm: Option<String>,
) -> Result<String, AppError> {
    crate::api::respond(start(nodes, options, reason, confirm).await)
}

#[cfg(feature = "ssr")]
async fn start(
    nodes: Vec<String>,
    options: RolloutOptions,
    reason: Option<String>,
    confirm: Option<String>,
) -> Result<String, AppError> {
    use domain::input;
    let invalid = AppError::Invalid;
    if nodes.len() > domain::rollout::MAX_NODES {
        return Err(invalid(format!("a rollout takes at most {} nodes", domain::rollout::MAX_NODES)));
    }
    let nodes = nodes
        .iter()
        .map(|n| input::node_name(n.trim()).map(str::to_owned))
        .collect::<Result<Vec<_>, _>>()
        .map_err(invalid)?;
    domain::rollout::check(&nodes, &options).map_err(invalid)?;
    let word = domain::rollout::confirm_word(nodes.len());
    input::consent(&options.drain, &word, confirm.as_deref()).map_err(invalid)?;
    let reason = input::reason(reason.as_deref()).map_err(invalid)?;
    let engine = crate::api::engine();
    Ok(engine.start_rollout(&crate::api::caller()?.identity, nodes, options, reason).await?)
}

/// A rollout's progress: each node's step (queued, draining with its drain's id, ended, not started) and the
/// rollout's state. `POST /api/rollouts/status` with `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "rollouts/status", input = Json)]
pub async fn rollout_status(id: String) -> Result<RolloutProgress, AppError> {
    crate::api::respond(
        async {
            crate::api::caller()?;
            crate::api::engine().rollouts().progress(&id).ok_or_else(|| no_such(&id))
        }
        .await,
    )
}

/// Stops a rollout: no node starts any more, and its running drains are cancelled (their nodes stay cordoned).
/// Stopping needs the same rights as cancelling each drain. `POST /api/rollouts/cancel` with `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "rollouts/cancel", input = Json)]
pub async fn cancel_rollout(id: String) -> Result<(), AppError> {
    crate::api::respond(control(id, Control::Cancel).await)
}

/// Pauses a rollout (`"paused": true`: no node starts; those draining go on) or resumes it. `POST
/// /api/rollouts/pause` with `{"id": "...", "paused": true}`.
#[server(prefix = "/api", endpoint = "rollouts/pause", input = Json)]
pub async fn pause_rollout(id: String, paused: bool) -> Result<(), AppError> {
    crate::api::respond(control(id, Control::Pause(paused)).await)
}

#[cfg(feature = "ssr")]
enum Control {
    Cancel,
    Pause(bool),
}

#[cfg(feature = "ssr")]
async fn control(id: String, control: Control) -> Result<(), AppError> {
    let caller = crate::api::caller()?;
    let engine = crate::api::engine();
    let progress = engine.rollouts().progress(&id).ok_or_else(|| no_such(&id))?;
    // As with a single drain: only its starter, or someone who may cordon nodes, may change its course.
    if engine.is_team() && progress.started_by != caller.identity.user {
        let lacking = engine.permissions(&caller.identity).await?;
        if let Some(missing) = lacking.cordon {
            return Err(AppError::Api {
                code: 403,
                message: format!(
                    "{} lacks {missing}, so may not change a rollout {} started",
                    caller.identity.user, progress.started_by
                ),
            });
        }
    }
    let found = match control {
        Control::Cancel => engine.rollouts().cancel(&id),
        Control::Pause(paused) => engine.rollouts().pause(&id, paused),
    };
    if found { Ok(()) } else { Err(no_such(&id)) }
}

#[cfg(feature = "ssr")]
fn no_such(id: &str) -> AppError {
    AppError::NotFound(format!("no rollout with id {id} on this server"))
}
