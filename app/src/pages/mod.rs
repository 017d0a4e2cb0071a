//! One module per page.

pub mod nodes;
