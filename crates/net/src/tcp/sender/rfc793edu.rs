//! ns-2's `Agent/TCP/RFC793edu` (tcp-rfc793edu.cc), an educational TCP: RFC 793's sender, with
//! each later mechanism a knob (`add793*`, in `TcpParams`). Its own ACK handler, window
//! increase, RTO and backoff rules and send-time RTT sampling; everything else is `TcpAgent`'s.

use super::Ns2Sender;
use crate::packet::{flags, Kind, Packet};
use crate::port::Port;
use crate::scenario::TcpParams;

/// What an RFC793edu sender keeps beyond `TcpAgent`'s state.
pub(super) struct Rfc793eduState {
    /// The retransmission timeout before backoff, in ticks (ns-2's `rto_`).
    rto: f64,
}

impl Rfc793eduState {
    pub(super) fn new(p: &TcpParams) -> Self {
        let mut s = Rfc793eduState { rto: 0.0 };
        s.reset(p);
        s
    }

    /// The part of the agent's reset that is its own.
    pub(super) fn reset(&mut self, p: &TcpParams) {
        self.rto = p.rtxcur_init / p.tcp_tick;
    }
}

impl Ns2Sender {
    fn rfc793edu_mut(&mut self) -> &mut Rfc793eduState {
        self.rfc793edu.as_mut().expect("an RFC793edu sender")
    }

    /// `RFC793eduTcpAgent::recv`: `TcpAgent::recv` without F-RTO, Limited Transmit or the
    /// test for ACKs from before a reset, and with fast retransmit only by `add793fastrtx`.
    pub(super) fn rfc793edu_recv(&mut self, net: &mut impl Port, ack: &Packet) {
        let seq = ack.seq;
        self.ts_peer = ack.ts;
        if ack.has(flags::ECN_ECHO) && self.p.ecn {
            self.ecn(net, seq);
        }
        if seq > self.last_ack {
            self.full_newack(net, ack);
        } else if seq == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.p.numdupacks as i64 && self.p.add793fastrtx {
                self.dupack_action(net);
            }
        }
        self.send_much(net, self.p.maxburst);
    }

    /// `RFC793eduTcpAgent::opencwnd`: no window knob, the whole window at once; else slow
    /// start (or with `add793exponinc`, straight to ssthresh) below ssthresh and the standard
    /// increase above it (with `add793additiveinc` alone, straight to ssthresh below it).
    pub(super) fn rfc793edu_opencwnd(&mut self, net: &mut impl Port) {
        let p = &self.p;
        let below = self.cwnd < self.ssthresh as f64;
        let cwnd = if !(p.add793slowstart || p.add793exponinc || p.add793additiveinc) {
            self.wnd
        } else if (below && !p.add793additiveinc) || p.add793exponinc {
            if p.add793exponinc && below {
                self.ssthresh as f64
            } else {
                self.cwnd + 1.0
            }
        } else if p.add793additiveinc && below {
            self.ssthresh as f64
        } else {
            // windowOption_ 1, the only one validation lets through
            self.cwnd + 1.0 / self.cwnd
        };
        self.set_cwnd_clamped(net, cwnd);
    }

    /// `RFC793eduTcpAgent::rtt_update`'s own part, after the estimator has taken the sample:
    /// the RTO is Jacobson's, or RFC 793's twice the smoothed RTT.
    pub(super) fn rfc793edu_rto(&mut self) {
        let p = &self.p;
        let rto = if p.add793jacobsonrtt {
            let shift = p.rttvar_exp + p.srtt_bits - p.rttvar_bits;
            ((self.rtt.rttvar << shift) + self.rtt.srtt) >> p.srtt_bits
        } else {
            self.rtt.srtt >> (p.srtt_bits - 1)
        };
        let tick = p.tcp_tick;
        self.rfc793edu_mut().rto = rto as f64;
        self.rtt.rtxcur = rto as f64 * tick;
    }

    /// `RFC793eduTcpAgent::rtt_backoff`: `TcpAgent`'s doubling up to 64 with
    /// `add793expbackoff` (whatever RFC 2988 says), else no backoff at all.
    pub(super) fn rfc793edu_backoff(&mut self) {
        let e = &mut self.rtt;
        if !self.p.add793expbackoff {
            e.backoff = 1;
            return;
        }
        if e.backoff < 64 {
            e.backoff <<= 1;
        }
        if e.backoff > 8 {
            e.rttvar += e.srtt >> self.p.srtt_bits;
            e.srtt = 0;
        }
    }

    /// `RFC793eduTcpAgent::output`: a SYN counts no sequence number, data carries no headers
    /// (whatever `use_headers` says), and without `add793karnrtt` a retransmission is timed.
    pub(super) fn rfc793edu_output(&mut self, net: &mut impl Port, seqno: i64) {
        let f = self.ecn_flags(seqno);
        let (size, payload) = if seqno == 0 && self.p.syn {
            (self.p.tcpip_base_hdr_size, 0)
        } else {
            (self.p.packet_size, self.p.packet_size)
        };
        let force_set_rtx_timer = self.highest_ack == self.maxseq;
        self.ep.send(net, Kind::Tcp, |p| {
            (p.size, p.payload, p.seq, p.flags, p.ts_echo) = (size, payload, seqno, f, self.ts_peer)
        });
        if seqno <= self.maxseq && !self.p.add793karnrtt {
            self.rtt_active = true;
            self.rtt_seq = seqno;
            self.rtt_ts = net.now_secs();
        }
        self.note_sent(net, seqno);
        if !self.rtx_timer.pending() || force_set_rtx_timer {
            self.set_rtx_timer(net);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::Tcp;
    use super::*;
    use crate::port::TimerKind;
    use crate::scenario::TcpVariant;

    fn rfc793edu(p: TcpParams) -> Tcp {
        Tcp::start(TcpVariant::Rfc793edu, p)
    }

    /// Without slow start or either increase knob, the first new ACK opens cwnd to window_ 20
    /// (RFC 793 has no congestion window; delay_growth_ would set the initial window after it):
    /// the initial window of 2 sent seqnos 0 and 1, the ACK of 0 lets 2..20 go.
    #[test]
    fn without_window_knobs_the_whole_window_goes_at_once() {
        let mut t = rfc793edu(TcpParams { delay_growth: false, ..TcpParams::default() });
        assert_eq!(t.sends(|t| t.ack(0.1, 0, &[])), (2..=20).collect::<Vec<_>>());
        assert_eq!(t.s.cwnd, 20.0);
    }

    /// A first sample of 0.1 s is 10 ticks of 10 ms: srtt 80 (x8), rttvar 20 (x4). RFC 793's
    /// RTO is twice srtt, 20 ticks; Jacobson's is srtt + 4 rttvar, (80 + 20 << 3) >> 3 = 30.
    #[test]
    fn the_rto_is_rfc793s_or_jacobsons() {
        for (jacobson, rto) in [(false, 0.2), (true, 0.3)] {
            let mut t = rfc793edu(TcpParams { add793jacobsonrtt: jacobson, ..TcpParams::default() });
            t.ack(0.1, 0, &[]);
            assert_eq!((t.s.rtt.srtt, t.s.rtt.rttvar), (80, 20));
            assert!((t.s.rtt.rtxcur - rto).abs() < 1e-12, "jacobson {jacobson}: {}", t.s.rtt.rtxcur);
        }
    }

    /// A fast retransmit within the window an ECN-echo already cut is TcpAgent's (Tahoe's):
    /// cwnd 1 and go back to the first unacknowledged segment, which the window of 1 resends
    /// (Reno's would keep half the window and inflate it).
    #[test]
    fn a_dupack_after_an_ecn_cut_goes_back_as_tahoe() {
        let p = TcpParams { ecn: true, add793fastrtx: true, delay_growth: false, ..TcpParams::default() };
        let mut t = rfc793edu(p);
        t.ack(0.1, 0, &[]); // cwnd 20: 2..20 go
        let echo = Packet { flags: flags::ECN_ECHO, ..crate::testing::ack(1, 0.0, &[]) };
        t.net.set_now(0.2);
        t.s.recv(&mut t.net, &echo); // the cut: recover = 20
        let sent = t.sends(|t| (0..3).for_each(|i| t.ack(0.3 + 0.01 * i as f64, 1, &[])));
        assert_eq!((t.s.cwnd, t.s.dupwnd, sent), (1.0, 0, vec![2]));
    }

    /// The SYN times out at rtxcur_init_ 3 s: with add793expbackoff the next timeout is twice
    /// as far, without it as far again. Without add793karnrtt the retransmission is timed.
    #[test]
    fn backoff_and_karn_are_knobs() {
        let mut t = rfc793edu(TcpParams::default());
        assert_eq!(t.timeout(), 3.0);
        assert_eq!(t.net.deadline(TimerKind::Rtx), Some(9.0), "backed off to 6 s");
        assert!(!t.s.rtt_active || t.s.rtt_ts == 0.0, "Karn: the retransmission is not timed");

        let p = TcpParams { add793expbackoff: false, add793karnrtt: false, ..TcpParams::default() };
        let mut t = rfc793edu(p);
        assert_eq!(t.timeout(), 3.0);
        assert_eq!(t.net.deadline(TimerKind::Rtx), Some(6.0), "no backoff");
        assert_eq!((t.s.rtt_active, t.s.rtt_seq, t.s.rtt_ts), (true, 0, 3.0), "the retransmission is timed");
    }
}
