//! Who runs a maintenance plan, and why it waits when nobody can: the line under a rollout's header, with the
//! Continue button that hands this server the viewer's credentials for a plan whose server stopped.

use domain::rollout::RolloutProgress;
use leptos::prelude::*;

use crate::{
    i18n::{t_string, use_i18n},
    rollouts::ContinueRollout,
};

/// The runner, the plan's blocked reason and who continued it, for the rollout `rollout` (by id `id`).
#[component]
pub fn PlanRunner(id: StoredValue<String>, rollout: Memo<Option<RolloutProgress>>) -> impl IntoView {
    let i18n = use_i18n();
    let resume = ServerAction::<ContinueRollout>::new();
    let runner = move || rollout.with(|r| r.as_ref().and_then(|r| r.runner.clone()));
    let blocked = move || rollout.with(|r| r.as_ref().and_then(|r| r.blocked.clone()));
    let continued = move || rollout.with(|r| r.as_ref().and_then(|r| r.continued_by.clone()));
    let error =
        move || resume.value().get().and_then(Result::err).map(|error| t_string!(i18n, app.failed, error).to_string());
    view! {
        {move || runner().map(|runner| view! {
            <p class="plan-runner" data-testid="plan-runner">{t_string!(i18n, rollout.run_by, runner = runner)}</p>
        })}
        {move || continued().map(|by| view! {
            <p class="plan-continued" data-testid="plan-continued-by">{t_string!(i18n, rollout.continued_by, by = by)}</p>
        })}
        {move || blocked().map(|why| view! {
            <p class="plan-blocked" role="status" data-testid="plan-blocked">
                {t_string!(i18n, rollout.blocked, why = why)} " "
                <button
                    type="button"
                    class="primary"
                    data-testid="plan-continue"
                    disabled=move || resume.pending().get()
                    on:click=move |_| { resume.dispatch(ContinueRollout { id: id.get_value() }); }
                >
                    {t_string!(i18n, rollout.continue_as_me)}
                </button>
            </p>
        })}
        {move || error().map(|e| view! { <p class="error" role="alert" data-testid="plan-continue-error">{e}</p> })}
    }
}
