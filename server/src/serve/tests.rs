//! The connection limits, over real sockets on loopback, with limits made small so that each test takes a second
//! or less. Each case that must be cut off is timed: closed no sooner than its limit (so the limit is what closed
//! it), and no later than the limit and a margin.

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use axum::{Router, body::Body, extract::ConnectInfo, routing::get};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};
use tokio_util::sync::CancellationToken;

use super::serve;
use crate::limits::Limits;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Time for a test's server to notice and close, beyond the limit itself.
const MARGIN: Duration = Duration::from_millis(700);

fn small() -> Limits {
    Limits {
        first_request: Duration::from_millis(400),
        idle: Duration::from_millis(400),
        closing: Duration::from_millis(200),
        ..Limits::default()
    }
}

struct Server {
    addr: SocketAddr,
    shutdown: CancellationToken,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn start(limits: Limits, tls: Option<std::sync::Arc<rustls::ServerConfig>>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = Router::new()
        .route("/", get(|| async { "ok" }))
        .route("/peer", get(|ConnectInfo(peer): ConnectInfo<SocketAddr>| async move { peer.to_string() }))
        // A response that takes three idle limits to send: a request in flight, not an idle connection.
        .route(
            "/slow",
            get(|| async {
                let ticks = futures::stream::unfold(0, |n| async move {
                    if n == 3 {
                        return None;
                    }
                    tokio::time::sleep(Duration::from_millis(400)).await;
                    Some((Ok::<_, std::io::Error>(format!("tick {n}\n")), n + 1))
                });
                Body::from_stream(ticks)
            }),
        );
    let shutdown = CancellationToken::new();
    tokio::spawn(serve(listener, router, tls, shutdown.clone(), Duration::from_secs(1), limits));
    Server { addr, shutdown }
}

/// Reads until the server closes the connection, and how long that took from `since`; fails the test if the
/// server keeps it open past `within`.
async fn closed(stream: &mut TcpStream, since: Instant, within: Duration) -> (Vec<u8>, Duration) {
    let mut received = Vec::new();
    let read = tokio::time::timeout(within, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "still open after {within:?}; received {:?}", String::from_utf8_lossy(&received));
    (received, since.elapsed())
}

/// Connects, sends `bytes`, and checks that the server closes the connection within its first-request limit.
async fn cut_off_after(bytes: &[u8]) -> Duration {
    let limits = small();
    let server = start(limits, None).await;
    let since = Instant::now();
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let (_, took) = closed(&mut stream, since, limits.first_request + MARGIN).await;
    assert!(took >= limits.first_request - Duration::from_millis(50), "closed after {took:?}, before the limit");
    eprintln!("closed after {took:?}");
    took
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed() {
    cut_off_after(b"").await;
}

#[tokio::test]
async fn a_partial_http1_header_is_closed() {
    cut_off_after(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ").await;
}

#[tokio::test]
async fn half_an_http2_preface_is_closed() {
    cut_off_after(&PREFACE[..16]).await;
}

#[tokio::test]
async fn a_full_http2_preface_then_silence_is_closed() {
    cut_off_after(PREFACE).await;
}

/// The TLS handshake is within the same deadline: a client that connects to the HTTPS address and sends no
/// ClientHello is closed.
#[tokio::test]
async fn a_stalled_tls_handshake_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, CERT).unwrap();
    std::fs::write(&key, KEY).unwrap();
    let limits = small();
    let server = start(limits, Some(super::tls_config(&cert, &key).unwrap())).await;
    let since = Instant::now();
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let (_, took) = closed(&mut stream, since, limits.first_request + MARGIN).await;
    assert!(took >= limits.first_request - Duration::from_millis(50), "closed after {took:?}");
    eprintln!("closed after {took:?}");
}

async fn ask(stream: &mut TcpStream, path: &str) -> String {
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    // Enough for these small answers: read until the body's end is in.
    while !received.windows(4).any(|w| w == b"\r\n\r\n") || !complete(&received) {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await.unwrap().unwrap();
        assert!(n > 0, "closed mid-answer: {:?}", String::from_utf8_lossy(&received));
        received.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(received).unwrap()
}

/// Whether an HTTP/1.1 answer is all in: its `content-length` bytes, or a chunked body's last chunk.
fn complete(answer: &[u8]) -> bool {
    let text = String::from_utf8_lossy(answer);
    let Some((head, body)) = text.split_once("\r\n\r\n") else { return false };
    let head = head.to_ascii_lowercase();
    match head.lines().find_map(|l| l.strip_prefix("content-length: ")) {
        Some(length) => body.len() >= length.trim().parse::<usize>().unwrap(),
        None => body.ends_with("0\r\n\r\n"),
    }
}

/// The control case: a well-behaved client is answered, with its address in the request's `ConnectInfo`, and
/// may use its connection again; it is closed once idle past the limit.
#[tokio::test]
async fn a_request_is_answered_and_the_idle_connection_closed_later() {
    let limits = small();
    let server = start(limits, None).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let local = stream.local_addr().unwrap();
    let answer = ask(&mut stream, "/peer").await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with(&local.to_string()), "the peer address reaches the handler: {answer}");
    let answer = ask(&mut stream, "/").await;
    assert!(answer.starts_with("HTTP/1.1 200"), "kept alive for a second request: {answer}");
    let since = Instant::now();
    let (_, took) = closed(&mut stream, since, limits.idle + MARGIN).await;
    assert!(took >= limits.idle - Duration::from_millis(50), "closed after {took:?}");
    eprintln!("idle connection closed after {took:?}");
}

/// A response that takes longer than the idle limit to send (as an event stream does) is not cut off.
#[tokio::test]
async fn a_long_response_is_not_idle() {
    let server = start(small(), None).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let since = Instant::now();
    let answer = ask(&mut stream, "/slow").await;
    assert!(answer.contains("tick 2"), "{answer}");
    assert!(since.elapsed() >= Duration::from_millis(1200), "{:?}", since.elapsed());
}

/// The per-peer cap: the next connection from the same address is closed at once, unanswered; one freed makes
/// room again.
#[tokio::test]
async fn the_per_peer_cap_refuses_the_next_connection() {
    // Long first-request and idle limits: only the cap may close anything here.
    let limits =
        Limits { per_peer: 2, first_request: Duration::from_secs(30), idle: Duration::from_secs(30), ..small() };
    let server = start(limits, None).await;
    let mut first = TcpStream::connect(server.addr).await.unwrap();
    let _second = TcpStream::connect(server.addr).await.unwrap();
    // Both are in: a request on the first is answered.
    assert!(ask(&mut first, "/").await.starts_with("HTTP/1.1 200"));

    let since = Instant::now();
    let mut third = TcpStream::connect(server.addr).await.unwrap();
    let _ = third.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").await;
    let (received, took) = closed(&mut third, since, Duration::from_millis(500)).await;
    assert!(received.is_empty(), "refused unanswered: {:?}", String::from_utf8_lossy(&received));
    eprintln!("refused after {took:?}");

    drop(first);
    let mut again = None;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        stream.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").await.unwrap();
        let mut buf = [0u8; 64];
        if let Ok(Ok(n)) = tokio::time::timeout(Duration::from_millis(500), stream.read(&mut buf)).await
            && buf[..n].starts_with(b"HTTP/1.1 200")
        {
            again = Some(stream);
            break;
        }
    }
    assert!(again.is_some(), "the freed place was never given to a new connection");
}

/// A throwaway self-signed certificate for `localhost` and its key, for the handshake test only.
const CERT: &str = "-----BEGIN CERTIFICATE-----
MIIBfzCCASWgAwIBAgIUIQjfYT2HJn2sOKyxu+uzLbFBGL4wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwMjExMjUxNloYDzIxMjYxMTA4
MTEyNTE2WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQUOtWiO5djyU4N2rLpePXuMdPO9mu1kNccK6NY/+oC/dJOWK6I9GrO
Ok6JP3GcwOTRkRBGZezm9j8L0zsfMAA9o1MwUTAdBgNVHQ4EFgQUeGMl+GSsO2Q6
VZmFCvw1MEFr8jYwHwYDVR0jBBgwFoAUeGMl+GSsO2Q6VZmFCvw1MEFr8jYwDwYD
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEAnOpN1hlxOjYEvnZZMz9c
YR60t7fhq/VQxTIzKxTvUgQCIHByfR0x2WW/3JNgSe9/+d2Se6svPgDnD/nrlW5a
Jpao
-----END CERTIFICATE-----";

const KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgabzFmUjODkgcRUtS
Gv6GDhbWc5EmpVF5UO0iWX+F0kuhRANCAAQUOtWiO5djyU4N2rLpePXuMdPO9mu1
kNccK6NY/+oC/dJOWK6I9GrOOk6JP3GcwOTRkRBGZezm9j8L0zsfMAA9
-----END PRIVATE KEY-----";
