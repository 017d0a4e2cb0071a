//! Local mode's lock. A local server acts with its operator's kubeconfig and listens on loopback, which every user
//! and process of the machine can reach: without a lock, any of them could cordon or drain as the operator, or
//! open a context whose exec plugin then runs. So, as Jupyter does, each start makes a secret of 32 random bytes
//! (or takes a fixed one from `DRAINBOARD_LOCAL_TOKEN`, for scripts; never from the command line, which `ps`
//! shows), prints the URL carrying it once, and serves only requests that prove they know it:
//!
//! - `GET` or `HEAD` with `?token=SECRET`: answered with a cookie holding the secret and a 303 to the same address
//!   without it, so that it leaves the address bar and the history at once;
//! - the cookie `drainboard-local-PORT` (`HttpOnly; SameSite=Strict; Path=/`), which the browser then sends;
//! - `Authorization: Bearer SECRET`, for scripts.
//!
//! Anything else gets 401 saying where to find the URL and how a script passes the secret: a page as a small HTML
//! page, everything else as the JSON body of an `AppError::NotSignedIn`, which the browser decodes like any other
//! refusal. Only the site's static files are served without the secret: they are the same for every install and
//! show nothing of the cluster or the operator.
//!
//! The cookie's name carries the port because browsers keep cookies per host, not per host and port: two local
//! servers on one machine (two clusters, say) would otherwise overwrite each other's cookie. It has no `__Host-`
//! prefix, which requires `Secure`, and a local server speaks plain HTTP on loopback, where not every browser
//! stores a `Secure` cookie.
//!
//! The secret is compared in constant time (`subtle`), so that the time an answer takes says nothing of how much
//! of a guess was right. This layer sits inside the request guard and outside the contexts layer, so that a
//! request without the secret connects no context and runs no exec plugin.

use std::{
    io::Write,
    path::{Path, PathBuf},
    sync::Arc,
};

use app::AppError;
use axum::{
    extract::{Request, State},
    http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header},
    middleware::Next,
    response::{IntoResponse, Response},
};
use cookie::{Cookie, SameSite};
use subtle::ConstantTimeEq;

/// The environment variable that gives a fixed secret instead of a new one per start.
pub const TOKEN_VARIABLE: &str = "DRAINBOARD_LOCAL_TOKEN";

/// The query parameter of the printed URL.
const TOKEN_PARAMETER: &str = "token";

/// The shortest secret accepted from the environment, the same floor as team mode's wall token.
pub const MIN_TOKEN: usize = 32;

/// The longest: a secret is compared with whatever a request sends, which need not be read past this.
const MAX_TOKEN: usize = 256;

/// The secret of a local server, and what the browser and the refusals are told about it.
#[derive(Clone)]
pub struct LocalLock {
    inner: Arc<Inner>,
}

struct Inner {
    secret: String,
    cookie_name: String,
    /// Where the URL was written for scripts, if it was.
    file: Option<PathBuf>,
}

impl std::fmt::Debug for LocalLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalLock").field("cookie_name", &self.inner.cookie_name).finish_non_exhaustive()
    }
}

/// A new secret: 32 bytes from the operating system's generator, as 64 hex digits.
pub fn new_secret() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random bytes for the local secret: {e}"))?;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    Ok(bytes
        .iter()
        .flat_map(|b| [char::from(HEX[usize::from(b >> 4)]), char::from(HEX[usize::from(b & 0xf)])])
        .collect())
}

/// The secret given in `DRAINBOARD_LOCAL_TOKEN` (`value`), checked: 32 to 256 characters that a URL carries as
/// they are (letters, digits, `-`, `_`, `.`, `~`).
pub fn given_secret(value: &str) -> Result<String, String> {
    let value = value.trim();
    let url_safe = value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'));
    if (MIN_TOKEN..=MAX_TOKEN).contains(&value.len()) && url_safe {
        Ok(value.to_owned())
    } else {
        Err(format!(
            "{TOKEN_VARIABLE} must be {MIN_TOKEN} to {MAX_TOKEN} letters, digits, '-', '_', '.' or '~': make one with \
             `openssl rand -hex 32`"
        ))
    }
}

/// `base` with `secret`: `http://127.0.0.1:3000/?token=SECRET`.
pub fn url(base: &str, secret: &str) -> String {
    format!("{base}/?{TOKEN_PARAMETER}={secret}")
}

impl LocalLock {
    /// The lock of a server on `port` with `secret`; `file` is where its URL was written, for the refusal to name.
    pub fn new(secret: String, port: u16, file: Option<PathBuf>) -> Self {
        LocalLock { inner: Arc::new(Inner { secret, cookie_name: format!("drainboard-local-{port}"), file }) }
    }

    /// `base` (`http://127.0.0.1:3000`) with the secret: the URL to open once.
    pub fn url(&self, base: &str) -> String {
        url(base, &self.inner.secret)
    }

    /// The cookie's name: `drainboard-local-PORT`.
    pub fn cookie_name(&self) -> &str {
        &self.inner.cookie_name
    }

    /// Whether `candidate` is the secret, in time that does not depend on how much of it matches.
    fn matches(&self, candidate: &str) -> bool {
        candidate.len() <= MAX_TOKEN && bool::from(self.inner.secret.as_bytes().ct_eq(candidate.as_bytes()))
    }

    /// The `Set-Cookie` value that holds the secret: the whole site (`Path=/`), out of scripts' reach
    /// (`HttpOnly`), never sent with another site's request (`SameSite=Strict`), until the browser closes.
    fn set_cookie(&self) -> String {
        Cookie::build((self.inner.cookie_name.as_str(), self.inner.secret.as_str()))
            .path("/")
            .http_only(true)
            .same_site(SameSite::Strict)
            .build()
            .to_string()
    }

    /// What a refused request is told: where the URL is, and how a script passes the secret.
    fn why(&self, wrong_token: bool) -> String {
        let first = if wrong_token {
            "that token is not this server's (a new one is made at each start)"
        } else {
            "this Drainboard acts with its operator's kubeconfig, so it serves only whoever has its secret"
        };
        let file = match &self.inner.file {
            Some(path) => format!(", also written to {} (readable by the operator only)", path.display()),
            None => String::new(),
        };
        format!(
            "{first}: open the URL it printed when it started (\"Drainboard is serving on http://…/?token=…\"{file}); \
             a script sends the header \"Authorization: Bearer TOKEN\""
        )
    }
}

/// What the lock does with a request.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// It carries the secret (or asks for a static file): on to the routes.
    Pass,
    /// It carries the secret in its address: set the cookie, and send it to `location`, the same address without it.
    Exchange { location: String },
    /// It carries no secret, or a wrong one.
    Refuse { wrong_token: bool },
}

/// The site's files, served to anyone: the wasm, the script and the style of the build, and the icon.
fn open_to_anyone(path: &str) -> bool {
    path.starts_with("/pkg/") || path == "/favicon.svg" || path == "/favicon.ico"
}

fn verdict(lock: &LocalLock, method: &Method, uri: &Uri, headers: &HeaderMap) -> Verdict {
    let query = uri.query().unwrap_or_default();
    let token = query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == TOKEN_PARAMETER)
        .map(|(_, value)| value);
    if let Some(token) = token
        && matches!(*method, Method::GET | Method::HEAD)
    {
        if !lock.matches(token) {
            return Verdict::Refuse { wrong_token: true };
        }
        let rest: Vec<&str> = query
            .split('&')
            .filter(|pair| !pair.is_empty() && pair.split_once('=').map_or(*pair, |(name, _)| name) != TOKEN_PARAMETER)
            .collect();
        let location =
            if rest.is_empty() { uri.path().to_owned() } else { format!("{}?{}", uri.path(), rest.join("&")) };
        return Verdict::Exchange { location };
    }
    if open_to_anyone(uri.path()) || has_cookie(lock, headers) || has_bearer(lock, headers) {
        Verdict::Pass
    } else {
        Verdict::Refuse { wrong_token: false }
    }
}

/// Whether any of the request's `Cookie` headers holds the lock's cookie with the secret.
fn has_cookie(lock: &LocalLock, headers: &HeaderMap) -> bool {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .filter(|cookie| cookie.name() == lock.cookie_name())
        .any(|cookie| lock.matches(cookie.value()))
}

/// Whether the request's `Authorization` is `Bearer SECRET` (the scheme in any case, as RFC 9110 allows).
fn has_bearer(lock: &LocalLock, headers: &HeaderMap) -> bool {
    headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.trim().split_once(' '))
        .any(|(scheme, token)| scheme.eq_ignore_ascii_case("bearer") && lock.matches(token.trim()))
}

fn wants_html(method: &Method, headers: &HeaderMap) -> bool {
    matches!(*method, Method::GET | Method::HEAD)
        && headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("text/html"))
}

/// The lock as an axum middleware: `axum::middleware::from_fn_with_state(lock, local_lock::layer)`.
pub async fn layer(State(lock): State<LocalLock>, request: Request, next: Next) -> Response {
    match verdict(&lock, request.method(), request.uri(), request.headers()) {
        Verdict::Pass => next.run(request).await,
        Verdict::Exchange { location } => exchange(&lock, &location),
        Verdict::Refuse { wrong_token } => {
            tracing::warn!(method = %request.method(), path = %request.uri().path(), wrong_token, "request without the local secret refused");
            refuse(&lock, wrong_token, wants_html(request.method(), request.headers()))
        }
    }
}

/// The answer to the printed URL: the cookie, and the same address without the secret.
fn exchange(lock: &LocalLock, location: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let (Ok(cookie), Ok(location)) = (HeaderValue::from_str(&lock.set_cookie()), HeaderValue::from_str(location)) {
        headers.insert(header::SET_COOKIE, cookie);
        headers.insert(header::LOCATION, location);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // The address it came from carried the secret: no page it leads to names it to anyone.
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

/// The 401: a small page for a browser's page load, the JSON error body for everything else.
fn refuse(lock: &LocalLock, wrong_token: bool, html: bool) -> Response {
    let why = lock.why(wrong_token);
    let mut response = if html {
        let page = format!(
            "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Drainboard: locked</title>\
             <h1>Drainboard is locked</h1><p>{}</p></html>\n",
            escape(&sentence(&why))
        );
        let mut response = (StatusCode::UNAUTHORIZED, page).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
        // It sits outside the routes' header layers: a page that runs nothing, loads nothing and is framed nowhere.
        headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_POLICY));
        headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        response
    } else {
        AppError::NotSignedIn(why).into_response()
    };
    let headers = response.headers_mut();
    headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"drainboard\""));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The 401 page's content security policy.
const PAGE_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";

/// `text` with its first letter in capitals, as a page's sentence (the JSON message reads on after a prefix).
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Where a server on `port` writes its URL for scripts: `$XDG_RUNTIME_DIR/drainboard/local-PORT.url`, else under
/// `$XDG_STATE_HOME` or `~/.local/state`. `None` when none of them is set.
pub fn url_file(port: u16) -> Option<PathBuf> {
    let absolute = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let dir = absolute("XDG_RUNTIME_DIR")
        .or_else(|| absolute("XDG_STATE_HOME"))
        .or_else(|| absolute("HOME").map(|home| home.join(".local").join("state")))?;
    Some(dir.join("drainboard").join(format!("local-{port}.url")))
}

/// Where a local server keeps the uids of the plans its operator's servers made: `$XDG_STATE_HOME` or
/// `~/.local/state`, then `drainboard/plans`. `None` when neither is set (a local server then goes on with no plan
/// by itself: the operator continues each).
pub fn plans_file() -> Option<PathBuf> {
    let absolute = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let dir = absolute("XDG_STATE_HOME").or_else(|| absolute("HOME").map(|home| home.join(".local").join("state")))?;
    Some(dir.join("drainboard").join("plans"))
}

/// Writes `url` to `path`, readable and writable by the operator only (0600, in a directory of mode 0700): the
/// file is created with that mode under a temporary name and renamed into place, so it is never readable by others,
/// not even for a moment.
pub fn write_url(path: &Path, url: &str) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    let dir = path.parent().ok_or_else(|| std::io::Error::other("the URL file has no directory"))?;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    let temporary = path.with_extension(format!("url.{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&temporary)?;
    file.write_all(format!("{url}\n").as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::{Router, body::Body, routing::get};
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    const SECRET: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    const COOKIE: &str = "drainboard-local-3000";

    fn lock() -> LocalLock {
        LocalLock::new(SECRET.to_owned(), 3000, Some(PathBuf::from("/run/user/1000/drainboard/local-3000.url")))
    }

    /// A router behind the lock whose every route answers "reached".
    fn locked() -> Router {
        Router::new()
            .route("/", get(|| async { "reached" }).post(|| async { "reached" }))
            .route("/api/board", get(|| async { "reached" }).post(|| async { "reached" }))
            .route("/pkg/drainboard.js", get(|| async { "reached" }))
            .route("/favicon.svg", get(|| async { "reached" }))
            .layer(axum::middleware::from_fn_with_state(lock(), layer))
    }

    async fn send(request: axum::http::request::Builder) -> (StatusCode, HeaderMap, String) {
        let response = locked().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        let (parts, body) = response.into_parts();
        let body = String::from_utf8(body.collect().await.unwrap().to_bytes().to_vec()).unwrap();
        (parts.status, parts.headers, body)
    }

    fn get_(uri: &str) -> axum::http::request::Builder {
        axum::http::Request::get(uri).header("host", "127.0.0.1:3000")
    }

    #[test]
    fn a_new_secret_is_32_random_bytes_in_hex() {
        let (a, b) = (new_secret().unwrap(), new_secret().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()), "{a}");
        assert_ne!(a, b);
        assert_eq!(given_secret(&a), Ok(a.clone()), "a generated secret is a valid given one");
    }

    #[test]
    fn a_given_secret_must_be_long_and_url_safe() {
        assert!(given_secret(&"a".repeat(31)).is_err());
        assert!(given_secret(&"a".repeat(257)).is_err());
        assert!(given_secret(&format!("{}&x=1", "a".repeat(32))).is_err(), "it would break the URL");
        assert!(given_secret(&format!("{} b", "a".repeat(32))).is_err());
        assert_eq!(given_secret(&format!(" {SECRET}\n")), Ok(SECRET.to_owned()), "trimmed, as a file's line");
        assert_eq!(
            given_secret("Abc-_.~0123456789012345678901234567"),
            Ok("Abc-_.~0123456789012345678901234567".into())
        );
    }

    #[test]
    fn the_printed_url_carries_the_secret_and_the_cookie_the_port() {
        assert_eq!(lock().url("http://127.0.0.1:3000"), format!("http://127.0.0.1:3000/?token={SECRET}"));
        assert_eq!(lock().cookie_name(), COOKIE);
        assert_eq!(LocalLock::new(SECRET.into(), 41234, None).cookie_name(), "drainboard-local-41234");
    }

    /// Every comparison goes through `subtle`'s constant-time equality: a secret that differs in its first byte,
    /// its last, or its length is refused alike, and one longer than any secret is refused before comparing.
    #[test]
    fn the_secret_is_compared_whole_in_constant_time() {
        let lock = lock();
        assert!(lock.matches(SECRET));
        let mut first = SECRET.to_owned();
        first.replace_range(0..1, "f");
        let mut last = SECRET.to_owned();
        last.replace_range(63..64, "0");
        let (longer, huge) = (format!("{SECRET}0"), "a".repeat(10_000));
        let wrongs: [&str; 6] = [&first, &last, &SECRET[..63], &longer, "", &huge];
        for wrong in wrongs {
            assert!(!lock.matches(wrong), "{wrong:?}");
        }
    }

    #[tokio::test]
    async fn the_printed_url_is_exchanged_for_a_cookie_and_leaves_the_address() {
        let (status, headers, _) = send(get_(&format!("/?token={SECRET}")).header("accept", "text/html")).await;
        assert_eq!(status, StatusCode::SEE_OTHER);
        assert_eq!(headers[header::LOCATION], "/");
        assert_eq!(headers[header::CACHE_CONTROL], "no-store");
        let cookie = Cookie::parse(headers[header::SET_COOKIE].to_str().unwrap().to_owned()).unwrap();
        assert_eq!(cookie.name(), COOKIE);
        assert_eq!(cookie.value(), SECRET);
        assert_eq!(cookie.http_only(), Some(true));
        assert_eq!(cookie.same_site(), Some(SameSite::Strict));
        assert_eq!(cookie.path(), Some("/"));
        assert_eq!(cookie.domain(), None, "this host only");
        assert_eq!(cookie.max_age(), None, "until the browser closes");

        // Any address may carry it; the rest of its query stays.
        let (status, headers, _) = send(get_(&format!("/nodes/node-1?view=map&token={SECRET}&x=1"))).await;
        assert_eq!(status, StatusCode::SEE_OTHER);
        assert_eq!(headers[header::LOCATION], "/nodes/node-1?view=map&x=1");

        // The cookie then opens everything.
        let (status, _, body) = send(get_("/").header("cookie", format!("theme=dark; {COOKIE}={SECRET}"))).await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "reached"));
        let (status, _, _) =
            send(get_("/api/board").method("POST").header("cookie", format!("{COOKIE}={SECRET}"))).await;
        assert_eq!(status, StatusCode::OK);
    }

    #[tokio::test]
    async fn a_script_passes_the_secret_as_a_bearer_token() {
        for scheme in ["Bearer", "bearer"] {
            let request = get_("/api/board").method("POST").header("authorization", format!("{scheme} {SECRET}"));
            assert_eq!(send(request).await.0, StatusCode::OK, "{scheme}");
        }
        let wrong = get_("/api/board").method("POST").header("authorization", format!("Basic {SECRET}"));
        assert_eq!(send(wrong).await.0, StatusCode::UNAUTHORIZED);
    }

    #[tokio::test]
    async fn without_the_secret_a_page_gets_a_page_and_an_api_call_the_json_error() {
        let (status, headers, body) = send(get_("/").header("accept", "text/html,application/xhtml+xml")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/html"));
        assert_eq!(headers[header::WWW_AUTHENTICATE], "Bearer realm=\"drainboard\"");
        assert_eq!(headers[header::CONTENT_SECURITY_POLICY], PAGE_POLICY);
        assert_eq!(headers[header::X_FRAME_OPTIONS], "DENY");
        assert!(body.contains("<p>This Drainboard acts with its operator's kubeconfig"), "{body}");
        assert!(body.contains("Drainboard is serving on http://…/?token=…"), "{body}");
        assert!(body.contains("/run/user/1000/drainboard/local-3000.url"), "{body}");
        assert!(body.contains("Authorization: Bearer TOKEN"), "{body}");
        assert!(!body.contains(SECRET));

        let (status, headers, body) = send(get_("/api/board").method("POST")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(headers[header::CONTENT_TYPE], "application/json");
        let error: AppError = serde_json::from_str(&body).unwrap();
        assert!(
            matches!(&error, AppError::NotSignedIn(why) if why.contains("printed") && why.contains("Authorization: Bearer")),
            "{error:?}"
        );
        // A stream's GET, or a page asked for without HTML, is not a page load.
        assert_eq!(send(get_("/api/board")).await.1[header::CONTENT_TYPE], "application/json");
    }

    #[tokio::test]
    async fn a_wrong_secret_in_any_place_is_refused() {
        let wrong = "f".repeat(64);
        let (status, headers, body) = send(get_(&format!("/?token={wrong}"))).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(headers.get(header::SET_COOKIE).is_none());
        assert!(body.contains("not this server's"), "{body}");
        // Another port's cookie, or ours with another value.
        let other_port = format!("drainboard-local-3001={SECRET}");
        let wrong_value = format!("{COOKIE}={wrong}");
        for cookie in [other_port.as_str(), wrong_value.as_str(), COOKIE] {
            assert_eq!(send(get_("/").header("cookie", cookie)).await.0, StatusCode::UNAUTHORIZED, "{cookie}");
        }
        // The address's secret is taken on a page load only, not on a POST.
        let post = get_(&format!("/api/board?token={SECRET}")).method("POST");
        assert_eq!(send(post).await.0, StatusCode::UNAUTHORIZED);
    }

    #[tokio::test]
    async fn the_sites_files_are_open() {
        for path in ["/pkg/drainboard.js", "/favicon.svg"] {
            assert_eq!(send(get_(path)).await.0, StatusCode::OK, "{path}");
        }
    }

    #[test]
    fn the_url_file_is_the_operators_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("drainboard").join("local-3000.url");
        write_url(&path, "http://127.0.0.1:3000/?token=abc").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "http://127.0.0.1:3000/?token=abc\n");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(path.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
        // A second start on the same port replaces it.
        write_url(&path, "http://127.0.0.1:3000/?token=def").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "http://127.0.0.1:3000/?token=def\n");
    }
}
