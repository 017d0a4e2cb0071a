//! Generates the `i18n` module from the message catalogue in `locales/`: `en.json`, the default, and one file per
//! other language (`ja.json`). Each must have exactly the messages of `en.json`, in the plural forms of its own
//! language and with the same parameters (`keys.rs`); the build stops, naming each difference, when one does not.
//!
//! Debug builds also get `en-XA`, a pseudo-locale made from `en` with every message wrapped in `⟦…⟧` (parameters
//! left intact), so that a browser test can find any text that bypasses the catalogue. Release builds do not carry
//! it.

use std::{error::Error, fs, path::PathBuf};

use leptos_i18n_build::{Config, ParseOptions, TranslationsInfos};

mod keys;

const DEFAULT: &str = "en";
const PSEUDO: &str = "en-XA";

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=locales");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    // "debug" for the dev profile; "release" for release and every profile that inherits from it.
    let pseudo = std::env::var("PROFILE").is_ok_and(|p| p == "debug");

    // The parser reads one directory, so the catalogue and the pseudo-locale are written side by side.
    let locales = out.join("locales");
    fs::create_dir_all(&locales)?;
    let source = fs::read_to_string(format!("locales/{DEFAULT}.json"))?;
    fs::write(locales.join(format!("{DEFAULT}.json")), &source)?;
    let english: serde_json::Value = serde_json::from_str(&source)?;
    let mut config = Config::new(DEFAULT)?;
    let mut problems = keys::problems(&english, DEFAULT, &english);
    for locale in translations()? {
        let text = fs::read_to_string(format!("locales/{locale}.json"))?;
        problems.extend(keys::problems(&english, &locale, &serde_json::from_str(&text)?));
        fs::write(locales.join(format!("{locale}.json")), &text)?;
        config = config.add_locale(&locale)?;
    }
    if !problems.is_empty() {
        for problem in &problems {
            println!("cargo::error={problem}");
        }
        return Err("the catalogues differ from en.json: see the errors above".into());
    }
    let pseudo_file = locales.join(format!("{PSEUDO}.json"));
    if pseudo {
        let mut catalogue: serde_json::Value = serde_json::from_str(&source)?;
        wrap(&mut catalogue);
        fs::write(&pseudo_file, serde_json::to_string_pretty(&catalogue)?)?;
        config = config.add_locale(PSEUDO)?;
    } else if pseudo_file.exists() {
        fs::remove_file(&pseudo_file)?;
    }
    let config = config.locales_path(locales).parse_options(ParseOptions::default().interpolate_display(true));

    let translations = TranslationsInfos::parse(config)?;
    translations.emit_diagnostics();
    translations.generate_i18n_module(out.join("i18n"))?;
    Ok(())
}

/// The languages of `locales/` besides the default, by file name, in order.
fn translations() -> Result<Vec<String>, Box<dyn Error>> {
    let mut found = Vec::new();
    for entry in fs::read_dir("locales")? {
        let name = entry?.file_name().into_string().map_err(|n| format!("locales/{n:?}: not UTF-8"))?;
        if let Some(locale) = name.strip_suffix(".json").filter(|l| *l != DEFAULT) {
            found.push(locale.to_string());
        }
    }
    found.sort();
    Ok(found)
}

/// Wraps every message (every string value) in `⟦…⟧`; keys, and the `{{ name }}` parameters inside, stay as they
/// are.
fn wrap(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => *text = format!("⟦{text}⟧"),
        serde_json::Value::Object(map) => map.values_mut().for_each(wrap),
        serde_json::Value::Array(items) => items.iter_mut().for_each(wrap),
        _ => {}
    }
}
