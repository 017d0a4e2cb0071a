//! Alertmanager's label matchers, as the alert gates of a window write them: the server matches them against the
//! alerts Alertmanager says fire.

use std::collections::BTreeMap;

/// The longest matcher read, as long as any other text of a window.
const MAX_TEXT: usize = 500;

/// An Alertmanager matcher: `name=value`, `name!=value`, `name=~regex` or `name!~regex`, a regex anchored at
/// both ends as Alertmanager anchors them.
#[derive(Clone, Debug)]
pub struct Matcher {
    pub name: String,
    pub op: MatchOp,
    pub value: String,
    regex: Option<regex::Regex>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchOp {
    Eq,
    Ne,
    Re,
    NotRe,
}

impl Matcher {
    pub fn parse(text: &str) -> Result<Matcher, String> {
        let wrong = |why: &str| {
            let shown: String = text.chars().take(60).collect();
            format!(
                "alert matcher \"{shown}\" {why}; write name=\"value\", name!=\"value\", name=~\"regex\" or name!~\"regex\""
            )
        };
        if text.len() > MAX_TEXT {
            return Err(wrong("is too long"));
        }
        let (at, op, width) = ["=~", "!~", "!=", "="]
            .iter()
            .filter_map(|op| text.find(op).map(|at| (at, *op)))
            .min_by_key(|&(at, op)| (at, std::cmp::Reverse(op.len())))
            .map(|(at, op)| (at, op, op.len()))
            .ok_or_else(|| wrong("has no operator"))?;
        let name = text[..at].trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(wrong("has no label name"));
        }
        let raw = text[at + width..].trim();
        let value = raw.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(raw).to_owned();
        let op = match op {
            "=" => MatchOp::Eq,
            "!=" => MatchOp::Ne,
            "=~" => MatchOp::Re,
            _ => MatchOp::NotRe,
        };
        let regex = match op {
            MatchOp::Re | MatchOp::NotRe => Some(
                regex::RegexBuilder::new(&format!("^(?:{value})$"))
                    .size_limit(1 << 16)
                    .build()
                    .map_err(|_| wrong("is not a valid regex"))?,
            ),
            _ => None,
        };
        Ok(Matcher { name: name.into(), op, value, regex })
    }

    /// Whether `labels` satisfy it (a missing label reads as empty, as in Alertmanager).
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let value = labels.get(&self.name).map(String::as_str).unwrap_or("");
        match (self.op, &self.regex) {
            (MatchOp::Eq, _) => value == self.value,
            (MatchOp::Ne, _) => value != self.value,
            (MatchOp::Re, Some(re)) => re.is_match(value),
            (MatchOp::NotRe, Some(re)) => !re.is_match(value),
            _ => false,
        }
    }
}
