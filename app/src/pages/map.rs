//! The board's map view: the label to group the nodes by, and the fleet map. Its code loads when first shown.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::{
    components::FleetMap,
    i18n::{t_string, use_i18n},
    live::{Current, DrainsByNode},
    state::Filters,
};

/// The map view, its code loaded when first shown (a part of the wasm of its own with `--split`, as the dialogs
/// are): the label to group by and the map.
#[lazy]
pub(super) fn map_view(
    current: Current,
    drains: RwSignal<DrainsByNode>,
    group: Signal<String>,
    filters: Filters,
) -> AnyView {
    view! {
        <GroupBy current group />
        <FleetMap current drains group filters=Some(filters) links=true />
    }
    .into_any()
}

/// The label the map groups by, with the keys the nodes carry to pick from once the field has focus. A change goes
/// into the address.
#[component]
fn GroupBy(current: Current, group: Signal<String>) -> impl IntoView {
    let i18n = use_i18n();
    // Gathered only once the field is used: otherwise every board update would walk every node's labels.
    let offered = RwSignal::new(false);
    let keys = Memo::new(move |_| {
        if !offered.get() {
            return Vec::new();
        }
        current.with(|b| {
            let mut keys: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
            for card in b.cards.values() {
                keys.extend(card.labels.keys().map(String::as_str));
                if keys.len() >= MAX_LABEL_KEYS {
                    break;
                }
            }
            // The versions' paths first: the map groups by what the nodes report there as it does by a label.
            domain::verify::Component::ALL
                .into_iter()
                .map(|c| c.path())
                .chain(keys.into_iter().take(MAX_LABEL_KEYS))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
    });
    let navigate = leptos_router::hooks::use_navigate();
    let location = leptos_router::hooks::use_location();
    let query = use_query_map();
    view! {
        <label class="group-by">
            {t_string!(i18n, map.group_by)} " "
            <input
                type="text"
                list="label-keys"
                data-testid="map-group-by"
                prop:value=group
                on:focus=move |_| offered.set(true)
                on:change=move |ev| {
                    let key = event_target_value(&ev);
                    let path = location.pathname.get_untracked();
                    let mut params = query.get_untracked();
                    params.replace("view", "map".to_string());
                    params.replace("group", crate::state::escaped(key.trim()));
                    navigate(&format!("{path}{}", params.to_query_string()), Default::default());
                }
            />
            <datalist id="label-keys">
                <For each=move || keys.get() key=|k| k.clone() let(k)>
                    <option value=k></option>
                </For>
            </datalist>
        </label>
    }
    .into_any()
}

/// The most label keys offered to group by.
const MAX_LABEL_KEYS: usize = 200;
