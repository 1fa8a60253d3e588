//! A binary min-heap of keys and their values. Sifting moves a hole rather than swapping: each
//! level costs one move of an entry, and the entry being placed is written once.
//!
//! Binary rather than 4-ary: a new imminent event sinks past the imminent events due before it
//! (the heads of the busy lanes, the links' releases), so the levels it crosses are set by its
//! rank more than by the heap's size, and a level of a binary heap costs one comparison of
//! children where a 4-ary heap's costs three (S3: 2.5% fewer instructions, about a tenth less
//! time, measured when the retransmission timers still shared the heap; the scheduler keeps
//! them in a heap of their own now).

pub struct MinHeap<T> {
    /// Each key beside its value: a level of sinking reads the children's keys and moves one
    /// entry, all within one slice (one length to check against, where a check is left).
    entries: Vec<(u128, T)>,
}

impl<T: Copy> Default for MinHeap<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> MinHeap<T> {
    pub fn new() -> Self {
        MinHeap { entries: Vec::with_capacity(1024) }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn push(&mut self, key: u128, value: T) {
        let mut hole = self.entries.len();
        self.entries.push((key, value));
        let entries = &mut self.entries[..];
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if entries[parent].0 <= key {
                break;
            }
            entries[hole] = entries[parent];
            hole = parent;
        }
        entries[hole] = (key, value);
    }

    /// The smallest key and its value.
    pub fn peek(&self) -> Option<(u128, &T)> {
        self.entries.first().map(|(k, v)| (*k, v))
    }

    /// The smallest key among the root's children, the next one after the root's, if any.
    pub fn second_key(&self) -> Option<u128> {
        smallest_child(&self.entries, 0).map(|child| self.entries[child].0)
    }

    /// Replaces the smallest entry with `key` and `value`: a pop and a push in one pass down
    /// from the root, as far as the new key sinks.
    pub fn replace_min(&mut self, key: u128, value: T) {
        let entries = &mut self.entries[..];
        let len = entries.len();
        assert!(len > 0, "replace_min on an empty heap");
        let mut hole = 0;
        loop {
            let first = 2 * hole + 1; // no overflow: entries of 16 bytes or more number under 2^60
            let child = if first + 1 < len {
                // SAFETY: first + 1 < len
                let (a, b) = unsafe { (entries.get_unchecked(first).0, entries.get_unchecked(first + 1).0) };
                first + (b < a) as usize // a select, not a branch: which child is smaller is a coin toss
            } else if first < len {
                first
            } else {
                break;
            };
            // SAFETY: child < len, and hole < len (the root, or a child before)
            unsafe {
                let next = *entries.get_unchecked(child);
                if next.0 >= key {
                    break;
                }
                *entries.get_unchecked_mut(hole) = next;
            }
            hole = child;
        }
        entries[hole] = (key, value);
    }

    /// Removes the smallest key and its value.
    ///
    /// The hole the root leaves sinks along the smallest children all the way to a leaf, and
    /// the last entry, moved there, rises to its place (Floyd's order). The last entry is
    /// usually one of the latest, so it rarely rises, and the way down saves comparing it at
    /// every level, a branch that goes either way.
    pub fn pop(&mut self) -> Option<(u128, T)> {
        let last = self.entries.pop()?;
        let Some(&out) = self.entries.first() else { return Some(last) };
        let entries = &mut self.entries[..];
        let mut hole = 0;
        while let Some(child) = smallest_child(entries, hole) {
            entries[hole] = entries[child];
            hole = child;
        }
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if entries[parent].0 <= last.0 {
                break;
            }
            entries[hole] = entries[parent];
            hole = parent;
        }
        entries[hole] = last;
        Some(out)
    }
}

/// The smallest child of `hole`, if it has any (for `pop` and `second_key`; the root's
/// replacement, the hot one, has its own copy without bounds checks). Always inlined: left to
/// itself the compiler called it, for 5 to 7% more instructions when every replacement used it.
#[inline(always)]
fn smallest_child<T>(entries: &[(u128, T)], hole: usize) -> Option<usize> {
    let first = 2 * hole + 1;
    match entries.get(first..first + 2) {
        // a select, not a branch: which child is smaller is a coin toss
        Some(two) => Some(first + (two[1].0 < two[0].0) as usize),
        None if first < entries.len() => Some(first),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// A simulator-like workload (take the minimum, push a few keys at or after it, the first
    /// in the minimum's place) gives the same sequence as the standard library's binary heap.
    #[test]
    fn pops_in_key_order_like_the_standard_heap() {
        let mut rng = crate::Rng::stream(1, "heap");
        let mut next = || rng.next_u64();
        let mut heap = MinHeap::new();
        let mut binary = BinaryHeap::new();
        let mut seq = 0u128;
        for _ in 0..200 {
            let key = ((next() % 1000) as u128) << 64 | seq;
            seq += 1;
            heap.push(key, key);
            binary.push(Reverse(key));
        }
        for _ in 0..100_000 {
            let Some((key, &value)) = heap.peek() else { break };
            assert_eq!(Some(Reverse(key)), binary.pop());
            assert_eq!(key, value);
            // the first new key takes the root's place, or the root is popped
            let mut taken = true;
            for _ in 0..(next() % 3) {
                let at = (key >> 64) + (next() % 4 == 0) as u128 * (next() % 5000) as u128;
                let k = at << 64 | seq;
                seq += 1;
                if std::mem::take(&mut taken) {
                    heap.replace_min(k, k);
                } else {
                    heap.push(k, k);
                }
                binary.push(Reverse(k));
            }
            if taken {
                assert_eq!(heap.pop(), Some((key, key)));
            }
            assert_eq!(heap.len(), binary.len());
            assert_eq!(heap.peek().map(|(k, _)| k), binary.peek().map(|r| r.0));
        }
    }

    /// Every order of up to 7 distinct keys: pops return each entry once, smallest first
    /// (pops of one and two entries, and a last entry that must rise, all included).
    #[test]
    fn pops_every_small_heap_in_order() {
        fn permute(keys: &mut Vec<u128>, k: usize, f: &mut impl FnMut(&[u128])) {
            if k == keys.len() {
                return f(keys);
            }
            for i in k..keys.len() {
                keys.swap(k, i);
                permute(keys, k + 1, f);
                keys.swap(k, i);
            }
        }
        for n in 0..=7u128 {
            permute(&mut (0..n).collect(), 0, &mut |order: &[u128]| {
                let mut heap = MinHeap::new();
                for &k in order {
                    heap.push(k, !k);
                }
                for k in 0..n {
                    assert_eq!(heap.pop(), Some((k, !k)), "{order:?}");
                    assert_eq!(heap.len(), (n - k - 1) as usize);
                }
                assert_eq!(heap.pop(), None);
            });
        }
    }
}
