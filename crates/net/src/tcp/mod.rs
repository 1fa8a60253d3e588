//! TCP agents: ns-2.35's (`sender`, `sink`) and the rfc profile's sender (`rfc`).

mod linux;
mod reassembly;
mod rfc;
mod scoreboard;
mod sender;
mod sink;

#[cfg(test)]
mod replay;

use crate::packet::FlowId;
use crate::port::{Port, TimerKind};
pub use rfc::{ModernSender, RfcSender, RfcSink};
pub use sender::{FullTcp, Ns2Sender};
pub use sink::TcpSink;
use tcplab_cc::Pacer;
use tcplab_des::Timer;

pub use crate::metrics::TcpState;

/// What an FTP application asks of a TCP sender (ns-2's `send -1`, `advance`, `advanceby`).
/// Generic over the port, not its methods, so that a run can hold `dyn Ftp<Network>`.
pub trait Ftp<P: Port> {
    /// An unlimited backlog.
    fn send_unlimited(&mut self, net: &mut P);
    /// Send up to segment `n` in all (FTP `produce n`).
    fn advance(&mut self, net: &mut P, n: i64);
    /// `n` segments more (FTP `producemore n`).
    fn advance_by(&mut self, net: &mut P, n: i64);
    /// No new data.
    fn stop(&mut self, net: &mut P);
    /// The sender's state now.
    fn state(&self) -> TcpState;
}

/// True if `pacer` holds the next new segment back at window `cwnd`; the pace timer is then set
/// for when it may go. (Either sender's pacing gate.)
pub(crate) fn held_by_pacer(
    pacer: &mut Option<Pacer>,
    timer: &mut Timer,
    net: &mut impl Port,
    flow: FlowId,
    cwnd: f64,
) -> bool {
    let Some(pacer) = pacer else { return false };
    match pacer.wait(net.now_secs(), cwnd) {
        None => false,
        Some(delay) => {
            net.arm(timer, flow, TimerKind::Pace, delay);
            true
        }
    }
}
