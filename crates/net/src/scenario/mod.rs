//! Scenarios: load TOML or JSON, check every field, and produce a validated `Scenario`.
//!
//! See docs/scenarios.md for the format. Every error carries the path of the field it is about
//! (`links[2].bandwidth`) and a one-line message; nothing here panics on bad input.

mod algorithms;
mod fields;
mod fulltcp;
mod raw;
pub(crate) mod suggest;
mod validate;
mod wireless;

use serde::Serialize;
use std::fmt;
use tcplab_cc::{FastConfig, PacingConfig, VegasConfig};
use tcplab_des::Time;

pub use crate::ids::End;

pub use crate::loss::{LossAction, LossAt, LossConfig, LossModel, LossState};
pub use crate::queue::{DropTailParams, QueueConfig, QueueKind, RedParams};
use crate::units::{opt_secs, secs};
pub use validate::{check_seed, validate};

/// A scenario's or a sweep's name as one harmless path component, for its default results
/// folder: names are free text, and one must never lead a write outside `results/`. Each run
/// of characters other than ASCII letters, digits, `.`, `_` and `-` becomes one `_`, and `_` at
/// either end goes; `default` stands in for a name that leaves nothing, `.` or `..`.
pub fn folder_name(name: &str, default: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut replacing = false;
    for c in name.chars() {
        let kept = c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if kept || !replacing {
            out.push(if kept { c } else { '_' });
        }
        replacing = !kept;
    }
    match out.trim_matches('_') {
        "" | "." | ".." => default.to_string(),
        safe => safe.to_string(),
    }
}

/// A scenario error: the field path and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for ScenarioError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

impl Scenario {
    /// Parses and validates a scenario written in `format`.
    pub fn parse(text: &str, format: Format) -> Result<Scenario, ScenarioError> {
        Self::parse_from(text, format, "scenario")
    }

    /// As `parse`, for text read from `source` (a file name): errors about the document as a
    /// whole name the file, and the scenario's name defaults to the file's stem.
    pub fn parse_from(text: &str, format: Format, source: &str) -> Result<Scenario, ScenarioError> {
        let raw = match format {
            Format::Toml => parse_toml(text, source)?,
            Format::Json => parse_json(text, source)?,
        };
        let stem = std::path::Path::new(source).file_stem().and_then(|s| s.to_str()).unwrap_or(source);
        validate(raw, stem)
    }

    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        Self::parse(text, Format::Toml)
    }

    /// The scenario as tcplab understands it, as JSON: every default filled in, node references
    /// as ids (positions in `nodes`), times in seconds, rates in bit/s, sizes in bytes.
    pub fn normalized_json(&self) -> String {
        serde_json::to_string(self).expect("scenarios serialise")
    }
}

/// serde's path ("links[2].bandwidth") or, for the document itself, its source.
fn path_or(path: &serde_path_to_error::Path, source: &str) -> String {
    let p = path.to_string();
    if p == "." || p.is_empty() {
        source.to_string()
    } else {
        p
    }
}

/// serde messages end with "at line 3 column 5" for JSON and are multi-line for TOML; keep one line.
fn one_line(message: &str) -> String {
    message.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The line and column (both from 1, the column in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (before.matches('\n').count() + 1, before[line_start..].chars().count() + 1)
}

fn parse_toml(text: &str, source: &str) -> Result<raw::RawScenario, ScenarioError> {
    let de = toml::Deserializer::new(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = path_or(e.path(), source);
        let inner = e.into_inner();
        let mut message = suggest::unknown_field(&one_line(inner.message()));
        if let Some(span) = inner.span() {
            let (line, col) = line_col(text, span.start);
            message = format!("{message} (line {line}, column {col})");
        }
        ScenarioError::new(path, message)
    })
}

fn parse_json(text: &str, source: &str) -> Result<raw::RawScenario, ScenarioError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let raw: raw::RawScenario = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        // A syntax error is about the document, not a field (serde's path would end in "?").
        let inner = e.inner();
        let path = if inner.is_syntax() || inner.is_eof() { source.to_string() } else { path_or(e.path(), source) };
        ScenarioError::new(path, suggest::unknown_field(&one_line(&inner.to_string())))
    })?;
    de.end().map_err(|e| ScenarioError::new(source, one_line(&e.to_string())))?;
    Ok(raw)
}

/// A validated scenario: names resolved to ids, quantities in integer units.
#[derive(Debug, Clone, Serialize)]
pub struct Scenario {
    pub name: String,
    #[serde(rename = "duration_s", serialize_with = "secs")]
    pub duration: Time,
    pub seed: u64,
    pub rng: RngMode,
    pub nodes: Vec<String>,
    pub links: Vec<LinkConfig>,
    /// 802.11b LANs.
    pub wlans: Vec<crate::wifi::config::WlanConfig>,
    /// Each node's ns-2 hierarchical address (domain, cluster, node) when the WLANs have base
    /// stations: `[addresses]`, or tcplab's own (`wireless::addresses`). None: flat addresses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addresses: Option<Vec<[u32; 3]>>,
    /// Node movements, and the mobile nodes that run Mobile IPv6.
    pub moves: Vec<crate::mobility::path::Move>,
    /// ns-2's God's hop counts (`$god_ set-dist`), which the wireless trace prints.
    pub set_dist: Vec<crate::god::SetDist>,
    pub mobile_nodes: Vec<crate::mobility::config::MobileConfig>,
    pub flows: Vec<FlowConfig>,
    /// ns-2's `Agent/TCP` class variables: the `[tcp]` table over ns-2's defaults. An agent on
    /// a node with a radio keeps the reset they gave it at its creation (`$ns run` resets the
    /// agents of wired nodes only). Serialised as the knobs that differ from ns-2's defaults.
    #[serde(serialize_with = "class_changes", skip_serializing_if = "is_class_default")]
    pub tcp_class: TcpParams,
    pub losses: Vec<LossConfig>,
    /// Times a link direction sends nothing (ns-2's Delayer).
    pub delay_spikes: Vec<DelaySpike>,
    /// Nodes with a radio reset mid-run (ns-2's `$node reset`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resets: Vec<NodeReset>,
    /// `Agent/PBC`s on the nodes of `802_11Ext` WLANs (crate::pbc).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pbc: Vec<crate::pbc::config::PbcAgent>,
    /// The records of the trace-driven sources (`AppConfig::Trace`): (gap in microseconds,
    /// bytes), as ns-2's trace files hold them.
    pub traffic_traces: Vec<Vec<(u32, u32)>>,
    /// What the applications do and when, in the order ns-2 would schedule it: each flow's own
    /// start and stop (in flow order), then the scenario's `actions`.
    pub actions: Vec<Action>,
    pub traces: Traces,
    /// Trace only these link directions (from, to node ids), as ns-2's `trace-queue` does;
    /// None traces every link (`trace-all`).
    pub trace_links: Option<Vec<(usize, usize)>>,
    /// Sample and trace only these flows (ids) in the series, the cwnd trace and the RTT
    /// samples; None: all of them.
    pub trace_flows: Option<Vec<usize>>,
    /// How the ns-2 trace writes wireless events.
    pub wireless_format: crate::trace::WirelessFormat,
    /// Write ns-2's `x` line at the end of each frame's transmission (`-eotTrace ON`).
    pub eot_trace: bool,
    /// Write the wireless trace's AGT lines (false: ns-2's `-agentTrace OFF`).
    pub agent_trace: bool,
    /// Write a DSDV agent's sends, receipts and forwards (`s`/`r`/`f RTR`; false: ns-2's
    /// `-routerTrace OFF`, which keeps its drops, `D RTR`).
    pub router_trace: bool,
    /// Write the wireless trace's MAC lines (false: ns-2's `-macTrace OFF`).
    pub mac_trace: bool,
    /// Write the PHY lines of `802_11Ext` radios (`s`/`D PHY`; true: ns-2's `-phyTrace ON`).
    pub phy_trace: bool,
    /// The IP version of pcap captures (IPv6 when there are mobile nodes).
    pub pcap_ip: crate::pcap::IpVersion,
    /// Sample each flow's goodput and each link's queue at every multiple of this interval.
    #[serde(rename = "interval_s", serialize_with = "opt_secs")]
    pub interval: Option<Time>,
    /// Real hosts, for emulation (crate::emu); a simulation leaves them out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostConfig>,
}

/// A real Linux host in emulation: a network namespace `tl-NAME`, joined by a veth pair to the
/// simulated node `node`, with `address` and a default route via `gateway` (the node).
#[derive(Debug, Clone, Serialize)]
pub struct HostConfig {
    pub name: String,
    pub node: usize,
    #[serde(serialize_with = "display")]
    pub address: crate::emu::frame::Prefix,
    pub gateway: std::net::Ipv4Addr,
    /// An IPv6 address too, and its gateway (the node, which answers neighbour solicitations).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address6: Option<crate::emu::frame::Prefix6>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gateway6: Option<std::net::Ipv6Addr>,
    pub run: Vec<HostRun>,
}

/// A command run with `sh -c` in a host's namespace, from `start` on.
#[derive(Debug, Clone, Serialize)]
pub struct HostRun {
    pub command: String,
    #[serde(rename = "start_s", serialize_with = "secs")]
    pub start: Time,
}

fn display<T: fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// ns-2's `Delayer` on a link direction, blocked at `at_s` for `length_s` seconds
/// (`$delayer block`, then `$ns after length "$delayer unblock"`): no packet starts to cross
/// the link meanwhile; the queue holds them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DelaySpike {
    /// The link direction (2 * link + 0 for from->to, + 1 for to->from).
    pub link: usize,
    /// The exact doubles ns-2 schedules on.
    pub at_s: f64,
    pub length_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NodeReset {
    pub node: usize,
    /// The time as the exact double given (ns-2 schedules `$ns at` on it).
    pub at_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Action {
    #[serde(skip)]
    pub at: Time,
    /// The time as the exact double given (ns-2 schedules `$ns at` on it).
    pub at_s: f64,
    pub flow: usize,
    /// Whose agent acts (`to`: a FullTcp flow's peer).
    #[serde(serialize_with = "end_name")]
    pub end: End,
    #[serde(flatten)]
    pub kind: ActionKind,
}

fn is_class_default(p: &TcpParams) -> bool {
    *p == TcpParams::default()
}

/// The class variables that differ from ns-2's defaults (the translator writes them as
/// `Agent/TCP set`).
fn class_changes<S: serde::Serializer>(p: &TcpParams, s: S) -> Result<S::Ok, S::Error> {
    let (Ok(serde_json::Value::Object(mine)), Ok(serde_json::Value::Object(defaults))) =
        (serde_json::to_value(p), serde_json::to_value(TcpParams::default()))
    else {
        unreachable!("TcpParams serialise as maps")
    };
    let changed: serde_json::Map<String, serde_json::Value> =
        mine.into_iter().filter(|(k, v)| defaults.get(k) != Some(v)).collect();
    serde::Serialize::serialize(&changed, s)
}

fn end_name<S: serde::Serializer>(end: &End, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match end {
        End::From => "from",
        End::To => "to",
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum ActionKind {
    /// The application starts: FTP sends its backlog (or `packets`), CBR starts sending.
    Start,
    /// FTP sends no new data (`advance 0`), CBR stops.
    Stop,
    /// FTP `produce n`: send up to n packets in all.
    Produce { packets: u64 },
    /// FTP `producemore n`: n packets more.
    #[serde(rename = "producemore")]
    ProduceMore { packets: u64 },
    /// FullTcp `close`: send a FIN once the data is out.
    Close,
    /// FullTcp `advance-bytes n`: n bytes more to send.
    #[serde(rename = "advance_bytes")]
    AdvanceBytes { bytes: u64 },
    /// `$tcp set cwnd_ n` on an ns-2 profile TCP sender.
    #[serde(rename = "set_cwnd")]
    SetCwnd { cwnd: u32 },
    /// The ns-2 sender's `reset`: a fresh connection state, timers cancelled, and ACKs sent
    /// before now ignored (ns-2 agents only).
    Reset,
    /// The sink's `reset`: nothing received yet, and segments sent before now ignored.
    #[serde(rename = "reset_sink")]
    ResetSink,
    /// Telnet `set interval_`: the mean interval from the next packet's draw on.
    SetInterval { interval_s: f64 },
}

impl Traces {
    /// The writers `output.trace` and `--trace` name.
    pub const NAMES: [&'static str; 5] = ["ns2", "cwnd", "pcap", "nam", "rtt"];

    /// Turns on the writer called `name` (one of `NAMES`); false if none is.
    pub fn enable(&mut self, name: &str) -> bool {
        match name {
            "ns2" => self.ns2 = true,
            "cwnd" => self.cwnd = true,
            "pcap" => self.pcap = true,
            "nam" => self.nam = true,
            "rtt" => self.rtt = true,
            _ => return false,
        }
        true
    }

    /// Every writer either asks for.
    pub fn union(self, o: Traces) -> Traces {
        Traces {
            ns2: self.ns2 || o.ns2,
            cwnd: self.cwnd || o.cwnd,
            tcp_header: self.tcp_header || o.tcp_header,
            events: self.events || o.events,
            pcap: self.pcap || o.pcap,
            nam: self.nam || o.nam,
            rtt: self.rtt || o.rtt,
        }
    }
}

/// Where random numbers come from (see `random.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RngMode {
    /// ns-2's one default generator, drawn in ns-2's order: reproduces ns-2 exactly.
    Ns2,
    /// A stream per component from (seed, component name).
    Streams,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Traces {
    /// ns-2 wired trace of every link (`trace.tr`).
    pub ns2: bool,
    /// ns-2 cwnd trace of every TCP sender (`cwnd.tr`) and the cwnd time series.
    pub cwnd: bool,
    /// Add the TCP header fields to the wired trace (ns-2 `Trace set show_tcphdr_ 1`).
    pub tcp_header: bool,
    /// TCP congestion events in the wired trace (ns-2 `$ns eventtrace-all`).
    pub events: bool,
    /// pcap capture of every traced link (`pcap/FROM-TO.pcap`).
    pub pcap: bool,
    /// NAM trace of the wired links (`trace.nam`, ns-2's `namtrace-all`).
    pub nam: bool,
    /// Every RTT sample of the TCP senders, as a series.
    pub rtt: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct LinkConfig {
    #[serde(rename = "from")]
    pub a: usize,
    #[serde(rename = "to")]
    pub b: usize,
    pub bandwidth_bps: u64,
    #[serde(rename = "delay_s", serialize_with = "secs")]
    pub delay: Time,
    /// The from->to direction's queue; to->from has the same but for its limit (and its RED
    /// parameters, if `reverse_red`).
    pub queue: QueueConfig,
    /// ns-2 `limit_` of the to->from direction (`$ns queue-limit to from n`).
    pub reverse_limit: u32,
    /// The to->from direction's RED parameters where they differ (`$redq set ...` on one queue).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverse_red: Option<RedParams>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FlowConfig {
    pub name: String,
    /// ns-2's `fid_` (defaults to the flow's position in the list).
    pub fid: u32,
    pub from: usize,
    pub to: usize,
    #[serde(flatten)]
    pub transport: Transport,
    #[serde(flatten)]
    pub app: AppConfig,
    #[serde(rename = "start_s", serialize_with = "secs")]
    pub start: Time,
    /// None: runs until the end of the simulation.
    #[serde(rename = "stop_s", serialize_with = "opt_secs")]
    pub stop: Option<Time>,
    /// A UDP flow's agent `packetSize_`, where it is below the source's packet size: each
    /// message goes as packets of this size and one of the rest (ns-2's `Agent/UDP` `sendmsg`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub udp_packet_size: Option<u32>,
    /// The ports of the sending and the receiving agent where the scenario gives them (ns-2's
    /// `$node attach $agent $port`); None takes the node's lowest free port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_port: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_port: Option<u32>,
}

/// The ports of each flow's two agents: on each node, in the order the agents are attached
/// (each flow's sender, then its sink), the port a flow gives, or else the lowest one free (ns-2's
/// `Classifier::getnxt`). Err names the flow and end (`"from"` or `"to"`) whose port is taken.
pub fn agent_ports(flows: &[FlowConfig], nodes: usize) -> Result<Vec<[u32; 2]>, (usize, &'static str, u32)> {
    let mut taken: Vec<Vec<u32>> = vec![Vec::new(); nodes];
    let mut ports = Vec::with_capacity(flows.len());
    for (i, f) in flows.iter().enumerate() {
        let mut pair = [0; 2];
        for (k, (node, given, end)) in [(f.from, f.from_port, "from"), (f.to, f.to_port, "to")].into_iter().enumerate()
        {
            let used = &mut taken[node];
            let port = match given {
                Some(p) if used.contains(&p) => return Err((i, end, p)),
                Some(p) => p,
                None => (0..).find(|p| !used.contains(p)).expect("a free port"),
            };
            used.push(port);
            pair[k] = port;
        }
        ports.push(pair);
    }
    Ok(ports)
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "transport", rename_all = "lowercase")]
pub enum Transport {
    Tcp(Box<TcpConfig>),
    Udp,
}

/// One TCP flow's sender and sink.
#[derive(Debug, Clone, Serialize)]
pub struct TcpConfig {
    pub variant: TcpVariant,
    pub profile: Profile,
    pub sink: SinkConfig,
    /// The sender's knobs (the rfc profile reads only some of them, see docs/scenarios.md).
    pub params: TcpParams,
    /// The rfc profile's Vegas and its enhancements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vegas: Option<VegasConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fast: Option<FastConfig>,
    /// Pacing of new segments (either profile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pacing: Option<PacingConfig>,
    /// A FullTcp flow's two agents: the `from` end's FullTcp variables, and the `to` end's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full: Option<Box<FullConfig>>,
    /// The modern sender's mechanisms (the rfc profile's reno, cubic, bbr and dctcp).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modern: Option<ModernConfig>,
    /// The rfc profile's Linux-like receiver in place of the ns-2 sink (`sink = "linux"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver: Option<ReceiverConfig>,
}

/// The switches of the rfc profile's modern sender (`tcp::rfc::modern`), Linux's defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModernConfig {
    /// RACK's time-based loss detection (RFC 8985 §6; Linux's `tcp_recovery` 1).
    pub rack: bool,
    /// Tail loss probes (RFC 8985 §7; Linux's `tcp_early_retrans` 3).
    pub tlp: bool,
    /// Pace a controller that sets no rate of its own at Linux's default rate, as the fq qdisc
    /// makes Linux do (BBR paces always).
    pub fq_pacing: bool,
    /// Seed of BBR's random first phase of PROBE_BW; None: the flow's own, drawn from the run's
    /// seed and its name (each Linux connection draws its own).
    pub seed: Option<u64>,
    /// Open with SYN, SYN-ACK and ACK before the data, as Linux does; false: data from time 0.
    pub handshake: bool,
}

impl Default for ModernConfig {
    fn default() -> Self {
        ModernConfig { rack: true, tlp: true, fq_pacing: false, seed: None, handshake: true }
    }
}

/// The two ends of a FullTcp flow. The `from` end's Agent/TCP variables are the flow's `params`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FullConfig {
    pub from: FullParams,
    pub to: FullParams,
    /// The `to` end's Agent/TCP variables.
    pub to_params: TcpParams,
    /// The `to` end listens for the `from` end's SYN (else both ends open actively).
    pub listen: bool,
}

/// ns-2's `Agent/TCP/FullTcp` variables of one agent (ns-default.tcl's defaults, with the
/// Tahoe, Newreno and Sack classes' own: `FullParams::of`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FullParams {
    /// Bytes of data in a full segment (`segsize_`, the MSS; 0: packet_size less the headers).
    pub segsize: u32,
    /// ACK every this many full segments (`segsperack_`)...
    pub segsperack: u32,
    /// ...once this many bytes have come in; before, every segment (`spa_thresh_`, 0: off).
    pub spa_thresh: u32,
    /// Duplicate ACKs that start a fast retransmit (`tcprexmtthresh_`).
    pub tcprexmtthresh: u32,
    /// Initial sequence number (`iss_`).
    pub iss: i32,
    /// No Nagle (`nodelay_`).
    pub nodelay: bool,
    /// Data on the first SYN (`data_on_syn_`).
    pub data_on_syn: bool,
    /// A duplicate segment's ACK is not a duplicate ACK (`dupseg_fix_`).
    pub dupseg_fix: bool,
    /// A data segment with an old ACK ends fast recovery (`dupack_reset_`).
    pub dupack_reset: bool,
    /// The delayed-ACK timer's period in seconds (`interval_`, 0: ACK at once).
    #[serde(rename = "interval_s")]
    pub interval: f64,
    /// Header bytes of the timestamp option (`ts_option_size_`).
    pub ts_option_size: u32,
    /// Inflate the window by one per duplicate ACK past the threshold (`reno_fastrecov_`).
    pub reno_fastrecov: bool,
    /// Send by the pipe estimate, not the window (`pipectrl_`).
    pub pipectrl: bool,
    /// Open cwnd on a partial ACK (`open_cwnd_on_pack_`).
    pub open_cwnd_on_pack: bool,
    /// A received FIN does not close this end too (`halfclose_`).
    pub halfclose: bool,
    /// No header prediction (`nopredict_`).
    pub nopredict: bool,
    /// ECN-capable SYN/ACKs (`ecn_syn_`) and what a marked one does (`ecn_syn_wait_` 0, 1, 2).
    pub ecn_syn: bool,
    pub ecn_syn_wait: u32,
    /// Newreno: the burst limit during recovery (`recov_maxburst_`).
    pub recov_maxburst: u32,
    /// Sack: forget the SACKed blocks on a timeout (`clear_on_timeout_`).
    pub clear_on_timeout: bool,
    /// Sack: the option's sizes (`sack_block_size_`, `sack_option_size_`) and blocks per ACK
    /// (`max_sack_blocks_`).
    pub sack_block_size: u32,
    pub sack_option_size: u32,
    pub max_sack_blocks: u32,
    /// Sack: when a hole is retransmitted (`sack_rtx_threshmode_` 0..4, with the block count and
    /// byte thresholds `sack_rtx_cthresh_`, `sack_rtx_bthresh_`).
    pub sack_rtx_cthresh: i32,
    pub sack_rtx_bthresh: i32,
    pub sack_rtx_threshmode: u32,
}

impl Default for FullParams {
    /// `Agent/TCP/FullTcp`'s (and its subclasses' class variables) in ns-default.tcl.
    fn default() -> Self {
        FullParams {
            segsize: 536,
            segsperack: 1,
            spa_thresh: 0,
            tcprexmtthresh: 3,
            iss: 0,
            nodelay: false,
            data_on_syn: false,
            dupseg_fix: true,
            dupack_reset: false,
            interval: 0.1,
            ts_option_size: 10,
            reno_fastrecov: true,
            pipectrl: false,
            open_cwnd_on_pack: true,
            halfclose: false,
            nopredict: false,
            ecn_syn: false,
            ecn_syn_wait: 0,
            recov_maxburst: 2,
            clear_on_timeout: true,
            sack_block_size: 8,
            sack_option_size: 2,
            max_sack_blocks: 3,
            sack_rtx_cthresh: 1,
            sack_rtx_bthresh: 1,
            sack_rtx_threshmode: 1,
        }
    }
}

impl FullParams {
    /// What a new agent of `variant` holds once its class's `init` has run: Tahoe and Sack
    /// turn off window inflation, Newreno and Sack opening cwnd on partial ACKs.
    pub fn of(variant: TcpVariant, class: &FullParams) -> FullParams {
        let mut p = class.clone();
        if matches!(variant, TcpVariant::FullTahoe | TcpVariant::FullSack) {
            p.reno_fastrecov = false;
        }
        if matches!(variant, TcpVariant::FullNewReno | TcpVariant::FullSack) {
            p.open_cwnd_on_pack = false;
        }
        p
    }
}

/// Which behaviour a TCP sender follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// ns-2.35's agents, exactly.
    Ns2,
    /// The RFCs (5681, 6582, 6298, 3168) with a congestion controller from `tcplab_cc`.
    Rfc,
}

impl Profile {
    /// Its name in scenarios and summaries.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Ns2 => "ns2",
            Profile::Rfc => "rfc",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TcpVariant {
    Tahoe,
    Reno,
    NewReno,
    /// ns-2 `Agent/TCP/Sack1`.
    Sack1,
    /// ns-2 `Agent/TCP/Fack`.
    Fack,
    /// ns-2 `Agent/TCP/SackRH` (SACK with rate-halving).
    SackRh,
    /// ns-2 `Agent/TCP/RFC793edu`: RFC 793's TCP with the later mechanisms as `add793*` knobs.
    Rfc793edu,
    /// ns-2 `Agent/TCP/Vegas`, or the rfc profile's Vegas.
    Vegas,
    /// FAST TCP (rfc profile only).
    Fast,
    /// Linux's CUBIC (RFC 9438 with HyStart) on the modern sender (rfc profile only).
    Cubic,
    /// Linux's BBR v1 on the modern sender (rfc profile only).
    Bbr,
    /// Linux's DCTCP (RFC 8257) on the modern sender (rfc profile only).
    Dctcp,
    /// ns-2 `Agent/TCP/FullTcp`: two-way TCP with the handshake, Reno-style recovery.
    #[serde(rename = "fulltcp")]
    Full,
    /// ns-2 `Agent/TCP/FullTcp/Tahoe`.
    #[serde(rename = "fulltcp_tahoe")]
    FullTahoe,
    /// ns-2 `Agent/TCP/FullTcp/Newreno`.
    #[serde(rename = "fulltcp_newreno")]
    FullNewReno,
    /// ns-2 `Agent/TCP/FullTcp/Sack`.
    #[serde(rename = "fulltcp_sack")]
    FullSack,
    /// ns-2 `Agent/TCP/Linux`: Linux congestion-control modules (`TcpParams::ca`).
    Linux,
}

impl TcpVariant {
    pub fn name(self) -> &'static str {
        match self {
            TcpVariant::Tahoe => "tahoe",
            TcpVariant::Reno => "reno",
            TcpVariant::NewReno => "newreno",
            TcpVariant::Sack1 => "sack1",
            TcpVariant::Fack => "fack",
            TcpVariant::SackRh => "sackrh",
            TcpVariant::Rfc793edu => "rfc793edu",
            TcpVariant::Vegas => "vegas",
            TcpVariant::Fast => "fast",
            TcpVariant::Cubic => "cubic",
            TcpVariant::Bbr => "bbr",
            TcpVariant::Dctcp => "dctcp",
            TcpVariant::Full => "fulltcp",
            TcpVariant::FullTahoe => "fulltcp_tahoe",
            TcpVariant::FullNewReno => "fulltcp_newreno",
            TcpVariant::FullSack => "fulltcp_sack",
            TcpVariant::Linux => "linux",
        }
    }

    /// One of ns-2's two-way FullTcp agents.
    pub fn is_full(self) -> bool {
        matches!(self, TcpVariant::Full | TcpVariant::FullTahoe | TcpVariant::FullNewReno | TcpVariant::FullSack)
    }

    /// The sink ns-2 pairs with it by convention (SACK senders need a SACK sink).
    pub fn default_sink(self) -> &'static str {
        match self {
            TcpVariant::Sack1 | TcpVariant::Fack | TcpVariant::SackRh | TcpVariant::Linux => "sack1",
            _ => "tcpsink",
        }
    }
}

/// The congestion control an `Agent/TCP/Linux` sender runs (its `select_ca`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinuxCa {
    NaiveReno,
    Reno,
    Vegas,
    Htcp,
    Bic,
    Cubic,
    Hybla,
    Lp,
    Compound,
    Veno,
    Yeah,
    Illinois,
    Westwood,
    Highspeed,
    Scalable,
}

impl LinuxCa {
    pub const ALL: [LinuxCa; 15] = [
        LinuxCa::NaiveReno,
        LinuxCa::Reno,
        LinuxCa::Vegas,
        LinuxCa::Htcp,
        LinuxCa::Bic,
        LinuxCa::Cubic,
        LinuxCa::Hybla,
        LinuxCa::Lp,
        LinuxCa::Compound,
        LinuxCa::Veno,
        LinuxCa::Yeah,
        LinuxCa::Illinois,
        LinuxCa::Westwood,
        LinuxCa::Highspeed,
        LinuxCa::Scalable,
    ];

    /// The name ns-2's `select_ca` takes.
    pub fn name(self) -> &'static str {
        match self {
            LinuxCa::NaiveReno => "naive_reno",
            LinuxCa::Reno => "reno",
            LinuxCa::Vegas => "vegas",
            LinuxCa::Htcp => "htcp",
            LinuxCa::Bic => "bic",
            LinuxCa::Cubic => "cubic",
            LinuxCa::Hybla => "hybla",
            LinuxCa::Lp => "lp",
            LinuxCa::Compound => "compound",
            LinuxCa::Veno => "veno",
            LinuxCa::Yeah => "yeah",
            LinuxCa::Illinois => "illinois",
            LinuxCa::Westwood => "westwood",
            LinuxCa::Highspeed => "highspeed",
            LinuxCa::Scalable => "scalable",
        }
    }
}

/// ns-2's `Agent/TCPSink` family: `.../Sack1` adds SACK blocks, `.../DelAck` delays ACKs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SinkConfig {
    pub sack: bool,
    /// The delayed-ACK `interval_`; None ACKs every segment.
    #[serde(rename = "delack_interval_s", serialize_with = "opt_secs")]
    pub delack: Option<Time>,
    /// A delayed-ACK sink ACKs seqno 0 at once (`SYN_immediate_ack_`).
    pub syn_immediate_ack: bool,
    /// A delayed-ACK sink ACKs a segment that fills a gap at once (`RFC2581_immediate_ack_`).
    pub rfc2581_immediate_ack: bool,
    /// Echo timestamps by RFC 1323's rule (`ts_echo_rfc1323_`).
    pub ts_echo_rfc1323: bool,
    /// Make the ACK that agrees to ECN (the SYN's) ECN-capable (`ecn_syn_`).
    pub ecn_syn: bool,
}

/// How the receiver echoes congestion experienced (CE) to the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EcnEcho {
    /// No ECN: ECE is never set.
    Off,
    /// RFC 3168 §6.1.3: ECE on every ACK from a CE-marked segment until a segment with CWR.
    Rfc3168,
    /// RFC 8257 §3.2: ECE on exactly the ACKs of CE-marked segments.
    Dctcp,
}

/// The rfc profile's Linux-like receiver (tcp/rfc/receiver.rs), `sink = "linux"`: its behaviour, each with Linux's default (`ReceiverConfig::linux`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ReceiverConfig {
    /// ACK at once when this many segments are unacknowledged; 1 ACKs every segment. Linux
    /// ACKs when more than one full-sized segment is unacknowledged: 2.
    pub ack_every: u32,
    /// The delayed-ACK timeout (ATO) starts here and never goes below it (TCP_ATO_MIN, 40 ms).
    pub ato_min_s: f64,
    /// A delayed ACK waits at most this long (TCP_DELACK_MAX, 200 ms).
    pub delack_max_s: f64,
    /// Quick-ACK mode ACKs every segment, at most this many times in a row (TCP_MAX_QUICKACKS,
    /// 16); 0 turns it off.
    pub max_quickacks: u32,
    /// The advertised window in segments: quick-ACK mode lasts rcv_wnd/2 ACKs, at least 2.
    pub rcv_wnd: u32,
    /// The receiver's own RTO: a gap in data longer than this starts quick-ACK mode again, and a
    /// missed delayed ACK doubles the ATO up to it. Linux's is TCP_TIMEOUT_INIT, 1 s, until the
    /// receiver has an RTT sample of its own (without a handshake it has none).
    pub rto_s: f64,
    /// Report SACK blocks (RFC 2018): 3 with timestamps, 4 without (the packet carries 3).
    /// Negotiated: Linux sends none (and compresses no ACKs) to a sender without SACK.
    pub sack: bool,
    /// Report duplicates in a D-SACK block (RFC 2883).
    pub dsack: bool,
    /// SACK compression (Linux 4.20 on): after 3 ACKs at one left edge, the ACKs of further
    /// out-of-order data are held min(this, RTT/20) (tcp_comp_sack_delay_ns, 1 ms), the RTT
    /// being the smaller of the handshake's and the receiver's estimate from the echoes of its
    /// timestamps (with neither, this alone), at most `sack_compress_nr` of them
    /// (tcp_comp_sack_nr, 44; 0 turns it off).
    pub sack_compress_s: f64,
    pub sack_compress_nr: u32,
    /// Echo timestamps (RFC 7323); without them an ACK echoes nothing (NaN).
    pub timestamps: bool,
    pub ecn: EcnEcho,
}

impl ReceiverConfig {
    /// Linux's defaults (SACK, D-SACK and timestamps on, ECN off) for a window of `rcv_wnd`.
    pub fn linux(rcv_wnd: u32) -> ReceiverConfig {
        ReceiverConfig {
            ack_every: 2,
            ato_min_s: 0.04,
            delack_max_s: 0.2,
            max_quickacks: 16,
            rcv_wnd,
            rto_s: 1.0,
            sack: true,
            dsack: true,
            sack_compress_s: 0.001,
            sack_compress_nr: 44,
            timestamps: true,
            ecn: EcnEcho::Off,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "app", rename_all = "lowercase")]
pub enum AppConfig {
    /// FTP: unlimited backlog, or `packets` segments (ns-2 `produce n`).
    Ftp { packets: Option<u64> },
    /// Constant bit rate: `size` bytes every size*8/rate seconds, each interval dithered by
    /// up to half of itself either way when `random` (ns-2's `random_ 1`), `packets` messages
    /// at most (ns-2's `maxpkts_`; None: its default, 2^28).
    Cbr { rate_bps: u64, size: u32, random: bool, packets: Option<u64> },
    /// ns-2's `Application/Telnet`: a packet at exponential intervals of mean `interval_s`,
    /// or (0) at tcplib's telnet interarrival times; over UDP each is `size` bytes (the agent's
    /// `packetSize_`), over TCP one segment.
    Telnet { interval_s: f64, size: u32 },
    /// ns-2's `Application/Traffic/Trace`: the gaps and sizes of `Scenario::traffic_traces`
    /// entry `table`, from a random record on; over UDP, messages beyond `size` bytes (the
    /// agent's `packetSize_`) go as several packets.
    Trace { table: usize, size: u32 },
    /// ns-2's `Application/Traffic/Exponential` over UDP: bursts of `size`-byte packets at
    /// `rate_bps`, exponentially many packets (mean `burst_time_s` at the rate), exponential
    /// idle times between them (mean `idle_time_s`).
    Exponential { size: u32, rate_bps: u64, burst_time_s: f64, idle_time_s: f64 },
    /// ns-2's `Application/Traffic/Pareto`: as Exponential, with Pareto bursts and idle
    /// times of this `shape`.
    Pareto { size: u32, rate_bps: u64, burst_time_s: f64, idle_time_s: f64, shape: f64 },
}

/// The ns-2 knobs of one TCP sender. Times are seconds as doubles because ns-2's RTT estimator
/// works in double arithmetic and the ns-2 profile reproduces it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TcpParams {
    pub packet_size: u32,
    pub window: u32,
    pub window_init: u32,
    pub window_init_option: u32,
    pub syn: bool,
    pub delay_growth: bool,
    pub max_cwnd: u32,
    pub maxburst: u32,
    pub tcp_tick: f64,
    pub rtxcur_init: f64,
    pub minrto: f64,
    pub maxrto: f64,
    pub srtt_init: f64,
    pub rttvar_init: f64,
    pub numdupacks: u32,
    pub singledup: bool,
    pub bug_fix: bool,
    pub precision_reduce: bool,
    pub ecn: bool,
    pub timestamps: bool,
    pub slow_start_restart: bool,
    pub decrease_num: f64,
    pub increase_num: f64,
    pub newreno_changes: bool,
    pub newreno_changes1: bool,
    pub partial_window_deflation: bool,
    pub exit_recovery_fix: bool,
    /// Sack1: send a segment on every partial ACK.
    pub partial_ack: bool,
    /// Add the TCP/IP header size to data packets (`useHeaders_`).
    pub use_headers: bool,
    /// Sack1: the dupack threshold is max(numdupacks, int(cwnd) / numdupacks_frac) (-1: off).
    pub numdupacks_frac: i32,
    /// Tahoe: no fast retransmit at all (`noFastRetrans_`).
    pub no_fast_retrans: bool,
    /// `bugfix_ss_`: a fast retransmit is allowed when the first data packet is lost, and a
    /// lost first packet drops the initial window to 1.
    pub bugfix_ss: bool,
    /// `timerfix_`: restart the retransmission timer after the RTT update, not before.
    pub timerfix: bool,
    /// `rfc2988_`: clamp the RTO to minrto before backing off.
    pub rfc2988: bool,
    /// `old_ecn_`: keep opening cwnd during a burst of ECN-echoes.
    pub old_ecn: bool,
    /// `max_connects_`: how many SYNs a one-way sender sends before it gives the connection
    /// up (0 or less: no limit).
    pub max_connects: i32,
    /// The RTT estimator's fixed point (`T_SRTT_BITS`, `T_RTTVAR_BITS`) and `rttvar_exp_`.
    pub srtt_bits: u32,
    pub rttvar_bits: u32,
    pub rttvar_exp: u32,
    /// Newreno: allow a fast retransmit when the ACK reaches exactly `recover` (`lessCareful_`).
    pub less_careful: bool,
    /// Newreno: the `bugFix_ack_` and `bugFix_ts_` heuristics for a new fast retransmit.
    pub bug_fix_ack: bool,
    pub bug_fix_ts: bool,
    /// Fack: halve cwnd again on entering recovery from slow start (`ss-div4_`).
    pub ss_div4: bool,
    /// Fack: ramp the window down during recovery.
    pub rampdown: bool,
    /// Vegas: keep between alpha and beta packets queued; leave slow start above gamma
    /// (ns-2's `v_alpha_`, `v_beta_`, `v_gamma_`, integers).
    pub v_alpha: i32,
    pub v_beta: i32,
    pub v_gamma: i32,
    /// Rate-based pacing after idle periods (ns-2's `Agent/TCP/Vegas/RBP`, `Agent/TCP/Reno/RBP`):
    /// the paced window is `rbp_scale` times Vegas's measured rate times its RTT
    /// (`rbp_rate_algorithm` 1) or times cwnd (2, and always for Reno).
    pub rbp: bool,
    pub rbp_scale: f64,
    pub rbp_rate_algorithm: u32,
    pub tcpip_base_hdr_size: u32,
    /// ns-2's `windowOption_`: 1, the standard increase of `increase_num`/cwnd per ACK, or 8,
    /// HighSpeed TCP (RFC 3649) with the response function set by `low_window`,
    /// `high_window`, `high_p` and `high_decrease`.
    pub window_option: u32,
    pub low_window: i32,
    pub high_window: i32,
    pub high_p: f64,
    pub high_decrease: f64,
    /// HighSpeed TCP: keep the last increase while cwnd stays within this many packets of the
    /// window it was computed for (0: compute it afresh on each ACK).
    pub cwnd_range: i32,
    /// Limited Slow-Start (RFC 3742): the initial ssthresh is at most this, and above it the
    /// window grows by at most max_ssthresh/2 per RTT until the first cut (0: off).
    pub max_ssthresh: i32,
    /// F-RTO (RFC 4138, ns-2's `frto_enabled_`): after a timeout, send new data on the first new
    /// ACK and call the timeout spurious if the next ACK is new too (Tahoe, Reno, Newreno, Sack1).
    pub frto: bool,
    /// ns-2's `sfrto_enabled_`: arms F-RTO just as `frto` does, and in Sack1 also judges a
    /// duplicate ACK during F-RTO by its SACK blocks (SACK-based F-RTO).
    pub sfrto: bool,
    /// ns-2's `spurious_response_`, the window after a spurious timeout: 2 the halved
    /// ssthresh, 3 one segment, anything else (1) the data outstanding before the ACK.
    pub spurious_response: i32,
    /// The initial ssthresh, as ns-2's `ssthresh_` set after `$ns run` has reset the agent
    /// (0: the reset's own, window_).
    pub ssthresh: i32,
    /// An old ACK (below the highest one) may send new data too (`aggressive_maxburst_`).
    pub aggressive_maxburst: bool,
    /// Reno, Newreno: dupacks inflate the window only during fast recovery, not after a
    /// timeout (`exitFastRetrans_`).
    pub exit_fast_retrans: bool,
    /// A timestamp's RTT sample ends the timer backoff (`ts_resetRTO_`).
    pub ts_reset_rto: bool,
    /// `Agent/TCP/Linux`'s congestion control (`select_ca`).
    pub ca: LinuxCa,
    /// TCP-Linux's `sysctl_tcp_abc`: Appropriate Byte Counting, 0 off, 1 (L = 1 segment), 2.
    pub tcp_abc: u32,
    /// TCP-Linux's `tcp_max_burst`: how far above the flight the window may stay when
    /// recovery ends.
    pub tcp_max_burst: u32,
    /// RFC793edu (`add793*_`, its defaults ns-2's): exponential backoff of the timer, Jacobson's
    /// RTO (else RFC 793's twice the smoothed RTT), fast retransmit, slow start with congestion
    /// avoidance, congestion avoidance alone, Karn's sampling (no RTT sample from a
    /// retransmission), and a jump to ssthresh below it. Without the window knobs cwnd is
    /// window_ at once.
    pub add793expbackoff: bool,
    pub add793jacobsonrtt: bool,
    pub add793fastrtx: bool,
    pub add793slowstart: bool,
    pub add793additiveinc: bool,
    pub add793karnrtt: bool,
    pub add793exponinc: bool,
    /// `overhead_`: each burst of new segments waits a random delay, uniform in [0, overhead)
    /// seconds, drawn from ns-2's generator (0: none).
    pub overhead: f64,
    /// TCP quiescence (ns-2's `QOption_`): after an idle or application-limited RTO (or, with
    /// `rtt_counter`, two RTTs counted), cut the window as RFC 2861 says.
    pub qoption: bool,
    /// `EnblRTTCtr_`: with `qoption`, count RTTs by the ACKs of timed segments, not by RTOs.
    pub rtt_counter: bool,
    /// `control_increase_`: open cwnd only on ACKs of a window the sender filled.
    pub control_increase: bool,
}

impl Default for TcpParams {
    /// ns-2.35's defaults (`tcl/lib/ns-default.tcl`), Newreno's included.
    fn default() -> Self {
        TcpParams {
            packet_size: 1000,
            window: 20,
            window_init: 2,
            window_init_option: 1,
            syn: true,
            delay_growth: true,
            max_cwnd: 0,
            maxburst: 0,
            tcp_tick: 0.01,
            rtxcur_init: 3.0,
            minrto: 0.2,
            maxrto: 60.0,
            srtt_init: 0.0,
            rttvar_init: 12.0,
            numdupacks: 3,
            singledup: true,
            bug_fix: true,
            precision_reduce: true,
            ecn: false,
            timestamps: false,
            slow_start_restart: true,
            decrease_num: 0.5,
            increase_num: 1.0,
            newreno_changes: false,
            newreno_changes1: true,
            partial_window_deflation: true,
            exit_recovery_fix: false,
            partial_ack: false,
            use_headers: true,
            numdupacks_frac: -1,
            no_fast_retrans: false,
            bugfix_ss: true,
            timerfix: true,
            rfc2988: true,
            old_ecn: false,
            max_connects: -1,
            srtt_bits: 3,
            rttvar_bits: 2,
            rttvar_exp: 2,
            less_careful: false,
            bug_fix_ack: false,
            bug_fix_ts: false,
            ss_div4: false,
            rampdown: false,
            v_alpha: 1,
            v_beta: 3,
            v_gamma: 1,
            rbp: false,
            rbp_scale: 0.75,
            rbp_rate_algorithm: 1,
            tcpip_base_hdr_size: 40,
            window_option: 1,
            low_window: 38,
            high_window: 83000,
            high_p: 0.0000001,
            high_decrease: 0.1,
            cwnd_range: 0,
            max_ssthresh: 0,
            frto: false,
            sfrto: false,
            spurious_response: 1,
            ssthresh: 0,
            aggressive_maxburst: true,
            exit_fast_retrans: true,
            ts_reset_rto: false,
            ca: LinuxCa::Reno,
            tcp_abc: 1,
            tcp_max_burst: 3,
            add793expbackoff: true,
            add793jacobsonrtt: false,
            add793fastrtx: false,
            add793slowstart: false,
            add793additiveinc: false,
            add793karnrtt: true,
            add793exponinc: false,
            overhead: 0.0,
            qoption: false,
            rtt_counter: false,
            control_increase: false,
        }
    }
}

impl TcpParams {
    /// RFC 3390's (and RFC 5681's) initial window for this segment size: 4380 bytes, in two
    /// to four segments (ns-2's `windowInitOption_ 2`).
    pub fn rfc3390_window(&self) -> f64 {
        match self.packet_size {
            s if s <= 1095 => 4.0,
            s if s < 2190 => 3.0,
            _ => 2.0,
        }
    }

    /// The initial window in segments, by `window_init_option`.
    pub fn initial_window(&self) -> f64 {
        if self.window_init_option == 2 {
            self.rfc3390_window()
        } else {
            self.window_init as f64
        }
    }

    /// The rfc profile's defaults: RFC 5681's initial window, RFC 6298's initial and minimum
    /// RTO of one second, and a receive window that does not limit (as with window scaling).
    pub fn rfc() -> Self {
        TcpParams { window: 10_000, window_init_option: 2, rtxcur_init: 1.0, minrto: 1.0, ..TcpParams::default() }
    }

    /// The modern sender's defaults, Linux's: an initial window of 10 segments (RFC 6928), a
    /// minimum RTO of 200 ms (`TCP_RTO_MIN`), and full segments of 1448 bytes with 52 of
    /// headers (IPv4 and TCP with the timestamp option: a 1500-byte MTU).
    pub fn linux() -> Self {
        TcpParams {
            window_init_option: 1,
            window_init: 10,
            minrto: 0.2,
            packet_size: 1448,
            tcpip_base_hdr_size: 52,
            ..TcpParams::rfc()
        }
    }
}

#[cfg(test)]
mod tests;

impl Scenario {
    /// The traces' view of `addresses` (the integer domain << 22 | cluster << 11 | node), with
    /// the MAC indices, which number the radio nodes in node order, as ns-2 makes them.
    pub fn hierarchical_addresses(&self) -> Option<crate::trace::Addressing> {
        let hier = self.addresses.as_ref()?;
        let addr = hier.iter().map(|&[d, c, n]| d << 22 | c << 11 | n).collect();
        let mut radios = 0;
        let mac = (0..self.nodes.len())
            .map(|m| {
                let index = radios;
                radios += self.wlans.iter().any(|w| w.nodes.contains(&m)) as u32;
                index
            })
            .collect();
        Some(crate::trace::Addressing { addr, mac })
    }
}
