//! Delivery-rate estimation as Linux's tcp_rate.c (draft-cheng-iccrg-delivery-rate-estimation),
//! counted in segments.
//!
//! Each segment, when sent, remembers the connection's delivered count and the time it last
//! grew (`TxState`). When an ACK delivers segments, the newest of them (the last sent) gives
//! the sample: the segments delivered since it was sent, over the longer of its send phase
//! (from the send of the segment whose delivery started the phase to its own send) and its ACK
//! phase (from the delivery its state remembers to now). The longer of the two keeps ACK
//! compression from overestimating the rate; a span below min_RTT is discarded, as Linux
//! does. A sample taken while the application, not the network, limited sending is marked
//! app-limited; the marking lasts until the data in flight when the application fell short
//! (`delivered + in_flight`) has been delivered.

pub use tcplab_cc::RateSample;

/// What a segment remembers from its (last) send (Linux's `tcp_skb_cb.tx`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TxState {
    pub seq: i64,
    pub sent_time: f64,
    /// The connection's delivered count and the time it last grew, at the send.
    pub delivered: u64,
    pub delivered_time: f64,
    /// The send time of the segment whose delivery started this send phase.
    pub first_tx_time: f64,
    pub is_app_limited: bool,
    /// This send was a retransmission: the segment was ever retransmitted (Linux's
    /// `TCPCB_EVER_RETRANS`), and Karn's rule takes no RTT sample from it. The sender sets it.
    pub retransmitted: bool,
}

/// The newest segment delivered by the ACK being processed.
#[derive(Debug, Clone, Copy)]
struct Newest {
    tx: TxState,
    send_interval: f64,
}

#[derive(Debug, Clone, Default)]
pub struct RateEstimator {
    /// Segments delivered so far (Linux's `tp->delivered`), and when the count last grew.
    delivered: u64,
    delivered_time: f64,
    first_tx_time: f64,
    /// Samples are app-limited until `delivered` passes this (Linux's `tp->app_limited`).
    app_limited_until: Option<u64>,
    /// This ACK's deliveries so far, and the newest of them.
    acked_sacked: u64,
    newest: Option<Newest>,
}

impl RateEstimator {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    pub fn is_app_limited(&self) -> bool {
        self.app_limited_until.is_some()
    }

    /// Segment `seq` leaves at `now` with `in_flight` segments already out; the caller keeps
    /// the state until the segment is delivered. Sending into an empty network starts a new
    /// phase, so that idle time is not counted (tcp_rate_skb_sent).
    pub fn on_sent(&mut self, now: f64, seq: i64, in_flight: u64) -> TxState {
        if in_flight == 0 {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        TxState {
            seq,
            sent_time: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            is_app_limited: self.is_app_limited(),
            retransmitted: false,
        }
    }

    /// A segment newly acknowledged or SACKed by the ACK being processed (each segment once;
    /// tcp_rate_skb_delivered). The last sent of them gives the sample, and its send time
    /// starts the next send phase.
    pub fn on_delivered(&mut self, tx: &TxState) {
        self.delivered += 1;
        self.acked_sacked += 1;
        let newer = self
            .newest
            .is_none_or(|n| tx.sent_time > n.tx.sent_time || (tx.sent_time == n.tx.sent_time && tx.seq > n.tx.seq));
        if newer {
            self.newest = Some(Newest { tx: *tx, send_interval: tx.sent_time - tx.first_tx_time });
            self.first_tx_time = tx.sent_time;
        }
    }

    /// The ACK's sample, after its `on_delivered` calls (tcp_rate_gen): `acked_sacked` segments
    /// it delivered, `losses` it revealed, `prior_in_flight` before it, its `rtt` sample, and
    /// the connection's `min_rtt` (infinite before any sample: then nothing is valid).
    pub fn on_ack(
        &mut self,
        now: f64,
        losses: u64,
        prior_in_flight: u64,
        rtt: Option<f64>,
        min_rtt: f64,
    ) -> RateSample {
        if self.app_limited_until.is_some_and(|until| self.delivered > until) {
            self.app_limited_until = None;
        }
        let acked_sacked = std::mem::take(&mut self.acked_sacked);
        let mut rs = RateSample { acked_sacked, losses, prior_in_flight, rtt, ..RateSample::default() };
        let Some(Newest { tx, send_interval }) = self.newest.take() else {
            return rs;
        };
        self.delivered_time = now;
        rs.prior_delivered = tx.delivered;
        rs.is_app_limited = tx.is_app_limited;
        rs.delivered = self.delivered - tx.delivered;
        let interval = send_interval.max(now - tx.delivered_time);
        rs.interval = (interval >= min_rtt).then_some(interval);
        rs
    }

    /// The controller asks that samples be marked app-limited until the delivered count passes
    /// `until` (BBR's ProbeRTT, which sets Linux's `tp->app_limited` so).
    pub fn mark_app_limited_until(&mut self, until: u64) {
        self.app_limited_until = Some(until.max(1));
    }

    /// tcp_rate_check_app_limited: with less than a segment left to send, room in cwnd, and
    /// every lost segment retransmitted, the application limits sending; samples stay marked
    /// until what is in flight now has been delivered.
    pub fn check_app_limited(&mut self, has_unsent: bool, in_flight: u64, cwnd: u64, lost_unretransmitted: u64) {
        if !has_unsent && in_flight < cwnd && lost_unretransmitted == 0 {
            self.app_limited_until = Some((self.delivered + in_flight).max(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends and ACKs in eighths of a second (exact in binary). 0..3 go at 0.
    ///
    /// - 1/8: ACK of 0, 1. Newest 1: delivered 2 - 0 over max(send 0 - 0, ack 1/8 - 0) =
    ///   1/8: 16 segments/s. 4 and 5 go (state: delivered 2 at 1/8, phase from 0).
    /// - 2/8: ACK of 2, 3. Newest 3: 4 - 0 over max(0, 2/8) = 1/4: 16/s. Nothing left to
    ///   send with 2 in flight: app-limited until delivered passes 4 + 2 = 6.
    /// - 5/16: the application hands over 6, sent app-limited (delivered 4 at 2/8, phase from
    ///   0, the send of 3).
    /// - 3/8: ACK of 4, 5. Newest 5: 6 - 2 over max(1/8 - 0, 3/8 - 1/8) = 1/4: 16/s, not
    ///   app-limited (sent before the marking); delivered 6 does not pass 6.
    /// - 4/8: ACK of 6. Newest 6: 7 - 4 over max(5/16 - 0, 4/8 - 2/8) = 5/16: 9.6/s,
    ///   app-limited. Delivered 7 passes 6: the marking ends, and 7, sent into an empty
    ///   network at 4/8, starts a new phase and is not app-limited.
    #[test]
    fn rate_samples_over_sends_and_acks_with_an_app_limited_stretch() {
        let mut r = RateEstimator::new();
        let mut tx: Vec<TxState> = (0..4).map(|s| r.on_sent(0.0, s, s as u64)).collect();
        let ack = |r: &mut RateEstimator, tx: &[TxState], now: f64, segs: &[usize], in_flight: u64| {
            for &s in segs {
                r.on_delivered(&tx[s]);
            }
            r.on_ack(now, 0, in_flight, None, 0.125)
        };

        let rs = ack(&mut r, &tx, 0.125, &[0, 1], 4);
        assert_eq!((rs.delivered, rs.interval, rs.prior_delivered, rs.acked_sacked), (2, Some(0.125), 0, 2));
        assert_eq!(rs.rate(), Some(16.0));
        tx.extend((4..6).map(|s| r.on_sent(0.125, s, s as u64 - 2)));
        assert_eq!((tx[4].delivered, tx[4].delivered_time, tx[4].first_tx_time), (2, 0.125, 0.0));

        let rs = ack(&mut r, &tx, 0.25, &[2, 3], 4);
        assert_eq!((rs.delivered, rs.interval, rs.rate()), (4, Some(0.25), Some(16.0)));
        r.check_app_limited(false, 2, 10, 0);
        assert!(r.is_app_limited());

        tx.push(r.on_sent(0.3125, 6, 2));
        assert!(tx[6].is_app_limited);
        let rs = ack(&mut r, &tx, 0.375, &[4, 5], 3);
        assert_eq!((rs.delivered, rs.interval, rs.is_app_limited), (4, Some(0.25), false));
        assert!(r.is_app_limited(), "delivered 6 has not passed 6");

        let rs = ack(&mut r, &tx, 0.5, &[6], 1);
        assert_eq!((rs.delivered, rs.interval, rs.is_app_limited), (3, Some(0.3125), true));
        assert_eq!(rs.rate(), Some(9.6));
        assert!(!r.is_app_limited());
        let next = r.on_sent(0.5, 7, 0);
        assert_eq!((next.first_tx_time, next.delivered_time, next.is_app_limited), (0.5, 0.5, false));
    }

    /// An interval below min_RTT is discarded (ACK compression would inflate the rate): the
    /// first ACK above spans 1/8 s, under a min_RTT of 0.2 s. The counts are still given; an
    /// ACK that delivers nothing gives no sample.
    #[test]
    fn a_sample_shorter_than_min_rtt_is_not_valid() {
        let mut r = RateEstimator::new();
        let tx: Vec<TxState> = (0..2).map(|s| r.on_sent(0.0, s, s as u64)).collect();
        r.on_delivered(&tx[0]);
        r.on_delivered(&tx[1]);
        let rs = r.on_ack(0.125, 0, 2, Some(0.125), 0.2);
        assert_eq!((rs.delivered, rs.interval, rs.rate(), rs.rtt), (2, None, None, Some(0.125)));
        let rs = r.on_ack(0.25, 1, 0, None, 0.2);
        assert_eq!((rs.acked_sacked, rs.losses, rs.interval), (0, 1, None));
    }
}
