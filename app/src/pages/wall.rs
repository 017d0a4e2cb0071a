//! The wall screen, for a shared display during a maintenance window: the fleet map, the maintenance plans and the
//! drains running with their progress, the nodes counting down to eviction, and the day's timeline. Large type, dark, nothing to click; the
//! board stream reconnects by itself, and a wall's session outlives a restart of the server.

use domain::{
    board::{self, BoardSettings},
    eviction::{PodEviction, remaining},
    fleet::DEFAULT_GROUP_LABEL,
    node::NodeCard,
    progress::DrainSummary,
    rollout::RolloutProgress,
    tally::{Standing, Tally},
};
use jiff::Timestamp;
use leptos::prelude::*;

use super::PAGE_SIZE;
use crate::{
    api::board_snapshot,
    components::{ConnectionBadge, FleetMap, Timeline},
    i18n::{clock_text, t_string, use_i18n},
    live::{Current, LiveBoard},
};

/// How many nodes the wall's timeline shows.
const TIMELINE_NODES: usize = 8;

/// The most countdowns and drains the wall lists: the rest are on the map.
const LISTED: usize = 12;

#[component]
pub fn WallPage() -> impl IntoView {
    let i18n = use_i18n();
    let snapshot = Resource::new(|| (), |_| board_snapshot(Some(PAGE_SIZE)));
    let live = LiveBoard::new();
    provide_context(crate::live::LiveNow::of(&live));
    // The windows' line fills it, and the map marks each held node.
    provide_context(crate::components::windows::WindowHolds::new());
    view! {
        <section class="wall" data-testid="wall" data-hydrated=move || live.hydrated.get().to_string()>
            <ConnectionBadge live />
            // The server's clock, so that anyone looking at the wall sees that it is live, and when.
            <p class="wall-clock" data-testid="wall-clock">
                {move || t_string!(i18n, wall.clock, time = clock_text(live.server_now().get())).to_string()}
            </p>
            <Suspense fallback=move || view! { <p>{t_string!(i18n, app.loading_nodes)}</p> }>
                {move || Suspend::new(async move {
                    let snap = snapshot.await.ok()?;
                    let current = live.current(&snap);
                    // In the browser only, once hydrated: a lazy part hydrated while its code still loads would
                    // leave the server's HTML standing, no longer live.
                    Some(move || live.hydrated.get().then(|| view! {
                        <Suspense fallback=|| ()>{Suspend::new(wall_view(live, current))}</Suspense>
                    }))
                })}
            </Suspense>
        </section>
    }
}

/// What the wall shows, its code loaded with the page (a part of the wasm of its own with `--split`, so that the
/// board's first load does not carry it).
#[lazy]
fn wall_view(live: LiveBoard, current: Current) -> AnyView {
    view! {
        // The map beside what is under way, and the timeline under both, across the whole screen: the side column
        // keeps the width its plans' names need, and the timeline's hour gets the width it needs to be read.
        <div class="wall-grid">
            <div class="wall-main">
                <div class="wall-map">
                    <FleetMap current drains=live.drains group=DEFAULT_GROUP_LABEL.to_string() filters=None links=false />
                </div>
            </div>
            <div class="wall-side">
                <crate::components::windows::WindowsNow now=live.server_now() />
                <Plans plans=live.plans />
                <Drains live />
                <CountingDown current now=live.server_now() />
            </div>
            <div class="wall-timeline">
                <Timeline version=live.history now=live.now nodes=TIMELINE_NODES links=false />
            </div>
        </div>
    }
    .into_any()
}

/// The maintenance plans not ended, each with who started it, how many of its nodes are done, and why it waits if
/// it does: from the board stream, after each change the server's watch of them sees.
#[component]
fn Plans(plans: RwSignal<Option<Vec<RolloutProgress>>>) -> impl IntoView {
    let i18n = use_i18n();
    let plans = Memo::new(move |_| {
        plans.get().unwrap_or_default().into_iter().filter(|p| p.finished_at.is_none()).take(LISTED).collect::<Vec<_>>()
    });
    view! {
        <section class="wall-plans" data-testid="wall-plans">
            <h2>{t_string!(i18n, wall.plans)}</h2>
            {move || {
                let list = plans.get();
                if list.is_empty() {
                    return view! { <p class="muted" data-testid="wall-no-plans">{t_string!(i18n, wall.no_plans)}</p> }.into_any();
                }
                view! {
                    <ul>
                        {list.into_iter().map(|p| {
                            let tally = Tally::of(&p.nodes);
                            let name = t_string!(i18n, plan_tally.line, name = p.id.clone(), who = p.started_by.clone()).to_string();
                            let counts = crate::i18n::tally_text(i18n, &tally);
                            let label = format!("{name}: {counts}");
                            let phase = p.phase();
                            let awaited = domain::tally::standing(&p.nodes, Standing::Awaited).join(", ");
                            view! {
                                <li data-testid="wall-plan" data-id=p.id.clone() data-phase=phase>
                                    <span data-testid="wall-plan-line">
                                        <strong>{name}</strong> " "
                                        <span class="badge" data-testid="wall-plan-phase">{crate::i18n::plan_phase_text(i18n, phase)}</span> " "
                                        <span data-testid="wall-plan-counts">{counts}</span>
                                    </span>
                                    <progress max=tally.total.max(1) value=tally.done aria-label=label></progress>
                                    {(!awaited.is_empty()).then(|| view! {
                                        <span class="plan-awaited" data-testid="wall-plan-awaited">{t_string!(i18n, plan_tally.awaited_nodes, nodes = awaited)}</span>
                                    })}
                                    {crate::i18n::holding_text(i18n, &p).map(|why| view! {
                                        <span class="plan-blocked" data-testid="wall-plan-blocked">{why}</span>
                                    })}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }
                .into_any()
            }}
        </section>
    }
}

/// The drains running now, each with a bar that fills as its pods go.
#[component]
fn Drains(live: LiveBoard) -> impl IntoView {
    let i18n = use_i18n();
    let running = move || {
        live.drains
            .with(|d| d.values().filter(|s| s.state.is_running()).take(LISTED).cloned().collect::<Vec<DrainSummary>>())
    };
    view! {
        <section class="wall-drains" data-testid="wall-drains">
            <h2>{t_string!(i18n, wall.drains)}</h2>
            {move || {
                let list = running();
                if list.is_empty() {
                    return view! { <p class="muted" data-testid="wall-no-drains">{t_string!(i18n, wall.no_drains)}</p> }.into_any();
                }
                view! {
                    <ul>
                        {list.into_iter().map(|d| {
                            let text = t_string!(i18n, wall.drain_line, node = d.node.clone(), who = d.started_by.clone(), done = d.done, total = d.total).to_string();
                            view! {
                                <li data-testid="wall-drain" data-node=d.node.clone()>
                                    <span>{text.clone()}</span>
                                    <progress max=d.total.max(1) value=d.done aria-label=text></progress>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }
                .into_any()
            }}
        </section>
    }
}

/// A node's countdown as the wall shows it: how much of the wait has gone, and what is left.
#[derive(Clone, PartialEq)]
struct Countdown {
    node: String,
    permille: u16,
    left: String,
}

/// The nodes counting down to the eviction of their pods, soonest first, each as a ring that fills with time.
#[component]
fn CountingDown(current: Current, now: Signal<Timestamp>) -> impl IntoView {
    let i18n = use_i18n();
    let countdowns = move || {
        let now = now.get();
        current.with(|b| {
            let mut list: Vec<(Timestamp, Countdown)> =
                b.cards.values().filter_map(|c| countdown(c, &b.settings, now)).collect();
            list.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.node.cmp(&b.1.node)));
            list.into_iter().take(LISTED).map(|(_, c)| c).collect::<Vec<_>>()
        })
    };
    view! {
        <section class="wall-countdowns" data-testid="wall-countdowns">
            <h2>{t_string!(i18n, wall.counting_down)}</h2>
            {move || {
                let list = countdowns();
                if list.is_empty() {
                    return view! { <p class="muted" data-testid="wall-no-countdowns">{t_string!(i18n, wall.none_counting)}</p> }.into_any();
                }
                view! {
                    <ul class="rings">
                        {list.into_iter().map(|c| {
                            let label = t_string!(i18n, wall.countdown_label, node = c.node.clone(), left = c.left.clone()).to_string();
                            let node = c.node.clone();
                            view! {
                                <li data-testid="wall-countdown" data-node=node>
                                    <Ring permille=c.permille text=c.left label />
                                    <span class="ring-node">{c.node}</span>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }
                .into_any()
            }}
        </section>
    }
}

/// A card's countdown (the node's, or else its first pod's), with its deadline to sort by.
fn countdown(card: &NodeCard, settings: &BoardSettings, now: Timestamp) -> Option<(Timestamp, Countdown)> {
    let (deadline, permille) = match board::node_deadline(card, settings) {
        Some(deadline) => (deadline, board::node_countdown_permille(card, settings, now)?),
        None => match board::earliest_pod_eviction(card)?.0 {
            PodEviction::At(at) => (at, board::pod_countdown_permille(card, now)?),
            _ => (now, 1000),
        },
    };
    let left = remaining(deadline, now).map_or_else(|| "0:00".to_string(), board::clock);
    Some((deadline, Countdown { node: card.name.clone(), permille, left }))
}

/// A ring that fills with `permille` thousandths, with `text` in its middle: readable from across a room. SVG
/// attributes draw it; the content security policy allows no inline style.
#[component]
fn Ring(permille: u16, text: String, label: String) -> impl IntoView {
    view! {
        <svg class="ring" viewBox="0 0 36 36" role="img" aria-label=label>
            <circle class="ring-track" cx="18" cy="18" r="15.5" pathLength="1000"></circle>
            <circle
                class="ring-fill"
                cx="18"
                cy="18"
                r="15.5"
                pathLength="1000"
                stroke-dasharray=format!("{permille} 1000")
                transform="rotate(-90 18 18)"
            ></circle>
            <text class="ring-text" x="18" y="21" text-anchor="middle">{text}</text>
        </svg>
    }
}
