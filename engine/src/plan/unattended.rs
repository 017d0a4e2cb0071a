//! Unattended plans: run by the server's maintenance identity, for night windows, instead of as a person.
//!
//! Two locks keep this from becoming a way round RBAC, and both must be open:
//! - the operator turns it on: the `unattended` component of `deploy/` binds drain rights to the server's
//!   ServiceAccount and passes `--unattended-plans`; without the flag this server runs no unattended plan;
//! - the component's ValidatingAdmissionPolicy ([`POLICY`]) judges whoever creates a plan marked unattended, or
//!   changes what one drains: they need `create maintenanceplans/unattended` and the rights to drain every node
//!   of it themselves, asked of the authorizer as them. It holds for `kubectl apply` as for the page, since only
//!   admission sees who makes an object. The server checks that the policy is installed, bound to deny and set to
//!   fail closed before it runs such a plan: with the flag but without the policy, anyone who may create plans
//!   could drain as the server.

use jiff::Timestamp;
use k8s_openapi::api::admissionregistration::v1::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
use kube::{Api, Client};

/// The admission policy (and its binding) that guards unattended plans.
pub const POLICY: &str = "drainboard-unattended-plans";

/// Whether the admission policy that guards unattended plans is in force: installed, failing closed, and bound to
/// deny. `Ok` holds since when (the later of the policy's and its binding's creation): a plan made before then was
/// never judged by it. `Err` says what is missing.
pub async fn policy_in_force(client: &Client) -> Result<Option<Timestamp>, String> {
    let missing = |what: &str| {
        format!(
            "unattended plans need the admission policy {POLICY} ({what}); without it anyone who may create plans \
             could drain as the server: install deploy/components/unattended"
        )
    };
    let policy = Api::<ValidatingAdmissionPolicy>::all(client.clone())
        .get_opt(POLICY)
        .await
        .map_err(|err| missing(&format!("could not read it: {}", crate::kube_error::api_message(&err))))?
        .ok_or_else(|| missing("it is not installed"))?;
    let since = policy.metadata.creation_timestamp.map(|t| t.0);
    let spec = policy.spec.unwrap_or_default();
    if spec.failure_policy.as_deref().is_some_and(|f| f != "Fail") {
        return Err(missing("its failurePolicy is not Fail"));
    }
    let binding = Api::<ValidatingAdmissionPolicyBinding>::all(client.clone())
        .get_opt(POLICY)
        .await
        .map_err(|err| missing(&format!("could not read its binding: {}", crate::kube_error::api_message(&err))))?
        .ok_or_else(|| missing("it is not bound"))?;
    let bound = binding.metadata.creation_timestamp.map(|t| t.0);
    let spec = binding.spec;
    let denies = spec.validation_actions.iter().any(|a| a == "Deny");
    if spec.policy_name != POLICY || !denies {
        return Err(missing("its binding does not deny with it"));
    }
    Ok(since.max(bound))
}

/// Why a plan made at `made` may not run unattended under a policy in force since `since`, if so: one made before
/// (or in the same second, which cannot be told apart) was admitted without it, so nobody's rights were checked.
pub fn judged(made: Option<Timestamp>, since: Option<Timestamp>) -> Result<(), String> {
    match (made, since) {
        (Some(made), Some(since)) if made > since => Ok(()),
        _ => Err(format!(
            "this plan was made before the admission policy {POLICY} was in force, so nobody's right to ask for an \
             unattended plan was checked; make it again, or a maintainer may continue it as themselves"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plan_made_under_the_policy_runs_unattended() {
        let t = |s: i64| Some(Timestamp::from_second(s).unwrap());
        assert!(judged(t(101), t(100)).is_ok());
        assert!(judged(t(100), t(100)).is_err(), "the same second cannot be told apart");
        assert!(judged(t(99), t(100)).is_err());
        assert!(judged(None, t(100)).is_err());
        assert!(judged(t(101), None).unwrap_err().contains(POLICY));
    }
}
