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
//! - `pacer`: a token bucket at cwnd/RTT, which is both packet spacing and leaky-bucket gaps.
//! - `rto`: RFC 6298's retransmission timer.

pub mod fast;
pub mod measure;
pub mod newreno;
pub mod pacer;
pub mod progressive;
pub mod rto;
pub mod vegas;

pub use fast::{Fast, FastConfig};
pub use newreno::NewReno;
pub use pacer::{Pacer, PacingConfig, RttSource};
pub use progressive::Progressive;
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

/// The interface every algorithm offers the sender.
pub trait CongestionControl {
    /// A new cumulative ACK outside loss recovery.
    fn on_ack(&mut self, ack: &Ack);
    /// An ECN echo arrived (before the sender decides whether to react to it as a `Signal`).
    fn on_ecn_echo(&mut self, _now: f64) {}
    /// React to a congestion signal; `flight` is the number of segments outstanding.
    fn on_congestion(&mut self, now: f64, signal: Signal, flight: f64);
    /// The congestion window, in segments.
    fn cwnd(&self) -> f64;
    /// The slow-start threshold, in segments.
    fn ssthresh(&self) -> f64;
}

/// The controllers a sender can hold (an enum rather than a trait object: no indirection per
/// ACK, and the scenario names them).
#[derive(Debug, Clone)]
pub enum Controller {
    NewReno(NewReno),
    Vegas(Vegas),
    Fast(Fast),
}

impl Controller {
    fn get(&self) -> &dyn CongestionControl {
        match self {
            Controller::NewReno(c) => c,
            Controller::Vegas(c) => c,
            Controller::Fast(c) => c,
        }
    }

    fn get_mut(&mut self) -> &mut dyn CongestionControl {
        match self {
            Controller::NewReno(c) => c,
            Controller::Vegas(c) => c,
            Controller::Fast(c) => c,
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
