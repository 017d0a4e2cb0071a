//! The facade the server functions and event streams call: client access, caches and drains behind one handle,
//! each call made as the identity it is given.

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use domain::{
    actions::Lacking,
    capacity::CapacityReport,
    drain::{DrainOptions, DryRun},
    node::NodeCard,
    preview::PreviewInputs,
    progress::{CordonOutcome, CordonRecord, DrainProgress, DrainRecord, DrainStarted, NodeDrainRecord},
};
use k8s_openapi::api::core::v1::Node;

use domain::audit::{AuditAction, AuditEntry};

use crate::{
    Error, Identity, KubeAccess, Result,
    access::may,
    audit::Audit,
    cache::{ClusterCache, ClusterCaches},
    drain::{self, DrainLimits, DrainRegistry, ops, preview::PreviewSource},
    lease::{Claim, LEASE_SECONDS, Leases},
    signin::{Credentials, Person},
    tasks::Tasks,
};

/// Everything the server acts through. Cheap to clone; every clone is the same engine.
#[derive(Clone)]
pub struct Engine {
    access: KubeAccess,
    caches: ClusterCaches,
    drains: DrainRegistry,
    /// Rolling maintenance: many nodes drained with limits.
    rollouts: crate::rollout::Rollouts,
    tasks: Tasks,
    /// Every action's record: a JSON-lines file and an Event on the node.
    audit: Audit,
    /// The cache that starts with the server and lives as long, so that even the first page finds it listed and
    /// every stream shares it: the operator's in single-user mode; in team mode the server's own, read-only, which
    /// every person who may read the whole board shares (so that watches do not grow with viewers).
    shared: Option<(Identity, Arc<ClusterCache>)>,
    /// Team mode: what of the shared cache each person may read, asked of the API server and kept for
    /// [`READ_CHECK_TTL`].
    readers: Arc<std::sync::Mutex<std::collections::HashMap<Identity, (std::time::Instant, Reader)>>>,
    /// Capacity checks running at once: each walks every cached pod, off the async workers.
    capacity_checks: Arc<tokio::sync::Semaphore>,
    /// The last day of every node's history, for the maintenance timeline; kept when the history is.
    recent: Option<crate::recent::Recent>,
}

/// How many capacity checks run at once; more wait their turn.
const CAPACITY_CHECKS_AT_ONCE: usize = 2;

/// What of the shared cache a person may read (team mode).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Reader {
    /// Everything: they may list and watch all it holds.
    Everything,
    /// The nodes (and their Leases), and the pods of these namespaces only.
    Namespaces(Arc<BTreeSet<String>>),
    /// Not the nodes: they read a cache of their own, and RBAC says what fails.
    Own,
}

/// What of its cache a viewer is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// All of it: their own cache, or the shared one when they may read it all.
    All,
    /// The shared cache's nodes, and only the pods of these namespaces: a person who may list nodes, and pods in
    /// some namespaces only (team mode).
    Namespaces(Arc<BTreeSet<String>>),
}

impl Visibility {
    /// The cards as the viewer sees them.
    pub fn cards(&self, cards: &[Arc<NodeCard>]) -> Vec<Arc<NodeCard>> {
        match self {
            Visibility::All => cards.to_vec(),
            Visibility::Namespaces(namespaces) => {
                cards.iter().map(|card| Arc::new(card.visible_to(namespaces))).collect()
            }
        }
    }

    /// A drain preview's inputs as the viewer sees them.
    pub fn preview(&self, inputs: PreviewInputs) -> PreviewInputs {
        match self {
            Visibility::All => inputs,
            Visibility::Namespaces(namespaces) => inputs.visible_to(namespaces),
        }
    }

    /// A capacity check as the viewer sees it.
    pub fn capacity(&self, report: CapacityReport) -> CapacityReport {
        match self {
            Visibility::All => report,
            Visibility::Namespaces(namespaces) => report.visible_to(namespaces),
        }
    }

    /// A drain's progress as the viewer sees it.
    pub fn progress(&self, progress: DrainProgress) -> DrainProgress {
        match self {
            Visibility::All => progress,
            Visibility::Namespaces(namespaces) => progress.visible_to(namespaces),
        }
    }
}

/// The most namespaces asked about at once for one person.
const NAMESPACE_CHECKS_AT_ONCE: usize = 16;

/// The name of the server's own read-only identity in team mode (its cache is keyed by it).
const SERVER_READER: &str = "drainboard (server, read-only)";

/// The cluster the server serves (team mode), for the shared cache's identity.
fn client_cluster(access: &KubeAccess) -> String {
    access.cluster().unwrap_or_default()
}

/// How long a person's answer to "may they read the whole board" is kept before it is asked again.
const READ_CHECK_TTL: Duration = Duration::from_secs(60);

impl Engine {
    /// An engine acting through `access`, its tasks under `tasks`, caches kept `linger` after their last use.
    pub fn new(access: KubeAccess, tasks: &Tasks, linger: Duration, limits: DrainLimits) -> Self {
        let caches = ClusterCaches::new(tasks, linger);
        let shared = match access.operator() {
            Some(operator) => access
                .client_for(&operator)
                .ok()
                .map(|client| (operator.clone(), caches.for_identity(&operator, client))),
            None => access.server_client().map(|client| {
                let server = Identity { cluster: client_cluster(&access), user: SERVER_READER.into() };
                (server.clone(), caches.for_identity(&server, client))
            }),
        };
        Engine {
            access,
            caches,
            drains: DrainRegistry::new(tasks, limits),
            rollouts: Default::default(),
            tasks: tasks.clone(),
            audit: Audit::default(),
            shared,
            readers: Default::default(),
            capacity_checks: Arc::new(tokio::sync::Semaphore::new(CAPACITY_CHECKS_AT_ONCE)),
            recent: None,
        }
    }

    /// The same engine, its real drains holding a Lease per node in `leases`, so that replicas agree.
    pub fn with_leases(mut self, leases: Leases) -> Self {
        self.drains = self.drains.with_leases(leases);
        self
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
        if let Some((_, cache)) = &self.shared {
            crate::health::record(&self.tasks, cache.live_cards(), history.clone(), recent.clone());
        }
        self.recent = Some(recent);
        self
    }

    /// Every node's history of the last day before `now`, oldest first (empty when the server keeps none). It is
    /// served from memory: the server's own watch of the history objects.
    pub fn recent_history(&self, now: jiff::Timestamp) -> Vec<AuditEntry> {
        self.recent.as_ref().map(|r| r.entries(now)).unwrap_or_default()
    }

    /// Whether the server keeps a history (it needs an identity of its own that may write it).
    pub fn keeps_history(&self) -> bool {
        self.recent.is_some()
    }

    /// Moves at each change of any node's history; `None` when the server keeps none.
    pub fn history_changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.recent.as_ref().map(|r| r.changes())
    }

    /// The node's maintenance history, newest first (empty when the server keeps none).
    pub async fn history(&self, node: &str) -> Result<Vec<AuditEntry>> {
        match self.audit.history() {
            Some(history) => Ok(history.read(node).await?),
            None => Ok(Vec::new()),
        }
    }

    /// The server's own client (see [`KubeAccess::server_client`]), which writes the audit Events.
    pub fn server_client(&self) -> Option<kube::Client> {
        self.access.server_client()
    }

    /// The same engine, its drains with faults for tests (see [`drain::TestHooks`]). Debug builds only.
    #[cfg(debug_assertions)]
    pub fn with_test_hooks(mut self, hooks: drain::TestHooks) -> Self {
        self.drains = self.drains.with_test_hooks(hooks);
        self
    }

    pub fn tasks(&self) -> &Tasks {
        &self.tasks
    }

    pub fn drains(&self) -> &DrainRegistry {
        &self.drains
    }

    pub fn rollouts(&self) -> &crate::rollout::Rollouts {
        &self.rollouts
    }

    pub fn caches(&self) -> &ClusterCaches {
        &self.caches
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

    /// Whether the server's shared cache has listed everything once: what a readiness probe asks. It stays true
    /// while the API server is away, so that replicas do not all leave their Service at once, which would hide the
    /// page that says the API server is lost.
    pub fn synced_once(&self) -> bool {
        self.shared.as_ref().is_some_and(|(_, cache)| cache.is_ready())
    }

    /// Signs a person in (team mode): see [`KubeAccess::sign_in`].
    pub async fn sign_in(&self, credentials: &Credentials) -> Result<(String, Person, Identity)> {
        self.access.sign_in(credentials).await
    }

    /// Who a session id belongs to, if it is current.
    pub fn session(&self, id: &str) -> Option<crate::Caller> {
        if self.access.is_wall_session(id)
            && let Some((reader, _)) = &self.shared
        {
            let person = crate::signin::Person { username: crate::access::WALL_USER.into(), groups: Vec::new() };
            return Some(crate::Caller { identity: reader.clone(), person: Some(person), session: None, wall: true });
        }
        self.access.session(id)
    }

    /// Signs an unattended wall screen in with the server's `--wall-token` (team mode): a session that reads the
    /// board from the server's shared, read-only cache, and may do nothing else.
    pub fn wall_sign_in(&self, token: &str) -> Result<String> {
        if self.shared.is_none() {
            return Err(Error::Invalid("this server has no shared cache for a wall screen".into()));
        }
        self.access.wall_sign_in(token)
    }

    /// Forgets a session.
    pub fn sign_out(&self, id: &str) {
        self.access.sign_out(id);
    }

    /// Forgets every session of `identity`: the API server no longer accepts its credentials.
    pub fn forget(&self, identity: &Identity) {
        self.access.forget(identity);
    }

    /// The client that acts as `identity`.
    pub fn client(&self, identity: &Identity) -> Result<kube::Client> {
        self.access.client_for(identity)
    }

    /// The cache `identity` reads the board from, started if none runs; it may not have listed yet.
    ///
    /// In team mode, a person who may list and watch everything the board shows reads the server's shared
    /// cache, so that a hundred viewers cost the API server one set of watches; anyone else reads a cache of
    /// their own, made with their own credentials, so that RBAC decides exactly what they see.
    pub async fn cache(&self, identity: &Identity) -> Result<Arc<ClusterCache>> {
        Ok(self.view(identity).await?.0)
    }

    /// What of a drain's pods `identity` may see: [`Self::view`]'s filter, without starting a cache of their own
    /// for someone who reads with their own credentials (their filter is all, since RBAC already decides).
    pub async fn visibility(&self, identity: &Identity) -> Result<Visibility> {
        match &self.shared {
            Some((shared_identity, shared)) if self.is_team() && shared_identity != identity => {
                Ok(match self.reader(identity, shared).await? {
                    Reader::Namespaces(namespaces) => Visibility::Namespaces(namespaces),
                    Reader::Everything | Reader::Own => Visibility::All,
                })
            }
            _ => Ok(Visibility::All),
        }
    }

    /// The cache `identity` reads the board from, and what of it they see: everything, except for a person who
    /// may list the nodes but pods in some namespaces only (team mode), who reads the shared cache filtered to
    /// those namespaces, checked with a SelfSubjectAccessReview per namespace and kept for a minute.
    pub async fn view(&self, identity: &Identity) -> Result<(Arc<ClusterCache>, Visibility)> {
        if let Some((shared_identity, shared)) = &self.shared {
            if shared_identity == identity {
                return Ok((shared.clone(), Visibility::All));
            }
            if self.is_team() {
                match self.reader(identity, shared).await? {
                    Reader::Everything => return Ok((shared.clone(), Visibility::All)),
                    Reader::Namespaces(namespaces) => {
                        return Ok((shared.clone(), Visibility::Namespaces(namespaces)));
                    }
                    Reader::Own => {}
                }
            }
        }
        Ok((self.caches.for_identity(identity, self.client(identity)?), Visibility::All))
    }

    /// What of the shared cache `identity` may read, as the API server says; kept for a minute.
    async fn reader(&self, identity: &Identity, shared: &ClusterCache) -> Result<Reader> {
        if let Some((at, answer)) = self.readers.lock().unwrap_or_else(|p| p.into_inner()).get(identity)
            && at.elapsed() < READ_CHECK_TTL
        {
            return Ok(answer.clone());
        }
        let client = self.client(identity)?;
        // One review per kind and verb, each asked once: the whole board, or its nodes and their Leases only.
        let kinds =
            [("", "nodes"), ("coordination.k8s.io", "leases"), ("", "pods"), ("policy", "poddisruptionbudgets")];
        let reviews = kinds
            .iter()
            .flat_map(|(group, resource)| ["list", "watch"].map(|verb| may(&client, verb, group, resource, None)));
        let allowed = futures::future::join_all(reviews).await.into_iter().collect::<Result<Vec<bool>>>()?;
        let reads = |kind: usize| allowed[2 * kind] && allowed[2 * kind + 1];
        let answer = if (0..kinds.len()).all(reads) {
            Reader::Everything
        } else if reads(0) && reads(1) {
            Reader::Namespaces(Arc::new(self.pod_namespaces(&client, shared).await?))
        } else {
            Reader::Own
        };
        self.readers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(identity.clone(), (std::time::Instant::now(), answer.clone()));
        Ok(answer)
    }

    /// The namespaces of the shared cache's pods in which `client`'s identity may list pods.
    async fn pod_namespaces(&self, client: &kube::Client, shared: &ClusterCache) -> Result<BTreeSet<String>> {
        use futures::StreamExt;
        let answers: Vec<(String, Result<bool>)> = futures::stream::iter(shared.pod_namespaces())
            .map(|namespace| {
                let client = client.clone();
                async move {
                    let allowed = crate::access::may_in(&client, Some(&namespace), "list", "", "pods", None).await;
                    (namespace, allowed)
                }
            })
            .buffer_unordered(NAMESPACE_CHECKS_AT_ONCE)
            .collect()
            .await;
        let mut namespaces = BTreeSet::new();
        for (namespace, allowed) in answers {
            if allowed? {
                namespaces.insert(namespace);
            }
        }
        Ok(namespaces)
    }

    /// The cache of `identity` once it has listed everything, or an error after the first-list limit.
    pub async fn ready_cache(&self, identity: &Identity) -> Result<Arc<ClusterCache>> {
        let cache = self.cache(identity).await?;
        cache.ready_for_request().await?;
        Ok(cache)
    }

    /// Every node's card now: the cards the cache keeps current for every viewer, computed here only before
    /// their first round.
    pub async fn cards(&self, identity: &Identity) -> Result<Vec<NodeCard>> {
        let (cache, visibility) = self.view(identity).await?;
        cache.ready_for_request().await?;
        let live = cache.live_cards().borrow().clone();
        let cards = if live.is_empty() { Arc::new(cache.cards().into_iter().map(Arc::new).collect()) } else { live };
        Ok(visibility.cards(&cards).into_iter().map(Arc::unwrap_or_clone).collect())
    }

    /// Cordons (`true`) or uncordons a node, as `identity`. A cordon records who made it and why on the node.
    pub async fn set_unschedulable(
        &self,
        identity: &Identity,
        node: &str,
        unschedulable: bool,
        reason: Option<String>,
    ) -> Result<CordonOutcome> {
        let client = self.client(identity)?;
        let record = CordonRecord { by: identity.user.clone(), at: jiff::Timestamp::now(), reason: reason.clone() };
        let action = if unschedulable { AuditAction::Cordon } else { AuditAction::Uncordon };
        let mut entry = AuditEntry::new(&identity.user, action, node);
        entry.reason = reason;
        let outcome = match ops::set_unschedulable(&client, node, unschedulable, DryRun::None, Some(&record)).await {
            Ok(outcome) => outcome,
            Err(err) => {
                let err = Error::not_found_as(err, || no_such_node(node));
                self.record_refused(entry, &err);
                return Err(err);
            }
        };
        if outcome == CordonOutcome::Changed {
            self.audit.record(entry).await;
        }
        Ok(outcome)
    }

    /// Starts draining `node` as `identity`, or attaches to the drain of that node already running.
    pub async fn start_drain(
        &self,
        identity: &Identity,
        node: String,
        options: DrainOptions,
        reason: Option<String>,
    ) -> Result<DrainStarted> {
        self.start(identity, node, options, reason, AuditAction::DrainStarted).await
    }

    async fn start(
        &self,
        identity: &Identity,
        node: String,
        options: DrainOptions,
        reason: Option<String>,
        action: AuditAction,
    ) -> Result<DrainStarted> {
        let client = self.client(identity)?;
        // Fail here, not in the task, when the node does not exist.
        kube::Api::<Node>::all(client.clone())
            .get(&node)
            .await
            .map_err(|err| Error::not_found_as(err, || no_such_node(&node)))?;
        let real = options.dry_run == DryRun::None;
        // In team mode the server's own identity writes the Lease, the history and the Event of a drain, so a
        // person who may not drain gets a 403 here, before any of those is written; the API server would refuse
        // their cordon anyway, but only after the record said they had started.
        if real && self.is_team() {
            let lacking = self.permissions(identity).await?;
            if let Some(missing) = lacking.drain.as_deref().or(lacking.delete_pods_for(&options)) {
                let err = Error::Forbidden(format!(
                    "{} may not drain {node}: lacks {missing}; ask for the drainboard-maintainer role",
                    identity.user
                ));
                let mut entry = AuditEntry::new(&identity.user, action, &node);
                entry.reason = reason;
                entry.options = Some(options);
                self.record_refused(entry, &err);
                return Err(err);
            }
        }
        let cache = self.cache(identity).await.ok();
        let entry = real.then(|| {
            let mut entry = AuditEntry::new(&identity.user, action, &node);
            entry.reason = reason.clone();
            entry.options = Some(options.clone());
            entry
        });
        // Another server may be draining this node: its live Lease says so. A drain already running here holds it.
        let leases =
            self.drains.leases().filter(|_| real && self.drains.running_on(&identity.cluster, &node).is_none());
        if let Some(leases) = leases {
            match leases.acquire(&node).await {
                Ok(Claim::Acquired) => {}
                Ok(Claim::HeldBy(holder)) => {
                    return Err(Error::Conflict(format!(
                        "{node} is being drained by another Drainboard server ({holder}); follow it there, or resume \
                         it once that server's Lease on the node has expired ({LEASE_SECONDS} s after it stops)"
                    )));
                }
                // In team mode, replicas may serve the same cluster, and only the Lease keeps two of them from
                // draining one node at once: without it, no drain. A local server is the operator's alone, so it
                // drains on, and says so in its log.
                Err(err) if self.is_team() => {
                    return Err(Error::Unavailable(format!(
                        "could not take {node}'s Lease, which keeps two servers from draining it at once: {}; \
                         check the server's rights to Leases in its namespace (API.md), then try again",
                        crate::access::api_message(&err)
                    )));
                }
                Err(err) => {
                    tracing::warn!(%node, error = %crate::access::api_message(&err), "could not take the node's Lease")
                }
            }
        }
        let started = match self.drains.start_with_cache(client, identity, node.clone(), options, reason, cache) {
            Ok(started) => started,
            Err(err) => {
                if let Some(leases) = leases {
                    leases.release(&node).await;
                }
                return Err(err);
            }
        };
        if let Some(mut entry) = entry.filter(|_| !started.attached) {
            entry.drain_id = Some(started.id.clone());
            self.audit.record(entry).await;
        }
        Ok(started)
    }

    /// Starts the drain of `node` again with the options and reason of the drain recorded on it, as `identity`:
    /// the same as [`Self::start_drain`], recorded as a resume.
    pub async fn resume_drain(
        &self,
        identity: &Identity,
        node: String,
        options: DrainOptions,
        reason: Option<String>,
    ) -> Result<DrainStarted> {
        self.start(identity, node, options, reason, AuditAction::DrainResumed).await
    }

    /// The progress of a drain this server holds.
    pub fn drain_progress(&self, id: &str) -> Result<DrainProgress> {
        self.drains.progress(id).ok_or_else(|| no_such_drain(id))
    }

    /// The progress of a drain this server holds, as `identity` sees it (their namespaces' pods only, for a
    /// person limited to some).
    pub async fn drain_progress_as(&self, identity: &Identity, id: &str) -> Result<DrainProgress> {
        let progress = self.drain_progress(id)?;
        Ok(self.visibility(identity).await?.progress(progress))
    }

    /// Every drain this server holds, newest first, as `identity` sees them.
    pub async fn drains_as(&self, identity: &Identity) -> Result<Vec<DrainProgress>> {
        let visibility = self.visibility(identity).await?;
        Ok(self.drains.all().into_iter().map(|p| visibility.progress(p)).collect())
    }

    /// Asks a running drain to stop.
    ///
    /// Stopping a drain changes what happens to a node, so in team mode a person who did not start it must be one
    /// who may drain it (see [`Self::may_change`]), as the API server says; a viewer cannot stop a colleague's
    /// drain.
    pub async fn cancel_drain(&self, identity: &Identity, id: &str) -> Result<()> {
        let progress = self.drain_progress(id)?;
        if let Err(err) = self.may_change(identity, &progress.started_by, "stop a drain").await {
            let mut entry = AuditEntry::new(&identity.user, AuditAction::DrainCancelled, &progress.node);
            entry.drain_id = Some(progress.id.clone());
            self.record_refused(entry, &err);
            return Err(err);
        }
        if !self.drains.cancel(id) {
            return Err(no_such_drain(id));
        }
        if progress.options.dry_run == DryRun::None && progress.state.is_running() {
            let mut entry = AuditEntry::new(&identity.user, AuditAction::DrainCancelled, &progress.node);
            entry.drain_id = Some(progress.id.clone());
            entry.outcome = Some(format!("stopped; started by {}", progress.started_by));
            self.audit.record(entry).await;
        }
        Ok(())
    }

    /// Puts an action that was refused or failed on the audit log file, with why (see `Audit::record_refused`):
    /// "refused" when the person lacked the rights, "failed" for anything else (an unknown node, a lost API server).
    fn record_refused(&self, mut entry: AuditEntry, err: &Error) {
        let refused = matches!(err, Error::Forbidden(_)) || matches!(err.api_code(), Some(401 | 403));
        entry.outcome = Some(format!("{}: {err}", if refused { "refused" } else { "failed" }));
        self.audit.record_refused(&entry);
    }

    /// Whether `identity` may change the course of what `started_by` started (stop a drain, pause or stop a
    /// rollout): in team mode, only its starter or someone who may drain (patch nodes, list pods, create
    /// pods/eviction), as the API server says. Stopping a drain decides a node's fate as much as starting one; a
    /// viewer cannot stop a colleague's work.
    pub(crate) async fn may_change(&self, identity: &Identity, started_by: &str, what: &str) -> Result<()> {
        if !self.is_team() || started_by == identity.user {
            return Ok(());
        }
        match self.permissions(identity).await?.drain {
            None => Ok(()),
            Some(missing) => Err(Error::Forbidden(format!(
                "{} may not {what} {started_by} started: lacks {missing}, which draining takes",
                identity.user
            ))),
        }
    }

    /// The drains recorded on the nodes, as `identity` reads them.
    pub async fn recorded_drains(&self, identity: &Identity) -> Result<Vec<NodeDrainRecord>> {
        let client = self.client(identity)?;
        Ok(drain::recorded(&client, &self.drains, &identity.cluster).await?)
    }

    /// The drain recorded on `node`, as `identity` reads it. What it says is a claim: anyone who may patch the node
    /// may have written it.
    pub async fn recorded_drain(&self, identity: &Identity, node: &str) -> Result<DrainRecord> {
        self.recorded_drains(identity)
            .await?
            .into_iter()
            .find(|r| r.node == node)
            .map(|r| r.record)
            .ok_or_else(|| Error::NotFound(format!("node {node} has no recorded drain to resume")))
    }

    /// A source of `node`'s preview inputs, with the ready cache it reads, for a stream that follows them.
    pub async fn preview_source(
        &self,
        identity: &Identity,
        node: String,
    ) -> Result<(Arc<ClusterCache>, PreviewSource, Visibility)> {
        let (cache, visibility) = self.view(identity).await?;
        cache.ready_for_request().await?;
        if !cache.has_node(&node) {
            return Err(Error::NotFound(no_such_node(&node)));
        }
        Ok((cache, PreviewSource::new(self.client(identity)?, node), visibility))
    }

    /// `node`'s preview inputs now, as `identity` sees them.
    pub async fn preview_inputs(&self, identity: &Identity, node: String) -> Result<PreviewInputs> {
        let (cache, mut source, visibility) = self.preview_source(identity, node).await?;
        Ok(visibility.preview(source.inputs(&cache).await))
    }

    /// Whether the pods a drain of `nodes` evicts fit on the nodes that stay schedulable, as `identity` sees the
    /// cluster: an estimate from the cache (see `domain::capacity`); nothing is asked of the scheduler.
    pub async fn capacity(&self, identity: &Identity, nodes: &[String]) -> Result<CapacityReport> {
        let (cache, visibility) = self.view(identity).await?;
        cache.ready_for_request().await?;
        if let Some(missing) = nodes.iter().find(|n| !cache.has_node(n)) {
            return Err(Error::NotFound(no_such_node(missing)));
        }
        // A large cluster's check takes a while of CPU: on a blocking thread, a few at a time, so that it never
        // holds up the streams and drains that share the async workers.
        let _turn =
            self.capacity_checks.acquire().await.map_err(|_| Error::Invalid("the server is stopping".into()))?;
        let draining: BTreeSet<String> = nodes.iter().cloned().collect();
        let report = tokio::task::spawn_blocking(move || {
            let draining: BTreeSet<&str> = draining.iter().map(String::as_str).collect();
            cache.capacity(&draining)
        })
        .await
        .map_err(|e| Error::Internal(format!("the capacity check failed: {e}")))?;
        Ok(visibility.capacity(report))
    }

    /// What `identity` may not do, asked of the API server, with the permission each action lacks.
    pub async fn permissions(&self, identity: &Identity) -> Result<Lacking> {
        let client = self.client(identity)?;
        let patch_nodes = may(&client, "patch", "", "nodes", None).await?;
        let list_pods = may(&client, "list", "", "pods", None).await?;
        let evict = may(&client, "create", "", "pods", Some("eviction")).await?;
        let delete_pods = may(&client, "delete", "", "pods", None).await?;
        let missing = |checks: &[(bool, &str)]| {
            let lacking: Vec<&str> = checks.iter().filter(|(ok, _)| !ok).map(|(_, what)| *what).collect();
            (!lacking.is_empty()).then(|| lacking.join(", "))
        };
        Ok(Lacking {
            cordon: missing(&[(patch_nodes, "patch nodes")]),
            drain: missing(&[(patch_nodes, "patch nodes"), (list_pods, "list pods"), (evict, "create pods/eviction")]),
            delete_pods: missing(&[(delete_pods, "delete pods")]),
        })
    }
}

fn no_such_node(node: &str) -> String {
    format!("node {node} does not exist")
}

fn no_such_drain(id: &str) -> Error {
    Error::NotFound(format!("no drain with id {id} on this server"))
}
