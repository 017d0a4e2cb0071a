//! The rollout dialog's word on zones: where two or more chosen nodes share one, the settings may leave that zone
//! without a schedulable node, and the dialog says so before anything starts.

use domain::{board::Board, rollout::shared_zones};
use leptos::prelude::*;

use crate::i18n::{t_string, use_i18n};

/// A warning when chosen nodes share a zone and "one per zone" is off (they may be out of service together), and a
/// note when it is on but drained nodes are not uncordoned once back (each zone ends with all of them cordoned).
/// The zones come from the board the page holds; before it has come, nothing is said.
#[component]
pub fn ZoneWarning(
    nodes: StoredValue<Vec<String>>,
    board: RwSignal<Option<Board>>,
    one_per_zone: RwSignal<bool>,
    uncordon_when_back: RwSignal<bool>,
) -> impl IntoView {
    let i18n = use_i18n();
    let shared = Memo::new(move |_| {
        board.with(|b| {
            let Some(b) = b else { return Vec::new() };
            nodes.with_value(|names| {
                shared_zones(names.iter().map(|n| (n.as_str(), b.cards.get(n).and_then(|c| c.zone.as_deref()))))
            })
        })
    });
    move || {
        let zones = shared.with(|s| s.iter().map(|(z, n)| format!("{z} ({})", n.join(", "))).collect::<Vec<_>>());
        if zones.is_empty() {
            return None;
        }
        let zones = zones.join("; ");
        Some(if !one_per_zone.get() {
            view! {
                <p class="hint bad" role="note" data-testid="rollout-zone-warning">
                    {t_string!(i18n, rollout.zones_shared, zones)}
                </p>
            }
            .into_any()
        } else if !uncordon_when_back.get() {
            view! {
                <p class="hint" role="note" data-testid="rollout-zone-note">
                    {t_string!(i18n, rollout.zones_stay_cordoned, zones)}
                </p>
            }
            .into_any()
        } else {
            ().into_any()
        })
    }
}
