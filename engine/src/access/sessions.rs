//! Team mode's sessions: who each session id belongs to, for how long. Apart from the clients, since the rule of a
//! session's life (idle time, lifetime, the cap) is what a reviewer checks here, and it is tested on its own with a
//! clock the test moves.
//!
//! `moka` keeps the entries: it bounds them ([`MAX_SESSIONS`], the least recently used making room) and sweeps the
//! stale ones in real time, calling back as each goes, so that a person's credentials leave the server with their
//! last session. Its clock cannot be moved in a test, so the rule itself ([`Lifetime::alive`]) is applied again on
//! every lookup, with the store's [`Clock`].

use std::{
    collections::HashMap,
    sync::Arc,
    time::{Duration, Instant},
};

use moka::{notification::RemovalCause, policy::EvictionPolicy, sync::Cache};
use parking_lot::Mutex;

use super::identity::{Caller, Identity};
use crate::{Error, Result, signin::Person};

/// A session unused this long is forgotten (its credentials with it).
pub const SESSION_IDLE: Duration = Duration::from_secs(12 * 3600);
/// No session lives longer than this, used or not: the person signs in again.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// The most sessions the server holds; the least recently used one makes room.
pub const MAX_SESSIONS: u64 = 10_000;

/// What tells a session's age: the system's monotonic clock, or a test's.
pub(crate) trait Clock: Send + Sync {
    fn now(&self) -> Instant;
}

/// The system's monotonic clock.
pub(crate) struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// When a session began and was last used: it is alive while used within [`SESSION_IDLE`], and for no longer than
/// [`SESSION_LIFETIME`] whatever its use.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lifetime {
    pub started: Instant,
    pub last_seen: Instant,
}

impl Lifetime {
    pub fn alive(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.last_seen) < SESSION_IDLE
            && now.saturating_duration_since(self.started) < SESSION_LIFETIME
    }
}

/// A signed-in person: who the API server says they are, and when they were last seen.
struct Session {
    person: Person,
    identity: Identity,
    started: Instant,
    last_seen: Mutex<Instant>,
}

/// Called with an identity whose last session has just ended.
type LastGone = Arc<dyn Fn(&Identity) + Send + Sync>;

/// The sessions of one server.
pub(crate) struct Sessions {
    by_id: Cache<String, Arc<Session>>,
    /// Live sessions per identity, so that the end of the last one drops the person's client; an identity leaves
    /// this map with its last session, so it is no larger than the sessions.
    per_identity: Arc<Mutex<HashMap<Identity, usize>>>,
    clock: Arc<dyn Clock>,
}

impl Sessions {
    /// A store of at most `capacity` sessions; `last_gone` hears each identity left with none.
    pub fn new(capacity: u64, clock: Arc<dyn Clock>, last_gone: LastGone) -> Self {
        let per_identity: Arc<Mutex<HashMap<Identity, usize>>> = Default::default();
        let counts = per_identity.clone();
        let by_id = Cache::builder()
            .max_capacity(capacity)
            // The least recently used makes room at the cap: moka's default would rather turn the new one away,
            // and a person who just signed in must get their session.
            .eviction_policy(EvictionPolicy::lru())
            .time_to_idle(SESSION_IDLE)
            .time_to_live(SESSION_LIFETIME)
            .eviction_listener(move |_id: Arc<String>, session: Arc<Session>, _cause: RemovalCause| {
                // The count and the client go under one lock, so that a sign-in of the same person in between
                // (which counts first, then keeps its client) is never undone.
                let mut counts = counts.lock();
                if let Some(n) = counts.get_mut(&session.identity) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        counts.remove(&session.identity);
                        last_gone(&session.identity);
                    }
                }
            })
            .build();
        Sessions { by_id, per_identity, clock }
    }

    /// Keeps a new session for `person` and returns its id (see [`new_id`]).
    pub fn insert(&self, person: Person, identity: Identity) -> Result<String> {
        let id = new_id()?;
        *self.per_identity.lock().entry(identity.clone()).or_default() += 1;
        let now = self.clock.now();
        let session = Session { person, identity, started: now, last_seen: Mutex::new(now) };
        self.by_id.insert(id.clone(), Arc::new(session));
        Ok(id)
    }

    /// Who session `id` belongs to, if it is alive now; each use keeps it from going idle. A stale one is forgotten.
    pub fn get(&self, id: &str) -> Option<Caller> {
        let session = self.by_id.get(id)?;
        let now = self.clock.now();
        {
            let mut last_seen = session.last_seen.lock();
            if !(Lifetime { started: session.started, last_seen: *last_seen }).alive(now) {
                drop(last_seen);
                self.by_id.invalidate(id);
                return None;
            }
            *last_seen = now;
        }
        Some(Caller {
            identity: session.identity.clone(),
            person: Some(session.person.clone()),
            session: Some(id.to_owned()),
            // A wall screen's session is not kept here (see `KubeAccess::is_wall_session`).
            wall: false,
        })
    }

    /// Forgets session `id`.
    pub fn remove(&self, id: &str) {
        self.by_id.invalidate(id);
    }

    /// Forgets every session of `identity`.
    pub fn remove_all(&self, identity: &Identity) {
        let ids: Vec<Arc<String>> =
            self.by_id.iter().filter(|(_, session)| &session.identity == identity).map(|(id, _)| id).collect();
        for id in ids {
            self.by_id.invalidate(id.as_str());
        }
    }

    /// Applies the cache's pending evictions now (tests; moka does it by itself as the store is used).
    #[cfg(test)]
    fn settle(&self) {
        self.by_id.run_pending_tasks();
    }
}

/// A new session id: 32 bytes from the operating system's random source, as 64 hex digits (the form the session
/// layer accepts).
fn new_id() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| Error::Internal(format!("no random bytes for a session id: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// A clock the test moves by hand.
    struct TestClock(Mutex<Instant>);

    impl TestClock {
        fn advance(&self, by: Duration) {
            *self.0.lock() += by;
        }
    }

    impl Clock for TestClock {
        fn now(&self) -> Instant {
            *self.0.lock()
        }
    }

    fn who(user: &str) -> (Person, Identity) {
        (Person { username: user.into(), groups: Vec::new() }, Identity { cluster: "c".into(), user: user.into() })
    }

    /// A store on a test clock, and the identities it reported gone.
    fn store(capacity: u64) -> (Sessions, Arc<TestClock>, Arc<Mutex<Vec<String>>>) {
        let clock = Arc::new(TestClock(Mutex::new(Instant::now())));
        let gone: Arc<Mutex<Vec<String>>> = Default::default();
        let heard = gone.clone();
        let sessions =
            Sessions::new(capacity, clock.clone(), Arc::new(move |i: &Identity| heard.lock().push(i.user.clone())));
        (sessions, clock, gone)
    }

    #[test]
    fn the_rule_idle_time_and_lifetime() {
        let start = Instant::now();
        let hours = |h: u64| Duration::from_secs(h * 3600);
        let life = Lifetime { started: start, last_seen: start };
        assert!(life.alive(start));
        assert!(life.alive(start + hours(12) - Duration::from_secs(1)));
        assert!(!life.alive(start + hours(12)), "idle for SESSION_IDLE");
        let used = Lifetime { started: start, last_seen: start + hours(23) };
        assert!(used.alive(start + hours(24) - Duration::from_secs(1)));
        assert!(!used.alive(start + hours(24)), "used, but older than SESSION_LIFETIME");
    }

    #[test]
    fn a_session_goes_idle_unless_used() {
        let (sessions, clock, gone) = store(100);
        let (alice, alice_id) = who("alice");
        let (bob, bob_id) = who("bob");
        let idle = sessions.insert(alice, alice_id).expect("a session");
        let used = sessions.insert(bob, bob_id.clone()).expect("a session");
        clock.advance(SESSION_IDLE / 2);
        assert_eq!(sessions.get(&used).map(|c| c.identity), Some(bob_id), "used half-way");
        clock.advance(SESSION_IDLE / 2);
        assert!(sessions.get(&idle).is_none(), "unused for SESSION_IDLE");
        assert!(sessions.get(&used).is_some(), "each use keeps it from going idle");
        sessions.settle();
        assert_eq!(*gone.lock(), ["alice"], "the person's client goes with their last session");
        assert!(sessions.get(&idle).is_none(), "and it stays gone");
    }

    #[test]
    fn no_session_outlives_its_lifetime_however_used() {
        let (sessions, clock, _) = store(100);
        let (person, identity) = who("alice");
        let id = sessions.insert(person, identity).expect("a session");
        let step = Duration::from_secs(3600);
        let mut lived = Duration::ZERO;
        while lived + step < SESSION_LIFETIME {
            clock.advance(step);
            lived += step;
            assert!(sessions.get(&id).is_some(), "alive after {lived:?}");
        }
        clock.advance(step);
        assert!(sessions.get(&id).is_none(), "gone at {SESSION_LIFETIME:?}");
    }

    #[test]
    fn credentials_go_with_the_last_session_of_their_person() {
        let (sessions, _, gone) = store(100);
        let (alice, alice_id) = who("alice");
        let first = sessions.insert(alice.clone(), alice_id.clone()).expect("a session");
        let second = sessions.insert(alice, alice_id).expect("a session");
        let (bob, bob_id) = who("bob");
        let bobs = sessions.insert(bob, bob_id.clone()).expect("a session");
        sessions.remove(&first);
        sessions.settle();
        assert!(gone.lock().is_empty(), "alice has a session left");
        sessions.remove(&second);
        sessions.remove_all(&bob_id);
        sessions.settle();
        let mut heard = gone.lock().clone();
        heard.sort();
        assert_eq!(heard, ["alice", "bob"]);
        assert!(sessions.get(&bobs).is_none());
    }

    #[test]
    fn the_least_recently_used_session_makes_room_at_the_cap() {
        let (sessions, _, gone) = store(2);
        let ids: Vec<String> = ["a", "b"]
            .iter()
            .map(|u| {
                let (p, i) = who(u);
                sessions.insert(p, i).expect("a session")
            })
            .collect();
        sessions.settle();
        assert!(sessions.get(&ids[0]).is_some(), "a is used again");
        sessions.settle();
        let (p, i) = who("c");
        let newest = sessions.insert(p, i).expect("a session, even at the cap");
        sessions.settle();
        assert!(sessions.get(&newest).is_some(), "the new session is kept");
        assert!(sessions.get(&ids[0]).is_some(), "the one used lately stays");
        assert!(sessions.get(&ids[1]).is_none(), "the least recently used made room");
        assert_eq!(*gone.lock(), ["b"]);
    }

    #[test]
    fn session_ids_are_64_hex_digits_and_differ() {
        let a = new_id().expect("random bytes");
        let b = new_id().expect("random bytes");
        assert!(a.len() == 64 && a.bytes().all(|c| c.is_ascii_hexdigit()), "{a}");
        assert_ne!(a, b);
    }
}
