//! How many drains may run at once, and how the server counts them.

use super::pace;
use domain::failure::StartRefusal;

use crate::{Error, Identity};

/// How many drains may run at once, all together and for one identity: each is a task, a watch and a stream of
/// API calls, and a script in a loop must not start thousands. Dry runs are counted apart, with caps of their
/// own, so that previews (anyone's, a viewer's too) can never use up the places of real drains. And how fast they
/// may call the API server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrainLimits {
    pub total: usize,
    pub per_identity: usize,
    pub dry_runs: usize,
    pub dry_runs_per_identity: usize,
    pub pace: pace::Pace,
}

impl Default for DrainLimits {
    /// A whole pool's maintenance fits; a runaway script does not. A dry run ends within its dialog's cap, and a
    /// person looks at a few at a time.
    fn default() -> Self {
        DrainLimits {
            total: 100,
            per_identity: 30,
            dry_runs: 20,
            dry_runs_per_identity: 5,
            pace: pace::Pace::default(),
        }
    }
}

impl DrainLimits {
    /// Whether `identity` may start one more drain (`dry`: a dry run) while `active` run: the refusal, if not.
    pub(super) fn refusal<'a>(
        &self,
        active: impl Iterator<Item = &'a (Identity, bool)>,
        identity: &Identity,
        dry: bool,
    ) -> Option<Error> {
        let (total, per_identity) =
            if dry { (self.dry_runs, self.dry_runs_per_identity) } else { (self.total, self.per_identity) };
        let person = identity.principal();
        let (mut all, mut theirs) = (0usize, 0usize);
        for (who, is_dry) in active {
            if *is_dry == dry {
                all += 1;
                theirs += usize::from(who.principal() == person);
            }
        }
        if all >= total {
            return Some(Error::Refused(StartRefusal::ServerFull { most: total, dry_run: dry }));
        }
        (theirs >= per_identity).then(|| {
            Error::Refused(StartRefusal::PersonFull { user: identity.user.clone(), most: per_identity, dry_run: dry })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(user: &str) -> Identity {
        Identity::person("https://c", user)
    }

    /// Dry runs and real drains are counted apart: previews never take the places of drains, nor drains those of
    /// previews; each has its own total and its own share per person.
    #[test]
    fn dry_runs_have_caps_of_their_own() {
        let limits =
            DrainLimits { total: 3, per_identity: 2, dry_runs: 4, dry_runs_per_identity: 2, ..Default::default() };
        let alice = person("alice");
        let bob = person("bob");
        let previews = [(alice.clone(), true), (alice.clone(), true)];
        let refused = limits.refusal(previews.iter(), &alice, true).expect("a third dry run of hers");
        assert!(refused.to_string().contains("alice has 2 dry runs running"), "{refused}");
        assert!(limits.refusal(previews.iter(), &alice, false).is_none(), "her real drain is not held by her previews");
        assert!(limits.refusal(previews.iter(), &bob, true).is_none(), "another person's preview");

        let full = [(alice.clone(), true), (alice.clone(), true), (bob.clone(), true), (bob.clone(), true)];
        let refused = limits.refusal(full.iter(), &person("carol"), true).expect("the server's dry runs are full");
        assert!(refused.to_string().contains("4 dry runs are running on this server"), "{refused}");
        assert!(limits.refusal(full.iter(), &person("carol"), false).is_none(), "a real drain still starts");

        let drains = [(alice.clone(), false), (bob.clone(), false), (bob.clone(), false)];
        let refused = limits.refusal(drains.iter(), &person("carol"), false).expect("the server's drains are full");
        assert!(refused.to_string().contains("3 drains are running on this server"), "{refused}");
        assert!(limits.refusal(drains.iter(), &person("carol"), true).is_none(), "a preview still starts");
    }
}
