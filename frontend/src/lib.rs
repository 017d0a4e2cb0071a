// The page's view types nest deeply; hydration code needs more room than the default.
#![recursion_limit = "256"]
//! The browser entry point. end2end/scripts/build-site.sh builds this crate to wasm; the page's hydration script calls `hydrate`.

/// Attaches the app to the server-rendered page.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // A page of another kubeconfig context (`/ctx/NAME/…`) calls its server functions under the same prefix, so
    // that they act on that context's cluster. Set once per page load, before anything can call one.
    let prefix = app::context::browser_prefix();
    if !prefix.is_empty() {
        leptos::server_fn::client::set_server_url(prefix.leak());
    }
    leptos::mount::hydrate_body(app::App);
}
