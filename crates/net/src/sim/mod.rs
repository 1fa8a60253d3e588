//! A simulation run: built from a scenario (build.rs), driven here event by event (dispatch,
//! delivery, checks), and summarised at the end (summary.rs).

mod build;
mod summary;

use crate::guard::{Alarm, Guard};
use crate::ids::{LinkId, NodeId};
use crate::metrics::{FlowSeries, LinkSample, LinkSeries, Sampler, Summary, TcpSeries};
use crate::network::{link_name, unchecked, Event, Link, Network, TimerKind};
use crate::packet::{Kind, PacketId};
use crate::scenario::{ActionKind, AppConfig, End, RngMode, Scenario, ScenarioError, Transport};
use crate::tcp::{Ftp, FullTcp, ModernSender, Ns2Sender, RfcSender, RfcSink, TcpSink};
use crate::traffic::Source;
use crate::udp::{CbrSource, UdpAgent};
use serde::Serialize;
use std::io;
use tcplab_des::{Rng, Time};

pub use crate::options::{unknown_trace, RunOptions};
pub use build::pcap_file_names;

#[allow(clippy::large_enum_variant)] // one per flow; boxing would cost an indirection per event
enum Sender {
    /// An ns-2 agent.
    Tcp(Ns2Sender),
    /// The rfc profile's sender.
    Rfc(RfcSender),
    Modern(Box<ModernSender>),
    Cbr(CbrSource),
    /// A FullTcp flow's agent on its `from` node (the one on `to` is its receiver), boxed: the
    /// largest agent would make every flow's slot its size.
    Full(Box<FullTcp>),
    /// A UDP agent that an on/off source drives.
    Udp(UdpAgent),
}

impl Sender {
    /// ns-2's cwnd trace line as the trace is attached to an ns-2 agent.
    fn trace_cwnd_attached(&self, net: &mut Network) {
        match self {
            Sender::Tcp(tcp) => tcp.trace_cwnd_attached(net),
            Sender::Full(tcp) => tcp.trace_cwnd_attached(net),
            Sender::Rfc(_) | Sender::Modern(_) | Sender::Cbr(_) | Sender::Udp(_) => {}
        }
    }

    /// Its line as `$ns run` resets the agent.
    fn trace_cwnd_reset(&self, net: &mut Network) {
        match self {
            Sender::Tcp(tcp) => tcp.trace_cwnd_reset(net),
            Sender::Full(tcp) => tcp.trace_cwnd_reset(net),
            Sender::Rfc(_) | Sender::Modern(_) | Sender::Cbr(_) | Sender::Udp(_) => {}
        }
    }

    fn ftp(&mut self) -> Option<&mut dyn Ftp<Network>> {
        match self {
            Sender::Tcp(t) => Some(t),
            Sender::Rfc(r) => Some(r),
            Sender::Modern(m) => Some(m.as_mut()),
            Sender::Full(f) => Some(f.as_mut()),
            Sender::Cbr(_) | Sender::Udp(_) => None,
        }
    }
}

#[allow(clippy::large_enum_variant)] // the sink is the common case: boxed, it would cost an indirection per packet
enum Receiver {
    Tcp(TcpSink),
    /// The rfc profile's Linux-like receiver (`sink = "linux"`).
    Rfc(RfcSink),
    /// `Agent/Null`: counts and discards.
    Null,
    /// A FullTcp flow's agent on its `to` node (boxed, as the sender's).
    Full(Box<FullTcp>),
}

impl Flow {
    /// The application interface of the agent at `end` (a FullTcp flow has one at each).
    fn ftp(&mut self, end: End) -> Option<&mut dyn Ftp<Network>> {
        match (end, &mut self.receiver) {
            (End::To, Receiver::Full(f)) => Some(f.as_mut()),
            (End::To, _) => None,
            (End::From, _) => self.sender.ftp(),
        }
    }

    /// The FullTcp agent at `end`, if the flow is FullTcp.
    fn full(&mut self, end: End) -> Option<&mut FullTcp> {
        match (end, &mut self.sender, &mut self.receiver) {
            (End::From, Sender::Full(f), _) | (End::To, _, Receiver::Full(f)) => Some(f.as_mut()),
            _ => None,
        }
    }
}

struct Flow {
    sender: Sender,
    receiver: Receiver,
    app: AppConfig,
    /// The application that tells a TCP sender when to send, if not FTP (crate::traffic).
    source: Option<Source>,
}

pub struct Simulation {
    /// Crate-visible for emulation (crate::emu), which injects real frames and takes them out.
    pub(crate) net: Network,
    flows: Vec<Flow>,
    scenario: Scenario,
    seed: u64,
    end: Time,
    /// The insertion numbers of the scenario's actions: of the events at the end itself,
    /// these run, as ns-2 runs its `$ns at` lines written before its halt (`finish`), and
    /// nothing else does (the run's own events come after the halt, the set-up's first
    /// mobility timers have no such line).
    at_end: std::ops::Range<u64>,
    sampler: Option<Sampler>,
    guard: Guard,
}

/// Why a run did not finish.
#[derive(Debug)]
pub enum RunError {
    /// Writing its outputs failed.
    Io(io::Error),
    /// It was refused as far beyond the machine (crate::budget) or stopped as gone wrong
    /// (crate::guard), with the field to look at and why.
    Stopped(ScenarioError),
}

impl From<io::Error> for RunError {
    fn from(e: io::Error) -> RunError {
        RunError::Io(e)
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Io(e) => e.fmt(f),
            RunError::Stopped(e) => e.fmt(f),
        }
    }
}

/// What a run produces: the summary and any traced time series.
#[derive(Serialize, Debug)]
pub struct RunResult {
    pub summary: Summary,
    pub series: Series,
    /// Events the scheduler dispatched (the engine's work, for benchmarks).
    pub events: u64,
    /// What the invariant checks found, when they were on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<crate::check::CheckReport>,
}

#[derive(Serialize, Debug, Default)]
pub struct Series {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwnd: Option<CwndSeries>,
    /// Per-interval goodput of every flow (`output.interval`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flows: Option<FlowSeries>,
    /// Per-interval queue length of every link direction (`output.interval`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<LinkSeries>,
    /// Every TCP sender's cwnd, ssthresh, srtt, in-flight and pacing rate at each interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSeries>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt: Option<RttSeries>,
}

#[derive(Serialize, Debug, Default)]
pub struct CwndSeries {
    pub time: Vec<f64>,
    pub flow: Vec<String>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<i64>,
}

/// Every RTT sample a TCP sender's estimator took (`output.trace = ["rtt"]`).
#[derive(Serialize, Debug, Default)]
pub struct RttSeries {
    pub time: Vec<f64>,
    pub flow: Vec<String>,
    pub rtt_s: Vec<f64>,
}

impl RunResult {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results serialise")
    }
}

impl Simulation {
    pub fn now(&self) -> Time {
        self.net.ctx.now()
    }

    pub fn end(&self) -> Time {
        self.end
    }

    /// The queue integral of the link direction `from`->`to` so far (packet-seconds; see
    /// `LinkStats::queue_integral`), for measurements over part of a run.
    pub fn queue_integral(&self, from: &str, to: &str) -> Option<f64> {
        let nodes = &self.scenario.nodes;
        let id = |n: &str| nodes.iter().position(|x| x == n).map(NodeId::of);
        let (a, b) = (id(from)?, id(to)?);
        self.net.links.iter().find(|l| (l.from, l.to) == (a, b)).map(|l| l.stats.queue_integral(self.net.ctx.now()))
    }

    /// Each flow's in-order bytes delivered to its application so far.
    pub fn goodput_bytes(&self) -> Vec<u64> {
        self.net.ctx.flow_stats.iter().map(|f| f.goodput_bytes).collect()
    }

    /// Runs every event up to `to` and up to the end; true while the run has not reached its
    /// end. The end is judged on ns-2's double clock: events whose double time is below it run
    /// (even if they round to the end picosecond). Of those at exactly the end, only the
    /// scenario's actions run, as ns-2's halt scheduled for that time comes after its `$ns at`
    /// lines and before everything the run schedules.
    pub fn advance(&mut self, to: Time) -> bool {
        self.advance_at_most(to, u64::MAX);
        self.net.ctx.now() < self.end
    }

    /// As `advance`, but stops once about `events` events have run, even with more due before
    /// `to` (the clock then stays at the last one run): its caller gets control back however
    /// densely the events fall (Python, to take Ctrl-C). True if everything up to `to` has run.
    /// A run its guard stopped (`stopped`) runs no further.
    pub fn advance_at_most(&mut self, to: Time, events: u64) -> bool {
        let stop = to.min(self.end);
        let limit = self.net.ctx.sched.dispatched().saturating_add(events.max(1)); // at least one: progress
        while let Some(at) = self.sampler.as_ref().and_then(|s| s.due(stop)) {
            if !self.run_events(at, limit) {
                return false;
            }
            let links = self.net.links.iter().map(|l| LinkSample {
                queue: l.queue.len(),
                on_wire: l.on_wire() as usize,
                busy: l.stats.busy_time,
            });
            let tcp = self.flows.iter_mut().enumerate().filter_map(|(i, f)| Some((i, f.sender.ftp()?.state())));
            self.sampler.as_mut().expect("due").record(&self.net.ctx.flow_stats, links, tcp);
        }
        self.run_events(stop, limit)
    }

    /// The time of the next event (on the double clock), without dispatching it.
    pub(crate) fn next_event_secs(&mut self) -> Option<f64> {
        let mut next = None;
        self.net.ctx.sched.pop_if(|exact, _| {
            next = Some(exact);
            false
        });
        next
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Why the run was stopped before its end (crate::guard), if it was.
    pub fn stopped(&self) -> Option<&ScenarioError> {
        self.net.ctx.stopped.as_deref()
    }

    /// Runs the events due up to `stop` (at the end, only the actions: see `advance`), until
    /// `limit` events have run in all, with the guard's look every `guard::STRIDE` events:
    /// true if it got to `stop`.
    fn run_events(&mut self, stop: Time, limit: u64) -> bool {
        let (end, end_s, at_end) = (self.end, self.end.as_secs_f64(), self.at_end.clone());
        let before_halt = |exact: f64, seq: u64| exact < end_s || (exact == end_s && at_end.contains(&seq));
        while self.net.ctx.stopped.is_none() {
            let bound = limit.min(self.guard.next_look);
            while self.net.ctx.sched.dispatched() < bound {
                let Some(ev) = self.net.ctx.sched.pop_if(|exact, seq| {
                    before_halt(exact, seq) && (stop >= end || Time::from_secs_f64(exact) <= stop)
                }) else {
                    if stop > self.net.ctx.now() {
                        self.net.ctx.sched.advance_to(stop);
                    }
                    return true;
                };
                let flow = self.dispatch(ev);
                if self.net.ctx.check.is_some() {
                    self.check(flow);
                }
            }
            if self.net.ctx.sched.dispatched() >= self.guard.next_look {
                self.look();
            }
            if self.net.ctx.sched.dispatched() >= limit {
                break;
            }
        }
        false
    }

    /// The guard's look (out of line: the loop above is the hot path).
    #[inline(never)]
    fn look(&mut self) {
        if let Err(alarm) = self.guard.look(self.net.ctx.sched.dispatched(), self.net.ctx.now_secs()) {
            let error = self.alarm(alarm);
            self.net.ctx.stop_run(error);
        }
    }

    /// The error of an alarm, naming the flow whose timers most of the next events are (a few
    /// thousand of them are taken out to see: the run ends here). It dispatches none, so that
    /// `dispatch` and what it calls keep their one caller, which LLVM inlines them into.
    #[cold]
    fn alarm(&mut self, alarm: Alarm) -> ScenarioError {
        let mut timers = vec![0u32; self.flows.len()];
        for _ in 0..4096 {
            match self.net.ctx.sched.pop_if(|_, _| true) {
                Some(Event::Timer(f, _, _)) => timers[f.0 as usize] += 1,
                Some(_) => {}
                None => break,
            }
        }
        let culprit = (0..timers.len()).filter(|&f| timers[f] > 0).max_by_key(|&f| timers[f]);
        alarm.error(culprit.map(|f| (f, self.scenario.flows[f].name.as_str())), self.end.as_secs_f64())
    }

    /// Handles one event; returns the flow whose agents it reached, if any.
    fn dispatch(&mut self, ev: Event) -> Option<usize> {
        let net = &mut self.net;
        match ev {
            Event::LinkFree(l) => net.on_link_free(l),
            Event::Reenter(l, id, next) => net.pass_losses(l, id, next as usize),
            Event::Arrive(lane) => {
                let home = net.on_arrive(lane)?;
                return Some(Self::deliver(net, &mut self.flows, home));
            }
            Event::Timer(f, kind, gen) => {
                let flow = &mut self.flows[f.0 as usize];
                match (kind, &mut flow.sender, &mut flow.receiver) {
                    (TimerKind::Rtx, Sender::Tcp(tcp), _) => tcp.on_timer(net, gen),
                    (TimerKind::Pace, Sender::Tcp(tcp), _) => tcp.on_pace_timer(net, gen),
                    (TimerKind::DelSnd, Sender::Tcp(tcp), _) => tcp.on_delsnd_timer(net, gen),
                    (TimerKind::Rtx, Sender::Rfc(tcp), _) => tcp.on_timer(net, gen),
                    (TimerKind::Pace, Sender::Rfc(tcp), _) => tcp.on_pace_timer(net, gen),
                    (TimerKind::Rtx, Sender::Modern(tcp), _) => tcp.on_timer(net, gen),
                    (TimerKind::Pace, Sender::Modern(tcp), _) => tcp.on_pace_timer(net, gen),
                    (TimerKind::Cbr, Sender::Cbr(cbr), _) => cbr.on_timer(net, gen),
                    (TimerKind::DelAck, _, Receiver::Tcp(sink)) => sink.on_timer(net, gen),
                    (TimerKind::DelAck, _, Receiver::Rfc(sink)) => sink.on_timer(net, gen),
                    (TimerKind::Full(End::From, which), Sender::Full(a), _) => a.on_timer(net, which, gen),
                    (TimerKind::Full(End::To, which), _, Receiver::Full(b)) => b.on_timer(net, which, gen),
                    (TimerKind::App, sender, _) => {
                        let source = flow.source.as_mut().expect("an App timer is a source's");
                        if source.fire(net, gen) {
                            Self::source_sends(net, sender, source);
                        }
                    }
                    _ => unreachable!("timer {kind:?} of a flow without one"),
                }
                return Some(f.0 as usize);
            }
            Event::Wifi(ev) => {
                let home = net.on_wifi(ev)?;
                return Some(Self::deliver(net, &mut self.flows, home));
            }
            Event::Mip(m, which, gen) => net.on_mip(m, which, gen),
            Event::Dsdv(ev) => net.on_dsdv(ev),
            Event::Pbc(a, which) => net.on_pbc(&self.scenario.pbc, a, which),
            Event::Movement(i) => {
                let m = &self.scenario.moves[i as usize];
                let now = net.ctx.now_secs();
                let at = net.wifi.locate_node(m.node, now).expect("validated: a node that moves has a radio");
                net.ctx.tracer.movement(now, m.node, at, m.to, m.speed);
            }
            Event::NodeReset(i) => net.reset_node(NodeId::of(self.scenario.resets[i as usize].node)),
            Event::DelaySpike(i, starts) => {
                let spike = self.scenario.delay_spikes[i as usize];
                let link = LinkId(spike.link as u32);
                if starts {
                    net.block(link);
                    // ns-2's `$ns after length "$delayer unblock"`, scheduled as the spike starts
                    let end = net.ctx.now_secs() + spike.length_s;
                    net.ctx.sched.schedule_exact(end, Event::DelaySpike(i, false));
                } else {
                    net.unblock(link);
                }
            }
            Event::Act(i) => {
                let action = self.scenario.actions[i.index()];
                let flow = &mut self.flows[action.flow];
                let app = flow.app;
                if let (ActionKind::SetCwnd { cwnd }, Sender::Tcp(tcp)) = (action.kind, &mut flow.sender) {
                    tcp.tcl_set_cwnd(net, cwnd as f64);
                } else if let (ActionKind::Reset, Sender::Tcp(tcp)) = (action.kind, &mut flow.sender) {
                    // ns-2's reset draws the agent's clock phase anew
                    let phase = match self.scenario.rng {
                        RngMode::Ns2 => net.ctx.rng.uniform(),
                        RngMode::Streams => {
                            let name = &self.scenario.flows[action.flow].name;
                            Rng::stream(self.seed, &format!("flow/{name}/tcp/reset/{}", i.index())).uniform()
                        }
                    };
                    tcp.reset(net, phase);
                } else if let (ActionKind::ResetSink, Receiver::Tcp(sink)) = (action.kind, &mut flow.receiver) {
                    sink.reset(net);
                    if let Some(check) = net.ctx.check.as_mut() {
                        check.sink_reset(action.flow, net.ctx.flow_stats[action.flow].goodput_bytes);
                    }
                } else if let Some(source) = &mut flow.source {
                    match action.kind {
                        ActionKind::Start => {
                            if source.start(net) {
                                Self::source_sends(net, &mut flow.sender, source);
                            }
                        }
                        ActionKind::Stop => source.stop(net),
                        ActionKind::SetInterval { interval_s } => source.set_interval(interval_s),
                        kind => unreachable!("validation rules out {kind:?} on {app:?}"),
                    }
                } else if let Sender::Cbr(cbr) = &mut flow.sender {
                    match action.kind {
                        ActionKind::Start => cbr.start(net),
                        ActionKind::Stop => cbr.stop(net),
                        kind => unreachable!("validation rules out {kind:?} on {app:?}"),
                    }
                } else if let (ActionKind::Close | ActionKind::AdvanceBytes { .. }, Some(full)) =
                    (action.kind, flow.full(action.end))
                {
                    match action.kind {
                        ActionKind::Close => full.close(net),
                        ActionKind::AdvanceBytes { bytes } => full.advance_bytes(net, bytes as i64),
                        _ => unreachable!("matched above"),
                    }
                } else if let Some(tcp) = flow.ftp(action.end) {
                    match (action.kind, app) {
                        (ActionKind::Start, AppConfig::Ftp { packets: None }) => tcp.send_unlimited(net),
                        (ActionKind::Start, AppConfig::Ftp { packets: Some(n) }) => tcp.advance(net, n as i64),
                        (ActionKind::Stop, _) => tcp.stop(net),
                        (ActionKind::Produce { packets }, _) => tcp.advance(net, packets as i64),
                        (ActionKind::ProduceMore { packets }, _) => tcp.advance_by(net, packets as i64),
                        (kind, app) => unreachable!("validation rules out {kind:?} on {app:?}"),
                    }
                }
                return Some(action.flow);
            }
        }
        None
    }

    /// A source's packet is due: its agent gets the message (ns-2's `sendmsg`), then the source
    /// sets its next time.
    fn source_sends(net: &mut Network, sender: &mut Sender, source: &mut Source) {
        match sender {
            Sender::Udp(udp) => udp.send(net, source.message_bytes()),
            // FullTcp's `sendmsg` takes bytes: a Telnet's message is one segment (its size())
            Sender::Full(full) => {
                let bytes = full.segment_size();
                full.sendmsg(net, bytes)
            }
            tcp => tcp
                .ftp()
                .expect("validation gives Telnet and CBR sources TCP senders")
                .advance_by(net, source.message_segments()),
        }
        source.rearm(net);
    }

    /// The invariants after an event (see `check`): the clock, and the agents of `flow`.
    fn check(&mut self, flow: Option<usize>) {
        let now = self.net.ctx.now_secs();
        let check = self.net.ctx.check.as_mut().expect("checking");
        check.time(now);
        let Some(i) = flow else { return };
        let f = &mut self.flows[i];
        let name = &self.scenario.flows[i].name;
        if let Some(tcp) = f.sender.ftp() {
            check.sender(now, name, tcp.state());
        }
        let cumulative = match &f.receiver {
            Receiver::Tcp(sink) => Some(sink.cumulative()),
            Receiver::Rfc(sink) => Some(sink.cumulative()),
            Receiver::Null | Receiver::Full(_) => None,
        };
        if let (Some(seqno), Transport::Tcp(cfg)) = (cumulative, &self.scenario.flows[i].transport) {
            let bytes = self.net.ctx.flow_stats[i].goodput_bytes;
            check.sink(now, i, name, seqno, bytes, cfg.params.packet_size as u64);
        }
    }

    /// The end-of-run invariants: every packet accounted for, per flow and per link.
    fn check_conservation(&mut self) {
        let now = self.net.ctx.now_secs();
        if self.net.ctx.check.is_none() {
            return;
        }
        let taken = self.net.wifi.frames_received_unacked();
        let check = self.net.ctx.check.as_mut().expect("checking");
        let mut live = vec![0u64; self.flows.len()];
        for (id, p) in self.net.ctx.pkts.live_packets() {
            let data = p.kind.is_data() || (p.kind == Kind::Ack && p.payload > 0);
            if data && !taken.contains(&id) {
                live[p.flow.0 as usize] += 1;
            }
        }
        for (i, s) in self.net.ctx.flow_stats.iter().enumerate() {
            if s.data_sent != s.data_delivered + s.data_dropped + live[i] {
                let name = &self.scenario.flows[i].name;
                check.fail(now, || {
                    format!(
                        "flow {name}: {} data packets sent, {} delivered, {} dropped, {} in the network",
                        s.data_sent, s.data_delivered, s.data_dropped, live[i]
                    )
                });
            }
        }
        let delayed = |l: &Link| l.losses.iter().any(|m| matches!(m.action, crate::scenario::LossAction::Delay { .. }));
        let on_wire = self.net.flights.on_wire(self.net.links.len());
        for (l, &on_wire) in self.net.links.iter().zip(&on_wire) {
            let s = &l.stats;
            let name = link_name(&self.scenario.nodes, l);
            let accounted = s.departures + s.drops + (l.queue.len() + l.held()) as u64;
            // a loss model that delays packets holds them between arrival and queue
            if s.arrivals < accounted || (s.arrivals > accounted && !delayed(l)) {
                check.fail(now, || {
                    format!(
                        "link {name}: {} in, {} out, {} dropped, {} waiting",
                        s.arrivals,
                        s.departures,
                        s.drops,
                        l.queue.len()
                    )
                });
            }
            if s.departures != s.received + on_wire {
                check.fail(now, || {
                    format!("link {name}: {} sent, {} received, {} on the wire", s.departures, s.received, on_wire)
                });
            }
        }
    }

    /// A FullTcp flow's packet, to whichever of its two agents it is addressed (either may
    /// send `tcp` or `ack` packets).
    #[cold]
    fn full_recv(from: &mut Sender, to: &mut FullTcp, net: &mut Network, pkt: &crate::packet::Packet) {
        match from {
            Sender::Full(from) if pkt.dst == from.addr() => from.recv(net, pkt),
            _ => to.recv(net, pkt),
        }
    }

    /// Packet `id` reached the node of the agent it is addressed to; returns its flow.
    fn deliver(net: &mut Network, flows: &mut [Flow], id: PacketId) -> usize {
        let pkt = &net.ctx.pkts.release(id);
        if matches!(
            pkt.kind,
            Kind::Arp | Kind::Message | Kind::Pbc | Kind::BindingUpdate | Kind::BindingAck | Kind::Real
        ) {
            unreachable!("signalling and real frames end in the network"); // their flow is no flow's
        }
        let delay = Time::from_secs_f64(net.ctx.now_secs() - pkt.ts);
        // SAFETY: an agent's packet carries its `Endpoint`'s flow, one of the scenario's, with
        // its agents and books
        let (flow, stats) =
            unsafe { (unchecked(flows, pkt.flow.0 as usize), unchecked(&mut net.ctx.flow_stats, pkt.flow.0 as usize)) };
        match pkt.kind {
            Kind::Tcp | Kind::Cbr | Kind::Exp | Kind::Pareto | Kind::Udp => {
                stats.on_data_delivered(pkt.size, delay);
                match &mut flow.receiver {
                    Receiver::Tcp(sink) => sink.recv(net, pkt),
                    Receiver::Rfc(sink) => sink.recv(net, pkt),
                    Receiver::Null => stats.goodput_bytes += pkt.payload as u64,
                    Receiver::Full(to) => Self::full_recv(&mut flow.sender, to, net, pkt),
                }
            }
            Kind::Arp | Kind::Message | Kind::Pbc | Kind::BindingUpdate | Kind::BindingAck | Kind::Real => {
                unreachable!("ruled out above")
            }
            Kind::Ack => {
                if pkt.payload > 0 {
                    stats.on_data_delivered(pkt.size, delay); // a FullTcp listener's data
                } else {
                    stats.acks_delivered += 1;
                }
                match &mut flow.sender {
                    Sender::Tcp(tcp) => tcp.recv(net, pkt),
                    Sender::Rfc(tcp) => tcp.recv(net, pkt),
                    Sender::Modern(tcp) => tcp.recv(net, pkt),
                    Sender::Cbr(_) | Sender::Udp(_) => {}
                    Sender::Full(_) => {
                        if let Receiver::Full(to) = &mut flow.receiver {
                            Self::full_recv(&mut flow.sender, to, net, pkt)
                        }
                    }
                }
            }
        }
        pkt.flow.0 as usize
    }
}
