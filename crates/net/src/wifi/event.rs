//! The 802.11 MAC's events, which the run's scheduler carries in `Event::Wifi`.

use crate::ids::{FrameId, NodeId, RadioId};
use crate::packet::PacketId;

/// The MAC timers of a radio.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacTimer {
    /// The backoff ran out: transmit.
    Access,
    /// No CTS or ACK came in time.
    Timeout,
    /// SIFS after a frame: send the CTS, DATA or ACK it calls for.
    Respond,
    /// The NAV ran out.
    Nav,
    /// An access point's next beacon is due (wifi/infra.rs).
    Beacon,
    /// A station's scan moves on (ns-2's probe timer: `ProbeDelay_`, `Min/MaxChannelTime_`,
    /// `ChannelTime_`).
    Probe,
}

/// What a relayed packet keeps of the frame it came in on, beside its duration (the packet's
/// `rx_duration`): the hops it has made (`num_forwards`).
#[derive(Debug, Clone, Copy)]
pub struct RelayHeader {
    pub hops: u16,
}

/// Radio events, carried in `Event::Wifi`.
#[derive(Debug, Clone, Copy)]
pub enum WifiEvent {
    /// Radio `0` finished sending frame `1`.
    TxEnd(RadioId, FrameId),
    /// Frame `1` starts / stops arriving at radio `0`.
    RxStart(RadioId, FrameId),
    RxEnd(RadioId, FrameId),
    /// A frame from radio `1` reaches radio `0` too faint to sense (wifi/channel.rs).
    Faint(RadioId, RadioId),
    Timer(RadioId, MacTimer, u32),
    /// An access point's link layer hands packet `3`, which came with header `2`, back to its
    /// interface queue (radio `0`) for radio `1` (ns-2's `recvDATA` relay through
    /// `LL::sendDown`, its delay later; wifi/infra.rs).
    Relay(RadioId, RadioId, RelayHeader, PacketId),
    /// Frame `1` of an `802_11Ext` radio reaches radio `0` (wifi/ext.rs).
    ExtArrive(RadioId, FrameId),
    /// An `802_11Ext` radio's timer, with its arming's generation.
    ExtTimer(RadioId, super::ext::ExtTimer, u32),
    /// The link layer hands packet `2` to radio `0`'s interface queue, for radio `1`
    /// (`WlanConfig::ll_delay` after the node sent it). The network handles it.
    LlDown(RadioId, RadioId, PacketId),
    /// The link layer hands packet `2`, which radio `0` received from node `1`, up to its node.
    /// The network handles it.
    LlUp(RadioId, NodeId, PacketId),
}
