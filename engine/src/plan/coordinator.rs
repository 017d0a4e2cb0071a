//! What this server does with a plan it does not run, at each of its reconciles (`controller`): runs it when it
//! holds credentials for it and nobody else does (taking the plan's Lease), marks it as needing a maintainer when
//! nobody runs it and it may not, and says when to look at it again. A plan someone runs costs a look at the
//! watched Lease, not a request.

use std::time::Duration;

use domain::plan_block::Blocked;
use kube::ResourceExt;
use tokio_util::sync::CancellationToken;

use crate::{
    engine::Engine,
    lease::Claim,
    plan::{MaintenancePlan, Plans, status},
};

/// Whether a plan runs here after [`Engine::try_run`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Run {
    Runs,
    /// It does not: another server runs it, or this one holds no credentials for it.
    Not,
    /// This server runs as many plans as it may (in all, or as that person): why, in words.
    Capped(Blocked),
}

/// What a look at a plan not run here leaves.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Looked {
    /// It runs here now: its runner takes it on.
    Runs,
    /// Look again after this long, event or not (another server's Lease that may lapse, a place under the caps).
    After(Duration),
    /// Look again on a change only (ended, or waiting for a person, whose continue wakes it).
    OnChange,
}

/// How long after its creation a plan nobody runs is left alone before a replica without its credentials says it
/// needs a maintainer: the replica that created it takes its Lease well within this.
const GRACE: Duration = Duration::from_secs(10);

/// How often a plan that waits for the unattended policy is looked at again; one that waits for a place under the
/// caps is woken when a place frees (the oldest first), and looked at again now and then besides.
const RETRY: Duration = crate::lease::RENEW_EVERY;
const RETRY_CAPPED: Duration = Duration::from_secs(60);

impl Engine {
    /// Takes plan `name`'s Lease and marks it run here, if this server holds credentials for it, no one else runs
    /// it, and this server runs fewer than its caps; its runner starts at the reconcile this wakes. [`Run::Runs`]
    /// when it runs here (now or already).
    pub(crate) async fn try_run(&self, plans: &Plans, name: &str) -> Run {
        let Some((identity, _)) = plans.hand(name) else { return Run::Not };
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
        plans.claim(name, CancellationToken::new(), &identity.user);
        plans.wake(name);
        Run::Runs
    }

    /// Looks at `plan`, which this server does not run.
    pub(super) async fn look_at(&self, plans: &Plans, plan: &MaintenancePlan) -> Result<Looked, kube::Error> {
        let name = plan.name_any();
        if plans.runs(&name) {
            return Ok(Looked::Runs);
        }
        if plan.ended() {
            return Ok(Looked::OnChange);
        }
        // Someone runs it: looked at again when its Lease would lapse unless renewed (each renewal is an event of
        // the Lease's watch, which looks sooner).
        if let Some((holder, left)) = plans.leases().plan_runner(&name).await?
            && holder != plans.holder()
        {
            return Ok(Looked::After(left + Duration::from_secs(1)));
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
        if plans.hand(&name).is_none() && plan.spec.unattended && !for_a_person {
            match plans.unattended_hand(Some(plan)).await {
                Ok((identity, client)) => plans.hold(&name, identity, client),
                Err(why) => refused = Some(why),
            }
        }
        match self.try_run(plans, &name).await {
            Run::Runs => return Ok(Looked::Runs),
            Run::Capped(why) => refused = Some(why),
            Run::Not => {}
        }
        if let Some((_, left)) = plans.leases().plan_runner(&name).await? {
            // Taken by another at the same moment.
            return Ok(Looked::After(left + Duration::from_secs(1)));
        }
        if plan.spec.cancelled {
            // Cancelling needs no one's rights: a plan nobody runs ends so, starting nothing more.
            status::ended_without_runner(plans, plan, "Cancelled", "cancelled while no server ran it").await;
            return Ok(Looked::OnChange);
        }
        let age = plan
            .creation_timestamp()
            .and_then(|t| Duration::try_from(jiff::Timestamp::now().duration_since(t.0)).ok())
            .unwrap_or(GRACE);
        if age < GRACE {
            return Ok(Looked::After(GRACE - age));
        }
        let retry = match &refused {
            None => None,
            Some(Blocked::TooMany(_)) => Some(RETRY_CAPPED),
            Some(_) => Some(RETRY),
        };
        status::blocked(plans, plan, &refused.unwrap_or(Blocked::NeedsMaintainer)).await;
        // A policy comes into force with no event on the plan.
        Ok(retry.map_or(Looked::OnChange, Looked::After))
    }

    /// A deleted plan this server does not run: ended as cancelled when nobody runs it. `Ok(false)` while another
    /// server runs it (that server lets it go).
    pub(super) async fn let_deleted_go(&self, plans: &Plans, plan: &MaintenancePlan) -> Result<bool, kube::Error> {
        if plan.ended() {
            return Ok(true);
        }
        if plans.leases().plan_runner(&plan.name_any()).await?.is_some() {
            return Ok(false);
        }
        // Its runner is gone, and the drains it ran stopped with it: nothing of it runs to stop.
        status::ended_without_runner(plans, plan, "Cancelled", "deleted while no server ran it").await;
        Ok(true)
    }
}
