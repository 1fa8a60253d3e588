//! ns-2's `Agent/TCP/Sack1`: fast recovery driven by a SACK scoreboard and a pipe estimate.

use super::{CwndAction, CwndCut, Ns2Sender, Slowdown};
use crate::packet::{flags, Packet};
use crate::port::Port;
use crate::tcp::scoreboard::RqScoreboard;

/// What a Sack1 sender keeps beyond `TcpAgent`'s state.
pub(super) struct Sack1State {
    /// Segments estimated in flight during fast recovery.
    pub(super) pipe: i64,
    /// With partial_ack_: the next hole to retransmit.
    next_pkt: i64,
    pub(super) rq: RqScoreboard,
}

impl Default for Sack1State {
    fn default() -> Self {
        Sack1State { pipe: -1, next_pkt: 0, rq: RqScoreboard::new() }
    }
}

impl Ns2Sender {
    /// This Sack1 sender's own state.
    fn sack1_mut(&mut self) -> &mut Sack1State {
        self.sack1.as_mut().expect("a Sack1 sender")
    }

    pub(super) fn sack1_recv(&mut self, net: &mut impl Port, ack: &Packet) {
        let seq = ack.seq;
        if ack.has(flags::ECN_ECHO) && self.p.ecn {
            self.ecn(net, seq);
        }
        // an old ACK sends nothing unless aggressive_maxburst_
        let may_send = seq >= self.last_ack || self.p.aggressive_maxburst;
        if !self.fastrecov {
            if seq > self.last_ack {
                self.firstpartial = false;
                self.full_newack(net, ack);
                self.timed_out = false;
                self.sack1_mut().rq.clear();
            } else if seq < self.last_ack {
                // an old ACK: nothing to do
            } else if !self.timed_out {
                let highest_ack = self.highest_ack;
                self.sack1_mut().rq.update(highest_ack, &ack.sack_blocks());
                // Only a duplicate ACK with new SACK information counts.
                if self.sack1_mut().rq.changed() {
                    self.dupacks += 1;
                    if self.dupacks == self.numdupacks() {
                        self.sack1_dupack_action(net);
                    } else if self.dupacks < self.numdupacks() && self.p.singledup {
                        self.send_one(net);
                    }
                }
                if self.p.sfrto && self.frto == 2 {
                    self.sack_frto_dupack(net, &ack.sack_blocks());
                }
            }
            if may_send && self.dupacks == 0 {
                self.sack1_send_much(net, self.p.maxburst);
            }
        } else {
            self.sack1_mut().pipe -= 1;
            if seq >= self.recover {
                // Recovery is over; cwnd stays at its halved value.
                self.recover = 0;
                self.fastrecov = false;
                self.newack(net, ack);
                if self.highest_ack >= self.curseq - 1 && !self.closed {
                    self.closed = true;
                }
                self.timed_out = false;
                self.sack1_mut().rq.clear();
            } else if seq > self.highest_ack {
                // A partial ACK: ns-2 moves highest_ack_ but not last_ack_.
                self.highest_ack = seq;
                let highest_ack = self.highest_ack;
                self.sack1_mut().rq.update(highest_ack, &ack.sack_blocks());
                if self.p.partial_ack {
                    self.sack1_partial_ack_action(net);
                    self.sack1_mut().pipe += 1;
                    if !self.firstpartial {
                        self.newtimer(net, seq);
                        self.rtt.backoff = 1;
                        self.firstpartial = true;
                    }
                } else {
                    // Count the retransmission that was acked too: never worse than slow start.
                    self.sack1_mut().pipe -= 1;
                    self.newtimer(net, seq);
                    self.rtt.backoff = 1;
                }
            } else if !self.timed_out {
                let highest_ack = self.highest_ack;
                self.sack1_mut().rq.update(highest_ack, &ack.sack_blocks());
                if self.sack1_mut().rq.changed() && self.dupacks > 0 {
                    self.dupacks += 1;
                }
            }
            if may_send {
                self.sack1_send_much(net, self.p.maxburst);
            }
        }
    }

    fn sack1_dupack_action(&mut self, net: &mut impl Port) {
        let recovered = self.highest_ack > self.recover;
        let act = recovered || (!self.p.bug_fix && !self.p.ecn) || (self.p.bugfix_ss && self.highest_ack == 0);
        if !act {
            if self.p.ecn && self.last_cwnd_action == CwndAction::Ecn {
                self.last_cwnd_action = CwndAction::Dupack;
                self.reset_rtx_timer(net, true, false);
                self.sack1_mut().pipe = self.maxseq - self.highest_ack - self.numdupacks();
                self.fastrecov = true;
                let highest_ack = self.highest_ack;
                self.sack1_mut().rq.mark_retran(highest_ack + 1);
                self.output(net, self.last_ack + 1);
                return;
            }
            if self.p.bug_fix {
                return;
            }
        }
        self.recover = self.maxseq;
        self.sack1_mut().pipe = self.maxseq - self.highest_ack - self.numdupacks();
        self.reset_rtx_timer(net, true, false);
        self.fastrecov = true;
        let highest_ack = self.highest_ack;
        self.sack1_mut().rq.mark_retran(highest_ack + 1);
        self.trace_event(net, "FAST_RECOVERY");
        self.last_cwnd_action = CwndAction::Dupack;
        self.slowdown(net, Slowdown { ssthresh_half: true, cwnd: CwndCut::Half });
        self.output(net, self.last_ack + 1);
    }

    /// With partial_ack_: retransmit the next two holes at once.
    fn sack1_partial_ack_action(&mut self, net: &mut impl Port) {
        let first = self.highest_ack + 1;
        let s = self.sack1_mut();
        s.next_pkt = s.next_pkt.max(first);
        for _ in 0..2 {
            let s = self.sack1_mut();
            if let Some(next) = s.rq.next_unacked(s.next_pkt) {
                s.next_pkt = s.next_pkt.max(next);
            }
            let next = s.next_pkt;
            self.t_seqno = self.t_seqno.max(next);
            self.output(net, next);
            let s = self.sack1_mut();
            s.rq.mark_retran(next);
            s.next_pkt += 1;
        }
    }

    pub(super) fn sack1_timeout(&mut self, net: &mut impl Port) {
        // F-RTO is not for a timeout during SACK fast recovery.
        let no_frto = self.fastrecov;
        self.dupacks = 0;
        self.fastrecov = false;
        self.timed_out = true;
        if self.highest_ack > self.last_ack {
            self.last_ack = self.highest_ack;
        }
        self.recover = self.maxseq;
        self.sack1_mut().rq.clear();
        self.base_timeout(net);
        if no_frto {
            self.frto = 0;
        }
    }

    /// Outside recovery the window rules; inside, the pipe estimate does. Holes go first.
    pub(super) fn sack1_send_much(&mut self, net: &mut impl Port, maxburst: u32) {
        let mut win = self.window();
        let wnd = self.wnd as i64;
        let mut npacket = 0;
        loop {
            let open = if self.fastrecov {
                self.sack1_mut().pipe < self.cwnd as i64
            } else {
                self.t_seqno <= self.last_ack + win
            };
            if !(open && self.last_ack + 1 < self.curseq) {
                break;
            }
            let xmit = match self.sack1_mut().rq.next_retran() {
                None => {
                    let room = if self.fastrecov {
                        self.t_seqno <= self.highest_ack + wnd
                    } else {
                        self.t_seqno <= self.highest_ack + win
                    };
                    if !(room && self.t_seqno < self.curseq) {
                        break;
                    }
                    if self.t_seqno > self.maxseq && self.held_by_pacer(net) {
                        break;
                    }
                    self.t_seqno += 1;
                    self.t_seqno - 1
                }
                Some(hole) if self.recover > 0 && hole <= self.highest_ack + wnd => {
                    self.sack1_mut().rq.mark_retran(hole);
                    win = self.window();
                    hole
                }
                Some(_) => break,
            };
            self.output(net, xmit);
            if self.t_seqno <= xmit {
                self.t_seqno = xmit + 1;
            }
            npacket += 1;
            self.sack1_mut().pipe += 1;
            if self.quiescence.is_some() {
                self.qoption_after_send(net);
            }
            if maxburst > 0 && npacket == maxburst {
                break;
            }
        }
    }
}
