//! The drain dialog's options: one signal per field, grouped so that the dialog passes one value around.

use domain::{
    drain::{DestructiveOption, DrainOptions},
    input::{BadNumber, seconds},
};
use leptos::prelude::*;

use crate::i18n::{flag_text, t_string, use_i18n};

/// What the person has chosen and typed in the drain dialog.
#[derive(Clone, Copy)]
pub struct DrainForm {
    pub ignore_daemonsets: RwSignal<bool>,
    pub delete_emptydir: RwSignal<bool>,
    pub force: RwSignal<bool>,
    pub disable_eviction: RwSignal<bool>,
    /// Respect the owners' do-not-disrupt requests (not kubectl's: off by default).
    pub respect_owners: RwSignal<bool>,
    pub grace: RwSignal<String>,
    pub timeout: RwSignal<String>,
    pub skip_wait: RwSignal<String>,
    pub selector: RwSignal<String>,
    pub reason: RwSignal<String>,
    /// The node's name, typed to confirm an option that destroys something.
    pub typed: RwSignal<String>,
}

impl DrainForm {
    pub fn new() -> Self {
        DrainForm {
            // Ticked in the dialogs (`DrainOptions::dialog_defaults`); the toggle's help says the API keeps
            // kubectl's default.
            ignore_daemonsets: RwSignal::new(DrainOptions::dialog_defaults().ignore_daemonsets),
            delete_emptydir: RwSignal::new(false),
            force: RwSignal::new(false),
            disable_eviction: RwSignal::new(false),
            respect_owners: RwSignal::new(false),
            grace: RwSignal::new(String::new()),
            timeout: RwSignal::new(String::new()),
            skip_wait: RwSignal::new(String::new()),
            selector: RwSignal::new(String::new()),
            reason: RwSignal::new(String::new()),
            typed: RwSignal::new(String::new()),
        }
    }

    /// The options the form describes (tracked, for a memo).
    pub fn options(&self) -> Result<DrainOptions, BadNumber> {
        Ok(DrainOptions {
            force: self.force.get(),
            ignore_daemonsets: self.ignore_daemonsets.get(),
            delete_emptydir_data: self.delete_emptydir.get(),
            disable_eviction: self.disable_eviction.get(),
            respect_do_not_disrupt: self.respect_owners.get(),
            grace_period_seconds: seconds(&self.grace.get())?,
            timeout_seconds: seconds(&self.timeout.get())?,
            skip_wait_for_delete_timeout_seconds: seconds(&self.skip_wait.get())?,
            pod_selector: Some(self.selector.get().trim().to_string()).filter(|s| !s.is_empty()),
            ..Default::default()
        })
    }

    /// Sets the fields to `options` and `reason`, as a recorded drain had them. The node's name is never filled
    /// in: that stays the person's to type.
    pub fn fill(&self, options: &DrainOptions, reason: Option<&str>) {
        let number = |n: Option<String>| n.unwrap_or_default();
        self.ignore_daemonsets.set(options.ignore_daemonsets);
        self.delete_emptydir.set(options.delete_emptydir_data);
        self.force.set(options.force);
        self.disable_eviction.set(options.disable_eviction);
        self.respect_owners.set(options.respect_do_not_disrupt);
        self.grace.set(number(options.grace_period_seconds.map(|n| n.to_string())));
        self.timeout.set(number(options.timeout_seconds.map(|n| n.to_string())));
        self.skip_wait.set(number(options.skip_wait_for_delete_timeout_seconds.map(|n| n.to_string())));
        self.selector.set(options.pod_selector.clone().unwrap_or_default());
        self.reason.set(reason.unwrap_or_default().to_string());
    }

    /// What the form holds now, to fill a new form with later: the dialog is closed while its server dry run
    /// shows, and comes back as it was.
    pub fn draft(&self, node: &str) -> Draft {
        Draft {
            node: node.to_string(),
            fields: [self.grace, self.timeout, self.skip_wait, self.selector, self.reason, self.typed]
                .map(|f| f.get_untracked()),
            toggles: [
                self.ignore_daemonsets,
                self.delete_emptydir,
                self.force,
                self.disable_eviction,
                self.respect_owners,
            ]
            .map(|t| t.get_untracked()),
        }
    }

    /// Sets every field, the typed name too, to what `draft` holds: the person typed it, in this dialog.
    pub fn restore(&self, draft: &Draft) {
        let fields = [self.grace, self.timeout, self.skip_wait, self.selector, self.reason, self.typed];
        for (field, value) in fields.into_iter().zip(&draft.fields) {
            field.set(value.clone());
        }
        let toggles =
            [self.ignore_daemonsets, self.delete_emptydir, self.force, self.disable_eviction, self.respect_owners];
        for (toggle, value) in toggles.into_iter().zip(draft.toggles) {
            toggle.set(value);
        }
    }

    /// The reason as the drain's record keeps it: `None` when only blanks were typed.
    pub fn reason_untracked(&self) -> Option<String> {
        Some(self.reason.get_untracked()).filter(|r| !r.trim().is_empty())
    }
}

/// A drain dialog's fields as the person left them, kept while the dialog is closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draft {
    pub node: String,
    /// Grace period, timeout, skip-wait limit, pod selector, reason, and the typed name, as typed.
    fields: [String; 6],
    /// Ignore DaemonSet pods, delete emptyDir data, force, disable eviction, respect the owners' requests.
    toggles: [bool; 5],
}

/// Whether a number field's text is not a number the option takes (blank is fine: the default).
fn bad_seconds(text: &str, signed: bool) -> bool {
    if signed { seconds::<i64>(text).is_err() } else { seconds::<u64>(text).is_err() }
}

impl Default for DrainForm {
    fn default() -> Self {
        Self::new()
    }
}

/// The options column: four toggles, the number fields, the pod selector, the reason, and the node's name to
/// type when an option destroys something (`destructive` lists them).
#[component]
pub fn OptionsForm(
    form: DrainForm,
    node: StoredValue<String>,
    destructive: Signal<Vec<DestructiveOption>>,
    /// Whether some pod's owner asked not to be disrupted: the option to respect that shows only then (or while it
    /// is on), so that the dialog stays whole on a small screen.
    owners: Signal<bool>,
) -> impl IntoView {
    let i18n = use_i18n();
    let prompt = move |chosen: &[DestructiveOption]| {
        let options = chosen.iter().map(|option| flag_text(i18n, *option)).collect::<Vec<_>>().join(", ");
        node.with_value(|node| t_string!(i18n, drain.type_node_name, node, options).to_string())
    };
    view! {
        <section class="drain-options">
            <h3>{t_string!(i18n, drain.options)}</h3>
            <Toggle
                label=t_string!(i18n, drain.ignore_daemonsets).to_string()
                help=t_string!(i18n, drain.ignore_daemonsets_help).to_string()
                testid="opt-ignore-daemonsets"
                value=form.ignore_daemonsets
            />
            <Toggle
                label=t_string!(i18n, drain.delete_emptydir).to_string()
                help=t_string!(i18n, drain.delete_emptydir_help).to_string()
                testid="opt-delete-emptydir-data"
                value=form.delete_emptydir
            />
            <Toggle
                label=t_string!(i18n, drain.force).to_string()
                help=t_string!(i18n, drain.force_help).to_string()
                testid="opt-force"
                value=form.force
            />
            <Toggle
                label=t_string!(i18n, drain.disable_eviction).to_string()
                help=t_string!(i18n, drain.disable_eviction_help).to_string()
                testid="opt-disable-eviction"
                value=form.disable_eviction
            />
            {move || (owners.get() || form.respect_owners.get()).then(|| view! {
                <Toggle
                    label=t_string!(i18n, drain.respect_owners).to_string()
                    help=t_string!(i18n, drain.respect_owners_help).to_string()
                    testid="opt-respect-do-not-disrupt"
                    value=form.respect_owners
                />
            })}
            <div class="number-fields">
                <Field
                    label=t_string!(i18n, drain.grace_period).to_string()
                    help=t_string!(i18n, drain.grace_period_help).to_string()
                    testid="opt-grace-period"
                    value=form.grace
                    seconds=true
                />
                <Field
                    label=t_string!(i18n, drain.timeout).to_string()
                    help=t_string!(i18n, drain.timeout_help).to_string()
                    testid="opt-timeout"
                    value=form.timeout
                    seconds=false
                />
                <Field
                    label=t_string!(i18n, drain.skip_wait).to_string()
                    help=t_string!(i18n, drain.skip_wait_help).to_string()
                    testid="opt-skip-wait"
                    value=form.skip_wait
                    seconds=false
                />
            </div>
            <Field
                label=t_string!(i18n, drain.pod_selector).to_string()
                help=t_string!(i18n, drain.pod_selector_help).to_string()
                testid="opt-pod-selector"
                value=form.selector
            />
            <label class="field">
                <span>{t_string!(i18n, drain.reason)}</span>
                <input
                    type="text"
                    data-testid="drain-reason"
                    placeholder=t_string!(i18n, drain.reason_placeholder)
                    prop:value=form.reason
                    on:input=move |ev| form.reason.set(event_target_value(&ev))
                />
            </label>
            {move || {
                let chosen = destructive.get();
                (!chosen.is_empty()).then(|| view! {
                    <label class="field danger">
                        <span data-testid="type-name-prompt">{prompt(&chosen)}</span>
                        <input
                            type="text"
                            data-testid="type-node-name"
                            autocomplete="off"
                            prop:value=form.typed
                            on:input=move |ev| form.typed.set(event_target_value(&ev))
                        />
                    </label>
                })
            }}
        </section>
    }
}

/// An option that is on or off, with what it does.
#[component]
fn Toggle(label: String, help: String, testid: &'static str, value: RwSignal<bool>) -> impl IntoView {
    view! {
        <label class="toggle">
            <input
                type="checkbox"
                data-testid=testid
                prop:checked=value
                on:change=move |ev| value.set(event_target_checked(&ev))
            />
            <span>
                <strong>{label}</strong>
                <small>{help}</small>
            </span>
        </label>
    }
}

/// A text field with its label and help. A seconds field (`seconds` says whether it may be negative) that holds
/// something else is marked, and says so in place of its help, naming itself for those who hear the page.
#[component]
fn Field(
    label: String,
    help: String,
    testid: &'static str,
    value: RwSignal<String>,
    #[prop(optional)] seconds: Option<bool>,
) -> impl IntoView {
    let i18n = use_i18n();
    let bad = Memo::new(move |_| seconds.is_some_and(|signed| value.with(|v| bad_seconds(v, signed))));
    let field = label.clone();
    view! {
        <label class="field" class:bad=bad>
            <span>{label}</span>
            <input
                type="text"
                data-testid=testid
                aria-invalid=move || bad.get().to_string()
                prop:value=value
                on:input=move |ev| value.set(event_target_value(&ev))
            />
            {move || if bad.get() {
                view! {
                    <small class="error" role="alert" data-testid="field-error">
                        {t_string!(i18n, drain.bad_number_field, field = &field)}
                    </small>
                }.into_any()
            } else {
                view! { <small>{help.clone()}</small> }.into_any()
            }}
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Signals live in an owner's arena (the server build sandboxes arenas per request), as a page's do.
    fn in_owner(test: impl FnOnce()) {
        Owner::new().with(test)
    }

    #[test]
    fn a_recorded_drain_fills_the_form_and_reads_back_the_same() {
        in_owner(|| {
            let recorded = DrainOptions {
                force: true,
                ignore_daemonsets: true,
                delete_emptydir_data: false,
                disable_eviction: true,
                grace_period_seconds: Some(30),
                timeout_seconds: Some(600),
                skip_wait_for_delete_timeout_seconds: None,
                pod_selector: Some("app=web".into()),
                ..Default::default()
            };
            let form = DrainForm::new();
            form.typed.set("node-1".into());
            form.fill(&recorded, Some("kernel 6.12"));
            assert_eq!(form.options(), Ok(recorded));
            assert_eq!(form.reason_untracked().as_deref(), Some("kernel 6.12"));
            assert_eq!(form.typed.get_untracked(), "node-1", "filling never types the node's name for the person");
        });
    }

    #[test]
    fn a_draft_brings_back_every_field_as_typed() {
        in_owner(|| {
            let form = DrainForm::new();
            form.force.set(true);
            form.ignore_daemonsets.set(false);
            form.timeout.set(" 90 ".into());
            form.selector.set("app=web".into());
            form.reason.set("kernel".into());
            form.typed.set("node-1".into());
            let draft = form.draft("node-1");
            let again = DrainForm::new();
            again.restore(&draft);
            assert_eq!(again.options(), form.options());
            assert_eq!(again.timeout.get_untracked(), " 90 ", "as typed");
            assert_eq!(again.typed.get_untracked(), "node-1", "the person's own typing comes back");
            assert_eq!(again.draft("node-1"), draft);
        });
    }

    #[test]
    fn blank_fields_mean_the_defaults_and_a_bad_number_is_refused() {
        in_owner(|| {
            let form = DrainForm::new();
            form.selector.set("   ".into());
            form.reason.set(" \n ".into());
            // kubectl's defaults, but for Ignore DaemonSet pods, which the dialogs tick.
            assert_eq!(form.options(), Ok(DrainOptions { ignore_daemonsets: true, ..DrainOptions::default() }));
            assert_eq!(form.reason_untracked(), None);

            form.selector.set(" app=web ".into());
            assert_eq!(form.options().map(|o| o.pod_selector), Ok(Some("app=web".into())));
            for bad in ["ten", "1.5", "99999999999999999999999"] {
                form.grace.set(bad.into());
                assert_eq!(form.options(), Err(BadNumber), "{bad:?}");
                assert!(bad_seconds(bad, true), "{bad:?} is marked");
            }
            assert!(!bad_seconds("-1", true) && bad_seconds("-1", false), "only the grace period may be -1");
            assert!(!bad_seconds(" ", false), "blank is the default");
        });
    }
}
