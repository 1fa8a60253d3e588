//! The SACK senders' scoreboards, as ns-2.35 has them: `Agent/TCP/Sack1` keeps its SACKed
//! blocks in a reassembly queue (`ScoreBoardRQ`), `Agent/TCP/Fack` in a per-segment array
//! (`ScoreBoard`). The two answer the same questions in slightly different ways, and the
//! differences show in the traces, so both are here.

/// `ScoreBoardRQ`: the SACKed blocks above the cumulative ACK, merged into disjoint ranges.
#[derive(Debug, Default)]
pub struct RqScoreboard {
    /// Sorted, disjoint, non-adjacent [start, end) ranges.
    blocks: Vec<(i64, i64)>,
    /// The cumulative ACK plus one (ns-2's `sack_min`); survives `clear`.
    sack_min: i64,
    /// Where the search for the next retransmission resumes (`h_seqno_`).
    h_seqno: i64,
    changed: bool,
}

impl RqScoreboard {
    pub fn new() -> Self {
        RqScoreboard { blocks: Vec::new(), sack_min: -1, h_seqno: -1, changed: false }
    }

    fn total(&self) -> i64 {
        self.blocks.iter().map(|(s, e)| e - s).sum()
    }

    pub fn clear(&mut self) {
        self.blocks.clear();
        self.h_seqno = -1;
    }

    /// Takes in an ACK: `last_ack` cumulative, `sacks` its blocks.
    pub fn update(&mut self, last_ack: i64, sacks: &[(i64, i64)]) {
        let old_total = self.total();
        self.changed = false;
        if self.sack_min <= last_ack {
            self.sack_min = last_ack + 1;
            if !self.blocks.is_empty() {
                self.clear_to(self.sack_min);
                self.changed = true;
            }
        }
        for &(l, r) in sacks {
            self.add(l, r);
        }
        self.changed |= old_total != self.total();
    }

    /// Whether the last update changed anything (ns-2 `CheckUpdate`).
    pub fn changed(&self) -> bool {
        self.changed
    }

    fn clear_to(&mut self, seq: i64) {
        self.blocks.retain(|&(_, e)| e > seq);
        if let Some(first) = self.blocks.first_mut() {
            if first.0 <= seq {
                first.0 = seq;
            }
        }
    }

    fn add(&mut self, start: i64, end: i64) {
        if end < start {
            return;
        }
        // Union with every block it overlaps or touches.
        let (mut s, mut e) = (start, end);
        self.blocks.retain(|&(bs, be)| {
            if be < s || bs > e {
                true
            } else {
                s = s.min(bs);
                e = e.max(be);
                false
            }
        });
        let at = self.blocks.partition_point(|&(bs, _)| bs < s);
        self.blocks.insert(at, (s, e));
        // The reassembly queue advances its "next expected" past a block that reaches it.
        if self.sack_min >= s && self.sack_min < e {
            self.sack_min = e;
        }
    }

    /// ns-2 `nexthole`: the first sequence number at or after `seq` not covered by a block,
    /// and how many blocks lie above it (-1 if none; `None` past the last block).
    fn next_hole(&self, seq: i64) -> Option<(i64, i64)> {
        for (i, &(s, e)) in self.blocks.iter().enumerate() {
            if s > seq {
                return Some((seq, (self.blocks.len() - i) as i64));
            }
            if s <= seq && e >= seq {
                let above = self.blocks.len() - i - 1;
                return Some((e, if above > 0 { above as i64 } else { -1 }));
            }
        }
        None
    }

    /// The next hole to retransmit, if some SACKed block lies above it.
    pub fn next_retran(&mut self) -> Option<i64> {
        if self.h_seqno < self.sack_min {
            self.h_seqno = self.sack_min;
        }
        match self.next_hole(self.h_seqno) {
            Some((seq, above)) if seq > 0 && above > 0 => {
                if seq > self.h_seqno {
                    self.h_seqno = seq;
                }
                Some(seq)
            }
            _ => None,
        }
    }

    /// The next segment at or after `seq` that is neither acked nor SACKed.
    pub fn next_unacked(&self, seq: i64) -> Option<i64> {
        self.next_hole(seq).map(|(s, _)| s)
    }

    pub fn mark_retran(&mut self, seq: i64) {
        if seq >= self.h_seqno {
            self.h_seqno = seq + 1;
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Node {
    seq: i64,
    acked: bool,
    sacked: bool,
    retran: bool,
    /// `t_seqno` when the segment was retransmitted (ns-2 `snd_nxt_`).
    snd_nxt: i64,
}

/// ns-2's array `ScoreBoard`: one node per segment from the cumulative ACK to the highest SACK.
#[derive(Debug)]
pub struct ArrayScoreboard {
    nodes: Vec<Node>,
    first: i64,
    length: i64,
}

impl Default for ArrayScoreboard {
    fn default() -> Self {
        ArrayScoreboard { nodes: vec![Node::default(); 64], first: 0, length: 0 }
    }
}

impl ArrayScoreboard {
    fn idx(&self, seq: i64) -> usize {
        seq.rem_euclid(self.nodes.len() as i64) as usize
    }

    fn node(&mut self, seq: i64) -> &mut Node {
        let i = self.idx(seq);
        &mut self.nodes[i]
    }

    fn first_seq(&self) -> i64 {
        self.nodes[self.idx(self.first)].seq
    }

    fn last_seq(&self) -> i64 {
        self.nodes[self.idx(self.first + self.length - 1)].seq
    }

    pub fn clear(&mut self) {
        self.length = 0;
    }

    fn resize(&mut self, size: usize) {
        let mut bigger = vec![Node::default(); size];
        let first = self.first_seq();
        for seq in first..=first + self.length {
            bigger[seq.rem_euclid(size as i64) as usize] = self.nodes[self.idx(seq)];
        }
        self.nodes = bigger;
    }

    /// Takes in an ACK; returns how many retransmitted segments it acknowledged.
    pub fn update(&mut self, last_ack: i64, sacks: &[(i64, i64)]) -> i64 {
        let mut retran_decr = 0;
        if self.length > 0 && self.first_seq() <= last_ack {
            let mut seq = self.first_seq();
            while seq <= last_ack {
                let n = *self.node(seq);
                if n.seq <= last_ack {
                    self.first += 1;
                    self.length -= 1;
                    let n = self.node(seq);
                    n.acked = true;
                    n.sacked = true;
                    if n.retran {
                        n.retran = false;
                        n.snd_nxt = 0;
                        retran_decr += 1;
                    }
                    if self.length == 0 {
                        break;
                    }
                }
                seq += 1;
            }
        }
        if self.length == 0 && !sacks.is_empty() {
            let seq = last_ack + 1;
            *self.node(seq) = Node { seq, ..Node::default() };
            self.first = seq;
            self.length += 1;
        }
        for &(left, right) in sacks {
            if right > self.last_seq() {
                while right - last_ack >= self.nodes.len() as i64 - 1 {
                    self.resize(self.nodes.len() * 2);
                }
                for seq in self.last_seq() + 1..right {
                    *self.node(seq) = Node { seq, ..Node::default() };
                    self.length += 1;
                }
            }
            for seq in self.first_seq()..right {
                let n = self.node(seq);
                if n.seq >= left && n.seq < right {
                    n.sacked = true;
                    if n.retran {
                        n.retran = false;
                        retran_decr += 1;
                    }
                }
            }
        }
        retran_decr
    }

    /// True if a SACK shows a retransmission was lost again (ns-2 `CheckSndNxt`).
    pub fn check_snd_nxt(&mut self, sacks: &[(i64, i64)]) -> bool {
        let mut force_timeout = false;
        for &(_, right) in sacks {
            for seq in self.first_seq()..right {
                let n = self.node(seq);
                if n.retran && n.snd_nxt < right {
                    n.retran = false;
                    n.snd_nxt = 0;
                    force_timeout = true;
                }
            }
        }
        force_timeout
    }

    /// The first segment neither acked, SACKed nor already retransmitted.
    pub fn next_retran(&self) -> Option<i64> {
        if self.length == 0 {
            return None;
        }
        let first = self.first_seq();
        (first..first + self.length).find(|&seq| {
            let n = &self.nodes[self.idx(seq)];
            !n.acked && !n.sacked && !n.retran
        })
    }

    pub fn mark_retran(&mut self, seq: i64, snd_nxt: i64) {
        let n = self.node(seq);
        n.retran = true;
        n.snd_nxt = snd_nxt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rq_retransmits_holes_below_sacked_blocks_once() {
        let mut sb = RqScoreboard::new();
        sb.update(13, &[(15, 17)]);
        assert!(sb.changed());
        assert_eq!(sb.next_retran(), Some(14));
        sb.mark_retran(14);
        assert_eq!(sb.next_retran(), None, "17 and up are not known lost");
        sb.update(13, &[(15, 17)]);
        assert!(!sb.changed(), "the same SACK again changes nothing");
        sb.update(13, &[(19, 20), (15, 17)]);
        assert_eq!(sb.next_retran(), Some(17));
        assert_eq!(sb.next_unacked(15), Some(17));
        sb.update(17, &[(19, 20)]);
        assert!(sb.changed(), "the cumulative ACK moved past blocks");
        assert_eq!(sb.next_unacked(18), Some(18));
    }

    #[test]
    fn rq_merges_touching_and_overlapping_blocks() {
        let mut sb = RqScoreboard::new();
        sb.update(0, &[(5, 8), (10, 12), (8, 10)]);
        assert_eq!(sb.blocks, vec![(5, 12)]);
        sb.update(0, &[(3, 6), (20, 21)]);
        assert_eq!(sb.blocks, vec![(3, 12), (20, 21)]);
    }

    #[test]
    fn array_scoreboard_tracks_retransmissions() {
        let mut sb = ArrayScoreboard::default();
        assert_eq!(sb.update(13, &[(15, 17)]), 0);
        assert_eq!(sb.next_retran(), Some(14));
        sb.mark_retran(14, 20);
        assert_eq!(sb.next_retran(), None);
        assert!(sb.check_snd_nxt(&[(21, 22)]), "a SACK above snd_nxt means the retransmission was lost");
        assert_eq!(sb.next_retran(), Some(14));
        sb.mark_retran(14, 22);
        assert_eq!(sb.update(14, &[(15, 17)]), 1, "the retransmission was acked");
        assert_eq!(sb.next_retran(), None, "nothing lost below the SACKs");
    }

    #[test]
    fn array_scoreboard_grows() {
        let mut sb = ArrayScoreboard::default();
        sb.update(10, &[(100, 101)]);
        assert_eq!(sb.next_retran(), Some(11));
        assert!(sb.nodes.len() >= 128);
    }
}
