//! The server's Prometheus metrics, kept with `prometheus-client`: what an operator watches Drainboard by. One
//! registry for the process, since every context's engine and every request feed the same scrape.
//!
//! Label values come from small fixed sets (outcomes, kinds, HTTP status codes, route templates), never from
//! anything a request or the cluster names freely, so that no input can grow the series without bound.

use std::sync::LazyLock;

use prometheus_client::{
    encoding::{EncodeLabelSet, text::encode},
    metrics::{counter::Counter, family::Family, gauge::Gauge, histogram::Histogram},
    registry::Registry,
};

/// How a drain ended, as a label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabels {
    pub outcome: String,
}

/// An eviction request's answer (the HTTP status code, or `none` when no answer came), and whether it was the
/// pod's first request or a retry after a refusal.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AnswerLabels {
    pub answer: String,
    pub attempt: &'static str,
}

/// A webhook's body format and an attempt's outcome (`delivered`, `failed`, `given_up`, or `dropped` when the queue
/// was full).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct NoticeLabels {
    pub kind: &'static str,
    pub outcome: &'static str,
}

/// A cache watch's kind.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KindLabels {
    pub kind: String,
}

/// A served request: its method, its route template (`/api/drains/{id}/events`, never the id) and its status.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: String,
    pub route: String,
    pub status: u16,
}

/// Why the request guard refused a request: `host`, `other-site-read`, `other-site`, `origin` or `body-type`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RefusalLabels {
    pub reason: &'static str,
}

/// Every metric the server keeps.
pub struct Metrics {
    registry: Registry,
    /// Real drains that ended, by outcome.
    pub drains: Family<OutcomeLabels, Counter>,
    /// Eviction requests sent, by answer and attempt (first or retry).
    pub evictions: Family<AnswerLabels, Counter>,
    /// Cache watches started.
    pub watches_started: Counter,
    /// Cache watch failures, each followed by a restart with backoff, by kind.
    pub watch_errors: Family<KindLabels, Counter>,
    /// Board event streams open now.
    pub viewers: Gauge,
    /// How long requests took to answer (for an event stream, until its headers).
    pub requests: Family<RequestLabels, Histogram>,
    /// Notices' delivery attempts to webhooks, by format and outcome.
    pub notices: Family<NoticeLabels, Counter>,
    /// Requests the guard refused, by why.
    pub refused: Family<RefusalLabels, Counter>,
}

fn latency_histogram() -> Histogram {
    // 1 ms to about 65 s: server functions answer in milliseconds, a first list of a large cluster in tens of
    // seconds.
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(0.001, 2.0, 17))
}

impl Metrics {
    fn new() -> Self {
        let mut registry = Registry::with_prefix("drainboard");
        let drains = Family::default();
        registry.register("drains", "Real drains that ended, by outcome", drains.clone());
        let evictions = Family::default();
        registry.register(
            "eviction_requests",
            "Eviction requests sent, by answer (HTTP status, or none) and attempt (first, or retry after a refusal)",
            evictions.clone(),
        );
        let watches_started = Counter::default();
        registry.register(
            "watches_started",
            "Watches of the Kubernetes API started by the caches",
            watches_started.clone(),
        );
        let watch_errors = Family::default();
        registry.register(
            "watch_errors",
            "Cache watch failures, each retried with backoff, by kind",
            watch_errors.clone(),
        );
        let viewers = Gauge::default();
        registry.register("board_viewers", "Board event streams open now", viewers.clone());
        let requests = Family::<RequestLabels, Histogram>::new_with_constructor(latency_histogram as fn() -> Histogram);
        registry.register(
            "http_request_duration_seconds",
            "How long requests took to answer, by method, route and status",
            requests.clone(),
        );
        let notices = Family::default();
        registry.register(
            "notice_attempts",
            "Attempts to deliver a notice to a webhook, by format and outcome (delivered, failed, given_up, dropped)",
            notices.clone(),
        );
        let refused = Family::default();
        registry.register(
            "requests_refused",
            "Requests the request guard refused before any handler, by reason (host, other-site-read, other-site, \
             origin, body-type)",
            refused.clone(),
        );
        Metrics { registry, drains, evictions, watches_started, watch_errors, viewers, requests, notices, refused }
    }

    /// Every metric, in the OpenMetrics text format.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }

    /// Counts an ended real drain.
    pub fn drain_ended(&self, outcome: &str) {
        self.drains.get_or_create(&OutcomeLabels { outcome: outcome.to_owned() }).inc();
    }

    /// Counts an eviction request by its answer's status code (`None` for no answer), and whether it `retried`
    /// an earlier request for the same pod.
    pub fn eviction_answered(&self, status: Option<u16>, retried: bool) {
        let answer = status.map_or_else(|| "none".to_owned(), |code| code.to_string());
        let attempt = if retried { "retry" } else { "first" };
        self.evictions.get_or_create(&AnswerLabels { answer, attempt }).inc();
    }

    /// Counts a request the guard refused, by its kind of refusal.
    pub fn request_refused(&self, reason: &'static str) {
        self.refused.get_or_create(&RefusalLabels { reason }).inc();
    }

    /// Counts a notice's delivery attempt.
    pub fn notice_attempt(&self, kind: &'static str, outcome: &'static str) {
        self.notices.get_or_create(&NoticeLabels { kind, outcome }).inc();
    }

    /// Counts a failed cache watch of `kind`.
    pub fn watch_failed(&self, kind: &str) {
        self.watch_errors.get_or_create(&KindLabels { kind: kind.to_owned() }).inc();
    }
}

/// The process's metrics.
pub static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scrape_names_each_series_with_its_labels() {
        let metrics = Metrics::new();
        metrics.drain_ended("Drained");
        metrics.eviction_answered(Some(429), false);
        metrics.eviction_answered(Some(429), true);
        metrics.eviction_answered(Some(201), true);
        metrics.eviction_answered(None, false);
        metrics.watch_failed("Pod");
        metrics.viewers.set(3);
        metrics
            .requests
            .get_or_create(&RequestLabels { method: "POST".into(), route: "/api/board".into(), status: 200 })
            .observe(0.02);
        let text = metrics.encode();
        for line in [
            r#"drainboard_drains_total{outcome="Drained"} 1"#,
            r#"drainboard_eviction_requests_total{answer="429",attempt="first"} 1"#,
            r#"drainboard_eviction_requests_total{answer="429",attempt="retry"} 1"#,
            r#"drainboard_eviction_requests_total{answer="201",attempt="retry"} 1"#,
            r#"drainboard_eviction_requests_total{answer="none",attempt="first"} 1"#,
            r#"drainboard_watch_errors_total{kind="Pod"} 1"#,
            "drainboard_board_viewers 3",
            r#"drainboard_http_request_duration_seconds_count{method="POST",route="/api/board",status="200"} 1"#,
        ] {
            assert!(text.contains(line), "{line} in:\n{text}");
        }
    }
}
