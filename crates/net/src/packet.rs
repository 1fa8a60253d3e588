//! Packets and the pool that recycles them.
//!
//! Packets live in one slab and travel as `PacketId`s inside events, so an event stays a few
//! bytes and a finished packet's slot is reused: no allocation per packet once the pool has grown.

use crate::ids::NodeId;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct FlowId(pub u32);

/// A packet's slot in the pool. Debug builds also carry the slot's generation at allocation,
/// so that an id kept past its packet's release is caught even after the slot is reused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PacketId {
    slot: u32,
    #[cfg(debug_assertions)]
    gen: u32,
}

/// An agent's address as ns-2 prints it: `node.port`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Addr {
    pub node: NodeId,
    pub port: u32,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// TCP data (or the 40-byte SYN, seqno 0).
    Tcp,
    /// A TCP acknowledgement.
    Ack,
    /// A CBR packet over UDP.
    Cbr,
    /// A packet of an exponential or Pareto on/off source over UDP (ns-2 marks its agent's
    /// packets with the source's type).
    Exp,
    Pareto,
    /// A plain `Agent/UDP` packet (a Telnet's or a trace-driven source's).
    Udp,
    /// An ARP request (`seq` ARP_REQUEST) or reply (`seq` ARP_REPLY) on a WLAN of the ns2
    /// profile (ns-2's `ARPTable`, wifi/arp.rs): from `src.node` about `dst.node`; it ends in
    /// the radio.
    Arp,
    /// A DSDV route update (ns-2's `PT_MESSAGE`, crate::dsdv): broadcast from `src.node`'s
    /// routing agent (port 255) to every neighbour; its entries wait beside the packet
    /// (`Dsdv::advert`). It ends at the neighbours' routing agents.
    Message,
    /// An `Agent/PBC` broadcast (or unicast) of `size` bytes of payload from `src.node`
    /// (crate::pbc): to every radio in range (`next_hop` None) or to MAC address `dst.node`.
    /// It ends at the receivers' agents.
    Pbc,
    /// Mobile IPv6 signalling: a binding update (`seq`: the care-of router's node) and its
    /// acknowledgement (`seq`: the anchor's node).
    BindingUpdate,
    BindingAck,
    /// A real host's frame in emulation (crate::emu): its bytes wait in the network's side
    /// table (`RealFrames`), its `size` is the IP packet's. Declared last, beside the signalling
    /// kinds, so that one comparison tells a packet that ends in the network from a flow's.
    Real,
}

impl Kind {
    /// A flow's data (what its receiver counts), not an ACK or signalling.
    #[inline(always)]
    pub fn is_data(self) -> bool {
        matches!(self, Kind::Tcp | Kind::Cbr | Kind::Exp | Kind::Pareto | Kind::Udp)
    }

    /// The packet-type name in ns-2 traces.
    pub fn ns2_name(self) -> &'static str {
        match self {
            Kind::Tcp => "tcp",
            Kind::Ack => "ack",
            Kind::Cbr => "cbr",
            Kind::Exp => "exp",
            Kind::Pareto => "pareto",
            Kind::Udp => "udp",
            Kind::Arp => "ARP",
            Kind::Message => "message",
            Kind::Pbc => "PBC",
            Kind::BindingUpdate => "BU",
            Kind::BindingAck => "BA",
            Kind::Real => "real",
        }
    }
}

/// `ARPOP_REQUEST` and `ARPOP_REPLY`, as an ARP packet's `seq` holds them (here, a leaf,
/// because both the MAC and the trace writers read them).
pub const ARP_REQUEST: i64 = 1;
pub const ARP_REPLY: i64 = 2;

/// ns-2's `hdr_flags` bits, in trace-column order.
pub mod flags {
    /// ECN-echo (trace column 1, `C`).
    pub const ECN_ECHO: u8 = 1 << 0;
    /// Priority (`P`).
    pub const PRI: u8 = 1 << 1;
    /// Congestion action / CWR (`A`).
    pub const CWR: u8 = 1 << 2;
    /// Congestion experienced (`E`).
    pub const CE: u8 = 1 << 3;
    /// Fast start (`F`).
    pub const FAST_START: u8 = 1 << 4;
    /// ECN-capable transport (`N`).
    pub const ECT: u8 = 1 << 5;
}

/// The TCP header's flags (`TH_*`), in `Packet::tcp_flags`.
pub mod tcp_header {
    pub const TH_FIN: u8 = 0x01;
    pub const TH_SYN: u8 = 0x02;
    pub const TH_PUSH: u8 = 0x08;
    pub const TH_ACK: u8 = 0x10;
    pub const TH_ECE: u8 = 0x40;
    pub const TH_CWR: u8 = 0x80;
    /// A Linux SYN or SYN-ACK on the wire: 20 bytes of IP, 20 of TCP and 20 of options (MSS,
    /// SACK permitted, timestamps, window scale).
    pub const SYN_BYTES: u32 = 60;
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Global id, new for every packet an agent creates (retransmissions and ACKs included).
    pub uid: u64,
    /// The flow (index into the scenario's flows) the packet belongs to.
    pub flow: FlowId,
    /// ns-2's flow id (`fid_`), as traces print it.
    pub fid: u32,
    pub kind: Kind,
    /// Bytes on the wire.
    pub size: u32,
    /// Application bytes carried (0 for SYN, ACKs).
    pub payload: u32,
    /// TCP seqno, the cumulative ACK number for ACKs, the RTP seqno for CBR.
    pub seq: i64,
    pub src: Addr,
    pub dst: Addr,
    pub flags: u8,
    /// The sender's timestamp in seconds (ns-2 `hdr_tcp::ts`, the exact double ns-2 holds), also
    /// the start of the one-way delay.
    pub ts: f64,
    /// The timestamp echoed back by the receiver.
    pub ts_echo: f64,
    /// SACK blocks [left, right) carried by an ACK (ns-2 `sa_left`/`sa_right`, ints as there),
    /// `nsack` of them: read and written through `sack_blocks` and `set_sack_blocks`.
    pub(crate) sack: [(i32, i32); MAX_SACK_BLOCKS],
    pub nsack: u8,
    /// The TCP header's acknowledgement number, flags (`TH_*`) and length, which only FullTcp
    /// fills (ns-2's one-way agents leave them 0, and traces print them so). A real host's
    /// packet has its own: `hlen` is its transport header's length (TCP's 20 to 60, UDP's 8,
    /// 0 for other protocols), its numbers relative to the connection's first (crate::emu).
    pub ackno: i32,
    pub tcp_flags: u8,
    pub hlen: u8,
    /// IPv6-in-IPv6 headers around it (Mobile IPv6 tunnels), and the node the outermost one
    /// goes to, if any.
    pub encaps: u8,
    pub via: Option<NodeId>,
    /// The node that put the outermost tunnel header on (for captures).
    pub tunnel_from: NodeId,
    /// Bytes of those tunnels and of Mobile IPv6 options (route optimisation's routing header
    /// or home address option), which the mobile end takes off again.
    pub mip_bytes: u16,
    /// The IP header's TTL (ns-2's 32; only DSDV counts it down) and, once a DSDV agent has
    /// routed it, the hops it has been received over (`num_forwards`) and the next hop the
    /// agent chose (`ch->next_hop_`), which the wireless trace prints (crate::dsdv).
    pub ttl: u8,
    pub forwards: u8,
    pub next_hop: Option<NodeId>,
    /// The duration (µs) and the sender of the MAC header a packet a DSDV agent routed last
    /// arrived in: ns-2's packet keeps those bytes as it is forwarded, and the lines written
    /// before the next MAC sends it print them.
    pub rx_duration: u16,
    pub rx_from: Option<NodeId>,
    /// God's hop count from source to destination, stamped as the agent's send is traced
    /// (ns-2's `opt_num_forwards`, crate::god).
    pub opt_forwards: u32,
    /// The OFDM scheme an `802_11Ext` radio sends it with (`ch->mod_scheme_`: 0 BPSK, 1 QPSK,
    /// 2 QAM16, 3 QAM64), which an `Agent/PBC` sets (crate::pbc).
    pub mod_scheme: u8,
}

/// ns-2's `IP_DEF_TTL`.
pub const DEFAULT_TTL: u8 = 32;

/// ns-2's NSA: the TCP header holds at most this many SACK blocks.
pub const MAX_SACK_BLOCKS: usize = 3;

impl Packet {
    /// A packet the network itself makes (Mobile IPv6 signalling, a real host's frame): no
    /// flow, no agent's headers.
    pub fn of_network(uid: u64, kind: Kind, from: NodeId, to: NodeId, size: u32, seq: i64, ts: f64) -> Packet {
        Packet {
            uid,
            flow: FlowId(u32::MAX),
            fid: 0,
            kind,
            size,
            payload: 0,
            seq,
            src: Addr { node: from, port: 0 },
            dst: Addr { node: to, port: 0 },
            flags: 0,
            ts,
            ts_echo: 0.0,
            sack: Default::default(),
            nsack: 0,
            ackno: 0,
            tcp_flags: 0,
            hlen: 0,
            encaps: 0,
            via: None,
            tunnel_from: NodeId::default(),
            mip_bytes: 0,
            ttl: DEFAULT_TTL,
            forwards: 0,
            next_hop: None,
            rx_duration: 0,
            rx_from: None,
            opt_forwards: 0,
            mod_scheme: 0,
        }
    }

    /// The packet-type name in ns-2 traces. A real host's packet is named by its transport
    /// header, as a simulated one of its kind would be: `tcp` (data, SYN or FIN), `ack`, `udp`,
    /// or `real` for other protocols.
    pub fn ns2_name(&self) -> &'static str {
        if self.kind != Kind::Real {
            return self.kind.ns2_name();
        }
        const SYN_FIN: u8 = 0x03;
        match self.hlen {
            0 => "real",
            8 => "udp",
            _ if self.payload > 0 || self.tcp_flags & SYN_FIN != 0 => "tcp",
            _ => "ack",
        }
    }

    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Takes the Mobile IPv6 headers off a packet that reached its destination. A packet
    /// without any is not written: its slot is copied whole soon after, and a wide load over
    /// fresh narrow stores waits for them.
    #[inline]
    pub fn decapsulate(&mut self) {
        if self.mip_bytes == 0 && self.encaps == 0 {
            return;
        }
        self.size -= self.mip_bytes as u32;
        self.mip_bytes = 0;
        self.encaps = 0;
    }

    /// Its SACK blocks.
    pub fn sack_blocks(&self) -> SackBlocks {
        let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
        for (b, &(l, r)) in blocks.iter_mut().zip(&self.sack[..self.nsack as usize]) {
            *b = (l as i64, r as i64);
        }
        SackBlocks { blocks, n: self.nsack as usize }
    }

    /// Carries these SACK blocks (at most MAX_SACK_BLOCKS).
    pub fn set_sack_blocks(&mut self, blocks: &[(i64, i64)]) {
        for (slot, &(l, r)) in self.sack.iter_mut().zip(blocks) {
            *slot = (l as i32, r as i32);
        }
        self.nsack = blocks.len().min(MAX_SACK_BLOCKS) as u8;
    }
}

/// A packet's SACK blocks, as a slice of [left, right) pairs.
#[derive(Clone, Copy, Debug)]
pub struct SackBlocks {
    blocks: [(i64, i64); MAX_SACK_BLOCKS],
    n: usize,
}

impl std::ops::Deref for SackBlocks {
    type Target = [(i64, i64)];
    fn deref(&self) -> &[(i64, i64)] {
        &self.blocks[..self.n]
    }
}

/// Crate-private: it hands out its slots unchecked (`slot_in_range`).
#[derive(Default)]
pub(crate) struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
    /// Each slot's generation, moved on at every release: an id of another generation is stale
    /// (a slot released twice, or used after its release, before or after its next allocation).
    #[cfg(debug_assertions)]
    gens: Vec<u32>,
}

impl PacketPool {
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.alloc_with(|| p)
    }

    /// Puts the packet `make` builds in a free slot. Inlined, the packet is built in its slot:
    /// built elsewhere field by field and then copied in whole, the copy's wide loads would
    /// wait for the fields' narrow stores to drain (store forwarding fails), once per packet.
    #[inline(always)]
    pub fn alloc_with(&mut self, make: impl FnOnce() -> Packet) -> PacketId {
        let slot = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = make();
                i
            }
            None => {
                self.slots.push(make());
                self.slots.len() as u32 - 1
            }
        };
        #[cfg(debug_assertions)]
        self.gens.resize(self.slots.len(), 0);
        self.id(slot)
    }

    /// The id of the packet now in `slot`.
    fn id(&self, slot: u32) -> PacketId {
        PacketId {
            slot,
            #[cfg(debug_assertions)]
            gen: self.gens[slot as usize],
        }
    }

    pub fn get(&self, id: PacketId) -> &Packet {
        self.debug_check_live(id);
        // SAFETY: see `slot_in_range`
        unsafe { self.slots.get_unchecked(self.slot_in_range(id)) }
    }

    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        self.debug_check_live(id);
        let slot = self.slot_in_range(id);
        // SAFETY: see `slot_in_range`
        unsafe { self.slots.get_unchecked_mut(slot) }
    }

    /// Returns the packet's slot to the pool and hands back a copy of the packet.
    pub fn release(&mut self, id: PacketId) -> Packet {
        self.debug_check_live(id);
        #[cfg(debug_assertions)]
        {
            let gen = &mut self.gens[id.slot as usize];
            *gen = gen.wrapping_add(1);
        }
        self.free.push(id.slot);
        // SAFETY: see `slot_in_range`
        unsafe { *self.slots.get_unchecked(self.slot_in_range(id)) }
    }

    /// The slot of `id`, which is in range: an id is made only by a pool (its fields are
    /// private) and used only with the pool that made it (a network's one pool, which is
    /// crate-private), and the slots never shrink. Indexed unchecked, as a packet is read at
    /// every hop (S2 and S3 about 2% fewer instructions); `cargo test`'s debug builds check.
    #[inline(always)]
    fn slot_in_range(&self, id: PacketId) -> usize {
        debug_assert!((id.slot as usize) < self.slots.len(), "packet slot {} of {}", id.slot, self.slots.len());
        id.slot as usize
    }

    #[inline(always)]
    fn debug_check_live(&self, _id: PacketId) {
        #[cfg(debug_assertions)]
        assert!(_id.gen == self.gens[_id.slot as usize], "packet slot {} used after its release", _id.slot);
    }

    /// Packets currently allocated (in queues, on links or in flight).
    #[cfg(test)]
    fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// The packets currently allocated (for the end-of-run checks: not fast).
    pub fn live_packets(&self) -> impl Iterator<Item = (PacketId, &Packet)> {
        let mut free = vec![false; self.slots.len()];
        for &i in &self.free {
            free[i as usize] = true;
        }
        self.slots.iter().enumerate().zip(free).filter(|(_, f)| !f).map(|((i, p), _)| (self.id(i as u32), p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(uid: u64) -> Packet {
        Packet { uid, ..crate::testing::packet() }
    }

    /// Two cache lines: the pool copies whole packets, and every hop reads one.
    #[test]
    fn a_packet_fits_in_128_bytes() {
        assert!(std::mem::size_of::<Packet>() <= 128, "{} bytes", std::mem::size_of::<Packet>());
    }

    #[test]
    fn released_slots_are_reused() {
        let p = packet(1);
        let mut pool = PacketPool::default();
        let a = pool.alloc(p);
        let b = pool.alloc(Packet { uid: 2, ..p });
        assert_eq!(pool.live(), 2);
        assert_eq!(pool.release(a).uid, 1);
        let c = pool.alloc(Packet { uid: 3, ..p });
        assert_eq!(c.slot, a.slot, "the freed slot is reused");
        assert_eq!((pool.get(b).uid, pool.get(c).uid, pool.live()), (2, 3, 2));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "packet slot 0 used after its release")]
    fn a_slot_released_twice_is_caught() {
        let mut pool = PacketPool::default();
        let a = pool.alloc(packet(1));
        pool.release(a);
        pool.release(a);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "packet slot 0 used after its release")]
    fn an_id_kept_past_its_release_is_caught_after_the_slot_is_reused() {
        let mut pool = PacketPool::default();
        let a = pool.alloc(packet(1));
        pool.release(a);
        let b = pool.alloc(packet(2));
        assert_eq!(pool.get(b).uid, 2);
        pool.get(a);
    }
}
