//! CUBIC (RFC 9438) as Linux's `tcp_cubic` computes it, with HyStart.
//!
//! After a reduction at window W_max the window follows
//!
//! ```text
//! W_cubic(t) = C·(t − K)³ + W_max,   K = ∛((W_max − cwnd_epoch) / C)
//! ```
//!
//! with t the time since the epoch began plus the min RTT (RFC 9438 §4.2's W_cubic(t + RTT):
//! the target one RTT ahead). Each ACK sets how many segments must be delivered for cwnd to
//! grow by one: cnt = cwnd / (W_cubic − cwnd), and never fewer than 2 (at most 1.5·cwnd per
//! RTT). The Reno-friendly estimate W_est grows by one segment per cwnd/α_cubic delivered,
//! α_cubic = 3(1 − β)/(1 + β) (§4.3); while it is above cwnd, cwnd grows at least as fast as it.
//! A reduction sets ssthresh = β·cwnd and W_max = cwnd, or (1 + β)/2·cwnd when the window did
//! not regain the last W_max (fast convergence, §4.7).
//!
//! Linux's arithmetic where it shapes the numbers: β = 717/1024, the window in whole segments
//! with `snd_cwnd_cnt`, W_max and W_cubic rounded down to whole segments, 1/α_cubic as
//! `beta_scale`/8 = 15/8, and no cubic growth cap before the first loss beyond cnt ≤ 20 (5% per
//! RTT), cnt kept while cwnd is unchanged for up to HZ/32 (1/32 s here). Time is continuous here,
//! where the kernel counts jiffies (and recomputes cnt at most once a jiffy); C is 0.4 where the
//! kernel's fixed point has 410/1024.
//!
//! HyStart (Ha and Rhee; Linux's `hystart_update`) leaves slow start early, setting
//! ssthresh = cwnd, once cwnd ≥ 16 and, in a round (the ACKs up to the segment that was next
//! when the round began):
//! - ACK train: ACKs no more than 2 ms apart have been arriving for longer than half
//!   (unpaced) the min delay plus a cushion for TSO/GRO bursts, or
//! - delay increase: after 8 samples the round's smallest RTT exceeds the min delay by
//!   clamp(min delay/8, 4 ms, 16 ms).

use crate::reno::{may_grow, signal_as_event, Window};
use crate::{Ack, AckSample, CongestionControl, Event, Flight, Signal};
use serde::Serialize;

/// Linux's fixed-point scale of β.
const BETA_SCALE: u64 = 1024;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CubicConfig {
    /// β in 1/1024 (Linux's `beta` = 717, RFC 9438's 0.7).
    pub beta: u64,
    /// C, in segments per second cubed.
    pub c: f64,
    pub fast_convergence: bool,
    /// The Reno-friendly region (Linux's `tcp_friendliness`).
    pub reno_friendly: bool,
    pub hystart: bool,
    pub hystart_ack_train: bool,
    pub hystart_delay: bool,
    /// No HyStart below this cwnd (Linux's `hystart_low_window`).
    pub hystart_low_window: u64,
    /// ACKs this close, in seconds, make a train (`hystart_ack_delta_us` = 2000).
    pub hystart_ack_delta: f64,
    /// Seconds added to the min delay before the train test (Linux's `hystart_ack_delay`:
    /// four GSO bursts at the pacing rate, at most 1 ms, which it is below about 2 Gb/s).
    pub hystart_ack_cushion: f64,
    /// The sender paces (Linux's `sk_pacing_status`, set by the fq qdisc); unpaced, the train
    /// test uses half the threshold.
    pub paced: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            beta: 717,
            c: 0.4,
            fast_convergence: true,
            reno_friendly: true,
            hystart: true,
            hystart_ack_train: true,
            hystart_delay: true,
            hystart_low_window: 16,
            hystart_ack_delta: 0.002,
            hystart_ack_cushion: 0.001,
            paced: false,
        }
    }
}

/// HyStart's samples before the delay test, and the bounds of its threshold.
const HYSTART_MIN_SAMPLES: u32 = 8;
const HYSTART_DELAY_MIN: f64 = 0.004;
const HYSTART_DELAY_MAX: f64 = 0.016;
/// cnt is kept this long while cwnd does not change (Linux's HZ/32).
const RECOMPUTE_INTERVAL: f64 = 1.0 / 32.0;
/// No delay samples for this long after an epoch starts (a reduction's queue is draining).
const SAMPLE_HOLDOFF: f64 = 1.0;

#[derive(Debug, Clone, PartialEq, Default)]
struct HyStart {
    found: bool,
    round_start: f64,
    last_ack: f64,
    /// The round ends when the cumulative ACK passes this segment.
    end_seq: u64,
    /// The smallest RTT of the round so far.
    curr_rtt: f64,
    samples: u32,
}

impl HyStart {
    fn start_round(&mut self, now: f64, snd_nxt: u64) {
        (self.round_start, self.last_ack, self.end_seq) = (now, now, snd_nxt);
        (self.curr_rtt, self.samples) = (f64::INFINITY, 0);
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cubic {
    cfg: CubicConfig,
    w: Window,
    /// Segments to deliver per one-segment increase.
    cnt: u64,
    /// W_max (Linux's `last_max_cwnd`); 0 before the first reduction.
    w_max: u64,
    /// The window the curve climbs back to (W_max, or cwnd if above it) and when.
    origin: u64,
    k: f64,
    epoch_start: Option<f64>,
    /// Segments delivered in the epoch towards the Reno-friendly estimate, and that estimate.
    ack_cnt: u64,
    w_est: u64,
    /// The cwnd and time cnt was last computed at (Linux's `last_cwnd`, `last_time`).
    last_cwnd: u64,
    last_time: f64,
    /// The smallest RTT seen (0: none yet).
    delay_min: f64,
    hystart: HyStart,
    /// The latest `snd_nxt` an ACK reported, where a HyStart round begun by a timeout ends.
    snd_nxt: u64,
}

impl Cubic {
    pub fn new(cfg: CubicConfig, initial: f64) -> Cubic {
        Cubic {
            cfg,
            w: Window::new(initial),
            cnt: 0,
            w_max: 0,
            origin: 0,
            k: 0.0,
            epoch_start: None,
            ack_cnt: 0,
            w_est: 0,
            last_cwnd: 0,
            last_time: 0.0,
            delay_min: 0.0,
            hystart: HyStart { curr_rtt: f64::INFINITY, ..Default::default() },
            snd_nxt: 0,
        }
    }

    /// Linux's `bictcp_reset` and `bictcp_hystart_reset` on a timeout: the curve, W_max and
    /// the min delay are forgotten; the window is not.
    fn forget_curve(&mut self, now: f64) {
        let fresh = Cubic::new(self.cfg.clone(), 0.0);
        *self = Cubic { cfg: fresh.cfg, w: self.w.clone(), snd_nxt: self.snd_nxt, ..fresh };
        self.hystart.start_round(now, self.snd_nxt);
    }

    /// K in seconds: the time the curve takes from `cwnd` back to W_max.
    pub fn k_for(&self, w_max: u64, cwnd: u64) -> f64 {
        (w_max.saturating_sub(cwnd) as f64 / self.cfg.c).cbrt()
    }

    /// W_cubic at `t` seconds into the epoch, in whole segments as Linux rounds it.
    pub fn w_cubic(&self, t: f64) -> u64 {
        let delta = (self.cfg.c * (t - self.k).abs().powi(3)).floor() as u64;
        if t < self.k {
            self.origin.saturating_sub(delta)
        } else {
            self.origin + delta
        }
    }

    /// Segments delivered per increase of the Reno-friendly estimate: cwnd/α_cubic, as Linux's
    /// `(cwnd · beta_scale) >> 3` with beta_scale = 8(1 + β)/3/(1 − β) in integers.
    fn reno_acks_per_segment(&self, cwnd: u64) -> u64 {
        let b = self.cfg.beta;
        let beta_scale = 8 * (BETA_SCALE + b) / 3 / (BETA_SCALE - b);
        ((cwnd * beta_scale) >> 3).max(1)
    }

    /// `bictcp_update`: the cnt for this ACK.
    fn update(&mut self, now: f64, acked: u64) {
        let cwnd = self.w.cwnd;
        self.ack_cnt += acked;
        // Linux recomputes cnt only when cwnd changed or HZ/32 (about 31 ms) has passed.
        if cwnd == self.last_cwnd && now - self.last_time <= RECOMPUTE_INTERVAL {
            return;
        }
        (self.last_cwnd, self.last_time) = (cwnd, now);
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.ack_cnt = acked;
                self.w_est = cwnd;
                if self.w_max <= cwnd {
                    (self.k, self.origin) = (0.0, cwnd);
                } else {
                    (self.k, self.origin) = (self.k_for(self.w_max, cwnd), self.w_max);
                }
                *self.epoch_start.insert(now)
            }
        };
        let target = self.w_cubic(now - epoch + self.delay_min);
        self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
        // Before any loss the curve knows no W_max: grow at least 5% per RTT.
        if self.w_max == 0 {
            self.cnt = self.cnt.min(20);
        }
        if self.cfg.reno_friendly {
            let per = self.reno_acks_per_segment(cwnd);
            while self.ack_cnt > per {
                self.ack_cnt -= per;
                self.w_est += 1;
            }
            if self.w_est > cwnd {
                self.cnt = self.cnt.min(cwnd / (self.w_est - cwnd));
            }
        }
        self.cnt = self.cnt.max(2);
    }

    /// `cubictcp_cong_avoid` (the caller checks that the window may grow).
    fn grow(&mut self, now: f64, mut acked: u64) {
        if self.w.in_slow_start() {
            acked = self.w.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        self.update(now, acked);
        self.w.additive_increase(self.cnt, acked);
    }

    /// `cubictcp_recalc_ssthresh`: a new epoch at the next ACK, W_max with fast convergence.
    fn reduction_ssthresh(&mut self) -> u64 {
        let cwnd = self.w.cwnd;
        self.epoch_start = None;
        self.w_max = if cwnd < self.w_max && self.cfg.fast_convergence {
            cwnd * (BETA_SCALE + self.cfg.beta) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        (cwnd * self.cfg.beta / BETA_SCALE).max(2)
    }

    /// `cubictcp_acked`: the min delay and HyStart, from every ACK's RTT.
    fn on_rtt(&mut self, now: f64, rtt: f64, snd_una: u64, snd_nxt: u64) {
        if self.epoch_start.is_some_and(|e| now - e < SAMPLE_HOLDOFF) {
            return;
        }
        let delay = rtt.max(1e-6);
        if self.delay_min == 0.0 || delay < self.delay_min {
            self.delay_min = delay;
        }
        if self.cfg.hystart
            && !self.hystart.found
            && self.w.in_slow_start()
            && self.w.cwnd >= self.cfg.hystart_low_window
        {
            self.hystart_update(now, delay, snd_una, snd_nxt);
        }
    }

    fn hystart_update(&mut self, now: f64, delay: f64, snd_una: u64, snd_nxt: u64) {
        if snd_una > self.hystart.end_seq {
            self.hystart.start_round(now, snd_nxt);
        }
        let h = &mut self.hystart;
        if self.cfg.hystart_ack_train && now - h.last_ack <= self.cfg.hystart_ack_delta {
            h.last_ack = now;
            let mut threshold = self.delay_min + self.cfg.hystart_ack_cushion;
            // unpaced, a round's ACKs come back faster than paced ones could
            if !self.cfg.paced {
                threshold /= 2.0;
            }
            if now - h.round_start > threshold {
                h.found = true;
                self.w.ssthresh = self.w.cwnd;
            }
        }
        if self.cfg.hystart_delay {
            h.curr_rtt = h.curr_rtt.min(delay);
            if h.samples < HYSTART_MIN_SAMPLES {
                h.samples += 1;
            } else if h.curr_rtt > self.delay_min + (self.delay_min / 8.0).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX) {
                h.found = true;
                self.w.ssthresh = self.w.cwnd;
            }
        }
    }

    /// HyStart found the end of slow start.
    pub fn hystart_found(&self) -> bool {
        self.hystart.found
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, ack: &Ack) {
        self.snd_nxt = ack.snd_nxt;
        if let Some(rtt) = ack.rtt {
            self.on_rtt(ack.now, rtt, ack.snd_una, ack.snd_nxt);
        }
        self.grow(ack.now, ack.acked);
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
        self.snd_nxt = s.snd_nxt;
        if let Some(rtt) = s.rate.rtt {
            self.on_rtt(s.now, rtt, s.snd_una, s.snd_nxt);
        }
    }

    fn on_event(&mut self, now: f64, event: Event, flight: Flight) {
        match event {
            Event::EnterRecovery | Event::EnterCwr => {
                let s = self.reduction_ssthresh();
                self.w.reduce_to(s, event == Event::EnterRecovery);
            }
            Event::Rto { new_reduction } => {
                let s = new_reduction.then(|| self.reduction_ssthresh());
                self.w.enter_loss(s, flight.in_flight);
                self.forget_curve(now);
            }
            // Shift the epoch over an idle period, so the curve resumes where it stopped.
            Event::TxStart { idle, .. } => {
                if let Some(e) = &mut self.epoch_start {
                    if idle > 0.0 {
                        *e = (*e + idle).min(now);
                    }
                }
            }
            Event::IdleRestart { idle, rto, initial } => self.w.restart_after_idle(idle, rto, initial),
            // Linux's CUBIC undoes as Reno does: W_max and the curve stay as the loss set them.
            Event::Undo => self.w.undo(),
            Event::Established { cwnd, .. } => self.w.start_at(cwnd),
            Event::EndReduction => {}
        }
    }

    fn cong_control(&mut self, s: &AckSample) {
        if may_grow(s) {
            self.grow(s.now, s.rate.acked_sacked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reno::delivering;

    fn after_loss_at_100() -> Cubic {
        let mut c = Cubic::new(CubicConfig::default(), 100.0);
        c.on_event(0.0, Event::EnterRecovery, Flight::default());
        c.delay_min = 0.1;
        c
    }

    #[test]
    fn a_reduction_keeps_beta_and_remembers_w_max() {
        let c = after_loss_at_100();
        // ssthresh = 100 · 717 / 1024 = 70.02 -> 70; W_max = 100
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max), (70.0, 70.0, 100));
    }

    #[test]
    fn k_and_the_window_curve() {
        let mut c = after_loss_at_100();
        c.cong_control(&delivering(10.0, 1));
        // K = ∛((100 − 70) / 0.4) = ∛75 = 4.2172 s
        assert!((c.k - 75f64.cbrt()).abs() < 1e-12);
        assert_eq!((c.epoch_start, c.origin), (Some(10.0), 100));
        // W(t) = 100 + ⌊0.4 (t − K)³⌋ above K, 100 − ⌊0.4 (K − t)³⌋ below:
        // 0.4 · 3.1172³ = 12.12 -> 88; 0.4 · 1.9828³ = 3.12 -> 103; W(K) = W_max
        assert_eq!((c.w_cubic(1.1), c.w_cubic(6.2), c.w_cubic(c.k)), (88, 103, 100));
        // at the epoch's start t = 0 + min RTT 0.1: 0.4 · 4.1172³ = 27.9 -> W = 73,
        // cnt = 70 / (73 − 70) = 23
        assert_eq!(c.cnt, 23);
        // one second later t = 1.1: W = 88, cnt = 70 / 18 = 3
        c.cong_control(&delivering(11.0, 1));
        assert_eq!(c.cnt, 3);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_did_not_regain_it() {
        let mut c = after_loss_at_100();
        c.w.cwnd = 90;
        c.on_event(0.0, Event::EnterRecovery, Flight::default());
        // 90 < 100: W_max = 90 · (1024 + 717) / 2048 = 76.5 -> 76; ssthresh = 90 · 0.7 = 63
        assert_eq!((c.w_max, c.ssthresh()), (76, 63.0));
        let mut c = Cubic::new(CubicConfig { fast_convergence: false, ..Default::default() }, 100.0);
        c.on_event(0.0, Event::EnterRecovery, Flight::default());
        c.w.cwnd = 90;
        c.on_event(0.0, Event::EnterRecovery, Flight::default());
        assert_eq!(c.w_max, 90);
    }

    #[test]
    fn the_reno_friendly_estimate_takes_over_where_the_curve_is_flat() {
        for friendly in [true, false] {
            let mut c = Cubic::new(CubicConfig { reno_friendly: friendly, ..Default::default() }, 100.0);
            (c.w.ssthresh, c.w_max, c.delay_min) = (50, 100, 0.1);
            c.cong_control(&delivering(5.0, 188));
            // W_max = cwnd: K = 0 and W(0.1) = 100 + ⌊0.0004⌋ = 100, so cnt = 100 · cwnd = 10000.
            // W_est gains one segment per ⌊100 · 15 / 8⌋ = 187 delivered: 188 -> W_est = 101,
            // and cnt = 100 / (101 − 100) = 100: the 188 segments add 1, leaving 88 counted.
            if friendly {
                assert_eq!((c.w_est, c.cnt, c.w.cwnd, c.w.cnt), (101, 100, 101, 88));
            } else {
                assert_eq!((c.cnt, c.w.cwnd, c.w.cnt), (10_000, 100, 188));
            }
        }
    }

    #[test]
    fn cnt_is_kept_for_a_32nd_of_a_second_while_cwnd_is_unchanged() {
        let mut c = Cubic::new(CubicConfig::default(), 100.0);
        (c.w.ssthresh, c.w_max, c.delay_min) = (50, 100, 0.1);
        // the epoch starts at 5.0: W = 100, cnt = 100 · 100 = 10000, W_est 100, 1 counted
        c.cong_control(&delivering(5.0, 1));
        // 10 ms later cwnd is still 100: nothing recomputed, though 188 > 187 are counted now
        c.cong_control(&delivering(5.01, 187));
        assert_eq!((c.cnt, c.w_est, c.ack_cnt, c.w.cwnd), (10_000, 100, 188, 100));
        // 40 ms after 5.0: recomputed; 189 - 187 = 2 left, W_est 101, cnt = 100 / 1 = 100, and
        // the 188 already counted pass 100: cwnd 101
        c.cong_control(&delivering(5.04, 1));
        assert_eq!((c.cnt, c.w_est, c.ack_cnt, c.w.cwnd), (100, 101, 2, 101));
    }

    #[test]
    fn growth_is_at_most_one_segment_per_two_and_before_a_loss_at_least_five_percent() {
        let mut c = Cubic::new(CubicConfig::default(), 10.0);
        (c.w.ssthresh, c.w_max, c.delay_min) = (5, 1000, 1.0);
        // K = ∛(990 / 0.4) = 13.52 s; at t = 1: W = 1000 − ⌊0.4 · 12.53³⌋ = 1000 − 786 = 214,
        // cnt = 10 / 204 = 0, raised to 2
        c.cong_control(&delivering(0.0, 1));
        assert_eq!(c.cnt, 2);
        let mut c = Cubic::new(CubicConfig::default(), 40.0);
        c.w.ssthresh = 20;
        // no W_max: K = 0, W(t) = 40 -> cnt = 100 · 40, capped at 20
        c.cong_control(&delivering(0.0, 1));
        assert_eq!(c.cnt, 20);
    }

    #[test]
    fn slow_start_leftover_feeds_the_curve() {
        let mut c = Cubic::new(CubicConfig::default(), 10.0);
        c.w.ssthresh = 12;
        // 10 + 5 delivered: slow start to 12 takes 2, the other 3 go to cubic (cnt 20, capped)
        c.cong_control(&delivering(0.0, 5));
        assert_eq!((c.w.cwnd, c.w.cnt), (12, 3));
    }

    #[test]
    fn an_idle_period_shifts_the_epoch() {
        let mut c = after_loss_at_100();
        c.cong_control(&delivering(10.0, 1));
        c.on_event(13.0, Event::TxStart { idle: 2.0, app_limited: true }, Flight::default());
        assert_eq!(c.epoch_start, Some(12.0));
        // never into the future: 12 + 5 > 13
        c.on_event(13.0, Event::TxStart { idle: 5.0, app_limited: true }, Flight::default());
        assert_eq!(c.epoch_start, Some(13.0));
    }

    #[test]
    fn a_timeout_forgets_the_curve_and_the_min_delay() {
        let mut c = after_loss_at_100();
        c.w.cwnd = 80;
        c.on_event(1.0, Event::Rto { new_reduction: true }, Flight::default());
        // ssthresh = 80 · 717 / 1024 = 56.02 -> 56, then Linux's reset: W_max 0, no min delay
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max, c.delay_min), (1.0, 56.0, 0, 0.0));
    }

    /// An ACK sample carrying an RTT, for HyStart.
    fn rtt_sample(now: f64, rtt: f64, snd_una: u64, snd_nxt: u64) -> AckSample {
        let mut s = delivering(now, 1);
        (s.rate.rtt, s.snd_una, s.snd_nxt) = (Some(rtt), snd_una, snd_nxt);
        s
    }

    #[test]
    fn hystart_delay_increase_ends_slow_start() {
        for (rtt, exits) in [(0.115, true), (0.112, false)] {
            let mut c = Cubic::new(CubicConfig::default(), 20.0);
            // round 1, ACKs 5 ms apart (no train): min delay 100 ms
            for i in 0..3 {
                c.on_ack_sample(&rtt_sample(1.0 + 0.005 * i as f64, 0.100, 1 + i, 40));
            }
            // round 2 (the ACK passes 40): threshold 100 + clamp(100/8, 4, 16) = 112.5 ms,
            // tested from the 9th sample on
            for i in 0..8 {
                c.on_ack_sample(&rtt_sample(1.1 + 0.005 * i as f64, rtt, 41 + i, 80));
            }
            assert!(!c.hystart_found(), "eight samples first");
            c.on_ack_sample(&rtt_sample(1.2, rtt, 50, 80));
            assert_eq!(c.hystart_found(), exits, "rtt {rtt}");
            assert_eq!(c.ssthresh(), if exits { 20.0 } else { f64::INFINITY });
        }
    }

    #[test]
    fn hystart_ack_train_ends_slow_start() {
        // min delay 20 ms: unpaced threshold (20 + 1) / 2 = 10.5 ms of ACKs 1 ms apart;
        // paced, 21 ms
        for (paced, cwnd, exit_at) in [(false, 20.0, Some(11)), (true, 20.0, Some(22)), (false, 15.0, None)] {
            let mut c = Cubic::new(CubicConfig { paced, ..Default::default() }, cwnd);
            let mut found = None;
            for i in 0..30u64 {
                c.on_ack_sample(&rtt_sample(1.0 + 0.001 * i as f64, 0.020, 1 + i, 100));
                if c.hystart_found() && found.is_none() {
                    found = Some(i);
                }
            }
            assert_eq!(found, exit_at, "paced {paced}, cwnd {cwnd} (below 16: no HyStart)");
        }
    }

    #[test]
    fn no_delay_samples_for_a_second_after_a_reduction() {
        let mut c = after_loss_at_100();
        c.cong_control(&delivering(10.0, 1)); // the epoch starts at 10
        c.on_ack_sample(&rtt_sample(10.5, 0.05, 1, 2));
        assert_eq!(c.delay_min, 0.1);
        c.on_ack_sample(&rtt_sample(11.0, 0.05, 1, 2));
        assert_eq!(c.delay_min, 0.05);
    }
}
