//! The fleet's versions: how many nodes run each kubelet, kernel, OS image and container runtime
//! (`status.nodeInfo`), and which nodes are not yet on a chosen one. The versions view shows the counts, and
//! "Plan the stragglers" makes a plan of the nodes [`stragglers`] names, whose verification expects that value.

use serde::{Deserialize, Serialize};

use crate::{
    node::NodeCard,
    verify::{Component, holds},
};

/// How many nodes report one value of a version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueCount {
    /// `None` for the nodes that report no value (a node that never posted its status).
    pub value: Option<String>,
    pub nodes: usize,
    /// Of those, how many carry the reboot signal ([`crate::reboot`]).
    pub need_reboot: usize,
}

/// The values of `component` among `cards`, most nodes first, then by value; the nodes reporting nothing last.
pub fn tally<'a>(cards: impl IntoIterator<Item = &'a NodeCard>, component: Component) -> Vec<ValueCount> {
    let mut counts: std::collections::BTreeMap<Option<&str>, (usize, usize)> = Default::default();
    for card in cards {
        let entry = counts.entry(component.of(card)).or_default();
        entry.0 += 1;
        entry.1 += usize::from(card.reboot.is_some());
    }
    let mut out: Vec<ValueCount> = counts
        .into_iter()
        .map(|(value, (nodes, need_reboot))| ValueCount { value: value.map(str::to_owned), nodes, need_reboot })
        .collect();
    out.sort_by(|a, b| {
        (a.value.is_none(), std::cmp::Reverse(a.nodes), &a.value).cmp(&(
            b.value.is_none(),
            std::cmp::Reverse(b.nodes),
            &b.value,
        ))
    });
    out
}

/// The nodes among `cards` not on `target`, by the rule a plan's verification checks them with
/// ([`crate::verify::holds`]), in the cards' order. A node that reports no value is not known to be on it, so it
/// is one of them.
pub fn stragglers<'a>(
    cards: impl IntoIterator<Item = &'a NodeCard>,
    component: Component,
    target: &str,
) -> Vec<String> {
    cards
        .into_iter()
        .filter(|card| !component.of(card).is_some_and(|found| holds(target, found)))
        .map(|card| card.name.clone())
        .collect()
}

/// The nodes among `cards` that carry the reboot signal, in the cards' order.
pub fn need_reboot<'a>(cards: impl IntoIterator<Item = &'a NodeCard>) -> Vec<String> {
    cards.into_iter().filter(|card| card.reboot.is_some()).map(|card| card.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reboot::RebootSign;

    fn card(name: &str, kubelet: Option<&str>, kernel: Option<&str>, reboot: bool) -> NodeCard {
        NodeCard {
            name: name.into(),
            kubelet_version: kubelet.map(Into::into),
            kernel_version: kernel.map(Into::into),
            reboot: reboot.then(|| RebootSign { signal: "label:reboot".into(), value: None }),
            ..NodeCard::default()
        }
    }

    fn fleet() -> Vec<NodeCard> {
        vec![
            card("a", Some("v1.36.3"), Some("6.12.9"), false),
            card("b", Some("v1.35.1"), Some("6.1.0"), true),
            card("c", Some("v1.36.3"), Some("6.12.9"), true),
            card("d", None, None, false),
            card("e", Some("v1.36.4"), Some("6.1.0"), false),
            card("f", Some("v1.36.3"), Some("6.12.9"), false),
        ]
    }

    #[test]
    fn counts_most_nodes_first_and_the_silent_last() {
        let cards = fleet();
        let kubelet = tally(&cards, Component::Kubelet);
        let rows: Vec<(Option<&str>, usize, usize)> =
            kubelet.iter().map(|v| (v.value.as_deref(), v.nodes, v.need_reboot)).collect();
        assert_eq!(
            rows,
            [(Some("v1.36.3"), 3, 1), (Some("v1.35.1"), 1, 1), (Some("v1.36.4"), 1, 0), (None, 1, 0)],
            "ties in value order"
        );
        let kernel = tally(&cards, Component::Kernel);
        assert_eq!(kernel.iter().map(|v| v.nodes).sum::<usize>(), cards.len(), "every node counted once");
        assert_eq!(kernel[0].value.as_deref(), Some("6.12.9"));
        assert!(tally(&cards, Component::OsImage).iter().all(|v| v.value.is_none()));
        assert!(tally(&[], Component::Kubelet).is_empty());
    }

    #[test]
    fn stragglers_are_the_nodes_a_plan_would_find_off_target() {
        let cards = fleet();
        // (target, the nodes not on it)
        let table: [(&str, &[&str]); 4] = [
            ("v1.36.3", &["b", "d", "e"]),
            // A prefix holds as the plan's verification holds it.
            ("v1.36", &["b", "d"]),
            ("v1.37.0", &["a", "b", "c", "d", "e", "f"]),
            ("", &["d"]),
        ];
        for (target, expected) in table {
            assert_eq!(stragglers(&cards, Component::Kubelet, target), expected, "target {target:?}");
        }
        for name in stragglers(&cards, Component::Kubelet, "v1.36.3") {
            let card = cards.iter().find(|c| c.name == name).unwrap();
            let verify = {
                let mut v = crate::verify::Verify::default();
                Component::Kubelet.expect(&mut v, "v1.36.3".into());
                v
            };
            let failed = crate::verify::failures(card, &verify, jiff::Timestamp::UNIX_EPOCH);
            assert!(
                failed.iter().any(|f| matches!(
                    f,
                    crate::verify::CheckFailure::Version { .. } | crate::verify::CheckFailure::NoVersion { .. }
                )),
                "{name}: a straggler fails the version check as it stands"
            );
        }
    }

    #[test]
    fn the_nodes_that_need_a_reboot() {
        assert_eq!(need_reboot(&fleet()), ["b", "c"]);
    }
}
