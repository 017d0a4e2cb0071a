use domain::board::Board;
use jiff::Timestamp;
use leptos::prelude::*;
use leptos_router::{
    NavigateOptions,
    hooks::{use_location, use_navigate, use_query_map},
};

use super::{
    Actions, Dialog, cordon::CordonDialog, drain::DrainDialog, progress::ProgressPanel, rollout::RolloutDialog,
};

/// The query parameter that names an open progress panel, so that a reload or a shared link re-attaches.
const DRAIN_PARAM: &str = "drain";

/// Renders the open dialog, if any, and keeps `?drain=ID` in the URL while a progress panel is open.
#[component]
pub fn DialogHost(server_now: Signal<Timestamp>, board: RwSignal<Option<Board>>) -> impl IntoView {
    let actions = expect_context::<Actions>();
    follow_url(actions);
    #[cfg(feature = "hydrate")]
    {
        use crate::live::dom;
        // Focus goes back to what opened the first dialog once the last one closes (one dialog may open another:
        // the drain dialog opens the progress panel, which may open the uncordon dialog).
        let opener = StoredValue::new(dom::active_element());
        Effect::new(move |was_open: Option<bool>| {
            let open = actions.dialog.with(Option::is_some);
            match (was_open.unwrap_or(false), open) {
                (false, true) => opener.set_value(dom::active_element()),
                (true, false) => dom::restore_focus(opener.get_value()),
                _ => {}
            }
            open
        });
    }
    move || {
        actions.dialog.get().map(|dialog| {
            view! { <Suspense fallback=|| ()>{Suspend::new(dialog_view(dialog, server_now, board))}</Suspense> }
        })
    }
}

/// The open dialog. Its code loads when a dialog first opens: in the release build (`end2end/scripts/build-site.sh`)
/// the dialogs, the drain planner and the capacity check are a part of the wasm of their own, so that the board's
/// first load does not carry them. Elsewhere this is an ordinary function.
#[lazy]
fn dialog_view(dialog: Dialog, server_now: Signal<Timestamp>, board: RwSignal<Option<Board>>) -> AnyView {
    match dialog {
        Dialog::Cordon(node) => view! { <CordonDialog node cordon=true /> }.into_any(),
        Dialog::Uncordon(node) => view! { <CordonDialog node cordon=false /> }.into_any(),
        Dialog::Drain(node) => view! { <DrainDialog node /> }.into_any(),
        Dialog::Resume(node, record) => view! { <DrainDialog node resume=*record /> }.into_any(),
        Dialog::Again(draft) => view! { <DrainDialog node=draft.node.clone() draft=*draft /> }.into_any(),
        Dialog::Progress(id) => view! { <ProgressPanel id server_now board /> }.into_any(),
        Dialog::DryRun(id, draft) => view! { <ProgressPanel id server_now board back=*draft /> }.into_any(),
        Dialog::Rollout(nodes, expect) => view! { <RolloutDialog nodes board expect /> }.into_any(),
    }
}

/// Opens the progress panel the URL names once the page is live, then mirrors the open panel into the URL,
/// replacing the history entry rather than adding one per dialog.
fn follow_url(actions: Actions) {
    let query = use_query_map();
    let location = use_location();
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(id) = query.with_untracked(|q| q.get(DRAIN_PARAM)).filter(|id| !id.is_empty()) {
            actions.open(Dialog::Progress(id));
        }
    });
    Effect::new(move |_| {
        let id = actions.dialog.with(|d| match d {
            Some(Dialog::Progress(id)) => Some(id.clone()),
            _ => None,
        });
        let mut params = query.get_untracked();
        if params.get_str(DRAIN_PARAM) == id.as_deref() {
            return;
        }
        match id {
            Some(id) => params.replace(DRAIN_PARAM, id),
            None => drop(params.remove(DRAIN_PARAM)),
        }
        let url = format!("{}{}", location.pathname.get_untracked(), params.to_query_string());
        navigate(&url, NavigateOptions { replace: true, scroll: false, ..Default::default() });
    });
}
