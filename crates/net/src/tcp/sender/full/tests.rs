//! A FullTcp agent driven alone through `testing::FakePort`: segments from its peer in, its
//! segments out. ns-2.35's defaults unless a case says otherwise.

use super::*;
use crate::testing::{packet, sender_end, FakePort};

/// An active (not listening) FullTcp (Reno) with ECN on, its SYN sent at time 0.
fn connecting_with_ecn() -> (FullTcp, FakePort) {
    let mut net = FakePort::default();
    let p = TcpParams { ecn: true, ..TcpParams::default() };
    let mut a =
        FullTcp::new(TcpVariant::Full, p, FullParams::default(), sender_end(), End::From, false, 0.0, Draws::Shared);
    a.advance_bytes(&mut net, 1000);
    let syn = net.sent.last().expect("the SYN").clone();
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
