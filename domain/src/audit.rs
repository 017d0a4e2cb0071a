//! The audit trail's entries: who did what to which node, when, why, and how it ended. One entry per cordon,
//! uncordon, drain start, drain end, cancel and resume. The same entry is written as a line of the audit log and
//! as a Kubernetes Event on the node, so `kubectl describe node` shows it.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::drain::DrainOptions;

/// The reason of a `NodeReady` entry stamped when the server saw the node Ready again, not at the Ready condition's
/// `lastTransitionTime`: that time had not moved past the failure (a node's status is written by its kubelet, or by
/// whatever stands in for one), so the only true time of the recovery is when it was seen.
pub const READY_OBSERVED: &str = "ReadyObserved";

/// The reason of an `Uncordon` entry the server wrote because it saw the node schedulable again while the history's
/// last word was a cordon: the uncordon was made outside Drainboard (`kubectl uncordon`, an autoscaler), so who made
/// it is not known, only when it was seen.
pub const UNCORDON_OBSERVED: &str = "UncordonObserved";

/// What was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AuditAction {
    Cordon,
    Uncordon,
    DrainStarted,
    DrainEnded,
    DrainCancelled,
    DrainResumed,
    /// A person took an action that lets a held drain go on (`domain::blocker::Unblock`): deleted a not-Ready pod,
    /// or set a budget's unhealthy-pod policy. The outcome says which, and on what.
    Unblocked,
    /// A Deployment was surged to move a pod off the node first (`domain::moving`), or its count was put back
    /// after the move. The outcome says which.
    Moved,
    /// A person started maintenance that a maintenance window held, with the right to override and a reason. The
    /// outcome names the window and what held it.
    WindowOverridden,
    /// The node's Ready condition stopped being True (the server's own record, at the condition's transition
    /// time): not a person's action, so never an Event; the node controller writes its own.
    NodeNotReady,
    /// The node's Ready condition is True again after [`AuditAction::NodeNotReady`].
    NodeReady,
    /// Another tool was first seen at work on the node (`crate::actor`): the server's own record, never an Event.
    /// `reason` is the tool's id, `outcome` what it does ([`crate::actor::Doing::name`]).
    ActorSeen,
    /// The tool of an [`AuditAction::ActorSeen`] is no longer seen at work on the node; `reason` is its id.
    ActorGone,
    /// A freeze set other tools' switches on the node (`crate::hold_others`): `reason` names the window, `outcome`
    /// the switches. The server's own doing, on a window's behalf.
    OthersHeld,
    /// The switches of an [`AuditAction::OthersHeld`] were removed: no freeze wants them any more.
    OthersReleased,
}

impl AuditAction {
    /// A change of the node's own health, which the server records, rather than something a person did.
    pub fn is_health(self) -> bool {
        matches!(self, AuditAction::NodeNotReady | AuditAction::NodeReady)
    }

    /// Another tool seen at work on the node, or no longer: the server's own record too.
    pub fn is_actor(self) -> bool {
        matches!(self, AuditAction::ActorSeen | AuditAction::ActorGone)
    }

    /// The Event's reason: short, CamelCase, as the Events of other controllers are.
    pub fn reason(self) -> &'static str {
        match self {
            AuditAction::Cordon => "DrainboardCordon",
            AuditAction::Uncordon => "DrainboardUncordon",
            AuditAction::DrainStarted => "DrainboardDrainStarted",
            AuditAction::DrainEnded => "DrainboardDrainEnded",
            AuditAction::DrainCancelled => "DrainboardDrainCancelled",
            AuditAction::DrainResumed => "DrainboardDrainResumed",
            AuditAction::Unblocked => "DrainboardUnblocked",
            AuditAction::Moved => "DrainboardMoveFirst",
            AuditAction::WindowOverridden => "DrainboardWindowOverride",
            AuditAction::NodeNotReady => "DrainboardNodeNotReady",
            AuditAction::NodeReady => "DrainboardNodeReady",
            AuditAction::ActorSeen => "DrainboardActorSeen",
            AuditAction::ActorGone => "DrainboardActorGone",
            AuditAction::OthersHeld => "DrainboardOthersHeld",
            AuditAction::OthersReleased => "DrainboardOthersReleased",
        }
    }

    fn verb(self) -> &'static str {
        match self {
            AuditAction::Cordon => "cordoned",
            AuditAction::Uncordon => "uncordoned",
            AuditAction::DrainStarted => "started draining",
            AuditAction::DrainEnded => "'s drain ended on",
            AuditAction::DrainCancelled => "cancelled the drain of",
            AuditAction::DrainResumed => "resumed draining",
            AuditAction::Unblocked => "unblocked the drain of",
            AuditAction::Moved => "moved a workload first, draining",
            AuditAction::WindowOverridden => "overrode a maintenance window to start on",
            AuditAction::NodeNotReady => "saw NotReady:",
            AuditAction::NodeReady => "saw Ready again:",
            AuditAction::ActorSeen => "saw another tool at work on",
            AuditAction::ActorGone => "saw another tool done with",
            AuditAction::OthersHeld => "held other tools off",
            AuditAction::OthersReleased => "let other tools back on",
        }
    }
}

/// One thing a person did to a node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub at: Timestamp,
    /// Who: the signed-in person's username (team mode) or the kubeconfig user (local mode).
    pub user: String,
    pub action: AuditAction,
    pub node: String,
    pub reason: Option<String>,
    /// A drain's options (starts and resumes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<DrainOptions>,
    /// How a drain ended, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain_id: Option<String>,
    /// How a drain ended (its end's entry), for a server that finds the node's record still saying "running":
    /// the record's last write may have been refused (the person's credentials expired, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<crate::progress::DrainState>,
    /// A drain's estimate and, at its end, how long it took ([`crate::estimate::DrainTiming`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<crate::estimate::DrainTiming>,
}

impl AuditEntry {
    /// A new entry of `action` by `user` on `node` at `at` (the caller reads the clock: the domain does not).
    pub fn new(user: &str, action: AuditAction, node: &str, at: Timestamp) -> Self {
        AuditEntry {
            at,
            user: user.to_owned(),
            action,
            node: node.to_owned(),
            reason: None,
            options: None,
            outcome: None,
            drain_id: None,
            ended: None,
            timing: None,
        }
    }

    /// One sentence for an Event's note: "alice cordoned node-3: kernel update".
    pub fn sentence(&self) -> String {
        let mut text = format!("{} {} {}", self.user, self.action.verb(), self.node).replace(" 's", "'s");
        if let Some(outcome) = &self.outcome {
            text.push_str(&format!(": {outcome}"));
        }
        if let Some(reason) = &self.reason {
            text.push_str(&format!(" (reason: {reason})"));
        }
        text
    }

    /// The entry as a person who may read some namespaces' pods only sees it. How a drain ended is free text that
    /// can name any namespace's pods (a refusal's or a failure's message), so only the state is kept: "Failed",
    /// "refused", "Drained except 2 pods still terminating" (a count names no pod).
    pub fn without_pod_detail(mut self) -> Self {
        self.outcome = match (&self.ended, self.outcome.take()) {
            (Some(crate::progress::DrainState::Failed(_)), _) => Some("Failed".into()),
            (Some(state), _) => Some(state.outcome_text()),
            (None, Some(text)) => text.split(':').next().map(|head| head.trim().to_owned()),
            (None, None) => None,
        };
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_as_one_sentence_naming_the_person() {
        let mut entry = AuditEntry::new("alice", AuditAction::Cordon, "node-3", Timestamp::UNIX_EPOCH);
        entry.reason = Some("kernel 6.12".into());
        assert_eq!(entry.sentence(), "alice cordoned node-3 (reason: kernel 6.12)");
        let mut ended = AuditEntry::new("bob", AuditAction::DrainEnded, "node-4", Timestamp::UNIX_EPOCH);
        ended.outcome = Some("Drained".into());
        assert_eq!(ended.sentence(), "bob's drain ended on node-4: Drained");
    }

    #[test]
    fn a_reader_of_some_namespaces_gets_how_it_ended_without_pod_names() {
        let entry = |outcome: &str, ended: Option<crate::progress::DrainState>| {
            let mut e = AuditEntry::new("alice", AuditAction::DrainEnded, "node-4", Timestamp::UNIX_EPOCH);
            e.outcome = Some(outcome.into());
            e.ended = ended;
            e.without_pod_detail().outcome
        };
        let refused = "refused: cannot delete pods with local storage: other-ns/cache-7f9";
        assert_eq!(entry(refused, None).as_deref(), Some("refused"));
        let failed = crate::progress::DrainState::Failed(crate::failure::Failure::Other("pod other-ns/db-0".into()));
        assert_eq!(entry("Failed: pod other-ns/db-0", Some(failed)).as_deref(), Some("Failed"));
        let drained = crate::progress::DrainState::Drained;
        assert_eq!(entry("Drained", Some(drained)).as_deref(), Some("Drained"));
        assert_eq!(entry("stopped; started by bob", None).as_deref(), Some("stopped; started by bob"));
    }
}
