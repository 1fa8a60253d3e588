//! The event queue: two binary heaps ordered by (exact seconds, insertion number), one for the
//! events of restartable timers and one for the rest.
//!
//! Events are scheduled at the exact double-precision time a double-clock simulator such as
//! ns-2 would have computed for them (`schedule_exact`), so they come out in ns-2's order, float
//! noise included; ties go by insertion order, as in ns-2's scheduler. The clock also reads as
//! integer picoseconds (`now`), the double rounded when asked (most events never ask): rounding
//! keeps the order of distinct times. Events are small `Copy` values chosen by the model; the
//! queue never allocates per event once the heaps have grown to the run's working size. An event
//! due before everything in the events' heap waits beside it (`front`).
//!
//! Timers sit in a heap of their own: a network's timers (a retransmission timer per TCP
//! sender) are mostly far off, and in one heap with them an imminent event sinks a level
//! further, to where their events begin. Apart, the events' heap holds only what is imminent
//! (S3: a hundred retransmission timers apart from a handful of packet events), and the next
//! event is the earliest of the two roots and the front. A timer armed and fired at the pace
//! of the packets (a radio's) is `Timer::near` and goes with the events.

use crate::heap::MinHeap;
use crate::Time;

/// An event's place in the queue: the exact time's bits, then the insertion number. For the
/// non-negative doubles of a clock, the bits order as the values do, so one integer orders
/// (exact, seq).
fn key(exact: f64, seq: u64) -> u128 {
    debug_assert!(exact >= 0.0);
    (((exact + 0.0).to_bits() as u128) << 64) | seq as u128 // + 0.0 turns -0.0 into 0.0
}

fn exact_of(key: u128) -> f64 {
    f64::from_bits((key >> 64) as u64)
}

pub struct Scheduler<E: Copy> {
    heap: MinHeap<E>,
    /// The events of timers (`arm`, `fire`), and the key of the first (`u128::MAX` if none),
    /// kept at hand: every pop compares it, and it changes only when a timer's event does.
    /// While a timer's event is dispatched (`taken` is `Timers`) it still names that event,
    /// so it is read only after `drop_taken`.
    timers: MinHeap<E>,
    timers_next: u128,
    now_exact: f64,
    /// Where `advance_to` stopped the clock between events, until the next event: read back
    /// from its double, a time of hours can come out a picosecond off. (An event due at the stop
    /// then reads its own double's picosecond, which may be the one before.)
    stopped_at: Option<Time>,
    /// The insertion number of the event being dispatched.
    now_seq: u64,
    next_seq: u64,
    /// Events dispatched so far.
    dispatched: u64,
    /// The event being dispatched still holds the root of a heap: the next push to that heap
    /// takes its place, in one pass down instead of a pop's and a push's (a packet landing
    /// schedules the next one in its lane), or the next pop removes it.
    taken: Taken,
    /// An event due before everything in the events' heap (not necessarily before the timers'),
    /// kept out of it. A packet that finds its link finishing a transmission at the very time
    /// it arrives schedules that release as the next event (trains at equal rates do it at
    /// every hop), and the release never touches the heap.
    front: Option<(u128, E)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Taken {
    None,
    Heap,
    Timers,
}

impl<E: Copy> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> Scheduler<E> {
    pub fn new() -> Self {
        Scheduler {
            heap: MinHeap::new(),
            timers: MinHeap::new(),
            timers_next: u128::MAX,
            now_exact: 0.0,
            stopped_at: None,
            now_seq: 0,
            next_seq: 0,
            dispatched: 0,
            taken: Taken::None,
            front: None,
        }
    }

    pub fn now(&self) -> Time {
        self.stopped_at.unwrap_or_else(|| Time::from_secs_f64(self.now_exact))
    }

    /// The current time in seconds as a double: the exact value the current event was scheduled
    /// with (after `advance_to`, the integer time converted).
    pub fn now_exact(&self) -> f64 {
        self.now_exact
    }

    /// Schedules `event` at absolute time `at`, which may not lie in the past: at its value in
    /// seconds as a double, which rounds back to `at` for any run shorter than 37 minutes.
    pub fn schedule(&mut self, at: Time, event: E) {
        self.schedule_exact(at.as_secs_f64(), event);
    }

    /// Schedules `event` at `exact` seconds computed in double precision (ns-2's clock).
    pub fn schedule_exact(&mut self, exact: f64, event: E) {
        let seq = self.reserve();
        self.push_reserved(exact, seq, event);
    }

    /// Takes the insertion number an event scheduled now would get, for an event that is pushed
    /// later (`push_reserved`) but must keep its place among events due at the same time.
    pub fn reserve(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Schedules `event` at `exact` seconds with an insertion number taken by `reserve`: it
    /// comes out exactly where it would have if it had been scheduled when `seq` was taken.
    pub fn push_reserved(&mut self, exact: f64, seq: u64, event: E) {
        let k = self.future_key(exact, seq);
        if self.taken == Taken::Heap {
            self.taken = Taken::None;
            self.heap.replace_min(k, event);
        } else if self.front.is_none_or(|(f, _)| k < f) && self.heap.peek().is_none_or(|(root, _)| k < root) {
            if let Some((f, e)) = self.front.replace((k, event)) {
                self.heap.push(f, e);
            }
        } else {
            self.heap.push(k, event);
        }
    }

    /// Schedules a timer's event, as `push_reserved` does the others' (and with them, if the
    /// timer is `near`).
    fn push_timer(&mut self, near: bool, exact: f64, seq: u64, event: E) {
        if near {
            return self.push_reserved(exact, seq, event);
        }
        let k = self.future_key(exact, seq);
        if self.taken == Taken::Timers {
            self.taken = Taken::None;
            self.timers.replace_min(k, event);
        } else {
            self.timers.push(k, event);
        }
        self.refresh_timers_next();
    }

    /// The key of an event at `exact` seconds with insertion number `seq`, which may not lie
    /// in the past.
    fn future_key(&self, exact: f64, seq: u64) -> u128 {
        assert!(exact >= self.now_exact, "event scheduled in the past: {exact} < {}", self.now_exact);
        key(exact, seq)
    }

    fn refresh_timers_next(&mut self) {
        self.timers_next = self.timers.peek().map_or(u128::MAX, |(k, _)| k);
    }

    /// True if an event at `exact` seconds with insertion number `seq` would already have come
    /// out: it sorts before the event being dispatched. Lets a model skip events whose only
    /// effect is a state change nobody has looked at yet, and apply them when someone does.
    pub fn is_past(&self, exact: f64, seq: u64) -> bool {
        debug_assert!(exact >= 0.0); // as a key would have it: then the doubles order as their bits
        exact < self.now_exact || (exact == self.now_exact && seq < self.now_seq)
    }

    /// Arms `timer` to expire at `exact` seconds; `event` makes its event from a generation.
    ///
    /// A timer keeps at most one event in the queue. Re-arming it for a time after the event
    /// already queued pushes nothing: that event, when it comes out, re-queues itself for the new
    /// time with the insertion number taken now (see `fire`). A TCP sender re-arms its
    /// retransmission timer on every ACK, so this keeps the queue as small as the network.
    pub fn arm(&mut self, timer: &mut Timer, exact: f64, event: impl Fn(u32) -> E) {
        timer.gen = timer.gen.wrapping_add(1);
        timer.pending = true;
        timer.due = exact;
        timer.seq = self.reserve();
        if timer.queued.is_none_or(|(_, at)| at > exact) {
            self.push_timer(timer.near, exact, timer.seq, event(timer.gen));
            timer.queued = Some((timer.gen, exact));
        }
    }

    /// Called when an event of `timer` carrying generation `gen` comes out: true if the timer
    /// expires now. An event for an earlier arming re-queues itself for the current one.
    pub fn fire(&mut self, timer: &mut Timer, gen: u32, event: impl Fn(u32) -> E) -> bool {
        if timer.queued.map(|(g, _)| g) != Some(gen) {
            return false; // superseded by an earlier event pushed since
        }
        timer.queued = None;
        if !timer.pending {
            return false;
        }
        if gen == timer.gen {
            timer.pending = false;
            return true;
        }
        self.push_timer(timer.near, timer.due, timer.seq, event(timer.gen));
        timer.queued = Some((timer.gen, timer.due));
        false
    }

    /// Dispatches on the spot the event due now with insertion number `seq` (reserved, never
    /// pushed), if nothing waiting comes out before it: true if so, and the caller does its
    /// work now. The event never enters the queue, and the clock's insertion number moves to
    /// `seq`. Only when the event being dispatched does nothing after this call: numbers it
    /// took later would fall after those this event's work takes.
    pub fn dispatch_if_next(&mut self, exact: f64, seq: u64) -> bool {
        debug_assert!(exact == self.now_exact && !self.is_past(exact, seq), "an event due now, not yet dispatched");
        debug_assert!(self.stopped_at.is_none(), "only while an event is dispatched");
        let k = key(exact, seq);
        // while the dispatched event holds a root, the next one of that heap is among its children
        let next = |heap: &MinHeap<E>, taken| if taken { heap.second_key() } else { heap.peek().map(|(root, _)| root) };
        let heap_next = next(&self.heap, self.taken == Taken::Heap);
        let timer_next = next(&self.timers, self.taken == Taken::Timers);
        if self.front.is_some_and(|(f, _)| f < k)
            || heap_next.is_some_and(|h| h < k)
            || timer_next.is_some_and(|t| t < k)
        {
            return false;
        }
        self.now_seq = seq;
        self.dispatched += 1;
        true
    }

    /// How many events have been dispatched.
    pub fn dispatched(&self) -> u64 {
        self.dispatched
    }

    /// How many events are waiting.
    pub fn len(&self) -> usize {
        self.heap.len() + self.timers.len() - (self.taken != Taken::None) as usize + self.front.is_some() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes the event dispatched last, if it still holds a root.
    fn drop_taken(&mut self) {
        match std::mem::replace(&mut self.taken, Taken::None) {
            Taken::None => {}
            Taken::Heap => _ = self.heap.pop(),
            Taken::Timers => {
                self.timers.pop();
                self.refresh_timers_next();
            }
        }
    }

    /// Removes the next event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_if(|_, _| true).map(|e| (self.now(), e))
    }

    /// Removes the next event if `due` says yes to its exact time and insertion number, and
    /// advances the clock to it: a run's loop looks at the next event once.
    pub fn pop_if(&mut self, due: impl FnOnce(f64, u64) -> bool) -> Option<E> {
        self.drop_taken();
        // Where the next event waits: beside the events' heap (`Taken::None`: the front, before
        // everything in that heap, not necessarily in the timers'), or at a heap's root.
        let event = match self.front {
            Some((k, e)) => Some((k, e, Taken::None)),
            None => self.heap.peek().map(|(k, &e)| (k, e, Taken::Heap)),
        };
        let (k, event, from) = match event {
            Some(e) if e.0 < self.timers_next => e,
            _ => self.timers.peek().map(|(k, &e)| (k, e, Taken::Timers))?,
        };
        if !due(exact_of(k), k as u64) {
            return None;
        }
        match from {
            Taken::None => self.front = None,
            root => self.taken = root,
        }
        debug_assert!(exact_of(k) >= self.now_exact, "time went backwards");
        self.now_exact = exact_of(k);
        self.stopped_at = None;
        self.now_seq = k as u64;
        self.dispatched += 1;
        Some(event)
    }

    /// Moves the clock forward to `t` without dispatching (used when a run stops between events).
    pub fn advance_to(&mut self, t: Time) {
        assert!(t >= self.now(), "clock moved backwards");
        self.stopped_at = Some(t);
        self.now_exact = t.as_secs_f64();
    }
}

/// A restartable timer without a handle into the heap, armed and fired through the scheduler
/// (`Scheduler::arm`, `Scheduler::fire`). Arming bumps a generation number that the event
/// carries; an event whose generation is no longer current is stale, or re-queues itself when
/// the timer was re-armed for a later time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    /// Its events are imminent, as the network's are (a radio's slots and timeouts), and go
    /// into their heap: it is dispatched and re-armed at the pace of the packets.
    near: bool,
    gen: u32,
    pending: bool,
    /// When the current arming expires, and its insertion number.
    due: f64,
    seq: u64,
    /// The generation and time of the timer's event in the queue, if any.
    queued: Option<(u32, f64)>,
}

impl Timer {
    /// A timer whose events go with the network's (see `near`); `default()` makes the others.
    pub fn near() -> Timer {
        Timer { near: true, ..Timer::default() }
    }

    pub fn cancel(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        self.pending = false;
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

    /// A run stopped between events reads the stop time exactly, even where its double reads
    /// back a picosecond off (some times of hours), and events read their own rounded times.
    #[test]
    fn the_clock_reads_its_stop_exactly_and_events_their_times() {
        let t = Time::from_ps(10_000_000_000_000_001); // 2.8 hours
        assert_ne!(Time::from_secs_f64(t.as_secs_f64()), t, "a time whose double reads back off");
        let mut s: Scheduler<()> = Scheduler::new();
        s.schedule_exact(1.5e-3, ());
        s.advance_to(Time::from_millis(1));
        assert_eq!(s.now(), Time::from_millis(1));
        assert_eq!(s.pop().map(|(at, _)| at), Some(Time::from_micros(1500)));
        s.advance_to(t);
        assert_eq!(s.now(), t);
        s.schedule(t, ());
        let seq = s.next_seq - 1;
        assert!(s
            .pop_if(|exact, at| {
                assert_eq!((exact, at), (t.as_secs_f64(), seq));
                false
            })
            .is_none());
        assert_eq!(s.now(), t, "a declined event leaves the clock stopped");
        s.pop();
        assert_eq!(s.now(), Time::from_secs_f64(t.as_secs_f64()), "an event's time is its double's");
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
        let mut s: Scheduler<u32> = Scheduler::new();
        let mut t = Timer::default();
        s.arm(&mut t, 2.0, |g| g);
        s.arm(&mut t, 1.0, |g| g); // earlier: a second event, the first is stale
        let (_, g) = s.pop().unwrap();
        assert!(s.fire(&mut t, g, |g| g) && !t.pending());
        let (_, g) = s.pop().unwrap();
        assert!(!s.fire(&mut t, g, |g| g), "the superseded event is stale");
        s.arm(&mut t, 3.0, |g| g);
        t.cancel();
        let (_, g) = s.pop().unwrap();
        assert!(!s.fire(&mut t, g, |g| g), "a cancelled timer never fires");
        assert!(s.pop().is_none());
    }

    /// An event dispatched on the spot must be the one that would have come out next: not if
    /// an event waits before it beside the heap, at the heap's root, or among the children of
    /// the root still held by the event being dispatched (left or right).
    #[test]
    fn an_event_is_dispatched_on_the_spot_only_when_due_next() {
        let first = |s: &mut Scheduler<char>| s.pop().map(|(_, e)| e);
        // 'z' waits beside the heap, so that 'a', 'b' and 'c' enter it
        let three = |order: &str| {
            let mut s: Scheduler<char> = Scheduler::new();
            s.schedule_exact(0.5, 'z');
            for e in order.chars() {
                s.schedule_exact(if e == 'b' { 2.0 } else { 1.0 }, e);
            }
            assert_eq!((first(&mut s), first(&mut s)), (Some('z'), Some('a'))); // 'a' holds the root
            s
        };
        for order in ["abc", "acb"] {
            // 'c' is the right child, then the left one
            let mut s = three(order);
            let seq = s.reserve();
            assert!(!s.dispatch_if_next(1.0, seq), "{order}: 'c' is due first, below the root");
        }
        let mut s = three("abc");
        assert_eq!(first(&mut s), Some('c')); // at the root now
        s.schedule_exact(1.0, 'd'); // due next: it waits beside the heap
        let seq = s.reserve();
        assert!(!s.dispatch_if_next(1.0, seq), "'d' is due first, beside the heap");
        assert_eq!(first(&mut s), Some('d'));
        s.schedule_exact(1.0, 'e'); // beside the heap
        s.schedule_exact(1.0, 'f'); // after 'e': into the heap, at its root
        assert_eq!(first(&mut s), Some('e'));
        let seq = s.reserve();
        assert!(!s.dispatch_if_next(1.0, seq), "'f' is due first, at the root");
        assert_eq!(first(&mut s), Some('f'));
        let seq = s.reserve();
        s.schedule_exact(1.0, 'g'); // beside the heap, but after `seq`
        assert!(s.dispatch_if_next(1.0, seq), "only 'g' and 'b' wait, after it");
        assert_eq!(s.dispatched(), 7);
        assert!(s.is_past(1.0, seq - 1) && !s.is_past(1.0, seq), "the clock is at the new event");
        assert_eq!((first(&mut s), first(&mut s)), (Some('g'), Some('b')));
        let seq = s.reserve();
        assert!(s.dispatch_if_next(2.0, seq), "nothing waits");
        assert!(s.is_empty());
    }

    /// An event scheduled while another is dispatched takes the dispatched one's place in the
    /// heap; one that schedules nothing is removed by the next pop. Either way events come out
    /// in time order and the count is right.
    #[test]
    fn events_scheduled_while_dispatching_come_out_in_order() {
        let mut s: Scheduler<u32> = Scheduler::new();
        for i in 0..20u32 {
            s.schedule_exact((i * 7 % 20) as f64, i);
        }
        let (mut last, mut dispatched, mut scheduled) = (-1.0, 0, 20);
        while let Some((_, e)) = s.pop() {
            assert!(s.now_exact() >= last, "time went backwards");
            last = s.now_exact();
            dispatched += 1;
            if dispatched < 200 {
                for k in 0..e % 3 {
                    s.schedule_exact(last + (e * 3 + k) as f64 % 11.0, e + k + 1);
                    scheduled += 1;
                }
            }
            assert_eq!(s.len(), scheduled - dispatched);
        }
        assert!(dispatched > 100 && s.is_empty());
    }

    /// Against a sorted list, under a workload that often schedules the next event (it waits
    /// beside the heap), pushes some events after one reserved later (as a link pushes a
    /// release it reserved before; the later one may be displaced from beside the heap), and
    /// now and then declines the next event.
    #[test]
    fn events_due_before_the_heap_come_out_in_order() {
        type Model = std::collections::BTreeSet<(u64, u64)>; // (time's bits, insertion number)
        fn push(s: &mut Scheduler<u64>, model: &mut Model, at: f64, seq: u64) -> bool {
            let before = s.front.map(|(k, _)| k);
            s.push_reserved(at, seq, seq);
            model.insert((at.to_bits(), seq));
            before.is_some() && s.front.map(|(k, _)| k) != before // displaced it
        }
        let mut rng = crate::Rng::stream(1, "scheduler");
        let mut next = move |n: u64| rng.next_u64() % n;
        let (mut s, mut model) = (Scheduler::new(), Model::new());
        for i in 0..8 {
            let seq = s.reserve();
            push(&mut s, &mut model, i as f64, seq);
        }
        let (mut from_front, mut displaced, mut declined) = (0, 0, 0);
        for _ in 0..50_000 {
            if next(10) == 0 {
                declined += s.front.is_some() as u32;
                assert!(s.pop_if(|_, _| false).is_none());
            }
            from_front += s.front.is_some() as u32;
            let (_, e) = s.pop().expect("every event schedules more on average");
            assert_eq!(model.pop_first().map(|(_, seq)| seq), Some(e));
            let now = s.now_exact();
            let at = |pick: u64, fine: u64| now + [0.0, 0.0, 1e-3 * (1 + fine) as f64, 3.0][pick as usize];
            // about one event per event while the queue holds more than 32
            for _ in 0..if model.len() > 32 { next(2) } else { 1 + next(2) } {
                let (first, second) = (s.reserve(), s.reserve());
                let (a, b) = (at(next(4), next(1000)), at(next(4), next(1000)));
                let late = next(2) == 0;
                if late {
                    displaced += push(&mut s, &mut model, b, second) as u32;
                }
                displaced += push(&mut s, &mut model, a, first) as u32;
                if !late {
                    displaced += push(&mut s, &mut model, b, second) as u32;
                }
            }
            assert_eq!(s.len(), model.len());
        }
        assert!(from_front > 5_000 && displaced > 200 && declined > 500, "{from_front} {displaced} {declined}");
    }

    /// Events and timers (near and far) together, against a model that pushes every arming
    /// and skips stale events: the same live events come out at the same times in the same
    /// order, whichever heap holds them, including events dispatched on the spot; a declined
    /// pop changes nothing, and the count of waiting events stays exact.
    #[test]
    fn timers_and_events_come_out_in_one_order() {
        #[derive(Clone, Copy, Debug, PartialEq)]
        enum Ev {
            Plain(u64),
            Timer(usize, u32),
        }
        // (time's bits, insertion number) -> the event; timers: (generation, pending) per timer
        let mut model = std::collections::BTreeMap::<(u64, u64), Ev>::new();
        let mut current = [(0u32, false); 6];
        let mut timers: Vec<Timer> =
            (0..6).map(|i| if i % 2 == 0 { Timer::near() } else { Timer::default() }).collect();
        let mut rng = crate::Rng::stream(2, "timers");
        let mut next = move |n: u64| rng.next_u64() % n;
        let mut s: Scheduler<Ev> = Scheduler::new();
        let (mut live, mut on_the_spot, mut from_timers, mut declined_timers) = (0, 0, 0, 0);
        s.schedule_exact(0.0, Ev::Plain(0));
        model.insert((0, 0), Ev::Plain(0));
        let mut waiting = 1; // events in the scheduler, counted as they go in and out
        while live < 20_000 {
            if next(8) == 0 {
                let before = (s.len(), s.now_exact(), s.now_seq);
                let mut timer_next = false;
                assert!(s
                    .pop_if(|exact, seq| {
                        timer_next = matches!(model.get(&(exact.to_bits(), seq)), Some(Ev::Timer(i, _)) if i % 2 == 1);
                        false
                    })
                    .is_none());
                assert_eq!((s.len(), s.now_exact(), s.now_seq), before, "a declined pop changes nothing");
                declined_timers += timer_next as u32;
            }
            let Some((_, ev)) = s.pop() else { break };
            waiting -= 1;
            let now = s.now_exact();
            if let Ev::Timer(i, gen) = ev {
                let queued = timers[i].queued;
                let live = s.fire(&mut timers[i], gen, |g| Ev::Timer(i, g));
                waiting += (timers[i].queued.is_some() && timers[i].queued != queued) as usize; // re-queued
                if !live {
                    assert_eq!(s.len(), waiting);
                    continue; // stale, or re-queued
                }
                from_timers += 1;
            }
            // the model's next live event is this one
            let expected = loop {
                let ((at, _), e) = model.pop_first().expect("the model has the event");
                match e {
                    Ev::Timer(i, g) if current[i] != (g, true) => continue,
                    Ev::Timer(i, _) => current[i].1 = false,
                    Ev::Plain(_) => {}
                }
                break (f64::from_bits(at), e);
            };
            assert_eq!((now, ev), expected);
            live += 1;
            // about one event per event while the queue holds more than 40
            for _ in 0..if model.len() > 40 { next(2) } else { 1 + next(3) } {
                let at = now + [0.0, 1e-3 * next(5) as f64, 1.0 + next(3) as f64][next(3) as usize];
                match next(4) {
                    0 | 1 => {
                        let seq = s.reserve();
                        s.push_reserved(at, seq, Ev::Plain(seq));
                        model.insert((at.to_bits(), seq), Ev::Plain(seq));
                        waiting += 1;
                    }
                    2 => {
                        let i = next(6) as usize;
                        let (seq, queued) = (s.next_seq, timers[i].queued);
                        s.arm(&mut timers[i], at, |g| Ev::Timer(i, g));
                        waiting += (timers[i].queued != queued) as usize; // pushed an event
                        current[i] = (current[i].0.wrapping_add(1), true);
                        model.insert((at.to_bits(), seq), Ev::Timer(i, current[i].0));
                    }
                    _ => {
                        let i = next(6) as usize;
                        timers[i].cancel();
                        current[i] = (current[i].0.wrapping_add(1), false);
                    }
                }
            }
            if next(4) == 0 {
                // the event's last act: something due now, dispatched on the spot if nothing is due first
                // (the model also holds the stale armings: the scheduler holds some of them)
                let seq = s.reserve();
                let before = || model.range(..(now.to_bits(), seq)).map(|(_, e)| *e);
                let live_before = before().any(|e| !matches!(e, Ev::Timer(i, g) if current[i] != (g, true)));
                let spot = s.dispatch_if_next(now, seq);
                assert!(!(spot && live_before), "dispatched on the spot with an event due first");
                assert!(spot || before().next().is_some(), "not dispatched with nothing due first");
                on_the_spot += spot as u32;
            }
            assert_eq!(s.len(), waiting);
        }
        assert!(
            live == 20_000 && from_timers > 2_000 && on_the_spot > 500 && declined_timers > 100,
            "{live} {from_timers} {on_the_spot} {declined_timers}"
        );
    }

    #[test]
    fn a_timer_rearmed_later_keeps_one_event_and_its_place() {
        // Eager: every arming pushes, stale events are skipped. Lazy: one event per timer.
        // Both must dispatch the same events in the same order.
        let mut s: Scheduler<(char, u32)> = Scheduler::new();
        let mut t = Timer::default();
        s.arm(&mut t, 1.0, |g| ('t', g));
        s.schedule_exact(0.5, ('x', 0));
        s.arm(&mut t, 2.0, |g| ('t', g)); // later: nothing pushed
        s.schedule_exact(2.0, ('y', 0)); // same time, inserted after the arming: comes after
        assert_eq!(s.len(), 3);
        let mut order = String::new();
        while let Some((_, (c, g))) = s.pop() {
            if c != 't' || s.fire(&mut t, g, |g| ('t', g)) {
                order.push(c);
            }
        }
        assert_eq!(order, "xty");
        assert_eq!(s.now_exact(), 2.0);
    }
}
