//! The table logic of ns-2's DSDV (dsdv.cc `processUpdate`, `makeUpdate`, the timers), case
//! by case, with the numbers DSDV.md read in ns-2's traces where there are some.

use super::*;
use crate::trace::Tracer;
use tcplab_des::{Ns2Rng, Time};

fn ctx() -> Ctx {
    Ctx::new(0, Tracer::default(), Ns2Rng::seeded(1))
}

/// Agents on nodes 0..n (radio i on node i).
fn dsdv(n: u32) -> Dsdv {
    let radios: Vec<(NodeId, RadioId)> = (0..n).map(|i| (NodeId::new(i), RadioId(i))).collect();
    Dsdv::new((0..n as i32).collect(), &radios, |_| None, Params::default())
}

fn at(ctx: &mut Ctx, secs: f64) {
    ctx.sched.advance_to(Time::from_secs_f64(secs));
}

fn entry(d: &Dsdv, a: u32, dst: i32) -> &Entry {
    d.agents[a as usize].table.get(dst).expect("an entry")
}

/// The entries of update `id`.
fn advertised(ctx: &Ctx, d: &Dsdv, id: PacketId) -> Vec<Advert> {
    let mut out = Vec::new();
    d.advert(ctx.pkts.get(id).uid, &mut out);
    out
}

#[test]
fn table_keeps_address_order_and_replaces_in_place() {
    let mut t = Table::default();
    for dst in [5, 1, 3, 0] {
        t.add(Entry::new(dst, dst));
    }
    t.add(Entry { metric: 7, ..Entry::new(3, 1) });
    assert_eq!(t.iter().map(|e| e.dst).collect::<Vec<_>>(), [0, 1, 3, 5]);
    assert_eq!((t.get(3).unwrap().metric, t.get(3).unwrap().hop), (7, 1));
    assert!(t.get(2).is_none());
}

#[test]
fn start_up_advertises_seqnum_4_first_after_a_jitter_of_2_s() {
    let (mut ctx, mut d) = (ctx(), dsdv(1));
    d.start(&mut ctx, 0);
    let own = entry(&d, 0, 0);
    assert_eq!((own.metric, own.seqnum, own.advert_seqnum, own.advert_metric), (0, 0, true, true));
    assert_eq!(d.agents[0].seqno, 2);
    // the first draw of seed 1 is 0.000339577: "VPC 0.00068 _0_"
    let mut rng = Ns2Rng::seeded(1);
    let first = 2.0 * rng.uniform();
    assert!(d.agents[0].periodic.pending());
    let due = ctx.sched.pop_if(|exact, _| exact == first);
    assert!(matches!(due, Some(Event::Dsdv(DsdvEvent::Periodic(0, _)))));
    let (full, id) = d.make_update(&mut ctx, 0, true);
    let id = id.expect("a full update always carries the node");
    assert!(full);
    assert_eq!(advertised(&ctx, &d, id), [(0, 0, 4)]);
    assert_eq!(ctx.pkts.get(id).size, 32);
}

#[test]
fn a_new_destination_settles_wst0_and_triggers_at_advertise_ok_at() {
    let (mut ctx, mut d) = (ctx(), dsdv(2));
    d.start(&mut ctx, 1);
    at(&mut ctx, 0.5);
    assert!(d.process_entry(&mut ctx, 1, 0, (0, 0, 4)).is_empty());
    let e = entry(&d, 1, 0);
    assert_eq!((e.hop, e.metric, e.seqnum, e.wst), (0, 1, 4, 6.0));
    assert_eq!(e.advertise_ok_at, 0.5 + 12.0);
    assert!(e.advert_metric && e.trigger.pending());
    assert_eq!(e.trigger_at, 12.5);
    // held out of a full update until then: the update carries the node alone
    let (_, id) = d.make_update(&mut ctx, 1, true);
    assert_eq!(advertised(&ctx, &d, id.unwrap()), [(1, 0, 4)]);
}

#[test]
fn an_infinite_new_destination_is_stored_without_trigger() {
    let (mut ctx, mut d) = (ctx(), dsdv(2));
    d.start(&mut ctx, 1);
    let _ = d.process_entry(&mut ctx, 1, 0, (7, BIG, 3));
    let e = entry(&d, 1, 7);
    assert_eq!((e.metric, e.advert_metric, e.trigger.pending()), (BIG, false, false));
    assert_eq!(e.advertise_ok_at, 0.0, "now: an infinite route needs no settling");
}

#[test]
fn same_seqnum_takes_only_a_strictly_shorter_route() {
    let (mut ctx, mut d) = (ctx(), dsdv(3));
    d.start(&mut ctx, 2);
    let _ = d.process_entry(&mut ctx, 2, 0, (7, 3, 10)); // metric 4 via 0
    let _ = d.process_entry(&mut ctx, 2, 1, (7, 3, 10)); // as long: ignored
    assert_eq!(entry(&d, 2, 7).hop, 0);
    let _ = d.process_entry(&mut ctx, 2, 1, (7, 1, 10)); // shorter: taken, triggered
    let e = entry(&d, 2, 7);
    assert_eq!((e.hop, e.metric, e.advert_metric, e.trigger.pending()), (1, 2, true, true));
}

#[test]
fn a_shorter_route_back_to_the_metric_last_advertised_does_not_trigger() {
    let (mut ctx, mut d) = (ctx(), dsdv(3));
    d.start(&mut ctx, 2);
    let _ = d.process_entry(&mut ctx, 2, 0, (7, 3, 10));
    let e = d.agents[2].table.get_mut(7).unwrap();
    e.last_advertised_metric = 2;
    e.advert_metric = false;
    e.trigger.cancel();
    let _ = d.process_entry(&mut ctx, 2, 1, (7, 1, 10)); // metric 2 = last advertised
    let e = entry(&d, 2, 7);
    assert_eq!((e.metric, e.advert_metric, e.trigger.pending()), (2, false, false));
}

#[test]
fn a_fresher_seqnum_is_taken_always_smooths_wst_and_does_not_trigger() {
    let (mut ctx, mut d) = (ctx(), dsdv(3));
    d.start(&mut ctx, 2);
    let _ = d.process_entry(&mut ctx, 2, 0, (7, 1, 10));
    d.agents[2].table.get_mut(7).unwrap().trigger.cancel();
    at(&mut ctx, 13.832097);
    let _ = d.process_entry(&mut ctx, 2, 1, (7, 5, 12)); // longer, but fresher
    let e = entry(&d, 2, 7);
    assert_eq!((e.hop, e.metric, e.seqnum), (1, 6, 12));
    // DSDV.md: 0.875 * 6 + 0.125 * 0 = 5.25, advertisable at 13.832097 + 10.5
    assert_eq!(e.wst, 5.25);
    assert_eq!(e.advertise_ok_at, 13.832097 + 10.5);
    assert!(e.advert_seqnum && e.advert_metric && !e.trigger.pending());
}

#[test]
fn an_older_seqnum_with_an_infinite_metric_is_answered_now() {
    let (mut ctx, mut d) = (ctx(), dsdv(3));
    d.start(&mut ctx, 2);
    let _ = d.process_entry(&mut ctx, 2, 0, (7, 1, 10));
    at(&mut ctx, 3.0);
    let _ = d.process_entry(&mut ctx, 2, 1, (7, 4, 8)); // older, finite: ignored
    assert_eq!(entry(&d, 2, 7).advertise_ok_at, 12.0);
    let _ = d.process_entry(&mut ctx, 2, 1, (7, BIG, 9)); // older, infinite: educate
    let e = entry(&d, 2, 7);
    assert_eq!((e.hop, e.metric, e.advertise_ok_at, e.trigger_at), (0, 2, 3.0, 3.0));
}

#[test]
fn an_infinite_route_to_me_brings_the_full_update_forward() {
    let (mut ctx, mut d) = (ctx(), dsdv(2));
    d.start(&mut ctx, 1); // its first periodic update due at 0.00068 s
    let _ = d.process_entry(&mut ctx, 1, 0, (1, BIG, 5));
    assert_eq!(entry(&d, 1, 1).seqnum, 0, "its own entry is untouched");
    // the periodic update comes out first, now, and fires
    let Some(Event::Dsdv(DsdvEvent::Periodic(1, gen))) = ctx.sched.pop_if(|_, _| true) else {
        panic!("the periodic update first");
    };
    assert_eq!(ctx.now_secs(), 0.0);
    assert!(ctx.sched.fire(&mut d.agents[1].periodic, gen, |g| event(DsdvEvent::Periodic(1, g))));
}

#[test]
fn a_triggered_update_repeats_a_changed_metric_until_a_full_one() {
    let (mut ctx, mut d) = (ctx(), dsdv(3));
    d.start(&mut ctx, 2);
    let (_, first) = d.make_update(&mut ctx, 2, true); // clears the node's own flags
    assert!(first.is_some());
    let _ = d.process_entry(&mut ctx, 2, 0, (7, 1, 10));
    at(&mut ctx, 12.0);
    let (full, id) = d.make_update(&mut ctx, 2, false);
    assert!(!full);
    assert_eq!(advertised(&ctx, &d, id.unwrap()), [(7, 2, 10)]);
    let (_, again) = d.make_update(&mut ctx, 2, false);
    assert_eq!(advertised(&ctx, &d, again.unwrap()), [(7, 2, 10)], "advert_metric stays set");
    let (_, full) = d.make_update(&mut ctx, 2, true);
    assert_eq!(advertised(&ctx, &d, full.unwrap()), [(2, 0, 6), (7, 2, 10)]);
    let uid = ctx.next_uid();
    let (_, none) = d.make_update(&mut ctx, 2, false);
    assert!(none.is_none(), "nothing changed since the full update");
    assert_eq!(ctx.next_uid(), uid + 2, "the empty update spent a uid");
}

#[test]
fn a_triggered_update_turns_full_when_over_a_third_of_the_table_and_three_entries_changed() {
    let (mut ctx, mut d) = (ctx(), dsdv(2));
    d.start(&mut ctx, 1);
    let _ = d.make_update(&mut ctx, 1, true);
    for dst in 10..14 {
        let _ = d.process_entry(&mut ctx, 1, 0, (dst, BIG, 1)); // stored, advertisable now
        d.agents[1].table.get_mut(dst).unwrap().advert_seqnum = true;
    }
    let (full, id) = d.make_update(&mut ctx, 1, false);
    assert!(full, "4 of 5 entries changed");
    assert_eq!(advertised(&ctx, &d, id.unwrap()).len(), 5);
    assert_eq!(d.agents[1].seqno, 6, "a full update takes the next own seqnum");
}

#[test]
fn a_silent_sender_gets_a_placeholder_and_a_45_s_timeout() {
    let (mut ctx, mut d) = (ctx(), dsdv(2));
    d.start(&mut ctx, 1);
    at(&mut ctx, 1.0);
    d.heard_from(&mut ctx, 1, 0);
    let e = entry(&d, 1, 0);
    assert_eq!((e.metric, e.seqnum, e.wst, e.advertise_ok_at), (1, 0, 6.0, 1.0 + 604_800.0));
    assert!(e.timeout.pending());
}

#[test]
fn a_timeout_breaks_every_route_through_the_neighbour_with_an_odd_seqnum() {
    let (mut ctx, mut d) = (ctx(), dsdv(3));
    d.start(&mut ctx, 2);
    let _ = d.process_entry(&mut ctx, 2, 1, (1, 0, 4));
    let _ = d.process_entry(&mut ctx, 2, 1, (0, 1, 6));
    let _ = d.process_entry(&mut ctx, 2, 0, (5, 1, 2));
    d.heard_from(&mut ctx, 2, 1);
    let gen = {
        // the timeout's event, due 45 s on
        let mut gen = None;
        while let Some(ev) = ctx.sched.pop_if(|_, _| true) {
            if let Event::Dsdv(DsdvEvent::Timeout(2, 1, g)) = ev {
                gen = Some(g);
            }
        }
        gen.expect("a timeout armed")
    };
    assert_eq!(ctx.now_secs(), 45.0);
    d.timeout(&mut ctx, 2, 1, gen);
    for (dst, seq) in [(1, 5), (0, 7)] {
        let e = entry(&d, 2, dst);
        assert_eq!((e.metric, e.seqnum, e.advertise_ok_at, e.trigger_at), (BIG, seq, 45.0, 45.0));
    }
    assert_eq!(entry(&d, 2, 5).metric, 2, "a route through another neighbour stays");
}

#[test]
fn a_packet_without_a_route_waits_and_the_sixth_pushes_out_the_oldest() {
    let (mut ctx, mut d) = (ctx(), dsdv(3));
    d.start(&mut ctx, 0);
    let packet = |ctx: &mut Ctx, uid| {
        ctx.pkts.alloc(Packet::of_network(uid, Kind::Cbr, NodeId::new(0), NodeId::new(2), 100, 0, 0.0))
    };
    let ids: Vec<PacketId> = (0..6).map(|uid| packet(&mut ctx, uid)).collect();
    for &id in &ids[..5] {
        assert_eq!(d.route(&mut ctx, 0, id, 2), Forward::Waits(None));
    }
    let e = entry(&d, 0, 2);
    assert_eq!((e.metric, e.advertise_ok_at, e.wst, e.queue.len()), (BIG, 604_800.0, 6.0, 5));
    assert_eq!(d.route(&mut ctx, 0, ids[5], 2), Forward::Waits(Some(ids[0])));
    // a finite route releases them, oldest first, to go through `recv` again
    let waiting = d.process_entry(&mut ctx, 0, 1, (2, 1, 4));
    assert_eq!(waiting, ids[1..]);
    assert!(entry(&d, 0, 2).queue.is_empty());
    let next = packet(&mut ctx, 6);
    assert_eq!(d.route(&mut ctx, 0, next, 2), Forward::Next(1), "two hops: through the neighbour");
}
