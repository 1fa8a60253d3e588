//! An `Agent/PBC`'s settings as the scenario gives them (crate::pbc runs them). A leaf.

use serde::Serialize;

/// An `Agent/PBC` on a node of an `802_11Ext` WLAN.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PbcAgent {
    pub node: usize,
    /// The WLAN (index) its radio is on.
    pub wlan: usize,
    /// Bytes each packet carries (`payloadSize`; no header is added).
    pub payload: u32,
    /// The OFDM scheme its packets go with (`modulationScheme`: 0 BPSK .. 3 QAM64).
    pub modulation: u8,
    /// `PeriodicBroadcast ON`: (`periodicBroadcastInterval`, `periodicBroadcastVariance`), s.
    pub periodic: Option<(f64, f64)>,
    /// Packets sent at given times (`singleBroadcast`, `unicast N`).
    pub sends: Vec<PbcSend>,
}

/// One packet an agent sends at `at_s`: a broadcast, or to MAC address `to` (a node's number,
/// which need not have a radio), of `payload` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PbcSend {
    pub at_s: f64,
    pub to: Option<u32>,
    pub payload: u32,
}
