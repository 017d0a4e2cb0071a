//! The facade the server functions and event streams call: client access, caches and drains behind one handle.
//!
//! The rooms: this file builds the engine and answers what is the server's own (its mode, its sessions, its
//! readiness); [`Acting`] is the engine bound to one caller, through which every read ([`acting`]) and every
//! action ([`actions`]; plans, as `MaintenancePlan` objects, in [`crate::plan`]) is made as that caller.
//! No method takes an identity as an argument: a handle is made for the caller once, so a call cannot be made as
//! someone else by mistake, and the registries (drains, caches, plans) stay inside. Whether a caller may read
//! or do something is asked in [`crate::authz`].

mod acting;
mod actions;
mod census;
mod estimates;
mod holds;
mod move_first;
mod readiness;
mod unblock;

use std::{sync::Arc, time::Duration};

use tokio_util::sync::CancellationToken;

pub use acting::DrainFeed;

use crate::{
    Caller, Error, Identity, KubeAccess, Result,
    audit::Audit,
    authz::Authz,
    cache::{ClusterCache, ClusterCaches},
    drain::{DrainLimits, DrainRegistry},
    lease::Leases,
    signin::{Credentials, Person},
    tasks::Tasks,
};

/// Everything the server acts through. Cheap to clone; every clone is the same engine.
#[derive(Clone)]
pub struct Engine {
    pub(crate) access: KubeAccess,
    caches: ClusterCaches,
    drains: DrainRegistry,
    /// Rolling maintenance: the plans every replica follows, and runs when it holds their Lease.
    plans: Option<crate::plan::Plans>,
    /// Maintenance windows, followed with the server's own identity: they hold people and plans alike.
    pub(crate) windows: Option<crate::windows::Windows>,
    /// Where notices go (webhooks), when any are configured.
    notifier: Option<crate::notices::Notifier>,
    /// The namespaces' teams, followed when an app team has a webhook.
    teams: Option<crate::teams::Teams>,
    /// Who is admitted into maintenance here, one at a time, and who was lately (see `holds`).
    admissions: crate::windows::admissions::Admissions,
    tasks: Tasks,
    /// Every action's record: a JSON-lines file and an Event on the node.
    audit: Audit,
    /// The cache that starts with the server and lives as long, so that even the first page finds it listed and
    /// every stream shares it: the operator's in single-user mode; in team mode the server's own, read-only, which
    /// every person who may read the whole board shares (so that watches do not grow with viewers).
    pub(crate) shared: Option<(Identity, Arc<ClusterCache>)>,
    /// Team mode: what each person may read of the shared cache, and may do, as the API server answered lately.
    authz: Authz,
    /// Capacity checks running at once: each walks every cached pod, off the async workers.
    capacity_checks: Arc<tokio::sync::Semaphore>,
    /// The last day of every node's history, for the maintenance timeline; kept when the history is.
    recent: Option<crate::recent::Recent>,
    /// Publishes Drainboard's node lifecycle conditions with the server's own identity, when asked (team mode).
    pub(crate) lifecycle: Option<crate::lifecycle::Publisher>,
}

/// The engine acting as one caller: every read and action it offers is made with that caller's identity.
#[derive(Clone, Copy)]
pub struct Acting<'a> {
    engine: &'a Engine,
    identity: &'a Identity,
    /// The client to act with, when it is not the one the identity's session holds now: a plan keeps the client
    /// of the person it runs as, so that it goes on after they sign out, as their drains do, until the API server
    /// stops accepting it.
    client: Option<&'a kube::Client>,
}

/// How many capacity checks run at once; more wait their turn.
const CAPACITY_CHECKS_AT_ONCE: usize = 2;

impl Engine {
    /// An engine acting through `access`, its tasks under `tasks`, caches kept `linger` after their last use.
    pub fn new(access: KubeAccess, tasks: &Tasks, linger: Duration, limits: DrainLimits) -> Self {
        Self::reading(access, tasks, linger, limits, Vec::new())
    }

    /// [`Self::new`], whose cards carry each node's sign that it needs a reboot by `reboot`
    /// (`--reboot-required`).
    pub fn reading(
        access: KubeAccess,
        tasks: &Tasks,
        linger: Duration,
        limits: DrainLimits,
        reboot: Vec<domain::reboot::Signal>,
    ) -> Self {
        let caches = ClusterCaches::reading(tasks, linger, reboot.into());
        let shared = match access.operator() {
            Some(operator) => access
                .client_for(&operator)
                .ok()
                .map(|client| (operator.clone(), caches.for_identity(&operator, client))),
            None => access.server_client().map(|client| {
                let server = Identity::server(access.cluster().unwrap_or_default());
                (server.clone(), caches.for_identity(&server, client))
            }),
        };
        Engine {
            access,
            caches,
            drains: DrainRegistry::new(tasks, limits),
            plans: None,
            windows: None,
            admissions: crate::windows::admissions::Admissions::default(),
            notifier: None,
            teams: None,
            tasks: tasks.clone(),
            audit: Audit::default(),
            shared,
            authz: Authz::default(),
            capacity_checks: Arc::new(tokio::sync::Semaphore::new(CAPACITY_CHECKS_AT_ONCE)),
            recent: None,
            lifecycle: None,
        }
    }

    /// The same engine, its real drains holding a Lease per node in `leases`, so that replicas agree.
    pub fn with_leases(mut self, leases: Leases) -> Self {
        self.drains = self.drains.with_leases(leases);
        self
    }

    /// The same engine, following every maintenance plan with the server's own identity, and running plans under
    /// a Lease each (it needs [`Self::with_leases`] first; without them it keeps no plans). Plans start being run
    /// with [`Self::run_plans`].
    pub fn with_plans(mut self) -> Self {
        if let (Some(client), Some(leases)) = (self.server_client(), self.drains.leases().cloned()) {
            self.plans = Some(crate::plan::Plans::new(client, leases, &self.tasks));
        }
        self
    }

    /// The same engine, following the maintenance windows with the server's own identity, so that they hold every
    /// cordon, drain and plan started through it.
    /// `alertmanager` answers the alert gates; they hold while it cannot be asked, unless `fail_open`.
    pub fn with_windows(mut self, alertmanager: Option<crate::windows::alerts::Alertmanager>, fail_open: bool) -> Self {
        if let Some(client) = self.server_client() {
            let team = self.is_team();
            // Replicas admit into maintenance through one Lease beside the drains' (without Leases, alone).
            self.admissions.shared =
                self.drains.leases().map(|l| crate::windows::shared::Shared::new(client.clone(), l.namespace()));
            self.windows = Some(crate::windows::Windows::new(client, &self.tasks, alertmanager, fail_open, team));
        }
        self
    }

    /// The same engine, publishing its drains as node lifecycle conditions (`DrainInProgress`, `Drained`) with the
    /// server's own identity, clearing them on its uncordons, and sweeping its own off any node seen back in service.
    /// Only with an identity of the server's own (team mode): a person's rights never write them.
    pub fn with_node_conditions(mut self) -> Self {
        let Some(client) = self.server_client() else { return self };
        let publisher = crate::lifecycle::Publisher::new(client);
        if let Some((_, cache)) = &self.shared {
            publisher.sweep(&self.tasks, cache.live_cards());
        }
        self.drains = self.drains.with_lifecycle(publisher.clone());
        self.lifecycle = Some(publisher);
        self
    }

    /// The same engine, telling `notifier`'s webhooks as maintenance goes.
    pub fn with_notifier(mut self, notifier: crate::notices::Notifier) -> Self {
        if notifier.has_teams() {
            self.teams = self.server_client().map(|client| crate::teams::Teams::follow(client, &self.tasks));
        }
        self.notifier = Some(notifier);
        self
    }

    /// Queues `notice` for app team `team`'s webhook, if it has one; never waits.
    pub(crate) fn tell(&self, team: &str, notice: domain::notice::Notice) {
        if let Some(notifier) = &self.notifier {
            notifier.tell(team, notice);
        }
    }

    /// How far ahead app teams are told (`None`: no team has a webhook, or the namespaces are not followed).
    pub(crate) fn teams_lead(&self) -> Option<jiff::SignedDuration> {
        let notifier = self.notifier.as_ref().filter(|_| self.teams.is_some())?;
        jiff::SignedDuration::try_from(notifier.lead).ok()
    }

    /// The other tools the shared cache shows at work on each of `nodes` (`domain::actor`), where any.
    pub(crate) fn sightings(
        &self,
        nodes: &std::collections::BTreeSet<&str>,
    ) -> std::collections::BTreeMap<String, Vec<domain::actor::Sighting>> {
        let Some((_, cache)) = &self.shared else { return Default::default() };
        let cards = cache.live_cards().borrow().clone();
        cards
            .iter()
            .filter(|c| !c.actors.is_empty() && nodes.contains(c.name.as_str()))
            .map(|c| (c.name.clone(), c.actors.clone()))
            .collect()
    }

    /// Each app team's pods on `node` that a drain would evict, from the shared cache.
    pub(crate) fn pods_by_team(
        &self,
        node: &str,
    ) -> Option<std::collections::BTreeMap<String, domain::teams::TeamPods>> {
        let (teams, notifier, (_, cache)) = (self.teams.as_ref()?, self.notifier.as_ref()?, self.shared.as_ref()?);
        cache.is_ready().then(|| teams.pods_by_team(cache, node, |team| notifier.knows(team)))
    }

    /// Queues `notice` for the webhooks, if any; never waits.
    pub(crate) fn notify(&self, notice: domain::notice::Notice) {
        if let Some(notifier) = &self.notifier {
            notifier.send(notice);
        }
    }

    /// How long a plan's next node may be held before the webhooks are told (`None`: no webhooks).
    pub(crate) fn notify_blocked_after(&self) -> Option<Duration> {
        self.notifier.as_ref().map(|n| n.blocked_after)
    }

    /// The same engine, running the plans marked unattended as the server's maintenance identity (team mode only:
    /// in local mode every plan is its operator's). See [`crate::plan::unattended`].
    pub fn with_unattended_plans(mut self) -> Self {
        if !self.is_team() {
            return self;
        }
        let cluster = self.access.cluster().unwrap_or_default();
        if let Some(client) = self.server_client() {
            self.plans = self.plans.take().map(|plans| plans.with_unattended(Identity::maintenance(cluster), client));
        }
        self
    }

    /// The same engine, running at most `caps` plans at once (per person, and in all).
    pub fn with_plan_caps(mut self, caps: crate::plan::Caps) -> Self {
        self.plans = self.plans.take().map(|plans| plans.with_caps(caps));
        self
    }

    /// The same engine, in local mode: the plans this operator's servers make are kept in the file `path` of
    /// their state folder, and a local server goes on by itself with those alone.
    pub fn with_plan_origins(mut self, path: std::path::PathBuf) -> Self {
        self.plans = self.plans.take().map(|plans| plans.with_origins(path));
        self
    }

    /// Starts looking after the plans: taking over those nobody runs that this server may run, and marking those
    /// it may not. Called once the engine is whole, since the loop keeps this engine.
    pub fn run_plans(&self) {
        if let Some(plans) = &self.plans {
            tracing::info!(holder = %plans.holder(), "looking after maintenance plans; this server runs them as its holder");
            self.control(plans);
        }
    }

    /// The same engine, recording every action in `audit`.
    pub fn with_audit(mut self, audit: Audit) -> Self {
        self.drains = self.drains.with_audit(audit.clone());
        self.audit = audit;
        self
    }

    /// The same engine, following its audit trail's history for the maintenance timeline (with the history's own
    /// identity), and recording in it each change of a node's health as its shared cache sees them.
    pub fn with_recent_history(mut self) -> Self {
        let Some(history) = self.audit.history() else { return self };
        let recent = crate::recent::Recent::follow(history, &self.tasks);
        // The wall screens' revocations are kept beside the histories, read with the same identity.
        self.access.follow_walls(history.api(), &self.tasks);
        if let Some((_, cache)) = &self.shared {
            crate::health::record(&self.tasks, cache.live_cards(), history.clone(), recent.clone());
            crate::sightings::record(&self.tasks, cache.live_cards(), history.clone(), recent.clone());
        }
        self.recent = Some(recent);
        self
    }

    /// The engine acting as `caller`: the handle every read and action goes through.
    pub fn acting_as<'a>(&'a self, caller: &'a Caller) -> Acting<'a> {
        self.acting(&caller.identity)
    }

    /// The engine acting as `identity`: for the engine's own tasks that act for a person (a rollout).
    pub(crate) fn acting<'a>(&'a self, identity: &'a Identity) -> Acting<'a> {
        Acting { engine: self, identity, client: None }
    }

    /// The engine acting as `identity` with `client`, kept from when they handed it over: for a plan's loop.
    pub(crate) fn acting_with<'a>(&'a self, identity: &'a Identity, client: &'a kube::Client) -> Acting<'a> {
        Acting { engine: self, identity, client: Some(client) }
    }

    /// The server's own client (see [`KubeAccess::server_client`]), which writes the audit Events.
    pub fn server_client(&self) -> Option<kube::Client> {
        self.access.server_client()
    }

    /// Cancelled when the server shuts down: every stream ends then.
    pub fn shutdown_signal(&self) -> CancellationToken {
        self.tasks.shutdown_signal().clone()
    }

    /// The identity every request acts as in single-user mode: the operator who started the server.
    ///
    /// In team mode there is none: each request acts as the person its session names ([`Self::session`]).
    pub fn operator(&self) -> Option<Identity> {
        self.access.operator()
    }

    /// Whether people sign in (team mode).
    pub fn is_team(&self) -> bool {
        self.access.is_team()
    }

    /// Moves at each change the watch of maintenance plans sees (`None` when this server keeps no plans): what the
    /// board stream's `plans` event follows, instead of anyone polling.
    pub fn plan_changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.plans.as_ref().map(crate::plan::Plans::changes)
    }

    /// Whether this server runs plans marked unattended (`--unattended-plans`): the rollout dialog offers them.
    pub fn runs_unattended_plans(&self) -> bool {
        self.plans.as_ref().is_some_and(crate::plan::Plans::runs_unattended)
    }

    /// Whether the server's shared cache has listed everything once: what a readiness probe asks. It stays true
    /// while the API server is away, so that replicas do not all leave their Service at once, which would hide the
    /// page that says the API server is lost.
    pub fn synced_once(&self) -> bool {
        self.shared.as_ref().is_some_and(|(_, cache)| cache.is_ready())
    }

    /// Signs a person in (team mode): see [`KubeAccess::sign_in`].
    pub async fn sign_in(
        &self,
        credentials: &Credentials,
        source: crate::access::Source,
    ) -> Result<(String, Person, Identity)> {
        self.access.sign_in(credentials, source).await
    }

    /// Who a session id belongs to, if it is current; `touch` when the request is the person's own doing (see
    /// [`KubeAccess::session`]).
    pub fn session(&self, id: &str, touch: bool) -> Option<Caller> {
        if self.access.is_wall_session(id)
            && let Some((reader, _)) = &self.shared
        {
            let person = Person { username: crate::access::WALL_USER.into(), groups: Vec::new() };
            return Some(Caller {
                identity: Identity::wall(reader.cluster.clone()),
                person: Some(person),
                session: Some(id.to_owned()),
            });
        }
        self.access.session(id, touch)
    }

    /// How long team mode's sessions live; `None` in local mode.
    pub fn session_policy(&self) -> Option<crate::access::SessionPolicy> {
        self.access.session_policy()
    }

    /// Signs an unattended wall screen in with the server's `--wall-token` (team mode): a session that reads the
    /// board from the server's shared, read-only cache, and may do nothing else.
    pub fn wall_sign_in(&self, token: &str, source: crate::access::Source) -> Result<String> {
        if self.shared.is_none() {
            return Err(Error::Invalid("this server has no shared cache for a wall screen".into()));
        }
        self.access.wall_sign_in(token, source)
    }

    /// Ends a session: a person's is forgotten, with its credentials; a wall screen's ticket is revoked for every
    /// replica, which needs the cluster, and can fail (then it has not ended).
    pub async fn sign_out(&self, id: &str) -> Result<()> {
        if crate::access::is_ticket_form(id) {
            return self.access.end_wall_session(id).await;
        }
        self.access.sign_out(id);
        Ok(())
    }

    /// The server's tasks, for the engine's own (a rollout's loop).
    pub(crate) fn tasks(&self) -> &Tasks {
        &self.tasks
    }

    /// The plans this server follows; `None` when it keeps none (no identity of its own to write them with).
    pub(crate) fn plans(&self) -> Option<&crate::plan::Plans> {
        self.plans.as_ref()
    }

    /// Moves at each change of any drain this server runs: what a plan's loop wakes on.
    pub(crate) fn drain_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.drains.changes()
    }

    /// The progress of a drain this server holds, whole: for the engine's own bookkeeping (a rollout's loop).
    pub(crate) fn drain_progress(&self, id: &str) -> Result<domain::progress::DrainProgress> {
        self.drains.progress(id).ok_or_else(|| no_such_drain(id))
    }

    /// The client that acts as `identity`.
    fn client(&self, identity: &Identity) -> Result<kube::Client> {
        self.access.client_for(identity)
    }
}

fn no_such_node(node: &str) -> String {
    format!("node {node} does not exist")
}

fn no_such_drain(id: &str) -> Error {
    Error::NotFound(format!("no drain with id {id} on this server"))
}
