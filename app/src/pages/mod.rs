//! One module per page.

pub mod actions;
#[cfg(feature = "hydrate")]
mod dom;
pub mod nodes;
