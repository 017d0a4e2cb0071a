// The page's view types nest deeply; hydration code needs more room than the default.
#![recursion_limit = "256"]
//! The browser entry point. cargo-leptos builds this crate to wasm; the page's hydration script calls `hydrate`.

/// Attaches the app to the server-rendered page.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
