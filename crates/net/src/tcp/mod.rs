//! TCP agents: ns-2.35's (`sender`, `sink`) and the rfc profile's sender (`rfc`).

mod rfc;
mod scoreboard;
mod sender;
mod sink;

use crate::network::Network;
pub use rfc::RfcSender;
pub use sender::{Agent, TcpSender};
pub use sink::TcpSink;

/// What an FTP application asks of a TCP sender (ns-2's `send -1`, `advance`, `advanceby`).
pub trait Ftp {
    /// An unlimited backlog.
    fn send_unlimited(&mut self, net: &mut Network);
    /// Send up to segment `n` in all (FTP `produce n`).
    fn advance(&mut self, net: &mut Network, n: i64);
    /// `n` segments more (FTP `producemore n`).
    fn advance_by(&mut self, net: &mut Network, n: i64);
    /// No new data.
    fn stop(&mut self, net: &mut Network);
}
