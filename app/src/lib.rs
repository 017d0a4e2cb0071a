//! Drainboard's application: the pages and the thin server functions they call. With `ssr`, those functions act
//! through the engine crate, the only code that talks to Kubernetes.

pub mod api;
mod components;
pub mod context;
mod dialogs;
pub mod error;
pub mod history;
mod i18n;
mod live;
mod pages;
pub mod readiness;
pub mod rollouts;
#[cfg(feature = "ssr")]
pub mod security;
pub mod session;
mod state;
pub mod windows;

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::{
    ParamSegment, StaticSegment,
    components::{Route, Router, Routes},
};

pub use error::AppError;

/// The HTML document around the app, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    security::provide_policy();
    view! {
        <!DOCTYPE html>
        // The catalogue's provider sets `lang` (and `dir`) to the locale it picked; the browser reads it back.
        <html>
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light dark" />
                <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
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

/// The root component, shared by the server render and the browser's hydration. The catalogue's locale is chosen
/// here: on the server from the language a person chose (a cookie) or else the request's Accept-Language, and in
/// the browser from `<html lang>` (see `i18n::language`).
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        <i18n::I18nContextProvider cookie_name=i18n::COOKIE cookie_options=i18n::cookie_options()>
            <Frame />
        </i18n::I18nContextProvider>
    }
}

/// The pages, by address: [`Frame`] shows them, and the server lists their routes from [`RouteList`].
#[component]
fn PageRoutes() -> impl IntoView {
    view! {
        <Routes fallback=NotFound>
            <Route path=StaticSegment("") view=pages::board::BoardPage />
            <Route path=StaticSegment("wall") view=pages::wall::WallPage />
            <Route path=StaticSegment("sign-in") view=pages::sign_in::SignInPage />
            <Route path=(StaticSegment("nodes"), ParamSegment("name")) view=pages::node::NodePage />
            // The same pages for another kubeconfig context (local mode; see `context`).
            <Route path=(StaticSegment("ctx"), ParamSegment("context")) view=pages::board::BoardPage />
            <Route path=(StaticSegment("ctx"), ParamSegment("context"), StaticSegment("wall")) view=pages::wall::WallPage />
            <Route
                path=(StaticSegment("ctx"), ParamSegment("context"), StaticSegment("nodes"), ParamSegment("name"))
                view=pages::node::NodePage
            />
        </Routes>
    }
}

#[component]
fn NotFound() -> impl IntoView {
    let i18n = i18n::use_i18n();
    view! { <p data-testid="not-found">{i18n::t_string!(i18n, app.page_not_found)}</p> }
}

/// The routes alone, for the server to list at start (`leptos_axum::generate_route_list`). Listing renders the
/// component once, with no request: the whole [`App`] would start the catalogue's provider, whose effect may run
/// after that render is gone and panic on its disposed locale. The pages themselves are not rendered to list them.
#[component]
pub fn RouteList() -> impl IntoView {
    view! {
        <Router>
            <PageRoutes />
        </Router>
    }
}

/// The title bar's controls: the context, who is signed in, the language. None on the wall screen, which has
/// nothing to click (a language is chosen before it is put on the wall, and kept in its cookie).
#[component]
fn TopbarControls() -> impl IntoView {
    let location = leptos_router::hooks::use_location();
    let wall = move || location.pathname.with(|p| p == "/wall" || (p.starts_with("/ctx/") && p.ends_with("/wall")));
    move || {
        (!wall()).then(|| {
            view! {
                <components::ContextSwitcher />
                <components::Who />
                <components::LanguageSwitcher />
            }
        })
    }
}

/// The title bar and the routes.
#[component]
fn Frame() -> impl IntoView {
    let i18n = i18n::use_i18n();
    view! {
        <Stylesheet id="drainboard" href="/pkg/drainboard.css" />
        <Title text=i18n::t_string!(i18n, app.name).to_string() />
        <Router>
            <header class="topbar">
                <h1>{i18n::t_string!(i18n, app.name)}</h1>
                <TopbarControls />
            </header>
            <main>
                <PageRoutes />
            </main>
        </Router>
    }
}
