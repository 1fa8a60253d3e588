//! A simulation run: builds the network and agents from a scenario, dispatches events, and
//! summarises the counters at the end.

use crate::guard::{Alarm, Guard};
use crate::loss::Loss;
use crate::metrics::{
    jain, FlowSeries, FlowSummary, LinkSample, LinkSeries, LinkSummary, RadioSummary, Sampler, Summary, TcpSeries,
};
use crate::mobility::Mip;
use crate::network::{link_name, unchecked, Endpoint, Event, Link, Network, TimerKind};
use crate::packet::{Addr, FlowId, Kind, PacketId};
use crate::pcap::{FlowWire, Pcap};
use crate::queue::Queue;
use crate::random::{tcl_array_order, Draws};
use crate::scenario::{
    ActionKind, AppConfig, FlowConfig, LossAt, Profile, QueueConfig, RngMode, Scenario, ScenarioError, TcpVariant,
    Transport,
};
use crate::tcp::{Agent, Ftp, RfcSender, TcpSender, TcpSink};
use crate::trace::{Sink, Tracer};
use crate::udp::CbrSource;
use crate::wifi::Wifi;
use serde::Serialize;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::PathBuf;
use tcplab_des::{Ns2Rng, Rng, Time};

pub use crate::options::{unknown_trace, RunOptions};

#[allow(clippy::large_enum_variant)] // one per flow; boxing would cost an indirection per event
enum Sender {
    /// An ns-2 agent.
    Tcp(TcpSender),
    /// The rfc profile's sender.
    Rfc(RfcSender),
    Cbr(CbrSource),
}

impl Sender {
    fn ftp(&mut self) -> Option<&mut dyn Ftp> {
        match self {
            Sender::Tcp(t) => Some(t),
            Sender::Rfc(r) => Some(r),
            Sender::Cbr(_) => None,
        }
    }
}

#[allow(clippy::large_enum_variant)]
enum Receiver {
    Tcp(TcpSink),
    /// `Agent/Null`: counts and discards.
    Null,
}

struct Flow {
    sender: Sender,
    receiver: Receiver,
    app: AppConfig,
}

pub struct Simulation {
    net: Network,
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

fn open_trace(dir: &Option<PathBuf>, name: &str) -> io::Result<Sink> {
    open_file(dir, name, 1 << 20)
}

/// `name` under the output directory, created with its folders, behind a `buffer`-byte buffer.
/// An error names the path it failed on (a file where a folder should be, a full disk).
fn open_file(dir: &Option<PathBuf>, name: &str, buffer: usize) -> io::Result<Sink> {
    let dir = dir.as_ref().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, format!("the {name} trace needs an output directory"))
    })?;
    let path = dir.join(name);
    let folder = path.parent().unwrap_or(dir);
    let named = |at: &std::path::Path, e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", at.display()));
    std::fs::create_dir_all(folder).map_err(|e| named(folder, e))?;
    Ok(Box::new(BufWriter::with_capacity(buffer, File::create(&path).map_err(|e| named(&path, e))?)))
}

/// The pcap file of each link (None where it is not traced), under `pcap/`: `A-B.pcap` for the
/// link from node A to node B, each name kept to the characters `[A-Za-z0-9._-]` (others become
/// `_`) and to 100 of them. Where two links would get the same name (nodes `x/y` and `x_y`,
/// or `a-b`+`c` and `a`+`b-c`), each of them gets its place among the links too, `A-B~3.pcap`
/// for the third: `~` is in no cleaned name, so no two files are ever one.
pub fn pcap_file_names(scenario: &Scenario) -> Vec<Option<String>> {
    let clean = |name: &str| {
        name.chars()
            .take(100)
            .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' })
            .collect::<String>()
    };
    let traced = |a: usize, b: usize| {
        scenario.trace_links.as_ref().is_none_or(|dirs| dirs.contains(&(a, b)) || dirs.contains(&(b, a)))
    };
    let plain: Vec<Option<String>> = scenario
        .links
        .iter()
        .map(|l| traced(l.a, l.b).then(|| format!("{}-{}", clean(&scenario.nodes[l.a]), clean(&scenario.nodes[l.b]))))
        .collect();
    let mut uses = std::collections::HashMap::new();
    for name in plain.iter().flatten() {
        *uses.entry(name.as_str()).or_insert(0) += 1;
    }
    plain
        .iter()
        .enumerate()
        .map(|(i, name)| {
            name.as_ref().map(|n| {
                if uses[n.as_str()] > 1 {
                    format!("pcap/{n}~{}.pcap", i + 1)
                } else {
                    format!("pcap/{n}.pcap")
                }
            })
        })
        .collect()
}

/// The pcap capture: one file per traced link, both directions (see `pcap_file_names`).
fn pcap_capture(scenario: &Scenario, mip: &Mip, dir: &Option<PathBuf>) -> io::Result<Pcap> {
    let files = pcap_file_names(scenario)
        .into_iter()
        .map(|name| name.map(|n| open_file(dir, &n, 64 << 10)).transpose())
        .collect::<io::Result<Vec<_>>>()?;
    let flows = scenario
        .flows
        .iter()
        .map(|f| match &f.transport {
            Transport::Tcp(t) => {
                let segment = t.params.packet_size;
                FlowWire {
                    segment,
                    timestamps: t.params.timestamps,
                    window: (t.params.window as u64 * segment as u64).min(65535) as u16,
                }
            }
            Transport::Udp => FlowWire { segment: 1, timestamps: false, window: 65535 },
        })
        .collect();
    let mobile = (0..scenario.nodes.len() as u32).map(|n| mip.is_mobile(n)).collect();
    Pcap::new(scenario.pcap_ip, flows, mobile, files)
}

/// The flows in the order `$ns run` resets their senders: node by node in Tcl's `array names`
/// order, each node's agents in the order they were attached (the flows' order).
fn reset_order(scenario: &Scenario) -> impl Iterator<Item = usize> + '_ {
    tcl_array_order(scenario.nodes.len())
        .into_iter()
        .flat_map(move |node| (0..scenario.flows.len()).filter(move |&i| scenario.flows[i].from == node))
}

/// Each TCP sender's clock phase (ns-2's `boot_time_` / `tcpTick_`), by flow.
///
/// ns-2 draws a phase when it creates a TCP agent and again when `$ns run` resets it; the second
/// one stays. Resets go node by node in Tcl's `array names` order, agents in attach order (per
/// flow: sender on `from`, then sink on `to`; sinks draw nothing).
fn clock_phases(scenario: &Scenario, seed: u64, shared: &mut Ns2Rng) -> Vec<f64> {
    // Only ns-2's agents have a clock phase.
    let is_tcp = |f: &FlowConfig| matches!(&f.transport, Transport::Tcp(t) if t.profile == Profile::Ns2);
    let mut phases = vec![0.0; scenario.flows.len()];
    match scenario.rng {
        RngMode::Streams => {
            for (i, f) in scenario.flows.iter().enumerate().filter(|(_, f)| is_tcp(f)) {
                phases[i] = Rng::stream(seed, &format!("flow/{}/tcp", f.name)).uniform();
            }
        }
        RngMode::Ns2 => {
            for f in scenario.flows.iter().filter(|f| is_tcp(f)) {
                // The draws at creation, overwritten at `$ns run` (Vegas resets itself twice).
                let vegas = matches!(&f.transport, Transport::Tcp(t) if t.variant == TcpVariant::Vegas);
                for _ in 0..if vegas { 2 } else { 1 } {
                    shared.uniform();
                }
            }
            for i in reset_order(scenario).filter(|&i| is_tcp(&scenario.flows[i])) {
                phases[i] = shared.uniform();
            }
        }
    }
    phases
}

impl Simulation {
    /// A run of `scenario`, refused (`RunError::Stopped`) when it is estimated far beyond this
    /// machine, unless `opts.no_limits` (crate::budget), before any file is opened.
    pub fn new(scenario: Scenario, opts: &RunOptions) -> Result<Simulation, RunError> {
        let estimate = crate::budget::enforce(&scenario, opts).map_err(RunError::Stopped)?;
        let seed = opts.seed.unwrap_or(scenario.seed);
        let end = opts.until.unwrap_or(scenario.duration);
        let traces = scenario.traces.union(opts.traces);
        let only_links = scenario.trace_links.as_ref().map(|l| l.iter().map(|&(a, b)| (a as u32, b as u32)).collect());
        let mut tracer =
            Tracer { tcp_header: traces.tcp_header, events: traces.events, only_links, ..Tracer::default() };
        if traces.ns2 {
            tracer.ns2 = Some(open_trace(&opts.out_dir, "trace.tr")?);
            if !scenario.wlans.is_empty() {
                tracer.wireless = Some(scenario.wireless_format);
            }
        }
        if traces.nam {
            tracer.nam = Some(open_trace(&opts.out_dir, "trace.nam")?);
            let links: Vec<_> = scenario
                .links
                .iter()
                .map(|l| (l.a as u32, l.b as u32, l.bandwidth_bps, l.delay.as_secs_f64()))
                .collect();
            tracer.nam_topology(scenario.nodes.len(), &links);
        }
        // the flows the series and the cwnd trace cover (`output.trace_flows`)
        let traced_flows: Vec<bool> = (0..scenario.flows.len())
            .map(|i| scenario.trace_flows.as_ref().is_none_or(|ids| ids.contains(&i)))
            .collect();
        tracer.flows = traced_flows.clone();
        if traces.rtt && !opts.skip_series {
            tracer.rtt_series = Some(Vec::new());
        }
        if traces.cwnd {
            if !opts.skip_series {
                tracer.cwnd_series = Some(Vec::new());
            }
            if opts.out_dir.is_some() {
                tracer.cwnd = Some(open_trace(&opts.out_dir, "cwnd.tr")?);
            }
        }

        let draws = |component: String| match scenario.rng {
            RngMode::Ns2 => Draws::Shared,
            RngMode::Streams => Draws::Own(Rng::stream(seed, &component)),
        };
        // Each duplex link i becomes simplex links 2i (a->b) and 2i+1 (b->a).
        let mut links = Vec::with_capacity(2 * scenario.links.len());
        for l in &scenario.links {
            for (from, to, limit) in [(l.a, l.b, l.queue.limit), (l.b, l.a, l.reverse_limit)] {
                let queue = QueueConfig { limit, ..l.queue.clone() };
                let rng = draws(format!("link/{}->{}", scenario.nodes[from], scenario.nodes[to]));
                let queue = Queue::new(&queue, l.bandwidth_bps, l.delay, rng);
                links.push(Link::new(from as u32, to as u32, l.bandwidth_bps, l.delay.as_secs_f64(), queue));
            }
        }
        let mut radio_losses = Vec::new();
        for (i, l) in scenario.losses.iter().enumerate() {
            let loss = Loss::new(l, draws(format!("loss/{i}")));
            match l.at {
                LossAt::Link { link } => links[link].losses.insert(0, loss), // the newest meets packets first
                LossAt::Radio { wlan, node } => radio_losses.push((wlan, node, loss)),
            }
        }
        // ns-2's generator (unused, and so seeded 1, with per-component streams)
        let mut shared = Ns2Rng::seeded(if scenario.rng == RngMode::Ns2 { seed as u32 } else { 1 });
        let phases = clock_phases(&scenario, seed, &mut shared);
        let mut wifi = Wifi::new(scenario.wlans.clone(), draws);
        wifi.paths = scenario.paths();
        for (wlan, node, loss) in radio_losses {
            let r = wifi.radio(wlan, node).expect("validated: the node is on the WLAN");
            wifi.stations[r as usize].losses.push(loss);
        }
        // each mobile node's radios, with the access point of their WLAN
        let access = |node: usize| -> Vec<(u32, u32)> {
            let mut pairs = Vec::new();
            for (w, cfg) in scenario.wlans.iter().enumerate() {
                if let (Some(ap), Some(r)) = (cfg.access_point, wifi.radio(w, node)) {
                    pairs.extend(wifi.radio(w, ap).filter(|_| ap != node).map(|a| (r, a)));
                }
            }
            pairs
        };
        // each node's correspondents: the other ends of its flows
        let peers = |node: usize| -> Vec<u32> {
            let mut p: Vec<u32> = scenario
                .flows
                .iter()
                .filter_map(|f| {
                    if f.to == node {
                        Some(f.from as u32)
                    } else if f.from == node {
                        Some(f.to as u32)
                    } else {
                        None
                    }
                })
                .collect();
            p.sort_unstable();
            p.dedup();
            p
        };
        let mip =
            Mip::new(scenario.nodes.len(), scenario.mobile_nodes.clone(), access, peers, draws("mip".to_string()));
        if traces.pcap {
            tracer.pcap = Some(pcap_capture(&scenario, &mip, &opts.out_dir)?);
        }
        let mut net = Network::new(scenario.nodes.clone(), links, wifi, mip, scenario.flows.len(), tracer, shared);
        net.start_mobility();
        if opts.check {
            net.check = Some(crate::check::Checks::new(scenario.flows.len()));
        }

        // Agents get ports on their node in the order they are attached (sender, then sink),
        // as ns-2's `attach-agent` does.
        let mut next_port = vec![0u32; scenario.nodes.len()];
        let mut port = |node: usize| {
            let p = next_port[node];
            next_port[node] += 1;
            Addr { node: node as u32, port: p }
        };
        let mut flows = Vec::with_capacity(scenario.flows.len());
        for (i, f) in scenario.flows.iter().enumerate() {
            let id = FlowId(i as u32);
            let (src, dst) = (port(f.from), port(f.to));
            let sender_end = Endpoint { flow: id, fid: f.fid, addr: src, peer: dst };
            let receiver_end = Endpoint { addr: dst, peer: src, ..sender_end };
            let (sender, receiver) = match (&f.transport, f.app) {
                (Transport::Tcp(t), _) => {
                    let sender = match (t.profile, Agent::of(t.variant)) {
                        (Profile::Ns2, Some(agent)) => Sender::Tcp(TcpSender::new(
                            agent,
                            t.params.clone(),
                            t.pacing.clone(),
                            sender_end,
                            phases[i],
                        )),
                        _ => {
                            let mut rfc = RfcSender::new(t, sender_end);
                            rfc.trace_cwnd(&mut net);
                            Sender::Rfc(rfc)
                        }
                    };
                    (sender, Receiver::Tcp(TcpSink::new(receiver_end, &t.sink)))
                }
                (Transport::Udp, AppConfig::Cbr { rate_bps, size }) => {
                    (Sender::Cbr(CbrSource::new(sender_end, rate_bps, size)), Receiver::Null)
                }
                (Transport::Udp, AppConfig::Ftp { .. }) => unreachable!("validation pairs FTP with TCP"),
            };
            flows.push(Flow { sender, receiver, app: f.app });
        }
        // ns-2's cwnd trace: a line as each agent's trace is attached (flow order), then one as
        // `$ns run` resets each agent
        let agent = |i: usize| match &flows[i].sender {
            Sender::Tcp(tcp) => Some(tcp),
            _ => None,
        };
        for tcp in (0..flows.len()).filter_map(agent) {
            tcp.trace_cwnd_attached(&mut net);
        }
        for tcp in reset_order(&scenario).filter_map(agent) {
            tcp.trace_cwnd_reset(&mut net);
        }
        let first_action = net.sched.reserve(); // a mark: numbers are only compared
        for (i, a) in scenario.actions.iter().enumerate() {
            net.sched.schedule_exact(a.at_s, Event::Act(i as u32));
        }
        let at_end = first_action..net.sched.reserve();
        let sampler = scenario.interval.filter(|_| !opts.skip_series).map(|interval| {
            let flow_names = scenario.flows.iter().map(|f| f.name.clone()).collect();
            let link_names = net.links.iter().map(|l| link_name(&scenario.nodes, l)).collect();
            let traced =
                |l: &Link| scenario.trace_links.as_ref().is_none_or(|d| d.contains(&(l.from as usize, l.to as usize)));
            let links = net.links.iter().map(traced).collect();
            Sampler::new(interval, flow_names, link_names, traced_flows, links)
        });
        let guard = Guard::new(estimate.events, !opts.no_limits, opts.max_events);
        Ok(Simulation { net, flows, scenario, seed, end, at_end, sampler, guard })
    }

    pub fn now(&self) -> Time {
        self.net.now()
    }

    pub fn end(&self) -> Time {
        self.end
    }

    /// The queue integral of the link direction `from`->`to` so far (packet-seconds; see
    /// `LinkStats::queue_integral`), for measurements over part of a run.
    pub fn queue_integral(&self, from: &str, to: &str) -> Option<f64> {
        let nodes = &self.scenario.nodes;
        let id = |n: &str| nodes.iter().position(|x| x == n).map(|i| i as u32);
        let (a, b) = (id(from)?, id(to)?);
        self.net.links.iter().find(|l| (l.from, l.to) == (a, b)).map(|l| l.stats.queue_integral(self.net.now()))
    }

    /// Each flow's in-order bytes delivered to its application so far.
    pub fn goodput_bytes(&self) -> Vec<u64> {
        self.net.flow_stats.iter().map(|f| f.goodput_bytes).collect()
    }

    /// Runs every event up to `to` and up to the end; true while the run has not reached its
    /// end. The end is judged on ns-2's double clock: events whose double time is below it run
    /// (even if they round to the end picosecond). Of those at exactly the end, only the
    /// scenario's actions run, as ns-2's halt scheduled for that time comes after its `$ns at`
    /// lines and before everything the run schedules.
    pub fn advance(&mut self, to: Time) -> bool {
        self.advance_at_most(to, u64::MAX);
        self.net.now() < self.end
    }

    /// As `advance`, but stops once about `events` events have run, even with more due before
    /// `to` (the clock then stays at the last one run): its caller gets control back however
    /// densely the events fall (Python, to take Ctrl-C). True if everything up to `to` has run.
    /// A run its guard stopped (`stopped`) runs no further.
    pub fn advance_at_most(&mut self, to: Time, events: u64) -> bool {
        let stop = to.min(self.end);
        let limit = self.net.sched.dispatched().saturating_add(events.max(1)); // at least one: progress
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
            self.sampler.as_mut().expect("due").record(&self.net.flow_stats, links, tcp);
        }
        self.run_events(stop, limit)
    }

    /// Why the run was stopped before its end (crate::guard), if it was.
    pub fn stopped(&self) -> Option<&ScenarioError> {
        self.net.stopped.as_deref()
    }

    /// Runs the events due up to `stop` (at the end, only the actions: see `advance`), until
    /// `limit` events have run in all, with the guard's look every `guard::STRIDE` events:
    /// true if it got to `stop`.
    fn run_events(&mut self, stop: Time, limit: u64) -> bool {
        let (end, end_s, at_end) = (self.end, self.end.as_secs_f64(), self.at_end.clone());
        let before_halt = |exact: f64, seq: u64| exact < end_s || (exact == end_s && at_end.contains(&seq));
        while self.net.stopped.is_none() {
            let bound = limit.min(self.guard.next_look);
            while self.net.sched.dispatched() < bound {
                let Some(ev) = self.net.sched.pop_if(|exact, seq| {
                    before_halt(exact, seq) && (stop >= end || Time::from_secs_f64(exact) <= stop)
                }) else {
                    if stop > self.net.now() {
                        self.net.sched.advance_to(stop);
                    }
                    return true;
                };
                let flow = self.dispatch(ev);
                if self.net.check.is_some() {
                    self.check(flow);
                }
            }
            if self.net.sched.dispatched() >= self.guard.next_look {
                self.look();
            }
            if self.net.sched.dispatched() >= limit {
                break;
            }
        }
        false
    }

    /// The guard's look (out of line: the loop above is the hot path).
    #[inline(never)]
    fn look(&mut self) {
        if let Err(alarm) = self.guard.look(self.net.sched.dispatched(), self.net.now_secs()) {
            let error = self.alarm(alarm);
            self.net.stop_run(error);
        }
    }

    /// The error of an alarm, naming the flow whose timers most of the next events are (a few
    /// thousand of them are taken out to see: the run ends here). It dispatches none, so that
    /// `dispatch` and what it calls keep their one caller, which LLVM inlines them into.
    #[cold]
    fn alarm(&mut self, alarm: Alarm) -> ScenarioError {
        let mut timers = vec![0u32; self.flows.len()];
        for _ in 0..4096 {
            match self.net.sched.pop_if(|_, _| true) {
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
            Event::Reenter(l, id, next) => net.pass_losses(l as usize, id, next as usize),
            Event::Arrive(lane) => {
                let home = net.on_arrive(lane)?;
                return Some(Self::deliver(net, &mut self.flows, home));
            }
            Event::Timer(f, kind, gen) => {
                let flow = &mut self.flows[f.0 as usize];
                match (kind, &mut flow.sender, &mut flow.receiver) {
                    (TimerKind::Rtx, Sender::Tcp(tcp), _) => tcp.on_timer(net, gen),
                    (TimerKind::Pace, Sender::Tcp(tcp), _) => tcp.on_pace_timer(net, gen),
                    (TimerKind::Rtx, Sender::Rfc(tcp), _) => tcp.on_timer(net, gen),
                    (TimerKind::Pace, Sender::Rfc(tcp), _) => tcp.on_pace_timer(net, gen),
                    (TimerKind::Cbr, Sender::Cbr(cbr), _) => cbr.on_timer(net, gen),
                    (TimerKind::DelAck, _, Receiver::Tcp(sink)) => sink.on_timer(net, gen),
                    _ => unreachable!("timer {kind:?} of a flow without one"),
                }
                return Some(f.0 as usize);
            }
            Event::Wifi(ev) => {
                let home = net.on_wifi(ev)?;
                return Some(Self::deliver(net, &mut self.flows, home));
            }
            Event::Mip(m, which, gen) => net.on_mip(m, which, gen),
            Event::Act(i) => {
                let action = self.scenario.actions[i as usize];
                let flow = &mut self.flows[action.flow];
                let app = flow.app;
                if let Sender::Cbr(cbr) = &mut flow.sender {
                    match action.kind {
                        ActionKind::Start => cbr.start(net),
                        ActionKind::Stop => cbr.stop(),
                        kind => unreachable!("validation rules out {kind:?} on {app:?}"),
                    }
                } else if let Some(tcp) = flow.sender.ftp() {
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

    /// The invariants after an event (see `check`): the clock, and the agents of `flow`.
    fn check(&mut self, flow: Option<usize>) {
        let now = self.net.now_secs();
        let check = self.net.check.as_mut().expect("checking");
        check.time(now);
        let Some(i) = flow else { return };
        let f = &mut self.flows[i];
        let name = &self.scenario.flows[i].name;
        if let Some(tcp) = f.sender.ftp() {
            check.sender(now, name, tcp.state());
        }
        if let (Receiver::Tcp(sink), Transport::Tcp(cfg)) = (&f.receiver, &self.scenario.flows[i].transport) {
            let bytes = self.net.flow_stats[i].goodput_bytes;
            check.sink(now, i, name, sink.cumulative(), bytes, cfg.params.packet_size as u64);
        }
    }

    /// The end-of-run invariants: every packet accounted for, per flow and per link.
    fn check_conservation(&mut self) {
        let now = self.net.now_secs();
        if self.net.check.is_none() {
            return;
        }
        let taken = self.net.frames_received_unacked();
        let check = self.net.check.as_mut().expect("checking");
        let mut live = vec![0u64; self.flows.len()];
        for (id, p) in self.net.pkts.live_packets() {
            if matches!(p.kind, Kind::Tcp | Kind::Cbr) && !taken.contains(&id) {
                live[p.flow.0 as usize] += 1;
            }
        }
        for (i, s) in self.net.flow_stats.iter().enumerate() {
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
            let accounted = s.departures + s.drops + l.queue.len() as u64;
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

    /// Packet `id` reached the node of the agent it is addressed to; returns its flow.
    fn deliver(net: &mut Network, flows: &mut [Flow], id: PacketId) -> usize {
        let pkt = &net.pkts.release(id);
        if matches!(pkt.kind, Kind::BindingUpdate | Kind::BindingAck) {
            unreachable!("signalling ends in the network"); // its flow is no flow's
        }
        let delay = Time::from_secs_f64(net.now_secs() - pkt.ts);
        // SAFETY: an agent's packet carries its `Endpoint`'s flow, one of the scenario's, with
        // its agents and books
        let (flow, stats) =
            unsafe { (unchecked(flows, pkt.flow.0 as usize), unchecked(&mut net.flow_stats, pkt.flow.0 as usize)) };
        match pkt.kind {
            Kind::Tcp | Kind::Cbr => {
                stats.on_data_delivered(pkt.size, delay);
                match &mut flow.receiver {
                    Receiver::Tcp(sink) => sink.recv(net, pkt),
                    Receiver::Null => stats.goodput_bytes += pkt.payload as u64,
                }
            }
            Kind::BindingUpdate | Kind::BindingAck => unreachable!("ruled out above"),
            Kind::Ack => {
                stats.acks_delivered += 1;
                match &mut flow.sender {
                    Sender::Tcp(tcp) => tcp.recv(net, pkt),
                    Sender::Rfc(tcp) => tcp.recv(net, pkt),
                    Sender::Cbr(_) => {}
                }
            }
        }
        pkt.flow.0 as usize
    }

    /// Runs to the end, flushes the writers and computes the summary; a run its guard stopped
    /// is an error (the trace files keep what was written).
    pub fn finish(mut self) -> Result<RunResult, RunError> {
        self.advance(self.end);
        if let Some(why) = self.net.stopped.take() {
            self.net.tracer.flush()?;
            return Err(RunError::Stopped(*why));
        }
        self.check_conservation();
        self.net.finish();
        self.net.tracer.flush()?;
        let summary = self.summary();
        let mut series = Series::default();
        if let Some(points) = self.net.tracer.cwnd_series.take() {
            let mut s = CwndSeries::default();
            for (t, f, c, ss) in points {
                s.time.push(t);
                s.flow.push(self.scenario.flows[f as usize].name.clone());
                s.cwnd.push(c);
                s.ssthresh.push(ss);
            }
            series.cwnd = Some(s);
        }
        if let Some(points) = self.net.tracer.rtt_series.take() {
            let mut s = RttSeries::default();
            for (t, f, rtt) in points {
                s.time.push(t);
                s.flow.push(self.scenario.flows[f as usize].name.clone());
                s.rtt_s.push(rtt);
            }
            series.rtt = Some(s);
        }
        if let Some(sampler) = self.sampler.take() {
            series.flows = Some(sampler.flows);
            series.links = Some(sampler.links);
            series.tcp = Some(sampler.tcp);
        }
        let check = self.net.check.take().map(|c| c.report);
        Ok(RunResult { summary, series, events: self.net.sched.dispatched(), check })
    }

    fn summary(&mut self) -> Summary {
        let sc = &self.scenario;
        let end = self.end;
        let mut flows = Vec::with_capacity(sc.flows.len());
        for (cfg, stats) in sc.flows.iter().zip(self.net.flow_stats.iter_mut()) {
            let active_end = cfg.stop.unwrap_or(end).min(end);
            let active = active_end.saturating_sub(cfg.start).as_secs_f64();
            let per_second = |bytes: u64| if active > 0.0 { bytes as f64 * 8.0 / active } else { 0.0 };
            let [mean, p50, p95, p99, max] = stats.delays.stats();
            let (protocol, profile) = match &cfg.transport {
                Transport::Tcp(t) => (t.variant.name(), Some(t.profile.name())),
                Transport::Udp => ("udp", None),
            };
            flows.push(FlowSummary {
                name: cfg.name.clone(),
                protocol: protocol.to_string(),
                profile,
                from: sc.nodes[cfg.from].clone(),
                to: sc.nodes[cfg.to].clone(),
                goodput_bps: per_second(stats.goodput_bytes),
                throughput_bps: per_second(stats.data_bytes_delivered),
                delay_mean_s: mean,
                delay_p50_s: p50,
                delay_p95_s: p95,
                delay_p99_s: p99,
                delay_max_s: max,
                rtt_mean_s: if stats.rtt_samples > 0 { stats.rtt_sum / stats.rtt_samples as f64 } else { 0.0 },
                packets_sent: stats.data_sent,
                packets_delivered: stats.data_delivered,
                packets_dropped: stats.data_dropped,
                packets_retransmitted: stats.data_retransmitted,
                packets_in_flight: stats.data_sent - stats.data_delivered - stats.data_dropped,
                efficiency: if stats.data_sent > 0 {
                    stats.data_delivered as f64 / stats.data_sent as f64
                } else {
                    0.0
                },
                acks_sent: stats.acks_sent,
            });
        }
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        let links = self
            .net
            .links
            .iter()
            .map(|l| {
                let (from, to) = (&sc.nodes[l.from as usize], &sc.nodes[l.to as usize]);
                let busy = l.stats.busy_time.saturating_sub(l.busy_until().saturating_sub(end));
                LinkSummary {
                    name: link_name(&sc.nodes, l),
                    from: from.clone(),
                    to: to.clone(),
                    arrivals: l.stats.arrivals,
                    departures: l.stats.departures,
                    drops: l.stats.drops,
                    queue_mean_pkts: l.stats.queue_mean(end),
                    queue_max_pkts: l.stats.queue_max as u64,
                    utilization: busy.as_secs_f64() / end.as_secs_f64(),
                }
            })
            .collect();
        let radios = self
            .net
            .wifi
            .stations
            .iter()
            .map(|s| RadioSummary {
                wlan: sc.wlans[s.wlan_index()].name.clone(),
                node: sc.nodes[s.node as usize].clone(),
                mac: s.stats.clone(),
            })
            .collect();
        let flow_ends: Vec<(String, u32)> = sc.flows.iter().map(|f| (f.name.clone(), f.to as u32)).collect();
        let handovers = self.net.mip.handovers(&flow_ends);
        Summary {
            name: sc.name.clone(),
            seed: self.seed,
            duration_s: end.as_secs_f64(),
            jain_fairness: jain(&goodputs),
            flows,
            links,
            radios,
            handovers,
        }
    }
}
