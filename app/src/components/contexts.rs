use leptos::prelude::*;

use crate::{
    api::contexts,
    i18n::{t_string, use_i18n},
};

/// Local mode: every context of the operator's kubeconfig, as links to each one's board, the page's own marked.
/// Each context is its own cluster view at its own address, so a tab stays on its cluster and a link keeps it.
/// Nothing with one context, or in team mode.
#[component]
pub fn ContextSwitcher() -> impl IntoView {
    let i18n = use_i18n();
    let links = Resource::new(|| (), |_| contexts());
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match links.await {
                    Ok(links) if links.len() > 1 => {
                        view! {
                            <nav class="contexts" data-testid="contexts" aria-label=t_string!(i18n, app.contexts)>
                                {links
                                    .into_iter()
                                    .map(|link| {
                                        let title = t_string!(i18n, app.context_title, name = link.name.clone())
                                            .to_string();
                                        let name = link.name.clone();
                                        view! {
                                            // A full page load: the page's server functions and streams take
                                            // their context from the address they were loaded at.
                                            <a
                                                href=link.href
                                                rel="external"
                                                data-testid="context"
                                                data-context=name
                                                title=title
                                                aria-current=link.current.then_some("page")
                                                class:current=link.current
                                            >
                                                {link.name}
                                            </a>
                                        }
                                    })
                                    .collect_view()}
                            </nav>
                        }
                            .into_any()
                    }
                    _ => ().into_any(),
                }
            })}
        </Suspense>
    }
}
