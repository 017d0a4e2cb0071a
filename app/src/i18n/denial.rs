//! Why Drainboard denies a person what they asked (`domain::denial::Denial`), in the page's language: who, what they
//! lack and the role that grants it are data; the sentence is the catalogue's.

use domain::denial::{Change, Denial};

use super::{I18n, t_string};

fn change_text(i18n: I18n, change: Change) -> String {
    match change {
        Change::StopDrain => t_string!(i18n, denial.change_stop_drain),
        Change::ChangeRollout => t_string!(i18n, denial.change_rollout),
        Change::UndoRollout => t_string!(i18n, denial.change_undo_rollout),
        Change::MovePods => t_string!(i18n, denial.change_move_pods),
        Change::Unblock => t_string!(i18n, denial.change_unblock),
    }
    .to_string()
}

/// A denial in words.
pub fn denial_text(i18n: I18n, denial: &Denial) -> String {
    match denial {
        Denial::NoBoardRead { refused, answer } => {
            t_string!(i18n, denial.no_board_read, refused = refused.join(", "), answer = answer.clone()).to_string()
        }
        Denial::NoSight => t_string!(i18n, denial.no_sight).to_string(),
        Denial::MayNotStartPlan { user, lacks, role } => {
            t_string!(i18n, denial.may_not_start_plan, user = user.clone(), lacks = lacks.clone(), role = role.clone())
                .to_string()
        }
        Denial::MayNotContinuePlan { user, plan, lacks, role } => t_string!(
            i18n,
            denial.may_not_continue_plan,
            user = user.clone(),
            plan = plan.clone(),
            lacks = lacks.clone(),
            role = role.clone()
        )
        .to_string(),
        Denial::MayNotChange { user, change, started_by, lacks } => t_string!(
            i18n,
            denial.may_not_change,
            user = user.clone(),
            what = change_text(i18n, *change),
            started_by = started_by.clone(),
            lacks = lacks.clone()
        )
        .to_string(),
        Denial::MayNotListWindows { user } => {
            t_string!(i18n, denial.may_not_list_windows, user = user.clone()).to_string()
        }
        Denial::WrongWallToken => t_string!(i18n, denial.wrong_wall_token).to_string(),
    }
}
