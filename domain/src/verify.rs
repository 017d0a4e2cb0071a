//! A maintenance plan's verification: a drained node counts as done only once it checks out. After it is back (a
//! new boot id, or a person's word) and before it is uncordoned, it must be Ready, its node Lease must have renewed
//! since it came back, and the versions the plan expects must hold (each an exact value or a prefix of it). A node
//! that does not check out within the deadline, counted from the end of its drain, stays cordoned as unverified,
//! and the failure names the check.

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::{ReadyStatus, node::NodeCard};

/// The longest deadline a plan may give (a day).
pub const MAX_DEADLINE_SECONDS: u64 = 86_400;

fn ten_minutes() -> u64 {
    600
}

/// What a plan checks of each node once it is back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verify {
    /// How long a drained node has to come back and pass every check, from the end of its drain.
    #[serde(default = "ten_minutes")]
    pub deadline_seconds: u64,
    /// `status.nodeInfo.kubeletVersion`, exactly or as a prefix ("v1.36" holds for "v1.36.3").
    #[serde(default)]
    pub kubelet_version: Option<String>,
    /// `status.nodeInfo.kernelVersion`, exactly or as a prefix.
    #[serde(default)]
    pub kernel_version: Option<String>,
    /// `status.nodeInfo.osImage`, exactly or as a prefix.
    #[serde(default)]
    pub os_image: Option<String>,
    /// `status.nodeInfo.containerRuntimeVersion`, exactly or as a prefix ("containerd://2.1").
    #[serde(default)]
    pub container_runtime: Option<String>,
    /// Go on with the next nodes when one fails its checks (it stays cordoned either way); by default the plan
    /// starts no other node, as at a failed drain with stop-on-failure.
    #[serde(default)]
    pub continue_on_failure: bool,
}

impl Default for Verify {
    fn default() -> Self {
        Verify {
            deadline_seconds: ten_minutes(),
            kubelet_version: None,
            kernel_version: None,
            os_image: None,
            container_runtime: None,
            continue_on_failure: false,
        }
    }
}

/// Checks a plan's verification as a person asked for it: a deadline from 1 s to a day, expected versions of at
/// most 256 characters.
pub fn check_request(verify: &Verify) -> Result<(), String> {
    if verify.deadline_seconds == 0 || verify.deadline_seconds > MAX_DEADLINE_SECONDS {
        return Err(format!(
            "the verification deadline is 1 to {MAX_DEADLINE_SECONDS} seconds, not {}",
            verify.deadline_seconds
        ));
    }
    let versions = [&verify.kubelet_version, &verify.kernel_version, &verify.os_image, &verify.container_runtime];
    if versions.iter().any(|v| v.as_ref().is_some_and(|v| v.is_empty() || v.len() > 256)) {
        return Err("an expected version is 1 to 256 characters".into());
    }
    Ok(())
}

/// Whether a node awaited back since `waiting_since` is past `verify`'s deadline at `now`.
pub fn past_deadline(verify: &Verify, waiting_since: Timestamp, now: Timestamp) -> bool {
    let seconds = i64::try_from(verify.deadline_seconds).unwrap_or(i64::MAX);
    waiting_since.checked_add(SignedDuration::from_secs(seconds)).is_ok_and(|deadline| now > deadline)
}

/// A version a plan may expect of a node back from maintenance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Component {
    Kubelet,
    Kernel,
    OsImage,
    ContainerRuntime,
}

impl Component {
    /// Every version, in the order the versions view and the dialog show them.
    pub const ALL: [Component; 4] =
        [Component::Kubelet, Component::Kernel, Component::OsImage, Component::ContainerRuntime];

    /// The value `card` reports for this version, if any.
    pub fn of(self, card: &NodeCard) -> Option<&str> {
        match self {
            Component::Kubelet => card.kubelet_version.as_deref(),
            Component::Kernel => card.kernel_version.as_deref(),
            Component::OsImage => card.os_image.as_deref(),
            Component::ContainerRuntime => card.container_runtime.as_deref(),
        }
    }

    /// Where the node reports it, written as `kubectl get -o custom-columns` takes it. The map groups by these
    /// paths as it groups by a label key: the leading dot keeps them apart from every label key.
    pub fn path(self) -> &'static str {
        match self {
            Component::Kubelet => ".status.nodeInfo.kubeletVersion",
            Component::Kernel => ".status.nodeInfo.kernelVersion",
            Component::OsImage => ".status.nodeInfo.osImage",
            Component::ContainerRuntime => ".status.nodeInfo.containerRuntimeVersion",
        }
    }

    /// The version whose [`Self::path`] is `path`.
    pub fn from_path(path: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.path() == path)
    }

    /// A stable name, for addresses and tests.
    pub fn key(self) -> &'static str {
        match self {
            Component::Kubelet => "kubelet",
            Component::Kernel => "kernel",
            Component::OsImage => "os-image",
            Component::ContainerRuntime => "container-runtime",
        }
    }

    /// The version whose [`Self::key`] is `key`.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.key() == key)
    }

    /// `verify` with this version expected to be `value`.
    pub fn expect(self, verify: &mut Verify, value: String) {
        let slot = match self {
            Component::Kubelet => &mut verify.kubelet_version,
            Component::Kernel => &mut verify.kernel_version,
            Component::OsImage => &mut verify.os_image,
            Component::ContainerRuntime => &mut verify.container_runtime,
        };
        *slot = Some(value);
    }

    pub fn english(self) -> &'static str {
        match self {
            Component::Kubelet => "kubelet",
            Component::Kernel => "kernel",
            Component::OsImage => "OS image",
            Component::ContainerRuntime => "container runtime",
        }
    }
}

/// A check that a node back from maintenance fails ([`failures`]), or that what its drain touched fails
/// (`crate::recovery`): names and numbers as data, so that each page words it in its own language.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CheckFailure {
    NotReady {
        node: String,
    },
    /// Its node Lease has not renewed since it came back.
    LeaseStale {
        node: String,
    },
    Version {
        node: String,
        component: Component,
        found: String,
        expected: String,
    },
    NoVersion {
        node: String,
        component: Component,
        expected: String,
    },
    /// No new boot id while Ready within the deadline.
    NotBack {
        node: String,
        seconds: u64,
    },
    /// A workload whose pods the drain evicted is short of ready replicas.
    Replicas {
        workload: String,
        ready: i32,
        desired: i32,
        node: String,
    },
    /// Something to check could not be read: what, and the API's or the server's answer.
    Unreadable {
        what: String,
        why: String,
    },
    /// A budget allows fewer disruptions than before the drain.
    Budget {
        budget: String,
        allowed: i32,
        healthy: i32,
        needed: i32,
        before: i32,
        node: String,
    },
    /// The plan ended before its workloads and budgets were seen recovered.
    PlanEnded,
    /// Written by an older build, in its words.
    Text(String),
}

impl CheckFailure {
    /// The failure in English, for logs, Events and the API's messages.
    pub fn english(&self) -> String {
        match self {
            Self::NotReady { node } => format!("{node} is not Ready"),
            Self::LeaseStale { node } => format!("{node}'s node Lease has not renewed since it came back"),
            Self::Version { node, component, found, expected } => {
                format!("{node} came back on {} {found}, expected {expected}", component.english())
            }
            Self::NoVersion { node, component, expected } => {
                format!("{node} reports no {} version, expected {expected}", component.english())
            }
            Self::NotBack { node, seconds } => {
                format!("{node} did not come back within {seconds} s (no new boot id while Ready)")
            }
            Self::Replicas { workload, ready, desired, node } => {
                format!("{workload} has {ready} of {desired} replicas ready (its pods were evicted from {node})")
            }
            Self::Unreadable { what, why } => format!("could not read {what}: {why}"),
            Self::Budget { budget, allowed, healthy, needed, before, node } => format!(
                "PodDisruptionBudget {budget} allows {allowed} disruptions ({healthy} pods healthy, {needed} needed), \
                 {before} before {node}'s drain"
            ),
            Self::PlanEnded => "the plan ended before its workloads and budgets were seen recovered".into(),
            Self::Text(text) => text.clone(),
        }
    }

    /// Several failures in English, one after another.
    pub fn english_all(failed: &[CheckFailure]) -> String {
        failed.iter().map(CheckFailure::english).collect::<Vec<_>>().join("; ")
    }
}

/// Whether a node reporting `found` has the version a plan expects: `expected` exactly, or as a prefix of it
/// ("v1.36" holds for "v1.36.3"). The versions view counts a node as on a value by the same rule.
pub fn holds(expected: &str, found: &str) -> bool {
    found.starts_with(expected)
}

/// The checks `card`, back since `back_seen`, fails now: empty when it checks out. Each names its node.
pub fn failures(card: &NodeCard, verify: &Verify, back_seen: Timestamp) -> Vec<CheckFailure> {
    let node = || card.name.clone();
    let mut failed = Vec::new();
    if card.ready != ReadyStatus::Ready {
        failed.push(CheckFailure::NotReady { node: node() });
    }
    if card.lease_renewed.is_none_or(|renewed| renewed < back_seen) {
        failed.push(CheckFailure::LeaseStale { node: node() });
    }
    let versions = [
        (Component::Kubelet, &verify.kubelet_version),
        (Component::Kernel, &verify.kernel_version),
        (Component::OsImage, &verify.os_image),
        (Component::ContainerRuntime, &verify.container_runtime),
    ];
    for (component, expected) in versions {
        let Some(expected) = expected else { continue };
        let expected = expected.clone();
        match component.of(card) {
            Some(found) if holds(&expected, found) => {}
            Some(found) => {
                failed.push(CheckFailure::Version { node: node(), component, found: found.into(), expected })
            }
            None => failed.push(CheckFailure::NoVersion { node: node(), component, expected }),
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn back_card() -> NodeCard {
        NodeCard {
            name: "node-7".into(),
            ready: ReadyStatus::Ready,
            lease_renewed: Some(at("2026-12-02T10:00:10Z")),
            kubelet_version: Some("v1.36.3".into()),
            kernel_version: Some("6.12.9-amd64".into()),
            ..Default::default()
        }
    }

    #[test]
    fn a_node_checks_out_only_when_every_check_holds_and_each_failure_names_itself() {
        let back = at("2026-12-02T10:00:00Z");
        let verify =
            Verify { kubelet_version: Some("v1.36".into()), kernel_version: Some("6.12".into()), ..Default::default() };
        let words = |card: &NodeCard, verify: &Verify| -> Vec<String> {
            failures(card, verify, back).iter().map(CheckFailure::english).collect()
        };
        assert_eq!(words(&back_card(), &verify), Vec::<String>::new());
        let old_kernel = NodeCard { kernel_version: Some("6.1.0-31".into()), ..back_card() };
        assert_eq!(words(&old_kernel, &verify), ["node-7 came back on kernel 6.1.0-31, expected 6.12"]);
        assert_eq!(
            failures(&old_kernel, &verify, back),
            [CheckFailure::Version {
                node: "node-7".into(),
                component: Component::Kernel,
                found: "6.1.0-31".into(),
                expected: "6.12".into()
            }],
            "the failure is data"
        );
        let not_ready = NodeCard { ready: ReadyStatus::NotReady, ..back_card() };
        assert_eq!(words(&not_ready, &verify), ["node-7 is not Ready"]);
        let stale = NodeCard { lease_renewed: Some(at("2026-12-02T09:59:00Z")), ..back_card() };
        assert_eq!(words(&stale, &verify), ["node-7's node Lease has not renewed since it came back"]);
        let silent = NodeCard { kubelet_version: None, ..back_card() };
        assert_eq!(words(&silent, &verify), ["node-7 reports no kubelet version, expected v1.36"]);
        assert_eq!(words(&back_card(), &Verify::default()), Vec::<String>::new(), "nothing expected");
    }

    #[test]
    fn the_deadline_counts_from_the_drains_end_and_requests_are_bounded() {
        let verify = Verify { deadline_seconds: 60, ..Default::default() };
        let since = at("2026-12-02T10:00:00Z");
        assert!(!past_deadline(&verify, since, at("2026-12-02T10:01:00Z")));
        assert!(past_deadline(&verify, since, at("2026-12-02T10:01:01Z")));
        let huge = Verify { deadline_seconds: u64::MAX, ..Default::default() };
        assert!(!past_deadline(&huge, since, at("2026-12-02T10:01:01Z")), "no overflow, no deadline");
        assert!(check_request(&verify).is_ok());
        assert!(check_request(&Verify { deadline_seconds: 0, ..Default::default() }).is_err());
        assert!(check_request(&Verify { deadline_seconds: MAX_DEADLINE_SECONDS + 1, ..Default::default() }).is_err());
        assert!(check_request(&Verify { kernel_version: Some(String::new()), ..Default::default() }).is_err());
        assert!(check_request(&Verify { os_image: Some("x".repeat(257)), ..Default::default() }).is_err());
    }
}
