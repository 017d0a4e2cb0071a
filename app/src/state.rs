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

/// The query parameters the filters live in: `?name=web&labels=pool%3Dweb&status=problems`.
const NAME: &str = "name";
const LABELS: &str = "labels";
const STATUS: &str = "status";

impl Filters {
    /// The filters the address holds, then kept in it as they change (replacing the history entry, as a typed
    /// letter is no step to go back to), so that a view of the board can be shared as a link.
    pub fn in_address() -> Self {
        use leptos_router::{
            NavigateOptions,
            hooks::{use_location, use_navigate, use_query_map},
        };
        let query = use_query_map();
        let filters = Filters::new();
        query.with_untracked(|q| {
            filters.name.set(q.get_str(NAME).unwrap_or_default().to_owned());
            filters.label.set(q.get_str(LABELS).unwrap_or_default().to_owned());
            filters.status.set(status_from_value(q.get_str(STATUS).unwrap_or_default()));
        });
        let (navigate, location) = (use_navigate(), use_location());
        Effect::new(move |_| {
            let status = Some(status_value(filters.status.get())).filter(|s| *s != "all");
            let wanted = [
                (NAME, filters.name.get()),
                (LABELS, filters.label.get()),
                (STATUS, status.unwrap_or_default().into()),
            ];
            let mut params = query.get_untracked();
            if wanted.iter().all(|(key, value)| params.get_str(key).unwrap_or_default() == value) {
                return;
            }
            for (key, value) in wanted {
                match value.is_empty() {
                    true => drop(params.remove(key)),
                    false => params.replace(key, escaped(&value)),
                }
            }
            let url = format!("{}{}", location.pathname.get_untracked(), params.to_query_string());
            navigate(&url, NavigateOptions { replace: true, scroll: false, ..Default::default() });
        });
        filters
    }
}

/// `value` percent-encoded but for the unreserved bytes: the router's `ParamsMap::replace` decodes what it is
/// given, so a typed `%` or `+` must go in encoded to come out as typed.
pub fn escaped(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
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
        StatusFilter::OtherActors => "other-actors",
        StatusFilter::NeedReboot => "need-reboot",
        // The tool's own name: none is one of the words above.
        StatusFilter::Actor(actor) => actor.id(),
    }
}

/// The status filter a `<select>` value stands for; anything unknown shows every node rather than none.
pub fn status_from_value(value: &str) -> StatusFilter {
    match value {
        "problems" => StatusFilter::Problems,
        "cordoned" => StatusFilter::Cordoned,
        "ready" => StatusFilter::Ready,
        "other-actors" => StatusFilter::OtherActors,
        "need-reboot" => StatusFilter::NeedReboot,
        other => domain::actor::Actor::from_id(other).map_or(StatusFilter::All, StatusFilter::Actor),
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

/// Whether the board holds the order of its cards: while the pointer is over them, while a dialog is open, and
/// after one closes until the pointer moves outside the cards. A card whose rank changed with an action would
/// otherwise jump from under the pointer that acted on it.
#[derive(Clone, Copy)]
pub struct OrderHold {
    pointer_in: RwSignal<bool>,
    after_dialog: RwSignal<bool>,
    dialog_open: Signal<bool>,
}

impl OrderHold {
    pub fn new(dialog_open: Signal<bool>) -> Self {
        let hold = OrderHold { pointer_in: RwSignal::new(false), after_dialog: RwSignal::new(false), dialog_open };
        Effect::new(move |was_open: Option<bool>| {
            let open = dialog_open.get();
            if was_open == Some(true) && !open {
                hold.after_dialog.set(true);
            }
            open
        });
        hold
    }

    /// Whether the order is held now (tracked).
    pub fn held(&self) -> bool {
        self.pointer_in.get() || self.dialog_open.get() || self.after_dialog.get()
    }

    /// The pointer entered (`true`) or left the cards.
    pub fn pointer(&self, inside: bool) {
        self.pointer_in.set(inside);
    }

    /// The pointer moved somewhere on the page: outside the cards, the hold after a dialog ends.
    pub fn moved(&self) {
        if !self.pointer_in.get_untracked() && self.after_dialog.get_untracked() {
            self.after_dialog.set(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use domain::{ReadyStatus, node::NodeCard};
    use leptos_router::params::ParamsMap;

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
        for status in [
            StatusFilter::All,
            StatusFilter::Problems,
            StatusFilter::Cordoned,
            StatusFilter::Ready,
            StatusFilter::OtherActors,
            StatusFilter::NeedReboot,
        ]
        .into_iter()
        .chain(domain::actor::Actor::ALL.map(StatusFilter::Actor))
        {
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

    #[test]
    fn a_filter_goes_into_the_address_as_typed() {
        assert_eq!(escaped("topology.kubernetes.io/zone"), "topology.kubernetes.io%2Fzone");
        assert_eq!(escaped("a b&c=d"), "a%20b%26c%3Dd");
        for typed in ["pool in (a,b), !gpu", "100%", "a+b", "ノード"] {
            let mut params = ParamsMap::new();
            params.replace("labels", escaped(typed));
            assert_eq!(params.get_str("labels"), Some(typed), "{typed:?}");
        }
    }
}
