//! Admission into maintenance: one at a time on a server, and the nodes admitted lately, which count as in
//! maintenance before the cache sees their cordons (the engine's `holds` room admits through it); across replicas,
//! through [`super::shared`].

use std::{sync::Arc, time::Duration};

/// How long a node admitted into maintenance counts as in it without the cache's word: longer than any watch's
/// lag, short enough that a start that then failed does not hold a budget for long.
pub(crate) const ADMITTED_FOR: Duration = Duration::from_secs(15);

/// One admission at a time, and the nodes admitted lately.
#[derive(Clone)]
pub struct Admissions {
    pub(crate) one_at_a_time: Arc<tokio::sync::Mutex<()>>,
    pub(crate) lately: moka::sync::Cache<String, ()>,
    /// The admissions every replica shares, where the server keeps Leases.
    pub(crate) shared: Option<super::shared::Shared>,
}

impl Default for Admissions {
    fn default() -> Self {
        Admissions {
            one_at_a_time: Arc::default(),
            lately: moka::sync::Cache::builder().max_capacity(10_000).time_to_live(ADMITTED_FOR).build(),
            shared: None,
        }
    }
}
