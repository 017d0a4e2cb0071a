//! The wall screen: large type, problems first, no controls; for a shared display.

use leptos::prelude::*;

use super::{
    PAGE_SIZE,
    board::{Cards, Filters},
};
use crate::{
    api::board_snapshot,
    components::ConnectionBadge,
    i18n::{t_string, use_i18n},
    live::LiveBoard,
};

#[component]
pub fn WallPage() -> impl IntoView {
    let i18n = use_i18n();
    let snapshot = Resource::new(|| (), |_| board_snapshot(Some(PAGE_SIZE)));
    let live = LiveBoard::new();
    view! {
        <section class="wall" data-testid="wall" data-hydrated=move || live.hydrated.get().to_string()>
            <ConnectionBadge live />
            <Suspense fallback=move || view! { <p>{t_string!(i18n, app.loading_nodes)}</p> }>
                {move || Suspend::new(async move {
                    snapshot.await.ok().map(|snap| {
                        let current = live.current(&snap);
                        view! { <Cards current now=live.now drains=live.drains filters=Filters::new() /> }
                    })
                })}
            </Suspense>
        </section>
    }
}
