//! Whether the congestion window limits the sender, as Linux decides it (tcp_output.c's
//! `tcp_cwnd_validate`, tcp.h's `tcp_is_cwnd_limited`), counted in segments.
//!
//! A window grows only while it is used (RFC 7661's concern; Linux's `cong_avoid` returns
//! early otherwise). Linux does not ask whether the last send filled the window, but whether
//! any send in the last window did: each round of sending that sent new data or stopped at the
//! window updates a record that lasts until the cumulative ACK passes the highest segment sent
//! when it was made (`cwnd_usage_seq`). A send that filled the window marks the record
//! cwnd-limited; otherwise the record keeps the most segments outstanding at a send
//! (`max_packets_out`). In slow start the window counts as used while it is below twice that
//! most, so that slow start may double what the flow actually put in flight.

#[derive(Debug, Clone, Default)]
pub struct CwndUse {
    /// A send in the record's window filled the congestion window (`is_cwnd_limited`).
    limited: bool,
    /// The most segments outstanding after a send in the record's window (`max_packets_out`).
    max_outstanding: u64,
    /// The record lasts until the cumulative ACK reaches this segment (`cwnd_usage_seq`).
    window_end: i64,
}

impl CwndUse {
    /// A round of sending (Linux's `tcp_write_xmit`) sent new data or stopped with the window
    /// full (`limited`: in flight at least cwnd), leaving `snd_una`..`snd_nxt` outstanding.
    pub fn on_write(&mut self, limited: bool, snd_una: i64, snd_nxt: i64) {
        let outstanding = (snd_nxt - snd_una).max(0) as u64;
        if snd_una >= self.window_end || limited || (!self.limited && outstanding > self.max_outstanding) {
            self.limited = limited;
            self.max_outstanding = outstanding;
            self.window_end = snd_nxt;
        }
    }

    /// `tcp_is_cwnd_limited` for a window of `cwnd` segments and a threshold `ssthresh`.
    pub fn is_limited(&self, cwnd: f64, ssthresh: f64) -> bool {
        self.limited || (cwnd < ssthresh && cwnd < 2.0 * self.max_outstanding as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A send fills a window of 10 with 0..9 (snd_nxt 10): cwnd-limited for the window. A later
    /// round that leaves 8 outstanding (2..9, the window not full) keeps the mark while the
    /// cumulative ACK is below 10; the round at snd_una 10 with 20..10 = 5 outstanding starts
    /// a new record: not limited, max 5.
    #[test]
    fn a_full_window_counts_until_the_window_is_acknowledged() {
        let mut u = CwndUse::default();
        u.on_write(true, 0, 10);
        u.on_write(false, 2, 10);
        assert!(u.is_limited(10.0, 5.0), "congestion avoidance, filled at 0..9");
        u.on_write(false, 10, 15);
        assert!(!u.is_limited(10.0, 5.0));
        assert_eq!((u.max_outstanding, u.window_end), (5, 15));
    }

    /// Slow start (ssthresh infinite) with an application that keeps 4 segments out: cwnd 7
    /// < 2 x 4 = 8 counts as used, cwnd 8 does not (8 < 8 fails). In congestion avoidance
    /// (cwnd 7, ssthresh 5) the same record does not count: only a full window does.
    #[test]
    fn slow_start_may_grow_to_twice_the_flight() {
        let mut u = CwndUse::default();
        u.on_write(false, 0, 4);
        assert!(u.is_limited(7.0, f64::INFINITY));
        assert!(!u.is_limited(8.0, f64::INFINITY));
        assert!(!u.is_limited(7.0, 5.0));
    }

    /// Within a record, a larger flight raises the maximum while the record is not limited
    /// (4, then 6 outstanding: max 6) and a smaller one does not lower it (3: max stays 6).
    #[test]
    fn the_record_keeps_the_largest_flight_of_its_window() {
        let mut u = CwndUse::default();
        u.on_write(false, 0, 4);
        u.on_write(false, 1, 7);
        u.on_write(false, 3, 6);
        assert_eq!((u.max_outstanding, u.window_end), (6, 7));
    }
}
