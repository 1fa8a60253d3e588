//! `Agent/TCP/Linux`'s scoreboard (ns-2's `ScoreBoard1`, scoreboard1.cc): the unacknowledged
//! segments as runs of one state each (in flight, SACKed, lost), plus one entry per
//! retransmitted segment that remembers snd_nxt and a retransmission id when it went, so that
//! a lost retransmission is seen. A run is a `Block` in a `Vec` kept in sequence order.

use super::flag;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    InFlight,
    Sacked,
    Lost,
    Retransmitted,
}

#[derive(Clone, Copy, Debug)]
struct Block {
    state: State,
    start: i64,
    /// The last segment of the run; for a retransmission, snd_nxt when it went.
    end_or_snd_nxt: i64,
    /// A retransmission's id (counted from the last timeout).
    rtx_id: i64,
}

impl Block {
    fn new(start: i64, end: i64, state: State) -> Block {
        Block { state, start, end_or_snd_nxt: end, rtx_id: 0 }
    }

    fn end(&self) -> i64 {
        if self.state == State::Retransmitted {
            self.start
        } else {
            self.end_or_snd_nxt
        }
    }

    fn len(&self) -> i64 {
        self.end() + 1 - self.start
    }

    fn set_state(&mut self, state: State) {
        if self.state == State::Retransmitted {
            self.end_or_snd_nxt = self.start;
        }
        self.state = state;
    }

    /// How much of the block an ACK of `last_ack` cleans: None (nothing), Some(None) (all),
    /// Some(Some(n)) (its first n segments).
    fn cleaned_by(&self, last_ack: i64) -> Option<Option<i64>> {
        if last_ack < self.start {
            None
        } else if self.state == State::Retransmitted || last_ack >= self.end_or_snd_nxt {
            Some(None)
        } else {
            Some(Some(last_ack + 1 - self.start))
        }
    }
}

#[derive(Debug)]
pub struct Scoreboard {
    blocks: Vec<Block>,
    /// Where the search for the next segment to retransmit starts.
    next_to_retransmit: Option<usize>,
    acked_rtx_id: i64,
    rtx_id: i64,
    /// The highest SACKed segment.
    fack: i64,
    lost_out: i64,
    sacked_out: i64,
}

impl Default for Scoreboard {
    fn default() -> Self {
        Scoreboard {
            blocks: Vec::new(),
            next_to_retransmit: None,
            acked_rtx_id: -1,
            rtx_id: 0,
            fack: 0,
            lost_out: 0,
            sacked_out: 0,
        }
    }
}

impl Scoreboard {
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    pub fn clear(&mut self) {
        self.blocks.clear();
        self.next_to_retransmit = None;
        self.acked_rtx_id = -1;
        self.rtx_id = 0;
        self.fack = 0;
        self.lost_out = 0;
        self.sacked_out = 0;
    }

    /// Segments sent and neither acknowledged, SACKed nor deemed lost.
    pub fn packets_in_flight(&self, snd_una: i64, snd_nxt: i64) -> i64 {
        snd_nxt - snd_una - self.lost_out - self.sacked_out
    }

    /// Splits block `i` so that a new block starts at `seq` (inside it).
    fn split(&mut self, i: usize, seq: i64) {
        let b = self.blocks[i];
        self.blocks.insert(i + 1, Block::new(seq, b.end_or_snd_nxt, b.state));
        self.blocks[i].end_or_snd_nxt = seq - 1;
        if let Some(n) = self.next_to_retransmit.as_mut() {
            if *n > i {
                *n += 1;
            }
        }
    }

    fn removed(&mut self, i: usize) {
        self.blocks.remove(i);
        if let Some(n) = self.next_to_retransmit {
            if n > i {
                self.next_to_retransmit = Some(n - 1);
            } else if n == i {
                self.next_to_retransmit = (i < self.blocks.len()).then_some(i);
            }
        }
    }

    /// Whether block `i + 1` may join block `i`: the same state, not a retransmission.
    fn mergeable(&self, i: usize) -> bool {
        self.blocks.get(i + 1).is_some_and(|n| n.state != State::Retransmitted && n.state == self.blocks[i].state)
    }

    fn merge(&mut self, i: usize) {
        self.blocks[i].end_or_snd_nxt = self.blocks[i + 1].end_or_snd_nxt;
        self.removed(i + 1);
    }

    /// Drops what `last_ack` acknowledges; true if a later retransmission was acknowledged.
    fn clean(&mut self, last_ack: i64, flags: &mut u8) -> bool {
        let mut acked_later_rtx = false;
        while let Some(cut) = self.blocks.first().and_then(|b| b.cleaned_by(last_ack)) {
            let head = self.blocks[0];
            let n = cut.unwrap_or(head.len());
            match head.state {
                State::Sacked => self.sacked_out -= n,
                State::Lost => self.lost_out -= n,
                _ => {}
            }
            if cut.is_some() {
                self.blocks[0].start = last_ack + 1;
                break;
            }
            if head.state == State::Retransmitted {
                if head.rtx_id > self.acked_rtx_id {
                    acked_later_rtx = true;
                    self.acked_rtx_id = head.rtx_id;
                }
                *flags |= flag::UNSURE_TSTAMP;
            }
            self.removed(0);
        }
        acked_later_rtx
    }

    /// An ACK of `last_ack` with SACK blocks [left, right): marks what they cover SACKed, and
    /// what lies more than `dupack_threshold` + 1 below the highest SACK lost (and a
    /// retransmission lost if a later one came back). Returns the flags it raises.
    pub fn update(&mut self, last_ack: i64, sacks: &[(i64, i64)], dupack_threshold: i64) -> u8 {
        let mut flags = 0u8;
        let mut thorough = self.clean(last_ack, &mut flags);
        if self.blocks.is_empty() {
            self.clear();
            thorough = false;
        }
        if !thorough && sacks.is_empty() {
            return flags;
        }
        // D-SACKs (below last_ack) out, the rest sorted by left edge
        let mut sorted = [(0i64, 0i64); crate::packet::MAX_SACK_BLOCKS];
        let mut n = 0;
        for &(left, right) in sacks {
            if left >= last_ack {
                let mut j = n;
                n += 1;
                while j > 0 && sorted[j - 1].0 > left {
                    sorted[j] = sorted[j - 1];
                    j -= 1;
                }
                sorted[j] = (left, right);
            }
        }
        let sorted = &sorted[..n];
        if !thorough && sorted.is_empty() {
            return flags;
        }
        if let Some(&(_, right)) = sorted.last() {
            if self.fack < right - 1 {
                self.fack = right - 1;
                thorough = true;
            }
        }
        if self.blocks.is_empty() {
            self.blocks.push(Block::new(last_ack + 1, self.fack, State::InFlight));
        }
        self.next_to_retransmit = None;
        let lost_below = self.fack - (dupack_threshold + 1);
        let mut now = Some(0usize);
        let mut prev: Option<usize> = None;
        let mut k = 0;
        while let Some(i) = now {
            if !(k < sorted.len() || thorough) {
                break;
            }
            if self.blocks[i].state != State::Sacked {
                while k < sorted.len() && sorted[k].1 <= self.blocks[i].start {
                    k += 1;
                }
                if k < sorted.len() && sorted[k].0 <= self.blocks[i].end() {
                    let (left, right) = sorted[k];
                    if left > self.blocks[i].start {
                        self.split(i, left);
                    } else {
                        if right <= self.blocks[i].end() {
                            self.split(i, right);
                        }
                        let b = self.blocks[i];
                        match b.state {
                            State::Lost => self.lost_out -= b.len(),
                            State::Retransmitted => {
                                self.acked_rtx_id = b.rtx_id;
                                flags |= flag::UNSURE_TSTAMP;
                                thorough = true;
                            }
                            _ => {}
                        }
                        self.sacked_out += b.len();
                        flags |= flag::DATA_SACKED;
                        self.blocks[i].set_state(State::Sacked);
                    }
                }
                if k >= sorted.len() || sorted[k].0 > self.blocks[i].end() {
                    let b = self.blocks[i];
                    match b.state {
                        State::Retransmitted => {
                            if b.end_or_snd_nxt <= self.fack || b.rtx_id + dupack_threshold + 1 < self.acked_rtx_id {
                                self.blocks[i].set_state(State::Lost);
                                self.lost_out += 1;
                                flags |= flag::DATA_LOST;
                                self.next_to_retransmit.get_or_insert(i);
                            }
                        }
                        State::InFlight => {
                            if b.start <= lost_below {
                                if lost_below < b.end() {
                                    self.split(i, lost_below + 1);
                                }
                                self.blocks[i].set_state(State::Lost);
                                self.lost_out += self.blocks[i].len();
                                flags |= flag::DATA_LOST;
                                self.next_to_retransmit.get_or_insert(i);
                            }
                        }
                        State::Lost => {
                            self.next_to_retransmit.get_or_insert(i);
                        }
                        State::Sacked => {}
                    }
                }
            }
            let p = match prev {
                Some(p) if self.mergeable(p) => {
                    self.merge(p);
                    p
                }
                _ => i,
            };
            prev = Some(p);
            if p + 1 == self.blocks.len() && self.blocks[p].end() < self.fack {
                let start = self.blocks[p].end() + 1;
                self.blocks.push(Block::new(start, self.fack, State::InFlight));
            }
            now = (p + 1 < self.blocks.len()).then_some(p + 1);
        }
        flags
    }

    /// A timeout: everything sent from `snd_una` up to `snd_nxt` that is not SACKed is lost.
    pub fn mark_loss(&mut self, snd_una: i64, snd_nxt: i64) {
        self.next_to_retransmit = None;
        let mut i = 0;
        let mut last_lost = false;
        while i < self.blocks.len() {
            let mut at = i;
            if self.blocks[i].state != State::Sacked {
                if self.blocks[i].state != State::Lost {
                    self.lost_out += self.blocks[i].end() - self.blocks[i].start + 1;
                }
                self.blocks[i].set_state(State::Lost);
                if last_lost {
                    self.merge(i - 1);
                    at = i - 1;
                } else {
                    self.next_to_retransmit.get_or_insert(i);
                }
                last_lost = true;
            } else {
                last_lost = false;
            }
            i = at + 1;
            if i == self.blocks.len() && self.blocks[at].end() + 1 < snd_nxt {
                let start = self.blocks[at].end() + 1;
                self.blocks.push(Block::new(start, snd_nxt - 1, State::InFlight));
            }
        }
        if self.blocks.is_empty() && snd_una < snd_nxt {
            self.blocks.push(Block::new(snd_una, snd_nxt - 1, State::Lost));
            self.next_to_retransmit = Some(0);
            self.lost_out += snd_nxt - snd_una;
        }
        self.rtx_id = 0;
        self.acked_rtx_id = -1;
    }

    /// The first lost segment not yet retransmitted.
    pub fn next_retransmission(&mut self) -> Option<i64> {
        let mut n = self.next_to_retransmit?;
        while self.blocks[n].state != State::Lost {
            n += 1;
            if n == self.blocks.len() {
                self.next_to_retransmit = None;
                return None;
            }
        }
        self.next_to_retransmit = Some(n);
        Some(self.blocks[n].start)
    }

    /// Segment `seq` (the one `next_retransmission` gave) goes again, with `snd_nxt` then.
    pub fn mark_retransmitted(&mut self, seq: i64, snd_nxt: i64) {
        let i = self.next_to_retransmit.expect("a segment to retransmit");
        debug_assert_eq!(self.blocks[i].start, seq);
        self.lost_out -= 1;
        if self.blocks[i].end_or_snd_nxt > self.blocks[i].start {
            self.split(i, self.blocks[i].start + 1);
        }
        let b = &mut self.blocks[i];
        b.state = State::Retransmitted;
        b.end_or_snd_nxt = snd_nxt;
        b.rtx_id = self.rtx_id;
        self.rtx_id += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(s: &Scoreboard) -> Vec<(State, i64, i64)> {
        s.blocks.iter().map(|b| (b.state, b.start, b.end())).collect()
    }

    /// The first steps of ns-2's own `ScoreBoard1::test`, worked by hand.
    #[test]
    fn sacks_split_and_mark_losses() {
        let mut s = Scoreboard::default();
        // 1 x x 4: segment 4 SACKed; fack 4, nothing yet below 4 - 4
        let f = s.update(1, &[(4, 5)], 3);
        assert_eq!(f, flag::DATA_SACKED);
        assert_eq!(shape(&s), vec![(State::InFlight, 2, 3), (State::Sacked, 4, 4)]);
        // 1 x x 4 x x 7: fack 7, lost up to 3
        let f = s.update(1, &[(7, 8)], 3);
        assert_eq!(f, flag::DATA_SACKED | flag::DATA_LOST);
        assert_eq!(
            shape(&s),
            vec![(State::Lost, 2, 3), (State::Sacked, 4, 4), (State::InFlight, 5, 6), (State::Sacked, 7, 7)]
        );
        assert_eq!((s.lost_out, s.sacked_out), (2, 2));
        assert_eq!(s.packets_in_flight(2, 8), 2);
        // 1 R x 4 x x 7
        assert_eq!(s.next_retransmission(), Some(2));
        s.mark_retransmitted(2, 8);
        assert_eq!(s.next_retransmission(), Some(3));
        assert_eq!(s.lost_out, 1);
        // an ACK of 3 cleans 2 and 3
        let f = s.update(3, &[(7, 8)], 3);
        assert_eq!(f & flag::UNSURE_TSTAMP, flag::UNSURE_TSTAMP);
        assert_eq!(s.lost_out, 0);
        assert_eq!(shape(&s)[0], (State::Sacked, 4, 4));
    }

    #[test]
    fn a_timeout_marks_all_but_the_sacked_lost() {
        let mut s = Scoreboard::default();
        s.update(1, &[(4, 5)], 3);
        s.mark_loss(2, 10);
        assert_eq!(shape(&s), vec![(State::Lost, 2, 3), (State::Sacked, 4, 4), (State::Lost, 5, 9)]);
        assert_eq!(s.lost_out, 7);
        assert_eq!(s.packets_in_flight(2, 10), 0);
        let mut empty = Scoreboard::default();
        empty.mark_loss(5, 8);
        assert_eq!(shape(&empty), vec![(State::Lost, 5, 7)]);
        assert_eq!(empty.next_retransmission(), Some(5));
    }
}
