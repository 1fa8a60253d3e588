//! The network every agent talks to: the clock, packets, links with their queues, routes,
//! counters and trace writers. Agents get `&mut Network` and send through it synchronously, as
//! ns-2 agents call `target_->recv`, so events are scheduled in the same order as in ns-2.

use crate::loss::Loss;
use crate::loss::LossAction;
use crate::metrics::{FlowStats, LinkStats};
use crate::mobility::{Mip, MipTimer};
use crate::packet::{flags, FlowId, Kind, Packet, PacketId, PacketPool};
use crate::queue::{Queue, Verdict};
use crate::routing::Routes;
use crate::trace::Tracer;
use crate::wifi::{Wifi, WifiEvent};
use std::collections::HashMap;
use tcplab_des::{Ns2Rng, Ring, Scheduler, Time, Timer};

/// Everything that can happen, as a small plain value.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A link finished serialising a packet and may start the next one.
    LinkFree(u32),
    /// The first packet of flight lane `0` reaches the far end of its link.
    Arrive(u32),
    /// A packet a loss model held back enters link `0` again, after its loss model `2`.
    Reenter(u32, PacketId, u8),
    /// A flow's timer fired; stale unless `gen` is the timer's current generation.
    Timer(FlowId, TimerKind, u32),
    /// The scenario's action with this index.
    Act(u32),
    /// Something on a wireless LAN.
    Wifi(WifiEvent),
    /// A mobile node's timer (its index, which timer, generation).
    Mip(u32, MipTimer, u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// The TCP sender's retransmission timer.
    Rtx,
    /// The delayed-ACK sink's timer.
    DelAck,
    /// The CBR source's next packet.
    Cbr,
    /// An RBP sender's next paced segment.
    Pace,
}

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
    pub to: u32,
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
    pub from: u32,
    pub rate_bps: u64,
    /// Propagation delay in seconds (a double, as ns-2's `delay_`).
    pub delay_secs: f64,
}

#[derive(Clone, Copy)]
struct LastTx {
    size: u32,
    tx: Time,
    secs: f64,
    lane: u32,
}

impl Link {
    pub fn new(from: u32, to: u32, rate_bps: u64, delay_secs: f64, queue: Queue) -> Link {
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
            last_tx: LastTx { size: u32::MAX, tx: Time::ZERO, secs: 0.0, lane: u32::MAX }, // no size yet
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

    /// Packets on this link's wire: sent and not yet received.
    pub fn on_wire(&self) -> u64 {
        self.stats.departures - self.stats.received
    }
}

/// A packet at `node` is home: it is addressed there and no tunnel takes it elsewhere. The
/// last tunnel may end where the packet is addressed (an MN's reverse tunnel to its own home
/// agent); a packet still inside two (an MN's to its own MAP) goes on to the home agent.
fn is_home(pkt: &Packet, node: u32) -> bool {
    pkt.dst.node == node && (pkt.via == crate::packet::NO_VIA || (pkt.via == node && pkt.encaps <= 1))
}

/// A link direction's name in summaries, series and checks: "from->to".
pub fn link_name(nodes: &[String], l: &Link) -> String {
    format!("{}->{}", nodes[l.from as usize], nodes[l.to as usize])
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
    by_time: HashMap<u64, u32>,
}

#[derive(Clone, Copy, Debug)]
struct InFlight {
    at: f64,
    seq: u64,
    link: u32,
    id: PacketId,
    /// Where the packet goes on from the link's far end, found as it went onto the wire: the
    /// edge (a link, or a radio pair) of its static route, `HOME`, or `ASK` with mobile nodes.
    /// Without them an arrival goes by this alone: it neither reads the packet, which has
    /// usually left the cache since, nor waits for a route lookup (S4 6% less time, S2 and S3
    /// up to 3%).
    onward: u32,
}

/// `InFlight::onward` of a packet that is home at the link's far end.
const HOME: u32 = u32::MAX;
/// `InFlight::onward` where Mobile IPv6 decides at the far end (the packet is read there).
const ASK: u32 = u32::MAX - 1;

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
    fn lane(&mut self, flight: f64) -> u32 {
        let lanes = &mut self.lanes;
        *self.by_time.entry(flight.to_bits()).or_insert_with(|| {
            lanes.push(Ring::default());
            lanes.len() as u32 - 1
        })
    }

    /// How many packets each of `links` links has on its wire, counted in the lanes.
    pub fn on_wire(&self, links: usize) -> Vec<u64> {
        let mut n = vec![0; links];
        for f in self.lanes.iter().flat_map(Ring::iter) {
            n[f.link as usize] += 1;
        }
        n
    }
}

pub struct Network {
    pub sched: Scheduler<Event>,
    /// Crate-private, as `links`, `flights` and `flow_stats` are: a hop indexes them without
    /// bounds checks (`unchecked`, `PacketPool::slot_in_range`), by ids made from the tables
    /// themselves, which never shrink.
    pub(crate) pkts: PacketPool,
    pub(crate) links: Vec<Link>,
    pub(crate) flights: Flights,
    /// The wireless LANs and their radios.
    pub wifi: Wifi,
    /// Routes over the wired links (edges 0..links.len()) and then these radio pairs.
    pub routes: Routes,
    pub wifi_edges: Vec<(u32, u32)>,
    /// Mobile nodes and Mobile IPv6.
    pub mip: Mip,
    /// Node names, for records.
    pub node_names: Vec<String>,
    pub(crate) flow_stats: Vec<FlowStats>,
    /// The trace writers. They are opened before the network is built and stay as they are:
    /// each link's `traced` flag is taken from them once.
    pub tracer: Tracer,
    /// ns-2's default generator, for the components that draw from it (`random::Draws::Shared`).
    pub rng: Ns2Rng,
    /// The invariant checks, when on (`--check`).
    pub check: Option<crate::check::Checks>,
    /// Why a model refused to go on (`stop_run`): the run ends at its guard's next look.
    /// Boxed: a pointer's room among the fields every hop reads.
    pub(crate) stopped: Option<Box<crate::scenario::ScenarioError>>,
    next_uid: u64,
    /// Set while an arriving packet is forwarded, the last thing its event does (`on_arrive`),
    /// and taken by the first link the packet meets (`pass_losses`), which may then run its own
    /// release on the spot (`Scheduler::dispatch_if_next`). This relies on nothing following
    /// that link's `pass_losses` in the event: work after it would take insertion numbers after
    /// the release's work took its own, out of ns-2's order.
    forwarding_last: bool,
}

impl Network {
    /// The network of `links` and `wifi`, routed by fewest hops over both.
    /// Static routes never run over a mobile node's radios: Mobile IPv6 finds the way to it.
    pub fn new(
        node_names: Vec<String>,
        mut links: Vec<Link>,
        wifi: Wifi,
        mip: Mip,
        flows: usize,
        tracer: Tracer,
        rng: Ns2Rng,
    ) -> Network {
        let radio_node = |r: u32| wifi.stations[r as usize].node;
        let wifi_edges: Vec<(u32, u32)> = wifi
            .edges()
            .into_iter()
            .filter(|&(a, b)| !mip.is_mobile(radio_node(a)) && !mip.is_mobile(radio_node(b)))
            .collect();
        let mut ends: Vec<(usize, usize)> = links.iter().map(|l| (l.from as usize, l.to as usize)).collect();
        ends.extend(wifi_edges.iter().map(|&(a, b)| (radio_node(a) as usize, radio_node(b) as usize)));
        let routes = Routes::shortest_paths(node_names.len(), &ends);
        for l in &mut links {
            l.traced = tracer.records_link(l.from, l.to);
        }
        Network {
            sched: Scheduler::new(),
            pkts: PacketPool::default(),
            links,
            flights: Flights::default(),
            wifi,
            routes,
            wifi_edges,
            mip,
            node_names,
            flow_stats: (0..flows).map(|_| FlowStats::default()).collect(),
            tracer,
            rng,
            check: None,
            stopped: None,
            next_uid: 0,
            forwarding_last: false,
        }
    }

    pub fn now(&self) -> Time {
        self.sched.now()
    }

    /// The current time in seconds, as ns-2's double clock holds it.
    pub fn now_secs(&self) -> f64 {
        self.sched.now_exact()
    }

    /// A model cannot go on (its arithmetic left the range of the simulator it reproduces):
    /// the run stops at its guard's next look with this error, the first one kept.
    #[cold]
    pub fn stop_run(&mut self, why: crate::scenario::ScenarioError) {
        self.stopped.get_or_insert(Box::new(why));
    }

    /// A fresh packet id, as ns-2's global `Agent::uidcnt_`.
    pub fn next_uid(&mut self) -> u64 {
        let uid = self.next_uid;
        self.next_uid += 1;
        uid
    }

    /// Arms `timer` to fire `delay` seconds from now and schedules its event. Delays are doubles
    /// added to the double clock, as ns-2's `Scheduler::schedule` does.
    pub fn arm(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind, delay: f64) {
        let at = self.now_secs() + delay;
        self.sched.arm(timer, at, |gen| Event::Timer(flow, kind, gen));
    }

    /// True if the event of `timer` that came out with generation `gen` is its expiry.
    pub fn fire(&mut self, timer: &mut Timer, flow: FlowId, kind: TimerKind, gen: u32) -> bool {
        self.sched.fire(timer, gen, |gen| Event::Timer(flow, kind, gen))
    }

    /// An agent at `node` sends packet `id` towards its destination.
    pub(crate) fn send(&mut self, node: u32, id: PacketId) {
        let pkt = self.pkts.get(id);
        let stats = &mut self.flow_stats[pkt.flow.0 as usize]; // checked: `Endpoint` is public
        match pkt.kind {
            Kind::Tcp | Kind::Cbr => stats.on_data_sent(pkt.size),
            Kind::Ack => stats.acks_sent += 1,
            Kind::BindingUpdate | Kind::BindingAck => {}
        }
        self.trace_agent('s', node, id);
        self.forward(node, id);
    }

    /// An agent-level line of the wireless trace for a packet in the pool.
    fn trace_agent(&mut self, ev: char, node: u32, id: PacketId) {
        if self.tracer.wireless.is_some() {
            let pkt = *self.pkts.get(id);
            self.trace_radio_packet(ev, node, "AGT", "---", &pkt);
        }
    }

    /// Hands a packet at `node` to the link (or radio) towards its destination.
    pub fn forward(&mut self, node: u32, id: PacketId) {
        let Some(towards) = self.forward_mobile(node, id) else { return };
        self.forward_on(self.route(node, towards), id);
    }

    /// The edge (a link, or a radio pair) of the static route from `node` towards node
    /// `towards` (a packet's destination, or a tunnel's end).
    fn route(&self, node: u32, towards: u32) -> usize {
        self.routes
            .next_link(node as usize, towards as usize)
            .expect("validated scenarios only have reachable destinations")
    }

    /// Hands a packet to edge `edge`: a wired link's queue, or a radio's.
    fn forward_on(&mut self, edge: usize, id: PacketId) {
        match edge.checked_sub(self.links.len()) {
            None => self.enqueue(edge, id),
            Some(w) => {
                let (from, to) = self.wifi_edges[w];
                self.wifi_enqueue(from, to, id);
            }
        }
    }

    /// Packet `id` arrived at `node` off the air: it is home, or it goes on.
    #[must_use = "a packet handed back still holds its slot"]
    pub fn arrive_at(&mut self, node: u32, id: PacketId) -> Option<PacketId> {
        if is_home(self.pkts.get(id), node) {
            self.arrive_home(node, id)
        } else {
            self.forward(node, id);
            None
        }
    }

    /// Packet `id` reached `node`, where it is addressed: it is handed back, still in the pool,
    /// for its agent, unless it is signalling, which ends here.
    #[inline(always)] // into `on_arrive`
    fn arrive_home(&mut self, node: u32, id: PacketId) -> Option<PacketId> {
        let pkt = self.pkts.get_mut(id);
        Network::decapsulate(pkt);
        if matches!(pkt.kind, Kind::BindingUpdate | Kind::BindingAck) {
            let pkt = self.pkts.release(id);
            self.on_signalling(node, pkt);
            return None;
        }
        self.trace_agent('r', node, id);
        Some(id)
    }

    fn enqueue(&mut self, l: usize, id: PacketId) {
        // SAFETY: `forward_on` passes wired edges only, which are links
        unsafe { unchecked(&mut self.links, l) }.stats.arrivals += 1;
        self.pass_losses(l, id, 0);
    }

    /// Takes a packet through the link's loss models from model `first` on, then to its queue.
    /// A dropped packet shows only as `d`; a delayed one re-enters after the model that held it.
    #[inline(always)] // into its callers (mainly `enqueue`): no call on every hop (-2% instructions)
    pub(crate) fn pass_losses(&mut self, l: usize, id: PacketId, first: usize) {
        let last = std::mem::take(&mut self.forwarding_last);
        let now_s = self.now_secs();
        // SAFETY: a link (from `enqueue`, or a delayed packet's event made there)
        let link = unsafe { unchecked(&mut self.links, l) };
        let pkt = self.pkts.get_mut(id);
        for (i, model) in link.losses.iter_mut().enumerate().skip(first) {
            if !model.picks(pkt.fid, pkt.size, &mut self.rng) {
                continue;
            }
            match model.action {
                LossAction::Drop => {
                    self.tracer.link_event('d', now_s, link.from, link.to, pkt);
                    self.drop(l, id);
                    return;
                }
                LossAction::Mark => pkt.flags |= flags::CE,
                LossAction::Delay { delay } => {
                    let at = now_s + delay.as_secs_f64();
                    self.sched.schedule_exact(at, Event::Reenter(l as u32, id, i as u8 + 1));
                    return;
                }
            }
        }
        if let Some((at, _)) = link.release.filter(|&(at, seq)| self.sched.is_past(at, seq)) {
            // The transmission ended before this packet came: the link went idle then, and
            // its queue (RED counts idle time) was found empty then, as `on_link_free` does.
            link.release = None;
            link.busy = false;
            let none = link.queue.dequeue(at);
            debug_assert!(none.is_none(), "a release is left unscheduled only while the queue is empty");
        }
        if let Some((at, seq)) = link.release.filter(|&(at, _)| last && at == now_s && link.queue.passes_through()) {
            // The transmission ends now, but its release was scheduled after this packet's
            // arrival (a train at equal rates, at every hop): the packet would join the queue
            // and the release take it out at once. If the release is the next event and this
            // arrival does nothing after, run the release here: the packet passes through as
            // on an idle link.
            if self.sched.dispatch_if_next(at, seq) {
                link.release = None;
                link.busy = false;
            }
        }
        if link.traced {
            self.tracer.link_event('+', now_s, link.from, link.to, pkt);
        }
        if !link.busy && link.queue.passes_through() {
            // It would join the queue and leave it at once: it goes to the wire, and the
            // queue's books see it pass.
            link.stats.passed_through();
            self.put_on_wire(l, id);
            return;
        }
        let waiting = link.queue.len();
        match link.queue.enqueue(id, pkt, now_s, &mut self.rng) {
            Verdict::Queued => {
                let now = self.sched.now();
                link.stats.queue_changed(now, waiting, link.queue.len());
                if let Some(check) = self.check.as_mut().filter(|_| link.queue.overfull(pkt.size)) {
                    let (len, name) = (link.queue.len(), link_name(&self.node_names, link));
                    check.fail(now_s, || format!("link {name}: {len} packets waiting, over its limit"));
                }
                if let Some((at, seq)) = link.release.take() {
                    // a packet now waits for the end of the transmission
                    self.sched.push_reserved(at, seq, Event::LinkFree(l as u32));
                }
                if !link.busy {
                    self.start_transmission(l);
                }
            }
            Verdict::Dropped => {
                self.tracer.link_event('d', now_s, link.from, link.to, pkt);
                self.drop(l, id);
            }
        }
    }

    fn drop(&mut self, l: usize, id: PacketId) {
        self.links[l].stats.drops += 1;
        self.drop_packet(id);
    }

    /// A packet is lost: counted against its flow and returned to the pool.
    pub fn drop_packet(&mut self, id: PacketId) {
        let pkt = self.pkts.release(id);
        if matches!(pkt.kind, Kind::BindingUpdate | Kind::BindingAck) {
            return;
        }
        let stats = &mut self.flow_stats[pkt.flow.0 as usize];
        match pkt.kind {
            Kind::Tcp | Kind::Cbr => stats.data_dropped += 1,
            Kind::Ack => stats.acks_dropped += 1,
            Kind::BindingUpdate | Kind::BindingAck => {}
        }
        if matches!(pkt.kind, Kind::Tcp | Kind::Cbr) && self.mip.is_mobile(pkt.dst.node) {
            self.mip.drops.push((self.now_secs(), pkt.flow.0));
        }
    }

    /// Takes the head of the queue onto the wire (ns-2: queue -> `-` trace -> DelayLink).
    #[inline(always)] // into its callers, `on_link_free` and `pass_losses` (-0.4% instructions)
    fn start_transmission(&mut self, l: usize) {
        let now = self.now();
        let now_s = self.now_secs();
        // SAFETY: a link whose transmission ends, or which a packet joined
        let link = unsafe { unchecked(&mut self.links, l) };
        let waiting = link.queue.len();
        let Some(id) = link.queue.dequeue(now_s) else {
            return;
        };
        link.stats.queue_changed(now, waiting, link.queue.len());
        self.put_on_wire(l, id);
    }

    /// Puts packet `id`, just out of link `l`'s queue, on the wire.
    fn put_on_wire(&mut self, l: usize, id: PacketId) {
        let now_s = self.now_secs();
        // SAFETY: the link that takes the packet, out of its queue or straight through
        let link = unsafe { unchecked(&mut self.links, l) };
        let pkt = self.pkts.get(id);
        debug_assert_eq!(
            link.traced,
            self.tracer.records_link(link.from, link.to),
            "writers changed after Network::new"
        );
        if link.traced {
            self.tracer.link_event('-', now_s, link.from, link.to, pkt);
            if let Some(pcap) = &mut self.tracer.pcap {
                pcap.capture(l, now_s, pkt);
            }
        }
        link.busy = true;
        link.stats.departures += 1;
        let tx = link.tx_time(pkt.size, &mut self.flights);
        link.stats.busy_time += tx.tx;
        link.busy_since = now_s;
        // Without mobile nodes a packet is home where it is addressed, and goes on by static routes.
        let (to, dst) = (link.to, pkt.dst.node);
        let onward = if !self.mip.is_static() {
            ASK
        } else if dst == to {
            HOME
        } else {
            self.route(to, dst) as u32
        };
        // SAFETY: as above
        let link = unsafe { unchecked(&mut self.links, l) };
        // ns-2's LinkDelay::recv in ns-2's arithmetic and order: the arrival, then the release.
        let arrival =
            InFlight { at: now_s + (tx.secs + link.delay_secs), seq: self.sched.reserve(), link: l as u32, id, onward };
        // checked: the first packet of a size finds its lane, later ones the lane cached
        // beside it, and only that check proves the lane of `Event::Arrive` (`on_arrive`)
        let lane = &mut self.flights.lanes[tx.lane as usize];
        debug_assert!(
            lane.back().is_none_or(|last| (last.at, last.seq) < (arrival.at, arrival.seq)),
            "a lane lands in order"
        );
        if lane.is_empty() {
            self.sched.push_reserved(arrival.at, arrival.seq, Event::Arrive(tx.lane));
        }
        lane.push_back(arrival);
        let release = (now_s + tx.secs, self.sched.reserve());
        if link.queue.is_empty() {
            link.release = Some(release);
        } else {
            self.sched.push_reserved(release.0, release.1, Event::LinkFree(l as u32));
        }
    }

    pub(crate) fn on_link_free(&mut self, l: u32) {
        // SAFETY: `put_on_wire` and `pass_losses` make a release's event for its link
        unsafe { unchecked(&mut self.links, l as usize) }.busy = false;
        self.start_transmission(l as usize);
    }

    /// The first packet of flight lane `lane` reaches the end of its link: it is forwarded, or
    /// handed back if it is home.
    #[must_use = "a packet handed back still holds its slot"]
    pub(crate) fn on_arrive(&mut self, lane: u32) -> Option<PacketId> {
        let now_s = self.now_secs();
        // SAFETY: `put_on_wire` makes a lane's event for a lane it has indexed
        let flights = unsafe { unchecked(&mut self.flights.lanes, lane as usize) };
        let InFlight { link: l, id, onward, .. } =
            flights.pop_front().expect("a lane's event comes with its first packet");
        if let Some(next) = flights.front() {
            self.sched.push_reserved(next.at, next.seq, Event::Arrive(lane));
        }
        // SAFETY: `put_on_wire` puts the entry in the lane, naming its own link
        let link = unsafe { unchecked(&mut self.links, l as usize) };
        link.stats.received += 1;
        let to = link.to;
        if link.traced {
            self.tracer.link_event('r', now_s, link.from, to, self.pkts.get(id));
        }
        let home = if onward == ASK { is_home(self.pkts.get(id), to) } else { onward == HOME };
        if home {
            self.arrive_home(to, id)
        } else {
            self.forwarding_last = true;
            if onward == ASK {
                self.forward(to, id);
            } else {
                self.forward_on(onward as usize, id);
            }
            self.forwarding_last = false; // if no link took it (a radio, a drop)
            None
        }
    }

    /// Closes the books at the end of the run (time-weighted queue averages).
    pub fn finish(&mut self) {
        let now = self.now();
        for link in &mut self.links {
            let waiting = link.queue.len();
            link.stats.queue_changed(now, waiting, waiting);
        }
    }
}
