//! Why a pod a drain waits on stays, and what would let it go (`domain::blocker`), in the page's language. Names,
//! numbers and the API server's own message are data; everything else comes from the catalogue.

use domain::blocker::{Blocker, Fix};
use jiff::SignedDuration;

use super::{I18n, elapsed_text, t_string};

/// One reason, in words.
pub fn blocker_text(i18n: I18n, blocker: &Blocker) -> String {
    match blocker {
        Blocker::BudgetAtZero { budget, healthy, desired, to_become_ready } => {
            t_string!(i18n, blocker.budget_at_zero, budget, healthy, desired, more = to_become_ready).to_string()
        }
        Blocker::BudgetNever { budget, expected, desired } => {
            t_string!(i18n, blocker.budget_never, budget, expected, desired).to_string()
        }
        Blocker::HeldWhileUnhealthy { budget, healthy, desired } => {
            t_string!(i18n, blocker.held_while_unhealthy, budget, healthy, desired).to_string()
        }
        Blocker::TwoBudgets { budgets } => {
            t_string!(i18n, blocker.two_budgets, budgets = budgets.join(", ")).to_string()
        }
        Blocker::WebhookDenied { webhook, configuration: Some(configuration), message } => {
            t_string!(i18n, blocker.webhook_denied, webhook, configuration, message).to_string()
        }
        Blocker::WebhookDenied { webhook, configuration: None, message } => {
            t_string!(i18n, blocker.webhook_denied_unnamed, webhook, message).to_string()
        }
        Blocker::Finalizers { finalizers } => {
            t_string!(i18n, blocker.finalizers, finalizers = finalizers.join(", ")).to_string()
        }
        Blocker::ShuttingDown { left_seconds } => {
            let left = elapsed_text(i18n, SignedDuration::from_secs(*left_seconds));
            t_string!(i18n, blocker.shutting_down, left).to_string()
        }
        Blocker::ReplacementPending { pod, reason, message } => {
            t_string!(i18n, blocker.replacement_pending, pod, reason, message).to_string()
        }
        Blocker::NamespaceTerminating { namespace } => {
            t_string!(i18n, blocker.namespace_terminating, namespace).to_string()
        }
        Blocker::OwnerAsked { annotation } => t_string!(i18n, blocker.owner_asked, annotation).to_string(),
    }
}

/// One way out, in words.
pub fn fix_text(i18n: I18n, fix: &Fix) -> String {
    match fix {
        Fix::ScaleUp { by } => t_string!(i18n, blocker.fix_scale_up, by).to_string(),
        Fix::RelaxBudget { budget } => t_string!(i18n, blocker.fix_relax_budget, budget).to_string(),
        Fix::AlwaysAllow { budget } => t_string!(i18n, blocker.fix_always_allow, budget).to_string(),
        Fix::DeleteUnreadyPod => t_string!(i18n, blocker.fix_delete_unready_pod).to_string(),
        Fix::OneBudget => t_string!(i18n, blocker.fix_one_budget).to_string(),
        Fix::AskWebhookOwner => t_string!(i18n, blocker.fix_ask_webhook_owner).to_string(),
        Fix::RemoveFinalizers => t_string!(i18n, blocker.fix_remove_finalizers).to_string(),
        Fix::Wait { seconds } => {
            let left = elapsed_text(i18n, SignedDuration::from_secs(*seconds));
            t_string!(i18n, blocker.fix_wait, left).to_string()
        }
        Fix::MakeRoom => t_string!(i18n, blocker.fix_make_room).to_string(),
        Fix::CancelOrTimeout => t_string!(i18n, blocker.fix_cancel_or_timeout).to_string(),
    }
}

/// The ways out of `blocker`, as one line.
pub fn fixes_text(i18n: I18n, blocker: &Blocker) -> String {
    let fixes = blocker.fixes().iter().map(|f| fix_text(i18n, f)).collect::<Vec<_>>().join("; ");
    t_string!(i18n, blocker.fixes, fixes).to_string()
}
