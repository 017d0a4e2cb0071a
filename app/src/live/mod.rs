//! What keeps the page current: the board's event stream, a node's preview stream and a drain's progress stream.
//! Each opens only in the browser, and closes when the component that asked for it goes away.

pub mod board;
#[cfg(feature = "hydrate")]
pub(crate) mod dom;
pub mod preview;
pub mod progress;

pub use board::{Connection, Current, DrainsByNode, LiveBoard};
