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

/// Strings of the actions, their dialogs and the drain progress panel.
pub struct ActionStrings {
    pub cordon: &'static str,
    pub uncordon: &'static str,
    pub drain: &'static str,
    pub show_progress: &'static str,
    pub cancel: &'static str,
    pub close: &'static str,
    pub working: &'static str,
    pub already_cordoned: &'static str,
    pub not_cordoned: &'static str,
    pub drain_running: &'static str,
    pub checking_permissions: &'static str,
    /// "You lack the permission: {permissions}".
    pub missing_permission: fn(permissions: &str) -> String,
    /// Title of the cordon dialog: "Cordon {node}?".
    pub cordon_title: fn(node: &str) -> String,
    pub cordon_explain: &'static str,
    pub uncordon_title: fn(node: &str) -> String,
    pub uncordon_explain: &'static str,
    /// What a cordon or uncordon did: "{node} is now cordoned".
    pub cordoned_done: fn(node: &str) -> String,
    pub uncordoned_done: fn(node: &str) -> String,
    pub already_done: fn(node: &str) -> String,
    pub failed_prefix: &'static str,
    // The drain dialog.
    pub drain_title: fn(node: &str) -> String,
    pub preview_loading: &'static str,
    pub group_evict: &'static str,
    pub group_skipped: &'static str,
    pub group_refused: &'static str,
    pub none: &'static str,
    pub bare_pod: &'static str,
    /// "PDB {name}: allows {allowed} disruptions".
    pub pdb_allowance: fn(name: &str, allowed: i32) -> String,
    pub note_emptydir_lost: &'static str,
    pub note_no_controller: &'static str,
    pub note_daemonset_missing: &'static str,
    pub skip_mirror: &'static str,
    pub skip_daemonset: &'static str,
    pub skip_deleting: &'static str,
    pub refuse_daemonset: &'static str,
    pub refuse_daemonset_missing: &'static str,
    pub refuse_lookup_failed: &'static str,
    pub refuse_emptydir: &'static str,
    pub refuse_no_controller: &'static str,
    pub needs_option: &'static str,
    pub no_option_helps: &'static str,
    /// "{n} pods left out by the pod selector".
    pub not_selected: fn(n: usize) -> String,
    /// "Evictions covered by {names} will wait: the budget allows no disruption now".
    pub pdb_will_wait: fn(names: &str) -> String,
    pub options: &'static str,
    pub opt_ignore_daemonsets: &'static str,
    pub opt_ignore_daemonsets_help: &'static str,
    pub opt_delete_emptydir: &'static str,
    pub opt_delete_emptydir_help: &'static str,
    pub opt_force: &'static str,
    pub opt_force_help: &'static str,
    pub opt_disable_eviction: &'static str,
    pub opt_disable_eviction_help: &'static str,
    pub grace_period: &'static str,
    pub grace_period_help: &'static str,
    pub timeout: &'static str,
    pub timeout_help: &'static str,
    pub skip_wait: &'static str,
    pub skip_wait_help: &'static str,
    pub pod_selector: &'static str,
    pub pod_selector_help: &'static str,
    pub bad_number: &'static str,
    pub reason: &'static str,
    pub reason_placeholder: &'static str,
    /// "Type {node} to confirm: {options} cannot be undone".
    pub type_node_name: fn(node: &str, options: &str) -> String,
    pub server_dry_run: &'static str,
    /// The confirm button: "Drain {node}: evict {n} pods".
    pub confirm_drain: fn(node: &str, n: usize) -> String,
    pub blocked_hint: &'static str,
    // The progress panel.
    /// "Drain of {node}" / "Server dry run of {node}".
    pub progress_title: fn(node: &str, dry_run: bool) -> String,
    /// "started by {who} {ago} ago".
    pub started_by: fn(who: &str, ago: &str) -> String,
    pub elapsed: &'static str,
    /// "{done} of {total} pods gone".
    pub pods_done: fn(done: usize, total: usize) -> String,
    pub cancel_drain: &'static str,
    pub drain_not_here: &'static str,
    pub state_cordoning: &'static str,
    pub state_planning: &'static str,
    pub state_evicting: &'static str,
    pub state_drained: &'static str,
    pub state_drained_except: fn(n: usize) -> String,
    pub state_refused: &'static str,
    pub state_dry_planned: &'static str,
    pub state_dry_accepted: &'static str,
    pub state_timed_out: fn(left: usize) -> String,
    pub state_cancelled: fn(left: usize) -> String,
    pub state_failed: fn(why: &str) -> String,
    pub state_interrupted: &'static str,
    pub pod_pending: &'static str,
    pub pod_evicting: &'static str,
    /// "waiting: PDB {name} allows {allowed} disruptions; needs {desired} healthy, has {current}".
    pub pod_blocked_pdb: fn(name: &str, allowed: i32, desired: i32, current: i32) -> String,
    pub pod_blocked: fn(message: &str) -> String,
    pub pod_terminating: &'static str,
    pub pod_gone: &'static str,
    pub pod_dry_accepted: &'static str,
    pub pod_no_longer_waited: &'static str,
    pub pod_failed: fn(why: &str) -> String,
    pub uncordon_after: &'static str,
    pub returning_note: &'static str,
    /// On a card: "Draining, started by {who}: {done}/{total}".
    pub card_draining: fn(who: &str, done: usize, total: usize) -> String,
    /// On a card, a finished drain: "Last drain by {who}: {state}".
    pub card_last_drain: fn(who: &str, state: &str) -> String,
    pub resume: &'static str,
}

pub const ACTIONS_EN: ActionStrings = ActionStrings {
    cordon: "Cordon",
    uncordon: "Uncordon",
    drain: "Drain",
    show_progress: "Show progress",
    cancel: "Cancel",
    close: "Close",
    working: "Working…",
    already_cordoned: "Already cordoned",
    not_cordoned: "Not cordoned",
    drain_running: "A drain is running: wait for it or cancel it",
    checking_permissions: "Checking your permissions…",
    missing_permission: |p| format!("You lack the permission: {p}"),
    cordon_title: |n| format!("Cordon {n}?"),
    cordon_explain: "No new pods will be scheduled on this node. Pods already running stay where they are.",
    uncordon_title: |n| format!("Uncordon {n}?"),
    uncordon_explain: "The scheduler may place new pods on this node again.",
    cordoned_done: |n| format!("{n} is now cordoned"),
    uncordoned_done: |n| format!("{n} is schedulable again"),
    already_done: |n| format!("{n} was already in that state; nothing was changed"),
    failed_prefix: "Failed:",
    drain_title: |n| format!("Drain {n}"),
    preview_loading: "Reading the node's pods…",
    group_evict: "Will be evicted",
    group_skipped: "Skipped",
    group_refused: "Refused",
    none: "none",
    bare_pod: "no controller",
    pdb_allowance: |name, allowed| format!("PDB {name}: allows {allowed} disruptions"),
    note_emptydir_lost: "its emptyDir data is lost",
    note_no_controller: "no controller: it will not come back",
    note_daemonset_missing: "its DaemonSet is gone: deleted for good",
    skip_mirror: "mirror pod of a static pod: the kubelet owns it",
    skip_daemonset: "DaemonSet pod: stays on the node",
    skip_deleting: "already deleting for longer than the limit",
    refuse_daemonset: "managed by a DaemonSet",
    refuse_daemonset_missing: "its DaemonSet is gone",
    refuse_lookup_failed: "its DaemonSet could not be looked up",
    refuse_emptydir: "has emptyDir data that would be lost",
    refuse_no_controller: "has no controller: once deleted it never comes back",
    needs_option: "needs",
    no_option_helps: "no option overrides this; fix the access and try again",
    not_selected: |n| format!("{n} pods left out by the pod selector"),
    pdb_will_wait: |names| format!("Evictions covered by {names} will wait: the budget allows no disruption now"),
    options: "Options",
    opt_ignore_daemonsets: "Ignore DaemonSet pods",
    opt_ignore_daemonsets_help: "DaemonSet pods stay on the node; their DaemonSet would recreate them anyway.",
    opt_delete_emptydir: "Delete emptyDir data",
    opt_delete_emptydir_help: "Pods with emptyDir volumes are evicted and that data is lost for good.",
    opt_force: "Force",
    opt_force_help: "Pods without a controller are deleted and never come back.",
    opt_disable_eviction: "Disable eviction",
    opt_disable_eviction_help: "Pods are deleted directly: PodDisruptionBudgets are bypassed.",
    grace_period: "Grace period (s)",
    grace_period_help: "Empty: each pod's own grace period.",
    timeout: "Timeout (s)",
    timeout_help: "Empty: wait as long as it takes.",
    skip_wait: "Skip wait after (s)",
    skip_wait_help: "For a node that is down: stop waiting for pods deleting longer than this. Empty: wait.",
    pod_selector: "Pod selector",
    pod_selector_help: "Only pods matching this label selector are drained, e.g. app=web.",
    bad_number: "Enter a whole number of seconds, or leave it empty.",
    reason: "Reason",
    reason_placeholder: "Why, e.g. kernel update; kept with the drain's record on the node",
    type_node_name: |node, options| format!("Type {node} to confirm: {options} cannot be undone"),
    server_dry_run: "Server dry run",
    confirm_drain: |node, n| format!("Drain {node}: evict {n} {}", if n == 1 { "pod" } else { "pods" }),
    blocked_hint: "Refused pods stop the whole drain. Turn on the options they need, or cancel.",
    progress_title: |node, dry| if dry { format!("Server dry run of {node}") } else { format!("Drain of {node}") },
    started_by: |who, ago| format!("started by {who} {ago} ago"),
    elapsed: "Elapsed",
    pods_done: |done, total| format!("{done} of {total} pods gone"),
    cancel_drain: "Cancel drain",
    drain_not_here: "This drain is not known to this server: it may have been started elsewhere or interrupted.",
    state_cordoning: "Cordoning…",
    state_planning: "Planning…",
    state_evicting: "Evicting…",
    state_drained: "Drained: safe to reboot or return",
    state_drained_except: |n| {
        format!("Drained except {n} pods still terminating: they were no longer waited for and are still on the node")
    },
    state_refused: "Refused: some pods need options; nothing was evicted",
    state_dry_planned: "Dry run: planned only; nothing changed",
    state_dry_accepted: "Server dry run: the API server accepted every eviction; nothing changed",
    state_timed_out: |n| format!("Timed out with {n} pods still on the node; the node stays cordoned"),
    state_cancelled: |n| format!("Cancelled with {n} pods still on the node; the node stays cordoned"),
    state_failed: |why| format!("Failed: {why}"),
    state_interrupted: "Interrupted: the server that ran this drain stopped. It can be resumed.",
    pod_pending: "pending",
    pod_evicting: "evicting",
    pod_blocked_pdb: |name, allowed, desired, current| {
        format!("waiting: PDB {name} allows {allowed} disruptions; needs {desired} healthy, has {current}")
    },
    pod_blocked: |m| format!("waiting: {m}"),
    pod_terminating: "terminating",
    pod_gone: "gone",
    pod_dry_accepted: "would be evicted",
    pod_no_longer_waited: "still terminating; no longer waited for",
    pod_failed: |why| format!("failed: {why}"),
    uncordon_after: "Uncordon",
    returning_note: "Uncordon only if the node comes back into service. A node being returned needs no uncordon.",
    card_draining: |who, done, total| format!("Draining, started by {who}: {done}/{total}"),
    card_last_drain: |who, state| format!("Last drain by {who}: {state}"),
    resume: "Resume",
};

/// The action strings for the current user.
pub fn actions() -> &'static ActionStrings {
    &ACTIONS_EN
}

/// Strings of the node detail page.
pub struct DetailStrings {
    pub back: &'static str,
    pub pods_title: &'static str,
    pub pod: &'static str,
    pub owner: &'static str,
    pub phase: &'static str,
    pub default_drain: &'static str,
    pub no_controller: &'static str,
    pub would_evict: &'static str,
    pub would_skip: &'static str,
    pub would_refuse: &'static str,
    /// "No node named {name}".
    pub no_such_node: fn(name: &str) -> String,
}

pub const DETAIL_EN: DetailStrings = DetailStrings {
    back: "← All nodes",
    pods_title: "Pods on this node",
    pod: "Pod",
    owner: "Owner",
    phase: "Phase",
    default_drain: "A drain with default options",
    no_controller: "none",
    would_evict: "evicts it",
    would_skip: "skips it",
    would_refuse: "refuses it",
    no_such_node: |name| format!("No node named {name} in this cluster."),
};

/// The detail page strings for the current user.
pub fn detail() -> &'static DetailStrings {
    &DETAIL_EN
}
