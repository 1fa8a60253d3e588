//! A CBR source over UDP (ns-2 `Application/Traffic/CBR` on `Agent/UDP`, without jitter).

use crate::network::{Network, TimerKind};
use crate::packet::{Addr, FlowId, Kind, Packet};
use tcplab_des::{Time, Timer};

pub struct CbrSource {
    flow: FlowId,
    node: u32,
    pub src: Addr,
    pub dst: Addr,
    size: u32,
    /// Seconds between packets, computed as ns-2's CBR_Traffic does.
    interval: f64,
    seq: i64,
    timer: Timer,
}

impl CbrSource {
    pub fn new(flow: FlowId, node: u32, src: Addr, dst: Addr, rate_bps: u64, size: u32) -> CbrSource {
        CbrSource { flow, node, src, dst, size, interval: (size as f64 * 8.0) / rate_bps as f64, seq: 0, timer: Timer::default() }
    }

    /// Sends a packet now and every `interval` after, as ns-2's TrafficGenerator does.
    pub fn start(&mut self, net: &mut Network) {
        self.send_and_rearm(net);
    }

    pub fn stop(&mut self) {
        self.timer.cancel();
    }

    pub fn on_timer(&mut self, net: &mut Network, gen: u32) {
        if self.timer.fire(gen) {
            self.send_and_rearm(net);
        }
    }

    fn send_and_rearm(&mut self, net: &mut Network) {
        let pkt = Packet {
            uid: net.next_uid(),
            flow: self.flow,
            kind: Kind::Cbr,
            size: self.size,
            payload: self.size,
            seq: self.seq,
            src: self.src,
            dst: self.dst,
            flags: 0,
            ts: net.now(),
            ts_echo: Time::ZERO,
        };
        self.seq += 1;
        net.send(self.node, pkt);
        net.arm(&mut self.timer, self.flow, TimerKind::Cbr, self.interval);
    }
}
