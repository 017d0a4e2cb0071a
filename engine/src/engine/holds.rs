//! What maintenance windows hold (`crate::windows`): the decisions for the page, and the check before a person's
//! cordon, drain or plan. Both read the windows and the cluster with the server's own view, so that a policy
//! holds everyone alike; the page shows a person only the nodes they may read.
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
    /// The decision for each of `nodes` now; `starting` count against budgets as if already in maintenance. Empty
    /// when this server follows no windows, or has no view of its own yet.
    pub(crate) async fn window_decisions(&self, nodes: &[&str], starting: &[&str]) -> Vec<Decision> {
        let (Some(windows), Some((_, cache))) = (&self.windows, &self.shared) else {
            return nodes.iter().map(|n| Decision { node: (*n).into(), ..Decision::default() }).collect();
        };
        windows.known().await;
        // The drains this server runs are in maintenance even before the cache sees their cordon.
        let running: Vec<String> =
            self.drains.all().into_iter().filter(|d| d.state.is_running()).map(|d| d.node).collect();
        let starting: Vec<&str> = starting.iter().copied().chain(running.iter().map(String::as_str)).collect();
        windows.decide(cache, nodes, &starting, jiff::Timestamp::now())
    }

    /// Whether this server follows maintenance windows.
    pub fn keeps_windows(&self) -> bool {
        self.windows.is_some()
    }
}

impl Acting<'_> {
    /// Every node the caller may read, with whether maintenance may start on it now and what holds it.
    pub async fn window_decisions(&self) -> Result<Vec<Decision>> {
        let cards = self.cards().await?;
        let names: Vec<&str> = cards.iter().map(|c| c.name.as_str()).collect();
        Ok(self.engine.window_decisions(&names, &[]).await)
    }

    /// Refuses `action` on `nodes` while a window holds any of them, naming the window and why; with
    /// `override_reason`, lets it go on when the caller may override, recording the override for each held node.
    pub async fn check_windows(
        &self,
        nodes: &[String],
        action: AuditAction,
        override_reason: Option<&str>,
    ) -> Result<()> {
        let names: Vec<&str> = nodes.iter().map(String::as_str).collect();
        let decisions = self.engine.window_decisions(&names, &[]).await;
        let held: Vec<&Decision> = decisions.iter().filter(|d| !d.may_start()).collect();
        let Some(first) = held.first() else { return Ok(()) };
        let now = jiff::Timestamp::now();
        let user = &self.identity.user;
        let Some(reason) = override_reason.map(str::trim).filter(|r| !r.is_empty()) else {
            let err = Error::Refused(StartRefusal::Held {
                node: first.node.clone(),
                window: first.decided_by.clone().unwrap_or_default(),
                why: first.reason(now).unwrap_or_default(),
            });
            let mut entry = AuditEntry::new(user, action, &first.node, now);
            entry.reason = Some(format!("held by window {}", first.decided_by.as_deref().unwrap_or("")));
            self.engine.record_refused(entry, &err);
            return Err(err);
        };
        let client = self.client()?;
        if !crate::authz::may(&client, "update", "drainboard.dev", "maintenancewindows", Some(OVERRIDE_SUBRESOURCE))
            .await?
        {
            let err = Error::Refused(StartRefusal::MayNotOverride { user: user.clone(), lacks: OVERRIDE.into() });
            let mut entry = AuditEntry::new(user, action, &first.node, now);
            entry.reason = Some(reason.to_owned());
            self.engine.record_refused(entry, &err);
            return Err(err);
        }
        for decision in held {
            let mut entry = AuditEntry::new(user, AuditAction::WindowOverridden, &decision.node, now);
            entry.reason = Some(reason.to_owned());
            entry.outcome = decision.reason(now);
            tracing::warn!(node = %decision.node, %user, reason, "a maintenance window was overridden");
            self.engine.audit.record(entry).await;
        }
        Ok(())
    }
}
