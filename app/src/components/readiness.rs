//! What would hold the next drain (`domain::readiness`), on screen: one answer as a list (each stalling node with
//! its holds, whom to call and the fix), the versions view's check of the nodes shown, and the board's line per
//! maintenance window with its badge. Read from `POST /api/readiness` as the person; nothing is changed.

use domain::readiness::{Readiness, WindowScope, first_stall, window_scopes};
use jiff::Timestamp;
use leptos::prelude::*;

use crate::{
    components::windows::WindowsCover,
    i18n::{I18n, readiness_text, t_string, use_i18n},
    readiness::readiness_check,
    windows::window_decisions,
};

/// How often the board checks its windows' nodes again: a budget changed by an app team shows within this. Each
/// check previews up to 500 nodes a window and runs the capacity check, for each viewer, so it is not every few
/// seconds as the windows' own line is.
const WINDOW_REFRESH_SECONDS: i64 = 300;

/// One answer: each node with holds, its holds; the budgets that select nothing; what could not be checked.
#[component]
pub fn ReadinessAnswer(answer: Readiness) -> AnyView {
    let i18n = use_i18n();
    let held: Vec<_> = answer.nodes.iter().filter(|n| !n.holds.is_empty()).cloned().collect();
    let checked = answer.nodes.len();
    let stalling = answer.stalling().count();
    view! {
        <div class="readiness-answer" data-testid="readiness-answer" data-stalling=stalling>
            <p data-testid="readiness-summary">
                {if stalling == 0 {
                    t_string!(i18n, readiness.clear, count = checked).to_string()
                } else {
                    t_string!(i18n, readiness.stalling, stalling, count = checked).to_string()
                }}
            </p>
            <ul class="readiness-nodes">
                {held
                    .into_iter()
                    .map(|node| {
                        let stalls = node.stalls();
                        view! {
                            <li data-testid="readiness-node" data-node=node.node.clone() data-stalls=stalls.to_string()>
                                <strong>{node.node.clone()}</strong>
                                <ul>
                                    {node
                                        .holds
                                        .iter()
                                        .map(|hold| view! {
                                            <li
                                                class=if hold.stalls() { "blocked" } else { "muted" }
                                                data-testid="readiness-hold"
                                                data-class=hold.class()
                                                data-namespace=hold.namespace().to_owned()
                                            >
                                                {readiness_text(i18n, hold)}
                                            </li>
                                        })
                                        .collect_view()}
                                </ul>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            {(!answer.idle_budgets.is_empty()).then(|| {
                let budgets = answer.idle_budgets.iter().map(|b| format!("{}/{}", b.namespace, b.budget)).collect::<Vec<_>>();
                view! {
                    <p class="hint" data-testid="readiness-idle" data-count=budgets.len()>
                        {t_string!(i18n, readiness.idle, count = budgets.len(), budgets = budgets.join(", "))}
                    </p>
                }
            })}
            {answer.unchecked.iter().map(|what| view! {
                <p class="warning" role="note" data-testid="readiness-unchecked">{t_string!(i18n, readiness.unchecked, what = what.clone())}</p>
            }).collect_view()}
        </div>
    }
    .into_any()
}

/// The versions view's check: what would hold a drain of each node the filters show, asked on a click (a check
/// reads every node's pods and budgets, so it is not run at each change of the filters).
#[component]
pub fn CheckReadiness(nodes: Signal<Vec<String>>) -> AnyView {
    let i18n = use_i18n();
    let check = ServerAction::<crate::readiness::ReadinessCheck>::new();
    let count = move || nodes.with(Vec::len);
    let too_many = move || count() > domain::readiness::MAX_NODES;
    view! {
        <section class="readiness" data-testid="readiness" aria-live="polite">
            <h3>{t_string!(i18n, readiness.heading)}</h3>
            <p>
                <button
                    type="button"
                    data-testid="readiness-check"
                    disabled=move || count() == 0 || too_many() || check.pending().get()
                    on:click=move |_| { check.dispatch(crate::readiness::ReadinessCheck { nodes: nodes.get_untracked() }); }
                >
                    {move || t_string!(i18n, readiness.check, count = count()).to_string()}
                </button>
                " "
                {move || too_many().then(|| view! {
                    <small class="error" data-testid="readiness-too-many">
                        {t_string!(i18n, readiness.too_many, max = domain::readiness::MAX_NODES)}
                    </small>
                })}
            </p>
            {move || match check.value().get() {
                Some(Ok(answer)) => view! { <ReadinessAnswer answer /> }.into_any(),
                Some(Err(error)) => view! {
                    <p class="error" role="alert" data-testid="readiness-error">{crate::i18n::failed_text(i18n, &error)}</p>
                }
                .into_any(),
                None => ().into_any(),
            }}
        </section>
    }
    .into_any()
}

/// The board's line per maintenance window: "tonight (Mon 22:00 Asia/Tokyo) will stall on node-7: …", with a badge
/// counting the windows' nodes whose drain would stall. Checked every 5 minutes; nothing shows while no window
/// would stall. Its code is a part of the wasm of its own, loaded once a window covers a node, as the page's
/// [`WindowsCover`] says: the windows line sets it in the browser only, once hydrated, so the line never renders
/// on the server, and a cluster without windows never loads it. A page that keeps no `WindowsCover` shows none.
#[component]
pub fn WindowReadiness(now: Signal<Timestamp>) -> impl IntoView {
    let covered = use_context::<WindowsCover>();
    move || {
        covered
            .is_some_and(|WindowsCover(c)| c.get())
            .then(|| view! { <Suspense fallback=|| ()>{Suspend::new(readiness_line(now))}</Suspense> })
    }
}

/// The line itself, checked every [`WINDOW_REFRESH_SECONDS`].
#[lazy]
fn readiness_line(now: Signal<Timestamp>) -> AnyView {
    let i18n = use_i18n();
    let lines = LocalResource::new(move || {
        let _tick = now.get().as_second() / WINDOW_REFRESH_SECONDS;
        async move {
            let Ok(decisions) = window_decisions().await else { return Vec::new() };
            let mut lines = Vec::new();
            for scope in window_scopes(&decisions.nodes) {
                if let Ok(answer) = readiness_check(scope.nodes.clone()).await {
                    lines.push((scope, answer));
                }
            }
            lines
        }
    });
    (move || {
        let lines = lines.get().unwrap_or_default();
        let stalling: std::collections::BTreeSet<String> =
            lines.iter().flat_map(|(_, a)| a.stalling().map(|n| n.node.clone())).collect();
        (!stalling.is_empty()).then(|| {
            let count = stalling.len();
            view! {
                <section class="window-readiness" data-testid="window-readiness" role="status">
                    <span class="badge warn" data-testid="readiness-badge" data-count=count>
                        {t_string!(i18n, readiness.badge, count)}
                    </span>
                    <ul>{lines.iter().filter_map(|(scope, answer)| line(i18n, scope, answer)).collect_view()}</ul>
                </section>
            }
        })
    })
    .into_any()
}

/// One window's line, if any of its nodes would stall.
fn line(i18n: I18n, scope: &WindowScope, answer: &Readiness) -> Option<AnyView> {
    let (node, hold, more) = first_stall(answer)?;
    let (window, node_name, why) = (scope.window.clone(), node.to_owned(), readiness_text(i18n, hold));
    // While the window's calendar keeps it closed, the line says when it opens; otherwise (open, or held for
    // another reason the windows line names) it says nothing of time.
    let text = match &scope.opens {
        Some((local, zone)) => t_string!(
            i18n,
            readiness.window_line,
            window,
            local = local.clone(),
            zone = zone.clone(),
            node = node_name,
            why
        )
        .to_string(),
        None => t_string!(i18n, readiness.window_line_now, window, node = node_name, why).to_string(),
    };
    let more = (more > 0).then(|| t_string!(i18n, readiness.window_more, count = more).to_string());
    Some(
        view! {
            <li data-testid="window-readiness-line" data-window=scope.window.clone() data-node=node.to_owned() data-class=hold.class()>
                {text} {more.map(|m| format!(" {m}"))}
            </li>
        }
        .into_any(),
    )
}
