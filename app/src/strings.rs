//! Every user-facing string, in one place, so that a second language is a second table and not a hunt.

/// The strings of one language.
pub struct Strings {
    pub app_name: &'static str,
    pub page_not_found: &'static str,
    pub loading_nodes: &'static str,
    pub filter_placeholder: &'static str,
    pub filter_label: &'static str,
    pub no_nodes_match: &'static str,
    pub nodes_error_prefix: &'static str,
    pub cordoned: &'static str,
    /// "Showing {shown} of {total} nodes".
    pub showing_nodes: fn(shown: usize, total: usize) -> String,
}

pub const EN: Strings = Strings {
    app_name: "Drainboard",
    page_not_found: "Page not found.",
    loading_nodes: "Loading nodes…",
    filter_placeholder: "Filter nodes by name",
    filter_label: "Filter",
    no_nodes_match: "No node matches the filter.",
    nodes_error_prefix: "Could not list nodes:",
    cordoned: "Cordoned",
    showing_nodes: |shown, total| format!("Showing {shown} of {total} nodes"),
};

/// The strings for the current user. English only for now; the language choice will live here.
pub fn current() -> &'static Strings {
    &EN
}
