//! A mobile node's Mobile IPv6 settings as the scenario gives them, and the sizes Mobile IPv6
//! adds on the wire. A leaf: the scenario builds these, the mobility code (mod.rs) runs them,
//! and the pcap writer reads the header sizes.

use serde::Serialize;

/// Bytes an IPv6-in-IPv6 tunnel adds.
pub const TUNNEL_BYTES: u32 = 40;
/// Bytes route optimisation adds: a type 2 routing header towards the MN, a home address
/// option from it.
pub const RO_BYTES: u32 = 24;
/// A binding update and acknowledgement on the wire: IPv6 header, mobility header, options.
pub const BU_BYTES: u32 = 72;
pub const BA_BYTES: u32 = 56;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MobileConfig {
    pub node: usize,
    pub home_agent: usize,
    /// HMIPv6: the mobility anchor point and the access routers of its domain.
    pub map: Option<usize>,
    pub map_domain: Vec<usize>,
    /// Scan and association after the link is lost, s.
    pub l2_handoff: f64,
    /// How often the MN checks its access point's signal, s.
    pub beacon_interval: f64,
    /// Router advertisements come every U(min, max) seconds.
    pub ra_interval: (f64, f64),
    /// Duplicate address detection, s (0: optimistic DAD).
    pub dad: f64,
    /// Route optimisation: after the home agent, the MN sends binding updates to its
    /// correspondents, which then talk to its care-of address directly (return routability is
    /// not simulated).
    pub route_optimisation: bool,
}
