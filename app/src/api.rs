//! Server functions: the browser's only way to reach the server's engine. Each is thin: it validates what the
//! browser sent (`domain::input`, before anything changes), asks the engine as the person behind the request, and
//! maps the engine's error to the wire error, with an HTTP status that says what kind it is.
//!
//! Every function has an explicit, stable endpoint under `/api`; `API.md` documents each one for scripts.

use domain::{
    actions::Lacking,
    board::BoardUpdate,
    drain::DrainOptions,
    preview::{Preview, PreviewInputs},
    progress::{CordonOutcome, DrainProgress, DrainStarted, NodeDrainRecord},
};
use leptos::{prelude::*, server_fn::codec::Json};

use crate::AppError;

/// Every node's card now, with the server's clock and settings: the full board, as the event stream's first
/// message carries it. `POST /api/board`; with `first=N` (form-encoded), only the first N cards in display order
/// and, in `partial`, the counts of them all: what a page's first render needs from a cluster of thousands of nodes.
#[server(prefix = "/api", endpoint = "board")]
pub async fn board_snapshot(#[server(default)] first: Option<usize>) -> Result<BoardUpdate, AppError> {
    respond(board(first).await)
}

#[cfg(feature = "ssr")]
async fn board(first: Option<usize>) -> Result<BoardUpdate, AppError> {
    let (engine, caller) = (engine(), caller()?);
    let cards = engine.acting_as(&caller).cards().await?;
    let (upsert, partial) = match first {
        Some(n) if n < cards.len() => {
            let (first, all) = domain::board::first_cards(cards, n);
            (first, Some(all))
        }
        _ => (cards, None),
    };
    Ok(BoardUpdate {
        server_time: jiff::Timestamp::now(),
        full: true,
        settings: expect_context::<domain::board::BoardSettings>(),
        upsert,
        remove: Vec::new(),
        partial,
    })
}

/// Cordons a node: marks it unschedulable, and records on it who did and why (annotation
/// `drainboard.dev/cordon`, in the same patch). A node already cordoned is reported as such, and nothing is
/// written. `POST /api/nodes/cordon` with `{"node": "...", "reason": "..."}` (`reason` optional, 500 characters).
/// A maintenance window that holds the node refuses it (403), unless `override_window` gives a reason and the
/// person may override (`update maintenancewindows/override`).
#[server(prefix = "/api", endpoint = "nodes/cordon", input = Json)]
pub async fn cordon_node(
    node: String,
    #[server(default)] reason: Option<String>,
    #[server(default)] override_window: Option<String>,
) -> Result<CordonOutcome, AppError> {
    respond(cordon(node, reason, override_window).await)
}

#[cfg(feature = "ssr")]
async fn cordon(
    node: String,
    reason: Option<String>,
    override_window: Option<String>,
) -> Result<CordonOutcome, AppError> {
    let name = input(node_name(node.trim()))?.to_owned();
    let overriding = input(domain::input::reason(override_window.as_deref()))?;
    let (engine, caller) = (engine(), caller()?);
    let acting = engine.acting_as(&caller);
    acting.admit(&name, domain::audit::AuditAction::Cordon, overriding.as_deref()).await?;
    set_unschedulable(node, true, reason).await
}

/// Uncordons a node: makes it schedulable again. `POST /api/nodes/uncordon` with `{"node": "...", "confirm":
/// "..."}`. When other tools are at work on the node, `confirm` must name each (`domain::actor::confirmed`): 409
/// naming them otherwise.
#[server(prefix = "/api", endpoint = "nodes/uncordon", input = Json)]
pub async fn uncordon_node(
    node: String,
    #[server(default)] confirm: Option<String>,
) -> Result<CordonOutcome, AppError> {
    respond(uncordon(node, confirm).await)
}

#[cfg(feature = "ssr")]
async fn uncordon(node: String, confirm: Option<String>) -> Result<CordonOutcome, AppError> {
    let node = input(node_name(node.trim()))?;
    let confirm = input(domain::actor::typed(confirm.as_deref()))?;
    let (engine, caller) = (engine(), caller()?);
    Ok(engine.acting_as(&caller).uncordon(node, confirm.as_deref()).await?)
}

#[cfg(feature = "ssr")]
async fn set_unschedulable(
    node: String,
    unschedulable: bool,
    reason: Option<String>,
) -> Result<CordonOutcome, AppError> {
    let node = input(node_name(node.trim()))?;
    let reason = input(domain::input::reason(reason.as_deref()))?;
    let (engine, caller) = (engine(), caller()?);
    Ok(engine.acting_as(&caller).set_unschedulable(node, unschedulable, reason).await?)
}

/// Starts draining a node, as a server task, and answers at once with its id. If that node is already being
/// drained, answers with the running drain's id (`attached: true`). `POST /api/drains/start` with
/// `{"node": "...", "options": {...}, "reason": "...", "confirm": "..."}`: with force, delete-emptydir-data or
/// disable-eviction, `confirm` must be the node's name.
#[server(prefix = "/api", endpoint = "drains/start", input = Json)]
pub async fn start_drain(
    node: String,
    #[server(default)] options: DrainOptions,
    #[server(default)] reason: Option<String>,
    #[server(default)] confirm: Option<String>,
    #[server(default)] override_window: Option<String>,
) -> Result<DrainStarted, AppError> {
    respond(start(node, options, reason, confirm, override_window).await)
}

#[cfg(feature = "ssr")]
async fn start(
    node: String,
    options: DrainOptions,
    reason: Option<String>,
    confirm: Option<String>,
    override_window: Option<String>,
) -> Result<DrainStarted, AppError> {
    use domain::input;
    let node = self::input(input::node_name(node.trim()))?.to_string();
    self::input(input::drain_options(&options))?;
    self::input(input::consent(&options, &node, confirm.as_deref()))?;
    let reason = self::input(input::reason(reason.as_deref()))?;
    let overriding = self::input(input::reason(override_window.as_deref()))?;
    let (engine, caller) = (engine(), caller()?);
    let acting = engine.acting_as(&caller);
    // A dry run changes nothing: no window holds it.
    if options.dry_run == domain::drain::DryRun::None {
        let action = domain::audit::AuditAction::DrainStarted;
        acting.admit(&node, action, overriding.as_deref()).await?;
    }
    Ok(acting.start_drain(node, options, reason).await?)
}

/// The progress of a drain. `POST /api/drains/status` with `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "drains/status", input = Json)]
pub async fn drain_status(id: String) -> Result<DrainProgress, AppError> {
    let engine = engine();
    respond(async { Ok(engine.acting_as(&caller()?).drain_progress(&id).await?) }.await)
}

/// Cancels a running drain: retries and waits stop, the node stays cordoned, and the drain ends as cancelled
/// with the pods still on the node listed. `POST /api/drains/cancel` with `{"id": "..."}`.
#[server(prefix = "/api", endpoint = "drains/cancel", input = Json)]
pub async fn cancel_drain(id: String) -> Result<(), AppError> {
    respond(cancel(id).await)
}

#[cfg(feature = "ssr")]
async fn cancel(id: String) -> Result<(), AppError> {
    let (engine, caller) = (engine(), caller()?);
    Ok(engine.acting_as(&caller).cancel_drain(&id).await?)
}

/// A person's consented way out of a drain held by a budget short of healthy pods: delete the not-Ready pod, or set
/// the budget's policy to `AlwaysAllow`, as the person, once `confirm` names what changes. Answers what was done.
/// `POST /api/drains/unblock` with `{"id", "namespace", "pod", "action", "confirm"}`.
#[server(prefix = "/api", endpoint = "drains/unblock", input = Json)]
pub async fn unblock_drain(
    id: String,
    namespace: String,
    pod: String,
    action: domain::blocker::Unblock,
    #[server(default)] confirm: Option<String>,
) -> Result<String, AppError> {
    respond(unblock(id, namespace, pod, action, confirm).await)
}

#[cfg(feature = "ssr")]
async fn unblock(
    id: String,
    namespace: String,
    pod: String,
    action: domain::blocker::Unblock,
    confirm: Option<String>,
) -> Result<String, AppError> {
    domain::input::pod_ref(&namespace, &pod).map_err(AppError::Invalid)?;
    let (engine, caller) = (engine(), caller()?);
    Ok(engine.acting_as(&caller).unblock(&id, &namespace, &pod, action, confirm.as_deref()).await?)
}

/// Move first, for a pod of the running drain a budget at zero holds: without `confirm`, what the move would do
/// (the Deployment, its count now and during the move, the pods that go); with `confirm` the Deployment's name,
/// the surge, as the person, followed to the end by the server. Refused, with the reason, for a StatefulSet, an
/// autoscaled Deployment, or one whose count a declarative tool applies.
/// `POST /api/drains/move-first` with `{"id", "namespace", "pod", "confirm"}`.
#[server(prefix = "/api", endpoint = "drains/move-first", input = Json)]
pub async fn move_first(
    id: String,
    namespace: String,
    pod: String,
    #[server(default)] confirm: Option<String>,
) -> Result<domain::moving::MoveAnswer, AppError> {
    respond(move_pod_first(id, namespace, pod, confirm).await)
}

#[cfg(feature = "ssr")]
async fn move_pod_first(
    id: String,
    namespace: String,
    pod: String,
    confirm: Option<String>,
) -> Result<domain::moving::MoveAnswer, AppError> {
    domain::input::pod_ref(&namespace, &pod).map_err(AppError::Invalid)?;
    let (engine, caller) = (engine(), caller()?);
    Ok(engine.acting_as(&caller).move_first(&id, &namespace, &pod, confirm.as_deref()).await?)
}

/// Every drain this server holds, newest first. `POST /api/drains`.
#[server(prefix = "/api", endpoint = "drains")]
pub async fn list_drains() -> Result<Vec<DrainProgress>, AppError> {
    let engine = engine();
    respond(async { Ok(engine.acting_as(&caller()?).drains().await?) }.await)
}

/// The drains recorded on the nodes (annotation `drainboard.dev/drain`), including those another replica ran.
/// A record that says running, with no drain running here, is reported as interrupted: the server that ran it
/// stopped. `POST /api/drains/recorded`.
#[server(prefix = "/api", endpoint = "drains/recorded")]
pub async fn recorded_drains() -> Result<Vec<NodeDrainRecord>, AppError> {
    let engine = engine();
    respond(async { Ok(engine.acting_as(&caller()?).recorded_drains().await?) }.await)
}

/// Starts a drain of the node again with the options and reason of the drain recorded on it, for scripts. The
/// record is a node annotation anyone who may patch nodes can write, so it is a claim: `confirm` must be the
/// node's name whatever the recorded options, and they are checked as a new request's would be. The page's
/// Resume opens the drain dialog pre-filled instead. A maintenance window admits a resume as it does a start (the
/// node's cordon already counts in its budget): 403 while one holds the node, unless `override_window` gives a
/// reason and the person may override. `POST /api/drains/resume` with
/// `{"node": "...", "confirm": "...", "override_window": "..."}`.
#[server(prefix = "/api", endpoint = "drains/resume", input = Json)]
pub async fn resume_drain(
    node: String,
    #[server(default)] confirm: Option<String>,
    #[server(default)] override_window: Option<String>,
) -> Result<DrainStarted, AppError> {
    respond(resume(node, confirm, override_window).await)
}

#[cfg(feature = "ssr")]
async fn resume(
    node: String,
    confirm: Option<String>,
    override_window: Option<String>,
) -> Result<DrainStarted, AppError> {
    use domain::input;
    let node = self::input(input::node_name(node.trim()))?.to_string();
    if confirm.as_deref().map(str::trim) != Some(node.as_str()) {
        return Err(AppError::Invalid(format!(
            "resuming re-runs the options recorded on the node: send \"confirm\": \"{node}\" to go ahead"
        )));
    }
    let (engine, caller) = (engine(), caller()?);
    let acting = engine.acting_as(&caller);
    let record = acting.resumable_drain(&node).await?;
    self::input(input::drain_options(&record.options))?;
    let reason = self::input(input::reason(record.reason.as_deref()))?;
    let overriding = self::input(input::reason(override_window.as_deref()))?;
    acting.admit(&node, domain::audit::AuditAction::DrainResumed, overriding.as_deref()).await?;
    Ok(acting.resume_drain(node, record.options, reason).await?)
}

/// What a drain of the node would do with these options, planned from the live cache exactly as the drain
/// task plans: pods to evict (with the budget that covers each), skipped and refused (with the options that
/// would override). Nothing changes. `POST /api/drains/preview` with `{"node": "...", "options": {...}}`.
#[server(prefix = "/api", endpoint = "drains/preview", input = Json)]
pub async fn drain_preview(node: String, #[server(default)] options: DrainOptions) -> Result<Preview, AppError> {
    respond(preview(node, options).await)
}

#[cfg(feature = "ssr")]
async fn preview(node: String, options: DrainOptions) -> Result<Preview, AppError> {
    input(domain::input::drain_options(&options))?;
    let inputs = preview_inputs(node).await?;
    domain::preview::preview(&inputs, &options).map_err(|e| AppError::Invalid(format!("pod selector: {e}")))
}

/// The inputs the drain dialog plans from in the browser: the node's pods, its DaemonSet lookups and the
/// budgets of the pods' namespaces. `POST /api/drains/preview-inputs` with `{"node": "..."}`; the event stream
/// `GET /api/nodes/{node}/preview/events` pushes the same whenever they change.
#[server(prefix = "/api", endpoint = "drains/preview-inputs", input = Json)]
pub async fn drain_preview_inputs(node: String) -> Result<PreviewInputs, AppError> {
    respond(preview_inputs(node).await)
}

#[cfg(feature = "ssr")]
async fn preview_inputs(node: String) -> Result<PreviewInputs, AppError> {
    let (engine, caller) = (engine(), caller()?);
    Ok(engine.acting_as(&caller).preview_inputs(input(node_name(node.trim()))?.to_string()).await?)
}

/// What the requesting identity may do, asked of the API server (SelfSubjectAccessReview), so that the page can
/// disable an action and name the permission that is missing. `POST /api/permissions`.
#[server(prefix = "/api", endpoint = "permissions")]
pub async fn permissions() -> Result<Lacking, AppError> {
    let engine = engine();
    respond(async { Ok(engine.acting_as(&caller()?).permissions().await?) }.await)
}

/// Local mode: every context of the operator's kubeconfig, each with its board's address, and which one the
/// request is for. Empty in team mode, which serves one cluster. `POST /api/contexts`.
#[server(prefix = "/api", endpoint = "contexts")]
pub async fn contexts() -> Result<Vec<crate::context::ContextLink>, AppError> {
    use crate::context::{ContextLink, ContextList, ContextPath};
    caller()?;
    let parts = use_context::<axum::http::request::Parts>();
    let list = parts.as_ref().and_then(|p| p.extensions.get::<ContextList>().cloned()).unwrap_or_default();
    let here = parts.as_ref().and_then(|p| p.extensions.get::<ContextPath>().cloned()).unwrap_or_default();
    Ok(list
        .0
        .iter()
        .map(|(name, prefix)| ContextLink {
            name: name.clone(),
            href: if prefix.is_empty() { "/".into() } else { prefix.clone() },
            current: *name == here.name,
        })
        .collect())
}

#[cfg(feature = "ssr")]
pub(crate) fn engine() -> engine::Engine {
    // The request's context chose its engine (local mode serves each kubeconfig context with its own).
    use_context::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<engine::Engine>().cloned())
        .unwrap_or_else(expect_context::<engine::Engine>)
}

/// Who the request acts as, as the server's session layer found it: the operator in local mode, the signed-in
/// person in team mode.
#[cfg(feature = "ssr")]
pub(crate) fn caller() -> Result<engine::Caller, AppError> {
    use_context::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<engine::Caller>().cloned())
        .ok_or_else(|| AppError::NotSignedIn("sign in first: open /sign-in".into()))
}

/// The address of the request's peer, for the log (the server's connection loop puts it in the request, as
/// axum's `ConnectInfo`): "unknown" outside a request.
#[cfg(feature = "ssr")]
pub(crate) fn peer() -> String {
    use_context::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0))
        .map_or_else(|| "unknown".to_owned(), |peer| peer.to_string())
}

/// Where the request comes from, for the sign-in's per-source pace: the client a trusted proxy names, else the
/// peer (the server's `source` layer decides). Outside the server's connection loop, one unknown source.
#[cfg(feature = "ssr")]
pub(crate) fn source() -> engine::Source {
    use_context::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<engine::Source>().copied())
        .unwrap_or_else(|| engine::Source::new(std::net::Ipv4Addr::UNSPECIFIED.into()))
}

#[cfg(feature = "ssr")]
use domain::input::node_name;

/// A failed input check is the requester's to fix: 400, with the check's message.
#[cfg(feature = "ssr")]
pub(crate) fn input<T>(checked: Result<T, String>) -> Result<T, AppError> {
    checked.map_err(AppError::Invalid)
}

/// Gives a failed call the HTTP status of its error (the body stays the documented JSON).
#[cfg(feature = "ssr")]
pub(crate) fn respond<T>(result: Result<T, AppError>) -> Result<T, AppError> {
    // The API server no longer accepts the person's credentials (expired, revoked): the session is of no use, and
    // is forgotten, so that the next page asks them to sign in again.
    let result = match (result, caller()) {
        (Err(AppError::Api { code: 401, .. }), Ok(caller)) if caller.person.is_some() => {
            // The name as the API server gave it, escaped: a newline in it cannot forge a line of the log.
            tracing::warn!(outcome = "credentials refused", user = ?caller.identity.user, peer = %peer(),
                "authentication: the API server no longer accepts the person's credentials (expired or revoked); their sessions end");
            engine().acting_as(&caller).forget_sessions();
            Err(AppError::NotSignedIn("your credentials expired or were revoked: sign in again".into()))
        }
        (result, _) => result,
    };
    if let Err(error) = &result {
        error.set_status();
    }
    result
}
