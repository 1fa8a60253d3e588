//! Congestion control, sans-IO: the algorithms know no packets, no events and no clock.
//!
//! A sender tells its controller what happened (an ACK with its RTT sample, a congestion signal)
//! and reads back the window; a pacer tells it when the next segment may leave. Every call takes
//! `now` in seconds, so the same code runs in the simulator and in a unit test that sets state,
//! feeds events and checks exact values. Windows are in segments.
//!
//! - `newreno`: RFC 5681's slow start and congestion avoidance, the loss-based baseline.
//! - `vegas`: TCP Vegas as Brakmo and Peterson describe it, with the Linux/ns-3 parameters, and
//!   the enhancements of Yew et al.: `progressive` cwnd steps and the ECN `measure` of congestion.
//! - `fast`: FAST TCP's window law.
//! - `reno`: Linux's Reno (`tcp_reno_cong_avoid`, `tcp_reno_ssthresh`). It differs from
//!   `newreno` in three ways: ssthresh is half the *cwnd* (RFC 5681 says half the flight size),
//!   slow start grows by every segment an ACK delivers (RFC 3465's L = ∞ rather than one per
//!   ACK), and cwnd is a whole number of segments grown by a counter (`snd_cwnd_cnt`) rather than
//!   by 1/cwnd fractions. It also grows only while the sender is cwnd-limited.
//! - `cubic`: RFC 9438 CUBIC as Linux's `tcp_cubic` computes it, with HyStart.
//! - `bbr`: Linux's `tcp_bbr` (BBR v1): a model of bottleneck bandwidth and min RTT that sets the
//!   pacing rate and cwnd itself on every ACK.
//! - `dctcp`: RFC 8257 DCTCP as Linux's `tcp_dctcp`: a cut in proportion to the ECN-marked
//!   fraction, Reno otherwise.
//! - `pacer`: a token bucket at cwnd/RTT, which is both packet spacing and leaky-bucket gaps.
//! - `rto`: RFC 6298's retransmission timer.
//!
//! # Two ways to drive a controller
//!
//! The rfc sender of RFC 5681/6582 calls `on_ack` for each new cumulative ACK outside recovery,
//! and `on_congestion` once per congestion event; the controller cuts cwnd at once. NewReno,
//! Vegas and FAST are written for it; Reno, CUBIC and DCTCP answer it too (as the events below),
//! BBR does not (it needs rate samples: from `on_ack` it takes only the RTT).
//!
//! A modern sender (SACK, RACK-TLP, PRR, delivery-rate estimation, pacing) drives a controller
//! as Linux drives `tcp_congestion_ops`, and every controller, old or new, answers it (the
//! defaulted methods translate it for the old ones). Each ACK, in every state, is an
//! [`AckSample`]: the ACK's [`RateSample`] (Linux's
//! `rate_sample`), what it acknowledged cumulatively, the segments it delivered with an ECN
//! echo, the sender's totals, its state ([`CaState`]) and whether it was cwnd-limited. The
//! sender makes three kinds of call, in Linux's order within `tcp_ack`:
//!
//! 1. `on_ack_sample(&sample)` once the scoreboard is updated and before any change of state:
//!    the controller learns (Linux's `in_ack_event` and `pkts_acked`: DCTCP's alpha, CUBIC's
//!    min delay and HyStart). It does not touch cwnd.
//! 2. `on_event(now, event, flight)` for each change of state ([`Event`]): entering fast
//!    recovery or CWR (the controller sets `ssthresh()` to the window it wants after the
//!    reduction, Linux's `ssthresh()`, and cwnd with it), the end of the reduction, an RTO, the
//!    start of transmission with nothing in flight (`CA_EVENT_TX_START`), the restart after
//!    an idle period longer than the RTO (`tcp_cwnd_restart`), and the undo of a spurious
//!    reduction. As in Linux, a recovery that begins during a CWR reduction keeps its ssthresh:
//!    the sender then reports no `EnterRecovery`.
//! 3. `cong_control(&sample)`, with `state` the state after step 2: the window step (Linux's
//!    `tcp_cong_control`). A controller grows cwnd only outside a reduction (`CaState::Cwr` and
//!    `Recovery`), for an ACK that advanced the cumulative ACK, while cwnd-limited, as Linux
//!    calls `cong_avoid` only then.
//!
//! - During a reduction the sender's PRR (RFC 6937, Linux's `tcp_cwnd_reduction`) owns the
//!   window: it glides from the cwnd before the event down to `ssthresh()`, and when the
//!   reduction ends the controller's `cwnd()` (then equal to `ssthresh()`, as Linux's
//!   `tcp_end_cwnd_reduction` sets it) is the window again. A controller whose
//!   `sets_cwnd_on_every_ack()` is true (BBR, Linux's `cong_control`) sets cwnd on every ACK
//!   itself, during recovery too, and PRR stands aside.
//! - After an RTO the controller's cwnd is what is still in flight plus one (Linux's
//!   `tcp_enter_loss`), and it slow-starts from there in `CaState::Loss`.
//! - `pacing_rate()`: the rate the controller wants, in **segments per second**, or None to
//!   leave pacing to the sender (Linux's `tcp_update_pacing_rate`: cwnd/srtt at 200% in slow
//!   start, 120% after).
//! - `app_limited_until()`: read after `cong_control`; BBR's ProbeRTT asks the sender's rate
//!   estimator to mark its samples app-limited until the delivered total passes this.
//!
//! Units: segments, seconds, and segments per second; sequence numbers count segments.

pub mod bbr;
pub mod cubic;
pub mod dctcp;
pub mod fast;
pub mod measure;
pub mod newreno;
pub mod pacer;
pub mod progressive;
pub mod reno;
pub mod rto;
pub mod vegas;

pub use bbr::{Bbr, BbrConfig, BbrMode};
pub use cubic::{Cubic, CubicConfig};
pub use dctcp::{Dctcp, DctcpConfig};
pub use fast::{Fast, FastConfig};
pub use newreno::NewReno;
pub use pacer::{Pacer, PacingConfig, RttSource};
pub use progressive::Progressive;
pub use reno::Reno;
pub use rto::Rto;
pub use vegas::{EpochRtt, SlowStart, Vegas, VegasConfig};

/// What one ACK tells the controller. Sequence numbers count segments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ack {
    pub now: f64,
    /// Segments newly acknowledged by this ACK (0 for a duplicate).
    pub acked: u64,
    /// The first unacknowledged segment after this ACK.
    pub snd_una: u64,
    /// The next new segment the sender will send.
    pub snd_nxt: u64,
    /// The round-trip time this ACK measured, in seconds.
    pub rtt: Option<f64>,
}

/// A sign of congestion the sender detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// A loss repaired by fast retransmit (three duplicate ACKs).
    Loss,
    /// The retransmission timer expired.
    Timeout,
    /// An ECN echo, at most once per window (RFC 3168).
    Ecn,
}

/// The sender's loss-recovery state, as Linux's `icsk_ca_state` (ordered as Linux orders it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum CaState {
    /// Nothing wrong.
    #[default]
    Open,
    /// Duplicate ACKs or SACKs seen, no loss decided yet.
    Disorder,
    /// Reducing the window for an ECN echo (RFC 3168 §6.1.2).
    Cwr,
    /// Fast recovery (RFC 6675 with PRR).
    Recovery,
    /// Recovering after a retransmission timeout.
    Loss,
}

impl CaState {
    /// The sender's PRR is reducing the window (Linux's `tcp_in_cwnd_reduction`).
    pub fn reducing(self) -> bool {
        matches!(self, CaState::Cwr | CaState::Recovery)
    }
}

/// One ACK's delivery-rate sample, as Linux's tcp_rate.c makes it (draft-cheng-iccrg-delivery-
/// rate-estimation). Counts are segments.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RateSample {
    /// Segments delivered over `interval`.
    pub delivered: u64,
    /// The sample's span in seconds: the longer of the send and the ACK intervals of the newest
    /// segment delivered. None: no valid sample (Linux's `interval_us` of -1).
    pub interval: Option<f64>,
    /// The sender's delivered total when that newest segment was sent.
    pub prior_delivered: u64,
    /// The sample was taken while the application, not the network, limited sending.
    pub is_app_limited: bool,
    /// Segments this ACK newly delivered, cumulatively or by SACK (Linux's `acked_sacked`).
    pub acked_sacked: u64,
    /// Segments this ACK newly marked lost.
    pub losses: u64,
    /// Segments in flight before this ACK.
    pub prior_in_flight: u64,
    /// The RTT of the last sent segment this ACK delivered that was never retransmitted, else,
    /// for an ACK that advanced the cumulative ACK, its timestamp echo's (Linux's `rtt_us`,
    /// `ca_rtt_us`, which CUBIC's `pkts_acked` also receives), in seconds.
    pub rtt: Option<f64>,
}

impl RateSample {
    /// The delivery rate in segments per second, when the sample is valid.
    pub fn rate(&self) -> Option<f64> {
        self.interval.filter(|&i| i > 0.0).map(|i| self.delivered as f64 / i)
    }
}

/// Everything one ACK tells a controller that a modern sender drives (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AckSample {
    pub now: f64,
    pub rate: RateSample,
    /// Segments newly acknowledged cumulatively (Linux's `pkts_acked`); more than 0 is Linux's
    /// `FLAG_DATA_ACKED`, which a window needs to grow.
    pub acked: u64,
    /// Of `rate.acked_sacked`, the segments delivered by an ACK carrying ECN-Echo (what Linux adds
    /// to `delivered_ce`).
    pub ece_delivered: u64,
    /// The sender's totals since the start: segments delivered and segments marked lost (Linux's
    /// `tp->delivered`, `tp->lost`).
    pub delivered: u64,
    pub lost: u64,
    /// The first unacknowledged segment and the next new one after this ACK.
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Segments in flight after this ACK (RFC 6675's pipe, Linux's `tcp_packets_in_flight`).
    pub in_flight: u64,
    /// The sender's smoothed RTT, once it has one.
    pub srtt: Option<f64>,
    /// The sender's state (before its changes for this ACK in `on_ack_sample`, after them in
    /// `cong_control`).
    pub state: CaState,
    /// The sender used its whole window lately (Linux's `tcp_is_cwnd_limited`): an unused window
    /// does not grow.
    pub cwnd_limited: bool,
}

/// How much is outstanding when an [`Event`] happens, in segments.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Flight {
    /// RFC 5681's FlightSize: sent and not cumulatively acknowledged.
    pub outstanding: f64,
    /// Linux's `tcp_packets_in_flight`, RFC 6675's pipe: outstanding, less what is SACKed or
    /// deemed lost, plus retransmissions in flight.
    pub in_flight: f64,
    /// The sender's total of segments marked lost, this event's included (Linux's `tp->lost`).
    pub lost: u64,
}

/// A change in the sender's state that a controller hears of (Linux's `set_state` and
/// `cwnd_event`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Event {
    /// The handshake is over: the SYN-ACK came `rtt` seconds after the SYN it answers, and the
    /// window starts at `cwnd` segments (Linux's `tcp_init_transfer` sets the window, the
    /// initial one or one segment after lost SYNs, then initialises the controller).
    Established { rtt: f64, cwnd: f64 },
    /// Fast recovery begins: a loss found by duplicate ACKs, SACK or RACK.
    EnterRecovery,
    /// An ECN echo begins a window reduction (RFC 3168 §6.1.2, Linux's `tcp_enter_cwr`).
    EnterCwr,
    /// The recovery or CWR reduction is over: the cumulative ACK passed its recovery point.
    EndReduction,
    /// The retransmission timer expired. `new_reduction` is false when it struck during a
    /// recovery whose reduction already counted: Linux's `tcp_enter_loss` then keeps ssthresh.
    Rto { new_reduction: bool },
    /// Sending starts with nothing in flight (Linux's `CA_EVENT_TX_START`), `idle` seconds after
    /// the last send; `app_limited` if the application had run dry.
    TxStart { idle: f64, app_limited: bool },
    /// Sending resumes after `idle` seconds, longer than `rto` (RFC 5681 §4.1, Linux's
    /// `tcp_cwnd_restart`); `initial` is the initial window.
    IdleRestart { idle: f64, rto: f64, initial: f64 },
    /// The sender found the last loss reduction spurious (DSACK or timestamps, Linux's
    /// `tcp_try_undo_*`): the window before it comes back (Linux's `undo_cwnd`).
    Undo,
}

/// The interface every algorithm offers the sender. The first five methods are what the
/// RFC 5681 sender calls; the defaulted rest are what a modern sender calls (see the module
/// comment), and their defaults translate it for the controllers written for the first.
pub trait CongestionControl {
    /// A new cumulative ACK outside loss recovery.
    fn on_ack(&mut self, ack: &Ack);
    /// An ECN echo arrived (before the sender decides whether to react to it as a `Signal`).
    fn on_ecn_echo(&mut self, _now: f64) {}
    /// React to a congestion signal; `flight` is the number of segments outstanding.
    fn on_congestion(&mut self, now: f64, signal: Signal, flight: f64);
    /// The congestion window, in segments.
    fn cwnd(&self) -> f64;
    /// The slow-start threshold, in segments; after a reduction event, the window the
    /// controller wants the sender's PRR to reach.
    fn ssthresh(&self) -> f64;

    /// Step 1 of an ACK: learn from it, before the sender changes state.
    fn on_ack_sample(&mut self, s: &AckSample) {
        if s.ece_delivered > 0 {
            self.on_ecn_echo(s.now);
        }
    }

    /// A change of the sender's state.
    fn on_event(&mut self, now: f64, event: Event, flight: Flight) {
        let signal = match event {
            Event::EnterRecovery => Signal::Loss,
            Event::EnterCwr => Signal::Ecn,
            Event::Rto { .. } => Signal::Timeout,
            _ => return,
        };
        self.on_congestion(now, signal, flight.outstanding);
    }

    /// Step 3 of an ACK: the window step, after the sender's state changes.
    fn cong_control(&mut self, s: &AckSample) {
        if s.acked > 0 && !s.state.reducing() {
            let ack = Ack { now: s.now, acked: s.acked, snd_una: s.snd_una, snd_nxt: s.snd_nxt, rtt: s.rate.rtt };
            self.on_ack(&ack);
        }
    }

    /// The pacing rate the controller sets, in segments per second; None leaves it to the
    /// sender.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }

    /// The controller sets cwnd itself on every ACK, in recovery too (Linux's `cong_control`),
    /// so the sender's PRR stands aside.
    fn sets_cwnd_on_every_ack(&self) -> bool {
        false
    }

    /// Rate samples of segments sent before the delivered total passes this are to be marked
    /// app-limited (BBR's ProbeRTT sets Linux's `tp->app_limited` so); read after
    /// `cong_control`.
    fn app_limited_until(&self) -> Option<u64> {
        None
    }
}

/// The controllers a sender can hold (an enum rather than a trait object: no indirection per
/// ACK, and the scenario names them).
#[derive(Debug, Clone)]
pub enum Controller {
    NewReno(NewReno),
    Vegas(Vegas),
    Fast(Fast),
    Reno(Reno),
    Cubic(Cubic),
    Bbr(Bbr),
    Dctcp(Dctcp),
}

impl Controller {
    fn get(&self) -> &dyn CongestionControl {
        match self {
            Controller::NewReno(c) => c,
            Controller::Vegas(c) => c,
            Controller::Fast(c) => c,
            Controller::Reno(c) => c,
            Controller::Cubic(c) => c,
            Controller::Bbr(c) => c,
            Controller::Dctcp(c) => c,
        }
    }

    fn get_mut(&mut self) -> &mut dyn CongestionControl {
        match self {
            Controller::NewReno(c) => c,
            Controller::Vegas(c) => c,
            Controller::Fast(c) => c,
            Controller::Reno(c) => c,
            Controller::Cubic(c) => c,
            Controller::Bbr(c) => c,
            Controller::Dctcp(c) => c,
        }
    }
}

impl CongestionControl for Controller {
    fn on_ack(&mut self, ack: &Ack) {
        self.get_mut().on_ack(ack)
    }
    fn on_ecn_echo(&mut self, now: f64) {
        self.get_mut().on_ecn_echo(now)
    }
    fn on_congestion(&mut self, now: f64, signal: Signal, flight: f64) {
        self.get_mut().on_congestion(now, signal, flight)
    }
    fn cwnd(&self) -> f64 {
        self.get().cwnd()
    }
    fn ssthresh(&self) -> f64 {
        self.get().ssthresh()
    }
    fn on_ack_sample(&mut self, s: &AckSample) {
        self.get_mut().on_ack_sample(s)
    }
    fn on_event(&mut self, now: f64, event: Event, flight: Flight) {
        self.get_mut().on_event(now, event, flight)
    }
    fn cong_control(&mut self, s: &AckSample) {
        self.get_mut().cong_control(s)
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.get().pacing_rate()
    }
    fn sets_cwnd_on_every_ack(&self) -> bool {
        self.get().sets_cwnd_on_every_ack()
    }
    fn app_limited_until(&self) -> Option<u64> {
        self.get().app_limited_until()
    }
}

/// RFC 5681's reaction to a loss: half the flight, at least two segments.
pub fn half_flight(flight: f64) -> f64 {
    (flight / 2.0).max(2.0)
}

/// RFC 5681's (and RFC 3168's) reaction to `signal`: (cwnd, ssthresh). ssthresh is half the
/// flight; cwnd falls to it, or to one segment after a timeout.
pub fn reno_reaction(signal: Signal, flight: f64) -> (f64, f64) {
    let ssthresh = half_flight(flight);
    match signal {
        Signal::Loss | Signal::Ecn => (ssthresh, ssthresh),
        Signal::Timeout => (1.0, ssthresh),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The modern sender's calls for one new cumulative ACK of `acked` segments, in state Open.
    fn modern_ack(c: &mut Controller, now: f64, acked: u64, snd_una: u64) {
        let s = AckSample {
            now,
            rate: RateSample { acked_sacked: acked, rtt: Some(0.1), ..Default::default() },
            acked,
            snd_una,
            snd_nxt: snd_una + 20,
            cwnd_limited: true,
            ..Default::default()
        };
        c.on_ack_sample(&s);
        c.cong_control(&s);
    }

    #[test]
    fn the_modern_calls_drive_the_rfc_5681_controllers_as_the_old_ones_do() {
        let mut old = Controller::NewReno(NewReno::new(2.0));
        let mut new = old.clone();
        old.on_ack(&Ack { now: 1.0, acked: 1, snd_una: 1, snd_nxt: 21, rtt: Some(0.1) });
        modern_ack(&mut new, 1.0, 1, 1);
        assert_eq!(old.cwnd(), 3.0);
        assert_eq!(new.cwnd(), old.cwnd());
        // a loss with 12 outstanding, 5 still in the pipe: RFC 5681 halves the outstanding 12
        old.on_congestion(2.0, Signal::Loss, 12.0);
        new.on_event(2.0, Event::EnterRecovery, Flight { outstanding: 12.0, in_flight: 5.0, lost: 1 });
        assert_eq!((new.cwnd(), new.ssthresh()), (6.0, 6.0));
        assert_eq!((new.cwnd(), new.ssthresh()), (old.cwnd(), old.ssthresh()));
        // no growth while the sender's PRR reduces the window
        let s = AckSample { acked: 1, state: CaState::Recovery, ..Default::default() };
        new.cong_control(&s);
        assert_eq!(new.cwnd(), 6.0);
        assert_eq!((new.pacing_rate(), new.sets_cwnd_on_every_ack()), (None, false));
    }

    #[test]
    fn an_ece_delivery_reaches_the_legacy_echo_hook() {
        // Vegas with the congestion measure cuts by 1/4 on a loss only after an echo: 8 -> 6
        let cfg = VegasConfig { congestion_measure: true, ..Default::default() };
        for (echoes, cwnd) in [(0, 8.0), (1, 6.0)] {
            let mut c = Vegas::new(cfg.clone(), 8.0);
            c.on_ack_sample(&AckSample { now: 3.0, ece_delivered: echoes, ..Default::default() });
            c.on_event(3.0, Event::EnterRecovery, Flight { outstanding: 8.0, ..Default::default() });
            assert_eq!(c.cwnd(), cwnd);
        }
    }

    #[test]
    fn a_rate_sample_is_valid_with_an_interval() {
        let r = RateSample { delivered: 10, interval: Some(0.05), ..Default::default() };
        assert_eq!(r.rate(), Some(200.0));
        assert_eq!(RateSample { interval: None, ..r }.rate(), None);
        assert_eq!(RateSample { interval: Some(0.0), ..r }.rate(), None);
    }
}
