//! Why the rollout dialog's Start is disabled, in words beside the button: each refused pod of each node with the
//! options that would let the drain take it, as the single drain dialog's preview says, then whatever else holds
//! the start (the typed word, a setting, a permission).

use domain::{PodRef, actions::Unavailable, preview::Preview};
use leptos::prelude::*;

use super::drain::needs_text;
use crate::i18n::{I18n, missing_permission_text, refusal_text, t_string, use_i18n};

/// What holds Start, apart from the plans of the nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Held {
    /// A number in the drain options does not read.
    pub bad_option: bool,
    /// A rollout setting (parallelism, settle time, checks) is out of range; its field says which.
    pub bad_setting: bool,
    /// The word to type, when a destructive option is on and it has not been typed.
    pub untyped: Option<String>,
    /// What the person may not do, if anything.
    pub unavailable: Option<Unavailable>,
}

/// The reasons, in the order a person would deal with them; empty when nothing holds Start but a pending request.
pub(super) fn reasons<'a>(
    i18n: I18n,
    plans: Option<impl IntoIterator<Item = (&'a String, &'a Result<Preview, String>)>>,
    held: &Held,
) -> Vec<String> {
    let mut out = Vec::new();
    match plans {
        None => out.push(t_string!(i18n, rollout.why_planning).to_string()),
        Some(plans) => {
            for (node, plan) in plans {
                match plan {
                    Ok(p) => out.extend(p.refused.iter().map(|r| {
                        let (pod, reason, needs) =
                            (r.pod.key(), refusal_text(i18n, &r.reason), needs_text(i18n, &r.needs));
                        t_string!(i18n, rollout.why_refused, node, pod, reason, needs).to_string()
                    })),
                    Err(error) => out.push(t_string!(i18n, rollout.plan_error, node, error).to_string()),
                }
            }
        }
    }
    if held.bad_option {
        out.push(t_string!(i18n, drain.bad_number_hint).to_string());
    }
    if held.bad_setting {
        out.push(t_string!(i18n, rollout.why_settings).to_string());
    }
    if let Some(word) = &held.untyped {
        out.push(t_string!(i18n, rollout.why_type, word).to_string());
    }
    match &held.unavailable {
        Some(Unavailable::Missing(missing)) => out.push(missing_permission_text(i18n, missing)),
        Some(Unavailable::Checking) => out.push(t_string!(i18n, rollout.why_checking).to_string()),
        _ => {}
    }
    out
}

/// The list under the buttons, while anything holds Start.
#[component]
pub(super) fn WhyNotStart(reasons: Signal<Vec<String>>) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let reasons = reasons.get();
        (!reasons.is_empty()).then(|| view! {
            <div class="hint" data-testid="rollout-why-disabled">
                <p>{t_string!(i18n, rollout.why_title)}</p>
                <ul>{reasons.into_iter().map(|r| view! { <li data-testid="rollout-why">{r}</li> }).collect_view()}</ul>
            </div>
        })
    }
}
