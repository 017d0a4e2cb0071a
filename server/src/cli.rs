//! Command-line arguments.

use std::{net::SocketAddr, path::PathBuf};

use clap::{Parser, Subcommand};

/// Drainboard: cordon, drain and uncordon Kubernetes nodes from the browser.
#[derive(Clone, Debug, Parser)]
#[command(name = "drainboard", version)]
pub struct Args {
    /// Without a command, serve the dashboard.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Kubeconfig file to use. Without it: $KUBECONFIG, then ~/.kube/config.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// Kubeconfig context to use instead of its current-context.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,

    /// Address to serve the dashboard on. Without --team, a loopback address only, since every request acts with
    /// this kubeconfig's credentials. Port 0 picks a free port; the URL is printed on stdout. Without --team the
    /// printed URL carries a secret made at each start (or taken from $DRAINBOARD_LOCAL_TOKEN): other users of the
    /// machine reach loopback too, and only whoever has the secret is served. Scripts send it as
    /// `Authorization: Bearer SECRET`.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:3000", env = "DRAINBOARD_ADDR")]
    pub addr: SocketAddr,

    /// Team mode: each person signs in with their own credentials (a token, or a kubeconfig with inline
    /// credentials) and acts as themselves; this kubeconfig's own credentials act for nobody. Required for any
    /// address other than loopback. Serves HTTPS (--tls-cert, --tls-key) unless --insecure-http.
    #[arg(long)]
    pub team: bool,

    /// Team mode: the server's TLS certificate chain (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// Team mode: the TLS certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Team mode over plain HTTP, only for use behind a proxy that terminates TLS: session cookies and credentials
    /// would otherwise cross the network in the clear.
    #[arg(long, conflicts_with = "tls_cert")]
    pub insecure_http: bool,

    /// Team mode: run the maintenance plans marked unattended as the server's own identity, for night windows.
    /// Only with deploy/components/unattended, which binds drain rights to the server's ServiceAccount and installs
    /// the admission policy that decides who may ask for such a plan; the server checks the policy is in force
    /// before it runs one.
    #[arg(long, requires = "team")]
    pub unattended_plans: bool,

    /// Team mode: do not publish drains as node lifecycle conditions. By default the server writes
    /// `DrainInProgress` and `Drained` (KEP-5683, as kubectl's proposed --report-node-conditions writes them) on each
    /// node it drains, with its own identity (`patch nodes/status`), and removes its own on uncordon, so that other
    /// tools see the drain. It never changes a condition another writer set.
    #[arg(long, requires = "team", env = "DRAINBOARD_NO_NODE_CONDITIONS")]
    pub no_node_conditions: bool,

    /// Team mode: where kured's DaemonSet is (`NAMESPACE/NAME`), whose lock a window's freeze takes when its
    /// `holdOthers` lists kured.
    #[arg(long, value_name = "NAMESPACE/NAME", default_value = "kube-system/kured", value_parser = daemonset)]
    pub kured_daemonset: (String, String),

    /// A sign that a node needs a reboot, shown on its card, on the map and in the versions view, where "Plan the
    /// nodes that need a reboot" offers them as a plan: `condition:<Type>` (status True, as node-problem-detector's
    /// custom plugins write), `label:<key>[=<value>]` or `annotation:<key>[=<value>]` (kured with --annotate-nodes
    /// writes `weave.works/kured-reboot-in-progress`). Give it up to 8 times; the first that matches names the sign.
    #[arg(long = "reboot-required", value_name = "SIGNAL")]
    pub reboot_required: Vec<String>,

    /// The most maintenance plans this server runs at once as one person; the rest wait `Blocked` (`TooMany`),
    /// the oldest going on first as places free.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub max_plans_per_person: u16,

    /// The most maintenance plans this server runs at once in all; the rest wait `Blocked` (`TooMany`).
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = clap::value_parser!(u16).range(1..=10_000))]
    pub max_plans: u16,

    /// Alertmanager's root URL (as http://alertmanager:9093), which the maintenance windows' alert gates ask every
    /// two seconds. Without it, a window with alert gates holds every node it covers.
    #[arg(long, env = "DRAINBOARD_ALERTMANAGER_URL", value_name = "URL")]
    pub alertmanager_url: Option<String>,

    /// A file of webhooks to tell as maintenance goes (a plan started, a node held too long, a node done, a plan
    /// ended, a window overridden): JSON, `[{"kind": "slack" or "cloudevents", "url": "https://…"}]`. A webhook with
    /// a `"name"` is an app team's: only the namespaces annotated `drainboard.dev/notify: <name>` are told through
    /// it, of the plans that reach their pods. The URLs are secrets, so they come from a file or
    /// DRAINBOARD_WEBHOOKS (the same JSON), never a flag.
    #[arg(long, value_name = "FILE")]
    pub webhooks_file: Option<std::path::PathBuf>,

    /// How long a plan's next node may be held (by a maintenance window) before the webhooks are told.
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub notify_blocked_after: u64,

    /// How far ahead an app team is told that a plan will reach its pods, at least, where the plan's timing allows
    /// it (a plan started now reaches its first node now).
    #[arg(long, value_name = "SECONDS", default_value_t = 3_600, value_parser = clap::value_parser!(u64).range(0..=604_800))]
    pub notify_lead: u64,

    /// Let alert gates open when Alertmanager cannot be asked (down, slow, or not configured). By default they
    /// hold, and the page says why: a tool that cannot see the alerts should not assume there are none.
    #[arg(long)]
    pub alertmanager_fail_open: bool,

    /// Team mode: a secret (at least 32 characters) with which an unattended wall screen opens
    /// /wall?wall-token=SECRET. It then shows the board, read-only, as the server's own read identity, and can do
    /// nothing else. Best given through the environment, so that it stays out of process listings.
    #[arg(long, value_name = "SECRET", env = "DRAINBOARD_WALL_TOKEN", hide_env_values = true)]
    pub wall_token: Option<String>,

    /// Team mode: a session ends after this long without its person's own doing (a page load, an action); the
    /// page's polls and live views do not count. 1 minute to 24 hours.
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = session_duration)]
    pub session_idle: std::time::Duration,

    /// Team mode: no session lives longer than this, however used; the person signs in again. 1 minute to 7 days.
    #[arg(long, value_name = "DURATION", default_value = "12h", value_parser = session_duration)]
    pub session_lifetime: std::time::Duration,

    /// How the log (on stderr) is written: `text` for people, `json` (one object per line, with each drain's id
    /// and node on its lines) for a log collector.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Serve the probes (`/healthz`, `/readyz`) and the Prometheus metrics (`/metrics`) on this address too,
    /// outside the Host allowlist and the session rule, for kubelets and scrapers (which name the pod's IP as
    /// Host). Port 0 picks a free port; the URL is printed on stdout.
    #[arg(long, value_name = "ADDR")]
    pub probe_addr: Option<SocketAddr>,

    /// Another name the dashboard may be reached by (a host, or host:port), besides the loopback names. Requests
    /// naming any other Host are refused, which defeats DNS rebinding. Repeatable.
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,

    /// Team mode: a reverse proxy (an address, or a network such as 10.0.0.0/8) whose X-Forwarded-For names the
    /// client. Sign-in attempts are limited per client; without this, per peer address, and behind a proxy all
    /// clients then share the proxy's limit. Believed from these peers only. Repeatable.
    #[arg(long = "trusted-proxy", value_name = "NETWORK", requires = "team", value_parser = crate::source::parse_network)]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// Drains that may run at once on this server, dry runs not included (--max-dry-runs). More are refused (429)
    /// until one ends.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_drains: usize,

    /// Drains one person may run at once.
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub max_drains_per_person: usize,

    /// Dry runs (the drain dialog's previews) that may run at once on this server, counted apart from the drains:
    /// previews never take a real drain's place. More are refused (429) until one ends.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_dry_runs: usize,

    /// Dry runs one person may run at once.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub max_dry_runs_per_person: usize,

    /// Append every cordon, uncordon, drain start and end, cancel and resume to this file, one JSON object a line
    /// (created readable by its owner only). Each is also an Event on the node.
    #[arg(long, value_name = "PATH")]
    pub audit_log: Option<PathBuf>,

    /// The namespace of what the server keeps in the cluster: each node's maintenance history (a ConfigMap
    /// `drainboard-history.<node>`, written with the server's own identity).
    #[arg(long, value_name = "NAME", default_value = "default", value_parser = namespace)]
    pub namespace: String,

    /// Requests a second that drains may send the API server, all drains together (a token bucket; evictions,
    /// deletions and the re-reads between retries). 5 with a burst of 10 is kubectl's own pace; 0 means no limit.
    #[arg(long, value_name = "N", default_value_t = 50, value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub api_qps: u32,

    /// Requests the token bucket lets through at once after a quiet spell.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub api_burst: u32,

    /// Evictions one drain may have waiting on the API server at the same time.
    #[arg(long, value_name = "N", default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub evictions_in_flight: u64,

    /// Live views (event streams: boards, previews, progress panels) this server keeps open at once.
    #[arg(long, value_name = "N", default_value_t = 512)]
    pub max_streams: usize,

    /// Live views one person may keep open at once (a tab holds one to three).
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_streams_per_person: usize,

    /// Connections open at once on each address (the dashboard's and the probes'), all clients together; more
    /// are closed at once.
    #[arg(long, value_name = "N", default_value_t = crate::limits::MAX_CONNECTIONS, value_parser = at_least_one)]
    pub max_connections: usize,

    /// Connections open at once from one IP address (people behind one NAT share one). Default 256; with
    /// --insecure-http, where every connection comes from the proxy in front, --max-connections.
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub max_connections_per_peer: Option<usize>,

    /// Heartbeats (node Lease renewals, Ready's lastHeartbeatTime) older than this are shown as stale. Match the
    /// controller manager's --node-monitor-grace-period.
    #[arg(long, value_name = "DURATION", default_value = "50s", value_parser = parse_duration)]
    pub node_monitor_grace_period: jiff::SignedDuration,

    /// The node-level countdown: a node's pods are evicted this long after Ready turns False or Unknown (the
    /// maintenance guide's pod-eviction-timeout).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub pod_eviction_timeout: jiff::SignedDuration,

    /// A cordon made through Drainboard that stands longer than this with no drain running is flagged on its card
    /// as possibly forgotten.
    #[arg(long, value_name = "DURATION", default_value = "24h", value_parser = parse_duration)]
    pub stale_cordon: jiff::SignedDuration,
}

/// The log's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Clone, Debug, Subcommand)]
pub enum Command {
    /// Print a token to paste into a team-mode Drainboard's sign-in: runs your kubeconfig's exec plugin (EKS, GKE,
    /// OIDC) here, on your machine, as kubectl would. The server never runs one.
    Token {
        /// The context whose user signs in (the kubeconfig's current-context if not given).
        #[arg(long, value_name = "NAME")]
        context: Option<String>,
        /// Kubeconfig file to read. Without it: $KUBECONFIG, then ~/.kube/config.
        #[arg(long, value_name = "FILE")]
        kubeconfig: Option<PathBuf>,
    },
    /// Print the definitions of the MaintenancePlan and MaintenanceWindow resources, for `drainboard crd | kubectl
    /// apply -f -` (deploy/crds/ holds the same).
    Crd,
}

/// A namespace's name: an RFC 1123 label.
/// `NAMESPACE/NAME`, each a DNS label.
fn daemonset(text: &str) -> Result<(String, String), String> {
    let (ns, name) = text.split_once('/').ok_or("write NAMESPACE/NAME, such as kube-system/kured")?;
    let name = namespace(name).map_err(|_| format!("{name:?} is not a DaemonSet name; write NAMESPACE/NAME"))?;
    Ok((namespace(ns)?, name))
}

fn namespace(text: &str) -> Result<String, String> {
    let ok = !text.is_empty()
        && text.len() <= 63
        && text.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !text.starts_with('-')
        && !text.ends_with('-');
    if ok {
        Ok(text.to_owned())
    } else {
        Err(format!("{text:?} is not a namespace name (lower-case letters, digits and '-', at most 63)"))
    }
}

/// A session's idle time or lifetime: a duration from 1 minute to 7 days.
fn session_duration(text: &str) -> Result<std::time::Duration, String> {
    let duration = parse_duration(text)?.unsigned_abs();
    if (60..=7 * 86_400).contains(&duration.as_secs()) {
        Ok(duration)
    } else {
        Err(format!("{text:?} is out of range: give 1m to 168h"))
    }
}

/// A count of at least one.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("0 would refuse everything; at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{text:?} is not a count: {e}")),
    }
}

/// "50s", "5m", "1h30m", or ISO 8601 ("PT5M").
fn parse_duration(text: &str) -> Result<jiff::SignedDuration, String> {
    text.parse::<jiff::SignedDuration>()
        .map_err(|e| format!("{text:?} is not a duration like 50s or 5m: {e}"))
        .and_then(|d| if d.is_negative() { Err(format!("{text:?} is negative")) } else { Ok(d) })
}
