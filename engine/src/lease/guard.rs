//! The engine's one Lease guard, for drains and plans alike.

use std::time::Duration;

/// How often the holder renews.
pub const RENEW_EVERY: Duration = Duration::from_secs(5);
/// How long the holder goes on without a successful renewal before it stops evicting: 10 s inside the Lease, so
/// that it has stopped before another server may take the node over.
pub const GIVE_UP_AFTER: Duration = Duration::from_secs(30);

/// The engine's one Lease guard: renews a Lease every [`RENEW_EVERY`] through `renew` (true: renewed; false:
/// another server holds it now), the first time at once, and returns once the work it guards must stop: another
/// server holds the Lease, or no renewal has succeeded for [`GIVE_UP_AFTER`], shorter than the Lease's
/// 40 s Lease (`LEASE_SECONDS`), by this server's own monotonic clock. Each call is held to the time left before that limit:
/// an answer that asks to retry after a minute, or one that never comes, cannot keep the work going past it.
/// `what` names the Lease in the log. Drains (their node's Lease) and plans (theirs) stop on its return.
pub(crate) async fn guard<F, Fut>(what: &str, mut renew: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<bool, kube::Error>>,
{
    let mut last_renewed = tokio::time::Instant::now();
    let mut first = true;
    loop {
        if !std::mem::take(&mut first) {
            tokio::time::sleep(RENEW_EVERY).await;
        }
        let left = GIVE_UP_AFTER.saturating_sub(last_renewed.elapsed());
        let Ok(renewed) = tokio::time::timeout(left, renew()).await else {
            tracing::error!(lease = %what, "the Lease could not be renewed in time; stopping what it guards");
            return;
        };
        match renewed {
            Ok(true) => last_renewed = tokio::time::Instant::now(),
            Ok(false) => {
                tracing::error!(lease = %what, "another server holds the Lease now; stopping what it guards");
                return;
            }
            Err(err) => {
                tracing::warn!(lease = %what, error = %crate::kube_error::api_message(&err), "could not renew the Lease");
                if last_renewed.elapsed() >= GIVE_UP_AFTER {
                    tracing::error!(lease = %what, "the Lease could not be renewed in time; stopping what it guards");
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A renewal that answers each call with the next of `answers`, then never answers again.
    fn scripted(
        answers: Vec<Option<Result<bool, ()>>>,
    ) -> impl FnMut() -> futures::future::BoxFuture<'static, Result<bool, kube::Error>> {
        use futures::FutureExt;
        let answers = std::sync::Arc::new(parking_lot::Mutex::new(std::collections::VecDeque::from(answers)));
        move || {
            let answers = answers.clone();
            async move {
                let next = answers.lock().pop_front();
                match next {
                    Some(Some(Ok(held))) => Ok(held),
                    Some(Some(Err(()))) => Err(kube::Error::LinesCodecMaxLineLengthExceeded),
                    // `None`, or the script done: the call never comes back.
                    _ => std::future::pending().await,
                }
            }
            .boxed()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_guard_gives_up_by_its_own_clock_whatever_the_calls_do() {
        let started = tokio::time::Instant::now();
        // Renewed three times, then a call that never answers: given up GIVE_UP_AFTER after the last renewal.
        guard("t", scripted(vec![Some(Ok(true)), Some(Ok(true)), Some(Ok(true)), None])).await;
        assert_eq!(started.elapsed(), RENEW_EVERY * 2 + GIVE_UP_AFTER);

        // Another server holds it: at once.
        let started = tokio::time::Instant::now();
        guard("t", scripted(vec![Some(Ok(true)), Some(Ok(false))])).await;
        assert_eq!(started.elapsed(), RENEW_EVERY);

        // Failures short of the limit are ridden out; a renewal resets the clock.
        let started = tokio::time::Instant::now();
        let mut script = vec![Some(Ok(true))];
        script.extend([Some(Err(())); 5]);
        script.push(Some(Ok(true)));
        script.extend([Some(Err(())); 6]);
        guard("t", scripted(script)).await;
        // 5 failures, a renewal at 6 × RENEW_EVERY, then failures until GIVE_UP_AFTER (30 s) has passed: at 6 × 5 s.
        assert_eq!(started.elapsed(), RENEW_EVERY * 12);
    }
}
