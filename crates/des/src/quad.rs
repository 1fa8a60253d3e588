//! A 4-ary min-heap with its keys apart from its values. A node's four children are adjacent,
//! so their keys share one cache line, and the tree is half as deep as a binary heap's: fewer
//! levels, fewer mispredicted branches per pop. Values move only when their keys do.

pub struct QuadHeap<T> {
    keys: Vec<u128>,
    values: Vec<T>,
}

impl<T> Default for QuadHeap<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> QuadHeap<T> {
    pub fn new() -> Self {
        QuadHeap { keys: Vec::with_capacity(1024), values: Vec::with_capacity(1024) }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn push(&mut self, key: u128, value: T) {
        let mut i = self.keys.len();
        self.keys.push(key);
        self.values.push(value);
        while i > 0 {
            let parent = (i - 1) / 4;
            if self.keys[parent] <= key {
                break;
            }
            self.keys.swap(i, parent);
            self.values.swap(i, parent);
            i = parent;
        }
    }

    /// The smallest key and its value.
    pub fn peek(&self) -> Option<(u128, &T)> {
        Some((*self.keys.first()?, &self.values[0]))
    }

    /// Removes the smallest key and its value.
    pub fn pop(&mut self) -> Option<(u128, T)> {
        let n = self.keys.len();
        if n == 0 {
            return None;
        }
        self.keys.swap(0, n - 1);
        self.values.swap(0, n - 1);
        let out = (self.keys.pop().expect("n > 0"), self.values.pop().expect("n > 0"));
        let n = n - 1;
        let mut i = 0;
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            let last = (first + 4).min(n);
            let mut min = first;
            for c in first + 1..last {
                if self.keys[c] < self.keys[min] {
                    min = c;
                }
            }
            if self.keys[min] >= self.keys[i] {
                break;
            }
            self.keys.swap(i, min);
            self.values.swap(i, min);
            i = min;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// A simulator-like workload (pop the minimum, push a few keys at or after it) gives the
    /// same sequence as the standard library's binary heap.
    #[test]
    fn pops_in_key_order_like_a_binary_heap() {
        let mut state = 0x2545F4914F6CDD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut quad = QuadHeap::new();
        let mut binary = BinaryHeap::new();
        let mut seq = 0u128;
        for _ in 0..200 {
            let key = ((next() % 1000) as u128) << 64 | seq;
            seq += 1;
            quad.push(key, key);
            binary.push(Reverse(key));
        }
        for _ in 0..100_000 {
            let Some((key, value)) = quad.pop() else { break };
            assert_eq!(Some(Reverse(key)), binary.pop());
            assert_eq!(key, value);
            for _ in 0..(next() % 3) {
                let at = (key >> 64) + (next() % 4 == 0) as u128 * (next() % 5000) as u128;
                let k = at << 64 | seq;
                seq += 1;
                quad.push(k, k);
                binary.push(Reverse(k));
            }
            assert_eq!(quad.len(), binary.len());
            assert_eq!(quad.peek().map(|(k, _)| k), binary.peek().map(|r| r.0));
        }
    }
}
