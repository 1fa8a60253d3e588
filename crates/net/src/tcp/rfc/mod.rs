//! The rfc profile's TCP sender: RFC 5681 and RFC 6582 (NewReno) loss recovery with Limited
//! Transmit (RFC 3042), RFC 6298's timer, RFC 3168 ECN, RTT samples from timestamps (RFC 7323),
//! and a congestion controller and optional pacer from `tcplab_cc` that decide the window.
//!
//! The sender owns the protocol (what is outstanding, what to retransmit, when); the controller
//! owns the policy (how big the window is). Sequence numbers count segments, as ns-2's do, so
//! the rfc sender talks to the same sinks as the ns-2 agents. There is no handshake: data starts
//! at segment 0 when the application starts.

mod receiver;
pub use receiver::RfcSink;

use super::{Ftp, TcpState};
use crate::packet::{flags, Kind, Packet};
use crate::port::{Endpoint, Port, TimerKind};
use crate::scenario::{TcpConfig, TcpVariant};
use tcplab_cc::{Ack, CongestionControl, Controller, Fast, NewReno, Pacer, Rto, Signal, Vegas};
use tcplab_des::Timer;

mod cwnd_use;
#[cfg(test)]
mod mechanisms_together;
mod modern;
mod pacing;
mod prr;
mod rack;
mod rate;
mod rtt;
mod sack;
mod undo;

pub use modern::ModernSender;

/// Fast recovery in progress (RFC 6582).
#[derive(Debug, Clone, Copy)]
struct Recovery {
    /// The highest segment sent when recovery began; an ACK beyond it ends recovery.
    recover: i64,
    /// Segments the window is inflated by: the duplicate ACKs, less what partial ACKs deflate.
    inflation: f64,
    first_partial: bool,
}

pub struct RfcSender {
    ep: Endpoint,
    cc: Controller,
    pacer: Option<Pacer>,
    rto: Rto,
    rtx_timer: Timer,
    pace_timer: Timer,

    payload: u32,
    header: u32,
    /// The receiver's window (`window`), and `max_cwnd` (0: none), in segments.
    rwnd: f64,
    max_cwnd: f64,
    maxburst: u32,
    dupthresh: u32,
    limited_transmit: bool,
    ecn: bool,

    /// First unacknowledged segment, next segment to send, highest segment sent.
    snd_una: i64,
    snd_nxt: i64,
    maxseq: i64,
    /// The application has handed over segments below this one.
    curseq: i64,
    dupacks: u32,
    recovery: Option<Recovery>,
    /// RFC 6582's `recover`: no new fast retransmit until an ACK passes it.
    recover: i64,
    /// No second ECN reaction until an ACK passes this segment.
    ecn_recover: i64,
    /// Set CWR on the next new segment.
    cwr: bool,
    traced: (f64, i64),
}

impl RfcSender {
    pub fn new(cfg: &TcpConfig, ep: Endpoint) -> RfcSender {
        let p = &cfg.params;
        let initial = p.initial_window();
        let cc = match cfg.variant {
            TcpVariant::Vegas => Controller::Vegas(Vegas::new(cfg.vegas.clone().unwrap_or_default(), initial)),
            TcpVariant::Fast => Controller::Fast(Fast::new(cfg.fast.clone().unwrap_or_default(), initial)),
            _ => Controller::NewReno(NewReno::new(initial)),
        };
        RfcSender {
            ep,
            cc,
            pacer: cfg.pacing.clone().map(Pacer::new),
            rto: Rto::new(p.rtxcur_init, p.minrto, p.maxrto),
            rtx_timer: Timer::default(),
            pace_timer: Timer::default(),
            payload: p.packet_size,
            header: p.tcpip_base_hdr_size,
            rwnd: p.window as f64,
            max_cwnd: p.max_cwnd as f64,
            maxburst: p.maxburst,
            dupthresh: p.numdupacks,
            limited_transmit: p.singledup,
            ecn: p.ecn,
            snd_una: 0,
            snd_nxt: 0,
            maxseq: -1,
            curseq: 0,
            dupacks: 0,
            recovery: None,
            recover: -2, // "the initial send sequence number", one before segment 0's ACK
            ecn_recover: -1,
            cwr: false,
            traced: (f64::NAN, 0),
        }
    }

    /// The window in segments: cwnd (inflated during recovery) within max_cwnd and the receiver's.
    fn cwnd(&self) -> f64 {
        let mut w = self.cc.cwnd() + self.recovery.map_or(0.0, |r| r.inflation);
        if self.max_cwnd > 0.0 {
            w = w.min(self.max_cwnd);
        }
        w.min(self.rwnd)
    }

    fn flight(&self) -> f64 {
        (self.maxseq + 1 - self.snd_una) as f64
    }

    /// Writes cwnd and ssthresh to the cwnd trace when either changed. As in ns-2's trace of
    /// `cwnd_`, the window is the controller's, without the inflation of fast recovery.
    pub fn trace_cwnd(&mut self, net: &mut impl Port) {
        let now = (self.cc.cwnd().min(self.rwnd), self.cc.ssthresh().min(self.rwnd) as i64);
        if now != self.traced {
            net.trace_cwnd(&self.ep, now.0, now.1);
        }
        self.traced = now;
    }

    // ----- sending -----

    fn send_much(&mut self, net: &mut impl Port) {
        let mut sent = 0;
        while self.snd_nxt < self.curseq && ((self.snd_nxt - self.snd_una) as f64) < self.cwnd().floor().max(1.0) {
            if self.snd_nxt > self.maxseq && self.held_by_pacer(net) {
                break;
            }
            self.output(net, self.snd_nxt);
            self.snd_nxt += 1;
            sent += 1;
            if self.maxburst > 0 && sent == self.maxburst {
                break;
            }
        }
    }

    fn held_by_pacer(&mut self, net: &mut impl Port) -> bool {
        let cwnd = self.cc.cwnd();
        super::held_by_pacer(&mut self.pacer, &mut self.pace_timer, net, self.ep.flow, cwnd)
    }

    fn output(&mut self, net: &mut impl Port, seq: i64) {
        let new = seq > self.maxseq;
        let mut f = 0;
        // RFC 3168 §6.1.5: retransmissions are not ECN-capable; CWR rides on new data.
        if self.ecn && new {
            f |= flags::ECT;
            if self.cwr {
                f |= flags::CWR;
                self.cwr = false;
            }
        }
        self.ep.send(net, Kind::Tcp, |p| {
            (p.size, p.payload, p.seq, p.flags) = (self.payload + self.header, self.payload, seq, f)
        });
        if new {
            self.maxseq = seq;
            let cwnd = self.cc.cwnd();
            if let Some(p) = &mut self.pacer {
                p.on_send(net.now_secs(), cwnd);
            }
        } else {
            net.flow_stats(self.ep.flow).data_retransmitted += 1;
        }
        if !self.rtx_timer.pending() {
            self.arm_rtx(net);
        }
    }

    fn arm_rtx(&mut self, net: &mut impl Port) {
        let rto = self.rto.rto();
        net.arm(&mut self.rtx_timer, self.ep.flow, TimerKind::Rtx, rto);
    }

    // ----- ACKs -----

    pub fn recv(&mut self, net: &mut impl Port, ack: &Packet) {
        let now = net.now_secs();
        let una = ack.seq + 1;
        if self.ecn && ack.has(flags::ECN_ECHO) {
            self.cc.on_ecn_echo(now);
            // once per window: not for ACKs of data sent before the last reaction
            if ack.seq > self.ecn_recover && self.recovery.is_none() {
                self.ecn_recover = self.maxseq;
                self.cc.on_congestion(now, Signal::Ecn, self.flight());
                self.cwr = true;
            }
        }
        if una > self.snd_una {
            self.new_ack(net, una, now - ack.ts_echo);
        } else if una == self.snd_una && self.maxseq >= self.snd_una {
            self.dup_ack(net);
        }
        self.trace_cwnd(net);
        self.send_much(net);
    }

    fn new_ack(&mut self, net: &mut impl Port, una: i64, rtt: f64) {
        let now = net.now_secs();
        let acked = (una - self.snd_una) as u64;
        self.snd_una = una;
        self.snd_nxt = self.snd_nxt.max(una);
        self.dupacks = 0;
        // RFC 7323: the echoed timestamp of an ACK that advances the window is a valid sample,
        // retransmitted segment or not.
        self.rto.on_sample(rtt);
        net.tracer().rtt_sample(now, self.ep.flow.0, rtt);
        net.flow_stats(self.ep.flow).on_rtt_sample(rtt);
        if let Some(p) = &mut self.pacer {
            p.on_rtt(rtt);
        }
        match self.recovery {
            Some(mut r) if una <= r.recover => {
                // A partial ACK: the next hole is lost too. Retransmit it, deflate by what was
                // acknowledged (plus one back for the segment that left), and restart the timer
                // on the first partial ACK only (RFC 6582 §3.2 step 5).
                r.inflation = (r.inflation - acked as f64 + 1.0).max(0.0);
                self.output(net, una);
                if !r.first_partial {
                    r.first_partial = true;
                    self.arm_rtx(net);
                }
                self.recovery = Some(r);
                return;
            }
            Some(_) => self.recovery = None, // a full ACK: cwnd is the controller's again
            None => {
                let ack = Ack { now, acked, snd_una: una as u64, snd_nxt: self.snd_nxt.max(0) as u64, rtt: Some(rtt) };
                self.cc.on_ack(&ack);
            }
        }
        if self.maxseq >= self.snd_una {
            self.arm_rtx(net);
        } else {
            net.cancel(&mut self.rtx_timer, self.ep.flow, TimerKind::Rtx);
        }
    }

    fn dup_ack(&mut self, net: &mut impl Port) {
        self.dupacks += 1;
        if let Some(r) = &mut self.recovery {
            r.inflation += 1.0;
        } else if self.dupacks == self.dupthresh {
            // RFC 6582 §3.2 step 2: not again for losses of the window already recovered.
            if self.snd_una - 1 > self.recover {
                self.recover = self.maxseq;
                self.cc.on_congestion(net.now_secs(), Signal::Loss, self.flight());
                self.recovery =
                    Some(Recovery { recover: self.maxseq, inflation: self.dupthresh as f64, first_partial: false });
                self.output(net, self.snd_una);
                self.arm_rtx(net);
            }
        } else if self.dupacks < self.dupthresh && self.limited_transmit {
            // RFC 3042: a new segment for each of the first two duplicate ACKs.
            let room = self.flight() < self.cwnd().floor() + self.dupacks as f64;
            if room && self.snd_nxt < self.curseq && self.snd_nxt > self.maxseq {
                self.output(net, self.snd_nxt);
                self.snd_nxt += 1;
            }
        }
    }

    // ----- timers -----

    pub fn on_timer(&mut self, net: &mut impl Port, gen: u32) {
        if !net.fire(&mut self.rtx_timer, self.ep.flow, TimerKind::Rtx, gen) || self.maxseq < self.snd_una {
            return;
        }
        self.cc.on_congestion(net.now_secs(), Signal::Timeout, self.flight());
        self.rto.back_off();
        self.recovery = None;
        self.dupacks = 0;
        self.recover = self.maxseq;
        self.snd_nxt = self.snd_una; // go back N
        self.trace_cwnd(net);
        self.send_much(net);
    }

    pub fn on_pace_timer(&mut self, net: &mut impl Port, gen: u32) {
        if net.fire(&mut self.pace_timer, self.ep.flow, TimerKind::Pace, gen) {
            self.send_much(net);
        }
    }
}

impl<P: Port> Ftp<P> for RfcSender {
    fn send_unlimited(&mut self, net: &mut P) {
        self.curseq = i64::MAX / 2;
        self.send_much(net);
    }

    fn advance(&mut self, net: &mut P, n: i64) {
        self.curseq = n.max(self.maxseq + 1);
        self.send_much(net);
    }

    fn advance_by(&mut self, net: &mut P, n: i64) {
        self.curseq = self.curseq.max(self.maxseq + 1) + n;
        self.send_much(net);
    }

    /// No new data; what was sent is still delivered.
    fn stop(&mut self, net: &mut P) {
        self.advance(net, 0);
    }

    fn state(&self) -> TcpState {
        let cwnd = self.cwnd();
        TcpState {
            cwnd,
            ssthresh: self.cc.ssthresh().min(self.rwnd),
            srtt: self.rto.srtt(),
            in_flight: self.flight(),
            pacing_rate: self.pacer.as_ref().and_then(|p| p.rate(cwnd)).unwrap_or(0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Profile, SinkConfig, TcpParams};
    use crate::testing::{ack, sender_end, FakePort};

    struct Rfc {
        s: RfcSender,
        net: FakePort,
    }

    /// The rfc profile's sender of `variant` with its defaults (`TcpParams::rfc`: initial
    /// window 4 segments of 1000 bytes, RTO 1 s initial and minimum), Limited Transmit as given,
    /// with unlimited data from time 0.
    fn start(variant: TcpVariant, limited_transmit: bool) -> Rfc {
        let sink = SinkConfig {
            sack: false,
            delack: None,
            syn_immediate_ack: true,
            rfc2581_immediate_ack: true,
            ts_echo_rfc1323: false,
            ecn_syn: false,
        };
        let params = TcpParams { singledup: limited_transmit, ..TcpParams::rfc() };
        let cfg = TcpConfig {
            variant,
            profile: Profile::Rfc,
            sink,
            params,
            vegas: None,
            fast: None,
            pacing: None,
            full: None,
            modern: None,
            receiver: None,
        };
        let mut net = FakePort::default();
        let mut s = RfcSender::new(&cfg, sender_end());
        s.send_unlimited(&mut net);
        Rfc { s, net }
    }

    impl Rfc {
        /// ACK of everything up to `seq` at `t`, echoing the send time of `seq`; the seqnos sent.
        fn ack(&mut self, t: f64, seq: i64) -> Vec<i64> {
            self.net.set_now(t);
            let from = self.net.sent.len();
            let echo = self.net.sent.iter().rev().find(|p| p.seq == seq).map_or(0.0, |p| p.ts);
            self.s.recv(&mut self.net, &ack(seq, echo, &[]));
            self.net.seqs_since(from)
        }

        fn cwnd_ssthresh(&self) -> (f64, f64) {
            (self.s.cc.cwnd(), self.s.cc.ssthresh())
        }
    }

    /// RFC 3390's initial window (4 segments of 1000 bytes, no handshake), then RFC 5681's slow
    /// start, one segment per ACK: after the ACKs of 0..3, cwnd 8 and 4..11 sent.
    fn at_cwnd_8(variant: TcpVariant, limited_transmit: bool) -> Rfc {
        let mut r = start(variant, limited_transmit);
        assert_eq!(
            r.net.sent.iter().map(|p| (p.seq, p.size)).collect::<Vec<_>>(),
            vec![(0, 1040), (1, 1040), (2, 1040), (3, 1040)]
        );
        let sent: Vec<i64> = (0..4).flat_map(|a| r.ack(0.1, a)).collect();
        assert_eq!(sent, (4..12).collect::<Vec<_>>());
        assert_eq!(r.cwnd_ssthresh(), (8.0, f64::INFINITY));
        r
    }

    /// RFC 6582, one loss (4) at cwnd 8 without Limited Transmit: the third dupack sets
    /// ssthresh = cwnd = FlightSize/2 = 4, retransmits 4 and inflates by 3; each later dupack
    /// inflates by one, and new data goes once flight 8 < 4 + inflation: at dupacks 5, 6, 7.
    /// The full ACK (11 + the three new ones are past recover 11) deflates to ssthresh 4.
    #[test]
    fn rfc_newreno_fast_retransmit_inflates_and_deflates_to_ssthresh() {
        let mut r = at_cwnd_8(TcpVariant::NewReno, false);
        let sent: Vec<Vec<i64>> = (0..7).map(|i| r.ack(0.2 + 0.001 * i as f64, 3)).collect();
        assert_eq!(sent, vec![vec![], vec![], vec![4], vec![], vec![12], vec![13], vec![14]]);
        assert_eq!(r.cwnd_ssthresh(), (4.0, 4.0));
        assert_eq!(r.s.cwnd(), 4.0 + 7.0, "inflated by the 7 dupacks");
        assert_eq!(r.ack(0.3, 11), vec![15]);
        assert!(r.s.recovery.is_none());
        assert_eq!((r.s.cwnd(), r.s.snd_nxt), (4.0, 16));
        assert_eq!(r.net.stats[0].data_retransmitted, 1);
    }

    /// RFC 6582 step 5, 4 and 6 lost: the partial ACK of 5 retransmits 6 at once, deflates by
    /// the 2 segments acked and adds one back (inflation 6 - 2 + 1 = 5), restarts the timer, and
    /// lets 14 go (flight 8 < 4 + 5); the controller's cwnd stays 4. A second partial ACK does
    /// not restart the timer.
    #[test]
    fn rfc_newreno_partial_ack_retransmits_the_next_hole() {
        let mut r = at_cwnd_8(TcpVariant::NewReno, false);
        let sent: Vec<Vec<i64>> = (0..6).map(|i| r.ack(0.2 + 0.001 * i as f64, 3)).collect();
        assert_eq!(sent, vec![vec![], vec![], vec![4], vec![], vec![12], vec![13]]);
        let armed = r.net.armed.len();
        assert_eq!(r.ack(0.3, 5), vec![6, 14]);
        assert_eq!(r.s.recovery.map(|x| (x.inflation, x.recover)), Some((5.0, 11)));
        assert_eq!(r.cwnd_ssthresh(), (4.0, 4.0));
        assert_eq!(r.net.armed.len() - armed, 1, "the timer restarted on the first partial ACK");
        let armed = r.net.armed.len();
        r.ack(0.31, 7);
        assert_eq!(r.net.armed.len(), armed, "not on the second");
    }

    /// RFC 5681 section 3.2 step 2: segments sent by Limited Transmit must not count in the
    /// FlightSize that ssthresh halves. At cwnd 8 with 4 lost, dupacks 1 and 2 send 12 and 13;
    /// the third must set ssthresh to 8/2 = 4, not (8+2)/2.
    #[test]
    #[ignore = "finding: the rfc sender halves the flight including Limited Transmit segments"]
    fn rfc_limited_transmit_segments_do_not_count_in_the_halved_flight() {
        let mut r = at_cwnd_8(TcpVariant::NewReno, true);
        let sent: Vec<Vec<i64>> = (0..3).map(|i| r.ack(0.2 + 0.001 * i as f64, 3)).collect();
        assert_eq!(sent, vec![vec![12], vec![13], vec![4]]);
        assert_eq!(r.cwnd_ssthresh(), (4.0, 4.0));
    }

    /// RFC 6298: the first RTO is 1 s (TcpParams::rfc), doubled at each expiry (5.5); the
    /// expiry sets cwnd 1 and ssthresh = max(FlightSize/2, 2) = 2 (RFC 5681, 4 in flight) and
    /// goes back to the first unacknowledged segment.
    #[test]
    fn rfc_timeout_goes_back_n_and_doubles_the_rto() {
        let mut r = start(TcpVariant::NewReno, true);
        assert_eq!(r.net.deadline(TimerKind::Rtx), Some(1.0));
        let s = &mut r.s;
        let at: Vec<f64> = (0..3).map(|_| r.net.expire(|net, _, gen| s.on_timer(net, gen)).unwrap().1).collect();
        assert_eq!(at, vec![1.0, 3.0, 7.0]);
        assert_eq!(r.net.seqs_since(4), vec![0, 0, 0]);
        assert_eq!(r.cwnd_ssthresh(), (1.0, 2.0));
    }

    /// The rfc profile's Vegas gives up a quarter of cwnd on a loss repaired by fast
    /// retransmit (VegasConfig's loss_decrease 0.25), not half: 4 -> 3, where NewReno goes to
    /// 2. Segment 0 lost from the initial window, dupacks for 1..3; with the inflation of 3
    /// (RFC 6582 step 3) the window then has room for 1 (NewReno, 5 > 4 in flight) or 2
    /// (Vegas, 6) new segments.
    #[test]
    fn rfc_loss_reaction_is_the_controllers() {
        let cases = [(TcpVariant::NewReno, (2.0, 2.0), vec![0, 4]), (TcpVariant::Vegas, (3.0, 3.0), vec![0, 4, 5])];
        for (variant, window, third) in cases {
            let mut r = start(variant, false);
            let sent: Vec<Vec<i64>> = (0..3).map(|i| r.ack(0.1 + 0.001 * i as f64, -1)).collect();
            assert_eq!(sent, vec![vec![], vec![], third], "{variant:?}");
            assert_eq!(r.cwnd_ssthresh(), window, "{variant:?}");
        }
    }

    /// FAST's update (Jin, Wei and Low, 2004): w <- min(2w, (1 - gamma) w + gamma (baseRTT/RTT
    /// w + alpha)), with alpha 20 and gamma 0.5 by default. At the first ACK, with no queueing
    /// (RTT = baseRTT), 4 -> min(8, 2 + 12) = 8.
    #[test]
    fn rfc_fast_updates_towards_alpha_queued_segments() {
        let mut r = start(TcpVariant::Fast, false);
        assert_eq!(r.ack(0.1, 0), vec![4, 5, 6, 7, 8]);
        assert_eq!(r.s.cc.cwnd(), 8.0);
    }

    /// FAST updates once per RTT (FastConfig: "when the ACK passes the first segment sent after
    /// the previous update"). The update at the ACK of 0 came with 0..3 sent; the ACKs of 1..3,
    /// sent before it, must not update again: cwnd stays 8 through the first RTT.
    #[test]
    #[ignore = "finding: the ACK of the last segment sent before an update (snd_una == next_seq) updates again"]
    fn rfc_fast_updates_once_per_rtt() {
        let mut r = start(TcpVariant::Fast, false);
        for a in 0..4 {
            r.ack(0.1, a);
        }
        assert_eq!(r.s.cc.cwnd(), 8.0);
    }
}
