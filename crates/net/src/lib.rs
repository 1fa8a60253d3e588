//! tcplab's network model. See the README's architecture section for the map.

pub mod scenario;
pub mod units;

pub use scenario::{Format, Scenario, ScenarioError};
