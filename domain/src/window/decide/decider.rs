//! Many nodes decided at one instant. What a window says at that instant is the same for every node it covers: its
//! calendar, its budget's count, the storm of not-Ready nodes, a pod gate that looks anywhere, its alerts. Worked
//! out node by node, the budget alone counted the window's nodes once per node: O(nodes² × windows), seconds at
//! 5,000 nodes and 20 windows, for every viewer's poll and every plan's admission. A [`Decider`] works each out once,
//! so a decision costs O(windows) plus its own pod gates.

use std::{
    cell::RefCell,
    collections::{BTreeMap, HashMap},
};

use jiff::Timestamp;

use super::{Alerts, Decision, Facts, Held, Hold, NodeFact, PodFact, calendar_hold};
use crate::window::{Policy, calendar};

/// The decision for `node`, from every window (those that do not cover it are passed over). To decide many nodes at
/// one instant, [`Decider`] works out what they share once.
pub fn decide(windows: &[Policy], node: &str, facts: &Facts) -> Decision {
    Decider::new(windows, facts).decide(node)
}

/// The windows and facts of one instant, with what every decision shares worked out.
pub struct Decider<'a> {
    windows: &'a [Policy],
    now: Timestamp,
    /// Each node's facts by name (the first, should a name come twice).
    nodes: HashMap<&'a str, &'a NodeFact>,
    /// What each window says for every node, by the window's index.
    shared: Vec<Shared<'a>>,
    /// When the calendars of each set of covering windows (by index) next allow a start together.
    opens_together: RefCell<BTreeMap<Vec<usize>, Option<Timestamp>>>,
}

/// What one window says at the instant, whichever node it covers.
struct Shared<'a> {
    /// Its calendar's hold (or why it does not read), and until when: its next opening.
    calendar: Option<(Hold, Option<Timestamp>)>,
    /// Its budget's count: how many of its nodes are in maintenance, and how many it allows at once.
    budget: Option<(u32, u32)>,
    /// Too many nodes not Ready.
    storm: Option<Hold>,
    /// Each pod gate, in the window's order.
    pods: Vec<PodGate<'a>>,
    /// The alerts that hold it (or that Alertmanager cannot be asked).
    alerts: Vec<Hold>,
}

/// A pod gate's running pod: one for every node, or the first on each node.
enum PodGate<'a> {
    Anywhere(Option<&'a PodFact>),
    OnNode(HashMap<&'a str, &'a PodFact>),
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<'a> Decider<'a> {
    pub fn new(windows: &'a [Policy], facts: &'a Facts<'a>) -> Self {
        let mut nodes = HashMap::with_capacity(facts.nodes.len());
        for n in facts.nodes {
            nodes.entry(n.name.as_str()).or_insert(n);
        }
        let not_ready = count(facts.nodes.iter().filter(|n| !n.ready).count());
        let shared = windows.iter().map(|w| Shared::of(w, facts, not_ready)).collect();
        Decider { windows, now: facts.now, nodes, shared, opens_together: Default::default() }
    }

    /// The decision for `node`.
    pub fn decide(&self, node: &str) -> Decision {
        let fact = self.nodes.get(node).copied();
        let empty = BTreeMap::new();
        let labels = fact.map_or(&empty, |n| &n.labels);
        let covering: Vec<usize> =
            (0..self.windows.len()).filter(|&i| self.windows[i].selector.matches(labels)).collect();
        let mut holds = Vec::new();
        // How long each holding window holds: its next opening, or for ever (`None`) for a gate or the budget.
        let mut until: Vec<(String, Option<Timestamp>)> = Vec::new();
        for &i in &covering {
            let (w, shared) = (&self.windows[i], &self.shared[i]);
            let before = holds.len();
            if let Some((hold, _)) = &shared.calendar {
                holds.push(Held { window: w.name.clone(), hold: hold.clone() });
            }
            let gated = shared.gates(node, fact);
            let gate_held = !gated.is_empty();
            holds.extend(gated.into_iter().map(|hold| Held { window: w.name.clone(), hold }));
            if holds.len() > before {
                let forever = gate_held || w.broken.is_some();
                let calendar_until = shared.calendar.as_ref().and_then(|(_, until)| *until);
                until.push((w.name.clone(), if forever { None } else { calendar_until }));
            }
        }
        // For ever outranks any instant; among instants the latest; ties go to the first window by name.
        let decided_by = until
            .iter()
            .max_by(|a, b| match (a.1, b.1) {
                (None, None) => b.0.cmp(&a.0),
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some(_), None) => std::cmp::Ordering::Less,
                (Some(x), Some(y)) => x.cmp(&y).then(b.0.cmp(&a.0)),
            })
            .map(|(name, _)| name.clone());
        let opens = match covering.iter().any(|&i| self.windows[i].broken.is_some()) {
            true => None,
            false => self.opens_together(&covering),
        };
        Decision {
            node: node.into(),
            windows: covering.iter().map(|&i| self.windows[i].name.clone()).collect(),
            holds,
            decided_by,
            opens,
        }
    }

    /// When the calendars of the windows `covering` next allow a start together: searched once per set of windows.
    fn opens_together(&self, covering: &[usize]) -> Option<Timestamp> {
        if let Some(opens) = self.opens_together.borrow().get(covering) {
            return *opens;
        }
        let windows: Vec<&Policy> = covering.iter().map(|&i| &self.windows[i]).collect();
        let opens = calendar::next_open_all(&windows, self.now);
        self.opens_together.borrow_mut().insert(covering.to_vec(), opens);
        opens
    }
}

impl<'a> Shared<'a> {
    fn of(w: &Policy, facts: &'a Facts<'a>, not_ready: u32) -> Self {
        let calendar = calendar_hold(w, facts.now).map(|hold| (hold, w.next_open(facts.now)));
        let budget = w.budget.map(|budget| {
            let (selected, in_maintenance) = facts
                .nodes
                .iter()
                .filter(|n| w.selector.matches(&n.labels))
                .fold((0, 0), |(all, busy), n| (all + 1, busy + usize::from(n.in_maintenance)));
            (count(in_maintenance), budget.max(count(selected)))
        });
        let storm =
            w.gates.max_not_ready.filter(|max| not_ready > *max).map(|max| Hold::NotReadyStorm { not_ready, max });
        let pods = w
            .gates
            .pods
            .iter()
            .map(|gate| {
                let mut running = facts.pods.iter().filter(|p| {
                    gate.namespace.as_ref().is_none_or(|ns| *ns == p.namespace) && gate.selector.matches(&p.labels)
                });
                if gate.anywhere {
                    return PodGate::Anywhere(running.next());
                }
                let mut on_node = HashMap::new();
                for p in running {
                    if let Some(node) = p.node.as_deref() {
                        on_node.entry(node).or_insert(p);
                    }
                }
                PodGate::OnNode(on_node)
            })
            .collect();
        Shared { calendar, budget, storm, pods, alerts: alert_holds(w, facts) }
    }

    /// The window's closed gates and its budget, for `node`, in the order the page lists them.
    fn gates(&self, node: &str, fact: Option<&NodeFact>) -> Vec<Hold> {
        let mut holds = Vec::new();
        if let Some((in_maintenance, max)) = self.budget {
            let already = fact.is_some_and(|n| n.in_maintenance);
            if !already && in_maintenance >= max {
                holds.push(Hold::Budget { in_maintenance, max });
            }
        }
        holds.extend(self.storm.clone());
        for gate in &self.pods {
            let running = match gate {
                PodGate::Anywhere(p) => *p,
                PodGate::OnNode(on) => on.get(node).copied(),
            };
            if let Some(p) = running {
                holds.push(Hold::Pod { namespace: p.namespace.clone(), name: p.name.clone(), node: p.node.clone() });
            }
        }
        holds.extend(self.alerts.iter().cloned());
        holds
    }
}

/// The window's alert gates that hold, whichever node.
fn alert_holds(w: &Policy, facts: &Facts) -> Vec<Hold> {
    let mut holds = Vec::new();
    if w.gates.alerts.is_empty() {
        return holds;
    }
    match facts.alerts {
        Alerts::Known(alerts) => {
            for gate in &w.gates.alerts {
                if let Some(alert) = alerts.iter().find(|a| gate.iter().all(|m| m.matches(a))) {
                    let matched = gate
                        .iter()
                        .map(|m| format!("{}={}", m.name, alert.get(&m.name).map_or("", |v| v)))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let name = alert.get("alertname").cloned().unwrap_or_default();
                    holds.push(Hold::Alert { name, matched });
                }
            }
        }
        Alerts::Unknown(why) if facts.fail_closed => holds.push(Hold::AlertsUnknown { why: why.clone() }),
        Alerts::None if facts.fail_closed => {
            holds.push(Hold::AlertsUnknown { why: "no Alertmanager is configured (--alertmanager-url)".into() })
        }
        _ => {}
    }
    holds
}
