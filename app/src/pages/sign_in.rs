//! Team mode's sign-in page: a bearer token, or a kubeconfig with inline credentials and the context to use.
//! What is pasted goes to the server once, over the same origin, and is never stored by the page.

use leptos::prelude::*;

use crate::{
    i18n::{t_string, use_i18n},
    session::SignIn,
};

#[component]
pub fn SignInPage() -> impl IntoView {
    let i18n = use_i18n();
    let with_kubeconfig = RwSignal::new(false);
    let secret = RwSignal::new(String::new());
    let context = RwSignal::new(String::new());
    let sign_in = ServerAction::<SignIn>::new();
    // Set once the page runs in the browser: tests (and people) act on the form after that.
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let text = secret.get_untracked();
        let (token, kubeconfig) = if with_kubeconfig.get_untracked() { (None, Some(text)) } else { (Some(text), None) };
        sign_in.dispatch(SignIn { token, kubeconfig, context: Some(context.get_untracked()) });
    };
    // Signed in: load the board afresh, so that every part of the page acts as the new session.
    Effect::new(move |_| {
        if let Some(Ok(_)) = sign_in.value().get() {
            secret.set(String::new());
            #[cfg(feature = "hydrate")]
            let _ = window().location().set_href("/");
        }
    });
    view! {
        <section class="sign-in" data-testid="sign-in" data-hydrated=move || hydrated.get().to_string()>
            <h2>{t_string!(i18n, session.title)}</h2>
            <p>{t_string!(i18n, session.intro)}</p>
            <form on:submit=submit>
                <fieldset>
                    <label>
                        <input type="radio" name="kind" data-testid="with-token" prop:checked=move || !with_kubeconfig.get()
                            on:change=move |_| with_kubeconfig.set(false) />
                        {t_string!(i18n, session.with_token)}
                    </label>
                    <label>
                        <input type="radio" name="kind" data-testid="with-kubeconfig" prop:checked=move || with_kubeconfig.get()
                            on:change=move |_| with_kubeconfig.set(true) />
                        {t_string!(i18n, session.with_kubeconfig)}
                    </label>
                </fieldset>
                <label class="stacked">
                    {move || if with_kubeconfig.get() {
                        t_string!(i18n, session.kubeconfig_label).to_string()
                    } else {
                        t_string!(i18n, session.token_label).to_string()
                    }}
                    <textarea data-testid="secret" rows=8 spellcheck="false" autocomplete="off" required
                        prop:value=move || secret.get() on:input=move |ev| secret.set(event_target_value(&ev)) />
                </label>
                <Show when=move || with_kubeconfig.get()>
                    <p class="hint">{t_string!(i18n, session.kubeconfig_hint)}</p>
                    <label class="stacked">
                        {t_string!(i18n, session.context_label)}
                        <input type="text" data-testid="context" autocomplete="off"
                            prop:value=move || context.get() on:input=move |ev| context.set(event_target_value(&ev)) />
                    </label>
                </Show>
                <p class="hint">{t_string!(i18n, session.exec_hint)}</p>
                <p class="hint">{t_string!(i18n, session.kept)}</p>
                <button type="submit" data-testid="sign-in-submit" disabled=move || sign_in.pending().get()>
                    {move || if sign_in.pending().get() {
                        t_string!(i18n, session.signing_in).to_string()
                    } else {
                        t_string!(i18n, session.submit).to_string()
                    }}
                </button>
            </form>
            <p class="notice error" role="alert" data-testid="sign-in-error">
                {move || match sign_in.value().get() {
                    Some(Err(err)) => t_string!(i18n, session.failed, error = err.to_string()).to_string(),
                    _ => String::new(),
                }}
            </p>
        </section>
    }
}
