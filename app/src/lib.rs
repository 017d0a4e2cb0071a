//! Drainboard's application: the pages and the thin server functions they call. With `ssr`, those functions act
//! through the engine crate, the only code that talks to Kubernetes.

pub mod api;
mod components;
mod dialogs;
pub mod error;
mod live;
mod pages;
pub mod strings;

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::{
    ParamSegment, StaticSegment,
    components::{Route, Router, Routes},
};

pub use error::AppError;

/// The HTML document around the app, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light dark" />
                <AutoReload options=options.clone() />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// The root component, shared by the server render and the browser's hydration.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let s = strings::current();
    view! {
        <Stylesheet id="drainboard" href="/pkg/drainboard.css" />
        <Title text=s.app_name />
        <Router>
            <header class="topbar">
                <h1>{s.app_name}</h1>
            </header>
            <main>
                <Routes fallback=move || view! { <p data-testid="not-found">{s.page_not_found}</p> }>
                    <Route path=StaticSegment("") view=pages::board::BoardPage />
                    <Route path=StaticSegment("wall") view=pages::wall::WallPage />
                    <Route path=(StaticSegment("nodes"), ParamSegment("name")) view=pages::node::NodePage />
                </Routes>
            </main>
        </Router>
    }
}
