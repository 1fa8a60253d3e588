//! tcplab's network model. See the README's architecture section for the map.

pub mod budget;
pub mod check;
pub mod ctx;
pub mod dsdv;
pub mod emu;
pub mod god;
pub mod guard;
pub mod ids;
pub mod loss;
pub mod metrics;
pub mod mobility;
pub mod network;
pub mod options;
pub mod packet;
pub mod pbc;
pub mod pcap;
pub mod port;
pub mod queue;
pub mod random;
pub mod routing;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod tcplib;
#[cfg(test)]
mod testing;
pub mod trace;
pub mod traffic;
pub mod udp;
pub mod units;
pub mod wifi;

pub use scenario::{Format, Scenario, ScenarioError};
pub use sim::{RunError, RunOptions, RunResult, Simulation};
