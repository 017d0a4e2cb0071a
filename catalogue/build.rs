//! Generates the `i18n` module from the message catalogue in `locales/`.
//!
//! Debug builds also get `en-XA`, a pseudo-locale made from `en` with every message wrapped in `⟦…⟧` (parameters
//! left intact), so that a browser test can find any text that bypasses the catalogue. Release builds do not carry
//! it.

use std::{error::Error, fs, path::PathBuf};

use leptos_i18n_build::{Config, ParseOptions, TranslationsInfos};

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
    let mut config = Config::new(DEFAULT)?;
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
