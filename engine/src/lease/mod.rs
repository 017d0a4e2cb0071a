//! Replicas agree through Kubernetes, not a protocol of their own: a real drain holds a `coordination.k8s.io`
//! Lease per node (`drainboard-drain.<node>` in the server's namespace) and renews it while it runs.
//!
//! - A second server refuses to drain a node whose Lease another server holds and renews.
//! - The holder stops evicting when it cannot renew for [`GIVE_UP_AFTER`], shorter than the Lease's
//!   [`LEASE_SECONDS`]: by the time another server may take the Lease over, the first has stopped.
//! - A drain recorded as running on a node reads as interrupted only once its Lease has expired.
//!
//! - The holder publishes its drain's summary (who, why, how far) on the Lease at each renewal, so every other
//!   server shows the drain live, with its progress, at most [`RENEW_EVERY`] behind ([`Leases::follow`]).
//!
//! Written with the server's own identity. One Lease per node keeps every write small and independent.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use domain::progress::{DrainSummary, MAX_SUMMARY_BYTES};
use futures::StreamExt;
use kube::ResourceExt;
use kube::runtime::{WatchStreamExt, reflector, watcher};
use tokio::sync::watch;

mod guard;
mod seen;

pub(crate) use guard::guard;
pub use guard::{GIVE_UP_AFTER, RENEW_EVERY};
use jiff::Timestamp;
use k8s_openapi::{
    api::coordination::v1::{Lease, LeaseSpec},
    apimachinery::pkg::apis::meta::v1::MicroTime,
};
use kube::{
    Api, Client,
    api::{DeleteParams, ObjectMeta, PostParams, Preconditions},
};

/// How long a Lease stands without renewal: as long as a node's own Lease, so that an API server restart (tens of
/// seconds) does not end the drains that hold one.
pub const LEASE_SECONDS: i32 = 40;

/// The annotation on a Lease that carries its drain's [`DrainSummary`].
pub const SUMMARY_ANNOTATION: &str = "drainboard.dev/progress";
/// The label every drain Lease carries, so that a server can watch them and nothing else.
const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "drainboard");
/// The same, as a label selector.
pub(crate) const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by=drainboard";

/// Who holds a node's Lease, when someone else does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    Acquired,
    HeldBy(String),
}

/// This server's side of the node Leases.
#[derive(Clone)]
pub struct Leases {
    api: Api<Lease>,
    namespace: String,
    holder: String,
    /// Every drain Lease, from [`Self::follow`]'s watch once it has listed them: what [`Self::held_elsewhere`]
    /// reads instead of asking the API server.
    store: Arc<std::sync::OnceLock<reflector::Store<Lease>>>,
    /// When this server saw each Lease last change, by its own clock: a Lease lapses only once unchanged for its
    /// duration by it, as well as by its renewal time.
    seen: Arc<seen::Seen>,
}

/// The start of every drain Lease's name.
const PREFIX: &str = "drainboard-drain.";

/// The Lease's name for `node`: `drainboard-drain.<node>`. A node name too long for that (over 236 characters) keeps
/// its start and gains a digest of the whole, so that every node still has a Lease of its own and no node goes
/// undrained for want of one.
fn name(node: &str) -> String {
    named(PREFIX, node)
}

/// The start of every plan Lease's name: the Lease names the server that runs the plan.
const PLAN_PREFIX: &str = "drainboard-plan.";

/// A Lease's name for `key` after `prefix`, cut to fit with a digest of the whole as [`name`] explains.
fn named(prefix: &str, node: &str) -> String {
    let name = format!("{prefix}{node}");
    if name.len() <= 253 {
        return name;
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(node.as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let keep = 253 - prefix.len() - 1 - hex.len();
    // Node names are ASCII (RFC 1123); `get` keeps this from panicking on anything else.
    let start = node.get(..keep).unwrap_or("node").trim_end_matches(['.', '-']);
    format!("{prefix}{start}-{hex}")
}

impl Leases {
    /// Leases in `namespace`, written with `client`, held as this server (its host name and a random suffix).
    pub fn new(client: Client, namespace: &str) -> Self {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let host: String = host.trim().chars().take(60).collect();
        let suffix = uuid::Uuid::new_v4().simple().to_string();
        let holder = format!("{}/{}", if host.is_empty() { "drainboard" } else { &host }, &suffix[..8]);
        Leases {
            api: Api::namespaced(client, namespace),
            namespace: namespace.to_owned(),
            holder,
            store: Default::default(),
            seen: Default::default(),
        }
    }

    /// Whether Lease `name` (`spec`) stands at `now`: renewed within its duration, by its renewal time and by
    /// this server's own clock since it last saw it change ([`seen`]). Lapsed only when both say so.
    fn stands(&self, name: &str, spec: &LeaseSpec, now: Timestamp) -> bool {
        // Both are asked, so that each sighting is noted.
        let seen = self.seen.stands(name, spec);
        live(spec, now) || seen
    }

    /// The namespace the Leases are kept in.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// This server's holder identity.
    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// Takes `node`'s Lease if nobody else holds a live one.
    pub async fn acquire(&self, node: &str) -> Result<Claim, kube::Error> {
        self.acquire_named(name(node)).await
    }

    /// Takes plan `plan`'s Lease (`drainboard-plan.<plan>`) if nobody else holds a live one: the server that holds
    /// it runs the plan.
    pub async fn acquire_plan(&self, plan: &str) -> Result<Claim, kube::Error> {
        self.acquire_named(named(PLAN_PREFIX, plan)).await
    }

    /// Renews plan `plan`'s Lease; false when another server holds it now.
    pub async fn renew_plan(&self, plan: &str) -> Result<bool, kube::Error> {
        self.renew_named(named(PLAN_PREFIX, plan), None).await
    }

    /// Lets plan `plan`'s Lease go, if this server holds it, so that another may take the plan over at once.
    pub async fn release_plan(&self, plan: &str) {
        self.release_named(named(PLAN_PREFIX, plan)).await
    }

    /// The server that holds a live Lease on plan `plan`, this one included, and how long its Lease stands unless
    /// renewed: from the watch of the Leases once it has listed them (a plan another server runs costs no request
    /// per look), asked before that.
    pub async fn plan_runner(&self, plan: &str) -> Result<Option<(String, Duration)>, kube::Error> {
        let name = named(PLAN_PREFIX, plan);
        let Some(lease) = self.watched(&name).await? else {
            return Ok(None);
        };
        let spec = lease.spec.unwrap_or_default();
        let now = Timestamp::now();
        let holder = spec.holder_identity.clone().filter(|h| !h.is_empty()).filter(|_| self.stands(&name, &spec, now));
        Ok(holder.map(|holder| (holder, left(&spec, now))))
    }

    /// Lease `name`: from the watch, once it has listed the Leases (a read costs the API server nothing); before
    /// that, asked.
    async fn watched(&self, name: &str) -> Result<Option<Lease>, kube::Error> {
        use futures::FutureExt;
        let listed = self.store.get().filter(|store| store.wait_until_ready().now_or_never().is_some());
        match listed {
            Some(store) => {
                Ok(store.get(&reflector::ObjectRef::new(name).within(&self.namespace)).map(|l| (*l).clone()))
            }
            None => self.api.get_opt(name).await,
        }
    }

    /// The plan a plan Lease named `lease` is for: a trigger to look at it, never more (a name cut to fit reads as
    /// the plan named so, if any, which then merely looks once more).
    pub fn plan_of(lease: &str) -> Option<&str> {
        lease.strip_prefix(PLAN_PREFIX)
    }

    /// The node a drain Lease named `lease` is for, on the same terms.
    pub fn node_of(lease: &str) -> Option<&str> {
        lease.strip_prefix(PREFIX)
    }

    async fn acquire_named(&self, name: String) -> Result<Claim, kube::Error> {
        for _ in 0..3 {
            let now = Timestamp::now();
            let result = match self.api.get_opt(&name).await? {
                None => {
                    let lease = Lease {
                        metadata: ObjectMeta {
                            name: Some(name.clone()),
                            namespace: Some(self.namespace.clone()),
                            labels: Some(BTreeMap::from([(MANAGED_BY.0.to_owned(), MANAGED_BY.1.to_owned())])),
                            ..Default::default()
                        },
                        spec: Some(self.spec(now, None, 0)),
                    };
                    self.api.create(&PostParams::default(), &lease).await
                }
                Some(mut lease) => {
                    let spec = lease.spec.clone().unwrap_or_default();
                    let other = spec.holder_identity.clone().filter(|h| !h.is_empty() && *h != self.holder);
                    if let Some(other) = other.filter(|_| self.stands(&name, &spec, now)) {
                        return Ok(Claim::HeldBy(other));
                    }
                    let transitions = spec.lease_transitions.unwrap_or(0).saturating_add(1);
                    lease.spec = Some(self.spec(now, None, transitions));
                    // The last holder's summary is not this drain's.
                    if let Some(annotations) = lease.metadata.annotations.as_mut() {
                        annotations.remove(SUMMARY_ANNOTATION);
                    }
                    lease
                        .metadata
                        .labels
                        .get_or_insert_default()
                        .insert(MANAGED_BY.0.to_owned(), MANAGED_BY.1.to_owned());
                    self.api.replace(&name, &PostParams::default(), &lease).await
                }
            };
            match result {
                Ok(_) => return Ok(Claim::Acquired),
                // Another server wrote it at the same moment: look again.
                Err(e) if crate::kube_error::conflict(&e) => continue,
                Err(err) => return Err(err),
            }
        }
        Ok(Claim::HeldBy("another server (the Lease kept changing)".into()))
    }

    /// Renews `node`'s Lease, publishing `summary` on it. False when another server holds it now: this one must
    /// stop.
    pub async fn renew(&self, node: &str, summary: Option<&DrainSummary>) -> Result<bool, kube::Error> {
        self.renew_named(name(node), summary).await
    }

    async fn renew_named(&self, name: String, summary: Option<&DrainSummary>) -> Result<bool, kube::Error> {
        let Some(mut lease) = self.api.get_opt(&name).await? else {
            return Ok(false);
        };
        let spec = lease.spec.clone().unwrap_or_default();
        if spec.holder_identity.as_deref() != Some(self.holder.as_str()) {
            return Ok(false);
        }
        let acquired = spec.acquire_time.clone();
        lease.spec = Some(self.spec(Timestamp::now(), acquired, spec.lease_transitions.unwrap_or(0)));
        if let Some(text) = summary.and_then(|s| serde_json::to_string(s).ok()).filter(|t| t.len() <= MAX_SUMMARY_BYTES)
        {
            lease.metadata.annotations.get_or_insert_default().insert(SUMMARY_ANNOTATION.to_owned(), text);
        }
        self.api.replace(&name, &PostParams::default(), &lease).await?;
        Ok(true)
    }

    /// Lets `node`'s Lease go, if this server holds it.
    pub async fn release(&self, node: &str) {
        self.release_named(name(node)).await
    }

    async fn release_named(&self, name: String) {
        if let Ok(Some(lease)) = self.api.get_opt(&name).await
            && lease.spec.as_ref().and_then(|s| s.holder_identity.as_deref()) == Some(self.holder.as_str())
            // Only the Lease as read, still this server's: a delete that arrives late (held in the network) never
            // takes away the Lease another server has taken since.
            && let Err(err) = self.api.delete(&name, &on_version(&lease)).await
        {
            tracing::warn!(lease = %name, error = %crate::kube_error::api_message(&err), "could not release a Lease");
        }
    }

    /// The other server that holds a live Lease on `node`, if one does.
    pub async fn held_elsewhere(&self, node: &str) -> Result<Option<String>, kube::Error> {
        let name = name(node);
        let Some(lease) = self.watched(&name).await? else {
            return Ok(None);
        };
        let spec = lease.spec.unwrap_or_default();
        Ok(spec
            .holder_identity
            .clone()
            .filter(|h| !h.is_empty() && *h != self.holder)
            .filter(|_| self.stands(&name, &spec, Timestamp::now())))
    }

    /// Follows every drain Lease in the namespace under `tasks`, with one watch: the receiver holds the drains
    /// other servers run now (live Leases whose holder is not this server), each with the summary its holder
    /// published, by node. Re-read every [`RENEW_EVERY`] as well as on each change, so that a drain whose server
    /// died leaves the list when its Lease expires, though nothing changes in the API.
    pub fn follow(&self, tasks: &crate::tasks::Tasks) -> watch::Receiver<Arc<Vec<DrainSummary>>> {
        let (tx, rx) = watch::channel(Arc::new(Vec::new()));
        let (store, writer) = reflector::store();
        let _ = self.store.set(store.clone());
        let config = watcher::Config::default().labels(MANAGED_BY_LABEL);
        let events = watcher(self.api.clone(), config)
            .default_backoff()
            .modify(|lease: &mut Lease| lease.metadata.managed_fields = None)
            .reflect(writer)
            .applied_objects();
        let holder = self.holder.clone();
        let seen = self.seen.clone();
        let shutdown = tasks.shutdown_signal().clone();
        tasks.spawn(async move {
            let mut events = std::pin::pin!(events);
            let mut tick = tokio::time::interval(RENEW_EVERY);
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    event = events.next() => match event {
                        None => break,
                        // Each change is seen as it comes, by this server's clock.
                        Some(Ok(lease)) => {
                            let _ = seen.stands(&lease.name_any(), &lease.spec.clone().unwrap_or_default());
                        }
                        Some(Err(_)) => {}
                    },
                    _ = tick.tick() => {
                        seen.keep_only(&store.state().iter().map(|l| l.name_any()).collect());
                    }
                }
                let now = Timestamp::now();
                let mut drains: Vec<DrainSummary> =
                    store.state().iter().filter_map(|lease| elsewhere(lease, &holder, now)).collect();
                drains.sort_by(|a, b| a.node.cmp(&b.node));
                tx.send_if_modified(|shown| {
                    let changed = shown.as_slice() != drains.as_slice();
                    if changed {
                        *shown = Arc::new(std::mem::take(&mut drains));
                    }
                    changed
                });
            }
        });
        rx
    }

    fn spec(&self, now: Timestamp, acquired: Option<MicroTime>, transitions: i32) -> LeaseSpec {
        LeaseSpec {
            holder_identity: Some(self.holder.clone()),
            lease_duration_seconds: Some(LEASE_SECONDS),
            acquire_time: Some(acquired.unwrap_or(MicroTime(now))),
            renew_time: Some(MicroTime(now)),
            lease_transitions: Some(transitions),
            ..Default::default()
        }
    }
}

/// The drain another server runs under `lease`, if it is live at `now`, held by someone other than `holder`, and
/// carries a summary that adds up. The summary names its node, and the Lease must be that node's: one node's Lease
/// cannot speak for another.
fn elsewhere(lease: &Lease, holder: &str, now: Timestamp) -> Option<DrainSummary> {
    let lease_name = lease.metadata.name.as_deref()?;
    let spec = lease.spec.as_ref()?;
    let other = spec.holder_identity.as_deref().filter(|h| !h.is_empty() && *h != holder)?;
    if !live(spec, now) {
        return None;
    }
    let text = lease.metadata.annotations.as_ref()?.get(SUMMARY_ANNOTATION)?;
    if text.len() > MAX_SUMMARY_BYTES {
        return None;
    }
    let summary = serde_json::from_str::<DrainSummary>(text).ok()?;
    // Whoever may write Leases in the namespace wrote this: the node it names must be a node name, and this Lease
    // that node's.
    if domain::input::node_name(&summary.node).is_err() || name(&summary.node) != lease_name {
        return None;
    }
    let node = summary.node.clone();
    summary.from_lease(other, &node)
}

/// Whether a Lease was renewed within its duration at `now`.
fn live(spec: &LeaseSpec, now: Timestamp) -> bool {
    let (Some(renewed), Some(seconds)) = (spec.renew_time.as_ref(), spec.lease_duration_seconds) else {
        return false;
    };
    // A renewal dated well in the future is no server's (clocks differ by seconds, not minutes): a Lease forged so
    // must not block the node's drains for ever.
    let skew = jiff::SignedDuration::from_secs(60);
    let plausible = now.checked_add(skew).is_ok_and(|latest| renewed.0 <= latest);
    plausible
        && renewed.0.checked_add(jiff::SignedDuration::from_secs(seconds.max(0).into())).is_ok_and(|until| until > now)
}

/// How long a live Lease stands at `now` unless renewed (none left once it lapsed).
fn left(spec: &LeaseSpec, now: Timestamp) -> Duration {
    let (Some(renewed), Some(seconds)) = (spec.renew_time.as_ref(), spec.lease_duration_seconds) else {
        return Duration::ZERO;
    };
    let until = renewed.0.checked_add(jiff::SignedDuration::from_secs(seconds.max(0).into())).unwrap_or(now);
    let most = Duration::from_secs(u64::try_from(seconds.max(0)).unwrap_or(0));
    Duration::try_from(until.duration_since(now)).unwrap_or(Duration::ZERO).min(most)
}

/// A delete of `lease` only as it was read: refused (409) once anyone wrote it since.
fn on_version(lease: &Lease) -> DeleteParams {
    let (resource_version, uid) = (lease.metadata.resource_version.clone(), lease.metadata.uid.clone());
    DeleteParams { preconditions: Some(Preconditions { resource_version, uid }), ..DeleteParams::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_live_only_within_its_duration() {
        let now: Timestamp = "2026-11-30T12:00:00Z".parse().unwrap();
        let spec = |renewed: &str, seconds| LeaseSpec {
            renew_time: Some(MicroTime(renewed.parse().unwrap())),
            lease_duration_seconds: Some(seconds),
            ..Default::default()
        };
        assert!(live(&spec("2026-11-30T11:59:50Z", 15), now));
        assert!(!live(&spec("2026-11-30T11:59:40Z", 15), now));
        assert!(!live(&spec("2026-11-30T11:59:59Z", -5), now), "a negative duration is no lease");
        assert!(!live(&LeaseSpec::default(), now));
        assert!(live(&spec("2026-11-30T12:00:00Z", i32::MAX), now), "a huge duration does not overflow");
        assert!(!live(&spec("2027-01-01T00:00:00Z", 15), now), "a renewal dated in the future is forged");
        let late = LeaseSpec { renew_time: Some(MicroTime(jiff::Timestamp::MAX)), ..spec("2026-11-30T12:00:00Z", 15) };
        assert!(!live(&late, now), "a renewal past the calendar's end reads as no lease, without a panic");
        assert_eq!(left(&spec("2026-11-30T11:59:50Z", 15), now), Duration::from_secs(5));
        assert_eq!(left(&spec("2026-11-30T11:59:40Z", 15), now), Duration::ZERO, "a lapsed Lease has none left");
        assert_eq!(left(&spec("2026-11-30T12:00:00Z", i32::MAX), now).as_secs(), u64::from(i32::MAX.unsigned_abs()));
    }

    #[test]
    fn a_plan_lease_names_its_plan_unless_cut_to_fit() {
        assert_eq!(Leases::plan_of("drainboard-plan.night"), Some("night"));
        assert_eq!(Leases::plan_of("drainboard-drain.node-1"), None);
        assert_eq!(Leases::node_of("drainboard-drain.node-1"), Some("node-1"));
        assert_eq!(Leases::node_of("drainboard-plan.night"), None);
        let long = "p".repeat(250);
        assert_ne!(
            Leases::plan_of(&named(PLAN_PREFIX, &long)),
            Some(long.as_str()),
            "a name cut to fit is not the plan's"
        );
    }

    #[test]
    fn another_servers_live_lease_shows_its_summary_and_nothing_else_does() {
        let now: Timestamp = "2026-11-30T12:00:00Z".parse().unwrap();
        let summary = |node: &str, done: usize| {
            serde_json::json!({"id": "d1", "node": node, "started_by": "alice", "started_at": "2026-11-30T11:59:00Z",
                "reason": null, "dry_run": false, "state": "Evicting", "total": 3, "done": done,
                "blocked_by": null, "finished_at": null})
            .to_string()
        };
        let lease = |holder: &str, renewed: &str, text: String| Lease {
            metadata: ObjectMeta {
                name: Some("drainboard-drain.n1".into()),
                annotations: Some(BTreeMap::from([(SUMMARY_ANNOTATION.to_owned(), text)])),
                ..Default::default()
            },
            spec: Some(LeaseSpec {
                holder_identity: Some(holder.into()),
                renew_time: Some(MicroTime(renewed.parse().unwrap())),
                lease_duration_seconds: Some(LEASE_SECONDS),
                ..Default::default()
            }),
        };
        let shown = elsewhere(&lease("other/1", "2026-11-30T11:59:55Z", summary("n1", 1)), "me/1", now).expect("shown");
        assert_eq!((shown.done, shown.elsewhere.as_deref()), (1, Some("other/1")));
        assert!(elsewhere(&lease("me/1", "2026-11-30T11:59:55Z", summary("n1", 1)), "me/1", now).is_none(), "mine");
        assert!(
            elsewhere(&lease("other/1", "2026-11-30T11:58:00Z", summary("n1", 1)), "me/1", now).is_none(),
            "expired"
        );
        assert!(
            elsewhere(&lease("other/1", "2026-11-30T11:59:55Z", summary("n2", 1)), "me/1", now).is_none(),
            "another node's"
        );
        assert!(
            elsewhere(&lease("other/1", "2026-11-30T11:59:55Z", summary("n1", 4)), "me/1", now).is_none(),
            "4 of 3"
        );
        let long = "n".repeat(240);
        let mut under_digest = lease("other/1", "2026-11-30T11:59:55Z", summary(&long, 1));
        under_digest.metadata.name = Some(name(&long));
        assert_eq!(elsewhere(&under_digest, "me/1", now).map(|s| s.node), Some(long), "a long name's Lease");
        let mut not_a_name = lease("other/1", "2026-11-30T11:59:55Z", summary("n1/status", 1));
        not_a_name.metadata.name = Some(name("n1/status"));
        assert!(elsewhere(&not_a_name, "me/1", now).is_none(), "a summary naming no node");
        let huge = format!("{{\"pad\": \"{}\"}}", "x".repeat(MAX_SUMMARY_BYTES));
        assert!(elsewhere(&lease("other/1", "2026-11-30T11:59:55Z", huge), "me/1", now).is_none(), "too large");
    }

    #[test]
    fn every_node_has_a_lease_name_of_its_own() {
        assert_eq!(name("node-3"), "drainboard-drain.node-3");
        let fits = "a".repeat(236);
        assert_eq!(name(&fits), format!("drainboard-drain.{fits}"), "236 characters fit as they are");
        let long = |tail: &str| format!("{}{tail}", "a.b-".repeat(62));
        let (one, two) = (name(&long("x1")), name(&long("x2")));
        assert_ne!(one, two, "two long names that share their start still differ");
        for n in [&one, &two, &name(&"a".repeat(253))] {
            assert!(n.len() <= 253, "{} characters", n.len());
            assert!(domain::input::node_name(n).is_ok(), "a valid name: {n}");
        }
        assert_eq!(name(&long("x1")), one, "the same node, the same name");
        assert!(!name("é".repeat(200).as_str()).is_empty(), "no panic on a name that is not ASCII");
    }
}
