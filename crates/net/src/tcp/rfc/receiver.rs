//! The rfc profile's receiver, as Linux receives (net/ipv4/tcp_input.c): delayed ACKs with
//! quick-ACK mode, SACK (RFC 2018) and DSACK (RFC 2883) blocks, RFC 7323's timestamp echo, and
//! the echo of congestion experienced, RFC 3168's or DCTCP's (RFC 8257 §3.2), and Linux's
//! compression of the ACKs that SACK out-of-order data.
//!
//! `Receiver` is the mechanism, sans-IO: it takes a data segment and `now` and answers when to
//! ACK and with what. `RfcSink` is its glue, the agent a network holds. Sequence numbers count
//! segments, and every segment is full-sized.

use crate::packet::tcp_header::{SYN_BYTES, TH_ACK, TH_SYN};
use crate::packet::{flags, Kind, Packet, MAX_SACK_BLOCKS};
use crate::port::{Endpoint, Port, TimerKind};
use crate::scenario::{EcnEcho, ReceiverConfig};
use tcplab_des::Timer;

/// A data segment as the receiver sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub seq: i64,
    /// The sender's timestamp (TSval), in seconds.
    pub tsval: f64,
    /// The timestamp it echoes (TSecr), this receiver's own; 0 for none.
    pub tsecr: f64,
    /// ECN-capable transport, congestion experienced, congestion window reduced.
    pub ect: bool,
    pub ce: bool,
    pub cwr: bool,
}

/// What an ACK says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AckFields {
    /// The next segment expected (rcv_nxt): everything below it has arrived.
    pub next: i64,
    /// SACK blocks [left, right), `nsack` of them: a D-SACK block first, then the block holding
    /// the newest segment, then the most recently reported others (RFC 2018 §4, RFC 2883 §4).
    pub sack: [(i64, i64); 4],
    pub nsack: usize,
    /// The timestamp echoed (TSecr), NaN without timestamps.
    pub tsecr: f64,
    pub ece: bool,
}

impl AckFields {
    pub fn sack_blocks(&self) -> &[(i64, i64)] {
        &self.sack[..self.nsack]
    }
}

/// When the ACK for a segment goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum When {
    /// At once, with these fields.
    Now(AckFields),
    /// When the delayed-ACK timer fires at this time (unless something sends it sooner).
    Delayed(f64),
}

/// The answer to one segment: DCTCP may first ACK what came before it (`prior`), then `ack`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reply {
    pub prior: Option<AckFields>,
    pub ack: When,
}

pub struct Receiver {
    cfg: ReceiverConfig,
    /// The next segment expected.
    rcv_nxt: i64,
    /// rcv_nxt when the last ACK went (Linux's rcv_wup).
    rcv_wup: i64,
    /// Segments above rcv_nxt that arrived.
    out_of_order: Runs,
    /// The runs of `out_of_order` last reported, most recent first (at most 4).
    blocks: Vec<(i64, i64)>,
    /// A duplicate to report in the next ACK.
    dsack: Option<(i64, i64)>,
    /// The timestamp to echo (TS.Recent); 0 before a segment at the left edge arrived, as a
    /// connection opened at time 0 would have it from the SYN.
    ts_recent: f64,
    /// Quick ACKs left.
    quick: u32,
    /// The delayed-ACK timeout, and when in-order data last arrived (None before any).
    ato: f64,
    last_data: Option<f64>,
    /// When the delayed ACK goes, if one is pending.
    delack_at: Option<f64>,
    /// SACK compression: when the compressed ACK goes, if one is held; how many are held; and
    /// the left edge with the immediate ACKs sent at it.
    compress_at: Option<f64>,
    compressed: u32,
    acks_at_edge: (i64, u32),
    /// When the SYN-ACK went and how many went, and the handshake's RTT (Linux's passive-side
    /// srtt, from `tcp_synack_rtt_meas`), taken when the packet after the SYN-ACK arrives.
    synack_sent: Option<f64>,
    synacks: u32,
    handshake_rtt: Option<f64>,
    /// Linux's `rcv_rtt_est` from the echoes of this receiver's timestamps, and the last echo
    /// sampled (`rcv_rtt_last_tsecr`).
    rcv_rtt_est: Option<f64>,
    rcv_rtt_last_tsecr: f64,
    /// ECE on the ACKs sent (RFC 3168's latch, or DCTCP's CE state).
    ece: bool,
    /// DCTCP: rcv_nxt after the last ECN-capable segment, which the ACK of the prior CE state
    /// acknowledges.
    prior_rcv_nxt: i64,
    /// Linux's TCP_ECN_SEEN: an ECN-capable segment arrived.
    ecn_seen: bool,
}

impl Receiver {
    pub fn new(cfg: ReceiverConfig) -> Receiver {
        Receiver {
            cfg,
            rcv_nxt: 0,
            rcv_wup: 0,
            out_of_order: Runs::default(),
            blocks: Vec::with_capacity(4),
            dsack: None,
            ts_recent: 0.0,
            quick: 0,
            ato: cfg.ato_min_s,
            last_data: None,
            delack_at: None,
            compress_at: None,
            compressed: 0,
            acks_at_edge: (0, 0),
            synack_sent: None,
            synacks: 0,
            handshake_rtt: None,
            rcv_rtt_est: None,
            rcv_rtt_last_tsecr: 0.0,
            ece: false,
            prior_rcv_nxt: 0,
            ecn_seen: false,
        }
    }

    /// The next segment expected.
    pub fn rcv_nxt(&self) -> i64 {
        self.rcv_nxt
    }

    /// When the ACK held back (delayed, or compressed) goes, if one is held.
    pub fn ack_due(&self) -> Option<f64> {
        match (self.delack_at, self.compress_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Takes a SYN stamped `tsval` at `now`: the SYN-ACK's fields, which go at once (RFC 793
    /// §3.4). Its timestamp is TS.Recent until data arrives (RFC 7323 §4.3).
    pub fn on_syn(&mut self, now: f64, tsval: f64) -> AckFields {
        self.synack_sent = Some(now);
        self.synacks += 1;
        if self.cfg.timestamps {
            self.ts_recent = tsval;
        }
        self.fields(self.rcv_nxt)
    }

    /// The first packet after the SYN-ACK (the handshake's ACK, or data if that ACK was lost)
    /// completes the handshake at `now`: its RTT, as Linux's `tcp_synack_rtt_meas` takes it,
    /// unless the SYN-ACK went more than once (Karn: which one is answered is unknown).
    pub fn on_handshake_done(&mut self, now: f64) {
        if self.handshake_rtt.is_none() && self.synacks == 1 {
            self.handshake_rtt = self.synack_sent.map(|sent| now - sent);
        }
    }

    /// Linux's `tcp_rcv_rtt_measure_ts`: a new echo of this receiver's timestamp is a sample of
    /// the round trip, in the millisecond ticks of TCP timestamps (a sample of 0 ticks is none).
    /// The estimate drops to a smaller sample at once and rises by 1/8 of a larger one
    /// (`tcp_rcv_rtt_update`). An echo of 0 is none (a sender that echoes nothing).
    fn measure_rcv_rtt(&mut self, now: f64, tsecr: f64) {
        if !self.cfg.timestamps || tsecr == 0.0 || tsecr == self.rcv_rtt_last_tsecr {
            return;
        }
        self.rcv_rtt_last_tsecr = tsecr;
        let ticks = (now * 1000.0).floor() - (tsecr * 1000.0).floor();
        if ticks <= 0.0 {
            return;
        }
        let sample = ticks / 1000.0;
        self.rcv_rtt_est = Some(match self.rcv_rtt_est {
            Some(est) if sample >= est => est - est / 8.0 + sample / 8.0,
            _ => sample,
        });
    }

    /// How long a compressed ACK is held: Linux's min(tcp_comp_sack_delay_ns, 5% of the RTT),
    /// the RTT being the smaller of its `rcv_rtt_est` and its srtt (the handshake's: this
    /// receiver sends no data). With neither (no handshake, no echoes), the cap.
    fn sack_compress_delay(&self) -> f64 {
        match [self.rcv_rtt_est, self.handshake_rtt].into_iter().flatten().reduce(f64::min) {
            Some(rtt) => (rtt / 20.0).min(self.cfg.sack_compress_s),
            None => self.cfg.sack_compress_s,
        }
    }

    /// Takes a data segment arriving at `now`: when to ACK, and (for an ACK now) with what.
    pub fn on_segment(&mut self, now: f64, seg: Segment) -> Reply {
        self.measure_rcv_rtt(now, seg.tsecr);
        let mut ack_now = false;
        if seg.cwr && self.cfg.ecn != EcnEcho::Off {
            // RFC 3168 §6.1.3: the sender reacted. Linux ACKs a CWR segment at once, its
            // window may be one segment. (DCTCP's ECE follows the CE state alone.)
            if self.cfg.ecn == EcnEcho::Rfc3168 {
                self.ece = false;
            }
            ack_now = true;
        }
        // RFC 7323 §4.3: echo the segment that covers the left edge of the last ACK, not a
        // later or out-of-order one (and not an older timestamp).
        if self.cfg.timestamps && seg.seq <= self.rcv_wup && seg.tsval >= self.ts_recent {
            self.ts_recent = seg.tsval;
        }
        let had_holes = !self.out_of_order.is_empty();
        let mut prior = None;
        if seg.seq < self.rcv_nxt {
            // A retransmission of what arrived: D-SACK it and ACK at once, in quick-ACK mode.
            self.note_duplicate(seg.seq);
            self.enter_quickack(self.cfg.max_quickacks);
            ack_now = true;
        } else if seg.seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            if let Some(end) = self.out_of_order.take_run_from(self.rcv_nxt) {
                self.rcv_nxt = end;
            }
            self.blocks.retain(|&(_, right)| right > self.rcv_nxt);
            self.on_in_order_data(now);
            let (before, ce_changed) = self.check_ce(seg);
            prior = before;
            // RFC 5681 §4.2: ACK at once a segment that fills the last hole. (One that fills
            // an earlier hole moves the left edge: its ACK is one of the first there, below.)
            ack_now |= (had_holes && self.out_of_order.is_empty()) || ce_changed;
        } else {
            prior = self.check_ce(seg).0;
            if !self.out_of_order.insert(seg.seq) {
                self.note_duplicate(seg.seq);
            }
            self.report_run_of(seg.seq);
        }
        let quickack = self.quick > 0;
        if ack_now || quickack || self.rcv_nxt - self.rcv_wup >= self.cfg.ack_every as i64 {
            return Reply { prior, ack: When::Now(self.ack()) };
        }
        if !self.out_of_order.is_empty() {
            return Reply { prior, ack: self.sack_ack(now) };
        }
        // Linux's tcp_send_delayed_ack: an ATO beyond its floor is capped; a pending timer
        // keeps its earlier deadline, and goes now if that is within a quarter ATO.
        let ato = if self.ato > self.cfg.ato_min_s { self.ato.min(self.cfg.delack_max_s) } else { self.ato };
        let at = match self.delack_at {
            Some(t) if t <= now + ato / 4.0 => return Reply { prior, ack: When::Now(self.ack()) },
            Some(t) => t.min(now + ato),
            None => now + ato,
        };
        self.delack_at = Some(at);
        Reply { prior, ack: When::Delayed(at) }
    }

    /// The ACK of out-of-order data (RFC 5681 §4.2: at once), as Linux (4.20 on) sends it with
    /// SACK: the first 3 at a left edge go at once, for fast retransmit; later ones are held
    /// for `sack_compress_delay`, up to `sack_compress_nr` of them.
    fn sack_ack(&mut self, now: f64) -> When {
        if !self.cfg.sack || self.compressed >= self.cfg.sack_compress_nr {
            return When::Now(self.ack());
        }
        if self.acks_at_edge.0 != self.rcv_nxt {
            self.acks_at_edge = (self.rcv_nxt, 0);
        }
        if self.acks_at_edge.1 < 3 {
            self.acks_at_edge.1 += 1;
            return When::Now(self.ack());
        }
        self.compressed += 1;
        let at = *self.compress_at.get_or_insert(now + self.sack_compress_delay());
        When::Delayed(self.ack_due().map_or(at, |due| due.min(at)))
    }

    /// The timer of the ACK held back fired: that ACK, if one is still held. A missed delayed
    /// ACK means data comes slower than the ATO: double it, up to the RTO (tcp_delack_timer);
    /// a compressed ACK just goes.
    pub fn on_ack_timer(&mut self) -> Option<AckFields> {
        let due = self.ack_due()?;
        if self.delack_at == Some(due) {
            self.ato = (2.0 * self.ato).min(self.cfg.rto_s);
        }
        Some(self.ack())
    }

    /// Sends the ACK of everything that arrived: the ACK held back goes with it, and a quick
    /// ACK is used up.
    fn ack(&mut self) -> AckFields {
        (self.delack_at, self.compress_at, self.compressed) = (None, None, 0);
        self.rcv_wup = self.rcv_nxt;
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = self.cfg.ato_min_s;
            }
        }
        self.fields(self.rcv_nxt)
    }

    /// An ACK of `next` with the current blocks, echo and ECE; a D-SACK is reported once.
    fn fields(&mut self, next: i64) -> AckFields {
        let mut sack = [(0, 0); 4];
        let mut nsack = 0;
        if self.cfg.sack {
            // TCP's 40 bytes of options hold 4 blocks, 3 beside timestamps
            let max = if self.cfg.timestamps { 3 } else { 4 };
            for block in self.dsack.take().into_iter().chain(self.blocks.iter().copied()).take(max) {
                sack[nsack] = block;
                nsack += 1;
            }
        }
        let tsecr = if self.cfg.timestamps { self.ts_recent } else { f64::NAN };
        AckFields { next, sack, nsack, tsecr, ece: self.ece }
    }

    fn note_duplicate(&mut self, seq: i64) {
        if self.cfg.sack && self.cfg.dsack {
            self.dsack = Some((seq, seq + 1));
        }
    }

    /// Puts the run of arrived segments holding `seq` first among the blocks reported, in place
    /// of those it now covers (Linux's tcp_sack_new_ofo_skb keeps at most 4).
    fn report_run_of(&mut self, seq: i64) {
        let Some((left, right)) = self.out_of_order.run_holding(seq) else { return };
        self.blocks.retain(|&(l, r)| r <= left || l >= right);
        self.blocks.insert(0, (left, right));
        self.blocks.truncate(4);
    }

    /// Linux's tcp_incr_quickack: quick-ACK mode for rcv_wnd/2 ACKs (at least 2), at most `max`.
    fn incr_quickack(&mut self, max: u32) {
        let quickacks = (self.cfg.rcv_wnd / 2).max(2).min(max).min(self.cfg.max_quickacks);
        self.quick = self.quick.max(quickacks);
    }

    /// Linux's tcp_enter_quickack_mode: quick ACKs, and the ATO back to its floor.
    fn enter_quickack(&mut self, max: u32) {
        self.incr_quickack(max);
        self.ato = self.cfg.ato_min_s;
    }

    /// Linux's tcp_event_data_recv: quick-ACK mode for the first data and after an idle gap
    /// longer than the RTO; otherwise the ATO follows the gaps between segments.
    fn on_in_order_data(&mut self, now: f64) {
        let min = self.cfg.ato_min_s;
        match self.last_data {
            None => {
                self.incr_quickack(self.cfg.max_quickacks);
                self.ato = min;
            }
            Some(last) => {
                let gap = now - last;
                if gap <= min / 2.0 {
                    self.ato = self.ato / 2.0 + min / 2.0;
                } else if gap < self.ato {
                    self.ato = (self.ato / 2.0 + gap).min(self.cfg.rto_s);
                } else if gap > self.cfg.rto_s {
                    self.incr_quickack(self.cfg.max_quickacks);
                }
            }
        }
        self.last_data = Some(now);
    }

    /// Linux's tcp_ecn_check_ce on a new segment (in order or not): the ECE state. With DCTCP, a
    /// change of state asks for an ACK now, and first for an ACK of the prior state if a delayed
    /// ACK was pending: (that prior ACK, whether to ACK now).
    fn check_ce(&mut self, seg: Segment) -> (Option<AckFields>, bool) {
        match self.cfg.ecn {
            EcnEcho::Off => (None, false),
            _ if !seg.ect => {
                // Not ECN-capable after ECN was seen: likely a retransmission; ACK it quickly.
                if self.ecn_seen {
                    self.enter_quickack(2);
                }
                (None, false)
            }
            EcnEcho::Rfc3168 => {
                self.ecn_seen = true;
                if seg.ce && !self.ece {
                    // the sender's window may be small: do not delay the ACKs that tell it
                    self.enter_quickack(2);
                    self.ece = true;
                }
                (None, false)
            }
            EcnEcho::Dctcp => {
                self.ecn_seen = true;
                let (mut prior, mut changed) = (None, false);
                if seg.ce != self.ece {
                    // RFC 8257 §3.2: a delayed ACK goes first with the old state, for the data
                    // before this segment; this segment's ACK goes at once with the new one.
                    if self.delack_at.is_some() {
                        prior = Some(self.fields(self.prior_rcv_nxt));
                    }
                    self.ece = seg.ce;
                    changed = true;
                }
                self.prior_rcv_nxt = self.rcv_nxt;
                (prior, changed)
            }
        }
    }
}

/// Segments that arrived above a hole, as sorted, disjoint, non-adjacent [start, end) runs:
/// finding the run that holds a segment takes a binary search, not a walk along the run.
#[derive(Debug, Default)]
struct Runs(Vec<(i64, i64)>);

impl Runs {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The index of the first run that holds `seq`, ends just below it, or lies above it.
    fn first_reaching(&self, seq: i64) -> usize {
        self.0.partition_point(|&(_, end)| end < seq)
    }

    /// Adds `seq`, joining the runs beside it; false if it was there already.
    fn insert(&mut self, seq: i64) -> bool {
        let i = self.first_reaching(seq);
        let (ends_at_seq, starts_after_seq) = match self.0.get(i) {
            Some(&(start, end)) if start <= seq && seq < end => return false,
            Some(&(_, end)) if end == seq => (true, self.0.get(i + 1).is_some_and(|&(start, _)| start == seq + 1)),
            Some(&(start, _)) => (false, start == seq + 1),
            None => (false, false),
        };
        match (ends_at_seq, starts_after_seq) {
            (true, true) => {
                self.0[i].1 = self.0[i + 1].1;
                self.0.remove(i + 1);
            }
            (true, false) => self.0[i].1 = seq + 1,
            (false, true) => self.0[i].0 = seq,
            (false, false) => self.0.insert(i, (seq, seq + 1)),
        }
        true
    }

    /// The run that holds `seq`, if any.
    fn run_holding(&self, seq: i64) -> Option<(i64, i64)> {
        self.0.get(self.first_reaching(seq)).copied().filter(|&(start, end)| start <= seq && seq < end)
    }

    /// Removes the run that starts at `seq`, if there is one: its end.
    fn take_run_from(&mut self, seq: i64) -> Option<i64> {
        let &(start, end) = self.0.first()?;
        (start == seq).then(|| {
            self.0.remove(0);
            end
        })
    }
}

/// The receiver as an agent: data segments in, ACKs out through its port, with the
/// delayed-ACK timer. ACKs are 40 bytes and 8 more per SACK block, as the ns-2 sinks' are.
pub struct RfcSink {
    ep: Endpoint,
    rx: Receiver,
    /// Armed for the receiver's `ack_due`.
    delack: Timer,
}

impl RfcSink {
    pub fn new(ep: Endpoint, cfg: ReceiverConfig) -> RfcSink {
        RfcSink { ep, rx: Receiver::new(cfg), delack: Timer::default() }
    }

    /// The cumulative ACK: the last segment handed to the application in order.
    pub fn cumulative(&self) -> i64 {
        self.rx.rcv_nxt() - 1
    }

    pub fn recv(&mut self, net: &mut impl Port, pkt: &Packet) {
        if pkt.tcp_flags & TH_SYN != 0 {
            let synack = self.rx.on_syn(net.now_secs(), pkt.ts);
            self.ep.send(net, Kind::Ack, |p| {
                (p.size, p.seq, p.ts_echo, p.tcp_flags) = (SYN_BYTES, synack.next - 1, synack.tsecr, TH_SYN | TH_ACK);
            });
            return;
        }
        self.rx.on_handshake_done(net.now_secs());
        if pkt.tcp_flags == TH_ACK {
            return; // the handshake's last ACK: no data
        }
        let (before, armed_for) = (self.rx.rcv_nxt(), self.rx.ack_due());
        let seg = Segment {
            seq: pkt.seq,
            tsval: pkt.ts,
            tsecr: pkt.ts_echo,
            ect: pkt.has(flags::ECT),
            ce: pkt.has(flags::CE),
            cwr: pkt.has(flags::CWR),
        };
        let reply = self.rx.on_segment(net.now_secs(), seg);
        net.flow_stats(self.ep.flow).goodput_bytes += (self.rx.rcv_nxt() - before) as u64 * pkt.payload as u64;
        if let Some(prior) = reply.prior {
            self.send(net, &prior);
        }
        match reply.ack {
            When::Now(ack) => {
                if self.delack.pending() {
                    net.cancel(&mut self.delack, self.ep.flow, TimerKind::DelAck);
                }
                self.send(net, &ack);
            }
            When::Delayed(at) if armed_for != Some(at) => {
                let delay = at - net.now_secs();
                net.arm(&mut self.delack, self.ep.flow, TimerKind::DelAck, delay);
            }
            When::Delayed(_) => {}
        }
    }

    pub fn on_timer(&mut self, net: &mut impl Port, gen: u32) {
        if net.fire(&mut self.delack, self.ep.flow, TimerKind::DelAck, gen) {
            if let Some(ack) = self.rx.on_ack_timer() {
                self.send(net, &ack);
            }
        }
    }

    fn send(&mut self, net: &mut impl Port, ack: &AckFields) {
        let blocks = &ack.sack_blocks()[..ack.nsack.min(MAX_SACK_BLOCKS)];
        let ece = if ack.ece { flags::ECN_ECHO } else { 0 };
        self.ep.send(net, Kind::Ack, |p| {
            (p.size, p.seq, p.flags, p.ts_echo) = (40 + 8 * blocks.len() as u32, ack.next - 1, ece, ack.tsecr);
            p.set_sack_blocks(blocks);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{receiver_end, segment, FakePort};

    /// Linux's receiver for a window of 64 segments, with `change` applied.
    fn receiver(change: impl FnOnce(&mut ReceiverConfig)) -> Receiver {
        let mut cfg = ReceiverConfig::linux(64);
        change(&mut cfg);
        Receiver::new(cfg)
    }

    fn seg(seq: i64) -> Segment {
        Segment { seq, tsval: 10.0 + seq as f64, tsecr: 0.0, ect: false, ce: false, cwr: false }
    }

    /// A summary of an answer: Some(next expected) for an ACK now, None for a delayed one.
    fn now_or_later(r: &Reply) -> Option<i64> {
        match r.ack {
            When::Now(a) => Some(a.next),
            When::Delayed(_) => None,
        }
    }

    /// Feeds `seqs` at 1 ms apart from t = 0 and summarises each answer.
    fn feed(rx: &mut Receiver, seqs: impl IntoIterator<Item = i64>) -> Vec<Option<i64>> {
        seqs.into_iter().map(|s| now_or_later(&rx.on_segment(0.001 * s as f64, seg(s)))).collect()
    }

    fn now(r: Reply) -> AckFields {
        match r.ack {
            When::Now(a) => a,
            When::Delayed(t) => panic!("delayed to {t}"),
        }
    }

    /// The runs of out-of-order segments: 5, 7, 3 make three runs; 6 joins 5 and 7 into
    /// 5..8, 4 joins 3 to it (3..9 after 8); 7 again is a duplicate. 10 starts a run of its own;
    /// the run from 3 is taken whole (the in-order data reached 3), and none starts at 9.
    #[test]
    fn out_of_order_runs_join_and_are_taken_whole() {
        let mut runs = Runs::default();
        for seq in [5, 7, 3] {
            assert!(runs.insert(seq));
        }
        assert_eq!(runs.0, [(3, 4), (5, 6), (7, 8)]);
        assert!(runs.insert(6));
        assert!(runs.insert(8));
        assert!(runs.insert(4));
        assert!(!runs.insert(7), "already there");
        assert!(runs.insert(10));
        assert_eq!(runs.0, [(3, 9), (10, 11)]);
        assert_eq!((runs.run_holding(6), runs.run_holding(9)), (Some((3, 9)), None));
        assert_eq!((runs.take_run_from(9), runs.take_run_from(3)), (None, Some(9)));
        assert_eq!(runs.0, [(10, 11)]);
    }

    /// Without quick-ACK mode: more than one full-sized segment unacknowledged sends the ACK,
    /// so ACKs go for 2, 4, 6 (next expected); 0, 2 and 4 wait for the timer, set to now +
    /// ATO: segments 1 ms apart keep the ATO at 40/2 + 40/2 = 40 ms.
    #[test]
    fn an_ack_for_every_second_segment() {
        let mut rx = receiver(|c| c.max_quickacks = 0);
        assert_eq!(rx.on_segment(0.0, seg(0)).ack, When::Delayed(0.04));
        assert_eq!(feed(&mut rx, 1..6), vec![Some(2), None, Some(4), None, Some(6)]);
        assert_eq!(rx.ack_due(), None, "the ACK of 5 took the pending one with it");
    }

    /// The delayed-ACK timer: 40 ms after a lone segment (TCP_ATO_MIN). Each missed delayed ACK
    /// doubles the ATO (80, 160, 320 ms); the timer waits at most 200 ms. Gaps of 0.5 s (above
    /// the ATO) leave the ATO as it is. A gap of 1.5 s (above the 1 s RTO) would start quick-ACK
    /// mode, which is off here, so that segment too waits min(640 ms, 200 ms).
    #[test]
    fn the_delayed_ack_timer_doubles_the_ato_up_to_200_ms() {
        let mut rx = receiver(|c| c.max_quickacks = 0);
        let mut deadlines = vec![];
        for (s, t) in [(0, 0.0), (1, 0.5), (2, 1.0), (3, 1.5), (4, 3.0)] {
            match rx.on_segment(t, seg(s)).ack {
                When::Delayed(at) => deadlines.push(at - t),
                When::Now(_) => panic!("segment {s} ACKed at once"),
            }
            assert_eq!(rx.on_ack_timer().map(|a| a.next), Some(s + 1));
        }
        let expected = [0.04, 0.08, 0.16, 0.2, 0.2];
        for (d, e) in deadlines.iter().zip(expected) {
            assert!((d - e).abs() < 1e-12, "delays {deadlines:?}");
        }
        assert_eq!(rx.on_ack_timer(), None, "nothing pending");
    }

    /// A pending timer keeps its deadline; a segment within a quarter ATO of it is ACKed at once
    /// (Linux's tcp_send_delayed_ack). Quick-ACK mode off, ACK every 10 segments: 0 at 0 s sets
    /// 40 ms; 1 at 25 ms (gap 25 ms < ATO) makes the ATO 40/2 + 25 = 45 ms, but 40 ms stays
    /// (earlier than 70 ms, and 40 > 25 + 45/4); 2 at 35 ms makes it 45/2 + 20 = 42.5 ms, and
    /// 40 <= 35 + 10.625: ACK now.
    #[test]
    fn a_pending_delayed_ack_keeps_its_deadline_and_goes_when_near() {
        let mut rx = receiver(|c| (c.max_quickacks, c.ack_every) = (0, 10));
        assert_eq!(rx.on_segment(0.0, seg(0)).ack, When::Delayed(0.04));
        assert_eq!(rx.on_segment(0.025, seg(1)).ack, When::Delayed(0.04));
        assert_eq!(now(rx.on_segment(0.035, seg(2))).next, 3);
    }

    /// Quick-ACK mode at the start lasts rcv_wnd/(2 mss) ACKs, at least 2, at most 16: with a
    /// window of 64 segments, 16 ACKs of one segment each, then every second one. With a window
    /// of 6, 3; of 2, 2. After an idle gap longer than the 1 s RTO it starts again.
    #[test]
    fn quick_ack_mode_counts_rcv_wnd_over_two_acks() {
        for (wnd, quick) in [(64, 16), (6, 3), (2, 2)] {
            let mut rx = Receiver::new(ReceiverConfig::linux(wnd));
            let got = feed(&mut rx, 0..quick + 4);
            let mut expected: Vec<Option<i64>> = (1..=quick).map(Some).collect();
            expected.extend([None, Some(quick + 2), None, Some(quick + 4)]);
            assert_eq!(got, expected, "window {wnd}");
        }
        let mut rx = Receiver::new(ReceiverConfig::linux(6));
        feed(&mut rx, 0..4);
        let after_idle: Vec<_> = (4..8).map(|s| now_or_later(&rx.on_segment(2.0 + 0.001 * s as f64, seg(s)))).collect();
        assert_eq!(after_idle, vec![Some(5), Some(6), Some(7), None], "3 quick ACKs again");
    }

    /// RFC 2018 §4: the block holding the newest segment first, then the most recently
    /// reported others; 3 beside timestamps. Out-of-order data and the hole filler are ACKed at
    /// once (RFC 5681 §4.2). RFC 2883: a duplicate is reported first in a D-SACK block, once;
    /// a duplicate of out-of-order data brings its block right after it.
    #[test]
    fn sack_blocks_newest_first_and_dsack_for_duplicates() {
        let mut rx = receiver(|_| {});
        feed(&mut rx, [0]);
        let mut blocks = |s: i64| {
            let a = now(rx.on_segment(0.1, seg(s)));
            (a.next, a.sack_blocks().to_vec())
        };
        assert_eq!(blocks(2), (1, vec![(2, 3)]));
        assert_eq!(blocks(4), (1, vec![(4, 5), (2, 3)]));
        assert_eq!(blocks(6), (1, vec![(6, 7), (4, 5), (2, 3)]));
        assert_eq!(blocks(8), (1, vec![(8, 9), (6, 7), (4, 5)]));
        // 5 joins 4 and 6: the run 4..7 first, in place of the two it covers
        assert_eq!(blocks(5), (1, vec![(4, 7), (8, 9), (2, 3)]));
        // 1 fills the first hole: the ACK moves to 3 and the block below it goes
        assert_eq!(blocks(1), (3, vec![(4, 7), (8, 9)]));
        assert_eq!(blocks(2), (3, vec![(2, 3), (4, 7), (8, 9)]), "D-SACK of a segment below the ACK");
        assert_eq!(blocks(8), (3, vec![(8, 9), (8, 9), (4, 7)]), "D-SACK, then the block holding it");
        assert_eq!(blocks(3), (7, vec![(8, 9)]), "the D-SACK went once");

        // without timestamps, 4 blocks
        let mut rx = receiver(|c| c.timestamps = false);
        feed(&mut rx, [0, 2, 4, 6]);
        let a = now(rx.on_segment(0.1, seg(8)));
        assert_eq!(a.sack_blocks(), &[(8, 9), (6, 7), (4, 5), (2, 3)]);
        assert!(a.tsecr.is_nan());
    }

    /// Linux's SACK compression: out-of-order segments 3..=9 past a hole at 2, 0.2 ms apart
    /// from 10 ms, quick-ACK mode off. The first 3 ACKs at the edge (for 3, 4, 5) go at once;
    /// 6 is held until 1 ms after it arrived (10.6 + 1 = 11.6 ms) and 7 joins it; when the
    /// timer fires one ACK SACKs 3..8, and the ATO stays 40 ms (no delayed ACK missed). With
    /// at most 2 held (`sack_compress_nr`), 8 finds 2 held and goes at once. 2 fills the hole:
    /// ACKed at once.
    #[test]
    fn sack_compression_holds_acks_after_three_at_one_edge() {
        for nr in [44, 2] {
            let mut rx = receiver(|c| (c.max_quickacks, c.sack_compress_nr) = (0, nr));
            rx.on_segment(0.0, seg(0));
            assert_eq!(now(rx.on_segment(0.001, seg(1))).next, 2);
            let t = |s: i64| 0.01 + 0.0002 * (s - 3) as f64;
            let got: Vec<_> = (3..=7).map(|s| rx.on_segment(t(s), seg(s)).ack).collect();
            assert!(got[..3].iter().all(|w| matches!(w, When::Now(a) if a.next == 2)), "{got:?}");
            let held = t(6) + 0.001;
            assert_eq!(&got[3..], &[When::Delayed(held), When::Delayed(held)]);
            if nr == 2 {
                assert!(matches!(rx.on_segment(t(8), seg(8)).ack, When::Now(a) if a.sack_blocks() == [(3, 9)]));
                continue;
            }
            let a = rx.on_ack_timer().expect("the held ACK");
            assert_eq!((a.next, a.sack_blocks()), (2, &[(3, 8)][..]));
            assert_eq!((rx.ato, rx.ack_due()), (0.04, None));
            assert_eq!(now(rx.on_segment(0.02, seg(2))).next, 8);
        }
    }

    /// Linux holds a compressed ACK min(1 ms, 5% of its RTT), and a receiver's RTT is its
    /// handshake's: SYN-ACK sent at 0, the handshake's ACK back at 10.2 ms: 10.2 / 20 =
    /// 0.51 ms. Out-of-order 3..=6 past a hole at 2 from 20 ms, 0.2 ms apart: 3, 4, 5 go at
    /// once, 6 (at 20.6 ms) is held until 20.6 + 0.51 = 21.11 ms. A 40 ms handshake gives
    /// 2 ms, above the cap: 1 ms. Two SYN-ACKs (the SYN came twice) give no sample: the cap.
    #[test]
    fn the_compressed_ack_is_held_five_percent_of_the_handshake_rtt() {
        for (synacks, rtt, hold) in [(1, 0.0102, 0.00051), (1, 0.04, 0.001), (2, 0.0102, 0.001)] {
            let mut rx = receiver(|c| c.max_quickacks = 0);
            for _ in 0..synacks {
                rx.on_syn(0.0, 0.0);
            }
            rx.on_handshake_done(rtt);
            rx.on_handshake_done(rtt + 0.5); // only the first packet after the SYN-ACK counts
            rx.on_segment(0.015, seg(0));
            assert_eq!(now(rx.on_segment(0.016, seg(1))).next, 2);
            let t = |s: i64| 0.02 + 0.0002 * (s - 3) as f64;
            let got: Vec<_> = (3..=6).map(|s| rx.on_segment(t(s), seg(s)).ack).collect();
            assert!(got[..3].iter().all(|w| matches!(w, When::Now(a) if a.next == 2)), "{got:?}");
            match got[3] {
                When::Delayed(at) => assert!((at - (t(6) + hold)).abs() < 1e-12, "{synacks} {rtt}: {at}"),
                other => panic!("{other:?}"),
            }
        }
    }

    /// Linux's `rcv_rtt_est`, in millisecond ticks: at 100.3 ms a segment echoing 88.9 ms:
    /// 100 - 88 = 12 ticks, the first sample: 12 ms. Echoing 90.2 at 110.9: 20 ms, larger:
    /// 12 - 12/8 + 20/8 = 13 ms. The same echo again, an echo of 0, and one of the same tick
    /// (111.1 at 111.8) are not samples. Echoing 101 at 111.9: 10 ms, smaller: at once. The
    /// hold is 5% of the smaller of it and the handshake's RTT: with 14.9 ms, 13 ms gives
    /// 0.65 ms and 10 ms 0.5 ms; without a handshake, the estimate alone.
    #[test]
    fn the_receiver_estimates_the_rtt_from_the_echoes_of_its_timestamps() {
        for handshake in [true, false] {
            let mut rx = receiver(|c| c.max_quickacks = 0);
            if handshake {
                rx.on_syn(0.0, 0.0);
                rx.on_handshake_done(0.0149);
            }
            let mut at = |now: f64, tsecr: f64, seq: i64| {
                rx.on_segment(now, Segment { tsecr, ..seg(seq) });
                (rx.rcv_rtt_est, rx.sack_compress_delay())
            };
            let close = |(est, hold): (Option<f64>, f64), want: (f64, f64)| {
                assert!((est.unwrap() - want.0).abs() < 1e-12 && (hold - want.1).abs() < 1e-12, "{est:?} {hold}");
            };
            close(at(0.1003, 0.0889, 0), (0.012, 0.0006));
            close(at(0.1109, 0.0902, 1), (0.013, 0.00065));
            close(at(0.1110, 0.0902, 2), (0.013, 0.00065));
            close(at(0.1112, 0.0, 3), (0.013, 0.00065));
            close(at(0.1118, 0.1111, 4), (0.013, 0.00065));
            close(at(0.1119, 0.101, 5), (0.010, 0.0005));
        }
    }

    /// RFC 7323 §4.3: TS.Recent takes the TSval of a segment at or below the last ACK's edge.
    /// TSval is 10 + seq here, quick-ACK mode off. 0 sets 10; 1, past the edge, does not: the
    /// ACK of both echoes 10 (the earlier). 3 arrives past the hole at 2: the duplicate ACK
    /// still echoes 10. The retransmitted 2 (TSval 20) fills the hole and is echoed.
    #[test]
    fn tsecr_echoes_the_segment_that_advanced_the_left_edge() {
        let mut rx = receiver(|c| c.max_quickacks = 0);
        rx.on_segment(0.0, seg(0));
        assert_eq!(now(rx.on_segment(0.01, seg(1))).tsecr, 10.0);
        assert_eq!(now(rx.on_segment(0.02, seg(3))).tsecr, 10.0);
        let a = now(rx.on_segment(0.5, Segment { tsval: 20.0, ..seg(2) }));
        assert_eq!((a.next, a.tsecr), (4, 20.0));
    }

    fn ecn(seq: i64, ce: bool) -> Segment {
        Segment { ect: true, ce, ..seg(seq) }
    }

    /// RFC 8257 §3.2's two-state machine, ACKing every 2nd segment: 0 (no CE) is held; 1 (CE)
    /// changes the state with 0's ACK pending, so that ACK goes first (next 1, no ECE), then
    /// 1's at once (next 2, ECE). 2, 3 (CE) are ACKed together with ECE; 4 (no CE) changes the
    /// state with nothing pending: one ACK, at once, without ECE; 5 and 6 together.
    #[test]
    fn dctcp_echoes_ce_exactly_with_an_ack_when_the_state_changes() {
        let mut rx = receiver(|c| (c.max_quickacks, c.ecn) = (0, EcnEcho::Dctcp));
        let mut acks = vec![];
        for (s, ce) in [(0, false), (1, true), (2, true), (3, true), (4, false), (5, false), (6, false)] {
            let r = rx.on_segment(0.001 * s as f64, ecn(s, ce));
            acks.extend(r.prior.map(|a| (a.next, a.ece)));
            if let When::Now(a) = r.ack {
                acks.push((a.next, a.ece));
            }
        }
        assert_eq!(acks, vec![(1, false), (2, true), (4, true), (5, false), (7, false)]);
    }

    /// RFC 3168 §6.1.3: ECE from the first CE until a CWR segment, which is ACKed at once.
    /// With a window of 4, quick-ACK mode covers 0 and 1; CE on 3 starts 2 quick ACKs (Linux:
    /// the sender's window may be small), 3 and 4, both with ECE; 5 waits; 6 with CWR goes at
    /// once without ECE.
    #[test]
    fn rfc3168_latches_ece_until_cwr() {
        let mut rx = Receiver::new(ReceiverConfig { ecn: EcnEcho::Rfc3168, ..ReceiverConfig::linux(4) });
        let mut acks = vec![];
        for (s, ce, cwr) in [(0, false, false), (1, false, false), (2, false, false), (3, true, false)]
            .into_iter()
            .chain([(4, false, false), (5, false, false), (6, false, true)])
        {
            if let When::Now(a) = rx.on_segment(0.001 * s as f64, Segment { cwr, ..ecn(s, ce) }).ack {
                acks.push((a.next, a.ece));
            }
        }
        assert_eq!(acks, vec![(1, false), (2, false), (4, true), (5, true), (7, false)]);
    }

    /// The agent: ACKs as packets (cumulative seqno = next - 1, 40 bytes + 8 per block, the
    /// echo), goodput once per segment delivered in order, and the delayed-ACK timer armed and
    /// fired through the port. Segments are sent 50 ms before they arrive; 4, at the left edge
    /// after the ACK of 2, is the one echoed by the delayed ACK.
    #[test]
    fn the_sink_sends_acks_and_runs_the_delayed_ack_timer() {
        let mut cfg = ReceiverConfig::linux(64);
        cfg.max_quickacks = 0;
        let mut sink = RfcSink::new(receiver_end(), cfg);
        let mut net = FakePort::default();
        for (s, t) in [(0, 1.0), (1, 1.01), (3, 1.02), (2, 1.03), (4, 1.04)] {
            net.set_now(t);
            sink.recv(&mut net, &segment(s, 1000, t - 0.05));
        }
        assert_eq!(net.deadline(TimerKind::DelAck), Some(1.04 + 0.04));
        let fired = net.expire(|net, _, gen| sink.on_timer(net, gen));
        assert_eq!(fired, Some((TimerKind::DelAck, 1.08)));
        let got: Vec<_> = net.sent.iter().map(|p| (p.seq, p.size, p.sack_blocks().to_vec(), p.ts_echo)).collect();
        let expected =
            vec![(1, 40, vec![], 0.95), (1, 48, vec![(3, 4)], 0.95), (3, 40, vec![], 0.98), (4, 40, vec![], 0.99)];
        assert_eq!(got.len(), expected.len(), "{got:?}");
        for (g, e) in got.iter().zip(&expected) {
            assert_eq!((g.0, g.1, &g.2), (e.0, e.1, &e.2));
            assert!((g.3 - e.3).abs() < 1e-12, "{got:?}");
        }
        assert_eq!((net.stats[0].goodput_bytes, sink.cumulative()), (5000, 4));
    }
}
