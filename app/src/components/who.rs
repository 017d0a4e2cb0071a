use leptos::prelude::*;

use crate::{
    i18n::{t_string, use_i18n},
    session::{SignOut, who_am_i},
};

/// In team mode, who the page acts as ("Signed in as alice", with the groups as a tooltip) and a Sign out
/// button. Nothing in local mode, where the operator is the only person.
#[component]
pub fn Who() -> impl IntoView {
    let i18n = use_i18n();
    let who = Resource::new(|| (), |_| who_am_i());
    let sign_out = ServerAction::<SignOut>::new();
    Effect::new(move |_| {
        if let Some(Ok(())) = sign_out.value().get() {
            #[cfg(feature = "hydrate")]
            let _ = window().location().set_href("/sign-in");
        }
    });
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match who.await {
                    Ok(Some(who)) if who.team => {
                        let groups = t_string!(i18n, session.groups, groups = who.groups.join(", ")).to_string();
                        view! {
                            <span class="who" data-testid="signed-in-as" title=groups>
                                {t_string!(i18n, session.signed_in_as, user = who.user.clone())}
                            </span>
                            <button type="button" data-testid="sign-out" on:click=move |_| {
                                sign_out.dispatch(SignOut {});
                            }>{t_string!(i18n, session.sign_out)}</button>
                        }
                        .into_any()
                    }
                    _ => ().into_any(),
                }
            })}
        </Suspense>
    }
}
