//! The node board: a card per node, rendered on the server from one snapshot, then kept live by the board's
//! event stream. Countdowns and ages tick every second in the browser, on the server's clock.

use domain::{
    ReadyStatus,
    board::{self, Board, BoardUpdate, StatusFilter},
    eviction::{PodEviction, remaining},
    node::{ConditionHealth, NodeCard},
};
use jiff::Timestamp;
use leptos::prelude::*;

use super::actions::{Actions, CardActions, CardDrain, DialogHost, DrainsByNode};
use crate::{api::board_snapshot, strings};

/// How many cards one page shows; a cluster of thousands of nodes is paged, not rendered at once.
const PAGE_SIZE: usize = 60;

/// The state of the live connection, shown so that nobody trusts a frozen board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Only the browser's event stream moves it past Connecting.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub enum Connection {
    Connecting,
    Live,
    Reconnecting,
}

/// What the board page and the wall screen share: the live board, the clock and the connection state.
#[derive(Clone, Copy)]
struct LiveBoard {
    board: RwSignal<Option<Board>>,
    /// Every drain of the cluster, by node, as the board stream sends them.
    drains: RwSignal<DrainsByNode>,
    now: RwSignal<Timestamp>,
    connection: RwSignal<Connection>,
    hydrated: RwSignal<bool>,
}

impl LiveBoard {
    /// Starts the clock and the event stream; both run only in the browser.
    fn new() -> Self {
        let live = LiveBoard {
            board: RwSignal::new(None),
            drains: RwSignal::new(Default::default()),
            now: RwSignal::new(Timestamp::now()),
            connection: RwSignal::new(Connection::Connecting),
            hydrated: RwSignal::new(false),
        };
        Effect::new(move |_| {
            live.hydrated.set(true);
            let handle =
                set_interval_with_handle(move || live.now.set(Timestamp::now()), std::time::Duration::from_secs(1));
            on_cleanup(move || {
                if let Ok(h) = handle {
                    h.clear();
                }
            });
            #[cfg(feature = "hydrate")]
            stream::follow(live.board, live.drains, live.connection);
        });
        live
    }

    /// The server's clock now, ticking every second.
    fn server_now(&self) -> Signal<Timestamp> {
        let (board, now) = (self.board, self.now);
        Signal::derive(move || {
            let offset = board.with(|b| b.as_ref().map(|b| b.clock_offset).unwrap_or_default());
            now.get() + offset
        })
    }

    /// The cards to show: the live board once it has arrived, the server's snapshot before.
    fn current(&self, snapshot: &BoardUpdate) -> Board {
        self.board.get().unwrap_or_else(|| {
            let mut b = Board::default();
            b.apply(snapshot.clone(), snapshot.server_time);
            b
        })
    }
}

#[cfg(feature = "hydrate")]
mod stream {
    use super::*;
    use crate::pages::dom::{self, Listening};

    /// How long to wait before opening a new stream once the browser has given up on one.
    const RETRY: std::time::Duration = std::time::Duration::from_secs(2);

    /// Follows `/api/board/events` for as long as the page lives, reconnecting for ever. Every error shows
    /// Reconnecting at once, while the browser retries by itself; when it gives up (the stream is closed), a new
    /// one is opened after a pause. Every connection starts with a full board, so a reconnect resyncs.
    pub fn follow(board: RwSignal<Option<Board>>, drains: RwSignal<DrainsByNode>, connection: RwSignal<Connection>) {
        let holder = StoredValue::new_local(None::<Listening>);
        open(holder, board, drains, connection);
        on_cleanup(move || {
            let _ = holder.try_update_value(|h| h.take());
        });
    }

    fn open(
        holder: StoredValue<Option<Listening>, LocalStorage>,
        board: RwSignal<Option<Board>>,
        drains: RwSignal<DrainsByNode>,
        connection: RwSignal<Connection>,
    ) {
        let listening = dom::listen(
            "/api/board/events",
            &["board", "drains"],
            move |kind, text| {
                if kind == "drains" {
                    if let Ok(list) = serde_json::from_str::<Vec<domain::progress::DrainSummary>>(&text) {
                        drains.set(list.into_iter().map(|d| (d.node.clone(), d)).collect());
                    }
                    return;
                }
                let Ok(update) = serde_json::from_str::<BoardUpdate>(&text) else { return };
                board.update(|b| b.get_or_insert_with(Board::default).apply(update, Timestamp::now()));
                connection.set(Connection::Live);
            },
            move |closed| {
                connection.set(Connection::Reconnecting);
                if closed {
                    set_timeout(move || open(holder, board, drains, connection), RETRY);
                }
            },
        );
        // If the page is gone, the new stream is dropped with the closure, which closes it.
        let _ = holder.try_update_value(|h| *h = listening);
    }
}

#[component]
pub fn NodesPage() -> impl IntoView {
    let s = strings::current();
    let b = strings::board();
    // Only the first page of cards comes with the page; the event stream brings the whole board right after.
    let snapshot = Resource::new(|| (), |_| board_snapshot(Some(PAGE_SIZE)));
    let live = LiveBoard::new();
    let (name, set_name) = signal(String::new());
    let (label, set_label) = signal(String::new());
    let (status, set_status) = signal(StatusFilter::All);
    let page = RwSignal::new(0usize);
    let actions = Actions::new();
    provide_context(actions);

    view! {
        <section class="nodes-page" data-testid="nodes-page" data-hydrated=move || live.hydrated.get().to_string()>
            <div class="toolbar">
                <label>
                    <span class="visually-hidden">{s.filter_label}</span>
                    <input
                        type="search"
                        data-testid="node-filter"
                        placeholder=s.filter_placeholder
                        prop:value=name
                        on:input=move |ev| {
                            set_name.set(event_target_value(&ev));
                            page.set(0);
                        }
                    />
                </label>
                <input
                    type="search"
                    data-testid="label-filter"
                    aria-label="label filter"
                    placeholder=b.label_filter_placeholder
                    prop:value=label
                    on:input=move |ev| {
                        set_label.set(event_target_value(&ev));
                        page.set(0);
                    }
                />
                <select
                    data-testid="status-filter"
                    aria-label="status filter"
                    on:change=move |ev| {
                        set_status
                            .set(
                                match event_target_value(&ev).as_str() {
                                    "problems" => StatusFilter::Problems,
                                    "cordoned" => StatusFilter::Cordoned,
                                    "ready" => StatusFilter::Ready,
                                    _ => StatusFilter::All,
                                },
                            );
                        page.set(0);
                    }
                >
                    <option value="all">{b.status_all}</option>
                    <option value="problems">{b.status_problems}</option>
                    <option value="cordoned">{b.status_cordoned}</option>
                    <option value="ready">{b.status_ready}</option>
                </select>
                <ConnectionBadge connection=live.connection />
            </div>
            <Notice notice=actions.notice />
            <DialogHost server_now=live.server_now() />
            <Suspense fallback=move || view! { <p data-testid="nodes-loading">{s.loading_nodes}</p> }>
                {move || Suspend::new(async move {
                    match snapshot.await {
                        Ok(snap) => {
                            let current = Memo::new(move |_| live.current(&snap));
                            view! { <Cards current now=live.now drains=live.drains name label status page /> }.into_any()
                        }
                        Err(err) => view! {
                            <p class="error" role="alert" data-testid="nodes-error">
                                {s.nodes_error_prefix} " " {err.to_string()}
                            </p>
                        }
                        .into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// One node: its card with the actions, and every pod on it with its owner, phase, and what a drain with the
/// default options would do with it. Linked from each card's name.
#[component]
pub fn NodeDetailPage() -> impl IntoView {
    let s = strings::current();
    let d = strings::detail();
    let params = leptos_router::hooks::use_params_map();
    let name = move || params.with(|p| p.get("name").unwrap_or_default());
    let snapshot = Resource::new(|| (), |_| board_snapshot(None));
    let live = LiveBoard::new();
    let actions = Actions::new();
    provide_context(actions);
    let inputs = RwSignal::new(None::<domain::preview::PreviewInputs>);
    #[cfg(feature = "hydrate")]
    {
        let source = crate::pages::dom::listen(
            &format!("/api/nodes/{}/preview/events", name()),
            &["preview"],
            move |_, data| {
                if let Ok(i) = serde_json::from_str(&data) {
                    inputs.set(Some(i));
                }
            },
            |_| {},
        );
        on_cleanup(move || drop(source));
    }
    view! {
        <section class="node-detail" data-testid="node-detail" data-hydrated=move || live.hydrated.get().to_string()>
            <nav class="toolbar">
                <a href="/" data-testid="back-to-board">{d.back}</a>
                <ConnectionBadge connection=live.connection />
            </nav>
            <Notice notice=actions.notice />
            <DialogHost server_now=live.server_now() />
            <Suspense fallback=move || view! { <p>{s.loading_nodes}</p> }>
                {move || Suspend::new(async move {
                    match snapshot.await {
                        Ok(snap) => {
                            let current = Memo::new(move |_| live.current(&snap));
                            let exists = move || current.with(|b| b.cards.contains_key(&name()));
                            view! {
                                <Show
                                    when=exists
                                    fallback=move || view! {
                                        <p class="error" data-testid="node-missing">{(d.no_such_node)(&name())}</p>
                                    }
                                >
                                    <div class="detail-card">
                                        <CardView name=name() current now=live.now drains=live.drains />
                                    </div>
                                </Show>
                            }
                            .into_any()
                        }
                        Err(err) => view! {
                            <p class="error" role="alert">{s.nodes_error_prefix} " " {err.to_string()}</p>
                        }
                        .into_any(),
                    }
                })}
            </Suspense>
            <h2>{d.pods_title}</h2>
            {move || inputs.with(|i| i.as_ref().map(|i| {
                let plan = domain::preview::preview(i, &Default::default()).unwrap_or_default();
                let verdict = |ns: &str, pod: &str| -> &'static str {
                    let is = |p: &domain::preview::PreviewPod| p.namespace == ns && p.name == pod;
                    if plan.evict.iter().any(|e| is(&e.pod)) {
                        d.would_evict
                    } else if plan.skipped.iter().any(|(p, _)| is(p)) {
                        d.would_skip
                    } else if plan.refused.iter().any(|r| is(&r.pod)) {
                        d.would_refuse
                    } else {
                        ""
                    }
                };
                view! {
                    <table class="pod-table" data-testid="node-pods">
                        <thead>
                            <tr><th>{d.pod}</th><th>{d.owner}</th><th>{d.phase}</th><th>{d.default_drain}</th></tr>
                        </thead>
                        <tbody>
                            {i.pods.iter().map(|p| view! {
                                <tr data-testid="node-pod" data-pod=p.key()>
                                    <td><code>{p.key()}</code></td>
                                    <td>{p.controller.as_ref().map_or_else(|| d.no_controller.to_string(), |c| format!("{}/{}", c.kind, c.name))}</td>
                                    <td>{format!("{:?}", p.phase)}</td>
                                    <td>{verdict(&p.namespace, &p.name)}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                }
            }))}
        </section>
    }
}

/// The wall screen: large type, problems first, no controls; for a shared display.
#[component]
pub fn WallPage() -> impl IntoView {
    let s = strings::current();
    let snapshot = Resource::new(|| (), |_| board_snapshot(Some(PAGE_SIZE)));
    let live = LiveBoard::new();
    view! {
        <section class="wall" data-testid="wall" data-hydrated=move || live.hydrated.get().to_string()>
            <ConnectionBadge connection=live.connection />
            <Suspense fallback=move || view! { <p>{s.loading_nodes}</p> }>
                {move || Suspend::new(async move {
                    snapshot.await.ok().map(|snap| {
                        let current = Memo::new(move |_| live.current(&snap));
                        let (name, _) = signal(String::new());
                        let (label, _) = signal(String::new());
                        let (status, _) = signal(StatusFilter::All);
                        view! { <Cards current now=live.now drains=live.drains name label status page=RwSignal::new(0) /> }
                    })
                })}
            </Suspense>
        </section>
    }
}

/// The outcome of the last action, announced to screen readers.
#[component]
fn Notice(notice: RwSignal<Option<(bool, String)>>) -> impl IntoView {
    view! {
        <p
            class=move || match notice.get() {
                Some((false, _)) => "notice error",
                _ => "notice",
            }
            role="status"
            aria-live="polite"
            data-testid="notice"
        >
            {move || notice.get().map(|(_, text)| text)}
        </p>
    }
}

#[component]
fn ConnectionBadge(connection: RwSignal<Connection>) -> impl IntoView {
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

#[component]
fn Cards(
    current: Memo<Board>,
    now: RwSignal<Timestamp>,
    drains: RwSignal<DrainsByNode>,
    name: ReadSignal<String>,
    label: ReadSignal<String>,
    status: ReadSignal<StatusFilter>,
    page: RwSignal<usize>,
) -> impl IntoView {
    let s = strings::current();
    let b = strings::board();
    // Names only: a keystroke in the filter must not copy thousands of cards. Only the page's cards are cloned.
    let shown = Memo::new(move |_| {
        let (name, label, status) = (name.get(), label.get(), status.get());
        current.with(|board| {
            let mut matching: Vec<&NodeCard> =
                board.cards.values().filter(|c| board::matches(c, &name, &label, status)).collect();
            matching.sort_by_key(|c| board::display_rank(c));
            matching.into_iter().map(|c| c.name.clone()).collect::<Vec<String>>()
        })
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
                (b.summary)(sum.nodes, sum.not_ready, sum.cordoned)
            }}
        </p>
        <p class="count" data-testid="node-count">
            {move || {
                let total = current.with(|b| b.partial.map_or(b.cards.len(), |p| p.nodes));
                (s.showing_nodes)(shown.with(Vec::len), total)
            }}
        </p>
        <Show when=move || shown.with(|v| !v.is_empty()) fallback=move || view! { <p>{s.no_nodes_match}</p> }>
            <div class="node-list" data-testid="node-list">
                <For each=on_page key=|name| name.clone() let(name)>
                    <CardView name current now drains />
                </For>
            </div>
        </Show>
        <Show when=move || { pages() > 1 }>
            <nav class="pager" data-testid="pager">
                <button on:click=move |_| page.update(|p| *p = p.saturating_sub(1))>{b.previous_page}</button>
                <span>{move || (b.page_of)(page.get().min(pages() - 1) + 1, pages())}</span>
                <button on:click=move |_| page.update(|p| *p = (*p + 1).min(pages() - 1))>{b.next_page}</button>
            </nav>
        </Show>
    }
}

/// One card, following its node in the live board by name.
#[component]
fn CardView(
    name: String,
    current: Memo<Board>,
    now: RwSignal<Timestamp>,
    drains: RwSignal<DrainsByNode>,
) -> impl IntoView {
    let s = strings::current();
    let b = strings::board();
    let card = {
        let name = name.clone();
        Memo::new(move |_| current.with(|board| board.cards.get(&name).cloned()).unwrap_or_default())
    };
    let drain = {
        let name = name.clone();
        Signal::derive(move || drains.with(|d| d.get(&name).cloned()))
    };
    let server_now = move || current.with(|board| board.server_now(now.get()));
    let settings = move || current.with(|board| board.settings);
    let age = move |t: Option<Timestamp>| t.map(|t| board::short_age(server_now().duration_since(t)));
    let stale = move |t: Option<Timestamp>| {
        t.is_some_and(|t| server_now().duration_since(t).as_secs() > settings().grace_seconds)
    };
    // The Lease is the node's heartbeat. With a Lease, kubelets refresh Ready's lastHeartbeatTime only when the
    // status changes or every few minutes, so its age alone means nothing; it is judged only for nodes without one.
    let heartbeat_stale = move || card.with(|c| c.lease_renewed.is_none() && stale(c.ready_heartbeat));
    let lease_stale = move || stale(card.with(|c| c.lease_renewed));
    let ready_class = move || match card.with(|c| c.ready) {
        ReadyStatus::Ready => "badge ok",
        ReadyStatus::NotReady => "badge bad",
        ReadyStatus::Unknown => "badge unknown",
    };
    let node_countdown = move || {
        let deadline = card.with(|c| board::node_deadline(c, &settings()))?;
        Some(match remaining(deadline, server_now()) {
            Some(left) => (b.node_countdown)(&board::clock(left)),
            None => b.eviction_due.to_string(),
        })
    };
    let pod_countdown = move || {
        let (earliest, count) = card.with(board::earliest_pod_eviction)?;
        Some(match earliest {
            PodEviction::At(at) => match remaining(at, server_now()) {
                Some(left) => (b.pod_countdown)(&board::clock(left), count),
                None => b.pods_going_now.to_string(),
            },
            _ => b.pods_going_now.to_string(),
        })
    };
    let eta_text = move |e: PodEviction| match e {
        PodEviction::At(at) => remaining(at, server_now()).map_or(b.eviction_due.to_string(), board::clock),
        PodEviction::Immediately => b.eviction_due.to_string(),
        PodEviction::Never | PodEviction::NotScheduled => b.never.to_string(),
    };
    view! {
        <article
            class=move || if card.with(|c| c.ready != ReadyStatus::Ready) { "node-card problem" } else { "node-card" }
            data-testid="node-row"
            data-node=name
            data-ready=move || card.with(|c| c.ready.label())
        >
            <header>
                <h2 class="node-name" data-testid="node-name">
                    <a href=format!("/nodes/{name}")>{move || card.with(|c| c.name.clone())}</a>
                </h2>
                <span class=ready_class data-testid="node-ready">{move || card.with(|c| c.ready.label())}</span>
                {move || card.with(|c| c.unschedulable).then(|| view! {
                    <span class="badge warn" data-testid="node-cordoned">{s.cordoned}</span>
                })}
            </header>
            <p class="meta">
                {move || card.with(|c| {
                    let mut parts = Vec::new();
                    if !c.roles.is_empty() { parts.push(c.roles.join(",")); }
                    if let Some(z) = &c.zone { parts.push(z.clone()); }
                    if let Some(v) = &c.kubelet_version { parts.push(v.clone()); }
                    parts.join(" · ")
                })}
                " · " {move || age(card.with(|c| c.created)).unwrap_or_default()}
            </p>
            <CardDrain card drain />
            <CardActions card drain />
            {move || node_countdown().map(|text| view! { <p class="countdown" data-testid="node-countdown">{text}</p> })}
            {move || pod_countdown().map(|text| view! { <p class="countdown" data-testid="pod-countdown">{text}</p> })}
            <p class="heartbeats">
                <span data-testid="heartbeat-age" class:stale=heartbeat_stale>
                    {b.heartbeat} ": " {move || age(card.with(|c| c.ready_heartbeat)).map(|a| (b.ago)(&a)).unwrap_or_default()}
                </span>
                " "
                <span data-testid="lease-age" class:stale=lease_stale>
                    {b.lease} ": " {move || age(card.with(|c| c.lease_renewed)).map(|a| (b.ago)(&a)).unwrap_or_default()}
                </span>
                {move || (lease_stale() || heartbeat_stale()).then(|| view! {
                    <span class="badge warn" data-testid="heartbeat-stale">{b.stale}</span>
                })}
            </p>
            <dl class="facts">
                <dt>{b.pods}</dt>
                <dd data-testid="pod-count">{move || card.with(|c| c.pod_count)}</dd>
                <dt>{b.allocatable}</dt>
                <dd>{move || card.with(|c| c.allocatable.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "))}</dd>
                <dt>{b.taints}</dt>
                <dd data-testid="taints">
                    {move || card.with(|c| if c.taints.is_empty() {
                        b.no_taints.to_string()
                    } else {
                        c.taints.iter().map(|t| format!("{}:{}", t.key, t.effect)).collect::<Vec<_>>().join(", ")
                    })}
                </dd>
            </dl>
            {move || {
                let etas = card.with(|c| c.pod_evictions.clone());
                (!etas.is_empty()).then(|| view! {
                    <details class="pod-etas" data-testid="pod-etas">
                        <summary>{b.pods}</summary>
                        <ul>
                            {etas.into_iter().map(|p| view! {
                                <li data-testid="pod-eta-row" data-pod=format!("{}/{}", p.namespace, p.name)>
                                    {format!("{}/{}", p.namespace, p.name)} ": " {move || eta_text(p.eviction)}
                                </li>
                            }).collect_view()}
                        </ul>
                    </details>
                })
            }}
            <table class="conditions" data-testid="conditions-table">
                <caption class="visually-hidden">{b.conditions}</caption>
                <tbody>
                    {move || card.with(|c| c.conditions.clone()).into_iter().map(|cond| {
                        let class = match cond.health() {
                            ConditionHealth::Good => "good",
                            ConditionHealth::Bad => "bad",
                            ConditionHealth::Unknown => "unknown",
                        };
                        view! {
                            <tr class=class data-condition=cond.type_.clone()>
                                <th scope="row">{cond.type_.clone()}</th>
                                <td>{cond.status.clone()}</td>
                                <td>{cond.reason.clone().unwrap_or_default()}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            <details class="conditions-json">
                <summary>{b.conditions_json}</summary>
                <button
                    type="button"
                    data-testid="copy-conditions"
                    on:click=move |_| {
                        #[cfg(feature = "hydrate")]
                        if let Some(window) = web_sys::window() {
                            let _ = window.navigator().clipboard().write_text(&card.with(|c| c.conditions_json.clone()));
                        }
                    }
                >
                    {b.copy}
                </button>
                <pre data-testid="conditions-json">{move || card.with(|c| c.conditions_json.clone())}</pre>
            </details>
        </article>
    }
    // A card's static view type is deep; erasing it keeps the page's type within the compiler's limits.
    .into_any()
}
