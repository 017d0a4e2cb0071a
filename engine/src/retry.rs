//! What client-go does before kubectl sees an answer, for every call the engine makes: an answer of 429 or 5xx
//! that names a `Retry-After` is the API server asking to be asked again (its own throttling, a server shutting
//! down), so the request is sent again after that many seconds, up to 10 times. Other answers come back as they
//! are.
//!
//! Evictions are left out: their loop (engine::drain) reads the same header itself, so that a budget that is
//! still being processed shows as a block on the page instead of hiding inside one slow call.

use std::time::Duration;

use http::{Request, Response};
use kube::client::Body;
use tower::{BoxError, retry::Policy};

/// client-go's `maxRetries` for answers naming a Retry-After.
pub const MAX_RETRIES: u32 = 10;

/// The longest wait honoured: the value comes from whatever answered.
const MAX_WAIT: Duration = Duration::from_secs(60);

/// The retry policy (a `tower::retry::Policy`); fresh per request, as the layer clones it.
#[derive(Clone, Debug, Default)]
pub struct RetryAfter {
    attempts: u32,
}

impl RetryAfter {
    /// The wait an answer asks for, if it is one to retry.
    fn wait<B>(response: &Response<B>) -> Option<Duration> {
        let status = response.status();
        if !(status.as_u16() == 429 || status.is_server_error()) {
            return None;
        }
        let seconds: u64 = response.headers().get(http::header::RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()?;
        Some(Duration::from_secs(seconds).min(MAX_WAIT))
    }
}

/// Whether the request is a pod eviction, which the drain loop retries itself.
fn is_eviction(request: &Request<Body>) -> bool {
    request.uri().path().ends_with("/eviction")
}

impl<Res> Policy<Request<Body>, Response<Res>, BoxError> for RetryAfter {
    type Future = tokio::time::Sleep;

    fn retry(
        &mut self,
        request: &mut Request<Body>,
        result: &mut Result<Response<Res>, BoxError>,
    ) -> Option<Self::Future> {
        let Ok(response) = result else {
            return None;
        };
        if is_eviction(request) || self.attempts >= MAX_RETRIES {
            return None;
        }
        let wait = Self::wait(response)?;
        self.attempts += 1;
        tracing::info!(path = %request.uri().path(), status = response.status().as_u16(), wait_s = wait.as_secs(), attempt = self.attempts, "the API server asked to retry");
        Some(tokio::time::sleep(wait))
    }

    fn clone_request(&mut self, request: &Request<Body>) -> Option<Request<Body>> {
        // A streaming body cannot be sent twice; such a request is not retried.
        let body = request.body().try_clone()?;
        let mut copy =
            Request::builder().method(request.method().clone()).uri(request.uri().clone()).version(request.version());
        if let Some(headers) = copy.headers_mut() {
            headers.extend(request.headers().clone());
        }
        let mut copy = copy.body(body).ok()?;
        *copy.extensions_mut() = request.extensions().clone();
        Some(copy)
    }
}

/// A client for `config` whose calls follow [`RetryAfter`].
pub fn client(config: kube::Config) -> Result<kube::Client, kube::Error> {
    let builder = kube::client::ClientBuilder::try_from(config)?;
    Ok(builder
        .with_layer(&tower::buffer::BufferLayer::new(1024))
        .with_layer(&tower::retry::RetryLayer::new(RetryAfter::default()))
        .build())
}

/// A watch's retry pace (and that of any call asked again until it succeeds, such as a plan's silences): doubling
/// from `min` to at most `max`, with jitter, for as long as it runs; reset by any success (kube-runtime's `backoff`). Each watcher chooses its bounds by who waits on it: kube's default grows
/// to 30 s, too slow for a board or a drain to notice that the API server is back.
pub fn watch_backoff(min: Duration, max: Duration) -> kube::runtime::watcher::ExponentialBackoff {
    backon::ExponentialBuilder::default()
        .with_min_delay(min)
        .with_max_delay(max)
        .with_factor(2.0)
        .with_jitter()
        .without_max_times()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, retry_after: Option<&str>) -> Response<()> {
        let mut builder = Response::builder().status(status);
        if let Some(value) = retry_after {
            builder = builder.header(http::header::RETRY_AFTER, value);
        }
        builder.body(()).unwrap()
    }

    fn request(path: &str) -> Request<Body> {
        Request::builder().uri(path).body(Body::from(b"{}".to_vec())).unwrap()
    }

    #[test]
    fn only_429_and_5xx_naming_a_retry_after_are_retried_as_client_go_does() {
        assert_eq!(RetryAfter::wait(&answer(503, Some("1"))), Some(Duration::from_secs(1)));
        assert_eq!(RetryAfter::wait(&answer(429, Some("3"))), Some(Duration::from_secs(3)));
        assert_eq!(RetryAfter::wait(&answer(500, Some("2"))), Some(Duration::from_secs(2)));
        assert_eq!(RetryAfter::wait(&answer(503, None)), None, "no header, no retry: the caller sees it");
        assert_eq!(RetryAfter::wait(&answer(404, Some("1"))), None);
        assert_eq!(RetryAfter::wait(&answer(503, Some("soon"))), None);
        assert_eq!(RetryAfter::wait(&answer(503, Some("99999999"))), Some(MAX_WAIT), "capped");
    }

    #[tokio::test(start_paused = true)]
    async fn at_most_ten_retries_and_never_an_eviction() {
        let mut policy = RetryAfter::default();
        let mut req = request("/api/v1/nodes/n1");
        for _ in 0..MAX_RETRIES {
            let mut result: Result<Response<()>, BoxError> = Ok(answer(503, Some("1")));
            assert!(policy.retry(&mut req, &mut result).is_some());
        }
        let mut result: Result<Response<()>, BoxError> = Ok(answer(503, Some("1")));
        assert!(policy.retry(&mut req, &mut result).is_none(), "the eleventh answer is the caller's");
        let mut eviction = request("/api/v1/namespaces/a/pods/p/eviction");
        let mut result: Result<Response<()>, BoxError> = Ok(answer(429, Some("10")));
        assert!(RetryAfter::default().retry(&mut eviction, &mut result).is_none());
        let copy = <RetryAfter as Policy<Request<Body>, Response<()>, BoxError>>::clone_request(
            &mut RetryAfter::default(),
            &request("/x"),
        );
        assert!(copy.is_some(), "a buffered body is sent again");
    }
}
