//! RTT samples as Linux takes them from one ACK (tcp_input.c's `tcp_sacktag_one`,
//! `tcp_clean_rtx_queue` and `tcp_ack_update_rtt`), counted in segments.
//!
//! Linux times segments by their own send times and uses the timestamp echo only as a fallback
//! ("prefer RTT measured from ACK's timing to TS-ECR"), timestamps on or off:
//!
//! - the segments the ACK cumulatively acknowledges, never retransmitted and not SACKed before,
//!   give `seq_rtt` from the first of them (the earliest sent) and `ca_rtt` from the last (the
//!   latest sent); if any segment it cumulatively acknowledges was ever retransmitted, Karn's
//!   rule (RFC 6298 §3) takes neither;
//! - the segments it newly SACKs, never retransmitted, give `sack_rtt` from the first and
//!   replace `ca_rtt` by the last;
//! - SRTT and the RTO take `seq_rtt`, else `sack_rtt` (a SACK-only ACK is a sample too), else,
//!   for an ACK that advanced the cumulative ACK, now less its timestamp echo (RFC 7323 §4.1),
//!   which then is `ca_rtt` too;
//! - the controller and the rate sample take `ca_rtt` (Linux's `rs->rtt_us`: CUBIC's delay_min
//!   and HyStart, BBR's min_rtt).
//!
//! Not modelled: the echo's millisecond granularity (Linux rounds a 0 ms echo up to 1 ms);
//! tcplab's echo is the exact send time.

/// The send times of the first and last segments of one kind an ACK delivered.
#[derive(Debug, Clone, Copy)]
struct Span {
    first: f64,
    last: f64,
}

impl Span {
    fn extend(span: &mut Option<Span>, sent: f64) {
        match span {
            Some(s) => s.last = sent,
            None => *span = Some(Span { first: sent, last: sent }),
        }
    }
}

/// What one ACK's segments tell of their send times; fed in ascending sequence order.
#[derive(Debug, Clone, Copy, Default)]
pub struct AckTiming {
    /// Linux's `first_ackt` and `last_ackt`.
    acked: Option<Span>,
    /// Linux's `first_sackt` and `last_sackt`.
    sacked: Option<Span>,
    /// Linux's `FLAG_RETRANS_DATA_ACKED`.
    retransmission_acked: bool,
}

/// One ACK's RTT samples, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RttSamples {
    /// For SRTT and the RTO (Linux's `seq_rtt_us` after its fallbacks).
    pub srtt: Option<f64>,
    /// For the controller and the rate sample (`ca_rtt_us`).
    pub ca: Option<f64>,
}

impl AckTiming {
    /// A segment the ACK cumulatively acknowledges, sent (last) at `sent`; `retransmitted` if
    /// it was ever, `sacked_before` if an earlier ACK SACKed it.
    pub fn on_acked(&mut self, sent: f64, retransmitted: bool, sacked_before: bool) {
        if retransmitted {
            self.retransmission_acked = true;
        } else if !sacked_before {
            Span::extend(&mut self.acked, sent);
        }
    }

    /// A segment the ACK newly SACKs.
    pub fn on_sacked(&mut self, sent: f64, retransmitted: bool) {
        if !retransmitted {
            Span::extend(&mut self.sacked, sent);
        }
    }

    /// The samples at `now`: `advanced` if the ACK moved the cumulative ACK, `ts_echo` its
    /// timestamp echo.
    pub fn samples(&self, now: f64, advanced: bool, ts_echo: Option<f64>) -> RttSamples {
        let acked = self.acked.filter(|_| !self.retransmission_acked);
        let mut srtt = acked.map(|s| now - s.first);
        let mut ca = acked.map(|s| now - s.last);
        if let Some(s) = self.sacked {
            srtt = srtt.or(Some(now - s.first));
            ca = Some(now - s.last);
        }
        if srtt.is_none() && advanced {
            if let Some(echo) = ts_echo {
                srtt = Some(now - echo);
                ca = srtt;
            }
        }
        RttSamples { srtt, ca }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A delayed ACK at 0.15 of 0 (sent at 0.0) and 1 (sent at 0.01): SRTT from the first,
    /// 0.15 - 0 = 0.15, the controller from the last, 0.15 - 0.01 = 0.14. The echo (0.0 here)
    /// is not used.
    #[test]
    fn the_first_segment_times_srtt_and_the_last_the_controller() {
        let mut t = AckTiming::default();
        t.on_acked(0.0, false, false);
        t.on_acked(0.01, false, false);
        let s = t.samples(0.15, true, Some(-1.0));
        assert_eq!(s, RttSamples { srtt: Some(0.15), ca: Some(0.15 - 0.01) });
    }

    /// A SACK-only ACK at 0.2 of 3 and 4 (sent at 0.03 and 0.04): SRTT 0.2 - 0.03 = 0.17,
    /// the controller 0.2 - 0.04 = 0.16. The echo gives nothing without a cumulative advance.
    #[test]
    fn a_sack_alone_is_a_sample() {
        let mut t = AckTiming::default();
        t.on_sacked(0.03, false);
        t.on_sacked(0.04, false);
        assert_eq!(t.samples(0.2, false, Some(0.0)), RttSamples { srtt: Some(0.2 - 0.03), ca: Some(0.2 - 0.04) });
    }

    /// After recovery: the ACK at 0.5 covers 0 (retransmitted at 0.3), 1 (SACKed before) and 2
    /// (sent at 0.02, never SACKed): Karn's rule takes nothing from them. It also newly SACKs
    /// 5 (sent at 0.4): SRTT and the controller take 0.5 - 0.4 = 0.1. Without that SACK, the
    /// echo of the retransmission (0.3) gives 0.5 - 0.3 = 0.2 to both.
    #[test]
    fn a_retransmission_acknowledged_leaves_the_sack_then_the_echo() {
        let mut t = AckTiming::default();
        t.on_acked(0.3, true, false);
        t.on_acked(0.01, false, true);
        t.on_acked(0.02, false, false);
        assert_eq!(t.samples(0.5, true, Some(0.3)), RttSamples { srtt: Some(0.5 - 0.3), ca: Some(0.5 - 0.3) });
        t.on_sacked(0.4, false);
        let s = t.samples(0.5, true, Some(0.3));
        assert!((s.srtt.unwrap() - 0.1).abs() < 1e-12 && s.srtt == s.ca);
    }

    /// A cumulative and a SACK sample together: 0 (sent at 0.0) acknowledged, 4 (at 0.04) and
    /// 6 (at 0.06) SACKed, at 0.2: SRTT keeps the cumulative 0.2 - 0 = 0.2, the controller the
    /// last SACKed, 0.2 - 0.06 = 0.14. A retransmitted SACKed segment gives nothing; a
    /// segment SACKed before and now acknowledged neither.
    #[test]
    fn the_last_sacked_segment_times_the_controller() {
        let mut t = AckTiming::default();
        t.on_acked(0.0, false, false);
        t.on_acked(0.01, false, true);
        t.on_sacked(0.04, false);
        t.on_sacked(0.06, false);
        t.on_sacked(0.1, true);
        assert_eq!(t.samples(0.2, true, None), RttSamples { srtt: Some(0.2), ca: Some(0.2 - 0.06) });
        assert_eq!(AckTiming::default().samples(0.2, false, Some(0.0)), RttSamples::default());
    }
}
