//! App teams told of maintenance on their pods (API.md, "App teams told"). A namespace's annotation
//! [`ANNOTATION`] names one of the operator's webhooks; the team behind it is told, for each node of a plan where
//! its pods run: ahead (the node, the pods, and the earliest time the plan may reach the node, at least the lead
//! ahead where the plan's timing allows it), once its pods there are evicted, and once the node is back.
//!
//! The annotation is a claim of whoever may edit the namespace: it only picks, among the webhooks the operator
//! configured, who is told. It never chooses whose rights are used nor what is drained, and a name no webhook has
//! tells nobody. What was told is kept in the plan's status ([`Told`]), so that a server taking the plan over tells
//! nothing twice. Pure: the engine finds the pods, reads the annotations and sends. When each notice goes is the
//! plan's step's (`crate::plan_step::teams`).

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::window::Hold;

/// The namespace annotation naming the webhook of the team whose pods run there.
pub const ANNOTATION: &str = "drainboard.dev/notify";
/// The most pods one notice names; the rest are counted.
pub const MAX_PODS_NAMED: usize = 20;
/// The most teams one node's notices go to (the webhooks file holds at most 20 webhooks).
pub const MAX_TEAMS: usize = 20;

/// A team's name, as a webhook and an annotation give it: a DNS label (at most 63 lowercase letters, digits and
/// '-'), so that it is never a URL, a path or a line of a chat message.
pub fn name(value: &str) -> Result<&str, String> {
    let value = value.trim();
    crate::input::subdomain("team", value)?;
    if value.contains('.') || value.len() > 63 {
        return Err(format!("{value:?} is not a team name: at most 63 characters, and no '.'"));
    }
    Ok(value)
}

/// How far a node's teams have been told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Stage {
    /// Told the plan will reach the node.
    Ahead,
    /// Told their pods there were evicted.
    Evicted,
    /// Told the node is back in service.
    Back,
}

/// What a node's teams were told, kept in the plan's status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Told {
    /// `Ahead`, `Evicted` or `Back`.
    pub stage: Stage,
    /// The teams told (empty: no pod of the node was in an annotated namespace then).
    #[cfg_attr(feature = "schema", schemars(length(max = 20)))]
    pub teams: Vec<String>,
    /// The earliest time the plan could reach the node, as told ahead.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub expected: Timestamp,
    /// When they were first told.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub at: Timestamp,
}

/// One team's pods on a node, as the engine found them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TeamPods {
    pub namespaces: Vec<String>,
    /// `namespace/name`, at most [`MAX_PODS_NAMED`].
    pub pods: Vec<String>,
    /// How many more pods there are than named.
    pub more: usize,
}

/// Each team's pods among `pods` (`(namespace, "namespace/name")`, the pods a drain of the node would evict), by
/// the team each namespace names (`team_of`: the annotation, read and known); pods of a namespace naming no team
/// are left out. At most [`MAX_PODS_NAMED`] pods are named per team, the rest counted.
pub fn group<'a>(
    pods: impl IntoIterator<Item = (&'a str, String)>,
    team_of: impl Fn(&str) -> Option<String>,
) -> BTreeMap<String, TeamPods> {
    let mut teams: BTreeMap<String, TeamPods> = BTreeMap::new();
    let mut named: BTreeMap<&str, Option<String>> = BTreeMap::new();
    for (namespace, pod) in pods {
        let Some(team) = named.entry(namespace).or_insert_with(|| team_of(namespace)).clone() else { continue };
        let found = teams.entry(team).or_default();
        if !found.namespaces.iter().any(|n| n == namespace) {
            found.namespaces.push(namespace.to_owned());
        }
        if found.pods.len() < MAX_PODS_NAMED {
            found.pods.push(pod);
        } else {
            found.more = found.more.saturating_add(1);
        }
    }
    for found in teams.values_mut() {
        found.namespaces.sort();
        found.pods.sort();
    }
    teams
}

/// When a hold lifts, where its window says: the window's opening, or the freeze's end.
pub fn held_until(hold: &Hold) -> Option<Timestamp> {
    match hold {
        Hold::OutsideWindow { opens, .. } => *opens,
        Hold::Frozen { until, .. } => Some(*until),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_team_name_is_a_dns_label_never_a_url_or_a_line() {
        assert_eq!(name(" payments "), Ok("payments"));
        assert_eq!(name("team-7"), Ok("team-7"));
        for bad in ["", "Payments", "https://hooks.example/x", "a.b", "-a", "a\nb", &"a".repeat(64)] {
            assert!(name(bad).is_err(), "{bad:?} read as a team");
        }
    }

    #[test]
    fn pods_group_by_the_team_their_namespace_names_and_the_rest_are_counted() {
        let mut pods: Vec<(&str, String)> =
            vec![("shop", "shop/web-1".into()), ("pay", "pay/api-1".into()), ("tmp", "tmp/x".into())];
        pods.extend((0..22).map(|i| ("shop-2", format!("shop-2/w-{i:02}"))));
        let team_of = |ns: &str| match ns {
            "shop" | "shop-2" => Some("shop-team".to_owned()),
            "pay" => Some("payments".to_owned()),
            _ => None,
        };
        let teams = group(pods, team_of);
        assert_eq!(teams.keys().collect::<Vec<_>>(), ["payments", "shop-team"]);
        let shop = &teams["shop-team"];
        assert_eq!(shop.namespaces, ["shop", "shop-2"]);
        assert_eq!((shop.pods.len(), shop.more), (MAX_PODS_NAMED, 3));
        assert_eq!(
            teams["payments"],
            TeamPods { namespaces: vec!["pay".into()], pods: vec!["pay/api-1".into()], more: 0 }
        );
    }
}
