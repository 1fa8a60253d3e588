//! Linux's Reno (`tcp_reno_cong_avoid`, `tcp_reno_ssthresh`), and the window that Linux's
//! loss-based controllers share: whole segments, grown in slow start by every segment delivered
//! and in congestion avoidance by a counter of delivered segments (`snd_cwnd_cnt`).
//!
//! How it differs from `newreno` (RFC 5681 as the rfc sender has it): ssthresh is half the
//! cwnd, not half the flight size; slow start adds every segment an ACK delivers (a delayed ACK
//! adds two), not one per ACK; and cwnd stays a whole number, growing by one when the counter
//! reaches cwnd instead of by 1/cwnd per segment.

use crate::{AckSample, CongestionControl, Event, Flight, Signal};

/// Linux's `TCP_INFINITE_SSTHRESH`: no slow-start threshold yet.
pub const INFINITE_SSTHRESH: u64 = 0x7fff_ffff;

/// A congestion window as Linux keeps it, in whole segments.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub cwnd: u64,
    /// Segments delivered towards the next increase in congestion avoidance (`snd_cwnd_cnt`).
    pub cnt: u64,
    pub ssthresh: u64,
    /// What an undo restores (Linux's `prior_cwnd`, `prior_ssthresh`; 0: nothing to undo).
    pub prior_cwnd: u64,
    pub prior_ssthresh: u64,
}

impl Window {
    pub fn new(initial: f64) -> Window {
        let cwnd = (initial.round() as u64).max(1);
        Window { cwnd, cnt: 0, ssthresh: INFINITE_SSTHRESH, prior_cwnd: 0, prior_ssthresh: 0 }
    }

    /// `tcp_current_ssthresh` outside a reduction: ssthresh, or three quarters of cwnd if more.
    fn current_ssthresh(&self) -> u64 {
        self.ssthresh.max((self.cwnd >> 1) + (self.cwnd >> 2))
    }

    /// Before a reduction, Linux notes the window and threshold to restore if it proves
    /// spurious; a reduction for an ECN echo is never undone.
    fn remember(&mut self, undoable: bool) {
        self.prior_cwnd = self.cwnd;
        self.prior_ssthresh = if undoable { self.current_ssthresh() } else { 0 };
    }

    /// `tcp_undo_cwnd_reduction` with `tcp_reno_undo_cwnd`: the window comes back to what it
    /// was, the threshold too if it was higher.
    pub fn undo(&mut self) {
        if self.prior_ssthresh > 0 {
            self.cwnd = self.cwnd.max(self.prior_cwnd);
            self.ssthresh = self.ssthresh.max(self.prior_ssthresh);
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// `tcp_slow_start`: one segment per segment delivered, up to ssthresh; returns the
    /// delivered segments left over for congestion avoidance.
    pub fn slow_start(&mut self, acked: u64) -> u64 {
        let cwnd = (self.cwnd + acked).min(self.ssthresh);
        let left = acked - (cwnd - self.cwnd);
        self.cwnd = cwnd;
        left
    }

    /// `tcp_cong_avoid_ai`: one segment each time `w` segments have been delivered. Credit
    /// counted at a larger `w` is spent first, one segment at a time.
    pub fn additive_increase(&mut self, w: u64, acked: u64) {
        let w = w.max(1);
        if self.cnt >= w {
            self.cnt = 0;
            self.cwnd += 1;
        }
        self.cnt += acked;
        if self.cnt >= w {
            let delta = self.cnt / w;
            self.cnt -= delta * w;
            self.cwnd += delta;
        }
    }

    /// `tcp_reno_cong_avoid` (the cwnd-limited check is the caller's).
    pub fn reno_grow(&mut self, mut acked: u64) {
        if self.in_slow_start() {
            acked = self.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        self.additive_increase(self.cwnd, acked);
    }

    /// A reduction to `ssthresh`: what the sender's PRR glides to, and the window after it
    /// (Linux's `tcp_end_cwnd_reduction`). `undoable`: not for an ECN echo.
    pub fn reduce_to(&mut self, ssthresh: u64, undoable: bool) {
        self.remember(undoable);
        self.ssthresh = ssthresh;
        self.cwnd = ssthresh;
        self.cnt = 0;
    }

    /// `tcp_enter_loss`: a new ssthresh unless the timeout struck in a recovery already
    /// counted, and one segment more than is still in flight.
    pub fn enter_loss(&mut self, ssthresh: Option<u64>, in_flight: f64) {
        if let Some(s) = ssthresh {
            self.remember(true);
            self.ssthresh = s;
        }
        self.cwnd = in_flight.max(0.0) as u64 + 1;
        self.cnt = 0;
    }

    /// `tcp_cwnd_restart` after an idle period longer than the RTO: ssthresh keeps the memory
    /// of three quarters of cwnd, and cwnd halves for every RTO idle, not below the initial
    /// window (or the cwnd, if smaller).
    pub fn restart_after_idle(&mut self, idle: f64, rto: f64, initial: f64) {
        self.ssthresh = self.current_ssthresh();
        let restart = (initial.round() as u64).min(self.cwnd);
        let mut left = idle - rto;
        while left > 0.0 && self.cwnd > restart {
            self.cwnd >>= 1;
            left -= rto;
        }
        self.cwnd = self.cwnd.max(restart);
    }

    /// The window the handshake leaves (`tcp_init_transfer`): `cwnd` segments, at least one.
    pub fn start_at(&mut self, cwnd: f64) {
        self.cwnd = (cwnd.round() as u64).max(1);
    }

    /// `tcp_snd_cwnd`, as the trait reports it.
    pub fn cwnd(&self) -> f64 {
        self.cwnd as f64
    }

    /// The threshold, infinite before the first reduction.
    pub fn ssthresh(&self) -> f64 {
        if self.ssthresh >= INFINITE_SSTHRESH {
            f64::INFINITY
        } else {
            self.ssthresh as f64
        }
    }
}

/// `tcp_reno_ssthresh`: half the window, at least two segments.
pub fn reno_ssthresh(cwnd: u64) -> u64 {
    (cwnd >> 1).max(2)
}

/// Linux's condition for a window to grow on an ACK: it advanced the cumulative ACK
/// (`tcp_may_raise_cwnd`), the sender is not reducing (`tcp_in_cwnd_reduction`), and it used
/// its window (`tcp_is_cwnd_limited`).
pub fn may_grow(s: &AckSample) -> bool {
    s.acked > 0 && !s.state.reducing() && s.cwnd_limited
}

#[derive(Debug, Clone, PartialEq)]
pub struct Reno {
    w: Window,
}

impl Reno {
    pub fn new(initial: f64) -> Reno {
        Reno { w: Window::new(initial) }
    }
}

/// How Linux's Reno-like controllers meet the events they do not specialise: a recovery or
/// CWR reduces to `ssthresh`, an RTO enters loss, an idle restart decays the window, an undo
/// restores it.
pub fn loss_based_event(w: &mut Window, event: Event, flight: Flight, ssthresh: impl FnOnce(&Window) -> u64) {
    match event {
        Event::EnterRecovery | Event::EnterCwr => {
            let s = ssthresh(w);
            w.reduce_to(s, event == Event::EnterRecovery)
        }
        Event::Rto { new_reduction } => {
            let s = new_reduction.then(|| ssthresh(w));
            w.enter_loss(s, flight.in_flight)
        }
        Event::IdleRestart { idle, rto, initial } => w.restart_after_idle(idle, rto, initial),
        Event::Undo => w.undo(),
        Event::Established { cwnd, .. } => w.start_at(cwnd),
        Event::EndReduction | Event::TxStart { .. } => {}
    }
}

/// The legacy sender's signals as the events a modern sender would report: after a timeout
/// nothing is in flight any more.
pub fn signal_as_event(signal: Signal, flight: f64) -> (Event, Flight) {
    let event = match signal {
        Signal::Loss => Event::EnterRecovery,
        Signal::Ecn => Event::EnterCwr,
        Signal::Timeout => Event::Rto { new_reduction: true },
    };
    let in_flight = if signal == Signal::Timeout { 0.0 } else { flight };
    (event, Flight { outstanding: flight, in_flight, lost: 0 })
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, ack: &crate::Ack) {
        self.w.reno_grow(ack.acked);
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

    fn on_ack_sample(&mut self, _s: &AckSample) {}

    fn on_event(&mut self, _now: f64, event: Event, flight: Flight) {
        loss_based_event(&mut self.w, event, flight, |w| reno_ssthresh(w.cwnd));
    }

    fn cong_control(&mut self, s: &AckSample) {
        if may_grow(s) {
            self.w.reno_grow(s.rate.acked_sacked);
        }
    }
}

/// An ACK sample for the tests of the Linux-like controllers: `delivered` segments newly
/// acknowledged cumulatively, in state Open, cwnd-limited.
#[cfg(test)]
pub(crate) fn delivering(now: f64, delivered: u64) -> AckSample {
    AckSample {
        now,
        acked: delivered,
        rate: crate::RateSample { acked_sacked: delivered, ..Default::default() },
        state: crate::CaState::Open,
        cwnd_limited: true,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_adds_every_segment_delivered_up_to_ssthresh() {
        let mut c = Reno::new(10.0);
        // a delayed ACK for 2 segments: 10 + 2 = 12
        c.cong_control(&delivering(0.0, 2));
        assert_eq!(c.cwnd(), 12.0);
        // ssthresh 13: slow start reaches 13 with 1 of 3; the other 2 count towards 14
        c.w.ssthresh = 13;
        c.cong_control(&delivering(0.0, 3));
        assert_eq!((c.w.cwnd, c.w.cnt), (13, 2));
    }

    #[test]
    fn congestion_avoidance_counts_segments_to_cwnd() {
        let mut c = Reno::new(10.0);
        c.w.ssthresh = 5;
        // 9 segments delivered at cwnd 10: counter 9, no increase yet
        for _ in 0..9 {
            c.cong_control(&delivering(0.0, 1));
        }
        assert_eq!((c.w.cwnd, c.w.cnt), (10, 9));
        // the 10th: counter 10 = cwnd -> cwnd 11, counter 0
        c.cong_control(&delivering(0.0, 1));
        assert_eq!((c.w.cwnd, c.w.cnt), (11, 0));
        // a stretch ACK of 25 at cwnd 11: 25 / 11 = 2 increases, 25 - 22 = 3 left
        c.cong_control(&delivering(0.0, 25));
        assert_eq!((c.w.cwnd, c.w.cnt), (13, 3));
    }

    #[test]
    fn credit_counted_at_a_larger_window_is_spent_first() {
        let mut w = Window { cwnd: 6, cnt: 8, ssthresh: 4, ..Window::new(1.0) };
        // cnt 8 >= w 6: one segment now and the counter restarts, then 1 delivered
        w.additive_increase(6, 1);
        assert_eq!((w.cwnd, w.cnt), (7, 1));
    }

    #[test]
    fn no_growth_when_not_cwnd_limited_in_a_reduction_or_for_a_pure_sack() {
        let mut c = Reno::new(10.0);
        let mut s = delivering(0.0, 1);
        s.cwnd_limited = false;
        c.cong_control(&s);
        s = delivering(0.0, 1);
        s.state = crate::CaState::Recovery;
        c.cong_control(&s);
        s = delivering(0.0, 1);
        s.acked = 0; // delivered by SACK only
        c.cong_control(&s);
        assert_eq!(c.cwnd(), 10.0);
    }

    #[test]
    fn ssthresh_is_half_the_cwnd_not_the_flight() {
        let mut c = Reno::new(20.0);
        // cwnd 20, 7 in flight: ssthresh = 20 / 2 = 10 (RFC 5681's newreno would take 7 / 2 -> 3.5)
        c.on_event(0.0, Event::EnterRecovery, Flight { outstanding: 7.0, in_flight: 7.0, lost: 0 });
        assert_eq!((c.cwnd(), c.ssthresh()), (10.0, 10.0));
        // 3 / 2 = 1, raised to 2
        c.w.cwnd = 3;
        c.on_event(0.0, Event::EnterCwr, Flight::default());
        assert_eq!(c.ssthresh(), 2.0);
    }

    #[test]
    fn an_rto_leaves_one_more_than_in_flight_and_keeps_ssthresh_within_a_recovery() {
        let mut c = Reno::new(16.0);
        c.on_event(0.0, Event::Rto { new_reduction: true }, Flight { outstanding: 16.0, in_flight: 0.0, lost: 0 });
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 8.0));
        c.w.cwnd = 6;
        c.on_event(0.0, Event::Rto { new_reduction: false }, Flight { outstanding: 6.0, in_flight: 2.0, lost: 0 });
        assert_eq!((c.cwnd(), c.ssthresh()), (3.0, 8.0));
    }

    #[test]
    fn idle_restart_halves_per_rto_down_to_the_initial_window() {
        let mut w = Window { cwnd: 80, cnt: 0, ssthresh: 40, ..Window::new(1.0) };
        // ssthresh = max(40, 40 + 20) = 60; idle 3.5 RTOs of 1 s: 2.5, 1.5, 0.5 left -> 3 halvings
        // 80 -> 40 -> 20 -> 10
        w.restart_after_idle(3.5, 1.0, 4.0);
        assert_eq!((w.cwnd, w.ssthresh), (10, 60));
        // halving goes on while cwnd > 4: 10 -> 5 -> 2, and the window is then max(2, 4) = 4
        w.restart_after_idle(10.0, 1.0, 4.0);
        assert_eq!(w.cwnd, 4);
    }

    #[test]
    fn an_undo_restores_the_window_of_a_loss_but_not_of_an_echo() {
        let mut c = Reno::new(40.0);
        c.w.ssthresh = 30;
        // prior: cwnd 40, ssthresh max(30, 20 + 10) = 30; the loss halves to 20
        c.on_event(0.0, Event::EnterRecovery, Flight::default());
        assert_eq!((c.w.cwnd, c.w.ssthresh), (20, 20));
        c.on_event(0.0, Event::Undo, Flight::default());
        assert_eq!((c.w.cwnd, c.w.ssthresh), (40, 30));
        c.on_event(0.0, Event::EnterCwr, Flight::default());
        c.on_event(0.0, Event::Undo, Flight::default());
        assert_eq!((c.w.cwnd, c.w.ssthresh), (20, 20));
        // a timeout: prior cwnd 20, ssthresh max(20, 10 + 5) = 20; cwnd 1, ssthresh 10
        c.on_event(0.0, Event::Rto { new_reduction: true }, Flight::default());
        c.on_event(0.0, Event::Undo, Flight::default());
        assert_eq!((c.w.cwnd, c.w.ssthresh), (20, 20));
    }

    /// The handshake sets the window Linux's `tcp_init_transfer` chose: one segment after lost
    /// SYNs, whatever the initial window was; ssthresh stays infinite (slow start).
    #[test]
    fn the_handshake_sets_the_window() {
        let mut c = Reno::new(10.0);
        c.on_event(0.0, Event::Established { rtt: 0.04, cwnd: 1.0 }, Flight::default());
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, f64::INFINITY));
    }

    #[test]
    fn the_legacy_calls_behave_as_the_events() {
        let mut c = Reno::new(10.0);
        c.on_ack(&crate::Ack { now: 0.0, acked: 2, snd_una: 2, snd_nxt: 10, rtt: None });
        assert_eq!(c.cwnd(), 12.0);
        c.on_congestion(0.0, Signal::Timeout, 12.0);
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 6.0));
    }
}
