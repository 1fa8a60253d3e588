//! One FullTcp agent driven through `testing::FakePort`: segments from its peer in, segments
//! and timers out. Each case is worked by hand from tcp-full.cc's rules with ns-2's defaults
//! (segsize 536, 40-byte headers, windowInit_ 2 unless a case says otherwise).

use super::*;
use crate::port::TimerKind;
use crate::testing::{packet, receiver_end, sender_end, FakePort};

const MSS: i64 = 536;

/// An agent and its port: `from` end (active opener) unless built with `listening`.
struct Agent {
    a: FullTcp,
    net: FakePort,
}

impl Agent {
    fn new(variant: TcpVariant, p: TcpParams, f: FullParams, listen: bool) -> Agent {
        let (ep, end) = if listen { (receiver_end(), End::To) } else { (sender_end(), End::From) };
        let a = FullTcp::new(variant, p, f, ep, end, listen, 0.0, Draws::Shared);
        Agent { a, net: FakePort::default() }
    }

    /// An active opener with an unlimited backlog, its SYN answered at 0.1 s; no delayed-ACK
    /// timer (it ticks every 100 ms whatever happens).
    fn established(variant: TcpVariant, p: TcpParams) -> Agent {
        let f = FullParams { interval: 0.0, ..FullParams::of(variant, &FullParams::default()) };
        let mut x = Agent::new(variant, p, f, false);
        x.a.send_unlimited(&mut x.net);
        x.recv(0.1, 0, 1, TH_SYN | TH_ACK, 0);
        x
    }

    /// A segment from the peer at time `t`: `seq`, `ack`, header flags, `len` data bytes.
    fn recv(&mut self, t: f64, seq: i64, ack: i64, flags: u8, len: u32) {
        self.recv_sack(t, seq, ack, flags, len, &[]);
    }

    fn recv_sack(&mut self, t: f64, seq: i64, ack: i64, flags: u8, len: u32, sack: &[(i64, i64)]) {
        self.net.set_now(t);
        let mut p =
            Packet { seq, size: 40 + len, payload: len, ackno: ack as i32, tcp_flags: flags, hlen: 40, ..packet() };
        p.set_sack_blocks(sack);
        self.a.recv(&mut self.net, &p);
    }

    /// (seqno, ackno, flags, data bytes) of what was sent since packet `from`.
    fn sent_since(&self, from: usize) -> Vec<(i64, i64, u8, i64)> {
        self.net.sent[from..]
            .iter()
            .map(|p| (p.seq, p.ackno as i64, p.tcp_flags, (p.size - p.hlen as u32) as i64))
            .collect()
    }

    fn sends(&mut self, f: impl FnOnce(&mut Agent)) -> Vec<(i64, i64, u8, i64)> {
        let from = self.net.sent.len();
        f(self);
        self.sent_since(from)
    }

    /// Data seqnos sent by `f`.
    fn data_sends(&mut self, f: impl FnOnce(&mut Agent)) -> Vec<i64> {
        self.sends(f).into_iter().filter(|s| s.3 > 0).map(|s| s.0).collect()
    }

    /// The next timer expiry the agent takes.
    fn expire(&mut self) -> (TimerKind, f64) {
        let a = &mut self.a;
        self.net
            .expire(|net, kind, gen| match kind {
                TimerKind::Full(_, which) => a.on_timer(net, which, gen),
                other => panic!("{other:?} is not a FullTcp timer"),
            })
            .expect("a pending timer")
    }
}

fn seg(n: i64) -> i64 {
    1 + n * MSS // byte seqno of data segment n (the SYN takes seqno 0)
}

#[test]
fn the_active_open_sends_a_syn_then_an_ack_and_the_initial_window() {
    let mut x = Agent::new(TcpVariant::Full, TcpParams::default(), FullParams::default(), false);
    x.a.send_unlimited(&mut x.net);
    assert_eq!(x.sent_since(0), vec![(0, -1, TH_SYN | TH_PUSH, 0)], "a dataless SYN, pushed");
    assert_eq!(x.net.sent[0].kind, Kind::Tcp);
    // the SYN+ACK: ns-2 ACKs it with a pure ACK, then sends windowInit_ 2 segments
    let out = x.sends(|x| x.recv(0.1, 0, 1, TH_SYN | TH_ACK, 0));
    assert_eq!(out, vec![(1, 1, TH_ACK, 0), (seg(0), 1, TH_ACK, MSS), (seg(1), 1, TH_ACK, MSS)]);
    assert_eq!(x.a.state, State::Established);
}

#[test]
fn a_listener_answers_a_syn_with_a_syn_ack_as_ack_packets() {
    let f = FullParams { iss: 2144, ..FullParams::default() };
    let mut x = Agent::new(TcpVariant::Full, TcpParams::default(), f, true);
    let out = x.sends(|x| x.recv(0.1, 0, -1, TH_SYN, 0));
    // pushed: a listener with nothing to send empties its buffer with every segment
    assert_eq!(out, vec![(2144, 1, TH_SYN | TH_ACK | TH_PUSH, 0)]);
    assert_eq!(x.net.sent[0].kind, Kind::Ack, "a listener's packets are ns-2's `ack` type");
    assert_eq!(x.a.state, State::SynReceived);
    // the handshake's ACK completes it, nothing to send back
    assert!(x.sends(|x| x.recv(0.2, 1, 2145, TH_ACK, 0)).is_empty());
    assert_eq!(x.a.state, State::Established);
}

#[test]
fn in_order_data_is_acked_every_segsperack_segments_or_by_the_delack_tick() {
    let f = FullParams { segsperack: 2, ..FullParams::default() };
    let mut x = Agent::new(TcpVariant::Full, TcpParams::default(), f, true);
    x.recv(0.01, 0, -1, TH_SYN, 0);
    x.recv(0.02, 1, 1, TH_ACK, 0);
    // header prediction takes the first segment and owes an ACK; the second makes two
    assert!(x.sends(|x| x.recv(0.03, 1, 1, TH_ACK, 536)).is_empty());
    assert_eq!(x.sends(|x| x.recv(0.04, 537, 1, TH_ACK, 536)), vec![(1, 1073, TH_ACK | TH_PUSH, 0)]);
    // a third alone waits for the delayed-ACK timer, which ticks at multiples of 100 ms
    assert!(x.sends(|x| x.recv(0.05, 1073, 1, TH_ACK, 536)).is_empty());
    let from = x.net.sent.len();
    assert_eq!(x.expire(), (TimerKind::Full(End::To, FullTimer::DelAck), 0.1));
    assert_eq!(x.sent_since(from), vec![(1, 1609, TH_ACK | TH_PUSH, 0)]);
    assert_eq!(x.net.stats[0].goodput_bytes, 3 * 536);
}

#[test]
fn out_of_order_data_is_acked_at_once_and_a_filled_hole_releases_the_queue() {
    let mut x = Agent::new(
        TcpVariant::FullSack,
        TcpParams::default(),
        FullParams::of(TcpVariant::FullSack, &FullParams::default()),
        true,
    );
    x.recv(0.01, 0, -1, TH_SYN, 0);
    x.recv(0.02, 1, 1, TH_ACK, 0);
    // segment 1 lost: 2 and 3 each get an immediate ACK of 1 with the SACK block, newest first
    let out = x.sends(|x| x.recv(0.03, seg(1), 1, TH_ACK, 536));
    assert_eq!(out, vec![(1, 1, TH_ACK | TH_PUSH, 0)]);
    assert_eq!(x.net.sent.last().unwrap().hlen, 40 + 2 + 8, "one SACK block in the options");
    assert_eq!(&*x.net.sent.last().unwrap().sack_blocks(), &[(seg(1), seg(2))]);
    x.recv(0.04, seg(3), 1, TH_ACK, 536);
    assert_eq!(&*x.net.sent.last().unwrap().sack_blocks(), &[(seg(3), seg(4)), (seg(1), seg(2))]);
    // the hole at segment 0 fills: rcv_nxt jumps past 1; the ACK carries the block left
    let out = x.sends(|x| x.recv(0.05, seg(0), 1, TH_ACK, 536));
    assert_eq!(out, vec![(1, seg(2), TH_ACK | TH_PUSH, 0)]);
    assert_eq!(&*x.net.sent.last().unwrap().sack_blocks(), &[(seg(3), seg(4))]);
}

/// Reno: three dupacks halve the window, retransmit, and set cwnd to ssthresh + 3; further
/// dupacks inflate by one; the new ACK deflates to ssthresh (and opens it as usual).
#[test]
fn reno_fast_retransmit_inflates_and_deflates() {
    let mut x = Agent::established(TcpVariant::Full, TcpParams { window: 100, ..TcpParams::default() });
    // slow start to cwnd 8: ACK segments 0..6 one at a time (each opens cwnd by one)
    for n in 1..=6 {
        x.recv(0.2 + n as f64 * 0.001, 1, seg(n), TH_ACK, 0);
    }
    assert_eq!(x.a.tcp.cwnd, 8.0);
    let highest = seg(6);
    assert_eq!(
        x.data_sends(|x| (0..2).for_each(|i| x.recv(0.3 + i as f64 * 0.001, 1, highest, TH_ACK, 0))),
        Vec::<i64>::new()
    );
    let out = x.sends(|x| x.recv(0.303, 1, highest, TH_ACK, 0));
    assert_eq!(out.first().map(|s| (s.0, s.3)), Some((highest, MSS)), "segment 6 again");
    assert_eq!((x.a.tcp.ssthresh, x.a.tcp.cwnd), (4, 4.0 + 3.0));
    x.recv(0.304, 1, highest, TH_ACK, 0);
    assert_eq!(x.a.tcp.cwnd, 8.0, "inflated by the fourth dupack");
    x.recv(0.4, 1, seg(14), TH_ACK, 0);
    // deflated to ssthresh 4, then opened by 1/cwnd as any new ACK opens it
    assert_eq!(x.a.tcp.cwnd, 4.25);
    assert!(!x.a.fastrecov);
}

/// Tahoe: the third dupack sets cwnd to 1 and sends from the hole again (go-back-N).
#[test]
fn tahoe_dupacks_slow_start_from_the_hole() {
    let mut x = Agent::established(TcpVariant::FullTahoe, TcpParams { window: 100, ..TcpParams::default() });
    x.recv(0.2, 1, seg(2), TH_ACK, 0);
    x.recv(0.21, 1, seg(2), TH_ACK, 0);
    x.recv(0.22, 1, seg(2), TH_ACK, 0);
    let out = x.data_sends(|x| x.recv(0.23, 1, seg(2), TH_ACK, 0));
    assert_eq!(out, vec![seg(2)]);
    assert_eq!((x.a.tcp.cwnd, x.a.tcp.t_seqno), (1.0, seg(3)));
}

/// Newreno: a partial ACK retransmits the next hole and sets cwnd to ssthresh, and recovery
/// limits bursts to recov_maxburst_.
#[test]
fn newreno_partial_ack_retransmits_the_next_hole() {
    let mut x = Agent::established(TcpVariant::FullNewReno, TcpParams { window: 100, ..TcpParams::default() });
    for n in 1..=6 {
        x.recv(0.2 + n as f64 * 0.001, 1, seg(n), TH_ACK, 0);
    }
    for i in 0..3 {
        x.recv(0.3 + i as f64 * 0.001, 1, seg(6), TH_ACK, 0);
    }
    let out = x.data_sends(|x| x.recv(0.4, 1, seg(9), TH_ACK, 0));
    assert_eq!(out.first(), Some(&seg(9)), "the next hole first");
    assert_eq!(x.a.tcp.cwnd, x.a.tcp.ssthresh as f64);
    assert_eq!(x.a.maxburst, 2);
}

#[test]
fn a_timeout_goes_back_to_the_first_unacked_byte_with_cwnd_one() {
    let mut x = Agent::established(TcpVariant::Full, TcpParams::default());
    let from = x.net.sent.len();
    let (kind, at) = x.expire();
    assert_eq!(kind, TimerKind::Full(End::From, FullTimer::Rtx));
    assert!(at > 0.1);
    assert_eq!(x.sent_since(from).first().map(|s| s.0), Some(seg(0)));
    assert_eq!((x.a.tcp.cwnd, x.a.tcp.ssthresh), (1.0, 2));
}

#[test]
fn close_sends_the_fin_after_the_data_and_waits_for_its_ack() {
    let f = FullParams { interval: 0.0, ..FullParams::default() };
    let mut x = Agent::new(TcpVariant::Full, TcpParams::default(), f, false);
    x.a.advance_bytes(&mut x.net, 100);
    x.recv(0.1, 0, 1, TH_SYN | TH_ACK, 0);
    assert_eq!(x.sent_since(1), vec![(1, 1, TH_ACK, 0), (1, 1, TH_ACK | TH_PUSH, 100)]);
    let out = x.sends(|x| x.a.close(&mut x.net));
    assert_eq!(out, vec![(101, 1, TH_FIN | TH_ACK | TH_PUSH, 0)]);
    assert_eq!(x.a.state, State::FinWait1);
    x.recv(0.2, 1, 102, TH_ACK, 0);
    assert_eq!(x.a.state, State::FinWait2);
    // the peer's FIN: ACKed, and the connection is closed
    assert_eq!(x.sends(|x| x.recv(0.3, 1, 102, TH_FIN | TH_ACK, 0)), vec![(102, 2, TH_ACK | TH_PUSH, 0)]);
    assert_eq!(x.a.state, State::Closed);
}

// ----- ECN at the handshake -----

/// An active (not listening) FullTcp (Reno) with ECN on, its SYN sent at time 0.
fn connecting_with_ecn() -> (FullTcp, FakePort) {
    let mut net = FakePort::default();
    let p = TcpParams { ecn: true, ..TcpParams::default() };
    let mut a =
        FullTcp::new(TcpVariant::Full, p, FullParams::default(), sender_end(), End::From, false, 0.0, Draws::Shared);
    a.advance_bytes(&mut net, 1000);
    let syn = *net.sent.last().expect("the SYN");
    assert_eq!(syn.tcp_flags, TH_SYN | TH_PUSH | TH_ECE | TH_CWR, "an ECN-setup SYN (0xca)");
    (a, net)
}

/// The peer's SYN+ACK (iss 0) agreeing to ECN, with `ecn` flags as the network left them.
fn syn_ack(ecn: u8) -> Packet {
    Packet { kind: Kind::Ack, seq: 0, ackno: 1, tcp_flags: TH_SYN | TH_ACK | TH_ECE, flags: ecn, hlen: 40, ..packet() }
}

/// tcp-full.cc's sendpacket writes the header flags before adding ECE for a CE it saw: the
/// pure ACK of a CE-marked SYN+ACK echoes the mark in hdr_flags only (ns-2 traces it
/// `C------ ... 0x10`), while a later segment's output adds ECE to both.
#[test]
fn ack_of_a_marked_syn_ack_echoes_ce_outside_the_header() {
    let (mut a, mut net) = connecting_with_ecn();
    let from = net.sent.len();
    net.set_now(0.1);
    a.recv(&mut net, &syn_ack(flags::ECN_ECHO | flags::CE));
    let ack = &net.sent[from];
    assert_eq!((ack.seq, ack.ackno, ack.payload), (1, 1, 0), "the handshake's pure ACK");
    assert_eq!(ack.tcp_flags, TH_ACK, "no ECE in the header");
    assert_ne!(ack.flags & flags::ECN_ECHO, 0, "the echo in hdr_flags");
    let data = net.sent[from + 1..].first().expect("data follows");
    assert!(data.payload > 0);
    assert_eq!(data.tcp_flags & TH_ECE, TH_ECE, "output's own ECE reaches the header");
}

/// Without a mark, the handshake's ACK carries no echo at all.
#[test]
fn ack_of_an_unmarked_syn_ack_has_no_echo() {
    let (mut a, mut net) = connecting_with_ecn();
    let from = net.sent.len();
    net.set_now(0.1);
    a.recv(&mut net, &syn_ack(flags::ECN_ECHO));
    let ack = &net.sent[from];
    assert_eq!((ack.tcp_flags, ack.flags & flags::ECN_ECHO), (TH_ACK, 0));
}

/// A listening FullTcp (Reno) with ECN and ecn_syn_ on, `wait` its ecn_syn_wait_, that got an
/// ECN-setup SYN at 0 and answered it with an ECN-capable SYN+ACK; 20 segments wait to go.
fn listening_with_ecn_syn(wait: u32) -> (FullTcp, FakePort) {
    let mut net = FakePort::default();
    let p = TcpParams { ecn: true, ..TcpParams::default() };
    let f = FullParams { ecn_syn: true, ecn_syn_wait: wait, ..FullParams::default() };
    let mut a = FullTcp::new(TcpVariant::Full, p, f, sender_end(), End::To, true, 0.0, Draws::Shared);
    let syn = Packet {
        seq: 0,
        ackno: -1,
        tcp_flags: TH_SYN | TH_PUSH | TH_ECE | TH_CWR,
        flags: flags::ECN_ECHO | flags::CWR,
        hlen: 40,
        ..packet()
    };
    a.recv(&mut net, &syn);
    let syn_ack = net.sent.last().expect("the SYN+ACK");
    assert_eq!((syn_ack.tcp_flags & TH_SYN, syn_ack.flags & flags::ECT), (TH_SYN, flags::ECT));
    a.advance_bytes(&mut net, 20 * 536);
    (a, net)
}

/// ecn_syn_wait_ 1 (tcp-full.cc, SYN_RECEIVED): a marked SYN+ACK (the ACK echoes ECN) opens
/// with cwnd 1 and sets use_rtt_, so the timer the ACK arms is the bare estimate (rtxcur_,
/// here 0.15 s from the 0.05 s handshake) rather than minrto_ 0.2 s; the flag lasts one arming.
#[test]
fn marked_syn_ack_with_ecn_syn_wait_1_times_out_after_the_bare_rtt() {
    let mut rtos = Vec::new();
    for wait in [1, 0] {
        let (mut a, mut net) = listening_with_ecn_syn(wait);
        net.set_now(0.05);
        let ack = Packet { seq: 1, ackno: 1, tcp_flags: TH_ACK, flags: flags::ECN_ECHO, hlen: 40, ..packet() };
        a.recv(&mut net, &ack);
        let (_, deadline) = *net.armed.iter().rev().find(|(k, _)| *k == a.timer(FullTimer::Rtx)).expect("an RTO");
        rtos.push(((deadline - 0.05) * 1000.0).round() / 1000.0);
        assert!(!a.use_rtt, "use_rtt_ lasts one timeout");
    }
    assert_eq!(rtos, vec![0.15, 0.2], "wait 1: rtxcur_; wait 0: minrto_");
}
