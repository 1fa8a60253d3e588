//! ns-2's `Agent/TCP/Fack`: forward acknowledgement. Recovery starts when the highest SACKed
//! segment (`fack`) is three beyond the cumulative ACK; cwnd drops to 1 and slow-starts again
//! inside recovery, and data in flight is counted as t_seqno - fack + retransmissions.

use super::{CwndAction, CwndCut, Ns2Sender, Slowdown};
use crate::packet::{flags, Packet};
use crate::port::Port;
use crate::tcp::scoreboard::ArrayScoreboard;

/// What a Fack sender keeps beyond `TcpAgent`'s state.
pub(super) struct FackState {
    /// The highest SACKed segment (ns-2's `fack_`).
    pub(super) fack: i64,
    /// Retransmissions in flight.
    pub(super) retran_data: i64,
    /// Window trimming after a loss (`rampdown_`), and its factor.
    pub(super) wintrim: f64,
    wintrimmult: f64,
    array: ArrayScoreboard,
}

impl FackState {
    /// ns-2's `ClearScoreBoard`, the part of Fack's reset that is its own.
    pub(super) fn clear_scoreboard(&mut self) {
        self.array.clear();
    }
}

impl Default for FackState {
    fn default() -> Self {
        FackState { fack: -1, retran_data: 0, wintrim: 0.0, wintrimmult: 0.5, array: ArrayScoreboard::default() }
    }
}

impl Ns2Sender {
    /// This Fack sender's own state.
    pub(super) fn fack_ref(&self) -> &FackState {
        self.fack.as_ref().expect("a Fack sender")
    }

    fn fack_mut(&mut self) -> &mut FackState {
        self.fack.as_mut().expect("a Fack sender")
    }

    pub(super) fn fack_recv(&mut self, net: &mut impl Port, ack: &Packet) {
        let seq = ack.seq;
        self.ts_peer = ack.ts;
        if ack.has(flags::ECN_ECHO) && self.p.ecn {
            self.ecn(net, seq);
        }
        let sacks = &*ack.sack_blocks();
        if !self.fastrecov {
            if seq > self.last_ack && sacks.is_empty() {
                // A regular new ACK (ns-2's own recv_newack_helper: newack, opencwnd).
                self.newack(net, ack);
                self.opencwnd(net);
                if self.highest_ack >= self.curseq - 1 && !self.closed {
                    self.closed = true;
                }
                self.fack_mut().fack = self.last_ack;
                self.timed_out = false;
                self.fack_mut().array.clear();
                self.fack_mut().retran_data = 0;
                self.fack_mut().wintrim = 0.0;
            } else if seq < self.last_ack {
                // an old ACK: nothing to do
            } else {
                let highest_ack = self.highest_ack;
                self.fack_mut().retran_data -= self.fack_mut().array.update(highest_ack, sacks);
                self.fack_oldack(net, ack);
                let ms = max_sack(sacks);
                if ms > self.fack_mut().fack {
                    self.fack_mut().fack = ms;
                }
                if self.fack_mut().fack >= self.t_seqno {
                    self.t_seqno = self.fack_mut().fack + 1;
                }
                self.dupacks = (self.fack_mut().fack - self.last_ack) - 1;
                if self.dupacks >= self.p.numdupacks as i64 {
                    // Assume one loss: retransmit it and resume.
                    self.recover = self.t_seqno;
                    self.last_cwnd_action = CwndAction::Dupack;
                    if self.p.ss_div4 && self.cwnd <= self.ssthresh as f64 + 0.5 {
                        let c = self.cwnd / 2.0;
                        self.set_cwnd(net, c);
                        self.fack_mut().wintrimmult = 0.75;
                    } else {
                        self.fack_mut().wintrimmult = 0.5;
                    }
                    self.slowdown(net, Slowdown { ssthresh_half: true, cwnd: CwndCut::Restart });
                    if self.p.rampdown {
                        self.fack_mut().wintrim =
                            (self.t_seqno - self.fack_mut().fack - 1) as f64 * self.fack_mut().wintrimmult;
                    }
                    self.reset_rtx_timer(net, true, false);
                    self.fastrecov = true;
                    let last_ack = self.last_ack;
                    let t_seqno = self.t_seqno;
                    self.fack_mut().array.mark_retran(last_ack + 1, t_seqno);
                    self.fack_mut().retran_data += 1;
                    self.output(net, self.last_ack + 1);
                }
            }
            if self.dupacks == 0 {
                self.fack_send_much(net, self.p.maxburst);
            }
        } else {
            self.fack_oldack(net, ack);
            let ms = max_sack(sacks);
            if ms > self.fack_mut().fack {
                if self.p.rampdown {
                    // ns-2 computes this in single precision.
                    self.fack_mut().wintrim -=
                        ((ms as f32 - self.fack_mut().fack as f32) as f64) * self.fack_mut().wintrimmult;
                    if self.fack_mut().wintrim < 0.0 {
                        self.fack_mut().wintrim = 0.0;
                    }
                }
                self.fack_mut().fack = ms;
            }
            if self.fack_mut().fack >= self.t_seqno {
                self.t_seqno = self.fack_mut().fack + 1;
            }
            let highest_ack = self.highest_ack;
            self.fack_mut().retran_data -= self.fack_mut().array.update(highest_ack, sacks);
            self.timed_out |= self.fack_mut().array.check_snd_nxt(sacks);
            self.opencwnd(net);
            if sacks.is_empty() && self.last_ack >= self.recover {
                self.fastrecov = false;
                self.timed_out = false;
                self.fack_mut().array.clear();
                self.fack_mut().retran_data = 0;
                self.fack_mut().wintrim = 0.0;
                self.dupacks = 0;
            }
            self.fack_send_much(net, self.p.maxburst);
        }
    }

    /// ns-2 `FackTcpAgent::oldack`: the cumulative ACK moves (or not), and every ACK gives an
    /// RTT sample from its echoed timestamp.
    fn fack_oldack(&mut self, net: &mut impl Port, ack: &Packet) {
        self.last_ack = ack.seq;
        self.highest_ack = self.last_ack;
        self.fack_mut().fack = self.fack_mut().fack.max(self.highest_ack);
        self.maxseq = self.maxseq.max(self.highest_ack);
        if self.t_seqno < self.last_ack + 1 {
            self.t_seqno = self.last_ack + 1;
        }
        self.newtimer(net, ack.seq);
        if self.rtt_active && ack.seq >= self.rtt_seq {
            self.rtt_active = false;
            self.rtt.backoff = 1;
        }
        let now = net.now_secs();
        self.rtt_update(net, now, now - ack.ts_echo);
        if self.highest_ack >= self.curseq - 1 && !self.closed {
            self.closed = true;
        }
    }

    pub(super) fn fack_timeout(&mut self, net: &mut impl Port) {
        if self.highest_ack == self.maxseq && !self.p.slow_start_restart {
            return; // nothing outstanding
        }
        self.timed_out = false;
        if self.highest_ack > self.last_ack {
            self.last_ack = self.highest_ack;
        }
        self.fack_mut().retran_data = 0;
        self.last_cwnd_action = CwndAction::Timeout;
        let idle = self.highest_ack == self.maxseq;
        if idle {
            // restart_bugfix_: nothing outstanding, keep ssthresh.
            self.slowdown(net, Slowdown { ssthresh_half: false, cwnd: CwndCut::Init });
        } else {
            self.slowdown(net, Slowdown { ssthresh_half: true, cwnd: CwndCut::Restart });
        }
        self.fack_mut().array.clear();
        // ns-2 passes TCP_REASON_TIMEOUT as `mild`: t_seqno is set below instead.
        self.reset_rtx_timer(net, true, !idle);
        self.fack_mut().fack = self.last_ack;
        self.t_seqno = self.last_ack + 1;
        self.fack_send_much(net, 0);
    }

    /// Send while the data in flight (t_seqno - fack + retransmissions) is below the window.
    pub(super) fn fack_send_much(&mut self, net: &mut impl Port, maxburst: u32) {
        let mut win = self.window();
        let mut npacket = 0;
        while self.t_seqno <= self.fack_mut().fack + win - self.fack_mut().retran_data && !self.timed_out {
            let xmit = match self.fack_mut().array.next_retran() {
                None => {
                    if self.t_seqno >= self.curseq {
                        return;
                    }
                    if self.fastrecov && self.t_seqno > self.highest_ack + self.wnd as i64 {
                        break;
                    }
                    if self.t_seqno > self.maxseq && self.held_by_pacer(net) {
                        break;
                    }
                    self.t_seqno += 1;
                    self.t_seqno - 1
                }
                Some(hole) => {
                    let t_seqno = self.t_seqno;
                    self.fack_mut().array.mark_retran(hole, t_seqno);
                    self.fack_mut().retran_data += 1;
                    win = self.window();
                    hole
                }
            };
            self.output(net, xmit);
            if self.t_seqno <= xmit {
                self.t_seqno = xmit + 1;
            }
            npacket += 1;
            if maxburst > 0 && npacket == maxburst {
                break;
            }
        }
    }
}

/// The highest SACKed segment (-2 when there are no blocks, as ns-2's `maxsack`).
fn max_sack(sacks: &[(i64, i64)]) -> i64 {
    sacks.iter().map(|&(_, r)| r).fold(-1, i64::max) - 1
}
