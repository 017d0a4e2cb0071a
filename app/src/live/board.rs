//! The live board: the server's snapshot first, then `/api/board/events`, and a clock that ticks every second on
//! the server's time, so that ages and countdowns move between updates.

use std::collections::BTreeMap;

use domain::{
    board::{Board, BoardUpdate},
    progress::DrainSummary,
};
use jiff::Timestamp;
use leptos::prelude::*;

/// The drains of the board, by node, as the board stream sends them.
pub type DrainsByNode = BTreeMap<String, DrainSummary>;

/// The state of the live connection, shown so that nobody trusts a frozen board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Only the browser's event stream moves it past Connecting.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub enum Connection {
    Connecting,
    Live,
    Reconnecting,
}

impl Connection {
    /// The state as the page's `data-state` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Connection::Connecting => "connecting",
            Connection::Live => "live",
            Connection::Reconnecting => "reconnecting",
        }
    }
}

/// What the board page, the node page and the wall share: the live board, the clock and the connection state.
#[derive(Clone, Copy)]
pub struct LiveBoard {
    pub board: RwSignal<Option<Board>>,
    /// Every drain of the cluster, by node, as the board stream sends them.
    pub drains: RwSignal<DrainsByNode>,
    pub now: RwSignal<Timestamp>,
    pub connection: RwSignal<Connection>,
    /// Since when the server cannot reach the API server, as the board stream says; `None` while it can.
    pub api_lost: RwSignal<Option<Timestamp>>,
    /// Set once the page has hydrated; the browser tests wait for it.
    pub hydrated: RwSignal<bool>,
    /// Moves whenever any node's durable history changes (the stream's `history` event): a timeline reads again.
    pub history: RwSignal<u64>,
    /// Every maintenance plan, as the stream's `plans` event sends them after each change the server's watch sees;
    /// `None` until the first.
    pub plans: RwSignal<Option<Vec<domain::rollout::RolloutProgress>>>,
}

impl LiveBoard {
    /// Starts the clock and the event stream; both run only in the browser.
    pub fn new() -> Self {
        let live = LiveBoard {
            board: RwSignal::new(None),
            drains: RwSignal::new(Default::default()),
            now: RwSignal::new(Timestamp::now()),
            connection: RwSignal::new(Connection::Connecting),
            api_lost: RwSignal::new(None),
            hydrated: RwSignal::new(false),
            history: RwSignal::new(0),
            plans: RwSignal::new(None),
        };
        Effect::new(move |_| {
            live.hydrated.set(true);
            let handle =
                set_interval_with_handle(move || live.now.set(Timestamp::now()), std::time::Duration::from_secs(1));
            on_cleanup(move || {
                if let Ok(h) = handle {
                    h.clear();
                }
            });
            #[cfg(feature = "hydrate")]
            stream::follow(live);
        });
        live
    }

    /// The server's clock now, ticking every second.
    pub fn server_now(&self) -> Signal<Timestamp> {
        let (board, now) = (self.board, self.now);
        Signal::derive(move || board.with(|b| b.as_ref().map(|b| b.server_now(now.get())).unwrap_or_else(|| now.get())))
    }

    /// The cards to show: the live board once it has arrived, the server's snapshot before.
    pub fn current(&self, snapshot: &BoardUpdate) -> Current {
        let mut first = Board::default();
        first.apply(snapshot.clone(), snapshot.server_time);
        Current { live: self.board, snapshot: StoredValue::new(first) }
    }
}

/// The board the page shows, read in place. A `Memo<Board>` would clone all 5,000 cards of a large cluster (and
/// compare them) on every update; this borrows the live board, or the server's snapshot until the stream's first
/// board arrives, and tracks the live board.
#[derive(Clone, Copy)]
pub struct Current {
    live: RwSignal<Option<Board>>,
    snapshot: StoredValue<Board>,
}

impl Current {
    /// Reads the board the page shows (tracked).
    pub fn with<T>(&self, f: impl FnOnce(&Board) -> T) -> T {
        let snapshot = self.snapshot;
        self.live.with(|live| match live {
            Some(board) => f(board),
            None => snapshot.with_value(|board| f(board)),
        })
    }
}

impl Default for LiveBoard {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "hydrate")]
mod stream {
    use super::*;
    use crate::live::dom::{self, Listening};

    /// How long to wait before opening a new stream once the browser has given up on one.
    const RETRY: std::time::Duration = std::time::Duration::from_secs(2);

    /// Updates held for the next frame beyond which they are applied at once. A hidden tab gets no frames, and its
    /// queue must not grow for as long as it stays hidden.
    const MAX_PENDING: usize = 200;

    /// Board updates waiting for the next animation frame. At 100 updates a second the page then re-renders once
    /// a frame, not once an update, and a keystroke never queues behind a backlog of renders.
    #[derive(Clone, Copy)]
    struct Pending {
        /// Each with the browser's clock when it arrived, from which the board learns the clocks' offset.
        updates: StoredValue<Vec<(BoardUpdate, Timestamp)>, LocalStorage>,
        scheduled: StoredValue<bool, LocalStorage>,
    }

    impl Pending {
        fn new() -> Self {
            Pending { updates: StoredValue::new_local(Vec::new()), scheduled: StoredValue::new_local(false) }
        }

        /// Queues an update; a full board replaces everything queued before it.
        fn push(self, update: BoardUpdate, live: LiveBoard) {
            let len = self
                .updates
                .try_update_value(|queue| {
                    if update.full {
                        queue.clear();
                    }
                    queue.push((update, Timestamp::now()));
                    queue.len()
                })
                .unwrap_or(0);
            if len >= MAX_PENDING {
                self.flush(live);
            } else if !self.scheduled.try_get_value().unwrap_or(true) {
                self.scheduled.set_value(true);
                request_animation_frame(move || self.flush(live));
            }
        }

        /// Applies every queued update in one change of the board.
        fn flush(self, live: LiveBoard) {
            let _ = self.scheduled.try_set_value(false);
            let Some(queue) = self.updates.try_update_value(std::mem::take) else { return };
            if queue.is_empty() {
                return;
            }
            live.board.update(|b| {
                let board = b.get_or_insert_with(Board::default);
                for (update, arrived) in queue {
                    board.apply(update, arrived);
                }
            });
        }
    }

    /// Follows `/api/board/events` for as long as the page lives, reconnecting for ever. Every error shows
    /// Reconnecting at once, while the browser retries by itself; when it gives up (the stream is closed), a new
    /// one is opened after a pause. Every connection starts with a full board, so a reconnect resyncs.
    pub fn follow(live: LiveBoard) {
        let holder = StoredValue::new_local(None::<Listening>);
        // One feed for every stream the page opens, so that a reconnect's list waits for the old stream's changes.
        let plans = crate::live::plans::PlanFeed::new();
        open(holder, live, plans);
        on_cleanup(move || {
            let _ = holder.try_update_value(|h| h.take());
        });
    }

    fn open(
        holder: StoredValue<Option<Listening>, LocalStorage>,
        live: LiveBoard,
        plans: crate::live::plans::PlanFeed,
    ) {
        let pending = Pending::new();
        let listening = dom::listen(
            &crate::context::api("/api/board/events"),
            &["board", "drains", "health", "history", "plans", "plans-changed"],
            move |kind, text| {
                if kind == "plans" || kind == "plans-changed" {
                    plans.push(kind == "plans", text, live.plans);
                    return;
                }
                if kind == "history" {
                    if let Ok(version) = text.trim().parse::<u64>() {
                        live.history.set(version);
                    }
                    return;
                }
                if kind == "health" {
                    if let Ok(health) = serde_json::from_str::<domain::board::ApiHealth>(&text) {
                        live.api_lost.set(health.lost_since);
                    }
                    return;
                }
                if kind == "drains" {
                    if let Ok(list) = serde_json::from_str::<Vec<DrainSummary>>(&text) {
                        live.drains.set(list.into_iter().map(|d| (d.node.clone(), d)).collect());
                    }
                    return;
                }
                let Ok(update) = serde_json::from_str::<BoardUpdate>(&text) else { return };
                // Live as the update arrives, on the stream that sent it: an error after it says Reconnecting, and
                // the frame that applies the update later must not say Live again over a stream that is gone.
                if live.connection.get_untracked() != Connection::Live {
                    live.connection.set(Connection::Live);
                }
                pending.push(update, live);
            },
            move |closed| {
                live.connection.set(Connection::Reconnecting);
                if closed {
                    set_timeout(move || open(holder, live, plans), RETRY);
                }
            },
        );
        // A new stream starts from a server that says at once if it has lost the API server; until it does, the
        // last word of the old stream no longer holds.
        live.api_lost.set(None);
        // If the page is gone, the new stream is dropped with the closure, which closes it.
        let _ = holder.try_update_value(|h| *h = listening);
    }
}
