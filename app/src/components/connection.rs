use leptos::prelude::*;

use crate::{live::Connection, strings};

/// Whether the page is live, so that nobody trusts a frozen board.
#[component]
pub fn ConnectionBadge(connection: RwSignal<Connection>) -> impl IntoView {
    let b = strings::board();
    view! {
        <span
            class=move || match connection.get() {
                Connection::Live => "connection live",
                _ => "connection down",
            }
            role="status"
            data-testid="connection-state"
            data-state=move || format!("{:?}", connection.get()).to_lowercase()
        >
            {move || match connection.get() {
                Connection::Live => b.live,
                Connection::Reconnecting => b.reconnecting,
                Connection::Connecting => b.connecting,
            }}
        </span>
    }
}
