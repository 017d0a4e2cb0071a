//! The audit trail: every cordon, uncordon, drain start and end, cancel and resume, written as it happens to an
//! append-only JSON-lines file (`--audit-log`) and as a Kubernetes Event on the node, so that `kubectl describe
//! node` and `kubectl events` show who did what and why. Events expire (an hour by default); the file does not.
//!
//! The Event is written with the server's own identity (the operator's, in local mode), and names the person in
//! its note. Neither write can undo or hold up the action itself: a failure is logged, and the action stands.

use std::{
    fs::{File, OpenOptions},
    io::Write,
    path::Path,
    sync::Arc,
};

use domain::audit::{AuditAction, AuditEntry};
use k8s_openapi::{
    api::{core::v1::ObjectReference, events::v1::Event},
    apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta},
};
use kube::{Api, Client, api::PostParams};
use parking_lot::Mutex;

/// Where the trail goes. Cheap to clone.
#[derive(Clone, Default)]
pub struct Audit {
    file: Option<Arc<Mutex<File>>>,
    /// The identity Events are written with; none means no Events (tests, or a server with no identity).
    events: Option<Client>,
    /// Each node's durable history, when kept.
    history: Option<crate::history::History>,
    /// The pace of refused attempts written, per person.
    refused: Arc<RefusedPace>,
}

/// Refused attempts written per person: 20 at once, then one every 6 seconds. Anyone signed in can be refused as
/// often as they like, and each refusal would otherwise be a line of the file: a script in a loop must not fill
/// the disk, nor bury the lines that matter. What is held back is counted, and said in the next line let through.
struct RefusedPace {
    limiter: governor::DefaultKeyedRateLimiter<String>,
    held: Mutex<std::collections::HashMap<String, u64>>,
}

const REFUSED_PER_MINUTE: std::num::NonZeroU32 = std::num::NonZeroU32::new(10).expect("non-zero");
const REFUSED_BURST: std::num::NonZeroU32 = std::num::NonZeroU32::new(20).expect("non-zero");
/// The most people whose pace is remembered; past it, those whose pace has recovered are forgotten.
const MAX_REFUSED_PEOPLE: usize = 10_000;

impl Default for RefusedPace {
    fn default() -> Self {
        let quota = governor::Quota::per_minute(REFUSED_PER_MINUTE).allow_burst(REFUSED_BURST);
        RefusedPace { limiter: governor::RateLimiter::hashmap(quota), held: Default::default() }
    }
}

impl RefusedPace {
    /// Whether `user`'s refused attempt is written: `Some(n)` with the attempts held back since the last one
    /// written, `None` when this one is held back too.
    fn admit(&self, user: &str) -> Option<u64> {
        if self.limiter.len() >= MAX_REFUSED_PEOPLE {
            self.limiter.retain_recent();
        }
        let user = user.to_owned();
        let mut held = self.held.lock();
        if self.limiter.check_key(&user).is_ok() {
            return Some(held.remove(&user).unwrap_or(0));
        }
        if held.len() < MAX_REFUSED_PEOPLE || held.contains_key(&user) {
            *held.entry(user).or_default() += 1;
        }
        None
    }
}

/// The namespace Events about cluster-scoped objects (nodes) go to, as the kubelet's own do.
const EVENT_NAMESPACE: &str = "default";

impl Audit {
    /// A trail that appends to `path` (created if missing, readable by its owner only) and writes Events with
    /// `events`.
    pub fn new(path: Option<&Path>, events: Option<Client>) -> std::io::Result<Self> {
        let file = match path {
            Some(path) => {
                let mut options = OpenOptions::new();
                options.create(true).append(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
                Some(Arc::new(Mutex::new(options.open(path)?)))
            }
            None => None,
        };
        Ok(Audit { file, events, history: None, refused: Default::default() })
    }

    /// The same trail, also appending each entry to its node's durable history.
    pub fn with_history(mut self, history: crate::history::History) -> Self {
        self.history = Some(history);
        self
    }

    /// Where the node histories are kept, if they are.
    pub fn history(&self) -> Option<&crate::history::History> {
        self.history.as_ref()
    }

    /// Records an attempt that was refused or failed (its `outcome` says how) in the audit log file and the server's
    /// log only. The node's Events and history are written with the server's own identity, so a person without the
    /// rights must not be able to drive those writes (or push real entries out of the bounded history) by trying.
    /// Held to a pace per person ([`RefusedPace`]); the attempts held back are counted in the server's log.
    pub fn record_refused(&self, entry: &AuditEntry) {
        match self.refused.admit(&entry.user) {
            Some(0) => self.record_here(entry),
            Some(held) => {
                tracing::warn!(user = ?entry.user, held, "refused attempts of this person were not written to the audit log, held to its pace");
                self.record_here(entry);
            }
            None => {}
        }
    }

    /// The file and the server's log: what stays on this machine.
    fn record_here(&self, entry: &AuditEntry) {
        if let Some(file) = &self.file
            && let Ok(mut line) = serde_json::to_string(entry)
        {
            line.push('\n');
            let mut file = file.lock();
            if let Err(err) = file.write_all(line.as_bytes()).and_then(|()| file.flush()) {
                tracing::error!(error = %err, "could not append to the audit log");
            }
        }
        tracing::info!(user = ?entry.user, node = %entry.node, action = ?entry.action, reason = ?entry.reason, outcome = ?entry.outcome, "audit");
    }

    /// Records `entry`: a line in the file, then the node's history, then an Event on the node.
    pub async fn record(&self, entry: AuditEntry) {
        self.record_here(&entry);
        if let Some(history) = &self.history
            && let Err(err) = history.append(&entry).await
        {
            tracing::warn!(node = %entry.node, error = %crate::kube_error::api_message(&err), "could not append to the node's history");
        }
        if let Some(client) = &self.events
            && let Err(err) = Api::<Event>::namespaced(client.clone(), EVENT_NAMESPACE)
                .create(&PostParams::default(), &event(&entry))
                .await
        {
            tracing::warn!(node = %entry.node, error = %crate::kube_error::api_message(&err), "could not write the audit Event");
        }
    }
}

impl Audit {
    /// Records `entry`, which is about `object` (a namespaced object, not a node): a line in the file, and an
    /// Event on the object in its namespace. No node's history: the object is not one node's.
    pub async fn record_about_object<K>(&self, entry: AuditEntry, object: &K)
    where
        K: kube::Resource<DynamicType = ()>,
    {
        self.record_here(&entry);
        let (Some(client), Some(namespace)) = (&self.events, object.meta().namespace.clone()) else { return };
        let mut about = event(&entry);
        about.metadata.name = Some(event_name(object.meta().name.as_deref().unwrap_or("object")));
        about.metadata.namespace = Some(namespace.clone());
        about.regarding = Some(ObjectReference {
            api_version: Some(K::api_version(&()).into_owned()),
            kind: Some(K::kind(&()).into_owned()),
            name: object.meta().name.clone(),
            namespace: Some(namespace.clone()),
            uid: object.meta().uid.clone(),
            ..Default::default()
        });
        if let Err(err) =
            Api::<Event>::namespaced(client.clone(), &namespace).create(&PostParams::default(), &about).await
        {
            tracing::warn!(object = %entry.node, error = %crate::kube_error::api_message(&err), "could not write the audit Event");
        }
    }
}

/// The Event of an entry: about the Node, reported by Drainboard, naming the person.
fn event(entry: &AuditEntry) -> Event {
    let warning = matches!(entry.action, AuditAction::DrainEnded | AuditAction::DrainCancelled)
        && entry.outcome.as_deref().is_some_and(|o| o != "Drained");
    Event {
        metadata: ObjectMeta {
            name: Some(event_name(&entry.node)),
            namespace: Some(EVENT_NAMESPACE.into()),
            ..Default::default()
        },
        event_time: Some(MicroTime(entry.at)),
        action: Some(format!("{:?}", entry.action)),
        reason: Some(entry.action.reason().into()),
        note: Some(entry.sentence().chars().take(1024).collect()),
        type_: Some(if warning { "Warning" } else { "Normal" }.into()),
        regarding: Some(ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Node".into()),
            name: Some(entry.node.clone()),
            // As the kubelet's own Events about a node: the node's name as its UID, which `kubectl describe node`
            // looks for, and which costs no read of the Node.
            uid: Some(entry.node.clone()),
            ..Default::default()
        }),
        reporting_controller: Some("drainboard.dev/drainboard".into()),
        reporting_instance: Some(instance()),
        ..Default::default()
    }
}

/// A unique Event name that starts with the node's, as the kubelet's do (`node-3.drainboard.<16 hex>`), within
/// the 253 characters a name may have.
fn event_name(node: &str) -> String {
    let prefix: String = node.chars().take(200).collect();
    let prefix = prefix.trim_end_matches(['.', '-']);
    let unique = uuid::Uuid::new_v4().simple().to_string();
    format!("{prefix}.drainboard.{}", &unique[..16])
}

/// This server's name in Events: the host's name, bounded as the API requires (128 characters).
fn instance() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let host = host.trim();
    let name = if host.is_empty() { "drainboard".to_string() } else { format!("drainboard@{host}") };
    name.chars().take(128).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_entry_is_one_json_line_appended() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("audit.jsonl");
        std::fs::write(&path, "{\"earlier\":true}\n").expect("an earlier line");
        let audit = Audit::new(Some(&path), None).expect("opened");
        let mut entry = AuditEntry::new("alice", AuditAction::Cordon, "node-3", jiff::Timestamp::now());
        entry.reason = Some("kernel \"6.12\"\nupdate".into());
        audit.record(entry.clone()).await;
        audit.record(AuditEntry::new("bob", AuditAction::Uncordon, "node-3", jiff::Timestamp::now())).await;
        let text = std::fs::read_to_string(&path).expect("read back");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "appended, one line each, even with a newline in the reason: {text}");
        let first: AuditEntry = serde_json::from_str(lines[1]).expect("an entry");
        assert_eq!(first, entry);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let fresh = dir.path().join("fresh.jsonl");
            Audit::new(Some(&fresh), None).expect("created");
            let mode = std::fs::metadata(&fresh).expect("exists").permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "readable by its owner only");
        }
    }

    /// A person refused in a loop writes 20 lines, then is held back; another person's refusals still get in.
    #[test]
    fn refused_attempts_are_written_at_a_pace_per_person() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("audit.jsonl");
        let audit = Audit::new(Some(&path), None).expect("opened");
        let refused = |user: &str| {
            let mut entry = AuditEntry::new(user, AuditAction::Cordon, "node-3", jiff::Timestamp::now());
            entry.outcome = Some("refused: forbidden".into());
            entry
        };
        for _ in 0..500 {
            audit.record_refused(&refused("mallory"));
        }
        audit.record_refused(&refused("alice"));
        let text = std::fs::read_to_string(&path).expect("read back");
        let users: Vec<String> =
            text.lines().map(|l| serde_json::from_str::<AuditEntry>(l).expect("an entry").user).collect();
        assert_eq!(users.iter().filter(|u| *u == "mallory").count(), 20, "the burst, then held back");
        assert_eq!(users.last().map(String::as_str), Some("alice"), "another person is not held back");
        assert_eq!(audit.refused.held.lock().get("mallory"), Some(&480), "what was held back is counted");
    }

    #[test]
    fn event_names_are_valid_names_for_any_node_name() {
        let name = event_name("node-3");
        assert!(name.starts_with("node-3.drainboard.") && name.len() == "node-3.drainboard.".len() + 16, "{name}");
        let long = format!("{}-{}", "a".repeat(199), "b".repeat(53));
        let name = event_name(&long);
        assert!(name.len() <= 253, "{}", name.len());
        assert!(!name.contains("-.") && !name.contains(".."), "{name}");
        assert_ne!(event_name("n"), event_name("n"), "unique");
    }

    #[test]
    fn the_event_names_the_node_the_person_and_the_outcome() {
        let mut entry = AuditEntry::new("alice", AuditAction::DrainEnded, "node-3", jiff::Timestamp::now());
        entry.outcome = Some("Failed: 1 of 2 pods could not be evicted".into());
        let event = event(&entry);
        assert_eq!(event.regarding.as_ref().and_then(|r| r.name.as_deref()), Some("node-3"));
        assert_eq!(event.type_.as_deref(), Some("Warning"));
        assert_eq!(event.reason.as_deref(), Some("DrainboardDrainEnded"));
        assert!(event.note.as_deref().is_some_and(|n| n.starts_with("alice's drain ended on node-3: Failed")));
    }
}
