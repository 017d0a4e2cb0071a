//! The node board: a card per node, rendered on the server from one snapshot of its first page, then kept live by
//! the board's event stream. Filters and paging run in the browser.

use domain::{
    board::{self, StatusFilter},
    fleet::DEFAULT_GROUP_LABEL,
};
use jiff::Timestamp;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::{PAGE_SIZE, map::map_view, versions::versions_view};
use crate::{
    api::board_snapshot,
    components::{
        ConnectionBadge, Notice,
        card::CardView,
        rollouts::{RolloutBar, RolloutsPanel},
        timeline_view,
        windows::{WindowHolds, WindowsCover, WindowsNow},
    },
    dialogs::{Actions, DialogHost},
    i18n::{t_string, use_i18n},
    live::{Current, DrainsByNode, LiveBoard},
    state::{Filters, OrderHold, Selection, status_from_value, status_value},
};

#[component]
pub fn BoardPage() -> impl IntoView {
    let i18n = use_i18n();
    // Only the first page of cards comes with the page; the event stream brings the whole board right after.
    let snapshot = Resource::new(|| (), |_| board_snapshot(Some(PAGE_SIZE)));
    let live = LiveBoard::new();
    provide_context(crate::live::LiveNow::of(&live));
    let filters = Filters::in_address();
    let actions = Actions::new();
    provide_context(actions);
    provide_context(Selection::new());
    provide_context(WindowHolds::new());
    provide_context(WindowsCover(RwSignal::new(false)));
    let hold = OrderHold::new(Signal::derive(move || actions.dialog.with(Option::is_some)));
    let query = use_query_map();
    // Memos: the filters change the address at each keystroke, which must not build the view again.
    let view_of = Memo::new(move |_| query.with(|q| BoardView::from_query(q.get_str("view"))));
    let group = Memo::new(move |_| {
        query.with(|q| q.get_str("group").map(str::to_owned)).unwrap_or_else(|| DEFAULT_GROUP_LABEL.to_owned())
    });
    #[cfg(feature = "hydrate")]
    super::title_counts_problems(live.board);
    view! {
        <section
            class="nodes-page"
            data-testid="nodes-page"
            data-hydrated=move || live.hydrated.get().to_string()
            on:pointermove=move |_| hold.moved()
        >
            <Toolbar filters live />
            <Notice notice=actions.notice />
            <DialogHost server_now=live.server_now() board=live.board />
            <WindowsNow now=live.server_now() />
            <crate::components::readiness::WindowReadiness now=live.server_now() />
            <RolloutsPanel plans=live.plans />
            <Views current=view_of.into() />
            <Suspense fallback=move || view! { <p data-testid="nodes-loading">{t_string!(i18n, app.loading_nodes)}</p> }>
                {move || Suspend::new(async move {
                    match snapshot.await {
                        Ok(snap) => {
                            let current = live.current(&snap);
                            view! {
                                <RolloutBar current filters />
                                {move || match view_of.get() {
                                    BoardView::Cards => view! { <Cards current now=live.now drains=live.drains filters hold /> }.into_any(),
                                    // Lazy parts render in the browser only, once hydrated: hydrating a part whose code
                                    // is still loading would leave the server's HTML standing, no longer live.
                                    BoardView::Map => (move || live.hydrated.get().then(|| view! {
                                        <Suspense fallback=|| ()>{Suspend::new(map_view(current, live.drains, group.into(), filters))}</Suspense>
                                    }))
                                    .into_any(),
                                    BoardView::Versions => (move || live.hydrated.get().then(|| view! {
                                        <Suspense fallback=|| ()>{Suspend::new(versions_view(current, filters))}</Suspense>
                                    }))
                                    .into_any(),
                                    BoardView::Timeline => ().into_any(),
                                }}
                            }
                            .into_any()
                        }
                        Err(err) => view! {
                            <p class="error" role="alert" data-testid="nodes-error">
                                {t_string!(i18n, app.nodes_error, error = crate::i18n::error_text(i18n, &err))}
                            </p>
                        }
                        .into_any(),
                    }
                })}
            </Suspense>
            {move || (view_of.get() == BoardView::Timeline && live.hydrated.get()).then(|| view! {
                <Suspense fallback=|| ()>{Suspend::new(timeline_view(live.history, live.now, TIMELINE_NODES, true, filters.name.into()))}</Suspense>
            })}
        </section>
    }
}

/// How many nodes the board's timeline shows.
const TIMELINE_NODES: usize = 50;

/// What the board shows: the cards, the fleet map, the versions or the timeline (`?view=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardView {
    Cards,
    Map,
    Versions,
    Timeline,
}

impl BoardView {
    fn from_query(value: Option<&str>) -> Self {
        match value {
            Some("map") => BoardView::Map,
            Some("versions") => BoardView::Versions,
            Some("timeline") => BoardView::Timeline,
            _ => BoardView::Cards,
        }
    }

    fn key(self) -> &'static str {
        match self {
            BoardView::Cards => "cards",
            BoardView::Map => "map",
            BoardView::Versions => "versions",
            BoardView::Timeline => "timeline",
        }
    }
}

/// The links between the board's views. Each is an address (`?view=map`, with the filters), so a view can be
/// bookmarked, and a wall browser or a colleague opens the same one.
#[component]
fn Views(current: Signal<BoardView>) -> impl IntoView {
    let i18n = use_i18n();
    // The filters and the grouping stay in the address from view to view.
    let query = use_query_map();
    let link = move |view: BoardView, text: String| {
        view! {
            <a
                href=move || {
                    let mut params = query.get();
                    params.replace("view", view.key().to_string());
                    params.to_query_string()
                }
                data-testid=format!("view-{}", view.key())
                aria-current=move || (current.get() == view).then_some("page")
            >
                {text}
            </a>
        }
    };
    view! {
        <nav class="views" aria-label=t_string!(i18n, view.label)>
            {link(BoardView::Cards, t_string!(i18n, view.cards).to_string())}
            {link(BoardView::Map, t_string!(i18n, view.map).to_string())}
            {link(BoardView::Versions, t_string!(i18n, view.versions).to_string())}
            {link(BoardView::Timeline, t_string!(i18n, view.timeline).to_string())}
        </nav>
    }
}

/// The name, label and status filters, and the connection badge. Any change goes back to the first page.
#[component]
fn Toolbar(filters: Filters, live: LiveBoard) -> impl IntoView {
    let i18n = use_i18n();
    let set = move |signal: RwSignal<String>| {
        move |ev| {
            signal.set(event_target_value(&ev));
            filters.page.set(0);
        }
    };
    view! {
        <div class="toolbar">
            <label>
                <span class="visually-hidden">{t_string!(i18n, board.filter_label)}</span>
                <input
                    type="search"
                    data-testid="node-filter"
                    placeholder=t_string!(i18n, board.filter_placeholder)
                    prop:value=filters.name
                    on:input=set(filters.name)
                />
            </label>
            <input
                type="search"
                class="label-filter"
                data-testid="label-filter"
                aria-label=t_string!(i18n, board.label_filter)
                placeholder=t_string!(i18n, board.label_filter_placeholder)
                prop:value=filters.label
                on:input=set(filters.label)
            />
            {move || {
                let filter = board::Filter::new("", &filters.label.get(), StatusFilter::All);
                filter.selector_error().map(|e| view! {
                    <small class="error" role="alert" data-testid="label-filter-error">
                        {t_string!(i18n, board.label_selector_error, error = crate::i18n::selector_error_text(i18n, e))}
                    </small>
                })
            }}
            <select
                data-testid="status-filter"
                aria-label=t_string!(i18n, board.status_filter)
                prop:value=move || status_value(filters.status.get())
                on:change=move |ev| {
                    filters.status.set(status_from_value(&event_target_value(&ev)));
                    filters.page.set(0);
                }
            >
                <option value=status_value(StatusFilter::All)>{t_string!(i18n, board.status_all)}</option>
                <option value=status_value(StatusFilter::Problems)>{t_string!(i18n, board.status_problems)}</option>
                <option value=status_value(StatusFilter::Cordoned)>{t_string!(i18n, board.status_cordoned)}</option>
                <option value=status_value(StatusFilter::Ready)>{t_string!(i18n, board.status_ready)}</option>
                <option value=status_value(StatusFilter::OtherActors)>{t_string!(i18n, board.status_other_actors)}</option>
                <option value=status_value(StatusFilter::NeedReboot)>{t_string!(i18n, board.status_need_reboot)}</option>
                // One tool's nodes: the tool named as the cards name it.
                <optgroup label=t_string!(i18n, board.status_one_actor)>
                    {domain::actor::Actor::ALL
                        .into_iter()
                        .map(|actor| {
                            view! {
                                <option value=status_value(StatusFilter::Actor(actor))>
                                    {crate::i18n::actor_name(i18n, actor)}
                                </option>
                            }
                        })
                        .collect_view()}
                </optgroup>
            </select>
            <ConnectionBadge live />
        </div>
    }
}

/// The counts, the page of cards that match the filters, and the pager.
#[component]
pub fn Cards(
    current: Current,
    now: RwSignal<Timestamp>,
    drains: RwSignal<DrainsByNode>,
    filters: Filters,
    hold: OrderHold,
) -> impl IntoView {
    let i18n = use_i18n();
    let page = filters.page;
    // Names only: a keystroke in the filter must not copy thousands of cards. Only the page's cards are cloned.
    let shown = Memo::new(move |before: Option<&Vec<String>>| {
        let filter = filters.filter();
        let fresh = current.with(|board| {
            let mut matching: Vec<_> = board.cards.values().filter(|c| filter.matches(c)).collect();
            matching.sort_by_key(|c| board::display_rank(c));
            matching.into_iter().map(|c| c.name.clone()).collect::<Vec<String>>()
        });
        match before {
            Some(before) if hold.held() => board::keep_order(before, fresh),
            _ => fresh,
        }
    });
    let pages = move || shown.with(Vec::len).div_ceil(PAGE_SIZE).max(1);
    let on_page = move || {
        let start = page.get().min(pages() - 1) * PAGE_SIZE;
        shown.with(|v| v.iter().skip(start).take(PAGE_SIZE).cloned().collect::<Vec<String>>())
    };
    view! {
        <p class="summary" data-testid="summary">
            {move || {
                let sum = current.with(|board| board.partial.unwrap_or_else(|| board::summary(board.cards.values())));
                let nodes = t_string!(i18n, board.nodes, count = sum.nodes).to_string();
                t_string!(i18n, board.summary, nodes, not_ready = sum.not_ready, cordoned = sum.cordoned)
            }}
        </p>
        <p class="count" data-testid="node-count">
            {move || {
                let total = current.with(|b| b.partial.map_or(b.cards.len(), |p| p.nodes));
                t_string!(i18n, board.showing_nodes, shown = shown.with(Vec::len), count = total)
            }}
        </p>
        <Show when=move || shown.with(|v| !v.is_empty()) fallback=move || view! { <p>{t_string!(i18n, board.no_nodes_match)}</p> }>
            <div
                class="node-list"
                data-testid="node-list"
                data-held=move || hold.held().to_string()
                on:pointerenter=move |_| hold.pointer(true)
                on:pointerleave=move |_| hold.pointer(false)
            >
                <For each=on_page key=|name| name.clone() let(name)>
                    <CardView name current now drains />
                </For>
            </div>
        </Show>
        <Show when=move || { pages() > 1 }>
            <nav class="pager" data-testid="pager">
                <button on:click=move |_| page.update(|p| *p = p.saturating_sub(1))>{t_string!(i18n, board.previous_page)}</button>
                <span>{move || t_string!(i18n, board.page_of, page = page.get().min(pages() - 1) + 1, pages = pages())}</span>
                <button on:click=move |_| page.update(|p| *p = (*p + 1).min(pages() - 1))>{t_string!(i18n, board.next_page)}</button>
            </nav>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_is_read_from_the_address() {
        assert_eq!(BoardView::from_query(Some("map")), BoardView::Map);
        for view in [BoardView::Cards, BoardView::Map, BoardView::Versions, BoardView::Timeline] {
            assert_eq!(BoardView::from_query(Some(view.key())), view);
        }
        assert_eq!(BoardView::from_query(Some("nonsense")), BoardView::Cards);
        assert_eq!(BoardView::from_query(None), BoardView::Cards);
    }
}
