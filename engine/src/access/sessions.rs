//! Team mode's sessions: who each session id belongs to, for how long. Apart from the clients, since the rule of a
//! session's life (idle time, lifetime, the caps) is what a reviewer checks here, and it is tested on its own with a
//! clock the test moves.
//!
//! `moka` keeps the entries and sweeps the stale ones in real time, calling back as each goes, so that a person's
//! credentials leave the server with their session. Its clock cannot be moved in a test, so the rule itself
//! ([`Lifetime::alive`]) is applied again on every lookup, with the store's [`Clock`]. Only a person's own doing
//! counts as activity ([`Sessions::get`] with `touch`): a background poll or an open stream neither keeps a session
//! from going idle nor ends it.

use std::{
    collections::{HashMap, VecDeque},
    sync::Arc,
    time::{Duration, Instant},
};

use moka::{notification::RemovalCause, sync::Cache};
use parking_lot::Mutex;

use super::identity::{Caller, Identity};
use crate::{Error, Result, signin::Person};

/// A session without its person's own activity for this long ends (OWASP ASVS 4.0.3, 3.3.2: 30 minutes).
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
/// No session lives longer than this, used or not: the person signs in again (ASVS 3.3.2: 12 hours).
pub const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 3600);

/// The most sessions the server holds: a sign-in beyond it is refused, never made room for by ending someone
/// else's session.
pub const MAX_SESSIONS: usize = 10_000;
/// The most sessions one person (by user name) holds at once: a new sign-in ends their least recently used one,
/// so that one person, or one stolen token, cannot fill the server.
pub const MAX_SESSIONS_PER_PERSON: usize = 8;

/// How long sessions live, and how many the server holds (`--session-idle`, `--session-lifetime`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionPolicy {
    pub idle: Duration,
    pub lifetime: Duration,
    pub max: usize,
    pub per_person: usize,
}

impl Default for SessionPolicy {
    fn default() -> Self {
        SessionPolicy {
            idle: SESSION_IDLE,
            lifetime: SESSION_LIFETIME,
            max: MAX_SESSIONS,
            per_person: MAX_SESSIONS_PER_PERSON,
        }
    }
}

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

/// When a session began and its person last acted: it is alive while they acted within the idle time, and for no
/// longer than the lifetime whatever they did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lifetime {
    pub started: Instant,
    pub last_seen: Instant,
}

impl Lifetime {
    pub fn alive(&self, now: Instant, policy: &SessionPolicy) -> bool {
        now.saturating_duration_since(self.last_seen) < policy.idle
            && now.saturating_duration_since(self.started) < policy.lifetime
    }
}

/// A signed-in person: who the API server says they are, and when they last acted.
struct Session {
    person: Person,
    identity: Identity,
    started: Instant,
    last_seen: Mutex<Instant>,
}

/// Called with the identity of each session that has just ended: its client goes (each sign-in has an identity
/// of its own, see [`Identity::person`]).
type Gone = Arc<dyn Fn(&Identity) + Send + Sync>;

/// The sessions of one server.
pub(crate) struct Sessions {
    by_id: Cache<String, Arc<Session>>,
    /// Each person's session ids, oldest first, for the per-person cap; a person leaves this map with their last
    /// session, so it is no larger than the sessions.
    per_person: Arc<Mutex<HashMap<String, VecDeque<String>>>>,
    policy: SessionPolicy,
    clock: Arc<dyn Clock>,
}

impl Sessions {
    /// A store kept by `policy`; `gone` hears each session's identity as the session ends.
    pub fn new(policy: SessionPolicy, clock: Arc<dyn Clock>, gone: Gone) -> Self {
        let per_person: Arc<Mutex<HashMap<String, VecDeque<String>>>> = Default::default();
        let held = per_person.clone();
        let by_id = Cache::builder()
            // moka's idle timer counts every lookup, a background one too; the rule on each lookup counts only the
            // person's own. So the entry lasts at most `idle` after any lookup, and is refused at the first lookup
            // after `idle` without the person's doing.
            .time_to_idle(policy.idle)
            .time_to_live(policy.lifetime)
            .eviction_listener(move |id: Arc<String>, session: Arc<Session>, _cause: RemovalCause| {
                let mut per_person = held.lock();
                if let Some(ids) = per_person.get_mut(&session.person.username) {
                    ids.retain(|kept| kept != id.as_str());
                    if ids.is_empty() {
                        per_person.remove(&session.person.username);
                    }
                }
                drop(per_person);
                gone(&session.identity);
            })
            .build();
        Sessions { by_id, per_person, policy, clock }
    }

    /// How long sessions live.
    pub fn policy(&self) -> SessionPolicy {
        self.policy
    }

    /// Keeps a new session for `person` and returns its id (see [`new_id`]). At the person's cap their least
    /// recently begun session ends; at the server's cap the sign-in is refused.
    pub fn insert(&self, person: Person, identity: Identity) -> Result<String> {
        let id = new_id()?;
        if self.by_id.entry_count() >= self.policy.max as u64 {
            // The count lags behind ended sessions until moka's pending work runs.
            self.by_id.run_pending_tasks();
        }
        let ending = {
            let mut per_person = self.per_person.lock();
            let total: usize = per_person.values().map(VecDeque::len).sum();
            let ids = per_person.entry(person.username.clone()).or_default();
            let ending = if ids.len() >= self.policy.per_person { ids.pop_front() } else { None };
            if ending.is_none() && total >= self.policy.max {
                if ids.is_empty() {
                    per_person.remove(&person.username);
                }
                return Err(Error::TooMany(format!(
                    "this server holds its most sessions ({}); try again once some have ended",
                    self.policy.max
                )));
            }
            ids.push_back(id.clone());
            ending
        };
        // Ended outside the lock: the eviction listener takes it.
        if let Some(oldest) = ending {
            self.by_id.invalidate(&oldest);
        }
        let now = self.clock.now();
        let session = Session { person, identity, started: now, last_seen: Mutex::new(now) };
        self.by_id.insert(id.clone(), Arc::new(session));
        Ok(id)
    }

    /// Who session `id` belongs to, if it is alive now. `touch`: the lookup is the person's own doing (a page
    /// load, an action), which keeps the session from going idle; a background poll or stream does not. A stale
    /// session is forgotten.
    pub fn get(&self, id: &str, touch: bool) -> Option<Caller> {
        let session = self.by_id.get(id)?;
        let now = self.clock.now();
        {
            let mut last_seen = session.last_seen.lock();
            if !(Lifetime { started: session.started, last_seen: *last_seen }).alive(now, &self.policy) {
                drop(last_seen);
                self.by_id.invalidate(id);
                return None;
            }
            if touch {
                *last_seen = now;
            }
        }
        Some(Caller {
            identity: session.identity.clone(),
            person: Some(session.person.clone()),
            session: Some(id.to_owned()),
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
        (Person { username: user.into(), groups: Vec::new() }, Identity::person("c", user))
    }

    /// A store on a test clock, and the users whose sessions it reported gone.
    fn store(policy: SessionPolicy) -> (Sessions, Arc<TestClock>, Arc<Mutex<Vec<String>>>) {
        let clock = Arc::new(TestClock(Mutex::new(Instant::now())));
        let gone: Arc<Mutex<Vec<String>>> = Default::default();
        let heard = gone.clone();
        let sessions =
            Sessions::new(policy, clock.clone(), Arc::new(move |i: &Identity| heard.lock().push(i.user.clone())));
        (sessions, clock, gone)
    }

    fn sign_in(sessions: &Sessions, user: &str) -> Result<String> {
        let (person, identity) = who(user);
        sessions.insert(person, identity)
    }

    #[test]
    fn the_rule_idle_time_and_lifetime() {
        let policy = SessionPolicy::default();
        let start = Instant::now();
        let minutes = |m: u64| Duration::from_secs(m * 60);
        let life = Lifetime { started: start, last_seen: start };
        assert!(life.alive(start, &policy));
        assert!(life.alive(start + minutes(30) - Duration::from_secs(1), &policy));
        assert!(!life.alive(start + minutes(30), &policy), "idle for SESSION_IDLE");
        let used = Lifetime { started: start, last_seen: start + minutes(12 * 60 - 10) };
        assert!(used.alive(start + minutes(12 * 60) - Duration::from_secs(1), &policy));
        assert!(!used.alive(start + minutes(12 * 60), &policy), "used, but older than SESSION_LIFETIME");
        let longer = SessionPolicy { idle: minutes(60), ..policy };
        assert!(life.alive(start + minutes(45), &longer), "the idle time is the server's setting");
    }

    #[test]
    fn only_the_persons_own_doing_keeps_a_session_from_going_idle() {
        let (sessions, clock, gone) = store(SessionPolicy::default());
        let (alice, alice_id) = who("alice");
        let (bob, bob_id) = who("bob");
        let polled = sessions.insert(alice, alice_id).expect("a session");
        let used = sessions.insert(bob, bob_id.clone()).expect("a session");
        for _ in 0..10 {
            clock.advance(SESSION_IDLE / 20);
            assert!(sessions.get(&polled, false).is_some(), "a background poll finds it");
        }
        clock.advance(SESSION_IDLE / 4);
        assert_eq!(sessions.get(&used, true).map(|c| c.identity), Some(bob_id), "used before it went idle");
        clock.advance(SESSION_IDLE / 4);
        assert!(sessions.get(&polled, false).is_none(), "polled all along, but idle for SESSION_IDLE");
        assert!(sessions.get(&used, false).is_some(), "its person's use kept it");
        sessions.settle();
        assert_eq!(*gone.lock(), ["alice"], "the credentials go with the session");
        assert!(sessions.get(&polled, true).is_none(), "and it stays gone");
    }

    #[test]
    fn no_session_outlives_its_lifetime_however_used() {
        let (sessions, clock, _) = store(SessionPolicy::default());
        let id = sign_in(&sessions, "alice").expect("a session");
        let step = Duration::from_secs(600);
        let mut lived = Duration::ZERO;
        while lived + step < SESSION_LIFETIME {
            clock.advance(step);
            lived += step;
            assert!(sessions.get(&id, true).is_some(), "alive after {lived:?}");
        }
        clock.advance(step);
        assert!(sessions.get(&id, true).is_none(), "gone at {SESSION_LIFETIME:?}");
    }

    #[test]
    fn each_sign_in_has_its_own_credentials_and_they_go_with_it() {
        let (sessions, _, gone) = store(SessionPolicy::default());
        let (alice, first_identity) = who("alice");
        let (_, second_identity) = who("alice");
        assert_ne!(first_identity, second_identity, "two sign-ins of one user name");
        let first = sessions.insert(alice.clone(), first_identity.clone()).expect("a session");
        let second = sessions.insert(alice, second_identity.clone()).expect("a session");
        assert_eq!(sessions.get(&first, false).map(|c| c.identity), Some(first_identity));
        assert_eq!(sessions.get(&second, false).map(|c| c.identity), Some(second_identity.clone()));
        sessions.remove(&first);
        sessions.settle();
        assert_eq!(*gone.lock(), ["alice"], "the first sign-in's credentials went with it");
        assert!(sessions.get(&second, false).is_some(), "the second stays");
        sessions.remove_all(&second_identity);
        sessions.settle();
        assert_eq!(gone.lock().len(), 2);
        assert!(sessions.get(&second, false).is_none());
    }

    #[test]
    fn one_persons_many_sessions_never_sign_another_out() {
        let policy = SessionPolicy { max: 6, per_person: 3, ..SessionPolicy::default() };
        let (sessions, _, gone) = store(policy);
        let bobs = sign_in(&sessions, "bob").expect("a session");
        let alices: Vec<String> = (0..5).map(|_| sign_in(&sessions, "alice").expect("a session")).collect();
        sessions.settle();
        assert!(sessions.get(&bobs, false).is_some(), "bob keeps his session");
        assert!(alices[..2].iter().all(|id| sessions.get(id, false).is_none()), "alice's oldest made room");
        assert!(alices[2..].iter().all(|id| sessions.get(id, false).is_some()), "her latest three stay");
        assert_eq!(*gone.lock(), ["alice", "alice"]);
        // At the server's cap a sign-in is refused; nobody's session ends for it.
        let carols: Vec<String> = (0..2).map(|_| sign_in(&sessions, "carol").expect("a session")).collect();
        assert!(matches!(sign_in(&sessions, "dave"), Err(Error::TooMany(_))), "six sessions held");
        sessions.settle();
        assert!(sessions.get(&bobs, false).is_some() && carols.iter().all(|id| sessions.get(id, false).is_some()));
        sessions.remove(&carols[0]);
        sessions.settle();
        assert!(sign_in(&sessions, "dave").is_ok(), "room again once one ended");
    }

    #[test]
    fn session_ids_are_64_hex_digits_and_differ() {
        let a = new_id().expect("random bytes");
        let b = new_id().expect("random bytes");
        assert!(a.len() == 64 && a.bytes().all(|c| c.is_ascii_hexdigit()), "{a}");
        assert_ne!(a, b);
    }
}
