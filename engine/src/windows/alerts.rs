//! Alertmanager, asked every few seconds which alerts fire: the alert gates of maintenance windows read its answer
//! (`domain::window::decide::Alerts`). Only alerts that are active and neither silenced nor inhibited count, as
//! Alertmanager itself decides at the moment it is asked.
//!
//! An Alertmanager that cannot be asked (down, slow, an answer that does not read) makes the answer `Unknown`
//! at once, with why: the gates then hold, unless the server was told to fail open.

use std::{collections::BTreeMap, time::Duration};

use domain::window::decide::Alerts;
use tokio::sync::watch;

/// How often Alertmanager is asked: a gate closes within this and a plan's next look (a second).
pub const ASK_EVERY: Duration = Duration::from_secs(2);
/// How long one question may take.
const TIMEOUT: Duration = Duration::from_secs(3);
/// The largest answer read, and the most alerts kept: an Alertmanager is untrusted input too.
const MAX_BYTES: usize = 8 << 20;
const MAX_ALERTS: usize = 20_000;

/// Where Alertmanager is.
#[derive(Clone, Debug)]
pub struct Alertmanager {
    /// Its root, without a trailing slash.
    base: String,
    client: reqwest::Client,
}

impl Alertmanager {
    /// Alertmanager at `url` (its root, as `http://alertmanager:9093`). The error says what is wrong with it.
    pub fn new(url: &str) -> Result<Self, String> {
        let parsed = reqwest::Url::parse(url).map_err(|e| {
            format!("--alertmanager-url {url:?} is not a URL ({e}); write one such as http://alertmanager:9093")
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!("--alertmanager-url {url:?} must be http or https"));
        }
        let base = parsed.as_str().trim_end_matches('/').to_owned();
        Ok(Alertmanager { base, client: client()? })
    }

    /// Alertmanager's root URL, without a trailing slash.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The client it is asked with.
    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.client
    }

    /// Asks every [`ASK_EVERY`] under `tasks`, the latest answer in the receiver.
    pub fn follow(self, tasks: &crate::tasks::Tasks) -> watch::Receiver<Alerts> {
        let (tx, rx) = watch::channel(Alerts::Unknown("Alertmanager has not been asked yet".into()));
        let shutdown = tasks.shutdown_signal().clone();
        tasks.spawn(async move {
            let mut every = tokio::time::interval(ASK_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    _ = every.tick() => {}
                }
                let answer = match self.firing().await {
                    Ok(alerts) => Alerts::Known(alerts),
                    Err(why) => {
                        tracing::warn!(%why, "could not ask Alertmanager which alerts fire");
                        Alerts::Unknown(why)
                    }
                };
                crate::metrics::METRICS.alertmanager_asked(matches!(answer, Alerts::Known(_)));
                tx.send_if_modified(|now| {
                    let changed = *now != answer;
                    *now = answer;
                    changed
                });
            }
        });
        rx
    }

    /// The labels of every alert that fires now and is neither silenced nor inhibited.
    pub async fn firing(&self) -> Result<Vec<BTreeMap<String, String>>, String> {
        let url = format!("{}/api/v2/alerts?active=true&silenced=false&inhibited=false", self.base);
        let body = get(&self.client, &url).await?;
        let alerts: Vec<AlertJson> =
            serde_json::from_slice(&body).map_err(|e| format!("Alertmanager's answer does not read as alerts: {e}"))?;
        if alerts.len() > MAX_ALERTS {
            return Err(format!("Alertmanager answered {} alerts, more than the {MAX_ALERTS} read", alerts.len()));
        }
        Ok(alerts
            .into_iter()
            .filter(|a| {
                a.status.state == "active" && a.status.silenced_by.is_empty() && a.status.inhibited_by.is_empty()
            })
            .map(|a| a.labels)
            .collect())
    }
}

/// A client with the server's TLS stack (rustls with ring) and the system's roots, and a timeout on everything.
pub(crate) fn client() -> Result<reqwest::Client, String> {
    // The process-wide provider reqwest's rustls uses: ring, as for the Kubernetes client. Installed once; a second
    // install is refused, which is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("could not make an HTTP client: {e}"))
}

/// The body of a GET of `am`, at most [`MAX_BYTES`].
pub(crate) async fn get_bytes(am: &Alertmanager, url: &str) -> Result<Vec<u8>, String> {
    get(&am.client, url).await
}

/// The body of a GET, at most [`MAX_BYTES`]; an error status is an error.
async fn get(client: &reqwest::Client, url: &str) -> Result<Vec<u8>, String> {
    let mut res = client.get(url).send().await.map_err(|e| format!("Alertmanager cannot be reached: {e}"))?;
    if !res.status().is_success() {
        return Err(format!("Alertmanager answered {}", res.status()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = res.chunk().await.map_err(|e| format!("Alertmanager's answer broke off: {e}"))? {
        if body.len() + chunk.len() > MAX_BYTES {
            return Err(format!("Alertmanager's answer is larger than {MAX_BYTES} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[derive(serde::Deserialize)]
struct AlertJson {
    #[serde(default)]
    labels: BTreeMap<String, String>,
    status: StatusJson,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusJson {
    state: String,
    #[serde(default)]
    silenced_by: Vec<String>,
    #[serde(default)]
    inhibited_by: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_url_of_http_is_taken() {
        assert_eq!(Alertmanager::new("http://alertmanager:9093/").unwrap().base(), "http://alertmanager:9093");
        assert_eq!(Alertmanager::new("https://am.example/prefix/").unwrap().base(), "https://am.example/prefix");
        assert!(Alertmanager::new("ftp://x").unwrap_err().contains("must be http or https"));
        assert!(Alertmanager::new("not a url").unwrap_err().contains("write one such as"));
    }

    #[tokio::test]
    async fn an_alertmanager_that_is_not_there_is_unknown_with_why() {
        // A port nothing listens on: refused at once.
        let am = Alertmanager::new("http://127.0.0.1:9").unwrap();
        let err = am.firing().await.unwrap_err();
        assert!(err.starts_with("Alertmanager cannot be reached"), "{err}");
    }

    #[test]
    fn an_answer_reads_as_alerts_and_silenced_ones_are_left_out() {
        let body = r#"[
          {"labels": {"alertname": "NodeDown", "node": "a"}, "status": {"state": "active", "silencedBy": [], "inhibitedBy": []}},
          {"labels": {"alertname": "Quiet"}, "status": {"state": "suppressed", "silencedBy": ["x"], "inhibitedBy": []}}
        ]"#;
        let alerts: Vec<AlertJson> = serde_json::from_str(body).unwrap();
        let firing: Vec<_> = alerts
            .into_iter()
            .filter(|a| {
                a.status.state == "active" && a.status.silenced_by.is_empty() && a.status.inhibited_by.is_empty()
            })
            .collect();
        assert_eq!(firing.len(), 1);
        assert_eq!(firing[0].labels["alertname"], "NodeDown");
    }
}
