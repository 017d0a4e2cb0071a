//! Every catalogue has exactly the messages of `en.json`, each in the plural forms of its own language and with the
//! same parameters; and the check behind that (`keys.rs`, which the build also runs) catches each way to break it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A test that cannot set up fails, with the reason.

#[path = "../keys.rs"]
mod keys;

use std::fs;

use serde_json::{Value, json};

fn catalogue(locale: &str) -> Value {
    let path = format!("{}/locales/{locale}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn every_catalogue_has_the_messages_of_english() {
    let en = catalogue("en");
    assert_eq!(keys::problems(&en, "en", &en), Vec::<String>::new());
    let mut checked = 0;
    for entry in fs::read_dir(format!("{}/locales", env!("CARGO_MANIFEST_DIR"))).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(locale) = name.strip_suffix(".json").filter(|l| *l != "en") else { continue };
        assert_eq!(keys::problems(&en, locale, &catalogue(locale)), Vec::<String>::new(), "{locale}");
        checked += 1;
    }
    assert!(checked >= 1, "at least ja.json is checked");
}

#[test]
fn japanese_writes_each_counted_message_once() {
    let ja = keys::messages(&catalogue("ja")).unwrap();
    let nodes = &ja["board.nodes"];
    assert!(nodes.forms.is_empty(), "one form, written plainly: {nodes:?}");
    assert_eq!(nodes.params.iter().map(String::as_str).collect::<Vec<_>>(), ["count"]);
}

#[test]
fn each_way_to_break_a_translation_is_named() {
    let en = json!({
        "a": { "title": "Drain {{ node }}", "nodes_one": "{{ count }} node", "nodes_other": "{{ count }} nodes" },
        "b": { "plain": "Close" }
    });
    let good = json!({
        "a": { "title": "{{ node }}をドレーン", "nodes": "{{ count }}ノード" },
        "b": { "plain": "閉じる" }
    });
    assert_eq!(keys::problems(&en, "ja", &good), Vec::<String>::new());

    let broken = json!({
        "a": { "title": "ドレーン", "nodes_one": "{{ count }}ノード", "nodes_other": "{{ count }}ノード", "n_other": "x" },
        "b": { "extra": "余分" }
    });
    let found = keys::problems(&en, "ja", &broken);
    let expect = [
        "ja.json lacks b.plain",
        "ja.json has b.extra, which en.json does not",
        // leptos_i18n reads a lone `_other` as a key of that name.
        "ja.json has a.n_other, which en.json does not",
        "ja.json has a.nodes in the plural forms",
        "ja.json's a.title uses the parameters",
    ];
    for e in expect {
        assert!(found.iter().any(|f| f.starts_with(e)), "{e:?} in {found:#?}");
    }
    assert_eq!(found.len(), expect.len(), "{found:#?}");

    // English itself needs both of its forms; a language with no known forms is named, not passed.
    let half = json!({ "a": { "nodes_zero": "no nodes", "nodes_other": "{{ count }} nodes" } });
    assert_eq!(keys::problems(&half, "en", &half).len(), 1);
    assert_eq!(keys::problems(&en, "xx", &en).len(), 1);
}

#[test]
fn parameters_are_read_with_their_formatters_left_out() {
    let found = keys::params("{{ a }} and {{b}} and {{ when, datetime }} but not { c }");
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["a", "b", "when"]);
}

/// The Japanese catalogue speaks as the seed guide does: ドレーン (not ドレイン), and cordon, uncordon and eviction
/// kept in English, as the guide keeps them. A message written later in other words would read as another
/// operation to someone who knows the guide.
#[test]
fn japanese_keeps_the_seed_guides_words() {
    fn texts(value: &Value, key: String, out: &mut Vec<(String, String)>) {
        match value {
            Value::Object(map) => map.iter().for_each(|(k, v)| texts(v, format!("{key}.{k}"), out)),
            Value::String(text) => out.push((key, text.clone())),
            _ => {}
        }
    }
    let mut all = Vec::new();
    texts(&catalogue("ja"), String::new(), &mut all);
    let stray: Vec<String> = all
        .iter()
        .flat_map(|(key, text)| {
            ["ドレイン", "コードン", "退避", "立ち退"]
                .into_iter()
                .filter(|w| text.contains(w))
                .map(move |w| format!("{key}: {w}"))
        })
        .collect();
    assert_eq!(stray, Vec::<String>::new());
    assert!(all.iter().filter(|(_, t)| t.contains("ドレーン")).count() >= 10, "the guide's word is used throughout");
}
