//! Nodes that need a reboot. No Kubernetes field says so; tools that know write it on the node in their own way,
//! and the operator names which one to read (`--reboot-required`, as often as needed):
//! - `condition:<Type>`: a node condition of that type with status `True`, as node-problem-detector's custom
//!   plugin monitors write theirs while their check fails;
//! - `label:<key>` or `label:<key>=<value>`;
//! - `annotation:<key>` or `annotation:<key>=<value>`, for example kured's `weave.works/kured-reboot-in-progress`,
//!   which kured (with `--annotate-nodes`) sets once it finds a reboot required and removes after the reboot.
//!
//! The sign is a claim anyone who may write the node can make: it is shown, counted and offered as a plan's
//! nodes, which a person still reviews and confirms; it never starts anything by itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::condition::Condition;

/// How many signals a server reads.
pub const MAX_SIGNALS: usize = 8;

/// The longest annotation value a signal may ask for.
const MAX_VALUE_CHARS: usize = 256;

/// How much of what the node carries a card keeps, to show.
pub const MAX_SHOWN_CHARS: usize = 120;

/// One signal that a node needs a reboot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signal {
    Condition(String),
    Label { key: String, value: Option<String> },
    Annotation { key: String, value: Option<String> },
}

impl std::str::FromStr for Signal {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (kind, rest) = text.split_once(':').ok_or_else(|| {
            format!(
                "reboot signal {text:?}: write condition:<Type>, label:<key>[=<value>] or annotation:<key>[=<value>]"
            )
        })?;
        let (key, value) = match rest.split_once('=') {
            Some((key, value)) => (key, Some(value.to_owned())),
            None => (rest, None),
        };
        if !crate::selector::valid_key(key) {
            return Err(format!(
                "reboot signal {text:?}: {key:?} is not a valid key (an optional DNS prefix and /, then up to 63 letters, digits, -, _ or .)"
            ));
        }
        let key = key.to_owned();
        match kind {
            "condition" if value.is_some() => Err(format!(
                "reboot signal {text:?}: a condition counts when its status is True; write condition:{key}"
            )),
            "condition" => Ok(Signal::Condition(key)),
            "label" if value.as_deref().is_some_and(|v| !crate::selector::valid_value(v)) => {
                Err(format!("reboot signal {text:?}: the value is not a valid label value"))
            }
            "label" => Ok(Signal::Label { key, value }),
            "annotation"
                if value
                    .as_deref()
                    .is_some_and(|v| v.chars().count() > MAX_VALUE_CHARS || v.chars().any(char::is_control)) =>
            {
                Err(format!("reboot signal {text:?}: the value must be at most {MAX_VALUE_CHARS} printable characters"))
            }
            "annotation" => Ok(Signal::Annotation { key, value }),
            other => Err(format!("reboot signal {text:?}: {other:?} is not condition, label or annotation")),
        }
    }
}

impl std::fmt::Display for Signal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Signal::Condition(kind) => write!(f, "condition:{kind}"),
            Signal::Label { key, value: None } => write!(f, "label:{key}"),
            Signal::Label { key, value: Some(v) } => write!(f, "label:{key}={v}"),
            Signal::Annotation { key, value: None } => write!(f, "annotation:{key}"),
            Signal::Annotation { key, value: Some(v) } => write!(f, "annotation:{key}={v}"),
        }
    }
}

/// Checks a server's signals: at most [`MAX_SIGNALS`], none twice.
pub fn parse_all(texts: &[String]) -> Result<Vec<Signal>, String> {
    if texts.len() > MAX_SIGNALS {
        return Err(format!("at most {MAX_SIGNALS} reboot signals, not {}", texts.len()));
    }
    let mut signals: Vec<Signal> = Vec::with_capacity(texts.len());
    for text in texts {
        let signal: Signal = text.parse()?;
        if signals.contains(&signal) {
            return Err(format!("reboot signal {signal} is given twice"));
        }
        signals.push(signal);
    }
    Ok(signals)
}

/// A node's sign that it needs a reboot: the signal that matched, and what the node carries there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RebootSign {
    /// The signal as the server was given it (`annotation:weave.works/kured-reboot-in-progress`).
    pub signal: String,
    /// The label's or annotation's value, or the condition's reason (or message): at most
    /// [`MAX_SHOWN_CHARS`] characters, `None` when empty.
    pub value: Option<String>,
}

/// What a node carries that a signal reads.
pub struct Marks<'a> {
    pub labels: &'a BTreeMap<String, String>,
    pub annotations: &'a BTreeMap<String, String>,
    pub conditions: &'a [Condition],
}

/// The first of `signals` the node's `marks` match, if any.
pub fn sign(signals: &[Signal], marks: &Marks<'_>) -> Option<RebootSign> {
    signals.iter().find_map(|signal| {
        let carried: &str = match signal {
            Signal::Condition(kind) => marks
                .conditions
                .iter()
                .find(|c| c.type_ == *kind && c.status == "True")
                .map(|c| c.reason.as_deref().filter(|r| !r.is_empty()).or(c.message.as_deref()).unwrap_or_default()),
            Signal::Label { key, value } => carried(marks.labels, key, value.as_deref()),
            Signal::Annotation { key, value } => carried(marks.annotations, key, value.as_deref()),
        }?;
        let value: String = carried.chars().filter(|c| !c.is_control()).take(MAX_SHOWN_CHARS).collect();
        Some(RebootSign { signal: signal.to_string(), value: Some(value).filter(|v| !v.trim().is_empty()) })
    })
}

/// The value at `key` in `map`, when it is there and is `wanted` (if a value is wanted).
fn carried<'a>(map: &'a BTreeMap<String, String>, key: &str, wanted: Option<&str>) -> Option<&'a str> {
    map.get(key).map(String::as_str).filter(|found| wanted.is_none_or(|w| w == *found))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn condition(kind: &str, status: &str, reason: Option<&str>) -> Condition {
        Condition {
            type_: kind.into(),
            status: status.into(),
            reason: reason.map(Into::into),
            message: Some("a kernel update waits".into()),
            last_heartbeat: None,
            last_transition: None,
        }
    }

    #[test]
    fn signals_are_read_as_written_and_refused_with_the_fix() {
        let ok: [(&str, Signal); 5] = [
            ("condition:RebootRequired", Signal::Condition("RebootRequired".into())),
            (" label:example.com/reboot ", Signal::Label { key: "example.com/reboot".into(), value: None }),
            ("label:reboot=yes", Signal::Label { key: "reboot".into(), value: Some("yes".into()) }),
            (
                "annotation:weave.works/kured-reboot-in-progress",
                Signal::Annotation { key: "weave.works/kured-reboot-in-progress".into(), value: None },
            ),
            ("annotation:a/b=two words", Signal::Annotation { key: "a/b".into(), value: Some("two words".into()) }),
        ];
        for (text, signal) in ok {
            assert_eq!(text.parse::<Signal>().as_ref(), Ok(&signal), "{text}");
            assert_eq!(signal.to_string().parse::<Signal>(), Ok(signal.clone()), "{signal} reads back");
        }
        let bad: [(&str, &str); 7] = [
            ("RebootRequired", "write condition:<Type>"),
            ("condition:", "not a valid key"),
            ("condition:Reboot=True", "status is True"),
            ("label:reboot=not ok", "not a valid label value"),
            ("label:/x", "not a valid key"),
            ("taint:reboot", "is not condition, label or annotation"),
            ("annotation:a=\u{7}", "printable"),
        ];
        for (text, says) in bad {
            let err = text.parse::<Signal>().unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
        let long = format!("annotation:a={}", "x".repeat(MAX_VALUE_CHARS + 1));
        assert!(long.parse::<Signal>().is_err());
    }

    #[test]
    fn a_server_reads_a_bounded_set() {
        let many: Vec<String> = (0..=MAX_SIGNALS).map(|i| format!("label:l{i}")).collect();
        assert!(parse_all(&many).unwrap_err().contains("at most"));
        assert!(parse_all(&["label:a".into(), "label:a".into()]).unwrap_err().contains("twice"));
        assert_eq!(parse_all(&many[..2]).map(|s| s.len()), Ok(2));
        assert_eq!(parse_all(&[]), Ok(vec![]));
    }

    #[test]
    fn each_form_matches_only_what_it_names() {
        let signals = parse_all(&[
            "condition:RebootRequired".into(),
            "label:reboot=yes".into(),
            "annotation:weave.works/kured-reboot-in-progress".into(),
        ])
        .unwrap();
        let labels = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        // (labels, annotations, conditions, the sign expected)
        type Row = (
            BTreeMap<String, String>,
            BTreeMap<String, String>,
            Vec<Condition>,
            Option<(&'static str, Option<&'static str>)>,
        );
        let table: Vec<Row> = vec![
            (labels(&[]), labels(&[]), vec![], None),
            (
                labels(&[]),
                labels(&[]),
                vec![condition("RebootRequired", "True", Some("KernelUpdated"))],
                Some(("condition:RebootRequired", Some("KernelUpdated"))),
            ),
            // Its message when it gives no reason.
            (
                labels(&[]),
                labels(&[]),
                vec![condition("RebootRequired", "True", None)],
                Some(("condition:RebootRequired", Some("a kernel update waits"))),
            ),
            (labels(&[]), labels(&[]), vec![condition("RebootRequired", "False", Some("Fine"))], None),
            (labels(&[]), labels(&[]), vec![condition("Ready", "True", None)], None),
            (labels(&[("reboot", "yes")]), labels(&[]), vec![], Some(("label:reboot=yes", Some("yes")))),
            (labels(&[("reboot", "no")]), labels(&[]), vec![], None),
            // A label of the annotation's key is not the annotation.
            (labels(&[("weave.works/kured-reboot-in-progress", "x")]), labels(&[]), vec![], None),
            (
                labels(&[]),
                labels(&[("weave.works/kured-reboot-in-progress", "2026-12-07T01:00:00Z")]),
                vec![],
                Some(("annotation:weave.works/kured-reboot-in-progress", Some("2026-12-07T01:00:00Z"))),
            ),
            (
                labels(&[]),
                labels(&[("weave.works/kured-reboot-in-progress", "")]),
                vec![],
                Some(("annotation:weave.works/kured-reboot-in-progress", None)),
            ),
            // The first signal that matches names the sign.
            (
                labels(&[("reboot", "yes")]),
                labels(&[]),
                vec![condition("RebootRequired", "True", Some("K"))],
                Some(("condition:RebootRequired", Some("K"))),
            ),
        ];
        for (i, (labels, annotations, conditions, expected)) in table.into_iter().enumerate() {
            let found = sign(&signals, &Marks { labels: &labels, annotations: &annotations, conditions: &conditions });
            let found = found.as_ref().map(|s| (s.signal.as_str(), s.value.as_deref()));
            assert_eq!(found, expected, "row {i}");
        }
        assert_eq!(
            sign(&[], &Marks { labels: &labels(&[("reboot", "yes")]), annotations: &BTreeMap::new(), conditions: &[] }),
            None
        );
    }

    #[test]
    fn what_a_node_carries_is_bounded_and_printable() {
        let signals = parse_all(&["annotation:note".into()]).unwrap();
        let annotations: BTreeMap<String, String> =
            [("note".to_string(), format!("a\u{1b}[31m{}", "y".repeat(500)))].into();
        let sign =
            sign(&signals, &Marks { labels: &BTreeMap::new(), annotations: &annotations, conditions: &[] }).unwrap();
        let value = sign.value.unwrap();
        assert_eq!(value.chars().count(), MAX_SHOWN_CHARS);
        assert!(!value.contains('\u{1b}'));
    }
}
