//! kured's lock, taken and given back in kured's own format (`pkg/daemonsetlock` in kured's source): an annotation
//! on kured's DaemonSet holding `{"nodeID", "metadata": {"unschedulable"}, "created", "TTL"}` (the TTL in
//! nanoseconds, as Go writes a duration), or with `--concurrency` above 1, `{"maxOwners", "locks": [...]}`. A kured
//! node reboots only once it holds the lock, or one of the `maxOwners` places, so a lock Drainboard holds stops
//! every new reboot; a reboot already under way goes on.
//!
//! Drainboard's lock carries a TTL ([`TTL_SECONDS`]) and is renewed while wanted: were Drainboard gone, kured
//! would go on by itself once it lapses. A lock some kured node holds is never taken over while it lasts.

use jiff::Timestamp;
use serde_json::{Value, json};

/// kured's lock annotation, unless its `--lock-annotation` says another.
pub const LOCK: &str = "weave.works/kured-node-lock";
/// How Drainboard's holder names start: `drainboard:<window>`.
pub const HOLDER: &str = "drainboard:";
/// How long Drainboard's lock lasts unless renewed.
pub const TTL_SECONDS: i64 = 600;
/// Renewed once this old.
pub const RENEW_SECONDS: i64 = 120;
/// The most places Drainboard fills in a multi-lock: kured's `--concurrency` is small; a DaemonSet's argument is a
/// claim, and must not make Drainboard write a huge annotation.
pub const MAX_CONCURRENCY: u32 = 50;

/// What to do with the lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing.
    Keep,
    /// Write the annotation so.
    Write(String),
    /// Remove the annotation: it held only Drainboard's lock.
    Remove,
    /// A kured node holds it (named): Drainboard takes it once that lock is released or lapses.
    Busy(String),
    /// The annotation is not kured's format: left alone, and said.
    Unreadable,
}

/// kured's `--concurrency` and `--lock-annotation`, from its container's arguments (`--flag=value` or
/// `--flag value`); 1 and [`LOCK`] when not given, or when they do not read.
pub fn flags(args: &[String]) -> (u32, String) {
    let value = |flag: &str| {
        args.iter().enumerate().find_map(|(i, a)| {
            let rest = a.strip_prefix(flag)?;
            match rest.strip_prefix('=') {
                Some(v) => Some(v.to_owned()),
                None if rest.is_empty() => args.get(i + 1).cloned(),
                None => None,
            }
        })
    };
    let concurrency = value("--concurrency").and_then(|v| v.trim().parse::<u32>().ok()).unwrap_or(1);
    let annotation = value("--lock-annotation")
        .filter(|a| {
            !a.is_empty() && a.len() <= 253 && a.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._/".contains(&b))
        })
        .unwrap_or_else(|| LOCK.to_owned());
    (concurrency.clamp(1, MAX_CONCURRENCY), annotation)
}

fn entry(holder: &str, now: Timestamp) -> Value {
    json!({
        "nodeID": holder,
        "metadata": {"unschedulable": false},
        "created": now.to_string(),
        "TTL": TTL_SECONDS.saturating_mul(1_000_000_000),
    })
}

fn holder_of(entry: &Value) -> Option<&str> {
    entry.get("nodeID")?.as_str()
}

fn is_ours(entry: &Value) -> bool {
    holder_of(entry).is_some_and(|h| h.starts_with(HOLDER))
}

/// How old the entry is at `now`, in seconds (`None`: no time that reads).
fn age(entry: &Value, now: Timestamp) -> Option<i64> {
    let created: Timestamp = entry.get("created")?.as_str()?.parse().ok()?;
    Some(now.duration_since(created).as_secs())
}

/// Whether kured reads the entry as lapsed at `now`: a TTL above 0 that has run out. (kured falls back to its own
/// `--lock-ttl` for a lock with none, which Drainboard does not know: such a lock is taken as lasting.)
fn lapsed(entry: &Value, now: Timestamp) -> bool {
    let ttl = entry.get("TTL").and_then(Value::as_i64).unwrap_or(0) / 1_000_000_000;
    ttl > 0 && age(entry, now).is_some_and(|a| a >= ttl)
}

fn fresh(entry: &Value, now: Timestamp) -> bool {
    age(entry, now).is_some_and(|a| (0..RENEW_SECONDS).contains(&a))
}

/// What brings the lock, now `current`, to held by `window` (`None`: not wanted), with kured's `concurrency`.
pub fn change(window: Option<&str>, current: Option<&str>, concurrency: u32, now: Timestamp) -> Change {
    let holder = window.map(|w| format!("{HOLDER}{w}"));
    if concurrency > 1 {
        return multi(holder.as_deref(), current, concurrency, now);
    }
    let Some(current) = current else {
        return holder.map_or(Change::Keep, |h| Change::Write(entry(&h, now).to_string()));
    };
    let Ok(value) = serde_json::from_str::<Value>(current) else {
        return if holder.is_some() { Change::Unreadable } else { Change::Keep };
    };
    let Some(theirs) = holder_of(&value) else {
        return if holder.is_some() { Change::Unreadable } else { Change::Keep };
    };
    match (holder, is_ours(&value)) {
        (None, true) => Change::Remove,
        (None, false) => Change::Keep,
        // Held by Drainboard (maybe for another window): renewed under the same name.
        (Some(_), true) if fresh(&value, now) => Change::Keep,
        (Some(_), true) => Change::Write(entry(theirs, now).to_string()),
        (Some(h), false) if lapsed(&value, now) => Change::Write(entry(&h, now).to_string()),
        (Some(_), false) => Change::Busy(theirs.chars().take(100).collect()),
    }
}

/// [`change`] for kured's multi-lock: Drainboard fills every free place, and gives back only its own.
fn multi(holder: Option<&str>, current: Option<&str>, concurrency: u32, now: Timestamp) -> Change {
    let parsed = match current.map(serde_json::from_str::<Value>) {
        None => Some(Vec::new()),
        Some(Ok(v)) => match v.get("locks") {
            Some(Value::Array(locks)) => Some(locks.clone()),
            Some(Value::Null) | None if v.get("maxOwners").is_some() => Some(Vec::new()),
            // A single lock of Drainboard's, from before kured's concurrency changed: replaced.
            _ if is_ours(&v) => Some(Vec::new()),
            _ => None,
        },
        Some(Err(_)) => None,
    };
    let Some(locks) = parsed else {
        return if holder.is_some() { Change::Unreadable } else { Change::Keep };
    };
    let (mine, theirs): (Vec<Value>, Vec<Value>) = locks.into_iter().partition(is_ours);
    let places = concurrency as usize;
    let write = |locks: Vec<Value>| json!({"maxOwners": concurrency, "locks": locks}).to_string();
    let Some(holder) = holder else {
        return match (mine.is_empty(), theirs.is_empty()) {
            (true, _) => Change::Keep,
            (false, true) => Change::Remove,
            (false, false) => Change::Write(write(theirs)),
        };
    };
    let want = places.saturating_sub(theirs.len());
    if want == 0 && mine.is_empty() {
        let names: Vec<&str> = theirs.iter().filter_map(holder_of).collect();
        return Change::Busy(names.join(",").chars().take(100).collect());
    }
    if mine.len() == want && current.is_some() && mine.iter().all(|m| fresh(m, now)) {
        return Change::Keep;
    }
    let mut locks = theirs;
    locks.extend((1..=want).map(|k| entry(&format!("{holder}:{k}"), now)));
    Change::Write(write(locks))
}

/// Whether `current` holds a lock of Drainboard's (single, or a place of a multi-lock).
pub fn ours(current: Option<&str>) -> bool {
    let Some(value) = current.and_then(|c| serde_json::from_str::<Value>(c).ok()) else { return false };
    match value.get("locks") {
        Some(Value::Array(locks)) => locks.iter().any(is_ours),
        _ => is_ours(&value),
    }
}
