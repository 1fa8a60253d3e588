//! Helpers for the crate's unit tests.

use crate::ids::NodeId;
use crate::metrics::FlowStats;
use crate::packet::{Addr, FlowId, Kind, Packet};
use crate::port::{Endpoint, Port, TimerKind};
use crate::scenario::ScenarioError;
use crate::trace::Tracer;
use crate::wifi::config::WlanConfig;
use crate::wifi::phy::{Preamble, Radio, Timing};
use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use tcplab_des::{Ns2Rng, Scheduler, Timer};

/// A trace sink the test can read back.
#[derive(Clone, Default)]
pub struct Shared(pub Arc<Mutex<Vec<u8>>>);

impl Shared {
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).expect("traces are text")
    }
}

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An endless xorshift sequence from `seed`, for tests that try many inputs.
pub fn xorshift(mut seed: u64) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        Some(seed)
    })
}

/// A 40-byte TCP packet of flow 0 with every field at rest: a test sets what it looks at
/// (`Packet { size: 1040, ..packet() }`).
pub fn packet() -> Packet {
    let at_rest = Packet::of_network(0, Kind::Tcp, NodeId::default(), NodeId::default(), 40, 0, 0.0);
    Packet { flow: FlowId(0), ..at_rest }
}

/// A `Port` for agents' unit tests: a clock the test sets, and a record of what the agent did
/// (packets sent, timers armed, cancelled and fired, counters, trace lines). Timers go through
/// a real `Scheduler`, so a re-armed or cancelled timer's old event is stale as in a run.
pub struct FakePort {
    now: f64,
    next_uid: u64,
    /// Every packet sent, in order; `ts` is its send time.
    pub sent: Vec<Packet>,
    /// Every arming: (kind, deadline).
    pub armed: Vec<(TimerKind, f64)>,
    /// Every cancellation of a pending timer: (kind, when).
    pub cancelled: Vec<(TimerKind, f64)>,
    /// Every expiry an agent took: (kind, when).
    pub fired: Vec<(TimerKind, f64)>,
    /// The deadline of each pending timer.
    pending: Vec<(FlowId, TimerKind, f64)>,
    timers: Scheduler<(FlowId, TimerKind, u32)>,
    pub stats: Vec<FlowStats>,
    /// The real tracer: cwnd and RTT series, and TCP event lines into `events`.
    pub tracer: Tracer,
    events: Shared,
    pub stopped: Option<ScenarioError>,
    /// ns-2's generator with seed 1, for agents' draws.
    pub rng: Ns2Rng,
}

impl Default for FakePort {
    fn default() -> Self {
        let events = Shared::default();
        let tracer = Tracer {
            events: true,
            ns2: Some(Box::new(events.clone())),
            cwnd_series: Some(Vec::new()),
            rtt_series: Some(Vec::new()),
            ..Tracer::default()
        };
        FakePort {
            now: 0.0,
            next_uid: 0,
            sent: Vec::new(),
            armed: Vec::new(),
            cancelled: Vec::new(),
            fired: Vec::new(),
            pending: Vec::new(),
            timers: Scheduler::new(),
            stats: vec![FlowStats::default()],
            tracer,
            events,
            stopped: None,
            rng: Ns2Rng::seeded(1),
        }
    }
}

impl FakePort {
    /// Moves the clock to `t` seconds (never back, nor past a pending timer's deadline: the
    /// test fires it with `expire` instead).
    pub fn set_now(&mut self, t: f64) {
        assert!(t >= self.now, "the clock goes forward: {t} < {}", self.now);
        if let Some(&(_, kind, at)) = self.pending.iter().find(|p| p.2 < t) {
            panic!("{kind:?} is due at {at} before {t}: expire it first");
        }
        self.now = t;
    }

    /// The deadline of the pending timer of `kind`, if any.
    pub fn deadline(&self, kind: TimerKind) -> Option<f64> {
        self.pending.iter().find(|p| p.1 == kind).map(|p| p.2)
    }

    /// Runs the timers' events in order until an agent takes one as an expiry, moving the clock
    /// to each; `dispatch` hands an event to its agent (`on_timer(port, gen)`). Returns the kind
    /// and time of the expiry, None if no timer is pending.
    pub fn expire(&mut self, mut dispatch: impl FnMut(&mut FakePort, TimerKind, u32)) -> Option<(TimerKind, f64)> {
        let fired = self.fired.len();
        while self.fired.len() == fired {
            let (_, (_, kind, gen)) = self.timers.pop()?;
            self.now = self.timers.now_exact();
            dispatch(self, kind, gen);
        }
        self.fired.last().copied()
    }

    /// The seqnos of the packets sent since the first `from` of them.
    pub fn seqs_since(&self, from: usize) -> Vec<i64> {
        self.sent[from..].iter().map(|p| p.seq).collect()
    }

    /// The TCP event lines written so far (`E time src dst TCP EVENT fid seqno cwnd`).
    pub fn event_lines(&self) -> String {
        self.events.text()
    }

    fn unpend(&mut self, flow: FlowId, kind: TimerKind) {
        self.pending.retain(|p| (p.0, p.1) != (flow, kind));
    }
}

impl Port for FakePort {
    fn now_secs(&self) -> f64 {
        self.now
    }

    fn send(&mut self, from: &Endpoint, kind: Kind, fill: impl FnOnce(&mut Packet)) {
        let mut p = from.packet(self.next_uid, kind, self.now);
        self.next_uid += 1;
        fill(&mut p);
        self.sent.push(p);
    }

    fn arm(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind, delay: f64) {
        let at = self.now + delay;
        self.timers.arm(timer, at, |gen| (flow, kind, gen));
        self.unpend(flow, kind);
        self.pending.push((flow, kind, at));
        self.armed.push((kind, at));
    }

    fn fire(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind, gen: u32) -> bool {
        let fires = self.timers.fire(timer, gen, |gen| (flow, kind, gen));
        if fires {
            self.unpend(flow, kind);
            self.fired.push((kind, self.now));
        }
        fires
    }

    fn cancel(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind) {
        if timer.pending() {
            self.cancelled.push((kind, self.now));
        }
        self.unpend(flow, kind);
        timer.cancel();
    }

    fn tracer(&mut self) -> &mut Tracer {
        &mut self.tracer
    }

    fn flow_stats(&mut self, flow: FlowId) -> &mut FlowStats {
        let i = flow.0 as usize;
        if self.stats.len() <= i {
            self.stats.resize_with(i + 1, FlowStats::default);
        }
        &mut self.stats[i]
    }

    fn shared_rng(&mut self) -> &mut Ns2Rng {
        &mut self.rng
    }

    fn unsent_packet(&mut self) {
        self.next_uid += 1;
    }

    fn stop_run(&mut self, why: ScenarioError) {
        self.stopped.get_or_insert(why);
    }
}

/// The endpoint of flow 0's sender: node 0 port 0 to node 1 port 0.
pub fn sender_end() -> Endpoint {
    Endpoint {
        flow: FlowId(0),
        fid: 0,
        addr: Addr { node: NodeId::new(0), port: 0 },
        peer: Addr { node: NodeId::new(1), port: 0 },
    }
}

/// The endpoint of flow 0's receiver.
pub fn receiver_end() -> Endpoint {
    let s = sender_end();
    Endpoint { addr: s.peer, peer: s.addr, ..s }
}

/// An ACK of `seq` (cumulative), echoing `ts_echo`, with these SACK blocks ([left, right)).
pub fn ack(seq: i64, ts_echo: f64, sack: &[(i64, i64)]) -> Packet {
    let mut p = Packet { kind: Kind::Ack, seq, ts_echo, size: 40 + 8 * sack.len() as u32, ..packet() };
    p.set_sack_blocks(sack);
    p
}

/// A data segment `seq` of `payload` bytes sent at `ts`.
pub fn segment(seq: i64, payload: u32, ts: f64) -> Packet {
    Packet { seq, payload, size: payload + 40, ts, ..packet() }
}

/// A WLAN named `name` of `nodes` at `positions` (infrastructure mode when `access_point` is
/// set), with ns-2's 802.11b timing at 1 Mb/s and its radio, RTS/CTS off below 3000 bytes and
/// no backoff on an idle medium: the MAC's and Mobile IPv6's unit tests start from it.
pub fn wlan(name: &str, nodes: Vec<usize>, positions: Vec<(f64, f64)>, access_point: Option<usize>) -> WlanConfig {
    WlanConfig {
        name: name.into(),
        nodes,
        positions,
        access_point,
        infrastructure: None,
        timing: Timing {
            slot: 20e-6,
            sifs: 10e-6,
            preamble: Preamble::Long,
            data_rate: 1e6,
            basic_rate: 1e6,
            mac_overhead: 34,
        },
        radio: Radio::default(),
        rts_threshold: 3000,
        cw_min: 31,
        cw_max: 1023,
        short_retry_limit: 7,
        long_retry_limit: 4,
        backoff_when_idle: false,
        ns2_backoff: false,
        ll_delay: 0.0,
        arp: false,
        queue_limit: 50,
        dsdv: false,
        base_stations: Vec::new(),
        ext: None,
    }
}
