//! The rule every catalogue keeps against `en.json`: the same messages, each with the plural forms its own language
//! has, using the same parameters. A translation that misses a message would show English in its place; one that
//! drops `{{ node }}` would hide which node an action touches. `build.rs` runs it, so a catalogue that breaks it
//! does not build; `tests/keys.rs` tests the rule itself.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// Every plural form (CLDR category) a message key may end with, as leptos_i18n reads them.
const FORMS: [&str; 6] = ["zero", "one", "two", "few", "many", "other"];

/// The plural forms of cardinal numbers in each catalogue's language. Japanese has one ("3ノード" for any count), so
/// its catalogue writes a counted message once, as a plain message with `{{ count }}`.
pub fn plural_forms(locale: &str) -> Option<&'static [&'static str]> {
    match locale.split('-').next()? {
        "en" => Some(&["one", "other"]),
        "ja" => Some(&["other"]),
        _ => None,
    }
}

/// One message: the plural forms it is written in (none for a plain message), and the parameters it uses.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Message {
    pub forms: BTreeSet<String>,
    pub params: BTreeSet<String>,
}

/// Every message of a catalogue by its dotted key (`board.nodes`), a plural's forms folded into one message.
pub fn messages(catalogue: &Value) -> Result<BTreeMap<String, Message>, String> {
    let mut out = BTreeMap::new();
    collect(catalogue, "", &mut out)?;
    Ok(out)
}

fn collect(value: &Value, prefix: &str, out: &mut BTreeMap<String, Message>) -> Result<(), String> {
    let Value::Object(map) = value else { return Err(format!("{prefix}: expected an object")) };
    let join = |key: &str| if prefix.is_empty() { key.to_string() } else { format!("{prefix}.{key}") };
    // As leptos_i18n reads them: `nodes_one` and `nodes_other` are the forms of `nodes`; a lone `nodes_other`, or
    // forms without `_other`, are plain keys of those names.
    let forms_of = |base: &str| FORMS.iter().filter(|f| map.contains_key(&format!("{base}_{f}"))).count();
    for (key, value) in map {
        match value {
            Value::Object(_) => collect(value, &join(key), out)?,
            Value::String(text) => {
                let plural = key.rsplit_once('_').filter(|(base, form)| {
                    FORMS.contains(form) && map.contains_key(&format!("{base}_other")) && forms_of(base) > 1
                });
                let (name, form) = match plural {
                    Some((base, form)) => (join(base), Some(form.to_string())),
                    None => (join(key), None),
                };
                let message = out.entry(name).or_default();
                message.forms.extend(form);
                message.params.extend(params(text));
            }
            _ => return Err(format!("{}: a message must be a string", join(key))),
        }
    }
    Ok(())
}

/// The names of the `{{ name }}` parameters in a message (a formatter after a comma is not part of the name).
pub fn params(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else { break };
        let inside = &rest[start + 2..start + 2 + len];
        found.insert(inside.split(',').next().unwrap_or_default().trim().to_string());
        rest = &rest[start + 2 + len + 2..];
    }
    found
}

/// What is wrong with `locale`'s catalogue against `en`'s, one sentence each; empty when nothing is.
pub fn problems(en: &Value, locale: &str, catalogue: &Value) -> Vec<String> {
    let (reference, theirs) = match (messages(en), messages(catalogue)) {
        (Ok(r), Ok(t)) => (r, t),
        (Err(e), _) => return vec![format!("en.json: {e}")],
        (_, Err(e)) => return vec![format!("{locale}.json: {e}")],
    };
    let Some(forms) = plural_forms(locale) else {
        return vec![format!("{locale}: no plural forms are known for this language (add them to keys.rs)")];
    };
    let forms: BTreeSet<String> = forms.iter().map(|f| f.to_string()).collect();
    let mut out = Vec::new();
    for (key, message) in &reference {
        let Some(translated) = theirs.get(key) else {
            out.push(format!("{locale}.json lacks {key}"));
            continue;
        };
        // A language with the one form `other` writes a counted message plainly.
        let expected = if message.forms.is_empty() || forms.len() == 1 { BTreeSet::new() } else { forms.clone() };
        if translated.forms != expected {
            out.push(format!(
                "{locale}.json has {key} in the plural forms {:?}; its language needs {expected:?}",
                translated.forms
            ));
        }
        if translated.params != message.params {
            out.push(format!(
                "{locale}.json's {key} uses the parameters {:?}; en.json's uses {:?}",
                translated.params, message.params
            ));
        }
    }
    for key in theirs.keys().filter(|k| !reference.contains_key(*k)) {
        out.push(format!("{locale}.json has {key}, which en.json does not"));
    }
    out
}
