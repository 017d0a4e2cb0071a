//! Authorization: every SelfSubjectAccessReview the engine sends, and what it makes of the answers. What of the
//! shared cache a person may read (their [`Visibility`]), and what they may not do ([`Lacking`], the permission
//! each action lacks). One room, so that a reviewer finds every question asked of the API server's authorizer in
//! one place, and one rule for how long an answer is trusted.
//!
//! Answers are kept per identity for a short time ([`READ_CHECK_TTL`], [`PERMISSION_TTL`]) in bounded caches: a
//! stream or a page asks what a person may read on every load, and a rollout asks what they may do for every node
//! it starts; a hundred viewers must not cost the authorizer a hundred rounds a minute.

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use domain::{
    actions::Lacking,
    capacity::CapacityReport,
    node::NodeCard,
    preview::PreviewInputs,
    progress::{DrainProgress, DrainSummary},
};
use kube::Client;
use moka::sync::Cache;

use crate::{Identity, Result, cache::ClusterCache};

/// How long a person's answer to "may they read the whole board" is kept before it is asked again.
const READ_CHECK_TTL: Duration = Duration::from_secs(60);
/// How long a person's permissions are kept. Shorter than the read check's: they decide whether the server writes
/// on the person's behalf (the Lease, the history, the Event of a drain), and a role taken away should count soon.
const PERMISSION_TTL: Duration = Duration::from_secs(15);
/// The most people whose answers are kept; the least used make room.
const ANSWERS_KEPT: u64 = 10_000;
/// The most namespaces asked about at once for one person.
const NAMESPACE_CHECKS_AT_ONCE: usize = 16;

/// What of the shared cache a person may read (team mode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reader {
    /// Everything: they may list and watch all it holds.
    Everything,
    /// The nodes (and their Leases), and the pods of these namespaces only.
    Namespaces(Arc<BTreeSet<String>>),
    /// Not the nodes: they read a cache of their own, and RBAC says what fails.
    Own,
}

/// What of its cache a viewer is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// All of it: their own cache, or the shared one when they may read it all.
    All,
    /// The shared cache's nodes, and only the pods of these namespaces: a person who may list nodes, and pods in
    /// some namespaces only (team mode).
    Namespaces(Arc<BTreeSet<String>>),
}

impl Visibility {
    /// Whether the viewer sees the pods and budgets of `namespace`.
    pub fn sees(&self, namespace: &str) -> bool {
        match self {
            Visibility::All => true,
            Visibility::Namespaces(namespaces) => namespaces.contains(namespace),
        }
    }

    /// The cards as the viewer sees them.
    pub fn cards(&self, cards: &[Arc<NodeCard>]) -> Vec<Arc<NodeCard>> {
        match self {
            Visibility::All => cards.to_vec(),
            Visibility::Namespaces(namespaces) => {
                cards.iter().map(|card| Arc::new(card.visible_to(namespaces))).collect()
            }
        }
    }

    /// A drain preview's inputs as the viewer sees them.
    pub fn preview(&self, inputs: PreviewInputs) -> PreviewInputs {
        match self {
            Visibility::All => inputs,
            Visibility::Namespaces(namespaces) => inputs.visible_to(namespaces),
        }
    }

    /// A capacity check as the viewer sees it.
    pub fn capacity(&self, report: CapacityReport) -> CapacityReport {
        match self {
            Visibility::All => report,
            Visibility::Namespaces(namespaces) => report.visible_to(namespaces),
        }
    }

    /// The drains' summaries as the viewer sees them.
    pub fn summaries(&self, summaries: Vec<DrainSummary>) -> Vec<DrainSummary> {
        match self {
            Visibility::All => summaries,
            Visibility::Namespaces(namespaces) => summaries.into_iter().map(|s| s.visible_to(namespaces)).collect(),
        }
    }

    /// A node's history as the viewer sees it: for a reader of some namespaces, how each drain ended without the
    /// free text that can name other namespaces' pods.
    pub fn history(&self, entries: Vec<domain::audit::AuditEntry>) -> Vec<domain::audit::AuditEntry> {
        match self {
            Visibility::All => entries,
            Visibility::Namespaces(_) => entries.into_iter().map(|e| e.without_pod_detail()).collect(),
        }
    }

    /// A drain's progress as the viewer sees it.
    pub fn progress(&self, progress: DrainProgress) -> DrainProgress {
        match self {
            Visibility::All => progress,
            Visibility::Namespaces(namespaces) => progress.visible_to(namespaces),
        }
    }
}

impl From<Reader> for Visibility {
    fn from(reader: Reader) -> Self {
        match reader {
            Reader::Namespaces(namespaces) => Visibility::Namespaces(namespaces),
            Reader::Everything | Reader::Own => Visibility::All,
        }
    }
}

/// The answers the authorizer gave, per identity, each kept for a short time.
#[derive(Clone)]
pub(crate) struct Authz {
    readers: Cache<Identity, Reader>,
    permissions: Cache<Identity, Lacking>,
    /// Whether each person may list the maintenance windows, which the page's line of them shows.
    windows: Cache<Identity, bool>,
}

impl Default for Authz {
    fn default() -> Self {
        Authz { readers: kept(READ_CHECK_TTL), permissions: kept(PERMISSION_TTL), windows: kept(READ_CHECK_TTL) }
    }
}

/// Answers kept `ttl`, for at most [`ANSWERS_KEPT`] people.
fn kept<V: Clone + Send + Sync + 'static>(ttl: Duration) -> Cache<Identity, V> {
    Cache::builder().max_capacity(ANSWERS_KEPT).time_to_live(ttl).build()
}

/// The kinds the board reads, each asked about with `list` and `watch`: the nodes and their Leases first, which a
/// person who reads some namespaces only still reads whole.
const BOARD_KINDS: [(&str, &str); 4] =
    [("", "nodes"), ("coordination.k8s.io", "leases"), ("", "pods"), ("policy", "poddisruptionbudgets")];

impl Authz {
    /// Whether `identity`, acting through `client`, may list `maintenancewindows`: what the windows' decisions,
    /// read with the server's own identity, are shown to.
    pub async fn reads_windows(&self, identity: &Identity, client: &Client) -> Result<bool> {
        if let Some(answer) = self.windows.get(identity) {
            return Ok(answer);
        }
        let answer = may(client, "list", "drainboard.dev", "maintenancewindows", None).await?;
        self.windows.insert(identity.clone(), answer);
        Ok(answer)
    }

    /// What of `shared` (the server's shared cache) `identity`, acting through `client`, may read.
    pub async fn reader(&self, identity: &Identity, client: &Client, shared: &ClusterCache) -> Result<Reader> {
        if let Some(answer) = self.readers.get(identity) {
            return Ok(answer);
        }
        let reviews = BOARD_KINDS
            .iter()
            .flat_map(|(group, resource)| ["list", "watch"].map(|verb| may(client, verb, group, resource, None)));
        let allowed = futures::future::join_all(reviews).await.into_iter().collect::<Result<Vec<bool>>>()?;
        let answer = match reads(&allowed) {
            Reads::Everything => Reader::Everything,
            Reads::NodesOnly => Reader::Namespaces(Arc::new(pod_namespaces(client, shared).await?)),
            Reads::Less => Reader::Own,
        };
        self.readers.insert(identity.clone(), answer.clone());
        Ok(answer)
    }

    /// What `identity`, acting through `client`, may not do, with the permission each action lacks, as the
    /// API server answers now: four reviews, sent together. The answer is kept for [`Self::kept_permissions`].
    ///
    /// Asked afresh each time, since it is what the page asks for, and a person's call that reaches the API server
    /// is how the server learns their credentials stopped working (their sessions are then forgotten).
    pub async fn permissions(&self, identity: &Identity, client: &Client) -> Result<Lacking> {
        let (patch_nodes, list_pods, evict, delete_pods) = futures::try_join!(
            may(client, "patch", "", "nodes", None),
            may(client, "list", "", "pods", None),
            may(client, "create", "", "pods", Some("eviction")),
            may(client, "delete", "", "pods", None),
        )?;
        let answer = lacking(patch_nodes, list_pods, evict, delete_pods);
        self.permissions.insert(identity.clone(), answer.clone());
        Ok(answer)
    }

    /// [`Self::permissions`], answered from the last answer when it is at most [`PERMISSION_TTL`] old: for the
    /// checks an action makes before the server writes on the person's behalf, which a rollout makes for every
    /// node it starts. The person's own calls to the API server still carry their credentials, so a role taken away
    /// meanwhile is refused there.
    pub async fn kept_permissions(&self, identity: &Identity, client: &Client) -> Result<Lacking> {
        match self.permissions.get(identity) {
            Some(answer) => Ok(answer),
            None => self.permissions(identity, client).await,
        }
    }
}

/// How much of the board the answers to [`BOARD_KINDS`] (list, watch of each, in order) let a person read.
#[derive(Debug, PartialEq, Eq)]
enum Reads {
    Everything,
    /// The nodes and their Leases, not all the pods or budgets.
    NodesOnly,
    Less,
}

fn reads(allowed: &[bool]) -> Reads {
    let kind =
        |i: usize| allowed.get(2 * i).copied().unwrap_or(false) && allowed.get(2 * i + 1).copied().unwrap_or(false);
    if (0..BOARD_KINDS.len()).all(kind) {
        Reads::Everything
    } else if kind(0) && kind(1) {
        Reads::NodesOnly
    } else {
        Reads::Less
    }
}

/// What the four answers leave a person unable to do, naming each missing permission.
fn lacking(patch_nodes: bool, list_pods: bool, evict: bool, delete_pods: bool) -> Lacking {
    let missing = |checks: &[(bool, &str)]| {
        let lacking: Vec<&str> = checks.iter().filter(|(ok, _)| !ok).map(|(_, what)| *what).collect();
        (!lacking.is_empty()).then(|| lacking.join(", "))
    };
    Lacking {
        cordon: missing(&[(patch_nodes, "patch nodes")]),
        drain: missing(&[(patch_nodes, "patch nodes"), (list_pods, "list pods"), (evict, "create pods/eviction")]),
        delete_pods: missing(&[(delete_pods, "delete pods")]),
    }
}

/// The namespaces of the shared cache's pods in which `client`'s identity may list pods.
async fn pod_namespaces(client: &Client, shared: &ClusterCache) -> Result<BTreeSet<String>> {
    use futures::StreamExt;
    let answers: Vec<(String, Result<bool>)> = futures::stream::iter(shared.pod_namespaces())
        .map(|namespace| async move {
            let allowed = may_in(client, Some(&namespace), "list", "", "pods", None).await;
            (namespace, allowed)
        })
        .buffer_unordered(NAMESPACE_CHECKS_AT_ONCE)
        .collect()
        .await;
    let mut namespaces = BTreeSet::new();
    for (namespace, allowed) in answers {
        if allowed? {
            namespaces.insert(namespace);
        }
    }
    Ok(namespaces)
}

/// Whether the client's identity may `verb` the resource, cluster-wide, asked of the API server.
pub async fn may(client: &Client, verb: &str, group: &str, resource: &str, subresource: Option<&str>) -> Result<bool> {
    may_in(client, None, verb, group, resource, subresource).await
}

/// Whether the client's identity may `verb` the resource in `namespace` (cluster-wide with `None`), asked of the
/// API server.
pub async fn may_in(
    client: &Client,
    namespace: Option<&str>,
    verb: &str,
    group: &str,
    resource: &str,
    subresource: Option<&str>,
) -> Result<bool> {
    use k8s_openapi::api::authorization::v1::{
        ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
    };
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.into()),
                group: Some(group.into()),
                resource: Some(resource.into()),
                subresource: subresource.map(Into::into),
                namespace: namespace.map(Into::into),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let answer = kube::Api::<SelfSubjectAccessReview>::all(client.clone())
        .create(&kube::api::PostParams::default(), &review)
        .await?;
    Ok(answer.status.is_some_and(|s| s.allowed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_action_names_what_it_lacks() {
        assert_eq!(lacking(true, true, true, true), Lacking::default());
        let viewer = lacking(false, true, false, false);
        assert_eq!(viewer.cordon.as_deref(), Some("patch nodes"));
        assert_eq!(viewer.drain.as_deref(), Some("patch nodes, create pods/eviction"));
        assert_eq!(viewer.delete_pods.as_deref(), Some("delete pods"));
        let no_evictions = lacking(true, true, false, true);
        assert_eq!((no_evictions.cordon, no_evictions.drain.as_deref()), (None, Some("create pods/eviction")));
    }

    #[test]
    fn the_board_is_read_whole_by_nodes_only_or_not_at_all() {
        assert_eq!(reads(&[true; 8]), Reads::Everything);
        let mut no_pod_watch = [true; 8];
        no_pod_watch[5] = false;
        assert_eq!(reads(&no_pod_watch), Reads::NodesOnly, "nodes and Leases, pods by namespace");
        let mut no_lease_watch = [true; 8];
        no_lease_watch[3] = false;
        assert_eq!(reads(&no_lease_watch), Reads::Less);
        assert_eq!(reads(&[]), Reads::Less, "no answer is no right");
    }

    #[test]
    fn a_narrow_reader_sees_some_namespaces_and_anyone_else_all() {
        let namespaces = Arc::new(BTreeSet::from(["team-a".to_owned()]));
        assert_eq!(Visibility::from(Reader::Namespaces(namespaces.clone())), Visibility::Namespaces(namespaces));
        assert_eq!(Visibility::from(Reader::Everything), Visibility::All);
        assert_eq!(Visibility::from(Reader::Own), Visibility::All, "RBAC decides what their own cache holds");
    }
}
