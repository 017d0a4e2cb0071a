//! How this server looks after every maintenance plan: it runs those it holds credentials for when nobody else
//! does (taking the plan's Lease), marks those nobody runs and it may not run as needing a maintainer, and lets a
//! deleted plan go once nobody runs it. The plans themselves, and their watch, are [`crate::plan`]'s.

use std::time::Duration;

use kube::ResourceExt;
use tokio_util::sync::CancellationToken;

use super::run;
use crate::engine::Engine;

/// Whether a plan runs here after [`Engine::try_run`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Run {
    Runs,
    /// It does not: another server runs it, or this one holds no credentials for it.
    Not,
    /// This server runs as many plans as it may (in all, or as that person): why, in words.
    Capped(Blocked),
}
use domain::plan_block::Blocked;

use crate::{
    lease::Claim,
    plan::{MaintenancePlan, Plans, status},
};

/// How long after its creation a plan nobody runs is left alone before a replica without its credentials says it
/// needs a maintainer: the replica that created it takes its Lease well within this.
const GRACE: Duration = Duration::from_secs(10);

impl Engine {
    /// Takes plan `name`'s Lease and runs it here, if this server holds credentials for it, no one else runs it,
    /// and this server runs fewer than its caps. [`Run::Runs`] when it runs here (now or already).
    pub(crate) async fn try_run(&self, plans: &Plans, name: &str) -> Run {
        let Some((identity, client)) = plans.hand(name) else { return Run::Not };
        if plans.runs(name) {
            return Run::Runs;
        }
        if let Some(why) = plans.over_cap(&identity.user) {
            return Run::Capped(why);
        }
        match plans.leases().acquire_plan(name).await {
            Ok(Claim::Acquired) => {}
            Ok(Claim::HeldBy(_)) => return Run::Not,
            Err(err) => {
                tracing::warn!(plan = %name, error = %crate::kube_error::api_message(&err), "could not take a plan's Lease");
                return Run::Not;
            }
        }
        let stop = CancellationToken::new();
        if !plans.claim(name, stop.clone(), &identity.user) {
            return Run::Runs;
        }
        let span = tracing::info_span!("plan", plan = %name, by = %identity.user);
        let (engine, plans, name) = (self.clone(), plans.clone(), name.to_owned());
        self.tasks().clone().spawn(tracing::Instrument::instrument(
            async move {
                run::run(&engine, &plans, &identity, &client, &name, stop).await;
                plans.release(&name).await;
            },
            span,
        ));
        Run::Runs
    }

    /// Looks at every plan on each change and every few seconds, for as long as the server runs.
    pub(crate) fn coordinate(&self, plans: &Plans) {
        let (plans, engine) = (plans.clone(), self.clone());
        let shutdown = engine.shutdown_signal();
        self.tasks().clone().spawn(async move {
            let mut changes = plans.changes();
            let mut tick = tokio::time::interval(crate::lease::RENEW_EVERY);
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    changed = changes.changed() => if changed.is_err() { break },
                    _ = tick.tick() => {}
                }
                // Oldest first: as places free under the caps, the plans that waited longest go on first.
                let mut all = plans.all();
                all.sort_by(|a, b| {
                    a.creation_timestamp().cmp(&b.creation_timestamp()).then(a.name_any().cmp(&b.name_any()))
                });
                for plan in all {
                    engine.look_at(&plans, &plan).await;
                }
            }
        });
    }

    async fn look_at(&self, plans: &Plans, plan: &MaintenancePlan) {
        let name = plan.name_any();
        if plans.runs(&name) {
            return;
        }
        let deleting = plan.metadata.deletion_timestamp.is_some();
        if plan.ended() {
            if deleting {
                plans.let_go(&name).await;
            }
            return;
        }
        // A plan whose spec changed since a person confirmed it, or whose pin or drain records do not check out,
        // waits for a person: no server takes it on by itself.
        let for_a_person = status::waits_for_a_person(plan);
        // A local server is its operator's: a plan their servers made (kept in their state folder) is theirs to go
        // on with, with the same kubeconfig's credentials. A plan that merely names them is not: anyone who may
        // create plans can write a name. Team mode holds none but those handed to it.
        if plans.hand(&name).is_none()
            && !for_a_person
            && let Some(operator) = self.operator()
            && plans.made_here(plan.metadata.uid.as_deref())
            && let Ok(client) = self.access.client_for(&operator)
        {
            plans.hold(&name, operator, client);
        }
        // An unattended plan runs as the server's maintenance identity, once the policy that guards it holds.
        let mut refused = None;
        if plans.hand(&name).is_none() && plan.spec.unattended && !deleting && !for_a_person {
            match plans.unattended_hand(Some(plan)).await {
                Ok((identity, client)) => plans.hold(&name, identity, client),
                Err(why) => refused = Some(why),
            }
        }
        if !deleting {
            match self.try_run(plans, &name).await {
                Run::Runs => return,
                Run::Capped(why) => refused = Some(why),
                Run::Not => {}
            }
        }
        match plans.leases().plan_runner(&name).await {
            Ok(None) => {}
            // Someone runs it (or its Lease cannot be read: leave it be).
            _ => return,
        }
        if deleting {
            // Its runner is gone, and the drains it ran stopped with it: nothing of it runs to stop.
            status::ended_without_runner(plans, plan, "Cancelled", "deleted while no server ran it").await;
            plans.let_go(&name).await;
            return;
        }
        if plan.spec.cancelled {
            // Cancelling needs no one's rights: a plan nobody runs ends so, starting nothing more.
            status::ended_without_runner(plans, plan, "Cancelled", "cancelled while no server ran it").await;
            return;
        }
        let young = plan
            .creation_timestamp()
            .and_then(|t| Duration::try_from(jiff::Timestamp::now().duration_since(t.0)).ok())
            .is_some_and(|age| age < GRACE);
        if !young {
            status::blocked(plans, plan, &refused.unwrap_or(Blocked::NeedsMaintainer)).await;
        }
    }
}
