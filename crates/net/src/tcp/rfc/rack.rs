//! RACK-TLP (RFC 8985), counted in segments: time-based loss detection and the tail loss probe.
//!
//! RACK remembers when each outstanding segment was last sent and, on each ACK, the send time
//! of the most recently sent segment delivered (RACK.xmit_ts, §6.2 step 2). A segment sent
//! more than RACK.rtt + reo_wnd before that one is lost (step 5); one sent less long ago waits
//! for the reordering timer. The reordering window is min_RTT/4 times reo_wnd_mult, never
//! above SRTT; it is zero until reordering is seen if in recovery or DupThresh segments are
//! SACKed (step 4), grows by one min_RTT/4 per round that sees a D-SACK and falls back after 16
//! recoveries without one (as Linux's tcp_rack_update_reo_wnd). TLP (§7) sends one probe a PTO
//! after the last send when nothing is SACKed and no recovery runs, and watches the ACKs of
//! the probe's episode for the loss it repaired.
//!
//! Departures from the RFC's letter, as Linux's tcp_recovery.c: min_RTT is the lowest RTT seen
//! (Linux keeps a 5-minute windowed minimum), and a pure duplicate ACK at the episode's end
//! (a receiver without D-SACK acknowledging the probe's duplicate) ends it without a loss.

use std::collections::VecDeque;

/// RFC 8985's per-segment state.
#[derive(Debug, Clone, Copy)]
struct Segment {
    xmit_ts: f64,
    retransmitted: bool,
    delivered: bool,
    lost: bool,
}

/// How a TLP episode ended (§7.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlpEnd {
    /// The probe was new data, or both the original and the probe arrived: nothing lost.
    NoLoss,
    /// The probe repaired a lost segment: the sender reduces cwnd as for a loss.
    LossRepaired,
}

/// The segment a loss probe sends (§7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub seq: i64,
    pub retransmission: bool,
}

#[derive(Debug, Clone)]
pub struct Rack {
    /// DupThresh, for the reordering window's rule of SACKed segments (§6.2 step 4).
    pub dupthresh: u32,
    /// WCDelAckT: the longest the receiver may delay an ACK, added to the PTO when only one
    /// segment is in flight (§7.2; 200 ms, Linux's TCP_RTO_MIN there).
    pub max_ack_delay: f64,
    /// Added to 2 SRTT when more than one segment is in flight: 0 in RFC 8985, Linux's
    /// TCP_TIMEOUT_MIN (2 jiffies, 2 ms at HZ 1000) in tcp_schedule_loss_probe.
    pub pto_slack: f64,
    /// The records of segments `base`, `base` + 1, ...: from the first unacknowledged one to
    /// the highest sent.
    base: i64,
    segments: VecDeque<Segment>,
    /// How many of `segments` are delivered (RACK.segs_sacked), counted as they change.
    sacked: usize,
    /// The segments the ACK being processed newly delivered (a field, so that every ACK
    /// reuses its space).
    newly: Vec<(i64, Segment)>,
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment delivered.
    xmit_ts: f64,
    end_seq: i64,
    /// RACK.rtt: the RTT of that segment.
    rtt: f64,
    min_rtt: f64,
    /// RACK.fack: the highest segment delivered.
    fack: i64,
    reordering_seen: bool,
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    /// SND.NXT when the last reo_wnd_mult growth happened: one growth per round.
    dsack_round: Option<i64>,
    /// TLP.end_seq (SND.NXT after the probe) and TLP.is_retrans, while an episode is open.
    tlp: Option<(i64, Probe)>,
}

impl Rack {
    pub fn new(dupthresh: u32, max_ack_delay: f64) -> Self {
        Rack {
            dupthresh,
            max_ack_delay,
            pto_slack: 0.0,
            base: 0,
            segments: VecDeque::new(),
            sacked: 0,
            newly: Vec::new(),
            xmit_ts: f64::NEG_INFINITY,
            end_seq: -1,
            rtt: 0.0,
            min_rtt: f64::INFINITY,
            fack: -1,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
            tlp: None,
        }
    }

    #[cfg(test)]
    pub fn rtt(&self) -> f64 {
        self.rtt
    }

    pub fn min_rtt(&self) -> f64 {
        self.min_rtt
    }

    #[cfg(test)]
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }

    /// RACK.segs_sacked: delivered above the first unacknowledged segment.
    pub fn segs_sacked(&self) -> usize {
        self.sacked
    }

    fn record(&self, seq: i64) -> Option<&Segment> {
        usize::try_from(seq - self.base).ok().and_then(|i| self.segments.get(i))
    }

    /// `seq` left at `now`: a new segment, or a retransmission (which is no longer lost).
    pub fn on_sent(&mut self, now: f64, seq: i64) {
        let fresh = Segment { xmit_ts: now, retransmitted: false, delivered: false, lost: false };
        match usize::try_from(seq - self.base) {
            Ok(i) if i < self.segments.len() => {
                self.sacked -= self.segments[i].delivered as usize;
                self.segments[i] = Segment { retransmitted: true, ..fresh };
            }
            Ok(i) => {
                self.segments.resize(i, Segment { xmit_ts: now, ..fresh });
                self.segments.push_back(fresh);
            }
            Err(_) => {}
        }
    }

    /// §6.2 steps 1 to 4 for one ACK: `una` its cumulative ACK (first segment not
    /// acknowledged), `delivered` the segments it newly acknowledged or SACKed as [start, end)
    /// ranges, `ts_echo` its echoed timestamp if any, `dsack` whether it carried a D-SACK, and
    /// `snd_nxt` the next new segment.
    pub fn on_ack(
        &mut self,
        now: f64,
        una: i64,
        delivered: &[(i64, i64)],
        ts_echo: Option<f64>,
        dsack: bool,
        snd_nxt: i64,
    ) {
        let mut newly = std::mem::take(&mut self.newly);
        newly.clear();
        newly.extend(
            delivered
                .iter()
                .flat_map(|&(s, e)| s..e)
                .filter_map(|seq| self.record(seq).filter(|r| !r.delivered).map(|r| (seq, *r))),
        );
        // Step 2, in ascending order of send time: an ambiguous retransmission (the echo
        // predates it, or its RTT is below min_RTT) gives no sample.
        newly.sort_by(|a, b| a.1.xmit_ts.total_cmp(&b.1.xmit_ts).then(a.0.cmp(&b.0)));
        for &(seq, seg) in &newly {
            let rtt = now - seg.xmit_ts;
            if seg.retransmitted && (ts_echo.is_some_and(|t| t < seg.xmit_ts) || rtt < self.min_rtt) {
                continue;
            }
            if !seg.retransmitted {
                self.min_rtt = self.min_rtt.min(rtt);
            }
            self.rtt = rtt;
            if sent_after(seg.xmit_ts, seq, self.xmit_ts, self.end_seq) {
                (self.xmit_ts, self.end_seq) = (seg.xmit_ts, seq);
            }
        }
        // Step 3, in ascending order of sequence: a never-retransmitted segment delivered below
        // the highest delivered one was reordered.
        newly.sort_by_key(|&(seq, _)| seq);
        for &(seq, seg) in &newly {
            if seq > self.fack {
                self.fack = seq;
            } else if !seg.retransmitted {
                self.reordering_seen = true;
            }
        }
        for &(seq, _) in &newly {
            self.segments[(seq - self.base) as usize].delivered = true;
        }
        self.sacked += newly.len();
        self.newly = newly;
        let acked = (una - self.base).clamp(0, self.segments.len() as i64) as usize;
        self.sacked -= self.segments.range(..acked).filter(|s| s.delivered).count();
        self.segments.drain(..acked);
        self.base = self.base.max(una);
        // Step 4: one growth of the window per round trip that sees a D-SACK.
        if self.dsack_round.is_some_and(|r| una >= r) {
            self.dsack_round = None;
        }
        if dsack && self.dsack_round.is_none() {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = 16;
        }
    }

    /// Step 4 at the end of fast or RTO recovery: after 16 recoveries without a D-SACK the
    /// window falls back to min_RTT/4.
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// The reordering window (§6.2 step 4), with `srtt` the sender's smoothed RTT.
    pub fn reo_wnd(&self, srtt: f64, in_recovery: bool) -> f64 {
        if !self.reordering_seen && (in_recovery || self.segs_sacked() >= self.dupthresh as usize) {
            return 0.0;
        }
        (self.reo_wnd_mult as f64 * self.min_rtt / 4.0).min(srtt)
    }

    /// Step 5: the segments now lost (each once), and how long until the reordering timer
    /// should run this again (None: no segment waits).
    pub fn detect_loss(&mut self, now: f64, srtt: f64, in_recovery: bool) -> (Vec<i64>, Option<f64>) {
        let (mut lost, mut wait) = (Vec::new(), 0.0f64);
        for (seq, remaining) in self.remaining(now, srtt, in_recovery) {
            if remaining <= 0.0 {
                lost.push(seq);
            } else {
                wait = wait.max(remaining);
            }
        }
        for &seq in &lost {
            self.segments[(seq - self.base) as usize].lost = true;
        }
        (lost, (wait > 0.0).then_some(wait))
    }

    /// How long until the reordering timer should run `detect_loss` (None: no segment waits
    /// in the reordering window), without marking anything.
    pub fn reorder_wait(&self, now: f64, srtt: f64, in_recovery: bool) -> Option<f64> {
        let wait = self.remaining(now, srtt, in_recovery).map(|(_, r)| r).fold(0.0f64, f64::max);
        (wait > 0.0).then_some(wait)
    }

    /// For each outstanding segment sent before RACK.xmit_ts and not yet delivered or lost,
    /// the time left before it is lost: xmit_ts + RACK.rtt + reo_wnd - now.
    ///
    /// Segments are first sent in sequence order, so the search ends at the first one never
    /// retransmitted that was sent after RACK.xmit_ts: every segment above it went later still,
    /// a retransmission later than its first send. (Linux walks its queue in send-time order
    /// and stops at the first segment sent after RACK's.)
    fn remaining(&self, now: f64, srtt: f64, in_recovery: bool) -> impl Iterator<Item = (i64, f64)> + '_ {
        let reo_wnd = self.reo_wnd(srtt, in_recovery);
        let (rack_ts, rack_seq, rack_rtt) = (self.xmit_ts, self.end_seq, self.rtt);
        let sent_before_rack = move |seq: i64, seg: &Segment| sent_after(rack_ts, rack_seq, seg.xmit_ts, seq);
        (self.base..)
            .zip(self.segments.iter())
            .take_while(move |&(seq, seg)| seg.retransmitted || sent_before_rack(seq, seg))
            .filter_map(move |(seq, seg)| {
                let candidate = !seg.delivered && !seg.lost && sent_before_rack(seq, seg);
                candidate.then_some((seq, seg.xmit_ts + rack_rtt + reo_wnd - now))
            })
    }

    /// §6.3, at an RTO: the first outstanding segment is lost (sent an RTO ago); any other is
    /// lost if sent at least RACK.rtt + reo_wnd ago.
    pub fn on_timeout(&mut self, now: f64, srtt: f64) -> Vec<i64> {
        let after = self.rtt + self.reo_wnd(srtt, true);
        let mut lost = Vec::new();
        let mut first = true;
        for (seq, seg) in (self.base..).zip(self.segments.iter_mut()) {
            if seg.delivered || seg.lost {
                continue;
            }
            if first || now - seg.xmit_ts >= after {
                seg.lost = true;
                lost.push(seq);
            }
            first = false;
        }
        lost
    }

    /// §7.2: whether to arm the PTO now: no probe outstanding, nothing SACKed, no recovery.
    pub fn may_probe(&self, in_recovery: bool) -> bool {
        self.tlp.is_none() && !in_recovery && self.segs_sacked() == 0
    }

    /// §7.2: the PTO, `srtt` None before the first RTT sample; never past the RTO's expiry,
    /// `rto_remaining` from now.
    pub fn pto(&self, srtt: Option<f64>, in_flight: u64, rto_remaining: f64) -> f64 {
        let pto = match srtt {
            Some(srtt) if in_flight == 1 => 2.0 * srtt + self.max_ack_delay,
            Some(srtt) => 2.0 * srtt + self.pto_slack,
            None => 1.0,
        };
        pto.min(rto_remaining)
    }

    /// §7.3: the probe is the next new segment if one may go, else the highest one sent.
    pub fn probe(new_data: bool, snd_nxt: i64) -> Probe {
        if new_data {
            Probe { seq: snd_nxt, retransmission: false }
        } else {
            Probe { seq: snd_nxt - 1, retransmission: true }
        }
    }

    /// The probe went (after `on_sent`); `snd_nxt` is the next new segment after it.
    pub fn on_probe_sent(&mut self, probe: Probe, snd_nxt: i64) {
        self.tlp = Some((snd_nxt, probe));
    }

    /// §7.4: whether this ACK ends the probe's episode, and how. `dsack` is its D-SACK block,
    /// `pure_dupack` whether it is a duplicate ACK without SACK information.
    pub fn on_ack_tlp(&mut self, una: i64, dsack: Option<(i64, i64)>, pure_dupack: bool) -> Option<TlpEnd> {
        let (end_seq, probe) = self.tlp?;
        if una < end_seq {
            return None;
        }
        let probe_duplicated = dsack.is_some_and(|(s, e)| s <= probe.seq && probe.seq < e);
        let end = if !probe.retransmission || probe_duplicated {
            TlpEnd::NoLoss
        } else if una > end_seq {
            TlpEnd::LossRepaired
        } else if pure_dupack {
            TlpEnd::NoLoss
        } else {
            return None;
        };
        self.tlp = None;
        Some(end)
    }

    /// Recovery or an RTO takes over: no probe episode runs.
    pub fn end_probe_episode(&mut self) {
        self.tlp = None;
    }
}

/// RACK_sent_after: sent later, or at the same time with a higher sequence.
fn sent_after(t1: f64, seq1: i64, t2: f64, seq2: i64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Times in 64ths of a second, exact in binary.
    const T: f64 = 1.0 / 64.0;

    /// 0..n sent one every 1/64 s from 0.
    fn sent(n: i64) -> Rack {
        let mut rack = Rack::new(3, 0.2);
        for seq in 0..n {
            rack.on_sent(seq as f64 * T, seq);
        }
        rack
    }

    /// RACK's step 5 with 0..4 sent at 0, 1/64, 2/64, 3/64 and 3 SACKed at 3/64 + 1/8:
    /// RACK.rtt = min_RTT = 1/8, reo_wnd = min_RTT/4 = 1/32 (one SACKed, no recovery).
    /// Remaining = xmit_ts + 1/8 + 1/32 - now: 0 -> -1/64 and 1 -> 0, lost; 2 -> +1/64, the
    /// reordering timer; 4 was sent after 3 and waits for nothing. At +1/64, 2 is lost.
    #[test]
    fn rack_marks_lost_what_was_sent_an_rtt_and_reo_wnd_before_the_latest_delivered() {
        let mut rack = sent(5);
        let now = 3.0 * T + 0.125;
        rack.on_ack(now, 0, &[(3, 4)], None, false, 5);
        assert_eq!((rack.rtt(), rack.min_rtt(), rack.segs_sacked()), (0.125, 0.125, 1));
        assert_eq!(rack.reo_wnd(0.125, false), 1.0 / 32.0);
        assert_eq!(rack.detect_loss(now, 0.125, false), (vec![0, 1], Some(T)));
        assert_eq!(rack.detect_loss(now + T, 0.125, false), (vec![2], None));
        assert_eq!(rack.detect_loss(now + 1.0, 0.125, false), (vec![], None), "each segment once");
    }

    /// Step 5 looks past retransmissions: 0..5 sent at 0..5/64, 0 and 1 sent again at 6/64
    /// and 7/64, and 5 SACKed at 7/64 + 1/8. RACK.rtt = min_RTT = 2/64 + 1/8 = 10/64,
    /// reo_wnd = 10/256. 0 and 1 went after 5 and wait for nothing; behind them, remaining =
    /// xmit_ts + 10/64 + 10/256 - (7/64 + 1/8) is -1/128 for 2 (lost), 1/128 for 3 and 3/128
    /// for 4 (the timer). A SACKed segment sent again (a probe) is no longer SACKed.
    #[test]
    fn rack_looks_past_retransmissions_sent_after_its_segment() {
        let mut rack = sent(6);
        rack.on_sent(6.0 * T, 0);
        rack.on_sent(7.0 * T, 1);
        let now = 7.0 * T + 0.125;
        rack.on_ack(now, 0, &[(5, 6)], None, false, 6);
        assert_eq!((rack.rtt(), rack.segs_sacked()), (10.0 / 64.0, 1));
        assert_eq!(rack.detect_loss(now, 1.0, false), (vec![2], Some(3.0 / 128.0)));
        rack.on_sent(now, 5);
        assert_eq!(rack.segs_sacked(), 0);
    }

    /// Step 4: without reordering seen, reo_wnd is 0 in recovery or with DupThresh (3)
    /// segments SACKed; once a never-retransmitted 1 is delivered after 3 (RACK.fack), it is
    /// min_RTT/4 = 1/32 in recovery too, and never above SRTT (1/64 here).
    #[test]
    fn reordering_window_is_zero_until_reordering_is_seen() {
        let mut rack = sent(6);
        rack.on_ack(0.25, 0, &[(2, 5)], None, false, 6);
        assert_eq!(rack.min_rtt(), 0.25 - 4.0 * T);
        assert_eq!(rack.reo_wnd(1.0, false), 0.0, "3 SACKed");
        assert_eq!(rack.reo_wnd(1.0, true), 0.0, "in recovery");
        rack.on_ack(0.25 + 0.125, 0, &[(1, 2)], None, false, 6);
        assert!(rack.reordering_seen());
        let min_rtt = rack.min_rtt();
        assert_eq!(rack.reo_wnd(1.0, true), min_rtt / 4.0);
        assert_eq!(rack.reo_wnd(T, true), T);
    }

    /// Step 4's D-SACK adaptation, min_RTT 1/8 (reo_wnd 1/32 per step): a D-SACK grows the
    /// multiplier to 2 (1/16); a second in the same round (before SND.UNA reaches 10, SND.NXT
    /// at the first) does not; one after it does (3, 3/32). 15 recoveries without a D-SACK
    /// keep it, the 16th sets it back to 1.
    #[test]
    fn dsack_grows_the_reordering_window_once_per_round_and_16_recoveries_reset_it() {
        let mut rack = sent(12);
        rack.on_ack(0.125, 1, &[(0, 1)], None, false, 12);
        assert_eq!(rack.min_rtt(), 0.125);
        rack.on_ack(0.2, 2, &[(1, 2)], None, false, 12);
        rack.on_ack(0.2, 2, &[], None, true, 10);
        assert_eq!(rack.reo_wnd(1.0, false), 2.0 / 32.0);
        rack.on_ack(0.21, 3, &[(2, 3)], None, true, 11);
        assert_eq!(rack.reo_wnd(1.0, false), 2.0 / 32.0, "same round");
        rack.on_ack(0.3, 10, &[(3, 10)], None, true, 12);
        assert_eq!(rack.reo_wnd(1.0, false), 3.0 / 32.0);
        for _ in 0..15 {
            rack.on_recovery_exit();
        }
        assert_eq!(rack.reo_wnd(1.0, false), 3.0 / 32.0);
        rack.on_recovery_exit();
        assert_eq!(rack.reo_wnd(1.0, false), 1.0 / 32.0);
    }

    /// Step 2: a retransmission acknowledged by an ACK whose echoed timestamp predates it
    /// (the original's ACK) gives no RTT and does not move RACK.xmit_ts.
    #[test]
    fn an_ambiguous_retransmission_gives_no_rack_sample() {
        let mut rack = sent(2);
        rack.on_ack(0.125 + T, 0, &[(1, 2)], Some(T), false, 2);
        rack.on_sent(0.5, 0);
        rack.on_ack(0.5 + T, 2, &[(0, 1)], Some(0.0), false, 2);
        assert_eq!(rack.rtt(), 0.125);
    }

    /// §7.2: PTO = 2 SRTT = 0.2 s at SRTT 0.1 s with 2 in flight; with 1, plus WCDelAckT
    /// 0.2 s = 0.4 s, cut to the RTO's 0.3 s remaining; 1 s before any RTT sample. With
    /// Linux's slack of 1/512 s (2 ms would not be exact), 2 in flight: 0.25 + 1/512.
    #[test]
    fn tlp_probe_timeout() {
        let mut rack = Rack::new(3, 0.2);
        assert_eq!(rack.pto(Some(0.1), 2, 1.0), 0.2);
        assert_eq!(rack.pto(Some(0.1), 1, 1.0), 0.4);
        assert_eq!(rack.pto(Some(0.1), 1, 0.3), 0.3);
        assert_eq!(rack.pto(None, 5, 3.0), 1.0);
        rack.pto_slack = 1.0 / 512.0;
        assert_eq!(rack.pto(Some(0.125), 2, 1.0), 0.25 + 1.0 / 512.0);
        assert_eq!(rack.pto(Some(0.125), 1, 1.0), 0.25 + 0.2, "one in flight: WCDelAckT only");
    }

    /// §7.3 and §7.4 with 0..9 sent: the probe retransmits 9 (no new data). Its D-SACK ends
    /// the episode without a loss; another probe whose ACK passes TLP.end_seq 10 (the ACK of
    /// 11, new data sent after it) repaired a loss; an ACK below 10 ends nothing. A probe of
    /// new data (10) ends without a loss when acknowledged.
    #[test]
    fn tlp_episode_ends_with_the_loss_it_reveals_or_its_dsack() {
        let mut rack = sent(10);
        assert!(rack.may_probe(false));
        let probe = Rack::probe(false, 10);
        assert_eq!(probe, Probe { seq: 9, retransmission: true });
        rack.on_probe_sent(probe, 10);
        assert!(!rack.may_probe(false), "one probe per episode");
        assert_eq!(rack.on_ack_tlp(9, None, false), None);
        assert_eq!(rack.on_ack_tlp(10, Some((9, 10)), false), Some(TlpEnd::NoLoss));
        rack.on_probe_sent(probe, 10);
        assert_eq!(rack.on_ack_tlp(10, None, false), None);
        assert_eq!(rack.on_ack_tlp(12, None, false), Some(TlpEnd::LossRepaired));
        let probe = Rack::probe(true, 10);
        rack.on_probe_sent(probe, 11);
        assert_eq!(rack.on_ack_tlp(11, None, false), Some(TlpEnd::NoLoss));
        assert!(rack.may_probe(false));
    }

    /// §6.3: at an RTO at 0.5 s, with RACK.rtt 1/8 and reo_wnd 0 (no reordering seen, and an
    /// RTO is a recovery), the first outstanding segment 0 is lost; 1 and 2, sent at 1/64 and 2/64, are 0.48 s and 0.47 s old, past
    /// 1/8: lost; 4, retransmitted at 0.45 s, is not.
    #[test]
    fn rto_marks_the_first_segment_and_those_sent_an_rtt_ago() {
        let mut rack = sent(5);
        rack.on_ack(3.0 * T + 0.125, 0, &[(3, 4)], None, false, 5);
        rack.on_sent(0.45, 4);
        assert_eq!(rack.on_timeout(0.5, 0.125), vec![0, 1, 2]);
    }
}
