//! The node actions' dialogs: cordon and uncordon, the drain with its live preview, and the drain progress panel
//! that everyone watching can open. One dialog at a time, hosted by the page.

mod actor_consent;
mod cordon;
mod drain;
mod host;
mod move_first;
mod pod_row;
mod progress;
mod rollout;
mod rollout_estimate;
mod rollout_verify;
mod rollout_why;
mod rollout_zones;
mod unblock;
mod window_hold;

use domain::{actions::Lacking, progress::DrainRecord};
use leptos::prelude::*;

use self::drain::Draft;
pub use host::DialogHost;

use crate::api::permissions;

/// The dialog open on the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dialog {
    Cordon(String),
    Uncordon(String),
    Drain(String),
    /// The drain dialog, pre-filled from the drain recorded on the node: Resume. The record is a claim anyone who
    /// may patch the node can write, so nothing runs until the person reads the preview and confirms.
    Resume(String, Box<DrainRecord>),
    /// The drain dialog as the person left it to watch its server dry run.
    Again(Box<Draft>),
    /// A drain's progress, by id.
    Progress(String),
    /// A server dry run's progress, by id, with the dialog it came from: closing it goes back there, so that
    /// what runs next is what was tried.
    DryRun(String, Box<Draft>),
    /// The rolling drain of these nodes; with a version, its verification expects each node back on it (the
    /// versions view's "Plan the stragglers").
    Rollout(Vec<String>, Option<(domain::verify::Component, String)>),
}

/// What the cards and the dialogs of a page share.
#[derive(Clone, Copy)]
pub struct Actions {
    pub dialog: RwSignal<Option<Dialog>>,
    /// What the person may not do; `None` until the API server has answered.
    pub lacking: RwSignal<Option<Lacking>>,
    /// The last outcome, announced to screen readers and shown under the toolbar: (succeeded, message).
    pub notice: RwSignal<Option<(bool, String)>>,
}

impl Actions {
    /// Asks the API server what this person may do; run once per page.
    pub fn new() -> Self {
        let actions =
            Actions { dialog: RwSignal::new(None), lacking: RwSignal::new(None), notice: RwSignal::new(None) };
        Effect::new(move |_| {
            leptos::task::spawn_local(async move {
                match permissions().await {
                    Ok(lacking) => actions.lacking.set(Some(lacking)),
                    Err(err) => actions.notice.set(Some((false, err.to_string()))),
                }
            });
        });
        actions
    }

    /// Opens `dialog` in place of any other.
    pub fn open(&self, dialog: Dialog) {
        self.dialog.set(Some(dialog));
    }

    /// Closes the open dialog.
    pub fn close(&self) {
        self.dialog.set(None);
    }
}

impl Default for Actions {
    fn default() -> Self {
        Self::new()
    }
}
