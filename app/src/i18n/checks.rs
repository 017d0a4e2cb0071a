//! The checks a node back from maintenance failed (`domain::verify::CheckFailure`), in the page's language: names,
//! numbers and the API's own words are data; the sentence is the catalogue's.

use domain::verify::{CheckFailure, Component};

use super::{I18n, t_string};

pub fn component_text(i18n: I18n, component: Component) -> String {
    match component {
        Component::Kubelet => t_string!(i18n, checks.kubelet),
        Component::Kernel => t_string!(i18n, checks.kernel),
        Component::OsImage => t_string!(i18n, checks.os_image),
        Component::ContainerRuntime => t_string!(i18n, checks.container_runtime),
    }
    .to_string()
}

/// One failed check in words.
pub fn check_text(i18n: I18n, failed: &CheckFailure) -> String {
    match failed {
        CheckFailure::NotReady { node } => t_string!(i18n, checks.not_ready, node = node.clone()).to_string(),
        CheckFailure::LeaseStale { node } => t_string!(i18n, checks.lease_stale, node = node.clone()).to_string(),
        CheckFailure::Version { node, component, found, expected } => t_string!(
            i18n,
            checks.version,
            node = node.clone(),
            what = component_text(i18n, *component),
            found = found.clone(),
            expected = expected.clone()
        )
        .to_string(),
        CheckFailure::NoVersion { node, component, expected } => t_string!(
            i18n,
            checks.no_version,
            node = node.clone(),
            what = component_text(i18n, *component),
            expected = expected.clone()
        )
        .to_string(),
        CheckFailure::NotBack { node, seconds } => {
            t_string!(i18n, checks.not_back, node = node.clone(), seconds = *seconds).to_string()
        }
        CheckFailure::Replicas { workload, ready, desired, node } => t_string!(
            i18n,
            checks.replicas,
            workload = workload.clone(),
            ready = *ready,
            desired = *desired,
            node = node.clone()
        )
        .to_string(),
        CheckFailure::Unreadable { what, why } => {
            t_string!(i18n, checks.unreadable, what = what.clone(), why = why.clone()).to_string()
        }
        CheckFailure::Budget { budget, allowed, healthy, needed, before, node } => t_string!(
            i18n,
            checks.budget,
            budget = budget.clone(),
            allowed = *allowed,
            healthy = *healthy,
            needed = *needed,
            before = *before,
            node = node.clone()
        )
        .to_string(),
        CheckFailure::PlanEnded => t_string!(i18n, checks.plan_ended).to_string(),
        CheckFailure::Text(text) => text.clone(),
    }
}

/// Several failed checks in words, one after another.
pub fn checks_text(i18n: I18n, failed: &[CheckFailure]) -> String {
    let sep = t_string!(i18n, checks.separator).to_string();
    failed.iter().map(|f| check_text(i18n, f)).collect::<Vec<_>>().join(&sep)
}

/// The checks a plan that verifies makes of a node back, in words: "Ready, its node Lease renewed, kubelet v1.36".
pub fn verify_checks_text(i18n: I18n, verify: &domain::verify::Verify) -> String {
    let mut checks =
        vec![t_string!(i18n, checks.passed_ready).to_string(), t_string!(i18n, checks.passed_lease).to_string()];
    let versions = [
        (Component::Kubelet, &verify.kubelet_version),
        (Component::Kernel, &verify.kernel_version),
        (Component::OsImage, &verify.os_image),
        (Component::ContainerRuntime, &verify.container_runtime),
    ];
    for (component, expected) in versions {
        if let Some(expected) = expected {
            checks.push(format!("{} {expected}", component_text(i18n, component)));
        }
    }
    checks.join(", ")
}
