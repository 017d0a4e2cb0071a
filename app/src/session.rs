//! Team mode's sign-in, as server functions: the person pastes a token or a kubeconfig, the engine asks the API
//! server who it belongs to, and the browser gets an opaque session id in an `HttpOnly`, `Secure`,
//! `SameSite=Strict` cookie. Credentials never leave the server's memory.

use leptos::{prelude::*, server_fn::codec::Json};
use serde::{Deserialize, Serialize};

use crate::AppError;

/// The session cookie's name; the server's session layer reads it.
/// `__Host-`: a browser takes it only with `Secure`, `Path=/` and no `Domain`, so no other host of the site and no
/// plain-HTTP page can plant or shadow it.
pub const SESSION_COOKIE: &str = "__Host-drainboard_session";

/// Who the page acts as.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Who {
    /// The signed-in person's username (team mode), or the kubeconfig user (local mode).
    pub user: String,
    /// The person's groups, as the API server reported them (team mode).
    pub groups: Vec<String>,
    /// Whether people sign in on this server.
    pub team: bool,
    /// Whether this server runs maintenance plans marked unattended, as its own maintenance identity.
    #[serde(default)]
    pub unattended_plans: bool,
}

/// Signs in with a bearer token, or with a kubeconfig holding inline credentials (and the context to use; its
/// current-context otherwise). A kubeconfig with an exec plugin, an auth-provider or a file path is refused and
/// never run or read. `POST /api/session/sign-in` with `{"token": "..."}` or
/// `{"kubeconfig": "...", "context": "..."}`; sets the session cookie.
#[server(prefix = "/api", endpoint = "session/sign-in", input = Json)]
pub async fn sign_in(
    #[server(default)] token: Option<String>,
    #[server(default)] kubeconfig: Option<String>,
    #[server(default)] context: Option<String>,
) -> Result<Who, AppError> {
    respond(ssr::sign_in(token, kubeconfig, context).await)
}

/// What a sign-out did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedOut {
    /// Whether the session ended (not when `ask` found drains still running).
    pub signed_out: bool,
    /// Drains the person started that are still running, on this server or another: they go on under the
    /// credentials they started with until they end, whatever the session does.
    pub running_drains: usize,
}

/// Signs out: the server forgets the session and its credentials, and the cookie is cleared. With `"ask": true`
/// and drains of the person's still running, nothing ends: the answer counts them, so that the page can say they
/// go on before the person confirms. `POST /api/session/sign-out` with `{"ask": false}` (the default).
#[server(prefix = "/api", endpoint = "session/sign-out", input = Json)]
pub async fn sign_out(#[server(default)] ask: bool) -> Result<SignedOut, AppError> {
    respond(ssr::sign_out(ask).await)
}

/// Who the request acts as: `null` in team mode without a session (this endpoint, like the sign-in page, is open
/// to anyone). `POST /api/session/me`.
#[server(prefix = "/api", endpoint = "session/me")]
pub async fn who_am_i() -> Result<Option<Who>, AppError> {
    Ok(ssr::who())
}

#[cfg(feature = "ssr")]
mod ssr {
    use axum::http::{HeaderValue, header};
    use engine::signin::Credentials;
    use leptos::prelude::*;

    use super::Who;
    use crate::AppError;

    pub async fn sign_in(
        token: Option<String>,
        kubeconfig: Option<String>,
        context: Option<String>,
    ) -> Result<Who, AppError> {
        let present = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.trim().is_empty());
        let credentials = match (present(&token), present(&kubeconfig)) {
            (true, false) => Credentials::Token(token.unwrap_or_default().into()),
            (false, true) => Credentials::Kubeconfig {
                text: kubeconfig.unwrap_or_default().into(),
                context: context.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()),
            },
            _ => return Err(AppError::Invalid("paste either a token or a kubeconfig".into())),
        };
        let engine = crate::api::engine();
        let peer = crate::api::peer();
        let source = crate::api::source();
        // User names escaped (`?`): a newline in a certificate's CN cannot forge a line of the log.
        let (session, person, _) = match engine.sign_in(&credentials, source).await {
            Ok(signed_in) => signed_in,
            Err(err) => {
                tracing::warn!(outcome = "refused", %peer, %source, why = ?err.to_string(), "authentication: sign-in");
                return Err(err.into());
            }
        };
        tracing::info!(outcome = "ok", user = ?person.username, groups = ?person.groups, %peer, %source,
            "authentication: sign-in");
        // The session the request carried, if any, ends: one browser, one session, whoever signed in before.
        if let Ok(caller) = crate::api::caller()
            && let Some(old) = caller.session
            && let Err(err) = engine.sign_out(&old).await
        {
            // The new session stands; the old one (a wall screen's ticket) ends with its cookie, replaced below.
            tracing::warn!(why = %err, "the session this browser carried could not be ended on the server");
        }
        let lifetime = engine.session_policy().unwrap_or_default().lifetime;
        set_cookie(&super::session_cookie(&session, lifetime));
        Ok(Who {
            user: person.username,
            groups: person.groups,
            team: true,
            unattended_plans: engine.runs_unattended_plans(),
        })
    }

    pub async fn sign_out(ask: bool) -> Result<super::SignedOut, AppError> {
        let engine = crate::api::engine();
        let caller = crate::api::caller().ok();
        let running_drains = match &caller {
            Some(caller) => engine.acting_as(caller).own_running_drains(),
            None => 0,
        };
        if ask && running_drains > 0 {
            return Ok(super::SignedOut { signed_out: false, running_drains });
        }
        if let Some(caller) = caller
            && let Some(session) = &caller.session
        {
            // A wall screen's ticket is revoked in the cluster: if that fails, it has not signed out, and says so.
            if let Err(err) = engine.sign_out(session).await {
                tracing::warn!(outcome = "failed", wall = caller.is_wall(), why = %err, "authentication: sign-out");
                return Err(err.into());
            }
            let wall = caller.is_wall();
            let user = caller.person.map_or(caller.identity.user, |person| person.username);
            let peer = crate::api::peer();
            tracing::info!(outcome = "ok", user = ?user, wall, %peer, running_drains, "authentication: sign-out");
        }
        set_cookie(&super::cookie("", 0));
        Ok(super::SignedOut { signed_out: true, running_drains })
    }

    pub fn who() -> Option<Who> {
        let caller = crate::api::caller().ok()?;
        let engine = crate::api::engine();
        let team = engine.is_team();
        // A person's name as the API server gave it; a wall screen's is "wall screen".
        let (user, groups) = match caller.person {
            Some(person) => (person.username, person.groups),
            None => (caller.identity.user, Vec::new()),
        };
        Some(Who { user, groups, team, unattended_plans: engine.runs_unattended_plans() })
    }

    fn set_cookie(value: &str) {
        if let (Some(response), Ok(value)) =
            (use_context::<leptos_axum::ResponseOptions>(), HeaderValue::from_str(value))
        {
            response.append_header(header::SET_COOKIE, value);
        }
    }
}

/// The `Set-Cookie` value of a person's new session: its id only, out of scripts' reach, sent back to this site
/// only, for as long as a session lasts (`lifetime`, the server's setting).
#[cfg(feature = "ssr")]
pub fn session_cookie(session: &str, lifetime: std::time::Duration) -> String {
    cookie(session, lifetime.as_secs())
}

/// The same for a wall screen's ticket, for as long as the ticket is good (30 days).
#[cfg(feature = "ssr")]
pub fn wall_cookie(session: &str) -> String {
    cookie(session, engine::access::WALL_SESSION_LIFETIME.as_secs())
}

/// The session cookie, written by the `cookie` crate: the whole site (`Path=/`), out of scripts' reach
/// (`HttpOnly`), over HTTPS only (`Secure`), never sent with another site's request (`SameSite=Strict`), and kept
/// for `max_age_seconds` (0 clears it).
#[cfg(feature = "ssr")]
fn cookie(session: &str, max_age_seconds: u64) -> String {
    use ::cookie::{Cookie, SameSite, time::Duration};
    Cookie::build((SESSION_COOKIE, session))
        .path("/")
        .http_only(true)
        .secure(true)
        .same_site(SameSite::Strict)
        .max_age(Duration::seconds(i64::try_from(max_age_seconds).unwrap_or(i64::MAX)))
        .build()
        .to_string()
}

#[cfg(feature = "ssr")]
fn respond<T>(result: Result<T, AppError>) -> Result<T, AppError> {
    if let Err(error) = &result {
        error.set_status();
    }
    result
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use ::cookie::{Cookie, SameSite};

    use super::*;

    /// The attributes a `Set-Cookie` value carries, read back as a browser reads them.
    fn written(value: &str) -> Cookie<'static> {
        Cookie::parse(value.to_owned()).unwrap_or_else(|e| panic!("a Set-Cookie value: {e}"))
    }

    fn assert_kept_from_scripts_and_other_sites(cookie: &Cookie<'_>) {
        assert_eq!(cookie.name(), SESSION_COOKIE);
        assert_eq!(cookie.path(), Some("/"));
        assert_eq!(cookie.http_only(), Some(true));
        assert_eq!(cookie.secure(), Some(true));
        assert_eq!(cookie.same_site(), Some(SameSite::Strict));
        assert_eq!(cookie.domain(), None, "this host only");
        assert_eq!(cookie.expires(), None, "Max-Age alone says how long");
    }

    #[test]
    fn a_session_cookie_holds_the_id_for_a_sessions_lifetime() {
        let id = "ab".repeat(32);
        let cookie = written(&session_cookie(&id, std::time::Duration::from_secs(5 * 3600)));
        assert_kept_from_scripts_and_other_sites(&cookie);
        assert!(cookie.name().starts_with("__Host-"), "a cookie no other host or plain page can set");
        assert_eq!(cookie.value(), id);
        let lifetime = 5 * 3600;
        assert_eq!(cookie.max_age().map(|age| age.whole_seconds()), Some(lifetime));
    }

    #[test]
    fn a_wall_screens_cookie_lasts_as_long_as_its_ticket() {
        let cookie = written(&wall_cookie(&"c".repeat(64)));
        assert_kept_from_scripts_and_other_sites(&cookie);
        assert_eq!(cookie.max_age().map(|age| age.whole_seconds()), Some(30 * 86_400));
    }

    #[test]
    fn signing_out_clears_the_cookie_with_the_same_attributes() {
        let value = cookie("", 0);
        let cookie = written(&value);
        assert_kept_from_scripts_and_other_sites(&cookie);
        assert_eq!(cookie.value(), "");
        assert_eq!(cookie.max_age().map(|age| age.whole_seconds()), Some(0));
        assert!(value.contains("Max-Age=0"), "{value}");
        assert_eq!(value, format!("{SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Secure; Path=/; Max-Age=0"));
    }

    #[test]
    fn an_age_past_what_a_cookie_can_say_is_capped_not_wrapped() {
        let cookie = written(&cookie("x", u64::MAX));
        assert!(cookie.max_age().is_some_and(|age| age.whole_seconds() > 0), "{cookie}");
    }
}
