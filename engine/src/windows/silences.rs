//! Alertmanager silences Drainboard keeps for the nodes a plan has in maintenance, when their window asks for it
//! (`silence` in its spec): one per node, matching only alerts whose label equals the node's name exactly, so no
//! other node's alert is silenced. Each is Drainboard's own: made by `drainboard`, its comment naming the plan and
//! the node, which is how they are found again (by any replica, after a restart too). The plan's loop reconciles
//! them: made when a node goes into maintenance, extended while it is there, expired when it is done, and none left
//! once the plan ends.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::alerts::Alertmanager;

/// Who Drainboard's silences are made by.
pub const CREATED_BY: &str = "drainboard";

/// The comment that marks a silence as kept for `node` of `plan`.
pub fn comment(plan: &str, node: &str) -> String {
    format!("drainboard maintenance: node {node} of plan {plan}")
}

/// One of Drainboard's silences, as Alertmanager lists it.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Silence {
    pub id: String,
    pub comment: String,
    pub created_by: String,
    pub ends_at: Timestamp,
    pub status: State,
    #[serde(default)]
    pub matchers: Vec<Matcher>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct State {
    pub state: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Matcher {
    pub name: String,
    pub value: String,
    pub is_regex: bool,
    #[serde(default = "yes")]
    pub is_equal: bool,
}

fn yes() -> bool {
    true
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NewSilence<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    matchers: Vec<Matcher>,
    starts_at: Timestamp,
    ends_at: Timestamp,
    created_by: &'a str,
    comment: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Made {
    silence_id: String,
}

impl Silence {
    /// Whether it still silences (or will): not expired.
    pub fn live(&self) -> bool {
        self.status.state != "expired"
    }

    /// Whether it is one of `plan`'s.
    pub fn of_plan(&self, plan: &str) -> bool {
        self.created_by == CREATED_BY
            && self.comment.starts_with("drainboard maintenance: node ")
            && self.comment.ends_with(&format!(" of plan {plan}"))
    }
}

impl Alertmanager {
    /// Drainboard's live silences.
    pub async fn our_silences(&self) -> Result<Vec<Silence>, String> {
        let url = format!("{}/api/v2/silences", self.base());
        let body = super::alerts::get_bytes(self, &url).await?;
        let all: Vec<Silence> =
            serde_json::from_slice(&body).map_err(|e| format!("Alertmanager's silences do not read: {e}"))?;
        Ok(all.into_iter().filter(|s| s.created_by == CREATED_BY && s.live()).collect())
    }

    /// Makes (or, with `id`, extends) the silence of `node` of `plan`: alerts whose `label` is the node's name,
    /// until `until`.
    pub async fn keep_silence(
        &self,
        id: Option<&str>,
        plan: &str,
        node: &str,
        label: &str,
        until: Timestamp,
    ) -> Result<String, String> {
        let body = NewSilence {
            id,
            matchers: vec![Matcher { name: label.into(), value: node.into(), is_regex: false, is_equal: true }],
            starts_at: Timestamp::now(),
            ends_at: until,
            created_by: CREATED_BY,
            comment: comment(plan, node),
        };
        let url = format!("{}/api/v2/silences", self.base());
        let res = self
            .http()
            .post(&url)
            .json(&body)
            .send()
            .await
            .map_err(|e| format!("Alertmanager cannot be reached: {e}"))?;
        if !res.status().is_success() {
            return Err(format!("Alertmanager refused a silence: {}", res.status()));
        }
        let made: Made =
            res.json().await.map_err(|e| format!("Alertmanager's answer to a silence does not read: {e}"))?;
        Ok(made.silence_id)
    }

    /// Expires a silence.
    pub async fn expire_silence(&self, id: &str) -> Result<(), String> {
        if !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err("a silence id that is not one".into());
        }
        let url = format!("{}/api/v2/silence/{id}", self.base());
        let res = self.http().delete(&url).send().await.map_err(|e| format!("Alertmanager cannot be reached: {e}"))?;
        if res.status().is_success() {
            Ok(())
        } else {
            Err(format!("Alertmanager refused to expire a silence: {}", res.status()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_silence_is_found_again_by_its_maker_and_comment() {
        let s = Silence {
            id: "a".into(),
            comment: comment("maintenance-abc", "node-1"),
            created_by: CREATED_BY.into(),
            ends_at: Timestamp::UNIX_EPOCH,
            status: State { state: "active".into() },
            matchers: vec![],
        };
        assert!(s.of_plan("maintenance-abc"));
        assert!(!s.of_plan("maintenance-ab"), "another plan whose name is a prefix");
        assert!(!Silence { created_by: "someone".into(), ..s.clone() }.of_plan("maintenance-abc"));
        assert!(s.live());
        assert!(!Silence { status: State { state: "expired".into() }, ..s }.live());
    }
}
