//! A CBR source over UDP (ns-2 `Application/Traffic/CBR` on `Agent/UDP`, without jitter).

use crate::packet::Kind;
use crate::port::{Endpoint, Port, TimerKind};
use tcplab_des::Timer;

pub struct CbrSource {
    ep: Endpoint,
    size: u32,
    /// Seconds between packets, computed as ns-2's CBR_Traffic does.
    interval: f64,
    seq: i64,
    timer: Timer,
}

impl CbrSource {
    pub fn new(ep: Endpoint, rate_bps: u64, size: u32) -> CbrSource {
        CbrSource { ep, size, interval: (size as f64 * 8.0) / rate_bps as f64, seq: 0, timer: Timer::default() }
    }

    /// Sends a packet now and every `interval` after, as ns-2's TrafficGenerator does.
    pub fn start(&mut self, net: &mut impl Port) {
        self.send_and_rearm(net);
    }

    pub fn stop(&mut self, net: &mut impl Port) {
        net.cancel(&mut self.timer, self.ep.flow, TimerKind::Cbr);
    }

    pub fn on_timer(&mut self, net: &mut impl Port, gen: u32) {
        if net.fire(&mut self.timer, self.ep.flow, TimerKind::Cbr, gen) {
            self.send_and_rearm(net);
        }
    }

    fn send_and_rearm(&mut self, net: &mut impl Port) {
        self.ep.send(net, Kind::Cbr, |p| (p.size, p.payload, p.seq) = (self.size, self.size, self.seq));
        self.seq += 1;
        net.arm(&mut self.timer, self.ep.flow, TimerKind::Cbr, self.interval);
    }
}
