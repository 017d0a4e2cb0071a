//! What a server does with a plan it does not run, at a reconcile: take it on, end it, leave it to the server that
//! runs it, or mark it blocked, and when to look again. The engine gathers what it sees ([`Unrun`]) and carries the
//! decision out; taking a plan on is then the plan Lease's to grant.

use std::time::Duration;

use crate::plan_block::Blocked;

/// How long after its creation a plan nobody runs is left alone before a server without its credentials says it
/// needs a maintainer: the server that made it takes its Lease well within this.
pub const GRACE: Duration = Duration::from_secs(10);
/// How soon a plan that waits for the unattended policy is looked at again (a policy comes into force with no
/// event on the plan).
pub const RETRY_REFUSED: Duration = Duration::from_secs(5);
/// How soon a plan that waits for a place under the caps is looked at again, besides being woken, the oldest
/// first, as a place frees here.
pub const RETRY_CAPPED: Duration = Duration::from_secs(60);

/// What a server sees of a plan it does not run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unrun {
    pub ended: bool,
    /// Another server's Lease on it stands for this long yet, unless renewed.
    pub run_elsewhere: Option<Duration>,
    /// This server holds credentials to run it (a person's, the local operator's for a plan their servers made,
    /// or the maintenance identity's for an unattended plan under the policy).
    pub hand: bool,
    /// This server runs as many plans as it may, in all or as that person: the numbers.
    pub capped: Option<Blocked>,
    /// Why it holds no credentials for an unattended plan (off here, or the policy not in force).
    pub refused: Option<Blocked>,
    pub cancelled: bool,
    /// How long since it was made.
    pub age: Duration,
}

/// What to do with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unrunning {
    /// Nothing now; look again on a change of it or its Lease.
    OnChange,
    /// Nothing now; look again after this long (another server's Lease may lapse, or a young plan's maker takes
    /// it on).
    After(Duration),
    /// Take its Lease and run it here.
    Take,
    /// End it as cancelled: nobody runs it, and cancelling needs no one's rights.
    End,
    /// Mark it blocked for this reason, and look again after this long, or only on a change.
    Block { why: Blocked, again: Option<Duration> },
}

/// The decision on a plan this server does not run.
pub fn unrun(seen: &Unrun) -> Unrunning {
    if seen.ended {
        return Unrunning::OnChange;
    }
    if let Some(left) = seen.run_elsewhere {
        return Unrunning::After(left.saturating_add(Duration::from_secs(1)));
    }
    match (&seen.capped, seen.hand) {
        (None, true) => return Unrunning::Take,
        (Some(why), true) if !seen.cancelled => {
            return Unrunning::Block { why: why.clone(), again: Some(RETRY_CAPPED) };
        }
        _ => {}
    }
    if seen.cancelled {
        return Unrunning::End;
    }
    if seen.age < GRACE {
        return Unrunning::After(GRACE - seen.age);
    }
    match &seen.refused {
        Some(why) => Unrunning::Block { why: why.clone(), again: Some(RETRY_REFUSED) },
        None => Unrunning::Block { why: Blocked::NeedsMaintainer, again: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan_block::over_cap;

    #[test]
    fn a_plan_run_nowhere_here_is_taken_ended_left_or_blocked_as_the_table_says() {
        let old = Unrun { age: Duration::from_secs(600), ..Unrun::default() };
        let capped_person = over_cap(3, 10, "alice", 200, 10);
        let capped_all = over_cap(200, 0, "alice", 200, 10);
        let refused = Some(Blocked::UnattendedNotAllowed { why: "no policy".into() });
        let secs = Duration::from_secs;
        let rows: Vec<(&str, Unrun, Unrunning)> = vec![
            ("ended", Unrun { ended: true, hand: true, ..old.clone() }, Unrunning::OnChange),
            (
                "another's Lease stands",
                Unrun { run_elsewhere: Some(secs(12)), hand: true, ..old.clone() },
                Unrunning::After(secs(13)),
            ),
            (
                "another's Lease lapses now",
                Unrun { run_elsewhere: Some(secs(0)), ..old.clone() },
                Unrunning::After(secs(1)),
            ),
            ("held here, under the caps", Unrun { hand: true, ..old.clone() }, Unrunning::Take),
            ("held here, young", Unrun { hand: true, age: secs(1), ..old.clone() }, Unrunning::Take),
            (
                "held here, cancelled: its runner cancels its drains",
                Unrun { hand: true, cancelled: true, ..old.clone() },
                Unrunning::Take,
            ),
            (
                "held here, at the person's cap",
                Unrun { hand: true, capped: capped_person.clone(), ..old.clone() },
                Unrunning::Block { why: capped_person.clone().unwrap(), again: Some(RETRY_CAPPED) },
            ),
            (
                "held here, at the server's cap",
                Unrun { hand: true, capped: capped_all.clone(), ..old.clone() },
                Unrunning::Block { why: capped_all.clone().unwrap(), again: Some(RETRY_CAPPED) },
            ),
            (
                "at the cap, cancelled: ends",
                Unrun { hand: true, capped: capped_all, cancelled: true, ..old.clone() },
                Unrunning::End,
            ),
            ("nobody's, cancelled", Unrun { cancelled: true, ..old.clone() }, Unrunning::End),
            ("nobody's, young", Unrun { age: secs(3), ..old.clone() }, Unrunning::After(secs(7))),
            ("nobody's", old.clone(), Unrunning::Block { why: Blocked::NeedsMaintainer, again: None }),
            (
                "unattended, refused",
                Unrun { refused: refused.clone(), ..old.clone() },
                Unrunning::Block { why: refused.clone().unwrap(), again: Some(RETRY_REFUSED) },
            ),
            ("unattended, refused, young", Unrun { refused, age: secs(9), ..old }, Unrunning::After(secs(1))),
        ];
        let mut failed = Vec::new();
        for (name, seen, wanted) in &rows {
            let got = unrun(seen);
            if got != *wanted {
                failed.push(format!("{name}: {got:?} (wanted {wanted:?})"));
            }
        }
        assert!(failed.is_empty(), "{} of {} rows failed:\n{}", failed.len(), rows.len(), failed.join("\n"));
    }
}
