//! ns-2's applications that tell an agent when to send, beyond FTP: `Application/Telnet`
//! (telnet.cc), `Application/Traffic/CBR` (cbr_traffic.cc) on a TCP agent (over UDP, CBR is
//! `udp::CbrSource`), the on/off sources `Application/Traffic/Exponential` (expoo.cc) and
//! `/Pareto` (pareto.cc), and the trace-driven `Application/Traffic/Trace` (traffictrace.cc).
//! A source arms its own timer (`TimerKind::App`); when it fires, the run has the flow's agent
//! send a message (ns-2's `sendmsg`), then asks the source for the next interval: ns-2 sends
//! before it draws, and a RED queue on the way may draw in between. Random intervals come from
//! the run's random numbers (`random::Draws`) in the order ns-2 draws them.

use crate::packet::FlowId;
use crate::port::{Port, TimerKind};
use crate::random::Draws;
use crate::scenario::ScenarioError;
use tcplab_des::Timer;

/// What decides the intervals.
enum Kind {
    /// `Application/Telnet`: exponential intervals of mean `interval` seconds, or with
    /// `interval` 0 tcplib's telnet interarrival times.
    Telnet { interval: f64 },
    /// `Application/Traffic/CBR`: a message every size*8/rate seconds (`rate` in b/s, a double
    /// as ns-2 keeps it: `set interval_` sets it to size*8/interval), dithered when `random`;
    /// `limit` messages at most (`maxpkts_`), `sent` so far (`seqno_`).
    Cbr { rate: f64, random: bool, limit: Option<u64>, sent: u64 },
    /// An on/off source (`OnOff`): bursts at a fixed rate, idle times between.
    OnOff(OnOff),
    /// `Application/Traffic/Trace`: the records (gap in µs, bytes) in turn, from `next`.
    Trace { records: Vec<(u32, u32)>, next: usize },
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
    /// The bytes of the next message (for Telnet, its agent's `size_`; for a trace, the
    /// current record's).
    bytes: u32,
    /// A TCP agent's segment size (its `size_`), to count a message's segments; 0 over UDP.
    segment: u32,
    running: bool,
    timer: Timer,
    draws: Draws,
}

impl Source {
    /// A source of `bytes`-byte messages for an agent with `segment`-byte segments (TCP) or
    /// none (0: UDP).
    fn new(flow: FlowId, kind: Kind, bytes: u32, segment: u32, draws: Draws) -> Source {
        Source { flow, kind, bytes, segment, running: false, timer: Timer::default(), draws }
    }

    /// A Telnet whose agent sends `bytes`-byte packets (over TCP, one segment each).
    pub fn telnet(flow: FlowId, interval: f64, bytes: u32, segment: u32, draws: Draws) -> Source {
        Source::new(flow, Kind::Telnet { interval }, bytes, segment, draws)
    }

    /// CBR of `size`-byte messages at `rate_bps`, its intervals dithered when `random` (by
    /// draws from `draws`), `limit` messages at most.
    pub fn cbr(
        flow: FlowId,
        rate_bps: f64,
        size: u32,
        segment: u32,
        random: bool,
        limit: Option<u64>,
        draws: Draws,
    ) -> Source {
        Source::new(flow, Kind::Cbr { rate: rate_bps, random, limit, sent: 0 }, size, segment, draws)
    }

    pub fn on_off(flow: FlowId, source: OnOff, segment: u32, draws: Draws) -> Source {
        let bytes = source.size;
        Source::new(flow, Kind::OnOff(source), bytes, segment, draws)
    }

    /// A trace-driven source of these records (gap in µs, bytes).
    pub fn trace(flow: FlowId, records: Vec<(u32, u32)>, segment: u32, draws: Draws) -> Source {
        Source::new(flow, Kind::Trace { records, next: 0 }, 0, segment, draws)
    }

    /// `start`: true if a packet is due at once (CBR; the caller sends it, then calls
    /// `rearm`); the others' first packet comes one interval later. A trace starts from a
    /// random record (`int(uniform(n) + 0.5)`).
    pub fn start(&mut self, net: &mut impl Port) -> bool {
        self.running = true;
        match &mut self.kind {
            Kind::Cbr { .. } => return true,
            Kind::Trace { records, next } => {
                *next = (records.len() as f64 * net.uniform(&mut self.draws) + 0.5) as usize;
                if *next == records.len() {
                    // ns-2 reads the record past its table's end here
                    let why = "ns-2's trace source starts past its last record here (its random start \
                               rounds up to the table's length) and reads memory beyond it: use another \
                               seed or more records";
                    net.stop_run(ScenarioError::new(format!("flows[{}].records", self.flow.0), why));
                    return false;
                }
            }
            // ns-2's init() at each start: a new burst
            Kind::OnOff(s) => s.left = 0,
            Kind::Telnet { .. } => {
                if self.timer.pending() {
                    // ns-2's start schedules the timer that is still armed, and stops the run
                    let why = "a Telnet source started while its timer is armed (running, or stopped less \
                               than an interval before): ns-2 stops the run here with \"Couldn't schedule timer\"";
                    net.stop_run(ScenarioError::new(format!("flows[{}].app", self.flow.0), why));
                    return false;
                }
            }
        }
        self.rearm(net);
        false
    }

    /// `stop`: the timer is cancelled, but Telnet's, which stays armed and finds the source
    /// stopped.
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
            Kind::Cbr { rate, .. } => *rate = (self.bytes as f64) * 8.0 / v,
            Kind::OnOff(_) | Kind::Trace { .. } => unreachable!("validation: set_interval is Telnet's and CBR's"),
        }
    }

    /// The bytes of the message due now.
    pub fn message_bytes(&self) -> u32 {
        self.bytes
    }

    /// The TCP segments of the message due now (ns-2's `sendmsg` rounds the bytes up; a
    /// Telnet's message is its agent's size, one segment).
    pub fn message_segments(&self) -> i64 {
        self.bytes.div_ceil(self.segment) as i64
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
            Kind::Telnet { interval: 0.0 } => crate::tcplib::telnet_interarrival(net.uniform(&mut self.draws)),
            Kind::Telnet { interval } => exponential(net.uniform(&mut self.draws)) * interval,
            // recomputed each time, as ns-2 does, for a rate changed since; the dither is drawn
            // and the message counted whether or not another is due (CBR_Traffic::next_interval)
            Kind::Cbr { rate, random, limit, ref mut sent } => {
                let interval = (self.bytes << 3) as f64 / rate;
                let t = if random { crate::udp::dithered(interval, net, &mut self.draws) } else { interval };
                *sent += 1;
                if limit.is_some_and(|n| *sent >= n) {
                    self.running = false;
                    return;
                }
                t
            }
            Kind::OnOff(ref mut s) => {
                let (draws, rng) = (&mut self.draws, net.shared_rng());
                s.next_interval(|| draws.uniform(rng))
            }
            Kind::Trace { ref records, ref mut next } => {
                let (gap, bytes) = records[*next];
                *next = (*next + 1) % records.len();
                self.bytes = bytes;
                gap as f64 / 1_000_000.0
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
        let mut telnet = Source::telnet(FlowId(0), 0.5, 1000, 1000, Draws::Shared);
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
        assert!(!telnet.start(&mut net) && net.stopped.is_none(), "a start once it has fired is fine");
    }

    /// ns-2's Telnet start schedules its timer even when it is armed, which ends the run
    /// ("Couldn't schedule timer"): a start while running, or within an interval of a stop.
    #[test]
    fn telnet_started_with_its_timer_armed_stops_the_run() {
        let mut net = FakePort::default();
        let mut telnet = Source::telnet(FlowId(2), 0.5, 1000, 1000, Draws::Shared);
        telnet.start(&mut net);
        telnet.stop(&mut net);
        assert!(!telnet.start(&mut net));
        let e = net.stopped.expect("the run is stopped");
        assert_eq!(e.path, "flows[2].app");
    }

    /// tcplib's telnet (interval_ 0): the entry at int(u * 10000) of its table.
    #[test]
    fn telnet_with_interval_0_takes_tcplibs_times() {
        let mut net = FakePort::default();
        let mut telnet = Source::telnet(FlowId(0), 0.0, 1000, 1000, Draws::Shared);
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
            let mut source = Source::on_off(FlowId(0), OnOff::new(500, 400_000.0, 0.2, 1.0, shape), 0, Draws::Shared);
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
            assert_eq!(source.message_bytes(), 500);
        }
    }

    /// A trace source starts at record int(n * u + 0.5) for ns-2's first draw u, waits each
    /// record's gap, sends its bytes (over TCP as whole segments), and wraps around.
    #[test]
    fn trace_sources_take_the_records_in_turn_from_a_random_one() {
        let records = vec![(1000, 100), (2000, 2500), (500, 50), (4000, 1000)];
        let mut net = FakePort::default();
        let mut trace = Source::trace(FlowId(0), records.clone(), 1000, Draws::Shared);
        let first = (4.0 * Ns2Rng::seeded(1).uniform() + 0.5) as usize;
        assert!(!trace.start(&mut net));
        let mut at = 0.0;
        for i in 0..6 {
            let (gap, bytes) = records[(first + i) % records.len()];
            at += gap as f64 / 1e6;
            let (_, when) = net.expire(|net, _, gen| assert!(trace.fire(net, gen))).expect("armed");
            assert!((when - at).abs() < 1e-12, "record {i} at {when}, not {at}");
            assert_eq!(trace.message_bytes(), bytes);
            assert_eq!(trace.message_segments(), bytes.div_ceil(1000) as i64);
            trace.rearm(&mut net);
        }
    }

    /// CBR sends at start, then every size*8/rate; `set interval_` changes the rate from the
    /// next interval on; stop cancels the timer.
    #[test]
    fn cbr_on_tcp_sends_at_start_and_per_interval() {
        let mut net = FakePort::default();
        let mut cbr = Source::cbr(FlowId(0), 400_000.0, 500, 500, false, None, Draws::Shared);
        assert!(cbr.start(&mut net), "a packet at once");
        assert_eq!(cbr.message_segments(), 1);
        assert_eq!(Source::cbr(FlowId(0), 400_000.0, 1001, 500, false, None, Draws::Shared).message_segments(), 3);
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
