//! ns-2's applications that tell an agent when to send, beyond FTP: `Application/Telnet`
//! (telnet.cc) and `Application/Traffic/CBR` (cbr_traffic.cc) on a TCP agent (over UDP, CBR is
//! `udp::CbrSource`), and the on/off sources `Application/Traffic/Exponential` (expoo.cc) and
//! `Application/Traffic/Pareto` (pareto.cc) on a UDP agent. A source arms its own timer (`TimerKind::App`); when it fires, the run has
//! the flow's agent send (ns-2's `sendmsg`), then asks the source for the next interval: ns-2
//! sends before it draws, and a RED queue on the way may draw in between. Random intervals come
//! from the run's random numbers (`random::Draws`) in the order ns-2 draws them.

use crate::packet::FlowId;
use crate::port::{Port, TimerKind};
use crate::random::Draws;
use tcplab_des::Timer;

/// What decides the intervals.
enum Kind {
    /// `Application/Telnet`: exponential intervals of mean `interval` seconds, or with
    /// `interval` 0 tcplib's telnet interarrival times.
    Telnet { interval: f64 },
    /// `Application/Traffic/CBR`: `size` bytes every size*8/rate seconds (`rate` in b/s, a
    /// double as ns-2 keeps it: `set interval_` sets it to size*8/interval).
    /// Each packet is `segments` TCP segments (ns-2's `sendmsg` rounds the bytes up).
    Cbr { rate: f64, size: u32, segments: i64 },
    /// An on/off source (`OnOff`): bursts at a fixed rate, idle times between.
    OnOff(OnOff),
}

/// `Application/Traffic/Exponential` and `/Pareto`: bursts of `size`-byte packets every
/// `interval` seconds, their lengths (in packets) and the idle times between them drawn from
/// an exponential or a Pareto distribution with the configured means.
pub struct OnOff {
    pub size: u32,
    /// The packet interval in a burst, size*8/rate (ns-2's `interval_`, set at start).
    interval: f64,
    /// The mean burst length in packets and the mean idle time (Exponential), or the Pareto
    /// scales of the two (`p1_`, `p2_`: mean * (shape-1)/shape).
    burst: f64,
    idle: f64,
    /// None: exponential; the Pareto shape otherwise.
    shape: Option<f64>,
    /// Packets left in the current burst (`rem_`).
    left: u32,
}

impl OnOff {
    /// ns-2's `init()` at start: `rate_bps` in b/s, times in seconds.
    pub fn new(size: u32, rate_bps: f64, burst_time: f64, idle_time: f64, shape: Option<f64>) -> OnOff {
        let interval = (size << 3) as f64 / rate_bps;
        let packets = burst_time / interval;
        let (burst, idle) = match shape {
            None => (packets, idle_time),
            Some(shape) => (packets * (shape - 1.0) / shape, idle_time * (shape - 1.0) / shape),
        };
        OnOff { size, interval, burst, idle, shape, left: 0 }
    }

    /// `next_interval()`: one interval in a burst; at a burst's end, the next burst's length
    /// is drawn, then the idle time before it.
    fn next_interval(&mut self, mut draw: impl FnMut() -> f64) -> f64 {
        let mut t = self.interval;
        if self.left == 0 {
            let spread = |mean: f64, u: f64| match self.shape {
                None => mean * exponential(u),
                Some(shape) => mean * (1.0 / u.powf(1.0 / shape)),
            };
            self.left = ((spread(self.burst, draw()) + 0.5) as u32).max(1);
            t += spread(self.idle, draw());
        }
        self.left -= 1;
        t
    }
}

pub struct Source {
    flow: FlowId,
    kind: Kind,
    running: bool,
    timer: Timer,
    draws: Draws,
}

impl Source {
    pub fn telnet(flow: FlowId, interval: f64, draws: Draws) -> Source {
        Source { flow, kind: Kind::Telnet { interval }, running: false, timer: Timer::default(), draws }
    }

    /// CBR of `size`-byte packets at `rate_bps` on a TCP agent whose segments are `segment`
    /// bytes.
    pub fn on_off(flow: FlowId, source: OnOff, draws: Draws) -> Source {
        Source { flow, kind: Kind::OnOff(source), running: false, timer: Timer::default(), draws }
    }

    pub fn cbr(flow: FlowId, rate_bps: f64, size: u32, segment: u32) -> Source {
        let kind = Kind::Cbr { rate: rate_bps, size, segments: size.div_ceil(segment) as i64 };
        Source { flow, kind, running: false, timer: Timer::default(), draws: Draws::Shared }
    }

    /// `start`: true if a packet is due at once (CBR; the caller sends it, then calls
    /// `rearm`); Telnet's first packet comes one interval later.
    pub fn start(&mut self, net: &mut impl Port) -> bool {
        self.running = true;
        match self.kind {
            Kind::Telnet { .. } => {
                self.rearm(net);
                false
            }
            Kind::Cbr { .. } => true,
            Kind::OnOff(_) => {
                self.rearm(net);
                false
            }
        }
    }

    /// `stop`: CBR cancels its timer; Telnet's stays armed and finds the source stopped.
    pub fn stop(&mut self, net: &mut impl Port) {
        if !matches!(self.kind, Kind::Telnet { .. }) && self.running {
            net.cancel(&mut self.timer, self.flow, TimerKind::App);
        }
        self.running = false;
    }

    /// `$app set interval_ v`: from the next interval on (Telnet and CBR only).
    pub fn set_interval(&mut self, v: f64) {
        match &mut self.kind {
            Kind::Telnet { interval } => *interval = v,
            Kind::Cbr { rate, size, .. } => *rate = (*size as f64) * 8.0 / v,
            Kind::OnOff(_) => unreachable!("validation: set_interval is Telnet's and CBR's"),
        }
    }

    /// The bytes of each packet of an on/off source (its agent is UDP's).
    pub fn packet_bytes(&self) -> u32 {
        match &self.kind {
            Kind::OnOff(s) => s.size,
            _ => unreachable!("Telnet and CBR sources drive TCP agents"),
        }
    }

    /// The segments each packet gives the agent to send (`sendmsg`; Telnet's is the agent's
    /// own size, one segment).
    pub fn message_segments(&self) -> i64 {
        match self.kind {
            Kind::Telnet { .. } => 1,
            Kind::Cbr { segments, .. } => segments,
            Kind::OnOff(_) => 1,
        }
    }

    /// The timer's event `gen` came out: true if a packet is due now. The caller sends it and
    /// then calls `rearm`.
    pub fn fire(&mut self, net: &mut impl Port, gen: u32) -> bool {
        net.fire(&mut self.timer, self.flow, TimerKind::App, gen) && self.running
    }

    /// Computes the next interval and arms the timer for it (ns-2's `next()` or
    /// `next_interval()`, then `resched`).
    pub fn rearm(&mut self, net: &mut impl Port) {
        let delay = match self.kind {
            Kind::Telnet { interval: 0.0 } => {
                crate::tcplib::telnet_interarrival(self.draws.uniform(net.rng()))
            }
            Kind::Telnet { interval } => exponential(self.draws.uniform(net.rng())) * interval,
            // recomputed each time, as ns-2 does, for a rate changed since
            Kind::Cbr { rate, size, .. } => (size << 3) as f64 / rate,
            Kind::OnOff(ref mut s) => {
                let (draws, rng) = (&mut self.draws, net.rng());
                s.next_interval(|| draws.uniform(rng))
            }
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
        let mut telnet = Source::telnet(FlowId(0), 0.5, Draws::Shared);
        let mut rng = Ns2Rng::seeded(1);
        assert!(!telnet.start(&mut net), "the first packet waits an interval");
        let mut at = 0.0;
        for _ in 0..3 {
            let due = at + -rng.uniform().ln() * 0.5;
            let (kind, when) = net.expire(|net, _, gen| assert!(telnet.fire(net, gen))).expect("armed");
            assert_eq!(kind, TimerKind::App);
            assert!((when - due).abs() < 1e-12, "{when} vs {due}");
            telnet.rearm(&mut net);
            at = when;
        }
        telnet.stop(&mut net);
        let fired = net.expire(|net, _, gen| assert!(!telnet.fire(net, gen)));
        assert!(fired.is_some(), "the last timer still fires, and sends nothing");
    }

    /// tcplib's telnet (interval_ 0): the entry at int(u * 10000) of its table.
    #[test]
    fn telnet_with_interval_0_takes_tcplibs_times() {
        let mut net = FakePort::default();
        let mut telnet = Source::telnet(FlowId(0), 0.0, Draws::Shared);
        let u = Ns2Rng::seeded(1).uniform();
        telnet.start(&mut net);
        assert_eq!(net.deadline(TimerKind::App), Some(crate::tcplib::telnet_interarrival(u)));
    }

    /// The on/off sources at start draw the first burst's length, then the idle time before
    /// it; each packet of the burst after the first is one interval later, and the burst's
    /// end draws again, in that order (expoo.cc, pareto.cc `next_interval`).
    #[test]
    fn on_off_sources_draw_burst_then_idle_in_ns2_order() {
        // 500-byte packets at 400 kb/s: 10 ms apart, 0.2 s bursts are 20 packets on average
        for shape in [None, Some(1.5)] {
            let mut net = FakePort::default();
            let mut source = Source::on_off(FlowId(0), OnOff::new(500, 400_000.0, 0.2, 1.0, shape), Draws::Shared);
            let mut rng = Ns2Rng::seeded(1);
            let spread = |mean: f64, u: f64| match shape {
                None => mean * -u.ln(),
                Some(k) => mean * (k - 1.0) / k * (1.0 / u.powf(1.0 / k)),
            };
            let mut due = 0.0;
            for burst in 0..3 {
                let packets = ((spread(20.0, rng.uniform()) + 0.5) as u32).max(1);
                due += 0.01 + spread(1.0, rng.uniform());
                for i in 0..packets {
                    if burst == 0 && i == 0 {
                        assert!(!source.start(&mut net), "the first packet waits");
                    } else {
                        source.rearm(&mut net);
                    }
                    let (_, when) = net.expire(|net, _, gen| assert!(source.fire(net, gen))).expect("armed");
                    assert!((when - due).abs() < 1e-9, "{shape:?}: packet {i} at {when}, not {due}");
                    if i + 1 < packets {
                        due += 0.01;
                    }
                }
            }
            assert_eq!(source.packet_bytes(), 500);
        }
    }

    /// CBR sends at start, then every size*8/rate; `set interval_` changes the rate from the
    /// next interval on; stop cancels the timer.
    #[test]
    fn cbr_on_tcp_sends_at_start_and_per_interval() {
        let mut net = FakePort::default();
        let mut cbr = Source::cbr(FlowId(0), 400_000.0, 500, 500);
        assert!(cbr.start(&mut net), "a packet at once");
        assert_eq!(cbr.message_segments(), 1);
        assert_eq!(Source::cbr(FlowId(0), 400_000.0, 1001, 500).message_segments(), 3);
        cbr.rearm(&mut net);
        assert_eq!(net.deadline(TimerKind::App), Some(0.01));
        cbr.set_interval(0.002);
        net.expire(|net, _, gen| assert!(cbr.fire(net, gen)));
        cbr.rearm(&mut net);
        assert_eq!(net.deadline(TimerKind::App), Some(0.01 + 4000.0 / (4000.0 / 0.002)));
        cbr.stop(&mut net);
        assert_eq!(net.cancelled.len(), 1);
    }
}
