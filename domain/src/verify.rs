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

/// The checks `card`, back since `back_seen`, fails now: empty when it checks out. Each names itself, as "node-7
/// came back on kernel 6.1.0, expected 6.12".
pub fn failures(card: &NodeCard, verify: &Verify, back_seen: Timestamp) -> Vec<String> {
    let node = &card.name;
    let mut failed = Vec::new();
    if card.ready != ReadyStatus::Ready {
        failed.push(format!("{node} is not Ready"));
    }
    if card.lease_renewed.is_none_or(|renewed| renewed < back_seen) {
        failed.push(format!("{node}'s node Lease has not renewed since it came back"));
    }
    let versions = [
        ("kubelet", &verify.kubelet_version, &card.kubelet_version),
        ("kernel", &verify.kernel_version, &card.kernel_version),
        ("OS image", &verify.os_image, &card.os_image),
        ("container runtime", &verify.container_runtime, &card.container_runtime),
    ];
    for (what, expected, found) in versions {
        let Some(expected) = expected else { continue };
        match found.as_deref() {
            Some(found) if found.starts_with(expected.as_str()) => {}
            Some(found) => failed.push(format!("{node} came back on {what} {found}, expected {expected}")),
            None => failed.push(format!("{node} reports no {what} version, expected {expected}")),
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
        assert_eq!(failures(&back_card(), &verify, back), Vec::<String>::new());
        let old_kernel = NodeCard { kernel_version: Some("6.1.0-31".into()), ..back_card() };
        assert_eq!(failures(&old_kernel, &verify, back), ["node-7 came back on kernel 6.1.0-31, expected 6.12"]);
        let not_ready = NodeCard { ready: ReadyStatus::NotReady, ..back_card() };
        assert_eq!(failures(&not_ready, &verify, back), ["node-7 is not Ready"]);
        let stale = NodeCard { lease_renewed: Some(at("2026-12-02T09:59:00Z")), ..back_card() };
        assert_eq!(failures(&stale, &verify, back), ["node-7's node Lease has not renewed since it came back"]);
        let silent = NodeCard { kubelet_version: None, ..back_card() };
        assert_eq!(failures(&silent, &verify, back), ["node-7 reports no kubelet version, expected v1.36"]);
        assert_eq!(failures(&back_card(), &Verify::default(), back), Vec::<String>::new(), "nothing expected");
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
