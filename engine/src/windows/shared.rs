//! Admission into maintenance across replicas: the nodes any server admitted lately, kept on one Lease
//! (`drainboard-admissions` in the server's namespace, annotation `drainboard.dev/admitted`). A server reads it,
//! decides with those nodes counted as in maintenance, and writes its own admission back conditionally on the
//! version it read. Two replicas admitting at once cannot both succeed on one version: the second reads again,
//! now counting the first's node, so together they stay within a window's budget even before their caches see
//! each other's cordons. Each entry lapses after a few seconds, once every cache has seen the cordon.

use std::collections::BTreeMap;

use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::Lease;
use kube::{
    Api, Client,
    api::{ObjectMeta, PostParams},
};

/// The Lease's name.
pub const NAME: &str = "drainboard-admissions";
/// The annotation that lists the nodes admitted lately, as JSON: each node's name and when its entry lapses (Unix
/// seconds).
pub const ADMITTED: &str = "drainboard.dev/admitted";
/// At most this many entries are kept: each lapses within seconds, so more would mean a runaway, and the annotation
/// must stay small.
const MOST: usize = 1_000;

/// The shared admissions, read and written with the server's own identity.
#[derive(Clone)]
pub struct Shared {
    api: Api<Lease>,
}

/// The Lease as read, to write back on, and the nodes admitted lately.
pub struct Read {
    lease: Lease,
    entries: BTreeMap<String, i64>,
}

impl Read {
    /// The nodes admitted lately by any server.
    pub fn nodes(&self) -> Vec<String> {
        self.entries.keys().cloned().collect()
    }
}

impl Shared {
    pub fn new(client: Client, namespace: &str) -> Self {
        Shared { api: Api::namespaced(client, namespace) }
    }

    /// The admissions now, entries that lapsed left out; the Lease is made when there is none yet.
    pub async fn read(&self, now: Timestamp) -> Result<Read, kube::Error> {
        let lease = match self.api.get_opt(NAME).await? {
            Some(lease) => lease,
            None => {
                let fresh = Lease {
                    metadata: ObjectMeta {
                        name: Some(NAME.into()),
                        labels: Some([("app.kubernetes.io/managed-by".to_owned(), "drainboard".to_owned())].into()),
                        ..Default::default()
                    },
                    ..Default::default()
                };
                match self.api.create(&PostParams::default(), &fresh).await {
                    Ok(made) => made,
                    // Another server made it meanwhile.
                    Err(err) if crate::kube_error::conflict(&err) => self.api.get(NAME).await?,
                    Err(err) => return Err(err),
                }
            }
        };
        let entries = entries_of(&lease, now);
        Ok(Read { lease, entries })
    }

    /// Adds `node`, lapsing `for_seconds` from `now`, to the admissions as read. False when another server wrote
    /// them since: read again, and decide again.
    pub async fn add(&self, read: Read, node: &str, now: Timestamp, for_seconds: i64) -> Result<bool, kube::Error> {
        let Read { mut lease, mut entries } = read;
        entries.insert(node.to_owned(), now.as_second().saturating_add(for_seconds));
        while entries.len() > MOST {
            // The soonest to lapse goes first.
            let Some(first) = entries.iter().min_by_key(|(_, until)| **until).map(|(n, _)| n.clone()) else { break };
            entries.remove(&first);
        }
        let json = serde_json::to_string(&entries).unwrap_or_else(|_| "{}".into());
        lease.metadata.annotations.get_or_insert_with(Default::default).insert(ADMITTED.into(), json);
        // The resourceVersion read is kept: the API server refuses this write if the Lease changed since.
        match self.api.replace(NAME, &PostParams::default(), &lease).await {
            Ok(_) => Ok(true),
            Err(err) if crate::kube_error::conflict(&err) => Ok(false),
            Err(err) => Err(err),
        }
    }
}

/// The longest an entry may stand, in seconds: one that claims longer was not written by a server (anyone who may
/// write Leases in the namespace may write the annotation), and is dropped rather than hold a budget for long.
const LONGEST: i64 = 60;

/// The entries of `lease` that have not lapsed at `now`. An annotation that does not read counts as none, and so
/// does an entry that is no node's name or that would stand longer than [`LONGEST`]: the caches still count every
/// cordon.
fn entries_of(lease: &Lease, now: Timestamp) -> BTreeMap<String, i64> {
    let text = lease.metadata.annotations.as_ref().and_then(|a| a.get(ADMITTED));
    let entries: BTreeMap<String, i64> = text.and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default();
    let now = now.as_second();
    entries
        .into_iter()
        .filter(|(node, until)| {
            *until > now && *until <= now.saturating_add(LONGEST) && domain::input::node_name(node).is_ok()
        })
        .take(MOST)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(annotation: &str) -> Lease {
        Lease {
            metadata: ObjectMeta {
                annotations: Some([(ADMITTED.to_owned(), annotation.to_owned())].into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn entries_lapse_and_bad_ones_are_dropped() {
        let now = Timestamp::from_second(1_000).unwrap_or_default();
        let read = entries_of(&lease(r#"{"n1": 1010, "n2": 999, "Not A Node!": 1010, "n3": 99999}"#), now);
        assert_eq!(read.keys().collect::<Vec<_>>(), ["n1"], "n2 lapsed; no node's name, and n3's far future, dropped");
        assert!(entries_of(&lease("not json"), now).is_empty(), "an unreadable annotation counts as none");
        assert!(entries_of(&Lease::default(), now).is_empty());
    }
}
