//! The seal on a plan's pin (`PlanStatus::pinned`): an HMAC-SHA256 over the plan's uid and what was confirmed,
//! keyed with 32 random bytes kept in the Secret [`SECRET`] of the servers' namespace, made by the first server
//! that needs it. Whoever may patch a plan's status could otherwise write a pin of their own and have the runner
//! act on it with another person's rights; without the key they cannot make one that checks out, and one that does
//! not is a [`domain::pin::PinRead::Forged`].
//!
//! Every replica reads the same Secret, so a pin one server wrote checks out on any other that takes the plan over.

use std::collections::BTreeMap;

use k8s_openapi::{ByteString, api::core::v1::Secret};
use kube::{
    Api, Client,
    api::{ObjectMeta, PostParams},
};
use ring::hmac;
use tokio::sync::OnceCell;

use super::resource::{PinnedSpec, PlanPin};

/// The Secret that holds the key.
pub const SECRET: &str = "drainboard-plan-seal";
const FIELD: &str = "key";

/// The servers' key, read (or made) once.
pub(crate) struct Seal {
    api: Api<Secret>,
    key: OnceCell<hmac::Key>,
}

/// What the seal covers, in one unambiguous text: each part on a line of its own, the spec as JSON (which escapes
/// any line break in it).
fn message(uid: &str, generation: i64, by: &str, at: &jiff::Timestamp, spec: &PinnedSpec) -> Vec<u8> {
    let spec = serde_json::to_string(spec).unwrap_or_default();
    let by = serde_json::to_string(by).unwrap_or_default();
    format!("drainboard plan pin v1\n{uid}\n{generation}\n{by}\n{}\n{spec}", at.as_second()).into_bytes()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || text.len() > 128 {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

impl Seal {
    /// The key kept in `namespace`, read and written with `client` (the server's own).
    pub(crate) fn new(client: Client, namespace: &str) -> Self {
        Seal { api: Api::namespaced(client, namespace), key: OnceCell::new() }
    }

    /// A seal with `key`, for tests.
    #[cfg(test)]
    fn with_key(client: Client, key: &[u8]) -> Self {
        let cell = OnceCell::new();
        let _ = cell.set(hmac::Key::new(hmac::HMAC_SHA256, key));
        Seal { api: Api::namespaced(client, "default"), key: cell }
    }

    async fn key(&self) -> Result<&hmac::Key, String> {
        self.key.get_or_try_init(|| self.read_or_make()).await
    }

    async fn read_or_make(&self) -> Result<hmac::Key, String> {
        let failed = |err: kube::Error| {
            format!(
                "the plans' seal key (Secret {SECRET}) could not be read or made: {}",
                crate::kube_error::api_message(&err)
            )
        };
        for _ in 0..3 {
            if let Some(secret) = self.api.get_opt(SECRET).await.map_err(failed)? {
                let bytes = secret.data.as_ref().and_then(|d| d.get(FIELD)).map(|b| b.0.clone()).unwrap_or_default();
                if bytes.len() < 32 {
                    return Err(format!("the plans' seal key (Secret {SECRET}) is shorter than 32 bytes"));
                }
                return Ok(hmac::Key::new(hmac::HMAC_SHA256, &bytes));
            }
            let mut bytes = vec![0u8; 32];
            getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for the plans' seal key: {e}"))?;
            let secret = Secret {
                metadata: ObjectMeta {
                    name: Some(SECRET.into()),
                    labels: Some([("app.kubernetes.io/name".to_owned(), "drainboard".to_owned())].into()),
                    ..Default::default()
                },
                data: Some(BTreeMap::from([(FIELD.to_owned(), ByteString(bytes.clone()))])),
                ..Default::default()
            };
            match self.api.create(&PostParams::default(), &secret).await {
                Ok(_) => return Ok(hmac::Key::new(hmac::HMAC_SHA256, &bytes)),
                // Another server made it first: read theirs.
                Err(err) if crate::kube_error::conflict(&err) => continue,
                Err(err) => return Err(failed(err)),
            }
        }
        Err(format!("the plans' seal key (Secret {SECRET}) kept changing"))
    }

    /// A pin of `spec` at `generation` by `by`, sealed for the plan `uid`.
    pub(crate) async fn pin(&self, uid: &str, generation: i64, by: &str, spec: PinnedSpec) -> Result<PlanPin, String> {
        let key = self.key().await?;
        // Whole seconds: the time is sealed as written, and read back, in the same form.
        let at =
            jiff::Timestamp::from_second(jiff::Timestamp::now().as_second()).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let seal = hex(hmac::sign(key, &message(uid, generation, by, &at, &spec)).as_ref());
        Ok(PlanPin { generation, by: by.to_owned(), at, spec, seal })
    }

    /// Whether `pin` was sealed by a server, for the plan `uid`. `Err` when the key cannot be had.
    pub(crate) async fn genuine(&self, uid: &str, pin: &PlanPin) -> Result<bool, String> {
        let key = self.key().await?;
        let Some(mac) = unhex(&pin.seal) else { return Ok(false) };
        Ok(hmac::verify(key, &message(uid, pin.generation, &pin.by, &pin.at, &pin.spec), &mac).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client() -> Client {
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        Client::try_from(config).unwrap()
    }

    #[tokio::test]
    async fn a_pin_checks_out_only_as_sealed_for_its_plan() {
        let seal = Seal::with_key(client(), &[7u8; 32]);
        let spec = PinnedSpec { nodes: vec!["n1".into()], max_parallel: 1, ..Default::default() };
        let pin = seal.pin("uid-1", 2, "alice", spec.clone()).await.unwrap();
        assert!(seal.genuine("uid-1", &pin).await.unwrap());
        // Read back as the API server gives it.
        let read: PlanPin = serde_json::from_value(serde_json::to_value(&pin).unwrap()).unwrap();
        assert!(seal.genuine("uid-1", &read).await.unwrap(), "a pin survives its round trip");
        assert!(!seal.genuine("uid-2", &pin).await.unwrap(), "another plan's pin");
        let mut forged = pin.clone();
        forged.spec.drain.disable_eviction = true;
        assert!(!seal.genuine("uid-1", &forged).await.unwrap(), "a changed spec");
        let mut forged = pin.clone();
        forged.generation = 3;
        assert!(!seal.genuine("uid-1", &forged).await.unwrap(), "a changed generation");
        let mut forged = pin.clone();
        forged.by = "mallory".into();
        assert!(!seal.genuine("uid-1", &forged).await.unwrap(), "another person");
        let mut forged = pin.clone();
        forged.seal = "zz".into();
        assert!(!seal.genuine("uid-1", &forged).await.unwrap(), "a seal that is not hex");
        let other = Seal::with_key(client(), &[8u8; 32]);
        let made_elsewhere = other.pin("uid-1", 2, "alice", spec).await.unwrap();
        assert!(!seal.genuine("uid-1", &made_elsewhere).await.unwrap(), "a pin sealed with another key");
    }
}
