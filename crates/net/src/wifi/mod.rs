//! 802.11b wireless LANs: a shared channel per WLAN and the DCF MAC of every radio on it.
//!
//! Every radio hears every transmission on its WLAN whose power reaches the carrier-sense
//! threshold; it receives the frame if the power also reaches the receive threshold and nothing
//! else overlaps it (a weaker overlapping frame is captured when the first is `capture_ratio`
//! times stronger, as in ns-2). The MAC is the distributed coordination function: carrier sense
//! (physical and the NAV), DIFS/EIFS, slotted binary exponential backoff frozen while the
//! medium is busy, RTS/CTS above a size threshold, MAC ACKs after SIFS, short and long retry
//! limits, duplicate filtering. Frames are small values in a slab; the IP packet of a data frame
//! stays in the packet pool until its ACK (or its last retry).

pub mod arp;
mod channel;
pub mod config;
pub mod event;
pub mod ext;
pub mod infra;
pub mod phy;
#[cfg(test)]
mod tests;

use crate::ctx::{Ctx, Event};
use crate::ids::{FrameId, NodeId, RadioId};
pub use crate::metrics::MacStats;
use crate::packet::{Packet, PacketId};
use crate::random::Draws;
use crate::trace::NO_NEXT_HOP;
pub use config::{distance, WlanConfig};
use event::{MacTimer, WifiEvent};
use infra::{Infra, Mgmt};
use phy::{ACK_BYTES, CTS_BYTES, RTS_BYTES};
use tcplab_des::{Ring, Timer};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    Rts,
    Cts,
    Data,
    Ack,
    /// A management frame of infrastructure mode (wifi/infra.rs).
    Mgmt(Mgmt),
}

/// How a data frame is addressed beyond its receiver and what it has been through: ns-2's
/// `dh_3a` and DS bits, which `hdr_dst` writes in infrastructure mode (wifi/infra.rs), and an
/// access point's relay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Via {
    /// The final destination (`dh_3a`): the receiver itself but in infrastructure mode.
    da: RadioId,
    to_ds: bool,
    from_ds: bool,
    /// Hops made before this one (`num_forwards`).
    hops: u32,
    /// The next hop its IP header names (`ch->next_hop_`): an access point's relay names the
    /// destination (`recvDATA`), and an ARP reply keeps its request's (`arpinput`).
    next_hop: i32,
    /// An access point relays it: once past its link layer its type is IP again
    /// (`LL::sendDown`); its MAC header keeps the duration of the frame it came in on
    /// (`Packet::rx_duration`, wifi/infra.rs `relay`).
    typed_ip: bool,
}

impl Via {
    /// Straight to `to`.
    fn to(to: RadioId) -> Via {
        Via { da: to, to_ds: false, from_ds: false, hops: 0, next_hop: NO_NEXT_HOP, typed_ip: false }
    }
}

/// A frame on the air.
#[derive(Debug, Clone, Copy)]
struct Frame {
    kind: FrameKind,
    src: RadioId,
    dst: RadioId,
    /// The duration field: how long after its end the medium stays reserved, s.
    nav: f64,
    pkt: Option<PacketId>,
    seq: u16,
    via: Via,
    /// Events still to come that refer to it (its end at the sender, its ends at receivers).
    refs: u32,
}

impl Frame {
    /// The duration field as the MAC header carries it, whole µs (ns-2's `usec`).
    fn duration_us(&self) -> u16 {
        (self.nav * 1e6).round() as u16
    }
}

/// What a radio's MAC is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing to send.
    Idle,
    /// Waiting for the medium (DIFS/EIFS plus backoff) to send the head of its queue.
    Contend,
    /// Sending its RTS or DATA, then waiting for the CTS or ACK.
    Send,
    WaitCts,
    WaitAck,
    /// Sending a management frame, then waiting for its answer until its send timer (ns-2's
    /// MAC_MGMT and MAC_BCN).
    Mgmt(Mgmt),
}

/// The frame an ns2-profile radio's MAC is receiving: ns-2's `pktRx_`, with `rx_state_`
/// MAC_RECV or, once another frame overlapped it, MAC_COLL.
#[derive(Debug, Clone, Copy)]
struct Ns2Rx {
    frame: FrameId,
    power: f64,
    /// It began while the radio sent, or below the receive threshold (ns-2's `error()`, set by
    /// `Mac802_11::recv` and `WirelessPhy::sendUp`), or the radio sent during it (`transmit`).
    errored: bool,
    /// MAC_COLL: another frame overlapped it.
    collided: bool,
    /// When it ends here.
    end: f64,
}

/// A radio: one node's interface on one WLAN.
pub struct Station {
    pub node: NodeId,
    wlan: u32,
    pos: (f64, f64),
    /// Packets waiting, with the radio each goes to and how.
    queue: Ring<(PacketId, RadioId, Via)>,
    state: State,
    cw: u32,
    /// Backoff slots still to count down; None when no backoff is pending.
    backoff: Option<u32>,
    /// When the current countdown's slots began (idle time + IFS).
    count_from: f64,
    /// With `ns2_backoff`, when the wait for the CTS or ACK of the RTS or data frame on the air
    /// ends: ns-2 starts its send timer as the frame starts, for the frame, the answer, SIFS
    /// and twice `DSSS_MaxPropagationDelay` (2 µs).
    answer_by: f64,
    /// With `ns2_backoff`: after its CTS, the MAC waits in ns-2's MAC_CTS for the data until
    /// this time (the CTS's timeout), or until the data comes.
    cts_until: f64,
    /// With `ns2_backoff`, the head of the queue as ns-2's MAC holds it (`pktTx_`): the
    /// receiver it had as it entered the MAC, if `check_pktTx` has since addressed it to the
    /// access point (wifi/infra.rs) ...
    head_entered_for: Option<RadioId>,
    /// ... and its RTS (`pktRTS_`).
    head_rts: HeadRts,
    /// With `ns2_backoff`, the backoff still to run as ns-2's `BackoffTimer` holds it: a time
    /// (slots × slot, less the slots counted at each pause), which it schedules as
    /// `stime + (rtime + difs)`; the last bits of these sums decide ties with other frames.
    rtime: f64,
    short_retries: u32,
    long_retries: u32,
    nav_until: f64,
    tx_until: f64,
    /// A frame of its own is on the air: ns-2's `tx_state_` is not idle until its `txHandler`
    /// has run, whatever else comes at that instant (ns2 profile).
    on_air: bool,
    /// Signals above the carrier-sense threshold on the air here.
    sensing: u32,
    /// When the medium last became idle (physically).
    idle_since: f64,
    /// The countdown starts no earlier than this (a frame's arrival, when the profile backs
    /// off even on an idle medium).
    not_before: f64,
    /// The frame being received: (frame, power, still intact).
    rx: Option<(FrameId, f64, bool)>,
    /// The ns2 profile's instead (ns-2's receive bookkeeping, `Ns2Rx`).
    ns2_rx: Option<Ns2Rx>,
    /// The last frame sensed was errored: wait EIFS instead of DIFS.
    eifs: bool,
    /// The frame to send SIFS after the one just received.
    respond: Option<(FrameKind, RadioId, f64)>,
    /// With `ns2_backoff` and no backoff on an idle medium (ns-2's `bugFix_timer_` false): the
    /// access timer is ns-2's defer timer, DIFS and a random number of slots that a busy medium
    /// does not pause (`start_defer`).
    defer: bool,
    access: Timer,
    timeout: Timer,
    response: Timer,
    nav_timer: Timer,
    seq: u16,
    /// The last data sequence number received from each radio (duplicate filter).
    last_seq: Vec<(RadioId, u16)>,
    draws: Draws,
    /// ARP (wifi/arp.rs): the radios whose address it knows, and the packet it holds for each
    /// radio it asked for.
    arp_known: Vec<RadioId>,
    arp_held: Vec<(RadioId, PacketId)>,
    /// The requests sent for each radio whose address it does not know yet (ns-2's `count_`).
    arp_requests: Vec<(RadioId, u32)>,
    /// Infrastructure mode's state (wifi/infra.rs), on an infrastructure WLAN only.
    infra: Option<Box<Infra>>,
    /// Its timers: an access point's beacons, a station's scan.
    beacon: Timer,
    probe: Timer,
    /// Loss models at this receiver: frames they pick arrive corrupted.
    pub losses: Vec<crate::loss::Loss>,
    /// Loss models at this sender: frames they pick go on the air corrupted.
    pub out_losses: Vec<crate::loss::Loss>,
    pub stats: MacStats,
    /// On an `802_11Ext` WLAN, its Ext PHY and MAC (wifi/ext.rs), which then run the radio.
    ext: Option<Box<ext::ExtRadio>>,
}

/// All WLANs of a run.
#[derive(Default)]
pub struct Wifi {
    pub wlans: Vec<WlanConfig>,
    pub stations: Vec<Station>,
    /// The nodes that move, by node (`set_moves`; wifi/channel.rs).
    motions: Vec<Option<crate::mobility::path::Motion>>,
    /// Each ns2-profile WLAN's channel list (wifi/channel.rs); empty for the others.
    lists: Vec<channel::NodeList>,
    frames: Vec<Frame>,
    /// By frame id: the frame went on the air corrupted (its sender's outgoing loss model
    /// picked it), so that no receiver takes it.
    sent_corrupted: Vec<bool>,
    free: Vec<FrameId>,
    /// The MAC header (duration in µs, destination, source, ethertype) of the data frame that
    /// brought each packet delivered and not yet handed to an agent, while the wireless trace
    /// is on: ns-2's packet keeps it, and its agent's receipt line prints it.
    mac_headers: Vec<(PacketId, RxHeader)>,
    /// ARP replies on their way to the interface queue that keep the next hop their request's
    /// IP header named and its `dh_3a` (ns-2's `arpinput` answers in the request's own packet).
    kept_next_hops: Vec<(PacketId, i32, Option<RadioId>)>,
    /// The packets of broadcast frames an access point relayed a copy of (wifi/infra.rs): the
    /// others are lost once their frame has ended everywhere (`broadcast_ended`).
    relayed_broadcasts: Vec<PacketId>,
    /// The radios a frame reaches (`transmit`), kept between frames so that sending one
    /// allocates nothing.
    reach: Vec<RadioId>,
    /// The frames of `802_11Ext` radios on the air, and the free slots among them (wifi/ext.rs).
    ext_frames: Vec<ext::ExtFrame>,
    ext_free: Vec<FrameId>,
}

/// What a wireless trace line prints of the frame that carries (or brought) a packet: its MAC
/// header (duration in µs, destination, source, ethertype), the hops it has made
/// (`num_forwards`) and the next hop its IP header names (`ch->next_hop_`, none unless an
/// access point relayed it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxHeader {
    pub mac: (u32, u32, u32, u32),
    pub forwards: u32,
    pub next_hop: i32,
}

impl RxHeader {
    /// Header `mac` on a packet that has made one hop if `ev` is a receipt, none otherwise.
    pub fn plain(mac: (u32, u32, u32, u32), ev: char) -> RxHeader {
        RxHeader { mac, forwards: u32::from(ev == 'r'), next_hop: NO_NEXT_HOP }
    }
}

/// What a MAC event or a queued packet hands back to the network.
#[must_use = "a packet handed back still holds its slot"]
pub enum Outcome {
    Nothing,
    /// Packet `id` (a copy: the frame keeps its own until it is acknowledged) reached `node`
    /// through its radio `radio`, sent by node `from`. The radio waits for `Wifi::resume`.
    Delivered {
        node: NodeId,
        from: NodeId,
        radio: RadioId,
        id: PacketId,
    },
    /// The MAC gave packet `id` up (a full interface queue, the retry limit): it is lost.
    Dropped(PacketId),
}

/// Where the RTS of the frame at the head of a queue stands, in ns-2's MAC (`pktRTS_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeadRts {
    /// Made as the frame entered the MAC (`send`), for the receiver the frame had then: none
    /// for a short frame or a broadcast.
    FromEntry,
    /// A CTS answered it, or a handoff's probe request took its place (`RetransmitDATA`
    /// makes none then): the data goes without one.
    Gone,
    /// Made again for the frame's receiver of now (`RetransmitDATA`, and `check_pktTx` on a
    /// busy medium).
    Renewed,
}

/// The destination of a broadcast frame (ns-2's `MAC_BROADCAST`): every radio in range takes
/// it, none acknowledges it, and it is sent once, without RTS/CTS.
pub const BROADCAST: RadioId = RadioId(u32::MAX);

/// A MAC address no radio has (`Via::da` of a frame addressed to ns-2's MAC 0 where node 0 has
/// no radio: wifi/infra.rs; an `Agent/PBC`'s unicast to a node without one: wifi/ext.rs).
pub(crate) const NOWHERE: RadioId = RadioId(u32::MAX - 1);

/// Slack for comparing times computed along different paths.
const EPS: f64 = 1e-12;

impl Wifi {
    /// One radio per (WLAN, node); `draws(name)` gives each its random numbers.
    pub fn new(wlans: Vec<WlanConfig>, mut draws: impl FnMut(String) -> Draws) -> Wifi {
        let mut stations = Vec::new();
        let nodes = node_count(&wlans);
        for (w, cfg) in wlans.iter().enumerate() {
            for (&node, &pos) in cfg.nodes.iter().zip(&cfg.positions) {
                let infra = cfg.infrastructure.as_ref().map(|i| {
                    Box::new(Infra {
                        ap: i.access_points.contains(&node),
                        scan: i.scans.iter().find(|s| s.node == node).copied(),
                        ..Infra::default()
                    })
                });
                stations.push(Station {
                    node: NodeId::of(node),
                    wlan: w as u32,
                    pos,
                    queue: Ring::default(),
                    state: State::Idle,
                    cw: cfg.cw_min,
                    backoff: None,
                    count_from: 0.0,
                    answer_by: 0.0,
                    cts_until: 0.0,
                    head_entered_for: None,
                    head_rts: HeadRts::FromEntry,
                    rtime: 0.0,
                    short_retries: 0,
                    long_retries: 0,
                    nav_until: 0.0,
                    tx_until: 0.0,
                    on_air: false,
                    sensing: 0,
                    idle_since: 0.0,
                    not_before: 0.0,
                    defer: false,
                    rx: None,
                    ns2_rx: None,
                    eifs: false,
                    respond: None,
                    access: Timer::near(),
                    timeout: Timer::near(),
                    response: Timer::near(),
                    nav_timer: Timer::near(),
                    seq: 0,
                    last_seq: Vec::new(),
                    draws: draws(format!("wifi/{}/{}", cfg.name, node)),
                    arp_known: Vec::new(),
                    arp_held: Vec::new(),
                    arp_requests: Vec::new(),
                    infra,
                    beacon: Timer::near(),
                    probe: Timer::near(),
                    losses: Vec::new(),
                    out_losses: Vec::new(),
                    stats: MacStats::default(),
                    ext: cfg.ext.as_ref().map(|e| Box::new(ext::ExtRadio::new(e, cfg.cw_min, nodes))),
                });
            }
        }
        // ns-2's channel lists its nodes in the order they were made (`add-node`): by node
        let lists = (0..wlans.len() as u32)
            .map(|w| {
                let cfg = &wlans[w as usize];
                let mut radios: Vec<RadioId> = (0..stations.len() as u32)
                    .filter(|&r| cfg.ns2_backoff && stations[r as usize].wlan == w)
                    .map(RadioId)
                    .collect();
                radios.sort_by_key(|r| stations[r.index()].node);
                channel::NodeList::new(radios, cfg.ns2_channel_reach())
            })
            .collect();
        Wifi {
            wlans,
            stations,
            motions: Vec::new(),
            lists,
            frames: Vec::new(),
            sent_corrupted: Vec::new(),
            free: Vec::new(),
            mac_headers: Vec::new(),
            kept_next_hops: Vec::new(),
            relayed_broadcasts: Vec::new(),
            reach: Vec::new(),
            ext_frames: Vec::new(),
            ext_free: Vec::new(),
        }
    }

    /// The MAC header of the frame that brought packet `id` (see `mac_headers`), forgotten.
    pub fn take_mac_header(&mut self, id: PacketId) -> Option<RxHeader> {
        let i = self.mac_headers.iter().position(|&(p, _)| p == id)?;
        Some(self.mac_headers.swap_remove(i).1)
    }

    /// The radio of `node` on WLAN `wlan`.
    pub fn radio(&self, wlan: usize, node: usize) -> Option<RadioId> {
        let r = self.stations.iter().position(|s| s.wlan as usize == wlan && s.node.index() == node)?;
        Some(RadioId(r as u32))
    }

    /// Pairs of radios that can exchange frames (see `WlanConfig::pairs`).
    pub fn edges(&self) -> Vec<(RadioId, RadioId)> {
        let mut edges = Vec::new();
        let mut first = 0u32;
        for cfg in &self.wlans {
            edges.extend(cfg.pairs().into_iter().map(|(a, b)| (RadioId(first + a as u32), RadioId(first + b as u32))));
            first += cfg.nodes.len() as u32;
        }
        edges
    }

    fn frame(&mut self, f: Frame, corrupted: bool) -> FrameId {
        match self.free.pop() {
            Some(i) => {
                self.frames[i.index()] = f;
                self.sent_corrupted[i.index()] = corrupted;
                i
            }
            None => {
                self.frames.push(f);
                self.sent_corrupted.push(corrupted);
                FrameId(self.frames.len() as u32 - 1)
            }
        }
    }

    /// One event fewer refers to frame `f`; the last frees it, and hands back a broadcast
    /// frame's packet to release (a unicast frame's stays with its sender until its ACK).
    #[must_use = "a broadcast frame's packet still holds its slot"]
    fn unref(&mut self, f: FrameId) -> Option<PacketId> {
        let frame = &mut self.frames[f.index()];
        frame.refs -= 1;
        if frame.refs == 0 {
            self.free.push(f);
            if frame.dst == BROADCAST {
                return frame.pkt;
            }
        }
        None
    }
}

/// How many nodes the WLANs' radios belong to, counting up to the highest (ns-2's `god
/// num_nodes`, which sizes an Ext MAC's duplicate cache).
fn node_count(wlans: &[WlanConfig]) -> usize {
    wlans.iter().flat_map(|w| w.nodes.iter()).max().map_or(0, |&n| n + 1)
}

impl Station {
    /// The WLAN (position in the scenario's `wlans`) this radio is on.
    pub fn wlan_index(&self) -> usize {
        self.wlan as usize
    }

    fn timer(&mut self, which: MacTimer) -> &mut Timer {
        match which {
            MacTimer::Access => &mut self.access,
            MacTimer::Timeout => &mut self.timeout,
            MacTimer::Respond => &mut self.response,
            MacTimer::Nav => &mut self.nav_timer,
            MacTimer::Beacon => &mut self.beacon,
            MacTimer::Probe => &mut self.probe,
        }
    }

    /// Whether anything waits for the medium: a packet, or a management frame.
    fn has_frames(&self) -> bool {
        !self.queue.is_empty() || self.infra.as_ref().is_some_and(|i| !i.pending.is_empty())
    }
}

impl Wifi {
    /// A MAC line of the wireless trace for `frame` sent ('s') or received ('r') at radio `r`.
    /// Inline, so that a run without the wireless trace pays only the test.
    #[inline]
    fn trace_frame(&mut self, ctx: &mut Ctx, ev: char, r: RadioId, frame: &Frame, reason: &'static str) {
        if ctx.tracer.wireless.is_some() {
            self.write_frame(ctx, ev, r, frame, reason);
        }
    }

    /// The line `trace_frame` writes.
    #[inline(never)]
    fn write_frame(&mut self, ctx: &mut Ctx, ev: char, r: RadioId, frame: &Frame, reason: &'static str) {
        let now = ctx.now_secs();
        let node = |wifi: &Wifi, x: RadioId| wifi.stations[x.index()].node;
        // recvDATA strips the MAC bytes and counts the hop before it hands a frame up, finds it
        // a duplicate or refuses it busy
        let stripped = ev == 'r' || reason == "DUP" || (reason == "BSY" && frame.kind == FrameKind::Data);
        let (control, size, etype) = match frame.kind {
            FrameKind::Rts => (Some("RTS"), RTS_BYTES + 24, 0),
            FrameKind::Cts => (Some("CTS"), CTS_BYTES + 24, 0),
            FrameKind::Ack => (Some("ACK"), ACK_BYTES + 24, 0),
            FrameKind::Mgmt(m) => (Some(m.name()), m.bytes() + 24, 0),
            FrameKind::Data => {
                let p = ctx.pkts.get(frame.pkt.expect("data carries a packet"));
                let (ip, etype) = (p.size, if p.kind == crate::packet::Kind::Arp { 0x806 } else { 0x800 });
                // ns-2 prints a data frame's size with its MAC and PLCP bytes, but once received
                // (the MAC strips them before handing it up)
                // the link layer types a relayed packet IP again (LL::sendDown)
                let etype = if frame.via.typed_ip { 0x800 } else { etype };
                // a DSDV agent's packet given up has lost them too: its failure callback
                // (`xmit_failure_`) took its MAC header off before the discard
                let callback = reason == "RET" && p.next_hop.is_some();
                (None, if stripped || callback { ip } else { ip + self.wlan_of(r).timing.mac_overhead + 24 }, etype)
            }
        };
        // CTS and ACK carry no transmitter address
        let src = if matches!(frame.kind, FrameKind::Cts | FrameKind::Ack) { 0 } else { node(self, frame.src).get() };
        let dst = if frame.dst == BROADCAST { u32::MAX } else { node(self, frame.dst).get() };
        let mac = (u32::from(frame.duration_us()), dst, src, etype);
        let packet = frame.pkt.map(|id| *ctx.pkts.get(id));
        // a packet a DSDV agent routed carries its own hop count (and next hop: trace.rs)
        let hops = match packet.filter(|p| p.next_hop.is_some()) {
            Some(p) => u32::from(p.forwards),
            None => frame.via.hops,
        };
        let e = crate::trace::WirelessEvent {
            ev,
            now,
            node: node(self, r),
            pos: self.traced_position(ctx, r, now, "MAC", ev),
            layer: "MAC",
            reason,
            mac,
            control,
            packet: packet.as_ref(),
            size,
            forwards: hops + u32::from(stripped),
            // an RTS, CTS or ACK is a packet of its own
            next_hop: if frame.kind == FrameKind::Data { frame.via.next_hop } else { NO_NEXT_HOP },
        };
        ctx.tracer.wireless_event(&e);
    }

    /// The next hop `recvDATA` names in the IP header of a packet an access point relays to
    /// `da`: its node, -1 for a broadcast.
    fn relay_next_hop(&self, da: RadioId) -> i32 {
        match self.stations.get(da.index()) {
            Some(s) => s.node.get() as i32,
            None if da == BROADCAST => -1,
            None => 0, // MAC 0, which no radio has
        }
    }

    /// A wireless-trace line for packet `pkt` at a node with a radio (agent sends and receipts,
    /// drops). Inline, so that a run without the wireless trace pays only the test.
    #[inline]
    pub fn trace_radio_packet(
        &mut self,
        ctx: &mut Ctx,
        ev: char,
        node: NodeId,
        layer: &'static str,
        reason: &'static str,
        pkt: &Packet,
    ) {
        if ctx.tracer.wireless.is_some() {
            self.write_radio_packet(ctx, ev, node, layer, reason, pkt, RxHeader::plain((0, 0, 0, 0), ev));
        }
    }

    /// A line as `trace_radio_packet` writes it, with the header the packet carries.
    #[allow(clippy::too_many_arguments)]
    pub fn write_radio_packet(
        &mut self,
        ctx: &mut Ctx,
        ev: char,
        node: NodeId,
        layer: &'static str,
        reason: &'static str,
        pkt: &Packet,
        header: RxHeader,
    ) {
        let Some(r) = self.stations.iter().position(|s| s.node == node) else { return };
        let now = ctx.now_secs();
        let e = crate::trace::WirelessEvent {
            ev,
            now,
            node,
            pos: self.traced_position(ctx, RadioId(r as u32), now, layer, ev),
            layer,
            reason,
            mac: header.mac,
            control: None,
            packet: Some(pkt),
            size: pkt.size,
            // a packet a DSDV agent routed carries its own hop count and next hop
            forwards: if pkt.next_hop.is_some() { u32::from(pkt.forwards) } else { header.forwards },
            next_hop: header.next_hop, // a DSDV agent's own: trace.rs
        };
        ctx.tracer.wireless_event(&e);
    }

    /// Whether radio `r` resolves next hops with ARP (`WlanConfig::arp`).
    pub fn arp(&self, r: RadioId) -> bool {
        self.wlan_of(r).arp
    }

    /// The link layer's delay at radio `r`, each way (`WlanConfig::ll_delay`).
    pub fn ll_delay(&self, r: RadioId) -> f64 {
        self.wlan_of(r).ll_delay
    }

    fn wlan_of(&self, r: RadioId) -> &WlanConfig {
        &self.wlans[self.stations[r.index()].wlan as usize]
    }

    fn medium_busy(&self, r: RadioId, now: f64) -> bool {
        let s = &self.stations[r.index()];
        // ns-2's MAC is busy receiving while it has a frame in `pktRx_`, however many it senses
        let ns2 = self.wlan_of(r).ns2_backoff;
        let receiving = if ns2 { s.ns2_rx.is_some() } else { s.sensing > 0 };
        // and sending until its transmission's end has been handled (a packet that comes at that
        // very instant, but before it, finds the MAC still sending)
        let sending = s.tx_until > now + EPS || (ns2 && s.on_air);
        receiving || sending || s.nav_until > now + EPS
    }

    /// ns-2's `is_idle` as the defer timer sees it: nothing received or sent, no NAV, and not in
    /// MAC_CTS (the wait for the data after a CTS).
    fn ns2_idle(&self, r: RadioId, now: f64) -> bool {
        !self.medium_busy(r, now) && self.stations[r.index()].cts_until <= now
    }

    fn arm_mac(&mut self, ctx: &mut Ctx, r: RadioId, which: MacTimer, at: f64) {
        let at = at.max(ctx.sched.now_exact());
        let timer = self.stations[r.index()].timer(which);
        ctx.sched.arm(timer, at, |gen| Event::Wifi(WifiEvent::Timer(r, which, gen)));
    }

    fn draw_backoff(&mut self, ctx: &mut Ctx, r: RadioId) -> u32 {
        let ns2 = self.wlan_of(r).ns2_backoff;
        let s = &mut self.stations[r.index()];
        if ns2 {
            // mac-timers.cc, BackoffTimer::start: `Random::random() % cw`, so slot cw is never drawn
            let slots = s.draws.integer(s.cw, &mut ctx.rng);
            s.rtime = slots as f64 * self.wlans[s.wlan as usize].timing.slot;
            return slots;
        }
        let u = s.draws.uniform(&mut ctx.rng);
        ((u * (s.cw + 1) as f64) as u32).min(s.cw)
    }

    /// ns-2's `mhDefer_.start(DIFS + rTime)` without `bugFix_timer_`: the slots drawn as a
    /// backoff's (`Random::random() % cw_`), the wait not paused by a busy medium.
    fn start_defer(&mut self, ctx: &mut Ctx, r: RadioId) {
        let slots = self.draw_backoff(ctx, r);
        let timing = &self.wlan_of(r).timing;
        let at = ctx.now_secs() + (timing.difs() + slots as f64 * timing.slot);
        self.stations[r.index()].defer = true;
        self.arm_mac(ctx, r, MacTimer::Access, at);
    }

    /// The defer timer ends (`deferHandler`): the head goes if the medium is idle; otherwise
    /// (`check_pktRTS`, `check_pktTx`) the window grows and a backoff is drawn, paused.
    fn defer_ends(&mut self, ctx: &mut Ctx, r: RadioId) {
        self.stations[r.index()].defer = false;
        if self.ns2_idle(r, ctx.now_secs()) {
            return self.send_head(ctx, r);
        }
        let cw_max = self.wlan_of(r).cw_max;
        let s = &mut self.stations[r.index()];
        s.cw = (2 * s.cw + 1).min(cw_max);
        let slots = self.draw_backoff(ctx, r);
        self.stations[r.index()].backoff = Some(slots);
    }

    /// Queues `id` at radio `r` for radio `to`: `Dropped` if the interface queue is full.
    pub fn enqueue(&mut self, ctx: &mut Ctx, r: RadioId, to: RadioId, id: PacketId) -> Outcome {
        if self.stations[r.index()].ext.is_some() {
            return self.ext_enqueue(ctx, r, to, id);
        }
        let (ra, mut via) = self.address(r, to);
        if let Some(i) = self.kept_next_hops.iter().position(|k| k.0 == id) {
            let (_, next_hop, da) = self.kept_next_hops.swap_remove(i);
            if next_hop != crate::trace::NO_NEXT_HOP {
                via.next_hop = next_hop;
            }
            if let Some(da) = da.filter(|_| self.in_no_bss(r)) {
                via.da = da; // `hdr_dst` leaves the request's `dh_3a` (wifi/infra.rs `address`)
            }
        }
        self.enqueue_via(ctx, r, ra, via, id)
    }

    /// Queues `id` at radio `r` for radio `to` (its receiver), addressed beyond it by `via`.
    fn enqueue_via(&mut self, ctx: &mut Ctx, r: RadioId, to: RadioId, via: Via, id: PacketId) -> Outcome {
        let (limit, ns2) = (self.wlan_of(r).queue_limit as usize, self.wlan_of(r).ns2_backoff);
        let s = &mut self.stations[r.index()];
        // ns-2's PriQueue (a DropTail) refuses a packet when it would hold `limit` with it, not
        // counting the one the MAC has: with `limit` 1 it refuses every packet, even when empty
        let held = if ns2 { s.queue.len().max(1) } else { s.queue.len() };
        // PriQueue's `Prefer_Routing_Protocols`: a route update goes to the head of the queue,
        // behind the packet the MAC has, and a queue it fills loses its tail
        let routing = ns2 && !s.queue.is_empty() && ctx.pkts.get(id).kind == crate::packet::Kind::Message;
        if routing {
            s.queue.insert(1, (id, to, via));
            if s.queue.len() - 1 < limit {
                return Outcome::Nothing;
            }
            let (tail, tail_to, tail_via) = s.queue.remove(s.queue.len() - 1);
            s.stats.queue_drops += 1;
            self.trace_queue_drop(ctx, r, tail_to, tail_via, tail, "---");
            return Outcome::Dropped(tail);
        }
        if held >= limit {
            s.stats.queue_drops += 1;
            self.trace_queue_drop(ctx, r, to, via, id, "---");
            return Outcome::Dropped(id);
        }
        s.queue.push_back((id, to, via));
        if s.queue.len() == 1 {
            self.head_enters(r);
        }
        let s = &mut self.stations[r.index()];
        if ns2 && matches!(s.state, State::Mgmt(_)) && s.queue.len() == 1 && s.backoff.is_none() {
            // ns-2's `send` while a management frame holds the MAC draws a backoff, paused; an
            // access point's send timer draws another, which replaces it, unless the timer frees
            // an unsent probe request instead and resumes this one (wifi/infra.rs)
            let slots = self.draw_backoff(ctx, r);
            self.stations[r.index()].backoff = Some(slots);
            return Outcome::Nothing;
        }
        let s = &mut self.stations[r.index()];
        if s.state == State::Idle {
            s.state = State::Contend;
            if ns2 && s.backoff.is_some() {
                // ns-2's `send`: a backoff still running (or paused) sends the frame when it ends
                self.try_access(ctx, r);
                return Outcome::Nothing;
            }
            if s.backoff.is_none() {
                let now = ctx.now_secs();
                if ns2 && s.respond.is_some() && !self.medium_busy(r, now) {
                    // ns-2's `send` on an idle medium starts no backoff while its defer timer
                    // runs the SIFS before a CTS or ACK: `tx_resume` draws one once that has
                    // gone (`tx_end`)
                    return Outcome::Nothing;
                }
                if ns2 && !self.wlan_of(r).backoff_when_idle && self.ns2_idle(r, now) {
                    // ns-2's `send` without bugFix_timer_: the defer timer, not the backoff
                    self.start_defer(ctx, r);
                    return Outcome::Nothing;
                }
                let backoff_always = ns2 || self.wlan_of(r).backoff_when_idle;
                // A frame that finds the medium idle goes after DIFS without a backoff
                // (unless the profile backs off always); one that finds it busy backs off.
                let slots = if backoff_always || self.medium_busy(r, now) { self.draw_backoff(ctx, r) } else { 0 };
                self.stations[r.index()].backoff = Some(slots);
            }
            if ns2 || self.wlan_of(r).backoff_when_idle {
                // ns-2 waits DIFS and the backoff from the frame's arrival, however long the
                // medium was idle before (or from the end of its wait for data after a CTS)
                let s = &mut self.stations[r.index()];
                s.not_before = s.not_before.max(ctx.now_secs());
            }
            self.try_access(ctx, r);
        }
        Outcome::Nothing
    }

    /// The interface queue of radio `r` drops packet `id`, for radio `to`, addressed `via`: as
    /// full (`---`), or at a reset (`END`).
    fn trace_queue_drop(&mut self, ctx: &mut Ctx, r: RadioId, to: RadioId, via: Via, id: PacketId, why: &'static str) {
        let (node, pkt, ns2) = (self.stations[r.index()].node, *ctx.pkts.get(id), self.wlan_of(r).ns2_backoff);
        if ns2 && ctx.tracer.wireless.is_some() {
            // the link layer has written the MAC header's addresses and type (arpresolve,
            // LL::sendDown; IP for an access point's relay); the duration comes with the MAC, but
            // for a packet relayed or forwarded by DSDV: that of the frame that brought it
            let dst = if to == BROADCAST { u32::MAX } else { self.stations[to.index()].node.get() };
            let arp = pkt.kind == crate::packet::Kind::Arp && !via.typed_ip;
            let etype = if arp { 0x806 } else { 0x800 };
            let nav = u32::from(pkt.rx_duration);
            let header = RxHeader { mac: (nav, dst, node.get(), etype), forwards: via.hops, next_hop: via.next_hop };
            self.write_radio_packet(ctx, 'D', node, "IFQ", why, &pkt, header);
        } else {
            self.trace_radio_packet(ctx, 'D', node, "IFQ", why, &pkt);
        }
    }

    /// ns-2's `$node reset` (a wireless script's last `$ns at`): its PriQueue, then its ARP
    /// table, drop what they hold, traced `D ... IFQ END` (`Terminate`); the MAC keeps the
    /// frame it has. The packets dropped, for the caller to free.
    pub fn reset(&mut self, ctx: &mut Ctx, r: RadioId) -> Vec<PacketId> {
        let s = &mut self.stations[r.index()];
        let mut queued = Vec::new();
        // the packet at the head is the MAC's, but on an Ext radio, which holds its own
        let mac_has = usize::from(s.ext.is_none());
        while s.queue.len() > mac_has {
            queued.push(s.queue.remove(mac_has));
        }
        // ARPTable::Terminate: its entries newest first (each made by the first request)
        let mut held = Vec::new();
        for &(to, _) in s.arp_requests.iter().rev() {
            if let Some(i) = s.arp_held.iter().position(|(next, _)| *next == to) {
                held.push(s.arp_held.swap_remove(i).1);
            }
        }
        let mut dropped = Vec::with_capacity(queued.len() + held.len());
        for (id, to, via) in queued {
            self.stations[r.index()].stats.queue_drops += 1;
            self.trace_queue_drop(ctx, r, to, via, id, "END");
            dropped.push(id);
        }
        let node = self.stations[r.index()].node;
        for id in held {
            let pkt = *ctx.pkts.get(id);
            self.write_radio_packet(ctx, 'D', node, "IFQ", "END", &pkt, arp::held_header(node, &pkt));
            dropped.push(id);
        }
        dropped
    }

    /// Starts (or restarts) the countdown towards sending the queue's head, if the medium is idle.
    fn try_access(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        let s = &self.stations[r.index()];
        let cfg = self.wlan_of(r);
        // ns-2's post-backoff counts down with nothing queued too
        let post = cfg.ns2_backoff && s.state == State::Idle && s.backoff.is_some();
        if !(post || (s.state == State::Contend && s.has_frames())) || self.medium_busy(r, now) {
            return;
        }
        if cfg.ns2_backoff && s.backoff.is_none() && s.cts_until > now {
            // ns-2 has yet to draw the backoff, at the end of MAC_CTS (`tx_end`)
            return;
        }
        if cfg.ns2_backoff && (s.access.pending() || s.defer) {
            // ns-2 resumes only a paused backoff (checkBackoffTimer): a running one keeps its
            // place among the events of its instant
            return;
        }
        let ifs = if s.eifs { cfg.eifs() } else { cfg.timing.difs() };
        let slot = cfg.timing.slot;
        let idle_from = s.idle_since.max(s.nav_until).max(s.not_before);
        let count_from = idle_from + ifs;
        let slots = s.backoff.unwrap_or(0);
        // ns-2 schedules its backoff timer `rtime + difs` after it (re)starts it
        let at = if cfg.ns2_backoff && s.backoff.is_some() {
            idle_from + (s.rtime + ifs)
        } else {
            count_from + slots as f64 * slot
        };
        self.stations[r.index()].count_from = count_from;
        self.arm_mac(ctx, r, MacTimer::Access, at);
    }

    /// The medium turned busy: a running countdown keeps the slots it has left.
    fn freeze(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        let (slot, ns2) = (self.wlan_of(r).timing.slot, self.wlan_of(r).ns2_backoff);
        let s = &mut self.stations[r.index()];
        if !s.access.pending() || s.defer {
            return; // ns-2's defer timer runs on
        }
        s.access.cancel();
        if let (true, Some(slots)) = (ns2, s.backoff) {
            // BackoffTimer::pause: whole slots since the countdown began, truncated
            let counted = (((now - s.count_from) / slot) as i64).max(0) as u32;
            s.rtime -= counted as f64 * slot;
            s.backoff = Some(slots - counted.min(slots));
        } else if let Some(slots) = s.backoff {
            let counted = if now > s.count_from { ((now - s.count_from) / slot + EPS).floor() as u32 } else { 0 };
            s.backoff = Some(slots - counted.min(slots));
        }
    }

    /// ns-2's `set_nav`: the NAV reaches `duration` past `now`, counted in whole microseconds as
    /// the MAC header's duration field holds it, unless it already reaches further.
    fn set_nav(&mut self, ctx: &mut Ctx, r: RadioId, now: f64, duration: f64) {
        let until = now + (duration * 1e6).round() * 1e-6;
        if until > self.stations[r.index()].nav_until {
            self.stations[r.index()].nav_until = until;
            self.freeze(ctx, r);
            self.arm_mac(ctx, r, MacTimer::Nav, until);
        }
    }

    /// The medium may have turned idle at `now`.
    fn medium_maybe_idle(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        if !self.medium_busy(r, now) {
            self.try_access(ctx, r);
        }
    }

    /// How long `frame` is on the air. ns-2 (`sendDATA`) sends a broadcast frame at the basic
    /// rate; the standard profile sends every data frame at the data rate.
    fn air(&self, ctx: &Ctx, frame: &Frame) -> f64 {
        let cfg = self.wlan_of(frame.src);
        let timing = &cfg.timing;
        match frame.kind {
            FrameKind::Rts => timing.control(RTS_BYTES),
            FrameKind::Cts => timing.control(CTS_BYTES),
            FrameKind::Ack => timing.control(ACK_BYTES),
            FrameKind::Mgmt(m) => timing.control(m.bytes()),
            FrameKind::Data => {
                let size = ctx.pkts.get(frame.pkt.expect("data carries a packet")).size;
                // ns-2 (`sendDATA`) times a frame that entered the MAC as a broadcast (duration
                // 0) at the basic rate, even once readdressed to the access point
                if cfg.ns2_backoff && (frame.dst == BROADCAST || frame.nav == 0.0) {
                    timing.air(size + timing.mac_overhead, timing.basic_rate)
                } else {
                    timing.data(size)
                }
            }
        }
    }

    /// Puts a frame on the air from its radio (`src`; `refs` 1, its own end); every radio that
    /// senses it gets its start and end.
    fn transmit(&mut self, ctx: &mut Ctx, frame: Frame) {
        let Frame { kind, src: r, .. } = frame;
        let now = ctx.now_secs();
        let (wlan, timing) = {
            let cfg = self.wlan_of(r);
            (self.stations[r.index()].wlan, cfg.timing.clone())
        };
        let air = self.air(ctx, &frame);
        let stats = &mut self.stations[r.index()].stats;
        match kind {
            FrameKind::Rts => stats.rts += 1,
            FrameKind::Cts => stats.cts += 1,
            FrameKind::Data => stats.data += 1,
            FrameKind::Ack => stats.acks += 1,
            FrameKind::Mgmt(_) => {}
        }
        self.trace_frame(ctx, 's', r, &frame, "---");
        // ns-2's OutgoingErrProc, between the MAC and the PHY: judged as `transmit` passes the
        // frame down, sized as the incoming models size it
        let corrupted = !self.stations[r.index()].out_losses.is_empty() && {
            let (fid, size) = self.judged_size(ctx, r, &frame);
            let s = &mut self.stations[r.index()];
            s.out_losses.iter_mut().any(|l| l.picks(fid, size, now, &mut ctx.rng))
        };
        let f = self.frame(frame, corrupted);
        self.freeze(ctx, r);
        if self.wlans[wlan as usize].ns2_backoff && frame.dst != BROADCAST {
            // check_pktRTS / check_pktTx: txtime + 2 µs + SIFS + the answer's txtime + 2 µs
            let answer = match kind {
                FrameKind::Rts => Some(timing.control(CTS_BYTES)),
                FrameKind::Data => Some(timing.control(ACK_BYTES)),
                _ => None,
            };
            if let Some(answer) = answer {
                self.stations[r.index()].answer_by = now + (air + 2e-6 + timing.sifs + answer + 2e-6);
            }
            if kind == FrameKind::Cts {
                // check_pktCTRL: the MAC stays in MAC_CTS, its backoff paused, until the data
                // ends or this guess of its end: CTS + 2 µs + the CTS's duration field (whole
                // µs, `sec`) + 2 µs - SIFS - ACK from the CTS's start
                let duration = (frame.nav * 1e6).round() * 1e-6;
                let ack = timing.control(ACK_BYTES);
                let s = &mut self.stations[r.index()];
                s.answer_by = now + (air + 2e-6 + duration + 2e-6 - timing.sifs - ack);
                s.cts_until = s.answer_by;
            }
        }
        {
            let s = &mut self.stations[r.index()];
            s.tx_until = now + air;
            s.on_air = true;
            if let Some((_, _, intact)) = &mut s.rx {
                *intact = false; // half duplex: whatever it was receiving is lost
            }
            if let Some(rx) = &mut s.ns2_rx {
                rx.errored = true; // ns-2's `transmit` forces its discard
            }
        }
        ctx.sched.schedule_exact(now + air, Event::Wifi(WifiEvent::TxEnd(r, f)));
        let ns2 = self.wlans[wlan as usize].ns2_backoff;
        let mut reach = std::mem::take(&mut self.reach);
        if ns2 {
            self.ns2_reach(r, now, &mut reach);
        } else {
            reach.clear();
            let others = (0..self.stations.len() as u32).map(RadioId);
            reach.extend(others.filter(|&o| o != r && self.stations[o.index()].wlan == wlan));
        }
        for &o in &reach {
            // ns-2's `get_pdelay`: the sender, then the receiver, moved on to now
            let from = self.locate(r, now);
            let d = distance(from, self.locate(o, now));
            let radio = &self.wlans[wlan as usize].radio;
            // two nodes at one place are 2 DBL_EPSILON apart in ns-2
            let prop = if ns2 && d == 0.0 { 2.0 * f64::EPSILON } else { d / radio.light };
            // sensed or not as the frame leaves (ns-2 decides as it arrives, a propagation
            // delay later, by then moving nodes have moved µm)
            if radio.rx_power(d) < radio.cs_threshold {
                if ns2 {
                    self.schedule_faint(ctx, now + prop, o, r);
                }
                continue;
            }
            ctx.sched.schedule_exact(now + prop, Event::Wifi(WifiEvent::RxStart(o, f)));
            ctx.sched.schedule_exact(now + prop + air, Event::Wifi(WifiEvent::RxEnd(o, f)));
            self.frames[f.index()].refs += 1;
        }
        self.reach = reach;
    }

    /// Handles a radio event: a packet may come out of it, delivered or given up.
    pub fn on_event(&mut self, ctx: &mut Ctx, ev: WifiEvent) -> Outcome {
        match ev {
            WifiEvent::TxEnd(r, f) => {
                self.tx_end(ctx, r, self.frames[f.index()]);
                // a broadcast no radio heard
                return self.unref(f).map_or(Outcome::Nothing, |p| self.broadcast_ended(ctx, p));
            }
            WifiEvent::RxStart(r, f) => self.rx_start(ctx, r, f),
            WifiEvent::Faint(r, src) => self.faint_arrival(ctx, r, src),
            WifiEvent::RxEnd(r, f) => return self.rx_end(ctx, r, f),
            WifiEvent::Timer(r, which, gen) => return self.mac_timer(ctx, r, which, gen),
            WifiEvent::Relay(r, da, header, id) => {
                let (ra, via) = self.address(r, da);
                let next_hop = self.relay_next_hop(da);
                let via = Via { hops: u32::from(header.hops), next_hop, typed_ip: true, ..via };
                return self.enqueue_via(ctx, r, ra, via, id);
            }
            WifiEvent::ExtArrive(r, f) => self.ext_arrive(ctx, r, f),
            WifiEvent::ExtTimer(r, which, gen) => return self.ext_timer(ctx, r, which, gen),
            WifiEvent::LlDown(..) | WifiEvent::LlUp(..) => unreachable!("the network handles the link layer's events"),
        }
        Outcome::Nothing
    }

    /// Radio `r` finished sending `frame`.
    fn tx_end(&mut self, ctx: &mut Ctx, r: RadioId, frame: Frame) {
        let now = ctx.now_secs();
        if ctx.tracer.eot {
            // cmu-trace.cc: the `x` line of the frame whose transmission ends (`txHandler`)
            self.trace_frame(ctx, 'x', r, &frame, "---");
        }
        let (timing, ns2) = (self.wlan_of(r).timing.clone(), self.wlan_of(r).ns2_backoff);
        self.stations[r.index()].idle_since = now;
        self.stations[r.index()].on_air = false;
        let sent_ack = (self.stations[r.index()].state, frame.kind) == (State::Contend, FrameKind::Ack);
        if sent_ack && self.resume_without_rts(ctx, r) {
            return;
        }
        let s = &mut self.stations[r.index()];
        match (s.state, frame.kind) {
            (State::Send, FrameKind::Rts) => {
                s.state = State::WaitCts;
                let by = if ns2 { s.answer_by } else { now + timing.sifs + timing.control(CTS_BYTES) + timing.slot };
                self.arm_mac(ctx, r, MacTimer::Timeout, by);
            }
            (State::Send, FrameKind::Data) if frame.dst == BROADCAST => self.sent_ok(ctx, r),
            // a beacon's send timer is its own length (`check_pktBEACON`)
            (State::Mgmt(Mgmt::Beacon), _) => self.beacon_sent(ctx, r),
            (State::Send, FrameKind::Data) => {
                s.state = State::WaitAck;
                let by = if ns2 { s.answer_by } else { now + timing.sifs + timing.control(ACK_BYTES) + timing.slot };
                self.arm_mac(ctx, r, MacTimer::Timeout, by);
            }
            (State::Contend, FrameKind::Ack) if ns2 && s.backoff.is_none() => {
                // a packet came while the ACK waited its SIFS (`enqueue`): ns-2's `tx_resume`
                // starts its backoff now, paused, and resumes it DIFS after now
                s.not_before = now;
                self.resume_backoff(ctx, r);
            }
            (State::Contend, FrameKind::Cts) if ns2 && s.backoff.is_none() => {
                // a packet came while the CTS waited its SIFS: ns-2's `tx_resume` draws its
                // backoff when MAC_CTS ends, at the CTS's timeout (`MacTimer::Timeout`) or, if
                // the data comes, as the ACK ends (the arm above); it resumes DIFS after
                s.not_before = s.answer_by;
                let by = s.answer_by;
                self.arm_mac(ctx, r, MacTimer::Timeout, by);
            }
            (_, FrameKind::Cts) if ns2 => {
                // no data yet: ns-2's `tx_resume` comes at the CTS's timeout (check_pktCTRL,
                // send_timer), and the backoff resumes DIFS after it at the earliest
                s.not_before = s.not_before.max(s.answer_by);
                self.medium_maybe_idle(ctx, r)
            }
            _ => self.medium_maybe_idle(ctx, r), // a CTS or ACK sent in response
        }
    }

    fn rx_start(&mut self, ctx: &mut Ctx, r: RadioId, f: FrameId) {
        let now = ctx.now_secs();
        let frame = self.frames[f.index()];
        let power = self.arrival_power(r, frame.src, now);
        let cfg = self.wlan_of(r);
        let (rx_threshold, capture) = (cfg.radio.rx_threshold, cfg.radio.capture_ratio);
        if cfg.ns2_backoff {
            return self.rx_start_ns2(ctx, r, f, power);
        }
        let was_busy = self.medium_busy(r, now);
        let s = &mut self.stations[r.index()];
        s.sensing += 1;
        if s.tx_until > now + EPS {
            // sending: it cannot receive
        } else if let Some((_, current, intact)) = &mut s.rx {
            if *current < capture * power && *intact {
                *intact = false;
                s.stats.collisions += 1;
            }
        } else if power >= rx_threshold {
            s.rx = Some((f, power, true));
        }
        if !was_busy {
            self.freeze(ctx, r);
        }
    }

    /// ns-2's `Mac802_11::recv` for an incoming frame's first bit: the MAC takes it as `pktRx_`
    /// if it has none; otherwise the one it has captures it (at least `capture_ratio` times
    /// stronger: the NAV then covers it and EIFS after it) or they collide, and of the two the
    /// one that lasts longer stays, the other is dropped now.
    fn rx_start_ns2(&mut self, ctx: &mut Ctx, r: RadioId, f: FrameId, power: f64) {
        let now = ctx.now_secs();
        let frame = self.frames[f.index()];
        let air = self.air(ctx, &frame);
        let cfg = self.wlan_of(r);
        let (rx_threshold, capture, eifs) = (cfg.radio.rx_threshold, cfg.radio.capture_ratio, cfg.eifs());
        let was_busy = self.medium_busy(r, now);
        // ns-2's IncomingErrProc sits between the PHY and the MAC: it judges every frame the
        // radio senses, as its first bit comes, and one it picks reaches the MAC errored
        let picked = self.corrupted(ctx, r, f);
        let s = &mut self.stations[r.index()];
        s.sensing += 1;
        let errored = s.tx_until > now + EPS || power < rx_threshold || picked;
        let new = Ns2Rx { frame: f, power, errored, collided: false, end: now + air };
        match s.ns2_rx {
            None => {
                s.ns2_rx = Some(new);
                self.note_reception(r);
            }
            Some(cur) if cur.power / power >= capture => self.set_nav(ctx, r, now, eifs + air),
            Some(cur) => {
                s.stats.collisions += 1;
                let (dropped, dropped_errored) = if air > cur.end - now {
                    s.ns2_rx = Some(Ns2Rx { collided: true, ..new });
                    (cur.frame, cur.errored)
                } else {
                    s.ns2_rx = Some(Ns2Rx { collided: true, ..cur });
                    (f, errored)
                };
                self.trace_collided(ctx, r, dropped, dropped_errored);
            }
        }
        if !was_busy {
            self.freeze(ctx, r);
        }
    }

    /// ns-2's `discard(p, DROP_MAC_COLLISION)`: an errored frame goes silently; a data frame
    /// for this radio or a broadcast, or a control frame for it, is traced as a drop.
    fn trace_collided(&mut self, ctx: &mut Ctx, r: RadioId, f: FrameId, errored: bool) {
        let frame = self.frames[f.index()];
        let traced = match frame.kind {
            // `discard` logs no broadcast to the distribution system
            FrameKind::Data => frame.dst == r || (frame.dst == BROADCAST && !frame.via.to_ds),
            FrameKind::Mgmt(m) => frame.dst == r && m.traced_when_dropped(),
            _ => frame.dst == r,
        };
        if !errored && traced {
            self.trace_frame(ctx, 'D', r, &frame, "COL");
        }
    }

    /// ns-2's `recv_timer` at the end of `pktRx_`: dropped silently if the radio is sending, a
    /// collided or errored frame sets the NAV EIFS ahead, an intact one is received. The end
    /// of a frame the MAC dropped or ignored as it began changes nothing.
    fn rx_end_ns2(&mut self, ctx: &mut Ctx, r: RadioId, f: FrameId) -> Outcome {
        let now = ctx.now_secs();
        let frame = self.frames[f.index()];
        let eifs = self.wlan_of(r).eifs();
        let s = &mut self.stations[r.index()];
        s.sensing -= 1;
        let Some(rx) = s.ns2_rx.filter(|rx| rx.frame == f) else {
            return self.unref(f).map_or(Outcome::Nothing, |p| self.broadcast_ended(ctx, p));
        };
        let s = &mut self.stations[r.index()];
        s.ns2_rx = None;
        s.idle_since = now;
        let sending = s.tx_until > now + EPS;
        let release = self.unref(f); // after this receiver has read it
        let mut out = None;
        if sending {
            // heard while it sent: never seen, no NAV
        } else if rx.collided {
            self.trace_collided(ctx, r, f, rx.errored);
            self.set_nav(ctx, r, now, eifs);
        } else if rx.errored {
            self.stations[r.index()].eifs = false; // the NAV is the EIFS here
            self.set_nav(ctx, r, now, eifs);
        } else {
            out = self.mac_receive(ctx, r, frame, rx.power);
        }
        self.after_rx(ctx, r, release, out)
    }

    /// The end of a reception: the frame's packet released once every radio has read it, and
    /// what was received handed up, or the medium looked at again.
    fn after_rx(&mut self, ctx: &mut Ctx, r: RadioId, release: Option<PacketId>, out: Option<Outcome>) -> Outcome {
        let ended = release.map(|p| self.broadcast_ended(ctx, p));
        if let Some(delivered) = out {
            return delivered; // the network resumes this radio once it has the packet (a broadcast delivers none)
        }
        self.medium_maybe_idle(ctx, r);
        ended.unwrap_or(Outcome::Nothing)
    }

    /// The packet of a broadcast frame every radio has done with: an ARP packet, or a packet
    /// an access point sent to the distribution system, which ends here unless another access
    /// point relayed it on (ns-2 discards it untraced: `recv_timer`).
    fn broadcast_ended(&mut self, ctx: &mut Ctx, p: PacketId) -> Outcome {
        let before = self.relayed_broadcasts.len();
        self.relayed_broadcasts.retain(|&q| q != p);
        if self.relayed_broadcasts.len() < before {
            ctx.pkts.release(p);
            return Outcome::Nothing;
        }
        Outcome::Dropped(p)
    }

    fn rx_end(&mut self, ctx: &mut Ctx, r: RadioId, f: FrameId) -> Outcome {
        if self.wlan_of(r).ns2_backoff {
            return self.rx_end_ns2(ctx, r, f);
        }
        let now = ctx.now_secs();
        let s = &mut self.stations[r.index()];
        s.sensing -= 1;
        let (received, collided, power) = match s.rx {
            Some((g, power, intact)) if g == f => {
                s.rx = None;
                (intact, !intact, power)
            }
            _ => (false, false, 0.0),
        };
        s.eifs = !received;
        if s.sensing == 0 {
            s.idle_since = now;
        }
        let frame = self.frames[f.index()];
        let received = received && !self.corrupted(ctx, r, f);
        let release = self.unref(f); // after this receiver has read it
        if collided && frame.dst == r {
            if let Some(id) = frame.pkt {
                let (node, pkt) = (self.stations[r.index()].node, *ctx.pkts.get(id));
                self.trace_radio_packet(ctx, 'D', node, "MAC", "COL", &pkt);
            }
        }
        let out = if received { self.mac_receive(ctx, r, frame, power) } else { None };
        self.after_rx(ctx, r, release, out)
    }

    /// Radio `r` looks at the medium again after handing a packet up (`Outcome::Delivered`):
    /// ns-2's MAC passes a frame to the node before it resumes, so the node's sends come first.
    pub fn resume(&mut self, ctx: &mut Ctx, r: RadioId) {
        if self.stations[r.index()].ext.is_some() {
            return; // the Ext MAC goes on as it hands a frame up
        }
        self.medium_maybe_idle(ctx, r);
    }

    /// Whether frame `f` reaches radio `r` corrupted: sent so, or picked by a loss model at
    /// the radio. The standard profile's judge the frames addressed to the radio as they end;
    /// the ns2 profile's, as ns-2's ErrorModel between the PHY and the MAC (IncomingErrProc),
    /// every frame the radio senses as it begins (a frame sent corrupted too).
    fn corrupted(&mut self, ctx: &mut Ctx, r: RadioId, f: FrameId) -> bool {
        let frame = self.frames[f.index()];
        let ns2 = self.wlan_of(r).ns2_backoff;
        let judged = (frame.dst == r || ns2) && !self.stations[r.index()].losses.is_empty();
        let lost = judged && {
            let (fid, size) = self.judged_size(ctx, r, &frame);
            let now = ctx.now_secs();
            let s = &mut self.stations[r.index()];
            s.losses.iter_mut().any(|l| l.picks(fid, size, now, &mut ctx.rng))
        };
        let corrupted = lost || self.sent_corrupted[f.index()];
        if corrupted && !ns2 {
            self.stations[r.index()].eifs = true;
        }
        corrupted
    }

    /// A frame's flow id and size as radio `r`'s loss models judge it: the MAC's size, and in
    /// the ns2 profile the PLCP's bytes too, as ns-2 counts them between the MAC and the PHY.
    fn judged_size(&self, ctx: &Ctx, r: RadioId, frame: &Frame) -> (u32, u32) {
        let ns2 = self.wlan_of(r).ns2_backoff;
        let (fid, mac_bytes) = match frame.pkt {
            Some(id) => {
                let p = ctx.pkts.get(id);
                (p.fid, p.size + self.wlan_of(r).timing.mac_overhead)
            }
            None => (
                u32::MAX,
                match frame.kind {
                    FrameKind::Rts => RTS_BYTES,
                    FrameKind::Cts => CTS_BYTES,
                    FrameKind::Mgmt(m) => m.bytes(),
                    _ => ACK_BYTES,
                },
            ),
        };
        (fid, mac_bytes + if ns2 { config::NS2_PLCP_BYTES } else { 0 })
    }

    /// An intact frame arrived at radio `r`, with `power` (W) as it began.
    fn mac_receive(&mut self, ctx: &mut Ctx, r: RadioId, frame: Frame, power: f64) -> Option<Outcome> {
        let now = ctx.now_secs();
        let timing = self.wlan_of(r).timing.clone();
        if frame.dst != r && frame.dst != BROADCAST {
            // Someone else's exchange: keep off the medium for its duration (virtual carrier sense).
            if self.wlan_of(r).ns2_backoff {
                self.set_nav(ctx, r, now, frame.nav);
                return None;
            }
            let until = now + frame.nav;
            let s = &mut self.stations[r.index()];
            if until > s.nav_until + EPS {
                s.nav_until = until;
                self.freeze(ctx, r);
                self.arm_mac(ctx, r, MacTimer::Nav, until);
            }
            return None;
        }
        if let FrameKind::Mgmt(m) = frame.kind {
            self.receive_mgmt(ctx, r, frame, m, power);
            return None;
        }
        // infrastructure mode: a frame an access point relays, or one for another BSS
        let relay_to = match self.infra_data(r, &frame) {
            Some(Ok(relay_to)) => relay_to,
            Some(Err(())) => return None, // not for this BSS: dropped untraced
            None => None,
        };
        // ns-2 traces a data frame as received only if it hands it up: not a duplicate
        let duplicate = self.wlan_of(r).ns2_backoff
            && frame.kind == FrameKind::Data
            && frame.dst == r
            && self.stations[r.index()].last_seq.contains(&(frame.src, frame.seq));
        if frame.kind == FrameKind::Rts && self.ns2_busy_for_rts(r, now) {
            // recvRTS: a MAC that is not idle (waiting for its own CTS or ACK, or for the data
            // after its CTS) or holds a CTS or ACK to send discards the RTS, traced (`BSY`)
            self.trace_frame(ctx, 'D', r, &frame, "BSY");
            return None;
        }
        if frame.kind == FrameKind::Data && frame.dst == r && self.ns2_busy_for_data(ctx, r, &frame, now) {
            self.trace_frame(ctx, 'D', r, &frame, "BSY");
            return None;
        }
        let state = self.stations[r.index()].state;
        let unexpected = match frame.kind {
            FrameKind::Cts => state != State::WaitCts,
            FrameKind::Ack => !matches!(state, State::WaitAck) && !matches!(state, State::Mgmt(m) if m != Mgmt::Beacon),
            _ => false,
        };
        if unexpected && self.wlan_of(r).ns2_backoff {
            // recvCTS, recvACK: a CTS or ACK the MAC no longer waits for (an ACK held by its
            // sender's management frame's send timer, come after the wait ended) is discarded,
            // traced (`STA`)
            self.trace_frame(ctx, 'D', r, &frame, "STA");
            return None;
        }
        if !duplicate {
            // a relayed packet's IP header names its next hop as the MAC hands it up; a
            // broadcast relayed goes up twice (`recvDATA` hands up a copy, then the relay)
            let next_hop = relay_to.map_or(frame.via.next_hop, |da| self.relay_next_hop(da));
            let relayed = Frame { via: Via { next_hop, ..frame.via }, ..frame };
            if relay_to == Some(BROADCAST) && frame.dst != BROADCAST {
                self.trace_frame(ctx, 'r', r, &frame, "---"); // the copy, before the next hop is named
            }
            self.trace_frame(ctx, 'r', r, if relay_to.is_some() { &relayed } else { &frame }, "---");
        }
        let s = &mut self.stations[r.index()];
        match frame.kind {
            FrameKind::Rts => {
                // ns-2 (recvRTS) answers whatever its NAV says, and checks the medium only as
                // the CTS is to go, a SIFS later (check_pktCTRL; `MacTimer::Respond`)
                let ns2 = self.wlan_of(r).ns2_backoff;
                let s = &mut self.stations[r.index()];
                if (ns2 || s.nav_until <= now + EPS) && s.tx_until <= now + EPS {
                    if std::mem::take(&mut s.defer) {
                        s.access.cancel(); // recvRTS stops the defer timer; tx_resume restarts it
                    }
                    let nav = frame.nav - timing.sifs - timing.control(CTS_BYTES);
                    s.respond = Some((FrameKind::Cts, frame.src, nav));
                    self.arm_mac(ctx, r, MacTimer::Respond, now + timing.sifs);
                }
            }
            FrameKind::Cts => {
                if s.state == State::WaitCts {
                    s.timeout.cancel();
                    if self.wlans[s.wlan as usize].ns2_backoff {
                        s.short_retries = 0; // recvCTS: the RTS got through (`ssrc_ = 0`)
                        s.head_rts = HeadRts::Gone;
                        if s.backoff.is_some() {
                            // a backoff runs (drawn for a management frame, wifi/infra.rs):
                            // `tx_resume` leaves the data to it
                            s.state = State::Contend;
                            self.medium_maybe_idle(ctx, r);
                            return None;
                        }
                    }
                    // the data's duration is the one it entered the MAC with (`sendDATA`)
                    let nav = self.head_data_nav(r);
                    self.stations[r.index()].respond = Some((FrameKind::Data, frame.src, nav));
                    self.arm_mac(ctx, r, MacTimer::Respond, now + timing.sifs);
                }
            }
            FrameKind::Data if frame.dst == BROADCAST => {
                if let Some(da) = relay_to {
                    self.relay(ctx, r, &frame, da);
                    return None;
                }
                let pkt = *ctx.pkts.get(frame.pkt.expect("data carries a packet"));
                if pkt.kind == crate::packet::Kind::Arp {
                    self.arp_input(ctx, r, &pkt, &frame);
                }
                if pkt.kind == crate::packet::Kind::Message {
                    // a route update goes up to the node's routing agent (crate::dsdv)
                    let node = self.stations[r.index()].node;
                    let from = self.stations[frame.src.index()].node;
                    let id = ctx.pkts.alloc(pkt); // the frame keeps its own for the other radios
                    if ctx.tracer.wireless.is_some() {
                        let mac = (u32::from(frame.duration_us()), u32::MAX, from.get(), 0x800);
                        let header = RxHeader { mac, forwards: frame.via.hops + 1, next_hop: NO_NEXT_HOP };
                        self.mac_headers.push((id, header));
                    }
                    return Some(Outcome::Delivered { node, from, radio: r, id });
                }
            }
            FrameKind::Data => {
                if s.cts_until > now && s.state == State::Contend && s.backoff.is_none() {
                    s.timeout.cancel(); // the ACK's end draws the backoff (`tx_end`)
                }
                s.cts_until = 0.0; // recvDATA: our CTS got through, MAC_CTS ends
                s.respond = Some((FrameKind::Ack, frame.src, 0.0));
                if !(self.wlans[s.wlan as usize].ns2_backoff && matches!(s.state, State::Mgmt(_))) {
                    self.arm_mac(ctx, r, MacTimer::Respond, now + timing.sifs);
                } // else the ACK waits for the management frame's send timer (wifi/infra.rs)
                let s = &mut self.stations[r.index()];
                let seen = s.last_seq.iter_mut().find(|(src, _)| *src == frame.src);
                let duplicate = seen.as_ref().is_some_and(|(_, q)| *q == frame.seq);
                match seen {
                    Some(entry) => entry.1 = frame.seq,
                    None => s.last_seq.push((frame.src, frame.seq)),
                }
                if duplicate && self.wlan_of(r).ns2_backoff {
                    // recvDATA: ACKed, then discarded as a duplicate (its MAC bytes stripped)
                    self.trace_frame(ctx, 'D', r, &frame, "DUP");
                }
                if !duplicate {
                    let pkt = *ctx.pkts.get(frame.pkt.expect("data carries a packet"));
                    if let Some(da) = relay_to {
                        self.relay(ctx, r, &frame, da);
                        if da != BROADCAST {
                            return None;
                        }
                        // recvDATA: a broadcast goes up here too
                    }
                    if pkt.kind == crate::packet::Kind::Arp {
                        self.arp_input(ctx, r, &pkt, &frame);
                        return None;
                    }
                    let node = self.stations[r.index()].node;
                    let from = self.stations[frame.src.index()].node;
                    // the frame keeps its own until it is done; the copy has made one more hop
                    let (rx_duration, rx_from) = if pkt.next_hop.is_some() {
                        (frame.duration_us(), Some(from))
                    } else {
                        (pkt.rx_duration, pkt.rx_from)
                    };
                    let forwards = pkt.forwards.saturating_add(1);
                    let id = ctx.pkts.alloc(Packet { forwards, rx_duration, rx_from, ..pkt });
                    if ctx.tracer.wireless.is_some() {
                        let mac = (u32::from(frame.duration_us()), node.get(), from.get(), 0x800);
                        let forwards = frame.via.hops + 1;
                        let header = RxHeader { mac, forwards, next_hop: frame.via.next_hop };
                        self.mac_headers.push((id, header));
                    }
                    return Some(Outcome::Delivered { node, from, radio: r, id });
                }
            }
            FrameKind::Ack => {
                if s.state == State::WaitAck {
                    s.timeout.cancel();
                    self.sent_ok(ctx, r);
                } else if let State::Mgmt(m) = s.state {
                    self.mgmt_acked(ctx, r, m);
                }
            }
            FrameKind::Mgmt(_) => unreachable!("handled above"),
        }
        None
    }

    /// ns-2's `recvDATA` refuses a data frame sent after an RTS unless the MAC waits for it
    /// after its CTS (MAC_CTS), and a short one while it holds a CTS or ACK to send (`pktCTRL_`,
    /// which the wait after a CTS holds too).
    fn ns2_busy_for_data(&self, ctx: &Ctx, r: RadioId, frame: &Frame, now: f64) -> bool {
        let cfg = self.wlan_of(r);
        if !cfg.ns2_backoff {
            return false;
        }
        let s = &self.stations[r.index()];
        let waits_for_data = s.cts_until > now;
        if cfg.rts_before(ctx.pkts.get(frame.pkt.expect("data carries a packet")).size) {
            !waits_for_data
        } else {
            waits_for_data || matches!(s.respond, Some((FrameKind::Cts | FrameKind::Ack, _, _)))
        }
    }

    /// ns-2's `recvRTS` refuses an RTS unless `tx_state_` is MAC_IDLE and no `pktCTRL_` waits.
    fn ns2_busy_for_rts(&self, r: RadioId, now: f64) -> bool {
        self.wlan_of(r).ns2_backoff
            && (self.tx_busy(r, now)
                || matches!(self.stations[r.index()].respond, Some((FrameKind::Cts | FrameKind::Ack, _, _))))
    }

    fn mac_timer(&mut self, ctx: &mut Ctx, r: RadioId, which: MacTimer, gen: u32) -> Outcome {
        let timer = self.stations[r.index()].timer(which);
        let live = ctx.sched.fire(timer, gen, |gen| Event::Wifi(WifiEvent::Timer(r, which, gen)));
        if !live {
            return Outcome::Nothing;
        }
        match which {
            MacTimer::Access if self.stations[r.index()].defer => self.defer_ends(ctx, r),
            MacTimer::Access => self.send_head(ctx, r),
            MacTimer::Timeout => {
                let s = &self.stations[r.index()];
                if let State::Mgmt(m) = s.state {
                    self.mgmt_timeout(ctx, r, m);
                    return Outcome::Nothing;
                }
                if s.state == State::Contend {
                    // the CTS's timeout with no data come (`tx_end`): `tx_resume` draws the
                    // backoff of the packet that came before the CTS
                    self.resume_backoff(ctx, r);
                    return Outcome::Nothing;
                }
                return self.exchange_failed(ctx, r);
            }
            MacTimer::Beacon => self.beacon_due(ctx, r),
            MacTimer::Probe => self.probe_due(ctx, r),
            MacTimer::Respond => {
                let now = ctx.now_secs();
                let ns2_busy = self.wlan_of(r).ns2_backoff && self.medium_busy(r, now);
                let responding = self.stations[r.index()].respond.map(|(kind, _, _)| kind);
                if ns2_busy && responding == Some(FrameKind::Data) {
                    // check_pktTx: on a busy medium (a NAV set since the CTS came) the data does
                    // not go; a new RTS waits for a backoff drawn now, paused, from a window
                    // grown as after a failure (`inc_cw`)
                    let cw_max = self.wlan_of(r).cw_max;
                    let to = self.stations[r.index()].queue.front().expect("a CTS answers our RTS").1;
                    self.current_receiver(r, to);
                    let s = &mut self.stations[r.index()];
                    s.respond = None;
                    s.state = State::Contend;
                    s.head_rts = HeadRts::Renewed;
                    s.cw = (2 * s.cw + 1).min(cw_max);
                    let slots = self.draw_backoff(ctx, r);
                    self.stations[r.index()].backoff = Some(slots);
                    self.medium_maybe_idle(ctx, r);
                    return Outcome::Nothing;
                }
                if ns2_busy && responding == Some(FrameKind::Cts) {
                    // check_pktCTRL: no CTS on a busy medium (NAV, a frame coming in); discarded
                    // untraced, as it is addressed to the RTS's sender
                    self.stations[r.index()].respond = None;
                    self.medium_maybe_idle(ctx, r);
                    return Outcome::Nothing;
                }
                if let Some((kind, to, nav)) = self.stations[r.index()].respond.take() {
                    // check_pktTx sends the data to the frame's receiver of now
                    let to = match kind {
                        FrameKind::Data => {
                            let head = self.stations[r.index()].queue.front().expect("a CTS answers our RTS").1;
                            self.current_receiver(r, head)
                        }
                        _ => to,
                    };
                    let (pkt, seq) = match kind {
                        FrameKind::Data => {
                            let s = &self.stations[r.index()];
                            (Some(s.queue.front().expect("a CTS answers our RTS").0), s.seq)
                        }
                        _ => (None, 0),
                    };
                    if kind == FrameKind::Data {
                        self.stations[r.index()].state = State::Send;
                    }
                    let via = self.stations[r.index()].queue.front().map_or(Via::to(to), |q| q.2);
                    self.transmit(ctx, Frame { kind, src: r, dst: to, nav, pkt, seq, via, refs: 1 });
                }
            }
            MacTimer::Nav => self.medium_maybe_idle(ctx, r),
        }
        Outcome::Nothing
    }

    /// ns-2's `tx_resume` with no backoff running, the SIFS before a CTS or ACK over: a packet
    /// that came meanwhile (`pktTx_`) gets its backoff, drawn now. A management frame made
    /// meanwhile gets none (`sendBEACON` and the others start none while the defer timer runs,
    /// and `tx_resume` looks at the data only): it waits until a backoff started for something
    /// else runs out (`backoffHandler`). Without `bugFix_timer_`, the defer timer instead.
    pub(super) fn resume_backoff(&mut self, ctx: &mut Ctx, r: RadioId) {
        let s = &mut self.stations[r.index()];
        if s.queue.is_empty() {
            s.state = State::Idle;
            return;
        }
        if !self.wlan_of(r).backoff_when_idle {
            return self.start_defer(ctx, r);
        }
        let slots = self.draw_backoff(ctx, r);
        let s = &mut self.stations[r.index()];
        s.backoff = Some(slots);
        // `mhBackoff_.start` counts DIFS and the slots from now, however long the medium was idle
        s.not_before = s.not_before.max(ctx.now_secs());
        self.medium_maybe_idle(ctx, r);
    }

    /// ns-2's `tx_state_ != MAC_IDLE`: sending, waiting for a CTS, an ACK, the data after its
    /// own CTS, or the answer to a management frame.
    fn tx_busy(&self, r: RadioId, now: f64) -> bool {
        let s = &self.stations[r.index()];
        !matches!(s.state, State::Idle | State::Contend) || s.cts_until > now || s.tx_until > now + EPS
    }

    /// The backoff ran out: send the head of the queue, after an RTS if it is long.
    fn send_head(&mut self, ctx: &mut Ctx, r: RadioId) {
        if let Some((kind, to)) = self.next_mgmt(r) {
            return self.transmit_mgmt(ctx, r, kind, to); // before the data (`backoffHandler`)
        }
        let Some(&(id, to, via)) = self.stations[r.index()].queue.front() else {
            // a post-backoff ran out, or an access point's management frame waits for its turn
            // in the list (wifi/infra.rs `order`): nothing contends until a frame comes
            let s = &mut self.stations[r.index()];
            s.backoff = None;
            s.state = State::Idle;
            return;
        };
        let cfg = self.wlan_of(r);
        let timing = cfg.timing.clone();
        let size = ctx.pkts.get(id).size;
        let long = cfg.rts_before(size);
        let (head_rts, entered_for) = (self.stations[r.index()].head_rts, self.stations[r.index()].head_entered_for);
        // the RTS goes to the receiver it was made for; `check_pktTx` readdresses only the data
        let rts_to = match head_rts {
            HeadRts::FromEntry => entered_for.unwrap_or(to),
            HeadRts::Gone => BROADCAST,
            HeadRts::Renewed => to, // as `check_pktTx` last addressed the data
        };
        let s = &mut self.stations[r.index()];
        s.backoff = None;
        s.state = State::Send;
        let seq = s.seq;
        if long && rts_to != BROADCAST {
            // the data as it will go: ns-2's RTS counts the air time `sendDATA` stored, at the
            // basic rate for a frame that entered the MAC as a broadcast
            let nav = self.head_data_nav(r);
            let data = Frame { kind: FrameKind::Data, src: r, dst: rts_to, nav, pkt: Some(id), seq, via, refs: 0 };
            let ack = timing.sifs + timing.control(ACK_BYTES);
            let nav = timing.sifs + timing.control(CTS_BYTES) + timing.sifs + self.air(ctx, &data) + ack;
            let rts = Frame { kind: FrameKind::Rts, src: r, dst: rts_to, nav, pkt: None, seq, via, refs: 1 };
            return self.transmit(ctx, rts);
        }
        let to = self.current_receiver(r, to);
        let nav = self.head_data_nav(r);
        self.transmit(ctx, Frame { kind: FrameKind::Data, src: r, dst: to, nav, pkt: Some(id), seq, via, refs: 1 });
    }

    /// ns-2's `tx_resume` with no backoff running and, at the head, a long data frame whose RTS
    /// is gone: the data goes a SIFS later (`check_pktTx`). Whether it does.
    fn resume_without_rts(&mut self, ctx: &mut Ctx, r: RadioId) -> bool {
        let cfg = self.wlan_of(r);
        let s = &self.stations[r.index()];
        let Some(&(id, to, _)) = s.queue.front() else { return false };
        if !cfg.ns2_backoff
            || s.backoff.is_some()
            || s.head_rts != HeadRts::Gone
            || !cfg.rts_before(ctx.pkts.get(id).size)
        {
            return false;
        }
        let sifs = cfg.timing.sifs;
        let nav = self.head_data_nav(r);
        self.stations[r.index()].respond = Some((FrameKind::Data, to, nav));
        self.arm_mac(ctx, r, MacTimer::Respond, ctx.now_secs() + sifs);
        true
    }

    /// The duration field of the data frame at the head of `r`'s queue: the ACK's exchange,
    /// but for a broadcast. ns-2 (`sendDATA`) sets it, and the rate, as the frame enters the
    /// MAC, by the receiver it has then.
    fn head_data_nav(&self, r: RadioId) -> f64 {
        let s = &self.stations[r.index()];
        let &(_, to, _) = s.queue.front().expect("a head");
        if s.head_entered_for.unwrap_or(to) == BROADCAST {
            return 0.0;
        }
        let timing = &self.wlan_of(r).timing;
        timing.sifs + timing.control(ACK_BYTES)
    }

    /// The head of `r`'s queue left it: the next one enters the MAC afresh.
    fn head_done(&mut self, r: RadioId) {
        let s = &mut self.stations[r.index()];
        s.queue.pop_front();
        s.head_entered_for = None;
        s.head_rts = HeadRts::FromEntry;
        if !s.queue.is_empty() {
            self.head_enters(r);
        }
    }

    /// The ACK for the head of the queue came (or, a broadcast, it went out): on to the next
    /// packet, after a fresh backoff.
    fn sent_ok(&mut self, ctx: &mut Ctx, r: RadioId) {
        let cfg = self.wlan_of(r);
        let (cw_min, ns2) = (cfg.cw_min, cfg.ns2_backoff);
        let &(id, to, _) = self.stations[r.index()].queue.front().expect("an ACK for the head");
        let long = cfg.long_frame(ctx.pkts.get(id).size);
        self.head_done(r);
        let s = &mut self.stations[r.index()];
        s.seq = s.seq.wrapping_add(1);
        s.cw = cw_min;
        if !ns2 {
            s.short_retries = 0;
            s.long_retries = 0;
        } else if to != BROADCAST {
            // recvACK resets the count the frame's size uses, the other stays (a broadcast,
            // never ACKed, resets neither)
            if long {
                s.long_retries = 0;
            } else {
                s.short_retries = 0;
            }
        }
        if to != BROADCAST {
            ctx.pkts.release(id); // a broadcast's goes with its frame's last receipt (`unref`)
        }
        self.after_exchange(ctx, r);
    }

    /// No CTS or ACK: back off longer and try again, or give the packet up.
    /// `Dropped` if the packet is given up and lost.
    fn exchange_failed(&mut self, ctx: &mut Ctx, r: RadioId) -> Outcome {
        let cfg = self.wlan_of(r);
        let (cw_min, cw_max, ns2) = (cfg.cw_min, cfg.cw_max, cfg.ns2_backoff);
        let (short_limit, long_limit) = (cfg.short_retry_limit, cfg.long_retry_limit);
        let (id, to, via) = *self.stations[r.index()].queue.front().expect("a frame in flight");
        let long = cfg.long_frame(ctx.pkts.get(id).size);
        let seq = self.stations[r.index()].seq;
        // the receiver may have the frame already (only its ACKs were lost)
        let delivered = self.stations[to.index()].last_seq.contains(&(r, seq));
        let now = ctx.now_secs();
        let s = &mut self.stations[r.index()];
        if ns2 {
            // ns-2's MAC is busy (MAC_RTS or MAC_SEND) until its send timer fires: the backoff
            // it starts now (`RetransmitRTS/DATA`, or `send` for the next packet) is paused and
            // resumes DIFS after now at the earliest (`tx_resume`, `setTxState(MAC_IDLE)`), not
            // DIFS after the medium turned idle
            s.not_before = s.not_before.max(now);
        }
        let waited_cts = s.state == State::WaitCts;
        let short = waited_cts || !long;
        let count = if short { &mut s.short_retries } else { &mut s.long_retries };
        *count += 1;
        let (count, failed) = (*count, *count >= if short { short_limit } else { long_limit });
        if ns2 && !waited_cts && count == 3 && self.hand_off(ctx, r) {
            return Outcome::Nothing;
        }
        let s = &mut self.stations[r.index()];
        if !waited_cts {
            s.head_rts = HeadRts::Renewed; // RetransmitDATA: a new RTS, if the frame is long
        }
        if failed {
            let rts = waited_cts;
            let nav = self.head_data_nav(r);
            self.head_done(r);
            let s = &mut self.stations[r.index()];
            s.seq = s.seq.wrapping_add(1);
            s.cw = cw_min;
            // ns-2's RetransmitRTS/DATA reset only the count that reached its limit: the
            // other goes on into the next packet's exchanges
            if !ns2 || short {
                s.short_retries = 0;
            }
            if !ns2 || !short {
                s.long_retries = 0;
            }
            s.stats.retry_drops += 1;
            if ns2 {
                // RetransmitRTS/DATA discard the RTS (if it was the RTS that failed) and the data
                // frame, MAC headers and all: the node sent them, so both are traced
                let timing = self.wlan_of(r).timing.clone();
                let ack = timing.sifs + timing.control(ACK_BYTES);
                let data = Frame { kind: FrameKind::Data, src: r, dst: to, nav, pkt: Some(id), seq, via, refs: 0 };
                if rts {
                    let nav = timing.sifs + timing.control(CTS_BYTES) + timing.sifs + self.air(ctx, &data) + ack;
                    self.trace_frame(ctx, 'D', r, &Frame { kind: FrameKind::Rts, nav, pkt: None, ..data }, "RET");
                }
                let pkt = *ctx.pkts.get(id);
                if pkt.next_hop.is_some() && ctx.tracer.wireless.is_some() {
                    // a DSDV agent's packet: its `xmit_failure_` callback gets a copy, without
                    // the MAC's bytes, and drops it (`lost_link`, use_mac_ 0): `D RTR CBK`
                    let node = self.stations[r.index()].node;
                    let mac = ((ack * 1e6).round() as u32, self.stations[to.index()].node.get(), node.get(), 0x800);
                    let header = RxHeader { mac, forwards: 0, next_hop: NO_NEXT_HOP };
                    self.write_radio_packet(ctx, 'D', node, "RTR", "CBK", &pkt, header);
                }
                self.trace_frame(ctx, 'D', r, &data, "RET");
            } else {
                let (node, pkt) = (s.node, *ctx.pkts.get(id));
                self.trace_radio_packet(ctx, 'D', node, "MAC", "RET", &pkt);
            }
            let s = &mut self.stations[r.index()];
            if ns2 && s.backoff.is_some() {
                // a backoff drawn meanwhile (for a management frame, from the window of then)
                // runs on: giving a packet up starts none (`RetransmitRTS/DATA`), nor does the
                // next packet's `send` while one runs
                s.state = if s.has_frames() { State::Contend } else { State::Idle };
                self.medium_maybe_idle(ctx, r);
            } else if ns2 && s.queue.is_empty() {
                // ns-2 starts no backoff when it gives a packet up (`RetransmitRTS/DATA` reset
                // the window only); the next packet's `send` draws one when it comes, and a
                // management frame waiting (an access point's, left without one) waits for it
                s.backoff = None;
                s.state = State::Idle;
            } else {
                self.after_exchange(ctx, r);
            }
            if delivered {
                ctx.pkts.release(id); // not lost: the receiver took it
                return Outcome::Nothing;
            }
            return Outcome::Dropped(id);
        }
        s.stats.retries += 1;
        s.cw = (2 * s.cw + 1).min(cw_max);
        self.after_exchange(ctx, r);
        Outcome::Nothing
    }

    /// The packets a receiving radio has taken while their sender still waits for the MAC ACK
    /// (or retries because it was lost): delivered, though still in the sender's queue.
    pub fn frames_received_unacked(&self) -> Vec<PacketId> {
        let stations = &self.stations;
        stations
            .iter()
            .enumerate()
            .filter_map(|(r, s)| {
                let &(id, to, _) = s.queue.front()?;
                if to == BROADCAST {
                    return None;
                }
                stations[to.index()].last_seq.contains(&(RadioId(r as u32), s.seq)).then_some(id)
            })
            .collect()
    }

    fn after_exchange(&mut self, ctx: &mut Ctx, r: RadioId) {
        let slots = self.draw_backoff(ctx, r);
        let s = &mut self.stations[r.index()];
        // the backoff after every exchange, even with nothing queued; ns-2 (`ns2_backoff`) counts
        // it down then too, DIFS after the medium is idle (its `BackoffTimer` starts paused,
        // the MAC being still busy, and resumes with DIFS in `tx_resume`)
        s.backoff = Some(slots);
        s.state = if s.has_frames() { State::Contend } else { State::Idle };
        self.medium_maybe_idle(ctx, r);
    }
}
