//! Building a run: the network, its links, queues, loss models, WLANs and mobile nodes, one
//! sender and receiver per flow, the trace writers, and the clock phases ns-2 draws.

use super::{Flow, Receiver, RunError, RunOptions, Sender, Simulation};
use crate::guard::Guard;
use crate::ids::{ActionId, LinkId, NodeId, RadioId};
use crate::loss::Loss;
use crate::metrics::Sampler;
use crate::mobility::Mip;
use crate::network::{link_name, Event, Link, Network};
use crate::packet::{Addr, FlowId, Kind};
use crate::pcap::{FlowWire, Pcap};
use crate::port::Endpoint;
use crate::queue::Queue;
use crate::random::{tcl_array_order, Draws};
use crate::scenario::{
    AppConfig, End, LossAt, Profile, QueueConfig, QueueKind, RngMode, Scenario, TcpVariant, Transport,
};
use crate::tcp::{FullTcp, ModernSender, Ns2Sender, RfcSender, RfcSink, TcpSink};
use crate::trace::{Sink, Tracer};
use crate::traffic::{OnOff, Source};
use crate::udp::{CbrSource, UdpAgent};
use crate::wifi::Wifi;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::PathBuf;
use tcplab_des::{Ns2Rng, Rng};

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
    let mobile = (0..scenario.nodes.len()).map(|n| mip.is_mobile(NodeId::of(n))).collect();
    Pcap::new(scenario.pcap_ip, flows, mobile, files)
}

/// The nodes `$ns run` resets with their agents, in Tcl's `array names` order: all but those
/// with a radio. ns-2 builds a node with a radio as a `Node/MobileNode`, whose `reset` resets
/// its interface stack (PHY, MAC, LL, queue, ARP table) but not its agents (ns-mobilenode.tcl).
fn reset_nodes(scenario: &Scenario) -> impl Iterator<Item = usize> + '_ {
    tcl_array_order(scenario.nodes.len())
        .into_iter()
        .filter(move |&node| !scenario.wlans.iter().any(|w| w.nodes.contains(&node)))
}

/// The flows in the order `$ns run` resets their senders: node by node (`reset_nodes`), each
/// node's agents in the order they were attached (the flows' order).
fn reset_order(scenario: &Scenario) -> impl Iterator<Item = usize> + '_ {
    reset_nodes(scenario)
        .flat_map(move |node| (0..scenario.flows.len()).filter(move |&i| scenario.flows[i].from == node))
}

/// The ns-2 agents that draw a clock phase again at `$ns run`, node by node as it resets them
/// (`reset_nodes`): each node's agents in attach order (per flow: the sender on `from`, then on `to` its sink,
/// which draws nothing, or a FullTcp flow's second agent).
fn agent_reset_order(scenario: &Scenario) -> Vec<(usize, End)> {
    let is_ns2 = |i: usize| matches!(&scenario.flows[i].transport, Transport::Tcp(t) if t.profile == Profile::Ns2);
    let is_full = |i: usize| matches!(&scenario.flows[i].transport, Transport::Tcp(t) if t.variant.is_full());
    let mut order = Vec::new();
    for node in reset_nodes(scenario) {
        for (i, f) in scenario.flows.iter().enumerate().filter(|&(i, _)| is_ns2(i)) {
            if f.from == node {
                order.push((i, End::From));
            }
            if f.to == node && is_full(i) {
                order.push((i, End::To));
            }
        }
    }
    order
}

/// The ns-2 agents that draw a clock phase, in the order the flows make them (per flow: the
/// sender, then a FullTcp flow's second agent).
fn created_agents(scenario: &Scenario) -> Vec<(usize, End)> {
    let mut agents = Vec::new();
    for (i, f) in scenario.flows.iter().enumerate() {
        if let Transport::Tcp(t) = &f.transport {
            if t.profile == Profile::Ns2 {
                agents.push((i, End::From));
                if t.variant.is_full() {
                    agents.push((i, End::To));
                }
            }
        }
    }
    agents
}

/// Each ns-2 agent's clock phase (ns-2's `boot_time_` / `tcpTick_`): by flow, the `from`
/// end's, and a FullTcp flow's `to` end's.
///
/// ns-2 draws a phase when it creates a TCP agent (twice for Vegas and FullTcp, which reset
/// themselves again) and again when `$ns run` resets it (not on a node with a radio); the last
/// one stays.
fn clock_phases(scenario: &Scenario, seed: u64, shared: &mut Ns2Rng) -> (Vec<f64>, Vec<f64>) {
    let mut phases = (vec![0.0; scenario.flows.len()], vec![0.0; scenario.flows.len()]);
    let order = agent_reset_order(scenario);
    let mut set = |(i, end): (usize, End), v: f64| match end {
        End::From => phases.0[i] = v,
        End::To => phases.1[i] = v,
    };
    match scenario.rng {
        RngMode::Streams => {
            for (i, end) in created_agents(scenario) {
                let name = &scenario.flows[i].name;
                let stream = if end == End::From { format!("flow/{name}/tcp") } else { format!("flow/{name}/peer") };
                set((i, end), Rng::stream(seed, &stream).uniform());
            }
        }
        RngMode::Ns2 => {
            // The draws at creation (Vegas, RFC793edu and FullTcp reset themselves twice), in
            // the order the agents are made: the last one stays where `$ns run` does not reset
            // the agent (a node with a radio), else the draw at `$ns run` overwrites it.
            for agent in created_agents(scenario) {
                let twice = matches!(&scenario.flows[agent.0].transport,
                    Transport::Tcp(t) if matches!(t.variant, TcpVariant::Vegas | TcpVariant::Rfc793edu) || t.variant.is_full());
                for _ in 0..if twice { 2 } else { 1 } {
                    set(agent, shared.uniform());
                }
            }
            for agent in order {
                set(agent, shared.uniform());
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
        let only_links =
            scenario.trace_links.as_ref().map(|l| l.iter().map(|&(a, b)| (NodeId::of(a), NodeId::of(b))).collect());
        let mut tracer =
            Tracer { tcp_header: traces.tcp_header, events: traces.events, only_links, ..Tracer::default() };
        // the ns-2 and cwnd traces print hierarchical addresses when a WLAN has a base station
        tracer.addressing = scenario.hierarchical_addresses().map(Box::new);
        if traces.ns2 {
            tracer.ns2 = Some(open_trace(&opts.out_dir, "trace.tr")?);
            if !scenario.wlans.is_empty() {
                tracer.wireless = Some(scenario.wireless_format);
                tracer.eot = scenario.eot_trace;
                tracer.no_agent_lines = !scenario.agent_trace;
                tracer.no_mac_lines = !scenario.mac_trace;
                tracer.no_phy_lines = !scenario.phy_trace;
                tracer.no_router_lines = !scenario.router_trace;
            }
        }
        if traces.nam {
            tracer.nam = Some(open_trace(&opts.out_dir, "trace.nam")?);
            let links: Vec<_> = scenario
                .links
                .iter()
                .map(|l| (NodeId::of(l.a), NodeId::of(l.b), l.bandwidth_bps, l.delay.as_secs_f64()))
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
            let reverse_kind = l.reverse_red.clone().map_or_else(|| l.queue.kind.clone(), QueueKind::Red);
            for (from, to, limit, kind) in
                [(l.a, l.b, l.queue.limit, l.queue.kind.clone()), (l.b, l.a, l.reverse_limit, reverse_kind)]
            {
                let queue = QueueConfig { limit, kind };
                let rng = draws(format!("link/{}->{}", scenario.nodes[from], scenario.nodes[to]));
                let queue = Queue::new(&queue, l.bandwidth_bps, l.delay, rng);
                links.push(Link::new(NodeId::of(from), NodeId::of(to), l.bandwidth_bps, l.delay.as_secs_f64(), queue));
            }
        }
        let mut radio_losses = Vec::new();
        for (i, l) in scenario.losses.iter().enumerate() {
            let loss = Loss::new(l, draws(format!("loss/{i}")));
            match l.at {
                LossAt::Link { link } => links[link].losses.insert(0, loss), // the newest meets packets first
                LossAt::Radio { wlan, node, outgoing } => radio_losses.push((wlan, node, outgoing, loss)),
            }
        }
        // ns-2's generator (unused, and so seeded 1, with per-component streams)
        let mut shared = Ns2Rng::seeded(if scenario.rng == RngMode::Ns2 { seed as u32 } else { 1 });
        let mut wifi = Wifi::new(scenario.wlans.clone(), draws);
        // `$mac ap` draws as the script makes its nodes, before its agents
        wifi.draw_beacon_starts(&mut shared);
        let (phases, peer_phases) = clock_phases(&scenario, seed, &mut shared);
        wifi.set_moves(&scenario.moves);
        for (wlan, node, outgoing, loss) in radio_losses {
            let r = wifi.radio(wlan, node).expect("validated: the node is on the WLAN");
            let s = &mut wifi.stations[r.index()];
            if outgoing { &mut s.out_losses } else { &mut s.losses }.push(loss);
        }
        // each mobile node's radios, with the access point of their WLAN
        let access = |node: usize| -> Vec<(RadioId, RadioId)> {
            let mut pairs = Vec::new();
            for (w, cfg) in scenario.wlans.iter().enumerate() {
                if let (Some(ap), Some(r)) = (cfg.access_point, wifi.radio(w, node)) {
                    pairs.extend(wifi.radio(w, ap).filter(|_| ap != node).map(|a| (r, a)));
                }
            }
            pairs
        };
        // each node's correspondents: the other ends of its flows
        let peers = |node: usize| -> Vec<NodeId> {
            let mut p: Vec<NodeId> = scenario
                .flows
                .iter()
                .filter_map(|f| {
                    if f.to == node {
                        Some(NodeId::of(f.from))
                    } else if f.from == node {
                        Some(NodeId::of(f.to))
                    } else {
                        None
                    }
                })
                .collect();
            p.sort_unstable();
            p.dedup();
            p
        };
        let mip = Mip::new(&scenario.nodes, scenario.mobile_nodes.clone(), access, peers, draws("mip".to_string()));
        if traces.pcap {
            tracer.pcap = Some(pcap_capture(&scenario, &mip, &opts.out_dir)?);
        }
        let mut net = Network::new(scenario.nodes.clone(), links, wifi, mip, scenario.flows.len(), tracer, shared);
        if opts.check {
            net.ctx.check = Some(crate::check::Checks::new(scenario.flows.len()));
        }
        net.wifi.start_infrastructure(&mut net.ctx);
        // DSDV agents on the nodes of its WLANs, started at 0 s in node-creation order
        let mut dsdv_radios: Vec<(NodeId, RadioId)> = Vec::new();
        for (w, cfg) in scenario.wlans.iter().enumerate().filter(|(_, cfg)| cfg.dsdv) {
            for &node in &cfg.nodes {
                dsdv_radios.push((NodeId::of(node), net.wifi.radio(w, node).expect("the WLAN's node")));
            }
        }
        dsdv_radios.sort_by_key(|&(node, _)| node);
        net.god = crate::god::God::new(scenario.nodes.len(), &scenario.set_dist);
        // the agents work in ns-2's addresses: hierarchical ones with base stations
        let addrs = match scenario.hierarchical_addresses() {
            Some(hier) => hier.addr.into_iter().map(|a| a as i32).collect(),
            None => (0..scenario.nodes.len() as i32).collect(),
        };
        let base_station = |n: NodeId| scenario.wlans.iter().find_map(|w| w.base_station_of(n.index())).map(NodeId::of);
        net.dsdv = crate::dsdv::Dsdv::new(addrs, &dsdv_radios, base_station, Default::default());
        net.dsdv.schedule_start(&mut net.ctx);

        let ports = crate::scenario::agent_ports(&scenario.flows, scenario.nodes.len())
            .expect("validated: no two agents of a node share a port");
        let mut flows = Vec::with_capacity(scenario.flows.len());
        for (i, f) in scenario.flows.iter().enumerate() {
            let id = FlowId(i as u32);
            let [src, dst] = ports[i];
            let (src, dst) = (Addr { node: NodeId::of(f.from), port: src }, Addr { node: NodeId::of(f.to), port: dst });
            // a UDP agent's packetSize_: the source's packet size unless the flow gives it
            let udp_size = |size: u32| f.udp_packet_size.unwrap_or(size);
            let sender_end = Endpoint { flow: id, fid: f.fid, addr: src, peer: dst };
            let receiver_end = Endpoint { addr: dst, peer: src, ..sender_end };
            let (sender, receiver) = match (&f.transport, f.app) {
                (Transport::Tcp(t), _) if t.variant.is_full() => {
                    let full = t.full.as_ref().expect("validated: a FullTcp flow has its two agents");
                    let draws = |end: &str| match scenario.rng {
                        RngMode::Ns2 => Draws::Shared,
                        RngMode::Streams => Draws::Own(Rng::stream(seed, &format!("flow/{}/{end}/resets", f.name))),
                    };
                    let (v, p) = (t.variant, t.params.clone());
                    let from =
                        FullTcp::new(v, p, full.from.clone(), sender_end, End::From, false, phases[i], draws("tcp"));
                    let to = FullTcp::new(
                        v,
                        full.to_params.clone(),
                        full.to.clone(),
                        receiver_end,
                        End::To,
                        full.listen,
                        peer_phases[i],
                        draws("peer"),
                    );
                    (Sender::Full(Box::new(from)), Receiver::Full(Box::new(to)))
                }
                (Transport::Tcp(t), _) => {
                    let sender = match (t.profile, t.variant) {
                        (Profile::Ns2, variant) if variant != TcpVariant::Fast => {
                            let (p, pacing, phase) = (t.params.clone(), t.pacing.clone(), phases[i]);
                            // `$ns run` resets the agents of nodes without a radio only
                            let sender = if scenario.wlans.iter().any(|w| w.nodes.contains(&f.from)) {
                                Ns2Sender::on_mobile_node(variant, p, &scenario.tcp_class, pacing, sender_end, phase)
                            } else {
                                Ns2Sender::of_class(variant, p, &scenario.tcp_class, pacing, sender_end, phase)
                            };
                            Sender::Tcp(sender.with_jitter(draws(format!("flow/{}/overhead", f.name))))
                        }
                        _ if t.modern.is_some() => {
                            // each flow draws its own first BBR phase, as each Linux connection
                            // does, unless the scenario fixes the seed
                            let mut t = t.clone();
                            if let Some(m) = &mut t.modern {
                                m.seed.get_or_insert_with(|| {
                                    Rng::stream(seed, &format!("flow/{}/bbr", f.name)).next_u64()
                                });
                            }
                            let mut modern = ModernSender::new(&t, sender_end);
                            modern.trace_cwnd(&mut net);
                            Sender::Modern(Box::new(modern))
                        }
                        _ => {
                            let mut rfc = RfcSender::new(t, sender_end);
                            rfc.trace_cwnd(&mut net);
                            Sender::Rfc(rfc)
                        }
                    };
                    let receiver = match t.receiver {
                        Some(cfg) => Receiver::Rfc(RfcSink::new(receiver_end, cfg)),
                        None => Receiver::Tcp(TcpSink::new(receiver_end, &t.sink)),
                    };
                    (sender, receiver)
                }
                (Transport::Udp, AppConfig::Cbr { rate_bps, size, random, packets }) => {
                    let agent = UdpAgent::new(sender_end, Kind::Cbr, udp_size(size));
                    let mut cbr = CbrSource::new(agent, rate_bps, size);
                    if random {
                        cbr = cbr.dithered(draws(format!("app/{}", f.name)));
                    }
                    if let Some(n) = packets {
                        cbr = cbr.limited(n);
                    }
                    (Sender::Cbr(cbr), Receiver::Null)
                }
                // the agent's packetSize_ is the source's size (Telnet's and a trace's: the flow's)
                (Transport::Udp, AppConfig::Exponential { size, .. }) => {
                    (Sender::Udp(UdpAgent::new(sender_end, Kind::Exp, udp_size(size))), Receiver::Null)
                }
                (Transport::Udp, AppConfig::Pareto { size, .. }) => {
                    (Sender::Udp(UdpAgent::new(sender_end, Kind::Pareto, udp_size(size))), Receiver::Null)
                }
                (Transport::Udp, AppConfig::Telnet { size, .. } | AppConfig::Trace { size, .. }) => {
                    (Sender::Udp(UdpAgent::new(sender_end, Kind::Udp, size)), Receiver::Null)
                }
                (Transport::Udp, AppConfig::Ftp { .. }) => unreachable!("validation pairs FTP with TCP"),
            };
            // a TCP agent's segment size, for the segments of a source's messages
            let segment = match &f.transport {
                Transport::Tcp(t) => t.params.packet_size,
                Transport::Udp => 0,
            };
            let draws = || draws(format!("app/{}", f.name));
            let source = match (&f.transport, f.app) {
                (_, AppConfig::Telnet { interval_s, size }) => {
                    Some(Source::telnet(id, interval_s, size, segment, draws()))
                }
                (Transport::Tcp(_), AppConfig::Cbr { rate_bps, size, random, packets }) => {
                    Some(Source::cbr(id, rate_bps as f64, size, segment, random, packets, draws()))
                }
                (_, AppConfig::Exponential { size, rate_bps, burst_time_s, idle_time_s }) => {
                    let on_off = OnOff::new(size, rate_bps as f64, burst_time_s, idle_time_s, None);
                    Some(Source::on_off(id, on_off, segment, draws()))
                }
                (_, AppConfig::Pareto { size, rate_bps, burst_time_s, idle_time_s, shape }) => {
                    let on_off = OnOff::new(size, rate_bps as f64, burst_time_s, idle_time_s, Some(shape));
                    Some(Source::on_off(id, on_off, segment, draws()))
                }
                (_, AppConfig::Trace { table, .. }) => {
                    Some(Source::trace(id, scenario.traffic_traces[table].clone(), segment, draws()))
                }
                _ => None,
            };
            flows.push(Flow { sender, receiver, app: f.app, source });
        }
        // ns-2's cwnd trace: a line as each agent's trace is attached (flow order), then one as
        // `$ns run` resets each agent
        for flow in &flows {
            flow.sender.trace_cwnd_attached(&mut net);
        }
        for i in reset_order(&scenario) {
            flows[i].sender.trace_cwnd_reset(&mut net);
        }
        // ns-2 schedules a Delayer's block as it builds the topology, before the actions
        for (i, spike) in scenario.delay_spikes.iter().enumerate() {
            net.insert_delayer(LinkId(spike.link as u32));
            net.ctx.sched.schedule_exact(spike.at_s, Event::DelaySpike(i as u32, true));
        }
        // the script's `$ns at` lines, which run before `finish` at the end's instant: the
        // moves' `setdest` (written before the actions by the translator; an `M` line for a
        // node of an ns2-profile WLAN), then the actions, then the nodes' resets
        let first_action = net.ctx.sched.reserve(); // a mark: numbers are only compared
        if net.ctx.tracer.wireless.is_some() {
            for (i, m) in scenario.moves.iter().enumerate() {
                if scenario.wlans.iter().any(|w| w.ns2_backoff && w.nodes.contains(&m.node)) {
                    net.ctx.sched.schedule_exact(m.at, Event::Movement(i as u32));
                }
            }
        }
        for (i, a) in scenario.actions.iter().enumerate() {
            net.ctx.sched.schedule_exact(a.at_s, Event::Act(ActionId(i as u32)));
        }
        net.start_pbc(&scenario.pbc);
        for (i, r) in scenario.resets.iter().enumerate() {
            net.ctx.sched.schedule_exact(r.at_s, Event::NodeReset(i as u32));
        }
        let at_end = first_action..net.ctx.sched.reserve();
        let sampler = scenario.interval.filter(|_| !opts.skip_series).map(|interval| {
            let flow_names = scenario.flows.iter().map(|f| f.name.clone()).collect();
            let link_names = net.links.iter().map(|l| link_name(&scenario.nodes, l)).collect();
            let traced =
                |l: &Link| scenario.trace_links.as_ref().is_none_or(|d| d.contains(&(l.from.index(), l.to.index())));
            let links = net.links.iter().map(traced).collect();
            Sampler::new(interval, flow_names, link_names, traced_flows, links)
        });
        let guard = Guard::new(estimate.events, !opts.no_limits, opts.max_events);
        Ok(Simulation { net, flows, scenario, seed, end, at_end, sampler, guard })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_NODES: &str = r#"
name = "t"
duration = "2s"
nodes = ["n0", "n1"]
[[flows]]
from = "n0"
to = "n1"
protocol = "reno"
"#;

    /// ns-2 draws an agent's clock phase when it makes the agent and again when `$ns run`
    /// resets it, except on a node with a radio: a `Node/MobileNode` resets its interfaces, not
    /// its agents, so the draw at creation stays and the MAC's first backoff is the second draw
    /// (conformance/ns2-wifi/two-node-tcp.tcl: ARP request 90 µs = DIFS + 2 slots after it
    /// reached the MAC, 2 being the second draw modulo 31).
    #[test]
    fn agents_on_nodes_with_a_radio_keep_their_first_draw() {
        let mut rng = Ns2Rng::seeded(1);
        let (first, second) = (rng.uniform(), rng.uniform());
        let wired = Scenario::from_toml(&format!(
            "{TWO_NODES}[[links]]\nfrom = \"n0\"\nto = \"n1\"\nbandwidth = \"1Mb\"\ndelay = \"1ms\"\n"
        ))
        .unwrap();
        let wireless = Scenario::from_toml(&format!(
            "{TWO_NODES}[positions]\nn0 = [100, 100]\nn1 = [200, 100]\n[[wlans]]\nnodes = [\"n0\", \"n1\"]\n"
        ))
        .unwrap();
        for (case, scenario, phase, draws) in [("wired", wired, second, 2), ("wireless", wireless, first, 1)] {
            let mut shared = Ns2Rng::seeded(1);
            let (phases, _) = clock_phases(&scenario, 1, &mut shared);
            assert_eq!(phases[0], phase, "{case}");
            let mut expected = Ns2Rng::seeded(1);
            for _ in 0..draws {
                expected.uniform();
            }
            assert_eq!(shared.uniform(), expected.uniform(), "{case}: {draws} draws before the run");
            assert_eq!(reset_order(&scenario).count(), if case == "wired" { 1 } else { 0 }, "{case}");
        }
    }
}
