//! Team mode's sign-in: turning what a person pastes (a bearer token, or a kubeconfig with inline credentials)
//! into a client that acts as them, and asking the API server who that is.
//!
//! What is pasted is untrusted. Only credentials are taken from it: the cluster is always the server's own (its
//! URL and CA), so a pasted kubeconfig can never make the server connect elsewhere. Anything that would make the
//! server run a program or read a file on its own disk (an exec plugin, an auth-provider, a path to a token,
//! certificate, key or CA) is refused before it is looked at further, and never run or read.

use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use kube::{
    Client, Config,
    config::{AuthInfo, Kubeconfig},
};
use secrecy::{ExposeSecret, SecretString};

use crate::{Error, Result, kube_error::api_message};

/// The largest kubeconfig or token accepted, in bytes: one context's kubeconfig with an inline CA, certificate and
/// key is a few kilobytes, and the request that carries it must fit the server's 16 KiB body limit.
pub const MAX_CREDENTIAL_BYTES: usize = 15 * 1024;

/// What a person signs in with.
#[derive(Clone)]
pub enum Credentials {
    /// A bearer token: a service account token, or one `drainboard token` printed from their exec plugin.
    Token(SecretString),
    /// A kubeconfig's text and the context to use (its current-context when `None`).
    Kubeconfig { text: SecretString, context: Option<String> },
}

/// Who the API server says a signed-in person is (SelfSubjectReview).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    pub username: String,
    pub groups: Vec<String>,
}

/// The credentials part of `credentials`, checked: a token, or a client certificate and key, inline.
pub fn auth_info(credentials: &Credentials) -> Result<AuthInfo> {
    match credentials {
        Credentials::Token(token) => {
            let token = token.expose_secret().trim();
            if token.is_empty() {
                return Err(Error::Invalid("the token is empty: paste a bearer token".into()));
            }
            if token.len() > MAX_CREDENTIAL_BYTES {
                return Err(too_big());
            }
            if !token.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(Error::Invalid(
                    "the token has spaces or characters a bearer token cannot hold: paste the token alone".into(),
                ));
            }
            Ok(AuthInfo { token: Some(SecretString::from(token.to_owned())), ..Default::default() })
        }
        Credentials::Kubeconfig { text, context } => from_kubeconfig(text.expose_secret(), context.as_deref()),
    }
}

fn too_big() -> Error {
    Error::Invalid(format!(
        "the credentials are over {} KiB; paste one context's kubeconfig",
        MAX_CREDENTIAL_BYTES / 1024
    ))
}

/// The user of one context of a pasted kubeconfig, if it holds its credentials inline and nothing the server
/// would have to run or read.
fn from_kubeconfig(text: &str, context: Option<&str>) -> Result<AuthInfo> {
    if text.len() > MAX_CREDENTIAL_BYTES {
        return Err(too_big());
    }
    let config = Kubeconfig::from_yaml(text)
        .map_err(|e| Error::Invalid(format!("this is not a kubeconfig this server can read: {e}")))?;
    let context_name = context.map(str::to_owned).or_else(|| config.current_context.clone()).ok_or_else(|| {
        Error::Invalid(format!("the kubeconfig has no current-context: pick one of {}", names(&config)))
    })?;
    let chosen =
        config.contexts.iter().find(|c| c.name == context_name).and_then(|c| c.context.as_ref()).ok_or_else(|| {
            Error::Invalid(format!("the kubeconfig has no context {context_name:?}: it has {}", names(&config)))
        })?;
    let user = config
        .auth_infos
        .iter()
        .find(|u| u.name == chosen.user.clone().unwrap_or_default())
        .and_then(|u| u.auth_info.clone())
        .ok_or_else(|| Error::Invalid(format!("context {context_name:?} names no user with credentials")))?;
    if let Some(cluster) = config.clusters.iter().find(|c| c.name == chosen.cluster)
        && let Some(path) = cluster.cluster.as_ref().and_then(|c| c.certificate_authority.as_ref())
    {
        return Err(names_a_file("certificate-authority", path));
    }
    refuse_what_runs_or_reads(&user)?;
    let has_token = user.token.as_ref().is_some_and(|t| !t.expose_secret().trim().is_empty());
    let has_cert = user.client_certificate_data.is_some() && user.client_key_data.is_some();
    if !has_token && !has_cert {
        return Err(Error::Invalid(format!(
            "context {context_name:?} holds no inline credentials: it needs a token, or client-certificate-data \
             with client-key-data"
        )));
    }
    Ok(AuthInfo {
        token: user.token.filter(|_| has_token),
        client_certificate_data: user.client_certificate_data.filter(|_| has_cert),
        client_key_data: user.client_key_data.filter(|_| has_cert),
        ..Default::default()
    })
}

/// Refuses the ways a kubeconfig user makes its reader run a program or read a file, and the ones that would act
/// as someone else.
fn refuse_what_runs_or_reads(user: &AuthInfo) -> Result<()> {
    if let Some(exec) = &user.exec {
        let command = exec.command.as_deref().unwrap_or("a command");
        return Err(Error::Invalid(format!(
            "this user signs in through an exec plugin ({command}), which the server never runs: run \
             `drainboard token --context <name>` on your own machine and paste the token it prints"
        )));
    }
    if user.auth_provider.is_some() {
        return Err(Error::Invalid(
            "this user signs in through an auth-provider, which the server never runs: paste a token instead \
             (`drainboard token --context <name>` prints one)"
                .into(),
        ));
    }
    for (field, path) in [
        ("tokenFile", &user.token_file),
        ("client-certificate", &user.client_certificate),
        ("client-key", &user.client_key),
    ] {
        if let Some(path) = path {
            return Err(names_a_file(field, path));
        }
    }
    if user.username.is_some() || user.password.is_some() {
        return Err(Error::Invalid("basic authentication is not accepted: use a token or a client certificate".into()));
    }
    if user.impersonate.is_some() || user.impersonate_groups.is_some() || user.impersonate_uid.is_some() {
        return Err(Error::Invalid(
            "impersonation (as, as-groups, as-uid) is not accepted: sign in as yourself".into(),
        ));
    }
    Ok(())
}

fn names_a_file(field: &str, path: &str) -> Error {
    let shown: String = path.chars().take(200).collect();
    Error::Invalid(format!(
        "the kubeconfig names a file ({field}: {shown}), which the server never reads: paste one with the data \
         inline (`kubectl config view --raw --minify --flatten`)"
    ))
}

fn names(config: &Kubeconfig) -> String {
    let names: Vec<&str> = config.contexts.iter().map(|c| c.name.as_str()).take(20).collect();
    if names.is_empty() { "no contexts".into() } else { names.join(", ") }
}

/// A client on the server's own cluster (`base`: its URL, CA and timeouts) that authenticates with `auth` only.
pub fn client(base: &Config, auth: AuthInfo) -> Result<Client> {
    let mut config = base.clone();
    config.auth_info = auth;
    crate::retry::client(config)
        .map_err(|e| Error::Invalid(format!("these credentials cannot be used: {}", api_message(&e))))
}

/// Who the client's credentials belong to, as the API server says. A refusal (401) is the person's error.
pub async fn review(client: &Client) -> Result<Person> {
    let review = kube::Api::<SelfSubjectReview>::all(client.clone())
        .create(&kube::api::PostParams::default(), &SelfSubjectReview::default())
        .await
        .map_err(|err| {
            if crate::kube_error::unauthorized(&err) {
                Error::NotSignedIn { user: "these credentials".into(), cluster: "the API server (401)".into() }
            } else {
                Error::Kube(err)
            }
        })?;
    let info = review.status.and_then(|s| s.user_info).unwrap_or_default();
    let username = info
        .username
        .filter(|u| !u.is_empty())
        .ok_or_else(|| Error::Invalid("the API server accepted the credentials but named no user".into()))?;
    Ok(Person { username, groups: info.groups.unwrap_or_default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubeconfig(user: &str) -> Credentials {
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster: {{server: \"https://127.0.0.1:6443\"}}\n\
             contexts:\n- name: c\n  context: {{cluster: k, user: u}}\nusers:\n- name: u\n  user:\n{user}\n"
        );
        Credentials::Kubeconfig { text: SecretString::from(text), context: None }
    }

    fn refused(credentials: Credentials) -> String {
        match auth_info(&credentials) {
            Err(Error::Invalid(why)) => why,
            Err(other) => panic!("not an Invalid error: {other}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn inline_tokens_and_certificates_are_taken() {
        let token = auth_info(&kubeconfig("    token: abc.def")).expect("a token user");
        assert_eq!(token.token.map(|t| t.expose_secret().to_owned()).as_deref(), Some("abc.def"));
        let cert =
            auth_info(&kubeconfig("    client-certificate-data: Y2VydA==\n    client-key-data: a2V5")).expect("a cert");
        assert_eq!(cert.client_certificate_data.as_deref(), Some("Y2VydA=="));
        let pasted = auth_info(&Credentials::Token(SecretString::from(" eyJ.a.b \n"))).expect("a token");
        assert_eq!(pasted.token.map(|t| t.expose_secret().to_owned()).as_deref(), Some("eyJ.a.b"));
    }

    #[test]
    fn what_would_run_or_read_is_refused_with_what_to_do() {
        let exec = refused(kubeconfig(
            "    exec: {apiVersion: client.authentication.k8s.io/v1, command: touch, args: [/tmp/marker]}",
        ));
        assert!(exec.contains("exec plugin (touch)") && exec.contains("drainboard token"), "{exec}");
        let provider = refused(kubeconfig("    auth-provider: {name: oidc, config: {}}"));
        assert!(provider.contains("auth-provider"), "{provider}");
        for (field, yaml) in [
            ("tokenFile", "    tokenFile: /var/run/secrets/token"),
            ("client-certificate", "    client-certificate: /etc/passwd\n    client-key-data: a2V5"),
            ("client-key", "    client-certificate-data: Y2VydA==\n    client-key: /root/.ssh/id_rsa"),
        ] {
            let why = refused(kubeconfig(yaml));
            assert!(why.contains(field) && why.contains("--flatten"), "{why}");
        }
        assert!(refused(kubeconfig("    username: a\n    password: b")).contains("basic"));
        assert!(refused(kubeconfig("    token: t\n    as: system:admin")).contains("impersonation"));
    }

    #[test]
    fn a_certificate_authority_path_is_refused_too() {
        let text = "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster: {server: \"https://x\", \
                    certificate-authority: /etc/ca.crt}\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nusers:\n\
                    - name: u\n  user: {token: t}\n";
        let why = refused(Credentials::Kubeconfig { text: SecretString::from(text), context: None });
        assert!(why.contains("certificate-authority"), "{why}");
    }

    #[test]
    fn bad_input_gets_a_clear_error() {
        assert!(refused(Credentials::Token(SecretString::from("  "))).contains("empty"));
        assert!(refused(Credentials::Token(SecretString::from("a b"))).contains("token alone"));
        assert!(refused(Credentials::Token(SecretString::from("x".repeat(MAX_CREDENTIAL_BYTES + 1)))).contains("KiB"));
        assert!(refused(kubeconfig("    {}")).contains("no inline credentials"));
        let not_yaml = Credentials::Kubeconfig { text: SecretString::from("{{{"), context: None };
        assert!(refused(not_yaml).contains("not a kubeconfig"));
        let other = match kubeconfig("    token: t") {
            Credentials::Kubeconfig { text, .. } => Credentials::Kubeconfig { text, context: Some("nope".into()) },
            token => token,
        };
        assert!(refused(other).contains("no context \"nope\": it has c"));
    }
}
