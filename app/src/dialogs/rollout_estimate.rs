//! The plan dialog's estimate: how long the whole plan should take, asked of the server (the same computation a
//! plan records as it starts), again whenever the nodes' drain options, the parallelism or the settle time change.

use domain::{
    drain::DrainOptions,
    estimate::{Estimate, NoEstimate, PlanEstimate},
    rollout::RolloutOptions,
    verify::Verify,
    window::{Fit, WindowFit},
};
use leptos::prelude::*;

use crate::{
    i18n::{
        I18n, basis_text, covers_text, elapsed_text, estimate_text, no_estimate_text, reboots_label, t_string, use_i18n,
    },
    rollouts::estimate_rollout,
};

/// What the estimate is asked with: the drain options, the parallelism, the settle time, whether each node is
/// awaited back and the checks it must pass by their deadline, once all are valid.
type Ask = (DrainOptions, u32, u64, bool, Option<Verify>);

/// The plan's estimate, or why there is none; nothing while the settings are not valid.
#[component]
pub fn PlanEstimateLine(nodes: StoredValue<Vec<String>>, ask: Memo<Option<Ask>>) -> impl IntoView {
    let i18n = use_i18n();
    let answer = RwSignal::new(None::<Result<Result<PlanEstimate, NoEstimate>, String>>);
    Effect::new(move |_| {
        let Some((drain, max_parallel, settle_seconds, uncordon_when_back, verify)) = ask.get() else {
            answer.set(None);
            return;
        };
        let options = RolloutOptions {
            max_parallel,
            one_per_zone: false,
            stop_on_failure: false,
            others_at_work: Default::default(),
            drain,
            uncordon_when_back,
            verify,
            unattended: false,
            settle_seconds,
        };
        let asked = ask.get_untracked();
        leptos::task::spawn_local(async move {
            let got = estimate_rollout(nodes.get_value(), options).await.map_err(|e| e.to_string());
            // A later change replaces this answer; only that of the current settings shows.
            if ask.get_untracked() == asked {
                answer.set(Some(got));
            }
        });
    });
    move || {
        answer.get().map(|got| match got {
            Ok(Ok(e)) => view! {
                <p class="hint" data-testid="plan-estimate" data-basis=e.total.basis.label() data-likely=e.total.likely_seconds
                    data-low=e.total.low_seconds data-high=e.total.high_seconds>
                    {estimate_text(i18n, &e.total, true)}
                    <span class="muted" data-testid="estimate-basis">" · " {basis_text(i18n, &e.total.basis, true)}</span>
                </p>
                {covers_text(i18n, &e.total).map(|text| view! {
                    <p class="hint" data-testid="plan-estimate-covers" data-reboots=reboots_label(&e.total.reboots)>{text}</p>
                })}
                {e.window.as_ref().map(|w| window_fit(i18n, w, &e.total))}
            }
            .into_any(),
            Ok(Err(why)) => {
                view! { <p class="hint bad" data-testid="plan-estimate">{no_estimate_text(i18n, &why)}</p> }.into_any()
            }
            Err(error) => view! {
                <p class="hint" data-testid="plan-estimate">{t_string!(i18n, estimate.unknown)} " (" {error} ")"</p>
            }
            .into_any(),
        })
    }
}

/// How the plan's estimate sits against the first of its windows to close (`domain::window::fit`): the rule is the
/// domain's, so the page and any script read the same verdict.
fn window_fit(i18n: I18n, w: &WindowFit, total: &Estimate) -> impl IntoView + use<> {
    let fit = domain::estimate::fit(w, total);
    let left = elapsed_text(i18n, jiff::SignedDuration::from_secs(i64::try_from(w.seconds_left()).unwrap_or(i64::MAX)));
    let (window, local, zone) = (w.window.clone(), w.local.clone(), w.zone.clone());
    let text = match fit {
        Fit::Fits => t_string!(i18n, estimate.window_fits, window, local, zone, left).to_string(),
        Fit::HighOver => t_string!(i18n, estimate.window_high_over, window, local, zone, left).to_string(),
        Fit::LikelyOver => t_string!(i18n, estimate.window_likely_over, window, local, zone, left).to_string(),
        Fit::Untold => t_string!(i18n, estimate.window_untold, window, local, zone, left).to_string(),
    };
    let key = match fit {
        Fit::Fits => "fits",
        Fit::HighOver => "high-over",
        Fit::LikelyOver => "likely-over",
        Fit::Untold => "untold",
    };
    let class = if fit == Fit::Fits { "hint" } else { "hint bad" };
    view! { <p class=class data-testid="plan-window-fit" data-fit=key data-window=w.window.clone()>{text}</p> }
}
