//! ns-2.35's `Agent/TCPSink` family: cumulative ACKs (one per segment, or with `/DelAck`
//! delayed up to `interval_` for every other in-order segment), timestamp echo, ECN echo, and
//! with `/Sack1` up to three SACK blocks, most recent first.

use crate::packet::MAX_SACK_BLOCKS;
use crate::scenario::SinkConfig;

use crate::packet::{flags, Kind, Packet};
use crate::port::{Endpoint, Port, TimerKind};
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
    /// The last segment was a duplicate.
    is_dup: bool,
}

impl Acker {
    fn new() -> Acker {
        Acker {
            next: 0,
            maxseen: 0,
            seen: vec![0; 64],
            ts_to_echo: 0.0,
            last_ack_sent: 0,
            ecn_unacked: false,
            is_dup: false,
        }
    }

    fn mask(&self) -> i64 {
        self.seen.len() as i64 - 1
    }

    /// The cumulative ACK: the last in-order seqno.
    fn seqno(&self) -> i64 {
        self.next - 1
    }

    fn update_ts(&mut self, seq: i64, ts: f64, rfc1323: bool) {
        if rfc1323 && seq == self.last_ack_sent + 1 {
            // RFC 1323: the timestamp of the segment that advances the ACK
            self.ts_to_echo = ts;
        } else if ts >= self.ts_to_echo && seq <= self.last_ack_sent + 1 {
            // the newest timestamp of a segment at or before the ACK point
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
    fn seen(&self, seq: i64) -> bool {
        self.seen[(seq & self.mask()) as usize] != 0
    }

    fn update(&mut self, seq: i64, payload: u32) -> u64 {
        self.is_dup = seq < self.next;
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
            self.is_dup |= self.seen[(seq & mask) as usize] != 0 && !just_marked;
            self.seen[(seq & mask) as usize] = payload + 1;
            while self.seen[(self.next & mask) as usize] != 0 {
                delivered += (self.seen[(self.next & mask) as usize] - 1) as u64;
                self.next += 1;
            }
        }
        delivered
    }
}

/// ns-2's `SackStack`: the SACK blocks reported recently, most recent first.
struct SackStack {
    blocks: Vec<(i64, i64)>,
    size: usize,
}

impl SackStack {
    fn head(&self, k: usize) -> (i64, i64) {
        self.blocks.get(k).copied().unwrap_or((-1, -1))
    }

    fn push(&mut self, block: (i64, i64)) {
        self.blocks.truncate(self.size - 1);
        self.blocks.insert(0, block);
    }
}

impl Acker {
    /// ns-2 `Sacker::append_ack`: the SACK blocks for an ACK sent in answer to `old_seqno`.
    fn sack_blocks(&self, stack: &mut SackStack, old_seqno: i64, out: &mut [(i64, i64); MAX_SACK_BLOCKS]) -> u8 {
        let seqno = self.seqno();
        let mut n = 0;
        if old_seqno < 0 {
        } else if seqno >= self.maxseen && !stack.blocks.is_empty() {
            stack.blocks.clear();
        } else if (seqno < self.maxseen || self.is_dup) && stack.size > 0 {
            // The block around the segment just received, unless it was in order.
            let right = (old_seqno..=self.maxseen).find(|&i| !self.seen(i)).unwrap_or(self.maxseen + 1);
            let mut left = -1;
            if old_seqno <= seqno {
                left = 0;
            } else {
                if let Some(i) = (seqno + 1..right).rev().find(|&i| !self.seen(i)) {
                    left = i + 1;
                }
                out[n] = (left, right);
                n += 1;
            }
            let recent = (left, right);
            // Then the blocks reported before, dropping those the new one covers.
            let mut k = 0;
            while n < stack.size {
                let (l, r) = stack.head(k);
                if l < 0 || r < 0 || r > self.maxseen + 1 {
                    break;
                }
                if recent.0 <= l && recent.1 >= r {
                    stack.blocks.remove(k);
                    continue;
                }
                out[n] = (l, r);
                n += 1;
                k += 1;
            }
            if old_seqno > seqno {
                stack.push(recent);
            }
        }
        n as u8
    }
}

pub struct TcpSink {
    ep: Endpoint,
    cfg: SinkConfig,
    acker: Acker,
    /// With SACK: the blocks reported recently.
    sack: Option<SackStack>,
    /// Delayed ACKs: the interval, the timer and the segment being held.
    delack: Option<(Time, Timer, Option<Packet>)>,
    /// When the sink was last reset (`lastreset_`): segments sent earlier are ignored.
    last_reset: f64,
}

impl TcpSink {
    pub fn new(ep: Endpoint, cfg: &SinkConfig) -> TcpSink {
        TcpSink {
            ep,
            cfg: *cfg,
            acker: Acker::new(),
            sack: cfg.sack.then(|| SackStack { blocks: Vec::with_capacity(MAX_SACK_BLOCKS), size: MAX_SACK_BLOCKS }),
            delack: cfg.delack.map(|i| (i, Timer::default(), None)),
            last_reset: 0.0,
        }
    }

    /// ns-2's `$sink reset`: nothing received yet (the timestamp to echo, the last ACK sent
    /// and the ECN state stay, as ns-2's `Acker::reset` keeps them), no delayed ACK pending.
    pub fn reset(&mut self, net: &mut impl Port) {
        let a = &mut self.acker;
        (a.next, a.maxseen) = (0, 0);
        a.seen.fill(0);
        if let Some(stack) = &mut self.sack {
            stack.blocks.clear();
        }
        if let Some((_, timer, saved)) = &mut self.delack {
            net.cancel(timer, self.ep.flow, TimerKind::DelAck);
            *saved = None;
        }
        self.last_reset = net.now_secs();
    }

    /// The cumulative ACK: the last segment handed to the application in order.
    pub fn cumulative(&self) -> i64 {
        self.acker.seqno()
    }

    pub fn recv(&mut self, net: &mut impl Port, pkt: &Packet) {
        if pkt.ts < self.last_reset {
            // a segment of the connection before a reset
            return;
        }
        self.acker.update_ts(pkt.seq, pkt.ts, self.cfg.ts_echo_rfc1323);
        let delivered = self.acker.update(pkt.seq, pkt.payload);
        net.flow_stats(self.ep.flow).goodput_bytes += delivered;

        let Some((interval, timer, saved)) = &mut self.delack else {
            self.ack(net, pkt, None);
            return;
        };
        if !timer.pending() && pkt.seq == self.acker.seqno() {
            // RFC2581_immediate_ack_ and SYN_immediate_ack_: ACK gap fillers and seqno 0 at once.
            let fills_gap = self.cfg.rfc2581_immediate_ack && pkt.seq < self.acker.maxseen;
            let syn = self.cfg.syn_immediate_ack && pkt.seq == 0;
            if !fills_gap && !syn {
                *saved = Some(*pkt);
                let interval = interval.as_secs_f64();
                net.arm(timer, self.ep.flow, TimerKind::DelAck, interval);
                return;
            }
        }
        net.cancel(timer, self.ep.flow, TimerKind::DelAck);
        let held = saved.take();
        self.ack(net, pkt, held.as_ref());
    }

    pub fn on_timer(&mut self, net: &mut impl Port, gen: u32) {
        if let Some((_, timer, saved)) = &mut self.delack {
            if net.fire(timer, self.ep.flow, TimerKind::DelAck, gen) {
                if let Some(pkt) = saved.take() {
                    self.ack(net, &pkt, None);
                }
            }
        }
    }

    /// Sends the cumulative ACK for `pkt` (and a held segment `saved`), echoing ECN marks.
    #[inline(always)] // into its callers, mainly `recv` (once per data packet): -1.3% instructions
    fn ack(&mut self, net: &mut impl Port, pkt: &Packet, saved: Option<&Packet>) {
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
            // the SYN's ECN negotiation: agree, ECN-capable if ecn_syn_
            f |= flags::ECN_ECHO;
            if self.cfg.ecn_syn {
                f |= flags::ECT;
            }
        }
        let seq = a.seqno();
        self.ep.send(net, Kind::Ack, |ack| {
            (ack.size, ack.seq, ack.flags, ack.ts_echo) = (40, seq, f, a.ts_to_echo);
            if let Some(stack) = &mut self.sack {
                let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
                let n = a.sack_blocks(stack, pkt.seq, &mut blocks) as usize;
                ack.set_sack_blocks(&blocks[..n]);
                ack.size += 8 * ack.nsack as u32;
            }
        });
        a.last_ack_sent = seq;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{receiver_end, segment, FakePort};

    /// ns-2's TCPSink defaults (section 1.2 of the ns-2 notes): ACKs of 40 bytes, SYN and
    /// RFC 2581 immediate ACKs, no RFC 1323 echo.
    fn config(sack: bool, delack: Option<Time>) -> SinkConfig {
        SinkConfig {
            sack,
            delack,
            syn_immediate_ack: true,
            rfc2581_immediate_ack: true,
            ts_echo_rfc1323: false,
            ecn_syn: false,
        }
    }

    /// Feeds segments (seq, arrival time) of 1000 bytes, each sent 0.05 s before it arrives;
    /// returns the port with what the sink sent.
    fn feed(sink: &mut TcpSink, net: &mut FakePort, segments: &[(i64, f64)]) {
        for &(seq, at) in segments {
            net.set_now(at);
            sink.recv(net, &segment(seq, if seq == 0 { 0 } else { 1000 }, at - 0.05));
        }
    }

    /// An ACK as sent: cumulative seqno, size, SACK blocks, time.
    type Sent = (i64, u32, Vec<(i64, i64)>, f64);

    fn acks(net: &FakePort) -> Vec<Sent> {
        net.sent.iter().map(|p| (p.seq, p.size, p.sack_blocks().to_vec(), p.ts)).collect()
    }

    /// The SYN of an ECN sender (ECN-echo without ECT) is answered with ECN-echo; `ecn_syn_`
    /// makes that ACK ECN-capable too (tcp-sink.cc's ack), so a router may mark it.
    #[test]
    fn ecn_syn_makes_the_syn_ack_ecn_capable() {
        for (ecn_syn, expected) in [(false, flags::ECN_ECHO), (true, flags::ECN_ECHO | flags::ECT)] {
            let mut net = FakePort::default();
            let mut sink = TcpSink::new(receiver_end(), &SinkConfig { ecn_syn, ..config(false, None) });
            net.set_now(0.1);
            sink.recv(&mut net, &Packet { flags: flags::ECN_ECHO, ..segment(0, 0, 0.05) });
            net.set_now(0.2);
            sink.recv(&mut net, &Packet { flags: flags::ECT, ..segment(1, 1000, 0.15) });
            let got: Vec<u8> = net.sent.iter().map(|p| p.flags).collect();
            assert_eq!(got, vec![expected, 0], "ecn_syn_ {ecn_syn}: only the SYN's ACK");
        }
    }

    /// TCPSink ACKs every segment with the last in-order seqno; a segment past a hole gets a
    /// duplicate of that ACK; the gap filler acks all that arrived (ns-2 section 2.0: "The sink
    /// ACKs every segment with the cumulative seqno (next expected - 1)").
    #[test]
    fn plain_sink_acks_each_segment_cumulatively() {
        let cases: [(&[i64], &[i64]); 4] = [
            (&[0, 1, 2, 3], &[0, 1, 2, 3]),
            (&[0, 1, 3, 4, 5], &[0, 1, 1, 1, 1]),
            (&[0, 1, 3, 4, 2], &[0, 1, 1, 1, 4]),
            (&[0, 2, 1, 1], &[0, 0, 2, 2]),
        ];
        for (segs, expected) in cases {
            let mut net = FakePort::default();
            let mut sink = TcpSink::new(receiver_end(), &config(false, None));
            let timed: Vec<(i64, f64)> = segs.iter().enumerate().map(|(i, &s)| (s, 0.1 * (i + 1) as f64)).collect();
            feed(&mut sink, &mut net, &timed);
            let got: Vec<i64> = net.sent.iter().map(|p| p.seq).collect();
            assert_eq!(got, expected, "segments {segs:?}");
            assert!(net.sent.iter().all(|p| p.kind == Kind::Ack && p.size == 40 && p.nsack == 0));
            assert!(net.armed.is_empty(), "no timer without delayed ACKs");
        }
    }

    /// Goodput counts the payload handed over in order, once; ACKs echo the timestamp of the
    /// newest segment at or before the ACK point (ns-2's update_ts without ts_echo_rfc1323_),
    /// so an out-of-order segment's timestamp is not echoed.
    #[test]
    fn plain_sink_counts_goodput_and_echoes_in_order_timestamps() {
        let mut net = FakePort::default();
        let mut sink = TcpSink::new(receiver_end(), &config(false, None));
        feed(&mut sink, &mut net, &[(0, 0.1), (1, 0.2), (3, 0.3), (3, 0.4), (2, 0.5)]);
        assert_eq!(net.stats[0].goodput_bytes, 3000, "1, 2, 3 once each; the SYN carries none");
        let echoes: Vec<f64> = net.sent.iter().map(|p| p.ts_echo).collect();
        let expected = [0.1 - 0.05, 0.2 - 0.05, 0.2 - 0.05, 0.2 - 0.05, 0.5 - 0.05];
        for (e, x) in echoes.iter().zip(expected) {
            assert!((e - x).abs() < 1e-12, "echoes {echoes:?}");
        }
        assert_eq!(sink.cumulative(), 3);
    }

    /// TCPSink/Sack1 (ns-2's Sacker::append_ack): the block around the segment just received
    /// first, then the blocks reported before that it does not cover, [left, right) each, at
    /// most 3; 8 bytes per block on a 40-byte ACK (sizes 48/56/64 seen in ns-2 runs). An ACK
    /// that leaves no hole carries none.
    #[test]
    fn sack_sink_reports_the_newest_block_first() {
        let mut net = FakePort::default();
        let mut sink = TcpSink::new(receiver_end(), &config(true, None));
        feed(&mut sink, &mut net, &[(0, 0.1), (1, 0.2), (3, 0.3), (5, 0.4), (7, 0.5), (9, 0.6), (4, 0.7), (2, 0.8)]);
        let got: Vec<_> = acks(&net).into_iter().map(|(s, z, b, _)| (s, z, b)).collect();
        let expected = vec![
            (0, 40, vec![]),
            (1, 40, vec![]),
            (1, 48, vec![(3, 4)]),
            (1, 56, vec![(5, 6), (3, 4)]),
            (1, 64, vec![(7, 8), (5, 6), (3, 4)]),
            (1, 64, vec![(9, 10), (7, 8), (5, 6)]),
            // 4 joins 3 and 5 into one block, which covers both older ones
            (1, 64, vec![(3, 6), (9, 10), (7, 8)]),
            // 2 fills the first hole: the ACK moves to 5, the blocks beyond it stay
            (5, 56, vec![(9, 10), (7, 8)]),
        ];
        assert_eq!(got, expected);
    }

    /// TCPSink/DelAck, interval_ 100 ms (ns-2 section 1.2): seqno 0 is ACKed at once; an
    /// in-order segment with no timer pending is held and the timer started; the next arrival
    /// cancels it and ACKs both at once (every 2nd segment); a lone segment is ACKed when the
    /// timer fires, 100 ms after it arrived.
    #[test]
    fn delack_sink_acks_every_second_segment_or_after_the_interval() {
        let mut net = FakePort::default();
        let mut sink = TcpSink::new(receiver_end(), &config(false, Some(Time::from_millis(100))));
        feed(&mut sink, &mut net, &[(0, 1.0), (1, 1.01)]);
        assert_eq!(net.deadline(TimerKind::DelAck), Some(1.01 + 0.1));
        feed(&mut sink, &mut net, &[(2, 1.02), (3, 1.03), (4, 1.04)]);
        assert_eq!(net.cancelled.iter().map(|c| c.1).collect::<Vec<_>>(), vec![1.02, 1.04]);
        assert_eq!(net.deadline(TimerKind::DelAck), None);
        feed(&mut sink, &mut net, &[(5, 1.05)]);
        let fired = net.expire(|net, _, gen| sink.on_timer(net, gen));
        assert_eq!(fired, Some((TimerKind::DelAck, 1.05 + 0.1)));
        let got: Vec<(i64, f64)> = acks(&net).into_iter().map(|(s, _, _, t)| (s, t)).collect();
        assert_eq!(got, vec![(0, 1.0), (2, 1.02), (4, 1.04), (5, 1.05 + 0.1)]);
    }

    /// A delayed-ACK sink answers at once a segment past a hole (a duplicate ACK), and a
    /// segment that fills part of a gap (RFC2581_immediate_ack_), holding nothing.
    #[test]
    fn delack_sink_acks_out_of_order_and_gap_fillers_at_once() {
        let mut net = FakePort::default();
        let mut sink = TcpSink::new(receiver_end(), &config(false, Some(Time::from_millis(100))));
        feed(&mut sink, &mut net, &[(0, 1.0), (1, 1.01), (2, 1.02), (6, 1.03), (3, 1.04), (5, 1.05), (4, 1.06)]);
        let got: Vec<(i64, f64)> = acks(&net).into_iter().map(|(s, _, _, t)| (s, t)).collect();
        assert_eq!(got, vec![(0, 1.0), (2, 1.02), (2, 1.03), (3, 1.04), (3, 1.05), (6, 1.06)]);
        assert_eq!(net.deadline(TimerKind::DelAck), None, "nothing held");
    }

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

    /// Segments 0..2 arrive; a reset at 0.3 s forgets them and the delayed ACK held for 2. A
    /// segment sent before the reset gets no ACK; seqno 0 sent after it starts again.
    #[test]
    fn reset_forgets_what_arrived_and_ignores_older_segments() {
        let mut sink = TcpSink::new(receiver_end(), &config(false, Some(Time::from_millis(100))));
        let mut net = FakePort::default();
        feed(&mut sink, &mut net, &[(0, 0.1), (1, 0.2), (2, 0.25)]);
        assert_eq!(sink.cumulative(), 2);
        net.set_now(0.3);
        sink.reset(&mut net);
        assert_eq!((sink.cumulative(), net.deadline(TimerKind::DelAck)), (-1, None));
        let before = net.sent.len();
        feed(&mut sink, &mut net, &[(3, 0.32)]);
        assert_eq!((net.sent.len(), sink.cumulative()), (before, -1), "sent at 0.27 s, before the reset");
        feed(&mut sink, &mut net, &[(0, 0.4)]);
        assert_eq!(acks(&net)[before..].iter().map(|a| a.0).collect::<Vec<_>>(), vec![0]);
    }
}
