//! The modern sender's SACK scoreboard and RFC 6675 loss recovery, counted in segments.
//!
//! It records the SACK blocks of each ACK (RFC 2018), answers IsLost, SetPipe and NextSeg
//! (RFC 6675 §4) from HighACK, HighData, HighRxt and RescueRxt, follows §5's entry into and exit
//! from loss recovery, and reports a D-SACK (RFC 2883 §4) for RACK's reordering window.
//! Segments found lost otherwise (by RACK's clock, or all at an RTO, as Linux's
//! `tcp_mark_skb_lost`) are marked until retransmitted: IsLost, SetPipe and NextSeg's rule 1
//! count them with those DupThresh finds.
//!
//! With whole segments, IsLost's two tests (DupThresh discontiguous SACKed sequences, or more
//! than (DupThresh - 1) x SMSS SACKed bytes above) are one: at least DupThresh SACKed segments
//! above. The ns-2 scoreboards (`tcp::scoreboard`, `tcp::linux::scoreboard`) answer other
//! questions in ns-2's way and stay as they are.

/// What one ACK told the scoreboard; the segments it delivered are the scoreboard's
/// `newly_delivered`.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct AckUpdate {
    /// How many segments it newly delivered, cumulatively or selectively.
    pub delivered_segments: i64,
    /// The first block was a D-SACK (RFC 2883 §4): this range arrived twice.
    pub dsack: Option<(i64, i64)>,
    /// A duplicate ACK in RFC 6675 §2's SACK sense: no cumulative advance, data outstanding,
    /// and SACK information that is new.
    pub duplicate: bool,
    /// The ACK covered RecoveryPoint: loss recovery is over (§5 step A).
    pub recovery_ended: bool,
}

/// Which of NextSeg's rules (RFC 6675 §4) chose a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// (1) the first lost segment not yet retransmitted.
    Lost,
    /// (2) previously unsent data.
    NewData,
    /// (3) a hole below the highest SACKed segment, not yet known lost.
    Hole,
    /// (4) the rescue retransmission: the highest unSACKed segment, once per recovery.
    Rescue,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NextSeg {
    pub seq: i64,
    pub rule: Rule,
}

#[derive(Debug, Clone)]
pub struct SackScoreboard {
    dupthresh: i64,
    /// The highest segment cumulatively acknowledged (HighACK); -1 before any.
    high_ack: i64,
    /// The highest segment sent (HighData).
    high_data: i64,
    /// The highest segment retransmitted by rules 1 and 3 (HighRxt).
    high_rxt: i64,
    /// RescueRxt: the rescue retransmission's RecoveryPoint, if one went.
    rescue_rxt: Option<i64>,
    /// RecoveryPoint: HighData when recovery (or an RTO) began; no new recovery until HighACK
    /// reaches it (§5 step 4.1, §5.1).
    recovery_point: i64,
    in_recovery: bool,
    dupacks: u32,
    /// SACKed segments above HighACK: sorted, disjoint, non-adjacent [start, end) ranges.
    sacked: Vec<(i64, i64)>,
    /// Segments marked lost (`mark_lost`) and not retransmitted since, ascending: a sorted
    /// Vec, as every SetPipe counts them on either side of a point.
    marked: Vec<i64>,
    /// The segments the last ACK newly delivered, as ascending [start, end) ranges (a field,
    /// so that every ACK reuses its space).
    delivered: Vec<(i64, i64)>,
    /// SetPipe's answer, computed again at every change of the scoreboard: the sender asks
    /// for it several times per ACK and per segment sent.
    pipe: i64,
}

impl SackScoreboard {
    /// A scoreboard that calls a segment lost with `dupthresh` SACKed segments above it
    /// (RFC 6675's DupThresh, 3 by default).
    pub fn new(dupthresh: u32) -> Self {
        SackScoreboard {
            dupthresh: dupthresh.max(1) as i64,
            high_ack: -1,
            high_data: -1,
            high_rxt: -1,
            rescue_rxt: None,
            recovery_point: -1,
            in_recovery: false,
            dupacks: 0,
            sacked: Vec::new(),
            marked: Vec::new(),
            delivered: Vec::new(),
            pipe: 0,
        }
    }

    pub fn high_ack(&self) -> i64 {
        self.high_ack
    }

    pub fn high_data(&self) -> i64 {
        self.high_data
    }

    #[cfg(test)]
    pub fn high_rxt(&self) -> i64 {
        self.high_rxt
    }

    #[cfg(test)]
    pub fn rescue_rxt(&self) -> Option<i64> {
        self.rescue_rxt
    }

    #[cfg(test)]
    pub fn recovery_point(&self) -> i64 {
        self.recovery_point
    }

    #[cfg(test)]
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    #[cfg(test)]
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }

    /// SACKed segments above HighACK (RACK.segs_sacked, RFC 8985 §6.2).
    #[cfg(test)]
    pub fn sacked_segments(&self) -> i64 {
        self.sacked.iter().map(|(s, e)| e - s).sum()
    }

    /// The segments the last ACK (`on_ack`) newly delivered, cumulatively or selectively, as
    /// ascending [start, end) ranges.
    pub fn newly_delivered(&self) -> &[(i64, i64)] {
        &self.delivered
    }

    pub fn is_sacked(&self, seq: i64) -> bool {
        self.sacked.iter().any(|&(s, e)| s <= seq && seq < e)
    }

    /// RFC 6675 §5: a segment went. Rules 1 and 3 raise HighRxt (C.2), new data raises HighData
    /// (C.3), and the rescue retransmission sets RescueRxt to RecoveryPoint, HighRxt untouched.
    pub fn on_transmit(&mut self, seg: NextSeg) {
        if let Ok(i) = self.marked.binary_search(&seg.seq) {
            self.marked.remove(i);
        }
        match seg.rule {
            Rule::Lost | Rule::Hole => self.high_rxt = self.high_rxt.max(seg.seq),
            Rule::NewData => self.high_data = self.high_data.max(seg.seq),
            Rule::Rescue => self.rescue_rxt = Some(self.recovery_point),
        }
        self.set_pipe();
    }

    /// Takes in an ACK: `una` is the first segment not cumulatively acknowledged, `blocks` its
    /// SACK blocks as [start, end) segment ranges, first block first.
    pub fn on_ack(&mut self, una: i64, blocks: &[(i64, i64)]) -> AckUpdate {
        let mut update = AckUpdate { dsack: dsack(una, blocks), ..AckUpdate::default() };
        self.delivered.clear();
        let advanced = una > self.high_ack + 1;
        if advanced {
            self.delivered.extend(unsacked(&self.sacked, self.high_ack + 1, una));
            self.high_ack = una - 1;
            self.sacked.retain(|&(_, e)| e > una);
            if let Some(first) = self.sacked.first_mut() {
                first.0 = first.0.max(una);
            }
            self.dupacks = 0; // §5: a cumulative ACK resets DupAcks
            let acked = self.marked_below(una);
            self.marked.drain(..acked);
        }
        let reported = if update.dsack.is_some() { &blocks[1..] } else { blocks };
        let mut newly_sacked = 0;
        for &(start, end) in reported {
            // Only what was sent and is above the cumulative ACK can be SACKed.
            let (start, end) = (start.max(una), end.min(self.high_data + 1));
            if start < end {
                let before = self.delivered.len();
                self.delivered.extend(unsacked(&self.sacked, start, end));
                newly_sacked += count(self.delivered[before..].iter().copied());
                self.add(start, end);
                let (from, to) = (self.marked_below(start), self.marked_below(end));
                self.marked.drain(from..to);
            }
        }
        self.delivered.sort_unstable();
        update.delivered_segments = count(self.delivered.iter().copied());
        update.duplicate = !advanced && self.high_data > self.high_ack && newly_sacked > 0;
        if update.duplicate && !self.in_recovery {
            self.dupacks += 1;
        }
        // §5 step A: an ACK beyond RecoveryPoint ends recovery; the scoreboard stays.
        if self.in_recovery && self.high_ack >= self.recovery_point {
            self.in_recovery = false;
            update.recovery_ended = true;
        }
        self.set_pipe();
        update
    }

    /// RFC 6675 §5 steps 1 and 2: DupThresh duplicate ACKs, or the first unacknowledged segment
    /// is lost, and not within the window of a previous recovery or RTO (§5.1).
    pub fn should_enter_recovery(&self) -> bool {
        !self.in_recovery
            && self.high_ack >= self.recovery_point
            && (self.dupacks as i64 >= self.dupthresh || self.is_lost(self.high_ack + 1))
    }

    /// §5 step 4: RecoveryPoint = HighData; the first unacknowledged segment is retransmitted
    /// (returned, for the caller to send) and both HighRxt and RescueRxt set to it. The caller
    /// sets ssthresh and cwnd (step 4.2, the controller's choice).
    pub fn enter_recovery(&mut self) -> i64 {
        let first = self.high_ack + 1;
        self.in_recovery = true;
        self.recovery_point = self.high_data;
        self.high_rxt = first;
        self.rescue_rxt = Some(first);
        self.set_pipe();
        first
    }

    /// §5.1: an RTO ends recovery; RecoveryPoint = HighData fences off a new recovery until
    /// HighACK reaches it. The scoreboard is kept, and retransmission restarts from HighACK.
    pub fn on_timeout(&mut self) {
        self.in_recovery = false;
        self.recovery_point = self.high_data;
        self.high_rxt = self.high_ack;
        self.rescue_rxt = None;
        self.dupacks = 0;
        self.set_pipe();
    }

    /// Whether recovery (or the recovery after an RTO) is running.
    pub fn set_in_recovery(&mut self, on: bool) {
        self.in_recovery = on;
    }

    /// IsLost (§4): `seq` is unSACKed and at least DupThresh SACKed segments lie above it, or
    /// it is marked lost.
    pub fn is_lost(&self, seq: i64) -> bool {
        seq > self.high_ack
            && !self.is_sacked(seq)
            && (seq < self.loss_boundary() || self.marked.binary_search(&seq).is_ok())
    }

    /// `seq`, sent and not delivered, is lost whatever the SACKs say (RACK, an RTO): it is
    /// retransmitted by rule 1 and, until then, not counted in the pipe.
    pub fn mark_lost(&mut self, seq: i64) {
        if seq > self.high_ack && seq <= self.high_data && !self.is_sacked(seq) {
            if let Err(i) = self.marked.binary_search(&seq) {
                self.marked.insert(i, seq);
                self.set_pipe();
            }
        }
    }

    /// Segments lost and not retransmitted (Linux's `lost_out - retrans_out`, for the rate
    /// estimator's app-limited test).
    pub fn lost_unretransmitted(&self) -> u64 {
        let boundary = self.loss_boundary();
        let by_sacks = count(unsacked(&self.sacked, (self.high_rxt + 1).max(self.high_ack + 1), boundary));
        let marked = self.marked.iter().filter(|&&s| s >= boundary || s <= self.high_rxt).count();
        (by_sacks + marked as i64) as u64
    }

    /// SetPipe (§4): for each unSACKed segment from HighACK + 1 to HighData, one if it is not
    /// lost, and one more if it was retransmitted (at or below HighRxt) and not marked lost
    /// again since.
    pub fn pipe(&self) -> i64 {
        self.pipe
    }

    /// Computes `pipe` again; every change of the scoreboard calls it.
    fn set_pipe(&mut self) {
        let (lo, hi) = (self.high_ack + 1, self.high_data + 1);
        let boundary = self.loss_boundary().min(hi);
        let outstanding = count(unsacked(&self.sacked, lo, hi));
        let lost =
            count(unsacked(&self.sacked, lo, boundary)) + (self.marked.len() - self.marked_below(boundary)) as i64;
        let retransmitted = count(unsacked(&self.sacked, lo, (self.high_rxt + 1).min(hi)))
            - self.marked_below(self.high_rxt + 1) as i64;
        self.pipe = outstanding - lost + retransmitted;
    }

    /// NextSeg (§4), during recovery; `new_data` says whether unsent data exists and the
    /// receiver's window allows it (rule 2).
    pub fn next_seg(&self, new_data: bool) -> Option<NextSeg> {
        let top = self.sacked.last().map_or(self.high_ack + 1, |&(_, e)| e);
        // The first unSACKed segment above HighRxt and below the highest SACKed one; rule 1
        // if it is lost (losses are a prefix: IsLost holds below the boundary, not above).
        let hole = unsacked(&self.sacked, (self.high_rxt + 1).max(self.high_ack + 1), top).next().map(|(s, _)| s);
        let marked = self.marked.first().copied();
        let lost_by_sacks = hole.filter(|&seq| seq < self.loss_boundary());
        if let Some(seq) = lost_by_sacks.into_iter().chain(marked).min() {
            return Some(NextSeg { seq, rule: Rule::Lost });
        }
        match hole {
            _ if new_data => return Some(NextSeg { seq: self.high_data + 1, rule: Rule::NewData }),
            Some(seq) => return Some(NextSeg { seq, rule: Rule::Hole }),
            None => {}
        }
        let rescue_allowed = self.rescue_rxt.is_none_or(|r| self.high_ack > r);
        let highest_unsacked = unsacked(&self.sacked, self.high_ack + 1, self.high_data + 1).last().map(|(_, e)| e - 1);
        match highest_unsacked {
            Some(seq) if rescue_allowed => Some(NextSeg { seq, rule: Rule::Rescue }),
            _ => None,
        }
    }

    /// How many marked segments lie below `seq`.
    fn marked_below(&self, seq: i64) -> usize {
        self.marked.partition_point(|&marked| marked < seq)
    }

    /// Every unSACKed segment below this has DupThresh SACKed segments above it, and none at
    /// or above it has: the DupThresh-th SACKed segment counted from the top.
    fn loss_boundary(&self) -> i64 {
        let mut above = 0;
        for &(start, end) in self.sacked.iter().rev() {
            if above + (end - start) >= self.dupthresh {
                return end - (self.dupthresh - above);
            }
            above += end - start;
        }
        self.high_ack + 1
    }

    /// Merges [start, end) into the SACKed ranges.
    fn add(&mut self, start: i64, end: i64) {
        let (mut s, mut e) = (start, end);
        self.sacked.retain(|&(bs, be)| {
            let apart = be < s || bs > e;
            if !apart {
                (s, e) = (s.min(bs), e.max(be));
            }
            apart
        });
        let at = self.sacked.partition_point(|&(bs, _)| bs < s);
        self.sacked.insert(at, (s, e));
    }
}

/// The [start, end) ranges within [from, to) outside `sacked` (sorted, disjoint ranges).
fn unsacked(sacked: &[(i64, i64)], from: i64, to: i64) -> impl Iterator<Item = (i64, i64)> + '_ {
    let mut at = from;
    sacked.iter().map(Some).chain([None]).filter_map(move |block| {
        let (gap_end, next) = match block {
            Some(&(s, e)) => (s.min(to), e),
            None => (to, to),
        };
        let gap = (at < gap_end).then_some((at, gap_end));
        at = at.max(next);
        gap
    })
}

fn count(ranges: impl Iterator<Item = (i64, i64)>) -> i64 {
    ranges.map(|(s, e)| e - s).sum()
}

/// RFC 2883 §4: the first block is a D-SACK when it lies below the cumulative ACK or inside
/// the second block.
fn dsack(una: i64, blocks: &[(i64, i64)]) -> Option<(i64, i64)> {
    let &(start, end) = blocks.first()?;
    let inside_second = blocks.get(1).is_some_and(|&(s, e)| s <= start && end <= e);
    (end <= una || inside_second).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(n: i64) -> SackScoreboard {
        let mut sb = SackScoreboard::new(3);
        for seq in 0..n {
            sb.on_transmit(NextSeg { seq, rule: Rule::NewData });
        }
        sb
    }

    /// The drawn scoreboard, 0..9 sent, nothing cumulatively acknowledged (S: SACKed):
    ///
    ///     seg   0 1 2 3 4 5 6 7 8 9
    ///           . S . S S S . . S .
    fn drawn() -> SackScoreboard {
        let mut sb = sent(10);
        sb.on_ack(0, &[(1, 2)]);
        sb.on_ack(0, &[(3, 6), (1, 2)]);
        sb.on_ack(0, &[(8, 9), (3, 6), (1, 2)]);
        sb
    }

    /// IsLost with DupThresh 3: 0 has 1,3,4,5,8 SACKed above (5), 2 has 3,4,5,8 (4): lost.
    /// 6 and 7 have only 8 above (1), 9 none: not lost. SACKed segments are never lost.
    #[test]
    fn is_lost_counts_dupthresh_sacked_segments_above() {
        let sb = drawn();
        let lost: Vec<i64> = (0..10).filter(|&s| sb.is_lost(s)).collect();
        assert_eq!(lost, vec![0, 2]);
        assert_eq!(sb.sacked_segments(), 5);
        assert_eq!(sb.dupacks(), 3, "each ACK SACKed new data");
    }

    /// SetPipe on the drawing: the unSACKed 0,2,6,7,9 less the lost 0,2 leaves 3; nothing is
    /// retransmitted yet. After step 4's retransmission of 0 (HighRxt = 0) pipe is 3 + 1 = 4;
    /// after 2 goes too (rule 1, HighRxt = 2), 3 + 2 = 5.
    #[test]
    fn pipe_on_the_drawn_scoreboard() {
        let mut sb = drawn();
        assert_eq!(sb.pipe(), 3);
        assert!(sb.should_enter_recovery());
        assert_eq!(sb.enter_recovery(), 0);
        assert_eq!((sb.recovery_point(), sb.high_rxt(), sb.rescue_rxt()), (9, 0, Some(0)));
        assert_eq!(sb.pipe(), 4);
        let next = sb.next_seg(false).unwrap();
        assert_eq!(next, NextSeg { seq: 2, rule: Rule::Lost });
        sb.on_transmit(next);
        assert_eq!(sb.pipe(), 5);
    }

    /// NextSeg's rules in order on the drawing after 0 went: rule 1 gives 2 (lost); with unsent
    /// data rule 2 gives 10; without, rule 3 gives the holes 6 and 7 below the highest SACKed
    /// segment 8; 9 is above it, so then nothing until HighACK passes RescueRxt (0). The ACK
    /// of 0..1 does: rule 4 rescues 9, the highest unSACKed, and sets RescueRxt to
    /// RecoveryPoint 9, so no second rescue in this recovery.
    #[test]
    fn next_seg_follows_the_four_rules() {
        let mut sb = drawn();
        sb.enter_recovery();
        let mut sent = vec![];
        while let Some(next) = sb.next_seg(false) {
            sb.on_transmit(next);
            sent.push((next.seq, next.rule));
        }
        assert_eq!(sent, vec![(2, Rule::Lost), (6, Rule::Hole), (7, Rule::Hole)]);
        assert_eq!(sb.next_seg(true), Some(NextSeg { seq: 10, rule: Rule::NewData }));
        assert_eq!(sb.high_rxt(), 7);
        sb.on_ack(2, &[(8, 9), (3, 6)]);
        assert_eq!(sb.newly_delivered(), [(0, 1)], "1 was SACKed already");
        let rescue = sb.next_seg(false).unwrap();
        assert_eq!(rescue, NextSeg { seq: 9, rule: Rule::Rescue });
        sb.on_transmit(rescue);
        assert_eq!((sb.rescue_rxt(), sb.high_rxt()), (Some(9), 7));
        assert_eq!(sb.next_seg(false), None);
    }

    /// §5: the ACK of everything through RecoveryPoint 9 ends recovery; a cumulative ACK below
    /// it does not. Delivered: 2 and 6..7 newly (1, 3..5 and 8 were SACKed), then 9.
    #[test]
    fn recovery_ends_when_the_ack_covers_recovery_point() {
        let mut sb = drawn();
        sb.enter_recovery();
        let ack = sb.on_ack(9, &[]);
        assert_eq!((sb.newly_delivered(), ack.delivered_segments), (&[(0, 1), (2, 3), (6, 8)][..], 4));
        assert!(!ack.recovery_ended && sb.in_recovery());
        let ack = sb.on_ack(10, &[]);
        assert_eq!((sb.newly_delivered(), ack.recovery_ended), (&[(9, 10)][..], true));
        assert_eq!(sb.pipe(), 0);
    }

    /// §5 step 2: one ACK SACKing 3 segments above 0 makes IsLost(HighACK + 1) true before
    /// three duplicate ACKs; with only 2 SACKed, neither rule holds.
    #[test]
    fn recovery_starts_on_is_lost_before_three_dupacks() {
        let mut sb = sent(6);
        sb.on_ack(0, &[(1, 3)]);
        assert!(!sb.should_enter_recovery());
        sb.on_ack(0, &[(1, 4)]);
        assert_eq!(sb.dupacks(), 2);
        assert!(sb.should_enter_recovery());
    }

    /// RFC 2883 §4: a first block below the cumulative ACK (3..4 with ACK 5), or inside the
    /// second (6..7 inside 6..9), is a D-SACK; it is not new SACK information, so the ACK is
    /// not a duplicate ACK. An ordinary first block is not a D-SACK.
    #[test]
    fn dsack_detection() {
        let mut sb = sent(10);
        let ack = sb.on_ack(5, &[(3, 4)]);
        assert_eq!((ack.dsack, ack.duplicate), (Some((3, 4)), false));
        assert_eq!(sb.newly_delivered(), [(0, 5)]);
        sb.on_ack(5, &[(6, 9)]);
        let ack = sb.on_ack(5, &[(6, 7), (6, 9)]);
        assert_eq!((ack.dsack, ack.duplicate, ack.delivered_segments), (Some((6, 7)), false, 0));
        assert_eq!(sb.on_ack(5, &[(9, 10), (6, 9)]).dsack, None);
    }

    /// A segment marked lost by RACK's clock (6, with only 8 SACKed above it) counts as lost:
    /// the pipe of the drawing falls from 3 (6, 7, 9) to 2. In recovery (0 retransmitted, pipe
    /// 3) rule 1 takes 2 (lost by the SACKs) first, then 6 (marked) before the hole 7; 6 is then
    /// retransmitted: unSACKed 0, 2, 6, 7, 9 less the lost 0, 2, plus the retransmitted 0, 2, 6
    /// gives 6, and the hole 7 retransmitted by rule 3 one more.
    #[test]
    fn a_segment_marked_lost_is_lost_until_retransmitted() {
        let mut sb = drawn();
        sb.mark_lost(6);
        assert!(sb.is_lost(6) && !sb.is_lost(7));
        assert_eq!(sb.pipe(), 2);
        sb.enter_recovery();
        assert_eq!(sb.pipe(), 3);
        let mut sent = vec![];
        for _ in 0..3 {
            let next = sb.next_seg(false).unwrap();
            sb.on_transmit(next);
            sent.push((next.seq, next.rule));
        }
        assert_eq!(sent, vec![(2, Rule::Lost), (6, Rule::Lost), (7, Rule::Hole)]);
        assert_eq!(sb.pipe(), 7, "7, counted as not lost, adds its retransmission: 6 + 1");
    }

    /// §5.1: after an RTO at HighData 9, HighRxt falls back to HighACK and no new recovery
    /// starts, whatever the SACKs, until HighACK reaches 9.
    #[test]
    fn timeout_fences_recovery_until_high_data_is_acknowledged() {
        let mut sb = drawn();
        sb.enter_recovery();
        sb.on_timeout();
        assert_eq!((sb.in_recovery(), sb.high_rxt(), sb.recovery_point()), (false, -1, 9));
        assert!(!sb.should_enter_recovery());
        assert_eq!(sb.pipe(), 3, "the lost 0 and 2 no longer count as retransmitted");
    }
}
