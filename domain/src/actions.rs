//! Which actions a node's card offers, and why one is not available: the node's state, a drain in progress, or a
//! permission the person lacks. Pure, so the rules are tested here and the card only renders them.

use serde::{Deserialize, Serialize};

use crate::{drain::DrainOptions, progress::DrainSummary};

/// Why an action is not available.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Unavailable {
    AlreadyCordoned,
    NotCordoned,
    /// A drain of the node is running; it must finish or be cancelled first.
    DrainRunning,
    /// The person's credentials lack this permission (for example "patch nodes").
    Missing(String),
    /// Permissions are still being checked.
    Checking,
}

/// An action's availability.
pub type Availability = Result<(), Unavailable>;

/// What the person may do, as the API server answered (each `Some` names the missing permissions).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lacking {
    /// Cordon and uncordon: `patch nodes`.
    pub cordon: Option<String>,
    /// Drain: `patch nodes`, `list pods`, `create pods/eviction`.
    pub drain: Option<String>,
    /// Drain with disable-eviction: `delete pods` as well.
    pub delete_pods: Option<String>,
}

/// The three actions of a card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardActions {
    pub cordon: Availability,
    pub uncordon: Availability,
    pub drain: Availability,
}

/// The role of `deploy/people.yaml` that grants `missing` (as [`Lacking`] names it): deleting pods, which only a
/// drain with disable-eviction does, is a role of its own, bound beside the maintainer's.
pub fn role_granting(missing: &str) -> &'static str {
    if missing == "delete pods" { "drainboard-pod-deleter" } else { "drainboard-maintainer" }
}

impl Lacking {
    /// The permission missing to delete pods directly, when `options` ask for that (disable-eviction); `None` when
    /// they do not, or when the person has it.
    pub fn delete_pods_for(&self, options: &DrainOptions) -> Option<&str> {
        self.delete_pods.as_deref().filter(|_| options.disable_eviction)
    }
}

/// The actions of a node that is `unschedulable` or not, with the drain its card shows, for a person whose
/// permissions are `lacking` (`None` while they are being checked).
pub fn card_actions(unschedulable: bool, drain: Option<&DrainSummary>, lacking: Option<&Lacking>) -> CardActions {
    let running = drain.is_some_and(|d| d.state.is_running());
    let permission = |missing: Option<&String>| match lacking {
        None => Err(Unavailable::Checking),
        Some(_) => missing.map_or(Ok(()), |m| Err(Unavailable::Missing(m.clone()))),
    };
    let cordon_permission = permission(lacking.and_then(|l| l.cordon.as_ref()));
    CardActions {
        cordon: if unschedulable { Err(Unavailable::AlreadyCordoned) } else { cordon_permission.clone() },
        // A running drain says more than the cordon, which it may not have written yet.
        uncordon: if running {
            Err(Unavailable::DrainRunning)
        } else if !unschedulable {
            Err(Unavailable::NotCordoned)
        } else {
            cordon_permission
        },
        drain: if running {
            Err(Unavailable::DrainRunning)
        } else {
            permission(lacking.and_then(|l| l.drain.as_ref()))
        },
    }
}

/// Whether a person whose permissions are `lacking` (`None` while they are being checked) may drain with
/// `options`: the drain's own permissions, and with disable-eviction `delete pods` as well.
pub fn may_drain(lacking: Option<&Lacking>, options: &DrainOptions) -> Availability {
    let lacking = lacking.ok_or(Unavailable::Checking)?;
    match lacking.drain.as_deref().or_else(|| lacking.delete_pods_for(options)) {
        Some(missing) => Err(Unavailable::Missing(missing.to_string())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::DrainState;

    fn drain(state: DrainState) -> DrainSummary {
        DrainSummary {
            id: "d".into(),
            node: "n".into(),
            started_by: "alice".into(),
            started_at: jiff::Timestamp::UNIX_EPOCH,
            reason: None,
            dry_run: false,
            state,
            total: 1,
            done: 0,
            blocked_by: None,
            blocked_in: None,
            blocker: None,
            shutting_down_until: None,
            finished_at: None,
            elsewhere: None,
        }
    }

    #[test]
    fn state_decides_first() {
        let all = Lacking::default();
        let a = card_actions(false, None, Some(&all));
        assert_eq!((a.cordon, a.uncordon, a.drain), (Ok(()), Err(Unavailable::NotCordoned), Ok(())));
        let a = card_actions(true, None, Some(&all));
        assert_eq!((a.cordon, a.uncordon, a.drain), (Err(Unavailable::AlreadyCordoned), Ok(()), Ok(())));
    }

    #[test]
    fn a_running_drain_blocks_uncordon_and_a_second_drain() {
        let all = Lacking::default();
        let a = card_actions(true, Some(&drain(DrainState::Evicting)), Some(&all));
        assert_eq!(a.uncordon, Err(Unavailable::DrainRunning));
        assert_eq!(a.drain, Err(Unavailable::DrainRunning));
        let a = card_actions(false, Some(&drain(DrainState::Cordoning)), Some(&all));
        assert_eq!(a.uncordon, Err(Unavailable::DrainRunning), "before its cordon shows, the drain is the reason");
        let a = card_actions(true, Some(&drain(DrainState::Drained)), Some(&all));
        assert_eq!((a.uncordon, a.drain), (Ok(()), Ok(())), "a finished drain blocks nothing");
    }

    #[test]
    fn missing_permissions_are_named() {
        let viewer = Lacking {
            cordon: Some("patch nodes".into()),
            drain: Some("patch nodes, create pods/eviction".into()),
            delete_pods: Some("delete pods".into()),
        };
        let a = card_actions(false, None, Some(&viewer));
        assert_eq!(a.cordon, Err(Unavailable::Missing("patch nodes".into())));
        assert_eq!(a.drain, Err(Unavailable::Missing("patch nodes, create pods/eviction".into())));
        let a = card_actions(false, None, None);
        assert_eq!((a.cordon, a.drain), (Err(Unavailable::Checking), Err(Unavailable::Checking)));
    }

    #[test]
    fn draining_needs_delete_pods_only_with_disable_eviction() {
        let evict = DrainOptions::default();
        let delete = DrainOptions { disable_eviction: true, ..Default::default() };
        let no_delete = Lacking { delete_pods: Some("delete pods".into()), ..Default::default() };
        assert_eq!(may_drain(Some(&no_delete), &evict), Ok(()));
        assert_eq!(may_drain(Some(&no_delete), &delete), Err(Unavailable::Missing("delete pods".into())));
        assert_eq!(no_delete.delete_pods_for(&delete), Some("delete pods"));
        assert_eq!(role_granting("delete pods"), "drainboard-pod-deleter");
        assert_eq!(role_granting("patch nodes, create pods/eviction"), "drainboard-maintainer");
        assert_eq!(no_delete.delete_pods_for(&evict), None);
        assert_eq!(may_drain(Some(&Lacking::default()), &delete), Ok(()));
        let nothing = Lacking { drain: Some("create pods/eviction".into()), ..no_delete };
        assert_eq!(may_drain(Some(&nothing), &delete), Err(Unavailable::Missing("create pods/eviction".into())));
        assert_eq!(may_drain(Some(&nothing), &evict), Err(Unavailable::Missing("create pods/eviction".into())));
        assert_eq!(may_drain(None, &evict), Err(Unavailable::Checking));
    }
}
