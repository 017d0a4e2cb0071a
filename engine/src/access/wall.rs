//! Wall screens' sessions: signed, dated tickets that any replica checks, that expire, and that can be revoked
//! without changing the wall token.
//!
//! A wall screen is unattended, so its session must outlive a restart of the server and be accepted by every
//! replica: it is not kept in one server's memory. Its cookie is a ticket `w1-ISSUED-NONCE-MAC`: when it was issued
//! (Unix seconds), a random nonce, and an HMAC-SHA256 over both and the current generation, keyed with the wall token
//! (the secret every replica shares). A ticket is good for [`WALL_SESSION_LIFETIME`] from its issue.
//!
//! Revocation lives in the cluster, beside the maintenance history: the ConfigMap [`WALL_OBJECT`] in the server's
//! namespace holds a generation number and the nonces of the tickets signed out before their end. Signing a wall out
//! adds its nonce; bumping the generation (`kubectl patch`, with the RBAC that takes) ends every wall at once. Each
//! server follows the object with one watch. Until it has read it once, it accepts and issues no ticket: a server
//! that cannot read the revocations fails closed.

use std::{
    collections::BTreeMap,
    sync::{Arc, OnceLock},
    time::Duration,
};

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::{
    Api,
    api::{ObjectMeta, PostParams},
    runtime::{WatchStreamExt, watcher},
};
use parking_lot::RwLock;
use ring::hmac;

use crate::{Error, Result, tasks::Tasks};

/// How many times a sign-out reads and writes the revocations while other replicas keep changing them.
const SIGN_OUT_ATTEMPTS: u32 = 5;

/// How long a wall screen's ticket is good for: then the screen is opened with the token again.
pub const WALL_SESSION_LIFETIME: Duration = Duration::from_secs(30 * 86_400);
/// The ConfigMap, in the server's namespace, that holds the generation and the revoked tickets.
pub const WALL_OBJECT: &str = "drainboard-wall";
/// The most revoked tickets kept. Past it the generation moves on instead, which ends every wall: a revocation is
/// never forgotten while its ticket could still be used.
const MAX_REVOKED: usize = 1_000;
/// A ticket's form: `w1-`, up to 20 digits, 32 hex digits, 64 hex digits, with dashes.
const MAX_TICKET_CHARS: usize = 3 + 20 + 1 + 32 + 1 + 64;
const PREFIX: &str = "w1-";

/// Whether `value` has the form of a wall ticket (what a cookie may carry, before anything is checked).
pub fn is_ticket_form(value: &str) -> bool {
    value.len() <= MAX_TICKET_CHARS
        && value.starts_with(PREFIX)
        && value[PREFIX.len()..].bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// What the server knows of the revocations.
#[derive(Clone, Debug, Default, PartialEq)]
struct Revocations {
    generation: u64,
    /// Revoked nonces, each with the Unix second its ticket would have ended anyway.
    revoked: BTreeMap<String, i64>,
}

/// A ticket, read.
struct Ticket<'a> {
    issued: i64,
    nonce: &'a str,
    mac: &'a str,
}

fn parse(value: &str) -> Option<Ticket<'_>> {
    if !is_ticket_form(value) {
        return None;
    }
    let mut parts = value[PREFIX.len()..].split('-');
    let (issued, nonce, mac) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || nonce.len() != 32 || mac.len() != 64 {
        return None;
    }
    Some(Ticket { issued: issued.parse().ok()?, nonce, mac })
}

fn signed(issued: i64, nonce: &str, generation: u64) -> String {
    format!("drainboard wall session v1\n{issued}\n{nonce}\n{generation}")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

/// The wall screens' tickets of one server.
pub(crate) struct Walls {
    key: hmac::Key,
    lifetime: i64,
    /// `None` until the revocations were read once.
    state: Arc<RwLock<Option<Revocations>>>,
    api: OnceLock<Api<ConfigMap>>,
}

impl Walls {
    pub fn new(token: &str) -> Self {
        Walls {
            key: hmac::Key::new(hmac::HMAC_SHA256, token.as_bytes()),
            lifetime: i64::try_from(WALL_SESSION_LIFETIME.as_secs()).unwrap_or(i64::MAX),
            state: Default::default(),
            api: OnceLock::new(),
        }
    }

    /// A new ticket, issued at `now` (Unix seconds).
    pub fn issue(&self, now: i64) -> Result<String> {
        let Some(generation) = self.state.read().as_ref().map(|s| s.generation) else {
            return Err(not_read());
        };
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).map_err(|e| Error::Internal(format!("no random bytes for a wall ticket: {e}")))?;
        let nonce = hex(&nonce);
        let mac = hmac::sign(&self.key, signed(now, &nonce, generation).as_bytes());
        Ok(format!("{PREFIX}{now}-{nonce}-{}", hex(mac.as_ref())))
    }

    /// Whether `value` is a good ticket at `now`: signed with this token for the current generation, within its
    /// life, and not revoked.
    pub fn check(&self, value: &str, now: i64) -> bool {
        let Some(ticket) = parse(value) else { return false };
        let state = self.state.read();
        let Some(state) = state.as_ref() else { return false };
        let Some(mac) = unhex(ticket.mac) else { return false };
        let genuine =
            hmac::verify(&self.key, signed(ticket.issued, ticket.nonce, state.generation).as_bytes(), &mac).is_ok();
        // A ticket from the future (another replica's clock a little ahead) is good for at most a minute more.
        let age = now.saturating_sub(ticket.issued);
        genuine && (-60..self.lifetime).contains(&age) && !state.revoked.contains_key(ticket.nonce)
    }

    /// Revokes the ticket `value` (a wall signing out), for every replica: its nonce goes into the cluster's list.
    /// A value that is no good ticket has nothing to revoke.
    pub async fn revoke(&self, value: &str, now: i64) -> Result<()> {
        if !self.check(value, now) {
            return Ok(());
        }
        let Some(ticket) = parse(value) else { return Ok(()) };
        let until = ticket.issued.saturating_add(self.lifetime);
        let api = self.api.get().ok_or_else(not_read)?;
        for _ in 0..SIGN_OUT_ATTEMPTS {
            let current = api.get_opt(WALL_OBJECT).await.map_err(Error::Kube)?;
            let mut revocations = current.as_ref().map(read).unwrap_or_default();
            revocations.revoked.retain(|_, end| *end > now);
            revocations.revoked.insert(ticket.nonce.to_owned(), until);
            if revocations.revoked.len() > MAX_REVOKED {
                tracing::warn!(kept = MAX_REVOKED, "too many wall screens signed out at once: every wall screen ends");
                revocations.generation = revocations.generation.saturating_add(1);
                revocations.revoked.clear();
            }
            let object = write(current, &revocations)?;
            let result = match object.metadata.resource_version {
                Some(_) => api.replace(WALL_OBJECT, &PostParams::default(), &object).await,
                None => api.create(&PostParams::default(), &object).await,
            };
            match result {
                Ok(written) => {
                    *self.state.write() = Some(read(&written));
                    return Ok(());
                }
                // Another replica wrote first: read again.
                Err(e) if crate::kube_error::conflict(&e) => continue,
                Err(err) => return Err(Error::Kube(err)),
            }
        }
        Err(Error::Conflict(domain::conflict::Conflict::WallRevocationsBusy { attempts: SIGN_OUT_ATTEMPTS }))
    }

    /// Takes the revocations as read and empty (see [`super::KubeAccess::assume_no_wall_revocations`]).
    pub fn assume_none_revoked(&self) {
        self.state.write().get_or_insert_with(Revocations::default);
    }

    /// Follows the revocations in `api` (the server's namespace, with its own identity) until shutdown.
    pub fn follow(&self, api: Api<ConfigMap>, tasks: &Tasks) {
        let config = watcher::Config::default().fields(&format!("metadata.name={WALL_OBJECT}"));
        let events = watcher(api.clone(), config).default_backoff();
        let _ = self.api.set(api);
        let state = self.state.clone();
        let shutdown = tasks.shutdown_signal().clone();
        tasks.spawn(async move {
            let mut events = std::pin::pin!(events);
            let mut seen = false;
            loop {
                let event = tokio::select! {
                    () = shutdown.cancelled() => break,
                    event = events.next() => event,
                };
                match event {
                    None => break,
                    Some(Err(err)) => tracing::warn!(error = %err, object = WALL_OBJECT,
                        "cannot read the wall screens' revocations; walls are refused until it can"),
                    Some(Ok(watcher::Event::Init)) => seen = false,
                    Some(Ok(watcher::Event::InitApply(object) | watcher::Event::Apply(object))) => {
                        seen = true;
                        *state.write() = Some(read(&object));
                    }
                    Some(Ok(watcher::Event::InitDone)) if !seen => *state.write() = Some(Revocations::default()),
                    Some(Ok(watcher::Event::InitDone)) => {}
                    // As a server started now would read it: no object, no revocations (the threat model says
                    // so; only those who may delete ConfigMaps in the server's namespace can).
                    Some(Ok(watcher::Event::Delete(_))) => *state.write() = Some(Revocations::default()),
                }
            }
        });
    }
}

fn not_read() -> Error {
    Error::Unavailable(format!(
        "the wall screens' revocations (ConfigMap {WALL_OBJECT} in the server's namespace) have not been read yet: \
         try again in a moment, and see the server's log if it lasts"
    ))
}

/// The revocations an object holds. Anyone who may edit ConfigMaps there could have written it: a generation that
/// is not a number counts as the largest, which ends every wall rather than bring old tickets back, and the list is
/// bounded.
fn read(object: &ConfigMap) -> Revocations {
    let data = object.data.as_ref();
    let generation = data.and_then(|d| d.get("generation")).map_or(0, |g| g.trim().parse::<u64>().unwrap_or(u64::MAX));
    let revoked = data
        .and_then(|d| d.get("revoked"))
        .and_then(|text| serde_json::from_str::<BTreeMap<String, i64>>(text).ok())
        .unwrap_or_default()
        .into_iter()
        .filter(|(nonce, _)| nonce.len() == 32)
        .take(MAX_REVOKED)
        .collect();
    Revocations { generation, revoked }
}

fn write(current: Option<ConfigMap>, revocations: &Revocations) -> Result<ConfigMap> {
    let revoked = serde_json::to_string(&revocations.revoked).map_err(|e| Error::Internal(e.to_string()))?;
    let data = BTreeMap::from([
        ("generation".to_owned(), revocations.generation.to_string()),
        ("revoked".to_owned(), revoked),
    ]);
    Ok(match current {
        Some(mut object) => {
            object.data = Some(data);
            object
        }
        None => ConfigMap {
            metadata: ObjectMeta {
                name: Some(WALL_OBJECT.to_owned()),
                labels: Some(BTreeMap::from([("app.kubernetes.io/managed-by".to_owned(), "drainboard".to_owned())])),
                ..Default::default()
            },
            data: Some(data),
            ..Default::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000;

    fn walls(token: &str, revocations: Revocations) -> Walls {
        let walls = Walls::new(token);
        *walls.state.write() = Some(revocations);
        walls
    }

    #[test]
    fn a_ticket_is_good_for_its_life_on_every_server_with_the_token() {
        let token = "t".repeat(40);
        let one = walls(&token, Revocations::default());
        let ticket = one.issue(NOW).unwrap();
        assert!(is_ticket_form(&ticket) && ticket.len() <= MAX_TICKET_CHARS, "{ticket}");
        let other = walls(&token, Revocations::default());
        assert!(other.check(&ticket, NOW + 5), "another replica, or this one restarted");
        let life = i64::try_from(WALL_SESSION_LIFETIME.as_secs()).unwrap();
        assert!(other.check(&ticket, NOW + life - 1));
        assert!(!other.check(&ticket, NOW + life), "expired after 30 days");
        assert!(!other.check(&ticket, NOW - 120), "not from the far future");
        assert!(!walls(&"u".repeat(40), Revocations::default()).check(&ticket, NOW), "another token");
        assert_ne!(one.issue(NOW).unwrap(), ticket, "each ticket has its own nonce");
    }

    #[test]
    fn a_forged_or_altered_ticket_is_refused() {
        let w = walls(&"t".repeat(40), Revocations::default());
        let ticket = w.issue(NOW).unwrap();
        // Moved issue time (to extend its life) with the same MAC.
        let later = ticket.replacen(&NOW.to_string(), &(NOW + 1000).to_string(), 1);
        assert!(!w.check(&later, NOW + 1000));
        let mut flipped = ticket.clone().into_bytes();
        let last = flipped.len() - 1;
        flipped[last] = if flipped[last] == b'0' { b'1' } else { b'0' };
        assert!(!w.check(&String::from_utf8(flipped).unwrap(), NOW));
        for junk in ["", "w1-", "w1-1-2-3", &"a".repeat(64), &format!("{ticket}-00"), "w1-x-y-z"] {
            assert!(!w.check(junk, NOW), "{junk}");
        }
    }

    #[test]
    fn a_revoked_nonce_or_a_new_generation_ends_a_ticket_and_nothing_before_the_first_read() {
        let token = "t".repeat(40);
        let w = walls(&token, Revocations::default());
        let ticket = w.issue(NOW).unwrap();
        let nonce = parse(&ticket).unwrap().nonce.to_owned();
        let revoked = walls(&token, Revocations { generation: 0, revoked: BTreeMap::from([(nonce, NOW + 10)]) });
        assert!(!revoked.check(&ticket, NOW));
        assert!(!walls(&token, Revocations { generation: 1, ..Default::default() }).check(&ticket, NOW));
        let unread = Walls::new(&token);
        assert!(!unread.check(&ticket, NOW), "fails closed before the revocations are read");
        assert!(matches!(unread.issue(NOW), Err(Error::Unavailable(_))));
    }

    #[test]
    fn an_edited_object_is_read_safely() {
        let object = |generation: &str, revoked: &str| ConfigMap {
            data: Some(BTreeMap::from([
                ("generation".to_owned(), generation.to_owned()),
                ("revoked".to_owned(), revoked.to_owned()),
            ])),
            ..Default::default()
        };
        assert_eq!(read(&object("3", "{}")).generation, 3);
        assert_eq!(read(&object("not a number", "{}")).generation, u64::MAX, "ends every wall");
        assert!(read(&object("1", "[not json")).revoked.is_empty());
        let many: BTreeMap<String, i64> = (0..5000).map(|i| (format!("{i:032x}"), NOW)).collect();
        let text = serde_json::to_string(&many).unwrap();
        assert_eq!(read(&object("1", &text)).revoked.len(), MAX_REVOKED);
        assert_eq!(read(&ConfigMap::default()), Revocations::default());
        let written = write(None, &Revocations { generation: 7, revoked: BTreeMap::new() }).unwrap();
        assert_eq!(read(&written).generation, 7);
    }
}
