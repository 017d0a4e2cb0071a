//! The server's Prometheus metrics, kept with `prometheus-client`: what an operator watches Drainboard by. One
//! registry for the process, since every context's engine and every request feed the same scrape.
//!
//! Label values come from small fixed sets (outcomes, kinds, HTTP status codes, route templates), never from
//! anything a request or the cluster names freely, so that no input can grow the series without bound.

mod census;

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

/// Which Lease: a node's (a drain's) or a plan's.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LeaseLabels {
    pub lease: &'static str,
}

/// Whether Alertmanager answered a question.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AnswerOutcomeLabels {
    pub outcome: &'static str,
}

/// Every reason the request guard names (`RefusalLabels`).
pub const REFUSAL_REASONS: [&str; 5] = ["host", "other-site-read", "other-site", "origin", "body-type"];

/// How a real drain can end (`DrainState::label` of its final states).
const DRAIN_OUTCOMES: [&str; 9] = [
    "Drained",
    "DrainedVolumesAttached",
    "DrainedVolumesUnknown",
    "DrainedExceptTerminating",
    "Refused",
    "TimedOut",
    "Cancelled",
    "Failed",
    "Interrupted",
];

/// The kinds the caches watch.
const WATCHED_KINDS: [&str; 4] = ["Node", "Pod", "Lease", "PodDisruptionBudget"];

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
    /// How long real drains took, from start to end, by outcome.
    pub drain_durations: Family<OutcomeLabels, Histogram>,
    /// Leases this server lost while it held them (not renewed in time, or taken by another), by kind.
    pub lease_losses: Family<LeaseLabels, Counter>,
    /// Plans this server took on from their status: run before by another server, or by this one before a restart.
    pub takeovers: Counter,
    /// Starts past what held a node in a maintenance window, one per node.
    pub window_overrides: Counter,
    /// Alertmanager's answers to the question of which alerts fire, by outcome (`answered`, `failed`).
    pub alertmanager_asks: Family<AnswerOutcomeLabels, Counter>,
    /// 1 when Alertmanager answered the last question, 0 when it did not, or has not been asked.
    pub alertmanager_up: Gauge,
    /// Writes of Drainboard's node lifecycle conditions, by outcome (`written`, `failed`).
    pub node_condition_writes: Family<AnswerOutcomeLabels, Counter>,
    /// How far off the estimate of each drain that drained was: the time it took over its likely time.
    pub estimate_ratios: Histogram,
}

fn drain_histogram() -> Histogram {
    // 1 s to about 18 h: a drain of a few stateless pods ends in seconds, one held by a budget or a long grace
    // period in hours.
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(1.0, 2.0, 17))
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
        let drain_durations =
            Family::<OutcomeLabels, Histogram>::new_with_constructor(drain_histogram as fn() -> Histogram);
        registry.register_with_unit(
            "drain_duration",
            "How long real drains took from start to end, by outcome",
            prometheus_client::registry::Unit::Seconds,
            drain_durations.clone(),
        );
        let lease_losses = Family::default();
        registry.register(
            "lease_losses",
            "Leases this server lost while holding them (not renewed in time, or another server holds it), by kind \
             (node: a drain's, plan: a plan's)",
            lease_losses.clone(),
        );
        let takeovers = Counter::default();
        registry.register(
            "plan_takeovers",
            "Plans this server took on from their status: run before by another server, or by this one before a restart",
            takeovers.clone(),
        );
        let window_overrides = Counter::default();
        registry.register(
            "window_overrides",
            "Starts past what held a node in a maintenance window, one per node",
            window_overrides.clone(),
        );
        let alertmanager_asks = Family::default();
        registry.register(
            "alertmanager_asks",
            "Questions to Alertmanager of which alerts fire, by outcome (answered, failed)",
            alertmanager_asks.clone(),
        );
        let alertmanager_up = Gauge::default();
        registry.register(
            "alertmanager_up",
            "1 when Alertmanager answered the last question, 0 when it did not or was never asked (none is set)",
            alertmanager_up.clone(),
        );
        let node_condition_writes = Family::default();
        registry.register(
            "node_condition_writes",
            "Writes of Drainboard's node lifecycle conditions (DrainInProgress, Drained) with the server's identity, by \
             outcome (written, failed)",
            node_condition_writes.clone(),
        );
        // A quarter to 16 times the likely time, doubling: the buckets a dashboard reads as "within 2×".
        let estimate_ratios =
            Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(0.0625, 2.0, 9));
        registry.register(
            "drain_estimate_ratio",
            "How far off each drain's estimate was, for drains that drained: the time taken over the likely time \
             (1: on time, 2: twice as long)",
            estimate_ratios.clone(),
        );
        let metrics = Metrics {
            registry,
            drains,
            evictions,
            watches_started,
            watch_errors,
            viewers,
            requests,
            notices,
            refused,
            drain_durations,
            lease_losses,
            takeovers,
            window_overrides,
            alertmanager_asks,
            alertmanager_up,
            node_condition_writes,
            estimate_ratios,
        };
        // The series of fixed label sets start at zero, so that an increase or a rate over them sees their first
        // count, and a dashboard lists them before anything happened.
        for outcome in DRAIN_OUTCOMES {
            metrics.drains.get_or_create(&OutcomeLabels { outcome: outcome.to_owned() }).inc_by(0);
            let _ = metrics.drain_durations.get_or_create(&OutcomeLabels { outcome: outcome.to_owned() });
        }
        for lease in ["node", "plan"] {
            metrics.lease_losses.get_or_create(&LeaseLabels { lease }).inc_by(0);
        }
        for outcome in ["written", "failed"] {
            metrics.node_condition_writes.get_or_create(&AnswerOutcomeLabels { outcome }).inc_by(0);
        }
        for outcome in ["answered", "failed"] {
            metrics.alertmanager_asks.get_or_create(&AnswerOutcomeLabels { outcome }).inc_by(0);
        }
        for attempt in ["first", "retry"] {
            metrics.evictions.get_or_create(&AnswerLabels { answer: "201".to_owned(), attempt }).inc_by(0);
        }
        for kind in WATCHED_KINDS {
            metrics.watch_errors.get_or_create(&KindLabels { kind: kind.to_owned() }).inc_by(0);
        }
        for kind in ["slack", "cloudevents"] {
            for outcome in ["delivered", "failed", "given_up"] {
                metrics.notices.get_or_create(&NoticeLabels { kind, outcome }).inc_by(0);
            }
        }
        metrics.notices.get_or_create(&NoticeLabels { kind: "any", outcome: "dropped" }).inc_by(0);
        for reason in REFUSAL_REASONS {
            metrics.refused.get_or_create(&RefusalLabels { reason }).inc_by(0);
        }
        metrics
    }

    /// Every metric, and after them the fleet's maintenance as `census` counts it at `now` (when given): families
    /// made for this scrape alone, since the counts belong to the reader's context and rights, not to the process.
    pub fn encode_with(&self, census: Option<(&domain::census::Census, jiff::Timestamp)>) -> String {
        let mut text = self.encode();
        if let Some((census, now)) = census {
            // One exposition, one end: the process's families' `# EOF` goes, the census's closes it.
            text.truncate(text.strip_suffix("# EOF\n").map_or(text.len(), str::len));
            // Writing to a String cannot fail.
            let _ = encode(&mut text, &census::registry(census, now));
        }
        text
    }

    /// Every metric, in the OpenMetrics text format.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }

    /// Counts an ended real drain, and how long it took (`DrainTiming::took_seconds`: `None` when its end reads
    /// before its start, since a clock that went back is not a duration).
    pub fn drain_ended(&self, outcome: &str, took: Option<std::time::Duration>) {
        let labels = OutcomeLabels { outcome: outcome.to_owned() };
        self.drains.get_or_create(&labels).inc();
        if let Some(took) = took {
            self.drain_durations.get_or_create(&labels).observe(took.as_secs_f64());
        }
    }

    /// Records how far off a drain's estimate was (`DrainTiming::estimate_ratio`).
    pub fn estimate_was(&self, ratio: f64) {
        self.estimate_ratios.observe(ratio);
    }

    /// Counts a Lease of `lease`'s kind (`node` or `plan`) this server lost.
    pub fn lease_lost(&self, lease: &'static str) {
        self.lease_losses.get_or_create(&LeaseLabels { lease }).inc();
    }

    /// Counts a write of the node lifecycle conditions, and whether it landed.
    pub fn node_conditions_written(&self, ok: bool) {
        let outcome = if ok { "written" } else { "failed" };
        self.node_condition_writes.get_or_create(&AnswerOutcomeLabels { outcome }).inc();
    }

    /// Records Alertmanager's answer to a question, or its failure.
    pub fn alertmanager_asked(&self, answered: bool) {
        let outcome = if answered { "answered" } else { "failed" };
        self.alertmanager_asks.get_or_create(&AnswerOutcomeLabels { outcome }).inc();
        self.alertmanager_up.set(i64::from(answered));
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
        metrics.drain_ended("Drained", Some(std::time::Duration::from_secs(90)));
        metrics.lease_lost("plan");
        metrics.takeovers.inc();
        metrics.alertmanager_asked(false);
        metrics.estimate_was(3.0);
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
            // 90 s: in the 128 s bucket and those above, not in the 64 s one.
            r#"drainboard_drain_duration_seconds_bucket{le="64.0",outcome="Drained"} 0"#,
            r#"drainboard_drain_duration_seconds_bucket{le="128.0",outcome="Drained"} 1"#,
            r#"drainboard_drain_duration_seconds_sum{outcome="Drained"} 90.0"#,
            r#"drainboard_lease_losses_total{lease="plan"} 1"#,
            r#"drainboard_lease_losses_total{lease="node"} 0"#,
            "drainboard_plan_takeovers_total 1",
            r#"drainboard_alertmanager_asks_total{outcome="failed"} 1"#,
            "drainboard_alertmanager_up 0",
            r#"drainboard_drain_estimate_ratio_bucket{le="2.0"} 0"#,
            r#"drainboard_drain_estimate_ratio_bucket{le="4.0"} 1"#,
            r#"drainboard_http_request_duration_seconds_count{method="POST",route="/api/board",status="200"} 1"#,
        ] {
            assert!(text.contains(line), "{line} in:\n{text}");
        }
    }

    #[test]
    fn the_census_sets_every_series_and_the_age_of_the_oldest_unexplained_cordon() {
        use domain::{ReadyStatus, node::NodeCard, progress::CordonRecord};
        let metrics = Metrics::new();
        let at = |s: &str| s.parse::<jiff::Timestamp>().unwrap_or_default();
        let cordoned = NodeCard {
            name: "n1".into(),
            unschedulable: true,
            ready: ReadyStatus::Ready,
            cordon_record: Some(CordonRecord { by: "bob".into(), at: at("2026-12-06T18:00:00Z"), reason: None }),
            ..NodeCard::default()
        };
        let ready = NodeCard {
            name: "n2".into(),
            ready: ReadyStatus::Ready,
            reboot: Some(domain::reboot::RebootSign { signal: "label:reboot".into(), value: None }),
            ..NodeCard::default()
        };
        let mut census = domain::census::census([&cordoned, &ready], &[], &[]);
        census.held_by_window = [("nights".to_owned(), 1), ("(others)".to_owned(), 0)].into();
        metrics.request_refused("origin");
        let text = metrics.encode_with(Some((&census, at("2026-12-06T20:00:00Z"))));
        assert_eq!(text.matches("# EOF").count(), 1, "one end:\n{text}");
        assert!(text.ends_with("# EOF\n"));
        assert!(!metrics.encode().contains("drainboard_nodes"), "the counts are the scrape's, not the process's");
        for line in [
            r#"drainboard_nodes{state="cordoned"} 1"#,
            r#"drainboard_nodes{state="ready"} 1"#,
            r#"drainboard_nodes{state="draining"} 0"#,
            r#"drainboard_plans{phase="Running"} 0"#,
            r#"drainboard_plan_nodes{standing="awaited"} 0"#,
            r#"drainboard_pods_waiting{blocker="budget-never"} 0"#,
            r#"drainboard_pods_waiting{blocker="unknown"} 0"#,
            r#"drainboard_window_holds{hold="frozen"} 0"#,
            "drainboard_alert_gated_windows 0",
            "drainboard_nodes_reboot_required 1",
            r#"drainboard_window_held_nodes{window="nights"} 1"#,
            r#"drainboard_window_held_nodes{window="(others)"} 0"#,
            "drainboard_unexplained_cordons 1",
            "drainboard_unexplained_cordon_oldest_age_seconds 7200",
            r#"drainboard_requests_refused_total{reason="origin"} 1"#,
            // Fixed label sets, at zero before anything happened.
            r#"drainboard_requests_refused_total{reason="host"} 0"#,
            r#"drainboard_drains_total{outcome="Interrupted"} 0"#,
            r#"drainboard_watch_errors_total{kind="PodDisruptionBudget"} 0"#,
            r#"drainboard_notice_attempts_total{kind="any",outcome="dropped"} 0"#,
        ] {
            assert!(text.contains(line), "{line} in:\n{text}");
        }
    }
}
