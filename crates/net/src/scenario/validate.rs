//! Semantic checks: units, ranges, names and reachability, each error with its field path.

use super::algorithms::{fast_config, modern_config, ns2_knob_error, ns2_only_knobs, pacing_config, vegas_config};
use super::fields::{
    err, exact_seconds, flag, int_in, node_named, one_of, rate, real_in, seconds, size, time, whole_seconds, Res,
};
use super::raw::{
    Flag, Quantity, RawAction, RawDelaySpike, RawDropTail, RawFast, RawFlow, RawHost, RawLink, RawLoss, RawModern,
    RawPacing, RawReceiver, RawRed, RawScenario, RawSink, RawTcp, RawVegas,
};
use super::*;
use crate::pcap::IpVersion;
use std::collections::{HashMap, VecDeque};

/// ns-2 takes seeds below MAXINT (2^31 - 1) for its default generator.
const NS2_MAX_SEED: i64 = 2_147_483_647;

/// A master seed for `rng` (the scenario's `seed`, or a run's override at `path`).
pub fn check_seed(rng: RngMode, seed: i64, path: &str) -> Res<u64> {
    if seed < 0 {
        err(path, format!("{seed} is negative"))
    } else if rng == RngMode::Ns2 && !(1..NS2_MAX_SEED).contains(&seed) {
        err(path, format!("{seed} is not an ns-2 seed (1..={}; or set rng = \"streams\")", NS2_MAX_SEED - 1))
    } else {
        Ok(seed as u64)
    }
}

/// The largest packet any agent may send: an IPv4 datagram.
const MAX_PACKET: u64 = 65_535;

/// Checks `raw`; `default_name` names a scenario that has no `name`.
pub fn validate(raw: RawScenario, default_name: &str) -> Res<Scenario> {
    let name = raw.name.unwrap_or_else(|| default_name.to_string());
    let duration = time(
        raw.duration
            .as_ref()
            .ok_or_else(|| ScenarioError::new("duration", "is required (e.g. duration = \"100s\")"))?,
        "duration",
    )?;
    if duration == Time::ZERO {
        return err("duration", "must be longer than zero");
    }
    let rng = match one_of(raw.rng.as_deref().unwrap_or("ns2"), &["ns2", "streams"], "rng", "rng")? {
        "ns2" => RngMode::Ns2,
        _ => RngMode::Streams,
    };
    let seed = match raw.seed {
        None => 1,
        Some(s) => check_seed(rng, s, "seed")?,
    };
    let profile = match &raw.profile {
        Some(p) => profile_named(p, "profile")?,
        None => Profile::Ns2,
    };

    let nodes = raw.nodes.ok_or_else(|| ScenarioError::new("nodes", "is required (a list of node names)"))?;
    if nodes.is_empty() {
        return err("nodes", "is empty");
    }
    let mut node_ids = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.trim().is_empty() {
            return err(format!("nodes[{i}]"), "is an empty name");
        }
        if node_ids.insert(n.as_str(), i).is_some() {
            return err(format!("nodes[{i}]"), format!("{n:?} appears twice"));
        }
    }
    let node = |name: &Option<String>, path: String| node_named(name, &path, &node_ids);

    // A scenario needs links, unless its nodes talk over wireless LANs only.
    let raw_links = match raw.links {
        Some(l) => l,
        None if raw.wlans.as_ref().is_some_and(|w| !w.is_empty()) => Vec::new(),
        None => return err("links", "is required (a list of links)"),
    };
    let mut links = Vec::with_capacity(raw_links.len());
    for (i, l) in raw_links.iter().enumerate() {
        links.push(link(l, i, &node)?);
    }
    for (i, l) in links.iter().enumerate() {
        if let Some(j) = links[..i].iter().position(|o| (o.a, o.b) == (l.a, l.b) || (o.a, o.b) == (l.b, l.a)) {
            return err(
                format!("links[{i}]"),
                format!("duplicates links[{j}] between {:?} and {:?}", nodes[l.a], nodes[l.b]),
            );
        }
    }

    let wlans =
        super::wireless::wlans(raw.wlans.as_deref().unwrap_or(&[]), raw.positions.as_ref(), &node_ids, profile)?;
    // a DSDV WLAN meets the wired links at its base station (ns-2's `-wiredRouting ON` node) only
    for (i, l) in links.iter().enumerate() {
        for (end, n) in [("from", l.a), ("to", l.b)] {
            if let Some((w, cfg)) = wlans.iter().enumerate().find(|(_, w)| w.dsdv && w.nodes.contains(&n)) {
                if !cfg.base_stations.iter().any(|b| b.node == n) {
                    return err(
                        format!("links[{i}].{end}"),
                        format!(
                            "{:?} is on the DSDV WLAN wlans[{w}]: only its base_station may have wired links",
                            nodes[n]
                        ),
                    );
                }
            }
        }
    }
    let addresses = super::wireless::addresses(raw.addresses.as_ref(), &nodes, &node_ids, &wlans)?;
    let moves = super::wireless::moves(raw.moves.as_deref().unwrap_or(&[]), &node_ids, &wlans)?;
    let resets = super::wireless::resets(raw.resets.as_deref().unwrap_or(&[]), &node_ids, &wlans)?;
    let pbc = super::wireless::pbc_agents(raw.pbc.as_deref().unwrap_or(&[]), &node_ids, &wlans)?;
    let set_dist = super::wireless::set_dist(raw.set_dist.as_deref().unwrap_or(&[]), &node_ids)?;
    let mobile_nodes = super::wireless::mobile_nodes(raw.mobile_nodes.as_deref().unwrap_or(&[]), &node_ids, &wlans)?;

    // IPv6: TCP/IP headers of 60 bytes (20 TCP + 40 IPv6) unless the scenario gives its own
    let header = match raw.ip_version {
        None | Some(4) => 40,
        Some(6) => 60,
        Some(v) => return err("ip_version", format!("{v} is not an IP version (4 or 6)")),
    };
    let no_tcp = RawTcp::default();
    let raw_tcp = raw.tcp.as_ref().unwrap_or(&no_tcp);
    let base = |p: TcpParams| TcpParams { tcpip_base_hdr_size: header, ..p };
    let defaults = FlowDefaults {
        profile,
        ns2_tcp: tcp_params(base(TcpParams::default()), raw_tcp, "tcp")?,
        rfc_tcp: tcp_params(base(TcpParams::rfc()), raw_tcp, "tcp")?,
        // the timestamp option's 12 bytes on every segment, as Linux sends it
        linux_tcp: tcp_params(TcpParams { tcpip_base_hdr_size: header + 12, ..TcpParams::linux() }, raw_tcp, "tcp")?,
        full: super::fulltcp::full_params(FullParams::default(), raw_tcp, "tcp")?,
        raw_tcp,
        sink: raw.tcpsink.clone().unwrap_or_default(),
        vegas: raw.vegas.as_ref(),
        fast: raw.fast.as_ref(),
        pacing: raw.pacing.as_ref(),
        modern: raw.modern.as_ref(),
    };
    // A scenario of real hosts (emulation) may have no simulated flows, and so may a DSDV
    // WLAN's (its route updates are the traffic) or one of PBC agents.
    let no_flows_ok = raw.hosts.as_ref().is_some_and(|h| !h.is_empty())
        || wlans.iter().any(|w| w.dsdv)
        || raw.pbc.as_ref().is_some_and(|a| !a.is_empty());
    let raw_flows = match raw.flows {
        Some(f) => f,
        None if no_flows_ok => Vec::new(),
        None => return err("flows", "is required (a list of flows)"),
    };
    if raw_flows.is_empty() && !no_flows_ok {
        return err("flows", "is empty");
    }
    let adjacency = adjacency(nodes.len(), &links, &wlans);
    let mut flows: Vec<FlowConfig> = Vec::with_capacity(raw_flows.len());
    let mut traffic_traces = Vec::new();
    for (i, f) in raw_flows.iter().enumerate() {
        let cfg = flow(f, i, &node, &defaults, duration, &mut traffic_traces)?;
        if !reachable(&adjacency, cfg.from, cfg.to) {
            return err(
                format!("flows[{i}].to"),
                format!("node {:?} is not reachable from {:?}", nodes[cfg.to], nodes[cfg.from]),
            );
        }
        if let Some(j) = flows.iter().position(|o| o.name == cfg.name) {
            return err(format!("flows[{i}].name"), format!("{:?} is already the name of flows[{j}]", cfg.name));
        }
        flows.push(cfg);
    }
    if let Err((i, end, port)) = agent_ports(&flows, nodes.len()) {
        let node = &nodes[if end == "from" { flows[i].from } else { flows[i].to }];
        return err(
            format!("flows[{i}].{end}_port"),
            format!("port {port} of node {node:?} is taken by an earlier agent"),
        );
    }

    unused_tables(defaults.vegas.is_some(), defaults.fast.is_some(), raw.tcp.as_ref(), &flows)?;
    if defaults.modern.is_some()
        && !flows.iter().any(|f| matches!(&f.transport, Transport::Tcp(t) if t.modern.is_some()))
    {
        return err(
            "modern",
            "no flow uses it: it configures protocol = \"reno\", \"cubic\", \"bbr\" or \"dctcp\" in the rfc profile",
        );
    }

    let mut losses: Vec<LossConfig> = Vec::new();
    for (i, l) in raw.losses.iter().flatten().enumerate() {
        let model = loss(l, i, &nodes, &links, &wlans, &flows)?;
        if losses.iter().filter(|m| m.at == model.at).count() >= 64 {
            return err(format!("losses[{i}].link"), "has more than 64 loss models");
        }
        losses.push(model);
    }

    let actions = actions(raw.actions.as_deref().unwrap_or(&[]), &raw_flows, &flows, duration)?;
    // A flow started by an action is active from then on (for its rates).
    for (i, f) in flows.iter_mut().enumerate() {
        if raw_flows[i].start.is_none() {
            let first = actions
                .iter()
                .find(|a| a.flow == i && matches!(a.kind, ActionKind::Start | ActionKind::Produce { .. }));
            if let Some(a) = first {
                f.start = a.at;
            }
        }
    }

    let mut traces = Traces::default();
    let mut trace_links = None;
    let mut trace_flows = None;
    let mut wireless_format = crate::trace::WirelessFormat::Old;
    let mut eot_trace = false;
    let mut agent_trace = true;
    let mut router_trace = true;
    let mut mac_trace = true;
    let mut phy_trace = false;
    let mut interval = None;
    let mut pcap_ip = if mobile_nodes.is_empty() { IpVersion::Ipv4 } else { IpVersion::Ipv6 };
    if let Some(out) = &raw.output {
        if let Some(v) = &out.pcap_ip {
            pcap_ip = match one_of(v, &["ipv4", "ipv6"], "IP version", "output.pcap_ip")? {
                "ipv4" if !mobile_nodes.is_empty() => {
                    return err("output.pcap_ip", "must be \"ipv6\": the scenario has Mobile IPv6 nodes")
                }
                "ipv4" => IpVersion::Ipv4,
                _ => IpVersion::Ipv6,
            };
        }
        if let Some(q) = &out.interval {
            let t = time(q, "output.interval")?;
            if t == Time::ZERO {
                return err("output.interval", "must be greater than zero");
            }
            interval = Some(t);
        }
        if let Some(f) = out.tcp_header {
            traces.tcp_header = flag(f, "output.tcp_header")?;
        }
        if let Some(f) = out.events {
            traces.events = flag(f, "output.events")?;
        }
        if let Some(f) = &out.wireless_format {
            if one_of(f, &["old", "new"], "wireless trace format", "output.wireless_format")? == "new" {
                wireless_format = crate::trace::WirelessFormat::New;
            }
        }
        if let Some(f) = out.eot_trace {
            eot_trace = flag(f, "output.eot_trace")?;
        }
        if let Some(f) = out.agent_trace {
            agent_trace = flag(f, "output.agent_trace")?;
        }
        if let Some(f) = out.mac_trace {
            mac_trace = flag(f, "output.mac_trace")?;
        }
        if let Some(f) = out.phy_trace {
            phy_trace = flag(f, "output.phy_trace")?;
        }
        if let Some(f) = out.router_trace {
            router_trace = flag(f, "output.router_trace")?;
        }
        if let Some(list) = &out.trace_links {
            let mut dirs = Vec::with_capacity(list.len());
            for (i, text) in list.iter().enumerate() {
                let path = format!("output.trace_links[{i}]");
                let link = link_direction(text, &nodes, &links, &path)?;
                let l = &links[link / 2];
                dirs.push(if link % 2 == 0 { (l.a, l.b) } else { (l.b, l.a) });
            }
            trace_links = Some(dirs);
        }
        if let Some(list) = &out.trace_flows {
            let mut ids = Vec::with_capacity(list.len());
            for (i, name) in list.iter().enumerate() {
                let id = flows.iter().position(|f| &f.name == name);
                ids.push(id.ok_or_else(|| {
                    ScenarioError::new(format!("output.trace_flows[{i}]"), format!("no flow is named \"{name}\""))
                })?);
            }
            trace_flows = Some(ids);
        }
        for (i, t) in out.trace.iter().flatten().enumerate() {
            traces.enable(one_of(t, &Traces::NAMES, "trace", &format!("output.trace[{i}]"))?);
        }
    }
    let mut delay_spikes = Vec::new();
    for (i, s) in raw.delay_spikes.iter().flatten().enumerate() {
        delay_spikes.push(delay_spike(s, i, &nodes, &links, duration)?);
    }
    let hosts = hosts(raw.hosts.as_deref().unwrap_or(&[]), &node, duration)?;

    Ok(Scenario {
        name,
        duration,
        seed,
        rng,
        nodes,
        links,
        wlans,
        addresses,
        tcp_class: defaults.ns2_tcp.clone(),
        resets,
        pbc,
        moves,
        set_dist,
        mobile_nodes,
        flows,
        losses,
        delay_spikes,
        traffic_traces,
        actions,
        traces,
        trace_links,
        trace_flows,
        wireless_format,
        eot_trace,
        agent_trace,
        router_trace,
        mac_trace,
        phy_trace,
        pcap_ip,
        interval,
        hosts,
    })
}

/// The real hosts of emulation. A host's name names its namespace and veth (`tl-NAME`, which
/// Linux allows 15 characters), so it is short and plain.
fn hosts(
    raw: &[RawHost],
    node: &impl Fn(&Option<String>, String) -> Res<usize>,
    duration: Time,
) -> Res<Vec<HostConfig>> {
    let mut out: Vec<HostConfig> = Vec::with_capacity(raw.len());
    for (i, h) in raw.iter().enumerate() {
        let p = |f: &str| format!("hosts[{i}].{f}");
        let name = h.name.clone().ok_or_else(|| ScenarioError::new(p("name"), "is required (a short name)"))?;
        let plain = name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
        if name.is_empty() || name.len() > 12 || !plain || name.starts_with('-') {
            return err(
                p("name"),
                format!(
                    "{name:?} must be 1 to 12 characters of a-z, 0-9, '_' and '-' (it names the namespace tl-{name})"
                ),
            );
        }
        if let Some(j) = out.iter().position(|o| o.name == name) {
            return err(p("name"), format!("{name:?} is already the name of hosts[{j}]"));
        }
        let at = node(&h.node, p("node"))?;
        let text = h
            .address
            .as_deref()
            .ok_or_else(|| ScenarioError::new(p("address"), "is required (such as \"10.0.1.2/24\")"))?;
        let address = crate::emu::frame::Prefix::parse(text).map_err(|m| ScenarioError::new(p("address"), m))?;
        if let Some(j) = out.iter().position(|o| o.address.addr == address.addr) {
            return err(p("address"), format!("{} is already the address of hosts[{j}]", address.addr));
        }
        let gateway = match &h.gateway {
            None => address.default_gateway(),
            Some(g) => {
                let gw: std::net::Ipv4Addr = g
                    .trim()
                    .parse()
                    .map_err(|_| ScenarioError::new(p("gateway"), format!("{g:?} is not an IPv4 address")))?;
                if !address.contains(gw) || gw == address.addr || gw == address.network() || gw == address.broadcast() {
                    return err(p("gateway"), format!("{gw} is not another host address of {address}'s subnet"));
                }
                gw
            }
        };
        let address6 = match &h.address6 {
            None => None,
            Some(text) => {
                let a = crate::emu::frame::Prefix6::parse(text).map_err(|m| ScenarioError::new(p("address6"), m))?;
                if let Some(j) = out.iter().position(|o| o.address6.is_some_and(|o| o.addr == a.addr)) {
                    return err(p("address6"), format!("{} is already the address of hosts[{j}]", a.addr));
                }
                Some(a)
            }
        };
        let gateway6 = match (&h.gateway6, address6) {
            (Some(_), None) => return err(p("gateway6"), "needs address6"),
            (None, a) => a.map(|a| a.default_gateway()),
            (Some(g), Some(a)) => {
                let gw: std::net::Ipv6Addr = g
                    .trim()
                    .parse()
                    .map_err(|_| ScenarioError::new(p("gateway6"), format!("{g:?} is not an IPv6 address")))?;
                if !a.contains(gw) || gw == a.addr || gw == a.network() {
                    return err(p("gateway6"), format!("{gw} is not another host address of {a}'s subnet"));
                }
                Some(gw)
            }
        };
        let mut run = Vec::new();
        for (k, r) in h.run.iter().flatten().enumerate() {
            let rp = |f: &str| format!("hosts[{i}].run[{k}].{f}");
            let command =
                r.command.clone().ok_or_else(|| ScenarioError::new(rp("command"), "is required (a shell command)"))?;
            let start = match &r.start {
                None => Time::ZERO,
                Some(q) => time(q, &rp("start"))?,
            };
            if start >= duration {
                return err(rp("start"), format!("is not before the end of the run ({duration})"));
            }
            run.push(HostRun { command, start });
        }
        out.push(HostConfig { name, node: at, address, gateway, address6, gateway6, run });
    }
    // another host's address must not be taken for a gateway
    for (i, h) in out.iter().enumerate() {
        if let Some(j) = out.iter().position(|o| o.address.addr == h.gateway) {
            return err(format!("hosts[{i}].gateway"), format!("{} is the address of hosts[{j}]", h.gateway));
        }
        if let Some(j) = out.iter().position(|o| o.address6.is_some_and(|a| Some(a.addr) == h.gateway6)) {
            return err(
                format!("hosts[{i}].gateway6"),
                format!("{} is the address of hosts[{j}]", h.gateway6.unwrap()),
            );
        }
    }
    Ok(out)
}

fn link(l: &RawLink, i: usize, node: &impl Fn(&Option<String>, String) -> Res<usize>) -> Res<LinkConfig> {
    let p = |f: &str| format!("links[{i}].{f}");
    let a = node(&l.from, p("from"))?;
    let b = node(&l.to, p("to"))?;
    if a == b {
        return err(p("to"), "is the same node as `from`");
    }
    let bandwidth_bps = rate(
        l.bandwidth.as_ref().ok_or_else(|| ScenarioError::new(p("bandwidth"), "is required (e.g. \"10Mb\")"))?,
        &p("bandwidth"),
    )?;
    let delay = time(
        l.delay.as_ref().ok_or_else(|| ScenarioError::new(p("delay"), "is required (e.g. \"10ms\")"))?,
        &p("delay"),
    )?;
    let limit_of = |v: Option<i64>, field: &str, default: u32| -> Res<u32> {
        match v {
            None => Ok(default),
            Some(v) if v < 1 => err(
                p(field),
                format!("{v} is not a queue size: a queue must hold at least 1 packet (ns-2 limit_ >= 1)"),
            ),
            Some(v) => int_in(v, 1, 10_000_000, &p(field)),
        }
    };
    let limit = limit_of(l.queue_limit, "queue_limit", 50)?;
    let reverse_limit = limit_of(l.reverse_queue_limit, "reverse_queue_limit", limit)?;
    let (kind, reverse_red) =
        match one_of(l.queue.as_deref().unwrap_or("droptail"), &["droptail", "red"], "queue", &p("queue"))? {
            "red" => {
                if l.droptail.is_some() {
                    return err(p("droptail"), "is only allowed with queue = \"droptail\"");
                }
                let forward = red_over(RedParams::default(), l.red.clone().unwrap_or_default(), &p("red"))?;
                // the to->from queue: its own knobs over the from->to queue's
                let reverse =
                    l.reverse_red.clone().map(|r| red_over(forward.clone(), r, &p("reverse_red"))).transpose()?;
                (QueueKind::Red(forward), reverse)
            }
            _ => {
                for (field, set) in [("red", l.red.is_some()), ("reverse_red", l.reverse_red.is_some())] {
                    if set {
                        return err(p(field), "is only allowed with queue = \"red\"");
                    }
                }
                (QueueKind::DropTail(droptail(l.droptail.as_ref(), &p("droptail"))?), None)
            }
        };
    Ok(LinkConfig { a, b, bandwidth_bps, delay, queue: QueueConfig { limit, kind }, reverse_limit, reverse_red })
}

/// "a->b" to the simplex link id: 2i for links[i] from->to, 2i+1 for to->from.
fn delay_spike(s: &RawDelaySpike, i: usize, nodes: &[String], links: &[LinkConfig], duration: Time) -> Res<DelaySpike> {
    let p = |f: &str| format!("delay_spikes[{i}].{f}");
    let text = s.link.as_ref().ok_or_else(|| ScenarioError::new(p("link"), "is required (e.g. \"s1->r1\")"))?;
    let link = link_direction(text, nodes, links, &p("link"))?;
    let at = s.at.as_ref().ok_or_else(|| ScenarioError::new(p("at"), "is required (a time)"))?;
    if time(at, &p("at"))? > duration {
        return err(p("at"), format!("is after the end of the run ({duration})"));
    }
    let length = s.length.as_ref().ok_or_else(|| ScenarioError::new(p("length"), "is required (a time)"))?;
    Ok(DelaySpike { link, at_s: exact_seconds(at, &p("at"))?, length_s: exact_seconds(length, &p("length"))? })
}

fn link_direction(text: &str, nodes: &[String], links: &[LinkConfig], path: &str) -> Res<usize> {
    let (a, b) = text
        .split_once("->")
        .ok_or_else(|| ScenarioError::new(path, format!("{text:?} is not a link direction (e.g. \"r1->k1\")")))?;
    let id = |n: &str| nodes.iter().position(|x| x == n.trim());
    let link = match (id(a), id(b)) {
        (Some(a), Some(b)) => links.iter().enumerate().find_map(|(j, l)| {
            if (l.a, l.b) == (a, b) {
                Some(2 * j)
            } else if (l.b, l.a) == (a, b) {
                Some(2 * j + 1)
            } else {
                None
            }
        }),
        _ => None,
    };
    link.ok_or_else(|| ScenarioError::new(path, format!("there is no link {text:?}")))
}

fn loss(
    l: &RawLoss,
    i: usize,
    nodes: &[String],
    links: &[LinkConfig],
    wlans: &[crate::wifi::config::WlanConfig],
    flows: &[FlowConfig],
) -> Res<LossConfig> {
    let p = |f: &str| format!("losses[{i}].{f}");
    let at = match (&l.link, &l.wlan) {
        (Some(text), None) => {
            if l.node.is_some() {
                return err(p("node"), "goes with wlan (a radio's receiver), not with link");
            }
            if l.direction.is_some() {
                return err(p("direction"), "goes with wlan (a radio's receiver or sender), not with link");
            }
            LossAt::Link { link: link_direction(text, nodes, links, &p("link"))? }
        }
        (None, Some(name)) => {
            let wlan = wlans
                .iter()
                .position(|w| &w.name == name)
                .ok_or_else(|| ScenarioError::new(p("wlan"), format!("unknown WLAN {name:?}")))?;
            let n = l
                .node
                .as_ref()
                .ok_or_else(|| ScenarioError::new(p("node"), "is required with wlan (the receiving node)"))?;
            let node = nodes.iter().position(|x| x == n).filter(|id| wlans[wlan].nodes.contains(id));
            let node =
                node.ok_or_else(|| ScenarioError::new(p("node"), format!("{n:?} has no radio on WLAN {name:?}")))?;
            if l.action.as_deref().is_some_and(|a| a != "drop") {
                return err(p("action"), "a radio's loss model corrupts frames: only \"drop\"");
            }
            let dir = one_of(l.direction.as_deref().unwrap_or("in"), &["in", "out"], "direction", &p("direction"))?;
            LossAt::Radio { wlan, node, outgoing: dir == "out" }
        }
        (Some(_), Some(_)) => return err(p("wlan"), "a loss model sits on a link or on a WLAN, not both"),
        (None, None) => return err(p("link"), "is required (e.g. \"r1->k1\"), or wlan and node for a radio"),
    };
    let mut fids = Vec::new();
    for (j, name) in l.flows.iter().flatten().enumerate() {
        let f = flows
            .iter()
            .find(|f| &f.name == name)
            .ok_or_else(|| ScenarioError::new(format!("{}[{j}]", p("flows")), format!("unknown flow {name:?}")))?;
        fids.push(f.fid);
    }
    let model = loss_model(l, &p)?;
    let action =
        match one_of(l.action.as_deref().unwrap_or("drop"), &["drop", "mark", "delay"], "action", &p("action"))? {
            "mark" => LossAction::Mark,
            "delay" => {
                let d = l
                    .delay
                    .as_ref()
                    .ok_or_else(|| ScenarioError::new(p("delay"), "is required with action = \"delay\""))?;
                LossAction::Delay { delay: time(d, &p("delay"))? }
            }
            _ => LossAction::Drop,
        };
    if l.delay.is_some() && !matches!(action, LossAction::Delay { .. }) {
        return err(p("delay"), "is only allowed with action = \"delay\"");
    }
    Ok(LossConfig { at, fids, model, action })
}

fn loss_model(l: &RawLoss, p: &impl Fn(&str) -> String) -> Res<LossModel> {
    let kind = one_of(
        l.model.as_deref().unwrap_or("list"),
        &["list", "uniform", "ber", "gilbert", "periodic", "multistate"],
        "loss model",
        &p("model"),
    )?;
    let fields: [(&str, bool); 15] = [
        ("data_bits", l.data_bits.is_some()),
        ("control_bits", l.control_bits.is_some()),
        ("states", l.states.is_some()),
        ("transitions", l.transitions.is_some()),
        ("step", l.step.is_some()),
        ("offset", l.offset.is_some()),
        ("period", l.period.is_some()),
        ("burst", l.burst.is_some()),
        ("packets", l.packets.is_some()),
        ("rate", l.rate.is_some()),
        ("ber", l.ber.is_some()),
        ("p_good_bad", l.p_good_bad.is_some()),
        ("p_bad_good", l.p_bad_good.is_some()),
        ("loss_good", l.loss_good.is_some()),
        ("loss_bad", l.loss_bad.is_some()),
    ];
    let own: &[&str] = match kind {
        "list" => &["packets"],
        "uniform" => &["rate"],
        "ber" => &["ber", "data_bits", "control_bits"],
        "periodic" => &["offset", "period", "burst"],
        "multistate" => &["states", "transitions", "step"],
        _ => &["p_good_bad", "p_bad_good", "loss_good", "loss_bad"],
    };
    if let Some((field, _)) = fields.iter().find(|(f, set)| *set && !own.contains(f)) {
        return err(p(field), format!("is not a field of the {kind} model"));
    }
    let prob = |v: Option<f64>, field: &str, default: Option<f64>| -> Res<f64> {
        match (v, default) {
            (Some(v), _) => real_in(v, 0.0, 1.0, &p(field)),
            (None, Some(d)) => Ok(d),
            (None, None) => err(p(field), format!("is required by the {kind} model (a probability)")),
        }
    };
    Ok(match kind {
        "uniform" => LossModel::Uniform { rate: prob(l.rate, "rate", None)? },
        "ber" => {
            let bits = |v: Option<i64>, field: &str| v.map(|v| int_in(v, 1, 1_000_000, &p(field))).transpose();
            let (data_bits, control_bits) = (bits(l.data_bits, "data_bits")?, bits(l.control_bits, "control_bits")?);
            if data_bits.is_some() != control_bits.is_some() {
                let (missing, given) =
                    if data_bits.is_none() { ("data_bits", "control_bits") } else { ("control_bits", "data_bits") };
                return err(p(missing), format!("is required with {given} (ns-2's datapktsize and cntrlpktsize)"));
            }
            LossModel::Ber { ber: prob(l.ber, "ber", None)?, data_bits, control_bits }
        }
        "multistate" => multistate(l, p)?,
        "periodic" => {
            // ns-2 truncates its doubles to counts
            let count = |v: Option<f64>, field: &str, default: Option<f64>| -> Res<u64> {
                match (v, default) {
                    (Some(v), _) => Ok(real_in(v, 0.0, 1e15, &p(field))? as u64),
                    (None, Some(d)) => Ok(d as u64),
                    (None, None) => err(p(field), "is required by the periodic model (a packet count)"),
                }
            };
            LossModel::Periodic {
                offset: count(l.offset, "offset", Some(0.0))?,
                period: count(l.period, "period", None)?,
                burst: count(l.burst, "burst", Some(0.0))?,
            }
        }
        "gilbert" => LossModel::Gilbert {
            p_good_bad: prob(l.p_good_bad, "p_good_bad", None)?,
            p_bad_good: prob(l.p_bad_good, "p_bad_good", None)?,
            loss_good: prob(l.loss_good, "loss_good", Some(0.0))?,
            loss_bad: prob(l.loss_bad, "loss_bad", Some(1.0))?,
        },
        _ => {
            let mut packets = Vec::new();
            for (j, &n) in l.packets.iter().flatten().enumerate() {
                if n < 0 {
                    return err(
                        format!("{}[{j}]", p("packets")),
                        format!("{n} is negative (packets are counted from 0)"),
                    );
                }
                packets.push(n as u64);
            }
            if packets.is_empty() {
                return err(p("packets"), "is required (the positions of the packets to drop, from 0)");
            }
            packets.sort_unstable(); // ns-2 sorts its drop list
            LossModel::List { packets }
        }
    })
}

/// A multistate model: its states, the transition matrix (a row per state, each a
/// probability per state, summing to 1), and when the chain steps.
fn multistate(l: &RawLoss, p: &impl Fn(&str) -> String) -> Res<LossModel> {
    let raw = l.states.as_deref().unwrap_or_default();
    if raw.is_empty() {
        return err(p("states"), "is required by the multistate model (its states, the first the start)");
    }
    let by_time = one_of(l.step.as_deref().unwrap_or("packet"), &["packet", "time"], "step", &p("step"))? == "time";
    let mut states = Vec::with_capacity(raw.len());
    for (j, s) in raw.iter().enumerate() {
        let path = |f: &str| format!("{}[{j}].{f}", p("states"));
        let rate = s.rate.ok_or_else(|| ScenarioError::new(path("rate"), "is required (a probability per packet)"))?;
        let rate = real_in(rate, 0.0, 1.0, &path("rate"))?;
        let period = match (&s.period, by_time) {
            (Some(q), true) => time(q, &path("period"))?.as_secs_f64(),
            (None, true) => return err(path("period"), "is required with step = \"time\" (how long the state lasts)"),
            (Some(_), false) => return err(path("period"), "goes with step = \"time\""),
            (None, false) => 0.0,
        };
        states.push(LossState { rate, period });
    }
    let rows = l.transitions.as_deref().unwrap_or_default();
    if rows.len() != states.len() {
        return err(p("transitions"), format!("needs a row per state ({}), has {}", states.len(), rows.len()));
    }
    for (j, row) in rows.iter().enumerate() {
        let path = format!("{}[{j}]", p("transitions"));
        if row.len() != states.len() {
            return err(path, format!("needs a probability per state ({}), has {}", states.len(), row.len()));
        }
        for (k, &t) in row.iter().enumerate() {
            real_in(t, 0.0, 1.0, &format!("{path}[{k}]"))?;
        }
        let sum: f64 = row.iter().sum();
        if (sum - 1.0).abs() > 1e-9 {
            return err(path, format!("sums to {sum}, not 1"));
        }
    }
    Ok(LossModel::Multistate { states, transitions: rows.to_vec(), by_time })
}

/// `[flows.receiver]` over Linux's defaults for the flow's window; ECN as the sender asks
/// (`tcp.ecn`), as Linux accepts it: DCTCP's echo of every mark for a DCTCP sender (RFC 8257
/// §3.2), RFC 3168's otherwise.
fn receiver_config(r: Option<&RawReceiver>, params: &TcpParams, dctcp: bool, path: &str) -> Res<ReceiverConfig> {
    let mut out = ReceiverConfig::linux(params.window);
    out.ecn = match (params.ecn, dctcp) {
        (false, _) => EcnEcho::Off,
        (true, false) => EcnEcho::Rfc3168,
        (true, true) => EcnEcho::Dctcp,
    };
    let Some(r) = r else { return Ok(out) };
    let p = |f: &str| format!("{path}.{f}");
    if let Some(v) = r.ack_every {
        out.ack_every = int_in(v, 1, 1_000_000, &p("ack_every"))?;
    }
    if let Some(v) = r.max_quickacks {
        out.max_quickacks = int_in(v, 0, 1_000_000, &p("max_quickacks"))?;
    }
    if let Some(v) = r.sack_compress_nr {
        out.sack_compress_nr = int_in(v, 0, 1_000_000, &p("sack_compress_nr"))?;
    }
    for (field, value, slot) in [
        ("ato_min", &r.ato_min, &mut out.ato_min_s),
        ("delack_max", &r.delack_max, &mut out.delack_max_s),
        ("rto", &r.rto, &mut out.rto_s),
        ("sack_compress_delay", &r.sack_compress_delay, &mut out.sack_compress_s),
    ] {
        if let Some(q) = value {
            *slot = seconds(q, &p(field))?;
            if *slot <= 0.0 {
                return err(p(field), "must be longer than zero");
            }
        }
    }
    for (field, value, slot) in [
        ("sack", r.sack, &mut out.sack),
        ("dsack", r.dsack, &mut out.dsack),
        ("timestamps", r.timestamps, &mut out.timestamps),
    ] {
        if let Some(v) = value {
            *slot = flag(v, &p(field))?;
        }
    }
    if !out.timestamps {
        return err(p("timestamps"), "must be true: the rfc sender takes its RTT samples from the echoed timestamps");
    }
    if let Some(e) = &r.ecn {
        out.ecn = match one_of(e, &["off", "rfc3168", "dctcp"], "ECN echo", &p("ecn"))? {
            "off" => EcnEcho::Off,
            "rfc3168" => EcnEcho::Rfc3168,
            _ => EcnEcho::Dctcp,
        };
    }
    Ok(out)
}

/// `[links.droptail]`: ns-2's `Queue/DropTail` variables, with its defaults.
fn droptail(d: Option<&RawDropTail>, path: &str) -> Res<DropTailParams> {
    let mut out = DropTailParams { queue_in_bytes: false, mean_pktsize: 500, ecn_threshold: None };
    let Some(d) = d else { return Ok(out) };
    if let Some(v) = d.queue_in_bytes {
        out.queue_in_bytes = flag(v, &format!("{path}.queue_in_bytes"))?;
    }
    if let Some(v) = d.mean_pktsize {
        out.mean_pktsize = int_in(v, 1, MAX_PACKET as i64, &format!("{path}.mean_pktsize"))?;
    }
    if let Some(v) = d.ecn_threshold {
        out.ecn_threshold = Some(int_in(v, 0, 10_000_000, &format!("{path}.ecn_threshold"))?);
    }
    Ok(out)
}

/// RED's knobs in `r` over `out`.
fn red_over(mut out: RedParams, r: RawRed, path: &str) -> Res<RedParams> {
    let p = |f: &str| format!("{path}.{f}");
    if let Some(v) = r.bytes {
        out.bytes = flag(v, &p("bytes"))?;
    }
    if let Some(v) = r.queue_in_bytes {
        out.queue_in_bytes = flag(v, &p("queue_in_bytes"))?;
    }
    if let Some(v) = r.mean_pktsize {
        out.mean_pktsize = int_in(v, 1, MAX_PACKET as i64, &p("mean_pktsize"))?;
    }
    if let Some(v) = r.thresh {
        out.thresh = real_in(v, 0.0, 1e9, &p("thresh"))?;
    }
    if let Some(v) = r.maxthresh {
        out.maxthresh = real_in(v, 0.0, 1e9, &p("maxthresh"))?;
    }
    if let Some(v) = r.q_weight {
        let automatic = [0.0, -1.0, -2.0].contains(&v);
        if !(automatic || (v > 0.0 && v <= 1.0)) {
            return err(p("q_weight"), format!("{v} is not a weight in (0, 1] (or ns-2's automatic 0, -1, -2)"));
        }
        out.q_weight = v;
    }
    if let Some(v) = r.linterm {
        out.linterm = real_in(v, 1.0, 1e9, &p("linterm"))?;
    }
    if let Some(v) = r.wait {
        out.wait = flag(v, &p("wait"))?;
    }
    if let Some(v) = r.gentle {
        out.gentle = flag(v, &p("gentle"))?;
    }
    if let Some(v) = r.setbit {
        out.setbit = flag(v, &p("setbit"))?;
    }
    // mark_p above 1 means "always mark" in ns-2
    if let Some(v) = r.mark_p {
        out.mark_p = real_in(v, 0.0, 1e9, &p("mark_p"))?;
    }
    if let Some(v) = r.use_mark_p {
        out.use_mark_p = flag(v, &p("use_mark_p"))?;
    }
    if let Some(v) = r.drop_tail {
        out.drop_tail = flag(v, &p("drop_tail"))?;
    }
    if let Some(v) = r.drop_rand {
        out.drop_rand = flag(v, &p("drop_rand"))?;
    }
    if let Some(v) = r.ns1_compat {
        out.ns1_compat = flag(v, &p("ns1_compat"))?;
    }
    if let Some(v) = &r.targetdelay {
        out.targetdelay = seconds(v, &p("targetdelay"))?;
    }
    if let Some(v) = r.adaptive {
        out.adaptive = flag(v, &p("adaptive"))?;
    }
    if let Some(v) = r.alpha {
        out.alpha = real_in(v, 0.0, 1.0, &p("alpha"))?;
    }
    if let Some(v) = r.beta {
        out.beta = real_in(v, 0.0, 1.0, &p("beta"))?;
    }
    if let Some(v) = &r.interval {
        out.interval = seconds(v, &p("interval"))?;
    }
    if let Some(v) = r.top {
        out.top = real_in(v, 0.0, 1.0, &p("top"))?;
    }
    if let Some(v) = r.bottom {
        out.bottom = real_in(v, 0.0, 1.0, &p("bottom"))?;
    }
    if out.thresh > 0.0 && out.maxthresh > 0.0 && out.maxthresh < out.thresh {
        return err(p("maxthresh"), format!("{} is below thresh ({})", out.maxthresh, out.thresh));
    }
    Ok(out)
}

/// Applies the knobs present in `raw` on top of `base`.
fn tcp_params(mut t: TcpParams, raw: &RawTcp, path: &str) -> Res<TcpParams> {
    let p = |f: &str| format!("{path}.{f}");
    if let Some(v) = raw.window {
        t.window = int_in(v, 1, 1_000_000, &p("window"))?;
    }
    if let Some(v) = raw.window_init {
        t.window_init = int_in(v, 1, 1_000_000, &p("window_init"))?;
    }
    if let Some(v) = raw.window_init_option {
        t.window_init_option = int_in(v, 1, 2, &p("window_init_option"))?;
    }
    if let Some(v) = raw.syn {
        t.syn = flag(v, &p("syn"))?;
    }
    if let Some(v) = raw.delay_growth {
        t.delay_growth = flag(v, &p("delay_growth"))?;
    }
    if let Some(v) = raw.max_cwnd {
        t.max_cwnd = int_in(v, 0, 1_000_000, &p("max_cwnd"))?;
    }
    if let Some(v) = raw.maxburst {
        t.maxburst = int_in(v, 0, 1_000_000, &p("maxburst"))?;
    }
    if let Some(v) = &raw.tcp_tick {
        t.tcp_tick = seconds(v, &p("tcp_tick"))?;
        if t.tcp_tick <= 0.0 {
            return err(p("tcp_tick"), "must be longer than zero");
        }
    }
    if let Some(v) = &raw.rtxcur_init {
        t.rtxcur_init = seconds(v, &p("rtxcur_init"))?;
    }
    if let Some(v) = &raw.minrto {
        t.minrto = seconds(v, &p("minrto"))?;
    }
    if let Some(v) = &raw.maxrto {
        t.maxrto = seconds(v, &p("maxrto"))?;
    }
    if let Some(v) = &raw.srtt_init {
        t.srtt_init = whole_seconds(v, &p("srtt_init"))?;
    }
    if let Some(v) = &raw.rttvar_init {
        t.rttvar_init = whole_seconds(v, &p("rttvar_init"))?;
    }
    if let Some(v) = raw.numdupacks {
        t.numdupacks = int_in(v, 1, 1000, &p("numdupacks"))?;
    }
    if let Some(v) = raw.singledup {
        t.singledup = flag(v, &p("singledup"))?;
    }
    if let Some(v) = raw.bug_fix {
        t.bug_fix = flag(v, &p("bug_fix"))?;
    }
    if let Some(v) = raw.precision_reduce {
        t.precision_reduce = flag(v, &p("precision_reduce"))?;
    }
    if let Some(v) = raw.ecn {
        t.ecn = flag(v, &p("ecn"))?;
    }
    if let Some(v) = raw.timestamps {
        t.timestamps = flag(v, &p("timestamps"))?;
    }
    if let Some(v) = raw.slow_start_restart {
        t.slow_start_restart = flag(v, &p("slow_start_restart"))?;
    }
    if let Some(v) = raw.decrease_num {
        t.decrease_num = real_in(v, 0.0, 1.0, &p("decrease_num"))?;
    }
    if let Some(v) = raw.increase_num {
        t.increase_num = real_in(v, 0.0, 1e6, &p("increase_num"))?;
    }
    if let Some(v) = raw.newreno_changes {
        t.newreno_changes = flag(v, &p("newreno_changes"))?;
    }
    if let Some(v) = raw.newreno_changes1 {
        t.newreno_changes1 = flag(v, &p("newreno_changes1"))?;
    }
    if let Some(v) = raw.partial_window_deflation {
        t.partial_window_deflation = flag(v, &p("partial_window_deflation"))?;
    }
    if let Some(v) = raw.exit_recovery_fix {
        t.exit_recovery_fix = flag(v, &p("exit_recovery_fix"))?;
    }
    if let Some(v) = raw.partial_ack {
        t.partial_ack = flag(v, &p("partial_ack"))?;
    }
    if let Some(v) = raw.use_headers {
        t.use_headers = flag(v, &p("use_headers"))?;
    }
    if let Some(v) = raw.no_fast_retrans {
        t.no_fast_retrans = flag(v, &p("no_fast_retrans"))?;
    }
    if let Some(v) = raw.aggressive_maxburst {
        t.aggressive_maxburst = flag(v, &p("aggressive_maxburst"))?;
    }
    if let Some(v) = raw.exit_fast_retrans {
        t.exit_fast_retrans = flag(v, &p("exit_fast_retrans"))?;
    }
    if let Some(v) = raw.ts_reset_rto {
        t.ts_reset_rto = flag(v, &p("ts_reset_rto"))?;
    }
    if let Some(v) = raw.bugfix_ss {
        t.bugfix_ss = flag(v, &p("bugfix_ss"))?;
    }
    if let Some(v) = raw.timerfix {
        t.timerfix = flag(v, &p("timerfix"))?;
    }
    if let Some(v) = raw.rfc2988 {
        t.rfc2988 = flag(v, &p("rfc2988"))?;
    }
    if let Some(v) = raw.old_ecn {
        t.old_ecn = flag(v, &p("old_ecn"))?;
    }
    if let Some(v) = raw.max_connects {
        t.max_connects = int_in(v, -1, 1_000_000, &p("max_connects"))? as i32;
    }
    if let Some(v) = raw.srtt_bits {
        t.srtt_bits = int_in(v, 1, 8, &p("srtt_bits"))?;
    }
    if let Some(v) = raw.rttvar_bits {
        t.rttvar_bits = int_in(v, 1, 8, &p("rttvar_bits"))?;
    }
    if let Some(v) = raw.rttvar_exp {
        t.rttvar_exp = int_in(v, 0, 8, &p("rttvar_exp"))?;
    }
    if t.rttvar_exp + t.srtt_bits < t.rttvar_bits {
        return err(p("rttvar_bits"), "exceeds rttvar_exp + srtt_bits (ns-2 shifts by their difference)");
    }
    if let Some(v) = raw.less_careful {
        t.less_careful = flag(v, &p("less_careful"))?;
    }
    if let Some(v) = raw.bug_fix_ack {
        t.bug_fix_ack = flag(v, &p("bug_fix_ack"))?;
    }
    if let Some(v) = raw.bug_fix_ts {
        t.bug_fix_ts = flag(v, &p("bug_fix_ts"))?;
    }
    if let Some(v) = raw.numdupacks_frac {
        if v == 0 || v > 1_000_000 {
            return err(p("numdupacks_frac"), format!("{v} is not a divisor (1..=1000000, or -1 for off)"));
        }
        t.numdupacks_frac = v.max(-1) as i32; // any negative value turns the rule off, as in ns-2
    }
    if let Some(v) = raw.ss_div4 {
        t.ss_div4 = flag(v, &p("ss_div4"))?;
    }
    if let Some(v) = raw.rampdown {
        t.rampdown = flag(v, &p("rampdown"))?;
    }
    if let Some(v) = raw.v_alpha {
        t.v_alpha = int_in(v, 0, 1_000_000, &p("v_alpha"))? as i32;
    }
    if let Some(v) = raw.v_beta {
        t.v_beta = int_in(v, 0, 1_000_000, &p("v_beta"))? as i32;
    }
    if let Some(v) = raw.v_gamma {
        t.v_gamma = int_in(v, 0, 1_000_000, &p("v_gamma"))? as i32;
    }
    if let Some(v) = raw.rbp {
        t.rbp = flag(v, &p("rbp"))?;
    }
    if let Some(v) = raw.rbp_scale {
        t.rbp_scale = real_in(v, 0.0, 1e6, &p("rbp_scale"))?;
    }
    if let Some(v) = raw.rbp_rate_algorithm {
        t.rbp_rate_algorithm = int_in(v, 1, 2, &p("rbp_rate_algorithm"))?;
    }
    if t.v_beta < t.v_alpha {
        return err(p("v_beta"), format!("{} is below v_alpha ({})", t.v_beta, t.v_alpha));
    }
    if let Some(v) = raw.tcpip_base_hdr_size {
        t.tcpip_base_hdr_size = int_in(v, 1, 1000, &p("tcpip_base_hdr_size"))?;
    }
    if t.maxrto < t.minrto {
        return err(p("maxrto"), format!("{} s is below minrto ({} s)", t.maxrto, t.minrto));
    }
    highspeed_params(&mut t, raw, path)?;
    if let Some(v) = raw.frto {
        t.frto = flag(v, &p("frto"))?;
    }
    if let Some(v) = raw.sfrto {
        t.sfrto = flag(v, &p("sfrto"))?;
    }
    if let Some(v) = raw.spurious_response {
        t.spurious_response = int_in(v, 0, 3, &p("spurious_response"))? as i32;
    }
    rfc793edu_params(&mut t, raw, path)?;
    if let Some(v) = &raw.overhead {
        t.overhead = seconds(v, &p("overhead"))?;
    }
    if let Some(v) = raw.qoption {
        t.qoption = flag(v, &p("qoption"))?;
    }
    if let Some(v) = raw.rtt_counter {
        t.rtt_counter = flag(v, &p("rtt_counter"))?;
    }
    if let Some(v) = raw.control_increase {
        t.control_increase = flag(v, &p("control_increase"))?;
    }
    Ok(t)
}

/// RFC793edu's `add793*` knobs.
fn rfc793edu_params(t: &mut TcpParams, raw: &RawTcp, path: &str) -> Res<()> {
    let p = |f: &str| format!("{path}.{f}");
    let knobs = [
        (raw.add793expbackoff, "add793expbackoff", &mut t.add793expbackoff),
        (raw.add793jacobsonrtt, "add793jacobsonrtt", &mut t.add793jacobsonrtt),
        (raw.add793fastrtx, "add793fastrtx", &mut t.add793fastrtx),
        (raw.add793slowstart, "add793slowstart", &mut t.add793slowstart),
        (raw.add793additiveinc, "add793additiveinc", &mut t.add793additiveinc),
        (raw.add793karnrtt, "add793karnrtt", &mut t.add793karnrtt),
        (raw.add793exponinc, "add793exponinc", &mut t.add793exponinc),
    ];
    for (value, name, field) in knobs {
        if let Some(v) = value {
            *field = flag(v, &p(name))?;
        }
    }
    Ok(())
}

/// `window_option` and the HighSpeed TCP and Limited Slow-Start knobs.
fn highspeed_params(t: &mut TcpParams, raw: &RawTcp, path: &str) -> Res<()> {
    let p = |f: &str| format!("{path}.{f}");
    if let Some(v) = raw.window_option {
        if v != 1 && v != 8 {
            return err(p("window_option"), format!("{v} is not modelled (1: standard, 8: HighSpeed TCP)"));
        }
        t.window_option = v as u32;
    }
    if let Some(v) = raw.low_window {
        t.low_window = int_in(v, 1, 1_000_000, &p("low_window"))? as i32;
    }
    if let Some(v) = raw.high_window {
        t.high_window = int_in(v, 1, 1_000_000_000, &p("high_window"))? as i32;
    }
    if let Some(v) = raw.high_p {
        t.high_p = real_in(v, f64::MIN_POSITIVE, 1.0, &p("high_p"))?;
    }
    if let Some(v) = raw.high_decrease {
        t.high_decrease = real_in(v, f64::MIN_POSITIVE, 1.0, &p("high_decrease"))?;
    }
    if let Some(v) = raw.cwnd_range {
        t.cwnd_range = int_in(v, 0, 1_000_000, &p("cwnd_range"))? as i32;
    }
    if let Some(v) = raw.max_ssthresh {
        t.max_ssthresh = int_in(v, 0, 1_000_000, &p("max_ssthresh"))? as i32;
    }
    if let Some(v) = raw.ssthresh {
        t.ssthresh = int_in(v, 0, 1_000_000, &p("ssthresh"))? as i32;
    }
    if let Some(name) = &raw.ca {
        let names = LinuxCa::ALL.map(LinuxCa::name);
        let name = one_of(name, &names, "ca", &p("ca"))?;
        t.ca = LinuxCa::ALL.into_iter().find(|ca| ca.name() == name).expect("a listed name");
    }
    if let Some(v) = raw.tcp_abc {
        t.tcp_abc = int_in(v, 0, 2, &p("tcp_abc"))?;
    }
    if let Some(v) = raw.tcp_max_burst {
        t.tcp_max_burst = int_in(v, 0, 255, &p("tcp_max_burst"))?;
    }
    if t.window_option == 8 && t.high_window <= t.low_window {
        return err(
            p("high_window"),
            format!("{} must be above low_window ({}) for HighSpeed TCP", t.high_window, t.low_window),
        );
    }
    Ok(())
}

/// ns-2's `Agent/TCP/Linux` class defaults (ns-default.tcl), which override `Agent/TCP`'s (the
/// scenario's [tcp] table) but not the flow's own knobs: rtxcur_init 3 s, maxrto 120 s, minrto
/// 0.2 s, no delayed growth after the SYN, and ts_resetRTO_ on.
fn linux_class_defaults(t: &mut TcpParams, own: Option<&RawTcp>) {
    let own = |get: fn(&RawTcp) -> bool| own.is_some_and(get);
    if !own(|r| r.rtxcur_init.is_some()) {
        t.rtxcur_init = 3.0;
    }
    if !own(|r| r.maxrto.is_some()) {
        t.maxrto = 120.0;
    }
    if !own(|r| r.minrto.is_some()) {
        t.minrto = 0.2;
    }
    if !own(|r| r.delay_growth.is_some()) {
        t.delay_growth = false;
    }
    if !own(|r| r.ts_reset_rto.is_some()) {
        t.ts_reset_rto = true;
    }
}

/// The sink knobs: the flow's own over the scenario's `[tcpsink]` table over ns-2's defaults.
fn sink_knobs(global: &RawSink, own: Option<&RawSink>, path: &str) -> Res<(bool, bool, bool, bool)> {
    let pick = |field: fn(&RawSink) -> Option<Flag>, name: &str, default: bool| -> Res<bool> {
        match (own.and_then(field), field(global)) {
            (Some(f), _) => flag(f, &format!("{path}.tcpsink.{name}")),
            (None, Some(f)) => flag(f, &format!("tcpsink.{name}")),
            (None, None) => Ok(default),
        }
    };
    Ok((
        pick(|s| s.syn_immediate_ack, "syn_immediate_ack", true)?,
        pick(|s| s.rfc2581_immediate_ack, "rfc2581_immediate_ack", true)?,
        pick(|s| s.ts_echo_rfc1323, "ts_echo_rfc1323", false)?,
        pick(|s| s.ecn_syn, "ecn_syn", false)?,
    ))
}

fn profile_named(text: &str, path: &str) -> Res<Profile> {
    Ok(match one_of(text, &["ns2", "rfc"], "profile", path)? {
        "ns2" => Profile::Ns2,
        _ => Profile::Rfc,
    })
}

/// What the scenario's top-level tables give every flow.
struct FlowDefaults<'a> {
    profile: Profile,
    /// `[tcp]` over each profile's defaults.
    ns2_tcp: TcpParams,
    rfc_tcp: TcpParams,
    /// `[tcp]` over the modern sender's (Linux's) defaults.
    linux_tcp: TcpParams,
    /// `[tcp]`'s FullTcp variables over ns-2's defaults.
    full: FullParams,
    raw_tcp: &'a RawTcp,
    sink: RawSink,
    vegas: Option<&'a RawVegas>,
    fast: Option<&'a RawFast>,
    pacing: Option<&'a RawPacing>,
    modern: Option<&'a RawModern>,
}

/// A top-level table no flow reads is a mistake worth naming.
fn unused_tables(vegas: bool, fast: bool, tcp: Option<&RawTcp>, flows: &[FlowConfig]) -> Res<()> {
    let of = |f: &FlowConfig| match &f.transport {
        Transport::Tcp(t) => Some((t.variant, t.profile)),
        Transport::Udp => None,
    };
    let any = |want: &dyn Fn(TcpVariant, Profile) -> bool| flows.iter().filter_map(of).any(|(v, p)| want(v, p));
    if vegas && !any(&|v, p| v == TcpVariant::Vegas && p == Profile::Rfc) {
        return err("vegas", "no flow uses it: it configures protocol = \"vegas\" in the rfc profile (ns-2's Vegas takes tcp.v_alpha, v_beta, v_gamma)");
    }
    if fast && !any(&|v, _| v == TcpVariant::Fast) {
        return err("fast", "no flow uses it (protocol = \"fast\")");
    }
    if let Some(t) = tcp {
        if !any(&|_, _| true) {
            return err("tcp", "no flow uses it: every flow is UDP");
        }
        if !any(&|_, p| p == Profile::Ns2) {
            if let Some(knob) = ns2_only_knobs(t).first() {
                return ns2_knob_error("tcp", knob);
            }
        }
    }
    Ok(())
}

fn flow(
    f: &RawFlow,
    i: usize,
    node: &impl Fn(&Option<String>, String) -> Res<usize>,
    defaults: &FlowDefaults,
    duration: Time,
    traffic_traces: &mut Vec<Vec<(u32, u32)>>,
) -> Res<FlowConfig> {
    let p = |f: &str| format!("flows[{i}].{f}");
    let name = f.name.clone().unwrap_or_else(|| format!("flow{i}"));
    let fid = match f.fid {
        None => i as u32,
        Some(v) => int_in(v, 0, i32::MAX as i64, &p("fid"))?,
    };
    let from = node(&f.from, p("from"))?;
    let to = node(&f.to, p("to"))?;
    if from == to {
        return err(p("to"), "is the same node as `from`");
    }
    const PROTOCOLS: [&str; 18] = [
        "tahoe",
        "reno",
        "newreno",
        "sack1",
        "fack",
        "sackrh",
        "rfc793edu",
        "vegas",
        "linux",
        "fast",
        "cubic",
        "bbr",
        "dctcp",
        "fulltcp",
        "fulltcp_tahoe",
        "fulltcp_newreno",
        "fulltcp_sack",
        "udp",
    ];
    let protocol = f
        .protocol
        .as_deref()
        .ok_or_else(|| ScenarioError::new(p("protocol"), format!("is required ({})", PROTOCOLS.join(", "))))?;
    let protocol = one_of(protocol, &PROTOCOLS, "protocol", &p("protocol"))?;
    let is_tcp = protocol != "udp";

    let app = f.app.as_deref().unwrap_or(if is_tcp { "ftp" } else { "cbr" });
    let app = one_of(app, &["ftp", "cbr", "telnet", "exponential", "pareto", "trace"], "app", &p("app"))?;
    if app == "ftp" && !is_tcp {
        return err(p("app"), "ftp needs a TCP protocol (tahoe, reno, newreno, sack1, fack, sackrh, vegas or linux)");
    }
    let on_off = app == "exponential" || app == "pareto";
    if on_off && is_tcp {
        // ns-2 would type the TCP agent's segments as the source's packets
        return err(p("app"), format!("{app} runs over protocol = \"udp\""));
    }
    let packet_size = match &f.packet_size {
        Some(q) => {
            let s = size(q, &p("packet_size"))?;
            if s == 0 || s > MAX_PACKET - 40 {
                return err(
                    p("packet_size"),
                    format!("{s} B is not a packet size (expected 1..={} B)", MAX_PACKET - 40),
                );
            }
            Some(s as u32)
        }
        None => None,
    };
    let only = |field: &str, present: bool, needs: &str| -> Res<()> {
        if present {
            err(p(field), format!("is only allowed {needs}"))
        } else {
            Ok(())
        }
    };
    only("packets", f.packets.is_some() && app != "ftp" && app != "cbr", "with app = \"ftp\" or \"cbr\"")?;
    only("random", f.random.is_some() && app != "cbr", "with app = \"cbr\"")?;
    only("rate", f.rate.is_some() && app != "cbr" && !on_off, "with app = \"cbr\", \"exponential\" or \"pareto\"")?;
    only("interval", f.interval.is_some() && app != "telnet", "with app = \"telnet\"")?;
    only("burst_time", f.burst_time.is_some() && !on_off, "with app = \"exponential\" or \"pareto\"")?;
    only("idle_time", f.idle_time.is_some() && !on_off, "with app = \"exponential\" or \"pareto\"")?;
    only("shape", f.shape.is_some() && app != "pareto", "with app = \"pareto\"")?;
    only("records", f.records.is_some() && app != "trace", "with app = \"trace\"")?;
    only("sink", f.sink.is_some() && !is_tcp, "with a TCP protocol")?;
    only("tcp", f.tcp.is_some() && !is_tcp, "with a TCP protocol")?;
    only("tcpsink", f.tcpsink.is_some() && !is_tcp, "with a TCP protocol")?;
    only("profile", f.profile.is_some() && !is_tcp, "with a TCP protocol")?;
    only("pacing", f.pacing.is_some() && !is_tcp, "with a TCP protocol")?;
    let delayed_sink = matches!(f.sink.as_deref(), Some("delack" | "sack1_delack"));
    only(
        "delack_interval",
        f.delack_interval.is_some() && !delayed_sink,
        "with a delayed-ACK sink (delack, sack1_delack)",
    )?;

    let packets = match f.packets {
        None => None,
        Some(n) if n >= 1 => Some(n as u64),
        Some(n) => return err(p("packets"), format!("{n} is not a packet count (expected at least 1)")),
    };
    let app = if app == "ftp" {
        AppConfig::Ftp { packets }
    } else if app == "telnet" {
        // ns-2's default interval_ is 1 s
        let interval_s = f.interval.as_ref().map_or(Ok(1.0), |q| exact_seconds(q, &p("interval")))?;
        // over UDP, the agent's packetSize_ (ns-2's default 1000 B)
        AppConfig::Telnet { interval_s, size: packet_size.unwrap_or(1000) }
    } else if app == "trace" {
        let records = f.records.as_ref().ok_or_else(|| {
            ScenarioError::new(p("records"), "is required with app = \"trace\" (a list of [gap in µs, bytes])")
        })?;
        if records.is_empty() {
            return err(p("records"), "is empty");
        }
        let mut table = Vec::with_capacity(records.len());
        for (r, pair) in records.iter().enumerate() {
            let field = format!("records[{r}]");
            let &[gap, bytes] = pair.as_slice() else {
                return err(p(&field), "is not a pair [gap in µs, bytes]");
            };
            // ns-2's trace files hold both as 32-bit unsigned integers
            let gap = int_in(gap, 0, u32::MAX as i64, &p(&field))?;
            let bytes = int_in(bytes, 1, MAX_PACKET as i64, &p(&field))?;
            table.push((gap, bytes));
        }
        traffic_traces.push(table);
        AppConfig::Trace { table: traffic_traces.len() - 1, size: packet_size.unwrap_or(1000) }
    } else if on_off {
        // ns-2's defaults: 210-byte packets at 64 kb/s, bursts and idle times of 0.5 s
        let secs = |q: &Option<Quantity>, field: &str| q.as_ref().map_or(Ok(0.5), |q| exact_seconds(q, &p(field)));
        let (burst_time_s, idle_time_s) = (secs(&f.burst_time, "burst_time")?, secs(&f.idle_time, "idle_time")?);
        if burst_time_s <= 0.0 {
            return err(p("burst_time"), "must be above 0");
        }
        let rate_bps = match &f.rate {
            Some(q) => rate(q, &p("rate"))?,
            None => 64_000,
        };
        if rate_bps == 0 {
            return err(p("rate"), "must be above 0");
        }
        let size = packet_size.unwrap_or(210);
        if app == "exponential" {
            AppConfig::Exponential { size, rate_bps, burst_time_s, idle_time_s }
        } else {
            let shape = real_in(f.shape.unwrap_or(1.5), 1.0, 1e6, &p("shape"))?;
            if shape <= 1.0 {
                return err(p("shape"), format!("{shape} gives Pareto bursts no finite mean (expected above 1)"));
            }
            AppConfig::Pareto { size, rate_bps, burst_time_s, idle_time_s, shape }
        }
    } else {
        let rate_bps = match &f.rate {
            Some(q) => rate(q, &p("rate"))?,
            None => 448_000,
        };
        let random = match f.random {
            Some(v) => flag(v, &p("random"))?,
            None => false,
        };
        AppConfig::Cbr { rate_bps, size: packet_size.unwrap_or(210), random, packets }
    };

    let transport = if is_tcp {
        let variant = match protocol {
            "tahoe" => TcpVariant::Tahoe,
            "reno" => TcpVariant::Reno,
            "newreno" => TcpVariant::NewReno,
            "sack1" => TcpVariant::Sack1,
            "fack" => TcpVariant::Fack,
            "sackrh" => TcpVariant::SackRh,
            "linux" => TcpVariant::Linux,
            "rfc793edu" => TcpVariant::Rfc793edu,
            "fast" => TcpVariant::Fast,
            "cubic" => TcpVariant::Cubic,
            "bbr" => TcpVariant::Bbr,
            "dctcp" => TcpVariant::Dctcp,
            "fulltcp" => TcpVariant::Full,
            "fulltcp_tahoe" => TcpVariant::FullTahoe,
            "fulltcp_newreno" => TcpVariant::FullNewReno,
            "fulltcp_sack" => TcpVariant::FullSack,
            _ => TcpVariant::Vegas,
        };
        let profile = match &f.profile {
            Some(text) => profile_named(text, &p("profile"))?,
            None => defaults.profile,
        };
        match (profile, variant) {
            (Profile::Ns2, TcpVariant::Fast | TcpVariant::Cubic | TcpVariant::Bbr | TcpVariant::Dctcp) => {
                return err(p("protocol"), format!("{protocol} exists in the rfc profile only (set profile = \"rfc\")"))
            }
            (Profile::Rfc, v)
                if v.is_full()
                    || matches!(
                        v,
                        TcpVariant::Tahoe
                            | TcpVariant::Sack1
                            | TcpVariant::Fack
                            | TcpVariant::SackRh
                            | TcpVariant::Linux
                            | TcpVariant::Rfc793edu
                    ) =>
            {
                return err(
                    p("protocol"),
                    format!("{protocol} is an ns-2 profile agent; the rfc profile has newreno, vegas, fast, reno, cubic, bbr and dctcp"),
                )
            }
            _ => {}
        }
        let rfc_vegas = profile == Profile::Rfc && variant == TcpVariant::Vegas;
        only(
            "vegas",
            f.vegas.is_some() && !rfc_vegas,
            "with protocol = \"vegas\" in the rfc profile (ns-2's Vegas takes tcp.v_alpha, v_beta, v_gamma)",
        )?;
        only("fast", f.fast.is_some() && variant != TcpVariant::Fast, "with protocol = \"fast\"")?;
        let modern = profile == Profile::Rfc
            && matches!(variant, TcpVariant::Reno | TcpVariant::Cubic | TcpVariant::Bbr | TcpVariant::Dctcp);
        only(
            "modern",
            f.modern.is_some() && !modern,
            "with protocol = \"reno\", \"cubic\", \"bbr\" or \"dctcp\" in the rfc profile",
        )?;
        if modern && f.pacing.is_some() {
            return err(p("pacing"), "is the token-bucket pacer of newreno, vegas and fast; the modern sender paces as Linux does (see modern.fq_pacing)");
        }
        // Linux's sender talks to Linux's receiver (SACK, delayed and quick ACKs, timestamps)
        let default_sink = if modern { "linux" } else { variant.default_sink() };
        let sinks = ["tcpsink", "delack", "sack1", "sack1_delack", "linux"];
        let kind = one_of(f.sink.as_deref().unwrap_or(default_sink), &sinks, "sink", &p("sink"))?;
        let linux_receiver = kind == "linux";
        if linux_receiver && profile != Profile::Rfc {
            return err(p("sink"), "linux is the rfc profile's receiver (with profile = \"rfc\")");
        }
        only("receiver", f.receiver.is_some() && !linux_receiver, "with sink = \"linux\"")?;
        only(
            "tcpsink",
            f.tcpsink.is_some() && linux_receiver,
            "with an ns-2 sink (tcpsink, delack, sack1, sack1_delack)",
        )?;
        let delack = if kind.ends_with("delack") {
            let interval = match &f.delack_interval {
                Some(q) => time(q, &p("delack_interval"))?,
                None if modern => Time::from_millis(40),
                None => Time::from_millis(100),
            };
            if interval == Time::ZERO {
                return err(p("delack_interval"), "must be longer than zero");
            }
            Some(interval)
        } else {
            None
        };
        let (syn_immediate_ack, rfc2581_immediate_ack, ts_echo_rfc1323, ecn_syn) =
            sink_knobs(&defaults.sink, f.tcpsink.as_ref(), &format!("flows[{i}]"))?;
        let sink = SinkConfig {
            sack: kind.starts_with("sack1"),
            delack,
            syn_immediate_ack,
            rfc2581_immediate_ack,
            ts_echo_rfc1323,
            ecn_syn,
        };
        let base = match profile {
            Profile::Ns2 => &defaults.ns2_tcp,
            Profile::Rfc if modern => &defaults.linux_tcp,
            Profile::Rfc => &defaults.rfc_tcp,
        };
        let mut params = match &f.tcp {
            Some(t) => tcp_params(base.clone(), t, &p("tcp"))?,
            None => base.clone(),
        };
        if profile == Profile::Rfc {
            if let Some(knob) = f.tcp.as_ref().and_then(|t| ns2_only_knobs(t).into_iter().next()) {
                return ns2_knob_error(&p("tcp"), &knob);
            }
            // An initial window given as a number is taken over RFC 5681's formula.
            let set = |get: fn(&RawTcp) -> bool| f.tcp.as_ref().is_some_and(get) || get(defaults.raw_tcp);
            if set(|t| t.window_init.is_some()) && !set(|t| t.window_init_option.is_some()) {
                params.window_init_option = 1;
            }
        } else if params.rbp && !matches!(variant, TcpVariant::Vegas | TcpVariant::Reno) {
            return err(
                p("tcp.rbp"),
                format!("ns-2 has rate-based pacing for vegas and reno only, not {}", variant.name()),
            );
        }
        let quiescence = [
            ("qoption", params.qoption),
            ("rtt_counter", params.rtt_counter),
            ("control_increase", params.control_increase),
        ];
        if let Some((knob, _)) = quiescence.iter().find(|(_, on)| *on).filter(|_| {
            profile == Profile::Ns2
                && !matches!(variant, TcpVariant::Tahoe | TcpVariant::Reno | TcpVariant::NewReno | TcpVariant::Sack1)
        }) {
            return err(
                p(&format!("tcp.{knob}")),
                format!(
                    "the quiescence option is modelled for tahoe, reno, newreno and sack1 only, not {}",
                    variant.name()
                ),
            );
        }
        if profile == Profile::Ns2
            && (params.frto || params.sfrto)
            && (params.rbp
                || !matches!(variant, TcpVariant::Tahoe | TcpVariant::Reno | TcpVariant::NewReno | TcpVariant::Sack1))
        {
            let knob = if params.frto { "frto" } else { "sfrto" };
            return err(
                p(&format!("tcp.{knob}")),
                format!(
                    "F-RTO is modelled for tahoe, reno, newreno and sack1 (without rbp) only, not {}",
                    variant.name()
                ),
            );
        }
        if f.tcp.as_ref().is_some_and(|t| t.ca.is_some()) && variant != TcpVariant::Linux {
            return err(p("tcp.ca"), "is only allowed with protocol = \"linux\"");
        }
        if variant == TcpVariant::Linux {
            linux_class_defaults(&mut params, f.tcp.as_ref());
        }
        let base_sender =
            matches!(variant, TcpVariant::Tahoe | TcpVariant::Reno | TcpVariant::NewReno) || variant.is_full();
        if params.overhead > 0.0 && (profile != Profile::Ns2 || !base_sender || params.rbp) {
            return err(
                p("tcp.overhead"),
                format!(
                    "is modelled for ns-2's tahoe, reno, newreno (without rbp) and FullTcp only, not {}",
                    variant.name()
                ),
            );
        }
        if variant == TcpVariant::Rfc793edu && params.window_option != 1 {
            return err(
                p("tcp.window_option"),
                format!("rfc793edu is modelled with window_option 1 only, not {}", params.window_option),
            );
        }
        if let Some(s) = packet_size {
            params.packet_size = s;
        }
        // DCTCP needs ECN (RFC 8257 §3.3): on unless the scenario turns it off.
        let ecn_set = f.tcp.as_ref().is_some_and(|t| t.ecn.is_some()) || defaults.raw_tcp.ecn.is_some();
        if variant == TcpVariant::Dctcp && profile == Profile::Rfc && !ecn_set {
            params.ecn = true;
        }
        let flow_path = format!("flows[{i}]");
        let vegas = if rfc_vegas { Some(vegas_config(f.vegas.as_ref(), defaults.vegas, &flow_path)?) } else { None };
        let fast = if variant == TcpVariant::Fast {
            Some(fast_config(f.fast.as_ref(), defaults.fast, &flow_path)?)
        } else {
            None
        };
        let pacing = pacing_config(f.pacing.as_ref(), defaults.pacing, &flow_path)?;
        let full = full_config(f, variant, defaults, &flow_path)?;
        let receiver = if linux_receiver {
            let dctcp = variant == TcpVariant::Dctcp;
            Some(receiver_config(f.receiver.as_ref(), &params, dctcp, &p("receiver"))?)
        } else {
            None
        };
        if pacing.is_some() && params.rbp && profile == Profile::Ns2 {
            return err(p("pacing"), "cannot be combined with tcp.rbp (both pace the sender)");
        }
        let modern = if modern { Some(modern_config(f.modern.as_ref(), defaults.modern, &flow_path)?) } else { None };
        Transport::Tcp(Box::new(TcpConfig {
            variant,
            profile,
            sink,
            params,
            vegas,
            fast,
            pacing,
            full,
            receiver,
            modern,
        }))
    } else {
        Transport::Udp
    };

    let start = match &f.start {
        Some(q) => time(q, &p("start"))?,
        None => Time::ZERO,
    };
    if start >= duration {
        return err(p("start"), format!("{start} is not before the end of the run ({duration})"));
    }
    let stop = match &f.stop {
        Some(q) => {
            let s = time(q, &p("stop"))?;
            if s <= start {
                return err(p("stop"), format!("{s} is not after start ({start})"));
            }
            Some(s)
        }
        None => None,
    };
    // a Telnet's or a trace's packet_size is already the UDP agent's
    let sized_by_source =
        !is_tcp && matches!(app, AppConfig::Cbr { .. } | AppConfig::Exponential { .. } | AppConfig::Pareto { .. });
    only(
        "udp_packet_size",
        f.udp_packet_size.is_some() && !sized_by_source,
        "over UDP with app = \"cbr\", \"exponential\" or \"pareto\"",
    )?;
    let udp_packet_size = match &f.udp_packet_size {
        Some(q) => match size(q, &p("udp_packet_size"))? {
            0 => return err(p("udp_packet_size"), "must be above 0"),
            s => Some(s.min(u32::MAX as u64) as u32),
        },
        None => None,
    };
    // a mobile node's routing agent holds port 255 (ns-2's RT_PORT)
    let port = |v: Option<i64>, field: &str| v.map(|v| int_in(v, 0, 254, &p(field))).transpose();
    let (from_port, to_port) = (port(f.from_port, "from_port")?, port(f.to_port, "to_port")?);
    Ok(FlowConfig { name, fid, from, to, transport, app, start, stop, udp_packet_size, from_port, to_port })
}

/// A FullTcp flow's two agents (None for other flows, which may not set their knobs).
fn full_config(f: &RawFlow, variant: TcpVariant, defaults: &FlowDefaults, path: &str) -> Res<Option<Box<FullConfig>>> {
    use super::fulltcp::{full_knobs, full_params};
    let p = |field: &str| format!("{path}.{field}");
    if !variant.is_full() {
        if let Some(knob) = f.tcp.as_ref().and_then(|t| full_knobs(t).into_iter().next()) {
            return err(p(&format!("tcp.{knob}")), "is a FullTcp variable: only protocol = \"fulltcp\" (or fulltcp_tahoe, fulltcp_newreno, fulltcp_sack) reads it");
        }
        for (field, set) in [("peer", f.peer.is_some()), ("listen", f.listen.is_some())] {
            if set {
                return err(
                    p(field),
                    "is only allowed with a FullTcp protocol (fulltcp, fulltcp_tahoe, fulltcp_newreno, fulltcp_sack)",
                );
            }
        }
        return Ok(None);
    }
    for (field, set) in
        [("sink", f.sink.is_some()), ("tcpsink", f.tcpsink.is_some()), ("delack_interval", f.delack_interval.is_some())]
    {
        if set {
            return err(p(field), "a FullTcp flow has no sink: its `to` end is a FullTcp agent too (set it in `peer`)");
        }
    }
    if f.pacing.is_some() {
        return err(p("pacing"), "is not modelled for FullTcp (ns-2's FullTcp has no pacing)");
    }
    let class = FullParams::of(variant, &defaults.full);
    let from = match &f.tcp {
        Some(t) => full_params(class.clone(), t, &p("tcp"))?,
        None => class.clone(),
    };
    let no_tcp = RawTcp::default();
    let peer = f.peer.as_ref().unwrap_or(&no_tcp);
    let to = full_params(class, peer, &p("peer"))?;
    let to_params = tcp_params(defaults.ns2_tcp.clone(), peer, &p("peer"))?;
    let listen = match f.listen {
        Some(v) => flag(v, &p("listen"))?,
        None => true,
    };
    Ok(Some(Box::new(FullConfig { from, to, to_params, listen })))
}

/// The flows' own starts and stops, then the scenario's actions, in scheduling order.
fn actions(raw: &[RawAction], raw_flows: &[RawFlow], flows: &[FlowConfig], duration: Time) -> Res<Vec<Action>> {
    let mut user = Vec::with_capacity(raw.len());
    for (i, a) in raw.iter().enumerate() {
        let p = |f: &str| format!("actions[{i}].{f}");
        let at_q = a.at.as_ref().ok_or_else(|| ScenarioError::new(p("at"), "is required (a time)"))?;
        let (at, at_s) = (time(at_q, &p("at"))?, exact_seconds(at_q, &p("at"))?);
        // At the end itself it still runs, before the run halts, as ns-2 runs a `$ns at` line
        // written before its `finish`; the two are compared as ns-2's clock holds them.
        if at > duration {
            return err(p("at"), format!("{at} is after the end of the run ({duration})"));
        }
        let end_s = duration.as_secs_f64();
        if at_s > end_s {
            // "700ms" is 700 x 0.001 = 0.7000000000000001 s, after an end of 0.7 s
            let written = match at_q {
                Quantity::Text(t) => format!("{t:?}"),
                Quantity::Int(i) => i.to_string(),
                Quantity::Float(f) => f.to_string(),
            };
            return err(p("at"), format!("{written} is {at_s} s on ns-2's double clock, after the end of the run ({end_s} s): write it as \"{end_s}s\""));
        }
        let name = a.flow.as_ref().ok_or_else(|| ScenarioError::new(p("flow"), "is required (a flow name)"))?;
        let flow = flows
            .iter()
            .position(|f| &f.name == name)
            .ok_or_else(|| ScenarioError::new(p("flow"), format!("unknown flow {name:?}")))?;
        let what = one_of(
            a.action.as_deref().unwrap_or(""),
            &[
                "start",
                "stop",
                "produce",
                "producemore",
                "close",
                "advance_bytes",
                "set_cwnd",
                "reset",
                "reset_sink",
                "set_interval",
            ],
            "action",
            &p("do"),
        )?;
        let full = matches!(&flows[flow].transport, Transport::Tcp(t) if t.variant.is_full());
        let end = match one_of(a.end.as_deref().unwrap_or("from"), &["from", "to"], "end", &p("end"))? {
            "to" if !full => return err(p("end"), "\"to\" acts on a FullTcp flow's peer; this flow has none"),
            "to" => End::To,
            _ => End::From,
        };
        let linux_receiver = matches!(&flows[flow].transport, Transport::Tcp(t) if t.receiver.is_some());
        if what == "reset_sink" && linux_receiver {
            return err(p("do"), "reset_sink resets an ns-2 sink; the linux receiver has no reset");
        }
        if matches!(what, "close" | "advance_bytes") && !full {
            return err(p("do"), format!("{what} needs a FullTcp flow (protocol fulltcp, fulltcp_tahoe, ...)"));
        }
        let bytes = match (what, a.bytes) {
            ("advance_bytes", Some(n)) if n >= 0 => n as u64,
            ("advance_bytes", Some(n)) => return err(p("bytes"), format!("{n} is negative")),
            ("advance_bytes", None) => return err(p("bytes"), "is required with do = \"advance_bytes\""),
            (_, Some(_)) => return err(p("bytes"), "is only allowed with do = \"advance_bytes\""),
            (_, None) => 0,
        };
        let tcp_cbr =
            matches!(flows[flow].app, AppConfig::Cbr { .. }) && matches!(flows[flow].transport, Transport::Tcp(_));
        if what == "set_interval" && !(matches!(flows[flow].app, AppConfig::Telnet { .. }) || tcp_cbr) {
            return err(p("do"), "set_interval needs a flow with app = \"telnet\", or \"cbr\" over TCP");
        }
        let interval_s = match (what == "set_interval", &a.interval) {
            (true, Some(q)) => exact_seconds(q, &p("interval"))?,
            (true, None) => return err(p("interval"), "is required with do = \"set_interval\""),
            (false, Some(_)) => return err(p("interval"), "is only allowed with do = \"set_interval\""),
            (false, None) => 0.0,
        };
        if tcp_cbr && what == "set_interval" && interval_s <= 0.0 {
            return err(p("interval"), "must be above 0 for a CBR source (its rate is packet_size·8/interval)");
        }
        let ftp = matches!(flows[flow].app, AppConfig::Ftp { .. });
        if what.starts_with("produce") && !ftp {
            return err(p("do"), format!("{what} needs an FTP flow"));
        }
        let ns2_tcp = matches!(&flows[flow].transport, Transport::Tcp(t) if t.profile == Profile::Ns2);
        if what.starts_with("reset") && !ns2_tcp {
            return err(p("do"), format!("{what} needs a TCP flow of the ns2 profile"));
        }
        // the senders whose reset is modelled: TcpAgent's, and Sack1's and Fack's scoreboards
        let resettable = matches!(&flows[flow].transport, Transport::Tcp(t) if !t.params.rbp && matches!(t.variant,
            TcpVariant::Tahoe | TcpVariant::Reno | TcpVariant::NewReno | TcpVariant::Sack1 | TcpVariant::Fack
            | TcpVariant::Rfc793edu));
        if what == "reset" && !resettable {
            return err(
                p("do"),
                "reset is modelled for tahoe, reno, newreno, sack1, fack and rfc793edu senders (without rbp)",
            );
        }
        let packets = match (what.starts_with("produce"), a.packets) {
            (true, Some(n)) if n >= 0 => n as u64,
            (true, Some(n)) => return err(p("packets"), format!("{n} is negative")),
            (true, None) => return err(p("packets"), format!("is required with do = {what:?}")),
            (false, Some(_)) => return err(p("packets"), "is only allowed with do = \"produce\" or \"producemore\""),
            (false, None) => 0,
        };
        let ns2_tcp = matches!(&flows[flow].transport, Transport::Tcp(t) if t.profile == Profile::Ns2);
        if what == "set_cwnd" && !ns2_tcp {
            return err(p("do"), "set_cwnd needs an ns-2 profile TCP flow");
        }
        let cwnd = match (what == "set_cwnd", a.cwnd) {
            (true, Some(n)) => int_in(n, 1, 1_000_000, &p("cwnd"))?,
            (true, None) => return err(p("cwnd"), "is required with do = \"set_cwnd\""),
            (false, Some(_)) => return err(p("cwnd"), "is only allowed with do = \"set_cwnd\""),
            (false, None) => 0,
        };
        let kind = match what {
            "set_cwnd" => ActionKind::SetCwnd { cwnd },
            "start" => ActionKind::Start,
            "stop" => ActionKind::Stop,
            "produce" => ActionKind::Produce { packets },
            "close" => ActionKind::Close,
            "advance_bytes" => ActionKind::AdvanceBytes { bytes },
            "producemore" => ActionKind::ProduceMore { packets },
            "reset" => ActionKind::Reset,
            "set_interval" => ActionKind::SetInterval { interval_s },
            _ => ActionKind::ResetSink,
        };
        user.push(Action { at, at_s, flow, end, kind });
    }
    let mut all = Vec::with_capacity(2 * flows.len() + user.len());
    for (i, f) in flows.iter().enumerate() {
        // A flow started by an action has no implicit start at 0.
        let started_by_action = user.iter().any(|a| {
            a.flow == i
                && a.end == End::From
                && matches!(a.kind, ActionKind::Start | ActionKind::Produce { .. } | ActionKind::AdvanceBytes { .. })
        });
        let exact = |q: &Option<Quantity>, field: &str, default: f64| -> Res<f64> {
            q.as_ref().map_or(Ok(default), |q| exact_seconds(q, &format!("flows[{i}].{field}")))
        };
        if raw_flows[i].start.is_some() || !started_by_action {
            let at_s = exact(&raw_flows[i].start, "start", 0.0)?;
            all.push(Action { at: f.start, at_s, flow: i, end: End::From, kind: ActionKind::Start });
        }
        if let Some(stop) = f.stop {
            let at_s = exact(&raw_flows[i].stop, "stop", 0.0)?;
            all.push(Action { at: stop, at_s, flow: i, end: End::From, kind: ActionKind::Stop });
        }
    }
    all.extend(user);
    Ok(all)
}

fn adjacency(n: usize, links: &[LinkConfig], wlans: &[crate::wifi::config::WlanConfig]) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); n];
    for l in links {
        adj[l.a].push(l.b);
        adj[l.b].push(l.a);
    }
    for w in wlans {
        for (a, b) in w.pairs() {
            adj[w.nodes[a]].push(w.nodes[b]);
        }
    }
    adj
}

fn reachable(adj: &[Vec<usize>], from: usize, to: usize) -> bool {
    let mut seen = vec![false; adj.len()];
    let mut queue = VecDeque::from([from]);
    seen[from] = true;
    while let Some(n) = queue.pop_front() {
        if n == to {
            return true;
        }
        for &m in &adj[n] {
            if !seen[m] {
                seen[m] = true;
                queue.push_back(m);
            }
        }
    }
    false
}
