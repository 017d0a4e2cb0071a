//! Server-sent events: a drain's progress pushed to every viewer as it changes.

use std::convert::Infallible;

use app::drain::DrainRegistry;
use axum::{
    extract::{Path, State},
    http::StatusCode,
    response::sse::{Event, KeepAlive, Sse},
};
use futures::{Stream, StreamExt};
use tokio_stream::wrappers::WatchStream;

/// `GET /api/drains/{id}/events`: one `progress` event with the full snapshot now and after every change, until
/// the drain has finished. A viewer that connects late, or reconnects, gets the current state first.
pub async fn drain_events(
    State(registry): State<DrainRegistry>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, (StatusCode, String)> {
    let rx = registry.subscribe(&id).ok_or((
        StatusCode::NOT_FOUND,
        format!("no drain with id {id} on this server"),
    ))?;
    let mut done = false;
    let stream = WatchStream::new(rx)
        .take_while(move |progress| {
            // Let the final snapshot through, then end the stream.
            let send = !done;
            done = !progress.state.is_running();
            std::future::ready(send)
        })
        .map(|progress| {
            Ok(Event::default()
                .event("progress")
                .json_data(&progress)
                .unwrap_or_default())
        });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
