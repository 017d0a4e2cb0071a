//! What a plan's runner acts on: its pin (`domain::pin`), written when a person starts or continues the plan,
//! checked against the servers' seal (`super::seal`) when a runner takes it on, moved to a new generation when only
//! what is not pinned changed, and compared with the spec at each look.

use domain::pin::{PinRead, Unpinned, Verdict};
use kube::ResourceExt;

use super::{MaintenancePlan, Plans, resource::PlanPin, status};
use crate::Identity;

/// The plan as its runner acts on it: the spec's pinned fields as `pin` has them (pausing, cancelling and the
/// reason stay as the spec has them), and the pin in its status.
pub(crate) fn with_pin(mut plan: MaintenancePlan, pin: &PlanPin) -> MaintenancePlan {
    let spec = &pin.spec;
    plan.spec.nodes = spec.nodes.clone();
    plan.spec.node_selector = spec.node_selector.clone();
    plan.spec.max_parallel = spec.max_parallel;
    plan.spec.one_per_zone = spec.one_per_zone;
    plan.spec.stop_on_failure = spec.stop_on_failure;
    plan.spec.uncordon_when_back = spec.uncordon_when_back;
    plan.spec.drain = spec.drain.clone();
    plan.spec.verify = spec.verify.clone();
    plan.spec.settle_seconds = spec.settle_seconds;
    plan.spec.others_at_work = spec.others_at_work;
    plan.spec.window_override = spec.window_override.clone();
    plan.spec.unattended = spec.unattended;
    plan.status.get_or_insert_with(Default::default).pinned = Some(pin.clone());
    plan
}

/// Who pins what this runner does: the person who started or continued the plan here (the generation they
/// confirmed), the unattended identity for a plan whose every change the admission policy judged, or a pin a
/// server sealed before (moved to the current generation when only what is not pinned changed). Written before
/// anything is done; `Err` says why the plan may not act.
pub(crate) async fn pinned(
    plans: &Plans,
    plan: &MaintenancePlan,
    identity: &Identity,
    confirmed: Option<i64>,
) -> Result<PlanPin, Unpinned> {
    let generation = plan.metadata.generation.unwrap_or_default();
    let uid = plan.metadata.uid.clone().unwrap_or_default();
    let maintenance = identity.kind == crate::access::Kind::Maintenance;
    // A plan the local operator's server made, that no runner pinned yet (it could not start: over the caps, say),
    // was confirmed by its operator as made: at its first generation, and only that.
    let made_unpinned = plans.made_here(plan.metadata.uid.as_deref())
        && generation == 1
        && plan.status.as_ref().is_none_or(|s| s.pinned.is_none());
    let by = match confirmed {
        Some(asked) if asked == generation => Some(identity.user.clone()),
        None if made_unpinned => Some(identity.user.clone()),
        Some(asked) => {
            let changes = plan.spec_changed().map(|c| c.changes).unwrap_or_default();
            return Err(Unpinned::SpecChanged { pinned: asked, generation, changes });
        }
        // The policy judged whoever made or changed it (`plan::unattended`): each generation is theirs.
        None if maintenance && plan.spec.unattended => Some(UNATTENDED.to_owned()),
        None => None,
    };
    let sealed = |err: String| Unpinned::SealUnavailable { why: err };
    if let Some(by) = by {
        let pin = plans.seal().pin(&uid, generation, &by, plan.pinnable()).await.map_err(sealed)?;
        return write_pin(plans, plan, pin).await;
    }
    let read = match plan.status.as_ref().and_then(|s| s.pinned.as_ref()) {
        None => PinRead::None,
        Some(pin) if plans.seal().genuine(&uid, pin).await.map_err(sealed)? => {
            PinRead::Sealed { generation: pin.generation, pinned: Box::new(pin.spec.to_domain()), by: pin.by.clone() }
        }
        Some(_) => PinRead::Forged,
    };
    match domain::pin::judge(&read, &plan.pinnable().to_domain(), generation) {
        Verdict::Block(why) => Err(why),
        Verdict::Act { repin } => {
            let Some(pin) = plan.status.as_ref().and_then(|s| s.pinned.clone()) else {
                return Err(Unpinned::NotPinned);
            };
            if !repin {
                return Ok(pin);
            }
            let pin = plans.seal().pin(&uid, generation, &pin.by, pin.spec).await.map_err(sealed)?;
            write_pin(plans, plan, pin).await
        }
    }
}

/// Who an unattended plan's pin names: the admission policy judged each change, as the person who made it.
const UNATTENDED: &str = "(unattended: judged at admission)";

async fn write_pin(plans: &Plans, plan: &MaintenancePlan, pin: PlanPin) -> Result<PlanPin, Unpinned> {
    match status::write_pin(plans, &plan.name_any(), &pin).await {
        Ok(()) => Ok(pin),
        Err(err) => Err(Unpinned::SealUnavailable {
            why: format!("the pin could not be written: {}", crate::kube_error::api_message(&err)),
        }),
    }
}

/// How the plan as the watch shows it now stands to the runner's pin.
pub(crate) enum Check {
    /// The watch has not seen the pinned generation yet: nothing to judge.
    Stale,
    /// Nothing pinned changed; the pin moved to the new generation when it was one.
    Same(Option<Box<PlanPin>>),
    Changed(Unpinned),
}

/// Whether `plan`'s every change was judged at admission, so that the unattended identity running it takes each
/// generation as it comes: it is marked unattended, and run as that identity.
pub(crate) fn admitted(identity: &Identity, plan: &MaintenancePlan) -> bool {
    identity.kind == crate::access::Kind::Maintenance && plan.spec.unattended
}

pub(crate) async fn check_pin(plans: &Plans, plan: &MaintenancePlan, pin: &PlanPin, admitted: bool) -> Check {
    let generation = plan.metadata.generation.unwrap_or_default();
    if generation < pin.generation {
        return Check::Stale;
    }
    let read =
        PinRead::Sealed { generation: pin.generation, pinned: Box::new(pin.spec.to_domain()), by: pin.by.clone() };
    let verdict = match domain::pin::judge(&read, &plan.pinnable().to_domain(), generation) {
        Verdict::Block(Unpinned::SpecChanged { .. }) if admitted => Verdict::Act { repin: true },
        verdict => verdict,
    };
    match verdict {
        Verdict::Act { repin: false } => Check::Same(None),
        Verdict::Act { repin: true } => {
            let uid = plan.metadata.uid.clone().unwrap_or_default();
            let (by, spec) = match admitted {
                true => (UNATTENDED.to_owned(), plan.pinnable()),
                false => (pin.by.clone(), pin.spec.clone()),
            };
            match plans.seal().pin(&uid, generation, &by, spec).await {
                Ok(repinned) => match write_pin(plans, plan, repinned).await {
                    Ok(repinned) => Check::Same(Some(Box::new(repinned))),
                    // Not moved this time: tried again at the next look.
                    Err(_) => Check::Same(None),
                },
                Err(_) => Check::Same(None),
            }
        }
        Verdict::Block(why) => Check::Changed(why),
    }
}
