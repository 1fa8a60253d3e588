//! ns-2's traffic sources beyond FTP and CBR, which tell their agent when to send: `Application/
//! Telnet` (telnet.cc). Each draws its intervals from the run's random numbers (`random::Draws`)
//! in the order ns-2 draws them, and arms its own timer (`TimerKind::App`); when it fires, the
//! run has the flow's agent send a packet, then asks the source for the next interval (ns-2
//! sends before it draws, and a RED queue on the way may draw in between).

use crate::packet::FlowId;
use crate::port::{Port, TimerKind};
use crate::random::Draws;
use tcplab_des::Timer;

/// `Application/Telnet`: one packet (the agent's `size_`) per interval, exponentially
/// distributed with mean `interval`, or with `interval` 0 tcplib's telnet interarrival times.
pub struct Telnet {
    flow: FlowId,
    /// ns-2's `interval_`, in seconds (0: tcplib).
    interval: f64,
    running: bool,
    timer: Timer,
    draws: Draws,
}

impl Telnet {
    pub fn new(flow: FlowId, interval: f64, draws: Draws) -> Telnet {
        Telnet { flow, interval, running: false, timer: Timer::default(), draws }
    }

    /// `start`: the first packet one interval from now.
    pub fn start(&mut self, net: &mut impl Port) {
        self.running = true;
        self.rearm(net);
    }

    /// `stop`: the timer stays armed, and finds the source stopped when it fires (as ns-2's).
    pub fn stop(&mut self) {
        self.running = false;
    }

    /// `$telnet set interval_ v`: from the next interval drawn on.
    pub fn set_interval(&mut self, interval: f64) {
        self.interval = interval;
    }

    /// The timer's event `gen` came out: true if a packet is due now. The caller sends it and
    /// then calls `rearm`.
    pub fn fire(&mut self, net: &mut impl Port, gen: u32) -> bool {
        net.fire(&mut self.timer, self.flow, TimerKind::App, gen) && self.running
    }

    /// Draws the next interval and arms the timer for it (ns-2's `next()` and `resched`).
    pub fn rearm(&mut self, net: &mut impl Port) {
        let delay = if self.interval == 0.0 {
            crate::tcplib::telnet_interarrival(self.draws.uniform(net.rng()))
        } else {
            exponential(self.draws.uniform(net.rng())) * self.interval
        };
        net.arm(&mut self.timer, self.flow, TimerKind::App, delay);
    }
}

/// ns-2's `RNG::exponential()` of a uniform draw `u`: mean 1.
fn exponential(u: f64) -> f64 {
    -u.ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::FakePort;
    use tcplab_des::Ns2Rng;

    /// Telnet's intervals are -ln(u) * interval_ for ns-2's uniform draws u in order, one
    /// drawn at start and one after each packet; a stopped source sends nothing more.
    #[test]
    fn telnet_draws_exponential_intervals_in_ns2_order() {
        let mut net = FakePort::default();
        let mut telnet = Telnet::new(FlowId(0), 0.5, Draws::Shared);
        let mut rng = Ns2Rng::seeded(1);
        telnet.start(&mut net);
        let mut at = 0.0;
        for _ in 0..3 {
            let due = at + -rng.uniform().ln() * 0.5;
            let (kind, when) = net.expire(|net, _, gen| assert!(telnet.fire(net, gen))).expect("armed");
            assert_eq!(kind, TimerKind::App);
            assert!((when - due).abs() < 1e-12, "{when} vs {due}");
            telnet.rearm(&mut net);
            at = when;
        }
        telnet.stop();
        let fired = net.expire(|net, _, gen| assert!(!telnet.fire(net, gen)));
        assert!(fired.is_some(), "the last timer still fires, and sends nothing");
    }
}
