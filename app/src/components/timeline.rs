//! The maintenance timeline: the last 24 hours of each recently maintained node as a line of spans (cordoned,
//! draining, not Ready), from the durable history every replica writes, so it survives restarts. The spans are
//! `domain::timeline`'s; this draws them with SVG (attributes, not inline styles, which the content security
//! policy blocks) and writes them out in words for screen readers.

use domain::timeline::{self, SpanKind, TimelineRow, TimelineSpan, Zoom};
use jiff::Timestamp;
use leptos::prelude::*;

use crate::{
    history::maintenance_timeline,
    i18n::{I18n, drain_outcome_text, elapsed_text, t_string, use_i18n},
};

/// How often the timeline is read again with nothing new in the history: the window moves on by itself.
const REFRESH_SECONDS: i64 = 300;

/// The timeline, its code loaded when it is first shown: in the release build (`end2end/scripts/build-site.sh`) it is
/// a part of the wasm of its own, as the dialogs are, so that the board's first load does not carry it.
#[lazy]
pub fn timeline_view(
    version: RwSignal<u64>,
    now: RwSignal<Timestamp>,
    nodes: usize,
    links: bool,
    name: Signal<String>,
) -> AnyView {
    view! { <Timeline version now nodes links name /> }.into_any()
}

/// The timeline of the `nodes` most recently maintained nodes. `version` moves at each change of any node's
/// history (the board stream says so), and the timeline is read again then; `now` is the page's clock. `name`,
/// the board's name filter, keeps the rows of the nodes whose names it matches.
#[component]
pub fn Timeline(
    version: RwSignal<u64>,
    now: RwSignal<Timestamp>,
    nodes: usize,
    links: bool,
    #[prop(optional, into)] name: Signal<String>,
) -> impl IntoView {
    let i18n = use_i18n();
    let recent = Resource::new(
        move || (version.get(), now.get().as_second() / REFRESH_SECONDS),
        move |_| maintenance_timeline(Some(nodes)),
    );
    let zoom = RwSignal::new(Zoom::default());
    let live = use_context::<crate::live::LiveNow>();
    let plans = move || live.and_then(|l| l.plans.get()).unwrap_or_default();
    // What is shown: the zoom chosen, or on the wall, which has no buttons, the one that fits the day's work.
    let shown = Memo::new(move |_| {
        if links {
            return zoom.get();
        }
        recent.with(|r| match r {
            Some(Ok(r)) => fitted(&r.entries, &plans(), nodes, r.server_time.unwrap_or_else(Timestamp::now)),
            _ => Zoom::Day,
        })
    });
    view! {
        <section class="timeline" data-testid="timeline" data-zoom=move || shown.get().key()>
            <h2>{move || title_text(i18n, shown.get())}</h2>
            // Not on the wall, which has nothing to click.
            {links.then(|| view! {
            <div class="timeline-zoom" role="group" aria-label=t_string!(i18n, timeline.zoom)>
                {Zoom::ALL.into_iter().map(|z| view! {
                    <button
                        type="button"
                        data-testid="timeline-zoom"
                        data-zoom=z.key()
                        aria-pressed=move || (zoom.get() == z).to_string()
                        on:click=move |_| zoom.set(z)
                    >
                        {zoom_text(i18n, z)}
                    </button>
                }).collect_view()}
            </div>
            })}
            <Transition fallback=|| ()>
                {move || {
                let typed = name.get();
                let zoom = shown.get();
                let plans = plans();
                Suspend::new(async move {
                    match recent.await {
                        Ok(r) if !r.kept => view! {
                            <p class="muted" data-testid="timeline-not-kept">{t_string!(i18n, timeline.not_kept)}</p>
                        }
                        .into_any(),
                        Ok(r) => {
                            let now = r.server_time.unwrap_or_else(Timestamp::now);
                            let since = now.checked_sub(zoom.span()).unwrap_or(Timestamp::MIN);
                            let filter = domain::board::Filter::new(&typed, "", Default::default());
                            let mut rows = timeline::timeline(&r.entries, since, now, nodes);
                            rows.retain(|row| filter.matches_name(&row.node));
                            let plan_rows = plan_rows(i18n, &plans, since, now);
                            if rows.is_empty() && plan_rows.is_empty() {
                                view! { <p class="muted" data-testid="timeline-empty">{t_string!(i18n, timeline.empty)}</p> }.into_any()
                            } else {
                                view! {
                                    <ol class="timeline-rows">
                                        {plan_rows}
                                        {rows.into_iter().map(|row| view! { <Row row since now links /> }).collect_view()}
                                    </ol>
                                    <p class="timeline-axis muted" aria-hidden="true">
                                        <span data-testid="timeline-axis-start" data-zoom=zoom.key()>{zoom_start_text(i18n, zoom)}</span>
                                        <span>{t_string!(i18n, timeline.axis_end)}</span>
                                    </p>
                                }
                                .into_any()
                            }
                        }
                        Err(err) => view! {
                            <p class="error" role="alert">{t_string!(i18n, timeline.failed, error = crate::i18n::error_text(i18n, &err))}</p>
                        }
                        .into_any(),
                    }
                })
                }}
            </Transition>
        </section>
    }
}

/// The zoom that shows the whole of the last day's work of these rows and plans (`Zoom::to_fit`).
fn fitted(
    entries: &[domain::audit::AuditEntry],
    plans: &[domain::rollout::RolloutProgress],
    nodes: usize,
    now: Timestamp,
) -> Zoom {
    let day = now.checked_sub(Zoom::Day.span()).unwrap_or(Timestamp::MIN);
    let spans = timeline::timeline(entries, day, now, nodes).into_iter().flat_map(|row| row.spans).map(|s| s.from);
    let plans =
        plans.iter().filter_map(|p| timeline::plan_span(p.started_at, p.finished_at, day, now)).map(|(from, _)| from);
    Zoom::to_fit(spans.chain(plans).min(), now)
}

/// The timeline's title for what it shows.
fn title_text(i18n: I18n, zoom: Zoom) -> String {
    match zoom {
        Zoom::Hour => t_string!(i18n, timeline.title_hour),
        Zoom::Tonight => t_string!(i18n, timeline.title_tonight),
        Zoom::Day => t_string!(i18n, timeline.title),
    }
    .to_string()
}

/// The zoom's button, in words.
fn zoom_text(i18n: I18n, zoom: Zoom) -> String {
    match zoom {
        Zoom::Hour => t_string!(i18n, timeline.zoom_hour),
        Zoom::Tonight => t_string!(i18n, timeline.zoom_tonight),
        Zoom::Day => t_string!(i18n, timeline.zoom_day),
    }
    .to_string()
}

/// Where the axis starts, in words.
fn zoom_start_text(i18n: I18n, zoom: Zoom) -> String {
    match zoom {
        Zoom::Hour => t_string!(i18n, timeline.axis_start_hour),
        Zoom::Tonight => t_string!(i18n, timeline.axis_start_tonight),
        Zoom::Day => t_string!(i18n, timeline.axis_start),
    }
    .to_string()
}

/// A line per maintenance plan that ran within the window: one span from its start to its end (or now).
fn plan_rows(i18n: I18n, plans: &[domain::rollout::RolloutProgress], since: Timestamp, now: Timestamp) -> Vec<AnyView> {
    plans
        .iter()
        .filter_map(|p| {
            let (from, to) = timeline::plan_span(p.started_at, p.finished_at, since, now)?;
            let (x, end) = (timeline::position(from, since, now), timeline::position(to, since, now));
            let width = end.saturating_sub(x).max(6);
            let x = x.min(1000 - width);
            let tally = crate::i18n::tally_text(i18n, &domain::tally::Tally::of(&p.nodes));
            let text = format!("{} · {} · {tally}", p.id, crate::i18n::plan_phase_text(i18n, p.phase()));
            let running = if p.finished_at.is_none() { " running" } else { "" };
            Some(
                view! {
                    <li class="timeline-row plan" data-testid="timeline-plan" data-plan=p.id.clone()>
                        <span class="timeline-node">{p.id.clone()}</span>
                        <svg class="timeline-track" viewBox="0 0 1000 30" preserveAspectRatio="none" aria-hidden="true">
                            <rect class=format!("span k-plan{running}") x=x y="6" width=width height="18" rx="2">
                                <title>{text.clone()}</title>
                            </rect>
                        </svg>
                        <p class="visually-hidden">{text}</p>
                    </li>
                }
                .into_any(),
            )
        })
        .collect()
}

/// One node's line: its name, its spans drawn across the window, and the same spans in words.
#[component]
fn Row(row: TimelineRow, since: Timestamp, now: Timestamp, links: bool) -> impl IntoView {
    let i18n = use_i18n();
    let node = row.node.clone();
    let name = if links {
        view! { <a class="timeline-node" href=crate::context::href(&format!("/nodes/{node}"))>{node.clone()}</a> }
            .into_any()
    } else {
        view! { <span class="timeline-node">{node.clone()}</span> }.into_any()
    };
    let drawn = row
        .spans
        .iter()
        .map(|s| view! { <SpanMark span=s.clone() node=node.clone() since now links /> })
        .collect_view();
    let words = row
        .spans
        .iter()
        .map(|s| {
            let text = span_text(i18n, s, now);
            match record_href(&node, s).filter(|_| links) {
                Some(href) => view! { <li><a href=href>{text}</a></li> }.into_any(),
                None => view! { <li>{text}</li> }.into_any(),
            }
        })
        .collect_view();
    view! {
        <li class="timeline-row" data-testid="timeline-row" data-node=node.clone()>
            {name}
            <svg class="timeline-track" viewBox="0 0 1000 30" preserveAspectRatio="none" aria-hidden="true">
                <line class="timeline-mid" x1="500" y1="0" x2="500" y2="30"></line>
                {drawn}
            </svg>
            <ul class="visually-hidden">{words}</ul>
        </li>
    }
}

/// The address of a drain's record: its node's page, which marks that drain's entries in the node's history
/// (`?record=`; `?drain=` would open the live progress panel, which a finished drain may no longer have).
fn record_href(node: &str, span: &TimelineSpan) -> Option<String> {
    let id = span.drain_id.as_deref().filter(|_| span.kind == SpanKind::Drain)?;
    let id: String = id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    Some(crate::context::href(&format!("/nodes/{node}?record={id}")))
}

/// One span on the track, in its kind's lane; a drain's links to its record.
#[component]
fn SpanMark(span: TimelineSpan, node: String, since: Timestamp, now: Timestamp, links: bool) -> impl IntoView {
    let i18n = use_i18n();
    let from = timeline::position(span.from, since, now);
    let to = timeline::position(span.to.unwrap_or(now), since, now);
    // At least a few thousandths wide, so that a short drain is still a mark, and inside the track at its right
    // edge (now), where a mark outside would be clipped.
    let width = to.saturating_sub(from).max(6);
    let from = from.min(1000 - width);
    let (y, height) = match span.kind {
        SpanKind::Cordoned => (1, 7),
        SpanKind::Drain => (10, 10),
        SpanKind::NotReady => (22, 7),
        SpanKind::OtherTool => (26, 4),
    };
    let result = match span.ok {
        Some(true) => "ok",
        Some(false) => "failed",
        None if span.to.is_none() => "running",
        None => "",
    };
    let unknown = if span.start_unknown { " unknown-start" } else { "" };
    let class = format!("span k-{} {result}{unknown}", span.kind.key());
    let title = span_text(i18n, &span, now);
    let href = record_href(&node, &span).filter(|_| links);
    view! {
        <g class="timeline-span" data-testid="timeline-span" data-kind=span.kind.key() data-result=result data-drain-id=span.drain_id.clone() data-start-unknown=span.start_unknown.to_string()>
            // Out of the tab order: the track is hidden from screen readers, and the same link is in the words
            // below it, which the keyboard reaches.
            <a href=href tabindex="-1">
                <rect class=class x=from y=y width=width height=height rx="1"></rect>
                <title>{title}</title>
            </a>
        </g>
    }
}

/// Another tool's work in the card's words ("karpenter is replacing or removing this node").
fn other_tool_text(i18n: I18n, span: &TimelineSpan) -> String {
    let actor = domain::actor::Actor::from_id(&span.by);
    let doing = span.outcome.as_deref().and_then(domain::actor::Doing::from_name);
    match (actor, doing) {
        (Some(actor), Some(doing)) => {
            let sighting =
                domain::actor::Sighting { actor, doing, marker: String::new(), at: None, detail: None, stale: false };
            crate::i18n::sighting_text(i18n, &sighting)
        }
        _ => span.by.clone(),
    }
}

/// A span in words: what, who, how long, and how it ended. A span whose start is not in the history says so, with
/// neither a who nor a duration it cannot know.
fn span_text(i18n: I18n, span: &TimelineSpan, now: Timestamp) -> String {
    let duration = elapsed_text(i18n, span.duration(now));
    let who = span.by.clone();
    // How a drain ended, in the page's language; an entry from before the history kept the state, as written.
    let outcome = || match &span.ended {
        Some(state) => drain_outcome_text(i18n, state),
        None => span.outcome.clone().unwrap_or_default(),
    };
    let text = match (span.kind, span.to) {
        (SpanKind::Cordoned, _) if span.start_unknown => t_string!(i18n, timeline.cordoned_unknown_start).to_string(),
        (SpanKind::Drain, _) if span.start_unknown => {
            t_string!(i18n, timeline.drain_unknown_start, outcome = outcome()).to_string()
        }
        (SpanKind::NotReady, _) if span.start_unknown => t_string!(i18n, timeline.not_ready_unknown_start).to_string(),
        (SpanKind::Cordoned, Some(_)) => t_string!(i18n, timeline.cordoned, who, duration).to_string(),
        (SpanKind::Cordoned, None) => t_string!(i18n, timeline.cordoned_still, who, duration).to_string(),
        (SpanKind::Drain, Some(_)) => t_string!(i18n, timeline.drain, who, duration, outcome = outcome()).to_string(),
        (SpanKind::Drain, None) => t_string!(i18n, timeline.drain_running, who, duration).to_string(),
        (SpanKind::NotReady, Some(_)) => t_string!(i18n, timeline.not_ready, duration).to_string(),
        (SpanKind::NotReady, None) => t_string!(i18n, timeline.not_ready_still, duration).to_string(),
        (SpanKind::OtherTool, to) => {
            let what = other_tool_text(i18n, span);
            match to {
                Some(_) => t_string!(i18n, timeline.other_tool, what, duration).to_string(),
                None => t_string!(i18n, timeline.other_tool_still, what, duration).to_string(),
            }
        }
    };
    let text = match span.reason.as_deref().or(span.outcome.as_deref().filter(|_| span.kind == SpanKind::NotReady)) {
        Some(reason) => format!("{text} · {reason}"),
        None => text,
    };
    match (span.end_observed, span.kind) {
        (true, SpanKind::Cordoned) => format!("{text} · {}", t_string!(i18n, timeline.uncordon_observed)),
        (true, _) => format!("{text} · {}", t_string!(i18n, timeline.end_observed)),
        (false, _) => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(kind: SpanKind, drain_id: Option<&str>) -> TimelineSpan {
        TimelineSpan {
            kind,
            from: Timestamp::UNIX_EPOCH,
            began_before: false,
            start_unknown: false,
            end_observed: false,
            to: None,
            by: "alice".into(),
            drain_id: drain_id.map(str::to_owned),
            outcome: None,
            ended: None,
            ok: None,
            reason: None,
        }
    }

    #[test]
    fn only_a_drain_links_to_its_record_and_its_id_cannot_break_out_of_the_address() {
        assert_eq!(record_href("n1", &span(SpanKind::Drain, Some("d-1"))).as_deref(), Some("/nodes/n1?record=d-1"));
        assert_eq!(
            record_href("n1", &span(SpanKind::Drain, Some("d1&drain=x\"/><script>"))).as_deref(),
            Some("/nodes/n1?record=d1drainxscript")
        );
        assert_eq!(record_href("n1", &span(SpanKind::Drain, None)), None);
        assert_eq!(record_href("n1", &span(SpanKind::Cordoned, Some("d-1"))), None);
        assert_eq!(record_href("n1", &span(SpanKind::NotReady, Some("d-1"))), None);
    }
}
