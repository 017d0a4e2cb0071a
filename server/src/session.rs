//! Who each request acts as. In local mode, the operator who started the server. In team mode, the person whose
//! session the request's cookie names; without one, nothing but the sign-in page, its endpoints and the site's
//! static files is served: pages redirect to `/sign-in`, everything else gets 401.
//!
//! The cookie holds only an opaque, unguessable session id (`HttpOnly`, `Secure`, `SameSite=Strict`); the
//! credentials stay in the server's memory.

use std::net::SocketAddr;

use app::AppError;
use axum::{
    extract::{ConnectInfo, Request, State},
    http::{HeaderMap, Method, header},
    middleware::Next,
    response::{IntoResponse, Redirect, Response},
};
use cookie::Cookie;
use engine::{Caller, Engine};

use app::session::SESSION_COOKIE as COOKIE;

/// Paths served to anyone in team mode: the sign-in page and its endpoints, and the site's static files.
fn open_to_anyone(path: &str) -> bool {
    path == "/sign-in"
        || path.starts_with("/api/session/")
        || path.starts_with("/pkg/")
        || path == "/favicon.svg"
        || path == "/favicon.ico"
}

/// The session layer: puts the request's [`Caller`] in its extensions, or turns it away in team mode.
pub async fn layer(State(engine): State<Engine>, mut request: Request, next: Next) -> Response {
    // The request's context chose its engine (`contexts`); the state is the server's first one.
    let engine = request.extensions().get::<Engine>().cloned().unwrap_or(engine);
    if request.uri().path() == "/wall"
        && let Some(token) = wall_token(request.uri().query())
    {
        let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0);
        let source = request.extensions().get::<engine::Source>().copied();
        return wall_sign_in(&engine, &token, peer, source);
    }
    let caller = match engine.operator() {
        Some(identity) => Some(Caller { identity, person: None, session: None }),
        None => match session_id(request.headers()) {
            Ok(id) => {
                let touch = is_activity(request.method(), request.uri().path(), request.headers());
                let caller = id.as_deref().and_then(|id| engine.session(id, touch));
                if id.is_some() && caller.is_none() {
                    // At debug: a tab left open across a session's end asks again and again, and this is no attack.
                    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0);
                    tracing::debug!(outcome = "expired", ?peer, path = %request.uri().path(),
                        "authentication: the session cookie names no current session (ended, expired or from before a restart)");
                }
                caller
            }
            Err(Duplicate) => {
                let why = "the request carries two session cookies: clear this site's cookies, then sign in again";
                return AppError::Invalid(why.into()).into_response();
            }
        },
    };
    match caller {
        Some(caller) if caller.is_wall() && !wall_may(request.method(), request.uri().path()) => {
            let why = "a wall screen's session shows /wall and nothing else: sign in as yourself to act";
            return AppError::Forbidden(why.into()).into_response();
        }
        Some(caller) => {
            request.extensions_mut().insert(caller);
        }
        None if open_to_anyone(request.uri().path()) => {}
        None if request.method() == Method::GET && wants_html(request.headers()) => {
            return Redirect::to("/sign-in").into_response();
        }
        None => return AppError::NotSignedIn("sign in first: open /sign-in".into()).into_response(),
    }
    next.run(request).await
}

/// What a wall screen's session may ask for: its page, the board, the timeline, the plans (read only), whether
/// maintenance may start (the windows), and who it is.
fn wall_may(method: &Method, path: &str) -> bool {
    matches!(
        (method.as_str(), path),
        ("GET", "/wall" | "/api/board/events")
            | (
                "POST",
                "/api/board"
                    | "/api/history/recent"
                    | "/api/plans"
                    | "/api/windows"
                    | "/api/session/me"
                    | "/api/session/sign-out"
            )
    ) || open_to_anyone(path)
}

/// The `wall-token` query parameter, if the request has one (at most 1 KiB).
fn wall_token(query: Option<&str>) -> Option<String> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == "wall-token")
        .map(|(_, value)| value.to_owned())
        .filter(|value| !value.is_empty() && value.len() <= 1024)
}

/// `GET /wall?wall-token=…`: an unattended wall screen signs in with the server's `--wall-token`, and is sent on
/// to `/wall` with a session cookie, so that the token leaves the address bar at once.
/// Each attempt is logged with its outcome and the peer's address (a refusal at warn), never with the token.
fn wall_sign_in(engine: &Engine, token: &str, peer: Option<SocketAddr>, source: Option<engine::Source>) -> Response {
    let source = source.unwrap_or_else(|| engine::Source::new(std::net::Ipv4Addr::UNSPECIFIED.into()));
    let peer = peer.map_or_else(|| "unknown".to_owned(), |p| p.to_string());
    match engine.wall_sign_in(token, source) {
        Ok(id) => {
            tracing::info!(outcome = "ok", user = "wall screen", %peer, "authentication: wall token");
            let cookie = app::session::wall_cookie(&id);
            ([(header::SET_COOKIE, cookie)], Redirect::to("/wall")).into_response()
        }
        // A wrong token is 403, too many attempts 429, and local mode (no wall token) 400.
        Err(err) => {
            tracing::warn!(outcome = "refused", user = "wall screen", %peer, why = %err, "authentication: wall token");
            AppError::from(err).into_response()
        }
    }
}

/// A request with two session cookies: one of them was planted (a sibling host, a script before the prefix), and
/// the server will not guess which is the person's.
#[derive(Debug, PartialEq, Eq)]
pub struct Duplicate;

/// The session id in the request's cookie, if any, in any of its `Cookie` headers; refused when there are two.
pub fn session_id(headers: &HeaderMap) -> Result<Option<String>, Duplicate> {
    let mut ours = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .filter(|cookie| cookie.name() == COOKIE);
    let Some(first) = ours.next() else { return Ok(None) };
    if ours.next().is_some() {
        return Err(Duplicate);
    }
    let value = first.value();
    // A person's session id is 64 hex digits, a wall screen's ticket has a form of its own; anything else is not
    // one of ours, and is not looked up.
    let ours =
        (value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit())) || engine::access::is_ticket_form(value);
    Ok(ours.then(|| value.to_owned()))
}

/// Whether a request is the person's own doing, which keeps their session from going idle: a page load, or an
/// action or dialog of theirs. The page's polls, its event streams and what it asks on its own are not, so a tab
/// left open does not keep a session alive.
fn is_activity(method: &Method, path: &str, headers: &HeaderMap) -> bool {
    const ACTIONS: [&str; 16] = [
        "/api/nodes/cordon",
        "/api/nodes/uncordon",
        "/api/drains/start",
        "/api/drains/cancel",
        "/api/drains/unblock",
        "/api/drains/move-first",
        "/api/drains/resume",
        "/api/drains/preview",
        "/api/drains/preview-inputs",
        "/api/plans/start",
        "/api/plans/cancel",
        "/api/plans/pause",
        "/api/plans/back",
        "/api/plans/continue",
        "/api/plans/undo",
        "/api/capacity",
    ];
    match *method {
        Method::GET => !path.starts_with("/api/") && wants_html(headers),
        Method::POST => ACTIONS.contains(&path),
        _ => false,
    }
}

fn wants_html(headers: &HeaderMap) -> bool {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("text/html"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A team-mode engine with `token` as its wall token, whose API server is an address where nothing listens.
    fn team(token: &str) -> Engine {
        let connected = crate::fuzz::connected_nowhere("server");
        let access = engine::KubeAccess::team_with_wall(connected, Some(token.to_owned().into()), Default::default());
        access.assume_no_wall_revocations();
        crate::fuzz::engine_with(access)
    }

    /// The log's lines, as a test reads them back.
    #[derive(Clone, Default)]
    struct Log(std::sync::Arc<parking_lot::Mutex<Vec<u8>>>);

    impl std::io::Write for Log {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Each wall-token attempt is a line of the log with its outcome and the peer's address (a refusal at warn),
    /// and the token appears in none.
    #[tokio::test]
    async fn wall_token_attempts_are_logged_with_the_peer_and_never_the_token() {
        use axum::{Router, body::Body, routing::get};
        use tower::ServiceExt;
        let log = Log::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt().with_ansi(false).with_writer(move || writer.clone()).finish();
        let _logging = tracing::subscriber::set_default(subscriber);
        let token = "right-token-of-at-least-32-characters-x";
        let router = Router::new()
            .route("/wall", get(|| async { "wall" }))
            .layer(axum::middleware::from_fn_with_state(team(token), layer));
        let peer: SocketAddr = "127.0.0.7:4321".parse().unwrap();
        let attempt = |token: &str| {
            let mut request =
                axum::http::Request::get(format!("/wall?wall-token={token}")).body(Body::empty()).unwrap();
            request.extensions_mut().insert(ConnectInfo(peer));
            request
        };
        let wrong = "wrong-token-of-at-least-32-characters-y";
        assert_eq!(router.clone().oneshot(attempt(wrong)).await.unwrap().status(), 403);
        assert_eq!(router.oneshot(attempt(token)).await.unwrap().status(), 303);

        let text = String::from_utf8(log.0.lock().clone()).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("authentication: wall token")).collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].contains("WARN") && lines[0].contains("outcome=\"refused\""), "{}", lines[0]);
        assert!(lines[1].contains("INFO") && lines[1].contains("outcome=\"ok\""), "{}", lines[1]);
        assert!(lines.iter().all(|l| l.contains("peer=127.0.0.7:4321")), "{text}");
        assert!(!text.contains(token) && !text.contains(wrong), "no token in the log: {text}");
        assert!(!text.contains('\u{1b}'), "no colour codes: {text}");
    }

    fn headers(cookie: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, cookie.parse().expect("a header value"));
        headers
    }

    #[test]
    fn only_a_well_formed_session_cookie_is_read() {
        let id = "a".repeat(64);
        assert_eq!(session_id(&headers(&format!("theme=dark; {COOKIE}={id}"))), Ok(Some(id.clone())));
        assert_eq!(session_id(&headers(&format!("{COOKIE}={}", "a".repeat(63)))), Ok(None));
        assert_eq!(session_id(&headers(&format!("{COOKIE}={}", "z".repeat(64)))), Ok(None));
        assert_eq!(session_id(&headers("other=1")), Ok(None));
        assert_eq!(session_id(&HeaderMap::new()), Ok(None));
        // Spaces around the pair, and a cookie of a longer name that ends like ours, as a browser may send them.
        assert_eq!(session_id(&headers(&format!(" x{COOKIE}=0;  {COOKIE}={id} ;theme=dark"))), Ok(Some(id.clone())));
        assert_eq!(session_id(&headers(&format!("{COOKIE}={id}{id}"))), Ok(None), "128 digits is not an id");
        assert_eq!(session_id(&headers(&format!("{COOKIE}=\"{id}\""))), Ok(None), "quoted is not ours");
        assert_eq!(session_id(&headers(COOKIE)), Ok(None), "a name alone");
        assert_eq!(session_id(&headers(&format!("drainboard_session={id}"))), Ok(None), "not without the prefix");
    }

    #[test]
    fn two_session_cookies_are_refused_in_one_header_or_two() {
        let id = "0123456789abcdef".repeat(4);
        let mut both = HeaderMap::new();
        both.append(header::COOKIE, format!("{COOKIE}=not-an-id").parse().expect("a header value"));
        both.append(header::COOKIE, format!("theme=dark; {COOKIE}={id}").parse().expect("a header value"));
        assert_eq!(session_id(&both), Err(Duplicate));
        assert_eq!(session_id(&headers(&format!("{COOKIE}={id}; {COOKIE}={id}"))), Err(Duplicate));
    }

    #[test]
    fn only_page_loads_and_the_persons_actions_count_as_activity() {
        let html = headers("x=1");
        let mut page = html.clone();
        page.insert(header::ACCEPT, "text/html,application/xhtml+xml".parse().expect("a header value"));
        assert!(is_activity(&Method::GET, "/", &page));
        assert!(is_activity(&Method::GET, "/nodes/n1", &page));
        assert!(!is_activity(&Method::GET, "/api/board/events", &page), "a stream");
        assert!(!is_activity(&Method::GET, "/pkg/drainboard.js", &html), "a site file");
        for action in ["/api/drains/start", "/api/nodes/cordon", "/api/plans/pause", "/api/drains/preview-inputs"] {
            assert!(is_activity(&Method::POST, action, &html), "{action}");
        }
        for poll in [
            "/api/plans",
            "/api/board",
            "/api/permissions",
            "/api/drains/status",
            "/api/history/recent",
            "/api/windows",
        ] {
            assert!(!is_activity(&Method::POST, poll, &html), "{poll}");
        }
    }

    #[test]
    fn only_the_sign_in_page_its_endpoints_and_static_files_are_open() {
        for open in ["/sign-in", "/api/session/sign-in", "/pkg/drainboard.wasm", "/favicon.svg"] {
            assert!(open_to_anyone(open), "{open}");
        }
        for closed in
            ["/", "/api/board", "/api/nodes/cordon", "/api/board/events", "/nodes/n1", "/metrics", "/sign-in/x"]
        {
            assert!(!open_to_anyone(closed), "{closed}");
        }
    }

    #[test]
    fn a_wall_screen_may_read_the_board_and_nothing_else() {
        for (method, path) in [
            (Method::GET, "/wall"),
            (Method::GET, "/api/board/events"),
            (Method::POST, "/api/board"),
            (Method::POST, "/api/history/recent"),
            (Method::POST, "/api/plans"),
            (Method::POST, "/api/windows"),
            (Method::POST, "/api/session/me"),
            (Method::GET, "/pkg/drainboard.wasm"),
        ] {
            assert!(wall_may(&method, path), "{method} {path}");
        }
        for (method, path) in [
            (Method::GET, "/"),
            (Method::GET, "/nodes/n1"),
            (Method::POST, "/api/nodes/cordon"),
            (Method::POST, "/api/drains/start"),
            (Method::POST, "/api/plans/start"),
            (Method::POST, "/api/plans/continue"),
            (Method::POST, "/api/plans/undo"),
            (Method::POST, "/api/wall"),
            (Method::GET, "/api/board"),
            (Method::GET, "/metrics"),
        ] {
            assert!(!wall_may(&method, path), "{method} {path}");
        }
    }

    #[test]
    fn the_wall_token_is_read_from_its_own_parameter_only() {
        assert_eq!(wall_token(Some("wall-token=abc")), Some("abc".into()));
        assert_eq!(wall_token(Some("x=1&wall-token=abc")), Some("abc".into()));
        assert_eq!(wall_token(Some("wall-token=")), None);
        assert_eq!(wall_token(Some("token=abc")), None);
        assert_eq!(wall_token(Some(&format!("wall-token={}", "a".repeat(1025)))), None);
        assert_eq!(wall_token(None), None);
    }
}
