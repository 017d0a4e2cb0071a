//! One module per page.

pub mod board;
pub mod node;
pub mod sign_in;
pub mod wall;

/// How many cards one page shows; a cluster of thousands of nodes is paged, not rendered at once.
pub const PAGE_SIZE: usize = 60;
