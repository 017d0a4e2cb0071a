//! `drainboard token`: the sign-in helper for people whose kubeconfig gets its credentials from an exec plugin
//! (EKS, GKE, OIDC login tools). It runs on the person's own machine, reads their own kubeconfig and runs the
//! plugin exactly as kubectl would, then prints the short-lived token for them to paste into team mode's sign-in.
//! The server itself never runs a plugin.

use std::{
    io::IsTerminal,
    path::Path,
    process::{Command, Stdio},
};

use kube::config::{ExecConfig, ExecInteractiveMode, Kubeconfig};
use secrecy::ExposeSecret;
use serde::Deserialize;

/// The token the user of `context` (the current-context when `None`) signs in with: an inline token, a token
/// file's content, or what its exec plugin prints. Everything else says what to paste instead.
pub fn token(kubeconfig: Option<&Path>, context: Option<&str>) -> Result<String, String> {
    let config = match kubeconfig {
        Some(path) => Kubeconfig::read_from(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?,
        None => Kubeconfig::read()
            .map_err(|e| format!("cannot read the kubeconfig ($KUBECONFIG or ~/.kube/config): {e}"))?,
    };
    let name = context
        .map(str::to_owned)
        .or_else(|| config.current_context.clone())
        .ok_or("the kubeconfig has no current-context: pass --context")?;
    let user_name = config
        .contexts
        .iter()
        .find(|c| c.name == name)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone())
        .ok_or_else(|| format!("the kubeconfig has no context {name:?} with a user"))?;
    let user = config
        .auth_infos
        .iter()
        .find(|u| u.name == user_name)
        .and_then(|u| u.auth_info.clone())
        .ok_or_else(|| format!("the kubeconfig has no user {user_name:?}"))?;
    if let Some(token) = user.token.as_ref().map(|t| t.expose_secret().trim().to_owned()).filter(|t| !t.is_empty()) {
        return Ok(token);
    }
    if let Some(file) = &user.token_file {
        let token = std::fs::read_to_string(file).map_err(|e| format!("cannot read the token file {file}: {e}"))?;
        return Ok(token.trim().to_owned());
    }
    if let Some(exec) = &user.exec {
        return run_plugin(exec);
    }
    if user.client_certificate.is_some() || user.client_certificate_data.is_some() {
        return Err(format!(
            "user {user_name:?} signs in with a client certificate, not a token: paste the kubeconfig itself \
             (kubectl config view --raw --minify --flatten --context {name})"
        ));
    }
    Err(format!("user {user_name:?} has no token, token file or exec plugin"))
}

/// The part of a plugin's ExecCredential answer that matters here.
#[derive(Deserialize)]
struct ExecCredential {
    status: Option<ExecStatus>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExecStatus {
    token: Option<String>,
    client_certificate_data: Option<String>,
}

/// Runs the plugin as kubectl does: its arguments and environment, `KUBERNETES_EXEC_INFO` naming the protocol
/// version, the terminal handed over when it may ask the person something.
fn run_plugin(exec: &ExecConfig) -> Result<String, String> {
    let program = exec.command.as_deref().ok_or("the exec plugin names no command")?;
    let mut command = Command::new(program);
    command.args(exec.args.iter().flatten());
    for pair in exec.env.iter().flatten() {
        if let (Some(name), Some(value)) = (pair.get("name"), pair.get("value")) {
            command.env(name, value);
        }
    }
    let interactive = exec.interactive_mode != Some(ExecInteractiveMode::Never) && std::io::stdin().is_terminal();
    let info = serde_json::json!({
        "apiVersion": exec.api_version.clone().unwrap_or_else(|| "client.authentication.k8s.io/v1".into()),
        "kind": "ExecCredential",
        "spec": {"interactive": interactive},
    });
    command.env("KUBERNETES_EXEC_INFO", info.to_string());
    command.stdin(if interactive { Stdio::inherit() } else { Stdio::null() }).stderr(Stdio::inherit());
    let out = command.output().map_err(|e| format!("cannot run the exec plugin {program}: {e}"))?;
    if !out.status.success() {
        return Err(format!("the exec plugin {program} failed ({})", out.status));
    }
    let answer: ExecCredential = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("the exec plugin {program} printed no ExecCredential: {e}"))?;
    match answer.status {
        Some(ExecStatus { token: Some(token), .. }) if !token.trim().is_empty() => Ok(token.trim().to_owned()),
        Some(ExecStatus { client_certificate_data: Some(_), .. }) => Err(format!(
            "the exec plugin {program} gives a client certificate, not a token: paste a kubeconfig with that \
             certificate and its key inline instead"
        )),
        _ => Err(format!("the exec plugin {program} gave no token")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubeconfig(dir: &Path, user: &str) -> std::path::PathBuf {
        let path = dir.join("config");
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{{name: k, cluster: {{server: \"https://x\"}}}}]\n\
             contexts: [{{name: c, context: {{cluster: k, user: u}}}}]\nusers:\n- name: u\n  user:\n{user}\n"
        );
        std::fs::write(&path, text).expect("written");
        path
    }

    #[test]
    fn an_exec_plugin_is_run_as_kubectl_runs_it_and_its_token_printed() {
        let dir = tempfile::tempdir().expect("a temp dir");
        // The plugin checks the protocol variable and its own environment, then answers.
        let script = r#"case "$KUBERNETES_EXEC_INFO" in *ExecCredential*) ;; *) exit 3;; esac; printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$SECRET""#;
        let user = format!(
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh\n      args: [\"-c\", {}]\n      env: [{{name: SECRET, value: tok-123}}]\n      interactiveMode: Never",
            serde_json::to_string(script).expect("quoted")
        );
        let path = kubeconfig(dir.path(), &user);
        assert_eq!(token(Some(&path), None), Ok("tok-123".into()));
        assert_eq!(token(Some(&path), Some("c")), Ok("tok-123".into()));
    }

    #[test]
    fn other_users_say_what_to_do() {
        let dir = tempfile::tempdir().expect("a temp dir");
        assert_eq!(token(Some(&kubeconfig(dir.path(), "    token: abc")), None), Ok("abc".into()));
        let cert = token(Some(&kubeconfig(dir.path(), "    client-certificate-data: Y2VydA==")), None).unwrap_err();
        assert!(cert.contains("--flatten"), "{cert}");
        let failing =
            "    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false, interactiveMode: Never}";
        assert!(token(Some(&kubeconfig(dir.path(), failing)), None).unwrap_err().contains("failed"));
        assert!(
            token(Some(&kubeconfig(dir.path(), "    token: abc")), Some("nope")).unwrap_err().contains("no context")
        );
    }
}
