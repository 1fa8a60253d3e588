//! How late events ran against the wall clock in emulation: the maximum, the 99th percentile
//! and the count late by more than 1 ms, from a histogram of 1 µs buckets (no sample kept).

use serde::Serialize;

/// Buckets of 1 µs up to 100 ms; later events are counted past the last.
const BUCKETS: usize = 100_000;

/// A run whose events ran later than this at the 99th percentile, or any event later than
/// `MAX_BOUND_NS`, did not follow the scenario faithfully.
pub const P99_BOUND_NS: u64 = 1_000_000;
pub const MAX_BOUND_NS: u64 = 20_000_000;

pub struct Lateness {
    buckets: Vec<u32>,
    over: u64,
    count: u64,
    max_ns: u64,
    late_1ms: u64,
}

impl Default for Lateness {
    fn default() -> Lateness {
        Lateness { buckets: vec![0; BUCKETS], over: 0, count: 0, max_ns: 0, late_1ms: 0 }
    }
}

/// The figures a run reports.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub struct LatenessReport {
    pub events: u64,
    pub max_ms: f64,
    pub p99_ms: f64,
    pub late_over_1ms: u64,
    /// p99 within `P99_BOUND_NS` and the maximum within `MAX_BOUND_NS`.
    pub faithful: bool,
}

impl Lateness {
    /// An event ran `late_ns` nanoseconds after its time.
    pub fn record(&mut self, late_ns: u64) {
        let us = (late_ns / 1000) as usize;
        match self.buckets.get_mut(us) {
            Some(b) => *b += 1,
            None => self.over += 1,
        }
        self.count += 1;
        self.max_ns = self.max_ns.max(late_ns);
        self.late_1ms += (late_ns > 1_000_000) as u64;
    }

    /// The 99th percentile, in ns, to the bucket's upper edge (the maximum if it lies past the
    /// buckets); 0 without events.
    pub fn p99_ns(&self) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = self.count - self.count / 100; // the sample at 99% (from 1)
        let mut seen = 0u64;
        for (us, &n) in self.buckets.iter().enumerate() {
            seen += n as u64;
            if seen >= rank {
                return ((us as u64 + 1) * 1000).min(self.max_ns);
            }
        }
        self.max_ns
    }

    pub fn report(&self) -> LatenessReport {
        let p99 = self.p99_ns();
        LatenessReport {
            events: self.count,
            max_ms: self.max_ns as f64 / 1e6,
            p99_ms: p99 as f64 / 1e6,
            late_over_1ms: self.late_1ms,
            faithful: p99 <= P99_BOUND_NS && self.max_ns <= MAX_BOUND_NS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_events_is_faithful() {
        let r = Lateness::default().report();
        assert_eq!((r.events, r.p99_ms, r.max_ms, r.faithful), (0, 0.0, 0.0, true));
    }

    #[test]
    fn p99_max_and_the_count_late_by_a_millisecond() {
        let mut l = Lateness::default();
        for _ in 0..990 {
            l.record(20_500); // 20.5 µs
        }
        for _ in 0..9 {
            l.record(300_000);
        }
        l.record(2_500_000);
        let r = l.report();
        assert_eq!(r.events, 1000);
        // rank 990 of 1000 falls in the 20 µs bucket: its upper edge
        assert_eq!(l.p99_ns(), 21_000);
        assert_eq!(r.max_ms, 2.5);
        assert_eq!(r.late_over_1ms, 1);
        assert!(r.faithful);
    }

    #[test]
    fn a_p99_over_a_millisecond_or_a_long_stall_is_not_faithful() {
        let mut l = Lateness::default();
        for _ in 0..98 {
            l.record(10_000);
        }
        l.record(1_500_000);
        l.record(1_600_000);
        assert_eq!(l.p99_ns(), 1_501_000);
        assert!(!l.report().faithful);

        let mut l = Lateness::default();
        for _ in 0..1000 {
            l.record(1_000);
        }
        l.record(150_000_000); // past the buckets
        assert_eq!(l.p99_ns(), 2_000);
        assert_eq!(l.report().max_ms, 150.0);
        assert!(!l.report().faithful);
    }

    #[test]
    fn past_the_buckets_the_percentile_is_the_maximum() {
        let mut l = Lateness::default();
        l.record(200_000_000);
        assert_eq!(l.p99_ns(), 200_000_000);
    }
}
