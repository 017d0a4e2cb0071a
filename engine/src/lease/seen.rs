//! When this server saw each Lease last change, by its own monotonic clock: a Lease another server holds lapses
//! only once this server has seen it unchanged (same holder, same renewal) for its whole duration, as client-go's
//! leader election judges. A server whose clock runs ahead of the holder's cannot take a Lease the holder still
//! renews; one that first sees a Lease now gives it its whole duration.

use std::{collections::HashMap, time::Duration};

use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::LeaseSpec;
use parking_lot::Mutex;
use tokio::time::Instant;

/// What marks a change: the holder, and its last renewal.
type Mark = (Option<String>, Option<Timestamp>);

/// The last change seen of each Lease, by name.
#[derive(Default)]
pub(super) struct Seen {
    changes: Mutex<HashMap<String, (Mark, Instant)>>,
}

impl Seen {
    /// Notes Lease `name` as it reads now (`spec`), and says whether it still stands by this server's clock: it
    /// changed less than its duration ago, as this server saw it.
    pub(super) fn stands(&self, name: &str, spec: &LeaseSpec) -> bool {
        let mark = (spec.holder_identity.clone(), spec.renew_time.as_ref().map(|t| t.0));
        let seconds = spec.lease_duration_seconds.and_then(|s| u64::try_from(s).ok()).unwrap_or(0);
        let now = Instant::now();
        let mut changes = self.changes.lock();
        let since = match changes.get(name) {
            Some((seen, at)) if *seen == mark => *at,
            _ => {
                changes.insert(name.to_owned(), (mark, now));
                now
            }
        };
        now.duration_since(since) < Duration::from_secs(seconds)
    }

    /// Forgets every Lease but those `kept` (the others were deleted).
    pub(super) fn keep_only(&self, kept: &std::collections::HashSet<String>) {
        self.changes.lock().retain(|name, _| kept.contains(name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;

    fn spec(holder: &str, renewed: &str) -> LeaseSpec {
        LeaseSpec {
            holder_identity: Some(holder.into()),
            renew_time: Some(MicroTime(renewed.parse().unwrap())),
            lease_duration_seconds: Some(40),
            ..Default::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_lease_lapses_only_once_seen_unchanged_for_its_duration_by_this_servers_clock() {
        let seen = Seen::default();
        // Renewed long ago by the holder's clock: first seen now, it stands for its whole duration all the same.
        let old = spec("a", "2020-01-01T00:00:00Z");
        assert!(seen.stands("l", &old));
        tokio::time::advance(Duration::from_secs(39)).await;
        assert!(seen.stands("l", &old));
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(!seen.stands("l", &old), "unchanged for 40 s: lapsed");
        // A renewal is a change: it stands again for 40 s from when it was seen.
        let renewed = spec("a", "2020-01-01T00:00:05Z");
        assert!(seen.stands("l", &renewed));
        tokio::time::advance(Duration::from_secs(20)).await;
        assert!(seen.stands("l", &renewed));
        // Another holder is a change too, and each Lease is judged on its own.
        assert!(seen.stands("l", &spec("b", "2020-01-01T00:00:05Z")));
        assert!(seen.stands("m", &old));
        seen.keep_only(&["m".to_owned()].into());
        assert!(seen.stands("l", &old), "a Lease forgotten and seen again stands anew");
    }
}
