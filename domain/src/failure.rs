//! Why a drain, or one pod's eviction, failed: a reason the page words in the person's language, with whatever the
//! API server said kept as data beside it, never wrapped in English prose. Logic matches on the variant.
//!
//! Failures are kept in node annotations, Lease annotations and history ConfigMaps, some written by older builds as
//! plain English text (`{"Failed": "some text"}`): such text still reads, as [`Failure::Other`].

use serde::{Deserialize, Serialize};

/// What the API server answered, or why nothing answered: its status code (none when no answer came) and its
/// message, exactly as it gave them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiAnswer {
    pub code: Option<u16>,
    pub message: String,
}

/// Why something failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Failure {
    /// The API server stopped accepting the person's credentials (401): they expired or were revoked. The node
    /// stays cordoned; whoever signs in again may resume.
    CredentialsExpired,
    /// The drain's timeout passed before this was done.
    TimedOut { seconds: u64 },
    /// Some pods could not be evicted (each says why).
    NotEvicted { failed: usize, of: usize },
    /// The node could not be cordoned, so nothing was evicted.
    Cordon(ApiAnswer),
    /// The node's pods could not be listed, so nothing was evicted.
    ListPods(ApiAnswer),
    /// The API server refused the request, with this answer.
    Api(ApiAnswer),
    /// An admission webhook denied the eviction: its name, its configuration's (when the person may read it), and
    /// its own message. kubectl fails the pod too; the page names the webhook and who can change it.
    WebhookDenied { webhook: String, configuration: Option<String>, message: String },
    /// More than one budget covers the pod (these, by name), so the API server refuses every eviction of it (its
    /// answer, a 500).
    TwoBudgets { budgets: Vec<String>, answer: ApiAnswer },
    /// The API server gave no answer, or only "try again later" (a 5xx naming a Retry-After), this many times in a
    /// row.
    Unavailable { tries: u32, answer: ApiAnswer },
    /// The API server kept answering 404 for a pod that still exists.
    NotFoundYetPresent { tries: u32, answer: ApiAnswer },
    /// The watch on the node's pods failed for this many seconds in a row, so their going could not be seen.
    WatchLost { seconds: u64, error: String },
    /// The watch on the node's pods ended.
    WatchEnded,
    /// The API server refused the watch on the node's pods.
    WatchRefused(ApiAnswer),
    /// The drain's own task failed (a fault of the server's, not the cluster's); the detail is for its operators.
    Internal { detail: String },
    /// Drainboard itself did not start the drain, for one of its own reasons.
    Refused(StartRefusal),
    /// The server's view of the cluster (its first list of nodes and pods) was not ready within this many seconds.
    NotListed { seconds: u64 },
    /// Drainboard's own words for an engine error no other variant names: kept so that the engine's mapping into
    /// failures is total, and for failures earlier builds recorded so. The errors that end a drain, a plan's node
    /// or its way back today (the API's answers, expired credentials, start refusals, internal faults, a cache not
    /// listed in time) each have a variant of their own.
    Server { message: String },
    /// A failure recorded as text by an older build.
    #[serde(untagged)]
    Other(String),
}

/// Why Drainboard itself refuses to start a node's drain (or to cordon or uncordon a node that is not there): each
/// reason is worded by the catalogue, and only names and numbers are data. The same reasons answer a person's click
/// and end a plan's node, or its way back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StartRefusal {
    /// The server is stopping, and starts nothing new.
    Stopping { node: String },
    /// No node of that name exists.
    NoSuchNode { node: String },
    /// The person lacks the rights to drain (team mode checks before the server writes anything for them): the
    /// permissions they lack, and the role that grants them.
    MayNotDrain { user: String, node: String, lacks: String, role: String },
    /// Team mode drains only with the node's Lease, which keeps two replicas from draining one node, and it could
    /// not be taken: the API server's answer.
    NoLease { node: String, answer: ApiAnswer },
    /// This server runs as many drains (or dry runs) as it allows at once.
    ServerFull { most: usize, dry_run: bool },
    /// The person runs as many drains (or dry runs) as one person may at once.
    PersonFull { user: String, most: usize, dry_run: bool },
    /// A maintenance window holds the node (`domain::window`): the window that decided, and its hold.
    Held(Box<crate::window::HeldNode>),
    /// An override of a window was asked for by someone who may not override: the permission they lack.
    MayNotOverride { user: String, lacks: String },
    /// An uncordon would undo the work of other tools on the node (`crate::actor`), and the person did not type
    /// each one's name to confirm it.
    OtherActors { node: String, actors: Vec<crate::actor::Actor> },
}

impl StartRefusal {
    /// The refusal in plain English, for the API's answer, logs and the audit trail.
    pub fn english(&self) -> String {
        let runs = |dry: bool| if dry { "dry runs" } else { "drains" };
        match self {
            Self::Stopping { node } => format!(
                "the server is stopping: the drain of {node} did not start; start it again once the server is back, \
                 or on another replica"
            ),
            Self::NoSuchNode { node } => format!("node {node} does not exist"),
            Self::MayNotDrain { user, node, lacks, role } => {
                format!("{user} may not drain {node}: lacks {lacks}; ask for the {role} role")
            }
            Self::NoLease { node, answer } => format!(
                "could not take {node}'s Lease, which keeps two servers from draining it at once: {}; check the \
                 server's rights to Leases in its namespace (API.md), then try again",
                answer.message
            ),
            Self::ServerFull { most, dry_run } => {
                format!("{most} {} are running on this server; wait for one to end", runs(*dry_run))
            }
            Self::PersonFull { user, most, dry_run } => {
                format!("{user} has {most} {} running, the most one person may; wait for one to end", runs(*dry_run))
            }
            Self::Held(held) => format!(
                "maintenance may not start on {} now: {}; wait until it may, or override with a reason if you may \
                 update maintenancewindows/override",
                held.node,
                held.english()
            ),
            Self::MayNotOverride { user, lacks } => {
                format!(
                    "{user} may not override a maintenance window: lacks {lacks}; ask for the drainboard-window-override role"
                )
            }
            Self::OtherActors { node, actors } => format!(
                "{node} was cordoned by {}, at work on it: uncordoning it would undo that work; check with its owner, \
                 then type {} to confirm",
                crate::actor::ids(actors),
                crate::actor::ids(actors)
            ),
        }
    }
}

impl Failure {
    /// The failure in plain English, for logs and the audit trail (the page words it through the catalogue).
    pub fn english(&self) -> String {
        let answer = |a: &ApiAnswer| match a.code {
            Some(code) => format!("{} ({code})", a.message),
            None => a.message.clone(),
        };
        match self {
            Self::CredentialsExpired => {
                "credentials expired (or were revoked): sign in again, then resume the drain".to_owned()
            }
            Self::TimedOut { seconds } => format!("timed out after {seconds} s"),
            Self::NotEvicted { failed, of } => format!("{failed} of {of} pods could not be evicted"),
            Self::Cordon(a) => format!("could not cordon the node: {}", answer(a)),
            Self::ListPods(a) => format!("could not list the node's pods: {}", answer(a)),
            Self::Api(a) => answer(a),
            Self::TwoBudgets { budgets, answer: a } => format!("{} (budgets {})", answer(a), budgets.join(", ")),
            Self::WebhookDenied { webhook, configuration, message } => match configuration {
                Some(c) => format!("admission webhook {webhook:?} (in {c}) denied the eviction: {message}"),
                None => format!("admission webhook {webhook:?} denied the eviction: {message}"),
            },
            Self::Unavailable { tries, answer: a } => {
                format!("the API server was unavailable ({tries} tries): {}", answer(a))
            }
            Self::NotFoundYetPresent { tries, answer: a } => {
                format!("the API server answered 404 {tries} times for a pod that exists: {}", answer(a))
            }
            Self::WatchLost { seconds, error } => format!("lost the watch on the node's pods for {seconds} s: {error}"),
            Self::WatchEnded => "lost the watch on the node's pods".to_owned(),
            Self::WatchRefused(a) => format!("could not watch the node's pods: {}", answer(a)),
            Self::Internal { detail } => format!("the drain stopped on an internal error: {detail}"),
            Self::Refused(refusal) => refusal.english(),
            Self::NotListed { seconds } => {
                format!("the cluster's nodes and pods did not finish listing within {seconds} s; try again shortly")
            }
            Self::Server { message } | Self::Other(message) => message.clone(),
        }
    }

    /// What the API server said, if this failure carries its answer.
    pub fn answer(&self) -> Option<&ApiAnswer> {
        match self {
            Self::Cordon(a) | Self::ListPods(a) | Self::Api(a) | Self::WatchRefused(a) => Some(a),
            Self::Refused(StartRefusal::NoLease { answer, .. }) => Some(answer),
            Self::Unavailable { answer, .. }
            | Self::NotFoundYetPresent { answer, .. }
            | Self::TwoBudgets { answer, .. } => Some(answer),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::{DrainState, PodState};

    fn answer(code: u16, message: &str) -> ApiAnswer {
        ApiAnswer { code: Some(code), message: message.into() }
    }

    #[test]
    fn every_failure_reads_back_as_written() {
        let all = [
            Failure::CredentialsExpired,
            Failure::TimedOut { seconds: 3 },
            Failure::NotEvicted { failed: 1, of: 2 },
            Failure::Cordon(answer(403, "nodes \"n1\" is forbidden")),
            Failure::ListPods(answer(500, "etcd")),
            Failure::Api(answer(
                500,
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            )),
            Failure::WebhookDenied {
                webhook: "deny.example.com".into(),
                configuration: Some("deny-evictions".into()),
                message: "frozen".into(),
            },
            Failure::TwoBudgets { budgets: vec!["a".into(), "b".into()], answer: answer(500, "more than one") },
            Failure::Unavailable { tries: 12, answer: ApiAnswer { code: None, message: "connection refused".into() } },
            Failure::NotFoundYetPresent { tries: 12, answer: answer(404, "pods \"web-1\" not found") },
            Failure::WatchLost { seconds: 120, error: "connection reset".into() },
            Failure::WatchEnded,
            Failure::WatchRefused(answer(403, "pods is forbidden")),
            Failure::Internal { detail: "test hook: panic while Evicting".into() },
            Failure::Refused(StartRefusal::Stopping { node: "n1".into() }),
            Failure::Refused(StartRefusal::NoSuchNode { node: "n1".into() }),
            Failure::Refused(StartRefusal::MayNotDrain {
                user: "ann".into(),
                node: "n1".into(),
                lacks: "create pods/eviction".into(),
                role: "drainboard-maintainer".into(),
            }),
            Failure::Refused(StartRefusal::NoLease { node: "n1".into(), answer: answer(403, "leases is forbidden") }),
            Failure::Refused(StartRefusal::ServerFull { most: 100, dry_run: false }),
            Failure::Refused(StartRefusal::PersonFull { user: "ann".into(), most: 5, dry_run: true }),
            Failure::NotListed { seconds: 90 },
            Failure::Server { message: "a refusal of an earlier build".into() },
            Failure::Other("some text".into()),
        ];
        for failure in all {
            let state = DrainState::Failed(failure.clone());
            let json = serde_json::to_string(&state).expect("serialises");
            assert_eq!(serde_json::from_str::<DrainState>(&json).expect("reads back"), state, "{json}");
            let pod = PodState::Failed(failure);
            let json = serde_json::to_string(&pod).expect("serialises");
            assert_eq!(serde_json::from_str::<PodState>(&json).expect("reads back"), pod, "{json}");
        }
    }

    #[test]
    fn failures_written_as_text_by_older_builds_still_read() {
        let old = r#"{"Failed":"credentials expired (or were revoked): sign in again, then resume the drain"}"#;
        assert_eq!(
            serde_json::from_str::<DrainState>(old).expect("reads"),
            DrainState::Failed(Failure::Other(
                "credentials expired (or were revoked): sign in again, then resume the drain".into()
            ))
        );
        let old = r#"{"Failed":"timed out after 3 s"}"#;
        assert_eq!(
            serde_json::from_str::<PodState>(old).expect("reads"),
            PodState::Failed(Failure::Other("timed out after 3 s".into()))
        );
        assert_eq!(Failure::Other("as it was".into()).english(), "as it was");
    }

    #[test]
    fn the_wire_form_is_tagged_and_keeps_the_apis_message_as_data() {
        let json = serde_json::to_value(PodState::Failed(Failure::Api(answer(500, "etcd is on fire")))).expect("json");
        assert_eq!(json, serde_json::json!({"Failed": {"Api": {"code": 500, "message": "etcd is on fire"}}}));
        let json = serde_json::to_value(DrainState::Failed(Failure::CredentialsExpired)).expect("json");
        assert_eq!(json, serde_json::json!({"Failed": "CredentialsExpired"}));
        let json = serde_json::to_value(PodState::Failed(Failure::TimedOut { seconds: 3 })).expect("json");
        assert_eq!(json, serde_json::json!({"Failed": {"TimedOut": {"seconds": 3}}}));
    }

    #[test]
    fn the_english_names_the_answer_and_its_code() {
        assert_eq!(Failure::Api(answer(500, "etcd is on fire")).english(), "etcd is on fire (500)");
        assert_eq!(Failure::NotEvicted { failed: 1, of: 3 }.english(), "1 of 3 pods could not be evicted");
        assert_eq!(Failure::TimedOut { seconds: 3 }.english(), "timed out after 3 s");
        assert_eq!(Failure::WatchEnded.answer(), None);
        assert_eq!(Failure::Cordon(answer(403, "no")).answer().map(|a| a.code), Some(Some(403)));
    }
}
