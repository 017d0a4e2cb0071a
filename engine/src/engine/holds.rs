//! What maintenance windows hold (`crate::windows`): the decisions for the page, and the check before a person's
//! cordon, drain or plan and before each node a plan starts. Both read the windows and the cluster with the
//! server's own view, so that a policy holds everyone alike; the page shows a person only the nodes they may read.
//!
//! Admission into maintenance is one at a time on a server, and a node admitted counts as in maintenance for a
//! while even before the cache sees its cordon: two plans and a person starting at once cannot each see room
//! under a window's budget that only one of them has. (Replicas admit apart: each sees the others' cordons
//! through its cache, a moment late.)
//!
//! A person may start what a window holds only with the right to override (`update maintenancewindows/override`,
//! asked of the API server as them) and a reason, and each such start is recorded for every held node: in the
//! audit file, the node's history and an Event.

use domain::{
    audit::{AuditAction, AuditEntry},
    failure::StartRefusal,
    window::{Decision, OVERRIDE_SUBRESOURCE},
};

use super::{Acting, Engine};
use crate::{Error, Result};

/// The permission an override needs, as a refusal names it.
const OVERRIDE: &str = "update maintenancewindows/override (drainboard.dev)";

impl Engine {
    /// The decision for each of `nodes` now. Empty decisions (nothing holds) when this server follows no windows.
    /// For each of `nodes` a window holds now: when the hold lifts, where the window says (the latest of its
    /// holds that say).
    pub(crate) async fn holds_lift(&self, nodes: &[&str]) -> std::collections::BTreeMap<String, jiff::Timestamp> {
        let decisions = self.window_decisions(nodes).await;
        let lifts = |d: &Decision| d.holds.iter().filter_map(|h| domain::teams::held_until(&h.hold)).max();
        decisions.iter().filter_map(|d| Some((d.node.clone(), lifts(d)?))).collect()
    }

    async fn window_decisions(&self, nodes: &[&str]) -> Vec<Decision> {
        self.window_decisions_with(nodes, &[]).await
    }

    /// As [`Self::window_decisions`], with `admitted` (by other replicas, lately) counted as in maintenance too.
    async fn window_decisions_with(&self, nodes: &[&str], admitted: &[String]) -> Vec<Decision> {
        let (Some(windows), Some((_, cache))) = (&self.windows, &self.shared) else {
            return nodes.iter().map(|n| Decision { node: (*n).into(), ..Decision::default() }).collect();
        };
        windows.known().await;
        // The drains this server runs, and the nodes it admitted lately, are in maintenance even before the cache
        // sees their cordons. A dry run changes nothing and takes no node out of service: it never counts.
        let running: Vec<String> = self
            .drains
            .all()
            .into_iter()
            .filter(|d| d.state.is_running() && d.options.dry_run == domain::drain::DryRun::None)
            .map(|d| d.node)
            .collect();
        // A node admitted lately counts until the cache sees it cordoned; from then on the cache's word is enough,
        // so that an uncordon frees its place at once.
        let lately: Vec<String> = self
            .admissions
            .lately
            .iter()
            .map(|(node, ())| (*node).clone())
            .filter(|node| match cache.node_card(node) {
                Some(card) if card.unschedulable => {
                    self.admissions.lately.invalidate(node);
                    false
                }
                _ => true,
            })
            .collect();
        let starting: Vec<&str> = running.iter().chain(&lately).chain(admitted).map(String::as_str).collect();
        windows.decide(cache, nodes, &starting, jiff::Timestamp::now())
    }

    /// Admits `node` into maintenance when nothing holds it, counting it as in maintenance from now on; the
    /// decision either way. A node that windows cover is admitted through the admissions every replica shares.
    pub(crate) async fn admit(&self, node: &str) -> Decision {
        let _one = self.admissions.one_at_a_time.lock().await;
        let decision = self.window_decisions(&[node]).await.pop().unwrap_or_default();
        let shared = self.admissions.shared.as_ref().filter(|_| !decision.windows.is_empty());
        let decision = match (decision.may_start(), shared) {
            (true, Some(shared)) => self.admit_shared(shared, node).await.unwrap_or(decision),
            _ => decision,
        };
        if decision.may_start() {
            self.admissions.lately.insert(node.to_owned(), ());
        }
        decision
    }

    /// Decides again with every replica's recent admissions counted, and records this one for the others: read,
    /// decide, write back on the version read; another server's write in between means reading and deciding
    /// again. `None` when the shared admissions cannot be had (the decision made alone stands, as it would on a
    /// single server, and the log says so).
    async fn admit_shared(&self, shared: &crate::windows::shared::Shared, node: &str) -> Option<Decision> {
        let for_seconds = i64::try_from(crate::windows::admissions::ADMITTED_FOR.as_secs()).unwrap_or(15);
        for _ in 0..8 {
            let now = jiff::Timestamp::now();
            let read = match shared.read(now).await {
                Ok(read) => read,
                Err(err) => {
                    tracing::warn!(%node, %err, "cannot read the admissions replicas share; deciding alone");
                    return None;
                }
            };
            let others: Vec<String> = read.nodes().into_iter().filter(|n| n != node).collect();
            let decision = self.window_decisions_with(&[node], &others).await.pop().unwrap_or_default();
            if !decision.may_start() {
                return Some(decision);
            }
            match shared.add(read, node, now, for_seconds).await {
                Ok(true) => return Some(decision),
                Ok(false) => continue,
                Err(err) => {
                    tracing::warn!(%node, %err, "cannot record the admission replicas share; deciding alone");
                    return Some(decision);
                }
            }
        }
        tracing::warn!(%node, "the admissions replicas share kept changing; deciding alone");
        None
    }

    /// The first window covering one of `nodes`, open now, to close (`domain::window::fit`): what a plan's estimate
    /// is set against. `None` without windows, or when no such window closes.
    pub(crate) async fn window_closing(&self, nodes: &[&str]) -> Option<domain::window::WindowFit> {
        let (Some(windows), Some((_, cache))) = (&self.windows, &self.shared) else { return None };
        windows.known().await;
        let cards: Vec<domain::node::NodeCard> = nodes.iter().filter_map(|n| cache.node_card(n)).collect();
        let labels: Vec<&std::collections::BTreeMap<String, String>> = cards.iter().map(|c| &c.labels).collect();
        domain::window::closing::closing(&windows.policies(), &labels, jiff::Timestamp::now())
    }

    /// Whether this server follows maintenance windows.
    pub fn keeps_windows(&self) -> bool {
        self.windows.is_some()
    }
}

impl Acting<'_> {
    /// Whether the caller may be shown what the windows say: a person who may list them (team mode), or the
    /// server's own identities and the local operator.
    pub(crate) async fn reads_windows(&self) -> bool {
        let person = matches!(self.identity.kind, crate::access::Kind::Person { .. });
        if !person {
            return true;
        }
        match self.client() {
            Ok(client) => self.engine.authz.reads_windows(self.identity, &client).await.unwrap_or(false),
            Err(_) => false,
        }
    }

    /// Every node the caller may read, with whether maintenance may start on it now and what holds it. A pod
    /// gate's pod in a namespace the caller may not read is not named.
    pub async fn window_decisions(&self) -> Result<domain::window::Now> {
        // Read with the server's identity: shown to people who may read the windows themselves (team mode; in
        // local mode the server's identity is the operator's own, and a wall reads what the server reads).
        let person = matches!(self.identity.kind, crate::access::Kind::Person { .. });
        if person && !self.engine.authz.reads_windows(self.identity, &self.client()?).await? {
            return Err(Error::Forbidden(domain::denial::Denial::MayNotListWindows {
                user: self.identity.user.clone(),
            }));
        }
        let cards = self.cards().await?;
        let visibility = self.visibility().await?;
        let names: Vec<&str> = cards.iter().map(|c| c.name.as_str()).collect();
        let mut nodes = self.engine.window_decisions(&names).await;
        if let crate::Visibility::Namespaces(readable) = &visibility {
            for held in nodes.iter_mut().flat_map(|d| &mut d.holds) {
                if let domain::window::Hold::Pod { namespace, name, .. } = &mut held.hold
                    && !readable.contains(namespace.as_str())
                {
                    *namespace = String::new();
                    *name = String::new();
                }
            }
        }
        let open: Vec<&str> =
            nodes.iter().filter(|d| !d.windows.is_empty() && d.may_start()).map(|d| d.node.as_str()).collect();
        let closes = match open.is_empty() {
            true => None,
            false => self.engine.window_closing(&open).await,
        };
        let others_held = self.engine.others_held(jiff::Timestamp::now());
        Ok(domain::window::Now { keeps_windows: self.engine.keeps_windows(), nodes, closes, others_held })
    }

    /// Admits the caller's `action` on `node` into maintenance, or refuses it while a window holds the node,
    /// naming the window and why. With `override_reason`, lets it go on when the caller may override, recording
    /// the override.
    pub async fn admit(&self, node: &str, action: AuditAction, override_reason: Option<&str>) -> Result<()> {
        let decision = self.engine.admit(node).await;
        if decision.may_start() {
            return Ok(());
        }
        self.refuse_or_override(&[&decision], action, override_reason).await?;
        self.engine.admissions.lately.insert(node.to_owned(), ());
        Ok(())
    }

    /// Refuses a plan of `nodes` while a window holds any of them now (a plan made to wait for its windows is not
    /// checked here: each node waits as the plan reaches it). With `override_reason`, refuses a caller who may not
    /// override, held or not: the plan records each override as it uses it ([`Self::override_for_plan`]).
    pub async fn check_windows(
        &self,
        nodes: &[String],
        action: AuditAction,
        override_reason: Option<&str>,
    ) -> Result<()> {
        if let Some(reason) = override_reason.map(str::trim).filter(|r| !r.is_empty()) {
            if self.may_override().await? {
                return Ok(());
            }
            let (now, user) = (jiff::Timestamp::now(), &self.identity.user);
            let err = Error::Refused(StartRefusal::MayNotOverride { user: user.clone(), lacks: OVERRIDE.into() });
            let mut entry = AuditEntry::new(user, action, nodes.first().map_or("", String::as_str), now);
            entry.reason = Some(reason.to_owned());
            self.engine.record_refused(entry, &err);
            return Err(err);
        }
        let names: Vec<&str> = nodes.iter().map(String::as_str).collect();
        let decisions = self.engine.window_decisions(&names).await;
        let held: Vec<&Decision> = decisions.iter().filter(|d| !d.may_start()).collect();
        if held.is_empty() { Ok(()) } else { self.refuse_or_override(&held, action, None).await }
    }

    /// Whether the caller may override a maintenance window, asked of the API server as them.
    async fn may_override(&self) -> Result<bool> {
        let client = self.client()?;
        crate::authz::may(&client, "update", "drainboard.dev", "maintenancewindows", Some(OVERRIDE_SUBRESOURCE)).await
    }

    /// Lets plan `plan` start a node that `decision` holds, for the plan's override `reason`, when whoever runs it
    /// may override now; records the override as a person's is, when `record` (the first time for this node).
    /// False (the node waits) otherwise.
    pub(crate) async fn override_for_plan(&self, decision: &Decision, reason: &str, plan: &str, record: bool) -> bool {
        match self.may_override().await {
            Ok(true) => {}
            Ok(false) => {
                tracing::debug!(%plan, user = %self.identity.user, "the plan's window override is not honoured: its runner may not override");
                return false;
            }
            Err(err) => {
                tracing::info!(%plan, %err, "could not ask whether the plan's runner may override; the node waits");
                return false;
            }
        }
        if record {
            self.record_overrides(&[decision], &format!("{reason} (plan {plan})")).await;
        }
        self.engine.admissions.lately.insert(decision.node.clone(), ());
        true
    }

    /// The refusal of what `held` holds, or the override of it.
    async fn refuse_or_override(
        &self,
        held: &[&Decision],
        action: AuditAction,
        override_reason: Option<&str>,
    ) -> Result<()> {
        let Some(first) = held.first() else { return Ok(()) };
        let now = jiff::Timestamp::now();
        let user = &self.identity.user;
        let Some(reason) = override_reason.map(str::trim).filter(|r| !r.is_empty()) else {
            let held = first.held(now).unwrap_or_else(|| domain::window::HeldNode {
                node: first.node.clone(),
                window: String::new(),
                hold: domain::window::Hold::Invalid { why: "no window decided".into() },
                at: now,
            });
            let err = Error::Refused(StartRefusal::Held(Box::new(held)));
            self.engine.record_refused(AuditEntry::new(user, action, &first.node, now), &err);
            return Err(err);
        };
        if !self.may_override().await? {
            let err = Error::Refused(StartRefusal::MayNotOverride { user: user.clone(), lacks: OVERRIDE.into() });
            let mut entry = AuditEntry::new(user, action, &first.node, now);
            entry.reason = Some(reason.to_owned());
            self.engine.record_refused(entry, &err);
            return Err(err);
        }
        self.record_overrides(held, reason).await;
        Ok(())
    }

    /// Records that the caller overrode what holds each of `held`, for `reason`: in the audit file (and so the
    /// node's history and an Event), the log and a notice.
    async fn record_overrides(&self, held: &[&Decision], reason: &str) {
        let (now, user) = (jiff::Timestamp::now(), &self.identity.user);
        for decision in held {
            let mut entry = AuditEntry::new(user, AuditAction::WindowOverridden, &decision.node, now);
            entry.reason = Some(reason.to_owned());
            entry.outcome = decision.reason(now);
            tracing::warn!(node = %decision.node, %user, reason, "a maintenance window was overridden");
            crate::metrics::METRICS.window_overrides.inc();
            self.engine.notify(domain::notice::Notice::WindowOverridden {
                node: decision.node.clone(),
                by: user.clone(),
                reason: reason.to_owned(),
                why: decision.reason(now).unwrap_or_default(),
            });
            self.engine.audit.record(entry).await;
        }
    }
}

impl Engine {
    /// The windows whose freeze holds other tools at `now`, with the tools by id: only where this server holds
    /// them (team mode, with the windows followed).
    pub(crate) fn others_held(&self, now: jiff::Timestamp) -> Vec<(String, Vec<String>)> {
        // As `with_hold_others` starts it: in team mode, with the server's own identity and its cache.
        let holding = self.is_team() && self.server_client().is_some() && self.shared.is_some();
        let Some(windows) = self.windows.as_ref().filter(|_| holding) else { return Vec::new() };
        windows
            .policies()
            .iter()
            .map(|p| (p.name.clone(), p.holding_others(now)))
            .filter(|(_, held)| !held.is_empty())
            .collect()
    }

    /// The same engine, holding other tools while a window's freeze is in force, as each window's `holdOthers`
    /// asks (`crate::windows::others`), with the server's own identity (team mode). `kured`: where kured's
    /// DaemonSet is (namespace, name).
    pub fn with_hold_others(self, kured: (String, String)) -> Self {
        let (Some(client), Some(windows), Some((_, cache))) = (self.server_client(), &self.windows, &self.shared)
        else {
            return self;
        };
        let holding = crate::windows::others::HoldOthers {
            client,
            windows: windows.clone(),
            cache: cache.clone(),
            audit: self.audit.clone(),
            kured,
        };
        holding.run(&self.tasks);
        self
    }
}
