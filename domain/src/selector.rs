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
            && self.match_expressions.iter().all(|r| r.matches(labels))
    }
}

impl Requirement {
    /// Whether `labels` satisfy this requirement: `In`, `NotIn`, `Exists` or `DoesNotExist`. Any other operator
    /// matches nothing here (node selectors add `Gt` and `Lt`: `capacity` reads those).
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let value = labels.get(&self.key);
        match self.operator.as_str() {
            "In" => value.is_some_and(|v| self.values.contains(v)),
            "NotIn" => value.is_none_or(|v| !self.values.contains(v)),
            "Exists" => value.is_some(),
            "DoesNotExist" => value.is_none(),
            _ => false,
        }
    }
}

/// Why a selector string could not be read, as data: the page words it in the reader's language, and
/// [`std::fmt::Display`] in English for the server's answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SelectorError {
    /// Its parentheses do not pair up (the whole text).
    Unbalanced { text: String },
    /// A key that is no label key, in this term.
    BadKey { key: String, term: String },
    /// A value that is no label value, in this term.
    BadValue { value: String, term: String },
    /// A set term (`key in (a,b)`) without its closing parenthesis.
    Unclosed { term: String },
    /// A parenthesis with neither `in` nor `notin` before it.
    NoOperator { term: String },
    /// A set term with no values.
    NoValues { term: String },
}

impl std::fmt::Display for SelectorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unbalanced { text } => write!(f, "unbalanced parentheses in \"{text}\""),
            Self::BadKey { key, term } => write!(f, "\"{key}\" is not a valid label key (in \"{term}\")"),
            Self::BadValue { value, term } => write!(f, "\"{value}\" is not a valid label value (in \"{term}\")"),
            Self::Unclosed { term } => write!(f, "\"{term}\" must end with \")\""),
            Self::NoOperator { term } => write!(f, "expected \"in\" or \"notin\" before \"(\" in \"{term}\""),
            Self::NoValues { term } => write!(f, "\"{term}\" lists no values"),
        }
    }
}

impl LabelSelector {
    /// Reads a selector as `kubectl --selector` writes it: comma-separated `key=value`, `key==value`,
    /// `key!=value`, `key`, `!key`, `key in (a,b)` and `key notin (a,b)`. An empty string selects everything.
    /// The API server stays the judge of what a drain lists; this lets a preview follow the same rule at once.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        let mut selector = LabelSelector::default();
        for term in split_terms(text)? {
            let term = term.trim();
            if term.is_empty() {
                continue;
            }
            let requirement = parse_term(term)?;
            selector.match_expressions.push(requirement);
        }
        Ok(selector)
    }
}

/// Splits on commas that are not inside parentheses.
fn split_terms(text: &str) -> Result<Vec<&str>, SelectorError> {
    let (mut terms, mut depth, mut start) = (Vec::new(), 0i32, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                terms.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if !(0..=1).contains(&depth) {
            return Err(SelectorError::Unbalanced { text: text.to_owned() });
        }
    }
    if depth != 0 {
        return Err(SelectorError::Unbalanced { text: text.to_owned() });
    }
    terms.push(&text[start..]);
    Ok(terms)
}

fn parse_term(term: &str) -> Result<Requirement, SelectorError> {
    let requirement = |key: &str, operator: &str, values: Vec<String>| -> Result<Requirement, SelectorError> {
        let key = key.trim();
        if !valid_key(key) {
            return Err(SelectorError::BadKey { key: key.to_owned(), term: term.to_owned() });
        }
        if let Some(bad) = values.iter().find(|v| !valid_value(v)) {
            return Err(SelectorError::BadValue { value: bad.clone(), term: term.to_owned() });
        }
        Ok(Requirement { key: key.to_string(), operator: operator.to_string(), values })
    };
    if let Some(key) = term.strip_prefix('!') {
        return requirement(key, "DoesNotExist", Vec::new());
    }
    if let Some((key, value)) = term.split_once("!=") {
        return requirement(key, "NotIn", vec![value.trim().to_string()]);
    }
    if let Some((key, value)) = term.split_once("==").or_else(|| term.split_once('=')) {
        return requirement(key, "In", vec![value.trim().to_string()]);
    }
    if let Some(open) = term.find('(') {
        let Some(inner) = term[open + 1..].strip_suffix(')') else {
            return Err(SelectorError::Unclosed { term: term.to_owned() });
        };
        let head = term[..open].trim();
        let (key, operator) = if let Some(key) = head.strip_suffix(" notin") {
            (key, "NotIn")
        } else if let Some(key) = head.strip_suffix(" in") {
            (key, "In")
        } else {
            return Err(SelectorError::NoOperator { term: term.to_owned() });
        };
        let values: Vec<String> = inner.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect();
        if values.is_empty() {
            return Err(SelectorError::NoValues { term: term.to_owned() });
        }
        return requirement(key, operator, values);
    }
    requirement(term, "Exists", Vec::new())
}

/// A label key: an optional DNS-subdomain prefix and `/`, then a name of up to 63 alphanumerics, `-`, `_`, `.`.
pub fn valid_key(key: &str) -> bool {
    let name = match key.rsplit_once('/') {
        Some((prefix, name)) => {
            if prefix.is_empty()
                || prefix.len() > 253
                || !prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
            {
                return false;
            }
            name
        }
        None => key,
    };
    !name.is_empty() && valid_value(name)
}

/// A label value: empty, or up to 63 alphanumerics, `-`, `_` and `.`, starting and ending alphanumeric.
pub fn valid_value(value: &str) -> bool {
    value.is_empty()
        || (value.len() <= 63
            && value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && value.starts_with(|c: char| c.is_ascii_alphanumeric())
            && value.ends_with(|c: char| c.is_ascii_alphanumeric()))
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

    #[test]
    fn parsing_selector_strings() {
        let pod = labels(&[("app", "web"), ("tier", "front")]);
        let cases: &[(&str, bool)] = &[
            ("", true),
            ("app=web", true),
            ("app==web", true),
            ("app=db", false),
            ("app!=db", true),
            ("app!=web", false),
            ("zone!=a", true),
            ("app", true),
            ("!app", false),
            ("!zone", true),
            ("tier in (front, back)", true),
            ("tier notin (front)", false),
            ("app=web,tier in (back)", false),
            ("app=web, tier=front", true),
        ];
        for (text, expected) in cases {
            let selector = LabelSelector::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(selector.matches(&pod), *expected, "{text}");
        }
        for bad in ["app in (a", "app=w eb", "app in ()", "app between (a)", "=web", "a/b/c=d"] {
            assert!(LabelSelector::parse(bad).is_err(), "{bad} should be refused");
        }
    }
}
