//! Holding other tools, row by row: what a window lists, which switches a freeze wants, what changes on a node,
//! and kured's lock.

use std::collections::{BTreeMap, BTreeSet};

use jiff::{Timestamp, tz::TimeZone};

#[cfg(feature = "k8s")]
use super::kured::{self, Change};
use super::*;
use crate::window::spec::{FreezeSpec, Spec};

fn ts(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

fn window(name: &str, selector: &str, freeze: (&str, &str), hold: &[&str]) -> Policy {
    let spec = Spec {
        node_selector: Some(selector.into()),
        freezes: vec![FreezeSpec { start: freeze.0.into(), end: freeze.1.into(), reason: "year end".into() }],
        hold_others: hold.iter().map(|h| (*h).to_owned()).collect(),
        ..Spec::default()
    };
    Policy::parse(name, &spec, |z| TimeZone::get(z).ok()).unwrap()
}

#[test]
fn a_window_lists_known_tools_once() {
    let ids = |list: &[&str]| parse(&list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
    assert_eq!(ids(&["karpenter", "kured"]), Ok(vec![Switch::Karpenter, Switch::Kured]));
    assert_eq!(ids(&[]), Ok(vec![]));
    assert!(ids(&["Karpenter"]).unwrap_err().contains("write karpenter, clusterAutoscaler or kured"));
    assert!(ids(&["kured", "kured"]).unwrap_err().contains("twice"));
    assert!(ids(&["kured"; 4]).unwrap_err().contains("at most 3"));
    // A window whose list does not read does not read at all: it holds its nodes and says why.
    let spec = Spec { hold_others: vec!["autoscaler".into()], ..Spec::default() };
    assert!(Policy::parse("w", &spec, |z| TimeZone::get(z).ok()).unwrap_err().contains("holdOthers[0]"));
    for s in Switch::ALL {
        assert_eq!(Switch::from_id(s.id()), Some(s));
    }
}

#[test]
fn only_a_freeze_in_force_of_a_window_that_covers_the_node_wants_a_switch() {
    let windows = [
        window("year-end", "pool=db", ("2026-12-20", "2027-01-02"), &["karpenter", "kured"]),
        window("later", "pool=db", ("2027-03-01", "2027-03-02"), &["clusterAutoscaler"]),
        window("web", "pool=web", ("2026-12-01", "2027-01-31"), &["clusterAutoscaler"]),
    ];
    let db = map(&[("pool", "db")]);
    let wanted = |labels: Option<&BTreeMap<String, String>>, at: &str| -> Vec<(Switch, String)> {
        wanted_by(&windows, labels, ts(at)).into_iter().collect()
    };
    assert_eq!(
        wanted(Some(&db), "2026-12-24T00:00:00Z"),
        [(Switch::Karpenter, "year-end".to_owned()), (Switch::Kured, "year-end".to_owned())]
    );
    assert!(wanted(Some(&db), "2026-12-10T00:00:00Z").is_empty(), "before the freeze");
    assert!(wanted(Some(&db), "2027-01-03T00:00:00Z").is_empty(), "after it");
    // Without a node (kured's lock, the whole DaemonSet's): any window's freeze.
    assert_eq!(wanted(None, "2026-12-10T00:00:00Z"), [(Switch::ClusterAutoscaler, "web".to_owned())]);
    // A window that does not read wants nothing.
    let broken = [Policy::broken("b", None, "x".into())];
    assert!(wanted_by(&broken, Some(&db), ts("2026-12-24T00:00:00Z")).is_empty());
}

#[test]
fn each_row_of_the_node_switch_table() {
    let karp = "karpenter.sh/do-not-disrupt";
    let ca = "cluster-autoscaler.kubernetes.io/scale-down-disabled";
    // (case, wanted, annotations before, keep, set, unset, theirs, the mark after: None unchanged, Some("") removed)
    type Row<'a> = (
        &'a str,
        &'a [Switch],
        &'a [(&'a str, &'a str)],
        bool,
        &'a [Switch],
        &'a [Switch],
        &'a [Switch],
        Option<&'a str>,
    );
    use Switch::{ClusterAutoscaler as Ca, Karpenter as K, Kured};
    let rows: [Row; 10] = [
        ("set both", &[K, Ca], &[], false, &[K, Ca], &[], &[], Some("karpenter,clusterAutoscaler")),
        ("kured is not a node switch", &[Kured], &[], false, &[], &[], &[], None),
        ("already ours", &[K], &[(karp, "true"), (MARK, "karpenter")], false, &[], &[], &[], None),
        ("someone else's is left, and not claimed", &[K], &[(karp, "true")], false, &[], &[], &[K], None),
        ("theirs with another value", &[K], &[(karp, "false")], false, &[], &[], &[K], None),
        ("ours, no longer wanted", &[], &[(karp, "true"), (MARK, "karpenter")], false, &[], &[K], &[], Some("")),
        (
            "ours kept while the windows do not read",
            &[],
            &[(karp, "true"), (MARK, "karpenter")],
            true,
            &[],
            &[],
            &[],
            None,
        ),
        // Someone changed our switch since: no longer ours; left as they made it, the claim dropped.
        ("changed by someone since", &[], &[(karp, "false"), (MARK, "karpenter")], false, &[], &[], &[], Some("")),
        (
            "one of two kept",
            &[Ca],
            &[(karp, "true"), (ca, "true"), (MARK, "karpenter,clusterAutoscaler")],
            false,
            &[],
            &[K],
            &[],
            Some("clusterAutoscaler"),
        ),
        // A forged mark over someone else's switch names what it may: it removes only what is on as Drainboard sets it.
        ("a mark naming nothing real", &[], &[(MARK, "kured,evil")], false, &[], &[], &[], Some("")),
    ];
    for (case, wanted, before, keep, set, unset, theirs, mark) in rows {
        let wanted: BTreeSet<Switch> = wanted.iter().copied().collect();
        let change = node_change(&wanted, &map(before), keep);
        assert_eq!(change.set, set, "{case}: set");
        assert_eq!(change.unset, unset, "{case}: unset");
        assert_eq!(change.theirs, theirs, "{case}: theirs");
        let want_mark = mark.map(|m| (!m.is_empty()).then(|| m.to_owned()));
        assert_eq!(change.mark, want_mark, "{case}: mark");
        assert_eq!(change.writes(), !set.is_empty() || !unset.is_empty() || mark.is_some(), "{case}");
    }
}

#[cfg(feature = "k8s")]
#[test]
fn kured_flags_read_from_its_arguments() {
    let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(kured::flags(&args(&[])), (1, kured::LOCK.to_owned()));
    assert_eq!(kured::flags(&args(&["--period=1h", "--concurrency=3"])), (3, kured::LOCK.to_owned()));
    assert_eq!(
        kured::flags(&args(&["--concurrency", "2", "--lock-annotation", "x.io/lock"])),
        (2, "x.io/lock".to_owned())
    );
    assert_eq!(kured::flags(&args(&["--concurrency=99999"])).0, kured::MAX_CONCURRENCY);
    assert_eq!(kured::flags(&args(&["--concurrency=x", "--lock-annotation=bad key!"])), (1, kured::LOCK.to_owned()));
    assert_eq!(kured::flags(&args(&["--concurrencyish=4"])).0, 1);
}

#[cfg(feature = "k8s")]
#[test]
fn each_row_of_the_kured_lock_table() {
    let now = ts("2026-12-24T12:00:00Z");
    let ours = |at: &str| {
        format!(
            r#"{{"nodeID":"drainboard:year-end","metadata":{{"unschedulable":false}},"created":"{at}","TTL":600000000000}}"#
        )
    };
    let node7 = |ttl: i64| {
        format!(
            r#"{{"nodeID":"node-7","metadata":{{"unschedulable":false}},"created":"2026-12-24T11:00:00Z","TTL":{ttl}}}"#
        )
    };
    let written = |c: &Change| -> serde_json::Value {
        match c {
            Change::Write(v) => serde_json::from_str(v).unwrap(),
            other => panic!("not a write: {other:?}"),
        }
    };
    // Taken when free, in kured's format.
    let took = kured::change(Some("year-end"), None, 1, now);
    let v = written(&took);
    assert_eq!(
        (v["nodeID"].as_str(), v["created"].as_str()),
        (Some("drainboard:year-end"), Some("2026-12-24T12:00:00Z"))
    );
    assert_eq!((v["TTL"].as_i64(), v["metadata"]["unschedulable"].as_bool()), (Some(600_000_000_000), Some(false)));
    // Fresh: kept; old: renewed; not wanted: removed.
    assert_eq!(kured::change(Some("year-end"), Some(&ours("2026-12-24T11:59:00Z")), 1, now), Change::Keep);
    assert_eq!(
        written(&kured::change(Some("year-end"), Some(&ours("2026-12-24T11:50:00Z")), 1, now))["created"],
        "2026-12-24T12:00:00Z"
    );
    assert_eq!(kured::change(None, Some(&ours("2026-12-24T11:59:00Z")), 1, now), Change::Remove);
    // A kured node's: never taken over while it lasts, never removed; taken once lapsed.
    assert_eq!(kured::change(Some("year-end"), Some(&node7(0)), 1, now), Change::Busy("node-7".into()));
    assert_eq!(kured::change(None, Some(&node7(0)), 1, now), Change::Keep);
    assert_eq!(
        written(&kured::change(Some("year-end"), Some(&node7(1_800_000_000_000)), 1, now))["nodeID"],
        "drainboard:year-end"
    );
    // Not kured's format: left alone.
    assert_eq!(kured::change(Some("year-end"), Some("manual"), 1, now), Change::Unreadable);
    assert_eq!(kured::change(None, Some("{\"x\":1}"), 1, now), Change::Keep);
    assert_eq!(kured::change(None, None, 1, now), Change::Keep);

    // Multi-lock (concurrency 3): every free place filled; a kured node's place kept; only ours given back.
    let multi = |locks: &str| format!(r#"{{"maxOwners":3,"locks":[{locks}]}}"#);
    let v = written(&kured::change(Some("year-end"), Some(&multi(&node7(0))), 3, now));
    let holders: Vec<&str> = v["locks"].as_array().unwrap().iter().map(|l| l["nodeID"].as_str().unwrap()).collect();
    assert_eq!(holders, ["node-7", "drainboard:year-end:1", "drainboard:year-end:2"]);
    assert_eq!(v["maxOwners"], 3);
    let held = serde_json::to_string(&v).unwrap();
    assert_eq!(kured::change(Some("year-end"), Some(&held), 3, now), Change::Keep);
    let back = written(&kured::change(None, Some(&held), 3, now));
    assert_eq!(back["locks"].as_array().unwrap().len(), 1);
    assert_eq!(back["locks"][0]["nodeID"], "node-7");
    let only_ours = written(&kured::change(Some("year-end"), None, 2, now)).to_string();
    assert_eq!(kured::change(None, Some(&only_ours), 2, now), Change::Remove);
    let full = multi(&[node7(0), node7(0), node7(0)].join(","));
    assert_eq!(kured::change(Some("year-end"), Some(&full), 3, now), Change::Busy("node-7,node-7,node-7".into()));
}
