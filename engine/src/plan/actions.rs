//! Rollouts as actions of the caller: each is a `MaintenancePlan` in the cluster ([`crate::plan`]), made, paused
//! and cancelled with the caller's own credentials, so that RBAC on the plans judges as it does for `kubectl`, and
//! run by the server that holds the caller's credentials for it.

use domain::{
    conflict::Conflict,
    denial::{self, Denial},
};
use std::collections::HashSet;

use domain::{
    rollout::{self, RolloutOptions, RolloutProgress},
    undo::{UndoNode, UndoStep},
};
use kube::{
    Api,
    api::{ObjectMeta, Patch, PatchParams, PostParams},
};

use crate::engine::Acting;
use crate::{
    Error, Result,
    plan::{
        Change, Plans,
        resource::{FINALIZER, MaintenancePlan, PlanDrain, PlanSpec, STARTED_BY},
    },
};

fn no_such(id: &str) -> Error {
    Error::NotFound(format!("no maintenance plan named {id}"))
}

/// What a plan write refused with 404 means: the resource is not installed (or the plan is gone).
fn not_installed(err: kube::Error, id: Option<&str>) -> Error {
    match id {
        _ if !crate::kube_error::not_found(&err) => Error::Kube(err),
        None => Error::Unavailable(
            "this cluster has no MaintenancePlan resource: install it with `drainboard crd | kubectl apply -f -` \
             (deploy/crds/), then try again"
                .into(),
        ),
        Some(id) => no_such(id),
    }
}

impl Acting<'_> {
    fn plans(&self) -> Result<&Plans> {
        self.engine().plans().ok_or_else(|| {
            Error::Unavailable(
                "this server keeps no maintenance plans: it has no identity of its own to follow them".into(),
            )
        })
    }

    /// A plan's progress: refused to a caller who may not read the nodes (see [`Acting::sight`]).
    pub async fn rollout_progress(&self, id: &str) -> Result<RolloutProgress> {
        self.visibility().await?;
        Ok(self.held(id).await?.progress())
    }

    async fn held(&self, id: &str) -> Result<MaintenancePlan> {
        domain::input::node_name(id).map_err(|_| no_such(id))?;
        self.plans()?.get(id).await.map_err(Error::Kube)?.ok_or_else(|| no_such(id))
    }

    /// Cancels, pauses or resumes a plan, by patching its spec as the caller (as `kubectl patch` would). In team
    /// mode, someone else's needs the rights to drain, as stopping their drain does.
    pub async fn change_rollout(&self, id: &str, change: Change) -> Result<()> {
        let plan = self.held(id).await?;
        if plan.ended() {
            return Err(Error::Invalid(format!("the maintenance plan {id} has ended; nothing is left to change")));
        }
        self.may_change(&plan.started_by(), denial::Change::ChangeRollout).await?;
        let patch = match change {
            Change::Cancel => serde_json::json!({"spec": {"cancelled": true}}),
            Change::Pause(paused) => serde_json::json!({"spec": {"paused": paused}}),
        };
        Api::<MaintenancePlan>::all(self.client()?)
            .patch(id, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map_err(|err| not_installed(err, Some(id)))?;
        Ok(())
    }

    /// Every plan, the latest first: refused to a caller who may not read the nodes.
    pub async fn rollouts(&self) -> Result<Vec<RolloutProgress>> {
        self.visibility().await?;
        Ok(self.plans()?.list().iter().map(MaintenancePlan::progress).collect())
    }

    /// The caller says `node`, drained by plan `id` and awaited back, is back: it is uncordoned as them (the
    /// plan sees it schedulable again and stops waiting). Someone else's plan needs the right to change it.
    pub async fn rollout_node_back(&self, id: &str, node: &str) -> Result<()> {
        let plan = self.held(id).await?;
        let progress = plan.progress();
        let Some(awaited) = progress.nodes.iter().find(|n| n.name == node && n.waiting_back()) else {
            return Err(Error::Invalid(format!("node {node} is not awaited back by maintenance plan {id}")));
        };
        self.may_change(&plan.started_by(), denial::Change::ChangeRollout).await?;
        // A plan that verifies takes a person's word that the node is back, not that it checks out.
        let failed = super::back::not_yet_back(self, awaited, progress.options.verify.as_ref()).await?;
        if !failed.is_empty() {
            return Err(Error::Conflict(Conflict::NotCheckedOut { node: node.to_owned(), failed }));
        }
        // The uncordon's record says why, for the plan's row and the node's history. Never over another tool's work:
        // the refusal names it, for the person to uncordon the node themselves, typing its name.
        self.uncordon_because(node, Some(domain::plan_step::said_back_reason(id)), None).await?;
        Ok(())
    }

    /// Whether the caller may start another plan (team mode): the rights to drain as `options` asks, checked once
    /// before anything is made (a plan of someone who may not drain would only fail node by node), and fewer than
    /// [`rollout::MAX_PLANS_PER_PERSON`] of theirs not ended, on any server.
    async fn may_start(&self, plans: &Plans, options: &RolloutOptions) -> Result<()> {
        let user = &self.identity().user;
        let lacking = self.kept_permissions().await?;
        if let Err(domain::actions::Unavailable::Missing(missing)) =
            domain::actions::may_drain(Some(&lacking), &options.drain)
        {
            let role = domain::actions::role_granting(&missing);
            return Err(Error::Forbidden(Denial::MayNotStartPlan {
                user: user.clone(),
                lacks: missing,
                role: role.into(),
            }));
        }
        let open = plans.list().iter().filter(|p| !p.ended() && p.started_by() == *user).count();
        if open >= rollout::MAX_PLANS_PER_PERSON {
            return Err(Error::TooMany(format!(
                "{user} has {open} plans that have not ended, the most one person may have: let one finish, or cancel one"
            )));
        }
        Ok(())
    }

    /// Makes a plan that drains `nodes` with `options`, as the caller, and runs it here; answers with its name.
    pub async fn start_rollout(
        &self,
        nodes: Vec<String>,
        options: RolloutOptions,
        reason: Option<String>,
        window_override: Option<String>,
    ) -> Result<String> {
        let identity = self.identity();
        rollout::check(&nodes, &options).map_err(Error::Invalid)?;
        self.engine().tasks().refuse_when_stopping("the rollout")?;
        let plans = self.plans()?;
        if self.engine().is_team() {
            self.may_start(plans, &options).await?;
        }
        // An unattended plan runs as the server's maintenance identity: refused here when this server has none or
        // the policy that guards them is not in force; whether this person may ask for one is the policy's call.
        let unattended = match options.unattended {
            true => Some(plans.unattended_hand(None).await.map_err(|why| Error::Invalid(why.english()))?),
            false => None,
        };
        let known: HashSet<String> = self.cards().await?.into_iter().map(|c| c.name).collect();
        if let Some(missing) = nodes.iter().find(|n| !known.contains(*n)) {
            return Err(Error::NotFound(format!("node {missing} does not exist")));
        }
        let plan = MaintenancePlan {
            metadata: ObjectMeta {
                generate_name: Some("maintenance-".into()),
                annotations: Some([(STARTED_BY.to_owned(), identity.user.clone())].into()),
                finalizers: Some(vec![FINALIZER.to_owned()]),
                ..Default::default()
            },
            spec: PlanSpec {
                nodes,
                node_selector: None,
                max_parallel: options.max_parallel,
                one_per_zone: options.one_per_zone,
                stop_on_failure: options.stop_on_failure,
                uncordon_when_back: options.uncordon_when_back,
                drain: PlanDrain::from(&options.drain),
                verify: options.verify.as_ref().map(Into::into),
                reason,
                unattended: options.unattended,
                // Checked in range by `rollout::check` above.
                settle_seconds: u32::try_from(options.settle_seconds).unwrap_or(u32::MAX),
                others_at_work: options.others_at_work,
                window_override,
                paused: false,
                cancelled: false,
            },
            status: None,
        };
        let made = Api::<MaintenancePlan>::all(self.client()?)
            .create(&PostParams::default(), &plan)
            .await
            .map_err(|err| not_installed(err, None))?;
        let name = kube::ResourceExt::name_any(&made);
        // What the caller asked for is the plan's pin: its runner acts on this generation, and on no later edit
        // nobody confirmed.
        plans.confirm(&name, made.metadata.generation.unwrap_or_default());
        plans.remember_origin(made.metadata.uid.as_deref());
        match unattended {
            Some((maintenance, client)) => plans.hold(&name, maintenance, client),
            None => plans.hold(&name, identity.clone(), self.client()?),
        }
        match self.engine().try_run(plans, &name).await {
            super::coordinator::Run::Runs => {}
            super::coordinator::Run::Capped(why) => {
                tracing::warn!(plan = %name, why = %why.english(), "the new plan waits for a place")
            }
            super::coordinator::Run::Not => {
                // Another of the operator's servers took it on first, and pins it there: a confirmation kept here
                // would outlive what it confirmed.
                plans.take_confirmed(&name);
                tracing::warn!(plan = %name, "could not take the new plan's Lease now; the coordinator will try again")
            }
        }
        Ok(name)
    }

    /// Continues a plan that no server runs (its server stopped, and none holds credentials for it) as the caller:
    /// this server runs it with the caller's credentials from now on. Needs the rights to drain, in team mode; the
    /// plan records who continued it.
    ///
    /// Continuing confirms the plan's spec as it is now (its pin, `domain::pin`). When it differs from what was
    /// last confirmed, the caller must name the generation they saw (`generation`); a request that names another
    /// generation, or none when the spec changed, is refused with the changes (409), and nothing runs.
    pub async fn continue_plan(&self, id: &str, generation: Option<i64>) -> Result<()> {
        self.held(id).await?;
        // Read from the API server: the generation confirmed is the one checked.
        let plan = self.plans()?.read(id).await.map_err(Error::Kube)?.ok_or_else(|| no_such(id))?;
        let now = plan.metadata.generation.unwrap_or_default();
        let changed = plan.spec_changed();
        if generation.is_some_and(|asked| asked != now) || (generation.is_none() && changed.is_some()) {
            return Err(Error::Conflict(Conflict::SpecUnconfirmed {
                plan: id.to_owned(),
                generation: now,
                changes: changed.map(|c| c.changes).unwrap_or_default(),
            }));
        }
        if plan.ended() {
            return Err(Error::Invalid(format!("the maintenance plan {id} has ended; nothing is left to continue")));
        }
        if self.engine().is_team() {
            let lacking = self.kept_permissions().await?;
            if let Some(missing) = lacking.drain.as_deref().or(lacking.delete_pods_for(&plan.options().drain)) {
                return Err(Error::Forbidden(Denial::MayNotContinuePlan {
                    user: self.identity().user.clone(),
                    plan: id.to_owned(),
                    lacks: missing.to_owned(),
                    role: domain::actions::role_granting(missing).to_owned(),
                }));
            }
        }
        let plans = self.plans()?;
        if plans.runs(id) && changed.is_none() {
            return Ok(());
        }
        plans.hold(id, self.identity().clone(), self.client()?);
        plans.confirm(id, now);
        // It runs here, waiting for a person to confirm its changed spec: its loop stops (its drains go on), and
        // it runs on as this person, pinned at the generation they confirmed (whichever loop starts next here
        // takes their hand and confirmation).
        if plans.runs(id) && !plans.stop_running(id, std::time::Duration::from_secs(10)).await {
            plans.take_confirmed(id);
            return Err(Error::Conflict(Conflict::PlanElsewhere { plan: id.to_owned() }));
        }
        let run = self.engine().try_run(plans, id).await;
        if let super::coordinator::Run::Capped(why) = run {
            plans.let_hold_go(id);
            plans.take_confirmed(id);
            return Err(Error::TooMany(why.english()));
        }
        if run == super::coordinator::Run::Runs {
            // A local operator who continued it goes on with it after a restart, as with one they made.
            plans.remember_origin(plan.metadata.uid.as_deref());
            Ok(())
        } else {
            plans.let_hold_go(id);
            plans.take_confirmed(id);
            Err(Error::Conflict(Conflict::PlanElsewhere { plan: id.to_owned() }))
        }
    }
}

impl Acting<'_> {
    /// Undoes a plan that has ended: uncordons, as the caller, exactly the nodes it cordoned that are still
    /// cordoned by it (`domain::undo::decide`), each recorded as an uncordon is; every other node is left alone and
    /// listed with the reason. Someone else's plan needs the right to change it.
    pub async fn undo_plan(&self, id: &str) -> Result<Vec<UndoNode>> {
        let plan = self.held(id).await?;
        if !plan.ended() {
            return Err(Error::Invalid(format!(
                "the maintenance plan {id} still runs: stop it first (rollouts/cancel), then undo it"
            )));
        }
        self.may_change(&plan.started_by(), denial::Change::UndoRollout).await?;
        let cache = self.cache().await?;
        cache.ready_for_request().await?;
        let reason = Some(format!("undo of maintenance plan {id}"));
        let mut answer = Vec::new();
        for node in plan.progress().nodes {
            let step = domain::undo::decide(&node, cache.node_card(&node.name).as_ref());
            let error = match step {
                // Never over another tool's work: the refusal names it, for the person to uncordon the node
                // themselves, typing its name.
                UndoStep::Uncordon => {
                    self.uncordon_because(&node.name, reason.clone(), None).await.err().map(|e| e.to_string())
                }
                UndoStep::Leave(_) => None,
            };
            answer.push(UndoNode { node: node.name, step, error });
        }
        if let Some(plans) = self.engine().plans() {
            let names = |uncordon: bool| {
                let picked: Vec<&str> = answer
                    .iter()
                    .filter(|n| (n.step == UndoStep::Uncordon && n.error.is_none()) == uncordon)
                    .map(|n| n.node.as_str())
                    .collect();
                if picked.is_empty() { "none".to_owned() } else { picked.join(", ") }
            };
            let note = format!("{} undid it: uncordoned {}; left {}", self.identity().user, names(true), names(false));
            crate::plan::status::event(plans, &plan, false, "Undone", note).await;
        }
        Ok(answer)
    }
}
