//! ARP on a WLAN of the ns2 profile, as ns-2.35's `ARPTable` (mac/arp.cc) runs it on every
//! wireless node: the first packet to a next hop whose MAC address the node does not know is
//! held (one per next hop: a later one replaces it, and the one replaced is dropped), and an
//! ARP request (28 bytes) is broadcast; the node asked answers with a unicast reply; every node
//! that receives an ARP packet learns its sender's address, and sends what it held for it.
//! Requests, replies and released packets reach the interface queue `DELAY` after they are
//! made (the table's `delay_`), not the link layer's; received ARP packets go to the table at
//! once. A node asks at most `MAX_REQUESTS` times for an address it has not learnt: the next
//! packet for it is dropped with the one held, and the count starts again (ns-2's `count_`
//! and `ARP_MAX_REQUEST_COUNT`, which no reply resets).

use super::event::WifiEvent;
use super::{Frame, RxHeader, Wifi, BROADCAST};
use crate::ctx::{Ctx, Event};
use crate::ids::{NodeId, RadioId};
use crate::packet::{Kind, Packet, PacketId, ARP_REPLY as REPLY, ARP_REQUEST as REQUEST};

/// `ARPTable delay_` (tcl/lib/ns-mobilenode.tcl), s.
pub const DELAY: f64 = 5e-6;
/// `ARP_HDR_LEN`: an ARP packet's size, bytes.
pub const BYTES: u32 = 28;
/// `ARP_MAX_REQUEST_COUNT` (mac/arp.h): requests for one address before its packets are dropped.
pub const MAX_REQUESTS: u32 = 3;

/// What `Wifi::arp_resolve` did with a packet.
#[must_use = "a packet handed back still holds its slot"]
pub enum Resolved {
    /// The next hop's address is known: the packet goes on down.
    Known,
    /// The packet waits for the reply; the one it replaced, if any, is to be dropped.
    Held(Option<PacketId>),
    /// `MAX_REQUESTS` went unanswered: the packet held, if any, then this one are to be
    /// dropped, and no request goes.
    Refused(Option<PacketId>),
}

/// The MAC header of a packet that ARP held at `node`, as its drop prints it: LL::sendDown
/// has written the source and type, not yet the destination; a packet DSDV forwards keeps the
/// duration and destination of the frame that brought it.
pub fn held_header(node: NodeId, pkt: &Packet) -> RxHeader {
    let (duration, dst) =
        if pkt.forwards > 0 && pkt.next_hop.is_some() { (pkt.rx_duration, node.get()) } else { (0, 0) };
    RxHeader::plain((duration.into(), dst, node.get(), 0x800), 'D')
}

impl Wifi {
    /// ns-2's `arpresolve`: whether radio `r` knows `to`'s address; if not, holds `id` and sends
    /// a request.
    pub fn arp_resolve(&mut self, ctx: &mut Ctx, r: RadioId, to: RadioId, id: PacketId) -> Resolved {
        let s = &mut self.stations[r.index()];
        if to == BROADCAST || s.arp_known.contains(&to) {
            return Resolved::Known;
        }
        let i = match s.arp_requests.iter().position(|(next, _)| *next == to) {
            Some(i) => i,
            None => {
                s.arp_requests.push((to, 0));
                s.arp_requests.len() - 1
            }
        };
        let count = &mut s.arp_requests[i].1;
        if *count >= MAX_REQUESTS {
            *count = 0;
            let held = s.arp_held.iter().position(|(next, _)| *next == to).map(|i| s.arp_held.swap_remove(i).1);
            return Resolved::Refused(held);
        }
        *count += 1;
        let replaced = match s.arp_held.iter_mut().find(|(next, _)| *next == to) {
            Some(entry) => Some(std::mem::replace(&mut entry.1, id)),
            None => {
                s.arp_held.push((to, id));
                None
            }
        };
        let (me, them) = (s.node, self.stations[to.index()].node);
        let now = ctx.now_secs();
        let request = ctx.pkts.alloc(Packet::of_network(0, Kind::Arp, me, them, BYTES, REQUEST, now));
        ctx.sched.schedule_exact(now + DELAY, Event::Wifi(WifiEvent::LlDown(r, BROADCAST, request)));
        Resolved::Held(replaced)
    }

    /// ns-2's `arpinput`: radio `r` received ARP packet `pkt` in frame `came`, and learns its
    /// sender's address (the packet's, not the frame's: an access point may have relayed it).
    /// A reply is the request's packet answered: it keeps the next hop the request's IP header
    /// named, and the MAC header of the frame it came in (its duration, its `dh_3a`), which an
    /// interface queue's drop line shows.
    pub(super) fn arp_input(&mut self, ctx: &mut Ctx, r: RadioId, pkt: &Packet, came: &Frame) {
        let now = ctx.now_secs();
        let wlan = self.stations[r.index()].wlan_index();
        let from = self.radio(wlan, pkt.src.node.index()).expect("an ARP sender on the WLAN");
        let s = &mut self.stations[r.index()];
        if !s.arp_known.contains(&from) {
            s.arp_known.push(from);
        }
        if let Some(i) = s.arp_held.iter().position(|(next, _)| *next == from) {
            let (_, held) = s.arp_held.swap_remove(i);
            ctx.sched.schedule_exact(now + DELAY, Event::Wifi(WifiEvent::LlDown(r, from, held)));
        }
        if pkt.seq == REQUEST && pkt.dst.node == s.node {
            let reply = Packet::of_network(0, Kind::Arp, s.node, pkt.src.node, BYTES, REPLY, now);
            let id = ctx.pkts.alloc(Packet { rx_duration: came.duration_us(), ..reply });
            // the request's `dh_3a`, if an access point relayed it to its clients (from the DS
            // only): `recvDATA` wrote the request's sender there
            let via = came.via;
            let relayed = via.from_ds && !via.to_ds && came.src != from;
            self.kept_next_hops.push((id, via.next_hop, relayed.then_some(from)));
            ctx.sched.schedule_exact(now + DELAY, Event::Wifi(WifiEvent::LlDown(r, from, id)));
        }
    }
}
