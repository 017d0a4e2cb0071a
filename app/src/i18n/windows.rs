//! What a maintenance window holds (`domain::window::Hold`), in the page's language: names, numbers and the
//! API's own words are data; the sentence is the catalogue's.

use domain::window::Hold;
use jiff::Timestamp;

use super::{I18n, date_time_text, elapsed_text, local_time_text, t_string};

/// One hold in words, at `now` (the server's clock): "outside its window; opens Tue 02:00 Asia/Tokyo, in 5h12m".
pub fn hold_text(i18n: I18n, hold: &Hold, now: Timestamp) -> String {
    let until = |t: Timestamp| elapsed_text(i18n, now.duration_until(t).max(jiff::SignedDuration::ZERO));
    let far = |t: Timestamp| now.duration_until(t) > jiff::SignedDuration::from_hours(20);
    match hold {
        // On the window's clock, in the reader's language; the day too when it is more than a day off.
        // A zone whose name is its abbreviation (UTC) is named once.
        Hold::OutsideWindow { opens: Some(opens), at: Some(at), zone, .. } if *zone == at.abbreviation => {
            let local = local_time_text(i18n, at, far(*opens));
            t_string!(i18n, windows.outside_at_utc, local, after = until(*opens)).to_string()
        }
        Hold::OutsideWindow { opens: Some(opens), at: Some(at), zone, .. } => {
            let local = local_time_text(i18n, at, far(*opens));
            t_string!(i18n, windows.outside_at, local, zone = zone.clone(), after = until(*opens)).to_string()
        }
        Hold::OutsideWindow { opens: Some(opens), local: Some(local), zone, .. } => {
            t_string!(i18n, windows.outside, local = local.clone(), zone = zone.clone(), after = until(*opens))
                .to_string()
        }
        Hold::OutsideWindow { .. } => t_string!(i18n, windows.outside_never).to_string(),
        Hold::Frozen { reason, until: end, ends: Some(ends), zone } if *zone == ends.abbreviation => t_string!(
            i18n,
            windows.frozen_at_utc,
            reason = reason.clone(),
            end = local_time_text(i18n, ends, far(*end)),
            after = until(*end)
        )
        .to_string(),
        Hold::Frozen { reason, until: end, ends: Some(ends), zone } => t_string!(
            i18n,
            windows.frozen_at,
            reason = reason.clone(),
            end = local_time_text(i18n, ends, far(*end)),
            zone = zone.clone(),
            after = until(*end)
        )
        .to_string(),
        Hold::Frozen { reason, until: end, .. } => t_string!(
            i18n,
            windows.frozen,
            reason = reason.clone(),
            end = date_time_text(i18n, *end),
            after = until(*end)
        )
        .to_string(),
        Hold::Budget { in_maintenance, max } => {
            t_string!(i18n, windows.budget, in_maintenance = *in_maintenance, max = *max).to_string()
        }
        Hold::Alert { name, matched } => {
            t_string!(i18n, windows.alert, name = name.clone(), matched = matched.clone()).to_string()
        }
        Hold::AlertsUnknown { why } => t_string!(i18n, windows.alerts_unknown, why = why.clone()).to_string(),
        // A pod the person may not read is not named to them.
        Hold::Pod { name, .. } if name.is_empty() => t_string!(i18n, windows.pod_hidden).to_string(),
        Hold::Pod { namespace, name, node: Some(node) } => {
            t_string!(i18n, windows.pod_on, pod = format!("{namespace}/{name}"), node = node.clone()).to_string()
        }
        Hold::Pod { namespace, name, node: None } => {
            t_string!(i18n, windows.pod, pod = format!("{namespace}/{name}")).to_string()
        }
        Hold::NotReadyStorm { not_ready, max } => {
            t_string!(i18n, windows.storm, not_ready = *not_ready, max = *max).to_string()
        }
        Hold::Invalid { why } => t_string!(i18n, windows.invalid, why = why.clone()).to_string(),
    }
}
