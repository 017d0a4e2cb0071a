use leptos::prelude::*;

use crate::{
    i18n::{t_string, use_i18n},
    live::{Connection, LiveBoard},
};

/// Whether the page is live, so that nobody trusts a frozen board: the stream's state, and whether the server still
/// reaches the API server. A stream can be live while the cards behind it have stopped.
#[component]
pub fn ConnectionBadge(live: LiveBoard) -> impl IntoView {
    let i18n = use_i18n();
    let (connection, api_lost) = (live.connection, live.api_lost);
    let lost = move || connection.get() == Connection::Live && api_lost.get().is_some();
    view! {
        <span
            class=move || if connection.get() == Connection::Live && !lost() { "connection live" } else { "connection down" }
            role="status"
            data-testid="connection-state"
            data-state=move || if lost() { "api-lost" } else { connection.get().as_str() }
        >
            {move || match connection.get() {
                Connection::Live if lost() => t_string!(i18n, board.api_lost),
                Connection::Live => t_string!(i18n, board.live),
                Connection::Reconnecting => t_string!(i18n, board.reconnecting),
                Connection::Connecting => t_string!(i18n, board.connecting),
            }}
        </span>
        {move || api_lost.get().filter(|_| lost()).map(|since| {
            let time = crate::i18n::clock_text(since);
            view! {
                <p class="api-lost" role="alert" data-testid="api-lost" data-since=since.to_string()>
                    {t_string!(i18n, board.api_lost_since, time)}
                </p>
            }
        })}
    }
}
