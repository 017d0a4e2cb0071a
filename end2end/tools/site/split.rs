//! The split of the wasm into the part every page loads and the parts loaded on first use (`#[lazy]`: the dialogs).
//!
//! Done as cargo-leptos does it, so that the runtime Leptos ships finds what it expects: the chunks and their
//! loader are written into the site's package folder, the main module (for wasm-bindgen) beside the input as
//! `<stem>_split.wasm`, and the chunks each split point needs into `__wasm_split_manifest.json`, for prefetching.

use std::path::{Path, PathBuf};

/// The module path the wasm imports its chunk loader from. Leptos's split points import this exact name, and the
/// splitter swaps it for the real loader.
const LINK_NAME: &str = "./__wasm_split.______________________.js";

/// The manifest the page reads to prefetch a split point's chunks.
pub const MANIFEST: &str = "__wasm_split_manifest.json";

/// The main module's path for an input: `<dir>/<stem>_split.wasm`.
pub fn main_out_path(input: &Path) -> Result<PathBuf, String> {
    let stem = input
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| format!("{} has no file name to derive the split module's from", input.display()))?;
    Ok(input.with_file_name(format!("{stem}_split.wasm")))
}

/// Splits `input`; returns the chunk files written into `out_dir`.
pub fn split(input: &Path, out_dir: &Path, name: &str) -> Result<Vec<PathBuf>, String> {
    let wasm = std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let main_out = main_out_path(input)?;
    // Chunks are loaded relative to the main JS file that wasm-bindgen writes into the same folder.
    let main_module = format!("./{name}.js");
    std::fs::create_dir_all(out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let split = wasm_split_cli_support::transform({
        let mut opts = wasm_split_cli_support::Options::new(&wasm);
        opts.output_dir = out_dir;
        opts.main_out_path = &main_out;
        opts.main_module = &main_module;
        opts.link_name = LINK_NAME;
        opts
    })
    .map_err(|e| format!("cannot split {}: {e:#}", input.display()))?;
    let manifest = serde_json::to_string_pretty(&split.prefetch_map)
        .map_err(|e| format!("cannot write the split manifest: {e}"))?;
    let manifest_path = out_dir.join(MANIFEST);
    std::fs::write(&manifest_path, manifest).map_err(|e| format!("cannot write {}: {e}", manifest_path.display()))?;
    Ok(split.split_modules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_module_goes_beside_the_input() {
        let path = main_out_path(Path::new("target/front/wasm32-unknown-unknown/debug/frontend.wasm")).unwrap();
        assert_eq!(path, Path::new("target/front/wasm32-unknown-unknown/debug/frontend_split.wasm"));
    }

    #[test]
    fn an_input_that_is_not_wasm_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("frontend.wasm");
        std::fs::write(&input, b"not a wasm module").unwrap();
        let err = split(&input, &dir.path().join("pkg"), "drainboard").unwrap_err();
        assert!(err.contains("cannot split") && err.contains("frontend.wasm"), "{err}");
        assert!(!dir.path().join("pkg").join(MANIFEST).exists(), "no manifest for a failed split");
    }

    #[test]
    fn a_missing_input_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = split(&dir.path().join("absent.wasm"), dir.path(), "drainboard").unwrap_err();
        assert!(err.starts_with("cannot read") && err.contains("absent.wasm"), "{err}");
    }
}
