//! A plan's node lifecycle conditions (`domain::lifecycle::for_plan_node`): `MaintenancePlanned` on the nodes it
//! queues, `MaintenanceInProgress` on those it awaits back, none once it is done with a node or ends. Written with
//! the server's own identity by the engine's publisher (team mode, unless turned off), never a person's.
//!
//! A look never waits for them: each change goes to a worker of the runner's own, which writes in order, one node
//! at a time (a read and, when anything differs, a write on that read's version), and carries on with what is left
//! after the runner stops, so that a plan's end clears them all.

use std::collections::HashMap;

use domain::{
    lifecycle::{Kind, Wanted},
    rollout::RolloutProgress,
};
use tokio::sync::mpsc;

use crate::engine::Engine;

/// What this runner last asked to be published, by node, and where it asks.
#[derive(Default)]
pub(super) struct Conditions {
    tx: Option<mpsc::UnboundedSender<(String, Vec<Wanted>)>>,
    asked: HashMap<String, Vec<Wanted>>,
}

impl Conditions {
    /// A keeper for one runner: nothing is written without the engine's publisher.
    pub(super) fn new(engine: &Engine) -> Self {
        let Some(publisher) = engine.lifecycle.clone() else { return Conditions::default() };
        let (tx, mut rx) = mpsc::unbounded_channel::<(String, Vec<Wanted>)>();
        let shutdown = engine.shutdown_signal();
        engine.tasks().spawn(async move {
            loop {
                let (node, wanted) = tokio::select! {
                    () = shutdown.cancelled() => break,
                    next = rx.recv() => match next { Some(next) => next, None => break },
                };
                publisher.publish(&node, &wanted, &Kind::PLAN).await;
            }
        });
        Conditions { tx: Some(tx), asked: HashMap::new() }
    }

    /// Asks for each node's conditions as `progress` wants them now (none once `ended`), where they changed since
    /// last asked; every node the first time (a server that took the plan over clears what the last one left).
    pub(super) fn keep(&mut self, progress: &RolloutProgress, ended: bool) {
        let Some(tx) = &self.tx else { return };
        let person = progress.continued_by.as_deref().unwrap_or(&progress.started_by);
        for node in &progress.nodes {
            let wanted =
                domain::lifecycle::for_plan_node(node, &progress.id, person, progress.reason.as_deref(), ended);
            if self.asked.get(&node.name) == Some(&wanted) {
                continue;
            }
            self.asked.insert(node.name.clone(), wanted.clone());
            let _ = tx.send((node.name.clone(), wanted));
        }
    }
}
