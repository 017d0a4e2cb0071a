//! What a caller reads through the engine: the board's cache and what of it they may see, the cards, a drain's
//! preview inputs and progress, the capacity check, the records on the nodes, their permissions and the history.
//! Apart from the actions, since none of these writes anything; each is filtered by the caller's [`Visibility`].

use std::{collections::BTreeSet, sync::Arc};

use domain::{
    actions::Lacking,
    audit::AuditEntry,
    capacity::CapacityReport,
    node::NodeCard,
    preview::PreviewInputs,
    progress::{DrainProgress, DrainRecord, DrainSummary, NodeDrainRecord},
};
use tokio::sync::watch;

use super::{Acting, Engine, no_such_drain, no_such_node};
use crate::{
    Error, Identity, Result,
    authz::{Reader, Visibility},
    cache::ClusterCache,
    drain::{self, DrainRegistry, preview::PreviewSource},
};

/// The drains a board shows, and when to look again: this server's, and those other servers run (from their node
/// Leases), of the caller's cluster.
pub struct DrainFeed {
    registry: DrainRegistry,
    cluster: String,
    changes: watch::Receiver<u64>,
    elsewhere: watch::Receiver<Arc<Vec<DrainSummary>>>,
    /// What of the drains the viewer may see; `None`: nothing (see [`Acting::sight`]).
    sight: Option<Visibility>,
}

impl DrainFeed {
    /// Every drain of the cluster now, as a board lists them and the viewer may see them.
    pub fn summaries(&self) -> Vec<DrainSummary> {
        match &self.sight {
            None => Vec::new(),
            Some(sight) => sight.summaries(self.registry.summaries(&self.cluster)),
        }
    }

    /// Waits for the next change of any drain, here or elsewhere; an error once the server stops.
    pub async fn changed(&mut self) -> Result<(), watch::error::RecvError> {
        tokio::select! {
            changed = self.changes.changed() => changed,
            changed = self.elsewhere.changed() => changed,
        }
    }
}

impl<'a> Acting<'a> {
    /// Who the calls are made as.
    pub fn identity(&self) -> &'a Identity {
        self.identity
    }

    pub(crate) fn engine(&self) -> &'a Engine {
        self.engine
    }

    /// The cache the caller reads the board from, started if none runs; it may not have listed yet.
    ///
    /// In team mode, a person who may list and watch everything the board shows reads the server's shared
    /// cache, so that a hundred viewers cost the API server one set of watches; anyone else reads a cache of
    /// their own, made with their own credentials, so that RBAC decides exactly what they see.
    pub async fn cache(&self) -> Result<Arc<ClusterCache>> {
        Ok(self.view().await?.0)
    }

    /// The cache the caller reads the board from, and what of it they see: everything, except for a person who
    /// may list the nodes but pods in some namespaces only (team mode), who reads the shared cache filtered to
    /// those namespaces, checked with a SelfSubjectAccessReview per namespace and kept for a minute.
    pub async fn view(&self) -> Result<(Arc<ClusterCache>, Visibility)> {
        let engine = self.engine;
        if let Some((shared_identity, shared)) = &engine.shared {
            if shared_identity == self.identity || self.identity.is_server_side() {
                return Ok((shared.clone(), Visibility::All));
            }
            if engine.is_team() {
                match self.reader(shared).await? {
                    Reader::Own => {}
                    reader => return Ok((shared.clone(), reader.into())),
                }
            }
        }
        Ok((engine.caches.for_identity(self.identity, self.client()?), Visibility::All))
    }

    /// What the caller may read of what the server holds in its memory: the drains and their pods, the history
    /// and its timeline, the rollouts. That memory was gathered with other identities (the people who started the
    /// drains, the server's own), so it is shown by the same answer that opens the shared cache: all of it to
    /// whoever may read the whole board, the pods of their namespaces to a person who may list the nodes and some
    /// namespaces' pods, and **nothing** (`None`) to a person who may not list and watch the nodes: node names and
    /// reasons are data too. Local mode's operator and the server's own identity (a wall screen) see it all.
    pub async fn sight(&self) -> Result<Option<Visibility>> {
        let engine = self.engine;
        if !engine.is_team() || self.identity.is_server_side() {
            return Ok(Some(Visibility::All));
        }
        match &engine.shared {
            Some((shared_identity, _)) if shared_identity == self.identity => Ok(Some(Visibility::All)),
            Some((_, shared)) => Ok(match self.reader(shared).await? {
                Reader::Own => None,
                reader => Some(reader.into()),
            }),
            // No shared cache to judge by (its client could not be built): a person is shown none of it.
            None => Ok(None),
        }
    }

    /// [`Self::sight`], refused with 403 when it is nothing.
    pub async fn visibility(&self) -> Result<Visibility> {
        self.sight().await?.ok_or_else(|| Error::Forbidden(domain::denial::Denial::NoSight))
    }

    /// What of the shared cache the caller may read, as the API server says; kept for a minute.
    async fn reader(&self, shared: &ClusterCache) -> Result<Reader> {
        self.engine.authz.reader(self.identity, &self.client()?, shared).await
    }

    /// What the caller may not do, asked of the API server now, with the permission each action lacks.
    pub async fn permissions(&self) -> Result<Lacking> {
        self.engine.authz.permissions(self.identity, &self.client()?).await
    }

    /// The same, from the answer of the last few seconds if there is one: for an action's own check.
    pub(crate) async fn kept_permissions(&self) -> Result<Lacking> {
        self.engine.authz.kept_permissions(self.identity, &self.client()?).await
    }

    /// The client that acts as the caller.
    pub(crate) fn client(&self) -> Result<kube::Client> {
        match self.client {
            Some(client) => Ok(client.clone()),
            None => self.engine.client(self.identity),
        }
    }

    /// Every node's card now: the cards the cache keeps current for every viewer, computed here only before
    /// their first round.
    pub async fn cards(&self) -> Result<Vec<NodeCard>> {
        let (cache, visibility) = self.view().await?;
        cache.ready_for_request().await?;
        let live = cache.live_cards().borrow().clone();
        let cards = if live.is_empty() { Arc::new(cache.cards().into_iter().map(Arc::new).collect()) } else { live };
        Ok(visibility.cards(&cards).into_iter().map(Arc::unwrap_or_clone).collect())
    }

    /// A source of `node`'s preview inputs, with the ready cache it reads, for a stream that follows them.
    pub async fn preview_source(&self, node: String) -> Result<(Arc<ClusterCache>, PreviewSource, Visibility)> {
        let (cache, visibility) = self.view().await?;
        cache.ready_for_request().await?;
        if !cache.has_node(&node) {
            return Err(Error::NotFound(no_such_node(&node)));
        }
        let timing = self.timing(&[&node]).await;
        Ok((cache, PreviewSource::new(self.client()?, node, timing), visibility))
    }

    /// `node`'s preview inputs now, as the caller sees them.
    pub async fn preview_inputs(&self, node: String) -> Result<PreviewInputs> {
        let (cache, mut source, visibility) = self.preview_source(node).await?;
        Ok(visibility.preview(source.inputs(&cache).await))
    }

    /// Whether the pods a drain of `nodes` evicts fit on the nodes that stay schedulable, as the caller sees the
    /// cluster: an estimate from the cache (see `domain::capacity`); nothing is asked of the scheduler.
    pub async fn capacity(&self, nodes: &[String]) -> Result<CapacityReport> {
        let (cache, visibility) = self.view().await?;
        cache.ready_for_request().await?;
        if let Some(missing) = nodes.iter().find(|n| !cache.has_node(n)) {
            return Err(Error::NotFound(no_such_node(missing)));
        }
        // A large cluster's check takes a while of CPU: on a blocking thread, a few at a time, so that it never
        // holds up the streams and drains that share the async workers. The semaphore is closed only as the
        // server stops.
        let _turn = self
            .engine
            .capacity_checks
            .acquire()
            .await
            .map_err(|_| Error::Unavailable("the server is stopping".into()))?;
        let draining: BTreeSet<String> = nodes.iter().cloned().collect();
        let report = tokio::task::spawn_blocking(move || {
            let draining: BTreeSet<&str> = draining.iter().map(String::as_str).collect();
            cache.capacity(&draining)
        })
        .await
        .map_err(|e| Error::Internal(format!("the capacity check failed: {e}")))?;
        Ok(visibility.capacity(report))
    }

    /// The progress of a drain this server holds, as the caller sees it (their namespaces' pods only, for a
    /// person limited to some).
    pub async fn drain_progress(&self, id: &str) -> Result<DrainProgress> {
        let progress = self.engine.drain_progress(id)?;
        Ok(self.visibility().await?.progress(progress))
    }

    /// Every drain this server holds, newest first, as the caller sees them.
    pub async fn drains(&self) -> Result<Vec<DrainProgress>> {
        let visibility = self.visibility().await?;
        Ok(self.engine.drains.all().into_iter().map(|p| visibility.progress(p)).collect())
    }

    /// A drain's progress as it changes, with what of it the caller may see, for a stream that follows it.
    pub async fn follow_drain(&self, id: &str) -> Result<(watch::Receiver<DrainProgress>, Visibility)> {
        let progress = self.engine.drains.subscribe(id).ok_or_else(|| no_such_drain(id))?;
        Ok((progress, self.visibility().await?))
    }

    /// The drains of the caller's cluster as a board lists them and the caller may see them, and their changes.
    pub async fn drain_feed(&self) -> Result<DrainFeed> {
        let drains = &self.engine.drains;
        Ok(DrainFeed {
            registry: drains.clone(),
            cluster: self.identity.cluster.clone(),
            changes: drains.changes(),
            elsewhere: drains.elsewhere_changes(),
            sight: self.sight().await?,
        })
    }

    /// The drains recorded on the nodes, as the caller reads them: from the cache the caller reads the board from
    /// (the server's watches, or their own), not a list of every node per request.
    pub async fn recorded_drains(&self) -> Result<Vec<NodeDrainRecord>> {
        let (cache, _) = self.view().await?;
        cache.ready_for_request().await?;
        let cards = cache.live_cards().borrow().clone();
        let cards = if cards.is_empty() { Arc::new(cache.cards().into_iter().map(Arc::new).collect()) } else { cards };
        let on_nodes: Vec<_> =
            cards.iter().filter_map(|card| Some((card.name.clone(), card.drain_record.clone()?))).collect();
        Ok(drain::recorded::recorded(
            on_nodes,
            &self.engine.drains,
            self.engine.recent.as_ref(),
            &self.identity.cluster,
        )
        .await)
    }

    /// The drain recorded on `node`, as the caller reads it. What it says is a claim: anyone who may patch the node
    /// may have written it.
    pub async fn recorded_drain(&self, node: &str) -> Result<DrainRecord> {
        let card = self.card_now(node).await?;
        self.recorded_on(node, card.as_ref()).await
    }

    /// `node`'s card from the cache the caller reads the board from, once that cache has listed.
    async fn card_now(&self, node: &str) -> Result<Option<domain::node::NodeCard>> {
        let (cache, _) = self.view().await?;
        cache.ready_for_request().await?;
        Ok(cache.node_card(node))
    }

    /// The drain recorded on `card`, `node`'s card.
    async fn recorded_on(&self, node: &str, card: Option<&domain::node::NodeCard>) -> Result<DrainRecord> {
        // Only this node's record: a record that says running costs a look at its Lease, and the others' would be
        // looked at for nothing (a plan taken over asks this every second while it waits for a node).
        let on_node = card.and_then(|card| Some((card.name.clone(), card.drain_record.clone()?)));
        drain::recorded::recorded(on_node, &self.engine.drains, self.engine.recent.as_ref(), &self.identity.cluster)
            .await
            .into_iter()
            .next()
            .map(|r| r.record)
            .ok_or_else(|| Error::NotFound(format!("node {node} has no recorded drain to resume")))
    }

    /// The drain recorded on `node`, to resume: only while the node is still cordoned as it left it
    /// (`domain::tense`). A node uncordoned since is back in service on purpose; resuming would cordon and drain it.
    /// (Any ending may be resumed here, as a failed drain whose person's credentials expired is; the page offers
    /// Resume for an interrupted one.) The record and the cordon are read from one card, so they agree.
    pub async fn resumable_drain(&self, node: &str) -> Result<DrainRecord> {
        let card = self.card_now(node).await?;
        let record = self.recorded_on(node, card.as_ref()).await?;
        let card = card.ok_or_else(|| Error::NotFound(format!("node {node} does not exist")))?;
        if domain::tense::Tense::of(&record, card.unschedulable, card.cordon_record.as_ref()).is_past() {
            return Err(Error::Conflict(domain::conflict::Conflict::PastDrain {
                node: node.to_owned(),
                drain: record.id.clone(),
            }));
        }
        Ok(record)
    }

    /// The node's maintenance history, newest first (empty when the server keeps none). The server reads it with
    /// its own identity, so it is refused to a caller who may not read the nodes ([`Self::sight`]).
    pub async fn history(&self, node: &str) -> Result<Vec<AuditEntry>> {
        let visibility = self.visibility().await?;
        match self.engine.audit.history() {
            Some(history) => Ok(visibility.history(history.read(node).await?)),
            None => Ok(Vec::new()),
        }
    }

    /// Every node's history of the last day before `now`, oldest first (empty when the server keeps none). It is
    /// served from memory: the server's own watch of the history objects; refused as [`Self::history`] is.
    pub async fn recent_history(&self, now: jiff::Timestamp) -> Result<Vec<AuditEntry>> {
        let visibility = self.visibility().await?;
        Ok(visibility.history(self.engine.recent.as_ref().map(|r| r.entries(now)).unwrap_or_default()))
    }

    /// Whether the server keeps a history (it needs an identity of its own that may write it).
    pub fn keeps_history(&self) -> bool {
        self.engine.recent.is_some()
    }

    /// Moves at each change of any node's history; `None` when the server keeps none, or the caller may not
    /// read it ([`Self::sight`]).
    pub async fn history_changes(&self) -> Result<Option<watch::Receiver<u64>>> {
        Ok(self.sight().await?.and(self.engine.recent.as_ref().map(|r| r.changes())))
    }

    /// How many drains the caller started that still run, here or on another server: they go on under the
    /// credentials they started with when the caller signs out.
    pub fn own_running_drains(&self) -> usize {
        let drains = self.engine.drains.summaries(&self.identity.cluster);
        drains.iter().filter(|d| d.started_by == self.identity.user && d.state.is_running()).count()
    }

    /// Forgets every session of the caller, and their credentials: the API server no longer accepts them.
    pub fn forget_sessions(&self) {
        self.engine.access.forget(self.identity);
    }
}
