//! A first-in, first-out ring of plain values: the queues a simulator pushes and pops on every
//! hop (packets on a wire, packets waiting at a link). Its capacity is a power of two, so a
//! place wraps with a mask rather than a comparison, and it never shrinks: once it has grown
//! to a run's working size, it allocates no more.

pub struct Ring<T> {
    /// The slots, `buf.len()` a power of two (or zero); the values are the `len` slots from
    /// `head` on, wrapping. The other slots hold stale copies, never read.
    buf: Box<[T]>,
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Ring { buf: Box::new([]), head: 0, len: 0 }
    }
}

impl<T: Copy> Ring<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    pub fn push_back(&mut self, value: T) {
        if self.len == self.buf.len() {
            self.grow(value);
        }
        debug_assert!(self.buf.len().is_power_of_two(), "the unsafe indexing relies on it");
        let at = (self.head + self.len) & self.mask();
        // SAFETY: the capacity is a power of two, at least 8 once anything is pushed: a masked
        // place is below it
        unsafe { *self.buf.get_unchecked_mut(at) = value };
        self.len += 1;
    }

    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: the ring holds a value, so the capacity is a power of two and `head`, always
        // masked, is below it
        let value = unsafe { *self.buf.get_unchecked(self.head) };
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(value)
    }

    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.head])
    }

    pub fn front_mut(&mut self) -> Option<&mut T> {
        (self.len > 0).then(|| &mut self.buf[self.head])
    }

    pub fn back(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[(self.head + self.len - 1) & self.mask()])
    }

    /// Takes out the value `index` places from the front; the later ones move up (RED's random
    /// drop, rare: a loop is fine).
    pub fn remove(&mut self, index: usize) -> T {
        assert!(index < self.len, "index {index} in a ring of {}", self.len);
        let mask = self.mask();
        let value = self.buf[(self.head + index) & mask];
        for i in index..self.len - 1 {
            self.buf[(self.head + i) & mask] = self.buf[(self.head + i + 1) & mask];
        }
        self.len -= 1;
        value
    }

    /// Puts `value` `index` places from the front; the later ones move back (a routing
    /// packet's place near the head of an interface queue, rare: a loop is fine).
    pub fn insert(&mut self, index: usize, value: T) {
        assert!(index <= self.len, "index {index} in a ring of {}", self.len);
        self.push_back(value);
        let mask = self.mask();
        for i in (index..self.len - 1).rev() {
            self.buf[(self.head + i + 1) & mask] = self.buf[(self.head + i) & mask];
        }
        self.buf[(self.head + index) & mask] = value;
    }

    /// The values, first to last.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        (0..self.len).map(move |i| &self.buf[(self.head + i) & self.mask()])
    }

    /// Doubles the capacity (at least 8 slots), the values moved to the start in order; `fill`
    /// fills the new slots, which are written before they are read.
    #[cold]
    fn grow(&mut self, fill: T) {
        let mut buf = vec![fill; (2 * self.buf.len()).max(8)].into_boxed_slice();
        for (slot, value) in buf.iter_mut().zip(self.iter()) {
            *slot = *value;
        }
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Random pushes and pops, through many wraps and several growths, keep the order a
    /// standard double-ended queue keeps.
    #[test]
    fn keeps_the_order_of_a_standard_queue() {
        let mut rng = crate::Rng::stream(3, "ring");
        let mut ring = Ring::default();
        let mut model = VecDeque::new();
        for i in 0..200_000u64 {
            // drift from pushing more to popping more, so the ring grows, wraps and empties
            let push_odds = if (i / 5000) % 2 == 0 { 60 } else { 40 };
            if rng.next_u64() % 100 < push_odds {
                ring.push_back(i);
                model.push_back(i);
            } else {
                assert_eq!(ring.pop_front(), model.pop_front());
            }
            assert_eq!(ring.len(), model.len());
            assert_eq!(ring.front(), model.front());
            assert_eq!(ring.back(), model.back());
        }
        assert!(ring.iter().eq(model.iter()));
        while let Some(v) = model.pop_front() {
            assert_eq!(ring.pop_front(), Some(v));
        }
        assert!(ring.is_empty() && ring.pop_front().is_none() && ring.front().is_none());
    }

    /// `insert` puts one value in across the wrap and as the ring grows; the others keep
    /// their order.
    #[test]
    fn insert_keeps_the_others_in_order() {
        let mut ring = Ring::default();
        (0..8).for_each(|i| ring.push_back(i));
        (0..6).for_each(|_| _ = ring.pop_front());
        (8..13).for_each(|i| ring.push_back(i)); // 6..12, wrapping past the end of 8 slots
        ring.insert(1, 100);
        assert!(ring.iter().copied().eq([6, 100, 7, 8, 9, 10, 11, 12]));
        ring.insert(8, 200); // at the back, growing the ring
        ring.insert(0, 300);
        assert!(ring.iter().copied().eq([300, 6, 100, 7, 8, 9, 10, 11, 12, 200]));
    }

    /// `remove` takes out one value across the wrap; the others keep their order.
    #[test]
    fn remove_keeps_the_others_in_order() {
        let mut ring = Ring::default();
        (0..8).for_each(|i| ring.push_back(i));
        (0..6).for_each(|_| _ = ring.pop_front());
        (8..13).for_each(|i| ring.push_back(i)); // 6..12, wrapping past the end of 8 slots
        assert_eq!(ring.remove(3), 9);
        assert_eq!(ring.remove(0), 6);
        assert!(ring.iter().copied().eq([7, 8, 10, 11, 12]));
        assert_eq!(ring.remove(4), 12);
        assert_eq!((ring.len(), ring.back()), (4, Some(&11)));
    }
}
