//! What one client may hold of the server's connections: how many, for how long before it asks for anything, and
//! how long an idle one stays open. The connection loop (`serve`) applies them on the dashboard's address and on
//! the probe address alike.

use std::{
    collections::HashMap,
    net::IpAddr,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use axum::body::{Body, Bytes};
use http_body::{Frame, SizeHint};
use parking_lot::Mutex;
use tokio::time::Instant;

/// Connections open at once on one address, all clients together. A board tab holds one or two (its event streams
/// share one HTTP/2 connection; over HTTP/1.1 a browser opens up to six): 4096 serves hundreds of people with room
/// to spare, and stays far below the file descriptors a container gets, so that a flood is refused here, with the
/// server still answering those already connected, rather than by `accept` failing for everyone.
pub const MAX_CONNECTIONS: usize = 4096;

/// Connections open at once from one IP address. People behind one NAT share an address: 50 browsers over HTTP/2
/// hold one to four connections each, so 256 still serves them, while one script can no longer take the whole of
/// [`MAX_CONNECTIONS`]. Behind a reverse proxy (`--insecure-http`) every connection comes from the proxy, so there
/// the per-address cap is the total one unless set (`--max-connections-per-peer`).
pub const MAX_CONNECTIONS_PER_PEER: usize = 256;

/// Streams one HTTP/2 connection may have open at once. A browser sends every tab of the site over one
/// connection: a person's live views are capped at 64 (`--max-streams-per-person`, beyond which they get 429), and
/// the rest leaves room for the calls a page makes at the same time.
pub const MAX_CONCURRENT_STREAMS: u32 = 128;

/// The limits on each connection.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// From `accept` until the first request's headers have arrived, TLS handshake included: a client that
    /// connects and sends nothing, part of a request's headers or part of the HTTP/2 preface is cut off then.
    pub first_request: Duration,
    /// How long a connection with no request in flight stays open (HTTP/1 keep-alive and HTTP/2 alike); it is
    /// also how long an HTTP/1 client has to send the headers of each later request.
    pub idle: Duration,
    /// How often an HTTP/2 connection that has gone quiet is pinged, and how long the answer may take: a peer
    /// that vanished (a laptop closed, a NAT that forgot the flow) no longer holds an event stream for ever.
    pub ping_interval: Duration,
    pub ping_timeout: Duration,
    /// How long a connection being closed (idle, or the server stopping) may take to finish what it sends.
    pub closing: Duration,
    /// [`MAX_CONCURRENT_STREAMS`], [`MAX_CONNECTIONS`] and [`MAX_CONNECTIONS_PER_PEER`] unless set otherwise.
    pub streams: u32,
    pub connections: usize,
    pub per_peer: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            first_request: Duration::from_secs(10),
            idle: Duration::from_secs(10),
            ping_interval: Duration::from_secs(20),
            ping_timeout: Duration::from_secs(20),
            closing: Duration::from_secs(5),
            streams: MAX_CONCURRENT_STREAMS,
            connections: MAX_CONNECTIONS,
            per_peer: MAX_CONNECTIONS_PER_PEER,
        }
    }
}

/// The connections open now, in all and per peer address.
#[derive(Clone, Default)]
pub struct Slots {
    open: Arc<Mutex<(usize, HashMap<IpAddr, usize>)>>,
    last_warning: Arc<AtomicU64>,
    refused: Arc<AtomicUsize>,
}

/// One open connection's place; it frees itself when dropped.
pub struct Slot {
    slots: Slots,
    peer: IpAddr,
}

impl Slots {
    /// A place for a new connection from `peer`, or none when the total or the peer's cap is reached.
    pub fn take(&self, peer: IpAddr, limits: &Limits) -> Option<Slot> {
        let mut open = self.open.lock();
        let (total, per_peer) = &mut *open;
        let mine = per_peer.entry(peer).or_default();
        if *total >= limits.connections || *mine >= limits.per_peer {
            if *mine == 0 {
                per_peer.remove(&peer);
            }
            return None;
        }
        *mine += 1;
        *total += 1;
        Some(Slot { slots: self.clone(), peer })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.lock().0
    }

    /// Logs a refused connection: at warn at most once a minute (with how many were refused since), else at
    /// debug, so that a flood of connections does not become a flood of log lines.
    pub fn refused(&self, peer: IpAddr, limits: &Limits) {
        let refused = self.refused.fetch_add(1, Ordering::Relaxed).saturating_add(1);
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let last = self.last_warning.load(Ordering::Relaxed);
        if now >= last.saturating_add(60)
            && self.last_warning.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_ok()
        {
            self.refused.store(0, Ordering::Relaxed);
            tracing::warn!(%peer, refused, open = self.open(), cap = limits.connections, per_peer = limits.per_peer,
                "connections refused at the cap (this line at most once a minute; the others at debug)");
        } else {
            tracing::debug!(%peer, "connection refused at the cap");
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock();
        let (total, per_peer) = &mut *open;
        *total = total.saturating_sub(1);
        if let Some(mine) = per_peer.get_mut(&self.peer) {
            *mine = mine.saturating_sub(1);
            if *mine == 0 {
                per_peer.remove(&self.peer);
            }
        }
    }
}

/// Whether a connection has a request in flight, whether it has asked anything yet, and since when it has been
/// idle.
#[derive(Clone)]
pub struct Activity(Arc<Mutex<State>>);

struct State {
    in_flight: usize,
    asked: bool,
    since: Instant,
}

/// A request in flight, from the moment its headers arrived until its response's body has been sent (or dropped):
/// an event stream is a request in flight for as long as it stays open.
pub struct InFlight(Activity);

impl Activity {
    /// A connection accepted at `since`, with nothing asked yet.
    pub fn new(since: Instant) -> Self {
        Self(Arc::new(Mutex::new(State { in_flight: 0, asked: false, since })))
    }

    pub fn start(&self) -> InFlight {
        let mut state = self.0.lock();
        state.in_flight += 1;
        state.asked = true;
        InFlight(self.clone())
    }

    /// When the connection is to be closed for idleness (`limits.first_request` after it was accepted, before
    /// its first request; `limits.idle` after its last response, later), or `None` while a request is in flight.
    pub fn idle_deadline(&self, limits: &Limits) -> Option<Instant> {
        let state = self.0.lock();
        let limit = if state.asked { limits.idle } else { limits.first_request };
        (state.in_flight == 0).then(|| state.since + limit)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut state = self.0.0.lock();
        state.in_flight = state.in_flight.saturating_sub(1);
        state.since = Instant::now();
    }
}

/// A response body that keeps its request [`InFlight`] until it ends.
pub struct Tracked {
    body: Body,
    _in_flight: InFlight,
}

impl Tracked {
    pub fn body(body: Body, in_flight: InFlight) -> Body {
        Body::new(Self { body, _in_flight: in_flight })
    }
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_is_held_to_its_cap_and_a_freed_slot_makes_room() {
        let limits = Limits { connections: 3, per_peer: 2, ..Limits::default() };
        let slots = Slots::default();
        let (a, b): (IpAddr, IpAddr) = ("127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap());
        let first = slots.take(a, &limits).unwrap();
        let _second = slots.take(a, &limits).unwrap();
        assert!(slots.take(a, &limits).is_none(), "a third from one address");
        let _other = slots.take(b, &limits).unwrap();
        assert!(slots.take("127.0.0.3".parse().unwrap(), &limits).is_none(), "the total cap");
        drop(first);
        assert_eq!(slots.open(), 2);
        assert!(slots.take(a, &limits).is_some(), "a freed slot makes room again");
    }

    #[test]
    fn a_connection_is_idle_only_with_nothing_in_flight() {
        let limits =
            Limits { first_request: Duration::from_secs(1), idle: Duration::from_secs(5), ..Limits::default() };
        let start = Instant::now();
        let activity = Activity::new(start);
        assert_eq!(activity.idle_deadline(&limits), Some(start + limits.first_request), "nothing asked yet");
        let one = activity.start();
        let two = activity.start();
        drop(one);
        assert_eq!(activity.idle_deadline(&limits), None, "one request still in flight");
        drop(two);
        assert!(
            activity.idle_deadline(&limits).is_some_and(|d| d >= start + limits.idle),
            "the idle limit, from the last response's end"
        );
    }
}
