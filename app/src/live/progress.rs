//! One drain's progress, pushed by `/api/drains/{id}/events` until the drain ends.

use domain::progress::DrainProgress;
use leptos::prelude::*;

/// The latest progress, and whether this server does not know the drain.
#[derive(Clone, Copy)]
pub struct ProgressFeed {
    pub progress: RwSignal<Option<DrainProgress>>,
    /// The stream closed before any progress came: this server does not hold the drain.
    pub missing: RwSignal<bool>,
}

/// Follows drain `id` for as long as the calling component lives (in the browser only).
pub fn follow_progress(id: &str) -> ProgressFeed {
    let feed = ProgressFeed { progress: RwSignal::new(None), missing: RwSignal::new(false) };
    #[cfg(feature = "hydrate")]
    {
        let source = super::dom::listen(
            &crate::context::api(&format!("/api/drains/{id}/events")),
            &["progress"],
            move |_, data| {
                if let Ok(p) = serde_json::from_str::<DrainProgress>(&data) {
                    feed.progress.set(Some(p));
                }
            },
            move |closed| {
                if closed && feed.progress.with_untracked(Option::is_none) {
                    feed.missing.set(true);
                }
            },
        );
        // The server ends the stream after the final state; stop the browser from reconnecting to it.
        let source = StoredValue::new_local(Some(source));
        Effect::new(move |_| {
            if feed.progress.with(|p| p.as_ref().is_some_and(|p| !p.state.is_running())) {
                source.update_value(|s| drop(s.take()));
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = id;
    feed
}
