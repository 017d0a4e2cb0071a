//! The fleet map: every node as one cell, grouped by a label, so that a whole fleet fits one screen. The rules
//! (each cell's state, the groups, the arrow keys' moves) are `domain::fleet`'s; this draws them.
//!
//! The map is one tab stop, a listbox whose active cell moves with the arrow keys (`aria-activedescendant`), and
//! Enter opens it. The active cell's highlight is set on the DOM directly: a signal read by 5,000 cells would wake
//! them all at each key.

use domain::fleet::{self, CellSize, MapCell, MapGroup, MapState};
use leptos::prelude::*;

use crate::{
    components::windows::WindowHolds,
    i18n::{I18n, map_state_text, t_string, use_i18n},
    live::{Current, DrainsByNode},
    state::Filters,
};

/// The map of the cards that pass `filters` (all of them without), grouped by the label `group`. With `links`,
/// a cell opens its node; a wall screen, which may open nothing else, has none.
#[component]
pub fn FleetMap(
    current: Current,
    drains: RwSignal<DrainsByNode>,
    #[prop(into)] group: Signal<String>,
    filters: Option<Filters>,
    links: bool,
) -> impl IntoView {
    let i18n = use_i18n();
    // Recomputed at each board change, but equal groups stop there: a heartbeat re-renders nothing.
    let layout = Memo::new(move |_| {
        let label = group.get();
        let filter = filters.map(|f| f.filter());
        drains.with(|d| {
            current.with(|b| {
                let shown = b.cards.values().filter(|c| filter.as_ref().is_none_or(|f| f.matches(c)));
                fleet::layout(shown, d, &label)
            })
        })
    });
    let size = Memo::new(move |_| CellSize::for_nodes(layout.with(|l| l.iter().map(|g| g.cells.len()).sum())));
    let caption = RwSignal::new(String::new());
    let active = RwSignal::new(None::<String>);
    let map = NodeRef::<leptos::html::Div>::new();
    view! {
        <section class="fleet" data-testid="fleet">
            <Legend />
            <div
                class=move || format!("fleet-map size-{}", size.get().key())
                data-testid="fleet-map"
                role="listbox"
                tabindex="0"
                aria-label=t_string!(i18n, map.title)
                aria-describedby="fleet-map-help"
                aria-activedescendant=move || active.get().map(|n| format!("cell-{n}"))
                node_ref=map
                on:keydown=move |ev| keys::on_key(ev, map, active, caption)
                on:mouseover=move |ev| keys::on_hover(ev, caption)
                on:focus=move |_| keys::on_focus(map, active, caption)
            >
                // Keyed by the groups' values alone: a cell's change must not copy every group to find the keys.
                <For each=move || layout.with(|l| l.iter().map(|g| g.value.clone()).collect::<Vec<_>>()) key=|v| v.clone() let(value)>
                    <Group value layout links />
                </For>
            </div>
            <p id="fleet-map-help" class="muted map-help">{t_string!(i18n, map.help)}</p>
            <p class="map-caption" data-testid="map-caption" aria-live="polite">{caption}</p>
        </section>
    }
    // Erased, as a card is: the map's static view type is deep enough to stall the compiler where it is nested.
    .into_any()
}

/// One group: its heading and its cells. It follows its group in the layout by value.
#[component]
fn Group(value: Option<String>, layout: Memo<Vec<MapGroup>>, links: bool) -> impl IntoView {
    let i18n = use_i18n();
    let cells = {
        let value = value.clone();
        move || layout.with(|l| fleet::find_group(l, &value).map(|g| g.cells.clone()).unwrap_or_default())
    };
    let heading = {
        let value = value.clone();
        move || {
            layout.with(|l| {
                let group = fleet::find_group(l, &value)?;
                let name = group.value.clone().unwrap_or_else(|| t_string!(i18n, map.no_label).to_string());
                let count = t_string!(i18n, board.nodes, count = group.cells.len()).to_string();
                let problems: Vec<String> = group
                    .counts()
                    .into_iter()
                    .map(|(state, n)| format!("{n} {}", map_state_text(i18n, state)))
                    .collect();
                Some(if problems.is_empty() {
                    format!("{name} · {count}")
                } else {
                    format!("{name} · {count} · {}", problems.join(", "))
                })
            })
        }
    };
    let label = heading.clone();
    view! {
        <div class="map-group" role="group" aria-label=move || label().unwrap_or_default() data-testid="map-group" data-group=value.clone().unwrap_or_default()>
            <p class="map-group-name" aria-hidden="true">{move || heading().unwrap_or_default()}</p>
            <div class="map-cells">
                <For each=cells key=|c| c.clone() let(c)>
                    <Cell cell=c links i18n />
                </For>
            </div>
        </div>
    }
}

/// One node's cell: its state as a class (the colour and shape) and a letter, and its name for hover and for
/// screen readers. A node a maintenance window holds (the page's [`WindowHolds`], where it keeps one) is outlined,
/// and its label says which window and why.
#[component]
fn Cell(cell: MapCell, links: bool, i18n: I18n) -> impl IntoView {
    let label = format!("{}: {}", cell.name, map_state_text(i18n, cell.state));
    let label = match cell.reboot {
        true => format!("{label} · {}", t_string!(i18n, map.needs_reboot)),
        false => label,
    };
    // Another tool at work on it, named as the card names it.
    let label =
        cell.actors.iter().fold(label, |label, &(a, d)| format!("{label} · {}", crate::i18n::work_text(i18n, a, d)));
    let reboot = if cell.reboot { " reboot" } else { "" };
    let other = if cell.actors.is_empty() { "" } else { " other" };
    let actors = (!cell.actors.is_empty()).then(|| {
        let mut ids: Vec<&str> = cell.actors.iter().map(|(a, _)| a.id()).collect();
        ids.dedup();
        ids.join(" ")
    });
    let href = links.then(|| crate::context::href(&format!("/nodes/{}", cell.name)));
    let holds = use_context::<WindowHolds>();
    let name = cell.name.clone();
    let held = Memo::new(move |_| holds.and_then(|WindowHolds(h)| h.with(|h| h.get(&name).cloned())));
    let key = cell.state.key();
    let label = move || match held.get() {
        Some(holds) => format!("{label} · {}", crate::components::windows::holds_line(i18n, &holds)),
        None => label.clone(),
    };
    view! {
        <a
            id=format!("cell-{}", cell.name)
            class=move || format!("cell s-{key}{reboot}{other}{}", if held.with(Option::is_some) { " held" } else { "" })
            role="option"
            aria-selected="false"
            tabindex="-1"
            href=href
            title=label.clone()
            aria-label=label
            data-testid="map-cell"
            data-node=cell.name
            data-state=key
            data-reboot=cell.reboot.then_some("true")
            data-actors=actors
            data-held=move || held.with(|h| h.as_ref().and_then(|h| h.first()).map(|(window, _)| window.clone()))
        >
            <span class="l" aria-hidden="true">{cell.state.letter()}</span>
        </a>
    }
}

/// What each cell's colour, shape and letter mean.
#[component]
fn Legend() -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <ul class="map-legend" data-testid="map-legend" aria-label=t_string!(i18n, map.legend)>
            {MapState::ALL.iter().map(|&s| view! {
                <li>
                    <span class=format!("cell s-{}", s.key()) aria-hidden="true"><span class="l">{s.letter()}</span></span>
                    " " {map_state_text(i18n, s)}
                </li>
            }).collect_view()}
            <li><span class="cell s-ready reboot" aria-hidden="true"></span> " " {t_string!(i18n, map.needs_reboot)}</li>
            <li><span class="cell s-ready other" aria-hidden="true"></span> " " {t_string!(i18n, map.other_tool)}</li>
            {use_context::<WindowHolds>().map(|_| view! {
                <li><span class="cell s-ready held" aria-hidden="true"></span> " " {t_string!(i18n, windows.map_legend)}</li>
            })}
        </ul>
    }
}

/// The map's keyboard and pointer: which cell is active, and the caption that names it.
mod keys {
    use super::*;

    #[cfg(feature = "hydrate")]
    use web_sys::wasm_bindgen::JsCast;

    /// The cells in reading order, with their positions.
    #[cfg(feature = "hydrate")]
    fn cells(map: NodeRef<leptos::html::Div>) -> Vec<web_sys::HtmlElement> {
        let Some(map) = map.get_untracked() else { return Vec::new() };
        let Ok(list) = map.query_selector_all("[data-testid=map-cell]") else { return Vec::new() };
        (0..list.length()).filter_map(|i| list.item(i)?.dyn_into::<web_sys::HtmlElement>().ok()).collect()
    }

    /// The caption for a cell: its node and its state, in words.
    #[cfg(feature = "hydrate")]
    fn caption_of(cell: &web_sys::Element) -> Option<String> {
        cell.get_attribute("aria-label")
    }

    /// Where the active cell is among `all`.
    #[cfg(feature = "hydrate")]
    fn position_of(all: &[web_sys::HtmlElement], active: RwSignal<Option<String>>) -> Option<usize> {
        let name = active.get_untracked()?;
        all.iter().position(|c| c.get_attribute("data-node").as_deref() == Some(name.as_str()))
    }

    /// Makes `to` the active cell: its highlight, the listbox's active descendant, and the caption.
    #[cfg(feature = "hydrate")]
    fn activate(all: &[web_sys::HtmlElement], to: usize, active: RwSignal<Option<String>>, caption: RwSignal<String>) {
        for cell in all.iter().filter(|c| c.class_list().contains("active")) {
            let _ = cell.class_list().remove_1("active");
            let _ = cell.set_attribute("aria-selected", "false");
        }
        let Some(cell) = all.get(to) else { return };
        let _ = cell.class_list().add_1("active");
        let _ = cell.set_attribute("aria-selected", "true");
        active.set(cell.get_attribute("data-node"));
        caption.set(caption_of(cell).unwrap_or_default());
    }

    pub fn on_key(
        ev: leptos::ev::KeyboardEvent,
        map: NodeRef<leptos::html::Div>,
        active: RwSignal<Option<String>>,
        caption: RwSignal<String>,
    ) {
        #[cfg(feature = "hydrate")]
        {
            let all = cells(map);
            let from = position_of(&all, active);
            if matches!(ev.key().as_str(), "Enter" | " ") {
                if let Some(cell) = from.and_then(|i| all.get(i)) {
                    ev.prevent_default();
                    cell.click();
                }
                return;
            }
            let Some(step) = fleet::Step::from_key(&ev.key()) else { return };
            ev.prevent_default();
            let positions: Vec<(i32, i32)> = all.iter().map(|c| (c.offset_left(), c.offset_top())).collect();
            let to = match from {
                Some(from) => fleet::step(&positions, from, step),
                None => 0,
            };
            activate(&all, to, active, caption);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, map, active, caption);
    }

    /// Focus on the map shows its first cell (or the one active before) as active.
    pub fn on_focus(map: NodeRef<leptos::html::Div>, active: RwSignal<Option<String>>, caption: RwSignal<String>) {
        #[cfg(feature = "hydrate")]
        {
            let all = cells(map);
            activate(&all, position_of(&all, active).unwrap_or(0), active, caption);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (map, active, caption);
    }

    /// A pointer over a cell names it in the caption (the cell's title names it too).
    pub fn on_hover(ev: leptos::ev::MouseEvent, caption: RwSignal<String>) {
        #[cfg(feature = "hydrate")]
        {
            let cell = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|t| t.closest("[data-testid=map-cell]").ok().flatten());
            if let Some(text) = cell.as_ref().and_then(caption_of) {
                caption.set(text);
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, caption);
    }
}
