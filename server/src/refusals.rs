//! Every refusal of the HTTP layers, through the whole router: the guard, the contexts layer and the session layer
//! each answer with an `AppError`'s status and body, which the browser decodes with the code this test runs
//! (`serde_json::from_slice::<AppError>`). The engine's API server is an address where nothing listens; nothing
//! here gets as far as asking it.

use std::sync::Arc;

use app::AppError;
use axum::{
    Router,
    body::Body,
    http::{Request, header},
};
use domain::board::BoardSettings;
use engine::{KubeAccess, access::Connected};
use http_body_util::BodyExt;
use tower::ServiceExt;

use crate::{
    contexts::Contexts,
    events::StreamLimits,
    fuzz::{NOWHERE, engine_with as engine},
    guard::AllowedHosts,
    web,
};

const WALL_TOKEN: &str = "a-wall-token-of-at-least-thirty-two-characters";

fn connected() -> Connected {
    Connected { context: "first".into(), contexts: vec!["first".into()], ..crate::fuzz::connected_nowhere("test") }
}

fn router(contexts: Contexts) -> Router {
    let options = leptos::config::LeptosOptions::builder().output_name("drainboard").build();
    web::router(
        options,
        contexts,
        BoardSettings::default(),
        AllowedHosts::new(&[]),
        StreamLimits::new(8, 8),
        false,
        None,
    )
}

/// A team-mode server with a wall token.
fn team() -> Router {
    let token = secrecy::SecretString::from(WALL_TOKEN.to_owned());
    let access = KubeAccess::team_with_wall(connected(), Some(token), Default::default());
    access.assume_no_wall_revocations();
    router(Contexts::only(engine(access)))
}

/// A local server for the kubeconfig at `kubeconfig`, serving its context `first` at `/` and `other` on demand.
fn local(kubeconfig: &std::path::Path) -> Router {
    let build: crate::contexts::Build = Arc::new(|connected| Ok(engine(KubeAccess::single_user(connected))));
    let names = vec!["first".to_owned(), "other".to_owned()];
    let first = engine(KubeAccess::single_user(connected()));
    router(Contexts::local(first, "first".into(), names, Some(kubeconfig.to_owned()), build))
}

fn post(path: &str) -> axum::http::request::Builder {
    Request::post(path).header(header::HOST, "localhost").header(header::CONTENT_TYPE, "application/json")
}

fn get(path: &str) -> axum::http::request::Builder {
    Request::get(path).header(header::HOST, "localhost")
}

/// The status of `request`'s answer, and its body decoded as the browser decodes an error.
async fn refusal(router: &Router, request: Request<Body>) -> (u16, AppError) {
    let what = format!("{} {}", request.method(), request.uri());
    let response = router.clone().oneshot(request).await.expect("an answer");
    let status = response.status().as_u16();
    let kind = response.headers().get(header::CONTENT_TYPE).cloned();
    let body = response.into_body().collect().await.expect("a body").to_bytes();
    let error = serde_json::from_slice::<AppError>(&body)
        .unwrap_or_else(|e| panic!("{what}: {status} {body:?} is not an AppError: {e}"));
    assert_eq!(kind.as_ref().and_then(|v| v.to_str().ok()), Some("application/json"), "{what}");
    assert_eq!(status, error.status(), "{what}: the status is the error's own");
    (status, error)
}

#[tokio::test]
async fn the_guards_refusal_is_drainboards_403() {
    let router = team();
    let evil_host = Request::get("/").header(header::HOST, "evil.example:3000").body(Body::empty()).expect("a request");
    let (status, error) = refusal(&router, evil_host).await;
    assert_eq!(status, 403);
    assert!(matches!(&error, AppError::Forbidden(why) if why.contains("--allowed-host")), "{error:?}");

    let cross_site = post("/api/nodes/cordon").header("sec-fetch-site", "cross-site").body(Body::from("{}"));
    let (status, error) = refusal(&router, cross_site.expect("a request")).await;
    assert_eq!(status, 403);
    assert!(matches!(&error, AppError::Forbidden(why) if why.contains("cross-site page")), "{error:?}");
}

#[tokio::test]
async fn without_a_session_team_mode_answers_401() {
    let router = team();
    for path in ["/api/board", "/api/nodes/cordon"] {
        let (status, error) = refusal(&router, post(path).body(Body::from("{}")).expect("a request")).await;
        assert_eq!(status, 401, "{path}");
        assert_eq!(error, AppError::NotSignedIn("sign in first: open /sign-in".into()), "{path}");
    }
    let stale = post("/api/board").header(header::COOKIE, format!("drainboard_session={}", "a".repeat(64)));
    let (status, _) = refusal(&router, stale.body(Body::from("{}")).expect("a request")).await;
    assert_eq!(status, 401, "a session the server does not hold");
}

#[tokio::test]
async fn two_session_cookies_are_bad_input_that_says_what_to_do() {
    let router = team();
    let (a, b) = ("a".repeat(64), "b".repeat(64));
    let name = app::session::SESSION_COOKIE;
    let twice = post("/api/board").header(header::COOKIE, format!("{name}={a}; {name}={b}"));
    let (status, error) = refusal(&router, twice.body(Body::from("{}")).expect("a request")).await;
    assert_eq!(status, 400);
    assert!(matches!(&error, AppError::Invalid(why) if why.contains("clear this site's cookies")), "{error:?}");
}

#[tokio::test]
async fn a_wall_screen_is_refused_with_403_beyond_the_wall() {
    let router = team();
    let wrong = get(&format!("/wall?wall-token={}", "f".repeat(48))).body(Body::empty()).expect("a request");
    let (status, error) = refusal(&router, wrong).await;
    assert_eq!(status, 403);
    assert!(
        matches!(&error, AppError::Denied { denial, message }
            if **denial == domain::denial::Denial::WrongWallToken && message == "that is not this server's wall token"),
        "{error:?}"
    );

    let signed_in = router
        .clone()
        .oneshot(get(&format!("/wall?wall-token={WALL_TOKEN}")).body(Body::empty()).expect("a request"))
        .await
        .expect("an answer");
    assert!(signed_in.status().is_redirection(), "{}", signed_in.status());
    let set_cookie = signed_in.headers().get(header::SET_COOKIE).and_then(|v| v.to_str().ok()).expect("a cookie");
    let session = cookie::Cookie::parse(set_cookie.to_owned()).expect("a Set-Cookie value");

    let acting = post("/api/nodes/cordon").header(header::COOKIE, format!("{}={}", session.name(), session.value()));
    let (status, error) = refusal(&router, acting.body(Body::from("{}")).expect("a request")).await;
    assert_eq!(status, 403);
    assert!(matches!(&error, AppError::Forbidden(why) if why.contains("wall screen's session")), "{error:?}");
}

#[tokio::test]
async fn local_mode_has_no_wall_token_to_sign_in_with() {
    let dir = tempfile::tempdir().expect("a directory");
    let router = local(&kubeconfig(dir.path()));
    let (status, error) = refusal(&router, get("/wall?wall-token=x").body(Body::empty()).expect("a request")).await;
    assert_eq!(status, 400);
    assert!(matches!(&error, AppError::Invalid(why) if why.contains("local mode")), "{error:?}");
}

#[tokio::test]
async fn an_unknown_context_is_404_and_one_that_cannot_be_reached_503() {
    let router = team();
    let (status, error) =
        refusal(&router, post("/ctx/beta/api/board").body(Body::from("{}")).expect("a request")).await;
    assert_eq!(status, 404);
    assert!(matches!(&error, AppError::NotFound(why) if why.contains("serves one cluster")), "{error:?}");

    let dir = tempfile::tempdir().expect("a directory");
    let router = local(&kubeconfig(dir.path()));
    let (status, error) =
        refusal(&router, post("/ctx/nope/api/board").body(Body::from("{}")).expect("a request")).await;
    assert_eq!(status, 404);
    assert!(matches!(&error, AppError::NotFound(why) if why.contains("it has: first, other")), "{error:?}");

    let (status, error) = refusal(&router, get("/ctx/%FF/").body(Body::empty()).expect("a request")).await;
    assert_eq!(status, 404);
    assert!(matches!(&error, AppError::NotFound(why) if why.contains("not UTF-8")), "{error:?}");

    let foreign = get("/ctx/other/").header("sec-fetch-site", "cross-site").body(Body::empty()).expect("a request");
    let (status, error) = refusal(&router, foreign).await;
    assert_eq!(status, 403);
    assert!(matches!(&error, AppError::Forbidden(why) if why.contains("cannot open a context")), "{error:?}");

    let (status, error) =
        refusal(&router, post("/ctx/other/api/board").body(Body::from("{}")).expect("a request")).await;
    assert_eq!(status, 503);
    assert!(matches!(&error, AppError::Connection(why) if why.contains("127.0.0.1:9")), "{error:?}");
}

/// A kubeconfig of two contexts whose API server is an address where nothing listens.
fn kubeconfig(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("config");
    let context = |name: &str| format!("- name: {name}\n  context: {{cluster: c, user: u}}\n");
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {{server: '{NOWHERE}'}}\nusers:\n- name: u\n  \
         user: {{token: not-a-real-token}}\ncontexts:\n{}{}current-context: first\n",
        context("first"),
        context("other")
    );
    std::fs::write(&path, text).expect("a kubeconfig written");
    path
}

/// The body limit's refusal, through the whole router, and the time limit's, as the router maps it: the same
/// statuses (413, 504), with bodies the browser decodes.
#[tokio::test]
async fn the_body_and_time_limits_answer_as_app_errors() {
    let dir = tempfile::tempdir().expect("a directory");
    let router = local(&kubeconfig(dir.path()));
    let huge = post("/api/nodes/cordon").header(header::CONTENT_LENGTH, web::BODY_LIMIT + 1);
    let (status, error) =
        refusal(&router, huge.body(Body::from(vec![b' '; web::BODY_LIMIT + 1])).expect("a request")).await;
    assert_eq!(status, 413);
    assert!(matches!(&error, AppError::TooLarge(why) if why.contains("over 16 KiB")), "{error:?}");

    let timed_out = axum::http::Response::builder().status(504).body(Body::empty()).expect("a response");
    let mapped = web::limits_as_app_errors(timed_out).await;
    let status = mapped.status().as_u16();
    let body = mapped.into_body().collect().await.expect("a body").to_bytes();
    let error = serde_json::from_slice::<AppError>(&body).expect("an AppError");
    assert_eq!((status, error.status()), (504, 504));
    assert!(matches!(&error, AppError::TimedOut(why) if why.contains("over 120 s")), "{error:?}");

    let own = AppError::TooMany("wait".into());
    let kept = web::limits_as_app_errors(axum::response::IntoResponse::into_response(own.clone())).await;
    let body = kept.into_body().collect().await.expect("a body").to_bytes();
    assert_eq!(serde_json::from_slice::<AppError>(&body).expect("an AppError"), own, "an AppError stays as it is");
}
