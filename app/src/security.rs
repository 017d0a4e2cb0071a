//! The page's content security policy, sent as a real header (a `<meta>` policy ignores `frame-ancestors`).
//!
//! Scripts run only from this origin or with the render's nonce (Leptos puts it on the hydration script and on
//! every inline script it writes), the wasm may be compiled, and the page talks to this origin only. No inline
//! styles, no plugins, no framing: a page of another site cannot load Drainboard in a frame and trick a click.

use leptos::{nonce::provide_nonce, prelude::*};

/// The policy for a page rendered with `nonce`.
pub fn content_security_policy(nonce: &str) -> String {
    [
        "default-src 'self'".to_string(),
        format!("script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'"),
        "style-src 'self'".into(),
        "img-src 'self' data:".into(),
        "connect-src 'self'".into(),
        "object-src 'none'".into(),
        "base-uri 'none'".into(),
        "form-action 'self'".into(),
        "frame-ancestors 'none'".into(),
    ]
    .join("; ")
}

/// Makes a nonce for this render and sends the policy naming it. Call once, from the shell, on the server.
pub fn provide_policy() {
    provide_nonce();
    let (Some(nonce), Some(response)) = (use_nonce(), use_context::<leptos_axum::ResponseOptions>()) else {
        return;
    };
    if let Ok(value) = axum::http::HeaderValue::from_str(&content_security_policy(&nonce)) {
        response.insert_header(axum::http::header::CONTENT_SECURITY_POLICY, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_names_the_nonce_and_forbids_framing_and_foreign_connections() {
        let policy = content_security_policy("abc123");
        assert!(policy.contains("script-src 'self' 'nonce-abc123' 'wasm-unsafe-eval'"));
        assert!(policy.contains("frame-ancestors 'none'") && policy.contains("connect-src 'self'"));
        assert!(!policy.contains("unsafe-inline"), "no inline script or style without the nonce");
    }
}
