//! Label selectors, as PodDisruptionBudgets carry them, matched against a pod's labels.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A requirement of a selector's `matchExpressions`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Requirement {
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    pub operator: String,
    pub values: Vec<String>,
}

/// A `metav1.LabelSelector`. `None` as a whole (no selector) matches nothing; an empty selector matches
/// everything.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LabelSelector {
    pub match_labels: BTreeMap<String, String>,
    pub match_expressions: Vec<Requirement>,
}

impl LabelSelector {
    /// Whether `labels` satisfy every requirement. An unknown operator matches nothing, as the API server treats
    /// a selector it cannot parse.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels.iter().all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|r| {
                let value = labels.get(&r.key);
                match r.operator.as_str() {
                    "In" => value.is_some_and(|v| r.values.contains(v)),
                    "NotIn" => value.is_none_or(|v| !r.values.contains(v)),
                    "Exists" => value.is_some(),
                    "DoesNotExist" => value.is_none(),
                    _ => false,
                }
            })
    }
}

#[cfg(feature = "k8s")]
impl From<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector> for LabelSelector {
    fn from(s: &k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector) -> Self {
        LabelSelector {
            match_labels: s.match_labels.clone().unwrap_or_default(),
            match_expressions: s
                .match_expressions
                .iter()
                .flatten()
                .map(|e| Requirement {
                    key: e.key.clone(),
                    operator: e.operator.clone(),
                    values: e.values.clone().unwrap_or_default(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn req(key: &str, operator: &str, values: &[&str]) -> Requirement {
        Requirement {
            key: key.into(),
            operator: operator.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn matching() {
        let pod = labels(&[("app", "web"), ("tier", "front")]);
        let sel = |ml: &[(&str, &str)], me: Vec<Requirement>| LabelSelector {
            match_labels: labels(ml),
            match_expressions: me,
        };
        assert!(sel(&[], vec![]).matches(&pod), "empty selects everything");
        assert!(sel(&[("app", "web")], vec![]).matches(&pod));
        assert!(!sel(&[("app", "db")], vec![]).matches(&pod));
        assert!(sel(&[], vec![req("tier", "In", &["front", "back"])]).matches(&pod));
        assert!(!sel(&[], vec![req("tier", "NotIn", &["front"])]).matches(&pod));
        assert!(sel(&[], vec![req("zone", "NotIn", &["a"])]).matches(&pod), "NotIn holds for a missing label");
        assert!(sel(&[], vec![req("app", "Exists", &[])]).matches(&pod));
        assert!(!sel(&[], vec![req("app", "DoesNotExist", &[])]).matches(&pod));
        assert!(!sel(&[], vec![req("app", "Gt", &["1"])]).matches(&pod));
        assert!(!sel(&[("app", "web")], vec![req("tier", "In", &["back"])]).matches(&pod), "all must hold");
    }
}
