//! A WLAN's settings as the scenario gives them: the radios, their positions and the MAC's
//! knobs. A leaf: the scenario builds it, the MAC (wifi/mod.rs) runs it.

use super::phy::{Radio, Timing, ACK_BYTES, NS2_PI};
use serde::Serialize;

/// A WLAN's MAC and PHY settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WlanConfig {
    pub name: String,
    /// The nodes with a radio on this WLAN, and their positions (m).
    pub nodes: Vec<usize>,
    pub positions: Vec<(f64, f64)>,
    /// Infrastructure mode: stations talk only to (and through) this node.
    pub access_point: Option<usize>,
    /// ns-2's infrastructure mode (ns2 profile: `$mac ap`, `ScanType`; wifi/infra.rs): its
    /// access points, which stations scan and when, the beacon interval.
    pub infrastructure: Option<Infrastructure>,
    pub timing: Timing,
    pub radio: Radio,
    /// Data frames whose MAC frame is longer than this many bytes go after an RTS/CTS exchange
    /// (0: every frame, ns-2's default).
    pub rts_threshold: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// Back off before every frame, even one that finds the medium idle (ns-2's `bugFix_timer_`).
    /// In the ns2 profile, false is ns-2's `bugFix_timer_ false`: a frame that finds the medium
    /// idle waits DIFS and random slots on the defer timer, which a busy medium does not pause.
    pub backoff_when_idle: bool,
    /// Draw a backoff as ns-2.35 does, `Random::random() % cw_`: 0..cw-1 slots from one draw of
    /// the shared generator (never `cw` itself). Otherwise 0..=cw, uniformly.
    pub ns2_backoff: bool,
    /// The link layer's delay, s, each way between the node and its interface queue (ns-2's
    /// `LL delay_`, 25 µs; 0 in the standard profile).
    pub ll_delay: f64,
    /// Resolve each next hop with ARP before the first packet to it, as ns-2's wireless nodes
    /// do (wifi/arp.rs).
    pub arp: bool,
    /// The interface queue of each radio, packets.
    pub queue_limit: u32,
    /// Every node of the WLAN runs ns-2's DSDV routing agent (`routing = "dsdv"`, ns2 profile
    /// only; crate::dsdv): its route updates go on the air and its routes carry the packets.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dsdv: bool,
    /// The nodes (of `nodes`) that join the WLAN to the wired links, each with the stations of
    /// its subnet (`base_station`, `base_stations`; DSDV only): ns-2's mobile nodes with
    /// `-wiredRouting ON`. With them, addresses are hierarchical.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub base_stations: Vec<BaseStation>,
    /// ns-2's `Mac/802_11Ext` and `Phy/WirelessPhyExt` (`mac = "802_11Ext"`, wifi/ext.rs) in
    /// place of `Mac/802_11` and `Phy/WirelessPhy`: their knobs. The radio's power, frequency
    /// and propagation stay in `radio`; the MAC's windows, limits and threshold in the fields
    /// above.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ext: Option<ExtConfig>,
}

/// `Mac/802_11Ext` and `Phy/WirelessPhyExt`'s settings (ns-default.tcl's defaults by
/// `ExtConfig::default`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ExtConfig {
    /// `SlotTime_`, `SIFS_`, s.
    pub slot: f64,
    pub sifs: f64,
    /// The PLCP preamble and header (`HeaderDuration_`) and an OFDM symbol
    /// (`SymbolDuration_`), s.
    pub header_duration: f64,
    pub symbol_duration: f64,
    /// The scheme of control frames and preambles (`BasicModulationScheme_`: 0 BPSK, 1 QPSK,
    /// 2 QAM16, 3 QAM64).
    pub basic_scheme: u8,
    /// 802.11a's 16 SERVICE and 6 tail bits in every frame (`use_802_11a_flag_`).
    pub use_802_11a: bool,
    /// The power (W) at which the medium is busy (`CSThresh_`), the noise floor
    /// (`noise_floor_`), and the weakest signal the power monitor keeps
    /// (`PowerMonitorThresh_`; it also bounds how far the channel carries a frame).
    pub cs_threshold: f64,
    pub noise_floor: f64,
    pub monitor_threshold: f64,
    /// A much stronger frame takes over a preamble (`PreambleCaptureSwitch_`,
    /// `SINR_PreambleCapture_`) or a body (`DataCaptureSwitch_`, `SINR_DataCapture_`) being
    /// received.
    pub preamble_capture: bool,
    pub sinr_preamble_capture: f64,
    pub data_capture: bool,
    pub sinr_data_capture: f64,
    /// `Propagation/Nakagami` in place of the radio's propagation model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nakagami: Option<Nakagami>,
}

/// ns-2's `Propagation/Nakagami` (mobile/nakagami.cc): Friis at 1 m, then a log-distance path
/// loss with exponent `gamma[i]` in three ranges split at `gamma_distances`; with `fading`,
/// the power of each frame at each receiver is drawn from a Nakagami distribution of shape
/// `m[i]` (ranges split at `m_distances`) around that mean: for a whole `m`, an Erlang draw,
/// `m` exponential draws of the shared generator (`ErlangRandomVariable`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Nakagami {
    pub gamma: [f64; 3],
    pub gamma_distances: [f64; 2],
    pub m: [f64; 3],
    pub m_distances: [f64; 2],
    pub fading: bool,
}

impl Default for Nakagami {
    /// ns-default.tcl's.
    fn default() -> Self {
        Nakagami {
            gamma: [1.9, 3.8, 3.8],
            gamma_distances: [200.0, 500.0],
            m: [1.5, 0.75, 0.75],
            m_distances: [80.0, 200.0],
            fading: false,
        }
    }
}

impl Nakagami {
    /// The mean power (W) at `d` m of a radio sending `radio.tx_power` (`Nakagami::Pr` before
    /// its draw), in ns-2's arithmetic.
    pub fn mean_power(&self, radio: &Radio, d: f64) -> f64 {
        let lambda = radio.light / radio.frequency;
        let m = lambda / (4.0 * NS2_PI * 1.0);
        let pr0 = (radio.tx_power * 1.0 * 1.0 * (m * m)) / radio.system_loss;
        let [g0, g1, g2] = self.gamma;
        let [d0, d1] = self.gamma_distances;
        let mut loss_db = 0.0;
        if d > 0.0 && d <= d0 {
            loss_db = 10.0 * g0 * (d / 1.0).log10();
        }
        if d > d0 && d <= d1 {
            loss_db = 10.0 * g0 * (d0 / 1.0).log10() + 10.0 * g1 * (d / d0).log10();
        }
        if d > d1 {
            loss_db = 10.0 * g0 * (d0 / 1.0).log10() + 10.0 * g1 * (d1 / d0).log10() + 10.0 * g2 * (d / d1).log10();
        }
        pr0 * 10f64.powf(-loss_db / 10.0)
    }

    /// The shape of the fading at `d` m.
    pub fn shape(&self, d: f64) -> f64 {
        if d <= self.m_distances[0] {
            self.m[0]
        } else if d <= self.m_distances[1] {
            self.m[1]
        } else {
            self.m[2]
        }
    }
}

impl Default for ExtConfig {
    fn default() -> Self {
        ExtConfig {
            slot: 9e-6,
            sifs: 16e-6,
            header_duration: 20e-6,
            symbol_duration: 4e-6,
            basic_scheme: 0,
            use_802_11a: true,
            cs_threshold: 6.30957e-12,
            noise_floor: 7.96159e-14,
            monitor_threshold: 2.653e-14,
            preamble_capture: true,
            sinr_preamble_capture: 3.1623,
            data_capture: false,
            sinr_data_capture: 10.0,
            nakagami: None,
        }
    }
}

/// A base station and the stations of its subnet (ns-2's `domain.cluster`), whose packets for
/// other subnets it takes (`$node base-station`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BaseStation {
    pub node: usize,
    pub stations: Vec<usize>,
}

/// ns-2's infrastructure mode on a WLAN (mac-802_11.cc, `command("ap")` and `"ScanType"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Infrastructure {
    /// The nodes that are access points: each beacons, answers probes, authenticates and
    /// associates stations and relays their frames.
    pub access_points: Vec<usize>,
    /// The stations that look for an access point, each from its time.
    pub scans: Vec<Scan>,
    /// `BeaconInterval_`, s (ns-2's default 0.1).
    pub beacon_interval: f64,
}

/// A station's scan (`$mac ScanType ACTIVE|PASSIVE`, at `at`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scan {
    pub node: usize,
    /// ACTIVE: a probe request after `ProbeDelay_`; PASSIVE: the beacons heard in `ChannelTime_`.
    pub active: bool,
    pub at: f64,
}

/// The bytes ns-2 counts for the PLCP preamble and header in every frame's size (its long
/// preamble: (144 + 48) / 8), as its traces print them and as it compares with `RTSThreshold_`.
pub const NS2_PLCP_BYTES: u32 = 24;

/// The rate of ns-2's PLCP header (`PLCPDataRate_`, 1 Mb/s), at which it times EIFS's ACK.
pub const NS2_PLCP_RATE: f64 = 1e6;

impl WlanConfig {
    /// The base station of `node`'s subnet (a base station's own is itself), if the WLAN has
    /// base stations.
    pub fn base_station_of(&self, node: usize) -> Option<usize> {
        let bs = self.base_stations.iter().find(|b| b.node == node || b.stations.contains(&node))?;
        Some(bs.node)
    }

    /// The wait after an errored frame. ns-2 (mac-802_11.h, `getEIFS`) times the ACK in it,
    /// PLCP bytes and all, at the PLCP's rate whatever `basicRate_` is; the standard profile
    /// sends it at the basic rate (802.11-1999, 9.2.10).
    pub fn eifs(&self) -> f64 {
        let t = &self.timing;
        if self.ns2_backoff {
            t.sifs + t.difs() + f64::from((NS2_PLCP_BYTES + ACK_BYTES) * 8) / NS2_PLCP_RATE
        } else {
            t.eifs()
        }
    }

    /// How far ns-2's channel carries a frame (`distCST_`, `calcHighestAntennaZ`): the
    /// propagation model's distance at the carrier-sense threshold; for an Ext radio, at its
    /// power monitor's threshold, and under Nakagami fading without bound (its `getDist` is
    /// DBL_MAX).
    pub fn ns2_channel_reach(&self) -> f64 {
        match &self.ext {
            Some(e) if e.nakagami.is_some() => f64::MAX,
            Some(e) => Radio { cs_threshold: e.monitor_threshold, ..self.radio.clone() }.ns2_cs_distance(),
            None => self.radio.ns2_cs_distance(),
        }
    }

    /// Whether a data frame carrying an IP packet of `ip` bytes goes after an RTS/CTS exchange.
    /// ns-2 (mac-802_11.cc, `sendRTS`) weighs the frame as it counts it, MAC header, FCS and
    /// the PLCP's 24 bytes (`getHdrLen11`), and sends an RTS when that reaches `RTSThreshold_`;
    /// the standard profile, when the MAC frame is longer than the threshold.
    pub fn rts_before(&self, ip: u32) -> bool {
        if self.ns2_backoff {
            ip + self.timing.mac_overhead + NS2_PLCP_BYTES >= self.rts_threshold
        } else {
            ip + self.timing.mac_overhead > self.rts_threshold
        }
    }

    /// Whether the failures of such a data frame count against the long retry limit: ns-2
    /// (`RetransmitDATA`, `recvACK`) counts a frame above the threshold long, weighed as in
    /// `rts_before` (so a frame of exactly the threshold goes after an RTS but counts short).
    pub fn long_frame(&self, ip: u32) -> bool {
        let plcp = if self.ns2_backoff { NS2_PLCP_BYTES } else { 0 };
        ip + self.timing.mac_overhead + plcp > self.rts_threshold
    }

    /// The (from, to) positions in `nodes` of the radios that exchange frames: each station
    /// and its access point, or (ad hoc) every pair within receive range; in the ns2 profile
    /// every pair, as ns-2's `DumbAgent` (dumb-agent.cc) sends each packet straight to its
    /// destination however far it is (its frames then fail, `D MAC RET`, or its ARP).
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        for a in 0..self.nodes.len() {
            for b in 0..self.nodes.len() {
                let linked = a != b
                    && match self.access_point {
                        Some(ap) => (self.nodes[a] == ap) != (self.nodes[b] == ap),
                        None if self.ns2_backoff => true,
                        None => {
                            self.radio.rx_power(distance(self.positions[a], self.positions[b]))
                                >= self.radio.rx_threshold
                        }
                    };
                if linked {
                    pairs.push((a, b));
                }
            }
        }
        pairs
    }
}

/// The distance between two positions, m.
pub fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}
