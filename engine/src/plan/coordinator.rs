//! What this server does with a plan it does not run, at each of its reconciles (`controller`): runs it when it
//! holds credentials for it and nobody else does (taking the plan's Lease), marks it as needing a maintainer when
//! nobody runs it and it may not, and says when to look at it again; each decision is the pure
//! `domain::plan_step::unrun`'s. A plan someone runs costs a look at the watched Lease, not a request.

use std::time::Duration;

use domain::{
    plan_block::Blocked,
    plan_step::{GRACE, RETRY_CAPPED, Unrun, Unrunning, unrun},
};
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

    /// Looks at `plan`, which this server does not run: gathers what it sees, lets the pure decision
    /// (`domain::plan_step::unrun`) say what to do, and does it.
    pub(super) async fn look_at(&self, plans: &Plans, plan: &MaintenancePlan) -> Result<Looked, kube::Error> {
        let name = plan.name_any();
        if plans.runs(&name) {
            return Ok(Looked::Runs);
        }
        let age = plan
            .creation_timestamp()
            .and_then(|t| Duration::try_from(jiff::Timestamp::now().duration_since(t.0)).ok())
            .unwrap_or(GRACE);
        let mut seen = Unrun { ended: plan.ended(), cancelled: plan.spec.cancelled, age, ..Unrun::default() };
        if !seen.ended {
            // Someone runs it: looked at again when its Lease would lapse unless renewed (each renewal is an event
            // of the Leases' watch, which looks sooner).
            seen.run_elsewhere = match plans.leases().plan_runner(&name).await? {
                Some((holder, left)) if holder != plans.holder() => Some(left),
                _ => None,
            };
        }
        if !seen.ended && seen.run_elsewhere.is_none() {
            seen.refused = self.find_hand(plans, plan).await;
            let hand = plans.hand(&name);
            seen.hand = hand.is_some();
            seen.capped = hand.and_then(|(identity, _)| plans.over_cap(&identity.user));
        }
        Ok(match unrun(&seen) {
            Unrunning::OnChange => Looked::OnChange,
            Unrunning::After(wait) => Looked::After(wait),
            Unrunning::Take => match self.try_run(plans, &name).await {
                Run::Runs => Looked::Runs,
                Run::Capped(why) => {
                    status::blocked(plans, plan, &why).await;
                    Looked::After(RETRY_CAPPED)
                }
                // Another server took its Lease at the same moment: the Lease's watch brings it.
                Run::Not => Looked::After(crate::lease::RENEW_EVERY),
            },
            Unrunning::End => {
                // Cancelling needs no one's rights: a plan nobody runs ends so, starting nothing more.
                status::ended_without_runner(plans, plan, "Cancelled", "cancelled while no server ran it").await;
                Looked::OnChange
            }
            Unrunning::Block { why, again } => {
                status::blocked(plans, plan, &why).await;
                again.map_or(Looked::OnChange, Looked::After)
            }
        })
    }

    /// Hands this server credentials for `plan` when it may run it by itself: the local operator's for a plan
    /// their servers made, the maintenance identity's for an unattended plan under the policy. Why not, for an
    /// unattended plan it may not run.
    async fn find_hand(&self, plans: &Plans, plan: &MaintenancePlan) -> Option<Blocked> {
        let name = plan.name_any();
        // A plan whose spec changed since a person confirmed it, or whose pin or drain records do not check out,
        // waits for a person: no server takes it on by itself.
        if plans.hand(&name).is_some() || status::waits_for_a_person(plan) {
            return None;
        }
        // A local server is its operator's: a plan their servers made (kept in their state folder) is theirs to go
        // on with, with the same kubeconfig's credentials. A plan that merely names them is not: anyone who may
        // create plans can write a name. Team mode holds none but those handed to it.
        if let Some(operator) = self.operator()
            && plans.made_here(plan.metadata.uid.as_deref())
            && let Ok(client) = self.access.client_for(&operator)
        {
            plans.hold(&name, operator, client);
            return None;
        }
        // An unattended plan runs as the server's maintenance identity, once the policy that guards it holds.
        if !plan.spec.unattended {
            return None;
        }
        match plans.unattended_hand(Some(plan)).await {
            Ok((identity, client)) => {
                plans.hold(&name, identity, client);
                None
            }
            Err(why) => Some(why),
        }
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
