//! What every component of a run shares: the clock and its events, the packets, the trace
//! writers, the random numbers and the flows' counters. The wired network, the 802.11 MAC and
//! Mobile IPv6 each take `&mut Ctx` and keep only their own state, so each can be built and
//! tested alone; what one hands to another (a packet delivered, dropped, or to forward) it
//! returns, and only the network forwards packets.

use crate::check::Checks;
pub use crate::ids::End;
use crate::ids::{ActionId, LaneId, LinkId};
use crate::metrics::FlowStats;
use crate::mobility::event::MipTimer;
use crate::packet::{FlowId, PacketId, PacketPool};
use crate::scenario::ScenarioError;
use crate::trace::Tracer;
use crate::wifi::event::WifiEvent;
use tcplab_des::{Ns2Rng, Scheduler, Time, Timer};

/// Everything that can happen, as a small plain value.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A link finished serialising a packet and may start the next one.
    LinkFree(LinkId),
    /// The first packet of flight lane `0` reaches the far end of its link.
    Arrive(LaneId),
    /// A packet a loss model held back enters link `0` again, after its loss model `2`.
    Reenter(LinkId, PacketId, u8),
    /// A flow's timer fired; stale unless `gen` is the timer's current generation.
    Timer(FlowId, TimerKind, u32),
    /// The scenario's action with this index.
    Act(ActionId),
    /// Something on a wireless LAN.
    Wifi(WifiEvent),
    /// A mobile node's timer (its index, which timer, generation).
    Mip(u32, MipTimer, u32),
    /// The scenario's delay spike with this index starts (true) or ends.
    DelaySpike(u32, bool),
    /// The scenario's move with this index starts: its `M` line in the wireless trace.
    Movement(u32),
    /// The scenario's node reset with this index (`$node reset`).
    NodeReset(u32),
    /// A DSDV routing agent's timer or update (crate::dsdv).
    Dsdv(crate::dsdv::DsdvEvent),
    /// An `Agent/PBC`'s send (agent, index of the send, or `pbc::PERIODIC`; crate::pbc).
    Pbc(u32, u32),
}

/// The timers of flows' agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// The TCP sender's retransmission timer.
    Rtx,
    /// The delayed-ACK sink's timer.
    DelAck,
    /// The CBR source's next packet.
    Cbr,
    /// An RBP sender's next paced segment.
    Pace,
    /// A traffic source's next packet (crate::traffic).
    App,
    /// An ns-2 sender's delayed send (`overhead_`).
    DelSnd,
    /// A FullTcp agent's timers; each end of a two-way flow has its own.
    Full(End, FullTimer),
}

/// ns-2's FullTcp timers: retransmission, delayed ACK, and the delayed send of `overhead_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullTimer {
    Rtx,
    DelAck,
    DelSnd,
}

pub struct Ctx {
    pub sched: Scheduler<Event>,
    /// Crate-private, as `flow_stats` is: a hop indexes them without bounds checks
    /// (`PacketPool::slot_in_range`), by ids made from the tables themselves.
    pub(crate) pkts: PacketPool,
    /// The trace writers. They are opened before the network is built and stay as they are:
    /// each link's `traced` flag is taken from them once.
    pub tracer: Tracer,
    /// ns-2's default generator, for the components that draw from it (`random::Draws::Shared`).
    pub rng: Ns2Rng,
    pub(crate) flow_stats: Vec<FlowStats>,
    /// The invariant checks, when on (`--check`).
    pub check: Option<Checks>,
    /// Why a model refused to go on (`stop_run`): the run ends at its guard's next look.
    /// Boxed: a pointer's room among the fields every hop reads.
    pub(crate) stopped: Option<Box<ScenarioError>>,
    next_uid: u64,
}

impl Ctx {
    /// A run's shared state at time zero, with `flows` flows' counters.
    pub fn new(flows: usize, tracer: Tracer, rng: Ns2Rng) -> Ctx {
        Ctx {
            sched: Scheduler::new(),
            pkts: PacketPool::default(),
            tracer,
            rng,
            flow_stats: (0..flows).map(|_| FlowStats::default()).collect(),
            check: None,
            stopped: None,
            next_uid: 0,
        }
    }

    pub fn now(&self) -> Time {
        self.sched.now()
    }

    /// The current time in seconds, as ns-2's double clock holds it.
    pub fn now_secs(&self) -> f64 {
        self.sched.now_exact()
    }

    /// A fresh packet id, as ns-2's global `Agent::uidcnt_`.
    pub fn next_uid(&mut self) -> u64 {
        let uid = self.next_uid;
        self.next_uid += 1;
        uid
    }

    /// A model cannot go on (its arithmetic left the range of the simulator it reproduces):
    /// the run stops at its guard's next look with this error, the first one kept.
    #[cold]
    pub fn stop_run(&mut self, why: ScenarioError) {
        self.stopped.get_or_insert(Box::new(why));
    }

    /// Arms `timer` to fire `delay` seconds from now and schedules its event. Delays are doubles
    /// added to the double clock, as ns-2's `Scheduler::schedule` does.
    pub fn arm(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind, delay: f64) {
        let at = self.now_secs() + delay;
        self.sched.arm(timer, at, |gen| Event::Timer(flow, kind, gen));
    }

    /// True if the event of `timer` that came out with generation `gen` is its expiry.
    pub fn fire(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind, gen: u32) -> bool {
        self.sched.fire(timer, gen, |gen| Event::Timer(flow, kind, gen))
    }
}
