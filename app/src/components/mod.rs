//! Components that more than one page or dialog uses, and the node card.

mod action_button;
mod capacity;
pub mod card;
mod connection;
mod contexts;
mod fleet_map;
mod history;
mod language;
mod modal;
mod notice;
mod plan_runner;
pub mod readiness;
pub mod rollouts;
mod timeline;
mod who;
pub mod windows;

pub use action_button::ActionButton;
pub use capacity::CapacitySection;
pub use connection::ConnectionBadge;
pub use contexts::ContextSwitcher;
pub use fleet_map::FleetMap;
pub use history::NodeHistory;
pub use language::LanguageSwitcher;
pub use modal::Modal;
pub use notice::Notice;
pub use plan_runner::PlanRunner;
pub use timeline::{Timeline, timeline_view};
pub use who::Who;
