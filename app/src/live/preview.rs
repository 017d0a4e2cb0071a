//! A node's drain preview inputs, pushed by `/api/nodes/{node}/preview/events` whenever its pods, DaemonSets or
//! budgets change, so that an open preview follows the cluster.

use domain::preview::PreviewInputs;
use leptos::prelude::*;

/// Why the inputs are missing.
#[derive(Clone, Debug, PartialEq, Eq)]
// Only the browser's stream reports trouble.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub enum PreviewTrouble {
    /// A message could not be read; the text says why.
    Unreadable(String),
    /// The stream closed before the first message.
    Closed,
}

/// The latest inputs and, while there are none, what went wrong.
#[derive(Clone, Copy)]
pub struct PreviewFeed {
    pub inputs: RwSignal<Option<PreviewInputs>>,
    pub trouble: RwSignal<Option<PreviewTrouble>>,
}

/// Follows the preview stream of `node` for as long as the calling component lives (in the browser only).
pub fn follow_preview(node: &str) -> PreviewFeed {
    let feed = PreviewFeed { inputs: RwSignal::new(None), trouble: RwSignal::new(None) };
    #[cfg(feature = "hydrate")]
    {
        let source = super::dom::listen(
            &crate::context::api(&format!("/api/nodes/{node}/preview/events")),
            &["preview"],
            move |_, data| match serde_json::from_str::<PreviewInputs>(&data) {
                Ok(i) => {
                    feed.inputs.set(Some(i));
                    feed.trouble.set(None);
                }
                Err(err) => feed.trouble.set(Some(PreviewTrouble::Unreadable(err.to_string()))),
            },
            move |closed| {
                if closed && feed.inputs.with_untracked(Option::is_none) {
                    feed.trouble.set(Some(PreviewTrouble::Closed));
                }
            },
        );
        on_cleanup(move || drop(source));
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = node;
    feed
}
