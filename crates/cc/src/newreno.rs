//! RFC 5681 window growth and RFC 5681/6582 reductions: the loss-based baseline of the rfc
//! profile (the recovery itself, fast retransmit and partial ACKs, is the sender's).

use crate::{reno_reaction, Ack, CongestionControl, Signal};

#[derive(Debug, Clone, PartialEq)]
pub struct NewReno {
    cwnd: f64,
    ssthresh: f64,
}

impl NewReno {
    /// `initial` is the initial window; ssthresh starts "arbitrarily high" (RFC 5681 §3.1).
    pub fn new(initial: f64) -> NewReno {
        NewReno { cwnd: initial, ssthresh: f64::INFINITY }
    }
}

/// One ACK's growth: slow start adds at most one segment per ACK (RFC 5681's min(N, SMSS)),
/// congestion avoidance about one segment per window.
pub fn grow(cwnd: f64, ssthresh: f64, acked: u64) -> f64 {
    if acked == 0 {
        cwnd
    } else if cwnd < ssthresh {
        cwnd + 1.0
    } else {
        cwnd + acked as f64 / cwnd
    }
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, ack: &Ack) {
        self.cwnd = grow(self.cwnd, self.ssthresh, ack.acked);
    }

    fn on_congestion(&mut self, _now: f64, signal: Signal, flight: f64) {
        (self.cwnd, self.ssthresh) = reno_reaction(signal, flight);
    }

    fn cwnd(&self) -> f64 {
        self.cwnd
    }

    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked: u64) -> Ack {
        Ack { now: 1.0, acked, snd_una: 10, snd_nxt: 20, rtt: Some(0.1) }
    }

    #[test]
    fn slow_start_adds_one_segment_per_ack_even_for_a_delayed_ack() {
        let mut c = NewReno::new(2.0);
        c.on_ack(&ack(1));
        assert_eq!(c.cwnd(), 3.0);
        c.on_ack(&ack(2));
        assert_eq!(c.cwnd(), 4.0);
        c.on_ack(&ack(0));
        assert_eq!(c.cwnd(), 4.0);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window() {
        let mut c = NewReno::new(10.0);
        c.on_congestion(0.0, Signal::Loss, 20.0);
        assert_eq!((c.cwnd(), c.ssthresh()), (10.0, 10.0));
        c.on_ack(&ack(1));
        assert_eq!(c.cwnd(), 10.1);
        c.on_ack(&ack(2));
        assert_eq!(c.cwnd(), 10.1 + 2.0 / 10.1, "a delayed ACK counts the segments it covers");
    }

    #[test]
    fn reductions_follow_rfc_5681() {
        let mut c = NewReno::new(10.0);
        c.on_congestion(0.0, Signal::Loss, 3.0);
        assert_eq!((c.cwnd(), c.ssthresh()), (2.0, 2.0), "never below two segments");
        c.on_congestion(0.0, Signal::Timeout, 16.0);
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 8.0));
        c.on_congestion(0.0, Signal::Ecn, 12.0);
        assert_eq!((c.cwnd(), c.ssthresh()), (6.0, 6.0));
    }
}
