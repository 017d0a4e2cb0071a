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

/// Strings of the node cards and the board around them.
pub struct BoardStrings {
    pub label_filter_placeholder: &'static str,
    pub status_all: &'static str,
    pub status_problems: &'static str,
    pub status_cordoned: &'static str,
    pub status_ready: &'static str,
    pub live: &'static str,
    pub reconnecting: &'static str,
    pub connecting: &'static str,
    pub heartbeat: &'static str,
    pub lease: &'static str,
    pub stale: &'static str,
    pub never: &'static str,
    pub eviction_due: &'static str,
    pub pods_going_now: &'static str,
    pub conditions: &'static str,
    pub conditions_json: &'static str,
    pub copy: &'static str,
    pub taints: &'static str,
    pub no_taints: &'static str,
    pub pods: &'static str,
    pub allocatable: &'static str,
    pub previous_page: &'static str,
    pub next_page: &'static str,
    pub wall_title: &'static str,
    /// "{nodes} nodes, {not_ready} not ready, {cordoned} cordoned".
    pub summary: fn(nodes: usize, not_ready: usize, cordoned: usize) -> String,
    /// "pods evicted in {countdown}".
    pub node_countdown: fn(countdown: &str) -> String,
    /// "first pod eviction in {countdown}, {count} pods will go".
    pub pod_countdown: fn(countdown: &str, count: usize) -> String,
    /// "{age} ago".
    pub ago: fn(age: &str) -> String,
    /// "page {page} of {pages}".
    pub page_of: fn(page: usize, pages: usize) -> String,
}

pub const BOARD_EN: BoardStrings = BoardStrings {
    label_filter_placeholder: "Label, e.g. topology.kubernetes.io/zone=zone-a",
    status_all: "All nodes",
    status_problems: "NotReady or Unknown",
    status_cordoned: "Cordoned",
    status_ready: "Ready",
    live: "Live",
    reconnecting: "Reconnecting…",
    connecting: "Connecting…",
    heartbeat: "Heartbeat",
    lease: "Lease",
    stale: "stale",
    never: "never",
    eviction_due: "eviction due",
    pods_going_now: "pods are being evicted now",
    conditions: "Conditions",
    conditions_json: "Conditions JSON",
    copy: "Copy",
    taints: "Taints",
    no_taints: "none",
    pods: "Pods",
    allocatable: "Allocatable",
    previous_page: "Previous",
    next_page: "Next",
    wall_title: "Nodes",
    summary: |nodes, not_ready, cordoned| format!("{nodes} nodes, {not_ready} not ready, {cordoned} cordoned"),
    node_countdown: |c| format!("pods evicted in {c}"),
    pod_countdown: |c, n| format!("first pod eviction in {c}, {n} pods will go"),
    ago: |age| format!("{age} ago"),
    page_of: |page, pages| format!("page {page} of {pages}"),
};

/// The board strings for the current user.
pub fn board() -> &'static BoardStrings {
    &BOARD_EN
}
