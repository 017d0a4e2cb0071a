//! Maintenance windows as `MaintenanceWindow` objects ([`resource`]), followed by every replica with one watch
//! under the server's own identity, and turned into decisions (`domain::window`) for people and plans alike.
//!
//! The server's identity reads them and the cluster's facts (its shared cache), not the caller's: a policy holds
//! whoever asks, including someone who may not read it. What a person is shown of it stays behind their own
//! access (see `Acting::window_decisions`).
//!
//! Time zones come from the zone database bundled into the binary, so the scratch image needs none.

pub mod admissions;
pub mod alerts;
pub mod others;
pub mod resource;
pub mod shared;
pub mod silences;

use std::sync::Arc;

use domain::window::{Decision, Facts, NodeFact, PodFact, Policy, decide::Alerts};
use futures::StreamExt;
use kube::{
    Api, Client, ResourceExt,
    api::{Patch, PatchParams},
    runtime::{WatchStreamExt, reflector, watcher},
};
use tokio::sync::watch;

pub use resource::{MaintenanceWindow, WindowSpec, WindowStatus};

use crate::{cache::ClusterCache, plan::resource::PlanCondition};

/// The definition of the resource, as YAML (`drainboard crd` prints it after the plan's).
pub fn crd_yaml() -> String {
    use kube::CustomResourceExt;
    serde_yaml::to_string(&MaintenanceWindow::crd()).unwrap_or_default()
}

/// Whether the windows are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    /// Not listed yet: every node is held until they are, so that a start never slips through at boot.
    NotYet,
    Listed,
    /// The resource is not installed: there are no windows.
    NotInstalled,
    /// The server may not read them: in team mode every node is held, and the page says what to grant; in local
    /// mode the operator's own credentials cannot read them, and nothing can be held that they could not do with
    /// kubectl anyway.
    Refused,
}

/// Every window of the cluster, as this server sees them.
#[derive(Clone)]
pub struct Windows {
    store: reflector::Store<MaintenanceWindow>,
    known: watch::Receiver<Known>,
    alerts: watch::Receiver<Alerts>,
    fail_closed: bool,
    /// Where the alert gates ask, and silences are kept.
    alertmanager: Option<alerts::Alertmanager>,
    /// Whether windows the server may not read hold every node (team mode).
    refusal_holds: bool,
    /// Each window's checked form, by its uid and resourceVersion: a plan decides every second, and a window's
    /// matchers are regexes, so each version is parsed once.
    parsed: moka::sync::Cache<(String, String), Arc<Policy>>,
}

impl Windows {
    /// Follows every window with `client` (the server's own) under `tasks`, writing each one's `Valid` condition;
    /// asks `alertmanager` for the alert gates, which hold while it cannot be asked unless `fail_open`.
    pub fn new(
        client: Client,
        tasks: &crate::tasks::Tasks,
        alertmanager: Option<alerts::Alertmanager>,
        fail_open: bool,
        refusal_holds: bool,
    ) -> Self {
        let api: Api<MaintenanceWindow> = Api::all(client);
        let (store, writer) = reflector::store();
        let (known_tx, known) = watch::channel(Known::NotYet);
        let events = watcher(api.clone(), watcher::Config::default())
            .default_backoff()
            .modify(|w: &mut MaintenanceWindow| w.metadata.managed_fields = None)
            .reflect(writer);
        let shutdown = tasks.shutdown_signal().clone();
        tasks.spawn(async move {
            let mut events = std::pin::pin!(events);
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    event = events.next() => match event {
                        None => break,
                        Some(Ok(watcher::Event::InitDone)) => {
                            known_tx.send_replace(Known::Listed);
                        }
                        Some(Ok(watcher::Event::Apply(w) | watcher::Event::InitApply(w))) => {
                            write_status(&api, &w).await;
                        }
                        Some(Ok(_)) => {}
                        Some(Err(err)) => {
                            let now = match answer_of(&err) {
                                Some(404) => Some(Known::NotInstalled),
                                Some(401 | 403) => Some(Known::Refused),
                                _ => None,
                            };
                            let was = *known_tx.borrow();
                            if let Some(now) = now.filter(|now| was != Known::Listed && was != *now) {
                                if now == Known::Refused {
                                    tracing::warn!("this server's identity may not list and watch maintenancewindows");
                                }
                                known_tx.send_replace(now);
                                }
                            tracing::debug!(error = %err, "the watch of maintenance windows failed; retrying");
                        }
                    }
                }
            }
        });
        let alerts = match alertmanager.clone() {
            Some(am) => am.follow(tasks),
            None => watch::channel(Alerts::None).1,
        };
        let parsed = moka::sync::Cache::new(1_000);
        Windows { store, known, alerts, fail_closed: !fail_open, alertmanager, refusal_holds, parsed }
    }

    /// Every window, checked; one that does not read holds what it covers.
    pub fn policies(&self) -> Vec<Policy> {
        match *self.known.borrow() {
            Known::NotYet => {
                return vec![Policy::broken("(all windows)", None, "the maintenance windows are not read yet".into())];
            }
            Known::NotInstalled => return Vec::new(),
            Known::Refused if !self.refusal_holds => return Vec::new(),
            Known::Refused => {
                let why = "this server may not list and watch maintenancewindows (drainboard.dev): grant its \
                           identity those rights (deploy/serviceaccount.yaml)";
                return vec![Policy::broken("(all windows)", None, why.into())];
            }
            Known::Listed => {}
        }
        let mut windows: Vec<Arc<MaintenanceWindow>> = self.store.state();
        windows.sort_by_key(|w| w.name_any());
        windows
            .iter()
            .map(|w| {
                let key = (w.uid().unwrap_or_default(), w.resource_version().unwrap_or_default());
                let parse = || {
                    let name = w.name_any();
                    Arc::new(
                        Policy::parse(&name, &w.spec.spec, zone)
                            .unwrap_or_else(|why| Policy::broken(&name, w.spec.spec.node_selector.as_deref(), why)),
                    )
                };
                // A window not yet stored by the API server has neither: parsed afresh each time.
                let policy =
                    if key.0.is_empty() || key.1.is_empty() { parse() } else { self.parsed.get_with(key, parse) };
                Policy::clone(&policy)
            })
            .collect()
    }

    /// The Alertmanager the gates ask, if any.
    pub fn alertmanager(&self) -> Option<&alerts::Alertmanager> {
        self.alertmanager.as_ref()
    }

    /// The silence a window that covers `node` asks for while it is in maintenance: the label and the margin (the
    /// first such window by name).
    pub fn silence_of(&self, cache: &ClusterCache, node: &str) -> Option<(String, u32)> {
        let labels = cache.node_card(node)?.labels;
        self.policies()
            .into_iter()
            .filter(|p| p.broken.is_none() && p.selector.matches(&labels))
            .find_map(|p| p.silence)
    }

    /// Waits a little for the first list, so that a start just after the server began is decided on the windows
    /// rather than held as unknown.
    pub async fn known(&self) {
        let mut known = self.known.clone();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), known.wait_for(|k| *k != Known::NotYet)).await;
    }

    /// The decision for each of `nodes` at `now`, from `cache` (the server's own view). `starting` are nodes about
    /// to be put into maintenance in the same breath (a plan starting several): they count against budgets.
    pub fn decide(
        &self,
        cache: &ClusterCache,
        nodes: &[&str],
        starting: &[&str],
        now: jiff::Timestamp,
    ) -> Vec<Decision> {
        let policies = self.policies();
        if policies.is_empty() {
            return nodes.iter().map(|n| Decision { node: (*n).into(), ..Decision::default() }).collect();
        }
        // Tens of milliseconds of CPU at a fleet of thousands of nodes: done where it does not hold up the other
        // tasks of the async worker it runs on (the board streams, the probes).
        match cache.live_cards().borrow().len() >= LARGE_FLEET {
            true => off_the_workers(|| self.decide_with(cache, &policies, nodes, starting, now)),
            false => self.decide_with(cache, &policies, nodes, starting, now),
        }
    }

    fn decide_with(
        &self,
        cache: &ClusterCache,
        policies: &[Policy],
        nodes: &[&str],
        starting: &[&str],
        now: jiff::Timestamp,
    ) -> Vec<Decision> {
        // The live cards, built once for every viewer after each change: a plan decides every second, and building
        // the cards anew from every node and pod each time would cost a large cluster dearly. Before the first
        // build (the cache just listed), they are built here, so that no start is decided on no nodes at all.
        let fact = |c: &domain::node::NodeCard| NodeFact {
            in_maintenance: c.unschedulable || starting.contains(&c.name.as_str()),
            ready: c.ready == domain::ReadyStatus::Ready,
            name: c.name.clone(),
            labels: c.labels.clone(),
        };
        let live = cache.live_cards().borrow().clone();
        let facts_nodes: Vec<NodeFact> = match live.is_empty() {
            false => live.iter().map(|c| fact(c)).collect(),
            true => cache.cards().iter().map(fact).collect(),
        };
        let pods = pod_facts(cache, policies);
        let alerts = self.alerts.borrow().clone();
        let facts = Facts { now, nodes: &facts_nodes, pods: &pods, alerts: &alerts, fail_closed: self.fail_closed };
        let decider = domain::window::decide::Decider::new(policies, &facts);
        nodes.iter().map(|n| decider.decide(n)).collect()
    }
}

/// From this many nodes on, deciding them all is moved off the async workers.
const LARGE_FLEET: usize = 1_000;

/// Runs `work` on the current thread, having first handed this worker's other tasks to another thread (tokio's
/// `block_in_place`), where the runtime has more than one worker; as is, on a runtime of one thread (tests).
fn off_the_workers<T>(work: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}

/// The running pods any pod gate could match: only those, so that a cluster of many pods is not copied whole.
fn pod_facts(cache: &ClusterCache, policies: &[Policy]) -> Vec<PodFact> {
    let gates: Vec<&domain::window::spec::PodGate> = policies.iter().flat_map(|p| &p.gates.pods).collect();
    if gates.is_empty() {
        return Vec::new();
    }
    cache
        .pods_where(|p| {
            p.phase() == domain::pod::PodPhase::Running
                && gates.iter().any(|g| {
                    g.namespace.as_deref().is_none_or(|ns| ns == p.namespace()) && g.selector.matches(p.labels())
                })
        })
        .into_iter()
        .map(|p| PodFact {
            namespace: p.namespace().to_owned(),
            name: p.name().to_owned(),
            node: p.node().map(str::to_owned),
            labels: p.labels().clone(),
        })
        .collect()
}

/// An IANA zone from the bundled database.
fn zone(name: &str) -> Option<jiff::tz::TimeZone> {
    jiff::tz::TimeZone::get(name).ok()
}

/// The API server's status code behind a failed watch, if it answered with one.
fn answer_of(err: &watcher::Error) -> Option<u16> {
    match err {
        watcher::Error::InitialListFailed(kube::Error::Api(s)) | watcher::Error::WatchFailed(kube::Error::Api(s)) => {
            Some(s.code)
        }
        _ => None,
    }
}

/// Writes whether `w` reads, once per generation.
async fn write_status(api: &Api<MaintenanceWindow>, w: &MaintenanceWindow) {
    let generation = w.metadata.generation;
    if w.status.as_ref().and_then(|s| s.observed_generation) == generation && generation.is_some() {
        return;
    }
    let (status, reason, message) = match Policy::parse(&w.name_any(), &w.spec.spec, zone) {
        Ok(_) => ("True", "Valid", String::new()),
        Err(why) => ("False", "Invalid", format!("{why}; until it is fixed, the window holds every node it covers")),
    };
    let condition = PlanCondition {
        type_: "Valid".into(),
        status: status.into(),
        reason: reason.into(),
        message,
        last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(jiff::Timestamp::now()),
        observed_generation: generation,
    };
    let body = WindowStatus { observed_generation: generation, conditions: vec![condition] };
    let patch = serde_json::json!({ "status": body });
    if let Err(err) = api.patch_status(&w.name_any(), &PatchParams::default(), &Patch::Merge(&patch)).await {
        tracing::debug!(window = %w.name_any(), error = %crate::kube_error::api_message(&err), "could not write a window's status");
    }
}
