//! The event queue: a binary heap ordered by (time, exact seconds, insertion number).
//!
//! Time is integer picoseconds. An event may also carry the exact double-precision time a
//! double-clock simulator such as ns-2 would have computed for it (`schedule_exact`); rounding to
//! picoseconds keeps the order of distinct times, and the double breaks the ties that rounding
//! creates, so events come out in ns-2's order, float noise included. Remaining ties go by
//! insertion order, as in ns-2's scheduler. Events are small `Copy` values chosen by the model;
//! the queue never allocates per event once the heap has grown to the run's working size.

use crate::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Time,
    exact: f64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.cmp(&self.time).then(other.exact.total_cmp(&self.exact)).then(other.seq.cmp(&self.seq))
    }
}

pub struct Scheduler<E: Copy> {
    heap: BinaryHeap<Entry<E>>,
    now: Time,
    now_exact: f64,
    next_seq: u64,
}

impl<E: Copy> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> Scheduler<E> {
    pub fn new() -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(1024), now: Time::ZERO, now_exact: 0.0, next_seq: 0 }
    }

    pub fn now(&self) -> Time {
        self.now
    }

    /// The current time in seconds as a double: the exact value the current event was scheduled
    /// with by `schedule_exact`, else the integer time converted.
    pub fn now_exact(&self) -> f64 {
        self.now_exact
    }

    /// Schedules `event` at absolute time `at`, which may not lie in the past.
    pub fn schedule(&mut self, at: Time, event: E) {
        self.push(at, at.as_secs_f64(), event);
    }

    /// Schedules `event` at `exact` seconds computed in double precision (ns-2's clock).
    pub fn schedule_exact(&mut self, exact: f64, event: E) {
        assert!(exact >= self.now_exact, "event scheduled in the past: {exact} < {}", self.now_exact);
        self.push(Time::from_secs_f64(exact), exact, event);
    }

    fn push(&mut self, time: Time, exact: f64, event: E) {
        assert!(time >= self.now, "event scheduled in the past: {time:?} < {:?}", self.now);
        self.heap.push(Entry { time, exact, seq: self.next_seq, event });
        self.next_seq += 1;
    }

    /// Time of the next event, if any, and its exact double.
    pub fn peek_time(&self) -> Option<(Time, f64)> {
        self.heap.peek().map(|e| (e.time, e.exact))
    }

    /// Removes the next event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let entry = self.heap.pop()?;
        debug_assert!(entry.time >= self.now, "time went backwards");
        self.now = entry.time;
        self.now_exact = entry.exact;
        Some((entry.time, entry.event))
    }

    /// Moves the clock forward to `t` without dispatching (used when a run stops between events).
    pub fn advance_to(&mut self, t: Time) {
        assert!(t >= self.now, "clock moved backwards");
        self.now = t;
        self.now_exact = t.as_secs_f64();
    }

}

/// A restartable timer without a handle into the heap: arming it bumps a generation number that
/// the scheduled event carries, and an event whose generation is no longer current is stale and
/// skipped when it fires. Rescheduling therefore costs one push, as in ns-2's `resched`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    gen: u32,
    pending: bool,
}

impl Timer {
    /// Arms (or re-arms) the timer; returns the generation its event must carry.
    pub fn arm(&mut self) -> u32 {
        self.gen = self.gen.wrapping_add(1);
        self.pending = true;
        self.gen
    }

    pub fn cancel(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        self.pending = false;
    }

    /// True if an event of generation `gen` is the live expiry; the timer is then no longer pending.
    pub fn fire(&mut self, gen: u32) -> bool {
        if self.pending && gen == self.gen {
            self.pending = false;
            true
        } else {
            false
        }
    }

    pub fn pending(&self) -> bool {
        self.pending
    }

}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_dispatch_in_insertion_order() {
        let mut s = Scheduler::new();
        s.schedule(Time::from_millis(2), 'c');
        s.schedule(Time::from_millis(1), 'a');
        s.schedule(Time::from_millis(1), 'b');
        s.schedule(Time::from_millis(2), 'd');
        let order: String = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, "abcd");
        assert_eq!(s.now(), Time::from_millis(2));
    }

    #[test]
    fn exact_times_break_ties_left_by_rounding() {
        let mut s = Scheduler::new();
        // Both round to 2.179104 s in picoseconds; the double decides, as in ns-2.
        s.schedule_exact(2.179104 + 1e-15, 'b');
        s.schedule_exact(2.179104, 'a');
        s.schedule(Time::from_secs(3), 'c');
        let order: String = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, "abc");
        assert_eq!(s.now_exact(), 3.0);
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_panics() {
        let mut s = Scheduler::new();
        s.schedule(Time::from_millis(5), ());
        s.pop();
        s.schedule(Time::from_millis(4), ());
    }

    #[test]
    fn stale_timer_events_are_skipped() {
        let mut t = Timer::default();
        let g1 = t.arm();
        let g2 = t.arm();
        assert!(!t.fire(g1), "a re-armed timer's old event is stale");
        assert!(t.pending());
        assert!(t.fire(g2));
        assert!(!t.pending());
        let g3 = t.arm();
        t.cancel();
        assert!(!t.fire(g3), "a cancelled timer never fires");
    }
}
