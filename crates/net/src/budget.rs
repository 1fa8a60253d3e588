//! What a run will cost, estimated from its scenario before it starts, and the limits that
//! refuse a run far beyond the machine.
//!
//! The estimate is a fluid one. Each flow sends as fast as its window allows over its path's
//! round trip, no faster than its slowest link; where flows share a link (or a WLAN's air) and
//! ask for more than it carries, they split it in proportion. Every packet then costs events,
//! memory and trace bytes by what the model does with it. It is meant to tell a run of minutes
//! from one of days, or one that fits in memory from one that cannot: it errs on the high side,
//! and real runs (slow start, losses, Vegas keeping its window small) usually cost less.

use crate::options::RunOptions;
use crate::routing::Routes;
use crate::scenario::{
    ActionKind, AppConfig, FlowConfig, LossAction, LossAt, LossModel, Profile, Scenario, ScenarioError, Transport,
};
use crate::units::show_seconds;
use crate::wifi::phy::{ACK_BYTES, CTS_BYTES, RTS_BYTES};
use serde::Serialize;
use std::path::Path;

/// Runs estimated above this many events are refused: days of computing at the few million
/// events a second the engine dispatches.
pub const MAX_EVENTS: f64 = 1e12;

/// Events per wired hop: the arrival, and half the time the end of a transmission that others
/// wait for (measured on the benchmarks: 1.3 to 1.5).
const EVENTS_PER_HOP: f64 = 1.5;
/// Bytes an ACK takes on the wire.
const ACK_SIZE: u32 = 40;

/// Bytes of memory per recorded item, with room for the vector that holds it to have doubled.
const DELAY_BYTES: f64 = 8.0; // four bytes per delivered data packet (metrics::Delays)
const CWND_ROW_BYTES: f64 = 128.0; // time, flow name, cwnd, ssthresh
const RTT_ROW_BYTES: f64 = 112.0; // time, flow name, sample
const SERIES_VALUE_BYTES: f64 = 16.0; // one f64 column value of an interval sample

/// Bytes written per hop or item by each trace file (typical line lengths).
const NS2_LINE: f64 = 75.0; // three lines per hop: +, -, r
const NS2_WIRELESS_HOP: f64 = 600.0; // the agent, routing and MAC lines of a packet over the air
const NAM_LINE: f64 = 95.0; // four lines per hop: +, -, h, r
const PCAP_RECORD: f64 = 80.0; // record header and IP/TCP headers, per hop
const CWND_LINE: f64 = 45.0;

/// A run's estimated cost. Memory and disk come in named parts, largest first.
#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    pub duration_s: f64,
    pub data_packets: f64,
    pub acks: f64,
    /// Packets carried over a wired link direction, and frames over the air.
    pub link_hops: f64,
    pub radio_hops: f64,
    pub events: f64,
    /// The field that makes the events many ("duration", unless a timer can fire far more
    /// often than the traffic needs), and why, for messages.
    pub events_field: String,
    pub events_why: String,
    pub memory: Vec<Part>,
    pub disk: Vec<Part>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Part {
    pub what: &'static str,
    /// The scenario field that makes it grow, for messages.
    pub field: &'static str,
    pub bytes: f64,
}

impl Estimate {
    pub fn memory_bytes(&self) -> f64 {
        self.memory.iter().map(|p| p.bytes).sum()
    }

    pub fn disk_bytes(&self) -> f64 {
        self.disk.iter().map(|p| p.bytes).sum()
    }

    /// The estimate of `scenario` run with `opts` (its `until` and extra traces).
    pub fn of(scenario: &Scenario, opts: &RunOptions) -> Estimate {
        let end = opts.until.unwrap_or(scenario.duration).as_secs_f64();
        let traces = scenario.traces.union(opts.traces);
        let net = Fluid::new(scenario);
        let traced_link = |r: usize| match (&scenario.trace_links, net.ends.get(r)) {
            (Some(dirs), Some(&(a, b))) => dirs.contains(&(a, b)),
            (_, None) => false, // the air: wireless lines are counted apart
            (None, _) => true,
        };

        let demands: Vec<Demand> =
            scenario.flows.iter().enumerate().map(|(i, f)| Demand::of(scenario, &net, i, f, end)).collect();
        let sent = fair_shares(&demands, net.capacity.len(), end);
        let mut link_hops = 0.0;
        let mut radio_hops = 0.0;
        let mut traced_hops = 0.0;
        let (mut data_packets, mut acks, mut per_ack_rows) = (0.0, 0.0, 0.0);
        for (i, (d, &sent)) in demands.iter().zip(&sent).enumerate() {
            let sent = d.cap.map_or(sent, |cap| sent.min(cap));
            let acked = sent * d.acks_per_packet;
            data_packets += sent;
            acks += acked;
            if scenario.trace_flows.as_ref().is_none_or(|ids| ids.contains(&i)) {
                per_ack_rows += acked;
            }
            for (hops, packets) in [(&d.path, sent), (&d.back, acked)] {
                for &r in hops.iter() {
                    if net.is_radio(r) {
                        radio_hops += packets;
                    } else {
                        link_hops += packets;
                        if traced_link(r) {
                            traced_hops += packets;
                        }
                    }
                }
            }
        }
        // Senders whose timer is capped below their round trip: a timeout, and a segment sent,
        // every capped timeout, all along.
        let mut events_field = ("duration".to_string(), String::new());
        let mut worst_storm = 0.0;
        for (i, d) in demands.iter().enumerate() {
            let Some((rto, knob)) = d.early_timer else { continue };
            let timeouts = (d.to - d.from) / rto;
            data_packets += timeouts;
            link_hops += timeouts * d.path.iter().filter(|&&r| !net.is_radio(r)).count() as f64;
            radio_hops += timeouts * d.path.iter().filter(|&&r| net.is_radio(r)).count() as f64;
            if timeouts > worst_storm {
                worst_storm = timeouts;
                let why = format!("flow {:?}'s retransmission timer expires {} after a segment at the latest ({knob}), before its ACK can come back, so it times out again and again", scenario.flows[i].name, show_seconds(rto));
                events_field = (format!("flows[{i}].tcp.{knob}"), why);
            }
        }
        let air_events = radio_hops * net.events_per_radio_hop();
        // Timers that tick whatever the network carries: a CBR source's packets, sent even when
        // the first queue drops them, and a mobile node's beacon checks and, at worst (out of
        // every access point's range all along), its scans.
        let cbr_packets: f64 = scenario
            .flows
            .iter()
            .zip(&demands)
            .filter(|(f, _)| {
                matches!(f.app, AppConfig::Cbr { .. } | AppConfig::Exponential { .. } | AppConfig::Pareto { .. })
            })
            .map(|(_, d)| d.pps * (d.to - d.from))
            .sum();
        // and a Telnet's timer, whether or not its agent's window lets the packets go
        let telnet_timers: f64 = scenario
            .flows
            .iter()
            .zip(&demands)
            .filter_map(|(f, d)| match f.app {
                AppConfig::Telnet { interval_s, .. } if interval_s > 0.0 => Some((d.to - d.from) / interval_s),
                _ => None,
            })
            .sum();
        let mobile_checks: f64 =
            scenario.mobile_nodes.iter().map(|m| end / m.beacon_interval + end / m.l2_handoff).sum();

        let mut memory = vec![
            Part { what: "packet delays", field: "duration", bytes: DELAY_BYTES * data_packets },
            Part { what: "routing tables", field: "nodes", bytes: Routes::table_bytes(scenario.nodes.len()) },
            Part {
                what: "packets held by delay losses",
                field: "losses",
                bytes: HELD_PACKET_BYTES * held_by_delays(scenario, &demands, &sent, end),
            },
        ];
        memory.retain(|p| p.bytes > 0.0);
        let series = !opts.skip_series;
        if traces.cwnd && series {
            memory.push(Part { what: "cwnd series", field: "output.trace", bytes: CWND_ROW_BYTES * per_ack_rows });
        }
        if traces.rtt && series {
            memory.push(Part { what: "RTT samples", field: "output.trace", bytes: RTT_ROW_BYTES * per_ack_rows });
        }
        if let Some(interval) = scenario.interval.filter(|_| series) {
            let samples = end / interval.as_secs_f64();
            let flows = scenario.trace_flows.as_ref().map_or(scenario.flows.len(), Vec::len) as f64;
            let links = scenario.trace_links.as_ref().map_or(2 * scenario.links.len(), Vec::len) as f64;
            // per flow: goodput, delivered; per link: queue, in flight, utilisation; per TCP: five
            let columns = flows * (2.0 + 5.0) + links * 3.0;
            memory.push(Part {
                what: "interval series",
                field: "output.interval",
                bytes: samples * columns * SERIES_VALUE_BYTES,
            });
        }
        let mut disk = Vec::new();
        if traces.ns2 {
            let bytes = 3.0 * NS2_LINE * traced_hops + NS2_WIRELESS_HOP * radio_hops;
            disk.push(Part { what: "ns-2 trace", field: "output.trace", bytes });
        }
        if traces.nam {
            disk.push(Part { what: "NAM trace", field: "output.trace", bytes: 4.0 * NAM_LINE * traced_hops });
        }
        if traces.pcap {
            disk.push(Part { what: "pcap captures", field: "output.trace", bytes: PCAP_RECORD * traced_hops });
        }
        if traces.cwnd {
            disk.push(Part { what: "cwnd trace", field: "output.trace", bytes: CWND_LINE * per_ack_rows });
        }
        for parts in [&mut memory, &mut disk] {
            parts.sort_by(|a, b| b.bytes.total_cmp(&a.bytes));
        }
        Estimate {
            duration_s: end,
            data_packets,
            acks,
            link_hops,
            radio_hops,
            events: EVENTS_PER_HOP * link_hops + air_events + cbr_packets + telnet_timers + mobile_checks,
            events_field: events_field.0,
            events_why: events_field.1,
            memory,
            disk,
        }
    }

    /// Refuses a run far beyond `machine`: more events than [`MAX_EVENTS`], more memory than
    /// it has available, or trace files larger than its free disk. The error names the field
    /// that makes the run grow and says how to run it anyway. A timer that expires again and
    /// again (`events_why`) is named whichever limit its packets break.
    pub fn check(&self, machine: &Machine) -> Result<(), ScenarioError> {
        let anyway = "or run it anyway with --no-limits (Python: limits=False)";
        let refusal = self.beyond(machine, anyway);
        match (refusal, self.events_why.as_str()) {
            (Some(_), why) if !why.is_empty() => Err(ScenarioError::new(
                &self.events_field,
                format!(
                    "{why}: the run would take about {:.1e} events and {} of memory over {} simulated. Change that, {anyway}",
                    self.events,
                    bytes(self.memory_bytes()),
                    show_seconds(self.duration_s)
                ),
            )),
            (Some(e), _) => Err(e),
            (None, _) => Ok(()),
        }
    }

    /// The first limit of `machine` the run breaks, as its refusal.
    fn beyond(&self, machine: &Machine, anyway: &str) -> Option<ScenarioError> {
        if self.events > MAX_EVENTS {
            return Some(ScenarioError::new(
                "duration",
                format!(
                    "the run would take about {:.1e} events over {} simulated ({:.1e} packets): days of computing. Shorten it (duration, or --until), {anyway}",
                    self.events,
                    show_seconds(self.duration_s),
                    self.data_packets + self.acks
                ),
            ));
        }
        let over =
            |parts: &[Part], total: f64, have: Option<u64>, what: &str, has: &dyn Fn(String) -> String| match have {
                Some(have) if total > have as f64 => {
                    let largest = &parts[0];
                    let list = parts
                        .iter()
                        .filter(|p| p.bytes > 0.0)
                        .map(|p| format!("{} {}", p.what, bytes(p.bytes)))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let fix = match largest.field {
                        "duration" => "shorten the run (duration, or --until)",
                        "nodes" => "use fewer nodes (the table of routes grows with their square)",
                        "losses" => "hold fewer packets back (a shorter delay, or fewer packets picked)",
                        "output.interval" => "sample less often or fewer flows and links",
                        _ => "trace less (fewer traces, flows or links)",
                    };
                    Some(ScenarioError::new(
                        largest.field,
                        format!(
                            "the run would need about {} of {what} ({list}) and {}; {fix}, {anyway}",
                            bytes(total),
                            has(bytes(have as f64))
                        ),
                    ))
                }
                _ => None,
            };
        let memory = over(&self.memory, self.memory_bytes(), machine.memory, "memory", &|b| match machine.budget {
            true => format!("TCPLAB_MAX_MEMORY allows {b}"),
            false => format!("this machine has {b} available"),
        });
        memory.or_else(|| {
            over(&self.disk, self.disk_bytes(), machine.disk, "disk for its traces", &|b| {
                format!("the disk there has {b} free")
            })
        })
    }
}

/// One flow as the estimate sees it: its way there and back, and what it would send alone.
struct Demand {
    path: Vec<usize>,
    back: Vec<usize>,
    /// Seconds of each resource's time one data packet and its ACKs take.
    uses: Vec<(usize, f64)>,
    /// Packets a second: its window per round trip, or its CBR rate.
    pps: f64,
    /// When it sends, in seconds.
    from: f64,
    to: f64,
    /// Packets it has to send, when its application says.
    cap: Option<f64>,
    acks_per_packet: f64,
    /// A TCP sender's window: the most it has in the network at once.
    window: Option<f64>,
    /// A TCP sender whose retransmission timer is capped below its path's round trip times out
    /// again and again whatever the network does: its timeout, and the knob that caps it.
    early_timer: Option<(f64, &'static str)>,
}

impl Demand {
    fn of(scenario: &Scenario, net: &Fluid, i: usize, f: &FlowConfig, end: f64) -> Demand {
        let path = net.path(f.from, f.to);
        let back = net.path(f.to, f.from);
        let (mut early_timer, mut in_flight) = (None, None);
        let (size, pps, cap, acks_per_packet) = match (&f.transport, f.app) {
            (Transport::Tcp(t), app) => {
                let size = t.params.packet_size;
                let rtt = net.delay(&path, size) + net.delay(&back, ACK_SIZE);
                early_timer = Some(timer_cap(t)).filter(|&(rto, _)| rto < rtt);
                let window =
                    if t.params.max_cwnd > 0 { t.params.window.min(t.params.max_cwnd) } else { t.params.window };
                in_flight = Some(window as f64);
                let cap = match app {
                    AppConfig::Ftp { packets: Some(n) } if !adds_data(scenario, i) => Some(n as f64),
                    _ => None,
                };
                (size, window as f64 / rtt.max(1e-9), cap, if t.sink.delack.is_some() { 0.5 } else { 1.0 })
            }
            (Transport::Udp, AppConfig::Cbr { rate_bps, size, .. }) => {
                (size, rate_bps as f64 / (8.0 * size.max(1) as f64), None, 0.0)
            }
            // at most the burst rate
            (
                Transport::Udp,
                AppConfig::Exponential { rate_bps, size, .. } | AppConfig::Pareto { rate_bps, size, .. },
            ) => (size, rate_bps as f64 / (8.0 * size.max(1) as f64), None, 0.0),
            // refused by validation
            (Transport::Udp, AppConfig::Telnet { interval_s, size }) => (size, 1.0 / interval_s.max(1e-6), None, 0.0),
            // the trace's mean rate, in its packets
            (Transport::Udp, AppConfig::Trace { table, size }) => {
                let records = &scenario.traffic_traces[table];
                let gaps: f64 = records.iter().map(|&(gap, _)| gap as f64 * 1e-6).sum();
                (size, records.len() as f64 / gaps.max(1e-6), None, 0.0)
            }
            (Transport::Udp, AppConfig::Ftp { .. }) => (1000, 0.0, None, 0.0),
        };
        let mut uses: Vec<(usize, f64)> = Vec::new();
        for (hops, size, per_packet) in [(&path, size, 1.0), (&back, ACK_SIZE, acks_per_packet)] {
            for &r in hops.iter() {
                uses.push((r, per_packet * net.time(r, size)));
            }
        }
        let from = f.start.as_secs_f64().min(end);
        let to = f.stop.map_or(end, |s| s.as_secs_f64().min(end)).max(from);
        Demand { path, back, uses, pps, from, to, cap, acks_per_packet, window: in_flight, early_timer }
    }
}

/// The longest timeout a TCP sender's retransmission timer can take, and the knob that caps
/// it: `maxrto` (ns-2's agents then round it up to two clock ticks). Below the round trip, no
/// ACK can ever come in time; above it, the timer adapts to the round trip and sits above it.
fn timer_cap(t: &crate::scenario::TcpConfig) -> (f64, &'static str) {
    let p = &t.params;
    match t.profile {
        Profile::Ns2 => (p.maxrto.max(2.0 * p.tcp_tick), "maxrto"),
        Profile::Rfc => (p.maxrto, "maxrto"),
    }
}

/// Packets each flow sends over the run, when flows active together share each resource
/// max-min fairly (no flow gets more than its demand, and a resource is full before anyone
/// through it is held back). The run is cut where flows start and stop; cuts closer than a
/// hundredth of the run are merged, and a flow active in part of a merged piece competes in
/// all of it.
fn fair_shares(demands: &[Demand], resources: usize, end: f64) -> Vec<f64> {
    let mut cuts: Vec<f64> = demands.iter().flat_map(|d| [d.from, d.to]).chain([0.0, end]).collect();
    cuts.sort_by(f64::total_cmp);
    let mut kept: Vec<f64> = Vec::new();
    for c in cuts {
        if kept.last().is_none_or(|&last| c - last >= end / 100.0) {
            kept.push(c);
        }
    }
    if let Some(last) = kept.last_mut() {
        *last = last.max(end);
    }
    let mut sent = vec![0.0; demands.len()];
    for piece in kept.windows(2) {
        let (a, b) = (piece[0], piece[1]);
        let active: Vec<usize> =
            (0..demands.len()).filter(|&f| demands[f].from < b && demands[f].to > a && demands[f].pps > 0.0).collect();
        for (f, rate) in max_min(demands, &active, resources) {
            sent[f] += rate * (demands[f].to.min(b) - demands[f].from.max(a));
        }
    }
    sent
}

/// Max-min fair rates (packets a second) of the `active` flows by progressive filling: all
/// rates grow together until a resource is full or a flow has what it asks, which then stop.
fn max_min(demands: &[Demand], active: &[usize], resources: usize) -> Vec<(usize, f64)> {
    let mut rate = vec![0.0; active.len()];
    let mut growing: Vec<usize> = (0..active.len()).collect();
    let mut used = vec![0.0f64; resources];
    let mut growth = vec![0.0f64; resources];
    while !growing.is_empty() {
        growth.iter_mut().for_each(|g| *g = 0.0);
        for &k in &growing {
            for &(r, u) in &demands[active[k]].uses {
                growth[r] += u;
            }
        }
        let full = (0..resources).filter(|&r| growth[r] > 0.0).map(|r| (1.0 - used[r]).max(0.0) / growth[r]);
        let wants = growing.iter().map(|&k| demands[active[k]].pps - rate[k]);
        let step = full.chain(wants).fold(f64::INFINITY, f64::min).max(0.0);
        for &k in &growing {
            rate[k] += step;
            for &(r, u) in &demands[active[k]].uses {
                used[r] += step * u;
            }
        }
        let saturated = |r: usize| used[r] >= 1.0 - 1e-9;
        growing.retain(|&k| {
            rate[k] < demands[active[k]].pps * (1.0 - 1e-9)
                && !demands[active[k]].uses.iter().any(|&(r, _)| saturated(r))
        });
    }
    active.iter().copied().zip(rate).collect()
}

/// Bytes a packet held back by a `delay` loss takes: its slot in the pool and its event, twice
/// over for the vectors that hold them to have doubled.
const HELD_PACKET_BYTES: f64 = 2.0 * (std::mem::size_of::<crate::packet::Packet>() + 48) as f64;

/// How many packets the scenario's `delay` losses hold back at once: each picks its share of
/// what enters its link direction (offered, for CBR sources, as they send whatever the queue
/// drops) and holds each for its delay; a TCP flow no more than its window of segments and
/// their ACKs.
fn held_by_delays(scenario: &Scenario, demands: &[Demand], sent: &[f64], end: f64) -> f64 {
    let mut held = 0.0;
    for loss in &scenario.losses {
        let (LossAction::Delay { delay }, LossAt::Link { link }) = (loss.action, &loss.at) else { continue };
        let picked = match &loss.model {
            LossModel::List { packets } => {
                held += packets.len() as f64; // each counted at most once
                continue;
            }
            LossModel::Uniform { rate } => *rate,
            LossModel::Ber { ber, .. } => 1.0 - (1.0 - ber).powf(8.0 * 1500.0),
            LossModel::Multistate { states, .. } => states.iter().map(|s| s.rate).fold(0.0, f64::max),
            LossModel::Gilbert { p_good_bad, p_bad_good, loss_good, loss_bad } => {
                let bad = p_good_bad / (p_good_bad + p_bad_good).max(f64::MIN_POSITIVE);
                bad * loss_bad + (1.0 - bad) * loss_good
            }
            LossModel::Periodic { period, burst, .. } => ((*burst).max(1) as f64 / (*period).max(1) as f64).min(1.0),
        };
        for (i, (d, f)) in demands.iter().zip(&scenario.flows).enumerate() {
            if !loss.fids.is_empty() && !loss.fids.contains(&f.fid) {
                continue;
            }
            let pps =
                if matches!(f.app, AppConfig::Cbr { .. } | AppConfig::Exponential { .. } | AppConfig::Pareto { .. }) {
                    d.pps
                } else {
                    sent[i] / (d.to - d.from).max(1e-9)
                };
            let crossing = d.path.contains(link) as u8 as f64 + d.acks_per_packet * d.back.contains(link) as u8 as f64;
            let flow_held = pps * crossing * picked * delay.as_secs_f64().min(end);
            held += d.window.map_or(flow_held, |w| flow_held.min(w * crossing));
        }
    }
    held
}

/// True if an action of the scenario gives flow `i` more to send than its own `packets`.
fn adds_data(scenario: &Scenario, i: usize) -> bool {
    scenario
        .actions
        .iter()
        .any(|a| a.flow == i && matches!(a.kind, ActionKind::Produce { .. } | ActionKind::ProduceMore { .. }))
}

/// The estimate of `scenario` run with `opts`, or the refusal of a run far beyond this machine
/// (see [`Estimate::check`]); nothing is refused when `opts.no_limits` is set.
/// `Simulation::new` calls it, and keeps the estimate for its guard (crate::guard).
pub fn enforce(scenario: &Scenario, opts: &RunOptions) -> Result<Estimate, ScenarioError> {
    let estimate = Estimate::of(scenario, opts);
    if !opts.no_limits {
        estimate.check(&Machine::probe(opts.out_dir.as_deref())?)?;
    }
    Ok(estimate)
}

/// What this machine can give a run, where it can tell.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Machine {
    /// Bytes of memory available: the kernel's MemAvailable, the container's limit, and the
    /// user's own budget (`TCPLAB_MAX_MEMORY`, e.g. "8GB"), whichever is least.
    pub memory: Option<u64>,
    /// The memory is the user's budget rather than what the machine has.
    pub budget: bool,
    /// Bytes free on the disk of the output folder.
    pub disk: Option<u64>,
}

impl Machine {
    /// What this machine has; an error names `TCPLAB_MAX_MEMORY` when it is set (not empty)
    /// to something other than a size.
    pub fn probe(out_dir: Option<&Path>) -> Result<Machine, ScenarioError> {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let meminfo = read("/proc/meminfo").and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
            Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
        });
        // cgroup v2: the limit less what the group already uses
        let cgroup = read("/sys/fs/cgroup/memory.max").and_then(|max| {
            let max = max.trim().parse::<u64>().ok()?;
            let used = read("/sys/fs/cgroup/memory.current").and_then(|u| u.trim().parse::<u64>().ok()).unwrap_or(0);
            Some(max.saturating_sub(used))
        });
        let budget = match std::env::var("TCPLAB_MAX_MEMORY") {
            Err(std::env::VarError::NotPresent) => None,
            Ok(v) if v.trim().is_empty() => None,
            Ok(v) => Some(crate::units::parse_size(v.trim()).map_err(|m| ScenarioError::new("TCPLAB_MAX_MEMORY", m))?),
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(ScenarioError::new("TCPLAB_MAX_MEMORY", "is not text"))
            }
        };
        let memory = [meminfo, cgroup, budget].into_iter().flatten().min();
        Ok(Machine { memory, budget: budget.is_some() && memory == budget, disk: out_dir.and_then(free_disk) })
    }
}

/// Bytes free for an unprivileged user on the file system that holds `dir`, or the nearest
/// folder above it that exists.
fn free_disk(dir: &Path) -> Option<u64> {
    let dir = std::path::absolute(dir).ok()?;
    let existing = dir.ancestors().find(|d| d.exists())?;
    let path = std::ffi::CString::new(existing.as_os_str().as_encoded_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `stat` a buffer of the type statvfs fills;
    // it is read only when the call succeeds.
    let stat = unsafe {
        if libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) != 0 {
            return None;
        }
        stat.assume_init()
    };
    Some(stat.f_bavail as u64 * stat.f_frsize as u64)
}

/// The network as resources packets use: each wired link direction (ids as the simulation
/// numbers them) and then each WLAN's air, with what they carry and how long a packet takes.
struct Fluid<'a> {
    scenario: &'a Scenario,
    /// (from, to) node of each wired link direction.
    ends: Vec<(usize, usize)>,
    /// Bits per second of a wired direction; unused (0) for the air.
    capacity: Vec<f64>,
    edges: Vec<(usize, usize)>,
    /// The edges leaving each node.
    outgoing: Vec<Vec<u32>>,
    /// For each edge of the routing graph, the resource it uses.
    resource_of_edge: Vec<usize>,
}

impl<'a> Fluid<'a> {
    fn new(scenario: &'a Scenario) -> Fluid<'a> {
        let mut ends = Vec::new();
        let mut capacity = Vec::new();
        for l in &scenario.links {
            for (a, b) in [(l.a, l.b), (l.b, l.a)] {
                ends.push((a, b));
                capacity.push(l.bandwidth_bps as f64);
            }
        }
        let mut edges = ends.clone();
        let mut resource_of_edge: Vec<usize> = (0..ends.len()).collect();
        for (w, cfg) in scenario.wlans.iter().enumerate() {
            let air = ends.len() + w;
            for (a, b) in cfg.pairs() {
                edges.push((cfg.nodes[a], cfg.nodes[b]));
                resource_of_edge.push(air);
            }
            capacity.push(0.0);
        }
        let mut outgoing = vec![Vec::new(); scenario.nodes.len()];
        for (i, &(from, _)) in edges.iter().enumerate() {
            outgoing[from].push(i as u32);
        }
        Fluid { scenario, ends, capacity, edges, outgoing, resource_of_edge }
    }

    /// The resources a packet from `from` to `to` uses, in order, along a path of fewest hops.
    /// Where several are equally short, the run may take another of them (crate::routing
    /// settles ties as ns-2 does, in a table that grows with the square of the nodes): the
    /// estimate follows one breadth-first search, in time and memory that grow with the
    /// network.
    fn path(&self, from: usize, to: usize) -> Vec<usize> {
        let mut reached_by = vec![u32::MAX; self.scenario.nodes.len()]; // the edge that got there first
        let mut level = vec![from];
        while reached_by[to] == u32::MAX && !level.is_empty() {
            let mut below = Vec::new();
            for &v in &level {
                for &e in &self.outgoing[v] {
                    let w = self.edges[e as usize].1;
                    if reached_by[w] == u32::MAX && w != from {
                        reached_by[w] = e;
                        below.push(w);
                    }
                }
            }
            level = below;
        }
        let mut path = Vec::new();
        let mut at = to;
        while at != from && reached_by[at] != u32::MAX {
            let e = reached_by[at] as usize;
            path.push(self.resource_of_edge[e]);
            at = self.edges[e].0;
        }
        if at != from {
            return Vec::new(); // no way there (validation rules it out)
        }
        path.reverse();
        path
    }

    fn is_radio(&self, r: usize) -> bool {
        r >= self.ends.len()
    }

    /// How long resource `r` is busy with a packet of `size` bytes, propagation aside.
    fn time(&self, r: usize, size: u32) -> f64 {
        if !self.is_radio(r) {
            return size as f64 * 8.0 / self.capacity[r];
        }
        // DIFS, the mean first backoff, then RTS, CTS, the frame and its ACK, SIFS apart
        let cfg = &self.scenario.wlans[r - self.ends.len()];
        let t = &cfg.timing;
        let rts = if cfg.rts_before(size) { t.control(RTS_BYTES) + t.control(CTS_BYTES) + 2.0 * t.sifs } else { 0.0 };
        t.difs() + cfg.cw_min as f64 / 2.0 * t.slot + rts + t.data(size) + t.sifs + t.control(ACK_BYTES)
    }

    /// One-way delay of a packet of `size` bytes along `path`: transmission and propagation.
    fn delay(&self, path: &[usize], size: u32) -> f64 {
        path.iter()
            .map(|&r| {
                self.time(r, size) + if self.is_radio(r) { 0.0 } else { self.scenario.links[r / 2].delay.as_secs_f64() }
            })
            .sum()
    }

    /// Events per packet sent over the air: each of the four frames of an exchange ends at its
    /// sender and starts and ends at every other radio of the WLAN, plus the MAC's timers.
    fn events_per_radio_hop(&self) -> f64 {
        let radios = self.scenario.wlans.iter().map(|w| w.nodes.len()).max().unwrap_or(0) as f64;
        4.0 * (1.0 + 2.0 * (radios - 1.0).max(1.0)) + 4.0
    }
}

/// `bytes` for people: "512 B", "3.1 MB", "41 GB".
fn bytes(b: f64) -> String {
    match b {
        b if b < 1e3 => format!("{b:.0} B"),
        b if b < 1e6 => format!("{:.1} kB", b / 1e3),
        b if b < 1e9 => format!("{:.1} MB", b / 1e6),
        b if b < 1e12 => format!("{:.1} GB", b / 1e9),
        b => format!("{:.1} TB", b / 1e12),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Format;
    use crate::Simulation;
    use std::path::Path;
    use tcplab_des::Time;

    fn shipped(path: &str) -> Scenario {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path);
        let text = std::fs::read_to_string(&path).expect("shipped scenario");
        Scenario::parse_from(&text, Format::Toml, &path.display().to_string()).expect("valid")
    }

    /// `n` flows from their own hosts over one 10 Mb/s, 10 ms bottleneck, for `secs`.
    fn dumbbell(n: usize, secs: u32, extra: &str) -> Scenario {
        let mut t = format!("name = \"d{n}\"\nduration = \"{secs}s\"\nnodes = [\"r1\", \"r2\"");
        for i in 0..n {
            t += &format!(", \"s{i}\", \"d{i}\"");
        }
        t += "]\n[[links]]\nfrom = \"r1\"\nto = \"r2\"\nbandwidth = \"10Mb\"\ndelay = \"10ms\"\n";
        for i in 0..n {
            t += &format!("[[links]]\nfrom = \"s{i}\"\nto = \"r1\"\nbandwidth = \"100Mb\"\ndelay = \"1ms\"\n");
            t += &format!("[[links]]\nfrom = \"r2\"\nto = \"d{i}\"\nbandwidth = \"100Mb\"\ndelay = \"1ms\"\n");
            t += &format!("[[flows]]\nfrom = \"s{i}\"\nto = \"d{i}\"\nprotocol = \"newreno\"\n");
        }
        Scenario::parse_from(&(t + extra), Format::Toml, "dumbbell").expect("valid")
    }

    fn run(scenario: &Scenario, until: Option<Time>) -> (f64, f64) {
        let opts = RunOptions { until, ..RunOptions::default() };
        let r = Simulation::new(scenario.clone(), &opts).and_then(|s| s.finish()).expect("runs");
        (r.events as f64, r.summary.flows.iter().map(|f| f.packets_delivered as f64).sum())
    }

    #[test]
    fn wired_estimates_are_close_to_the_runs() {
        // S1's two dumbbells, S2's three Vegas flows in turn (10 s), the satellite's shared link
        for (path, secs) in [
            ("scenarios/yew2011-wired/ee-reno.toml", 100),
            ("scenarios/yew2011-wired/ee-vegas.toml", 100),
            ("scenarios/sharma2013/dumbbell.toml", 10),
            ("scenarios/elsadig2014/shared-fack-gaps2.toml", 100),
        ] {
            let s = shipped(path);
            let until = Time::from_secs(secs);
            let e = Estimate::of(&s, &RunOptions { until: Some(until), ..RunOptions::default() });
            let (events, delivered) = run(&s, Some(until));
            let (ev, pk) = (e.events / events, e.data_packets / delivered);
            assert!((0.8..1.6).contains(&ev), "{path}: estimated {:.3e} events, ran {events:.3e}", e.events);
            assert!(
                (0.8..1.6).contains(&pk),
                "{path}: estimated {:.3e} packets, delivered {delivered:.3e}",
                e.data_packets
            );
        }
    }

    /// What ticks regardless of the network: a CBR source far faster than its link (every
    /// packet is an event, most of them drops), and a mobile node's beacon checks.
    #[test]
    fn timers_count_whatever_the_links_carry() {
        let mut cbr = dumbbell(
            1,
            2,
            "[[flows]]\nfrom = \"s0\"\nto = \"d0\"\nprotocol = \"udp\"\nrate = \"1Gb\"\npacket_size = \"1000B\"\n",
        );
        let e = Estimate::of(&cbr, &RunOptions::default());
        let (events, _) = run(&cbr, None);
        assert!(
            e.events >= 2.5e5 && (0.8..1.6).contains(&(e.events / events)),
            "estimated {:.3e}, ran {events:.3e}",
            e.events
        );
        cbr.duration = Time::from_secs(10_000_000);
        assert!(Estimate::of(&cbr, &RunOptions::default()).events > 1e12, "refused long before it would end");
        let mut handover = shipped("scenarios/yew2011-handover/vegas.toml");
        let before = Estimate::of(&handover, &RunOptions::default()).events;
        handover.mobile_nodes[0].beacon_interval = 1e-12;
        assert!(Estimate::of(&handover, &RunOptions::default()).events > before + 1e13, "a check every picosecond");
    }

    #[test]
    fn wireless_estimates_err_high() {
        for path in ["scenarios/wifi/download.toml", "scenarios/yew2013-enhanced/thesis-6.toml"] {
            let s = shipped(path);
            let e = Estimate::of(&s, &RunOptions::default());
            let (events, _) = run(&s, None);
            assert!(e.radio_hops > 0.0, "{path}: its packets cross the air");
            assert!(
                (1.0..6.0).contains(&(e.events / events)),
                "{path}: estimated {:.3e} events, ran {events:.3e}",
                e.events
            );
        }
    }

    #[test]
    fn flows_sharing_a_bottleneck_split_it() {
        // one flow or fifty with windows that could fill it, the bottleneck carries 10 Mb/s of
        // 1000-byte packets
        let wide = "[tcp]\nwindow = 1000\n";
        let one = Estimate::of(&dumbbell(1, 100, wide), &RunOptions::default());
        let fifty = Estimate::of(&dumbbell(50, 100, wide), &RunOptions::default());
        let full = 10e6 / 8000.0 * 100.0;
        assert!((one.data_packets / full - 1.0).abs() < 0.01, "{}", one.data_packets);
        assert!((fifty.data_packets / full - 1.0).abs() < 0.01, "{}", fifty.data_packets);
        // three hops there and back for every packet
        assert!((fifty.link_hops / (6.0 * full) - 1.0).abs() < 0.01);
        // ns-2's default window of 20 asks for less than the link: 20 packets per round trip of
        // propagation (24 ms) and serialisation (1000 B twice at 100 Mb/s, once at 10 Mb/s, and
        // the ACK's 40 B likewise)
        let rtt = 0.024 + 8000.0 * (2.0 / 100e6 + 1.0 / 10e6) + 320.0 * (2.0 / 100e6 + 1.0 / 10e6);
        let default = Estimate::of(&dumbbell(1, 100, ""), &RunOptions::default());
        assert!((default.data_packets / (20.0 / rtt * 100.0) - 1.0).abs() < 1e-9, "{}", default.data_packets);
    }

    #[test]
    fn memory_and_disk_grow_with_what_is_kept() {
        let s = dumbbell(2, 100, "");
        let plain = Estimate::of(&s, &RunOptions::default());
        assert_eq!(plain.memory.iter().map(|p| p.what).collect::<Vec<_>>(), ["packet delays", "routing tables"]);
        assert!(plain.disk.is_empty());
        let traces = crate::scenario::Traces { ns2: true, cwnd: true, pcap: true, ..Default::default() };
        let traced = Estimate::of(&s, &RunOptions { traces, ..RunOptions::default() });
        assert_eq!(traced.memory[0].what, "cwnd series", "the cwnd series outweighs the delays");
        assert_eq!(
            traced.disk.iter().map(|p| p.what).collect::<Vec<_>>(),
            ["ns-2 trace", "pcap captures", "cwnd trace"]
        );
        assert!(traced.disk_bytes() > 100.0 * plain.data_packets);
        // a runner that collects no series (tcplab-sim) still writes the cwnd trace file
        let unseries = Estimate::of(&s, &RunOptions { traces, skip_series: true, ..RunOptions::default() });
        assert_eq!(unseries.memory.iter().map(|p| p.what).collect::<Vec<_>>(), ["packet delays", "routing tables"]);
        assert_eq!(unseries.disk.len(), 3);
    }

    /// The table of routes has a route from every node to every other: 20,000 nodes take
    /// 1.6 GB. The estimate itself follows the flows' paths only, in memory that grows with
    /// the network.
    #[test]
    fn routing_tables_grow_with_the_square_of_the_nodes() {
        let n = 20_000;
        let mut t = String::from("duration = \"1s\"\nnodes = [");
        t += &(0..n).map(|i| format!("\"n{i}\"")).collect::<Vec<_>>().join(", ");
        t += "]\n";
        for i in 1..n {
            t += &format!("[[links]]\nfrom = \"n{}\"\nto = \"n{i}\"\nbandwidth = \"1Gb\"\ndelay = \"1us\"\n", i - 1);
        }
        t += &format!("[[flows]]\nfrom = \"n0\"\nto = \"n{}\"\nprotocol = \"reno\"\n", n - 1);
        let s = Scenario::parse_from(&t, Format::Toml, "chain").expect("valid");
        let e = Estimate::of(&s, &RunOptions::default());
        let table = e.memory.iter().find(|p| p.what == "routing tables").expect("counted");
        assert_eq!(table.bytes, 4.0 * (n as f64).powi(2));
        assert!(e.link_hops > 100.0 * (n - 1) as f64, "the flow crosses every link: {:.1e}", e.link_hops);
        let small = Machine { memory: Some(1 << 30), disk: None, budget: false };
        let refused = e.check(&small).unwrap_err();
        assert_eq!(refused.path, "nodes", "{refused}");
        assert!(refused.message.contains("routing tables 1.6 GB"), "{refused}");
    }

    /// A `delay` loss holds what it picks for its delay: a CBR source's 1,250 packets a second
    /// (10 Mb/s of 1000 B), all picked and held 10 s, are 12,500 packets held at once.
    #[test]
    fn packets_held_by_delay_losses_are_counted() {
        let cbr =
            "[[flows]]\nfrom = \"s0\"\nto = \"d0\"\nprotocol = \"udp\"\nrate = \"10Mb\"\npacket_size = \"1000B\"\n";
        let held = |delay: &str| {
            let s = dumbbell(1, 100, &format!("{cbr}[[losses]]\nlink = \"r1->r2\"\nflows = [\"flow1\"]\nmodel = \"uniform\"\nrate = 1.0\naction = \"delay\"\ndelay = \"{delay}\"\n"));
            let e = Estimate::of(&s, &RunOptions::default());
            e.memory.iter().find(|p| p.what == "packets held by delay losses").map_or(0.0, |p| p.bytes)
        };
        assert!((held("10s") / HELD_PACKET_BYTES / 12_500.0 - 1.0).abs() < 0.01, "{}", held("10s") / HELD_PACKET_BYTES);
        assert!((held("100s") / held("10s") - 10.0).abs() < 0.01);
        // a TCP flow (window 20) held 100 s: its window, not its rate times 100 s
        let s = dumbbell(
            1,
            100,
            "[[losses]]\nlink = \"r1->r2\"\nmodel = \"uniform\"\nrate = 1.0\naction = \"delay\"\ndelay = \"100s\"\n",
        );
        let e = Estimate::of(&s, &RunOptions::default());
        let tcp = e.memory.iter().find(|p| p.what == "packets held by delay losses").unwrap().bytes / HELD_PACKET_BYTES;
        assert_eq!(tcp, 20.0);
    }

    #[test]
    fn runs_beyond_the_machine_are_refused_naming_the_field() {
        let s = dumbbell(2, 100, "");
        let roomy = Machine { memory: Some(1 << 40), disk: Some(1 << 40), budget: false };
        let plain = Estimate::of(&s, &RunOptions::default());
        assert!(plain.check(&roomy).is_ok());
        assert!(plain.check(&Machine::default()).is_ok(), "nothing is refused for want of knowing");

        let tight = Machine { memory: Some(1000), disk: Some(1000), budget: false };
        let e = plain.check(&tight).unwrap_err();
        assert_eq!(e.path, "duration");
        assert!(e.message.contains("packet delays") && e.message.contains("--no-limits"), "{}", e.message);

        let traces = crate::scenario::Traces { cwnd: true, ..Default::default() };
        let e = Estimate::of(&s, &RunOptions { traces, ..RunOptions::default() }).check(&tight).unwrap_err();
        assert_eq!(e.path, "output.trace");

        let traces = crate::scenario::Traces { ns2: true, ..Default::default() };
        let roomy_memory = Machine { memory: Some(1 << 40), disk: Some(1000), budget: false };
        let e = Estimate::of(&s, &RunOptions { traces, ..RunOptions::default() }).check(&roomy_memory).unwrap_err();
        assert_eq!(e.path, "output.trace");
        assert!(e.message.contains("disk"), "{}", e.message);

        let days = Estimate::of(
            &shipped("bench/s3-dumbbell.toml"),
            &RunOptions { until: Some(Time::from_secs(10_000_000)), ..RunOptions::default() },
        );
        let e = days.check(&roomy).unwrap_err();
        assert!(e.path == "duration" && e.message.contains("events"), "{e}");
    }

    #[test]
    fn no_limits_runs_anyway() {
        // S3 for 10^7 s: more events than the limit, whatever the machine
        let s = shipped("bench/s3-dumbbell.toml");
        let until = Some(Time::from_secs(10_000_000));
        let e = enforce(&s, &RunOptions { until, ..RunOptions::default() }).unwrap_err();
        assert!(e.message.contains("events"), "{e}");
        assert!(enforce(&s, &RunOptions { until, no_limits: true, ..RunOptions::default() }).is_ok());
    }
}
