//! Rollouts as actions of the caller, and the loop that runs each as a server task: the registry they are kept in
//! is [`crate::rollout`], which knows nothing of the engine, so that the imports run one way.

use std::{collections::HashMap, time::Duration};

use domain::{
    ReadyStatus,
    progress::DrainState,
    rollout::{self, Back, RolloutNode, RolloutOptions, RolloutProgress, RolloutState, Step},
};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::{Acting, Engine};
use crate::{Error, Identity, Result, rollout::Change};

/// How often a running rollout looks at its drains (they are in this server's memory: no API call).
const LOOK_EVERY: Duration = Duration::from_millis(200);

fn no_such(id: &str) -> Error {
    Error::NotFound(format!("no rollout with id {id} on this server"))
}

/// Rollouts as actions of the caller: each changes the course of drains, so it is made through the same handle
/// and checks as a single drain's.
impl Acting<'_> {
    /// The progress of a rollout this server holds: refused to a caller who may not read the nodes (see
    /// [`Acting::sight`]).
    pub async fn rollout_progress(&self, id: &str) -> Result<RolloutProgress> {
        self.visibility().await?;
        self.held(id)
    }

    /// A rollout this server holds, whole, for the actions' own checks.
    fn held(&self, id: &str) -> Result<RolloutProgress> {
        self.engine().rollouts().progress(id).ok_or_else(|| no_such(id))
    }

    /// Cancels, pauses or resumes a rollout: in team mode, someone else's needs the rights to drain, as stopping
    /// their drain does.
    pub async fn change_rollout(&self, id: &str, change: Change) -> Result<()> {
        let progress = self.held(id)?;
        self.may_change(&progress.started_by, "change a rollout").await?;
        let rollouts = self.engine().rollouts();
        let found = match change {
            Change::Cancel => rollouts.cancel(id),
            Change::Pause(paused) => rollouts.pause(id, paused),
        };
        if found { Ok(()) } else { Err(no_such(id)) }
    }

    /// Every rollout this server holds, the latest first: refused to a caller who may not read the nodes.
    pub async fn rollouts(&self) -> Result<Vec<RolloutProgress>> {
        self.visibility().await?;
        Ok(self.engine().rollouts().list())
    }

    /// The caller says `node`, drained by rollout `id` and awaited back, is back: it is uncordoned as them (the
    /// rollout sees it schedulable again and stops waiting). Someone else's rollout needs the right to change it.
    pub async fn rollout_node_back(&self, id: &str, node: &str) -> Result<()> {
        let progress = self.held(id)?;
        if !progress.nodes.iter().any(|n| n.name == node && n.waiting_back()) {
            return Err(Error::Invalid(format!("node {node} is not awaited back by rollout {id}")));
        }
        self.may_change(&progress.started_by, "change a rollout").await?;
        self.set_unschedulable(node, false, None).await?;
        Ok(())
    }

    /// Starts draining `nodes` with `options`, as the caller, under the server's tasks; answers with its id.
    pub async fn start_rollout(
        &self,
        nodes: Vec<String>,
        options: RolloutOptions,
        reason: Option<String>,
    ) -> Result<String> {
        let identity = self.identity();
        rollout::check(&nodes, &options).map_err(Error::Invalid)?;
        self.engine().tasks().refuse_when_stopping("the rollout")?;
        let cards = self.cards().await?;
        let zones: HashMap<&str, Option<String>> = cards.iter().map(|c| (c.name.as_str(), c.zone.clone())).collect();
        let mut queued = Vec::with_capacity(nodes.len());
        for node in nodes {
            let Some(zone) = zones.get(node.as_str()) else {
                return Err(Error::NotFound(format!("node {node} does not exist")));
            };
            queued.push(RolloutNode::queued(node, zone.clone()));
        }
        let id = uuid::Uuid::new_v4().to_string();
        let progress = RolloutProgress {
            id: id.clone(),
            started_by: identity.user.clone(),
            started_at: jiff::Timestamp::now(),
            reason,
            options,
            state: RolloutState::Running,
            nodes: queued,
            finished_at: None,
        };
        let (tx, rx) = watch::channel(progress);
        let (paused_tx, paused) = watch::channel(false);
        let cancel = CancellationToken::new();
        self.engine().rollouts().insert(id.clone(), rx, cancel.clone(), paused_tx);
        let (engine, identity) = (self.engine().clone(), identity.clone());
        let shutdown = engine.shutdown_signal();
        let span = tracing::info_span!("rollout", id = %id, by = %identity.user);
        self.engine()
            .tasks()
            .spawn(tracing::Instrument::instrument(run(engine, identity, tx, cancel, paused, shutdown), span));
        Ok(id)
    }
}

async fn run(
    engine: Engine,
    identity: Identity,
    progress: watch::Sender<RolloutProgress>,
    cancel: CancellationToken,
    paused: watch::Receiver<bool>,
    shutdown: CancellationToken,
) {
    tracing::info!(nodes = progress.borrow().nodes.len(), "rollout started");
    let acting = engine.acting(&identity);
    let mut look = tokio::time::interval(LOOK_EVERY);
    let uncordon_when_back = progress.borrow().options.uncordon_when_back;
    // The nodes' status (Ready, boot id, cordon), read from the cache of the person who started it; asked for
    // again on each round until it is there.
    let mut cache = None;
    loop {
        if uncordon_when_back && cache.is_none() {
            cache = acting.cache().await.ok();
        }
        let card = |name: &str| cache.as_ref().and_then(|c| c.node_card(name));
        // Where each draining node's drain is now.
        progress.send_if_modified(|p| {
            let mut changed = false;
            for node in &mut p.nodes {
                if let Step::Draining(id) = &node.step {
                    let state = engine.drain_progress(id).map(|d| d.state).unwrap_or(DrainState::Interrupted);
                    if !state.is_running() {
                        if uncordon_when_back
                            && matches!(state, DrainState::Drained | DrainState::DrainedExceptTerminating(_))
                        {
                            node.back = Some(Back::Waiting(card(&node.name).and_then(|c| c.boot_id)));
                        }
                        node.step = Step::Ended(state);
                        changed = true;
                    }
                }
            }
            let state = if *paused.borrow() { RolloutState::Paused } else { RolloutState::Running };
            if p.state != state {
                p.state = state;
                changed = true;
            }
            changed
        });
        if cancel.is_cancelled() || shutdown.is_cancelled() {
            break;
        }
        let snapshot = progress.borrow().clone();
        if snapshot.settled() {
            break;
        }
        for node in snapshot.nodes.iter().filter(|n| n.waiting_back()) {
            let Some(Back::Waiting(then)) = &node.back else { continue };
            let Some(now) = card(&node.name) else { continue };
            let back = if !now.unschedulable {
                // A person uncordoned it (the rollout's "it is back", or by hand).
                Some(Back::Uncordoned)
            } else if rollout::is_back(then.as_deref(), now.boot_id.as_deref(), now.ready == ReadyStatus::Ready) {
                tracing::info!(node = %node.name, "node is back; uncordoning it");
                Some(match acting.set_unschedulable(&node.name, false, None).await {
                    Ok(_) => Back::Uncordoned,
                    Err(err) => Back::Failed(err.failure()),
                })
            } else {
                None
            };
            if let Some(back) = back {
                progress.send_modify(|p| {
                    if let Some(n) = p.nodes.iter_mut().find(|n| n.name == node.name) {
                        n.back = Some(back);
                    }
                });
            }
        }
        for i in rollout::startable(&snapshot) {
            let node = snapshot.nodes[i].name.clone();
            let started =
                acting.start_drain(node.clone(), snapshot.options.drain.clone(), snapshot.reason.clone()).await;
            progress.send_modify(|p| {
                let entry = &mut p.nodes[i];
                match started {
                    Ok(started) => {
                        entry.drain_id = Some(started.id.clone());
                        entry.step = Step::Draining(started.id);
                    }
                    Err(err) => entry.step = Step::Ended(DrainState::Failed(err.failure())),
                }
            });
        }
        tokio::select! {
            _ = look.tick() => {}
            () = cancel.cancelled() => {}
            () = shutdown.cancelled() => {}
        }
    }
    // A cancel stops the drains it started that still run; a shutdown leaves them to record themselves.
    let cancelled = cancel.is_cancelled();
    if cancelled {
        let running: Vec<String> = progress
            .borrow()
            .nodes
            .iter()
            .filter_map(|n| match &n.step {
                Step::Draining(id) => Some(id.clone()),
                _ => None,
            })
            .collect();
        for id in running {
            if let Err(err) = acting.cancel_drain(&id).await {
                tracing::warn!(drain = %id, error = %err, "could not cancel a rollout's drain");
            }
        }
        // Their ends, as the drains record them.
        for _ in 0..50 {
            let settled = progress.borrow().nodes.iter().all(|n| match &n.step {
                Step::Draining(id) => engine.drain_progress(id).map(|d| !d.state.is_running()).unwrap_or(true),
                _ => true,
            });
            if settled {
                break;
            }
            tokio::time::sleep(LOOK_EVERY).await;
        }
    }
    progress.send_modify(|p| {
        for node in &mut p.nodes {
            if node.waiting_back() {
                node.back = Some(Back::Left);
            }
            match &node.step {
                Step::Queued => node.step = Step::NotStarted,
                Step::Draining(id) => {
                    let state = engine.drain_progress(id).map(|d| d.state).unwrap_or(DrainState::Interrupted);
                    node.step = Step::Ended(if state.is_running() { DrainState::Interrupted } else { state });
                }
                _ => {}
            }
        }
        p.state = if cancelled { RolloutState::Cancelled } else { RolloutState::Finished };
        p.finished_at = Some(jiff::Timestamp::now());
    });
    tracing::info!(state = ?progress.borrow().state, "rollout ended");
}
