//! A CBR source over UDP (ns-2 `Application/Traffic/CBR` on `Agent/UDP`), and the bare UDP
//! agent the other traffic sources (crate::traffic) send through.

use crate::packet::Kind;
use crate::port::{Endpoint, Port, TimerKind};
use crate::random::Draws;
use tcplab_des::Timer;

pub struct CbrSource {
    /// The agent its messages go through: as one packet each, or split where a message is
    /// larger than the agent's `packetSize_`.
    agent: UdpAgent,
    /// The message size (the application's `packetSize_`).
    size: u32,
    /// Seconds between packets, computed as ns-2's CBR_Traffic does.
    interval: f64,
    /// ns-2's `random_ 1`: where each interval's dither is drawn from.
    dither: Option<Draws>,
    /// ns-2's `maxpkts_` (None: no limit) and the messages sent so far (`seqno_`).
    limit: Option<u64>,
    sent: u64,
    timer: Timer,
}

/// ns-2's `CBR_Traffic::next_interval` with `random_ 1`: `interval` plus `interval` times
/// `Random::uniform(-0.5, 0.5)` (= -0.5 + u), one draw from `draws`.
pub(crate) fn dithered(interval: f64, net: &mut impl Port, draws: &mut Draws) -> f64 {
    interval + interval * (-0.5 + net.uniform(draws))
}

impl CbrSource {
    pub fn new(agent: UdpAgent, rate_bps: u64, size: u32) -> CbrSource {
        let interval = (size as f64 * 8.0) / rate_bps as f64;
        CbrSource { agent, size, interval, dither: None, limit: None, sent: 0, timer: Timer::default() }
    }

    /// Dithers each interval by a uniform draw from `draws` (ns-2's `random_ 1`).
    pub fn dithered(self, draws: Draws) -> CbrSource {
        CbrSource { dither: Some(draws), ..self }
    }

    /// Stops after `packets` messages (ns-2's `maxpkts_`); each start after that sends one.
    pub fn limited(self, packets: u64) -> CbrSource {
        CbrSource { limit: Some(packets), ..self }
    }

    /// Sends a packet now and every `interval` after, as ns-2's TrafficGenerator does.
    pub fn start(&mut self, net: &mut impl Port) {
        self.send_and_rearm(net);
    }

    pub fn stop(&mut self, net: &mut impl Port) {
        net.cancel(&mut self.timer, self.agent.ep.flow, TimerKind::Cbr);
    }

    pub fn on_timer(&mut self, net: &mut impl Port, gen: u32) {
        if net.fire(&mut self.timer, self.agent.ep.flow, TimerKind::Cbr, gen) {
            self.send_and_rearm(net);
        }
    }

    /// ns-2's `timeout()`: the message goes, then `next_interval()` draws the dither (a RED
    /// queue on the way may have drawn before it) and counts the message against `maxpkts_`.
    fn send_and_rearm(&mut self, net: &mut impl Port) {
        self.agent.send(net, self.size);
        let interval = match &mut self.dither {
            Some(draws) => dithered(self.interval, net, draws),
            None => self.interval,
        };
        self.sent += 1;
        if self.limit.is_none_or(|n| self.sent < n) {
            net.arm(&mut self.timer, self.agent.ep.flow, TimerKind::Cbr, interval);
        }
    }
}

/// ns-2's `Agent/UDP` under an application that tells it when to send (`sendmsg`): a message
/// goes as packets of the agent's `packetSize_` and one of the rest, seqnos from 0, typed by
/// the application (or `udp`).
pub struct UdpAgent {
    ep: Endpoint,
    kind: Kind,
    /// `packetSize_`, the largest packet.
    size: u32,
    seq: i64,
}

impl UdpAgent {
    pub fn new(ep: Endpoint, kind: Kind, size: u32) -> UdpAgent {
        UdpAgent { ep, kind, size, seq: 0 }
    }

    /// Sends a message of `bytes`.
    pub fn send(&mut self, net: &mut impl Port, bytes: u32) {
        let rest = bytes % self.size;
        for _ in 0..bytes / self.size {
            self.send_packet(net, self.size);
        }
        if rest > 0 {
            self.send_packet(net, rest);
        }
    }

    fn send_packet(&mut self, net: &mut impl Port, size: u32) {
        self.ep.send(net, self.kind, |p| (p.size, p.payload, p.seq) = (size, size, self.seq));
        self.seq += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{sender_end, FakePort};

    /// ns-2's CBR_Traffic: interval_ = size_ * 8 / rate_ (ns-2's default 210 B at 448 kb/s:
    /// 3.75 ms), a packet at start and one per interval after, seqnos counting from 0.
    #[test]
    fn cbr_sends_one_packet_per_interval() {
        let cases: [(u64, u32, f64); 3] = [(448_000, 210, 0.00375), (1_000_000, 1000, 0.008), (64_000, 80, 0.01)];
        for (rate, size, interval) in cases {
            let mut net = FakePort::default();
            let mut cbr = CbrSource::new(UdpAgent::new(sender_end(), Kind::Cbr, size), rate, size);
            cbr.start(&mut net);
            assert_eq!(net.deadline(TimerKind::Cbr), Some(interval), "{rate} b/s, {size} B");
            for _ in 0..3 {
                net.expire(|net, _, gen| cbr.on_timer(net, gen));
            }
            let sent: Vec<(i64, u32, f64)> = net.sent.iter().map(|p| (p.seq, p.size, p.ts)).collect();
            let expected: Vec<(i64, u32, f64)> = (0..4).map(|i| (i, size, i as f64 * interval)).collect();
            for ((seq, sz, ts), (eseq, esz, ets)) in sent.iter().zip(&expected) {
                assert_eq!((seq, sz), (eseq, esz));
                assert!((ts - ets).abs() < 1e-12, "packet {seq} at {ts}, not {ets}");
            }
            assert_eq!(sent.len(), 4);
            assert!(net.sent.iter().all(|p| p.kind == Kind::Cbr && p.payload == size));
        }
    }

    /// A message beyond the agent's packetSize_ goes as whole packets and one of the rest.
    #[test]
    fn udp_splits_a_message_at_its_packet_size() {
        let mut net = FakePort::default();
        let mut udp = UdpAgent::new(sender_end(), Kind::Udp, 1000);
        udp.send(&mut net, 2500);
        udp.send(&mut net, 1000);
        let sent: Vec<(i64, u32)> = net.sent.iter().map(|p| (p.seq, p.size)).collect();
        assert_eq!(sent, vec![(0, 1000), (1, 1000), (2, 500), (3, 1000)]);
    }

    /// ns-2's ex/802.11/infra.tcl: 1023-byte CBR messages on an `Agent/UDP` of packetSize_
    /// 1000 go as a 1000-byte and a 23-byte `cbr` packet, each with its own seqno.
    #[test]
    fn cbr_messages_above_the_agents_packet_size_are_split() {
        let mut net = FakePort::default();
        let mut cbr = CbrSource::new(UdpAgent::new(sender_end(), Kind::Cbr, 1000), 256_000, 1023);
        cbr.start(&mut net);
        assert_eq!(net.deadline(TimerKind::Cbr), Some(1023.0 * 8.0 / 256_000.0), "the interval is the message's");
        net.expire(|net, _, gen| cbr.on_timer(net, gen));
        let sent: Vec<(i64, u32, Kind)> = net.sent.iter().map(|p| (p.seq, p.size, p.kind)).collect();
        let expected = vec![(0, 1000, Kind::Cbr), (1, 23, Kind::Cbr), (2, 1000, Kind::Cbr), (3, 23, Kind::Cbr)];
        assert_eq!(sent, expected);
    }

    /// ns-2's `random_ 1`: each interval is interval_ * (1 + uniform(-0.5, 0.5)), one draw
    /// from ns-2's generator after each packet is sent.
    #[test]
    fn dithered_cbr_draws_each_interval_after_its_packet() {
        let mut net = FakePort::default();
        let cbr = CbrSource::new(UdpAgent::new(sender_end(), Kind::Cbr, 512), 1024, 512);
        let mut cbr = cbr.dithered(Draws::Shared);
        let mut rng = tcplab_des::Ns2Rng::seeded(1);
        cbr.start(&mut net);
        let mut at = 0.0;
        for _ in 0..4 {
            let due = at + 4.0 + 4.0 * (-0.5 + rng.uniform());
            let (_, when) = net.expire(|net, _, gen| cbr.on_timer(net, gen)).expect("armed");
            assert!((when - due).abs() < 1e-12, "{when} vs {due}");
            at = when;
        }
        assert_eq!(net.sent.len(), 5);
    }

    /// ns-2's `maxpkts_`: the source stops once it has sent that many messages; a start after
    /// that sends one more and stops again (seqno_ is past maxpkts_).
    #[test]
    fn limited_cbr_stops_after_its_packets() {
        let mut net = FakePort::default();
        let mut cbr = CbrSource::new(UdpAgent::new(sender_end(), Kind::Cbr, 210), 448_000, 210).limited(3);
        cbr.start(&mut net);
        while net.expire(|net, _, gen| cbr.on_timer(net, gen)).is_some() {}
        assert_eq!(net.sent.len(), 3);
        cbr.start(&mut net);
        assert_eq!(net.expire(|net, _, gen| cbr.on_timer(net, gen)), None, "nothing armed");
        assert_eq!(net.sent.len(), 4);
    }

    #[test]
    fn cbr_stop_cancels_the_next_packet() {
        let mut net = FakePort::default();
        let mut cbr = CbrSource::new(UdpAgent::new(sender_end(), Kind::Cbr, 210), 448_000, 210);
        cbr.start(&mut net);
        net.expire(|net, _, gen| cbr.on_timer(net, gen));
        cbr.stop(&mut net);
        assert_eq!(net.cancelled, vec![(TimerKind::Cbr, 0.00375)]);
        assert_eq!(net.expire(|net, _, gen| cbr.on_timer(net, gen)), None, "the stale event fires nothing");
        assert_eq!(net.sent.len(), 2);
    }
}
