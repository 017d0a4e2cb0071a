//! The board's shared UI state: the filters and the nodes chosen for a rollout. The board page owns them; the
//! components it shows (the cards' checkboxes, the rollout bar, the fleet map) read them. It sits beside both, so
//! that a component never imports a page.

use std::collections::BTreeSet;

use domain::board::{self, StatusFilter};
use leptos::prelude::*;

/// What the board's filters hold.
#[derive(Clone, Copy)]
pub struct Filters {
    pub name: RwSignal<String>,
    pub label: RwSignal<String>,
    pub status: RwSignal<StatusFilter>,
    pub page: RwSignal<usize>,
}

impl Filters {
    /// The filters as the domain reads them (tracked).
    pub fn filter(&self) -> board::Filter {
        board::Filter::new(&self.name.get(), &self.label.get(), self.status.get())
    }

    pub fn new() -> Self {
        Filters {
            name: RwSignal::new(String::new()),
            label: RwSignal::new(String::new()),
            status: RwSignal::new(StatusFilter::All),
            page: RwSignal::new(0),
        }
    }
}

impl Default for Filters {
    fn default() -> Self {
        Self::new()
    }
}

/// The status filter's `<option>` value: the page's `<select>` and [`status_from_value`] share it.
pub fn status_value(status: StatusFilter) -> &'static str {
    match status {
        StatusFilter::All => "all",
        StatusFilter::Problems => "problems",
        StatusFilter::Cordoned => "cordoned",
        StatusFilter::Ready => "ready",
    }
}

/// The status filter a `<select>` value stands for; anything unknown shows every node rather than none.
pub fn status_from_value(value: &str) -> StatusFilter {
    match value {
        "problems" => StatusFilter::Problems,
        "cordoned" => StatusFilter::Cordoned,
        "ready" => StatusFilter::Ready,
        _ => StatusFilter::All,
    }
}

/// The nodes chosen for a rollout, shared by the cards and the bar.
#[derive(Clone, Copy)]
pub struct Selection(pub RwSignal<BTreeSet<String>>);

impl Selection {
    pub fn new() -> Self {
        Selection(RwSignal::new(BTreeSet::new()))
    }

    /// A card's checkbox changed: `name` is chosen when `on`, else no longer.
    pub fn set(&self, name: &str, on: bool) {
        self.0.update(|c| {
            if on {
                c.insert(name.to_owned());
            } else {
                c.remove(name);
            }
        });
    }
}

impl Default for Selection {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use domain::{ReadyStatus, node::NodeCard};

    use super::*;

    /// Signals live in an owner's arena (the server build sandboxes arenas per request), as a page's do.
    fn in_owner(test: impl FnOnce()) {
        Owner::new().with(test)
    }

    fn card(name: &str, ready: ReadyStatus, cordoned: bool, pool: &str) -> NodeCard {
        NodeCard {
            name: name.into(),
            ready,
            unschedulable: cordoned,
            labels: [("pool".to_owned(), pool.to_owned())].into(),
            ..NodeCard::default()
        }
    }

    #[test]
    fn every_status_option_reads_back_as_itself() {
        for status in [StatusFilter::All, StatusFilter::Problems, StatusFilter::Cordoned, StatusFilter::Ready] {
            assert_eq!(status_from_value(status_value(status)), status);
        }
        assert_eq!(status_from_value("nonsense"), StatusFilter::All);
        assert_eq!(status_from_value(""), StatusFilter::All);
    }

    #[test]
    fn the_filters_read_every_field() {
        in_owner(|| {
            let filters = Filters::new();
            let web = card("web-1", ReadyStatus::Ready, false, "web");
            let db = card("db-1", ReadyStatus::NotReady, true, "db");
            assert!(filters.filter().matches(&web) && filters.filter().matches(&db));

            filters.name.set("  WEB ".into());
            assert!(filters.filter().matches(&web) && !filters.filter().matches(&db));

            filters.name.set(String::new());
            filters.label.set("pool=db".into());
            assert!(!filters.filter().matches(&web) && filters.filter().matches(&db));

            filters.label.set(String::new());
            filters.status.set(StatusFilter::Problems);
            assert!(!filters.filter().matches(&web) && filters.filter().matches(&db));
            filters.status.set(StatusFilter::Cordoned);
            assert!(!filters.filter().matches(&web) && filters.filter().matches(&db));
            filters.status.set(StatusFilter::Ready);
            assert!(filters.filter().matches(&web) && !filters.filter().matches(&db));
        });
    }

    #[test]
    fn a_label_filter_that_cannot_be_read_matches_nothing_and_says_why() {
        in_owner(|| {
            let filters = Filters::new();
            filters.label.set("pool in (web".into());
            let filter = filters.filter();
            assert!(filter.selector_error().is_some());
            assert!(!filter.matches(&card("web-1", ReadyStatus::Ready, false, "web")));
        });
    }

    #[test]
    fn a_checkbox_adds_and_removes_its_node_once() {
        in_owner(|| {
            let selection = Selection::new();
            selection.set("a", true);
            selection.set("a", true);
            selection.set("b", true);
            selection.set("a", false);
            selection.set("c", false);
            assert_eq!(selection.0.get_untracked(), BTreeSet::from(["b".to_owned()]));
        });
    }
}
