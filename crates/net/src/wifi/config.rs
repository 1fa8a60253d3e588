//! A WLAN's settings as the scenario gives them: the radios, their positions and the MAC's
//! knobs. A leaf: the scenario builds it, the MAC (wifi/mod.rs) runs it.

use super::phy::{Radio, Timing};
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
}

impl WlanConfig {
    /// The (from, to) positions in `nodes` of the radios that exchange frames: each station
    /// and its access point, or (ad hoc) every pair within receive range.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        for a in 0..self.nodes.len() {
            for b in 0..self.nodes.len() {
                let linked = a != b
                    && match self.access_point {
                        Some(ap) => (self.nodes[a] == ap) != (self.nodes[b] == ap),
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
