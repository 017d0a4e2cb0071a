//! How hard drains may press on the API server: a token bucket shared by every drain of this server, and a bound on
//! the evictions one drain has in flight. kubectl's client is held to 5 requests a second with a burst of 10; a
//! server that drains many nodes for many people must be at least as polite when asked to be, and never send a
//! node's hundreds of evictions in one burst.

use std::{num::NonZeroU32, sync::Arc};

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use tokio::sync::Semaphore;

/// The pace settings. `qps` 0 means no token bucket (the in-flight bound still holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pace {
    /// Requests per second, refilled steadily, for all drains together.
    pub qps: u32,
    /// How many requests may go at once after a quiet spell.
    pub burst: u32,
    /// The most eviction (or DELETE) requests one drain waits on at the same time.
    pub in_flight: usize,
}

impl Default for Pace {
    /// Ten times kubectl's rate: a 110-pod node is asked in about a second, and the API server's own priority and
    /// fairness still sees a bounded stream.
    fn default() -> Self {
        Pace { qps: 50, burst: 100, in_flight: 50 }
    }
}

/// The shared token bucket. Cloned into every drain.
#[derive(Clone, Default)]
pub struct Pacer {
    bucket: Option<Arc<DefaultDirectRateLimiter>>,
    in_flight: usize,
}

impl Pacer {
    pub fn new(pace: Pace) -> Self {
        let bucket = NonZeroU32::new(pace.qps).map(|qps| {
            let burst = NonZeroU32::new(pace.burst).unwrap_or(qps);
            Arc::new(RateLimiter::direct(Quota::per_second(qps).allow_burst(burst)))
        });
        Pacer { bucket, in_flight: pace.in_flight.max(1) }
    }

    /// Waits for a token, if there is a bucket.
    pub async fn ready(&self) {
        if let Some(bucket) = &self.bucket {
            bucket.until_ready().await;
        }
    }

    /// A fresh in-flight bound for one drain.
    pub fn in_flight(&self) -> Semaphore {
        Semaphore::new(self.in_flight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[tokio::test]
    async fn the_bucket_lets_a_burst_through_then_holds_to_the_rate() {
        let pacer = Pacer::new(Pace { qps: 20, burst: 5, in_flight: 1 });
        let started = Instant::now();
        for _ in 0..5 {
            pacer.ready().await;
        }
        assert!(started.elapsed() < Duration::from_millis(40), "the burst is not held back");
        for _ in 0..10 {
            pacer.ready().await;
        }
        // Ten more at 20 a second take about half a second.
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(400), "held to the rate: {took:?}");
        assert!(took < Duration::from_secs(2), "not slower than the rate: {took:?}");
    }

    #[tokio::test]
    async fn no_bucket_means_no_wait_and_in_flight_is_at_least_one() {
        let pacer = Pacer::new(Pace { qps: 0, burst: 0, in_flight: 0 });
        let started = Instant::now();
        for _ in 0..1000 {
            pacer.ready().await;
        }
        assert!(started.elapsed() < Duration::from_millis(100));
        assert_eq!(pacer.in_flight().available_permits(), 1);
    }
}
