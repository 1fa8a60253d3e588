//! Mobile nodes: movement, 802.11 association and handoff, Mobile IPv6 (RFC 6275) and HMIPv6
//! (RFC 5380), and the record of every handover.
//!
//! A mobile node (MN) has a radio on every WLAN it may visit and is associated with at most one
//! access point at a time. Every `beacon_interval` it checks the signal of its access point; when
//! it is gone (below the receive threshold) the link is lost, and after `l2_handoff` (scan and
//! association) the MN joins the strongest access point in range. It then waits for that
//! router's next advertisement (movement detection; advertisements come every
//! U(ra_min, ra_max) seconds, as events rather than frames), runs DAD for its new care-of
//! address (`dad` seconds; 0 is optimistic DAD), and sends binding updates: to its MAP (a local
//! binding update, when the new router is in the MAP's domain), then to its home agent when the
//! MN entered the domain or has no MAP. Each anchor answers with a binding acknowledgement; an
//! update without one is sent again after 1 s, then 2 s, 4 s...
//!
//! Packets for the MN go to its home agent, which tunnels them (+40 bytes) to the care-of
//! address it knows: the MAP's regional address under HMIPv6, which tunnels them again to the
//! on-link address, or the access router itself. An access router delivers them over its WLAN
//! if the MN is associated with it, and drops them otherwise. Away from home, the MN's own
//! packets go back through the same tunnels (bidirectional tunnelling). Static routes never run
//! through a mobile node.

pub mod config;
pub mod event;
pub mod path;
#[cfg(test)]
mod tests;

use crate::ctx::{Ctx, Event};
use crate::ids::{NodeId, RadioId};
pub use crate::metrics::{Handover, HandoverFlow};
use crate::packet::{Kind, Packet, PacketId, PacketPool};
use crate::random::Draws;
use crate::wifi::Wifi;
pub use config::{MobileConfig, BA_BYTES, BU_BYTES, RO_BYTES, TUNNEL_BYTES};
pub use event::MipTimer;
use tcplab_des::Timer;

/// RFC 6275's INITIAL_BINDACK_TIMEOUT.
const BINDACK_TIMEOUT: f64 = 1.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Associated and registered (or at home).
    Attached,
    /// Link lost: scanning and associating.
    Scanning,
    /// Waiting for the new router's advertisement.
    WaitRa,
    Dad,
    /// Waiting for a binding acknowledgement.
    Binding,
}

struct Mobile {
    cfg: MobileConfig,
    /// The nodes `cfg` names: the MN, its home agent, its MAP and the MAP's access routers.
    node: NodeId,
    home_agent: NodeId,
    map: Option<NodeId>,
    map_domain: Vec<NodeId>,
    /// The MN's radios, each with the access point radio of its WLAN.
    radios: Vec<(RadioId, RadioId)>,
    /// (MN radio, access point radio) while associated.
    assoc: Option<(RadioId, RadioId)>,
    /// What the anchors believe: the home agent tunnels to this node (MAP or access router;
    /// None: the MN is at home or unknown), the MAP to this access router.
    ha_binding: Option<NodeId>,
    map_binding: Option<NodeId>,
    /// The access router of the care-of address in use, and whether it is in the MAP's domain.
    registered_ar: Option<NodeId>,
    /// Route optimisation: the correspondent nodes (the other ends of the MN's flows) and the
    /// care-of address each has in its binding cache.
    correspondents: Vec<NodeId>,
    cn_bindings: Vec<(NodeId, NodeId)>,
    phase: Phase,
    /// The anchors still to update in this handover, in order.
    pending: Vec<NodeId>,
    bu_timeout: f64,
    beacon: Timer,
    step: Timer,
    records: Vec<Handover>,
}

/// All mobile nodes of a run, and the logs their handover records are computed from.
#[derive(Default)]
pub struct Mip {
    mobiles: Vec<Mobile>,
    /// Mobile index by node.
    by_node: Vec<Option<u32>>,
    /// The next router advertisement of each access router (by node), drawn lazily.
    next_ra: Vec<f64>,
    draws: Option<Draws>,
    /// Node names, for the handover records.
    names: Vec<String>,
    /// (time, flow, bytes, access point node) of data delivered to MNs, and (time, flow) of data
    /// for MNs dropped.
    pub deliveries: Vec<(f64, u32, u32, NodeId)>,
    pub drops: Vec<(f64, u32)>,
}

impl Mobile {
    fn timer(&mut self, which: MipTimer) -> &mut Timer {
        match which {
            MipTimer::Beacon => &mut self.beacon,
            MipTimer::Step => &mut self.step,
        }
    }
}

impl Mip {
    /// The mobile nodes of `configs` among the nodes named `names`; `radios(node)` lists a
    /// node's (radio, access point radio) pairs, `peers(node)` the nodes its flows talk to.
    pub fn new(
        names: &[String],
        configs: Vec<MobileConfig>,
        radios: impl Fn(usize) -> Vec<(RadioId, RadioId)>,
        peers: impl Fn(usize) -> Vec<NodeId>,
        draws: Draws,
    ) -> Mip {
        let nodes = names.len();
        let mut by_node = vec![None; nodes];
        let mobiles = configs
            .into_iter()
            .enumerate()
            .map(|(i, cfg)| {
                by_node[cfg.node] = Some(i as u32);
                Mobile {
                    node: NodeId::of(cfg.node),
                    home_agent: NodeId::of(cfg.home_agent),
                    map: cfg.map.map(NodeId::of),
                    map_domain: cfg.map_domain.iter().copied().map(NodeId::of).collect(),
                    radios: radios(cfg.node),
                    correspondents: if cfg.route_optimisation { peers(cfg.node) } else { Vec::new() },
                    cn_bindings: Vec::new(),
                    cfg,
                    assoc: None,
                    ha_binding: None,
                    map_binding: None,
                    registered_ar: None,
                    phase: Phase::Attached,
                    pending: Vec::new(),
                    bu_timeout: BINDACK_TIMEOUT,
                    beacon: Timer::default(),
                    step: Timer::default(),
                    records: Vec::new(),
                }
            })
            .collect();
        Mip {
            mobiles,
            by_node,
            next_ra: vec![f64::NAN; nodes],
            draws: Some(draws),
            names: names.to_vec(),
            deliveries: Vec::new(),
            drops: Vec::new(),
        }
    }

    /// True if the network has no mobile node: packets then never carry Mobile IPv6 headers
    /// and go by static routes alone.
    pub fn is_static(&self) -> bool {
        self.mobiles.is_empty()
    }

    pub fn is_mobile(&self, node: NodeId) -> bool {
        self.mobile(node).is_some()
    }

    fn mobile(&self, node: NodeId) -> Option<usize> {
        self.by_node.get(node.index()).copied().flatten().map(|m| m as usize)
    }

    /// Every handover that found a new access point, with its effect on each flow towards its
    /// MN; `flows` gives each flow's name and destination node.
    pub fn handovers(&self, flows: &[(String, NodeId)]) -> Vec<Handover> {
        let mut out = Vec::new();
        for mob in &self.mobiles {
            let done: Vec<&Handover> = mob.records.iter().filter(|h| h.l2_done_s > 0.0).collect();
            for (k, h) in done.iter().enumerate() {
                let until = done.get(k + 1).map_or(f64::INFINITY, |n| n.link_lost_s);
                let mut h = (*h).clone();
                for (f, (name, dst)) in flows.iter().enumerate() {
                    if *dst == mob.node {
                        h.flows.push(self.effect(&h, f as u32, name, until));
                    }
                }
                out.push(h);
            }
        }
        out
    }

    /// What handover `h` did to flow `f` (deliveries after `until` belong to the next one).
    fn effect(&self, h: &Handover, f: u32, name: &str, until: f64) -> HandoverFlow {
        let mine: Vec<&(f64, u32, u32, NodeId)> = self.deliveries.iter().filter(|d| d.1 == f).collect();
        let last_old = mine
            .iter()
            .filter(|d| d.0 <= h.l2_done_s && Some(d.3) == h.from_ap)
            .map(|d| d.0)
            .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.max(t))));
        let first_new = mine.iter().find(|d| d.0 >= h.l2_done_s && d.0 < until && d.3 == h.to_ap).map(|d| d.0);
        let mut e = HandoverFlow {
            flow: name.to_string(),
            last_old_s: last_old,
            first_new_s: first_new,
            ..HandoverFlow::default()
        };
        let (Some(old), Some(new)) = (last_old, first_new) else { return e };
        e.disruption_s = Some(new - old);
        e.parts_s = Some([
            h.link_lost_s - old,
            h.l2_done_s - h.link_lost_s,
            h.movement_detected_s - h.l2_done_s,
            h.dad_done_s - h.movement_detected_s,
            h.binding_s - h.dad_done_s,
            new - h.binding_s,
        ]);
        e.packets_lost = self.drops.iter().filter(|d| d.1 == f && d.0 > old && d.0 <= new).count() as u64;
        // recovery: the goodput over the past second back at 90% of the 5 s mean before
        let bytes_in = |a: f64, b: f64| mine.iter().filter(|d| d.0 > a && d.0 <= b).map(|d| d.2 as f64).sum::<f64>();
        let before = bytes_in(old - 5.0, old) / 5.0;
        e.recovery_s = mine
            .iter()
            .filter(|d| d.0 >= new)
            .map(|d| d.0)
            .find(|&t| bytes_in(t - 1.0, t) >= 0.9 * before)
            .map(|t| t - old);
        e
    }
}

/// A signalling packet (in the pool) for the network to send from `node`.
#[must_use = "a packet handed back still holds its slot"]
pub struct Outgoing {
    pub node: NodeId,
    pub id: PacketId,
}

/// Where a packet goes next under Mobile IPv6.
pub enum Route {
    /// By the static routes, towards this node.
    Toward(NodeId),
    /// Over the air from radio `0` to radio `1`.
    Radio(RadioId, RadioId),
    Drop,
}

impl Mip {
    fn timer_at(&mut self, ctx: &mut Ctx, m: usize, which: MipTimer, at: f64) {
        let at = at.max(ctx.sched.now_exact());
        let timer = self.mobiles[m].timer(which);
        ctx.sched.arm(timer, at, |gen| Event::Mip(m as u32, which, gen));
    }

    /// Associates every MN with the strongest access point in range and starts its beacon checks.
    pub fn start(&mut self, ctx: &mut Ctx, wifi: &Wifi) {
        for m in 0..self.mobiles.len() {
            if let Some(pair) = self.best_access_point(wifi, ctx.now_secs(), m) {
                let mob = &mut self.mobiles[m];
                mob.assoc = Some(pair);
                let ap = wifi.stations[pair.1.index()].node;
                // It starts registered where it is: at home, or bound at its anchors already.
                let mob = &mut self.mobiles[m];
                if ap != mob.home_agent {
                    let in_domain = mob.map.is_some() && mob.map_domain.contains(&ap);
                    mob.map_binding = in_domain.then_some(ap);
                    let coa = if in_domain { mob.map.expect("in a domain") } else { ap };
                    mob.ha_binding = Some(coa);
                    mob.cn_bindings = mob.correspondents.iter().map(|&cn| (cn, coa)).collect();
                }
                mob.registered_ar = Some(ap);
            }
            let t = ctx.now_secs() + self.mobiles[m].cfg.beacon_interval;
            self.timer_at(ctx, m, MipTimer::Beacon, t);
        }
    }

    /// The power at radio `mn_radio` of access point radio `ap_radio` at time `now`.
    fn signal(wifi: &Wifi, now: f64, mn_radio: RadioId, ap_radio: RadioId) -> f64 {
        let cfg = &wifi.wlans[wifi.stations[ap_radio.index()].wlan_index()];
        let d = crate::wifi::distance(wifi.position(mn_radio, now), wifi.position(ap_radio, now));
        cfg.radio.rx_power(d)
    }

    fn in_range(wifi: &Wifi, now: f64, mn_radio: RadioId, ap_radio: RadioId) -> bool {
        let cfg = &wifi.wlans[wifi.stations[ap_radio.index()].wlan_index()];
        Mip::signal(wifi, now, mn_radio, ap_radio) >= cfg.radio.rx_threshold
    }

    fn best_access_point(&self, wifi: &Wifi, now: f64, m: usize) -> Option<(RadioId, RadioId)> {
        let radios = &self.mobiles[m].radios;
        let signal = |(r, ap): (RadioId, RadioId)| Mip::signal(wifi, now, r, ap);
        radios
            .iter()
            .copied()
            .filter(|&(r, ap)| Mip::in_range(wifi, now, r, ap))
            .max_by(|&a, &b| signal(a).total_cmp(&signal(b)))
    }

    /// Mobile node `m`'s timer `which` fired (if `gen` is its current generation): a
    /// binding update may come out of it, for the network to send.
    pub fn on_timer(&mut self, ctx: &mut Ctx, wifi: &Wifi, m: u32, which: MipTimer, gen: u32) -> Option<Outgoing> {
        let m = m as usize;
        let timer = self.mobiles[m].timer(which);
        let live = ctx.sched.fire(timer, gen, |gen| Event::Mip(m as u32, which, gen));
        if !live {
            return None;
        }
        let now = ctx.now_secs();
        match which {
            MipTimer::Beacon => {
                let interval = self.mobiles[m].cfg.beacon_interval;
                self.timer_at(ctx, m, MipTimer::Beacon, now + interval);
                let mob = &self.mobiles[m];
                match mob.assoc {
                    Some((r, ap)) if !Mip::in_range(wifi, now, r, ap) => self.link_lost(ctx, wifi, m, Some(ap)),
                    None if mob.phase == Phase::Attached => self.link_lost(ctx, wifi, m, None),
                    _ => {}
                }
                None
            }
            MipTimer::Step => self.handover_step(ctx, wifi, m),
        }
    }

    fn link_lost(&mut self, ctx: &mut Ctx, wifi: &Wifi, m: usize, old_ap: Option<RadioId>) {
        let now = ctx.now_secs();
        let from = old_ap.map(|ap| self.node_name(wifi.stations[ap.index()].node));
        let node = self.node_name(self.mobiles[m].node);
        let from_ap = old_ap.map(|ap| wifi.stations[ap.index()].node);
        let mob = &mut self.mobiles[m];
        mob.assoc = None;
        mob.phase = Phase::Scanning;
        mob.pending.clear();
        mob.records.push(Handover { node, from, from_ap, link_lost_s: now, ..Handover::default() });
        let t = now + mob.cfg.l2_handoff;
        self.timer_at(ctx, m, MipTimer::Step, t);
    }

    fn node_name(&self, node: NodeId) -> String {
        self.names.get(node.index()).cloned().unwrap_or_else(|| node.to_string())
    }

    /// The next step of a handover, when its timer fires.
    fn handover_step(&mut self, ctx: &mut Ctx, wifi: &Wifi, m: usize) -> Option<Outgoing> {
        let now = ctx.now_secs();
        match self.mobiles[m].phase {
            Phase::Scanning => {
                let Some(pair) = self.best_access_point(wifi, ctx.now_secs(), m) else {
                    // nothing in range: scan again
                    let t = now + self.mobiles[m].cfg.l2_handoff;
                    self.timer_at(ctx, m, MipTimer::Step, t);
                    return None;
                };
                let ap = wifi.stations[pair.1.index()].node;
                let to = self.node_name(ap);
                let mob = &mut self.mobiles[m];
                mob.assoc = Some(pair);
                mob.phase = Phase::WaitRa;
                if let Some(h) = mob.records.last_mut() {
                    h.l2_done_s = now;
                    h.to = to;
                    h.to_ap = ap;
                }
                let t = self.next_router_advert(ctx, wifi, ap, now);
                self.timer_at(ctx, m, MipTimer::Step, t);
            }
            Phase::WaitRa => {
                let mob = &mut self.mobiles[m];
                let ap = wifi.stations[mob.assoc.expect("associated").1.index()].node;
                if let Some(h) = mob.records.last_mut() {
                    h.movement_detected_s = now;
                }
                if mob.registered_ar == Some(ap) {
                    // back on the same link: the address and bindings still hold
                    self.handover_complete(wifi, m, now);
                    return None;
                }
                mob.phase = Phase::Dad;
                // at home the home address needs no DAD
                let dad = if ap == mob.home_agent { 0.0 } else { mob.cfg.dad };
                self.timer_at(ctx, m, MipTimer::Step, now + dad);
            }
            Phase::Dad => {
                let mob = &mut self.mobiles[m];
                if let Some(h) = mob.records.last_mut() {
                    h.dad_done_s = now;
                }
                let ap = wifi.stations[mob.assoc.expect("associated").1.index()].node;
                let home = mob.home_agent;
                let in_domain =
                    |ar: Option<NodeId>| mob.map.is_some() && ar.is_some_and(|a| mob.map_domain.contains(&a));
                mob.pending = if ap == home || !in_domain(Some(ap)) {
                    vec![home]
                } else if in_domain(mob.registered_ar) {
                    vec![mob.map.expect("in a domain")]
                } else {
                    vec![mob.map.expect("in a domain"), home]
                };
                // the correspondents learn every new address the home agent learns
                if mob.pending.contains(&home) {
                    let cns = mob.correspondents.clone();
                    mob.pending.extend(cns);
                }
                mob.phase = Phase::Binding;
                mob.bu_timeout = BINDACK_TIMEOUT;
                return self.send_binding_update(ctx, wifi, m);
            }
            Phase::Binding => {
                // no acknowledgement: send the update again, waiting twice as long
                let mob = &mut self.mobiles[m];
                mob.bu_timeout = (mob.bu_timeout * 2.0).min(32.0);
                return self.send_binding_update(ctx, wifi, m);
            }
            Phase::Attached => {}
        }
        None
    }

    /// The next advertisement of the router at `ar`, at or after `now`: the router advertises
    /// at intervals drawn uniformly from `ra_interval`, and the ones nobody waited for are
    /// drawn here, one by one while at most `RA_DRAWN` of them lie behind. Further behind, the
    /// intervals before those last ones are skipped as their sum, drawn at once from its normal
    /// law (the central limit of thousands of uniform draws): however short the intervals,
    /// catching up is a few thousand draws, inside one event.
    fn next_router_advert(&mut self, ctx: &mut Ctx, wifi: &Wifi, ar: NodeId, now: f64) -> f64 {
        const RA_DRAWN: f64 = 4096.0;
        let m = self.mobiles.iter().find(|mob| mob.radios.iter().any(|&(_, ap)| wifi.stations[ap.index()].node == ar));
        let (lo, hi) = m.map_or((0.03, 0.07), |mob| mob.cfg.ra_interval);
        let draws = self.draws.as_mut().expect("set up");
        let mut next = self.next_ra[ar.index()];
        if next.is_nan() {
            next = draws.uniform(&mut ctx.rng) * hi; // a phase within the first interval
        }
        let (mean, var) = ((lo + hi) / 2.0, (hi - lo) * (hi - lo) / 12.0);
        loop {
            // keep behind `now` by more than eight deviations of the sum: it never overtakes
            let ahead = (now - next) / mean;
            let skipped = (ahead - RA_DRAWN - 8.0 * (ahead * var).sqrt() / mean).floor();
            if skipped <= 0.0 {
                break;
            }
            // Box-Muller, from two uniform draws
            let (u, v) = (1.0 - draws.uniform(&mut ctx.rng), draws.uniform(&mut ctx.rng));
            let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
            next += skipped * mean + (skipped * var).sqrt() * z;
        }
        while next < now {
            next += lo + draws.uniform(&mut ctx.rng) * (hi - lo);
        }
        self.next_ra[ar.index()] = next;
        next
    }

    fn send_binding_update(&mut self, ctx: &mut Ctx, wifi: &Wifi, m: usize) -> Option<Outgoing> {
        let now = ctx.now_secs();
        let mob = &mut self.mobiles[m];
        let (Some(&anchor), Some((_, ap_radio))) = (mob.pending.first(), mob.assoc) else { return None };
        let ap = wifi.stations[ap_radio.index()].node;
        // the care-of address this update binds: the MAP's regional one when the home agent
        // is told of a move within the domain, else the new router's
        let target = match mob.map {
            Some(map) if anchor != map && mob.map_domain.contains(&ap) => map,
            _ => ap,
        };
        if let Some(h) = mob.records.last_mut() {
            h.binding_updates += 1;
        }
        let node = mob.node;
        let timeout = mob.bu_timeout;
        let pkt = Mip::signalling(ctx, Kind::BindingUpdate, node, anchor, BU_BYTES, target.get() as i64);
        self.timer_at(ctx, m, MipTimer::Step, now + timeout);
        Some(Outgoing { node, id: ctx.pkts.alloc(pkt) })
    }

    fn signalling(ctx: &mut Ctx, kind: Kind, from: NodeId, to: NodeId, size: u32, seq: i64) -> Packet {
        let (uid, now) = (ctx.next_uid(), ctx.now_secs());
        Packet::of_network(uid, kind, from, to, size, seq, now)
    }

    /// A binding update or acknowledgement reached its destination `node`: an acknowledgement
    /// or the next update may come out of it, for the network to send.
    pub fn on_signalling(&mut self, ctx: &mut Ctx, wifi: &Wifi, node: NodeId, pkt: Packet) -> Option<Outgoing> {
        let now = ctx.now_secs();
        match pkt.kind {
            Kind::BindingUpdate => {
                let m = self.mobile(pkt.src.node)?;
                let target = NodeId::new(pkt.seq as u32); // the care-of address the update binds
                let mob = &mut self.mobiles[m];
                let is_map = Some(node) == mob.map;
                let at_home = target == mob.home_agent;
                if is_map {
                    mob.map_binding = Some(target);
                } else if node == mob.home_agent {
                    // at home (the home agent's own link) the binding is removed
                    mob.ha_binding = (!at_home).then_some(target);
                } else {
                    mob.cn_bindings.retain(|&(cn, _)| cn != node);
                    if !at_home {
                        mob.cn_bindings.push((node, target));
                    }
                }
                // traffic follows the new binding from now if this anchor is the last to learn
                if mob.pending.last() == Some(&node) {
                    if let Some(h) = mob.records.last_mut() {
                        h.binding_s = now;
                    }
                }
                // the acknowledgement goes to the new care-of address: through the router the
                // MN registered from (the update's target, or the MAP's binding)
                let ar = if is_map || mob.map.is_none() || target == mob.home_agent {
                    target
                } else {
                    mob.map_binding.unwrap_or(target)
                };
                let mut ack = Mip::signalling(ctx, Kind::BindingAck, node, pkt.src.node, BA_BYTES, node.get() as i64);
                ack.via = Some(ar);
                Some(Outgoing { node, id: ctx.pkts.alloc(ack) })
            }
            Kind::BindingAck => {
                let m = self.mobile(node)?;
                let mob = &mut self.mobiles[m];
                if mob.phase != Phase::Binding || mob.pending.first() != Some(&NodeId::new(pkt.seq as u32)) {
                    return None; // a late duplicate
                }
                mob.pending.remove(0);
                if mob.pending.is_empty() {
                    self.handover_complete(wifi, m, now);
                    return None;
                }
                mob.bu_timeout = BINDACK_TIMEOUT;
                self.send_binding_update(ctx, wifi, m)
            }
            _ => None,
        }
    }

    fn handover_complete(&mut self, wifi: &Wifi, m: usize, now: f64) {
        let mob = &mut self.mobiles[m];
        mob.step.cancel();
        mob.phase = Phase::Attached;
        mob.registered_ar = mob.assoc.map(|(_, ap)| wifi.stations[ap.index()].node);
        if let Some(h) = mob.records.last_mut() {
            h.complete_s = now;
            if h.binding_s == 0.0 {
                h.binding_s = now; // nothing to bind (the same router again)
            }
            if h.dad_done_s == 0.0 {
                h.dad_done_s = h.movement_detected_s;
            }
        }
    }

    /// Where packet `id` at `node` goes next under Mobile IPv6 (its tunnel headers put on or
    /// taken off here), or None for plain static routing.
    pub(crate) fn route(&self, pkts: &mut PacketPool, wifi: &Wifi, node: NodeId, id: PacketId) -> Option<Route> {
        let p = *pkts.get(id);
        let signalling = matches!(p.kind, Kind::BindingUpdate | Kind::BindingAck);
        // At a mobile node: out through its access point, tunnelled home when away.
        if let Some(m) = self.mobile(node) {
            let mob = &self.mobiles[m];
            let Some((r, ap)) = mob.assoc else { return Some(Route::Drop) };
            let away = mob.ha_binding.is_some();
            let optimised = mob.cn_bindings.iter().any(|&(cn, _)| cn == p.dst.node);
            if p.src.node == node && !signalling && away && optimised && p.mip_bytes == 0 {
                // route optimisation: straight to the correspondent, with a home address option
                let pkt = pkts.get_mut(id);
                pkt.size += RO_BYTES;
                pkt.mip_bytes += RO_BYTES as u16;
            } else if p.src.node == node && !signalling && away && p.encaps == 0 && self.mobile(p.dst.node).is_none() {
                let via_map = mob.map_binding.is_some() && mob.ha_binding == mob.map;
                let pkt = pkts.get_mut(id);
                pkt.encaps = if via_map { 2 } else { 1 };
                pkt.size += TUNNEL_BYTES * pkt.encaps as u32;
                pkt.mip_bytes += (TUNNEL_BYTES * pkt.encaps as u32) as u16;
                pkt.via = Some(if via_map { mob.map.expect("bound") } else { mob.home_agent });
                pkt.tunnel_from = node;
            }
            return Some(Route::Radio(r, ap));
        }
        if let Some(via) = p.via.filter(|&via| via != node) {
            return Some(Route::Toward(via));
        }
        let arrived = p.via == Some(node);
        if arrived {
            pkts.get_mut(id).via = None;
            // the end of a reverse tunnel from an MN: the MAP passes it on to the home agent,
            // the home agent takes the last header off
            if let Some(m) = self.mobile(p.src.node).filter(|_| self.mobile(p.dst.node).is_none()) {
                let mob = &self.mobiles[m];
                let pkt = pkts.get_mut(id);
                pkt.encaps = pkt.encaps.saturating_sub(1);
                pkt.size -= TUNNEL_BYTES;
                pkt.mip_bytes -= TUNNEL_BYTES as u16;
                if Some(node) == mob.map {
                    pkt.via = Some(mob.home_agent);
                    pkt.tunnel_from = node;
                    return Some(Route::Toward(mob.home_agent));
                }
                return None;
            }
        }
        let m = self.mobile(p.dst.node)?;
        let mob = &self.mobiles[m];
        // route optimisation: a correspondent sends to the care-of address it knows
        if p.src.node == node && !signalling && p.mip_bytes == 0 {
            if let Some(&(_, coa)) = mob.cn_bindings.iter().find(|&&(cn, _)| cn == node) {
                let pkt = pkts.get_mut(id);
                pkt.size += RO_BYTES;
                pkt.mip_bytes += RO_BYTES as u16;
                pkt.via = Some(coa);
                return Some(Route::Toward(coa));
            }
        }
        let deliver_here = || -> Route {
            match mob.assoc {
                Some((r, ap)) if wifi.stations[ap.index()].node == node => Route::Radio(ap, r),
                _ => Route::Drop, // the MN is not (or no longer) on this router's link
            }
        };
        if node == mob.home_agent && p.encaps == 0 && !signalling {
            let at_home = mob.assoc.is_some_and(|(_, ap)| wifi.stations[ap.index()].node == node);
            if at_home {
                return Some(deliver_here());
            }
            let Some(target) = mob.ha_binding else { return Some(Route::Drop) };
            let pkt = pkts.get_mut(id);
            pkt.encaps += 1;
            pkt.size += TUNNEL_BYTES;
            pkt.mip_bytes += TUNNEL_BYTES as u16;
            pkt.via = Some(target);
            pkt.tunnel_from = node;
            return Some(Route::Toward(target));
        }
        if arrived && Some(node) == mob.map && !signalling {
            let Some(ar) = mob.map_binding else { return Some(Route::Drop) };
            let pkt = pkts.get_mut(id);
            pkt.encaps += 1;
            pkt.size += TUNNEL_BYTES;
            pkt.mip_bytes += TUNNEL_BYTES as u16;
            pkt.via = Some(ar);
            pkt.tunnel_from = node;
            return Some(Route::Toward(ar));
        }
        if arrived {
            return Some(deliver_here());
        }
        // not yet tunnelled: to the home network
        Some(Route::Toward(mob.home_agent))
    }

    /// Notes a data packet delivered at `now` to a mobile node through access point `ap`.
    pub fn note_delivery(&mut self, now: f64, pkt: &Packet, ap: NodeId) {
        if self.is_mobile(pkt.dst.node) && pkt.kind.is_data() {
            self.deliveries.push((now, pkt.flow.0, pkt.payload, ap));
        }
    }
}
