//! The pace of sign-in attempts: per source first, then all together.
//!
//! One bucket for everybody would let anyone lock everybody out: a few junk sign-ins a second from one machine
//! would keep the whole team from signing in. So each source (the peer's address, or the client a trusted proxy
//! names; see the server's `source` layer) has a bucket of its own, charged for every attempt, junk included.
//! The bucket for all sources together stays, because each attempt that reaches the API server costs it a
//! SelfSubjectReview and guessing tokens through Drainboard must stay slow; it is charged only for those
//! attempts, so input refused before the API server is asked costs the others nothing.

use std::{net::IpAddr, num::NonZeroU32};

use governor::{
    Quota, RateLimiter,
    clock::{Clock, DefaultClock},
    middleware::NoOpMiddleware,
    state::{InMemoryState, keyed::HashMapStateStore},
};

use crate::{Error, Result};

/// Attempts one source may make at once, then one a second: room for an office behind one
/// address signing in at nine, and for people who mistype; a flood from one source gets far less than the pace of
/// all sources together, so it cannot use that up.
const PER_SOURCE_BURST: NonZeroU32 = NonZeroU32::new(30).expect("non-zero");
const PER_SOURCE_PER_SECOND: NonZeroU32 = NonZeroU32::new(1).expect("non-zero");
/// Attempts that reach the API server, all sources together, a second after a burst.
const ALL_PER_SECOND: NonZeroU32 = NonZeroU32::new(5).expect("non-zero");
const ALL_BURST: NonZeroU32 = NonZeroU32::new(20).expect("non-zero");
/// The most sources remembered at once. Past it, sources whose bucket is full again are forgotten; if that is not
/// enough, a new source is refused until some are, so that a flood from many addresses costs bounded memory.
const MAX_SOURCES: usize = 50_000;

/// Where an attempt comes from: the address its bucket is kept under. IPv6 addresses count by their /64, the
/// smallest network a host is usually given, so that one host cannot take a fresh bucket per address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Source(IpAddr);

impl Source {
    pub fn new(address: IpAddr) -> Self {
        match address.to_canonical() {
            IpAddr::V6(v6) => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                Source(IpAddr::V6(bits.into()))
            }
            v4 => Source(v4),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
            v4 => write!(f, "{v4}"),
        }
    }
}

type Keyed<C> = RateLimiter<Source, HashMapStateStore<Source>, C, NoOpMiddleware<<C as Clock>::Instant>>;
type Direct<C> = RateLimiter<governor::state::NotKeyed, InMemoryState, C, NoOpMiddleware<<C as Clock>::Instant>>;

/// The two buckets of sign-in attempts.
pub(crate) struct Attempts<C: Clock = DefaultClock> {
    per_source: Keyed<C>,
    all: Direct<C>,
}

impl Attempts {
    pub fn new() -> Self {
        Self::with_clock(&DefaultClock::default())
    }
}

impl<C: Clock + Clone> Attempts<C> {
    fn with_clock(clock: &C) -> Self {
        let per_source = Quota::per_second(PER_SOURCE_PER_SECOND).allow_burst(PER_SOURCE_BURST);
        Attempts {
            per_source: RateLimiter::hashmap_with_clock(per_source, clock.clone()),
            all: RateLimiter::direct_with_clock(
                Quota::per_second(ALL_PER_SECOND).allow_burst(ALL_BURST),
                clock.clone(),
            ),
        }
    }

    /// Charges `source` for an attempt, whatever it holds: refused when that source has tried too often.
    pub fn charge_source(&self, source: Source) -> Result<()> {
        if self.per_source.len() >= MAX_SOURCES {
            self.per_source.retain_recent();
            self.per_source.shrink_to_fit();
        }
        if self.per_source.len() >= MAX_SOURCES {
            return Err(Error::TooMany(
                "too many sign-in attempts from too many places at once on this server; wait a minute and try again"
                    .into(),
            ));
        }
        self.per_source.check_key(&source).map_err(|_| {
            Error::TooMany(format!("too many sign-in attempts from {source}; wait a second and try again"))
        })
    }

    /// Charges the bucket of all sources for an attempt about to reach the API server.
    pub fn charge_api_server(&self) -> Result<()> {
        self.all.check().map_err(|_| {
            Error::TooMany("too many sign-in attempts at once on this server; wait a moment and try again".into())
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use governor::clock::FakeRelativeClock;

    const PER_SOURCE_PERIOD: Duration = Duration::from_secs(1);

    use super::*;

    fn source(s: &str) -> Source {
        Source::new(s.parse().unwrap())
    }

    #[test]
    fn a_flood_from_one_source_leaves_another_free() {
        let clock = FakeRelativeClock::default();
        let attempts = Attempts::with_clock(&clock);
        let flood = source("127.0.0.2");
        for _ in 0..PER_SOURCE_BURST.get() {
            attempts.charge_source(flood).expect("within the burst");
        }
        let refused = attempts.charge_source(flood).expect_err("past the burst");
        assert!(refused.to_string().contains("from 127.0.0.2"), "{refused}");
        attempts.charge_source(source("127.0.0.1")).expect("another source has its own bucket");
        // The flood's bucket refills at its pace.
        clock.advance(PER_SOURCE_PERIOD);
        attempts.charge_source(flood).expect("one more after the period");
        attempts.charge_source(flood).expect_err("and only one");
    }

    #[test]
    fn only_attempts_that_reach_the_api_server_charge_the_shared_bucket() {
        let clock = FakeRelativeClock::default();
        let attempts = Attempts::with_clock(&clock);
        // Junk from a thousand sources: each charged at its own bucket, none at the shared one.
        for i in 0..1000u32 {
            let address = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            attempts.charge_source(Source::new(address)).expect("a first attempt from a new source");
        }
        for _ in 0..ALL_BURST.get() {
            attempts.charge_api_server().expect("the shared bucket is untouched by junk");
        }
        assert!(attempts.charge_api_server().is_err(), "the shared bucket still has its limit");
    }

    #[test]
    fn ipv6_sources_count_by_their_64_and_v4_mapped_as_v4() {
        assert_eq!(source("2001:db8:1:2:aaaa::1"), source("2001:db8:1:2:ffff::9"));
        assert_ne!(source("2001:db8:1:2::1"), source("2001:db8:1:3::1"));
        assert_eq!(source("::ffff:10.1.2.3"), source("10.1.2.3"));
        assert_eq!(source("2001:db8:1:2::1").to_string(), "2001:db8:1:2::/64");
    }

    #[test]
    fn past_the_cap_of_sources_the_settled_ones_are_forgotten() {
        let clock = FakeRelativeClock::default();
        let attempts = Attempts::with_clock(&clock);
        for i in 0..MAX_SOURCES as u32 {
            attempts.charge_source(Source::new(IpAddr::V4(std::net::Ipv4Addr::from(i)))).expect("room");
        }
        let newcomer = source("192.0.2.1");
        assert!(attempts.charge_source(newcomer).is_err(), "no room while every bucket is in use");
        clock.advance(PER_SOURCE_PERIOD * 2);
        attempts.charge_source(newcomer).expect("refilled buckets are forgotten, and there is room again");
        assert!(attempts.per_source.len() < 10, "{}", attempts.per_source.len());
    }
}
