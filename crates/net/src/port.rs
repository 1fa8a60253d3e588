//! What an agent (a TCP sender or sink, the CBR source) may ask of the world around it: the
//! clock, sending a packet, its timers, the trace writers, its flow's counters, and stopping
//! the run. `Network` is the real one; unit tests drive agents through a recording fake
//! (`testing::FakePort`). Agents are generic over it, so the real build is monomorphised to
//! `Network` and pays nothing for the indirection.
//!
//! This module imports `network`, never the reverse.

use crate::ids::NodeId;
use crate::metrics::FlowStats;
use crate::network::Network;
use crate::packet::{Addr, FlowId, Kind, Packet, MAX_SACK_BLOCKS};
use crate::random::Draws;
use crate::scenario::ScenarioError;
use crate::trace::Tracer;
use tcplab_des::{Ns2Rng, Timer};

pub use crate::ctx::{End, FullTimer, TimerKind};

/// The world as an agent sees it.
pub trait Port {
    /// The current time in seconds, as ns-2's double clock holds it.
    fn now_secs(&self) -> f64;

    /// Sends a new packet of `kind` from `from` to its peer, stamped now; `fill` sets its size,
    /// payload, seqno and flags.
    fn send(&mut self, from: &Endpoint, kind: Kind, fill: impl FnOnce(&mut Packet));

    /// Arms `timer` to fire `delay` seconds from now (a double added to the double clock).
    fn arm(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind, delay: f64);

    /// True if the event of `timer` that came out with generation `gen` is its expiry.
    fn fire(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind, gen: u32) -> bool;

    /// Stops `timer`: any event of it still queued is stale.
    fn cancel(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind);

    /// The trace writers (cwnd, TCP events, RTT samples).
    fn tracer(&mut self) -> &mut Tracer;

    /// The counters of `flow`.
    fn flow_stats(&mut self, flow: FlowId) -> &mut FlowStats;

    /// A model cannot go on: the run stops with this error (the first one kept).
    fn stop_run(&mut self, why: ScenarioError);

    /// The run's shared ns-2 generator, for agents that draw from it (`Draws::Shared`).
    fn shared_rng(&mut self) -> &mut Ns2Rng;

    /// A packet an ns-2 agent allocates and then does not send: it still takes a uid.
    fn unsent_packet(&mut self);

    /// A uniform draw in [0, 1) from `draws` (the run's shared ns-2 generator or the agent's
    /// own stream).
    fn uniform(&mut self, draws: &mut Draws) -> f64 {
        draws.uniform(self.shared_rng())
    }

    /// A cwnd assignment of `ep`'s sender, for the cwnd trace and series (either sender's).
    #[inline(always)]
    fn trace_cwnd(&mut self, ep: &Endpoint, cwnd: f64, ssthresh: i64) {
        if self.tracer().cwnd_enabled() {
            let now = self.now_secs();
            self.tracer().cwnd_event(now, ep.flow.0, ep.addr, ep.peer, cwnd, ssthresh);
        }
    }
}

/// An agent's place in the network: its flow, its address and its peer's.
#[derive(Clone, Copy, Debug)]
pub struct Endpoint {
    pub flow: FlowId,
    /// ns-2's `fid_`, carried by every packet of the flow.
    pub fid: u32,
    pub addr: Addr,
    pub peer: Addr,
}

impl Endpoint {
    /// Sends a new packet of `kind` to the peer through `net` (`Port::send`).
    #[inline(always)]
    pub fn send(&self, net: &mut impl Port, kind: Kind, fill: impl FnOnce(&mut Packet)) {
        net.send(self, kind, fill);
    }

    /// A packet of this endpoint, with a fresh `uid`, stamped `ts`, every other field at rest.
    pub fn packet(&self, uid: u64, kind: Kind, ts: f64) -> Packet {
        Packet {
            uid,
            flow: self.flow,
            fid: self.fid,
            kind,
            size: 0,
            payload: 0,
            seq: 0,
            src: self.addr,
            dst: self.peer,
            flags: 0,
            ts,
            ts_echo: 0.0,
            sack: [(0, 0); MAX_SACK_BLOCKS],
            nsack: 0,
            ackno: 0,
            tcp_flags: 0,
            hlen: 0,
            encaps: 0,
            mip_bytes: 0,
            via: None,
            tunnel_from: NodeId::default(),
            ttl: crate::packet::DEFAULT_TTL,
            forwards: 0,
            next_hop: None,
            rx_duration: 0,
            rx_from: None,
            opt_forwards: 0,
            mod_scheme: 0,
        }
    }
}

impl Port for Network {
    #[inline(always)]
    fn now_secs(&self) -> f64 {
        self.ctx.now_secs()
    }

    /// The packet is built in its pool slot (`PacketPool::alloc_with`), and `fill` writes there.
    #[inline(always)]
    fn send(&mut self, from: &Endpoint, kind: Kind, fill: impl FnOnce(&mut Packet)) {
        let (uid, ts) = (self.ctx.next_uid(), self.ctx.now_secs());
        let id = self.ctx.pkts.alloc_with(|| from.packet(uid, kind, ts));
        fill(self.ctx.pkts.get_mut(id));
        self.send(from.addr.node, id);
    }

    #[inline(always)]
    fn arm(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind, delay: f64) {
        self.ctx.arm(timer, flow, kind, delay);
    }

    #[inline(always)]
    fn fire(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind, gen: u32) -> bool {
        self.ctx.fire(timer, flow, kind, gen)
    }

    /// The timer's queued event stays and is found stale when it comes out.
    #[inline(always)]
    fn cancel(&mut self, timer: &mut Timer, _flow: FlowId, _kind: TimerKind) {
        timer.cancel();
    }

    #[inline(always)]
    fn tracer(&mut self) -> &mut Tracer {
        &mut self.ctx.tracer
    }

    #[inline(always)]
    fn flow_stats(&mut self, flow: FlowId) -> &mut FlowStats {
        &mut self.ctx.flow_stats[flow.0 as usize] // checked: `Endpoint` is public
    }

    fn stop_run(&mut self, why: ScenarioError) {
        self.ctx.stop_run(why);
    }

    fn shared_rng(&mut self) -> &mut Ns2Rng {
        &mut self.ctx.rng
    }

    fn unsent_packet(&mut self) {
        self.ctx.next_uid();
    }
}
