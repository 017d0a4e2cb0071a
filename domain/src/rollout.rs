//! Rolling maintenance: draining many nodes with limits. The rule of which node starts when lives here, so that the
//! engine that runs a rollout and any page that explains it read it the same way.
//!
//! A node counts as draining from its cordon (which its own drain makes first, not all at the start as `kubectl
//! drain n1 n2 …` does, so that the capacity of the nodes still queued stays for the evicted pods) until its drain
//! ends.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{drain::DrainOptions, progress::DrainState};

/// The most nodes one rollout drains at once (it takes at most [`crate::input::MAX_NODES`]).
pub const MAX_PARALLEL: u32 = 50;

/// How many nodes a plan takes at once when it does not say: one, the careful choice, for a plan sent to the API
/// and one made with `kubectl apply` alike.
pub const fn default_max_parallel() -> u32 {
    1
}

/// How a rollout goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolloutOptions {
    /// At most this many nodes draining at once (1 to [`MAX_PARALLEL`]; [`default_max_parallel`] when not given).
    #[serde(default = "default_max_parallel")]
    pub max_parallel: u32,
    /// At most one node per zone (`topology.kubernetes.io/zone`) draining at once; nodes without a zone count as
    /// one zone of their own together.
    #[serde(default)]
    pub one_per_zone: bool,
    /// Start no other node once one has failed (those draining finish).
    #[serde(default)]
    pub stop_on_failure: bool,
    /// Each node's drain options, as a single drain's.
    #[serde(default)]
    pub drain: DrainOptions,
    /// Uncordon each drained node once it is back (see [`is_back`]); otherwise it stays cordoned.
    #[serde(default)]
    pub uncordon_when_back: bool,
    /// With `uncordon_when_back`: what a node must check out on once back, before it is uncordoned
    /// ([`crate::verify`]); `None` takes it as back when [`is_back`] says so.
    #[serde(default)]
    pub verify: Option<crate::verify::Verify>,
    /// Run by the server's maintenance identity, not as the person who asked: for night windows, where the operator
    /// gave the server one and the person holds the explicit right to ask for it (API.md, "Unattended plans").
    #[serde(default)]
    pub unattended: bool,
    /// Seconds to wait after a node is done (its drain ended and, with `uncordon_when_back`, it is back) before
    /// the next one starts, so that what moved settles (0 to [`MAX_SETTLE_SECONDS`]; 0: none).
    #[serde(default)]
    pub settle_seconds: u64,
    /// What the plan does with a node another tool is taking down when its turn comes ([`OthersAtWork`]).
    #[serde(default, skip_serializing_if = "OthersAtWork::is_wait")]
    pub others_at_work: OthersAtWork,
}

/// What a plan does with a node another tool is taking down (`crate::actor::disrupting`: Karpenter disrupting it,
/// the cluster autoscaler removing it, kured rebooting it, …) when the node's turn comes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum OthersAtWork {
    /// The node waits, passed over, until the tool is done with it; the nodes after it go on.
    #[default]
    Wait,
    /// The node is not started, and the plan says which tool had it.
    Skip,
}

impl OthersAtWork {
    pub fn is_wait(&self) -> bool {
        *self == OthersAtWork::Wait
    }
}

impl RolloutOptions {
    /// What a plan with these options waits for after each drain, as its estimate reads it.
    pub fn reboots(&self) -> crate::estimate::Reboots {
        use crate::estimate::Reboots;
        match (&self.verify, self.uncordon_when_back) {
            (Some(v), _) => {
                Reboots::UpTo { seconds: v.deadline_seconds.min(u64::from(crate::estimate::MAX_STOP_SECONDS)) }
            }
            (None, true) => Reboots::Unbounded,
            (None, false) => Reboots::NotAwaited,
        }
    }
}

/// In team mode, the most plans one person may have that have not ended: a script or a stuck tab cannot fill the
/// cluster with plans, nor the servers with their loops.
pub const MAX_PLANS_PER_PERSON: usize = 10;

/// The longest settle time between nodes a plan may ask for (an hour).
pub const MAX_SETTLE_SECONDS: u64 = 3_600;

/// Where one node of a rollout is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    Queued,
    /// Its drain (this id) runs.
    Draining(String),
    /// Its drain ended so, or it could not start (`Failed` with the reason).
    Ended(DrainState),
    /// Never started: the rollout stopped first (a failure with stop-on-failure, or a cancel).
    NotStarted,
}

/// One node of a rollout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolloutNode {
    pub name: String,
    pub zone: Option<String>,
    pub step: Step,
    /// The drain's id, once it started.
    #[serde(default)]
    pub drain_id: Option<String>,
    /// With `uncordon_when_back`, after its drain succeeded: waiting for it to come back, then uncordoned.
    #[serde(default)]
    pub back: Option<Back>,
    /// Whether the node was cordoned before the plan touched it (`None`: not known, as for a node not yet
    /// looked at): undo leaves such a node cordoned.
    #[serde(default)]
    pub cordoned_before: Option<bool>,
    /// When it began to be awaited back (its drain's end, as the plan saw it): the verification's deadline counts
    /// from here.
    #[serde(default)]
    pub waiting_since: Option<Timestamp>,
    /// When it was first seen back: its node Lease must renew after this.
    #[serde(default)]
    pub back_seen: Option<Timestamp>,
    /// With verification: the workloads and budgets its drain touched, recorded as it started.
    #[serde(default)]
    pub touched: Option<crate::recovery::Touched>,
    /// When it was seen done (see [`RolloutNode::done`]): the settle time counts from here.
    #[serde(default)]
    pub done_at: Option<Timestamp>,
    /// Its drain's estimate, made as the plan started ([`crate::estimate::plan`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<crate::estimate::Estimate>,
    /// When the plan's window override first let it past a maintenance window, and the override was recorded: kept
    /// with the plan, so that a server taking the plan over does not record the same override again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overridden_at: Option<Timestamp>,
    /// It was taken as back on a person's word (uncordoned by a person, not by the plan after a reboot): who, as
    /// the node's cordon record claims it, and whether it had a new boot id then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub said_back: Option<SaidBack>,
    /// Other tools seen taking it down when its turn came (`crate::actor::disrupting`): it waits for them, or was
    /// skipped for them ([`OthersAtWork`]); empty once it starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<crate::actor::Actor>,
    /// What the app teams whose pods run on it were told (`crate::teams`); `None`: nothing yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub told: Option<crate::teams::Told>,
}

/// A node taken as back on a person's word.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaidBack {
    /// Who uncordoned it, as the node's cordon record says (a claim: shown, never acted on).
    pub by: Option<String>,
    /// It reported a new boot id then: it did reboot.
    pub new_boot: bool,
    /// It came back by the plan's own "It is back" in a plan that verifies, which uncordons only once every check
    /// of the plan passed (its history says so: a claim, shown only).
    #[serde(default)]
    pub checked: bool,
}

/// A drained node's way back, with `uncordon_when_back`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Back {
    /// Drained; waiting until it is Ready with a boot id other than this one (its boot id when its drain ended),
    /// or a person says it is back.
    Waiting(Option<String>),
    /// Back and schedulable again: uncordoned by the rollout, or by a person.
    Uncordoned,
    /// Back, but the uncordon failed: it stays cordoned (the reason).
    Failed(crate::failure::Failure),
    /// The rollout stopped before it came back: it stays cordoned.
    Left,
    /// It did not check out by the verification's deadline (each failed check): it stays cordoned.
    Unverified(Vec<crate::verify::CheckFailure>),
    /// It checked out and was uncordoned, but the workloads or budgets its drain touched did not recover by the
    /// deadline (each failed check). The plan stops as for an unverified node.
    Unrecovered(Vec<crate::verify::CheckFailure>),
    /// Back, checked out and uncordoned; the plan waits for the workloads and budgets its drain touched to recover
    /// ([`crate::recovery`]) before it moves on. Their pods may need this very node, so they are checked after the
    /// uncordon, not before.
    Recovering,
}

/// Whether a drained node is back from its maintenance: Ready, with a boot id (`status.nodeInfo.bootID`, which
/// the kubelet sets anew at each boot) other than the one it had when its drain ended. A node that reported no
/// boot id then, or none now, is not taken as back: a person says so instead.
pub fn is_back(boot_id_then: Option<&str>, boot_id_now: Option<&str>, ready: bool) -> bool {
    ready
        && boot_id_then.is_some_and(|then| !then.is_empty())
        && boot_id_now.is_some_and(|now| !now.is_empty())
        && boot_id_then != boot_id_now
}

impl RolloutNode {
    pub fn queued(name: String, zone: Option<String>) -> Self {
        RolloutNode {
            name,
            zone,
            step: Step::Queued,
            drain_id: None,
            back: None,
            cordoned_before: None,
            waiting_since: None,
            back_seen: None,
            touched: None,
            done_at: None,
            estimate: None,
            overridden_at: None,
            said_back: None,
            others: Vec::new(),
            told: None,
        }
    }

    /// Whether the plan is done with it: its drain ended, and it is neither awaited back nor recovering.
    pub fn done(&self) -> bool {
        matches!(self.step, Step::Ended(_)) && !self.waiting_back() && !self.recovering()
    }

    /// Uncordoned, waiting for what its drain touched to recover.
    pub fn recovering(&self) -> bool {
        matches!(self.back, Some(Back::Recovering))
    }

    /// Drained, and waiting to come back before it is uncordoned.
    pub fn waiting_back(&self) -> bool {
        matches!(self.back, Some(Back::Waiting(_)))
    }

    /// Its drain ended without doing all it set out to (pods left past the skip-wait limit count as done, as in
    /// kubectl).
    pub fn failed(&self) -> bool {
        let drain_failed = matches!(&self.step, Step::Ended(state)
            if !state.is_final_ok() && !state.is_drained());
        drain_failed || self.unverified()
    }

    /// Back, but it did not check out (it stays cordoned), or what its drain touched did not recover.
    pub fn unverified(&self) -> bool {
        matches!(self.back, Some(Back::Unverified(_) | Back::Unrecovered(_)))
    }
}

/// Where a whole rollout is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RolloutState {
    Running,
    /// No node starts until it is resumed; those draining go on.
    Paused,
    /// Every node ended (or, after a stop, every started node did).
    Finished,
    /// Stopped by a person: the draining nodes' drains were cancelled.
    Cancelled,
}

/// A rollout as everyone watching sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolloutProgress {
    pub id: String,
    pub started_by: String,
    pub started_at: Timestamp,
    pub reason: Option<String>,
    pub options: RolloutOptions,
    pub state: RolloutState,
    pub nodes: Vec<RolloutNode>,
    pub finished_at: Option<Timestamp>,
    /// Which server runs it now, and as whom ("replica-a/1f2e as alice"); `None` while none does.
    #[serde(default)]
    pub runner: Option<String>,
    /// Why no node starts now (a plan that needs a maintainer to continue it, say).
    #[serde(default)]
    pub blocked: Option<crate::plan_block::Blocked>,
    /// Why a node that the limits would start waits instead: a maintenance window holds it (`crate::window`), with
    /// when it next opens. The plan goes on by itself once it may.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<crate::window::HeldNode>,
    /// Who continued it after the server that ran it stopped, if anyone did.
    #[serde(default)]
    pub continued_by: Option<String>,
    /// How long the whole plan should take, estimated as it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<crate::estimate::Estimate>,
    /// While its spec differs from what a person confirmed: what changed, and the generation to confirm when
    /// continuing it (`crate::pin`). Nothing more starts meanwhile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_changed: Option<crate::spec_change::SpecChanged>,
}

impl RolloutProgress {
    /// The nodes the people watching must reboot or bring back now: when none drains and some wait to come back,
    /// the plan can do nothing more until someone does (the nodes still queued wait for the places those hold).
    pub fn to_bring_back(&self) -> Vec<&str> {
        let ended = matches!(self.state, RolloutState::Finished | RolloutState::Cancelled);
        let draining = self.nodes.iter().any(|n| matches!(n.step, Step::Draining(_)));
        if ended || draining {
            return Vec::new();
        }
        self.nodes.iter().filter(|n| n.waiting_back()).map(|n| n.name.as_str()).collect()
    }

    /// Whether no node may start any more: a node failed and the rollout stops at the first failure.
    pub fn stopping(&self) -> bool {
        let verify_stops = self.options.verify.as_ref().is_some_and(|v| !v.continue_on_failure);
        (self.options.stop_on_failure && self.nodes.iter().any(RolloutNode::failed))
            || (verify_stops && self.nodes.iter().any(RolloutNode::unverified))
    }

    /// The phase it reads as, in the plan's status and its notices: `Complete` only when some node drained and
    /// none failed; an ended plan with no node drained could not start, which is no success.
    pub fn phase(&self) -> &'static str {
        match self.state {
            RolloutState::Cancelled => "Cancelled",
            RolloutState::Finished if self.nodes.iter().any(RolloutNode::failed) => "Failed",
            RolloutState::Finished if !self.nodes.iter().any(|n| matches!(n.step, Step::Ended(_))) => "Failed",
            RolloutState::Finished => "Complete",
            _ if self.blocked.is_some() => "Blocked",
            RolloutState::Paused => "Paused",
            _ if self.held.is_some() => "Blocked",
            RolloutState::Running => "Running",
        }
    }

    /// Whether nothing runs, nothing more will start, and no drained node is still awaited back.
    pub fn settled(&self) -> bool {
        let draining =
            self.nodes.iter().any(|n| matches!(n.step, Step::Draining(_)) || n.waiting_back() || n.recovering());
        let queued = self.nodes.iter().any(|n| n.step == Step::Queued);
        !draining && (!queued || self.stopping())
    }
}

/// The zones in which two or more of `nodes` (name, zone) lie, each with those nodes, in zone order: where a rollout
/// may leave a zone without a schedulable node, which its dialog warns of. Nodes without a zone are left out.
pub fn shared_zones<'a>(nodes: impl IntoIterator<Item = (&'a str, Option<&'a str>)>) -> Vec<(String, Vec<String>)> {
    let mut by_zone: std::collections::BTreeMap<&str, Vec<String>> = std::collections::BTreeMap::new();
    for (name, zone) in nodes {
        if let Some(zone) = zone {
            by_zone.entry(zone).or_default().push(name.to_owned());
        }
    }
    by_zone.into_iter().filter(|(_, n)| n.len() > 1).map(|(z, n)| (z.to_owned(), n)).collect()
}

/// The queued nodes that may start now, in the rollout's order: as many as `max_parallel` leaves room for, and
/// with `one_per_zone`, none in a zone that has a node out of service (draining, or awaited back) or starting in
/// this same round. None once the
/// rollout stops at a failure, while it is paused, or while it is blocked (no one may run it now).
pub fn startable(progress: &RolloutProgress) -> Vec<usize> {
    startable_but(progress, &std::collections::BTreeSet::new())
}

/// [`startable`], passing over the queued nodes in `passed` (those waiting for another tool), so that the nodes
/// after them take their room.
pub fn startable_but(progress: &RolloutProgress, passed: &std::collections::BTreeSet<usize>) -> Vec<usize> {
    if progress.state != RolloutState::Running || progress.stopping() || progress.blocked.is_some() {
        return Vec::new();
    }
    let options = &progress.options;
    // A node out of service holds its place, in `max_parallel` and in its zone: draining, or drained and awaited
    // back until it is uncordoned (and, in a plan that verifies, until what its drain touched has recovered).
    // "At most N" and "one per zone" mean out of service, as operators read them, not only evicting: a zone is
    // never left without a schedulable node by the plan. (Without `uncordon_when_back` a drained node is done, and
    // stays cordoned by design.)
    let draining: Vec<&RolloutNode> = progress
        .nodes
        .iter()
        .filter(|n| matches!(n.step, Step::Draining(_)) || n.waiting_back() || n.recovering())
        .collect();
    let mut room = (options.max_parallel.clamp(1, MAX_PARALLEL) as usize).saturating_sub(draining.len());
    let mut busy_zones: Vec<Option<&str>> = draining.iter().map(|n| n.zone.as_deref()).collect();
    let mut start = Vec::new();
    for (i, node) in progress.nodes.iter().enumerate() {
        if room == 0 {
            break;
        }
        if node.step != Step::Queued || passed.contains(&i) {
            continue;
        }
        if options.one_per_zone && busy_zones.contains(&node.zone.as_deref()) {
            continue;
        }
        busy_zones.push(node.zone.as_deref());
        start.push(i);
        room -= 1;
    }
    start
}

/// Notes, at `now`, each node newly done: the settle time counts from then.
pub fn mark_done(progress: &mut RolloutProgress, now: Timestamp) {
    for node in progress.nodes.iter_mut().filter(|n| n.done() && n.done_at.is_none()) {
        node.done_at = Some(now);
    }
}

/// Whether the plan holds its next start at `now`: a node was done less than `settle_seconds` ago.
pub fn settling(progress: &RolloutProgress, now: Timestamp) -> bool {
    let settle = i64::try_from(progress.options.settle_seconds.min(MAX_SETTLE_SECONDS)).unwrap_or(0);
    settle > 0
        && progress
            .nodes
            .iter()
            .filter_map(|n| n.done_at)
            .any(|done| done.checked_add(jiff::SignedDuration::from_secs(settle)).is_ok_and(|until| now < until))
}

/// What a rollout with destructive drain options must carry as `confirm`: the number of its nodes, as "6 nodes"
/// (a single drain's is the node's name; see `input::consent`).
pub fn confirm_word(nodes: usize) -> String {
    if nodes == 1 { "1 node".to_owned() } else { format!("{nodes} nodes") }
}

/// Checks a rollout's request: 1 to [`crate::input::MAX_NODES`] distinct, valid node names, a parallelism in range.
pub fn check(nodes: &[String], options: &RolloutOptions) -> Result<(), String> {
    crate::input::node_list(nodes)?;
    if options.max_parallel == 0 || options.max_parallel > MAX_PARALLEL {
        return Err(format!("at most 1 to {MAX_PARALLEL} nodes may drain at once, not {}", options.max_parallel));
    }
    if options.settle_seconds > MAX_SETTLE_SECONDS {
        return Err(format!(
            "the settle time between nodes is 0 to {MAX_SETTLE_SECONDS} seconds, not {}",
            options.settle_seconds
        ));
    }
    if let Some(verify) = &options.verify {
        if !options.uncordon_when_back {
            return Err("verification checks a node once it is back: it needs uncordon_when_back".into());
        }
        crate::verify::check_request(verify)?;
    }
    crate::input::drain_options(&options.drain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::MAX_NODES;

    fn rollout(zones: &[&str], options: RolloutOptions) -> RolloutProgress {
        RolloutProgress {
            id: "r".into(),
            started_by: "alice".into(),
            started_at: Timestamp::UNIX_EPOCH,
            reason: None,
            options,
            state: RolloutState::Running,
            nodes: zones
                .iter()
                .enumerate()
                .map(|(i, z)| RolloutNode::queued(format!("n{i}"), (!z.is_empty()).then(|| z.to_string())))
                .collect(),
            finished_at: None,
            runner: None,
            blocked: None,
            held: None,
            continued_by: None,
            estimate: None,
            spec_changed: None,
        }
    }

    fn options(max_parallel: u32, one_per_zone: bool, stop_on_failure: bool) -> RolloutOptions {
        RolloutOptions {
            max_parallel,
            one_per_zone,
            stop_on_failure,
            drain: DrainOptions::default(),
            uncordon_when_back: false,
            verify: None,
            unattended: false,
            settle_seconds: 0,
            others_at_work: Default::default(),
        }
    }

    #[test]
    fn after_a_node_is_done_the_next_waits_out_the_settle_time() {
        let mut r = rollout(&["", "", ""], RolloutOptions { settle_seconds: 60, ..options(1, false, false) });
        let t0: Timestamp = "2026-12-03T01:00:00Z".parse().unwrap();
        let at = |s: i64| t0.checked_add(jiff::SignedDuration::from_secs(s)).unwrap();
        assert!(!settling(&r, t0), "nothing done yet: the first node goes at once");
        r.nodes[1].back = Some(Back::Recovering);
        assert!(!r.settled(), "a node recovering: the plan has not ended");
        r.nodes[1].back = None;
        r.nodes[0].step = Step::Ended(DrainState::Drained);
        r.nodes[0].back = Some(Back::Waiting(None));
        mark_done(&mut r, t0);
        assert_eq!(r.nodes[0].done_at, None, "awaited back is not done");
        r.nodes[0].back = Some(Back::Uncordoned);
        mark_done(&mut r, at(10));
        mark_done(&mut r, at(20));
        assert_eq!(r.nodes[0].done_at, Some(at(10)), "noted once");
        assert!(settling(&r, at(69)));
        assert!(!settling(&r, at(70)));
        r.options.settle_seconds = 0;
        assert!(!settling(&r, at(11)), "no settle time asked");
        r.options.settle_seconds = u64::MAX;
        assert!(settling(&r, at(11)), "held to the longest allowed, without overflow");
        assert!(!settling(&r, at(10 + MAX_SETTLE_SECONDS as i64)));
        assert!(
            check(
                &["a".into()],
                &RolloutOptions { settle_seconds: MAX_SETTLE_SECONDS + 1, ..options(1, false, false) }
            )
            .is_err()
        );
    }

    #[test]
    fn a_plan_that_verifies_moves_on_only_once_a_node_checks_out_and_recovers() {
        let mut r = rollout(&["", ""], options(1, false, false));
        r.nodes[0].step = Step::Ended(DrainState::Drained);
        r.nodes[0].back = Some(Back::Waiting(None));
        r.options.uncordon_when_back = true;
        r.options.verify = Some(crate::verify::Verify::default());
        assert!(startable(&r).is_empty(), "awaited back, not yet verified");
        r.nodes[0].back = Some(Back::Recovering);
        assert!(startable(&r).is_empty(), "uncordoned, its workloads not yet back");
        r.nodes[0].back = Some(Back::Uncordoned);
        assert_eq!(startable(&r), vec![1]);
    }

    #[test]
    fn at_most_max_parallel_drain_at_once() {
        let mut r = rollout(&["a", "a", "b", "b", "c", "c"], options(2, false, false));
        assert_eq!(startable(&r), vec![0, 1]);
        r.nodes[0].step = Step::Draining("d0".into());
        r.nodes[1].step = Step::Draining("d1".into());
        assert_eq!(startable(&r), Vec::<usize>::new(), "two draining: no room");
        r.nodes[0].step = Step::Ended(DrainState::Drained);
        assert_eq!(startable(&r), vec![2]);
    }

    #[test]
    fn one_per_zone_never_starts_two_of_a_zone() {
        let mut r = rollout(&["a", "a", "b", "", "", "c"], options(10, true, false));
        assert_eq!(startable(&r), vec![0, 2, 3, 5], "one of a, b, the zoneless, c");
        r.nodes[0].step = Step::Draining("d0".into());
        r.nodes[2].step = Step::Draining("d2".into());
        r.nodes[3].step = Step::Ended(DrainState::Drained);
        assert_eq!(startable(&r), vec![4, 5], "a still busy; the zoneless one may go");
    }

    #[test]
    fn a_failure_stops_new_starts_only_when_asked() {
        let mut r = rollout(&["a", "b", "c"], options(1, false, true));
        r.nodes[0].step = Step::Ended(DrainState::Refused);
        assert!(startable(&r).is_empty());
        assert!(r.settled(), "nothing runs, and nothing more will start");
        r.options.stop_on_failure = false;
        assert_eq!(startable(&r), vec![1]);
        assert!(!r.settled());
    }

    #[test]
    fn a_node_is_back_after_a_new_boot_and_ready_only() {
        assert!(is_back(Some("b1"), Some("b2"), true));
        assert!(!is_back(Some("b1"), Some("b2"), false), "rebooted but not Ready yet");
        assert!(!is_back(Some("b1"), Some("b1"), true), "Ready, but it never rebooted");
        assert!(!is_back(None, Some("b2"), true), "no boot id to compare: a person says when it is back");
        assert!(!is_back(Some("b1"), Some(""), true));
    }

    #[test]
    fn a_node_awaited_back_holds_its_place_until_it_is_uncordoned() {
        let mut r = rollout(&["a", "b"], options(1, false, false));
        r.options.uncordon_when_back = true;
        r.nodes[0].step = Step::Ended(DrainState::Drained);
        r.nodes[0].back = Some(Back::Waiting(Some("b1".into())));
        assert!(startable(&r).is_empty(), "a drained node still out of service holds the one place");
        assert!(!r.settled(), "node a is still awaited");
        r.nodes[0].back = Some(Back::Uncordoned);
        assert_eq!(startable(&r), vec![1], "back and schedulable: its place is free");
        r.nodes[1].step = Step::Ended(DrainState::Drained);
        r.nodes[1].back = Some(Back::Uncordoned);
        assert!(r.settled());
    }

    /// One per zone with "uncordon once back": the second node of a zone waits until the first is back and
    /// schedulable, so the zone always keeps a schedulable node (two of zone-a drained 44 ms apart, before).
    #[test]
    fn one_per_zone_keeps_a_zone_serving_until_its_node_is_back() {
        let mut r = rollout(&["zone-a", "zone-a", "zone-b"], options(10, true, false));
        r.options.uncordon_when_back = true;
        assert_eq!(startable(&r), vec![0, 2]);
        r.nodes[0].step = Step::Ended(DrainState::Drained);
        r.nodes[0].back = Some(Back::Waiting(Some("boot-1".into())));
        r.nodes[2].step = Step::Draining("d2".into());
        assert!(startable(&r).is_empty(), "zone-a's drained node is not back yet");
        r.nodes[0].back = Some(Back::Uncordoned);
        assert_eq!(startable(&r), vec![1], "zone-a serves again: its next node may go");
    }

    #[test]
    fn a_paused_rollout_starts_nothing() {
        let mut r = rollout(&["a", "b"], options(2, false, false));
        r.state = RolloutState::Paused;
        assert!(startable(&r).is_empty());
    }

    #[test]
    fn an_unverified_node_stops_the_plan_unless_it_goes_on() {
        let mut r = rollout(&["a", "b"], options(1, false, false));
        r.options.uncordon_when_back = true;
        r.options.verify = Some(crate::verify::Verify::default());
        r.nodes[0].step = Step::Ended(DrainState::Drained);
        r.nodes[0].back = Some(Back::Unverified(vec![crate::verify::CheckFailure::NotReady { node: "a".into() }]));
        assert!(r.nodes[0].failed(), "an unverified node counts as failed");
        assert!(startable(&r).is_empty(), "the plan stops");
        r.options.verify = Some(crate::verify::Verify { continue_on_failure: true, ..Default::default() });
        assert_eq!(startable(&r), vec![1], "or goes on, when asked");
        let mut bad = r.options.clone();
        bad.uncordon_when_back = false;
        assert!(check(&["a".into()], &bad).is_err(), "verification needs uncordon when back");
    }

    #[test]
    fn the_nodes_to_bring_back_are_named_only_while_nothing_else_can_move() {
        let mut r = rollout(&["a", "a", "b"], options(1, true, false));
        r.options.uncordon_when_back = true;
        assert!(r.to_bring_back().is_empty(), "nothing drained yet");
        r.nodes[0].step = Step::Ended(DrainState::Drained);
        r.nodes[0].back = Some(Back::Waiting(None));
        r.nodes[2].step = Step::Draining("d3".into());
        assert!(r.to_bring_back().is_empty(), "a drain still runs");
        r.nodes[2].step = Step::Ended(DrainState::Drained);
        r.nodes[2].back = Some(Back::Waiting(None));
        let names: Vec<String> = r.nodes.iter().map(|n| n.name.clone()).collect();
        assert_eq!(r.to_bring_back(), [names[0].as_str(), names[2].as_str()], "the second node waits for their places");
        r.state = RolloutState::Cancelled;
        assert!(r.to_bring_back().is_empty(), "an ended plan asks nothing");
    }

    #[test]
    fn zones_shared_by_selected_nodes_are_found() {
        let nodes = [("n1", Some("a")), ("n2", Some("b")), ("n3", Some("a")), ("n4", None), ("n5", None)];
        assert_eq!(shared_zones(nodes), vec![("a".to_string(), vec!["n1".to_string(), "n3".to_string()])]);
        assert!(shared_zones([("n1", Some("a")), ("n2", Some("b"))]).is_empty());
        assert!(shared_zones([]).is_empty());
    }

    #[test]
    fn a_blocked_plan_starts_nothing_until_it_is_unblocked() {
        let mut r = rollout(&["a", "b"], options(2, false, false));
        r.blocked = Some(crate::plan_block::Blocked::NeedsMaintainer);
        assert!(startable(&r).is_empty());
        r.blocked = None;
        assert_eq!(startable(&r), vec![0, 1]);
    }

    #[test]
    fn requests_are_checked() {
        let names = |n: usize| (0..n).map(|i| format!("n{i}")).collect::<Vec<_>>();
        assert!(check(&names(3), &options(2, false, false)).is_ok());
        assert!(check(&[], &options(2, false, false)).is_err());
        assert!(check(&names(MAX_NODES + 1), &options(2, false, false)).is_err());
        assert!(check(&["a".into(), "a".into()], &options(2, false, false)).is_err());
        assert!(check(&names(3), &options(0, false, false)).is_err());
        assert!(check(&names(3), &options(MAX_PARALLEL + 1, false, false)).is_err());
    }

    #[test]
    fn the_typed_confirmation_counts_one_node_in_the_singular() {
        assert_eq!(confirm_word(1), "1 node");
        assert_eq!(confirm_word(6), "6 nodes");
    }
}
