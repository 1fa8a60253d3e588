//! BBR v1 as Linux's `tcp_bbr` has it (Cardwell et al., ACM Queue 2016): a model of the path,
//!
//! ```text
//! bw      = windowed max of delivery-rate samples over 10 rounds
//! min_rtt = windowed min of RTT samples over 10 seconds
//! pacing rate = pacing_gain · bw · 99%,   cwnd = cwnd_gain · bw · min_rtt + 3 · send quantum
//! ```
//!
//! set on every ACK (Linux's `cong_control`), so the sender's PRR stands aside.
//!
//! - STARTUP paces and sizes cwnd at 2/ln 2 (the smallest gain that doubles the delivery rate
//!   each round) until the bandwidth grew less than 25% in three non-app-limited rounds;
//! - DRAIN paces at its inverse until what is in flight fits one BDP (+ the quantum budget);
//! - PROBE_BW cycles eight phases of pacing gain 5/4, 3/4, 1, 1, 1, 1, 1, 1, each about one
//!   min_rtt, starting at a random phase other than 3/4 (the caller's seed), with cwnd gain 2;
//! - PROBE_RTT, when min_rtt has not been refreshed for 10 s: cwnd 4 for 200 ms and a round,
//!   then back to PROBE_BW (or STARTUP if the pipe was never full).
//!
//! Rounds are counted by delivered data: a round ends when a segment sent after it began is
//! delivered. In the first round of a recovery cwnd follows packet conservation (what is in
//! flight plus what was just delivered), and after it slow-starts back; losses are subtracted.
//! Long-term sampling detects a token-bucket policer: two 4-to-16-round intervals with a loss
//! rate of 20% and rates within 1/8 (or 4 kbit/s) of each other make BBR pace at their mean
//! for 48 rounds. ACK aggregation adds to cwnd the data delivered beyond what bw predicts.
//!
//! Units: segments and seconds; bw and the pacing rate in segments per second. The gains are
//! Linux's fixed point (2/ln 2 = 739/256, its inverse 88/256). Where the kernel looks at the
//! earliest departure time of a queued packet, this takes now (a sans-IO sender has no
//! queue of timed packets), and no ACK is taken as delayed for the min_rtt filter (Linux marks
//! only ACKs of lone runts).

use crate::reno::INFINITE_SSTHRESH;
use crate::{Ack, AckSample, CaState, CongestionControl, Event, Flight, RateSample, Signal};
use serde::Serialize;

/// Linux's gains, in its fixed point of 1/256.
const UNIT: f64 = 1.0;
const HIGH_GAIN: f64 = 739.0 / 256.0;
const DRAIN_GAIN: f64 = 88.0 / 256.0;
const CWND_GAIN: f64 = 2.0;
const PACING_GAINS: [f64; CYCLE_LEN] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const CYCLE_LEN: usize = 8;
/// The bandwidth filter's window, in rounds.
const BW_ROUNDS: u64 = CYCLE_LEN as u64 + 2;
const MIN_RTT_WINDOW: f64 = 10.0;
const PROBE_RTT_TIME: f64 = 0.2;
const MIN_CWND: u64 = 4;
const PACING_MARGIN: f64 = 0.99;
const FULL_BW_GROWTH: f64 = 1.25;
const FULL_BW_ROUNDS: u32 = 3;
/// Linux's `TCP_INIT_CWND`: the cwnd before any RTT sample, and the slow start it keeps.
const INIT_CWND: u64 = 10;
/// Long-term sampling: rounds per interval, loss rate (50/256), rate consistency.
const LT_MIN_ROUNDS: u32 = 4;
const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
const LT_BW_RATIO: f64 = 1.0 / 8.0;
const LT_BW_DIFF_BYTES: f64 = 4000.0 / 8.0;
const LT_MAX_ROUNDS: u32 = 48;
/// ACK aggregation: the window of its max filter in rounds, and the most it adds (100 ms of bw).
const EXTRA_ACKED_ROUNDS: u32 = 5;
const EXTRA_ACKED_MAX_TIME: f64 = 0.1;
const EPOCH_ACKED_RESET: u64 = 1 << 20;
/// Below this pacing rate (1.2 Mbit/s, in bytes per second) a send quantum is one segment.
const MIN_TSO_RATE_BYTES: f64 = 1_200_000.0 / 8.0;
/// Linux's cap on a GSO burst (64 KB less its headers).
const GSO_MAX_BYTES: f64 = 65_536.0 - 1.0 - 320.0;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BbrConfig {
    /// Segment size in bytes: the send quantum and the policer's 4 kbit/s are in bytes.
    pub mss: u32,
    /// Seed of the random first phase of PROBE_BW.
    pub seed: u64,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig { mss: 1448, seed: 1 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum BbrMode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Kathleen Nichols' windowed max (Linux's lib/win_minmax.c): the best, second and third
/// best samples, spread over the window, so the max survives its sample's expiry.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    fn get(&self) -> f64 {
        self.s[0].1
    }

    fn update(&mut self, win: u64, t: u64, v: f64) {
        let val = (t, v);
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            self.s = [val; 3];
            return;
        }
        if v >= self.s[1].1 {
            (self.s[1], self.s[2]) = (val, val);
        } else if v >= self.s[2].1 {
            self.s[2] = val;
        }
        let dt = t - self.s[0].0;
        if dt > win {
            self.s = [self.s[1], self.s[2], val];
            if t - self.s[0].0 > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            (self.s[1], self.s[2]) = (val, val);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = val;
        }
    }
}

/// Long-term (policer) bandwidth sampling.
#[derive(Debug, Clone, PartialEq, Default)]
struct LongTerm {
    sampling: bool,
    rounds: u32,
    use_bw: bool,
    bw: f64,
    last_delivered: u64,
    last_lost: u64,
    last_stamp: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bbr {
    cfg: BbrConfig,
    rng: u64,
    mode: BbrMode,
    cwnd: u64,
    ssthresh: u64,
    /// Segments per second; 0 until the first ACK or the first RTT.
    pacing_rate: f64,
    pacing_gain: f64,
    cwnd_gain: f64,
    bw: MaxFilter,
    rounds: u64,
    next_round_delivered: u64,
    round_start: bool,
    min_rtt: f64,
    min_rtt_stamp: f64,
    probe_rtt_done: Option<f64>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
    prev_state: CaState,
    packet_conservation: bool,
    idle_restart: bool,
    full_bw_reached: bool,
    full_bw: f64,
    full_bw_count: u32,
    cycle_idx: usize,
    cycle_stamp: f64,
    has_seen_rtt: bool,
    lt: LongTerm,
    /// The sender's totals and the time of the last delivery (Linux's `delivered_mstamp`).
    delivered: u64,
    lost: u64,
    delivered_stamp: f64,
    /// ACK aggregation: the two halves of its max filter, and the current epoch.
    extra_acked: [u64; 2],
    extra_acked_idx: usize,
    extra_acked_rounds: u32,
    epoch_stamp: f64,
    epoch_acked: u64,
    /// ProbeRTT's mark: samples of segments sent before delivered reaches it are app-limited.
    app_limited_until: Option<u64>,
}

impl Bbr {
    pub fn new(cfg: BbrConfig, initial: f64) -> Bbr {
        let rng = cfg.seed;
        let mut b = Bbr {
            cfg,
            rng,
            mode: BbrMode::Startup,
            cwnd: (initial.round() as u64).max(1),
            ssthresh: INFINITE_SSTHRESH,
            pacing_rate: 0.0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            bw: MaxFilter::default(),
            rounds: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: f64::INFINITY,
            min_rtt_stamp: 0.0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            prev_state: CaState::Open,
            packet_conservation: false,
            idle_restart: false,
            full_bw_reached: false,
            full_bw: 0.0,
            full_bw_count: 0,
            cycle_idx: 0,
            cycle_stamp: 0.0,
            has_seen_rtt: false,
            lt: LongTerm::default(),
            delivered: 0,
            lost: 0,
            delivered_stamp: 0.0,
            extra_acked: [0; 2],
            extra_acked_idx: 0,
            extra_acked_rounds: 0,
            epoch_stamp: 0.0,
            epoch_acked: 0,
            app_limited_until: None,
        };
        b.init_pacing_rate(None);
        b
    }

    pub fn mode(&self) -> BbrMode {
        self.mode
    }

    /// The bandwidth estimate in segments per second: the long-term one while policed.
    pub fn bw(&self) -> f64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.bw.get()
        }
    }

    pub fn min_rtt(&self) -> f64 {
        self.min_rtt
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }

    pub fn cycle_index(&self) -> usize {
        self.cycle_idx
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// A uniform integer in [0, n) from the caller's seed (splitmix64).
    fn random_below(&mut self, n: u64) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }

    /// A rate with a gain, less the 1% margin that keeps the bottleneck queue draining.
    fn paced(bw: f64, gain: f64) -> f64 {
        bw * gain * PACING_MARGIN
    }

    /// Before a bandwidth sample: the initial window per smoothed RTT (1 ms without one) at
    /// the high gain.
    fn init_pacing_rate(&mut self, srtt: Option<f64>) {
        let rtt = match srtt {
            Some(r) => {
                self.has_seen_rtt = true;
                r.max(1e-6)
            }
            None => 0.001,
        };
        self.pacing_rate = Self::paced(self.cwnd as f64 / rtt, HIGH_GAIN);
    }

    /// Until the pipe is full the pacing rate only rises.
    fn set_pacing_rate(&mut self, bw: f64, gain: f64, srtt: Option<f64>) {
        let rate = Self::paced(bw, gain);
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate(srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// The send quantum in segments (Linux's `bbr_tso_segs_goal`): about 1 ms at the pacing
    /// rate, within one GSO burst, at least 2 segments (1 below 1.2 Mbit/s), at most 127.
    pub fn send_quantum(&self) -> u64 {
        let mss = self.cfg.mss as f64;
        let rate_bytes = self.pacing_rate * mss;
        let bytes = (rate_bytes / 1024.0).min(GSO_MAX_BYTES);
        let min = if rate_bytes < MIN_TSO_RATE_BYTES { 1 } else { 2 };
        ((bytes / mss) as u64).max(min).min(127)
    }

    /// gain · bw · min_rtt, rounded up; the initial window before any RTT sample.
    fn bdp(&self, bw: f64, gain: f64) -> u64 {
        if self.min_rtt == f64::INFINITY {
            return INIT_CWND;
        }
        // a hair below, so that a product that is whole in exact arithmetic stays whole
        (bw * self.min_rtt * gain - 1e-9).ceil().max(0.0) as u64
    }

    /// Three send quanta for the end hosts' queues, rounded up to even for delayed ACKs, and 2
    /// more in the probing phase so that small BDPs probe too.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut cwnd = cwnd + 3 * self.send_quantum();
        cwnd = (cwnd + 1) & !1;
        if self.mode == BbrMode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// The in-flight target at `gain` (Linux's `bbr_inflight`).
    pub fn inflight(&self, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// In flight when the next segment leaves: it leaves now here, adding a quantum if probing.
    fn in_net_at_departure(&self, in_flight: u64) -> u64 {
        if self.pacing_gain > UNIT {
            in_flight + self.send_quantum()
        } else {
            in_flight
        }
    }

    fn save_cwnd(&mut self) {
        if self.prev_state < CaState::Recovery && self.mode != BbrMode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    // ----- the model -----

    fn update_bw(&mut self, s: &AckSample) {
        self.round_start = false;
        let Some(bw) = s.rate.rate() else { return };
        if s.rate.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = s.delivered;
            self.rounds += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sampling(&s.rate);
        // An app-limited sample says what the application sent, not what the path carries,
        // unless it beats the estimate anyway.
        if !s.rate.is_app_limited || bw >= self.bw.get() {
            self.bw.update(BW_ROUNDS, self.rounds, bw);
        }
    }

    fn lt_reset_interval(&mut self) {
        self.lt.last_stamp = self.delivered_stamp;
        self.lt.last_delivered = self.delivered;
        self.lt.last_lost = self.lost;
        self.lt.rounds = 0;
    }

    fn lt_reset(&mut self) {
        (self.lt.bw, self.lt.use_bw, self.lt.sampling) = (0.0, false, false);
        self.lt_reset_interval();
    }

    /// An interval ended with rate `bw`: policed if it matches the previous interval's.
    fn lt_interval_done(&mut self, bw: f64) {
        if self.lt.bw > 0.0 {
            let diff = (bw - self.lt.bw).abs();
            let diff_bytes = Self::paced(diff, UNIT) * self.cfg.mss as f64;
            if diff <= LT_BW_RATIO * self.lt.bw || diff_bytes <= LT_BW_DIFF_BYTES {
                self.lt.bw = (bw + self.lt.bw) / 2.0;
                self.lt.use_bw = true;
                self.pacing_gain = UNIT;
                self.lt.rounds = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.lt_reset_interval();
    }

    /// Linux's `bbr_lt_bw_sampling`: intervals run from a loss to a loss, 4 to 16 rounds long.
    fn lt_sampling(&mut self, rs: &RateSample) {
        if self.lt.use_bw {
            if self.mode == BbrMode::ProbeBw && self.round_start {
                self.lt.rounds += 1;
                if self.lt.rounds >= LT_MAX_ROUNDS {
                    self.lt_reset();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // Wait for a loss: the policer's bucket is then empty and the rate is its rate.
        if !self.lt.sampling {
            if rs.losses == 0 {
                return;
            }
            self.lt_reset_interval();
            self.lt.sampling = true;
        }
        if rs.is_app_limited {
            self.lt_reset();
            return;
        }
        if self.round_start {
            self.lt.rounds += 1;
        }
        if self.lt.rounds < LT_MIN_ROUNDS {
            return;
        }
        if self.lt.rounds > 4 * LT_MIN_ROUNDS {
            self.lt_reset();
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost = self.lost - self.lt.last_lost;
        let delivered = self.delivered - self.lt.last_delivered;
        if delivered == 0 || (lost as f64) < LT_LOSS_THRESH * delivered as f64 {
            return;
        }
        let t = self.delivered_stamp - self.lt.last_stamp;
        if t < 0.001 {
            return;
        }
        self.lt_interval_done(delivered as f64 / t);
    }

    fn update_ack_aggregation(&mut self, s: &AckSample) {
        if s.rate.acked_sacked == 0 || s.rate.rate().is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            if self.extra_acked_rounds >= EXTRA_ACKED_ROUNDS {
                self.extra_acked_rounds = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0;
            }
        }
        let mut expected = (self.bw() * (self.delivered_stamp - self.epoch_stamp)).floor() as u64;
        // A new epoch when ACKs come no faster than bw predicts (or the epoch is very old).
        if self.epoch_acked <= expected || self.epoch_acked + s.rate.acked_sacked >= EPOCH_ACKED_RESET {
            self.epoch_acked = 0;
            self.epoch_stamp = self.delivered_stamp;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + s.rate.acked_sacked).min(EPOCH_ACKED_RESET - 1);
        let extra = (self.epoch_acked - expected).min(self.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_idx];
        *slot = (*slot).max(extra);
    }

    /// The cwnd that covers ACK aggregation, once the pipe is full.
    fn aggregation_cwnd(&self) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let max = (self.bw() * EXTRA_ACKED_MAX_TIME).floor() as u64;
        self.extra_acked[0].max(self.extra_acked[1]).min(max)
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = self.delivered_stamp;
    }

    /// A phase lasts a min_rtt; probing (5/4) lasts until the in-flight target is reached or a
    /// loss, draining (3/4) ends early once in flight falls to one BDP.
    fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
        let full_length = self.delivered_stamp - self.cycle_stamp > self.min_rtt;
        if self.pacing_gain == UNIT {
            return full_length;
        }
        let in_flight = self.in_net_at_departure(rs.prior_in_flight);
        let bw = self.bw.get();
        if self.pacing_gain > UNIT {
            full_length && (rs.losses > 0 || in_flight >= self.inflight(bw, self.pacing_gain))
        } else {
            full_length || in_flight <= self.inflight(bw, UNIT)
        }
    }

    fn reset_probe_bw_mode(&mut self) {
        self.mode = BbrMode::ProbeBw;
        // any phase but the 3/4 one: start at 7 - [0, 7) and advance
        self.cycle_idx = CYCLE_LEN - 1 - self.random_below(CYCLE_LEN as u64 - 1) as usize;
        self.advance_cycle_phase();
    }

    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = BbrMode::Startup;
        }
    }

    /// STARTUP filled the pipe when three rounds in a row grew bw by less than 25%.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let max_bw = self.bw.get();
        if max_bw >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = max_bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= FULL_BW_ROUNDS;
    }

    fn check_drain(&mut self, in_flight: u64) {
        if self.mode == BbrMode::Startup && self.full_bw_reached {
            self.mode = BbrMode::Drain;
            self.ssthresh = self.inflight(self.bw.get(), UNIT);
        }
        if self.mode == BbrMode::Drain && self.in_net_at_departure(in_flight) <= self.inflight(self.bw.get(), UNIT) {
            self.reset_probe_bw_mode();
        }
    }

    fn check_probe_rtt_done(&mut self, now: f64) {
        if !self.probe_rtt_done.is_some_and(|t| now > t) {
            return;
        }
        self.min_rtt_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    fn update_min_rtt(&mut self, s: &AckSample) {
        let now = s.now;
        let expired = now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(rtt) = s.rate.rtt {
            if rtt <= self.min_rtt || expired {
                self.min_rtt = rtt;
                self.min_rtt_stamp = now;
            }
        }
        if expired && !self.idle_restart && self.mode != BbrMode::ProbeRtt {
            self.mode = BbrMode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        self.app_limited_until = None;
        if self.mode == BbrMode::ProbeRtt {
            // the low rates of this mode say nothing of the path
            self.app_limited_until = Some((s.delivered + s.in_flight).max(1));
            match self.probe_rtt_done {
                None if s.in_flight <= MIN_CWND => {
                    self.probe_rtt_done = Some(now + PROBE_RTT_TIME);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = s.delivered;
                }
                Some(_) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done {
                        self.check_probe_rtt_done(now);
                    }
                }
                None => {}
            }
        }
        if s.rate.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            BbrMode::Startup => (HIGH_GAIN, HIGH_GAIN),
            BbrMode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            BbrMode::ProbeBw if self.lt.use_bw => (UNIT, CWND_GAIN),
            BbrMode::ProbeBw => (PACING_GAINS[self.cycle_idx], CWND_GAIN),
            BbrMode::ProbeRtt => (UNIT, UNIT),
        };
    }

    // ----- the window -----

    /// Packet conservation in the first round of a recovery; the cwnd saved before it is
    /// restored when recovery ends. Returns the window, and whether conservation decides it.
    fn recover_or_restore(&mut self, s: &AckSample, acked: u64) -> (u64, bool) {
        let mut cwnd = self.cwnd;
        if s.rate.losses > 0 {
            cwnd = cwnd.saturating_sub(s.rate.losses).max(1);
        }
        if s.state == CaState::Recovery && self.prev_state != CaState::Recovery {
            self.packet_conservation = true;
            self.next_round_delivered = s.delivered;
            cwnd = s.in_flight + acked;
        } else if self.prev_state >= CaState::Recovery && s.state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_state = s.state;
        if self.packet_conservation {
            (cwnd.max(s.in_flight + acked), true)
        } else {
            (cwnd, false)
        }
    }

    fn set_cwnd(&mut self, s: &AckSample, bw: f64) {
        let acked = s.rate.acked_sacked;
        let mut cwnd = self.cwnd;
        if acked > 0 {
            let (c, conserving) = self.recover_or_restore(s, acked);
            cwnd = c;
            if !conserving {
                let target = self.quantization_budget(self.bdp(bw, self.cwnd_gain) + self.aggregation_cwnd());
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || s.delivered < INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(MIN_CWND);
            }
        }
        self.cwnd = cwnd;
        if self.mode == BbrMode::ProbeRtt {
            self.cwnd = self.cwnd.min(MIN_CWND);
        }
    }
}

impl CongestionControl for Bbr {
    /// BBR needs the modern sender's rate samples; from the RFC 5681 sender's ACKs it takes
    /// only the RTT and keeps its window.
    fn on_ack(&mut self, ack: &Ack) {
        if let Some(rtt) = ack.rtt {
            self.min_rtt = self.min_rtt.min(rtt);
        }
    }

    fn on_congestion(&mut self, now: f64, signal: Signal, flight: f64) {
        let (event, flight) = crate::reno::signal_as_event(signal, flight);
        self.on_event(now, event, flight);
    }

    fn cwnd(&self) -> f64 {
        self.cwnd as f64
    }

    fn ssthresh(&self) -> f64 {
        if self.ssthresh >= INFINITE_SSTHRESH {
            f64::INFINITY
        } else {
            self.ssthresh as f64
        }
    }

    fn on_ack_sample(&mut self, _s: &AckSample) {}

    fn on_event(&mut self, now: f64, event: Event, flight: Flight) {
        match event {
            // Linux's `bbr_ssthresh`: remember the window; ssthresh itself is not BBR's tool.
            Event::EnterRecovery | Event::EnterCwr => self.save_cwnd(),
            Event::Rto { new_reduction } => {
                if new_reduction {
                    self.save_cwnd();
                }
                self.cwnd = flight.in_flight.max(0.0) as u64 + 1;
                self.lost = self.lost.max(flight.lost);
                // Linux's `bbr_set_state(TCP_CA_Loss)`: a timeout ends the round and counts
                // as a loss for the policer's sampling.
                self.prev_state = CaState::Loss;
                self.full_bw = 0.0;
                self.round_start = true;
                self.lt_sampling(&RateSample { losses: 1, ..Default::default() });
            }
            Event::TxStart { app_limited: true, .. } => {
                self.idle_restart = true;
                self.epoch_stamp = now;
                self.epoch_acked = 0;
                // restarting with little to send: no need to pace above bw
                match self.mode {
                    BbrMode::ProbeBw => self.set_pacing_rate(self.bw(), UNIT, None),
                    BbrMode::ProbeRtt => self.check_probe_rtt_done(now),
                    _ => {}
                }
            }
            // Linux's `bbr_undo_cwnd`: the slow-down was spurious, so the pipe may not be full
            // and the policer's evidence is void; cwnd is kept.
            Event::Undo => {
                (self.full_bw, self.full_bw_count) = (0.0, 0);
                self.lt_reset();
            }
            // Linux's `bbr_init`: min_rtt is the handshake's, and the pacing rate the window
            // the handshake left over it (SRTT is that one sample).
            Event::Established { rtt, cwnd } => {
                self.cwnd = (cwnd.round() as u64).max(1);
                (self.min_rtt, self.min_rtt_stamp) = (rtt, now);
                self.init_pacing_rate(Some(rtt));
            }
            Event::TxStart { .. } | Event::EndReduction | Event::IdleRestart { .. } => {}
        }
    }

    /// Linux's `bbr_main`.
    fn cong_control(&mut self, s: &AckSample) {
        (self.delivered, self.lost) = (s.delivered, s.lost);
        if s.rate.acked_sacked > 0 {
            self.delivered_stamp = s.now;
        }
        self.update_bw(s);
        self.update_ack_aggregation(s);
        if self.mode == BbrMode::ProbeBw && self.is_next_cycle_phase(&s.rate) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(&s.rate);
        self.check_drain(s.in_flight);
        self.update_min_rtt(s);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, s.srtt);
        self.set_cwnd(s, bw);
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate)
    }

    fn sets_cwnd_on_every_ack(&self) -> bool {
        true
    }

    fn app_limited_until(&self) -> Option<u64> {
        self.app_limited_until
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path that delivers `per_ack` segments per ACK at a chosen rate; every ACK here
    /// delivers a segment sent after the previous one was delivered, so each starts a round.
    struct Feed {
        now: f64,
        delivered: u64,
    }

    impl Feed {
        fn new() -> Feed {
            Feed { now: 0.0, delivered: 0 }
        }

        /// One ACK `dt` seconds on: 10 segments delivered at `bw` segments per second.
        fn sample(&mut self, dt: f64, bw: f64, rtt: f64, in_flight: u64) -> AckSample {
            self.now += dt;
            let prior = self.delivered;
            self.delivered += 10;
            AckSample {
                now: self.now,
                rate: RateSample {
                    delivered: 10,
                    interval: Some(10.0 / bw),
                    prior_delivered: prior,
                    acked_sacked: 10,
                    prior_in_flight: in_flight + 10,
                    rtt: Some(rtt),
                    ..Default::default()
                },
                acked: 10,
                delivered: self.delivered,
                in_flight,
                srtt: Some(rtt),
                cwnd_limited: true,
                ..Default::default()
            }
        }

        fn ack(&mut self, b: &mut Bbr, bw: f64, rtt: f64, in_flight: u64) {
            let s = self.sample(rtt, bw, rtt, in_flight);
            b.cong_control(&s);
        }
    }

    /// STARTUP to the full pipe at 440 segments/s, min RTT 100 ms; DRAIN; then PROBE_BW.
    fn through_startup(seed: u64) -> (Bbr, Feed) {
        let mut b = Bbr::new(BbrConfig { seed, ..Default::default() }, 10.0);
        let mut f = Feed::new();
        for bw in [100.0, 200.0, 300.0, 350.0, 400.0, 420.0, 430.0, 440.0] {
            f.ack(&mut b, bw, 0.1, 100);
        }
        f.ack(&mut b, 440.0, 0.1, 40);
        (b, f)
    }

    #[test]
    fn the_gains_are_linux_fixed_point() {
        // 2/ln 2 = 2.8854 -> 256 · 2.885 + 1 = 739 /256 = 2.8867; 1/2.885 -> 88/256 = 0.34375
        assert_eq!((HIGH_GAIN, DRAIN_GAIN), (2.88671875, 0.34375));
        let mut b = Bbr::new(BbrConfig::default(), 10.0);
        for (mode, gains) in [
            (BbrMode::Startup, (HIGH_GAIN, HIGH_GAIN)),
            (BbrMode::Drain, (0.34375, HIGH_GAIN)),
            (BbrMode::ProbeRtt, (1.0, 1.0)),
        ] {
            b.mode = mode;
            b.update_gains();
            assert_eq!((b.pacing_gain(), b.cwnd_gain()), gains, "{mode:?}");
        }
        b.mode = BbrMode::ProbeBw;
        for (idx, gain) in [(0, 1.25), (1, 0.75), (2, 1.0), (7, 1.0)] {
            b.cycle_idx = idx;
            b.update_gains();
            assert_eq!((b.pacing_gain(), b.cwnd_gain()), (gain, 2.0));
        }
    }

    #[test]
    fn the_initial_pacing_rate_is_the_high_gain_on_the_initial_window() {
        let b = Bbr::new(BbrConfig::default(), 10.0);
        // no RTT yet: 10 segments per nominal 1 ms · 2.8867 · 0.99 = 28578.515625 segments/s
        assert!((b.pacing_rate().unwrap() - 28_578.515625).abs() < 1e-6);
        let mut b = Bbr::new(BbrConfig::default(), 10.0);
        let mut f = Feed::new();
        // the first ACK brings srtt 100 ms: 10 / 0.1 · 2.8867 · 0.99 = 285.785; the sample's
        // 50 segments/s · 2.8867 · 0.99 = 142.9 is lower, and STARTUP never lowers the rate
        f.ack(&mut b, 50.0, 0.1, 10);
        assert!((b.pacing_rate().unwrap() - 285.78515625).abs() < 1e-9);
    }

    #[test]
    fn the_handshake_gives_min_rtt_and_the_first_pacing_rate() {
        let mut b = Bbr::new(BbrConfig::default(), 10.0);
        // a SYN-ACK 40 ms after the SYN, at 0.04 s: min_rtt 0.04 stamped then, and the rate
        // 10 segments / 0.04 s · 739/256 · 0.99 = 250 · 2.857 = 714.462890625 segments/s
        b.on_event(0.04, Event::Established { rtt: 0.04, cwnd: 10.0 }, Flight::default());
        assert_eq!((b.min_rtt(), b.min_rtt_stamp), (0.04, 0.04));
        assert!((b.pacing_rate().unwrap() - 714.462890625).abs() < 1e-9);
    }

    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth() {
        let mut b = Bbr::new(BbrConfig::default(), 10.0);
        let mut f = Feed::new();
        // full_bw: 100, 200, 300 (each >= 1.25x); 350 < 375: 1 round; 400 >= 375 resets;
        // 420, 430, 440 < 500: rounds 1, 2, 3 -> full
        for bw in [100.0, 200.0, 300.0, 350.0, 400.0, 420.0, 430.0] {
            f.ack(&mut b, bw, 0.1, 100);
            assert_eq!(b.mode(), BbrMode::Startup);
        }
        assert_eq!(b.full_bw_count, 2);
        f.ack(&mut b, 440.0, 0.1, 100);
        assert!(b.full_bw_reached());
        // DRAIN, with ssthresh the 1.0 in-flight target: BDP 440 · 0.1 = 44, + 3 quanta of 2
        // (1 ms at ~1230 segments/s of 1448 bytes is under 2) = 50
        assert_eq!((b.mode(), b.ssthresh()), (BbrMode::Drain, 50.0));
        assert_eq!(b.pacing_gain(), DRAIN_GAIN);
        // 40 in flight <= 50: drained
        f.ack(&mut b, 440.0, 0.1, 40);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
    }

    #[test]
    fn app_limited_rounds_do_not_count_towards_a_full_pipe() {
        let mut b = Bbr::new(BbrConfig::default(), 10.0);
        let mut f = Feed::new();
        f.ack(&mut b, 100.0, 0.1, 100);
        for _ in 0..5 {
            let mut s = f.sample(0.1, 100.0, 0.1, 100);
            s.rate.is_app_limited = true;
            b.cong_control(&s);
        }
        assert_eq!((b.full_bw_count, b.mode()), (0, BbrMode::Startup));
    }

    #[test]
    fn an_app_limited_sample_lowers_no_estimate_but_may_raise_it() {
        let mut b = Bbr::new(BbrConfig::default(), 10.0);
        let mut f = Feed::new();
        f.ack(&mut b, 400.0, 0.1, 100);
        let mut s = f.sample(0.1, 100.0, 0.1, 100);
        s.rate.is_app_limited = true;
        b.cong_control(&s);
        assert!((b.bw() - 400.0).abs() < 1e-9);
        let mut s = f.sample(0.1, 500.0, 0.1, 100);
        s.rate.is_app_limited = true;
        b.cong_control(&s);
        assert!((b.bw() - 500.0).abs() < 1e-9);
    }

    #[test]
    fn the_bandwidth_filter_keeps_the_max_of_ten_rounds() {
        let mut m = MaxFilter::default();
        m.update(10, 1, 100.0);
        for t in 2..=11 {
            m.update(10, t, 50.0);
        }
        // round 11: the 100 of round 1 is 10 rounds old, still in the window
        assert_eq!(m.get(), 100.0);
        // round 12: it expired; the best since is a 50
        m.update(10, 12, 40.0);
        assert_eq!(m.get(), 50.0);
    }

    #[test]
    fn the_in_flight_target_is_the_bdp_plus_the_quantization_budget() {
        let mut b = Bbr::new(BbrConfig::default(), 10.0);
        (b.min_rtt, b.mode, b.cycle_idx) = (0.05, BbrMode::ProbeBw, 2);
        // 990 segments/s of 1448 B = 1.43 MB/s: 1 ms is 1400 B, under a segment -> quantum 2
        b.pacing_rate = 990.0;
        assert_eq!(b.send_quantum(), 2);
        // 2 · 1000 · 0.05 = 100, + 3 · 2 = 106
        assert_eq!(b.inflight(1000.0, 2.0), 106);
        // 1000 · 0.051 = 51 (odd), + 6 = 57, rounded up to even: 58
        b.min_rtt = 0.051;
        assert_eq!(b.inflight(1000.0, 1.0), 58);
        // in the 5/4 phase two more: 100 + 6 + 2 = 108
        (b.min_rtt, b.cycle_idx) = (0.05, 0);
        assert_eq!(b.inflight(1000.0, 2.0), 108);
        // quanta: 100k segments/s is 141 kB per ms, capped at 65215 B = 45 segments;
        // 100 segments/s (144.8 kB/s, under 1.2 Mbit/s) sends one at a time
        b.pacing_rate = 100_000.0;
        assert_eq!(b.send_quantum(), 45);
        b.pacing_rate = 100.0;
        assert_eq!(b.send_quantum(), 1);
        // no RTT sample yet: the initial window
        b.min_rtt = f64::INFINITY;
        assert_eq!(b.bdp(1000.0, 2.0), 10);
    }

    #[test]
    fn cwnd_snaps_to_the_target_once_the_pipe_is_full() {
        let (mut b, mut f) = through_startup(1);
        // PROBE_BW at 440/s, 100 ms: pacing 440 · gain · 0.99 >= 326/s = 472 kB/s: quantum 2.
        // cwnd target = 2 · 44 = 88, + 10 for ACK aggregation (each ACK here delivers 10 at
        // once, under the cap of 100 ms of bw = 44), + 6 = 104 (+ 2 in phase 0); cwnd grew
        // past it in STARTUP
        f.ack(&mut b, 440.0, 0.1, 60);
        let expected = if b.cycle_index() == 0 { 106.0 } else { 104.0 };
        assert_eq!(b.cwnd(), expected);
    }

    #[test]
    fn probe_bw_starts_at_a_random_phase_but_never_the_draining_one() {
        let mut seen = [false; CYCLE_LEN];
        for seed in 0..200 {
            let (b, _) = through_startup(seed);
            assert_eq!(b.mode(), BbrMode::ProbeBw);
            seen[b.cycle_index()] = true;
        }
        // 7 - [0, 7) is 1..=7; advanced: 2..=7 and 0
        assert_eq!(seen, [true, false, true, true, true, true, true, true]);
    }

    #[test]
    fn the_cycle_advances_after_a_min_rtt_or_when_the_phase_did_its_job() {
        let (mut b, mut f) = through_startup(3);
        let s = |f: &mut Feed, dt: f64, in_flight: u64| f.sample(dt, 440.0, 0.1, in_flight);
        // a 1.0 phase: only time counts (min_rtt 0.1 s since the phase began)
        (b.cycle_idx, b.pacing_gain, b.cycle_stamp) = (3, 1.0, f.now);
        b.cong_control(&s(&mut f, 0.09, 44));
        assert_eq!(b.cycle_index(), 3);
        b.cong_control(&s(&mut f, 0.02, 44));
        assert_eq!(b.cycle_index(), 4);
        // 5/4: a min_rtt AND in flight >= the 5/4 target: 1.25 · 44 = 55, + 6 = 61, even 62,
        // + 2 in this phase = 64; prior_in_flight is in_flight + 10, and a quantum (2) is added
        (b.cycle_idx, b.pacing_gain, b.cycle_stamp) = (0, 1.25, f.now);
        b.cong_control(&s(&mut f, 0.11, 40)); // 50 + 2 < 64
        assert_eq!(b.cycle_index(), 0);
        b.pacing_gain = 1.25;
        b.cong_control(&s(&mut f, 0.01, 52)); // 62 + 2 = 64
        assert_eq!(b.cycle_index(), 1);
        // 3/4: ends early once in flight is down to the 1.0 target, 44 + 6 = 50
        b.cong_control(&s(&mut f, 0.01, 45)); // 55 > 50
        assert_eq!(b.cycle_index(), 1);
        b.cong_control(&s(&mut f, 0.01, 40)); // 50
        assert_eq!(b.cycle_index(), 2);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_without_a_new_min_rtt() {
        let (mut b, mut f) = through_startup(5);
        f.ack(&mut b, 440.0, 0.1, 60);
        let before = b.cwnd() as u64;
        // 10.05 s later an RTT of 120 ms: the 100 ms sample expired; the new one replaces it
        let entry = b.min_rtt_stamp + 10.05;
        let mut s = f.sample(entry - f.now, 440.0, 0.12, 30);
        b.cong_control(&s);
        assert_eq!((b.mode(), b.cwnd(), b.min_rtt()), (BbrMode::ProbeRtt, 4.0, 0.12));
        assert_eq!((b.prior_cwnd, b.pacing_gain(), b.cwnd_gain()), (before, 1.0, 1.0));
        assert!(b.app_limited_until().is_some(), "ProbeRTT's samples are app-limited");
        // in flight down to 4: 200 ms from now, and a round
        s = f.sample(0.05, 440.0, 0.12, 4);
        b.cong_control(&s);
        assert_eq!(b.probe_rtt_done, Some(f.now + 0.2));
        let done = f.now + 0.2;
        b.cong_control(&f.sample(0.1, 440.0, 0.12, 4)); // the round, not the time
        assert_eq!(b.mode(), BbrMode::ProbeRtt);
        b.cong_control(&f.sample(0.11, 440.0, 0.12, 4)); // both
        assert!(f.now > done);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
        assert_eq!(b.min_rtt_stamp, f.now);
        // the saved cwnd is back, and grows by the 10 delivered within the new target:
        // 2 · 440 · 0.12 = 105.6 -> 106, + 10 aggregation + 6 = 122
        let target = if b.cycle_index() == 0 { 124 } else { 122 };
        assert_eq!(b.cwnd() as u64, (before + 10).min(target));
    }

    #[test]
    fn the_first_round_of_recovery_conserves_packets_and_its_end_restores_cwnd() {
        let mut b = Bbr::new(BbrConfig::default(), 50.0);
        (b.full_bw_reached, b.mode, b.cycle_idx, b.min_rtt) = (true, BbrMode::ProbeBw, 2, 0.1);
        b.bw.update(BW_ROUNDS, 0, 1000.0);
        b.next_round_delivered = 1000;
        let ack = |prior_delivered: u64, delivered: u64, in_flight: u64, losses: u64, state: CaState| AckSample {
            now: 1.0,
            rate: RateSample {
                delivered: 10,
                interval: Some(0.01),
                prior_delivered,
                acked_sacked: 2,
                losses,
                rtt: Some(0.1),
                ..Default::default()
            },
            acked: 2,
            delivered,
            in_flight,
            state,
            ..Default::default()
        };
        b.min_rtt_stamp = 1.0;
        b.on_event(1.0, Event::EnterRecovery, Flight::default());
        assert_eq!(b.prior_cwnd, 50);
        // the first ACK in recovery: cwnd = in flight 30 + delivered 2 = 32 (losses 3 first)
        b.cong_control(&ack(990, 1002, 30, 3, CaState::Recovery));
        assert_eq!(b.cwnd(), 32.0);
        // same round (995 < 1002): still max(32, 29 + 2)
        b.cong_control(&ack(995, 1004, 29, 0, CaState::Recovery));
        assert_eq!(b.cwnd(), 32.0);
        // a new round: conservation ends, slow start towards the target: 32 + 2
        b.cong_control(&ack(1002, 1006, 29, 0, CaState::Recovery));
        assert_eq!(b.cwnd(), 34.0);
        // recovery over: the saved 50 is back, + 2
        b.cong_control(&ack(1003, 1008, 29, 0, CaState::Open));
        assert_eq!(b.cwnd(), 52.0);
        assert!(b.sets_cwnd_on_every_ack());
    }

    #[test]
    fn a_timeout_leaves_one_segment_and_ends_the_round() {
        let (mut b, _) = through_startup(1);
        b.on_event(2.0, Event::Rto { new_reduction: true }, Flight { outstanding: 40.0, in_flight: 0.0, lost: 40 });
        assert_eq!((b.cwnd(), b.round_start, b.full_bw, b.prev_state), (1.0, true, 0.0, CaState::Loss));
    }

    #[test]
    fn an_undo_restarts_the_full_pipe_detection_and_keeps_cwnd() {
        let (mut b, _) = through_startup(1);
        assert!(b.full_bw > 0.0);
        b.full_bw_count = 2;
        let cwnd = b.cwnd();
        b.on_event(2.0, Event::Undo, Flight::default());
        assert_eq!((b.full_bw, b.full_bw_count, b.cwnd()), (0.0, 0, cwnd));
    }

    #[test]
    fn two_lossy_intervals_at_one_rate_mean_a_policer() {
        let (mut b, mut f) = through_startup(2);
        let mut lost = 0;
        // Each round delivers 10 and loses 3 (30% > 50/256 = 19.5%), 0.1 s per round: 100/s.
        // An interval starts at the first loss and ends at a loss after >= 4 rounds.
        let mut round = |b: &mut Bbr, f: &mut Feed| {
            let mut s = f.sample(0.1, 100.0, 0.1, 20);
            lost += 3;
            (s.rate.losses, s.lost) = (3, lost);
            b.cong_control(&s);
        };
        round(&mut b, &mut f); // sampling starts here
        for _ in 0..4 {
            round(&mut b, &mut f);
        }
        // the interval began at the first loss (round 1 of it); at its 4th round 30 more were
        // delivered in 0.3 s with 9 lost (30% >= 19.5%): 100/s, the first interval
        assert!((b.lt.bw - 100.0).abs() < 1e-6 && !b.lt.use_bw);
        for _ in 0..4 {
            round(&mut b, &mut f);
        }
        // the second: 4 rounds, 40 in 0.4 s = 100/s, within 1/8 of the first: policed; pace at
        // the mean, 100/s, with gain 1 and the 1% margin: 99/s
        assert!(b.lt.use_bw);
        assert!((b.bw() - 100.0).abs() < 1e-6);
        assert_eq!(b.pacing_gain(), 1.0);
        assert!((b.pacing_rate().unwrap() - 99.0).abs() < 1e-6);
    }
}
