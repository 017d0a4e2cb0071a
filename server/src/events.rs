//! Server-sent event streams: the node board and each drain's progress, pushed to every viewer as they change.

use std::{
    collections::{BTreeMap, HashMap},
    convert::Infallible,
    sync::{Arc, Weak},
};

use app::AppError;
use axum::{
    Extension,
    extract::{Path, State},
    response::{
        IntoResponse, Response,
        sse::{Event, KeepAlive, Sse},
    },
};
use domain::board::{BoardSettings, diff};
use engine::{Caller, DrainFeed, Engine, Identity, Visibility, cache::ClusterCache};
use futures::{Stream, StreamExt};
use parking_lot::Mutex;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_stream::wrappers::WatchStream;

/// What the event streams read.
#[derive(Clone)]
pub struct Streams {
    pub engine: Engine,
    pub settings: BoardSettings,
    pub limits: StreamLimits,
}

/// Caps on open event streams, all together and per identity: each holds a connection and a task, and a page
/// (or a script) that opens them in a loop must not exhaust the server.
#[derive(Clone)]
pub struct StreamLimits {
    total: Arc<Semaphore>,
    per_identity: usize,
    /// Each identity's places, held by its open streams' permits: an identity with none open leaves the map at
    /// the next admission, so it holds no more identities than there are streams.
    by_identity: Arc<Mutex<HashMap<Identity, Weak<Semaphore>>>>,
}

/// A place among the open streams, given back when the stream ends.
pub struct StreamPermit {
    _total: OwnedSemaphorePermit,
    _mine: OwnedSemaphorePermit,
}

impl StreamLimits {
    pub fn new(total: usize, per_identity: usize) -> Self {
        StreamLimits { total: Arc::new(Semaphore::new(total)), per_identity, by_identity: Default::default() }
    }

    /// A place for one more stream of `identity`'s, or 429 with what to do.
    fn admit(&self, identity: &Identity) -> Result<StreamPermit, StreamError> {
        // Counted per person, whichever of their sign-ins opens the view.
        let identity = &identity.principal();
        let mine = {
            let mut by_identity = self.by_identity.lock();
            match by_identity.get(identity).and_then(Weak::upgrade) {
                Some(mine) => mine,
                None => {
                    by_identity.retain(|_, places| places.strong_count() > 0);
                    let mine = Arc::new(Semaphore::new(self.per_identity));
                    by_identity.insert(identity.clone(), Arc::downgrade(&mine));
                    mine
                }
            }
        };
        let mine = mine.try_acquire_owned().map_err(|_| {
            StreamError(AppError::TooMany(format!(
                "{} has {} live views open, the most one person may; close some tabs",
                identity.user, self.per_identity
            )))
        })?;
        let total = self.total.clone().try_acquire_owned().map_err(|_| {
            StreamError(AppError::TooMany(
                "this server has as many live views open as it serves; try again later".into(),
            ))
        })?;
        Ok(StreamPermit { _total: total, _mine: mine })
    }
}

/// A stream that could not be opened, answered as a server function's error is (`AppError`'s response): its
/// status, and the JSON body `API.md` documents.
pub struct StreamError(AppError);

impl From<engine::Error> for StreamError {
    fn from(err: engine::Error) -> Self {
        StreamError(AppError::from(err))
    }
}

impl IntoResponse for StreamError {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

/// `stream`, holding `permit` until it ends.
fn holding<S: Stream>(stream: S, permit: StreamPermit) -> impl Stream<Item = S::Item> {
    stream.map(move |item| {
        let _held = &permit;
        item
    })
}

/// How often an open stream checks that its viewer's session still lives.
const SESSION_CHECK: std::time::Duration = std::time::Duration::from_secs(15);

impl Streams {
    /// Cancelled when the server shuts down: every stream ends then.
    fn shutdown(&self) -> tokio_util::sync::WaitForCancellationFutureOwned {
        self.engine.shutdown_signal().cancelled_owned()
    }

    /// Done when the server shuts down, or (team mode) within [`SESSION_CHECK`] of the end of `caller`'s session:
    /// signed out, expired, or ended by a new sign-in. A stream is no activity of its person, so the check does
    /// not keep the session alive; once it ends, so does what it was showing.
    fn until_ended(&self, engine: &Engine, caller: &Caller) -> impl Future<Output = ()> + Send + use<> {
        let shutdown = self.shutdown();
        let (engine, session) = (engine.clone(), caller.session.clone());
        async move {
            let session_gone = async move {
                let Some(id) = session else { return std::future::pending().await };
                let mut every = tokio::time::interval(SESSION_CHECK);
                loop {
                    every.tick().await;
                    if engine.session(&id, false).is_none() {
                        return;
                    }
                }
            };
            tokio::select! {
                () = shutdown => {}
                () = session_gone => {}
            }
        }
    }
}

/// `GET /api/board/events`: one `board` event with every card at once (so a reconnecting viewer resyncs), then
/// one with just the changed and removed cards after each change. Viewers with the same identity share one cache.
/// Alongside, `drains` events carry every drain of the cluster the cards show (who started it, why, how far),
/// first at once and then after each change, so everyone sees the drains anyone starts. A `history` event carries
/// a number that moves whenever any node's durable history changes, for pages that show the timeline. A `plans`
/// event carries every maintenance plan (as `POST /api/plans` answers) at once, and a `plans-changed` event what
/// changed after each change the server's watch of them sees (`domain::plan_feed`), so no page polls for them.
pub async fn board_events(
    State(streams): State<Streams>,
    Extension(engine): Extension<Engine>,
    Extension(caller): Extension<Caller>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, StreamError> {
    let permit = streams.limits.admit(&caller.identity)?;
    let acting = engine.acting_as(&caller);
    let (cache, visibility) = acting.view().await?;
    let board = BoardFeed {
        visibility,
        cards: cache.live_cards(),
        lost_since: cache.lost_since(),
        _cache: cache,
        sent: BTreeMap::new(),
        first: true,
        settings: streams.settings,
        drains: acting.drain_feed().await?,
        drains_sent: None,
        lost_sent: None,
        history: acting.history_changes().await?,
        history_due: false,
        plans: engine.plan_changes(),
        plans_due: true,
        plans_sent: None,
        engine: engine.clone(),
        caller: caller.clone(),
        _viewer: Viewer::new(),
    };
    let stream = futures::stream::unfold(board, |mut board| async move {
        let event = board.next().await?;
        Some((Ok(event), board))
    });
    Ok(Sse::new(holding(stream, permit).take_until(streams.until_ended(&engine, &caller)))
        .keep_alive(KeepAlive::default()))
}

/// One viewer's board stream: what it has been sent, and what it waits on.
struct BoardFeed {
    /// Held so the cache lives as long as the stream.
    _cache: Arc<ClusterCache>,
    cards: tokio::sync::watch::Receiver<Arc<Vec<Arc<domain::node::NodeCard>>>>,
    /// What of the cards the viewer may see.
    visibility: Visibility,
    sent: BTreeMap<String, Arc<domain::node::NodeCard>>,
    first: bool,
    settings: BoardSettings,
    /// The drains of the viewer's cluster, this server's and those other servers run (from their node Leases).
    drains: DrainFeed,
    drains_sent: Option<Vec<domain::progress::DrainSummary>>,
    /// Since when the cache's watches cannot reach the API server.
    lost_since: tokio::sync::watch::Receiver<Option<jiff::Timestamp>>,
    /// What the viewer was last told of it; a new viewer assumes the API server answers.
    lost_sent: Option<jiff::Timestamp>,
    /// Moves at each change of any node's durable history (`None` when the server keeps none): the viewer is told
    /// the new version, and asks for the timeline again if it shows one.
    history: Option<tokio::sync::watch::Receiver<u64>>,
    /// Whether the history moved since the viewer was last told.
    history_due: bool,
    /// Moves at each change of any maintenance plan (`None` when the server keeps none).
    plans: Option<tokio::sync::watch::Receiver<u64>>,
    /// Whether the plans may have changed since they were last sent.
    plans_due: bool,
    plans_sent: Option<Vec<domain::rollout::RolloutProgress>>,
    /// Whom the plans are read for: each list is judged by the caller's sight, as `POST /api/plans` is.
    engine: Engine,
    caller: Caller,
    _viewer: Viewer,
}

impl BoardFeed {
    /// The next event to send; `None` ends the stream.
    async fn next(&mut self) -> Option<Event> {
        loop {
            // A lost API server is said at once, board or no board: the cards stop changing, and must not look live.
            let lost = *self.lost_since.borrow_and_update();
            if lost != self.lost_sent {
                self.lost_sent = lost;
                let health = domain::board::ApiHealth { lost_since: lost };
                return Some(Event::default().event("health").json_data(health).unwrap_or_default());
            }
            // The drains follow the first board, so a viewer never sees a drain for a card it does not have.
            if !self.first {
                let drains = self.drains.summaries();
                if self.drains_sent.as_ref() != Some(&drains) {
                    let event = Event::default().event("drains").json_data(&drains).unwrap_or_default();
                    self.drains_sent = Some(drains);
                    return Some(event);
                }
            }
            if !self.first && self.plans.is_some() && std::mem::take(&mut self.plans_due) {
                // A viewer who may not read the nodes gets no plans, as from `POST /api/plans`.
                // Every plan once; then what changed, so that one plan's step does not send them all again.
                if let Ok(list) = self.engine.acting_as(&self.caller).rollouts().await {
                    let event = match &self.plans_sent {
                        None => Some(Event::default().event("plans").json_data(&list).unwrap_or_default()),
                        Some(sent) => domain::plan_feed::diff(sent, &list).map(|changed| {
                            Event::default().event("plans-changed").json_data(&changed).unwrap_or_default()
                        }),
                    };
                    if let Some(event) = event {
                        self.plans_sent = Some(list);
                        return Some(event);
                    }
                }
            }
            // Waiting for a change (below) marks it seen, so the wait sets `history_due`: asking `has_changed` alone
            // here would miss every change that came while the stream was idle, and the timeline and the node
            // page's history would not be read again.
            if !self.first
                && let Some(history) = self.history.as_mut()
                && (std::mem::take(&mut self.history_due) || history.has_changed().unwrap_or(false))
            {
                let version = *history.borrow_and_update();
                return Some(Event::default().event("history").data(version.to_string()));
            }
            let history_changed = async {
                match self.history.as_mut() {
                    Some(history) => history.changed().await,
                    None => std::future::pending().await,
                }
            };
            let plans_changed = async {
                match self.plans.as_mut() {
                    Some(plans) => plans.changed().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                changed = plans_changed => {
                    changed.ok()?;
                    self.plans_due = true;
                }
                changed = history_changed => {
                    changed.ok()?;
                    self.history_due = true;
                }
                changed = self.cards.changed() => {
                    // Waits for the first computation after the cache is ready, then for each recomputation.
                    changed.ok()?;
                    let now = self.cards.borrow_and_update().clone();
                    let now = match &self.visibility {
                        Visibility::All => now,
                        narrow => Arc::new(narrow.cards(&now)),
                    };
                    let first = self.first;
                    if let Some(update) = diff(&mut self.sent, &now, first, self.settings, jiff::Timestamp::now()) {
                        self.first = false;
                        return Some(Event::default().event("board").json_data(&update).unwrap_or_default());
                    }
                }
                changed = self.drains.changed() => changed.ok()?,
                changed = self.lost_since.changed() => changed.ok()?,
            }
        }
    }
}

/// Counts an open board stream (the `board_viewers` gauge) for as long as it lives.
struct Viewer;

impl Viewer {
    fn new() -> Self {
        engine::metrics::METRICS.viewers.inc();
        Viewer
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        engine::metrics::METRICS.viewers.dec();
    }
}

/// `GET /metrics`: the server's metrics, in the OpenMetrics text format (`engine::metrics`). Also on the probe
/// address, for Prometheus.
pub async fn metrics(
    Extension(engine): Extension<Engine>,
    Extension(caller): Extension<Caller>,
) -> impl axum::response::IntoResponse {
    // The fleet's counts are read with the server's own view: they go to a person who may read the whole board,
    // as the board's own lists do, and to nobody else.
    let sees_all = matches!(engine.acting_as(&caller).sight().await, Ok(Some(Visibility::All)));
    metrics_response(if sees_all { census(engine).await } else { None })
}

/// The fleet's counts for one scrape (`Engine::census`), counted off the async workers: deciding every node against
/// the maintenance windows is work in proportion to the fleet.
pub async fn census(engine: Engine) -> Option<domain::census::Census> {
    tokio::task::spawn_blocking(move || engine.census()).await.ok().flatten()
}

/// The scrape's answer, with its content type: every metric, and the fleet's maintenance counts when given
/// (`Engine::census`, counted for this scrape).
pub fn metrics_response(census: Option<domain::census::Census>) -> impl axum::response::IntoResponse {
    let census = census.as_ref().map(|c| (c, jiff::Timestamp::now()));
    (
        [(axum::http::header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")],
        engine::metrics::METRICS.encode_with(census),
    )
}

/// `GET /api/nodes/{node}/preview/events`: one `preview` event with the inputs of the node's drain preview
/// (its pods, DaemonSet lookups and budgets), then another whenever they change, for as long as the dialog is
/// open. The browser plans from them at every option change.
pub async fn preview_events(
    State(streams): State<Streams>,
    Extension(engine): Extension<Engine>,
    Extension(caller): Extension<Caller>,
    Path(node): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, StreamError> {
    let node = domain::input::node_name(&node).map_err(|why| StreamError(AppError::Invalid(why)))?.to_string();
    let permit = streams.limits.admit(&caller.identity)?;
    let (cache, source, visibility) = engine.acting_as(&caller).preview_source(node).await?;
    let changes = cache.live_cards();
    let state = (cache, changes, source, None::<domain::preview::PreviewInputs>, None::<u64>, visibility);
    let stream =
        futures::stream::unfold(state, |(cache, mut changes, mut source, last, mut seen, visibility)| async move {
            loop {
                if last.is_some() {
                    changes.changed().await.ok()?;
                }
                // Only pods and budgets feed a preview: Lease renewals wake this loop often and cost nothing more.
                let version = cache.preview_changes();
                if seen == Some(version) {
                    continue;
                }
                seen = Some(version);
                let mut inputs = visibility.preview(source.inputs(&cache).await);
                // The clock moves every time; only a change of what the preview reads is worth a push.
                if let Some(previous) = &last {
                    inputs.server_time = previous.server_time;
                    if previous == &inputs {
                        continue;
                    }
                    inputs.server_time = jiff::Timestamp::now();
                }
                let event = Event::default().event("preview").json_data(&inputs).unwrap_or_default();
                return Some((Ok(event), (cache, changes, source, Some(inputs), seen, visibility)));
            }
        });
    Ok(Sse::new(holding(stream, permit).take_until(streams.until_ended(&engine, &caller)))
        .keep_alive(KeepAlive::default()))
}

/// `GET /api/drains/{id}/events`: one `progress` event with the full snapshot now and after every change, until
/// the drain has finished. A viewer that connects late, or reconnects, gets the current state first.
pub async fn drain_events(
    State(streams): State<Streams>,
    Extension(engine): Extension<Engine>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, StreamError> {
    let (rx, visibility) = engine.acting_as(&caller).follow_drain(&id).await?;
    let permit = streams.limits.admit(&caller.identity)?;
    let mut done = false;
    let stream = WatchStream::new(rx)
        .take_while(move |progress| {
            // Let the final snapshot through, then end the stream.
            let send = !done;
            done = !progress.state.is_running();
            std::future::ready(send)
        })
        .map(move |progress| {
            let progress = visibility.progress(progress);
            Ok(Event::default().event("progress").json_data(&progress).unwrap_or_default())
        });
    Ok(Sse::new(holding(stream, permit).take_until(streams.until_ended(&engine, &caller)))
        .keep_alive(KeepAlive::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(user: &str) -> Identity {
        Identity::operator("c", user)
    }

    #[test]
    fn each_identity_has_its_places_and_leaves_with_its_last_stream() {
        let limits = StreamLimits::new(10, 2);
        let alice = [limits.admit(&who("alice")), limits.admit(&who("alice"))];
        assert!(alice.iter().all(Result::is_ok));
        assert!(limits.admit(&who("alice")).is_err(), "two per identity");
        let bob = limits.admit(&who("bob"));
        assert!(bob.is_ok(), "another identity has places of its own");
        drop(alice);
        drop(bob);
        let carol = limits.admit(&who("carol"));
        assert!(carol.is_ok());
        let held: Vec<String> = limits.by_identity.lock().keys().map(|i| i.user.clone()).collect();
        assert_eq!(held, ["carol"], "identities with no stream open are not kept");
        assert!(limits.admit(&who("alice")).is_ok(), "and come back with places anew");
    }
}
