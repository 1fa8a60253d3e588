//! ns-2.35's `Agent/TCPSink` and `Agent/TCPSink/DelAck`: cumulative ACKs (one per segment, or
//! delayed up to `interval_` for every other in-order segment), timestamp echo and ECN echo.

use crate::network::{Endpoint, Network, TimerKind};
use crate::packet::{flags, Kind, Packet};
use tcplab_des::{Time, Timer};

/// ns-2's `Acker`: which segments arrived, and the next one expected.
struct Acker {
    next: i64,
    maxseen: i64,
    /// Ring indexed by seqno & mask; 0 = not seen, else payload + 1 (so a SYN counts as seen).
    seen: Vec<u32>,
    ts_to_echo: f64,
    last_ack_sent: i64,
    ecn_unacked: bool,
}

impl Acker {
    fn new() -> Acker {
        Acker { next: 0, maxseen: 0, seen: vec![0; 64], ts_to_echo: 0.0, last_ack_sent: 0, ecn_unacked: false }
    }

    fn mask(&self) -> i64 {
        self.seen.len() as i64 - 1
    }

    /// The cumulative ACK: the last in-order seqno.
    fn seqno(&self) -> i64 {
        self.next - 1
    }

    fn update_ts(&mut self, seq: i64, ts: f64) {
        // ts_echo_rfc1323_ off: echo the newest timestamp of a segment at or before the ACK point.
        if ts >= self.ts_to_echo && seq <= self.last_ack_sent + 1 {
            self.ts_to_echo = ts;
        }
    }

    fn grow(&mut self) {
        let old_mask = self.mask();
        let mut bigger = vec![0; self.seen.len() * 2];
        let new_mask = bigger.len() as i64 - 1;
        for i in self.next..=self.maxseen + 1 {
            bigger[(i & new_mask) as usize] = self.seen[(i & old_mask) as usize];
        }
        self.seen = bigger;
    }

    /// Records segment `seq`; returns the application bytes now deliverable in order.
    fn update(&mut self, seq: i64, payload: u32) -> u64 {
        while seq + 1 - self.next >= self.mask() {
            self.grow();
        }
        let mask = self.mask();
        let mut just_marked = false;
        if seq > self.maxseen {
            for i in self.maxseen + 1..seq {
                self.seen[(i & mask) as usize] = 0;
            }
            self.maxseen = seq;
            self.seen[(seq & mask) as usize] = payload + 1;
            self.seen[((seq + 1) & mask) as usize] = 0;
            just_marked = true;
        }
        let mut delivered = 0u64;
        if seq >= self.next && seq <= self.maxseen {
            let _duplicate = self.seen[(seq & mask) as usize] != 0 && !just_marked;
            self.seen[(seq & mask) as usize] = payload + 1;
            while self.seen[(self.next & mask) as usize] != 0 {
                delivered += (self.seen[(self.next & mask) as usize] - 1) as u64;
                self.next += 1;
            }
        }
        delivered
    }
}

pub struct TcpSink {
    ep: Endpoint,
    acker: Acker,
    /// Delayed ACKs: the interval, the timer and the segment being held.
    delack: Option<(Time, Timer, Option<Packet>)>,
}

impl TcpSink {
    pub fn new(ep: Endpoint, delack_interval: Option<Time>) -> TcpSink {
        TcpSink { ep, acker: Acker::new(), delack: delack_interval.map(|i| (i, Timer::default(), None)) }
    }

    pub fn recv(&mut self, net: &mut Network, pkt: &Packet) {
        self.acker.update_ts(pkt.seq, pkt.ts);
        let delivered = self.acker.update(pkt.seq, pkt.payload);
        net.flow_stats[self.ep.flow.0 as usize].goodput_bytes += delivered;

        let Some((interval, timer, saved)) = &mut self.delack else {
            self.ack(net, pkt, None);
            return;
        };
        if !timer.pending() && pkt.seq == self.acker.seqno() {
            // RFC2581_immediate_ack_ and SYN_immediate_ack_: ACK gap fillers and the SYN at once.
            let fills_gap = pkt.seq < self.acker.maxseen;
            if !fills_gap && pkt.seq != 0 {
                *saved = Some(*pkt);
                let interval = interval.as_secs_f64();
                net.arm(timer, self.ep.flow, TimerKind::DelAck, interval);
                return;
            }
        }
        timer.cancel();
        let held = saved.take();
        self.ack(net, pkt, held.as_ref());
    }

    pub fn on_timer(&mut self, net: &mut Network, gen: u32) {
        if let Some((_, timer, saved)) = &mut self.delack {
            if timer.fire(gen) {
                if let Some(pkt) = saved.take() {
                    self.ack(net, &pkt, None);
                }
            }
        }
    }

    /// Sends the cumulative ACK for `pkt` (and a held segment `saved`), echoing ECN marks.
    fn ack(&mut self, net: &mut Network, pkt: &Packet, saved: Option<&Packet>) {
        let a = &mut self.acker;
        let sf = saved.map_or(0, |p| p.flags);
        let of = pkt.flags;
        let any = |bit: u8| (sf & bit != 0) || (of & bit != 0);
        if any(flags::CWR) {
            a.ecn_unacked = false;
        }
        let ce_on_ect = |f: u8| f & flags::ECT != 0 && f & flags::CE != 0;
        if ce_on_ect(sf) || ce_on_ect(of) {
            a.ecn_unacked = true;
        }
        let mut f = 0;
        if any(flags::ECT) && a.ecn_unacked {
            f |= flags::ECN_ECHO;
        }
        let echo_without_ect = |fl: u8| fl & flags::ECT == 0 && fl & flags::ECN_ECHO != 0;
        if echo_without_ect(of) || (saved.is_some() && echo_without_ect(sf)) {
            f |= flags::ECN_ECHO;
        }
        let seq = a.seqno();
        a.last_ack_sent = seq;
        let ts_echo = a.ts_to_echo;
        let ack = Packet { size: 40, seq, flags: f, ts_echo, ..self.ep.packet(net, Kind::Ack) };
        self.ep.send(net, ack);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acker_delivers_in_order_and_buffers_holes() {
        let mut a = Acker::new();
        assert_eq!(a.update(0, 0), 0, "the SYN carries no data but advances the ACK");
        assert_eq!(a.seqno(), 0);
        assert_eq!(a.update(2, 100), 0);
        assert_eq!(a.seqno(), 0, "a hole at 1 holds the ACK");
        assert_eq!(a.update(1, 100), 200);
        assert_eq!(a.seqno(), 2);
        assert_eq!(a.update(1, 100), 0, "duplicates deliver nothing");
    }

    #[test]
    fn acker_grows_past_its_initial_window() {
        let mut a = Acker::new();
        a.update(0, 10);
        for s in (2..300).rev() {
            a.update(s, 10);
        }
        assert_eq!(a.seqno(), 0);
        assert_eq!(a.update(1, 10), 299 * 10);
        assert_eq!(a.seqno(), 299);
    }
}
