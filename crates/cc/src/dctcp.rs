//! DCTCP (RFC 8257) as Linux's `tcp_dctcp` computes it: once per observation window (one RTT of
//! delivered data) the fraction F of segments delivered with an ECN echo updates
//!
//! ```text
//! alpha ← (1 − g)·alpha + g·F,  g = 1/16
//! ```
//!
//! and an ECN echo, at most once per window (the sender's CWR), cuts cwnd to cwnd·(1 − alpha/2).
//! Loss is Reno's: half the window. The window grows as Reno's.
//!
//! Linux keeps alpha in 1/1024 units and so does this: the decay `alpha >> 4` rounds down, and
//! once alpha falls below 16 a window without marks clears it to 0 (the kernel's
//! `min_not_zero(alpha, alpha >> g)`). alpha starts at 1 (`dctcp_alpha_on_init` = 1024): the
//! first mark halves the window, as Reno would, until alpha has learnt the path.

use crate::reno::{loss_based_event, may_grow, reno_ssthresh, signal_as_event, Window};
use crate::{Ack, AckSample, CongestionControl, Event, Flight, Signal};
use serde::Serialize;

/// alpha = 1, in Linux's units.
pub const MAX_ALPHA: u32 = 1024;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DctcpConfig {
    /// g = 1/2^shift_g (Linux's `dctcp_shift_g`, RFC 8257 §4.2's 1/16).
    pub shift_g: u32,
    /// alpha's first value, in 1/1024 (Linux's `dctcp_alpha_on_init`).
    pub alpha_on_init: u32,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { shift_g: 4, alpha_on_init: MAX_ALPHA }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Dctcp {
    cfg: DctcpConfig,
    w: Window,
    /// alpha in 1/1024.
    alpha: u32,
    /// The observation window ends when the cumulative ACK reaches this segment.
    next_seq: u64,
    /// Segments delivered, and delivered with an echo, since the window began.
    delivered: u64,
    delivered_ce: u64,
    /// The legacy sender announces an echo before the ACK's `on_ack`.
    echo_pending: bool,
}

impl Dctcp {
    pub fn new(cfg: DctcpConfig, initial: f64) -> Dctcp {
        let alpha = cfg.alpha_on_init.min(MAX_ALPHA);
        Dctcp { cfg, w: Window::new(initial), alpha, next_seq: 0, delivered: 0, delivered_ce: 0, echo_pending: false }
    }

    /// The estimate of the marked fraction, in [0, 1].
    pub fn alpha(&self) -> f64 {
        self.alpha as f64 / MAX_ALPHA as f64
    }

    /// Counts one ACK's deliveries; when the cumulative ACK ends the window, folds its marked
    /// fraction into alpha and starts the next window at `snd_nxt` (Linux's
    /// `dctcp_update_alpha`).
    fn observe(&mut self, snd_una: u64, snd_nxt: u64, delivered: u64, ece_delivered: u64) {
        self.delivered += delivered;
        self.delivered_ce += ece_delivered;
        if snd_una < self.next_seq {
            return;
        }
        let g = self.cfg.shift_g;
        let decay = self.alpha >> g;
        let mut alpha = self.alpha - if decay == 0 { self.alpha } else { decay };
        if self.delivered_ce > 0 {
            // g·F in 1/1024: (ce << (10 - g)) / delivered
            let gf = (self.delivered_ce << (10 - g)) / self.delivered.max(1);
            alpha = (alpha + gf as u32).min(MAX_ALPHA);
        }
        self.alpha = alpha;
        self.next_seq = snd_nxt;
        self.delivered = 0;
        self.delivered_ce = 0;
    }

    /// `dctcp_ssthresh`: cwnd·(1 − alpha/2), at least two segments.
    fn ecn_ssthresh(&self) -> u64 {
        let cut = (self.w.cwnd * self.alpha as u64) >> 11;
        (self.w.cwnd - cut).max(2)
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, ack: &Ack) {
        let ce = if std::mem::take(&mut self.echo_pending) { ack.acked } else { 0 };
        self.observe(ack.snd_una, ack.snd_nxt, ack.acked, ce);
        self.w.reno_grow(ack.acked);
    }

    fn on_ecn_echo(&mut self, _now: f64) {
        self.echo_pending = true;
    }

    fn on_congestion(&mut self, now: f64, signal: Signal, flight: f64) {
        let (event, flight) = signal_as_event(signal, flight);
        self.on_event(now, event, flight);
    }

    fn cwnd(&self) -> f64 {
        self.w.cwnd()
    }

    fn ssthresh(&self) -> f64 {
        self.w.ssthresh()
    }

    fn on_ack_sample(&mut self, s: &AckSample) {
        self.observe(s.snd_una, s.snd_nxt, s.rate.acked_sacked, s.ece_delivered);
    }

    fn on_event(&mut self, _now: f64, event: Event, flight: Flight) {
        // Linux computes the ECN cut for every reduction, then a loss (entering recovery, or
        // CA_EVENT_LOSS on a timeout) overrides it with Reno's half.
        if event == Event::EnterCwr {
            let s = self.ecn_ssthresh();
            self.w.reduce_to(s, false);
        } else {
            loss_based_event(&mut self.w, event, flight, |w| reno_ssthresh(w.cwnd));
        }
    }

    fn cong_control(&mut self, s: &AckSample) {
        if may_grow(s) {
            self.w.reno_grow(s.rate.acked_sacked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reno::delivering;

    /// One whole window: `n` segments delivered, `ce` of them with an echo, the cumulative ACK
    /// reaching the window's end.
    fn window(c: &mut Dctcp, n: u64, ce: u64) {
        let end = c.next_seq.max(1);
        let mut s = delivering(0.0, n);
        s.ece_delivered = ce;
        s.snd_una = end;
        s.snd_nxt = end + n;
        c.on_ack_sample(&s);
    }

    #[test]
    fn alpha_is_a_moving_average_with_gain_one_sixteenth() {
        let mut c = Dctcp::new(DctcpConfig::default(), 10.0);
        assert_eq!(c.alpha, 1024);
        // no marks: 1024 - 1024/16 = 960, then 960 - 60 = 900
        window(&mut c, 10, 0);
        assert_eq!(c.alpha, 960);
        window(&mut c, 10, 0);
        assert_eq!(c.alpha, 900);
        // half marked: 900 - 900>>4 (56) + (5 << 6) / 10 (32) = 876
        window(&mut c, 10, 5);
        assert_eq!(c.alpha, 876);
        // all marked: 876 - 54 + 64 = 886
        window(&mut c, 10, 10);
        assert_eq!(c.alpha, 886);
    }

    #[test]
    fn alpha_updates_once_per_window_of_delivered_data() {
        let mut c = Dctcp::new(DctcpConfig { alpha_on_init: 0, ..Default::default() }, 10.0);
        window(&mut c, 10, 0); // window 1 ends at once (next_seq 0); the next ends at 11
        assert_eq!(c.next_seq, 11);
        // within the window: 4 delivered, 4 marked, ACK at 5 < 11: alpha unchanged
        let mut s = delivering(0.0, 4);
        (s.ece_delivered, s.snd_una, s.snd_nxt) = (4, 5, 15);
        c.on_ack_sample(&s);
        assert_eq!(c.alpha, 0);
        // the ACK at 11: 10 delivered, 4 marked: 0 + (4 << 6) / 10 = 25
        (s.rate.acked_sacked, s.ece_delivered, s.snd_una) = (6, 0, 11);
        c.on_ack_sample(&s);
        assert_eq!((c.alpha, c.next_seq), (25, 15));
    }

    #[test]
    fn a_small_alpha_clears_without_marks() {
        let mut c = Dctcp::new(DctcpConfig { alpha_on_init: 20, ..Default::default() }, 10.0);
        // 20 >> 4 = 1: 19; 19 >> 4 = 1: 18 ... 16 >> 4 = 1: 15; then 15 >> 4 = 0 clears it
        for expected in [19, 18, 17, 16, 15, 0] {
            window(&mut c, 10, 0);
            assert_eq!(c.alpha, expected);
        }
    }

    #[test]
    fn an_echo_cuts_by_half_alpha_and_a_loss_by_half() {
        let mut c = Dctcp::new(DctcpConfig { alpha_on_init: 512, ..Default::default() }, 100.0);
        // alpha 1/2: 100 - (100 * 512 >> 11 = 25) = 75
        c.on_event(0.0, Event::EnterCwr, Flight::default());
        assert_eq!((c.cwnd(), c.ssthresh()), (75.0, 75.0));
        // a loss: Reno's 75 / 2 = 37
        c.on_event(0.0, Event::EnterRecovery, Flight::default());
        assert_eq!(c.cwnd(), 37.0);
        // a timeout: Reno's half of 37 = 18 for ssthresh (Linux's CA_EVENT_LOSS), cwnd 0 + 1
        c.on_event(0.0, Event::Rto { new_reduction: true }, Flight::default());
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 18.0));
        // alpha 1 (Linux's initial value): 40 - (40 * 1024 >> 11) = 20, as Reno
        let mut c = Dctcp::new(DctcpConfig::default(), 40.0);
        c.on_event(0.0, Event::EnterCwr, Flight::default());
        assert_eq!(c.cwnd(), 20.0);
    }

    #[test]
    fn the_legacy_sender_counts_an_echoed_ack_as_marked() {
        let mut c = Dctcp::new(DctcpConfig { alpha_on_init: 0, ..Default::default() }, 10.0);
        c.on_ecn_echo(0.0);
        // first window: 2 delivered, both echoed: (2 << 6) / 2 = 64
        c.on_ack(&Ack { now: 0.0, acked: 2, snd_una: 2, snd_nxt: 12, rtt: None });
        assert_eq!(c.alpha, 64);
        assert_eq!(c.cwnd(), 12.0, "Reno's slow start");
    }
}
