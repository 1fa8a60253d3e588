//! ns-2.35's `ReassemblyQueue` (tcp/rq.cc): the byte ranges a FullTcp agent holds above its
//! next expected sequence number, as a receiver (what arrived out of order) and, in
//! `FullTcp/Sack`, as a sender (what the peer has SACKed).
//!
//! Blocks are kept in sequence order, and also in the order they were last added (a stack):
//! SACK blocks are reported newest first. A block that absorbs its neighbours keeps its place
//! in that stack, as ns-2's does; traces show the difference, so the rules below are ns-2's,
//! merge by merge. The queue moves the owner's `rcv_nxt` when a block reaches it, as ns-2's
//! holds a reference to it.

/// One block [start, end) with the TCP header flags of the segments in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    start: i64,
    end: i64,
    flags: u8,
    /// When it was pushed on the stack: the highest is the top.
    pushed: u64,
}

#[derive(Debug, Default)]
pub struct ReassemblyQueue {
    /// Sorted by sequence number, disjoint.
    blocks: Vec<Block>,
    /// Bytes held (ns-2's `total_`).
    total: i64,
    pushes: u64,
}

impl ReassemblyQueue {
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Bytes held.
    pub fn total(&self) -> i64 {
        self.total
    }

    pub fn clear(&mut self) {
        self.blocks.clear();
        self.total = 0;
    }

    /// A new block, on top of the stack, at `at` in sequence order.
    fn insert(&mut self, at: usize, start: i64, end: i64, flags: u8) {
        self.pushes += 1;
        self.blocks.insert(at, Block { start, end, flags, pushed: self.pushes });
    }

    /// Adds [start, end) carrying TCP header flags `flags`, merging it with what it overlaps or
    /// touches; moves `rcv_nxt` past the block that reaches it. Returns the flags of the block
    /// it ends up in, as ns-2's `add` does (which, after some merges, are not all of them).
    pub fn add(&mut self, rcv_nxt: &mut i64, mut start: i64, mut end: i64, mut flags: u8) -> u8 {
        assert!(end >= start, "a block ends before it starts");
        if self.blocks.is_empty() {
            self.insert(0, start, end, flags);
            self.total = end - start;
            if *rcv_nxt >= start {
                *rcv_nxt = end;
            }
            return flags;
        }
        // p: the block before the new one, q: the block after it (indices; None at the ends)
        let (mut p, mut q, mut merge);
        loop {
            merge = false;
            let last = self.blocks.len() - 1;
            if start >= self.blocks[last].end {
                (p, q, merge) = (Some(last), None, start == self.blocks[last].end);
                break;
            }
            if end <= self.blocks[0].start {
                (p, q, merge) = (None, Some(0), end == self.blocks[0].start);
                break;
            }
            q = self.blocks.iter().position(|b| b.start >= end);
            p = self.blocks.iter().rposition(|b| b.end <= start);
            // drop the blocks the new one covers whole; an exact duplicate only adds its flags
            let mut r = p.unwrap_or(0);
            let mut altered = false;
            while Some(r) != q && r < self.blocks.len() {
                let b = self.blocks[r];
                if start == b.start && end == b.end {
                    self.blocks[r].flags |= flags;
                    return self.blocks[r].flags;
                } else if start <= b.start && end >= b.end {
                    self.total -= b.end - b.start;
                    flags |= b.flags;
                    self.blocks.remove(r);
                    q = q.map(|q| q - 1);
                    altered = true;
                } else {
                    r += 1;
                }
            }
            if self.blocks.is_empty() {
                (p, q) = (None, None);
                break;
            }
            if altered {
                continue; // look again at what is left
            }
            // a block overlapping the new one's start absorbs its head
            if p.is_none_or(|i| self.blocks[i + 1].start < start) {
                let i = p.map_or(0, |i| i + 1);
                let b = &mut self.blocks[i];
                if start < b.start {
                    self.total += b.start - start;
                    b.start = start;
                }
                start = b.end;
                b.flags |= flags;
                merge = true;
                p = Some(i);
            }
            // a block overlapping its end absorbs its tail
            if q.is_none_or(|i| self.blocks[i - 1].end > end) {
                let i = q.map_or(self.blocks.len() - 1, |i| i - 1);
                let b = &mut self.blocks[i];
                if end > b.end {
                    self.total += end - b.end;
                    b.end = end;
                }
                end = b.start;
                b.flags |= flags;
                merge = true;
                q = Some(i);
            }
            if end <= start {
                if *rcv_nxt >= self.blocks[0].start {
                    *rcv_nxt = self.blocks[0].end;
                }
                return flags;
            }
            if let (Some(pi), Some(qi)) = (p, q) {
                let (pb, qb) = (self.blocks[pi], self.blocks[qi]);
                if !merge && pi + 1 == qi && pb.end <= start && qb.start >= end {
                    merge = pb.end == start || qb.start == end;
                }
            }
            break;
        }
        let n = p.map_or(0, |i| i + 1);
        self.insert(n, start, end, flags);
        self.total += end - start;
        if merge {
            return self.coalesce(rcv_nxt, p.map(|_| n - 1), n, q.map(|_| n + 1));
        }
        if *rcv_nxt >= start {
            *rcv_nxt = end;
        }
        flags
    }

    /// Merges the new block `n` into its neighbours where they touch it (ns-2's `coalesce`:
    /// the block that stays keeps its place on the stack).
    fn coalesce(&mut self, rcv_nxt: &mut i64, p: Option<usize>, n: usize, q: Option<usize>) -> u8 {
        let nb = self.blocks[n];
        let touches_p = p.is_some_and(|p| self.blocks[p].end == nb.start);
        let touches_q = q.is_some_and(|q| nb.end == self.blocks[q].start);
        let (kept, flags) = if touches_p && touches_q {
            let (p, q) = (p.unwrap(), q.unwrap());
            self.blocks[p].end = self.blocks[q].end;
            self.blocks[p].flags |= nb.flags;
            let flags = self.blocks[p].flags;
            self.blocks.drain(n..=q);
            (p, flags)
        } else if touches_p {
            let p = p.unwrap();
            self.blocks[p].end = nb.end;
            self.blocks[p].flags |= nb.flags;
            self.blocks.remove(n);
            (p, self.blocks[p].flags)
        } else if touches_q {
            let q = q.unwrap();
            self.blocks[q].start = nb.start;
            self.blocks[q].flags |= nb.flags;
            let flags = self.blocks[q].flags;
            self.blocks.remove(n);
            (q - 1, flags)
        } else {
            (p.expect("a merge has a neighbour"), 0)
        };
        if *rcv_nxt >= self.blocks[kept].start {
            *rcv_nxt = self.blocks[kept].end;
        }
        flags
    }

    /// Forgets everything below `seq` (a block across it is cut there); returns the flags of
    /// the blocks it took from.
    pub fn clear_to(&mut self, seq: i64) -> u8 {
        let mut flags = 0;
        let whole = self.blocks.iter().take_while(|b| b.end <= seq).count();
        for b in self.blocks.drain(..whole) {
            flags |= b.flags;
            self.total -= b.end - b.start;
        }
        if let Some(b) = self.blocks.first_mut() {
            if b.start <= seq && b.end > seq {
                self.total -= seq - b.start;
                b.start = seq;
                flags |= b.flags;
            }
        }
        flags
    }

    /// Up to `max` SACK blocks, the most recently added first (ns-2's `gensack`).
    pub fn sack_blocks(&self, out: &mut [(i64, i64)], max: usize) -> usize {
        // the newest pushed below the last one taken, a few times over: no allocation
        let mut below = u64::MAX;
        let mut n = 0;
        while n < max.min(out.len()) {
            let Some(b) = self.blocks.iter().filter(|b| b.pushed < below).max_by_key(|b| b.pushed) else { break };
            out[n] = (b.start, b.end);
            below = b.pushed;
            n += 1;
        }
        n
    }

    /// The next hole at or above `seq` (ns-2's `nexthole`): `seq` itself if it is not held,
    /// else the end of the block holding it; with the number of blocks above and their bytes
    /// (-1, -1 when there are none). None when `seq` is past every block.
    pub fn next_hole(&self, seq: i64) -> Option<(i64, i64, i64)> {
        let above = |i: usize| {
            let rest = &self.blocks[i..];
            (rest.len() as i64, rest.iter().map(|b| b.end - b.start).sum())
        };
        for (i, b) in self.blocks.iter().enumerate() {
            if b.start > seq {
                let (cnt, bytes) = above(i);
                return Some((seq, cnt, bytes));
            }
            if b.start <= seq && b.end >= seq {
                let (cnt, bytes) = if i + 1 < self.blocks.len() { above(i + 1) } else { (-1, -1) };
                return Some((b.end, cnt, bytes));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::ReassemblyQueue;

    fn blocks(q: &ReassemblyQueue) -> Vec<(i64, i64)> {
        q.blocks.iter().map(|b| (b.start, b.end)).collect()
    }

    fn queue(adds: &[(i64, i64)]) -> (ReassemblyQueue, i64) {
        let (mut q, mut nxt) = (ReassemblyQueue::default(), 1);
        for &(s, e) in adds {
            q.add(&mut nxt, s, e, 0);
        }
        (q, nxt)
    }

    /// The cases of rq.cc's own test program, with the lists it prints.
    #[test]
    fn merges_as_ns2s_own_test_cases() {
        let (q, nxt) = queue(&[(2, 4), (6, 8), (1, 2), (8, 10), (4, 6)]);
        assert_eq!((blocks(&q), nxt, q.total()), (vec![(1, 10)], 10, 9));
        assert_eq!(blocks(&queue(&[(5, 10), (11, 20), (5, 10)]).0), vec![(5, 10), (11, 20)]);
        assert_eq!(blocks(&queue(&[(5, 10), (11, 20), (30, 40), (11, 20)]).0), vec![(5, 10), (11, 20), (30, 40)]);
        assert_eq!(blocks(&queue(&[(5, 10), (11, 20), (30, 40), (30, 50)]).0), vec![(5, 10), (11, 20), (30, 50)]);
        assert_eq!(blocks(&queue(&[(2, 4), (1, 4)]).0), vec![(1, 4)]);
        assert_eq!(blocks(&queue(&[(2, 4), (1, 3)]).0), vec![(1, 4)]);
        assert_eq!(blocks(&queue(&[(2, 4), (2, 7)]).0), vec![(2, 7)]);
        assert_eq!(blocks(&queue(&[(2, 4), (3, 7)]).0), vec![(2, 7)]);
        assert_eq!(blocks(&queue(&[(2, 4), (6, 8), (1, 9)]).0), vec![(1, 9)]);
        assert_eq!(blocks(&queue(&[(2, 4), (6, 8), (15, 20), (5, 9)]).0), vec![(2, 4), (5, 9), (15, 20)]);
        assert_eq!(blocks(&queue(&[(1, 2), (3, 5), (6, 8), (9, 10), (4, 7)]).0), vec![(1, 2), (3, 8), (9, 10)]);
    }

    #[test]
    fn rcv_nxt_moves_only_when_the_hole_below_is_filled() {
        let (mut q, mut nxt) = (ReassemblyQueue::default(), 100);
        q.add(&mut nxt, 200, 300, 0);
        q.add(&mut nxt, 400, 500, 0);
        assert_eq!(nxt, 100);
        q.add(&mut nxt, 100, 200, 0);
        assert_eq!((nxt, blocks(&q)), (300, vec![(100, 300), (400, 500)]));
        assert_eq!(q.clear_to(nxt), 0);
        assert_eq!((blocks(&q), q.total()), (vec![(400, 500)], 100));
    }

    #[test]
    fn sack_blocks_are_newest_first_and_a_merged_block_keeps_its_place() {
        let (mut q, mut nxt) = (ReassemblyQueue::default(), 0);
        q.add(&mut nxt, 10, 20, 0);
        q.add(&mut nxt, 30, 40, 0);
        q.add(&mut nxt, 50, 60, 0);
        let mut out = [(0, 0); 3];
        assert_eq!(q.sack_blocks(&mut out, 3), 3);
        assert_eq!(out, [(50, 60), (30, 40), (10, 20)]);
        q.add(&mut nxt, 20, 25, 0); // grows [10, 20), which stays at the bottom
        assert_eq!(q.sack_blocks(&mut out, 2), 2);
        assert_eq!(out[..2], [(50, 60), (30, 40)]);
        assert_eq!(blocks(&q)[0], (10, 25));
    }

    #[test]
    fn next_hole_skips_held_blocks_and_counts_those_above() {
        let (q, _) = queue(&[(10, 20), (30, 40), (50, 55)]);
        assert_eq!(q.next_hole(5), Some((5, 3, 25)));
        assert_eq!(q.next_hole(10), Some((20, 2, 15)));
        assert_eq!(q.next_hole(50), Some((55, -1, -1)));
        assert_eq!(q.next_hole(60), None);
    }

    #[test]
    fn flags_of_the_segments_collect_in_their_block() {
        let (mut q, mut nxt) = (ReassemblyQueue::default(), 0);
        q.add(&mut nxt, 10, 20, 0x08);
        assert_eq!(q.add(&mut nxt, 20, 30, 0x01), 0x09);
        assert_eq!(q.clear_to(30), 0x09);
    }
}
