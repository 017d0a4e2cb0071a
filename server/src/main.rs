//! `drainboard`: serves the dashboard and acts on the cluster with the operator's kubeconfig credentials.

/// See server/Cargo.toml: why not the system's allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod aliases;
mod cli;
mod compress;
mod contexts;
mod empty_body;
mod error;
mod events;
#[cfg(test)]
mod fuzz;
mod guard;
mod limits;
mod local_lock;
mod probes;
#[cfg(test)]
mod refusals;
mod serve;
mod session;
mod source;
mod web;

use std::{io::IsTerminal, process::ExitCode};

use clap::Parser;
use engine::{
    Engine, KubeAccess, access,
    cache::DEFAULT_LINGER,
    drain::{DrainLimits, pace::Pace},
    tasks::Tasks,
};
use tracing_subscriber::EnvFilter;

use crate::error::Error;

#[tokio::main]
async fn main() -> ExitCode {
    let args = cli::Args::parse();
    if let Some(cli::Command::Crd) = &args.command {
        print!("{}---\n{}", engine::plan::crd_yaml(), engine::windows::crd_yaml());
        return ExitCode::SUCCESS;
    }
    if let Some(cli::Command::Token { context, kubeconfig }) = &args.command {
        // The token alone on stdout, so that `drainboard token | pbcopy` works; errors on stderr.
        return match engine::token::token(kubeconfig.as_deref(), context.as_deref()) {
            Ok(token) => {
                println!("{token}");
                ExitCode::SUCCESS
            }
            Err(why) => {
                eprintln!("drainboard token: error: {why}");
                ExitCode::FAILURE
            }
        };
    }
    // Colours only on a terminal: in a file or a log collector the escape codes would be noise in every line.
    let log = tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    match args.log_format {
        cli::LogFormat::Text => log.init(),
        cli::LogFormat::Json => log.json().with_current_span(true).with_span_list(false).init(),
    }
    // A panic is logged like everything else (one JSON object with --log-format json), with the span it happened
    // in (a drain's id and node), rather than as loose text that a log pipeline cannot read.
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let thread = std::thread::current().name().unwrap_or("unnamed").to_owned();
        tracing::error!(panic = %message, %location, %thread, "panicked");
    }));
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One line, so that scripts and people see the cause at once; some sources (YAML parse errors) add
            // a multi-line excerpt after their first line, which names the position already.
            let message = err.to_string();
            eprintln!("drainboard: error: {}", message.lines().next().unwrap_or_default());
            ExitCode::FAILURE
        }
    }
}

async fn run(args: cli::Args) -> Result<(), Error> {
    if !args.team {
        if !args.addr.ip().is_loopback() {
            return Err(Error::NotLoopback(args.addr));
        }
        if args.tls_cert.is_some() {
            return Err(Error::TeamOnly("--tls-cert"));
        }
        if args.insecure_http {
            return Err(Error::TeamOnly("--insecure-http"));
        }
        if args.wall_token.is_some() {
            return Err(Error::TeamOnly("--wall-token"));
        }
    }
    if args.wall_token.as_ref().is_some_and(|t| t.trim().chars().count() < access::MIN_WALL_TOKEN) {
        return Err(Error::ShortWallToken(access::MIN_WALL_TOKEN));
    }
    // Local mode's secret: a fixed one from the environment (for scripts), or a new one for this start.
    // Checked before connecting, so that a bad one stops the start at once.
    let secret = if args.team {
        None
    } else {
        Some(match std::env::var(local_lock::TOKEN_VARIABLE) {
            Ok(given) => local_lock::given_secret(&given).map_err(Error::LocalToken)?,
            Err(_) => local_lock::new_secret().map_err(Error::LocalToken)?,
        })
    };

    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(serve::tls_config(cert, key).map_err(Error::Tls)?),
        _ if args.team && !args.insecure_http => return Err(Error::TeamWithoutTls),
        _ => None,
    };
    if args.insecure_http {
        tracing::warn!(
            "serving team mode over plain HTTP (--insecure-http): a TLS-terminating reverse proxy must stand in \
             front of this address (an ingress controller, nginx, Envoy), and browsers must reach it over HTTPS \
             only; otherwise session cookies and pasted credentials cross the network in the clear"
        );
    }
    let connected = access::connect(args.kubeconfig.as_deref(), args.context.as_deref()).await?;
    // Inside a pod every request would act as the pod's service account: only people signed in as themselves may.
    if connected.in_cluster && !args.team {
        return Err(Error::InClusterNeedsTeam);
    }
    tracing::info!(context = %connected.context, server = %connected.identity.cluster, kubeconfig = %connected.source, "connected to Kubernetes");

    let mut options =
        leptos::config::get_configuration(None).map_err(|e| Error::SiteConfig(e.to_string()))?.leptos_options;
    options.site_addr = args.addr;
    let settings = domain::board::BoardSettings {
        stale_cordon_seconds: args.stale_cordon.as_secs().unsigned_abs(),
        grace_seconds: args.node_monitor_grace_period.as_secs(),
        eviction_timeout_seconds: args.pod_eviction_timeout.as_secs(),
    };
    // Every background task (watches, card rounds, drains) and every event stream hears one shutdown signal,
    // cancelled on Ctrl-C or SIGTERM, so that the graceful shutdown waits neither for open tabs nor for drains.
    let tasks = Tasks::new(tokio::runtime::Handle::current());
    let first_name = connected.context.clone();
    let names = connected.contexts.clone();
    let build: contexts::Build = {
        let (args, tasks) = (args.clone(), tasks.clone());
        std::sync::Arc::new(move |connected| build_engine(&args, &tasks, connected))
    };
    let engine = build(connected)?;
    let contexts = if args.team {
        contexts::Contexts::only(engine.clone())
    } else {
        contexts::Contexts::local(engine.clone(), first_name, names, args.kubeconfig.clone(), build)
    };
    let probes = probes::router(engine.clone());
    let streams = events::StreamLimits::new(args.max_streams, args.max_streams_per_person);
    let listener =
        tokio::net::TcpListener::bind(args.addr).await.map_err(|source| Error::Bind { addr: args.addr, source })?;
    let local = listener.local_addr().map_err(Error::Serve)?;
    // Both addresses are bound before either is announced: whoever reads the line may probe at once.
    let probe_listener = match args.probe_addr {
        Some(addr) => Some(tokio::net::TcpListener::bind(addr).await.map_err(|source| Error::Bind { addr, source })?),
        None => None,
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    let base = format!("{scheme}://{local}");
    // The cookie and the URL file are named by the bound port, known only now (port 0 picks one).
    let (lock, url_file) = match secret {
        None => (None, None),
        Some(secret) => {
            let file = local_lock::url_file(local.port()).filter(|path| {
                let written = local_lock::write_url(path, &local_lock::url(&base, &secret));
                if let Err(err) = &written {
                    tracing::warn!(path = %path.display(), error = %err, "cannot write the URL for scripts; it is on stdout only");
                }
                written.is_ok()
            });
            (Some(local_lock::LocalLock::new(secret, local.port(), file.clone())), file)
        }
    };
    let printed = lock.as_ref().map_or_else(|| base.clone(), |lock| lock.url(&base));
    let hosts = guard::AllowedHosts::new(&args.allowed_hosts).reached_by(if args.team { "https" } else { "http" });
    let router = web::router(options, contexts, settings, hosts, streams, args.team, lock);
    // Outermost: who the request comes from, before anything judges it (the sign-in's per-source pace, the log).
    let proxies = source::TrustedProxies::new(args.trusted_proxies.clone());
    let router = router.layer(axum::middleware::from_fn_with_state(proxies, source::layer));
    // The one line on stdout that scripts and tests read the URL from; in local mode it carries the secret.
    println!("Drainboard is serving on {printed}");
    if let Some(path) = &url_file {
        tracing::info!(path = %path.display(), "the URL with the local secret is also in this file, readable by you only");
    }
    let shutdown = tasks.shutdown_signal().clone();
    let limits = limits::Limits {
        connections: args.max_connections,
        per_peer: args.max_connections_per_peer.unwrap_or(if args.insecure_http {
            args.max_connections
        } else {
            limits::MAX_CONNECTIONS_PER_PEER
        }),
        ..limits::Limits::default()
    };
    if let Some(listener) = probe_listener {
        let local = listener.local_addr().map_err(Error::Serve)?;
        println!("Drainboard probes on http://{local}");
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            if let Err(err) = serve::serve(listener, probes, None, shutdown, SHUTDOWN_LIMIT, limits).await {
                tracing::error!(error = %err, "the probe address stopped serving");
            }
        });
    }
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            shutdown_signal().await;
            shutdown.cancel();
        }
    });
    let served = serve::serve(listener, router, tls, shutdown, SHUTDOWN_LIMIT, limits).await.map_err(Error::Serve);
    // The secret dies with the server; so does the file that holds it.
    if let Some(path) = &url_file {
        let _ = std::fs::remove_file(path);
    }
    // Running drains record themselves as interrupted; watches and card rounds end. All within the same limit.
    if tasks.shut_down(TASKS_LIMIT).await {
        tracing::info!("every task ended");
    } else {
        tracing::warn!(
            running = tasks.running(),
            "tasks still running {} s after shutdown; exiting anyway",
            TASKS_LIMIT.as_secs()
        );
    }
    served
}

/// The engine of one cluster: its access as the operator (local mode) or for signed-in people (team mode), with
/// the audit trail, history and node Leases written with the server's own identity.
fn build_engine(args: &cli::Args, tasks: &Tasks, connected: access::Connected) -> Result<Engine, Error> {
    let pace = Pace {
        qps: args.api_qps,
        burst: args.api_burst,
        in_flight: usize::try_from(args.evictions_in_flight).unwrap_or(usize::MAX),
    };
    let limits = DrainLimits {
        total: args.max_drains,
        per_identity: args.max_drains_per_person,
        dry_runs: args.max_dry_runs,
        dry_runs_per_identity: args.max_dry_runs_per_person,
        pace,
    };
    let access = if args.team {
        let wall_token = args.wall_token.as_ref().map(|t| secrecy::SecretString::from(t.trim().to_owned()));
        let sessions = access::SessionPolicy {
            idle: args.session_idle,
            lifetime: args.session_lifetime,
            ..access::SessionPolicy::default()
        };
        KubeAccess::team_with_wall(connected, wall_token, sessions)
    } else {
        KubeAccess::single_user(connected)
    };
    let alertmanager = args
        .alertmanager_url
        .as_deref()
        .map(engine::windows::alerts::Alertmanager::new)
        .transpose()
        .map_err(Error::Alertmanager)?;
    let reboot = domain::reboot::parse_all(&args.reboot_required).map_err(Error::RebootSignals)?;
    let engine = Engine::reading(access, tasks, DEFAULT_LINGER, limits, reboot);
    let engine = match notifier(args, tasks)? {
        Some(notifier) => engine.with_notifier(notifier),
        None => engine,
    };
    let audit = engine::audit::Audit::new(args.audit_log.as_deref(), engine.server_client()).map_err(|source| {
        Error::AuditLog {
            path: args.audit_log.as_deref().unwrap_or(std::path::Path::new("")).display().to_string(),
            source,
        }
    })?;
    // Each node's durable history, kept with the server's own identity in its namespace.
    let audit = match engine.server_client() {
        Some(client) => audit.with_history(engine::history::History::new(client, args.namespace.clone())),
        None => audit,
    };
    let engine = engine.with_audit(audit).with_recent_history();
    // Replicas agree on who drains a node through a Lease per node, in the same namespace.
    let engine = match engine.server_client() {
        Some(client) => engine
            .with_leases(engine::lease::Leases::new(client, &args.namespace))
            .with_plans()
            .with_windows(alertmanager, args.alertmanager_fail_open),
        None => engine,
    };
    // Only with the server's own identity: in single-user mode that would be the operator's, which writes nothing
    // the operator did not ask for.
    let engine = if args.team && !args.no_node_conditions { engine.with_node_conditions() } else { engine };
    // Also only the server's own identity holds other tools, and only where a window's freeze asks for it.
    let engine = if args.team { engine.with_hold_others(args.kured_daemonset.clone()) } else { engine };
    let engine = engine.with_plan_caps(engine::plan::Caps {
        per_person: args.max_plans_per_person.into(),
        total: args.max_plans.into(),
    });
    let engine = if args.unattended_plans {
        tracing::warn!("unattended plans on: plans marked unattended run as this server's own identity");
        engine.with_unattended_plans()
    } else {
        engine
    };
    // A local server goes on by itself only with the plans its operator's servers made (kept in their state folder).
    let engine = match local_lock::plans_file().filter(|_| engine.operator().is_some()) {
        Some(path) => engine.with_plan_origins(path),
        None => engine,
    };
    engine.run_plans();
    engine.sweep_moves_always();
    Ok(engine)
}

/// How long in-flight requests may take to finish after a shutdown signal.
const SHUTDOWN_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// How long background tasks (a drain writing its record, above all) may take to end after that.
const TASKS_LIMIT: std::time::Duration = std::time::Duration::from_secs(4);

/// Resolves on Ctrl-C or SIGTERM, so that in-flight requests finish before exit.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut sig) => {
                sig.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}

/// The webhooks to tell, from `--webhooks-file` or `DRAINBOARD_WEBHOOKS` (never a flag: the URLs are secrets).
fn notifier(args: &cli::Args, tasks: &Tasks) -> Result<Option<engine::notices::Notifier>, Error> {
    let json = match (&args.webhooks_file, std::env::var("DRAINBOARD_WEBHOOKS")) {
        (Some(path), _) => std::fs::read_to_string(path)
            .map_err(|e| Error::Webhooks(format!("cannot read --webhooks-file {}: {e}", path.display())))?,
        (None, Ok(json)) => json,
        (None, Err(_)) => return Ok(None),
    };
    let hooks = engine::notices::webhooks(&json).map_err(Error::Webhooks)?;
    let after = std::time::Duration::from_secs(args.notify_blocked_after);
    let lead = std::time::Duration::from_secs(args.notify_lead);
    engine::notices::Notifier::new(hooks, "/drainboard".into(), (after, lead), tasks).map(Some).map_err(Error::Webhooks)
}
