//! The invariants of a run, checked while it runs (`--check`; tests run with it on):
//!
//! - time never goes backwards;
//! - no queue holds more than its limit;
//! - every TCP sender's cwnd and ssthresh are finite and not negative (ns-2's ECN reaction can
//!   close the window to 0 for a moment, and its traces show it), and what it has in flight is
//!   not negative;
//! - a TCP sink hands data to its application in order: its cumulative ACK never goes back,
//!   the bytes delivered grow only when it moves, and never beyond what those segments hold;
//! - at the end every packet is accounted for: each data packet a flow sent was delivered,
//!   dropped, or is still in the network (a frame the receiving radio took whose MAC ACK has not
//!   come back counts as delivered); each packet a link took in left it, was dropped, or
//!   waits in its queue; each packet that left reached the far end or is still on the wire.
//!
//! A violation does not stop the run: the first few are kept with what broke them, and the run
//! reports them all at its end.

use crate::metrics::TcpState;
use serde::Serialize;

/// Violations kept in full; the rest are counted.
const KEPT: usize = 20;

#[derive(Debug, Default, Serialize)]
pub struct CheckReport {
    /// How many violations there were.
    pub violations: u64,
    /// The first of them, each with the time and what broke.
    pub first: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Checks {
    pub report: CheckReport,
    last_time: f64,
    /// Per flow: the sink's cumulative ACK and the bytes its application had at the last look,
    /// and the bytes it had when the sink was last reset (it starts again from nothing).
    sinks: Vec<(i64, u64, u64)>,
}

impl Checks {
    pub fn new(flows: usize) -> Checks {
        Checks { sinks: vec![(-1, 0, 0); flows], ..Checks::default() }
    }

    pub fn fail(&mut self, now: f64, what: impl FnOnce() -> String) {
        self.report.violations += 1;
        if self.report.first.len() < KEPT {
            self.report.first.push(format!("at {now} s: {}", what()));
        }
    }

    pub fn ok(&self) -> bool {
        self.report.violations == 0
    }

    /// The clock moved to `now`.
    pub fn time(&mut self, now: f64) {
        if now < self.last_time {
            let last = self.last_time;
            self.fail(now, || format!("time went back from {last} s"));
        }
        self.last_time = now;
    }

    /// A TCP sender's state after it acted.
    pub fn sender(&mut self, now: f64, flow: &str, s: TcpState) {
        if !(s.cwnd.is_finite() && s.cwnd >= 0.0) {
            self.fail(now, || format!("flow {flow}: cwnd is {}", s.cwnd));
        }
        if !(s.ssthresh.is_finite() && s.ssthresh >= 0.0) {
            self.fail(now, || format!("flow {flow}: ssthresh is {}", s.ssthresh));
        }
        if s.in_flight < 0.0 {
            self.fail(now, || format!("flow {flow}: {} segments in flight", s.in_flight));
        }
    }

    /// A sink of flow `i` received a segment: its cumulative ACK is `seqno` and its application
    /// has `bytes` in all; no segment holds more than `segment` bytes.
    pub fn sink(&mut self, now: f64, i: usize, flow: &str, seqno: i64, bytes: u64, segment: u64) {
        let (last_seqno, last_bytes, before_reset) = self.sinks[i];
        if seqno < last_seqno {
            self.fail(now, || format!("flow {flow}: the sink's cumulative ACK went back from {last_seqno} to {seqno}"));
        }
        if bytes > last_bytes && seqno == last_seqno {
            self.fail(now, || {
                format!("flow {flow}: {} bytes handed over with no new in-order segment", bytes - last_bytes)
            });
        }
        if bytes - before_reset > (seqno + 1).max(0) as u64 * segment {
            self.fail(now, || format!("flow {flow}: {bytes} bytes delivered by segment {seqno} of {segment} bytes"));
        }
        self.sinks[i] = (seqno, bytes, before_reset);
    }

    /// Sink `i` was reset (the `reset_sink` action) with `bytes` handed over so far.
    pub fn sink_reset(&mut self, i: usize, bytes: u64) {
        self.sinks[i] = (-1, bytes, bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(cwnd: f64, ssthresh: f64, in_flight: f64) -> TcpState {
        TcpState { cwnd, ssthresh, in_flight, ..TcpState::default() }
    }

    #[test]
    fn each_broken_rule_is_reported_with_its_time() {
        let mut c = Checks::new(1);
        c.time(1.0);
        c.sender(1.0, "A", state(4.0, 20.0, 3.0));
        c.sink(1.0, 0, "A", 2, 3000, 1000);
        assert!(c.ok());
        c.time(0.5);
        c.sender(2.0, "A", state(f64::NAN, 20.0, 3.0));
        c.sender(2.0, "A", state(0.0, -1.0, -2.0)); // a closed window is allowed
        c.sink(2.0, 0, "A", 1, 3000, 1000); // the cumulative ACK went back (and 3000 B is too many)
        c.sink(3.0, 0, "A", 1, 3500, 1000); // bytes with no new segment (and too many)
        c.sink(4.0, 0, "A", 2, 4000, 1000); // more bytes than three segments hold
        let r = &c.report;
        assert_eq!(r.violations, 9, "{:#?}", r.first);
        assert!(r.first[0].starts_with("at 0.5 s: time went back from 1 s"));
        assert!(r.first[1].contains("cwnd is NaN") && r.first[3].contains("-2 segments in flight"));
        assert!(
            r.first[4].contains("went back from 2 to 1") && r.first[6].contains("500 bytes handed over with no new")
        );
        assert!(r.first[8].contains("4000 bytes delivered by segment 2"));
    }

    /// A reset sink's cumulative ACK starts again at -1 and counts bytes from then on.
    #[test]
    fn a_reset_sink_starts_its_books_again() {
        let mut c = Checks::new(1);
        c.sink(1.0, 0, "A", 9, 10_000, 1000);
        c.sink_reset(0, 10_000);
        c.sink(1.1, 0, "A", -1, 10_000, 1000);
        c.sink(1.2, 0, "A", 1, 12_000, 1000);
        assert!(c.report.first.is_empty(), "{:?}", c.report.first);
        c.sink(1.3, 0, "A", 2, 14_000, 1000);
        assert!(c.report.first[0].contains("14000 bytes delivered by segment 2"));
    }

    #[test]
    fn only_the_first_violations_are_kept() {
        let mut c = Checks::new(0);
        for i in 0..100 {
            c.fail(i as f64, || format!("broken {i}"));
        }
        assert_eq!((c.report.violations, c.report.first.len()), (100, KEPT));
    }
}
