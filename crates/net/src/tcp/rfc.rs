//! The rfc profile's TCP sender: RFC 5681 and RFC 6582 (NewReno) loss recovery with Limited
//! Transmit (RFC 3042), RFC 6298's timer, RFC 3168 ECN, RTT samples from timestamps (RFC 7323),
//! and a congestion controller and optional pacer from `tcplab_cc` that decide the window.
//!
//! The sender owns the protocol (what is outstanding, what to retransmit, when); the controller
//! owns the policy (how big the window is). Sequence numbers count segments, as ns-2's do, so
//! the rfc sender talks to the same sinks as the ns-2 agents. There is no handshake: data starts
//! at segment 0 when the application starts.

use super::{Ftp, TcpState};
use crate::packet::{flags, Kind, Packet};
use crate::port::{Endpoint, Port, TimerKind};
use crate::scenario::{TcpConfig, TcpVariant};
use tcplab_cc::{Ack, CongestionControl, Controller, Fast, NewReno, Pacer, Rto, Signal, Vegas};
use tcplab_des::Timer;

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
        if now != self.traced && net.tracer().cwnd_enabled() {
            let (a, b, t) = (self.ep.addr, self.ep.peer, net.now_secs());
            net.tracer().cwnd_event(t, self.ep.flow.0, (a.node, a.port), (b.node, b.port), now.0, now.1);
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
