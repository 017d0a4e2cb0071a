//! Outgoing notices (`domain::notice`): each one posted to every configured webhook, as a Slack-compatible body or
//! a CloudEvent, from a queue of its own. Delivery never holds maintenance up: a notice is queued without waiting
//! (dropped, and counted, when the queue is full), and each webhook is tried a few times with growing waits, then
//! given up on. Every attempt is counted in `/metrics` with its outcome.
//!
//! A webhook with a `name` is an app team's (`domain::teams`): it is sent only the notices of the namespaces whose
//! `drainboard.dev/notify` annotation names it. The others are the operators': they are sent every other notice.
//!
//! Webhook URLs are secrets (a Slack URL is its own credential): they come from a file or the environment, never
//! from a flag that `ps` shows, and are never logged.

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use domain::notice::{self, Notice};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use tokio::sync::mpsc;

/// How many notices may wait to be sent.
const QUEUE: usize = 1_000;
/// How many times one webhook is tried with one notice, and the first wait between tries (doubled each time).
pub const ATTEMPTS: u32 = 4;
const FIRST_WAIT: Duration = Duration::from_secs(1);

/// What a webhook is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Slack,
    CloudEvents,
}

impl Format {
    fn label(self) -> &'static str {
        match self {
            Format::Slack => "slack",
            Format::CloudEvents => "cloudevents",
        }
    }
}

/// One webhook.
#[derive(Clone, Deserialize)]
pub struct Webhook {
    /// An app team's name (`domain::teams::name`): only that team's notices go to it.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(rename = "kind")]
    pub format: Format,
    pub url: SecretString,
}

/// Reads webhooks from JSON (`[{"kind": "slack", "url": "https://hooks…"}, {"kind": "cloudevents", "url": …}]`),
/// as a file or the environment holds it. The error names the problem, never a URL.
pub fn webhooks(json: &str) -> Result<Vec<Webhook>, String> {
    let hooks: Vec<Webhook> = serde_json::from_str(json).map_err(|e| {
        format!(
            "the webhooks do not read ({} at line {}); write [{{\"kind\": \"slack\" or \"cloudevents\", \"url\": \"https://…\"}}]",
            e.classify_str(),
            e.line()
        )
    })?;
    if hooks.len() > domain::teams::MAX_TEAMS {
        return Err(format!("{} webhooks are configured; at most 20 are allowed", hooks.len()));
    }
    let mut names = BTreeSet::new();
    for (i, hook) in hooks.iter().enumerate() {
        if let Some(name) = &hook.name {
            let name = domain::teams::name(name).map_err(|e| format!("webhook {i}'s name: {e}"))?;
            if !names.insert(name.to_owned()) {
                return Err(format!("webhook {i}'s name {name:?} is another webhook's too; each team has one"));
            }
        }
        let url =
            reqwest::Url::parse(hook.url.expose_secret()).map_err(|_| format!("webhook {i}'s url is not a URL"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("webhook {i}'s url must be http or https"));
        }
    }
    Ok(hooks)
}

trait ClassifyStr {
    fn classify_str(&self) -> &'static str;
}

impl ClassifyStr for serde_json::Error {
    fn classify_str(&self) -> &'static str {
        match self.classify() {
            serde_json::error::Category::Io => "unreadable",
            serde_json::error::Category::Syntax => "not JSON",
            serde_json::error::Category::Data => "not a list of webhooks",
            serde_json::error::Category::Eof => "cut short",
        }
    }
}

/// Where notices go. Cheap to clone.
#[derive(Clone)]
pub struct Notifier {
    /// A notice, and the team it is for (`None`: the operators').
    tx: mpsc::Sender<(Option<String>, Notice)>,
    /// How long a plan's next node may be held before the team is told.
    pub blocked_after: Duration,
    /// How far ahead app teams are told that a plan will reach their pods.
    pub lead: Duration,
    /// The app teams' names, as their webhooks give them.
    teams: Arc<BTreeSet<String>>,
}

impl Notifier {
    /// Sends every notice to each of `hooks`, as `source` (the CloudEvents' `source`), under `tasks`; a plan's node
    /// held longer than `blocked_after` is told once.
    pub fn new(
        hooks: Vec<Webhook>,
        source: String,
        (blocked_after, lead): (Duration, Duration),
        tasks: &crate::tasks::Tasks,
    ) -> Result<Self, String> {
        let client = crate::windows::alerts::client()?;
        let teams = Arc::new(hooks.iter().filter_map(|h| h.name.clone()).collect());
        let (tx, mut rx) = mpsc::channel::<(Option<String>, Notice)>(QUEUE);
        let shutdown = tasks.shutdown_signal().clone();
        let spawner = tasks.clone();
        tasks.spawn(async move {
            loop {
                let (to, notice) = tokio::select! {
                    () = shutdown.cancelled() => break,
                    notice = rx.recv() => match notice { Some(n) => n, None => break },
                };
                let id = uuid::Uuid::new_v4().to_string();
                let at = jiff::Timestamp::now();
                // Each webhook on its own, so that a slow one does not delay the others, nor the next notice.
                for hook in hooks.iter().filter(|h| h.name == to) {
                    let (client, hook, notice, id, source) =
                        (client.clone(), hook.clone(), notice.clone(), id.clone(), source.clone());
                    let stop = spawner.shutdown_signal().clone();
                    spawner.spawn(async move {
                        // A stopping server does not wait out the retries.
                        tokio::select! {
                            () = stop.cancelled() => {}
                            () = deliver(&client, &hook, &notice, id, source, at) => {}
                        }
                    });
                }
            }
        });
        Ok(Notifier { tx, blocked_after, lead, teams })
    }

    /// Queues `notice` for the operators' webhooks, never waiting: a full queue drops it, counted.
    pub fn send(&self, notice: Notice) {
        if self.tx.try_send((None, notice)).is_err() {
            crate::metrics::METRICS.notice_attempt("any", "dropped");
        }
    }

    /// Queues `notice` for app team `team`'s webhook alone, as [`Self::send`]; nothing for a team without one.
    pub fn tell(&self, team: &str, notice: Notice) {
        if self.knows(team) && self.tx.try_send((Some(team.to_owned()), notice)).is_err() {
            crate::metrics::METRICS.notice_attempt("any", "dropped");
        }
    }

    /// Whether `team` has a webhook.
    pub fn knows(&self, team: &str) -> bool {
        self.teams.contains(team)
    }

    /// Whether any app team has a webhook.
    pub fn has_teams(&self) -> bool {
        !self.teams.is_empty()
    }
}

/// Posts `notice` to `hook` until it is taken (a 2xx) or [`ATTEMPTS`] tries have failed.
async fn deliver(
    client: &reqwest::Client,
    hook: &Webhook,
    notice: &Notice,
    id: String,
    source: String,
    at: jiff::Timestamp,
) {
    let request = match hook.format {
        Format::Slack => client.post(hook.url.expose_secret()).json(&notice::slack(notice)),
        Format::CloudEvents => client
            .post(hook.url.expose_secret())
            .header("content-type", "application/cloudevents+json")
            .body(serde_json::to_vec(&notice::cloud_event(notice, id, source, at)).unwrap_or_default()),
    };
    let kind = hook.format.label();
    let mut wait = FIRST_WAIT;
    for attempt in 1..=ATTEMPTS {
        let Some(request) = request.try_clone() else { return };
        match request.send().await {
            Ok(res) if res.status().is_success() => {
                crate::metrics::METRICS.notice_attempt(kind, "delivered");
                return;
            }
            Ok(res) => {
                crate::metrics::METRICS.notice_attempt(kind, "failed");
                tracing::warn!(webhook = kind, notice = notice.kind(), attempt, status = %res.status(), "a webhook refused a notice");
            }
            Err(err) => {
                crate::metrics::METRICS.notice_attempt(kind, "failed");
                // The error's own text may hold the URL: only its kind is logged.
                let what = if err.is_timeout() {
                    "timed out"
                } else if err.is_connect() {
                    "could not connect"
                } else {
                    "failed"
                };
                tracing::warn!(webhook = kind, notice = notice.kind(), attempt, what, "a notice could not be sent");
            }
        }
        if attempt < ATTEMPTS {
            tokio::time::sleep(wait).await;
            wait = wait.saturating_mul(2);
        }
    }
    crate::metrics::METRICS.notice_attempt(kind, "given_up");
    tracing::warn!(webhook = kind, notice = notice.kind(), attempts = ATTEMPTS, "gave up on a notice");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webhooks_read_from_json_and_a_bad_one_is_named_without_its_url() {
        let hooks = webhooks(r#"[{"kind": "slack", "url": "https://hooks.example/T/B/secret"}, {"kind": "cloudevents", "url": "http://ce.example/in"}]"#).unwrap();
        assert_eq!(hooks.iter().map(|h| h.format).collect::<Vec<_>>(), vec![Format::Slack, Format::CloudEvents]);
        let err = webhooks(r#"[{"kind": "teams", "url": "https://secret.example/x"}]"#).err().unwrap();
        assert!(err.contains("not a list of webhooks") && !err.contains("secret"), "{err}");
        let err = webhooks(r#"[{"kind": "slack", "url": "ftp://secret.example/x"}]"#).err().unwrap();
        assert_eq!(err, "webhook 0's url must be http or https");
        assert!(webhooks("[").err().unwrap().contains("cut short"));
        let named = webhooks(r#"[{"name": "payments", "kind": "slack", "url": "https://hooks.example/p"}, {"kind": "slack", "url": "https://hooks.example/ops"}]"#).unwrap();
        assert_eq!(named.iter().map(|h| h.name.as_deref()).collect::<Vec<_>>(), vec![Some("payments"), None]);
        let err =
            webhooks(r#"[{"name": "Pay Ments", "kind": "slack", "url": "https://secret.example/x"}]"#).err().unwrap();
        assert!(err.starts_with("webhook 0's name") && !err.contains("secret"), "{err}");
        let twice = r#"[{"name": "pay", "kind": "slack", "url": "https://a.example/1"}, {"name": "pay", "kind": "cloudevents", "url": "https://a.example/2"}]"#;
        assert_eq!(
            webhooks(twice).err().unwrap(),
            "webhook 1's name \"pay\" is another webhook's too; each team has one"
        );
        assert!(webhooks("not json").err().unwrap().contains("not JSON"));
    }
}
