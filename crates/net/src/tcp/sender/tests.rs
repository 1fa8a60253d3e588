//! The ns-2 senders driven through `testing::FakePort`: ACKs and timer expiries in, packets and
//! window state out. Expected numbers follow ns-2.35's rules as the ns-2 notes state them
//! (/work/shared/reference/ns2-semantics.md, "the notes" below, by section), worked by hand
//! for each case; ns-2's defaults throughout unless a case says otherwise.

use super::*;
use crate::testing::{ack, sender_end, FakePort};

/// A sender and the port it talks through (also for the variants' own tests beside them).
pub(super) struct Tcp {
    pub(super) s: Ns2Sender,
    pub(super) net: FakePort,
}

impl Tcp {
    /// An FTP with unlimited data, started at time 0 (so the SYN, seqno 0, goes at once).
    pub(super) fn start(variant: TcpVariant, p: TcpParams) -> Tcp {
        let mut net = FakePort::default();
        let mut s = Ns2Sender::new(variant, p, None, sender_end(), 0.0);
        s.send_unlimited(&mut net);
        Tcp { s, net }
    }

    /// ACK `seq` at time `t`, echoing the send time of segment `seq`, with SACK blocks.
    pub(super) fn ack(&mut self, t: f64, seq: i64, sack: &[(i64, i64)]) {
        self.net.set_now(t);
        let echo = self.net.sent.iter().rev().find(|p| p.seq == seq).map_or(0.0, |p| p.ts);
        self.s.recv(&mut self.net, &ack(seq, echo, sack));
    }

    /// The retransmission timer fires (whatever stale events come first).
    pub(super) fn timeout(&mut self) -> f64 {
        let s = &mut self.s;
        let (kind, at) = self.net.expire(|net, _, gen| s.on_timer(net, gen)).expect("a pending timer");
        assert_eq!(kind, TimerKind::Rtx);
        at
    }

    /// Seqnos sent by whatever `f` does.
    pub(super) fn sends(&mut self, f: impl FnOnce(&mut Tcp)) -> Vec<i64> {
        let from = self.net.sent.len();
        f(self);
        self.net.seqs_since(from)
    }

    /// (cwnd, ssthresh, t_seqno)
    fn window(&self) -> (f64, i64, i64) {
        (self.s.cwnd, self.s.ssthresh, self.s.t_seqno)
    }
}

/// Slow start to cwnd 8 with ns-2's defaults (the notes, 2.0): the SYN's ACK sets cwnd to
/// windowInit_ 2 (seqnos 1, 2 go), and each new ACK adds one: ACKs of 1, 2 make 4 (3..6
/// go), of 3..6 make 8 (7..14 go). One ACK per RTT of 0.1 s.
fn at_cwnd_8(variant: TcpVariant) -> Tcp {
    let mut t = Tcp::start(variant, TcpParams::default());
    assert_eq!(t.net.sent.iter().map(|p| (p.seq, p.size)).collect::<Vec<_>>(), vec![(0, 40)], "a 40-byte SYN");
    assert_eq!(t.sends(|t| t.ack(0.1, 0, &[])), vec![1, 2]);
    assert_eq!(t.sends(|t| (1..=2).for_each(|a| t.ack(0.2, a, &[]))), vec![3, 4, 5, 6]);
    assert_eq!(t.sends(|t| (3..=6).for_each(|a| t.ack(0.3, a, &[]))), (7..=14).collect::<Vec<_>>());
    assert_eq!(t.window(), (8.0, 20, 15), "ssthresh starts at window_ 20");
    t
}

/// Dupacks of 6 for segments 8.. at t = 0.40, 0.41, ..., the first at index `first`.
fn dupacks(t: &mut Tcp, first: usize, n: usize) -> Vec<Vec<i64>> {
    (first..first + n).map(|i| t.sends(|t| t.ack(0.4 + 0.01 * i as f64, 6, &[]))).collect()
}

#[test]
fn all_variants_slow_start_by_one_per_ack() {
    for v in [TcpVariant::Tahoe, TcpVariant::Reno, TcpVariant::NewReno, TcpVariant::Sack1] {
        let t = at_cwnd_8(v);
        assert_eq!(t.net.sent.iter().filter(|p| p.seq > 0).map(|p| p.size).max(), Some(1040), "{v:?}");
    }
}

/// Segment 7 lost at cwnd 8. Dupacks 1 and 2 send one new segment each (Limited Transmit,
/// singledup_ 1: while next <= highest_ack + cwnd + dupacks, 15 <= 6+8+1 and 16 <= 6+8+2).
/// The third: ssthresh = win/2 = 4, cwnd 1, go back to 7 (the notes, 2.1: "one drop at
/// cwnd 30: ssthresh 15, cwnd 1"). Later dupacks send nothing (window 1, no inflation), and
/// the ACK of everything (16) opens cwnd to 2 and sends 17, 18.
#[test]
fn tahoe_three_dupacks_cut_cwnd_to_1_and_go_back_n() {
    let mut t = at_cwnd_8(TcpVariant::Tahoe);
    let sent = dupacks(&mut t, 0, 9);
    assert_eq!(sent, vec![vec![15], vec![16], vec![7], vec![], vec![], vec![], vec![], vec![], vec![]]);
    assert_eq!(t.window(), (1.0, 4, 8));
    assert_eq!(t.s.recover, 16, "recover = maxseq");
    assert_eq!(t.net.stats[0].data_retransmitted, 1);
    assert_eq!(t.sends(|t| t.ack(0.5, 16, &[])), vec![17, 18]);
    assert_eq!(t.window(), (2.0, 4, 19));
}

/// Tahoe with noFastRetrans_: three dupacks do nothing; only the timer recovers.
#[test]
fn tahoe_without_fast_retransmit_ignores_dupacks() {
    let mut t = at_cwnd_8(TcpVariant::Tahoe);
    t.s.p.no_fast_retrans = true;
    let sent = dupacks(&mut t, 0, 4);
    assert_eq!(sent, vec![vec![15], vec![16], vec![], vec![]]);
    assert_eq!(t.window(), (8.0, 20, 17));
}

/// Reno (the notes, 2.2): the third dupack halves (ssthresh 4, cwnd 4), retransmits 7 and sets
/// dupwnd 3; each later dupack adds one, and the usable window int(cwnd) + dupwnd lets new
/// data go once 17 <= 6 + 4 + dupwnd, i.e. at dupacks 7, 8, 9. The new ACK deflates (dupwnd
/// 0) and grows cwnd as usual: 4 + 1/4, so 20 goes (20 <= 16 + 4).
#[test]
fn reno_fast_retransmit_inflates_then_deflates_on_new_ack() {
    let mut t = at_cwnd_8(TcpVariant::Reno);
    let sent = dupacks(&mut t, 0, 9);
    let expected: Vec<Vec<i64>> =
        vec![vec![15], vec![16], vec![7], vec![], vec![], vec![], vec![17], vec![18], vec![19]];
    assert_eq!(sent, expected);
    assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.dupwnd), (4.0, 4, 9));
    assert!(t.net.event_lines().contains("RENO_FAST_RETX"));
    assert_eq!(t.sends(|t| t.ack(0.5, 16, &[])), vec![20]);
    assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.dupwnd), (4.25, 4, 0));
    assert_eq!(t.s.last_cwnd_action, CwndAction::Exited);
}

/// Reno with a second loss in the window: the retransmission's ACK (8, a partial one) ends
/// recovery anyway; the next three dupacks find highest_ack 8 <= recover 16, and bugFix_
/// forbids a second fast retransmit (the notes, 2.0, 2.2: "multiple drops usually end in a
/// timeout").
#[test]
fn reno_second_loss_waits_for_the_timer() {
    let mut t = at_cwnd_8(TcpVariant::Reno);
    dupacks(&mut t, 0, 9);
    t.ack(0.5, 8, &[]);
    assert_eq!(t.s.dupwnd, 0);
    let sent: Vec<Vec<i64>> = (0..3).map(|i| t.sends(|t| t.ack(0.51 + 0.01 * i as f64, 8, &[]))).collect();
    assert!(sent[2].is_empty(), "no fast retransmit of 9: {sent:?}");
    assert_eq!(t.s.ssthresh, 4, "not halved again");
}

/// NewReno (the notes, 2.3) with segments 7 and 9 lost: as Reno up to the dupacks' end
/// (dupacks for 8, 10..16: 17 and 18 go at dupacks 7 and 8). The retransmitted 7 brings ACK 8
/// < recover 16, a partial ACK: 9 goes at once, dupwnd deflates by 8-6-1 = 1 to 7, cwnd stays
/// 4, and send_much(2) sends 19 (19 <= 8 + 4 + 7). Still in recovery. ACK 18 >= recover exits:
/// dupwnd 0, cwnd 4 + 1/4, and 20..22 go (<= 18 + 4).
#[test]
fn newreno_partial_ack_retransmits_next_hole_and_stays_in_recovery() {
    let mut t = at_cwnd_8(TcpVariant::NewReno);
    let sent = dupacks(&mut t, 0, 8);
    let expected: Vec<Vec<i64>> = vec![vec![15], vec![16], vec![7], vec![], vec![], vec![], vec![17], vec![18]];
    assert_eq!(sent, expected);
    assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.dupwnd, t.s.recover), (4.0, 4, 8, 16));
    assert_eq!(t.sends(|t| t.ack(0.5, 8, &[])), vec![9, 19]);
    assert_eq!((t.s.cwnd, t.s.dupwnd, t.s.dupacks), (4.0, 7, 8));
    assert_eq!(t.s.last_cwnd_action, CwndAction::Dupack, "still in fast recovery");
    assert_eq!(t.sends(|t| t.ack(0.6, 18, &[])), vec![20, 21, 22]);
    assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.dupwnd), (4.25, 4, 0));
    assert_eq!(t.net.stats[0].data_retransmitted, 2);
}

/// A partial ACK restarts the retransmission timer on the first partial ACK only
/// (newreno_changes1_ 1), not on the next.
#[test]
fn newreno_restarts_the_timer_on_the_first_partial_ack_only() {
    let mut t = at_cwnd_8(TcpVariant::NewReno);
    dupacks(&mut t, 0, 8);
    let armed = t.net.armed.len();
    t.ack(0.5, 8, &[]);
    let first = t.net.armed.len() - armed;
    t.ack(0.6, 10, &[]);
    let second = t.net.armed.len() - armed - first;
    assert_eq!((first >= 1, second), (true, 0), "armings: {:?}", &t.net.armed[armed..]);
}

/// Timeout before any ACK (the notes, 1.1 and 2.0): the initial RTO is 3 s, backed off to 6
/// s, then 12 ("retransmissions at 3 s, then +6 s"); the SYN goes again each time. A lost SYN
/// drops windowInit_ to 1, so its ACK opens cwnd to 1 only.
#[test]
fn timeout_of_the_syn_backs_off_and_shrinks_the_initial_window() {
    for v in [TcpVariant::Tahoe, TcpVariant::Reno, TcpVariant::NewReno, TcpVariant::Sack1] {
        let mut t = Tcp::start(v, TcpParams::default());
        assert_eq!(t.net.deadline(TimerKind::Rtx), Some(3.0), "{v:?}");
        let mut at = Vec::new();
        for _ in 0..3 {
            let from = t.net.sent.len();
            at.push(t.timeout());
            assert_eq!(t.net.seqs_since(from), vec![0], "{v:?}");
        }
        assert_eq!(at, vec![3.0, 9.0, 21.0], "{v:?}");
        assert_eq!(t.s.rtt.backoff, 8);
        assert_eq!(t.sends(|t| t.ack(21.1, 0, &[])), vec![1], "{v:?}: windowInit_ 1");
        assert_eq!(t.s.cwnd, 1.0);
    }
}

/// Timeout with data outstanding (the notes, 2.0): ssthresh = win/2, cwnd 1, go back to
/// highest_ack + 1, and the RTO doubles for the next expiry.
#[test]
fn timeout_with_data_outstanding_goes_back_n_and_backs_off() {
    for v in [TcpVariant::Tahoe, TcpVariant::Reno, TcpVariant::NewReno] {
        let mut t = at_cwnd_8(v);
        let armed_at = 0.3;
        let rto = t.net.deadline(TimerKind::Rtx).unwrap() - armed_at;
        let from = t.net.sent.len();
        let at = t.timeout();
        assert_eq!(t.net.seqs_since(from), vec![7], "{v:?}");
        assert_eq!(t.window(), (1.0, 4, 8), "{v:?}");
        let next = t.net.deadline(TimerKind::Rtx).unwrap();
        assert!((next - at - 2.0 * rto).abs() < 1e-9, "{v:?}: next RTO {} after {rto}", next - at);
        assert!(t.net.event_lines().contains("TIMEOUT"));
    }
}

/// Everything ACKed: ns-2's newtimer re-arms the timer anyway (t_seqno_ 3 > ACK 2), and
/// with nothing outstanding its expiry only restarts slow start: cwnd 1, ssthresh and the
/// backoff untouched (the notes, 2.0), nothing sent.
#[test]
fn an_idle_timeout_restarts_slow_start_and_keeps_ssthresh() {
    let mut net = FakePort::default();
    let mut s = Ns2Sender::new(TcpVariant::Reno, TcpParams::default(), None, sender_end(), 0.0);
    s.advance(&mut net, 2); // FTP produce 2: the SYN, then segments 1 and 2
    let mut t = Tcp { s, net };
    t.ack(0.1, 0, &[]);
    assert_eq!(t.net.seqs_since(1), vec![1, 2]);
    t.ack(0.2, 2, &[]);
    assert_eq!((t.s.cwnd, t.s.ssthresh), (3.0, 20));
    assert!(t.net.deadline(TimerKind::Rtx).is_some(), "still armed");
    let sent = t.net.sent.len();
    t.timeout();
    assert_eq!(t.net.sent.len(), sent);
    assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.rtt.backoff), (1.0, 20, 1));
}

/// SACK ACKs of 6 as a Sack1 sink sends them when segments 7 and 9 are lost and 8, 10..16
/// arrive (blocks [left, right), the newest first: tcp/sink.rs's tests check that order).
fn sack_dupacks_7_and_9_lost() -> Vec<Vec<(i64, i64)>> {
    let mut acks = vec![vec![(8, 9)]];
    acks.extend((11..=17).map(|r| vec![(10, r), (8, 9)]));
    acks
}

/// Sack1 (the notes, 2.4), 7 and 9 lost at cwnd 8. Dupacks 1 and 2 carry new SACK
/// information and send 15, 16 (Limited Transmit). The third: recover = maxseq 16, pipe =
/// 16 - 6 - 3 = 7, ssthresh and cwnd 4, retransmit 7. Each later ACK takes one from the pipe
/// and sends while pipe < cwnd: at the 7th dupack (pipe 3) the next hole, 9, at the 8th the
/// new 17. The partial ACK 8 takes two (pipe 2) and sends 18, 19; ACK 17 >= recover ends
/// recovery with cwnd still 4, and the window sends 20, 21 (<= 17 + 4).
#[test]
fn sack1_retransmits_holes_in_order_by_the_pipe() {
    let mut t = at_cwnd_8(TcpVariant::Sack1);
    let sent: Vec<Vec<i64>> = sack_dupacks_7_and_9_lost()
        .iter()
        .enumerate()
        .map(|(i, blocks)| t.sends(|t| t.ack(0.4 + 0.01 * i as f64, 6, blocks)))
        .collect();
    let expected: Vec<Vec<i64>> = vec![vec![15], vec![16], vec![7], vec![], vec![], vec![], vec![9], vec![17]];
    assert_eq!(sent, expected);
    assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.recover, t.s.sack1.as_ref().unwrap().pipe), (4.0, 4, 16, 4));
    assert!(t.s.fastrecov);
    assert_eq!(t.sends(|t| t.ack(0.5, 8, &[(10, 17)])), vec![18, 19]);
    assert_eq!(
        (t.s.sack1.as_ref().unwrap().pipe, t.s.highest_ack, t.s.last_ack),
        (4, 8, 6),
        "a partial ACK moves highest_ack only"
    );
    assert_eq!(t.sends(|t| t.ack(0.6, 17, &[])), vec![20, 21]);
    assert!(!t.s.fastrecov);
    assert_eq!((t.s.cwnd, t.s.ssthresh), (4.0, 4));
    assert_eq!(t.net.stats[0].data_retransmitted, 2);
}

/// Sack1 counts a dupack only if it brings new SACK information: the same blocks again do
/// not move toward a fast retransmit.
#[test]
fn sack1_ignores_dupacks_without_new_sack_information() {
    let mut t = at_cwnd_8(TcpVariant::Sack1);
    for i in 0..4 {
        t.ack(0.4 + 0.01 * i as f64, 6, &[(8, 9)]);
    }
    assert_eq!(t.s.dupacks, 1);
    assert!(!t.s.fastrecov);
}

/// Fack (the notes, 2.5), 7 lost at cwnd 8: dupacks = fack - last_ack - 1 from the highest
/// SACKed segment, no Limited Transmit, so nothing goes until fack is 10; then ssthresh 4 but
/// cwnd 1, and 7 is retransmitted (recover = t_seqno 15). In recovery every ACK opens cwnd
/// (slow start to ssthresh, then 1/cwnd) and data goes while t_seqno <= fack + int(cwnd) -
/// retransmissions in flight: at fack 11 and 12 (cwnd 2, 3) nothing, at 13 (cwnd 4) 15 and
/// 16, at 14 (cwnd 4.25) 17. The retransmission's ACK (14) leaves none in flight: 18 goes.
/// ACK 17 without blocks, past recover, ends recovery.
#[test]
fn fack_restarts_cwnd_at_1_and_slow_starts_inside_recovery() {
    let mut t = at_cwnd_8(TcpVariant::Fack);
    let sent: Vec<Vec<i64>> = (9..=15).map(|r| t.sends(|t| t.ack(0.4 + 0.01 * (r - 9) as f64, 6, &[(8, r)]))).collect();
    let expected: Vec<Vec<i64>> = vec![vec![], vec![], vec![7], vec![], vec![], vec![15, 16], vec![17]];
    assert_eq!(sent, expected);
    assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.recover, t.s.fack_ref().fack), (4.25, 4, 15, 14));
    assert_eq!(t.sends(|t| t.ack(0.5, 14, &[])), vec![18]);
    assert_eq!((t.s.fack_ref().retran_data, t.s.cwnd), (0, 4.25 + 1.0 / 4.25));
    assert!(t.s.fastrecov, "14 < recover 15");
    let c = t.s.cwnd;
    assert_eq!(t.sends(|t| t.ack(0.6, 17, &[])), vec![19, 20, 21]);
    assert!(!t.s.fastrecov);
    assert_eq!(t.s.cwnd, c + 1.0 / c);
}

/// SackRH (tcp-sack-rh.cc), 7 lost at cwnd 8, SACK blocks from 8 on. The first block shows a
/// new hole: RH_EXACT (prior cwnd 8, prior_max_seq = t_seqno 15) and cwnd falls by half of
/// (fack - old fack) + new holes, (2 + 1) / 2, then by 1/2 per ACK as fack advances by one.
/// Data goes while int(cwnd) >= t_seqno - fack + retransmissions in flight; the hole goes
/// once reported 3 times (sack_cnt >= numdupacks_), at fack 11. The first packet after the
/// entry carries CWR. When fack reaches prior_max_seq 15 (block 8..16) RH_EXACT ends
/// (7.10): cwnd 3.5 is below prior/2, ssthresh int(3.5) = 3, and back in RH_INCR the same ACK
/// opens cwnd by 1/3.5 (t_seqno - old fack + retransmissions + 1 >= int(cwnd)). The
/// retransmission's ACK (15) takes it out of flight and opens cwnd again, past 4.
#[test]
fn sackrh_halves_the_rate_while_sack_blocks_arrive() {
    let mut t = at_cwnd_8(TcpVariant::SackRh);
    let mut sent = Vec::new();
    let mut cwnds = Vec::new();
    for r in 9..=16 {
        sent.push(t.sends(|t| t.ack(0.4 + 0.01 * (r - 9) as f64, 6, &[(8, r)])));
        cwnds.push(t.s.cwnd);
    }
    let expected: Vec<Vec<i64>> = vec![vec![], vec![15], vec![], vec![7], vec![], vec![16], vec![], vec![17]];
    assert_eq!(sent, expected);
    assert_eq!(cwnds, vec![6.5, 6.0, 5.5, 5.0, 4.5, 4.0, 3.5, 3.5 + 1.0 / 3.5]);
    let first_new = t.net.sent.iter().find(|p| p.seq == 15).unwrap();
    assert!(first_new.has(flags::CWR), "the first packet after entering rate-halving carries CWR");
    assert_eq!(t.s.rh_ref().rh_state, sackrh::RhState::Incr);
    assert_eq!((t.s.rh_ref().fack, t.s.rh_ref().retran_data, t.s.ssthresh), (15, 1, 3));
    let c = t.s.cwnd;
    assert_eq!(t.sends(|t| t.ack(0.5, 15, &[])), vec![18, 19], "int(cwnd) 4 >= 19 - 15");
    assert_eq!((t.s.rh_ref().fack, t.s.rh_ref().retran_data), (15, 0));
    assert_eq!((t.s.cwnd, t.s.ssthresh), (c + 1.0 / c, 3));
}

/// SackRH without SACK blocks (a plain TCPSink): the first dupack enters RH_EST (cwnd -1/2
/// per dupack, fack estimated as last_ack + dupacks + 1 from the next ACK on); the third
/// marks a new hole, retransmitted at the next chance (dupack 4). When cwnd has reached
/// prior/2 (dupack 9) RH_EST_REPAIR holds it. The ACK past prior_max_seq 15 sets cwnd to
/// (prior cwnd - retransmissions) / 2 = 3.5, ssthresh 3, then opens it by 1/3.5.
#[test]
fn sackrh_estimates_from_plain_dupacks() {
    let mut t = at_cwnd_8(TcpVariant::SackRh);
    let mut cwnds = Vec::new();
    let mut sent = Vec::new();
    for i in 0..9 {
        sent.push(t.sends(|t| t.ack(0.4 + 0.01 * i as f64, 6, &[])));
        cwnds.push(t.s.cwnd);
    }
    let expected: Vec<Vec<i64>> =
        vec![vec![], vec![15, 16], vec![], vec![7], vec![], vec![17], vec![], vec![18], vec![19]];
    assert_eq!(sent, expected);
    assert_eq!(cwnds, vec![7.5, 7.0, 6.5, 6.0, 5.5, 5.0, 4.5, 4.0, 4.0]);
    assert_eq!(t.s.rh_ref().rh_state, sackrh::RhState::EstRepair);
    assert_eq!(t.s.rh_ref().fack, 16, "6 + 9 dupacks + 1");
    assert_eq!(t.sends(|t| t.ack(0.5, 16, &[])), Vec::<i64>::new());
    assert_eq!(t.s.rh_ref().rh_state, sackrh::RhState::Incr);
    assert_eq!((t.s.cwnd, t.s.ssthresh), (3.5 + 1.0 / 3.5, 3));
}

/// SackRH's timeout (7.15): in the middle of rate-halving it first restores the prior cwnd (8),
/// so ssthresh is half of that; cwnd 1, and sending resumes from fack + 1 (no scoreboard: the
/// cumulative ACK, 6) with the timer backed off.
#[test]
fn sackrh_timeout_undoes_rate_halving() {
    let mut t = at_cwnd_8(TcpVariant::SackRh);
    for i in 0..4 {
        t.ack(0.4 + 0.01 * i as f64, 6, &[]);
    }
    assert_eq!((t.s.cwnd, t.s.t_seqno), (6.0, 17));
    assert_eq!(
        t.sends(|t| {
            t.timeout();
        }),
        vec![7]
    );
    assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.t_seqno), (1.0, 4, 8));
    assert_eq!(t.s.rh_ref().rh_state, sackrh::RhState::Incr);
    assert_eq!(t.s.rtt.backoff, 2);
}

/// `ssthresh` is ns-2's `ssthresh_` set after the reset: it replaces window_ as the initial ssthresh.
/// overhead_ (the notes' phase2 test): each burst waits a random delay, overhead times a draw
/// of ns-2's generator, then goes at once. Seed 1's first draw is 0.00034: the SYN waits
/// 0.0034 ms of 10 ms; its ACK's burst waits the second draw's share.
#[test]
fn overhead_delays_each_burst_by_a_draw() {
    let p = TcpParams { overhead: 0.01, ..TcpParams::default() };
    let mut net = FakePort::default();
    let mut s = Ns2Sender::new(TcpVariant::Tahoe, p, None, sender_end(), 0.0).with_jitter(crate::random::Draws::Shared);
    s.send_unlimited(&mut net);
    assert!(net.sent.is_empty(), "the SYN waits");
    let mut draws = tcplab_des::Ns2Rng::seeded(1);
    let first = 0.01 * draws.uniform();
    assert_eq!(net.deadline(TimerKind::DelSnd), Some(first));
    s.send_unlimited(&mut net);
    assert_eq!(net.armed.len(), 1, "no second delay while one is pending");
    net.set_now(first);
    let (kind, _) = net.expire(|net, _, gen| s.on_delsnd_timer(net, gen)).expect("the delayed send");
    assert_eq!((kind, net.seqs_since(0)), (TimerKind::DelSnd, vec![0]));
    net.set_now(0.1);
    s.recv(&mut net, &ack(0, first, &[]));
    assert_eq!(net.sent.len(), 1, "the ACK's burst waits too");
    assert_eq!(net.deadline(TimerKind::DelSnd), Some(0.1 + 0.01 * draws.uniform()));
}

/// max_connects_ 2: the SYN and one retransmission go (at 0 and after rtxcur_init_ 3 s);
/// the third SYN is not sent: no more data, the timer 10000 s away.
#[test]
fn max_connects_gives_up_after_that_many_syns() {
    let mut t = Tcp::start(TcpVariant::Tahoe, TcpParams { max_connects: 2, ..TcpParams::default() });
    assert_eq!(t.timeout(), 3.0);
    assert_eq!(t.net.seqs_since(0), vec![0, 0]);
    let at = t.timeout();
    assert_eq!(t.net.seqs_since(0), vec![0, 0], "no third SYN");
    assert_eq!((t.s.curseq, t.net.deadline(TimerKind::Rtx)), (0, Some(at + 10000.0)));
}

#[test]
fn ssthresh_knob_sets_the_initial_ssthresh() {
    let t = Tcp::start(TcpVariant::Reno, TcpParams { ssthresh: 30, ..TcpParams::default() });
    assert_eq!(t.s.ssthresh, 30);
    let t = Tcp::start(TcpVariant::Reno, TcpParams::default());
    assert_eq!(t.s.ssthresh, 20, "window_");
}

/// `max_connects_` 2: the SYN goes at 0 and again at its timeout; the third SYN is not sent,
/// and the timer is parked 10000 s away with nothing left to send (ns-2's abort).
#[test]
fn max_connects_gives_the_connection_up() {
    let mut t = Tcp::start(TcpVariant::Tahoe, TcpParams { max_connects: 2, ..TcpParams::default() });
    assert_eq!(
        t.sends(|t| {
            t.timeout();
        }),
        vec![0]
    );
    let mut at = 0.0;
    assert_eq!(t.sends(|t| at = t.timeout()), Vec::<i64>::new(), "the third SYN is not sent");
    assert_eq!(t.net.armed.last(), Some(&(TimerKind::Rtx, at + 10_000.0)));
    assert_eq!(t.s.curseq, 0);
    // with no limit (-1, ns-2's default) the SYN goes a third time
    let mut t = Tcp::start(TcpVariant::Tahoe, TcpParams::default());
    t.timeout();
    assert_eq!(
        t.sends(|t| {
            t.timeout();
        }),
        vec![0]
    );
}

/// maxburst_ 1 leaves window unused: the ACK of 0 opens cwnd to 2 but sends only 1, the ACK
/// of 1 (cwnd 3) only 2. A stale ACK of 0 then sends 3 with aggressive_maxburst_ (ns-2's
/// default), and nothing without it: only an ACK at or above last_ack_ is "valid".
#[test]
fn an_old_ack_sends_only_with_aggressive_maxburst() {
    for v in [TcpVariant::Tahoe, TcpVariant::Reno, TcpVariant::NewReno, TcpVariant::Sack1] {
        for aggressive in [true, false] {
            let p = TcpParams { maxburst: 1, aggressive_maxburst: aggressive, ..TcpParams::default() };
            let mut t = Tcp::start(v, p);
            assert_eq!(t.sends(|t| t.ack(0.1, 0, &[])), vec![1], "{v:?}");
            assert_eq!(t.sends(|t| t.ack(0.2, 1, &[])), vec![2], "{v:?}");
            let stale = t.sends(|t| t.ack(0.21, 0, &[]));
            assert_eq!(stale, if aggressive { vec![3] } else { vec![] }, "{v:?}, aggressive {aggressive}");
        }
    }
}

/// After a timeout (cwnd 1, 7 resent, recover 14) the dupacks of 6 for 8..14 still arrive.
/// bugFix_ forbids a fast retransmit (highest_ack 6 <= recover), so with exitFastRetrans_
/// (the default) they change nothing. Without it the third sets dupwnd to numdupacks_ and
/// each later one adds one: window highest_ack + cwnd + dupwnd = 6 + 1 + 3 lets 8..10 go,
/// then 11 and 12 (Newreno: 8, 9, then 10, 11, then 12, two at most per dupack).
#[test]
fn dupacks_after_a_timeout_inflate_only_without_exit_fast_retrans() {
    for v in [TcpVariant::Reno, TcpVariant::NewReno] {
        for exit in [true, false] {
            let mut t = at_cwnd_8(v);
            t.s.p.singledup = false;
            t.s.p.exit_fast_retrans = exit;
            let at = t.timeout();
            let sent: Vec<Vec<i64>> = (1..=5).map(|i| t.sends(|t| t.ack(at + 0.01 * i as f64, 6, &[]))).collect();
            if exit {
                assert_eq!(sent, vec![Vec::<i64>::new(); 5], "{v:?}");
                assert_eq!(t.s.dupwnd, 0);
            } else {
                // Newreno sends at most 2 per dupack (send_much(2))
                let expected: Vec<Vec<i64>> = match v {
                    TcpVariant::Reno => vec![vec![], vec![], vec![8, 9, 10], vec![11], vec![12]],
                    _ => vec![vec![], vec![], vec![8, 9], vec![10, 11], vec![12]],
                };
                assert_eq!(sent, expected, "{v:?}");
                assert_eq!(t.s.dupwnd, 5);
            }
        }
    }
}

/// With timestamps_, an ACK below the timed segment gives an RTT sample through its echo; only
/// with ts_resetRTO_ does that sample end the backoff of a timeout (backoff 2 -> 1).
#[test]
fn ts_reset_rto_ends_the_backoff_on_a_timestamp_sample() {
    for reset in [false, true] {
        let p = TcpParams { timestamps: true, ts_reset_rto: reset, ..TcpParams::default() };
        let mut t = Tcp::start(TcpVariant::Reno, p);
        t.ack(0.1, 0, &[]);
        t.ack(0.2, 1, &[]);
        t.timeout();
        assert_eq!(t.s.rtt.backoff, 2);
        let rtt_seq = t.s.rtt_seq;
        t.ack(t.net.now_secs() + 0.1, 2, &[]);
        assert!(2 < rtt_seq || !t.s.rtt_active, "the ACK ends no timed RTT: rtt_seq {rtt_seq}");
        assert_eq!(t.s.rtt.backoff, if reset { 1 } else { 2 }, "ts_reset_rto {reset}");
    }
}

/// An agent on a node with a radio is never reset by `$ns run` (ns-mobilenode.tcl resets a
/// mobile node's interfaces only): it keeps what TcpAgent::reset() made at its creation from
/// the class's variables, before the script set the instance's. So with `window_ 4` its
/// ssthresh_ stays the class's window_ 20 and it slow-starts past 4 (cwnd 5 where a reset
/// agent, ssthresh 4, grows to 4.25); with `rtxcur_init_ 1` its first timeout is the class's 3 s;
/// `$agent set ssthresh_` still counts. (Found by the WLAN fuzz: conformance/fuzz-cases/
/// wifi_ssthresh_not_reset.json.)
#[test]
fn an_agent_on_a_mobile_node_keeps_the_reset_of_its_creation() {
    let p = TcpParams { window: 4, rtxcur_init: 1.0, ..TcpParams::default() };
    let mobile = Ns2Sender::on_mobile_node(TcpVariant::Reno, p.clone(), &TcpParams::default(), None, sender_end(), 0.5);
    let wired = Ns2Sender::new(TcpVariant::Reno, p.clone(), None, sender_end(), 0.5);
    assert_eq!((mobile.cwnd, mobile.ssthresh, wired.ssthresh), (1.0, 20, 4));
    assert_eq!((mobile.wnd, mobile.p.window, mobile.p.rtxcur_init), (4.0, 4, 1.0), "the instance's variables");
    assert_eq!((mobile.boot_time, wired.boot_time), (0.005, 0.005));
    let set = Ns2Sender::on_mobile_node(
        TcpVariant::Reno,
        TcpParams { ssthresh: 6, ..p },
        &TcpParams::default(),
        None,
        sender_end(),
        0.0,
    );
    assert_eq!(set.ssthresh, 6);
    // the first timeout: the SYN's, after the class's rtxcur_init_ (3 s), not the instance's 1 s
    let mut t = Tcp { s: mobile, net: FakePort::default() };
    t.s.send_unlimited(&mut t.net);
    assert_eq!(t.timeout(), 3.0);
    // class variables the script set (`Agent/TCP set rtxcur_init_ 6`, the scenario's [tcp]) count
    let class = TcpParams { rtxcur_init: 6.0, ..TcpParams::default() };
    let mobile = Ns2Sender::on_mobile_node(TcpVariant::Reno, p, &class, None, sender_end(), 0.5);
    let mut t = Tcp { s: mobile, net: FakePort::default() };
    t.s.send_unlimited(&mut t.net);
    assert_eq!(t.timeout(), 6.0);
}
