//! Mobile IPv6 and HMIPv6 alone: a mobile node moves from one access router to another, the
//! test plays the network (it answers binding updates at the anchor and hands the
//! acknowledgements back) and checks the handover's timeline and where `route` sends packets.
//!
//! Nodes: 0 home agent, 1 MAP, 2 and 3 access routers (each the AP of its WLAN), 4 the mobile
//! node, 5 a correspondent. The MN starts 105 m from AR1 and 295 m from AR2 and from 1 s heads
//! for AR2 at 100 m/s. With ns-2's radio a frame is received up to 250 m, so AR1 is lost at
//! 105 + 100 (t - 1) = 250 m, t = 2.45 s, and AR2 is in range from 2.45 s too.

use super::path::Move;
use super::*;
use crate::ids::NodeId;
use crate::packet::Addr;
use crate::testing::packet;
use crate::trace::Tracer;
use crate::wifi::WlanConfig;
use tcplab_des::{Ns2Rng, Rng, Time};

const HA: NodeId = NodeId::new(0);
const MAP: NodeId = NodeId::new(1);
const AR1: NodeId = NodeId::new(2);
const AR2: NodeId = NodeId::new(3);
const MN: NodeId = NodeId::new(4);
const CN: NodeId = NodeId::new(5);
/// Radios: (home WLAN) HA 0, MN 1; (AR1's) AR1 2, MN 3; (AR2's) AR2 4, MN 5.
const MN_RADIOS: [(u32, u32); 3] = [(1, 0), (3, 2), (5, 4)];
const AR2_RADIO: u32 = 4;
const MN_ON_AR2: u32 = 5;
const SEED: u64 = 3;
/// Router advertisements every 50 ms exactly (ra_interval [50 ms, 50 ms]).
const RA: f64 = 0.05;
const DAD: f64 = 1.0;

fn wlan(name: &str, ap: usize, at: (f64, f64)) -> WlanConfig {
    crate::testing::wlan(name, vec![ap, MN.index()], vec![at, (105.0, 0.0)], Some(ap))
}

/// Where `route` sends a packet, comparable.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Hop {
    /// Plain static routing.
    Static,
    Toward(NodeId),
    Radio(u32, u32),
    Drop,
}

struct Net {
    ctx: Ctx,
    wifi: Wifi,
    mip: Mip,
    /// The binding updates the MN sent, when.
    sent: Vec<(f64, Packet)>,
}

impl Net {
    /// The topology above; `map_domain` empty: plain Mobile IPv6.
    fn new(map_domain: &[NodeId], route_optimisation: bool) -> Net {
        let wlans = vec![wlan("home", 0, (-5000.0, 0.0)), wlan("w1", 2, (0.0, 0.0)), wlan("w2", 3, (400.0, 0.0))];
        let mut wifi = Wifi::new(wlans, |name| Draws::Own(Rng::stream(SEED, &name)));
        let to_ar2 = Move { node: MN.index(), at: 1.0, to: (500.0, 0.0), speed: 100.0 };
        wifi.set_moves(&[to_ar2]);
        let cfg = MobileConfig {
            node: MN.index(),
            home_agent: HA.index(),
            map: (!map_domain.is_empty()).then_some(MAP.index()),
            map_domain: map_domain.iter().map(|n| n.index()).collect(),
            l2_handoff: 0.1,
            beacon_interval: 0.1,
            ra_interval: (RA, RA),
            dad: DAD,
            route_optimisation,
        };
        let names: Vec<String> = ["ha", "map", "ar1", "ar2", "mn", "cn"].iter().map(|s| s.to_string()).collect();
        let radios = |node: usize| {
            let mine = if node == MN.index() { MN_RADIOS.as_slice() } else { &[] };
            mine.iter().map(|&(r, ap)| (RadioId(r), RadioId(ap))).collect()
        };
        let peers = |node: usize| if node == MN.index() { vec![CN] } else { Vec::new() };
        let mip = Mip::new(&names, vec![cfg], radios, peers, Draws::Own(Rng::stream(SEED, "mip")));
        let ctx = Ctx::new(1, Tracer::default(), Ns2Rng::seeded(1));
        let mut net = Net { ctx, wifi, mip, sent: Vec::new() };
        net.mip.start(&mut net.ctx, &net.wifi);
        net
    }

    /// Fires the MN's timers due by `t`, keeping the binding updates they send.
    fn run_until(&mut self, t: f64) {
        while let Some(ev) = self.ctx.sched.pop_if(|at, _| at <= t) {
            let Event::Mip(m, which, gen) = ev else { unreachable!("only Mobile IPv6 timers here") };
            if let Some(out) = self.mip.on_timer(&mut self.ctx, &self.wifi, m, which, gen) {
                assert_eq!(out.node, MN, "binding updates come from the MN");
                let pkt = self.ctx.pkts.release(out.id);
                self.sent.push((self.ctx.now_secs(), pkt));
            }
        }
        if t > self.ctx.now_secs() {
            self.ctx.sched.advance_to(Time::from_secs_f64(t));
        }
    }

    /// Fires the MN's timers until one sends a binding update: when, and the update.
    fn next_update(&mut self) -> (f64, Packet) {
        while let Some(ev) = self.ctx.sched.pop_if(|at, _| at < 60.0) {
            let Event::Mip(m, which, gen) = ev else { unreachable!("only Mobile IPv6 timers here") };
            if let Some(out) = self.mip.on_timer(&mut self.ctx, &self.wifi, m, which, gen) {
                return (self.ctx.now_secs(), self.ctx.pkts.release(out.id));
            }
        }
        panic!("no binding update within a minute")
    }

    /// Signalling `pkt` reaches `node` now; what it sends back, and from where.
    fn deliver(&mut self, node: NodeId, pkt: Packet) -> Option<(NodeId, Packet)> {
        let out = self.mip.on_signalling(&mut self.ctx, &self.wifi, node, pkt)?;
        Some((out.node, self.ctx.pkts.release(out.id)))
    }

    /// Follows `pkt` from `node` as the network would: on towards a tunnel's end or over the
    /// air, until it is at its destination, dropped, or left to static routing. Each step: the
    /// node, where `route` sent it, and the packet's size and tunnel headers after.
    fn walk(&mut self, mut node: NodeId, pkt: Packet) -> Vec<(NodeId, Hop, u32, u8)> {
        let id = self.ctx.pkts.alloc(pkt);
        let mut steps = Vec::new();
        loop {
            let hop = match self.mip.route(&mut self.ctx.pkts, &self.wifi, node, id) {
                None => Hop::Static,
                Some(Route::Toward(n)) => Hop::Toward(n),
                Some(Route::Radio(a, b)) => Hop::Radio(a.0, b.0),
                Some(Route::Drop) => Hop::Drop,
            };
            let p = *self.ctx.pkts.get(id);
            steps.push((node, hop, p.size, p.encaps));
            node = match hop {
                Hop::Toward(n) => n,
                Hop::Radio(_, b) => self.wifi.stations[b as usize].node,
                _ => break,
            };
            if node == p.dst.node || steps.len() > 8 {
                break;
            }
        }
        self.ctx.pkts.release(id);
        steps
    }
}

/// The time of the `k`th beacon check, added up as the timer is re-armed: 100 ms after the last.
fn beacon(k: u32) -> f64 {
    (0..k).fold(0.0, |t, _| t + 0.1)
}

/// The first advertisement of a router at or after `t`: the phase is the first uniform draw of
/// Mobile IPv6's stream times the interval, then one interval after another.
fn next_ra(t: f64) -> f64 {
    let mut draws = Rng::stream(SEED, "mip");
    let mut next = draws.uniform() * RA;
    while next < t {
        next += RA;
    }
    next
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Plays a handover to its end: every binding update is answered 10 ms after it is sent, and
/// its acknowledgement reaches the MN 10 ms later. Returns the (anchor, care-of address bound)
/// of each update in order, and when the first was sent.
fn handover(net: &mut Net) -> (f64, Vec<(NodeId, NodeId)>) {
    let mut bound = Vec::new();
    let (first, bu) = net.next_update();
    let (mut at, mut bu) = (first, bu);
    loop {
        assert_eq!((bu.kind, bu.size, bu.src.node), (Kind::BindingUpdate, BU_BYTES, MN));
        bound.push((bu.dst.node, NodeId::new(bu.seq as u32)));
        net.run_until(at + 0.01);
        let (from, ack) = net.deliver(bu.dst.node, bu).expect("the anchor acknowledges");
        assert_eq!((from, ack.kind, ack.size, ack.dst.node), (bu.dst.node, Kind::BindingAck, BA_BYTES, MN));
        // the acknowledgement goes to the new on-link care-of address, through AR2
        assert_eq!(ack.via, Some(AR2));
        net.run_until(at + 0.02);
        match net.deliver(MN, ack) {
            None => break,
            Some((MN, next)) => (at, bu) = (net.ctx.now_secs(), next),
            Some((node, _)) => panic!("the next update from node {node}"),
        }
    }
    (first, bound)
}

#[test]
fn a_handover_lost_link_l2_movement_detection_dad_binding_update_and_ack() {
    // (case, MAP domain, route optimisation, (anchor, care-of address) of each update)
    let cases = [
        // Mobile IPv6: the home agent learns AR2's address
        ("MIPv6", vec![], false, vec![(HA, AR2)]),
        // HMIPv6 within the domain: only the MAP (a local binding update) learns AR2
        ("HMIPv6 within the domain", vec![AR1, AR2], false, vec![(MAP, AR2)]),
        // into the domain: the MAP learns AR2, then the home agent the MAP's regional address
        ("HMIPv6 into the domain", vec![AR2], false, vec![(MAP, AR2), (HA, MAP)]),
        // route optimisation: after the home agent, the correspondent
        ("MIPv6, route optimisation", vec![], true, vec![(HA, AR2), (CN, AR2)]),
    ];
    for (case, domain, ro, updates) in cases {
        let mut net = Net::new(&domain, ro);
        let (first, bound) = handover(&mut net);
        assert_eq!(bound, updates, "{case}");
        let h = net.mip.handovers(&[("f".to_string(), MN)]);
        assert_eq!(h.len(), 1, "{case}");
        let h = &h[0];
        assert_eq!((h.node.as_str(), h.from.as_deref(), h.to.as_str()), ("mn", Some("ar1"), "ar2"), "{case}");
        // lost at the first beacon check (every 100 ms) after 2.45 s; AR2 joined after the
        // 100 ms L2 handoff; its next advertisement; DAD 1 s; the updates sent at once
        let lost = beacon(25);
        assert!(close(lost, 2.5), "{lost}");
        let l2 = lost + 0.1;
        let md = next_ra(l2);
        assert!(md >= l2 && md < l2 + RA, "{case}: {md}");
        let dad = md + DAD;
        // each anchor answers 10 ms after an update and its ack is back 10 ms later: the last
        // anchor installs the binding at 20 n - 10 ms, the handover completes at 20 n ms
        let n = updates.len() as f64;
        let times = [h.link_lost_s, h.l2_done_s, h.movement_detected_s, h.dad_done_s, h.binding_s, h.complete_s];
        let want = [lost, l2, md, dad, dad + 0.02 * n - 0.01, dad + 0.02 * n];
        assert!(times.iter().zip(want).all(|(&t, w)| close(t, w)), "{case}: {times:?}, want {want:?}");
        assert_eq!(h.binding_updates, updates.len() as u32, "{case}");
        assert!(close(first, dad), "{case}: the first update at DAD's end");
        // done: no update is sent again
        net.run_until(20.0);
        assert_eq!(net.sent.len(), 0, "{case}: {:?}", net.sent);
    }
}

#[test]
fn an_unacknowledged_binding_update_is_sent_again_after_1_s_then_2_s() {
    let mut net = Net::new(&[], false);
    let dad = next_ra(beacon(25) + 0.1) + DAD;
    // RFC 6275's INITIAL_BINDACK_TIMEOUT 1 s, doubled at every retransmission
    net.run_until(dad + 3.5);
    let times: Vec<f64> = net.sent.iter().map(|s| s.0).collect();
    let want = [dad, dad + 1.0, dad + 3.0];
    assert!(times.len() == 3 && times.iter().zip(want).all(|(&t, w)| close(t, w)), "{times:?}, want {want:?}");
    assert!(net.sent.iter().all(|(_, bu)| (bu.dst.node, bu.seq) == (HA, AR2.get() as i64)), "the same update");
    // the third is answered: the handover completes, with 3 updates counted
    let (_, bu) = net.sent.pop().expect("sent");
    let (_, ack) = net.deliver(HA, bu).expect("acknowledged");
    assert!(net.deliver(MN, ack).is_none(), "nothing more to bind");
    let h = &net.mip.handovers(&[])[0];
    assert!(close(h.complete_s, dad + 3.5) && close(h.binding_s, dad + 3.5));
    assert_eq!(h.binding_updates, 3);
    // the retransmission timer is off, and an acknowledgement of an earlier copy is ignored
    let late = Packet { kind: Kind::BindingAck, src: Addr { node: HA, port: 0 }, seq: HA.get() as i64, ..packet() };
    assert!(net.deliver(MN, late).is_none());
    net.run_until(20.0);
    assert_eq!(net.sent.len(), 2, "no update after the acknowledgement");
}

#[test]
fn packets_are_tunnelled_through_the_anchors_and_dropped_off_the_mn_link() {
    let t = TUNNEL_BYTES;
    let data = |from: NodeId, to: NodeId| Packet {
        size: 1040,
        src: Addr { node: from, port: 0 },
        dst: Addr { node: to, port: 0 },
        ..packet()
    };
    // (case, MAP domain, route optimisation, CN -> MN, MN -> CN: the steps of each)
    #[allow(clippy::type_complexity)]
    let cases: [(&str, Vec<NodeId>, bool, Vec<(NodeId, Hop, u32, u8)>, Vec<(NodeId, Hop, u32, u8)>); 3] = [
        (
            // to the home network, tunnelled there (+40 bytes) to AR2, which has the MN on
            // its link; back the same way (bidirectional tunnelling)
            "MIPv6",
            vec![],
            false,
            vec![
                (CN, Hop::Toward(HA), 1040, 0),
                (HA, Hop::Toward(AR2), 1040 + t, 1),
                (AR2, Hop::Radio(AR2_RADIO, MN_ON_AR2), 1040 + t, 1),
            ],
            vec![
                (MN, Hop::Radio(MN_ON_AR2, AR2_RADIO), 1040 + t, 1),
                (AR2, Hop::Toward(HA), 1040 + t, 1),
                (HA, Hop::Static, 1040, 0),
            ],
        ),
        (
            // the home agent tunnels to the MAP's regional address, the MAP again to AR2
            "HMIPv6",
            vec![AR1, AR2],
            false,
            vec![
                (CN, Hop::Toward(HA), 1040, 0),
                (HA, Hop::Toward(MAP), 1040 + t, 1),
                (MAP, Hop::Toward(AR2), 1040 + 2 * t, 2),
                (AR2, Hop::Radio(AR2_RADIO, MN_ON_AR2), 1040 + 2 * t, 2),
            ],
            vec![
                (MN, Hop::Radio(MN_ON_AR2, AR2_RADIO), 1040 + 2 * t, 2),
                (AR2, Hop::Toward(MAP), 1040 + 2 * t, 2),
                (MAP, Hop::Toward(HA), 1040 + t, 1),
                (HA, Hop::Static, 1040, 0),
            ],
        ),
        (
            // route optimisation: straight to the care-of address with a routing header, and
            // back with a home address option (24 bytes)
            "route optimisation",
            vec![],
            true,
            vec![
                (CN, Hop::Toward(AR2), 1040 + RO_BYTES, 0),
                (AR2, Hop::Radio(AR2_RADIO, MN_ON_AR2), 1040 + RO_BYTES, 0),
            ],
            vec![(MN, Hop::Radio(MN_ON_AR2, AR2_RADIO), 1040 + RO_BYTES, 0), (AR2, Hop::Static, 1040 + RO_BYTES, 0)],
        ),
    ];
    for (case, domain, ro, down, up) in cases {
        let mut net = Net::new(&domain, ro);
        handover(&mut net);
        assert_eq!(net.walk(CN, data(CN, MN)), down, "{case}: CN -> MN");
        assert_eq!(net.walk(MN, data(MN, CN)), up, "{case}: MN -> CN");
        // a packet tunnelled to AR1 under the old binding finds the MN gone from its link
        let stale = Packet { encaps: 1, size: 1040 + t, via: Some(AR1), ..data(CN, MN) };
        assert_eq!(net.walk(AR1, stale), [(AR1, Hop::Drop, 1040 + t, 1)], "{case}");
    }
    // before the move, at AR1 (so HMIPv6 starts bound: MAP -> AR1, home agent -> MAP)
    let mut net = Net::new(&[AR1, AR2], false);
    let down = net.walk(CN, data(CN, MN));
    assert_eq!(down.last(), Some(&(AR1, Hop::Radio(2, 3), 1040 + 2 * t, 2)), "{down:?}");
    // between the link's loss and the binding the home agent still tunnels to AR1, which drops
    net.run_until(2.55);
    let down = net.walk(CN, data(CN, MN));
    assert_eq!(down.last(), Some(&(AR1, Hop::Drop, 1040 + 2 * t, 2)), "{down:?}");
    // and the MN, with no link, drops what it would send
    assert_eq!(net.walk(MN, data(MN, CN)), [(MN, Hop::Drop, 1040, 0)]);
}
