use leptos::prelude::*;

use crate::{
    i18n::{t_string, use_i18n},
    session::{SignOut, who_am_i},
};

/// In team mode, who the page acts as ("Signed in as alice (devs, system:authenticated)", every group in the
/// tooltip) and a Sign out button: the groups are what RBAC judges, so a person sees at once that they signed in
/// with the credentials they meant. Nothing in local mode, where the operator is the only person.
///
/// Signing out first asks the server whether drains of the person's still run: if so, the page says plainly that
/// they go on under the credentials they started with, and signs out only once the person confirms.
#[component]
pub fn Who() -> impl IntoView {
    let i18n = use_i18n();
    let who = Resource::new(|| (), |_| who_am_i());
    let sign_out = ServerAction::<SignOut>::new();
    let going_on = RwSignal::new(None::<usize>);
    Effect::new(move |_| match sign_out.value().get() {
        Some(Ok(answer)) if answer.signed_out => {
            #[cfg(feature = "hydrate")]
            let _ = window().location().set_href("/sign-in");
        }
        Some(Ok(answer)) => going_on.set(Some(answer.running_drains)),
        _ => {}
    });
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match who.await {
                    Ok(Some(who)) if who.team => {
                        let groups = t_string!(i18n, session.groups, groups = who.groups.join(", ")).to_string();
                        let shown = shown_groups(&who.groups);
                        view! {
                            <span class="who" data-testid="signed-in-as" title=groups>
                                {t_string!(i18n, session.signed_in_as, user = who.user.clone())}
                            </span>
                            {shown.map(|shown| view! {
                                <span class="who-groups muted" data-testid="signed-in-groups">{shown}</span>
                            })}
                            <button type="button" data-testid="sign-out" on:click=move |_| {
                                sign_out.dispatch(SignOut { ask: true });
                            }>{t_string!(i18n, session.sign_out)}</button>
                            {move || going_on.get().map(|count| view! {
                                <div class="notice sign-out-confirm" role="alertdialog" data-testid="sign-out-drains">
                                    <p>{t_string!(i18n, session.drains_go_on, count = count)}</p>
                                    <button type="button" data-testid="sign-out-confirm" on:click=move |_| {
                                        sign_out.dispatch(SignOut { ask: false });
                                    }>{t_string!(i18n, session.sign_out_anyway)}</button>
                                    <button type="button" data-testid="sign-out-stay" on:click=move |_| {
                                        going_on.set(None);
                                    }>{t_string!(i18n, session.stay)}</button>
                                </div>
                            })}
                        }
                        .into_any()
                    }
                    _ => ().into_any(),
                }
            })}
        </Suspense>
    }
}

/// How many groups the header names before it counts the rest.
const GROUPS_SHOWN: usize = 4;

/// The groups as the header shows them: `(a, b, c, d, +2)`; nothing when there are none.
fn shown_groups(groups: &[String]) -> Option<String> {
    if groups.is_empty() {
        return None;
    }
    let mut parts: Vec<String> = groups.iter().take(GROUPS_SHOWN).cloned().collect();
    if groups.len() > GROUPS_SHOWN {
        parts.push(format!("+{}", groups.len() - GROUPS_SHOWN));
    }
    Some(format!("({})", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::shown_groups;

    #[test]
    fn the_header_names_a_few_groups_and_counts_the_rest() {
        let groups = |n: usize| (1..=n).map(|i| format!("g{i}")).collect::<Vec<_>>();
        assert_eq!(shown_groups(&[]), None);
        assert_eq!(shown_groups(&groups(2)).as_deref(), Some("(g1, g2)"));
        assert_eq!(shown_groups(&groups(4)).as_deref(), Some("(g1, g2, g3, g4)"));
        assert_eq!(shown_groups(&groups(7)).as_deref(), Some("(g1, g2, g3, g4, +3)"));
    }
}
