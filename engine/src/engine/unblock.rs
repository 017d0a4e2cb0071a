//! A person's consented way out of a drain held by a budget short of healthy pods (`domain::blocker::Unblock`):
//! delete the not-Ready pod, or set the budget's `unhealthyPodEvictionPolicy` to `AlwaysAllow`. Checked against
//! the cluster as it is now, not as the drain last saw it, and done with the person's own credentials, so that the
//! API server's RBAC decides, as it would for `kubectl delete pod` or `kubectl patch pdb`.

use domain::conflict::Conflict;
use domain::{
    PodRef,
    audit::{AuditAction, AuditEntry},
    blocker::Unblock,
    budget::{PdbInfo, UnhealthyPolicy},
    drain::DryRun,
    progress::PodState,
};
use k8s_openapi::api::{core::v1::Pod, policy::v1::PodDisruptionBudget};
use kube::{
    Api,
    api::{DeleteParams, Patch, PatchParams, Preconditions},
};

use super::Acting;
use crate::{Error, Result};

impl Acting<'_> {
    /// Takes `action` for the pod `namespace/pod` of the running drain `id`, once `confirm` is the name it
    /// changes (the pod's, or the budget's). Refused when the pod is not held by an unhealthy budget now.
    pub async fn unblock(
        &self,
        id: &str,
        namespace: &str,
        pod: &str,
        action: Unblock,
        confirm: Option<&str>,
    ) -> Result<String> {
        let engine = self.engine;
        let progress = engine.drain_progress(id)?;
        if !progress.state.is_running() || progress.options.dry_run != DryRun::None {
            return Err(Error::Conflict(Conflict::NothingToUnblock { drain: id.to_owned() }));
        }
        self.may_change(&progress.started_by, domain::denial::Change::Unblock).await?;
        let held = progress.pods.iter().find(|p| p.namespace == namespace && p.name == pod);
        let Some(held) = held else {
            return Err(Error::NotFound(format!("the drain {id} has no pod {namespace}/{pod}")));
        };
        let budget = match &held.state {
            PodState::Blocked { blockers, .. } => Unblock::budget(blockers).map(str::to_owned),
            _ => None,
        };
        let Some(budget) = budget else {
            return Err(Error::Conflict(Conflict::NotShortOfHealthy { pod: held.key() }));
        };
        let word = action.consent_word(pod, &budget);
        if confirm.map(str::trim) != Some(word) {
            return Err(Error::Invalid(format!("type {word} to confirm: this changes it for good")));
        }
        let client = self.client()?;
        // As the cluster is now: the same pod, still not Ready, still held by that budget under IfHealthyBudget.
        let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
        let live = pods.get_opt(pod).await.map_err(Error::Kube)?;
        let live = live.filter(|p| p.metadata.uid.as_deref() == Some(held.uid.as_str()));
        let Some(live) = live else {
            return Err(Error::Conflict(Conflict::PodGone { pod: format!("{namespace}/{pod}") }));
        };
        if domain::PodSummary::from(&live).ready {
            return Err(Error::Conflict(Conflict::PodReady { pod: format!("{namespace}/{pod}") }));
        }
        let pdbs: Api<PodDisruptionBudget> = Api::namespaced(client.clone(), namespace);
        let info = pdbs
            .get(&budget)
            .await
            .map_err(|e| Error::not_found_as(e, || format!("PDB {budget} is gone: the drain goes on by itself")))?;
        let info = PdbInfo::from_k8s(&info).ok_or_else(|| budget_gone(&budget))?;
        if info.policy == UnhealthyPolicy::AlwaysAllow || info.status.current_healthy >= info.status.desired_healthy {
            return Err(Error::Conflict(Conflict::BudgetReleased { budget, pod: pod.to_owned() }));
        }
        let done = match action {
            Unblock::DeleteUnreadyPod => {
                let params = DeleteParams {
                    preconditions: Some(Preconditions { uid: live.metadata.uid.clone(), resource_version: None }),
                    ..Default::default()
                };
                pods.delete(pod, &params).await.map_err(Error::Kube)?;
                format!("deleted the not-Ready pod {namespace}/{pod}, which PDB {budget} held")
            }
            Unblock::AlwaysAllow => {
                let patch = serde_json::json!({"spec": {"unhealthyPodEvictionPolicy": "AlwaysAllow"}});
                pdbs.patch(&budget, &PatchParams::default(), &Patch::Merge(&patch)).await.map_err(Error::Kube)?;
                format!("set PDB {namespace}/{budget}'s unhealthyPodEvictionPolicy to AlwaysAllow, for {pod}")
            }
        };
        let mut entry =
            AuditEntry::new(&self.identity.user, AuditAction::Unblocked, &progress.node, jiff::Timestamp::now());
        entry.drain_id = Some(progress.id.clone());
        entry.outcome = Some(done.clone());
        engine.audit.record(entry).await;
        Ok(done)
    }
}

fn budget_gone(budget: &str) -> Error {
    Error::Conflict(Conflict::BudgetGone { budget: budget.to_owned() })
}
