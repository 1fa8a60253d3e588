//! The DCF one mechanism at a time, on a `Wifi` driven alone through a `Ctx`.
//!
//! Every expected time is derived from 802.11b with ns-2's defaults (wifi/phy.rs): SIFS 10 µs,
//! slot 20 µs, DIFS = SIFS + 2 slots = 50 µs, a long PLCP of 192 µs, data and control frames
//! at 1 Mb/s, 34 bytes of MAC header and FCS. So an RTS (20 B) is 192 + 160 = 352 µs on the air,
//! a CTS or ACK (14 B) 192 + 112 = 304 µs, and a 1000-byte IP packet (a 1034-byte frame)
//! 192 + 8272 = 8464 µs. `p(d)` is the propagation delay over `d` metres.

use super::*;
use crate::loss::{Loss, LossAction, LossAt, LossConfig, LossModel};
use crate::testing::packet;
use crate::trace::Tracer;
use phy::{Radio, LIGHT, NS2_LIGHT};
use tcplab_des::{Ns2Rng, Rng, Time};

const US: f64 = 1e-6;
const SIFS: f64 = 10.0 * US;
const SLOT: f64 = 20.0 * US;
const DIFS: f64 = SIFS + 2.0 * SLOT;
const RTS: f64 = 352.0 * US;
const CTS: f64 = 304.0 * US;
const ACK: f64 = 304.0 * US;
const DATA: f64 = 8464.0 * US;
/// How long a sender waits for the CTS or ACK after its frame: SIFS + that frame + a slot.
const TIMEOUT: f64 = SIFS + ACK + SLOT;

fn p(metres: f64) -> f64 {
    metres / LIGHT
}

/// An ad hoc WLAN of nodes 0, 1, ... at `positions`, with ns-2's 802.11b timing and radio, RTS/CTS
/// off, no backoff on an idle medium.
fn wlan(positions: &[(f64, f64)]) -> WlanConfig {
    crate::testing::wlan("w", (0..positions.len()).collect(), positions.to_vec(), None)
}

/// Carrier sense no farther than reception: stations out of receive range are hidden from
/// each other (with ns-2's thresholds every pair within 250 m of a third would sense each other).
fn hidden(mut cfg: WlanConfig) -> WlanConfig {
    cfg.radio.cs_threshold = cfg.radio.rx_threshold;
    cfg
}

/// A loss model at a radio's receiver, for the frames of `fids` (every frame when empty;
/// control frames carry no flow id and match only then).
fn loss(model: LossModel, fids: Vec<u32>) -> Loss {
    let cfg =
        LossConfig { at: LossAt::Radio { wlan: 0, node: 0, outgoing: false }, fids, model, action: LossAction::Drop };
    Loss::new(&cfg, Draws::Own(Rng::stream(7, "loss")))
}

/// What the test watches happen.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Seen {
    /// Radio `0` finished sending a frame.
    TxEnd(u32, FrameKind),
    /// A frame from radio `2` finished arriving at radio `0`.
    RxEnd(u32, FrameKind, u32),
    Delivered {
        node: u32,
        from: u32,
        uid: u64,
    },
    Dropped(u64),
}

struct Bed {
    ctx: Ctx,
    wifi: Wifi,
    log: Vec<(f64, Seen)>,
    /// Every frame whose transmission ended, as it went.
    frames_sent: Vec<Frame>,
    /// Radio 0's contention window after every change, from cw_min.
    cws: Vec<u32>,
}

impl Bed {
    fn new(cfg: WlanConfig) -> Bed {
        let ctx = Ctx::new(1, Tracer::default(), Ns2Rng::seeded(1));
        let cws = vec![cfg.cw_min];
        let wifi = Wifi::new(vec![cfg], |name| Draws::Own(Rng::stream(1, &name)));
        Bed { ctx, wifi, log: Vec::new(), frames_sent: Vec::new(), cws }
    }

    /// Queues an IP packet of `bytes` (uid `uid`) at radio `r` for radio `to`.
    fn send(&mut self, r: u32, to: u32, uid: u64, bytes: u32) -> Outcome {
        let id = self.ctx.pkts.alloc(Packet { uid, size: bytes, ..packet() });
        self.wifi.enqueue(&mut self.ctx, RadioId(r), RadioId(to), id)
    }

    /// Dispatches every event due by `t`, as the network does, then moves the clock to `t`.
    fn run_until(&mut self, t: f64) {
        while let Some(ev) = self.ctx.sched.pop_if(|at, _| at <= t) {
            let Event::Wifi(ev) = ev else { unreachable!("only radio events here") };
            let now = self.ctx.now_secs();
            match ev {
                WifiEvent::TxEnd(r, f) => {
                    self.log.push((now, Seen::TxEnd(r.0, self.wifi.frames[f.index()].kind)));
                    self.frames_sent.push(self.wifi.frames[f.index()]);
                }
                WifiEvent::RxEnd(r, f) => {
                    let frame = self.wifi.frames[f.index()];
                    self.log.push((now, Seen::RxEnd(r.0, frame.kind, frame.src.0)));
                }
                _ => {}
            }
            let out = self.wifi.on_event(&mut self.ctx, ev);
            self.take(out);
            let cw = self.wifi.stations[0].cw;
            if self.cws.last() != Some(&cw) {
                self.cws.push(cw);
            }
        }
        if t > self.ctx.now_secs() {
            self.ctx.sched.advance_to(Time::from_secs_f64(t));
        }
    }

    /// Does with an outcome what the network does: takes a delivered copy and lets the radio
    /// resume, frees a dropped packet.
    fn take(&mut self, out: Outcome) {
        let now = self.ctx.now_secs();
        match out {
            Outcome::Nothing => {}
            Outcome::Delivered { node, from, radio, id } => {
                let uid = self.ctx.pkts.release(id).uid;
                self.log.push((now, Seen::Delivered { node: node.get(), from: from.get(), uid }));
                self.wifi.resume(&mut self.ctx, radio);
            }
            Outcome::Dropped(id) => {
                let uid = self.ctx.pkts.release(id).uid;
                self.log.push((now, Seen::Dropped(uid)));
            }
        }
    }

    /// When `what` was seen.
    fn times(&self, what: Seen) -> Vec<f64> {
        self.log.iter().filter(|(_, s)| *s == what).map(|(t, _)| *t).collect()
    }

    fn delivered(&self) -> Vec<(u32, u32, u64)> {
        let mut out = Vec::new();
        for (_, s) in &self.log {
            if let Seen::Delivered { node, from, uid } = *s {
                out.push((node, from, uid));
            }
        }
        out
    }
}

/// Times computed along different paths agree to float noise; a slot is 20 µs.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[track_caller]
fn assert_log(case: &str, log: &[(f64, Seen)], expected: &[(f64, Seen)]) {
    let same = log.len() == expected.len() && log.iter().zip(expected).all(|(a, b)| close(a.0, b.0) && a.1 == b.1);
    assert!(same, "{case}:\n got {log:?}\nwant {expected:?}");
}

#[test]
fn ns2_backoff_is_one_shared_draw_modulo_cw() {
    // ns-2.35 (mac-timers.cc, BackoffTimer::start) draws `Random::random() % cw` slots from its
    // default generator: with seed 1 the first draws modulo 31 are 23, 2, 28, 15 (the second is
    // the first backoff of conformance/ns2-wifi/two-node-tcp.tcl, 90 µs = DIFS + 2 slots after
    // its ARP request reached the MAC), and slot `cw` itself never comes up.
    let always = |ns2_backoff: bool, cw_min: u32| WlanConfig {
        backoff_when_idle: true,
        ns2_backoff,
        cw_min,
        ..wlan(&[(0.0, 0.0), (10.0, 0.0)])
    };
    let mut firsts = Vec::new();
    for _ in 0..4 {
        let mut bed = Bed::new(always(true, 31));
        bed.wifi = Wifi::new(vec![always(true, 31)], |_| Draws::Shared);
        bed.ctx.rng = Ns2Rng::seeded(1);
        for _ in 0..firsts.len() {
            bed.ctx.rng.uniform(); // the draws of the earlier rounds, made elsewhere
        }
        assert!(matches!(bed.send(0, 1, 1, 1000), Outcome::Nothing));
        firsts.push(bed.wifi.stations[0].backoff.expect("a backoff is drawn"));
    }
    assert_eq!(firsts, [23, 2, 28, 15]);
    // cw 1: ns-2 always draws 0 slots (x % 1); drawn 0..=cw it would be 0 or 1
    for (ns2, want) in [(true, vec![0]), (false, vec![0, 1])] {
        let mut seen: Vec<u32> = Vec::new();
        for earlier in 0..40 {
            let mut bed = Bed::new(always(ns2, 1));
            bed.wifi = Wifi::new(vec![always(ns2, 1)], |_| Draws::Shared);
            bed.ctx.rng = Ns2Rng::seeded(1);
            for _ in 0..earlier {
                bed.ctx.rng.uniform();
            }
            let _ = bed.send(0, 1, 1, 1000);
            let slots = bed.wifi.stations[0].backoff.expect("a backoff is drawn");
            if !seen.contains(&slots) {
                seen.push(slots);
            }
        }
        seen.sort_unstable();
        assert_eq!(seen, want, "ns2 backoff {ns2}");
    }
}

#[test]
fn a_lone_frame_goes_after_difs_or_its_backoff_then_data_ack_delivery() {
    // (case, backoff_when_idle, queued at)
    let cases = [
        // idle only since 0: it waits the rest of DIFS, no backoff
        ("idle since 0, queued at 0", false, 0.0),
        // idle longer than DIFS already: it goes at once
        ("idle since 0, queued at 1 ms", false, 1e-3),
        // ns-2's bugFix_timer_: DIFS and the backoff from the frame's arrival, idle or not
        ("backoff always, queued at 0", true, 0.0),
        ("backoff always, queued at 1 ms", true, 1e-3),
    ];
    let d = 10.0;
    for (case, always, at) in cases {
        let mut bed = Bed::new(WlanConfig { backoff_when_idle: always, ..wlan(&[(0.0, 0.0), (d, 0.0)]) });
        bed.run_until(at);
        assert!(matches!(bed.send(0, 1, 42, 1000), Outcome::Nothing), "{case}");
        let slots = bed.wifi.stations[0].backoff.expect("a backoff is set");
        let start = if always {
            assert!(slots > 0 && slots <= 31, "{case}: this seed draws {slots} slots, the test needs some");
            at + DIFS + slots as f64 * SLOT
        } else {
            assert_eq!(slots, 0, "{case}: no backoff on an idle medium");
            // DIFS after the medium turned idle (at 0), or at once if it has been idle that long
            at.max(DIFS)
        };
        bed.run_until(1.0);
        // data 8464 µs; the receiver has it one propagation delay later and ACKs after SIFS
        let data_in = start + DATA + p(d);
        let ack_out = data_in + SIFS + ACK;
        let expected = [
            (start + DATA, Seen::TxEnd(0, FrameKind::Data)),
            (data_in, Seen::RxEnd(1, FrameKind::Data, 0)),
            (data_in, Seen::Delivered { node: 1, from: 0, uid: 42 }),
            (ack_out, Seen::TxEnd(1, FrameKind::Ack)),
            (ack_out + p(d), Seen::RxEnd(0, FrameKind::Ack, 1)),
        ];
        assert_log(case, &bed.log, &expected);
        let (a, b) = (&bed.wifi.stations[0], &bed.wifi.stations[1]);
        // done: idle, with the post-backoff every exchange ends with drawn from cw_min
        assert_eq!(a.state, State::Idle, "{case}");
        assert!(a.queue.is_empty() && a.backoff.is_some_and(|s| s <= 31), "{case}");
        assert_eq!((a.cw, a.short_retries, a.long_retries), (31, 0, 0), "{case}");
        assert_eq!((a.stats.data, a.stats.rts, a.stats.retries, b.stats.acks), (1, 0, 0, 1), "{case}");
        assert_eq!(b.state, State::Idle, "{case}");
    }
}

#[test]
fn the_next_frame_waits_difs_and_the_backoff_drawn_after_the_ack() {
    let d = 10.0;
    let mut bed = Bed::new(wlan(&[(0.0, 0.0), (d, 0.0)]));
    let _ = bed.send(0, 1, 1, 1000);
    let _ = bed.send(0, 1, 2, 1000);
    // the first as a lone frame: its ACK is back at DIFS + DATA + SIFS + ACK + 2 p
    let ack_back = DIFS + DATA + SIFS + ACK + 2.0 * p(d);
    bed.run_until(ack_back + 1.0 * US);
    let a = &bed.wifi.stations[0];
    assert_eq!(a.state, State::Contend);
    let slots = a.backoff.expect("a fresh backoff after the exchange");
    assert!(slots > 0, "this seed draws {slots} slots, the test needs some");
    bed.run_until(1.0);
    let data = bed.times(Seen::TxEnd(0, FrameKind::Data));
    assert_eq!(data.len(), 2);
    // the medium idle from the ACK's end: DIFS, then the slots, then the frame
    let want = ack_back + DIFS + slots as f64 * SLOT + DATA;
    assert!(close(data[1], want), "second data frame ended at {}, want {want}", data[1]);
    let uids: Vec<u64> = bed.delivered().iter().map(|d| d.2).collect();
    assert_eq!(uids, [1, 2]);
}

#[test]
fn a_backoff_freezes_while_the_medium_is_busy_and_resumes_with_the_slots_left() {
    // A (0 m) and B (20 m) both send to C (10 m): A has 3 slots to count, B 10.
    let mut bed = Bed::new(wlan(&[(0.0, 0.0), (20.0, 0.0), (10.0, 0.0)]));
    bed.wifi.stations[0].backoff = Some(3);
    bed.wifi.stations[1].backoff = Some(10);
    let _ = bed.send(0, 2, 1, 1000);
    let _ = bed.send(1, 2, 2, 1000);
    // both count from DIFS (idle since 0); A goes after 3 slots, at 110 µs, and B hears it
    // 20 m later, having counted 3 of its 10 slots
    let a_start = DIFS + 3.0 * SLOT;
    bed.run_until(200.0 * US);
    let b = &bed.wifi.stations[1];
    assert_eq!(b.backoff, Some(7), "B keeps the slots it has left");
    assert!(!b.access.pending(), "B's countdown is stopped");
    bed.run_until(1.0);
    // B hears A's data and C's ACK; the medium is idle again at the ACK's end at B:
    // A's start + DATA + p(10) + SIFS + ACK + p(10). Then DIFS and the 7 slots left.
    let idle = a_start + DATA + p(10.0) + SIFS + ACK + p(10.0);
    let b_data = bed.times(Seen::TxEnd(1, FrameKind::Data));
    let want = idle + DIFS + 7.0 * SLOT + DATA;
    assert!(close(b_data[0], want), "B's data ended at {}, want {want} (10 slots again: +60 µs)", b_data[0]);
    assert_eq!(bed.delivered().len(), 2);
    assert_eq!(bed.wifi.stations[2].stats.collisions, 0);
}

#[test]
fn a_station_that_hears_a_frame_for_another_defers_until_its_nav_ends() {
    // A (0 m) sends to C (200 m); a third station T hears only A (at -200 m) or only C (at
    // 400 m), and senses nothing farther than it receives, so only the NAV keeps it off the
    // medium while what it cannot hear goes on. T has 2 slots of backoff left and its frame
    // queued once the exchange has begun.
    let q = p(200.0); // every hop here is 200 m
    let rts_at_a = DIFS + RTS; // A's RTS ends (the medium idle since 0)
    let cts_at_a = rts_at_a + q + SIFS + CTS + q;
    let rts_data_end = cts_at_a + SIFS + DATA; // A's data after the CTS
                                               // (case, rts threshold, T's place, T sends to, T queues at, T's frame, its end)
    let cases = [
        // T hears A's RTS (duration: the CTS, the data and the ACK with their SIFS) and then
        // A's data (duration SIFS + ACK), which moves the NAV's end by the CTS's round trip
        (
            "hears the RTS",
            0,
            -200.0,
            0,
            500.0 * US,
            FrameKind::Rts,
            rts_data_end + q + SIFS + ACK + DIFS + 2.0 * SLOT + RTS,
        ),
        // T hears C's CTS (duration SIFS + data + SIFS + ACK) and, not the data, but C's ACK,
        // which ends 2 q after the NAV (ns-2's durations leave out propagation)
        (
            "hears the CTS",
            0,
            400.0,
            1,
            800.0 * US,
            FrameKind::Rts,
            rts_data_end + q + SIFS + ACK + q + DIFS + 2.0 * SLOT + RTS,
        ),
        // no RTS: T hears A's data (duration SIFS + ACK) but not C's ACK
        (
            "hears the data",
            3000,
            -200.0,
            0,
            8600.0 * US,
            FrameKind::Data,
            DIFS + DATA + q + SIFS + ACK + DIFS + 2.0 * SLOT + DATA,
        ),
    ];
    for (case, threshold, x, to, queue_at, kind, want) in cases {
        let cfg = hidden(wlan(&[(0.0, 0.0), (200.0, 0.0), (x, 0.0)]));
        let mut bed = Bed::new(WlanConfig { rts_threshold: threshold, ..cfg });
        let _ = bed.send(0, 1, 1, 1000);
        bed.run_until(queue_at);
        assert!(bed.wifi.stations[2].nav_until > queue_at, "{case}: T has set its NAV");
        bed.wifi.stations[2].backoff = Some(2);
        let _ = bed.send(2, to, 2, 1000);
        bed.run_until(1.0);
        let t = bed.times(Seen::TxEnd(2, kind));
        assert!(close(t[0], want), "{case}: T's first frame ended at {}, want {want}", t[0]);
        // and A's exchange was left alone
        assert_eq!(bed.delivered()[0], (1, 0, 1), "{case}");
        assert_eq!(bed.wifi.stations[0].stats.retries, 0, "{case}");
    }
}

#[test]
fn failed_exchanges_double_the_window_up_to_cw_max_and_end_in_a_drop_at_the_retry_limit() {
    struct Case {
        name: &'static str,
        rts_threshold: u32,
        cw_max: u32,
        /// The receiver's distance (beyond 550 m it senses nothing of A) and a loss model there.
        d: f64,
        loss: Option<Loss>,
        /// A's frames: RTS, data; its retries; the windows it had, from cw_min back to cw_min.
        rts: u64,
        data: u64,
        retries: u64,
        cws: Vec<u32>,
    }
    let cases = [
        // a frame not above the RTS threshold counts short retries: 7 sent, the 7th failure
        // drops it (ns-2's ShortRetryLimit_); the window 31 -> 63 -> ... -> 1023, held there
        Case {
            name: "out of range, no RTS",
            rts_threshold: 3000,
            cw_max: 1023,
            d: 1000.0,
            loss: None,
            rts: 0,
            data: 7,
            retries: 6,
            cws: vec![31, 63, 127, 255, 511, 1023, 31],
        },
        Case {
            name: "out of range, cw_max 100",
            rts_threshold: 3000,
            cw_max: 100,
            d: 1000.0,
            loss: None,
            rts: 0,
            data: 7,
            retries: 6,
            cws: vec![31, 63, 100, 31],
        },
        // an RTS without a CTS counts short retries too
        Case {
            name: "out of range, RTS",
            rts_threshold: 0,
            cw_max: 1023,
            d: 1000.0,
            loss: None,
            rts: 7,
            data: 0,
            retries: 6,
            cws: vec![31, 63, 127, 255, 511, 1023, 31],
        },
        Case {
            name: "data corrupted, no RTS",
            rts_threshold: 3000,
            cw_max: 1023,
            d: 10.0,
            loss: Some(loss(LossModel::Uniform { rate: 1.0 }, vec![])),
            rts: 0,
            data: 7,
            retries: 6,
            cws: vec![31, 63, 127, 255, 511, 1023, 31],
        },
        // RTS/CTS go through (the model picks flow 0's data only), the data never does: a frame
        // above the threshold counts long retries, 4 sent (ns-2's LongRetryLimit_), each
        // after its own RTS
        Case {
            name: "data corrupted, RTS",
            rts_threshold: 0,
            cw_max: 1023,
            d: 10.0,
            loss: Some(loss(LossModel::Uniform { rate: 1.0 }, vec![0])),
            rts: 4,
            data: 4,
            retries: 3,
            cws: vec![31, 63, 127, 255, 31],
        },
    ];
    for c in cases {
        let cfg = WlanConfig { rts_threshold: c.rts_threshold, cw_max: c.cw_max, ..wlan(&[(0.0, 0.0), (c.d, 0.0)]) };
        let mut bed = Bed::new(cfg);
        bed.wifi.stations[1].losses.extend(c.loss);
        let _ = bed.send(0, 1, 9, 1000);
        bed.run_until(10.0);
        let name = c.name;
        let a = &bed.wifi.stations[0];
        assert_eq!((a.stats.rts, a.stats.data, a.stats.retries), (c.rts, c.data, c.retries), "{name}");
        assert_eq!((a.stats.retry_drops, a.stats.queue_drops), (1, 0), "{name}");
        assert_eq!(bed.cws, c.cws, "{name}");
        assert!(a.queue.is_empty() && a.state == State::Idle, "{name}");
        assert_eq!((a.short_retries, a.long_retries), (0, 0), "{name}: counts reset for the next packet");
        assert!(bed.delivered().is_empty(), "{name}");
        // given up when the last frame's CTS or ACK timeout runs out
        let sent: Vec<f64> = bed.log.iter().filter(|(_, s)| matches!(s, Seen::TxEnd(0, _))).map(|e| e.0).collect();
        let dropped = bed.times(Seen::Dropped(9));
        assert_eq!(dropped.len(), 1, "{name}");
        assert!(close(dropped[0], sent[sent.len() - 1] + TIMEOUT), "{name}: dropped at {}", dropped[0]);
        // no retransmission before the timeout of the frame before
        let mut attempts: Vec<f64> = Vec::new();
        for (t, s) in &bed.log {
            if let Seen::TxEnd(0, kind) = s {
                if *kind == FrameKind::Rts || c.rts == 0 {
                    attempts.push(*t);
                }
            }
        }
        let first_air = if c.rts > 0 { RTS } else { DATA };
        for w in attempts.windows(2) {
            assert!(w[1] - first_air >= w[0] + TIMEOUT - 1e-12, "{name}: attempt at {} too early", w[1]);
        }
    }
}

#[test]
fn a_full_interface_queue_refuses_the_packet() {
    let mut bed = Bed::new(WlanConfig { queue_limit: 2, ..wlan(&[(0.0, 0.0), (10.0, 0.0)]) });
    // the packet being sent stays at the head of the queue until its ACK
    assert!(matches!(bed.send(0, 1, 1, 1000), Outcome::Nothing));
    assert!(matches!(bed.send(0, 1, 2, 1000), Outcome::Nothing));
    let Outcome::Dropped(id) = bed.send(0, 1, 3, 1000) else { panic!("a third packet finds the queue full") };
    assert_eq!(bed.ctx.pkts.release(id).uid, 3);
    let a = &bed.wifi.stations[0];
    assert_eq!((a.stats.queue_drops, a.stats.retry_drops), (1, 0));
    bed.run_until(1.0);
    let uids: Vec<u64> = bed.delivered().iter().map(|d| d.2).collect();
    assert_eq!(uids, [1, 2]);
}

#[test]
fn rts_cts_precede_frames_longer_than_the_threshold_only() {
    let d = 10.0;
    // a lone 1000-byte packet, a 1034-byte frame, from an idle medium at DIFS. With RTS/CTS:
    // RTS, SIFS, CTS, SIFS, data, each hop one propagation delay.
    let with = DIFS + RTS + SIFS + CTS + SIFS + DATA + 3.0 * p(d);
    let without = DIFS + DATA + p(d);
    // (threshold, RTS expected, delivery)
    let cases = [(0, true, with), (1033, true, with), (1034, false, without), (3000, false, without)];
    for (threshold, rts, at) in cases {
        let mut bed = Bed::new(WlanConfig { rts_threshold: threshold, ..wlan(&[(0.0, 0.0), (d, 0.0)]) });
        let _ = bed.send(0, 1, 5, 1000);
        bed.run_until(1.0);
        let (a, b) = (&bed.wifi.stations[0], &bed.wifi.stations[1]);
        assert_eq!((a.stats.rts, b.stats.cts), (u64::from(rts), u64::from(rts)), "threshold {threshold}");
        assert_eq!((a.stats.data, b.stats.acks), (1, 1), "threshold {threshold}");
        let t = bed.times(Seen::Delivered { node: 1, from: 0, uid: 5 });
        assert!(t.len() == 1 && close(t[0], at), "threshold {threshold}: delivered at {t:?}, want {at}");
    }
}

#[test]
fn of_two_overlapping_frames_the_first_survives_only_if_capture_ratio_times_stronger() {
    // C at 0 m; F at -f m sends first (from DIFS), S at +s m at 1 ms, during F's frame: hidden
    // from each other (more than 250 m apart), both in C's range. Beyond 86 m the two-ray
    // ground model falls as d^-4: 100 m against 200 m is 16 times stronger, against 160 m 6.6.
    // (case, f, s, capture ratio, F delivered, collisions at C)
    let cases = [
        ("first 16x stronger: captured", 100.0, 200.0, 10.0, true, 0),
        ("first 6.6x stronger: collision", 100.0, 160.0, 10.0, false, 1),
        ("first 16x stronger, capture ratio 20: collision", 100.0, 200.0, 20.0, false, 1),
        // ns-2 keeps the frame it locked on: a stronger later one is no rescue
        ("second 16x stronger: both lost", 200.0, 100.0, 10.0, false, 1),
    ];
    for (case, f, s, ratio, kept, collisions) in cases {
        let mut cfg = hidden(wlan(&[(0.0, 0.0), (-f, 0.0), (s, 0.0)]));
        cfg.radio.capture_ratio = ratio;
        let mut bed = Bed::new(cfg);
        let _ = bed.send(1, 0, 1, 1000);
        bed.run_until(1e-3);
        let _ = bed.send(2, 0, 2, 1000);
        // S's frame ends at 1 ms + DATA; stop before anyone retries
        bed.run_until(1e-3 + DATA + 10.0 * US);
        let c = &bed.wifi.stations[0];
        assert_eq!(c.stats.collisions, collisions, "{case}");
        let want: Vec<(u32, u32, u64)> = if kept { vec![(0, 1, 1)] } else { vec![] };
        assert_eq!(bed.delivered(), want, "{case}");
        let f_in = bed.times(Seen::Delivered { node: 0, from: 1, uid: 1 });
        if kept {
            assert!(close(f_in[0], DIFS + DATA + p(f)), "{case}: at {f_in:?}");
        }
    }
}

#[test]
fn a_retransmission_whose_ack_was_lost_is_not_delivered_twice() {
    // (case, loss at the sender A (frames for A: C's ACKs), A's data frames, C's ACKs,
    //  A's retries, retry drops)
    let cases = [
        // the first ACK is lost: A sends again after its timeout, C ACKs the duplicate and
        // does not hand it up again
        ("first ACK lost", LossModel::List { packets: vec![0] }, 2, 2, 1, 0),
        // every ACK lost: A gives up after 7 frames (short retries), but C had the packet from
        // the first, so the MAC does not hand it back as lost
        ("every ACK lost", LossModel::Uniform { rate: 1.0 }, 7, 7, 6, 1),
    ];
    for (case, model, data, acks, retries, drops) in cases {
        let mut bed = Bed::new(wlan(&[(0.0, 0.0), (10.0, 0.0)]));
        bed.wifi.stations[0].losses.push(loss(model, vec![]));
        let _ = bed.send(0, 1, 3, 1000);
        bed.run_until(10.0);
        let (a, c) = (&bed.wifi.stations[0], &bed.wifi.stations[1]);
        assert_eq!((a.stats.data, c.stats.acks), (data, acks), "{case}");
        assert_eq!((a.stats.retries, a.stats.retry_drops), (retries, drops), "{case}");
        assert_eq!(bed.delivered(), [(1, 0, 3)], "{case}: delivered once");
        assert!(bed.times(Seen::Dropped(3)).is_empty(), "{case}: not lost");
        assert!(a.queue.is_empty() && a.state == State::Idle, "{case}");
    }
}

/// The ns2 profile's WLAN: ns-2's backoff drawn before every frame, data without RTS/CTS
/// unless `rts_threshold` says otherwise.
fn ns2(positions: &[(f64, f64)], rts_threshold: u32) -> WlanConfig {
    WlanConfig { rts_threshold, ns2_backoff: true, backoff_when_idle: true, ..wlan(positions) }
}

#[test]
fn ns2_weighs_a_frame_with_its_plcp_bytes_and_sends_an_rts_at_the_threshold() {
    // mac-802_11.cc: sendRTS sends one unless `size < RTSThreshold_`, the size being the IP
    // packet, 34 bytes of MAC header and FCS and 24 of PLCP (getHdrLen11): 1058 for 1000 bytes;
    // RetransmitDATA and recvACK count the frame long only above the threshold
    let at = [(0.0, 0.0), (10.0, 0.0)];
    for (threshold, rts, long) in [(0, true, true), (1057, true, true), (1058, true, false), (1059, false, false)] {
        let cfg = ns2(&at, threshold);
        assert_eq!((cfg.rts_before(1000), cfg.long_frame(1000)), (rts, long), "ns2, threshold {threshold}");
        let mut bed = Bed::new(cfg);
        let _ = bed.send(0, 1, 5, 1000);
        bed.run_until(1.0);
        assert_eq!(bed.wifi.stations[0].stats.rts, u64::from(rts), "ns2, threshold {threshold}");
        assert_eq!(bed.delivered(), [(1, 0, 5)], "ns2, threshold {threshold}");
    }
    // the standard profile: an RTS before MAC frames (1034 bytes) longer than the threshold
    for (threshold, rts) in [(1033, true), (1034, false)] {
        let cfg = WlanConfig { rts_threshold: threshold, ..wlan(&at) };
        assert_eq!((cfg.rts_before(1000), cfg.long_frame(1000)), (rts, rts), "standard, threshold {threshold}");
    }
}

#[test]
fn ns2_times_the_ack_of_eifs_at_the_plcp_rate_whatever_the_basic_rate() {
    // mac-802_11.h getEIFS: SIFS + DIFS + 8 * (24 + 14) bytes / PLCPDataRate_ (1 Mb/s)
    // = 10 + 50 + 304 µs, with basicRate_ 1 or 2 Mb/s alike; the standard profile sends that
    // ACK at the basic rate: 10 + 50 + 192 + 14 * 8 / 2 = 308 µs at 2 Mb/s
    let at = [(0.0, 0.0), (10.0, 0.0)];
    for basic_rate in [1e6, 2e6] {
        let mut cfg = ns2(&at, 0);
        cfg.timing.basic_rate = basic_rate;
        assert!((cfg.eifs() - 364e-6).abs() < 1e-12, "ns2, basic rate {basic_rate}: {}", cfg.eifs());
    }
    let mut standard = wlan(&at);
    standard.timing.basic_rate = 2e6;
    assert!((standard.eifs() - 308e-6).abs() < 1e-12, "standard: {}", standard.eifs());
}

#[test]
fn ns2_loss_models_judge_every_frame_the_radio_senses_as_it_begins() {
    // A sends one packet to B, then one to C; C's loss model picks the first frame it counts.
    // ns-2's IncomingErrProc counts every frame C senses: the first is A's data to B (C only
    // overhears it), so A's data to C goes through at once. The standard profile counts the
    // frames addressed to C: the first is A's data to C, which A sends again.
    let at = [(0.0, 0.0), (10.0, 0.0), (0.0, 10.0)];
    for (name, cfg, retries) in
        [("ns2", ns2(&at, 3000), 0), ("standard", WlanConfig { rts_threshold: 3000, ..wlan(&at) }, 1)]
    {
        let mut bed = Bed::new(cfg);
        bed.wifi.stations[2].losses.push(loss(LossModel::List { packets: vec![0] }, vec![]));
        let _ = bed.send(0, 1, 1, 1000);
        let _ = bed.send(0, 2, 2, 1000);
        bed.run_until(1.0);
        assert_eq!(bed.wifi.stations[0].stats.retries, retries, "{name}");
        let mut got = bed.delivered();
        got.sort();
        assert_eq!(got, [(1, 0, 1), (2, 0, 2)], "{name}");
    }
}

#[test]
fn an_outgoing_loss_model_corrupts_a_frame_for_every_receiver() {
    // A's outgoing model picks the first frame A sends, its data to B: B does not take it, and
    // A sends it again. B's incoming model still judges (counts) it, so the second frame it
    // judges, the one it picks, is A's first retry: a second retry gets through (ns-2's
    // OutgoingErrProc marks the frame errored between the MAC and the PHY; the receivers'
    // IncomingErrProc judges every frame they sense, errored or not)
    let at = [(0.0, 0.0), (10.0, 0.0), (0.0, 10.0)];
    for (name, cfg) in [("ns2", ns2(&at, 3000)), ("standard", WlanConfig { rts_threshold: 3000, ..wlan(&at) })] {
        let mut bed = Bed::new(cfg);
        bed.wifi.stations[0].out_losses.push(loss(LossModel::List { packets: vec![0] }, vec![]));
        bed.wifi.stations[1].losses.push(loss(LossModel::List { packets: vec![1] }, vec![]));
        let _ = bed.send(0, 1, 1, 1000);
        bed.run_until(1.0);
        assert_eq!(bed.wifi.stations[0].stats.retries, 2, "{name}");
        assert_eq!(bed.delivered(), [(1, 0, 1)], "{name}: delivered once, the third time");
    }
}

#[test]
fn ns2_reset_drops_the_queue_behind_the_macs_packet() {
    // `$node reset`: PriQueue::Terminate drops what waits in the interface queue, head first;
    // the packet the MAC has stays, and goes
    let mut bed = Bed::new(ns2(&[(0.0, 0.0), (10.0, 0.0)], 3000));
    for uid in 1..=3 {
        let _ = bed.send(0, 1, uid, 1000);
    }
    let dropped = bed.wifi.reset(&mut bed.ctx, RadioId(0));
    let uids: Vec<u64> = dropped.iter().map(|&id| bed.ctx.pkts.get(id).uid).collect();
    assert_eq!(uids, [2, 3]);
    bed.run_until(1.0);
    assert_eq!(bed.delivered(), [(1, 0, 1)]);
}

#[test]
fn ns2_a_cts_sender_waits_for_the_data_and_refuses_rtss_meanwhile() {
    // A's loss model takes B's first CTS. ns-2's B then waits for the data (MAC_CTS) until
    // check_pktCTRL's timeout: CTS 304 + 2 + its duration 8788 + 2 - SIFS 10 - ACK 304 =
    // 8782 µs from the CTS's start (a 1000-byte packet: RTS duration 10 + 304 + 10 + 8464 +
    // 10 + 304 = 9102 µs, less SIFS and the CTS). A retries its RTS after a 670 µs timeout and
    // at most 63 slots, well within B's wait, and B discards it (recvRTS, DROP_MAC_BUSY) until
    // the wait ends: A sends more than two RTSs, B two CTSs, and the packet arrives.
    let at = [(0.0, 0.0), (10.0, 0.0)];
    let mut bed = Bed::new(ns2(&at, 0));
    bed.wifi.stations[0].losses.push(loss(LossModel::List { packets: vec![0] }, vec![]));
    let _ = bed.send(0, 1, 3, 1000);
    bed.run_until(1.0);
    let (a, b) = (&bed.wifi.stations[0].stats, &bed.wifi.stations[1].stats);
    assert!(a.rts > 2, "A sent {} RTSs", a.rts);
    assert_eq!(b.cts, 2);
    assert_eq!(bed.delivered(), [(1, 0, 3)]);
    // B's second CTS went out only once its wait for the first one's data was over
    let cts_ends: Vec<f64> =
        bed.log.iter().filter(|(_, s)| *s == Seen::TxEnd(1, FrameKind::Cts)).map(|e| e.0).collect();
    let first_cts_start = cts_ends[0] - 304e-6;
    assert!(cts_ends[1] - 304e-6 > first_cts_start + 8782e-6, "second CTS at {}", cts_ends[1]);
}

#[test]
fn ns2_resets_the_short_retry_count_when_a_cts_comes() {
    // B's loss model takes A's first six RTSs, then the data after the seventh (so A's ACK
    // timeout counts one long retry), then the RTS after it. ns-2's recvCTS set the short count
    // back to 0 at the seventh RTS's CTS, so the ninth RTS goes and the packet arrives; the
    // standard profile keeps counting and gives the packet up at the eighth failed RTS
    // (ShortRetryLimit_ 7).
    let at = [(0.0, 0.0), (10.0, 0.0)];
    let standard = WlanConfig { rts_threshold: 0, ..wlan(&at) };
    for (name, cfg, drops, delivered) in [("ns2", ns2(&at, 0), 0, 1), ("standard", standard, 1, 0)] {
        let mut bed = Bed::new(cfg);
        bed.wifi.stations[1].losses.push(loss(LossModel::List { packets: vec![0, 1, 2, 3, 4, 5, 7, 8] }, vec![]));
        let _ = bed.send(0, 1, 4, 1000);
        bed.run_until(2.0);
        assert_eq!(bed.wifi.stations[0].stats.retry_drops, drops, "{name}");
        assert_eq!(bed.delivered().len(), delivered, "{name}");
    }
}

#[test]
fn ns2_retries_difs_and_a_backoff_after_the_send_timer_and_starts_none_after_a_drop() {
    // A's receiver is out of range: no ACK. ns-2's MAC stays in MAC_SEND until its send timer
    // fires (frame + 2 µs + SIFS + ACK + 2 µs from the frame's start); RetransmitDATA then
    // starts the backoff paused and tx_resume resumes it with DIFS: the retry goes DIFS + whole
    // slots after the timer, not after the frame's end (318 µs earlier, not a whole slot).
    let mut bed = Bed::new(ns2(&[(0.0, 0.0), (1000.0, 0.0)], 3000));
    let _ = bed.send(0, 1, 9, 1000);
    bed.run_until(10.0);
    let ends = bed.times(Seen::TxEnd(0, FrameKind::Data));
    assert_eq!(ends.len(), 7, "ShortRetryLimit_ 7: seven frames, then the drop");
    for pair in ends.windows(2) {
        let timer = pair[0] + 2.0 * US + SIFS + ACK + 2.0 * US;
        let slots = (pair[1] - DATA - timer - DIFS) / SLOT;
        assert!(slots > -1e-6 && (slots - slots.round()).abs() < 1e-6, "retry {slots} slots after DIFS past the timer");
    }
    assert_eq!(bed.times(Seen::Dropped(9)).len(), 1);
    // given up with nothing queued: no backoff drawn (RetransmitDATA resets the window only)
    let a = &bed.wifi.stations[0];
    assert_eq!((a.state, a.backoff, a.cw), (State::Idle, None, 31));
}

#[test]
fn ns2_draws_no_backoff_for_a_packet_that_comes_while_an_ack_waits_its_sifs() {
    // mac-802_11.cc, send(): on an idle medium it starts the backoff only if its defer timer is
    // not running, and that timer runs the SIFS before the ACK; tx_resume draws the backoff once
    // the ACK has gone, so another station's draw in between comes first (found by the WLAN
    // fuzz: conformance/fuzz-cases/wifi_send_during_ack_sifs.json)
    let d = 10.0;
    let mut bed = Bed::new(ns2(&[(0.0, 0.0), (d, 0.0)], 3000));
    let _ = bed.send(1, 0, 1, 1000);
    bed.run_until(0.5);
    let data_in = bed.times(Seen::Delivered { node: 0, from: 1, uid: 1 })[0];
    bed.log.clear();
    let mut bed2 = Bed::new(ns2(&[(0.0, 0.0), (d, 0.0)], 3000));
    let _ = bed2.send(1, 0, 1, 1000);
    bed2.run_until(data_in + 5.0 * US);
    assert!(matches!(bed2.send(0, 1, 2, 1000), Outcome::Nothing));
    assert_eq!(bed2.wifi.stations[0].backoff, None, "nothing drawn during the SIFS");
    bed2.run_until(data_in + SIFS + ACK + 1.0 * US);
    assert!(bed2.wifi.stations[0].backoff.is_some(), "drawn as the ACK ends");
    bed2.run_until(1.0);
    let ack_end = data_in + SIFS + ACK;
    let sent = bed2.times(Seen::TxEnd(0, FrameKind::Data))[0] - DATA;
    let slots = (sent - ack_end - DIFS) / SLOT;
    assert!(slots > -1e-6 && (slots - slots.round()).abs() < 1e-6, "{slots} slots after DIFS past the ACK");
}

#[test]
fn ns2_draws_the_backoff_of_a_packet_that_came_before_its_cts_when_mac_cts_ends() {
    // send() during the SIFS before a CTS starts no backoff (the defer timer runs); after the
    // CTS the MAC is in MAC_CTS, and tx_resume draws only when that ends: as its ACK ends if
    // the data comes (recvDATA's tx_resume has the ACK to send), at the CTS's timeout if not.
    // Another station's draws in between come first (found by the WLAN fuzz:
    // conformance/fuzz-cases/wifi_error_model_11mb_rts_early.json, an error model's draw).
    let d = 10.0;
    for data_lost in [false, true] {
        let bed_with = || {
            let mut bed = Bed::new(ns2(&[(0.0, 0.0), (d, 0.0)], 0));
            if data_lost {
                // B (radio 0) senses A's RTS (frame 0), then the data (frame 1)
                bed.wifi.stations[0].losses.push(loss(LossModel::List { packets: vec![1] }, vec![]));
            }
            let _ = bed.send(1, 0, 1, 1000);
            bed
        };
        let mut bed = bed_with();
        let slots = bed.wifi.stations[1].backoff.expect("drawn") as f64;
        let rts_in = DIFS + slots * SLOT + RTS + p(d);
        bed.run_until(rts_in + 5.0 * US);
        assert!(matches!(bed.send(0, 1, 2, 1000), Outcome::Nothing));
        bed.run_until(rts_in + SIFS + CTS + 1.0 * US);
        assert_eq!(bed.wifi.stations[0].stats.cts, 1);
        assert_eq!(bed.wifi.stations[0].backoff, None, "nothing drawn as the CTS ends (lost data: {data_lost})");
        let ends = if data_lost {
            bed.wifi.stations[0].answer_by
        } else {
            let mut full = bed_with();
            full.run_until(rts_in + 5.0 * US);
            let _ = full.send(0, 1, 2, 1000);
            full.run_until(0.5);
            full.times(Seen::TxEnd(0, FrameKind::Ack))[0]
        };
        bed.run_until(ends - 1.0 * US);
        assert_eq!(bed.wifi.stations[0].backoff, None, "nothing drawn in MAC_CTS (lost data: {data_lost})");
        bed.run_until(ends + 1.0 * US);
        assert!(bed.wifi.stations[0].backoff.is_some(), "drawn as MAC_CTS ends (lost data: {data_lost})");
    }
}

#[test]
fn ns2_hands_a_frame_to_equidistant_radios_in_its_channels_order() {
    // WirelessChannel::getAffectedNodes: the nodes sorted by x, from the sender's place down,
    // then up; radios 5 m away both, radio 2 at smaller x than the sender, radio 1 at larger, so
    // radio 2 takes the frame first though it was made after radio 1 (found by the WLAN fuzz:
    // conformance/fuzz-cases/wifi_channel_order_ties.json)
    let at = [(5.0, 0.0), (9.0, 3.0), (1.0, 3.0)];
    for (ns2_profile, first) in [(true, 2), (false, 1)] {
        let cfg = if ns2_profile { ns2(&at, 3000) } else { wlan(&at) };
        let mut bed = Bed::new(cfg);
        let _ = bed.send(0, 1, 1, 1000);
        bed.run_until(0.5);
        let ends: Vec<u32> = bed
            .log
            .iter()
            .filter_map(|(_, s)| match s {
                Seen::RxEnd(r, FrameKind::Data, 0) => Some(*r),
                _ => None,
            })
            .collect();
        assert_eq!(ends, [first, 3 - first], "ns2 profile {ns2_profile}");
    }
}

#[test]
fn ns2_answers_an_rts_if_the_medium_is_idle_as_the_cts_goes() {
    // recvRTS ignores the NAV; check_pktCTRL, a SIFS later, sends the CTS only on an idle medium
    // (found by the WLAN fuzz: conformance/fuzz-cases/wifi_cts_after_sifs.json). B's NAV ends
    // 5 µs after A's RTS has arrived: a CTS; 15 µs after: none.
    let d = 10.0;
    for (nav_after_rts, cts) in [(5.0, 1), (15.0, 0)] {
        let mut bed = Bed::new(ns2(&[(0.0, 0.0), (d, 0.0)], 0));
        let _ = bed.send(0, 1, 1, 1000);
        let slots = bed.wifi.stations[0].backoff.expect("drawn") as f64;
        let rts_in = DIFS + slots * SLOT + RTS + p(d);
        bed.wifi.stations[1].nav_until = rts_in + nav_after_rts * US;
        bed.run_until(rts_in + SIFS + 1.0 * US);
        assert_eq!(bed.wifi.stations[1].stats.cts, cts, "NAV {nav_after_rts} µs past the RTS");
    }
}

/// An ns2-profile WLAN in infrastructure mode: `aps` are access points, `scans` the stations
/// that scan passively from time 0; `BeaconInterval_` 0.1 s.
fn infra(positions: &[(f64, f64)], aps: &[usize], passive: &[usize]) -> WlanConfig {
    let scans = passive.iter().map(|&node| config::Scan { node, active: false, at: 0.0 }).collect();
    let infrastructure = Some(config::Infrastructure { access_points: aps.to_vec(), scans, beacon_interval: 0.1 });
    WlanConfig { infrastructure, ..ns2(positions, 3000) }
}

/// The frames radio `r` sent, in order.
fn sent(bed: &Bed, r: u32) -> Vec<FrameKind> {
    bed.log.iter().filter_map(|(_, s)| if let Seen::TxEnd(x, k) = s { (*x == r).then_some(*k) } else { None }).collect()
}

#[test]
fn ns2_a_passive_station_authenticates_then_associates_with_the_access_point_it_heard() {
    // mac-802_11.cc: the access point beacons `Random::random() % cw_` slots after `$mac ap`,
    // then every BeaconInterval_; the passive station, ChannelTime_ (0.12 s) later, sends an
    // authentication request to the strongest access point heard (passive_scan), which answers
    // (recvAUTHENTICATE, its reply ACKed); SIFS + ACK + MaxChannelTime_ after the answer the
    // probe timer has the station ask to associate (checkAssocAuthStatus); the access point
    // answers, the station ACKs and is associated, the access point counts it a client.
    let mut bed = Bed::new(infra(&[(0.0, 0.0), (1.0, 0.0)], &[0], &[1]));
    bed.wifi.draw_beacon_starts(&mut Ns2Rng::seeded(1));
    let first_beacon = bed.wifi.stations[0].infra.as_ref().expect("an access point").first_beacon;
    assert!((first_beacon / SLOT).fract().abs() < 1e-9 && first_beacon < 31.0 * SLOT, "{first_beacon}");
    bed.wifi.start_infrastructure(&mut bed.ctx);
    bed.run_until(0.2);
    let auth = FrameKind::Mgmt(Mgmt::Auth);
    assert_eq!(sent(&bed, 1), [auth, FrameKind::Ack, FrameKind::Mgmt(Mgmt::AssocReq), FrameKind::Ack]);
    let ap = sent(&bed, 0);
    assert_eq!(
        ap.iter().filter(|&&k| k != FrameKind::Mgmt(Mgmt::Beacon)).copied().collect::<Vec<_>>(),
        [auth, FrameKind::Mgmt(Mgmt::AssocRep)]
    );
    // the request goes DIFS and whole slots after ChannelTime_ (an idle medium: a backoff
    // drawn at once); AUTH is 24 + 34 bytes, 192 + 272 = 464 µs at 1 Mb/s
    let request_end = bed.times(Seen::TxEnd(1, auth))[0];
    let slots = (request_end - 464.0 * US - 0.12 - DIFS) / SLOT;
    assert!(slots > -1e-6 && (slots - slots.round()).abs() < 1e-6, "{slots} slots");
    // the association request: DIFS and whole slots after the probe timer
    let answer_in = bed.times(Seen::RxEnd(1, auth, 0))[0];
    let timer = answer_in + SIFS + ACK + 0.011;
    let acrq_end = bed.times(Seen::TxEnd(1, FrameKind::Mgmt(Mgmt::AssocReq)))[0];
    let slots = (acrq_end - 416.0 * US - timer - DIFS) / SLOT; // ACRQ: 192 + 28 * 8 µs
    assert!(slots > -1e-6 && (slots - slots.round()).abs() < 1e-6, "{slots} slots");
    let sta = bed.wifi.stations[1].infra.as_ref().expect("a station");
    assert_eq!((sta.authenticated, sta.associated, sta.bss), (true, true, Some(RadioId(0))));
    assert_eq!(bed.wifi.stations[0].infra.as_ref().expect("an access point").clients, [RadioId(1)]);
}

#[test]
fn ns2_an_access_point_relays_to_its_clients_and_broadcasts_for_the_other_bss() {
    // hdr_dst and recvDATA: station 2 (of access point 3) sends to station 1 (of access point
    // 0): to its access point, unicast; 3 does not have 1 as a client, so it broadcasts the
    // frame to and from the distribution system; station 1 ignores that broadcast, access
    // point 0, whose client 1 is, relays it to 1, unicast. Each relay after the link layer's
    // 25 µs.
    let mut cfg = infra(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (3.0, 0.0)], &[0, 3], &[]);
    cfg.ll_delay = 25e-6;
    let mut bed = Bed::new(cfg);
    for (sta, ap) in [(1, 0), (2, 3)] {
        let s = bed.wifi.stations[sta].infra.as_mut().expect("a station");
        (s.bss, s.authenticated, s.associated) = (Some(RadioId(ap)), true, true);
        bed.wifi.stations[ap as usize].infra.as_mut().expect("an access point").clients.push(RadioId(sta as u32));
    }
    let _ = bed.send(2, 1, 7, 500);
    bed.run_until(0.5);
    assert_eq!(sent(&bed, 2), [FrameKind::Data]);
    assert_eq!(sent(&bed, 3), [FrameKind::Ack, FrameKind::Data]);
    assert_eq!(sent(&bed, 0), [FrameKind::Data]);
    assert_eq!(sent(&bed, 1), [FrameKind::Ack]);
    assert_eq!(bed.delivered(), [(1, 0, 7)], "once, from access point 0");
    // access point 3's broadcast goes at the basic rate: all 1 Mb/s here, 192 + 534 * 8 µs
    let ap3 = bed.times(Seen::TxEnd(3, FrameKind::Data))[0];
    let ap0_in = bed.times(Seen::RxEnd(0, FrameKind::Data, 3))[0];
    assert!(close(ap0_in - ap3, p(3.0)));
}

#[test]
fn ns2_a_station_whose_data_fails_three_times_hands_off_to_an_access_point_it_probes() {
    // RetransmitDATA: at a station of a BSS, a data frame's third failure (no ACK: access point
    // 0 is 1 km away) starts an active scan instead of a retry: a probe request, its backoff
    // drawn as the send timer fires (DIFS and whole slots after it), the window not widened;
    // access point 2 answers; the data frame, still addressed to 0, is tried while the station
    // authenticates and associates with 2, then to 2 (check_pktTx writes the new `bss_id_` into
    // it), which acknowledges it and relays it towards access point 0, a broadcast to the
    // distribution system, where it ends: 0 is no one's client (recv_timer, untraced). The
    // station itself never gives it up.
    let mut bed = Bed::new(infra(&[(0.0, 0.0), (1000.0, 0.0), (1001.0, 0.0)], &[0, 2], &[]));
    let s = bed.wifi.stations[1].infra.as_mut().expect("a station");
    (s.bss, s.authenticated, s.associated) = (Some(RadioId(0)), true, true);
    bed.wifi.stations[0].infra.as_mut().expect("an access point").clients.push(RadioId(1));
    let _ = bed.send(1, 0, 3, 500);
    bed.run_until(0.5);
    let frames = sent(&bed, 1);
    assert_eq!(frames[..4], [FrameKind::Data, FrameKind::Data, FrameKind::Data, FrameKind::Mgmt(Mgmt::ProbeReq)]);
    let relayed =
        sent(&bed, 2).into_iter().filter(|&k| k == FrameKind::Data || k == FrameKind::Ack).collect::<Vec<_>>();
    assert_eq!(relayed, [FrameKind::Ack, FrameKind::Data], "access point 2 acknowledges, then relays");
    let relay_end = bed.times(Seen::TxEnd(2, FrameKind::Data))[0];
    let dropped = bed.times(Seen::Dropped(3));
    assert!(dropped.len() == 1 && dropped[0] > relay_end, "lost once its relay has ended everywhere: {dropped:?}");
    let third = bed.times(Seen::TxEnd(1, FrameKind::Data))[2];
    let probe = bed.times(Seen::TxEnd(1, FrameKind::Mgmt(Mgmt::ProbeReq)))[0];
    let timer = third + 2.0 * US + SIFS + ACK + 2.0 * US;
    let slots = (probe - 416.0 * US - timer - DIFS) / SLOT; // PRRQ: 192 + 28 * 8 µs
    assert!(slots > -1e-6 && (slots - slots.round()).abs() < 1e-6 && slots < 127.0, "{slots} slots");
    let sta = bed.wifi.stations[1].infra.as_ref().expect("a station");
    assert_eq!((sta.bss, sta.associated, sta.handoff), (Some(RadioId(2)), true, false));
    assert_eq!(bed.wifi.stations[2].infra.as_ref().expect("an access point").clients, [RadioId(1)]);
}

#[test]
fn ns2_a_packet_that_comes_while_a_beacon_holds_the_mac_gets_the_second_of_two_draws() {
    // mac-802_11.cc: `send` on a busy MAC (MAC_BCN) starts the backoff, paused (a draw); the
    // beacon's send timer starts it again (another draw, its assert compiled out), and the
    // data frame goes DIFS and that second draw's slots after the beacon (found by
    // conformance/ns2-wifi/infra_probe.py, cases 10, 16 and 24).
    let mut bed = Bed::new(infra(&[(0.0, 0.0), (1.0, 0.0)], &[0], &[]));
    let mut stream = Draws::Own(Rng::stream(1, "wifi/w/0"));
    let mut shared = Ns2Rng::seeded(1);
    let draws: Vec<u32> = (0..3).map(|_| stream.integer(31, &mut shared)).collect();
    assert_ne!(draws[1], draws[2], "the stream tells the two draws apart");
    bed.wifi.start_infrastructure(&mut bed.ctx); // its first beacon at 0 (none drawn here)
    let beacon_end = DIFS + draws[0] as f64 * SLOT + 576.0 * US; // BCN: 192 + 48 * 8 µs
    bed.run_until(beacon_end - 100.0 * US);
    let _ = bed.send(0, 1, 4, 500);
    bed.run_until(0.05);
    let data_end = bed.times(Seen::TxEnd(0, FrameKind::Data))[0];
    let data = 192.0 * US + 534.0 * 8.0 * US; // 500 + 34 bytes at 1 Mb/s
    assert!(close(data_end - data, beacon_end + DIFS + draws[2] as f64 * SLOT), "{data_end}");
}

#[test]
fn ns2_pairs_every_station_with_every_other_however_far() {
    // ns-2's DumbAgent hands each packet to the MAC for its destination itself (dumb-agent.cc
    // `recv`): 0 and 2 are 300 m apart, beyond the 250 m receive range, and still a pair; the
    // standard profile pairs only stations within range
    let at = [(0.0, 0.0), (200.0, 0.0), (300.0, 0.0)];
    assert_eq!(wlan(&at).pairs(), [(0, 1), (1, 0), (1, 2), (2, 1)]);
    assert_eq!(ns2(&at, 0).pairs(), [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]);
}

#[test]
fn ns2_resumes_the_backoff_of_a_station_that_sent_a_cts_only_after_the_cts_timeout() {
    // check_pktCTRL: after its CTS the MAC is in MAC_CTS until the data ends or its timer does,
    // CTS + 2 µs + the CTS's duration (SIFS + data + SIFS + ACK) + 2 µs - SIFS - ACK from the
    // CTS's start; only send_timer's tx_resume then resumes the paused backoff, DIFS later.
    // A (radio 0) hears nothing (every frame corrupted) and gives up after one RTS; B (radio 1),
    // whose own backoff paused for A's RTS, goes DIFS and its slots after that timer, not after
    // the CTS's end (found by the WLAN fuzz: conformance/fuzz-cases/wifi_cts_timeout.json)
    let d = 10.0;
    let mut bed = Bed::new(WlanConfig { short_retry_limit: 1, ..ns2(&[(0.0, 0.0), (d, 0.0)], 0) });
    bed.wifi.stations[0].losses.push(loss(LossModel::Uniform { rate: 1.0 }, vec![]));
    let _ = bed.send(1, 0, 1, 1000);
    let _ = bed.send(0, 1, 2, 1000);
    let (a, b) = (bed.wifi.stations[0].backoff, bed.wifi.stations[1].backoff);
    assert!(a < b, "A's RTS goes first: backoffs {a:?} and {b:?} slots");
    bed.run_until(2e-3); // the CTS has gone, the data would still be on the air
    let cts_start = bed.times(Seen::TxEnd(1, FrameKind::Cts))[0] - CTS;
    let slots = bed.wifi.stations[1].backoff.expect("B's backoff, paused") as f64;
    bed.run_until(1.0);
    let duration = SIFS + DATA + SIFS + ACK;
    let timeout = cts_start + (CTS + 2.0 * US + duration + 2.0 * US - SIFS - ACK);
    let rts = bed.times(Seen::TxEnd(1, FrameKind::Rts))[0] - RTS;
    assert!(close(rts, timeout + DIFS + slots * SLOT), "B's RTS at {rts}, timer {timeout}, {slots} slots");
}

#[test]
fn ns2_sends_no_data_after_a_cts_onto_a_busy_medium_but_an_rts_again_from_a_grown_window() {
    // check_pktTx, a SIFS after the CTS: on a medium that is not idle (here A's NAV, set after
    // the CTS came, reaches 5 µs past that SIFS) it makes a new RTS, grows the window
    // (`inc_cw`: 31 -> 63) and starts a backoff, paused (found by the WLAN fuzz, seed 5)
    let d = 10.0;
    for (nav_past_sifs, data) in [(-5.0, 1), (5.0, 0)] {
        let mut bed = Bed::new(ns2(&[(0.0, 0.0), (d, 0.0)], 0));
        let _ = bed.send(0, 1, 1, 1000);
        let slots = bed.wifi.stations[0].backoff.expect("drawn") as f64;
        let cts_in = DIFS + slots * SLOT + RTS + p(d) + SIFS + CTS + p(d);
        bed.run_until(cts_in - 1.0 * US);
        bed.wifi.stations[0].nav_until = cts_in + SIFS + nav_past_sifs * US;
        bed.run_until(cts_in + SIFS + 1.0 * US);
        let a = &bed.wifi.stations[0];
        assert_eq!(a.stats.data, data, "NAV {nav_past_sifs} µs past the SIFS");
        if data == 0 {
            assert_eq!((a.state, a.cw, a.stats.rts), (State::Contend, 63, 1));
            assert!(a.backoff.is_some() && !a.access.pending(), "a backoff drawn, paused");
        }
    }
}

#[test]
fn ns2_discards_an_rts_while_its_mac_is_not_idle() {
    // recvRTS: `tx_state_ != MAC_IDLE` (here B waits in MAC_CTS for data after a CTS of its
    // own) discards the RTS, traced `D ... BSY`, and sends no CTS (found by the WLAN fuzz, seed 5)
    let d = 10.0;
    for (waiting, cts) in [(false, 1), (true, 0)] {
        let mut bed = Bed::new(ns2(&[(0.0, 0.0), (d, 0.0)], 0));
        if waiting {
            bed.wifi.stations[1].cts_until = 1.0;
        }
        let _ = bed.send(0, 1, 1, 1000);
        let slots = bed.wifi.stations[0].backoff.expect("drawn") as f64;
        let rts_in = DIFS + slots * SLOT + RTS + p(d);
        bed.run_until(rts_in + SIFS + 1.0 * US);
        assert_eq!(bed.wifi.stations[1].stats.cts, cts, "B in MAC_CTS: {waiting}");
    }
}

#[test]
fn ns2_leaves_a_running_backoff_where_it_is_scheduled() {
    // checkBackoffTimer resumes a paused backoff only: a zero NAV (an ACK for another station)
    // ending at the instant the medium turned idle leaves the running timer in its place among
    // equal times, and a station whose backoff resumed first sends first when two end at once
    // (found by the WLAN fuzz: conformance/fuzz-cases/wifi_simultaneous_backoff_expiry.json)
    for ns2_profile in [true, false] {
        let at = [(0.0, 0.0), (10.0, 0.0)];
        let mut bed = Bed::new(if ns2_profile { ns2(&at, 3000) } else { wlan(&at) });
        let _ = bed.send(0, 1, 1, 1000);
        bed.wifi.stations[0].state = State::Contend;
        bed.wifi.try_access(&mut bed.ctx, RadioId(0));
        assert!(bed.wifi.stations[0].access.pending());
        let armed = format!("{:?}", bed.wifi.stations[0].access);
        bed.wifi.medium_maybe_idle(&mut bed.ctx, RadioId(0));
        let again = format!("{:?}", bed.wifi.stations[0].access);
        assert_eq!(armed == again, ns2_profile, "ns2 profile {ns2_profile}: {armed} then {again}");
    }
}

#[test]
fn ns2_resets_only_the_retry_count_that_a_drop_or_an_ack_concerns() {
    // RetransmitRTS drops at ShortRetryLimit_ and resets `ssrc_` only; RetransmitDATA resets the
    // count that reached its limit; recvACK the one the frame's size uses (found by the WLAN
    // fuzz: conformance/fuzz-cases/wifi_long_retry_count_kept.json, where a data frame was
    // dropped at its first failure, `slrc_` being 3 from the packet before)
    for ns2_profile in [true, false] {
        let far = [(0.0, 0.0), (1000.0, 0.0)];
        let mut bed = Bed::new(if ns2_profile { ns2(&far, 0) } else { WlanConfig { rts_threshold: 0, ..wlan(&far) } });
        bed.wifi.stations[0].long_retries = 3;
        let _ = bed.send(0, 1, 1, 1000);
        bed.run_until(1.0);
        assert_eq!(bed.times(Seen::Dropped(1)).len(), 1, "seven RTSs, then the drop");
        let a = &bed.wifi.stations[0];
        assert_eq!((a.short_retries, a.long_retries), (0, if ns2_profile { 3 } else { 0 }), "ns2 {ns2_profile}");
    }
    // data without RTS (short: 1034 bytes of 3000): its ACK resets the short count only
    let mut bed = Bed::new(ns2(&[(0.0, 0.0), (10.0, 0.0)], 3000));
    bed.wifi.stations[0].long_retries = 2;
    bed.wifi.stations[0].short_retries = 1;
    let _ = bed.send(0, 1, 1, 1000);
    bed.run_until(1.0);
    assert_eq!(bed.delivered(), [(1, 0, 1)]);
    let a = &bed.wifi.stations[0];
    assert_eq!((a.short_retries, a.long_retries), (0, 2));
}

#[test]
fn ns2_a_beacon_made_while_an_ack_waits_its_sifs_waits_for_a_backoff_begun_for_something_else() {
    // sendBEACON on an idle medium starts no backoff while the defer timer runs the SIFS before
    // an ACK, and `tx_resume`, as the ACK ends, draws for data only: the beacon waits until a
    // backoff begun for something else runs out (`backoffHandler`), here the one `send` draws
    // for the access point's own packet, and goes before it (found by the infrastructure fuzz:
    // conformance/fuzz-cases/wifi_infra_beacon_made_in_a_sifs.json)
    let bed_with = || {
        let mut bed = Bed::new(infra(&[(0.0, 0.0), (10.0, 0.0)], &[0], &[]));
        let _ = bed.send(1, 0, 1, 500);
        bed
    };
    let mut whole = bed_with();
    whole.run_until(0.05);
    let data_in = whole.times(Seen::Delivered { node: 0, from: 1, uid: 1 })[0];
    let mut bed = bed_with();
    bed.run_until(data_in + 5.0 * US);
    bed.wifi.beacon_due(&mut bed.ctx, RadioId(0));
    assert_eq!(bed.wifi.stations[0].backoff, None, "nothing drawn during the SIFS");
    bed.run_until(0.05);
    assert_eq!(sent(&bed, 0), [FrameKind::Ack], "no beacon without a backoff");
    assert_eq!(bed.wifi.stations[0].backoff, None, "nothing drawn as the ACK ends");
    let _ = bed.send(0, 1, 2, 500);
    bed.run_until(0.09);
    assert_eq!(sent(&bed, 0), [FrameKind::Ack, FrameKind::Mgmt(Mgmt::Beacon), FrameKind::Data]);
}

#[test]
fn ns2_a_probe_response_that_comes_while_a_request_waits_is_acknowledged_when_its_timer_stops() {
    // recvPROBEREP makes the ACK but leaves it to `tx_resume`, which waits for the send timer
    // of the station's own request (MAC_MGMT): the ACK goes a SIFS after that timer, unless the
    // request's answer stops it first, whose ACK replaces the first (`sendACK`, one
    // `pktCTRL_`). Found by the infrastructure fuzz:
    // conformance/fuzz-cases/wifi_infra_probe_response_ack_held.json
    for answered in [false, true] {
        let mut bed = Bed::new(infra(&[(0.0, 0.0), (10.0, 0.0)], &[0], &[]));
        // station 1 has asked access point 0 to authenticate it; its send timer runs to 5 ms
        bed.wifi.stations[1].state = State::Mgmt(Mgmt::Auth);
        bed.wifi.stations[1].infra.as_mut().expect("a station").in_flight = Some((Mgmt::Auth, RadioId(0)));
        bed.wifi.arm_mac(&mut bed.ctx, RadioId(1), MacTimer::Timeout, 5e-3);
        bed.wifi.transmit_mgmt(&mut bed.ctx, RadioId(0), Mgmt::ProbeRep, RadioId(1));
        bed.run_until(2e-3);
        assert_eq!(sent(&bed, 1), [], "no ACK while the request's send timer runs");
        if answered {
            bed.wifi.transmit_mgmt(&mut bed.ctx, RadioId(0), Mgmt::Auth, RadioId(1));
        }
        bed.run_until(4.9e-3);
        let acks = bed.times(Seen::TxEnd(1, FrameKind::Ack));
        if answered {
            let answer_in = bed.times(Seen::RxEnd(1, FrameKind::Mgmt(Mgmt::Auth), 0))[0];
            assert!(acks.len() == 1 && close(acks[0], answer_in + SIFS + ACK), "one ACK, the answer's: {acks:?}");
        } else {
            assert!(acks.is_empty(), "held: {acks:?}");
            bed.run_until(5e-3 + 1.0 * US);
            // the request made again (`checkAssocAuthStatus`, before `tx_resume` starts the
            // ACK's SIFS) draws its backoff on the busy MAC, resumed DIFS after the ACK
            let slots = bed.wifi.stations[1].backoff.expect("drawn as the timer stops") as f64;
            bed.run_until(0.1);
            let acks = bed.times(Seen::TxEnd(1, FrameKind::Ack)); // the first, the held one
            assert!(close(acks[0], 5e-3 + SIFS + ACK), "a SIFS after the timer: {acks:?}");
            let auth = bed.times(Seen::TxEnd(1, FrameKind::Mgmt(Mgmt::Auth)))[0] - 464.0 * US; // 192 + 34 * 8 µs
            assert!(close(auth, acks[0] + DIFS + slots * SLOT), "the request again at {auth}");
        }
    }
}

#[test]
fn ns2_the_backoff_of_a_request_the_answer_made_needless_counts_down_with_nothing_to_send() {
    // A station's authentication request timed out and was made again, its backoff drawn; the
    // answer to the first then comes and frees the second unsent (`recvAUTHENTICATE`), its
    // backoff left running: it counts down DIFS after the answer's ACK, with nothing to send,
    // so that a frame made later goes when it ends (found by the infrastructure fuzz:
    // conformance/fuzz-cases/wifi_infra_backoff_of_a_request_dropped_unsent.json)
    let mut bed = Bed::new(infra(&[(0.0, 0.0), (10.0, 0.0)], &[0], &[]));
    let s = &mut bed.wifi.stations[1];
    (s.state, s.backoff, s.rtime) = (State::Contend, Some(5), 5.0 * SLOT);
    s.infra.as_mut().expect("a station").pending.push((Mgmt::Auth, RadioId(0)));
    bed.wifi.transmit_mgmt(&mut bed.ctx, RadioId(0), Mgmt::Auth, RadioId(1));
    bed.run_until(2e-3);
    let ack_end = bed.times(Seen::TxEnd(1, FrameKind::Ack))[0];
    assert_eq!(sent(&bed, 1), [FrameKind::Ack], "the request made again is not sent");
    assert!(ack_end + DIFS + 5.0 * SLOT < 2e-3);
    assert_eq!(bed.wifi.stations[1].backoff, None, "counted down after the ACK");
}

#[test]
fn ns2_a_loss_model_weighs_a_management_frame_by_its_own_bytes() {
    // The ErrorModel between PHY and MAC sizes a beacon as the MAC does (72 bytes, PLCP
    // included), not as an ACK (38): a bit error rate that, for the model's first draw, loses
    // the one and would spare the other takes the beacon (found by the infrastructure fuzz:
    // conformance/fuzz-cases/wifi_infra_error_model_weighs_management_frames.json)
    let u = Draws::Own(Rng::stream(7, "loss")).uniform(&mut Ns2Rng::seeded(1));
    // lost with probability 1 - (1 - ber)^bits: 55 bytes' worth of bits at probability u
    let ber = 1.0 - (1.0 - u).powf(1.0 / (55.0 * 8.0));
    let (beacon, ack) = (1.0 - (1.0 - ber).powf(72.0 * 8.0), 1.0 - (1.0 - ber).powf(38.0 * 8.0));
    assert!(ack < u && u < beacon, "{ack} < {u} < {beacon}");
    let heard = |lossy: bool| {
        let mut bed = Bed::new(infra(&[(0.0, 0.0), (10.0, 0.0)], &[0], &[]));
        if lossy {
            bed.wifi.stations[1].losses.push(loss(LossModel::Ber { ber, data_bits: None, control_bits: None }, vec![]));
        }
        bed.wifi.transmit_mgmt(&mut bed.ctx, RadioId(0), Mgmt::Beacon, BROADCAST);
        bed.run_until(0.01);
        bed.wifi.stations[1].infra.as_ref().expect("a station").heard.len()
    };
    assert_eq!((heard(false), heard(true)), (1, 0));
}

/// An access point (radio 0) whose priority list holds a probe response for station 1, a
/// kilometre off (no ACK comes), beside an unsent probe request of its own handoff if `unsent`.
fn access_point_probe_response(unsent: bool) -> Bed {
    let mut bed = Bed::new(infra(&[(0.0, 0.0), (1000.0, 0.0)], &[0], &[]));
    let ap = bed.wifi.stations[0].infra.as_mut().expect("an access point");
    (ap.unsent_probe, ap.order) = (unsent, vec![Mgmt::ProbeRep]);
    bed
}

/// Puts a data frame of `bytes` for station 1 at the head of radio 0's queue, as if it had
/// entered the MAC before now.
fn queue_for_station_1(bed: &mut Bed, bytes: u32) {
    let id = bed.ctx.pkts.alloc(Packet { uid: 1, size: bytes, ..packet() });
    bed.wifi.stations[0].queue.push_back((id, RadioId(1), Via::to(RadioId(1))));
}

#[test]
fn ns2_an_access_point_with_an_unsent_probe_request_keeps_a_probe_response_that_timed_out() {
    // An access point's own handoff leaves it a probe request it never sends; a probe response's
    // send timer (no ACK: station 1 is 1 km away) frees that request instead of the response
    // and starts no backoff (`send_timer`'s MAC_MGMT case stops at `pktPROBEREQ_`), so the
    // response goes again before the next packet, whose `send` draws a backoff (found by the
    // infrastructure fuzz: conformance/fuzz-cases/wifi_infra_unsent_probe_request_keeps_a_response.json)
    for unsent in [false, true] {
        let mut bed = access_point_probe_response(unsent);
        bed.wifi.transmit_mgmt(&mut bed.ctx, RadioId(0), Mgmt::ProbeRep, RadioId(1));
        bed.run_until(0.05);
        assert_eq!(sent(&bed, 0), [FrameKind::Mgmt(Mgmt::ProbeRep)], "unsent probe request {unsent}");
        let waits = bed.wifi.stations[0].infra.as_ref().expect("an access point").pending.len();
        assert_eq!(waits, usize::from(unsent), "unsent probe request {unsent}");
        let _ = bed.send(0, 1, 1, 500);
        bed.run_until(0.1);
        let next = if unsent { FrameKind::Mgmt(Mgmt::ProbeRep) } else { FrameKind::Data };
        assert_eq!(sent(&bed, 0)[..2], [FrameKind::Mgmt(Mgmt::ProbeRep), next], "unsent probe request {unsent}");
        assert!(!bed.wifi.stations[0].infra.as_ref().expect("an access point").unsent_probe);
    }
}

#[test]
fn ns2_a_beacon_made_while_one_is_on_the_air_is_freed_with_it() {
    // `sendBEACON` puts its frame in `pktBEACON_` whatever is there; the send timer of the
    // beacon on the air frees `pktBEACON_`, so the new beacon goes unsent, its entry left in
    // the list (found by the infrastructure fuzz:
    // conformance/fuzz-cases/wifi_infra_beacon_made_on_the_air_is_lost.json)
    let mut bed = Bed::new(infra(&[(0.0, 0.0), (1.0, 0.0)], &[0], &[]));
    bed.wifi.start_infrastructure(&mut bed.ctx); // its first beacon at 0
    let mut t = 0.0;
    while bed.wifi.stations[0].state != State::Mgmt(Mgmt::Beacon) {
        t += 10.0 * US;
        bed.run_until(t);
    }
    bed.wifi.beacon_due(&mut bed.ctx, RadioId(0)); // its timer again, the first still on the air
    bed.run_until(0.05);
    assert_eq!(sent(&bed, 0), [FrameKind::Mgmt(Mgmt::Beacon)]);
    let ap = bed.wifi.stations[0].infra.as_ref().expect("an access point");
    assert_eq!((ap.pending.len(), ap.order.as_slice()), (0, [Mgmt::Beacon].as_slice()));
}

#[test]
fn ns2_an_access_point_whose_management_frame_waits_its_turn_backs_off_for_a_packet() {
    // An access point's probe response behind a stale entry of the list (a beacon's, its frame
    // gone) waits; the backoff that ran out sent nothing, and a packet that comes later draws
    // its own (`send`: `mhBackoff_` is not busy) and goes before the response (found by the
    // infrastructure fuzz: conformance/fuzz-cases/wifi_infra_data_behind_a_waiting_probe_response.json)
    let mut bed = Bed::new(infra(&[(0.0, 0.0), (10.0, 0.0)], &[0], &[]));
    let ap = bed.wifi.stations[0].infra.as_mut().expect("an access point");
    ap.order = vec![Mgmt::Beacon, Mgmt::Beacon, Mgmt::ProbeRep]; // the first is done now
    ap.pending = vec![(Mgmt::ProbeRep, RadioId(1))];
    bed.wifi.mgmt_done(&mut bed.ctx, RadioId(0)); // a backoff for whatever waits
    bed.run_until(0.01);
    assert_eq!(bed.wifi.stations[0].backoff, None, "the backoff ran out, nothing sent");
    let _ = bed.send(0, 1, 1, 500);
    bed.run_until(0.05);
    assert_eq!(sent(&bed, 0), [FrameKind::Data]);
    assert_eq!(bed.wifi.stations[0].infra.as_ref().expect("an access point").pending.len(), 1);
}

#[test]
fn ns2_a_backoff_drawn_as_a_management_frame_times_out_counts_from_then() {
    // A probe response unanswered (station 1 is 1 km away) with an unsent probe request: the
    // send timer's `tx_resume` starts the backoff of the data waiting, or resumes the one its
    // `send` drew, paused, while the response was out (`setTxState(MAC_IDLE)`): DIFS and its
    // slots from the timeout, not from the end of the response on the air. The response, at
    // the head of the list still, goes again when it ends (found by the infrastructure fuzz:
    // conformance/fuzz-cases/wifi_infra_backoff_after_a_probe_response_timed_out.json)
    for data_came_during in [false, true] {
        let mut bed = access_point_probe_response(true);
        if !data_came_during {
            queue_for_station_1(&mut bed, 500);
        }
        bed.wifi.transmit_mgmt(&mut bed.ctx, RadioId(0), Mgmt::ProbeRep, RadioId(1));
        if data_came_during {
            bed.run_until(100.0 * US);
            let _ = bed.send(0, 1, 1, 500); // `send` on the busy MAC: a backoff drawn, paused
        }
        let slots = Draws::Own(Rng::stream(1, "wifi/w/0")).integer(31, &mut Ns2Rng::seeded(1));
        bed.run_until(0.05);
        let response = 576.0 * US; // PRRP: 192 + 48 * 8 µs
        let timeout = response + 2.0 * US + SIFS + ACK + 2.0 * US;
        let again = bed.times(Seen::TxEnd(0, FrameKind::Mgmt(Mgmt::ProbeRep)))[1] - response;
        let case = format!("data came during the response: {data_came_during}");
        assert!(close(again, timeout + DIFS + slots as f64 * SLOT), "{case}: {again} with {slots} slots");
    }
}

#[test]
fn ns2_after_a_probe_response_timed_out_data_whose_rts_is_gone_goes_a_sifs_later() {
    // An access point's own handoff leaves it a probe request it never sends and its data frame
    // without an RTS, one try from its retry limit. The probe response's send timer (no ACK:
    // station 1 is 1 km away) frees that request, and `tx_resume` sends the long data a SIFS
    // later (`mhDefer_`), with no backoff drawn. The data given up, `RetransmitDATA` starts no
    // backoff, and the response, left without one, waits for a backoff begun for something
    // else (found by the infrastructure fuzz:
    // conformance/fuzz-cases/wifi_infra_data_without_rts_after_a_probe_response.json)
    let mut bed = access_point_probe_response(true);
    bed.wifi.wlans[0].rts_threshold = 0;
    bed.wifi.stations[0].infra.as_mut().expect("an access point").handoff = true;
    queue_for_station_1(&mut bed, 500);
    bed.wifi.stations[0].head_rts = HeadRts::Gone;
    bed.wifi.stations[0].long_retries = bed.wifi.wlans[0].long_retry_limit - 1;
    bed.wifi.transmit_mgmt(&mut bed.ctx, RadioId(0), Mgmt::ProbeRep, RadioId(1));
    bed.run_until(0.5);
    let response = 576.0 * US; // PRRP: 192 + 48 * 8 µs
    let timeout = response + 2.0 * US + SIFS + ACK + 2.0 * US;
    let data = 192.0 * US + 534.0 * 8.0 * US; // 500 + 34 bytes at 1 Mb/s
    let data_end = bed.times(Seen::TxEnd(0, FrameKind::Data))[0];
    assert!(close(data_end - data, timeout + SIFS), "{data_end}");
    assert_eq!(sent(&bed, 0), [FrameKind::Mgmt(Mgmt::ProbeRep), FrameKind::Data], "nothing after the data");
    let ap = &bed.wifi.stations[0];
    assert_eq!((ap.backoff, ap.infra.as_ref().expect("an access point").pending.len()), (None, 1));
}

#[test]
fn ns2_an_arp_reply_keeps_the_duration_of_the_frame_its_request_came_in() {
    // `arpinput` answers in the request's own packet: its MAC header keeps the request frame's
    // duration (an ACK's, from a station that sends everything to its access point), which an
    // interface queue's drop of the reply prints (found by the infrastructure fuzz:
    // conformance/fuzz-cases/wifi_infra_arp_reply_dropped_with_the_requests_duration.json)
    let mut bed = Bed::new(infra(&[(0.0, 0.0), (10.0, 0.0)], &[0], &[]));
    let (ap, station) = (bed.wifi.stations[0].node, bed.wifi.stations[1].node);
    let request = Packet::of_network(0, crate::packet::Kind::Arp, station, ap, 28, crate::packet::ARP_REQUEST, 0.0);
    let frame = Frame {
        kind: FrameKind::Data,
        src: RadioId(1),
        dst: RadioId(0),
        nav: SIFS + ACK,
        pkt: None,
        seq: 0,
        via: Via { to_ds: true, ..Via::to(RadioId(0)) },
        refs: 1,
    };
    bed.wifi.arp_input(&mut bed.ctx, RadioId(0), &request, &frame);
    let Some(Event::Wifi(WifiEvent::LlDown(_, to, reply))) = bed.ctx.sched.pop_if(|_, _| true) else {
        panic!("the reply goes down to the link layer");
    };
    let reply = bed.ctx.pkts.get(reply);
    assert_eq!((to, reply.seq, reply.rx_duration), (RadioId(1), crate::packet::ARP_REPLY, 314));
}

#[test]
fn ns2_an_rts_counts_the_air_time_its_data_entered_the_mac_with() {
    // A broadcast (an ARP request) enters a station's MAC before it joins a BSS: `sendDATA`
    // times it as a broadcast, at the basic rate and duration 0, and `check_pktTx` readdresses
    // it to the access point the station has joined since. Unacknowledged (the access point is
    // 1 km away), it goes again after an RTS (`RetransmitDATA`), whose duration counts that
    // stored air time, not the data rate's (found by the infrastructure fuzz:
    // conformance/fuzz-cases/wifi_infra_rts_for_a_frame_that_entered_as_a_broadcast.json)
    let mut cfg = infra(&[(0.0, 0.0), (1000.0, 0.0)], &[0], &[]);
    (cfg.rts_threshold, cfg.timing.data_rate) = (0, 5.5e6);
    let mut bed = Bed::new(cfg);
    let _ = bed.send(1, BROADCAST.0, 1, 28); // in no BSS yet: a broadcast
    let sta = bed.wifi.stations[1].infra.as_mut().expect("a station");
    (sta.bss, sta.authenticated, sta.associated) = (Some(RadioId(0)), true, true); // before it goes
    bed.run_until(0.1);
    let first = bed.frames_sent[0];
    assert_eq!((first.kind, first.dst, first.nav), (FrameKind::Data, RadioId(0), 0.0), "readdressed, duration 0");
    let rts = bed.frames_sent.iter().find(|f| f.kind == FrameKind::Rts).expect("an RTS before the data again");
    let data = 192.0 * US + (28.0 + 34.0) * 8.0 * US; // at the basic rate, 1 Mb/s
    assert!(close(rts.nav, SIFS + CTS + SIFS + data + SIFS + ACK), "{}", rts.nav);
}

#[test]
fn ns2_a_frame_is_marked_for_the_distribution_system_as_it_enters_the_mac() {
    // `hdr_dst` addresses a frame as its link layer passes it down; `sendDATA` sets its DS
    // bits as the frame enters the MAC, by the BSS the station is in then. Two broadcasts
    // come while the station is in no BSS; it joins one before the second enters the MAC,
    // which goes marked for the distribution system (so a collision at another station drops
    // it untraced, `discard`; found by the infrastructure fuzz:
    // conformance/fuzz-cases/wifi_infra_collision_loser_dropped_untraced.json)
    let mut bed = Bed::new(infra(&[(0.0, 0.0), (1000.0, 0.0)], &[0], &[]));
    let _ = bed.send(1, BROADCAST.0, 1, 28);
    let _ = bed.send(1, BROADCAST.0, 2, 28);
    let sta = bed.wifi.stations[1].infra.as_mut().expect("a station");
    (sta.bss, sta.authenticated, sta.associated) = (Some(RadioId(0)), true, true);
    bed.run_until(0.1);
    // the first, readdressed to the access point 1 km away, goes unanswered to its retry
    // limit, and the station hands off; the second goes as it was addressed, a broadcast
    let data: Vec<_> = bed.frames_sent.iter().filter(|f| f.kind == FrameKind::Data).collect();
    let marked = |seq| data.iter().filter(|f| f.seq == seq).map(|f| f.via.to_ds).collect::<Vec<_>>();
    assert!(marked(0).len() > 1 && marked(0).iter().all(|&ds| !ds), "{data:?}");
    let last = data.last().expect("the second frame");
    assert_eq!((last.seq, last.dst, last.via.to_ds), (1, BROADCAST, true), "{data:?}");
}

#[test]
fn ns2_without_bugfix_timer_defers_through_a_busy_medium_then_backs_off_from_a_grown_window() {
    // mac-802_11.cc without bugFix_timer_ (test-suite-wireless-lan-newnode.tcl sets it false):
    // a frame finding the medium idle waits DIFS + (random % cw) slots on the defer timer,
    // which runs on while the medium is busy; ending on a busy medium (check_pktTx), it grows
    // the window (31 -> 63) and starts a backoff, paused until the medium has been idle DIFS
    let cfg = WlanConfig { backoff_when_idle: false, ..ns2(&[(0.0, 0.0), (10.0, 0.0), (20.0, 0.0)], 3000) };
    let mut bed = Bed::new(cfg);
    let _ = bed.send(0, 2, 1, 1000);
    let _ = bed.send(1, 2, 2, 1000);
    // deferring, not backing off: the slots drawn are in `rtime`
    let drawn = |s: &Station| {
        assert!(s.defer && s.backoff.is_none(), "a defer, no backoff");
        (s.rtime / SLOT).round() as u32
    };
    let (a, b) = (drawn(&bed.wifi.stations[0]), drawn(&bed.wifi.stations[1]));
    assert_ne!(a, b, "this seed draws two different defers");
    let (first, second): (u32, u32) = if a < b { (0, 1) } else { (1, 0) };
    let first_start = DIFS + a.min(b) as f64 * SLOT;
    bed.run_until(first_start + DATA / 2.0); // past the second's defer (at most 30 slots)
    let s = &bed.wifi.stations[second as usize];
    assert_eq!((s.cw, s.defer, s.access.pending()), (63, false, false), "a backoff from a grown window, paused");
    let slots = s.backoff.expect("the backoff drawn as the defer ended") as f64;
    bed.run_until(1.0);
    assert!(close(bed.times(Seen::TxEnd(first, FrameKind::Data))[0], first_start + DATA));
    // the ACK to the first ends at the second one propagation delay after C sent it
    let ack_heard = bed.times(Seen::TxEnd(2, FrameKind::Ack))[0] + p(10.0 * (2 - second) as f64);
    let second_end = bed.times(Seen::TxEnd(second, FrameKind::Data))[0];
    assert!(close(second_end, ack_heard + DIFS + slots * SLOT + DATA), "{second_end} vs {ack_heard} + {slots} slots");
}

/// ns-2's PHY computes the power of every frame that reaches a radio in its channel's box, even
/// one too faint to sense, and so asks both nodes where they are as it arrives (`getLoc`): a
/// moving node far off is moved on at the arrival of the last frame near it, a propagation
/// delay after that frame left (wifi/channel.rs, `WifiEvent::Faint`).
#[test]
fn ns2_a_frame_too_faint_to_sense_moves_the_node_on_as_it_arrives() {
    let cfg = WlanConfig {
        radio: Radio { ns2: true, light: NS2_LIGHT, ..Radio::default() },
        ..ns2(&[(0.0, 0.0), (0.0, 100.0), (552.0, 0.0)], 3000)
    };
    let mut bed = Bed::new(cfg);
    let away = crate::mobility::path::Move { node: 2, at: 0.0, to: (1000.0, 0.0), speed: 1.0 };
    bed.wifi.set_moves(&[away]);
    let _ = bed.send(0, 1, 5, 100);
    bed.run_until(0.1);
    assert_eq!(bed.delivered(), [(1, 0, 5)]);
    let ack_end = bed.times(Seen::TxEnd(1, FrameKind::Ack))[0];
    let ack_start = ack_end - bed.wifi.wlans[0].timing.control(ACK_BYTES);
    let since = bed.wifi.motions[2].as_ref().expect("node 2 moves").since();
    // 561 m from the ACK's sender (beyond the 550 m of carrier sense, within the box's 555 in x)
    let flight = f64::hypot(552.0, 100.0) / NS2_LIGHT;
    assert!((since - ack_start - flight).abs() < 1e-9, "moved on {:e} s after the ACK left", since - ack_start);
}
