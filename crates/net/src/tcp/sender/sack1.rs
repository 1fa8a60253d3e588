//! ns-2's `Agent/TCP/Sack1`: fast recovery driven by a SACK scoreboard and a pipe estimate.

use super::{CwndAction, CwndCut, Slowdown, TcpSender};
use crate::packet::{flags, Packet};
use crate::port::Port;

impl TcpSender {
    pub(super) fn sack1_recv(&mut self, net: &mut impl Port, ack: &Packet) {
        let seq = ack.seq;
        if ack.has(flags::ECN_ECHO) && self.p.ecn {
            self.ecn(net, seq);
        }
        if !self.fastrecov {
            if seq > self.last_ack {
                self.firstpartial = false;
                self.full_newack(net, ack);
                self.timed_out = false;
                self.rq.clear();
            } else if seq < self.last_ack {
                // an old ACK: nothing to do
            } else if !self.timed_out {
                self.rq.update(self.highest_ack, ack.sack_blocks());
                // Only a duplicate ACK with new SACK information counts.
                if self.rq.changed() {
                    self.dupacks += 1;
                    if self.dupacks == self.numdupacks() {
                        self.sack1_dupack_action(net);
                    } else if self.dupacks < self.numdupacks() && self.p.singledup {
                        self.send_one(net);
                    }
                }
            }
            if self.dupacks == 0 {
                self.sack1_send_much(net, self.p.maxburst);
            }
        } else {
            self.pipe -= 1;
            if seq >= self.recover {
                // Recovery is over; cwnd stays at its halved value.
                self.recover = 0;
                self.fastrecov = false;
                self.newack(net, ack);
                if self.highest_ack >= self.curseq - 1 && !self.closed {
                    self.closed = true;
                }
                self.timed_out = false;
                self.rq.clear();
            } else if seq > self.highest_ack {
                // A partial ACK: ns-2 moves highest_ack_ but not last_ack_.
                self.highest_ack = seq;
                self.rq.update(self.highest_ack, ack.sack_blocks());
                if self.p.partial_ack {
                    self.sack1_partial_ack_action(net);
                    self.pipe += 1;
                    if !self.firstpartial {
                        self.newtimer(net, seq);
                        self.rtt.backoff = 1;
                        self.firstpartial = true;
                    }
                } else {
                    // Count the retransmission that was acked too: never worse than slow start.
                    self.pipe -= 1;
                    self.newtimer(net, seq);
                    self.rtt.backoff = 1;
                }
            } else if !self.timed_out {
                self.rq.update(self.highest_ack, ack.sack_blocks());
                if self.rq.changed() && self.dupacks > 0 {
                    self.dupacks += 1;
                }
            }
            self.sack1_send_much(net, self.p.maxburst);
        }
    }

    fn sack1_dupack_action(&mut self, net: &mut impl Port) {
        let recovered = self.highest_ack > self.recover;
        let act = recovered || (!self.p.bug_fix && !self.p.ecn) || (self.p.bugfix_ss && self.highest_ack == 0);
        if !act {
            if self.p.ecn && self.last_cwnd_action == CwndAction::Ecn {
                self.last_cwnd_action = CwndAction::Dupack;
                self.reset_rtx_timer(net, true, false);
                self.pipe = self.maxseq - self.highest_ack - self.numdupacks();
                self.fastrecov = true;
                self.rq.mark_retran(self.highest_ack + 1);
                self.output(net, self.last_ack + 1);
                return;
            }
            if self.p.bug_fix {
                return;
            }
        }
        self.recover = self.maxseq;
        self.pipe = self.maxseq - self.highest_ack - self.numdupacks();
        self.reset_rtx_timer(net, true, false);
        self.fastrecov = true;
        self.rq.mark_retran(self.highest_ack + 1);
        self.trace_event(net, "FAST_RECOVERY");
        self.last_cwnd_action = CwndAction::Dupack;
        self.slowdown(net, Slowdown { ssthresh_half: true, cwnd: CwndCut::Half });
        self.output(net, self.last_ack + 1);
    }

    /// With partial_ack_: retransmit the next two holes at once.
    fn sack1_partial_ack_action(&mut self, net: &mut impl Port) {
        if self.next_pkt < self.highest_ack + 1 {
            self.next_pkt = self.highest_ack + 1;
        }
        for _ in 0..2 {
            if let Some(next) = self.rq.next_unacked(self.next_pkt) {
                if next > self.next_pkt {
                    self.next_pkt = next;
                }
            }
            if self.t_seqno < self.next_pkt {
                self.t_seqno = self.next_pkt;
            }
            self.output(net, self.next_pkt);
            self.rq.mark_retran(self.next_pkt);
            self.next_pkt += 1;
        }
    }

    pub(super) fn sack1_timeout(&mut self, net: &mut impl Port) {
        self.dupacks = 0;
        self.fastrecov = false;
        self.timed_out = true;
        if self.highest_ack > self.last_ack {
            self.last_ack = self.highest_ack;
        }
        self.recover = self.maxseq;
        self.rq.clear();
        self.base_timeout(net);
    }

    /// Outside recovery the window rules; inside, the pipe estimate does. Holes go first.
    pub(super) fn sack1_send_much(&mut self, net: &mut impl Port, maxburst: u32) {
        let mut win = self.window();
        let wnd = self.wnd as i64;
        let mut npacket = 0;
        loop {
            let open = if self.fastrecov { self.pipe < self.cwnd as i64 } else { self.t_seqno <= self.last_ack + win };
            if !(open && self.last_ack + 1 < self.curseq) {
                break;
            }
            let xmit = match self.rq.next_retran() {
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
                    self.rq.mark_retran(hole);
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
            self.pipe += 1;
            if maxburst > 0 && npacket == maxburst {
                break;
            }
        }
    }
}
