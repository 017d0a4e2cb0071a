use leptos::prelude::*;

use crate::{
    i18n::{t_string, use_i18n},
    live::Connection,
};

/// Whether the page is live, so that nobody trusts a frozen board.
#[component]
pub fn ConnectionBadge(connection: RwSignal<Connection>) -> impl IntoView {
    let i18n = use_i18n();
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
                Connection::Live => t_string!(i18n, board.live),
                Connection::Reconnecting => t_string!(i18n, board.reconnecting),
                Connection::Connecting => t_string!(i18n, board.connecting),
            }}
        </span>
    }
}
