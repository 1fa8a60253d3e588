//! ns-2.35's DSDV routing agent (`Agent/DSDV`, dsdv/dsdv.cc and rtable.cc), one per node of
//! a WLAN with `routing = "dsdv"` (ns2 profile only), as conformance/ns2-wifi/DSDV.md maps it:
//! the table sorted by address, periodic updates every 11.25 to 15 s, triggered updates at
//! most one a second, settling times (wst) that hold a new route out of every update for twice
//! its wst, the 45 s neighbour timeout, and every jitter drawn from the shared ns-2 generator
//! in ns-2's order. The agents work in ns-2's addresses (a node's number with flat addresses,
//! the integer of its hierarchical one with base stations), so that tables sort as ns-2's.
//!
//! The agent keeps its own state and schedules its own events; what goes on the air (an
//! update's packet, `DsdvEvent::Send`) the network takes (`Network::on_dsdv`).

mod table;
#[cfg(test)]
mod tests;

use crate::ctx::{Ctx, Event};
use crate::ids::{NodeId, RadioId};
use crate::packet::{Addr, Kind, Packet, PacketId};
pub use table::{Entry, Table};
use tcplab_des::Timer;

/// The infinite metric (`BIG`, rtable.h).
pub const BIG: u32 = 250;
/// The routing agent's port (`Node set rtagent_port_ 255`).
pub const PORT: u32 = 255;
/// The IP header DSDV counts into an update's size and adds to a packet it originates.
pub const IP_HDR_LEN: u32 = 20;
/// Bytes an update's size counts per entry.
const ENTRY_BYTES: u32 = 12;
/// dsdv.cc's constants: the start-up's and a broadcast's jitter, the spacing of triggered
/// updates, s.
const STARTUP_JITTER: f64 = 2.0;
const BROADCAST_JITTER: f64 = 0.01;
const MIN_TUP_PERIOD: f64 = 1.0;
/// A placeholder entry may be advertised "next week" (dsdv.cc: 604800 s).
const NEXT_WEEK: f64 = 604_800.0;
/// `MAX_QUEUE_LENGTH`: packets that wait for a route to one destination.
const MAX_QUEUE: usize = 5;
/// Updates whose entries are kept for their receivers (a ring, reused: no allocation once full).
const KEPT_UPDATES: usize = 256;

/// The Tcl defaults of tcl/mobility/dsdv.tcl.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// `perup_`: the periodic update's period, s.
    pub perup: f64,
    /// `wst0_`: a new route's settling time, s.
    pub wst0: f64,
    /// `alpha_`: the settling time's smoothing.
    pub alpha: f64,
    /// `min_update_periods_`: periods without an update before a neighbour is gone.
    pub min_update_periods: f64,
    /// `be_random_`: jitters are drawn (else 0).
    pub be_random: bool,
}

impl Default for Params {
    fn default() -> Params {
        Params { perup: 15.0, wst0: 6.0, alpha: 0.875, min_update_periods: 3.0, be_random: true }
    }
}

/// DSDV's events, carried in `Event::Dsdv`: the agent's index, then what fires.
#[derive(Debug, Clone, Copy)]
pub enum DsdvEvent {
    /// `start-dsdv`, at 0 s.
    Start(u32),
    /// The periodic update (generation).
    Periodic(u32, u32),
    /// The triggered update of the entry for this destination (generation).
    Trigger(u32, i32, u32),
    /// The timeout of the neighbour with this address (generation).
    Timeout(u32, i32, u32),
    /// An update's packet goes to the agent's send target, its jitter after it was made.
    Send(u32, PacketId),
}

/// Where `forwardPacket` sends a packet.
#[derive(Debug, PartialEq, Eq)]
pub enum Forward {
    /// To this next hop.
    Next(i32),
    /// It waits for a route, and pushed this packet, the oldest waiting, out of the queue.
    Waits(Option<PacketId>),
}

/// One (destination, metric, sequence number) of an update.
pub type Advert = (i32, u32, u32);

/// One node's agent.
pub struct Agent {
    pub node: NodeId,
    pub radio: RadioId,
    /// `myaddr_`.
    pub addr: i32,
    /// `seqno_`: the node's own sequence number (even).
    seqno: u32,
    /// `lasttup_`: when the last update (periodic or triggered) was made.
    lasttup: f64,
    periodic: Timer,
    pub table: Table,
    /// Its subnet, ns-2's "domain.cluster" (the address without its node part).
    pub subnet: u32,
    /// `node_->base_stn()`: the base station of its WLAN, if it has one (hierarchical
    /// addresses; a base station's own is itself).
    pub base_station: Option<i32>,
}

/// The agents of a run.
#[derive(Default)]
pub struct Dsdv {
    pub agents: Vec<Agent>,
    /// Each node's agent, by node number.
    by_node: Vec<Option<u32>>,
    /// Each node's address, by node number.
    addrs: Vec<i32>,
    /// The nodes by address, sorted.
    nodes_by_addr: Vec<(i32, NodeId)>,
    pub params: Params,
    /// The entries of the last updates sent, by uid: a packet carries only its size.
    kept: Vec<(u64, Vec<Advert>)>,
    next_kept: usize,
}

fn event(ev: DsdvEvent) -> Event {
    Event::Dsdv(ev)
}

impl Dsdv {
    /// An agent on each of `radios` (node, radio), in node-creation order; `addrs` holds each
    /// node's address, and `base_station` gives a node's base station, if it has one.
    pub fn new(
        addrs: Vec<i32>,
        radios: &[(NodeId, RadioId)],
        base_station: impl Fn(NodeId) -> Option<NodeId>,
        params: Params,
    ) -> Dsdv {
        let mut by_node = vec![None; addrs.len()];
        let agents = radios
            .iter()
            .enumerate()
            .map(|(i, &(node, radio))| {
                by_node[node.index()] = Some(i as u32);
                let addr = addrs[node.index()];
                Agent {
                    node,
                    radio,
                    addr,
                    seqno: 0,
                    lasttup: -10.0,
                    periodic: Timer::default(),
                    table: Table::default(),
                    subnet: addr as u32 >> 11,
                    base_station: base_station(node).map(|b| addrs[b.index()]),
                }
            })
            .collect();
        let mut nodes_by_addr: Vec<(i32, NodeId)> =
            addrs.iter().enumerate().map(|(n, &a)| (a, NodeId::of(n))).collect();
        nodes_by_addr.sort_unstable();
        Dsdv { agents, by_node, addrs, nodes_by_addr, params, kept: Vec::new(), next_kept: 0 }
    }

    /// Node `node`'s address.
    pub fn addr_of(&self, node: NodeId) -> i32 {
        self.addrs[node.index()]
    }

    /// The node with address `addr`.
    pub fn node_at(&self, addr: i32) -> NodeId {
        let i = self.nodes_by_addr.binary_search_by_key(&addr, |&(a, _)| a).expect("an address is a node's");
        self.nodes_by_addr[i].1
    }

    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// The agent of `node`, if it runs one.
    pub fn agent_of(&self, node: NodeId) -> Option<u32> {
        self.by_node.get(node.index()).copied().flatten()
    }

    /// `diff_subnet`: whether `dst` lies outside agent `a`'s WLAN, which has a base station
    /// (without one, addresses are flat and every destination is in the subnet).
    pub fn outside(&self, a: u32, dst: NodeId) -> bool {
        let agent = &self.agents[a as usize];
        agent.base_station.is_some()
            && self.agent_of(dst).is_none_or(|b| self.agents[b as usize].subnet != agent.subnet)
    }

    /// Whether agent `a`'s node is a base station and `dst` lies outside its WLAN: the node's
    /// classifier then has a wired route for the packet, which passes the agent by.
    pub fn wired_bypass(&self, a: u32, dst: NodeId) -> bool {
        let agent = &self.agents[a as usize];
        agent.base_station == Some(agent.addr) && self.outside(a, dst)
    }

    /// Where a wired route to `dst` leads: to its base station, for a station of a WLAN with
    /// base stations (ns-2's hierarchical routes lead to its domain); otherwise to `dst`.
    pub fn wired_towards(&self, dst: NodeId) -> NodeId {
        match self.agent_of(dst).and_then(|a| self.agents[a as usize].base_station) {
            Some(bs) => self.node_at(bs),
            None => dst,
        }
    }

    /// `forwardPacket` towards another subnet: the next hop of a finite route to `dst`, else
    /// of one to the base station; None (no such route) and ns-2 frees the packet unseen.
    pub fn route_outside(&self, a: u32, dst: i32) -> Option<i32> {
        let agent = &self.agents[a as usize];
        [dst, agent.base_station?].into_iter().find_map(|to| match agent.table.get(to) {
            Some(e) if e.metric != BIG => Some(if e.metric > 1 { e.hop } else { to }),
            _ => None,
        })
    }

    /// `create-dsdv-agent`'s `$ns at 0.0 "$ragent start-dsdv"`, for every agent in creation order.
    pub fn schedule_start(&self, ctx: &mut Ctx) {
        for a in 0..self.agents.len() {
            ctx.sched.schedule_exact(0.0, event(DsdvEvent::Start(a as u32)));
        }
    }

    /// `jitter(max, be_random_)`: one draw of ns-2's default generator.
    fn jitter(&self, ctx: &mut Ctx, max: f64) -> f64 {
        if self.params.be_random {
            max * ctx.rng.uniform()
        } else {
            0.0
        }
    }

    /// Handles an event; returns an update's packet due at the send target now.
    pub fn on_event(&mut self, ctx: &mut Ctx, ev: DsdvEvent) -> Option<(u32, PacketId)> {
        match ev {
            DsdvEvent::Start(a) => self.start(ctx, a),
            DsdvEvent::Periodic(a, gen) => self.periodic(ctx, a, gen),
            DsdvEvent::Trigger(a, dst, gen) => self.trigger(ctx, a, dst, gen),
            DsdvEvent::Timeout(a, dst, gen) => self.timeout(ctx, a, dst, gen),
            DsdvEvent::Send(a, id) => return Some((a, id)),
        }
        None
    }

    /// `startUp`: the node's own entry (seqnum 0, then `seqno_` 2), the first periodic update
    /// `jitter(2)` later.
    fn start(&mut self, ctx: &mut Ctx, a: u32) {
        let now = ctx.now_secs();
        let delay = self.jitter(ctx, STARTUP_JITTER);
        let agent = &mut self.agents[a as usize];
        let own = Entry {
            metric: 0,
            seqnum: agent.seqno,
            advert_seqnum: true,
            advert_metric: true,
            changed_at: now,
            new_seqnum_at: now,
            ..Entry::new(agent.addr, agent.addr)
        };
        agent.seqno += 2;
        agent.table.add(own);
        ctx.sched.arm(&mut agent.periodic, now + delay, |gen| event(DsdvEvent::Periodic(a, gen)));
    }

    /// Arms the periodic update `perup_ * (0.75 + jitter(0.25))` from now.
    fn next_periodic(&mut self, ctx: &mut Ctx, a: u32) {
        let period = self.params.perup * (0.75 + self.jitter(ctx, 0.25));
        let at = ctx.now_secs() + period;
        ctx.sched.arm(&mut self.agents[a as usize].periodic, at, |gen| event(DsdvEvent::Periodic(a, gen)));
    }

    /// Schedules update `id` for the send target after `jitter(0.01)`.
    fn send_later(&mut self, ctx: &mut Ctx, a: u32, id: PacketId) {
        let at = ctx.now_secs() + self.jitter(ctx, BROADCAST_JITTER);
        ctx.sched.schedule_exact(at, event(DsdvEvent::Send(a, id)));
    }

    /// `helper_callback` of the periodic event: a full update, its broadcast jitter, then the
    /// next period's.
    fn periodic(&mut self, ctx: &mut Ctx, a: u32, gen: u32) {
        let agent = &mut self.agents[a as usize];
        if !ctx.sched.fire(&mut agent.periodic, gen, |gen| event(DsdvEvent::Periodic(a, gen))) {
            return;
        }
        if let (_, Some(id)) = self.make_update(ctx, a, true) {
            self.send_later(ctx, a, id);
        }
        self.next_periodic(ctx, a);
        self.agents[a as usize].lasttup = ctx.now_secs();
    }

    /// `DSDVTriggerHandler::handle`: within a second of the last update, the trigger waits
    /// until that second is over and every other one due before then is dropped; otherwise a
    /// triggered update (a full one if `make_update` decides so: the periodic is then re-armed
    /// first, and the broadcast's jitter drawn after its).
    fn trigger(&mut self, ctx: &mut Ctx, a: u32, dst: i32, gen: u32) {
        let now = ctx.now_secs();
        let agent = &mut self.agents[a as usize];
        let Some(entry) = agent.table.get_mut(dst) else { return };
        if !ctx.sched.fire(&mut entry.trigger, gen, |gen| event(DsdvEvent::Trigger(a, dst, gen))) {
            return;
        }
        let next_possible = agent.lasttup + MIN_TUP_PERIOD;
        if now < next_possible {
            let at = now + (next_possible - now);
            entry.trigger_at = at;
            ctx.sched.arm(&mut entry.trigger, at, |gen| event(DsdvEvent::Trigger(a, dst, gen)));
            agent.table.cancel_triggers_before(next_possible);
            return;
        }
        if let (full, Some(id)) = self.make_update(ctx, a, false) {
            if full {
                self.next_periodic(ctx, a);
            }
            self.send_later(ctx, a, id);
            self.agents[a as usize].lasttup = now;
        }
    }

    /// `helper_callback` of a neighbour's timeout: every finite route through it becomes
    /// infinite with the next (odd) sequence number, advertised by a trigger now.
    fn timeout(&mut self, ctx: &mut Ctx, a: u32, neighbour: i32, gen: u32) {
        let now = ctx.now_secs();
        let table = &mut self.agents[a as usize].table;
        let Some(entry) = table.get_mut(neighbour) else { return };
        if !ctx.sched.fire(&mut entry.timeout, gen, |gen| event(DsdvEvent::Timeout(a, neighbour, gen))) {
            return;
        }
        for i in 0..table.len() {
            let e = table.at_mut(i);
            if e.hop == neighbour && e.metric != BIG {
                e.metric = BIG;
                e.advertise_ok_at = now;
                e.advert_metric = true;
                e.advert_seqnum = true;
                e.seqnum = e.seqnum.wrapping_add(1);
                need_triggered_update(ctx, a, e, now);
            }
        }
    }

    /// `makeUpdate`: the packet of a full (`periodic`) or triggered update, or None if it has
    /// nothing to say (its uid is spent all the same); true if a triggered one turned full.
    pub fn make_update(&mut self, ctx: &mut Ctx, a: u32, mut periodic: bool) -> (bool, Option<PacketId>) {
        let uid = ctx.next_uid(); // allocpkt, before it knows whether it will send
        let now = ctx.now_secs();
        let agent = &mut self.agents[a as usize];
        let table = &mut agent.table;
        let size = table.len();
        let mut changes =
            table.iter().filter(|e| (e.advert_seqnum || e.advert_metric) && e.advertise_ok_at <= now).count();
        let unadvertisable = table.iter().filter(|e| e.advertise_ok_at > now).count();
        if changes * 3 > size && changes > 3 {
            periodic = true; // much of the table changed: a full update
        }
        if periodic {
            changes = size - unadvertisable;
            agent.seqno += 2;
            table.add(Entry {
                metric: 0,
                seqnum: agent.seqno,
                advert_seqnum: true,
                changed_at: now,
                new_seqnum_at: now,
                ..Entry::new(agent.addr, agent.addr)
            });
        }
        if changes == 0 {
            return (periodic, None);
        }
        let slot = self.keep(uid);
        let table = &mut self.agents[a as usize].table;
        for i in 0..table.len() {
            let e = table.at_mut(i);
            if e.advertise_ok_at > now || !(periodic || e.advert_seqnum || e.advert_metric) {
                continue;
            }
            self.kept[slot].1.push((e.dst, e.metric, e.seqnum));
            e.last_advertised_metric = e.metric;
            e.advert_seqnum = false;
            if periodic {
                e.advert_metric = false;
            }
        }
        debug_assert_eq!(self.kept[slot].1.len(), changes);
        let agent = &self.agents[a as usize];
        let bytes = changes as u32 * ENTRY_BYTES + IP_HDR_LEN;
        let mut pkt = Packet::of_network(uid, Kind::Message, agent.node, agent.node, bytes, 0, now);
        pkt.src = Addr { node: agent.node, port: PORT };
        pkt.dst = Addr { node: agent.node, port: PORT }; // IP_BROADCAST: traces print -1
        (periodic, Some(ctx.pkts.alloc(pkt)))
    }

    /// A cleared slot of the kept updates for update `uid`.
    fn keep(&mut self, uid: u64) -> usize {
        let slot = self.next_kept;
        if slot == self.kept.len() {
            self.kept.push((uid, Vec::new()));
        } else {
            self.kept[slot].0 = uid;
            self.kept[slot].1.clear();
        }
        self.next_kept = (slot + 1) % KEPT_UPDATES;
        slot
    }

    /// The entries of update `uid`, copied into `out`.
    pub fn advert(&self, uid: u64, out: &mut Vec<Advert>) {
        out.clear();
        let (_, entries) = self.kept.iter().find(|(u, _)| *u == uid).expect("an update received was kept");
        out.extend_from_slice(entries);
    }

    /// One entry of `processUpdate` at agent `a`, from neighbour `from`; returns the packets
    /// that waited for this destination if it now has a finite route, to go to `recv` again.
    pub fn process_entry(&mut self, ctx: &mut Ctx, a: u32, from: i32, advert: Advert) -> Vec<PacketId> {
        let now = ctx.now_secs();
        let params = self.params;
        let me = self.agents[a as usize].addr;
        let (dst, metric, seqnum) = advert;
        if dst == me {
            if metric == BIG {
                // a neighbour thinks we are gone: a full update now
                let agent = &mut self.agents[a as usize];
                agent.periodic.cancel();
                ctx.sched.arm(&mut agent.periodic, now, |gen| event(DsdvEvent::Periodic(a, gen)));
            }
            return Vec::new();
        }
        let table = &mut self.agents[a as usize].table;
        let old = table.get(dst).cloned();
        let mut rte = old.clone().unwrap_or_else(|| Entry::zero(dst));
        rte.hop = from;
        rte.metric = if metric == BIG { BIG } else { metric + 1 };
        rte.seqnum = seqnum;
        rte.changed_at = now;
        match &old {
            Some(o) if o.seqnum == rte.seqnum => {
                rte.wst = o.wst;
                rte.new_seqnum_at = o.new_seqnum_at;
            }
            Some(o) => {
                rte.wst = params.alpha * o.wst + (1.0 - params.alpha) * (o.changed_at - o.new_seqnum_at);
                rte.new_seqnum_at = now;
            }
            None => {
                rte.wst = params.wst0;
                rte.new_seqnum_at = now;
            }
        }
        rte.advertise_ok_at =
            if rte.metric != BIG && old.as_ref().is_none_or(|o| o.metric != BIG) { now + rte.wst * 2.0 } else { now };
        let mut trigger = false;
        match &old {
            None => {
                if rte.metric < BIG {
                    rte.advert_metric = true;
                    trigger = true;
                }
                table.add(rte.clone());
            }
            Some(o) if o.seqnum == rte.seqnum => {
                if rte.metric < o.metric {
                    rte.advert_metric = rte.metric != o.last_advertised_metric;
                    trigger = rte.advert_metric;
                    table.add(rte.clone());
                }
            }
            Some(o) if o.seqnum < rte.seqnum => {
                rte.advert_seqnum = true;
                rte.advert_metric = rte.metric != o.last_advertised_metric;
                table.add(rte.clone());
            }
            Some(o) => {
                if rte.metric == BIG && o.metric != BIG {
                    // "educate" the neighbour who holds an older, broken route
                    let e = table.get_mut(dst).expect("held");
                    e.advertise_ok_at = now;
                    e.advert_metric = true;
                    need_triggered_update(ctx, a, e, now);
                }
            }
        }
        if trigger {
            let e = table.get_mut(dst).expect("just added");
            let at = e.advertise_ok_at;
            need_triggered_update(ctx, a, e, at);
        }
        if rte.queue.is_empty() || rte.metric == BIG {
            return Vec::new();
        }
        let waiting = std::mem::take(&mut rte.queue);
        table.add(rte); // records the emptied queue (and this advert's route, even if ignored)
        waiting
    }

    /// `forwardPacket`'s choice for packet `id` to `dst`: the next hop of a finite route, or
    /// the queue of the destination's entry (made, with an infinite metric, if there is none).
    pub fn route(&mut self, ctx: &mut Ctx, a: u32, id: PacketId, dst: i32) -> Forward {
        let now = ctx.now_secs();
        let wst0 = self.params.wst0;
        let table = &mut self.agents[a as usize].table;
        match table.get_mut(dst) {
            Some(e) if e.metric != BIG => Forward::Next(if e.metric > 1 { e.hop } else { dst }),
            Some(e) => {
                e.queue.push(id);
                Forward::Waits((e.queue.len() > MAX_QUEUE).then(|| e.queue.remove(0)))
            }
            None => {
                table.add(Entry {
                    metric: BIG,
                    advertise_ok_at: now + NEXT_WEEK,
                    changed_at: now,
                    new_seqnum_at: now,
                    wst: wst0,
                    queue: vec![id],
                    ..Entry::new(dst, dst)
                });
                Forward::Waits(None)
            }
        }
    }

    /// The end of `processUpdate`: the timeout of the sender restarts (a placeholder entry is
    /// made for a sender whose update did not list it).
    pub fn heard_from(&mut self, ctx: &mut Ctx, a: u32, from: i32) {
        let now = ctx.now_secs();
        let wait = self.params.min_update_periods * self.params.perup;
        let wst0 = self.params.wst0;
        let table = &mut self.agents[a as usize].table;
        if table.get(from).is_none() {
            table.add(Entry {
                metric: 1,
                seqnum: 0,
                advertise_ok_at: now + NEXT_WEEK,
                changed_at: now,
                new_seqnum_at: now,
                wst: wst0,
                ..Entry::new(from, from)
            });
        }
        let e = table.get_mut(from).expect("there");
        ctx.sched.arm(&mut e.timeout, now + wait, |gen| event(DsdvEvent::Timeout(a, from, gen)));
    }
}

/// `needTriggeredUpdate`: (re)schedules entry `e`'s trigger at `t`.
fn need_triggered_update(ctx: &mut Ctx, a: u32, e: &mut Entry, t: f64) {
    let now = ctx.now_secs();
    let at = now + (t - now);
    let dst = e.dst;
    e.trigger_at = at;
    ctx.sched.arm(&mut e.trigger, at, |gen| event(DsdvEvent::Trigger(a, dst, gen)));
}
