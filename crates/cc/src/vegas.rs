//! TCP Vegas for the rfc profile: Brakmo and Peterson's algorithm with the parameters of Linux
//! and ns-3 (alpha 2, beta 4, gamma 1; protocols.md §1), and the enhancements of Yew et al.
//! as options (`progressive`, `measure`; the pacing is the sender's). ns-2's own Vegas, which
//! differs in many details, is the ns-2 profile's (`tcplab-net`, `tcp/sender/vegas.rs`).
//!
//! Once per RTT, when the ACK passes the first segment sent in the epoch, Vegas estimates the
//! segments it keeps queued, q = cwnd·(RTT − BaseRTT)/RTT (the paper's normalisation, and
//! ns-3's), with RTT the sample of the segment that ends the epoch (the paper's) or the
//! smallest of the epoch (Linux's and ns-3's) and BaseRTT the smallest ever. Slow start grows
//! one segment per ACK in every other epoch (or every epoch) and ends when q exceeds gamma;
//! congestion avoidance then steps cwnd to keep q between alpha and beta. A loss repaired by
//! fast retransmit cuts a quarter of the window, as the paper does.

use crate::measure::CongestionMeasure;
use crate::newreno;
use crate::progressive::{Progressive, Stepper};
use crate::{half_flight, Ack, CongestionControl, Signal};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SlowStart {
    /// Grow in every other epoch, so that each measurement sees a steady window (the paper).
    EveryOtherRtt,
    /// Grow in every epoch (Linux, ns-3, and the progressive-cwnd specification).
    EveryRtt,
}

/// Which RTT of an epoch the backlog estimate uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EpochRtt {
    /// The RTT of the segment that ends the epoch, the paper's "distinguished segment".
    Last,
    /// The smallest sample of the epoch (Linux, ns-3): robust to delayed ACKs, but while the
    /// window grows it sees the queue of the epoch's start, so slow start stops late.
    Min,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VegasConfig {
    /// Keep at least alpha and at most beta segments queued; leave slow start above gamma.
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub epoch_rtt: EpochRtt,
    pub slow_start: SlowStart,
    /// The fraction of cwnd given up on a loss repaired by fast retransmit.
    pub loss_decrease: f64,
    /// The fraction of cwnd given up on an ECN echo (RFC 3168: a half).
    pub ecn_decrease: f64,
    pub progressive: Progressive,
    /// Cut the window on a loss only if the congestion measure says the network is congested.
    pub congestion_measure: bool,
    /// With the measure, the fraction given up on a loss judged spurious (0 keeps cwnd;
    /// TCP Veno gives up a fifth).
    pub spurious_loss_decrease: f64,
    /// Re-learn BaseRTT after this many consecutive epochs with more than `rebase_backlog`
    /// segments queued (0: never), for a path that changed under the flow.
    pub rebase_epochs: u32,
    pub rebase_backlog: f64,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
            epoch_rtt: EpochRtt::Last,
            slow_start: SlowStart::EveryOtherRtt,
            loss_decrease: 0.25,
            ecn_decrease: 0.5,
            progressive: Progressive::Off,
            congestion_measure: false,
            spurious_loss_decrease: 0.0,
            rebase_epochs: 0,
            rebase_backlog: 8.0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Vegas {
    cfg: VegasConfig,
    cwnd: f64,
    ssthresh: f64,
    base_rtt: f64,
    /// The smallest and the latest RTT sample of the current epoch, and how many it has seen.
    epoch_min: f64,
    epoch_last: f64,
    samples: u32,
    /// The epoch ends when the ACK reaches this segment.
    beg_snd_nxt: u64,
    /// Start a fresh epoch at the next ACK (after a congestion signal).
    restart: bool,
    /// Slow start grows in this epoch.
    growing: bool,
    stepper: Stepper,
    measure: CongestionMeasure,
    srtt: f64,
    /// The backlog the last epoch measured.
    backlog: f64,
    high_epochs: u32,
}

impl Vegas {
    pub fn new(cfg: VegasConfig, initial: f64) -> Vegas {
        Vegas {
            stepper: Stepper::new(cfg.progressive),
            cfg,
            cwnd: initial,
            ssthresh: f64::INFINITY,
            base_rtt: f64::INFINITY,
            epoch_min: f64::INFINITY,
            epoch_last: 0.0,
            samples: 0,
            beg_snd_nxt: 0,
            restart: false,
            growing: true,
            measure: CongestionMeasure::default(),
            srtt: 0.0,
            backlog: 0.0,
            high_epochs: 0,
        }
    }

    /// The smallest RTT seen, in seconds (infinite before the first sample).
    pub fn base_rtt(&self) -> f64 {
        self.base_rtt
    }

    /// The segments queued by the last epoch's estimate.
    pub fn backlog(&self) -> f64 {
        self.backlog
    }

    /// The path changed (a handover's binding update): forget BaseRTT and learn it again.
    pub fn on_path_change(&mut self) {
        self.base_rtt = f64::INFINITY;
        self.restart = true;
    }

    fn end_epoch(&mut self, ack: &Ack) {
        self.beg_snd_nxt = ack.snd_nxt;
        if self.samples <= 2 {
            // Too few samples to tell queueing from a delayed ACK: grow as NewReno would.
            self.cwnd = newreno::grow(self.cwnd, self.ssthresh, ack.acked);
        } else {
            let rtt = match self.cfg.epoch_rtt {
                EpochRtt::Last => self.epoch_last,
                EpochRtt::Min => self.epoch_min,
            };
            let q = self.cwnd * (rtt - self.base_rtt) / rtt;
            self.backlog = q;
            self.measure.on_epoch(q);
            self.maybe_rebase(q, rtt);
            let c = &self.cfg;
            if self.cwnd < self.ssthresh {
                if q > c.gamma {
                    // Too fast: go to the window that would keep nothing queued, plus one.
                    let target = (self.cwnd * self.base_rtt / rtt).floor();
                    self.cwnd = self.cwnd.min(target + 1.0);
                    self.ssthresh = self.ssthresh.min(self.cwnd - 1.0).max(2.0);
                } else {
                    if c.slow_start == SlowStart::EveryOtherRtt {
                        self.growing = !self.growing;
                    }
                    if self.growing && ack.acked > 0 {
                        self.cwnd += 1.0;
                    }
                }
            } else {
                let step = self.stepper.step(q, c.alpha, c.beta, self.cwnd);
                self.cwnd = (self.cwnd + step).max(2.0);
                if step < 0.0 {
                    self.ssthresh = self.ssthresh.min(self.cwnd - 1.0).max(2.0);
                }
            }
            self.ssthresh = self.ssthresh.max(0.75 * self.cwnd);
        }
        self.samples = 0;
        self.epoch_min = f64::INFINITY;
    }

    fn maybe_rebase(&mut self, q: f64, rtt: f64) {
        if self.cfg.rebase_epochs == 0 {
            return;
        }
        if q > self.cfg.rebase_backlog {
            self.high_epochs += 1;
            if self.high_epochs >= self.cfg.rebase_epochs {
                self.base_rtt = rtt;
                self.high_epochs = 0;
            }
        } else {
            self.high_epochs = 0;
        }
    }

    /// Whether a loss now counts as congestion (always, without the measure).
    fn congested(&self, now: f64) -> bool {
        !self.cfg.congestion_measure || self.measure.congested(now, self.srtt, self.cfg.beta)
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, ack: &Ack) {
        if let Some(r) = ack.rtt {
            self.base_rtt = self.base_rtt.min(r);
            self.epoch_min = self.epoch_min.min(r);
            self.epoch_last = r;
            self.samples += 1;
            self.srtt = if self.srtt == 0.0 { r } else { 0.875 * self.srtt + 0.125 * r };
        }
        if self.restart {
            self.restart = false;
            self.beg_snd_nxt = ack.snd_nxt;
            self.samples = 0;
            self.epoch_min = f64::INFINITY;
        } else if ack.snd_una >= self.beg_snd_nxt {
            self.end_epoch(ack);
        } else if self.cwnd < self.ssthresh && self.growing && ack.acked > 0 {
            self.cwnd += 1.0;
        }
    }

    fn on_ecn_echo(&mut self, now: f64) {
        self.measure.on_ecn_echo(now);
    }

    fn on_congestion(&mut self, now: f64, signal: Signal, flight: f64) {
        let congested = self.congested(now);
        match signal {
            Signal::Loss => {
                let cut = if congested { self.cfg.loss_decrease } else { self.cfg.spurious_loss_decrease };
                self.cwnd = (self.cwnd * (1.0 - cut)).max(2.0);
                self.ssthresh = self.cwnd;
            }
            Signal::Ecn => {
                self.cwnd = (self.cwnd * (1.0 - self.cfg.ecn_decrease)).max(2.0);
                self.ssthresh = self.cwnd;
            }
            Signal::Timeout if congested => {
                self.ssthresh = half_flight(flight);
                self.cwnd = 1.0;
            }
            Signal::Timeout => {
                // A blackout (a handover), not congestion: slow start back to where it was.
                self.ssthresh = self.cwnd.max(2.0);
                self.cwnd = 2.0;
            }
        }
        self.growing = true;
        self.restart = true;
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

    /// An ACK of one segment; `una` is the new snd_una, the sender has sent up to `nxt`.
    fn ack(now: f64, una: u64, nxt: u64, rtt: f64) -> Ack {
        Ack { now, acked: 1, snd_una: una, snd_nxt: nxt, rtt: Some(rtt) }
    }

    /// A Vegas in congestion avoidance at `cwnd` with BaseRTT 0.1 s, its next epoch ending at
    /// segment 100.
    fn steady(cfg: VegasConfig, cwnd: f64) -> Vegas {
        let mut v = Vegas::new(cfg, cwnd);
        v.ssthresh = 2.0;
        v.base_rtt = 0.1;
        v.beg_snd_nxt = 100;
        v
    }

    /// Feeds one epoch of three ACKs, the last (ending the epoch) and smallest measuring `rtt`.
    fn epoch(v: &mut Vegas, rtt: f64) {
        let start = v.beg_snd_nxt;
        v.on_ack(&ack(1.0, start - 2, start + 20, rtt + 0.01));
        v.on_ack(&ack(1.0, start - 1, start + 20, rtt + 0.02));
        v.on_ack(&ack(1.0, start, start + 20, rtt));
    }

    #[test]
    fn the_epoch_rtt_is_the_last_sample_or_the_smallest() {
        for (epoch_rtt, backlog) in [(EpochRtt::Last, 20.0 * 0.1 / 0.2), (EpochRtt::Min, 20.0 * 0.05 / 0.15)] {
            let mut v = steady(VegasConfig { epoch_rtt, ..VegasConfig::default() }, 20.0);
            v.on_ack(&ack(1.0, 98, 120, 0.15));
            v.on_ack(&ack(1.0, 99, 120, 0.3));
            v.on_ack(&ack(1.0, 100, 120, 0.2));
            assert!((v.backlog() - backlog).abs() < 1e-12, "{epoch_rtt:?}: {}", v.backlog());
        }
    }

    #[test]
    fn congestion_avoidance_keeps_the_backlog_between_alpha_and_beta() {
        let mut v = steady(VegasConfig::default(), 20.0);
        epoch(&mut v, 0.1); // nothing queued: q = 0 < alpha
        assert_eq!(v.cwnd(), 21.0);
        assert_eq!(v.backlog(), 0.0);
        epoch(&mut v, 0.125); // q = 21·0.025/0.125 = 4.2 > beta
        assert_eq!(v.cwnd(), 20.0);
        assert!((v.backlog() - 4.2).abs() < 1e-12);
        assert_eq!(v.ssthresh(), 15.75, "min(15.75, cwnd − 1), then at least 3/4 cwnd");
        epoch(&mut v, 0.115); // q = 20·0.015/0.115 ≈ 2.6: hold
        assert_eq!(v.cwnd(), 20.0);
        assert_eq!(v.beg_snd_nxt, 120 + 20 + 20);
    }

    #[test]
    fn too_few_samples_grow_like_newreno() {
        let mut v = steady(VegasConfig::default(), 20.0);
        v.on_ack(&Ack { now: 1.0, acked: 1, snd_una: 100, snd_nxt: 120, rtt: None });
        assert_eq!(v.cwnd(), 20.05);
    }

    #[test]
    fn slow_start_grows_every_other_epoch_and_leaves_above_gamma() {
        let mut v = Vegas::new(VegasConfig::default(), 4.0);
        v.base_rtt = 0.1;
        v.beg_snd_nxt = 10;
        // a growing epoch: one segment per ACK; its end (q = 0) switches to holding
        v.on_ack(&ack(0.1, 8, 12, 0.1));
        v.on_ack(&ack(0.1, 9, 13, 0.1));
        v.on_ack(&ack(0.1, 10, 16, 0.1));
        assert_eq!(v.cwnd(), 6.0);
        // a holding epoch; its end switches back and grows
        for una in 11..16 {
            v.on_ack(&ack(0.2, una, 16, 0.1));
        }
        assert_eq!(v.cwnd(), 6.0);
        v.on_ack(&ack(0.2, 16, 22, 0.1));
        assert_eq!(v.cwnd(), 7.0);
        v.on_ack(&ack(0.3, 17, 22, 0.1));
        assert_eq!(v.cwnd(), 8.0);
        // q = 8·(0.2 − 0.1)/0.2 = 4 > gamma: to the target (4) plus one
        let mut v = Vegas::new(VegasConfig::default(), 8.0);
        v.base_rtt = 0.1;
        v.beg_snd_nxt = 5;
        v.on_ack(&ack(1.0, 3, 13, 0.2));
        v.on_ack(&ack(1.0, 4, 13, 0.2));
        let grown = v.cwnd();
        assert_eq!(grown, 10.0);
        v.on_ack(&ack(1.0, 5, 13, 0.2));
        // q = 10·0.1/0.2 = 5: target 5, cwnd 6, ssthresh max(5, 4.5)
        assert_eq!((v.cwnd(), v.ssthresh()), (6.0, 5.0));
    }

    #[test]
    fn every_rtt_slow_start_never_holds() {
        let cfg = VegasConfig { slow_start: SlowStart::EveryRtt, ..VegasConfig::default() };
        let mut v = Vegas::new(cfg, 4.0);
        v.base_rtt = 0.1;
        v.beg_snd_nxt = 3;
        for una in 1..=6 {
            v.on_ack(&ack(0.1, una, 10, 0.1));
        }
        assert_eq!(v.cwnd(), 10.0);
    }

    #[test]
    fn a_loss_cuts_a_quarter_and_ecn_a_half() {
        let mut v = steady(VegasConfig::default(), 20.0);
        v.on_congestion(1.0, Signal::Loss, 20.0);
        assert_eq!((v.cwnd(), v.ssthresh()), (15.0, 15.0));
        v.on_congestion(1.0, Signal::Ecn, 15.0);
        assert_eq!((v.cwnd(), v.ssthresh()), (7.5, 7.5));
        v.on_congestion(1.0, Signal::Timeout, 7.0);
        assert_eq!((v.cwnd(), v.ssthresh()), (1.0, 3.5));
    }

    #[test]
    fn the_measure_keeps_the_window_on_a_spurious_loss() {
        let cfg = VegasConfig { congestion_measure: true, ..VegasConfig::default() };
        let mut v = steady(cfg, 20.0);
        epoch(&mut v, 0.1); // q = 0: not congested
        v.on_congestion(2.0, Signal::Loss, 21.0);
        assert_eq!(v.cwnd(), 21.0, "spurious: repaired, window kept");
        v.on_congestion(2.0, Signal::Timeout, 21.0);
        assert_eq!((v.cwnd(), v.ssthresh()), (2.0, 21.0), "a blackout: slow start back up");
        v.on_ecn_echo(3.0);
        v.cwnd = 20.0;
        v.on_congestion(3.05, Signal::Loss, 20.0);
        assert_eq!(v.cwnd(), 15.0, "an echo within the last RTT makes the loss real");
    }

    #[test]
    fn progressive_p1_closes_a_large_gap_in_one_epoch() {
        let cfg = VegasConfig { progressive: Progressive::P1 { gain: 0.5 }, ..VegasConfig::default() };
        let mut v = steady(cfg, 40.0);
        epoch(&mut v, 0.2); // q = 40·0.1/0.2 = 20; step = round(0.5·(3 − 20)) = −9 (half away)
        assert_eq!(v.cwnd(), 31.0);
    }

    #[test]
    fn rebase_relearns_the_base_rtt_after_persistent_backlog() {
        let cfg = VegasConfig { rebase_epochs: 2, rebase_backlog: 8.0, ..VegasConfig::default() };
        let mut v = steady(cfg, 40.0);
        epoch(&mut v, 0.2); // q = 20
        assert_eq!(v.base_rtt(), 0.1);
        epoch(&mut v, 0.2);
        assert_eq!(v.base_rtt(), 0.2);
    }
}
