//! Where a request comes from, for the per-source sign-in limits and the log: the peer's address, or, when the peer
//! is a proxy named by `--trusted-proxy`, the client that proxy names in `X-Forwarded-For`.
//!
//! A header is believed only from a trusted peer: anyone else could write any address into it and take a fresh
//! bucket per attempt. The header is read from its right, where the proxies nearest the server append: the first
//! address that is not itself a trusted proxy is the client. A header that cannot be read leaves the peer as the
//! source, which then shares one bucket with everyone else behind it rather than escaping the limit.

use std::{
    net::{IpAddr, SocketAddr},
    sync::Arc,
};

use axum::{
    extract::{ConnectInfo, Request, State},
    http::HeaderMap,
    middleware::Next,
    response::Response,
};
use engine::Source;
use ipnet::IpNet;

/// The most addresses read from `X-Forwarded-For`: a chain of proxies is a handful long, and a longer header is
/// read no further.
const MAX_HOPS: usize = 16;

/// The networks of the proxies whose `X-Forwarded-For` is believed (`--trusted-proxy`); none by default.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies(Arc<Vec<IpNet>>);

impl TrustedProxies {
    pub fn new(networks: Vec<IpNet>) -> Self {
        TrustedProxies(Arc::new(networks))
    }

    fn trusts(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.0.iter().any(|net| net.contains(&address))
    }

    /// The client of a request from `peer` with `headers`.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        // Every X-Forwarded-For field, in order, as one list: a proxy may add a field rather than extend one.
        let hops: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .collect();
        let mut client = peer;
        for hop in hops.iter().rev().take(MAX_HOPS) {
            match parse_hop(hop) {
                Some(address) if self.trusts(address) => client = address,
                Some(address) => return address,
                // Unreadable: stop at the last proxy known, rather than guess past it.
                None => return client,
            }
        }
        client
    }
}

/// One `X-Forwarded-For` entry: an address, possibly with a port (`192.0.2.1:4711`, `[2001:db8::1]:4711`).
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    hop.parse::<IpAddr>().ok().or_else(|| hop.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

/// `--trusted-proxy`'s value: a network (`10.0.0.0/8`) or one address.
pub fn parse_network(value: &str) -> Result<IpNet, String> {
    let value = value.trim();
    value
        .parse::<IpNet>()
        .or_else(|_| value.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| format!("'{value}' is not an address or a network: give one as 10.0.0.7, 10.0.0.0/8 or fd00::/8"))
}

/// The layer: puts the request's [`Source`] in its extensions. Outside the server's connection loop (a test's
/// `oneshot`) there is no peer, and nothing is added: the sign-in then counts everything as one unknown source.
pub async fn layer(State(proxies): State<TrustedProxies>, mut request: Request, next: Next) -> Response {
    if let Some(ConnectInfo(peer)) = request.extensions().get::<ConnectInfo<SocketAddr>>().copied() {
        let client = proxies.client(peer.ip(), request.headers());
        request.extensions_mut().insert(Source::new(client));
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn proxies(nets: &[&str]) -> TrustedProxies {
        TrustedProxies::new(nets.iter().map(|n| parse_network(n).unwrap()).collect())
    }

    fn forwarded(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        headers
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_untrusted_peer_is_the_source_whatever_it_writes() {
        let p = proxies(&["10.0.0.0/8"]);
        assert_eq!(p.client(ip("192.0.2.9"), &forwarded(&["203.0.113.5"])), ip("192.0.2.9"));
        assert_eq!(proxies(&[]).client(ip("10.0.0.1"), &forwarded(&["203.0.113.5"])), ip("10.0.0.1"));
    }

    #[test]
    fn a_trusted_proxy_names_the_client_read_from_the_right() {
        let p = proxies(&["10.0.0.0/8", "fd00::/8"]);
        // A client's own header is kept by the proxy and extended: only the entry the proxy added is believed.
        let headers = forwarded(&["198.51.100.1, 203.0.113.5"]);
        assert_eq!(p.client(ip("10.1.2.3"), &headers), ip("203.0.113.5"));
        // Two proxies in a chain, the nearer one trusted as well; a field per proxy reads as one list.
        let headers = forwarded(&["203.0.113.5", "10.9.9.9"]);
        assert_eq!(p.client(ip("10.1.2.3"), &headers), ip("203.0.113.5"));
        assert_eq!(p.client(ip("fd00::1"), &forwarded(&["[2001:db8::7]:4711"])), ip("2001:db8::7"));
        assert_eq!(p.client(ip("::ffff:10.0.0.1"), &forwarded(&["203.0.113.5:80"])), ip("203.0.113.5"));
    }

    #[test]
    fn an_unreadable_or_missing_header_leaves_the_last_known_proxy() {
        let p = proxies(&["10.0.0.0/8"]);
        assert_eq!(p.client(ip("10.1.2.3"), &HeaderMap::new()), ip("10.1.2.3"));
        assert_eq!(p.client(ip("10.1.2.3"), &forwarded(&["203.0.113.5, not-an-address"])), ip("10.1.2.3"));
        assert_eq!(p.client(ip("10.1.2.3"), &forwarded(&["203.0.113.5, 10.2.2.2, junk"])), ip("10.1.2.3"));
        // Only trusted hops, as far as the header goes: the farthest proxy is the source.
        assert_eq!(p.client(ip("10.1.2.3"), &forwarded(&["10.4.4.4, 10.5.5.5"])), ip("10.4.4.4"));
    }

    #[test]
    fn networks_and_single_addresses_are_read_and_junk_is_refused_with_an_example() {
        assert_eq!(parse_network("10.0.0.7").unwrap().to_string(), "10.0.0.7/32");
        assert_eq!(parse_network(" 10.0.0.0/8 ").unwrap().to_string(), "10.0.0.0/8");
        assert_eq!(parse_network("fd00::/8").unwrap().to_string(), "fd00::/8");
        let err = parse_network("proxy.example").unwrap_err();
        assert!(err.contains("10.0.0.0/8"), "{err}");
        assert!(parse_network("10.0.0.0/33").is_err());
    }
}
