//! Compression of the event streams. tower-http's compression layer leaves `text/event-stream` alone, for good
//! reason: its encoder holds bytes back until it has enough, and a stream's events must reach the browser as they
//! happen. Here each chunk the stream writes (one event, or a keep-alive) is compressed and flushed at once, so
//! nothing waits, and a large first board (every card of a large cluster) still crosses the wire compressed.

use std::{io::Write, sync::Arc};

use axum::{
    body::{Body, Bytes},
    extract::Request,
    http::{HeaderValue, header},
    middleware::Next,
    response::Response,
};
use flate2::{Compression, write::GzEncoder};
use futures::{StreamExt, stream};
use parking_lot::Mutex;

/// Whether the request accepts gzip (and does not refuse it with `q=0`).
fn accepts_gzip(request: &Request) -> bool {
    request
        .headers()
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts.any(|p| p.strip_prefix("q=").and_then(|q| q.trim().parse::<f32>().ok()) == Some(0.0));
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
}

/// Gzips an event stream's response for a client that accepts it, flushing after every chunk.
pub async fn event_streams(request: Request, next: Next) -> Response {
    let gzip = accepts_gzip(&request);
    let response = next.run(request).await;
    let is_stream = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !gzip || !is_stream || response.headers().contains_key(header::CONTENT_ENCODING) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    parts.headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    parts.headers.append(header::VARY, HeaderValue::from_static("accept-encoding"));
    parts.headers.remove(header::CONTENT_LENGTH);
    // Fast compression: the first board of 5,000 nodes is many megabytes of JSON, which compresses well even so.
    let encoder = Arc::new(Mutex::new(Some(GzEncoder::new(Vec::new(), Compression::fast()))));
    let chunks = {
        let encoder = encoder.clone();
        body.into_data_stream().map(move |chunk| {
            let chunk = chunk.map_err(std::io::Error::other)?;
            let mut guard = encoder.lock();
            let encoder = guard.as_mut().ok_or_else(|| std::io::Error::other("the stream has ended"))?;
            encoder.write_all(&chunk)?;
            // A sync flush: everything written so far can be decompressed now.
            encoder.flush()?;
            Ok::<_, std::io::Error>(Bytes::from(std::mem::take(encoder.get_mut())))
        })
    };
    let end = stream::once(async move {
        let taken = encoder.lock().take();
        match taken {
            Some(encoder) => encoder.finish().map(Bytes::from),
            None => Ok(Bytes::new()),
        }
    });
    Response::from_parts(parts, Body::from_stream(chunks.chain(end)))
}

#[cfg(test)]
mod tests {
    use std::{convert::Infallible, io::Read, time::Duration};

    use axum::{
        Router,
        response::sse::{Event, Sse},
        routing::get,
    };
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    use super::*;

    fn router() -> Router {
        Router::new()
            .route(
                "/events",
                get(|| async {
                    // The first event at once, the second only much later: the first must not wait for it.
                    let events =
                        stream::once(async { Ok::<_, Infallible>(Event::default().data("first ".repeat(500))) }).chain(
                            stream::once(async {
                                tokio::time::sleep(Duration::from_secs(3600)).await;
                                Ok(Event::default().data("second"))
                            }),
                        );
                    Sse::new(events)
                }),
            )
            .route("/page", get(|| async { "not a stream" }))
            .layer(axum::middleware::from_fn(event_streams))
    }

    fn get_with(path: &str, encoding: &str) -> Request {
        Request::get(path).header("accept-encoding", encoding).body(Body::empty()).unwrap()
    }

    #[tokio::test]
    async fn each_event_arrives_compressed_without_waiting_for_the_next() {
        let response = router().oneshot(get_with("/events", "gzip, br")).await.unwrap();
        assert_eq!(response.headers()[header::CONTENT_ENCODING], "gzip");
        let mut body = response.into_body();
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("the first event is flushed at once")
            .unwrap()
            .unwrap();
        let compressed = frame.into_data().unwrap();
        assert!(compressed.len() < 200, "3,000 bytes of event in {} bytes", compressed.len());
        let mut text = Vec::new();
        // A sync-flushed gzip stream decompresses up to the flush; the end of the stream is still to come.
        let _ = flate2::read::GzDecoder::new(&compressed[..]).read_to_end(&mut text);
        let text = String::from_utf8_lossy(&text);
        assert!(text.starts_with("data: first first"), "{text:?}");
    }

    #[tokio::test]
    async fn other_answers_and_clients_that_refuse_gzip_are_left_alone() {
        let response = router().oneshot(get_with("/events", "br, gzip;q=0")).await.unwrap();
        assert!(response.headers().get(header::CONTENT_ENCODING).is_none());
        let response = router().oneshot(get_with("/events", "gzip; q=0.000")).await.unwrap();
        assert!(response.headers().get(header::CONTENT_ENCODING).is_none());
        let response = router().oneshot(get_with("/events", "identity")).await.unwrap();
        assert!(response.headers().get(header::CONTENT_ENCODING).is_none());
        let response = router().oneshot(get_with("/page", "gzip")).await.unwrap();
        assert!(response.headers().get(header::CONTENT_ENCODING).is_none(), "the compression layer's business");
    }
}
