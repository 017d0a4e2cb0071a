//! The rollout dialog's settings for what happens after each node: the settle time before the next one, and, when
//! drained nodes are uncordoned once back, the checks they must pass first (`domain::verify`), as the plan's spec
//! takes them. The same bounds as the server's (`domain::rollout::check`), so the dialog never offers a plan the
//! server would refuse.

use domain::{
    rollout::MAX_SETTLE_SECONDS,
    verify::{Component, MAX_DEADLINE_SECONDS, Verify, check_request},
};
use leptos::prelude::*;

use crate::i18n::{t_string, use_i18n};

/// What the person typed and ticked.
#[derive(Clone, Copy)]
pub struct After {
    pub settle: RwSignal<String>,
    pub verify: RwSignal<bool>,
    pub deadline_minutes: RwSignal<String>,
    pub kubelet: RwSignal<String>,
    pub kernel: RwSignal<String>,
    pub os_image: RwSignal<String>,
    pub container_runtime: RwSignal<String>,
    pub continue_on_failure: RwSignal<bool>,
}

impl After {
    pub fn new() -> Self {
        After {
            settle: RwSignal::new("0".into()),
            verify: RwSignal::new(false),
            deadline_minutes: RwSignal::new("10".into()),
            kubelet: RwSignal::new(String::new()),
            kernel: RwSignal::new(String::new()),
            os_image: RwSignal::new(String::new()),
            container_runtime: RwSignal::new(String::new()),
            continue_on_failure: RwSignal::new(false),
        }
    }

    /// The field of `component`.
    fn field(&self, component: Component) -> RwSignal<String> {
        match component {
            Component::Kubelet => self.kubelet,
            Component::Kernel => self.kernel,
            Component::OsImage => self.os_image,
            Component::ContainerRuntime => self.container_runtime,
        }
    }

    /// Checks on, expecting `component` to be `value`.
    pub fn expect(&self, component: Component, value: String) {
        self.verify.set(true);
        self.field(component).set(value);
    }

    /// The settle time typed, if it is a whole number of seconds in range.
    pub fn settle_seconds(&self) -> Option<u64> {
        self.settle.get().trim().parse::<u64>().ok().filter(|s| *s <= MAX_SETTLE_SECONDS)
    }

    /// The checks asked for when nodes are uncordoned once back (`Ok(None)`: none); `Err` when what was typed is
    /// out of bounds.
    pub fn checks(&self, uncordon_when_back: bool) -> Result<Option<Verify>, ()> {
        if !uncordon_when_back || !self.verify.get() {
            return Ok(None);
        }
        let minutes = self.deadline_minutes.get().trim().parse::<u64>().map_err(|_| ())?;
        let deadline_seconds = minutes.checked_mul(60).filter(|s| (1..=MAX_DEADLINE_SECONDS).contains(s)).ok_or(())?;
        let typed = |s: RwSignal<String>| Some(s.get().trim().to_owned()).filter(|s| !s.is_empty());
        let verify = Verify {
            deadline_seconds,
            kubelet_version: typed(self.kubelet),
            kernel_version: typed(self.kernel),
            os_image: typed(self.os_image),
            container_runtime: typed(self.container_runtime),
            continue_on_failure: self.continue_on_failure.get(),
        };
        check_request(&verify).map_err(|_| ())?;
        Ok(Some(verify))
    }
}

/// The settle time, and the checks once `uncordon_when_back` is on.
#[component]
pub fn AfterEachNode(after: After, uncordon_when_back: RwSignal<bool>) -> AnyView {
    let i18n = use_i18n();
    let text = move |label: String, testid: &'static str, value: RwSignal<String>, kind: &'static str| {
        view! {
            <label class="field">
                <span>{label}</span>
                <input type=kind data-testid=testid prop:value=value on:input=move |ev| value.set(event_target_value(&ev)) />
            </label>
        }
        .into_any()
    };
    view! {
        {text(t_string!(i18n, rollout.settle).to_string(), "rollout-settle", after.settle, "number")}
        {move || after.settle_seconds().is_none().then(|| view! {
            <small class="error" data-testid="rollout-settle-error">{t_string!(i18n, rollout.bad_settle)}</small>
        })}
        {move || uncordon_when_back.get().then(|| view! {
            <label class="toggle">
                <input type="checkbox" data-testid="rollout-verify" prop:checked=after.verify on:change=move |ev| after.verify.set(event_target_checked(&ev)) />
                <span><strong>{t_string!(i18n, rollout.verify)}</strong></span>
            </label>
            {move || after.verify.get().then(|| view! {
                <div class="verify-fields" data-testid="rollout-verify-fields">
                    {text(t_string!(i18n, rollout.verify_deadline).to_string(), "rollout-verify-deadline", after.deadline_minutes, "number")}
                    {text(t_string!(i18n, rollout.verify_kubelet).to_string(), "rollout-verify-kubelet", after.kubelet, "text")}
                    {text(t_string!(i18n, rollout.verify_kernel).to_string(), "rollout-verify-kernel", after.kernel, "text")}
                    {text(t_string!(i18n, rollout.verify_os_image).to_string(), "rollout-verify-os-image", after.os_image, "text")}
                    {text(t_string!(i18n, rollout.verify_container_runtime).to_string(), "rollout-verify-container-runtime", after.container_runtime, "text")}
                    <label class="toggle">
                        <input type="checkbox" data-testid="rollout-verify-continue" prop:checked=after.continue_on_failure on:change=move |ev| after.continue_on_failure.set(event_target_checked(&ev)) />
                        <span>{t_string!(i18n, rollout.verify_continue)}</span>
                    </label>
                    <p class="hint">{t_string!(i18n, rollout.verify_hint)}</p>
                    {move || after.checks(true).is_err().then(|| view! {
                        <small class="error" data-testid="rollout-verify-error">{t_string!(i18n, rollout.bad_verify)}</small>
                    })}
                </div>
            }.into_any())}
        }.into_any())}
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_hold_the_servers_bounds() {
        Owner::new().with(|| {
            let after = After::new();
            assert_eq!(after.settle_seconds(), Some(0));
            after.settle.set("3601".into());
            assert_eq!(after.settle_seconds(), None);
            after.settle.set(" 90 ".into());
            assert_eq!(after.settle_seconds(), Some(90));
            assert_eq!(after.checks(true), Ok(None), "not asked");
            after.verify.set(true);
            assert_eq!(after.checks(false), Ok(None), "no checks without uncordoning once back");
            let checks = after.checks(true).unwrap().unwrap();
            assert_eq!((checks.deadline_seconds, checks.kubelet_version), (600, None));
            after.kubelet.set(" v1.36 ".into());
            assert_eq!(after.checks(true).unwrap().unwrap().kubelet_version.as_deref(), Some("v1.36"));
            for bad in ["0", "1441", "ten", "-1"] {
                after.deadline_minutes.set(bad.into());
                assert_eq!(after.checks(true), Err(()), "{bad}");
            }
            after.deadline_minutes.set("1".into());
            after.kernel.set("x".repeat(257));
            assert_eq!(after.checks(true), Err(()), "an expected version over 256 characters");
        });
    }

    #[test]
    fn a_version_asked_for_lands_in_its_own_field() {
        Owner::new().with(|| {
            for component in Component::ALL {
                let after = After::new();
                after.expect(component, "v-target".into());
                let checks = after.checks(true).unwrap().unwrap();
                let mut expected = Verify::default();
                component.expect(&mut expected, "v-target".into());
                assert_eq!(checks, expected, "{component:?}");
            }
        });
    }
}
