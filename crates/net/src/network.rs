//! The network every agent talks to (through `port::Port`): links with their queues, routes,
//! the WLANs and mobile nodes, and the run's shared state (`Ctx`). Agents send through it
//! synchronously, as ns-2 agents call `target_->recv`, so events are scheduled in the same
//! order as in ns-2. Only this module forwards packets.

pub use crate::ctx::{Ctx, Event, TimerKind};
use crate::dsdv::{Advert, Dsdv, DsdvEvent, Forward};
use crate::emu::frame::Headers;
use crate::emu::frames::RealFrames;
use crate::ids::{LaneId, LinkId, NodeId, RadioId};
use crate::loss::Loss;
use crate::loss::LossAction;
use crate::metrics::LinkStats;
use crate::mobility::{Mip, MipTimer, Outgoing, Route};
use crate::packet::{flags, Addr, Kind, Packet, PacketId};
use crate::queue::{Queue, Verdict};
use crate::routing::Routes;
use crate::trace::Tracer;
use crate::wifi::arp::Resolved;
use crate::wifi::event::WifiEvent;
use crate::wifi::{Outcome, RxHeader, Wifi};
use std::collections::HashMap;
use tcplab_des::{Ns2Rng, Ring, Time};

/// One direction of a link: a queue, then serialisation at `rate_bps`, then `delay`.
///
/// In declaration order (`repr(C)`): what every hop reads first, then the counters every hop
/// bumps (`stats` starts with them), then what only set-up, summaries and a growing queue's
/// books touch. A packet that passes straight through uses the first 184 of the link's 256
/// bytes (S2, S3 and S4 1-2% faster).
#[repr(C)]
pub struct Link {
    /// A packet is being serialised.
    pub busy: bool,
    /// Some wired trace (ns-2, NAM, pcap) may record this link's packets. Set once, by
    /// `Network::new`, so that an untraced hop pays one test of a field already at hand rather
    /// than one per writer.
    traced: bool,
    pub to: NodeId,
    /// The end of the current transmission (exact time, insertion number) while no packet
    /// waits for it. Its `LinkFree` event would only clear `busy`, so it is not scheduled; a
    /// packet that arrives later checks it, and schedules the event if it must wait.
    pub release: Option<(f64, u64)>,
    /// The last packet size serialised, its time (integer and double) and its flight lane: a
    /// link carries mostly one size, and the divisions cost more than the rest of a transmission.
    last_tx: LastTx,
    /// When the last transmission started, on the double clock: with `last_tx`, when it ends
    /// (`busy_until`), which only the summary asks.
    busy_since: f64,
    pub queue: Queue,
    /// Loss models before the queue, in the order packets meet them (ns-2 puts each new error
    /// module at the head of the link, in front of the older ones).
    pub losses: Vec<Loss>,
    pub stats: LinkStats,
    pub from: NodeId,
    pub rate_bps: u64,
    /// Propagation delay in seconds (a double, as ns-2's `delay_`).
    pub delay_secs: f64,
    /// ns-2's Delayer sits between the queue and the wire (the link has delay spikes): it takes
    /// the queue's head as soon as it is empty, and holds it (`held`, outside the queue and its
    /// limit) until the wire is free and no spike blocks it.
    delayer: bool,
    held: Option<PacketId>,
    /// A delay spike holds the link (ns-2's Delayer blocked): no transmission starts, and
    /// `busy` stays set.
    blocked: bool,
    /// The link went idle during the spike: at its end the queue's head may go at once.
    idle_in_spike: bool,
}

#[derive(Clone, Copy)]
struct LastTx {
    size: u32,
    tx: Time,
    secs: f64,
    lane: LaneId,
}

impl Link {
    pub fn new(from: NodeId, to: NodeId, rate_bps: u64, delay_secs: f64, queue: Queue) -> Link {
        Link {
            from,
            to,
            rate_bps,
            delay_secs,
            queue,
            losses: Vec::new(),
            busy: false,
            release: None,
            busy_since: 0.0,
            stats: LinkStats::default(),
            traced: false,
            delayer: false,
            held: None,
            blocked: false,
            idle_in_spike: false,
            last_tx: LastTx { size: u32::MAX, tx: Time::ZERO, secs: 0.0, lane: LaneId(u32::MAX) }, // no size yet
        }
    }

    /// Time to serialise `size` bytes (integer, and as ns-2 computes it in doubles), and the
    /// flight lane of a packet of that size.
    fn tx_time(&mut self, size: u32, flights: &mut Flights) -> LastTx {
        if self.last_tx.size != size {
            let secs = size as f64 * 8.0 / self.rate_bps as f64;
            let lane = flights.lane(secs + self.delay_secs);
            self.last_tx = LastTx { size, tx: Time::tx_time(size, self.rate_bps), secs, lane };
        }
        self.last_tx
    }

    /// When the last transmission started ends.
    pub fn busy_until(&self) -> Time {
        Time::from_secs_f64(self.busy_since) + self.last_tx.tx // zero before the first packet
    }

    /// The current transmission is over: the link is free, unless a delay spike holds it.
    #[inline(always)]
    fn free(&mut self) {
        if self.blocked {
            self.idle_in_spike = true;
        } else {
            self.busy = false;
        }
    }

    /// The packet a Delayer holds between the queue and the wire (0 or 1).
    pub fn held(&self) -> usize {
        self.held.is_some() as usize
    }

    /// ns-2's Delayer takes the queue's head into its slot if that is empty (its
    /// `Queue::resume`; an empty queue's dequeue marks RED idle, as there).
    fn delayer_takes_head(&mut self, now: Time, now_s: f64) {
        if self.held.is_none() {
            let waiting = self.queue.len();
            self.held = self.queue.dequeue(now_s);
            self.stats.queue_changed(now, waiting, self.queue.len());
        }
    }

    /// Packets on this link's wire: sent and not yet received.
    pub fn on_wire(&self) -> u64 {
        self.stats.departures - self.stats.received
    }
}

/// A packet at `node` is home: it is addressed there and no tunnel takes it elsewhere. The
/// last tunnel may end where the packet is addressed (an MN's reverse tunnel to its own home
/// agent); a packet still inside two (an MN's to its own MAP) goes on to the home agent.
fn is_home(pkt: &Packet, node: NodeId) -> bool {
    pkt.dst.node == node && pkt.via.is_none_or(|via| via == node && pkt.encaps <= 1)
}

/// A link direction's name in summaries, series and checks: "from->to".
pub fn link_name(nodes: &[String], l: &Link) -> String {
    format!("{}->{}", nodes[l.from.index()], nodes[l.to.index()])
}

/// The packets on the wired links' wires, in lanes of equal flight time (serialisation plus
/// propagation, added as ns-2 adds them). A packet put on a wire later lands later, and with a
/// later insertion number, so each lane is in landing order whichever links its packets cross.
/// Only a lane's first packet has an event in the scheduler; the rest keep the insertion number
/// their event would have had. Links of the same rate and delay share lanes, so the heap holds
/// an event per flight time in use rather than one per busy link.
#[derive(Default)]
pub struct Flights {
    lanes: Vec<Ring<InFlight>>,
    /// A lane's flight time (its bits) to its index.
    by_time: HashMap<u64, LaneId>,
}

#[derive(Clone, Copy, Debug)]
struct InFlight {
    at: f64,
    seq: u64,
    link: LinkId,
    id: PacketId,
    /// Where the packet goes on from the link's far end, found as it went onto the wire.
    /// Without mobile nodes an arrival goes by this alone: it neither reads the packet, which
    /// has usually left the cache since, nor waits for a route lookup (S4 6% less time, S2 and
    /// S3 up to 3%).
    onward: Onward,
}

/// Where a packet on a wire goes from the link's far end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Onward {
    /// It is home there.
    Home,
    /// To this edge (a link, or a radio pair) of its static route.
    Edge(u32),
    /// Mobile IPv6 decides there (the packet is read then).
    Ask,
}

/// `table[i]` without a bounds check, for the tables a hop indexes (links, lanes, the flows'
/// books) by ids made from the tables themselves, which never shrink and are crate-private.
/// `table[i]` is checked again after every call that might have changed the table, several
/// times a hop: those checks cost S2 and S3 about 4% of their time. `cargo test`'s debug
/// builds still check.
///
/// # Safety
/// `i < table.len()`.
#[inline(always)]
pub(crate) unsafe fn unchecked<T>(table: &mut [T], i: usize) -> &mut T {
    debug_assert!(i < table.len(), "index {i} of a table of {}", table.len());
    // SAFETY: the caller's
    unsafe { table.get_unchecked_mut(i) }
}

impl Flights {
    /// The lane of packets that take `flight` seconds.
    fn lane(&mut self, flight: f64) -> LaneId {
        let lanes = &mut self.lanes;
        *self.by_time.entry(flight.to_bits()).or_insert_with(|| {
            lanes.push(Ring::default());
            LaneId(lanes.len() as u32 - 1)
        })
    }

    /// How many packets each of `links` links has on its wire, counted in the lanes.
    pub fn on_wire(&self, links: usize) -> Vec<u64> {
        let mut n = vec![0; links];
        for f in self.lanes.iter().flat_map(Ring::iter) {
            n[f.link.index()] += 1;
        }
        n
    }
}

/// The wired links and the forwarding between them, the WLANs and the mobile nodes, and the
/// run's shared state (`ctx`) that each of them takes in turn.
pub struct Network {
    pub ctx: Ctx,
    /// Crate-private, as `flights` is: a hop indexes them without bounds checks (`unchecked`),
    /// by ids made from the tables themselves, which never shrink.
    pub(crate) links: Vec<Link>,
    pub(crate) flights: Flights,
    /// The wireless LANs and their radios.
    pub wifi: Wifi,
    /// Routes over the wired links (edges 0..links.len()) and then these radio pairs.
    pub routes: Routes,
    pub wifi_edges: Vec<(RadioId, RadioId)>,
    /// Mobile nodes and Mobile IPv6.
    pub mip: Mip,
    /// Node names, for records.
    pub node_names: Vec<String>,
    /// Set while an arriving packet is forwarded, the last thing its event does (`on_arrive`),
    /// and taken by the first link the packet meets (`pass_losses`), which may then run its own
    /// release on the spot (`Scheduler::dispatch_if_next`). This relies on nothing following
    /// that link's `pass_losses` in the event: work after it would take insertion numbers after
    /// the release's work took its own, out of ns-2's order.
    forwarding_last: bool,
    /// Real hosts' frames in emulation (crate::emu), kept aside while their packets cross.
    pub(crate) real: Box<RealFrames>,
    /// The DSDV routing agents (none unless a WLAN has `routing = "dsdv"`).
    pub dsdv: Dsdv,
    /// ns-2's God, when the scenario has its hop counts (`set_dist`).
    pub god: Option<crate::god::God>,
    /// A scratch list of an update's entries as they are processed.
    adverts: Vec<Advert>,
    /// The nodes with an `Agent/PBC` (crate::pbc), by node: only they take its packets.
    pub(crate) pbc_at: Vec<bool>,
}

impl Network {
    /// The network of `links` and `wifi`, routed by fewest hops over both.
    /// Static routes never run over a mobile node's radios: Mobile IPv6 finds the way to it.
    /// Nor over a DSDV WLAN's: a packet for one of its stations goes to its base station.
    pub fn new(
        node_names: Vec<String>,
        mut links: Vec<Link>,
        wifi: Wifi,
        mip: Mip,
        flows: usize,
        tracer: Tracer,
        rng: Ns2Rng,
    ) -> Network {
        let radio_node = |r: RadioId| wifi.stations[r.index()].node;
        let wifi_edges: Vec<(RadioId, RadioId)> = wifi
            .edges()
            .into_iter()
            .filter(|&(a, b)| !mip.is_mobile(radio_node(a)) && !mip.is_mobile(radio_node(b)))
            // nor over a DSDV WLAN's: its agents route there
            .filter(|&(a, _)| !wifi.wlans[wifi.stations[a.index()].wlan_index()].dsdv)
            .collect();
        let mut ends: Vec<(usize, usize)> = links.iter().map(|l| (l.from.index(), l.to.index())).collect();
        ends.extend(wifi_edges.iter().map(|&(a, b)| (radio_node(a).index(), radio_node(b).index())));
        let routes = Routes::shortest_paths(node_names.len(), &ends);
        for l in &mut links {
            l.traced = tracer.records_link(l.from, l.to);
        }
        let mut net = Network {
            ctx: Ctx::new(flows, tracer, rng),
            links,
            flights: Flights::default(),
            wifi,
            routes,
            wifi_edges,
            mip,
            node_names,
            forwarding_last: false,
            real: Box::default(),
            dsdv: Dsdv::default(),
            god: None,
            adverts: Vec::new(),
            pbc_at: Vec::new(),
        };
        net.mip.start(&mut net.ctx, &net.wifi);
        net
    }

    /// An agent at `node` sends packet `id` towards its destination.
    pub(crate) fn send(&mut self, node: NodeId, id: PacketId) {
        let pkt = self.ctx.pkts.get(id);
        let stats = &mut self.ctx.flow_stats[pkt.flow.0 as usize]; // checked: `Endpoint` is public
        match pkt.kind {
            // a FullTcp listener's data goes in `ack` packets: data all the same
            Kind::Ack if pkt.payload == 0 => stats.acks_sent += 1,
            Kind::Tcp | Kind::Cbr | Kind::Exp | Kind::Pareto | Kind::Udp | Kind::Ack => stats.on_data_sent(pkt.size),
            Kind::Arp | Kind::Message | Kind::Pbc | Kind::BindingUpdate | Kind::BindingAck | Kind::Real => {}
        }
        self.trace_agent('s', node, id);
        self.forward(node, id);
    }

    /// An agent-level line of the wireless trace for a packet in the pool.
    pub(crate) fn trace_agent(&mut self, ev: char, node: NodeId, id: PacketId) {
        if self.ctx.tracer.wireless.is_some() {
            // a packet received keeps the MAC header of the frame that brought it
            let header = if ev == 'r' { self.wifi.take_mac_header(id) } else { None };
            if self.ctx.tracer.no_agent_lines {
                return;
            }
            if let (Some(god), 's') = (&mut self.god, ev) {
                // ns-2's agent send trace stamps the packet with God's hop count
                let now = self.ctx.now_secs();
                god.stamp(now, self.ctx.pkts.get_mut(id));
            }
            let pkt = *self.ctx.pkts.get(id);
            // with base stations, a packet received without a MAC header came off a wired link:
            // no radio hop to count
            let hops = if self.ctx.tracer.addressing.is_some() { 's' } else { ev };
            let header = header.unwrap_or(RxHeader::plain((0, 0, 0, 0), hops));
            self.wifi.write_radio_packet(&mut self.ctx, ev, node, "AGT", "---", &pkt, header);
        }
    }

    /// Hands a packet at `node` to the link (or radio) towards its destination.
    pub fn forward(&mut self, node: NodeId, id: PacketId) {
        if !self.dsdv.is_empty() {
            if let Some(a) = self.dsdv.agent_of(node) {
                let dst = self.ctx.pkts.get(id).dst.node;
                if self.dsdv.wired_bypass(a, dst) {
                    // a base station's classifier has a wired route for it: no RTR line
                    self.forward_on(self.route(node, self.dsdv.wired_towards(dst)), id);
                    return;
                }
                // an agent's packet enters the routing agent (the node's default target)
                let header = RxHeader::plain((0, 0, 0, 0), 's');
                self.trace_dsdv('r', node, "---", id, header);
                self.dsdv_recv(a, node, id, header);
                return;
            }
        }
        let Some(towards) = self.forward_mobile(node, id) else { return };
        self.forward_on(self.route(node, self.dsdv.wired_towards(towards)), id);
    }

    /// Where packet `id` at `node` goes next: the node its static route leads towards (its
    /// destination, or a tunnel's end), or None if Mobile IPv6 took it (onto a radio, or dropped).
    #[inline(always)] // into `forward`: a network without mobile nodes pays one test
    fn forward_mobile(&mut self, node: NodeId, id: PacketId) -> Option<NodeId> {
        if self.mip.is_static() {
            return Some(self.ctx.pkts.get(id).dst.node);
        }
        match self.mip.route(&mut self.ctx.pkts, &self.wifi, node, id) {
            None => Some(self.ctx.pkts.get(id).dst.node),
            Some(Route::Toward(n)) => Some(n),
            Some(Route::Radio(a, b)) => {
                self.radio_enqueue(a, b, id);
                None
            }
            Some(Route::Drop) => {
                let pkt = *self.ctx.pkts.get(id);
                self.wifi.trace_radio_packet(&mut self.ctx, 'D', node, "RTR", "NRTE", &pkt);
                self.drop_packet(id);
                None
            }
        }
    }

    /// Queues packet `id` at radio `from` for radio `to`, after the link layer's delay if it
    /// has one (ns-2's `LL::sendDown` schedules the interface queue's receipt `delay_` later).
    pub(crate) fn radio_enqueue(&mut self, from: RadioId, to: RadioId, id: PacketId) {
        let delay = self.wifi.ll_delay(from);
        if delay > 0.0 {
            if self.wifi.arp(from) {
                // ns-2's `LL::sendDown` asks the ARP table first (wifi/arp.rs)
                match self.wifi.arp_resolve(&mut self.ctx, from, to, id) {
                    Resolved::Known => {}
                    Resolved::Held(replaced) => {
                        if let Some(old) = replaced {
                            self.arp_drop(from, old, false);
                        }
                        return;
                    }
                    Resolved::Refused(held) => {
                        // ns-2's arpresolve at ARP_MAX_REQUEST_COUNT: the held packet, then this
                        for dropped in held.into_iter().chain([id]) {
                            self.arp_drop(from, dropped, true);
                        }
                        return;
                    }
                }
            }
            let at = self.ctx.now_secs() + delay;
            self.ctx.sched.schedule_exact(at, Event::Wifi(WifiEvent::LlDown(from, to, id)));
            return;
        }
        let outcome = self.wifi.enqueue(&mut self.ctx, from, to, id);
        let _ = self.take_outcome(outcome);
    }

    /// ARP drops packet `id` at radio `from` (`DROP_IFQ_ARP_FULL`): LL::sendDown has written
    /// the MAC header's source and type, not yet its destination. A packet `refused` after
    /// the last request goes to its DSDV agent's failure callback instead, if it has one
    /// (`arpresolve`), which drops it as `D RTR CBK`.
    fn arp_drop(&mut self, from: RadioId, id: PacketId, refused: bool) {
        let (node, pkt) = (self.wifi.stations[from.index()].node, *self.ctx.pkts.get(id));
        let header = crate::wifi::arp::held_header(node, &pkt);
        let (layer, why) = if refused && pkt.next_hop.is_some() { ("RTR", "CBK") } else { ("IFQ", "ARP") };
        self.wifi.write_radio_packet(&mut self.ctx, 'D', node, layer, why, &pkt, header);
        self.drop_packet(id);
    }

    /// ns-2's `$node reset` of a mobile node (ns-mobilenode.tcl): each interface queue drops
    /// what it holds (`PriQueue::Terminate`), then ARP the packets it holds
    /// (`ARPTable::Terminate`, newest entry first), all traced `D IFQ END`; the MAC keeps the
    /// frame it has, and the routing agent its queues.
    pub(crate) fn reset_node(&mut self, node: NodeId) {
        for r in 0..self.wifi.stations.len() {
            let radio = RadioId(r as u32);
            if self.wifi.stations[r].node != node {
                continue;
            }
            for id in self.wifi.reset(&mut self.ctx, radio) {
                self.drop_packet(id);
            }
        }
    }

    /// Handles a radio event; returns a packet that reached its destination node.
    #[must_use = "a packet handed back still holds its slot"]
    pub fn on_wifi(&mut self, ev: WifiEvent) -> Option<PacketId> {
        match ev {
            WifiEvent::LlDown(from, to, id) => {
                let outcome = self.wifi.enqueue(&mut self.ctx, from, to, id);
                self.take_outcome(outcome)
            }
            WifiEvent::LlUp(radio, from, id) => {
                let node = self.wifi.stations[radio.index()].node;
                self.arrive_from_radio(node, from, id)
            }
            _ => {
                let outcome = self.wifi.on_event(&mut self.ctx, ev);
                self.take_outcome(outcome)
            }
        }
    }

    /// Packet `id` from node `from` reaches `node` from its radio's link layer.
    #[must_use = "a packet handed back still holds its slot"]
    fn arrive_from_radio(&mut self, node: NodeId, from: NodeId, id: PacketId) -> Option<PacketId> {
        let pkt = self.ctx.pkts.get(id);
        if pkt.kind == Kind::Message {
            self.dsdv_receive_update(node, id);
            return None;
        }
        if pkt.kind == Kind::Pbc {
            self.pbc_received(node, id);
            return None;
        }
        if !is_home(pkt, node) {
            if let Some(a) = self.dsdv.agent_of(node) {
                if self.dsdv.wired_bypass(a, pkt.dst.node) {
                    // a base station's classifier has a wired route for it: no RTR line
                    let towards = self.dsdv.wired_towards(pkt.dst.node);
                    let _ = self.wifi.take_mac_header(id);
                    self.forward_on(self.route(node, towards), id);
                    return None;
                }
                // not for this node: its routing agent forwards it, as the frame brought it
                let header = self.wifi.take_mac_header(id).unwrap_or(RxHeader::plain((0, 0, 0, 0), 'r'));
                self.trace_dsdv('r', node, "---", id, header);
                self.dsdv_recv(a, node, id, header);
                return None;
            }
        }
        self.mip.note_delivery(self.ctx.now_secs(), pkt, from);
        let home = self.arrive_at(node, id);
        if self.ctx.tracer.wireless.is_some() && home.is_none() {
            let _ = self.wifi.take_mac_header(id); // it went on, or ended here: no agent line
        }
        home
    }

    /// What the MAC handed back: a packet it gave up is lost; one it delivered is home or goes
    /// on (a packet home is handed back), and then the radio resumes. Inline, so that the most
    /// of a WLAN's events, which hand back nothing, pay only the test.
    #[inline]
    fn take_outcome(&mut self, outcome: Outcome) -> Option<PacketId> {
        match outcome {
            Outcome::Nothing => None,
            outcome => self.take_packet(outcome),
        }
    }

    /// `take_outcome` of a packet dropped or delivered.
    fn take_packet(&mut self, outcome: Outcome) -> Option<PacketId> {
        match outcome {
            Outcome::Nothing => None,
            Outcome::Dropped(id) => {
                self.drop_packet(id);
                None
            }
            Outcome::Delivered { node, from, radio, id } => {
                let delay = self.wifi.ll_delay(radio);
                if delay > 0.0 {
                    // ns-2's `LL::sendUp`: the node has it `delay_` later; the MAC goes on now
                    let at = self.ctx.now_secs() + delay;
                    self.ctx.sched.schedule_exact(at, Event::Wifi(WifiEvent::LlUp(radio, from, id)));
                    self.wifi.resume(&mut self.ctx, radio);
                    return None;
                }
                let home = self.arrive_from_radio(node, from, id);
                self.wifi.resume(&mut self.ctx, radio);
                home
            }
        }
    }

    /// A DSDV agent's event: an update's packet due at the send target goes to the `s RTR`
    /// trace, then down the link layer as a broadcast.
    pub fn on_dsdv(&mut self, ev: DsdvEvent) {
        let Some((a, id)) = self.dsdv.on_event(&mut self.ctx, ev) else { return };
        let (node, radio) = (self.dsdv.agents[a as usize].node, self.dsdv.agents[a as usize].radio);
        let pkt = *self.ctx.pkts.get(id);
        let ev = if self.ctx.tracer.addressing.is_none() { 's' } else { 'f' }; // as in `dsdv_recv`
        self.wifi.trace_radio_packet(&mut self.ctx, ev, node, "RTR", "---", &pkt);
        self.radio_enqueue(radio, crate::wifi::BROADCAST, id);
    }

    /// A routing-agent line (`RTR`) for packet `id` at `node`, with the MAC header it carries.
    fn trace_dsdv(&mut self, ev: char, node: NodeId, reason: &'static str, id: PacketId, header: RxHeader) {
        if self.ctx.tracer.wireless.is_some() {
            let pkt = *self.ctx.pkts.get(id);
            self.wifi.write_radio_packet(&mut self.ctx, ev, node, "RTR", reason, &pkt, header);
        }
    }

    /// The MAC header packet `id` still carries at `node`, where it waited for a route: the
    /// one of the frame that brought it, or none if the node made it.
    fn kept_header(&self, node: NodeId, id: PacketId) -> RxHeader {
        let pkt = self.ctx.pkts.get(id);
        match pkt.rx_from.filter(|_| pkt.forwards > 0) {
            Some(from) => RxHeader::plain((pkt.rx_duration.into(), node.get(), from.get(), 0x800), 'r'),
            None => RxHeader::plain((0, 0, 0, 0), 's'),
        }
    }

    /// DSDV's `recv` at `node` (its agent `a`): a packet it originates gains its IP header
    /// (every time it comes through: one released from the queue gains another), one it
    /// forwards loses a TTL; then `forwardPacket`.
    fn dsdv_recv(&mut self, a: u32, node: NodeId, id: PacketId, header: RxHeader) {
        let pkt = self.ctx.pkts.get_mut(id);
        let why = if pkt.src.node == node && pkt.forwards == 0 {
            pkt.size += crate::dsdv::IP_HDR_LEN;
            pkt.ttl = crate::packet::DEFAULT_TTL;
            None
        } else if pkt.src.node == node {
            Some("LOOP")
        } else {
            pkt.ttl -= 1;
            (pkt.ttl == 0).then_some("TTL")
        };
        if let Some(why) = why {
            self.trace_dsdv('D', node, why, id, header);
            self.drop_packet(id);
            return;
        }
        let dst = self.ctx.pkts.get(id).dst.node;
        let route = if self.dsdv.outside(a, dst) {
            match self.dsdv.route_outside(a, self.dsdv.addr_of(dst)) {
                Some(hop) => Forward::Next(hop),
                None => {
                    // no route to the base station yet: ns-2 frees it without a trace line
                    self.drop_packet(id);
                    return;
                }
            }
        } else {
            self.dsdv.route(&mut self.ctx, a, id, self.dsdv.addr_of(dst))
        };
        match route {
            Forward::Next(hop) => {
                let hop = self.dsdv.node_at(hop);
                let pkt = self.ctx.pkts.get_mut(id);
                pkt.next_hop = Some(hop);
                // cmu-trace writes `f` for a packet of another node, and for every packet when
                // addresses are hierarchical (a node's id is then never its address)
                let ev = if pkt.src.node == node && self.ctx.tracer.addressing.is_none() { 's' } else { 'f' };
                self.trace_dsdv(ev, node, "---", id, header);
                let radio = self.dsdv.agents[a as usize].radio;
                let wlan = self.wifi.stations[radio.index()].wlan_index();
                let to = self.wifi.radio(wlan, hop.index()).expect("a DSDV next hop is on the WLAN");
                self.radio_enqueue(radio, to, id);
            }
            Forward::Waits(Some(oldest)) => {
                let header = self.kept_header(node, oldest);
                self.trace_dsdv('D', node, "IFQ", oldest, header);
                self.drop_packet(oldest);
            }
            Forward::Waits(None) => {}
        }
    }

    /// A route update from a neighbour reaches `node`'s link layer: the `r RTR` trace, then its
    /// agent's `processUpdate`, which frees it.
    fn dsdv_receive_update(&mut self, node: NodeId, id: PacketId) {
        let pkt = *self.ctx.pkts.get(id);
        if self.ctx.tracer.wireless.is_some() {
            let header = self.wifi.take_mac_header(id).unwrap_or(RxHeader::plain((0, 0, 0, 0), 'r'));
            self.wifi.write_radio_packet(&mut self.ctx, 'r', node, "RTR", "---", &pkt, header);
        }
        self.ctx.pkts.release(id);
        let a = self.dsdv.agent_of(node).expect("updates go to nodes with an agent");
        let from = self.dsdv.addr_of(pkt.src.node);
        let mut adverts = std::mem::take(&mut self.adverts);
        self.dsdv.advert(pkt.uid, &mut adverts);
        for &advert in &adverts {
            // the packets that waited for the route go to `recv` again, oldest first
            for waiting in self.dsdv.process_entry(&mut self.ctx, a, from, advert) {
                let header = self.kept_header(node, waiting);
                self.dsdv_recv(a, node, waiting, header);
            }
        }
        self.adverts = adverts;
        self.dsdv.heard_from(&mut self.ctx, a, from);
    }

    /// A mobile node's timer fired.
    pub fn on_mip(&mut self, m: u32, which: MipTimer, gen: u32) {
        let out = self.mip.on_timer(&mut self.ctx, &self.wifi, m, which, gen);
        self.send_signalling(out);
    }

    /// Sends what Mobile IPv6 handed back, if anything.
    fn send_signalling(&mut self, out: Option<Outgoing>) {
        if let Some(Outgoing { node, id }) = out {
            self.forward(node, id);
        }
    }

    /// The edge (a link, or a radio pair) of the static route from `node` towards node
    /// `towards` (a packet's destination, or a tunnel's end).
    fn route(&self, node: NodeId, towards: NodeId) -> usize {
        self.routes
            .next_link(node.index(), towards.index())
            .expect("validated scenarios only have reachable destinations")
    }

    /// Hands a packet to edge `edge`: a wired link's queue, or a radio's.
    fn forward_on(&mut self, edge: usize, id: PacketId) {
        match edge.checked_sub(self.links.len()) {
            None => self.enqueue(LinkId(edge as u32), id),
            Some(w) => {
                let (from, to) = self.wifi_edges[w];
                self.radio_enqueue(from, to, id);
            }
        }
    }

    /// Packet `id` arrived at `node` off the air: it is home, or it goes on.
    #[must_use = "a packet handed back still holds its slot"]
    pub fn arrive_at(&mut self, node: NodeId, id: PacketId) -> Option<PacketId> {
        if is_home(self.ctx.pkts.get(id), node) {
            self.arrive_home(node, id)
        } else {
            self.forward(node, id);
            None
        }
    }

    /// Packet `id` reached `node`, where it is addressed: it is handed back, still in the pool,
    /// for its agent, unless it is signalling, which ends here.
    #[inline(always)] // into `on_arrive`
    fn arrive_home(&mut self, node: NodeId, id: PacketId) -> Option<PacketId> {
        let pkt = self.ctx.pkts.get_mut(id);
        pkt.decapsulate();
        // one comparison: the kinds that end in the network are declared last
        if matches!(pkt.kind, Kind::BindingUpdate | Kind::BindingAck | Kind::Real) {
            self.ends_here(node, id);
            return None;
        }
        self.trace_agent('r', node, id);
        Some(id)
    }

    /// A packet home that no agent takes: signalling goes to Mobile IPv6; a real frame waits
    /// for the emulation to write it to its host (`RealFrames::arrived`).
    #[cold]
    fn ends_here(&mut self, node: NodeId, id: PacketId) {
        if self.ctx.pkts.get(id).kind == Kind::Real {
            self.real.arrived.push((node, id));
            return;
        }
        let pkt = self.ctx.pkts.release(id);
        let out = self.mip.on_signalling(&mut self.ctx, &self.wifi, node, pkt);
        self.send_signalling(out);
    }

    /// A real host's frame of `size` IP bytes enters the network at node `from`, addressed to
    /// the host at node `to` (crate::emu). It crosses links and queues as any packet does,
    /// ECN-capable if its IP header says so, and traces show its transport header's fields.
    pub(crate) fn inject_real(&mut self, from: NodeId, to: NodeId, frame: &[u8], size: u32, h: &Headers) {
        let uid = self.ctx.next_uid();
        let ts = self.ctx.now_secs();
        let pkt = Packet::of_network(uid, Kind::Real, from, to, size, h.seq as i64, ts);
        let mut f = if h.ecn != 0 { flags::ECT } else { 0 };
        for (on, flag) in
            [(h.ecn == 3, flags::CE), (h.tcp_flags & 0x40 != 0, flags::ECN_ECHO), (h.tcp_flags & 0x80 != 0, flags::CWR)]
        {
            if on {
                f |= flag;
            }
        }
        let id = self.ctx.pkts.alloc(Packet {
            tunnel_from: from,
            payload: h.payload,
            src: Addr { node: from, port: h.src_port as u32 },
            dst: Addr { node: to, port: h.dst_port as u32 },
            flags: f,
            ackno: h.ack as i32,
            tcp_flags: h.tcp_flags,
            hlen: h.hlen,
            ..pkt
        });
        self.real.keep(uid, frame);
        self.forward(from, id);
    }

    fn enqueue(&mut self, l: LinkId, id: PacketId) {
        // SAFETY: `forward_on` passes wired edges only, which are links
        unsafe { unchecked(&mut self.links, l.index()) }.stats.arrivals += 1;
        self.pass_losses(l, id, 0);
    }

    /// Takes a packet through the link's loss models from model `first` on, then to its queue.
    /// A dropped packet shows only as `d`; a delayed one re-enters after the model that held it.
    #[inline(always)] // into its callers (mainly `enqueue`): no call on every hop (-2% instructions)
    pub(crate) fn pass_losses(&mut self, l: LinkId, id: PacketId, first: usize) {
        let last = std::mem::take(&mut self.forwarding_last);
        let now_s = self.ctx.now_secs();
        // SAFETY: a link (from `enqueue`, or a delayed packet's event made there)
        let link = unsafe { unchecked(&mut self.links, l.index()) };
        let pkt = self.ctx.pkts.get_mut(id);
        for (i, model) in link.losses.iter_mut().enumerate().skip(first) {
            if !model.picks(pkt.fid, pkt.size, now_s, &mut self.ctx.rng) {
                continue;
            }
            match model.action {
                LossAction::Drop => {
                    self.ctx.tracer.link_event('d', now_s, link.from, link.to, pkt);
                    self.drop(l, id);
                    return;
                }
                LossAction::Mark => pkt.flags |= flags::CE,
                LossAction::Delay { delay } => {
                    let at = now_s + delay.as_secs_f64();
                    self.ctx.sched.schedule_exact(at, Event::Reenter(l, id, i as u8 + 1));
                    return;
                }
            }
        }
        if let Some((at, _)) = link.release.filter(|&(at, seq)| self.ctx.sched.is_past(at, seq)) {
            // The transmission ended before this packet came: the link went idle then, and
            // its queue (RED counts idle time) was found empty then, as `on_link_free` does.
            link.release = None;
            link.free();
            let none = link.queue.dequeue(at);
            debug_assert!(none.is_none(), "a release is left unscheduled only while the queue is empty");
        }
        if let Some((at, seq)) = link.release.filter(|&(at, _)| last && at == now_s && link.queue.passes_through()) {
            // The transmission ends now, but its release was scheduled after this packet's
            // arrival (a train at equal rates, at every hop): the packet would join the queue
            // and the release take it out at once. If the release is the next event and this
            // arrival does nothing after, run the release here: the packet passes through as
            // on an idle link.
            if self.ctx.sched.dispatch_if_next(at, seq) {
                link.release = None;
                link.free();
            }
        }
        if link.traced {
            self.ctx.tracer.link_event('+', now_s, link.from, link.to, pkt);
        }
        if !link.busy && link.queue.passes_through() {
            // It would join the queue and leave it at once: it goes to the wire, and the
            // queue's books see it pass.
            link.stats.passed_through();
            self.put_on_wire(l, id);
            return;
        }
        let waiting = link.queue.len();
        match link.queue.enqueue(id, pkt, now_s, &mut self.ctx.rng) {
            Verdict::Queued => {
                let now = self.ctx.sched.now();
                link.stats.queue_changed(now, waiting, link.queue.len());
                if let Some(check) = self.ctx.check.as_mut().filter(|_| link.queue.overfull(pkt.size)) {
                    let (len, name) = (link.queue.len(), link_name(&self.node_names, link));
                    check.fail(now_s, || format!("link {name}: {len} packets waiting, over its limit"));
                }
                if link.delayer {
                    link.delayer_takes_head(now, now_s);
                }
                if let Some((at, seq)) = link.release.take() {
                    // a packet now waits for the end of the transmission
                    self.ctx.sched.push_reserved(at, seq, Event::LinkFree(l));
                }
                if !link.busy {
                    self.start_transmission(l);
                }
            }
            Verdict::Dropped => {
                self.ctx.tracer.link_event('d', now_s, link.from, link.to, pkt);
                self.drop(l, id);
            }
            Verdict::Displaced(victim) => {
                // the link is busy (the queue was full): the arrival just waits
                self.ctx.tracer.link_event('d', now_s, link.from, link.to, self.ctx.pkts.get(victim));
                self.drop(l, victim);
            }
        }
    }

    fn drop(&mut self, l: LinkId, id: PacketId) {
        self.links[l.index()].stats.drops += 1;
        self.drop_packet(id);
    }

    /// A packet is lost: counted against its flow and returned to the pool.
    pub fn drop_packet(&mut self, id: PacketId) {
        let pkt = self.ctx.pkts.release(id);
        if matches!(
            pkt.kind,
            Kind::Arp | Kind::Message | Kind::Pbc | Kind::BindingUpdate | Kind::BindingAck | Kind::Real
        ) {
            if pkt.kind == Kind::Real {
                self.real.drop_frame(pkt.uid);
            }
            return;
        }
        let stats = &mut self.ctx.flow_stats[pkt.flow.0 as usize];
        match pkt.kind {
            Kind::Ack if pkt.payload == 0 => stats.acks_dropped += 1,
            Kind::Tcp | Kind::Cbr | Kind::Exp | Kind::Pareto | Kind::Udp | Kind::Ack => stats.data_dropped += 1,
            Kind::Arp | Kind::Message | Kind::Pbc | Kind::BindingUpdate | Kind::BindingAck | Kind::Real => {}
        }
        if pkt.kind.is_data() && self.mip.is_mobile(pkt.dst.node) {
            self.mip.drops.push((self.ctx.now_secs(), pkt.flow.0));
        }
    }

    /// Takes the head of the queue onto the wire (ns-2: queue -> `-` trace -> DelayLink).
    #[inline(always)] // into its callers, `on_link_free` and `pass_losses` (-0.4% instructions)
    fn start_transmission(&mut self, l: LinkId) {
        let now = self.ctx.now();
        let now_s = self.ctx.now_secs();
        // SAFETY: a link whose transmission ends, or which a packet joined
        let link = unsafe { unchecked(&mut self.links, l.index()) };
        if link.delayer {
            // the Delayer's packet, if it holds one; if not, its resume finds the queue empty
            match link.held.take() {
                Some(id) => self.put_on_wire(l, id),
                None => link.delayer_takes_head(now, now_s),
            }
            return;
        }
        let waiting = link.queue.len();
        let Some(id) = link.queue.dequeue(now_s) else {
            return;
        };
        link.stats.queue_changed(now, waiting, link.queue.len());
        self.put_on_wire(l, id);
    }

    /// Puts packet `id`, just out of link `l`'s queue, on the wire.
    fn put_on_wire(&mut self, l: LinkId, id: PacketId) {
        let now_s = self.ctx.now_secs();
        // SAFETY: the link that takes the packet, out of its queue or straight through
        let link = unsafe { unchecked(&mut self.links, l.index()) };
        let pkt = self.ctx.pkts.get(id);
        debug_assert_eq!(
            link.traced,
            self.ctx.tracer.records_link(link.from, link.to),
            "writers changed after Network::new"
        );
        if link.traced {
            self.ctx.tracer.link_event('-', now_s, link.from, link.to, pkt);
            if let Some(pcap) = &mut self.ctx.tracer.pcap {
                let real =
                    if pkt.kind == Kind::Real { self.real.get_marked(pkt.uid, pkt.has(flags::CE)) } else { None };
                match real {
                    Some(frame) => pcap.capture_real(l.index(), now_s, &frame[crate::emu::frame::ETH_HLEN..]),
                    None => pcap.capture(l.index(), now_s, pkt),
                }
            }
        }
        link.busy = true;
        link.stats.departures += 1;
        let tx = link.tx_time(pkt.size, &mut self.flights);
        link.stats.busy_time += tx.tx;
        link.busy_since = now_s;
        // Without mobile nodes a packet is home where it is addressed, and goes on by static routes.
        let (to, dst) = (link.to, pkt.dst.node);
        // a DSDV node's packets go through its agent (`forward`)
        let onward = if !self.mip.is_static() || !self.dsdv.is_empty() {
            Onward::Ask
        } else if dst == to {
            Onward::Home
        } else {
            Onward::Edge(self.route(to, dst) as u32)
        };
        // SAFETY: as above
        let link = unsafe { unchecked(&mut self.links, l.index()) };
        // ns-2's LinkDelay::recv in ns-2's arithmetic and order: the arrival, then the release.
        let arrival =
            InFlight { at: now_s + (tx.secs + link.delay_secs), seq: self.ctx.sched.reserve(), link: l, id, onward };
        // checked: the first packet of a size finds its lane, later ones the lane cached
        // beside it, and only that check proves the lane of `Event::Arrive` (`on_arrive`)
        let lane = &mut self.flights.lanes[tx.lane.index()];
        debug_assert!(
            lane.back().is_none_or(|last| (last.at, last.seq) < (arrival.at, arrival.seq)),
            "a lane lands in order"
        );
        if lane.is_empty() {
            self.ctx.sched.push_reserved(arrival.at, arrival.seq, Event::Arrive(tx.lane));
        }
        lane.push_back(arrival);
        let release = (now_s + tx.secs, self.ctx.sched.reserve());
        if link.delayer {
            // having passed its packet on, the Delayer resumes the queue
            link.delayer_takes_head(self.ctx.now(), now_s);
        }
        if link.queue.is_empty() && link.held.is_none() {
            link.release = Some(release);
        } else {
            self.ctx.sched.push_reserved(release.0, release.1, Event::LinkFree(l));
        }
    }

    pub(crate) fn on_link_free(&mut self, l: LinkId) {
        // SAFETY: `put_on_wire` and `pass_losses` make a release's event for its link
        let link = unsafe { unchecked(&mut self.links, l.index()) };
        link.free();
        if !link.busy {
            self.start_transmission(l);
        }
    }

    /// Puts ns-2's Delayer between link `l`'s queue and its wire, as `$ns insert-delayer` does
    /// (for the whole run: a link with delay spikes has one).
    pub(crate) fn insert_delayer(&mut self, l: LinkId) {
        self.links[l.index()].delayer = true;
    }

    /// A delay spike starts on link `l` (ns-2's `$delayer block`): a transmission under way
    /// ends, and no other starts.
    pub(crate) fn block(&mut self, l: LinkId) {
        let link = &mut self.links[l.index()];
        link.blocked = true;
        if !link.busy {
            link.busy = true;
            link.idle_in_spike = true;
        }
    }

    /// The spike ends (`$delayer unblock`): if the link's last transmission is over, its
    /// queue's head goes now; else when that ends, as usual.
    pub(crate) fn unblock(&mut self, l: LinkId) {
        let link = &mut self.links[l.index()];
        link.blocked = false;
        if std::mem::take(&mut link.idle_in_spike) {
            link.busy = false;
            self.start_transmission(l);
        }
    }

    /// The first packet of flight lane `lane` reaches the end of its link: it is forwarded, or
    /// handed back if it is home.
    #[must_use = "a packet handed back still holds its slot"]
    pub(crate) fn on_arrive(&mut self, lane: LaneId) -> Option<PacketId> {
        let now_s = self.ctx.now_secs();
        // SAFETY: `put_on_wire` makes a lane's event for a lane it has indexed
        let flights = unsafe { unchecked(&mut self.flights.lanes, lane.index()) };
        let InFlight { link: l, id, onward, .. } =
            flights.pop_front().expect("a lane's event comes with its first packet");
        if let Some(next) = flights.front() {
            self.ctx.sched.push_reserved(next.at, next.seq, Event::Arrive(lane));
        }
        // SAFETY: `put_on_wire` puts the entry in the lane, naming its own link
        let link = unsafe { unchecked(&mut self.links, l.index()) };
        link.stats.received += 1;
        let to = link.to;
        if link.traced {
            self.ctx.tracer.link_event('r', now_s, link.from, to, self.ctx.pkts.get(id));
        }
        if !self.dsdv.is_empty() {
            // ns-2's TTLChecker at the link's end: DSDV sees the wired hops in the TTL
            let pkt = self.ctx.pkts.get_mut(id);
            pkt.ttl = pkt.ttl.saturating_sub(1);
        }
        let home = match onward {
            Onward::Home => true,
            Onward::Ask => is_home(self.ctx.pkts.get(id), to),
            Onward::Edge(_) => false,
        };
        if home {
            return self.arrive_home(to, id);
        }
        self.forwarding_last = true;
        match onward {
            Onward::Edge(edge) => self.forward_on(edge as usize, id),
            _ => self.forward(to, id),
        }
        self.forwarding_last = false; // if no link took it (a radio, a drop)
        None
    }

    /// Closes the books at the end of the run (time-weighted queue averages).
    pub fn finish(&mut self) {
        let now = self.ctx.now();
        for link in &mut self.links {
            let waiting = link.queue.len();
            link.stats.queue_changed(now, waiting, waiting);
        }
    }
}
