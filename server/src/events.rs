//! Server-sent event streams: the node board and each drain's progress, pushed to every viewer as they change.

use std::{collections::BTreeMap, convert::Infallible, sync::Arc};

use app::{cluster_cache::ClusterCaches, drain::DrainRegistry, kube_access::KubeAccess};
use axum::{
    extract::{Path, State},
    http::StatusCode,
    response::sse::{Event, KeepAlive, Sse},
};
use domain::board::{BoardSettings, diff};
use futures::{Stream, StreamExt};
use tokio_stream::wrappers::WatchStream;

/// What the event streams read.
#[derive(Clone)]
pub struct Streams {
    pub access: KubeAccess,
    pub caches: ClusterCaches,
    /// Held for the server's lifetime (see `web::router`).
    pub _operator_cache: Option<Arc<app::cluster_cache::ClusterCache>>,
    pub drains: DrainRegistry,
    pub settings: BoardSettings,
    /// Board streams open now.
    pub viewers: Arc<std::sync::atomic::AtomicI64>,
}

/// `GET /api/board/events`: one `board` event with every card at once (so a reconnecting viewer resyncs), then
/// one with just the changed and removed cards after each change. Viewers with the same identity share one cache.
pub async fn board_events(
    State(streams): State<Streams>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, (StatusCode, String)> {
    let identity = streams.access.identity_for_request();
    let client = streams.access.client_for(&identity).map_err(|e| (StatusCode::UNAUTHORIZED, e.to_string()))?;
    let cache = streams.caches.for_identity(&identity, client);
    let cards = cache.live_cards();
    let viewer = Viewer::new(streams.viewers.clone());
    let settings = streams.settings;
    let state = (cache, cards, BTreeMap::new(), true, viewer);
    let stream = futures::stream::unfold(state, move |(cache, mut cards, mut sent, first, viewer)| async move {
        loop {
            // Waits for the first computation after the cache is ready, then for each recomputation.
            cards.changed().await.ok()?;
            let now = cards.borrow_and_update().clone();
            if let Some(update) = diff(&mut sent, &now, first, settings, jiff::Timestamp::now()) {
                let event = Event::default().event("board").json_data(&update).unwrap_or_default();
                return Some((Ok(event), (cache, cards, sent, false, viewer)));
            }
        }
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// Counts an open board stream for as long as it lives.
struct Viewer(Arc<std::sync::atomic::AtomicI64>);

impl Viewer {
    fn new(count: Arc<std::sync::atomic::AtomicI64>) -> Self {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Viewer(count)
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `GET /metrics`: the server's own counters, in the Prometheus text format.
pub async fn metrics(State(streams): State<Streams>) -> String {
    format!(
        "# HELP drainboard_watches_started_total Watches of the Kubernetes API started by the cluster caches.\n\
         # TYPE drainboard_watches_started_total counter\n\
         drainboard_watches_started_total {}\n\
         # HELP drainboard_board_viewers Board event streams open now.\n\
         # TYPE drainboard_board_viewers gauge\n\
         drainboard_board_viewers {}\n",
        streams.caches.watches_started(),
        streams.viewers.load(std::sync::atomic::Ordering::Relaxed)
    )
}

/// `GET /api/drains/{id}/events`: one `progress` event with the full snapshot now and after every change, until
/// the drain has finished. A viewer that connects late, or reconnects, gets the current state first.
pub async fn drain_events(
    State(streams): State<Streams>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, (StatusCode, String)> {
    let rx = streams
        .drains
        .subscribe(&id)
        .ok_or((StatusCode::NOT_FOUND, format!("no drain with id {id} on this server")))?;
    let mut done = false;
    let stream = WatchStream::new(rx)
        .take_while(move |progress| {
            // Let the final snapshot through, then end the stream.
            let send = !done;
            done = !progress.state.is_running();
            std::future::ready(send)
        })
        .map(|progress| Ok(Event::default().event("progress").json_data(&progress).unwrap_or_default()));
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
