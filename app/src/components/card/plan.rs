//! The maintenance plan a node is part of, on its card and its page: the plan's name and where the node stands
//! in it (`domain::tally`), and for a node awaited back what the people watching must do, with "It is back".

use domain::{node::NodeCard, tally::Standing};
use leptos::prelude::*;

use crate::{
    i18n::{I18n, t_string, use_i18n},
    live::LiveNow,
};

/// Where a node stands in its plan, in words.
fn standing_text(i18n: I18n, standing: Standing) -> String {
    match standing {
        Standing::Queued => t_string!(i18n, card.plan_queued),
        Standing::Draining => t_string!(i18n, card.plan_draining),
        Standing::Awaited => t_string!(i18n, card.plan_awaited),
        Standing::Recovering => t_string!(i18n, card.plan_recovering),
        Standing::Done => t_string!(i18n, card.plan_done),
        Standing::LeftCordoned => t_string!(i18n, card.plan_left_cordoned),
        Standing::Stopped => t_string!(i18n, card.plan_stopped),
        Standing::Failed => t_string!(i18n, card.plan_failed),
        Standing::NotStarted => t_string!(i18n, card.plan_not_started),
    }
    .to_string()
}

#[component]
pub fn CardPlan(card: Memo<NodeCard>) -> impl IntoView {
    let i18n = use_i18n();
    let live = use_context::<LiveNow>();
    let part = Memo::new(move |_| {
        let index = live?.part_of;
        card.with(|c| index.with(|i| i.get(&c.name).cloned()))
    });
    move || {
        part.get().map(|crate::live::InPlan { plan, standing, awaited_from: boot }| {
            let node = card.with_untracked(|c| c.name.clone());
            let text = match standing {
                Standing::Awaited => t_string!(i18n, card.plan_reboot, plan = plan.clone()).to_string(),
                other => t_string!(i18n, card.plan_part, plan = plan.clone(), standing = standing_text(i18n, other))
                    .to_string(),
            };
            let id = plan.clone();
            view! {
                <p class="card-plan" data-testid="card-plan" data-plan=id data-standing=standing.label()>
                    {text}
                    {boot.map(|boot_then| view! {
                        " " <crate::components::rollouts::BackAction plan node boot_then />
                    })}
                </p>
            }
            .into_any()
        })
    }
}
