//! The scenario as written: every field optional, unknown fields rejected.
//!
//! Parsing into these structs only checks shapes (a table here, a list there); units, ranges and
//! cross-references are checked by `validate`, which knows each field's path. Keeping serde out of
//! the semantic checks is what lets every message name the exact field.

use serde::{Deserialize, Serialize};

/// A number or a string with a unit: `duration = 10` and `duration = "10s"` are both accepted.
#[derive(Serialize, Debug, Clone)]
#[serde(untagged)]
pub enum Quantity {
    Int(i64),
    Float(f64),
    Text(String),
}

/// ns-2 switches are ints (`singledup_ 1`) or booleans (`syn_ true`); both spellings are accepted.
#[derive(Serialize, Debug, Clone, Copy)]
#[serde(untagged)]
pub enum Flag {
    Bool(bool),
    Int(i64),
}

// Written out rather than derived (`untagged`), so that a wrong type is told in the user's
// terms: "invalid type: boolean `true`, expected a number or a string with its unit".
impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Quantity, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Quantity;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a string with its unit (such as \"10s\", \"2Mb\" or \"1500B\")")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Quantity, E> {
                Ok(Quantity::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Quantity, E> {
                i64::try_from(v).map(Quantity::Int).or(Ok(Quantity::Float(v as f64)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Quantity, E> {
                Ok(Quantity::Float(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Quantity, E> {
                Ok(Quantity::Text(v.to_string()))
            }
        }
        d.deserialize_any(Visit)
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Flag, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Flag;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true or false (or ns-2's 1 or 0)")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Flag, E> {
                Ok(Flag::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Flag, E> {
                i64::try_from(v).map(Flag::Int).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
        }
        d.deserialize_any(Visit)
    }
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    pub name: Option<String>,
    pub duration: Option<Quantity>,
    pub seed: Option<i64>,
    pub rng: Option<String>,
    pub profile: Option<String>,
    pub ip_version: Option<i64>,
    pub nodes: Option<Vec<String>>,
    pub links: Option<Vec<RawLink>>,
    pub wlans: Option<Vec<RawWlan>>,
    pub addresses: Option<std::collections::BTreeMap<String, String>>,
    pub positions: Option<std::collections::BTreeMap<String, Vec<f64>>>,
    pub moves: Option<Vec<RawMove>>,
    pub resets: Option<Vec<RawReset>>,
    pub pbc: Option<Vec<RawPbc>>,
    /// `[at, a, b, hops]`: ns-2's `$god_ set-dist a b hops` at `at`.
    pub set_dist: Option<Vec<(Quantity, String, String, i64)>>,
    pub mobile_nodes: Option<Vec<RawMobile>>,
    pub flows: Option<Vec<RawFlow>>,
    pub tcp: Option<RawTcp>,
    pub tcpsink: Option<RawSink>,
    pub vegas: Option<RawVegas>,
    pub fast: Option<RawFast>,
    pub pacing: Option<RawPacing>,
    pub modern: Option<RawModern>,
    pub losses: Option<Vec<RawLoss>>,
    pub delay_spikes: Option<Vec<RawDelaySpike>>,
    pub actions: Option<Vec<RawAction>>,
    pub output: Option<RawOutput>,
    pub hosts: Option<Vec<RawHost>>,
}

/// A real Linux host in emulation (`tcplab emulate`): a network namespace joined to a node.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawHost {
    pub name: Option<String>,
    pub node: Option<String>,
    pub address: Option<String>,
    pub gateway: Option<String>,
    pub address6: Option<String>,
    pub gateway6: Option<String>,
    pub run: Option<Vec<RawHostRun>>,
}

/// A command started inside a real host's namespace.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawHostRun {
    pub command: Option<String>,
    pub start: Option<Quantity>,
}

/// An 802.11b wireless LAN (`crate::wifi::WlanConfig`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawWlan {
    pub name: Option<String>,
    pub nodes: Option<Vec<String>>,
    pub access_point: Option<String>,
    pub access_points: Option<Vec<String>>,
    pub scans: Option<Vec<RawScan>>,
    pub beacon_interval: Option<Quantity>,
    pub profile: Option<String>,
    pub data_rate: Option<Quantity>,
    pub basic_rate: Option<Quantity>,
    pub preamble: Option<String>,
    pub rts_threshold: Option<i64>,
    pub cw_min: Option<i64>,
    pub cw_max: Option<i64>,
    pub short_retry_limit: Option<i64>,
    pub long_retry_limit: Option<i64>,
    pub backoff_when_idle: Option<Flag>,
    pub queue_limit: Option<i64>,
    pub propagation: Option<String>,
    pub mac_overhead: Option<i64>,
    pub routing: Option<String>,
    pub base_station: Option<String>,
    pub base_stations: Option<Vec<RawBaseStation>>,
    pub mac: Option<String>,
    pub ext: Option<RawExt>,
    pub nakagami: Option<RawNakagami>,
}

/// `Propagation/Nakagami`'s knobs (`crate::wifi::config::Nakagami`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawNakagami {
    pub gamma: Option<Vec<f64>>,
    pub gamma_distances: Option<Vec<f64>>,
    pub m: Option<Vec<f64>>,
    pub m_distances: Option<Vec<f64>>,
    pub fading: Option<Flag>,
}

/// The knobs of `Mac/802_11Ext` and `Phy/WirelessPhyExt` (`crate::wifi::config::ExtConfig`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawExt {
    pub tx_power: Option<f64>,
    pub frequency: Option<f64>,
    pub cs_threshold: Option<f64>,
    pub noise_floor: Option<f64>,
    pub power_monitor_threshold: Option<f64>,
    pub preamble_capture: Option<Flag>,
    pub sinr_preamble_capture: Option<f64>,
    pub data_capture: Option<Flag>,
    pub sinr_data_capture: Option<f64>,
    pub slot: Option<Quantity>,
    pub sifs: Option<Quantity>,
    pub header_duration: Option<Quantity>,
    pub symbol_duration: Option<Quantity>,
    pub basic_modulation: Option<String>,
    pub use_802_11a: Option<Flag>,
}

/// An `Agent/PBC` (`crate::pbc::config::PbcAgent`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawPbc {
    pub node: Option<String>,
    pub payload: Option<i64>,
    pub modulation: Option<String>,
    pub periodic: Option<Flag>,
    pub interval: Option<Quantity>,
    pub variance: Option<Quantity>,
    pub sends: Option<Vec<RawPbcSend>>,
}

/// One send of an `Agent/PBC`: a broadcast, or (`to`) to a node named or a MAC address.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawPbcSend {
    pub at: Option<Quantity>,
    pub to: Option<RawAddress>,
    pub payload: Option<i64>,
}

/// A node's name, or a bare MAC address (a number no node need have).
#[derive(Deserialize, Debug)]
#[serde(untagged)]
pub enum RawAddress {
    Name(String),
    Number(i64),
}

/// A base station of a DSDV WLAN and the stations of its subnet (`crate::wifi::config::BaseStation`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawBaseStation {
    pub node: Option<String>,
    pub stations: Option<Vec<String>>,
}

/// A station of an ns2-profile WLAN looks for an access point (`crate::wifi::config::Scan`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawScan {
    pub node: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub at: Option<Quantity>,
}

/// A node heads somewhere (`crate::mobility::path::Move`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawMove {
    pub node: Option<String>,
    pub at: Option<Quantity>,
    pub to: Option<Vec<f64>>,
    pub speed: Option<f64>,
}

/// `$node reset` of a node with a radio (`crate::scenario::NodeReset`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawReset {
    pub node: Option<String>,
    pub at: Option<Quantity>,
}

/// A mobile node running Mobile IPv6 (`crate::mobility::MobileConfig`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawMobile {
    pub node: Option<String>,
    pub home_agent: Option<String>,
    pub map: Option<String>,
    pub map_domain: Option<Vec<String>>,
    pub l2_handoff: Option<Quantity>,
    pub beacon_interval: Option<Quantity>,
    pub ra_interval: Option<Vec<Quantity>>,
    pub dad: Option<Quantity>,
    pub route_optimisation: Option<Flag>,
}

/// Something an application does at a given time (ns-2 `$ns at T "$ftp ..."`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawAction {
    pub at: Option<Quantity>,
    pub flow: Option<String>,
    #[serde(rename = "do")]
    pub action: Option<String>,
    pub packets: Option<i64>,
    /// FullTcp's `advance_bytes`: how many bytes.
    pub bytes: Option<i64>,
    /// Which end's agent acts: "from" (the default) or "to" (a FullTcp flow's peer).
    pub end: Option<String>,
    pub cwnd: Option<i64>,
    pub interval: Option<Quantity>,
}

/// A delay spike: a link direction sends nothing for a while (ns-2's Delayer, blocked).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawDelaySpike {
    pub link: Option<String>,
    pub at: Option<Quantity>,
    pub length: Option<Quantity>,
}

/// A loss model on one link direction (ns-2's error models in an `ErrorModule Fid` at the head
/// of the link).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawLoss {
    pub link: Option<String>,
    pub wlan: Option<String>,
    pub node: Option<String>,
    pub flows: Option<Vec<String>>,
    pub model: Option<String>,
    pub packets: Option<Vec<i64>>,
    pub rate: Option<f64>,
    pub ber: Option<f64>,
    pub p_good_bad: Option<f64>,
    pub p_bad_good: Option<f64>,
    pub loss_good: Option<f64>,
    pub loss_bad: Option<f64>,
    pub offset: Option<f64>,
    pub period: Option<f64>,
    pub burst: Option<f64>,
    pub action: Option<String>,
    pub delay: Option<Quantity>,
    pub direction: Option<String>,
    pub data_bits: Option<i64>,
    pub control_bits: Option<i64>,
    pub states: Option<Vec<RawLossState>>,
    pub transitions: Option<Vec<Vec<f64>>>,
    pub step: Option<String>,
}

/// A state of a multistate loss model.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawLossState {
    pub rate: Option<f64>,
    pub period: Option<Quantity>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawLink {
    pub from: Option<String>,
    pub to: Option<String>,
    pub bandwidth: Option<Quantity>,
    pub delay: Option<Quantity>,
    pub queue: Option<String>,
    pub queue_limit: Option<i64>,
    pub reverse_queue_limit: Option<i64>,
    pub red: Option<RawRed>,
    pub reverse_red: Option<RawRed>,
    pub droptail: Option<RawDropTail>,
}

/// `[flows.receiver]`: the Linux-like receiver's behaviour (`sink = "linux"`).
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawReceiver {
    pub ack_every: Option<i64>,
    pub ato_min: Option<Quantity>,
    pub delack_max: Option<Quantity>,
    pub max_quickacks: Option<i64>,
    pub rto: Option<Quantity>,
    pub sack: Option<Flag>,
    pub dsack: Option<Flag>,
    pub sack_compress_delay: Option<Quantity>,
    pub sack_compress_nr: Option<i64>,
    pub timestamps: Option<Flag>,
    pub ecn: Option<String>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawDropTail {
    pub queue_in_bytes: Option<Flag>,
    pub mean_pktsize: Option<i64>,
    pub ecn_threshold: Option<i64>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawRed {
    pub bytes: Option<Flag>,
    pub queue_in_bytes: Option<Flag>,
    pub mean_pktsize: Option<i64>,
    pub thresh: Option<f64>,
    pub maxthresh: Option<f64>,
    pub q_weight: Option<f64>,
    pub linterm: Option<f64>,
    pub wait: Option<Flag>,
    pub gentle: Option<Flag>,
    pub setbit: Option<Flag>,
    pub mark_p: Option<f64>,
    pub use_mark_p: Option<Flag>,
    pub drop_tail: Option<Flag>,
    pub drop_rand: Option<Flag>,
    pub ns1_compat: Option<Flag>,
    pub targetdelay: Option<Quantity>,
    pub adaptive: Option<Flag>,
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub interval: Option<Quantity>,
    pub top: Option<f64>,
    pub bottom: Option<f64>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawFlow {
    pub name: Option<String>,
    pub fid: Option<i64>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub protocol: Option<String>,
    pub profile: Option<String>,
    pub sink: Option<String>,
    pub app: Option<String>,
    pub start: Option<Quantity>,
    pub stop: Option<Quantity>,
    pub packets: Option<i64>,
    pub rate: Option<Quantity>,
    /// CBR's `random_`: each interval dithered by a uniform draw.
    pub random: Option<Flag>,
    pub interval: Option<Quantity>,
    pub burst_time: Option<Quantity>,
    pub idle_time: Option<Quantity>,
    pub shape: Option<f64>,
    pub records: Option<Vec<Vec<i64>>>,
    pub packet_size: Option<Quantity>,
    pub udp_packet_size: Option<Quantity>,
    pub from_port: Option<i64>,
    pub to_port: Option<i64>,
    pub delack_interval: Option<Quantity>,
    pub tcp: Option<RawTcp>,
    pub tcpsink: Option<RawSink>,
    pub receiver: Option<RawReceiver>,
    pub vegas: Option<RawVegas>,
    pub fast: Option<RawFast>,
    pub pacing: Option<RawPacing>,
    pub modern: Option<RawModern>,
    /// A FullTcp flow: the `to` end's Agent/TCP and FullTcp variables, over `[tcp]`.
    pub peer: Option<RawTcp>,
    /// A FullTcp flow: the `to` end listens (`$agent listen`) for the `from` end's SYN.
    pub listen: Option<Flag>,
}

/// The rfc profile's Vegas and its enhancements (`tcplab_cc::VegasConfig`).
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawVegas {
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub gamma: Option<f64>,
    pub epoch_rtt: Option<String>,
    pub slow_start: Option<String>,
    pub loss_decrease: Option<f64>,
    pub ecn_decrease: Option<f64>,
    pub progressive: Option<String>,
    pub progressive_gain: Option<f64>,
    pub congestion_measure: Option<Flag>,
    pub spurious_loss_decrease: Option<f64>,
    pub rebase_epochs: Option<i64>,
    pub rebase_backlog: Option<f64>,
}

/// FAST TCP (`tcplab_cc::FastConfig`).
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawFast {
    pub alpha: Option<f64>,
    pub gamma: Option<f64>,
    pub period: Option<Quantity>,
}

/// Pacing of new segments (`tcplab_cc::PacingConfig`).
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawPacing {
    pub enabled: Option<Flag>,
    pub rtt: Option<String>,
    pub depth: Option<f64>,
    pub gain: Option<f64>,
}

/// The rfc profile's modern sender (`ModernConfig`).
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawModern {
    pub rack: Option<Flag>,
    pub tlp: Option<Flag>,
    pub fq_pacing: Option<Flag>,
    pub seed: Option<i64>,
    pub handshake: Option<Flag>,
}

/// ns-2 `Agent/TCPSink` variables.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawSink {
    pub syn_immediate_ack: Option<Flag>,
    pub rfc2581_immediate_ack: Option<Flag>,
    pub ts_echo_rfc1323: Option<Flag>,
    pub ecn_syn: Option<Flag>,
}

/// ns-2 `Agent/TCP` variables, trailing underscore dropped, snake_case. (Serialised only to
/// list the knobs a table sets.)
#[derive(Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawTcp {
    pub window: Option<i64>,
    pub window_init: Option<i64>,
    pub window_init_option: Option<i64>,
    pub syn: Option<Flag>,
    pub delay_growth: Option<Flag>,
    pub max_cwnd: Option<i64>,
    pub maxburst: Option<i64>,
    pub tcp_tick: Option<Quantity>,
    pub rtxcur_init: Option<Quantity>,
    pub minrto: Option<Quantity>,
    pub maxrto: Option<Quantity>,
    pub srtt_init: Option<Quantity>,
    pub rttvar_init: Option<Quantity>,
    pub numdupacks: Option<i64>,
    pub singledup: Option<Flag>,
    pub bug_fix: Option<Flag>,
    pub precision_reduce: Option<Flag>,
    pub ecn: Option<Flag>,
    pub timestamps: Option<Flag>,
    pub slow_start_restart: Option<Flag>,
    pub decrease_num: Option<f64>,
    pub increase_num: Option<f64>,
    pub newreno_changes: Option<Flag>,
    pub newreno_changes1: Option<Flag>,
    pub partial_window_deflation: Option<Flag>,
    pub exit_recovery_fix: Option<Flag>,
    pub partial_ack: Option<Flag>,
    pub use_headers: Option<Flag>,
    pub numdupacks_frac: Option<i64>,
    pub no_fast_retrans: Option<Flag>,
    pub aggressive_maxburst: Option<Flag>,
    pub exit_fast_retrans: Option<Flag>,
    pub ts_reset_rto: Option<Flag>,
    pub bugfix_ss: Option<Flag>,
    pub timerfix: Option<Flag>,
    pub rfc2988: Option<Flag>,
    pub old_ecn: Option<Flag>,
    pub max_connects: Option<i64>,
    pub srtt_bits: Option<i64>,
    pub rttvar_bits: Option<i64>,
    pub rttvar_exp: Option<i64>,
    pub less_careful: Option<Flag>,
    pub bug_fix_ack: Option<Flag>,
    pub bug_fix_ts: Option<Flag>,
    pub ss_div4: Option<Flag>,
    pub rampdown: Option<Flag>,
    pub v_alpha: Option<i64>,
    pub v_beta: Option<i64>,
    pub v_gamma: Option<i64>,
    pub rbp: Option<Flag>,
    pub rbp_scale: Option<f64>,
    pub rbp_rate_algorithm: Option<i64>,
    pub tcpip_base_hdr_size: Option<i64>,
    pub window_option: Option<i64>,
    pub low_window: Option<i64>,
    pub high_window: Option<i64>,
    pub high_p: Option<f64>,
    pub high_decrease: Option<f64>,
    pub cwnd_range: Option<i64>,
    pub max_ssthresh: Option<i64>,
    pub frto: Option<Flag>,
    pub sfrto: Option<Flag>,
    pub spurious_response: Option<i64>,
    pub ssthresh: Option<i64>,
    // Agent/TCP/FullTcp's own (and its Newreno's and Sack's)
    pub segsize: Option<i64>,
    pub segsperack: Option<i64>,
    pub spa_thresh: Option<i64>,
    pub tcprexmtthresh: Option<i64>,
    pub iss: Option<i64>,
    pub nodelay: Option<Flag>,
    pub data_on_syn: Option<Flag>,
    pub dupseg_fix: Option<Flag>,
    pub dupack_reset: Option<Flag>,
    pub interval: Option<Quantity>,
    pub ts_option_size: Option<i64>,
    pub reno_fastrecov: Option<Flag>,
    pub pipectrl: Option<Flag>,
    pub open_cwnd_on_pack: Option<Flag>,
    pub halfclose: Option<Flag>,
    pub nopredict: Option<Flag>,
    pub ecn_syn: Option<Flag>,
    pub ecn_syn_wait: Option<i64>,
    pub overhead: Option<Quantity>,
    pub recov_maxburst: Option<i64>,
    pub clear_on_timeout: Option<Flag>,
    pub sack_block_size: Option<i64>,
    pub sack_option_size: Option<i64>,
    pub max_sack_blocks: Option<i64>,
    pub sack_rtx_cthresh: Option<i64>,
    pub sack_rtx_bthresh: Option<i64>,
    pub sack_rtx_threshmode: Option<i64>,
    pub ca: Option<String>,
    pub tcp_abc: Option<i64>,
    pub tcp_max_burst: Option<i64>,
    pub add793expbackoff: Option<Flag>,
    pub add793jacobsonrtt: Option<Flag>,
    pub add793fastrtx: Option<Flag>,
    pub add793slowstart: Option<Flag>,
    pub add793additiveinc: Option<Flag>,
    pub add793karnrtt: Option<Flag>,
    pub add793exponinc: Option<Flag>,
    pub qoption: Option<Flag>,
    pub rtt_counter: Option<Flag>,
    pub control_increase: Option<Flag>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawOutput {
    pub trace: Option<Vec<String>>,
    pub tcp_header: Option<Flag>,
    pub events: Option<Flag>,
    pub trace_links: Option<Vec<String>>,
    pub trace_flows: Option<Vec<String>>,
    pub wireless_format: Option<String>,
    pub eot_trace: Option<Flag>,
    pub agent_trace: Option<Flag>,
    pub router_trace: Option<Flag>,
    pub mac_trace: Option<Flag>,
    pub phy_trace: Option<Flag>,
    pub interval: Option<Quantity>,
    pub pcap_ip: Option<String>,
}
