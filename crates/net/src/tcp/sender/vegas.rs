//! ns-2's `Agent/TCP/Vegas` (Brakmo and Peterson's Vegas as U. Arizona and NCSU ported it):
//! once per RTT it compares the expected rate (window / BaseRTT) with the actual one and moves
//! cwnd to keep between alpha and beta packets queued; losses are caught early by a fine-grained
//! timer on every segment. Its data packets are `packetSize_` bytes with no header and no SYN.

use super::{CwndAction, CwndCut, Slowdown, TcpSender};
use crate::packet::{flags, Kind, Packet};
use crate::port::Port;

/// Vegas's own state (ns-2 `VegasTcpAgent`); times are on Vegas's clock, seconds since the
/// first packet was sent.
#[derive(Debug)]
pub(super) struct VegasState {
    t_cwnd_changed: f64,
    firstrecv: f64,
    slowstart: f64,
    sa: f64,
    sd: f64,
    timeout: f64,
    worried: i64,
    begseq: i64,
    begtime: f64,
    cnt_rtt: i64,
    sum_rtt: f64,
    base_rtt: f64,
    incr: f64,
    inc_flag: bool,
    newcwnd: f64,
    pub(super) actual: f64,
    pub(super) rtt: f64,
    /// Send time and transmission count of each unacked segment, by seqno modulo `int(window_)`.
    sendtime: Vec<f64>,
    transmits: Vec<i32>,
}

impl Default for VegasState {
    fn default() -> Self {
        VegasState {
            t_cwnd_changed: 0.0,
            firstrecv: -1.0,
            slowstart: 2.0,
            sa: 0.0,
            sd: 0.0,
            timeout: 1000.0,
            worried: 0,
            begseq: 0,
            begtime: 0.0,
            cnt_rtt: 0,
            sum_rtt: 0.0,
            base_rtt: 1_000_000_000.0,
            incr: 0.0,
            inc_flag: true,
            newcwnd: 0.0,
            actual: 0.0,
            rtt: 0.0,
            sendtime: Vec::new(),
            transmits: Vec::new(),
        }
    }
}

impl TcpSender {
    /// Seconds since the first packet was sent (ns-2 `vegastime()`).
    fn vegastime(&self, net: &impl Port) -> f64 {
        net.now_secs() - self.firstsent
    }

    fn v_slot(&self, seq: i64) -> usize {
        seq.rem_euclid(self.v.sendtime.len() as i64) as usize
    }

    /// Vegas's `output`: no header, no SYN, no ECN flags; every send is timed.
    pub(super) fn vegas_output(&mut self, net: &mut impl Port, seqno: i64) {
        if seqno == 0 {
            let w = self.wnd as usize;
            self.v.sendtime = vec![-1.0; w];
            self.v.transmits = vec![0; w];
        }
        let slot = self.v_slot(seqno);
        self.v.sendtime[slot] = self.vegastime(net);
        self.v.transmits[slot] += 1;
        self.ep.send(net, Kind::Tcp, |p| (p.size, p.payload, p.seq) = (self.p.packet_size, self.p.packet_size, seqno));
        self.note_sent(net, seqno);
        if !self.rtx_timer.pending() {
            self.set_rtx_timer(net);
        }
    }

    /// The segment after `ack` if its fine-grained timer has expired.
    fn vegas_expire(&self, net: &impl Port, ack: i64) -> Option<i64> {
        let elapse = self.vegastime(net) - self.v.sendtime[self.v_slot(ack + 1)];
        (elapse >= self.v.timeout).then_some(ack + 1)
    }

    pub(super) fn vegas_recv(&mut self, net: &mut impl Port, ack: &Packet) {
        let now = self.vegastime(net);
        let seq = ack.seq;
        let numdupacks = self.p.numdupacks as i64;
        if self.v.firstrecv < 0.0 {
            self.v.firstrecv = now;
            self.v.base_rtt = now;
            self.v.rtt = now;
            self.v.sa = self.v.rtt * 8.0;
            self.v.sd = self.v.rtt;
            self.v.timeout = ((self.v.sa / 4.0) + self.v.sd) / 2.0;
        }
        if ack.has(flags::ECN_ECHO) {
            self.ecn(net, seq);
        }
        if seq > self.last_ack {
            if self.last_ack == 0 && self.p.delay_growth {
                let w = self.initial_window();
                self.set_cwnd(net, w);
            }
            // Deflate a window inflated by dupacks.
            if self.dupacks > numdupacks && self.cwnd > self.v.newcwnd {
                let c = self.v.newcwnd;
                self.set_cwnd(net, c);
                self.ssthresh = 2;
            }
            let oldack = self.last_ack;
            self.newack(net, ack);
            if self.highest_ack >= self.curseq - 1 && !self.closed {
                self.closed = true;
            }
            if seq >= self.v.begseq {
                self.vegas_once_per_rtt(net, now);
            }
            // An increment decided for slow start stops at ssthresh.
            if self.v.incr == 1.0 && self.cwnd >= self.ssthresh as f64 {
                self.v.incr = 0.0;
            }
            if self.v.incr > 0.0 && (self.cwnd - (self.t_seqno - self.last_ack) as f64) <= 2.0 {
                let c = self.cwnd + self.v.incr;
                self.set_cwnd(net, c);
            }
            if self.p.max_cwnd > 0 && self.cwnd as i64 > self.p.max_cwnd as i64 {
                let c = self.p.max_cwnd as f64;
                self.set_cwnd(net, c);
            }
            self.vegas_sample(seq, oldack, now);
            // Check the first and second ACK after a retransmission for more expired segments.
            if self.v.worried > 0 {
                self.v.worried -= 1;
                match self.vegas_expire(net, seq) {
                    Some(expired) => {
                        self.dupacks = numdupacks;
                        self.vegas_output(net, expired);
                    }
                    None => self.v.worried = 0,
                }
            }
        } else if seq == self.last_ack {
            self.dupacks += 1;
            let expired = self.vegas_expire(net, seq);
            if expired.is_some() || self.dupacks == numdupacks {
                self.vegas_retransmit(net, expired, now);
            } else if self.dupacks > numdupacks {
                let c = self.cwnd + 1.0;
                self.set_cwnd(net, c);
            }
        }
        if self.dupacks == 0 || self.dupacks > numdupacks - 1 {
            self.send_much(net, self.p.maxburst);
        }
    }

    /// Once per RTT (when the ACK passes the tagged segment): compare expected and actual rate.
    fn vegas_once_per_rtt(&mut self, net: &mut impl Port, now: f64) {
        let v = &mut self.v;
        let rtt = if v.cnt_rtt > 0 { v.sum_rtt / v.cnt_rtt as f64 } else { now - v.begtime };
        v.sum_rtt = 0.0;
        v.cnt_rtt = 0;
        let rtt_len = self.t_seqno - v.begseq;
        if rtt > 0.0 {
            // With at most one packet in transit the RTT has no queueing in it.
            if rtt < v.base_rtt || rtt_len <= 1 {
                v.base_rtt = rtt;
            }
            v.actual = rtt_len as f64 / rtt;
            let expect = (self.t_seqno - self.last_ack) as f64 / v.base_rtt;
            let delta = ((expect - v.actual) * v.base_rtt + 0.5) as i64;
            if self.cwnd < self.ssthresh as f64 {
                // Slow start: grow every other RTT, leave it when delta exceeds gamma.
                v.inc_flag = !v.inc_flag;
                if !v.inc_flag {
                    v.incr = 0.0;
                } else if delta > self.p.v_gamma as i64 {
                    self.ssthresh = 2;
                    self.v.incr = 0.0;
                    let c = self.cwnd - self.cwnd / 8.0;
                    self.set_cwnd(net, c);
                    if self.cwnd < 2.0 {
                        self.set_cwnd(net, 2.0);
                    }
                } else {
                    v.incr = 1.0;
                }
            } else if delta > self.p.v_beta as i64 {
                self.v.incr = 0.0;
                let c = self.cwnd - 1.0;
                self.set_cwnd(net, c);
                if self.cwnd < 2.0 {
                    self.set_cwnd(net, 2.0);
                }
            } else if delta < self.p.v_alpha as i64 {
                v.incr = 1.0 / self.cwnd;
            } else {
                v.incr = 0.0;
            }
        }
        self.v.begseq = self.t_seqno;
        self.v.begtime = now;
    }

    /// The fine-grained RTT sample of the segment just acked, if it was sent once.
    fn vegas_sample(&mut self, seq: i64, oldack: i64, now: f64) {
        let w = self.v.sendtime.len() as i64;
        let send_time = self.v.sendtime[self.v_slot(seq)];
        let transmits = self.v.transmits[self.v_slot(seq)];
        // Forget the segments this ACK covers (ns-2's loop, wrap-around quirk included).
        let mut range = seq - oldack;
        let mut k = (oldack + 1).rem_euclid(w);
        while k <= seq.rem_euclid(w) && range > 0 {
            self.v.sendtime[k as usize] = -1.0;
            self.v.transmits[k as usize] = 0;
            k = (k + 1) % w;
            range -= 1;
        }
        let v = &mut self.v;
        if send_time != 0.0 && transmits == 1 {
            let rtt = now - send_time;
            v.sum_rtt += rtt;
            v.cnt_rtt += 1;
            if rtt > 0.0 {
                v.rtt = rtt;
                if v.rtt < v.base_rtt {
                    v.base_rtt = v.rtt;
                }
                let mut n = v.rtt - v.sa / 8.0;
                v.sa += n;
                n = n.abs();
                n -= v.sd / 4.0;
                v.sd += n;
                v.timeout = ((v.sa / 4.0) + v.sd) / 2.0;
                v.timeout += v.timeout / 16.0;
            }
        }
    }

    /// A dupack found the next segment's fine timer expired, or it is the third: retransmit,
    /// and cut the window (once per window: only if cwnd was not cut since it was sent).
    fn vegas_retransmit(&mut self, net: &mut impl Port, expired: Option<i64>, now: f64) {
        let slot = self.v_slot(self.last_ack + 1);
        let (send_time, transmits) = (self.v.sendtime[slot], self.v.transmits[slot]);
        if self.p.bug_fix && self.highest_ack <= self.recover && self.last_cwnd_action == CwndAction::Timeout {
            return;
        }
        let mut win = self.window();
        self.last_cwnd_action = CwndAction::Dupack;
        self.recover = self.maxseq;
        self.v.worried = 2.min(self.t_seqno - self.last_ack);
        if transmits > 1 {
            self.v.timeout *= 2.0;
        } else {
            self.v.timeout += self.v.timeout / 8.0;
        }
        if self.v.t_cwnd_changed < send_time {
            win = if win <= 3 {
                2
            } else if transmits > 1 {
                win >> 1
            } else {
                win - (win >> 2)
            };
            self.v.newcwnd = win as f64;
            let c = self.v.newcwnd + self.dupacks as f64;
            self.set_cwnd(net, c);
            self.v.t_cwnd_changed = now;
        }
        self.reset_rtx_timer(net, true, true);
        self.vegas_output(net, expired.unwrap_or(self.last_ack + 1));
        if transmits == 1 {
            self.dupacks = self.p.numdupacks as i64;
        }
    }

    pub(super) fn vegas_timeout(&mut self, net: &mut impl Port) {
        if self.highest_ack == self.maxseq && !self.p.slow_start_restart {
            return; // nothing outstanding
        }
        self.dupacks = 0;
        self.recover = self.maxseq;
        self.last_cwnd_action = CwndAction::Timeout;
        self.reset_rtx_timer(net, false, true);
        self.slowdown(net, Slowdown { ssthresh_half: true, cwnd: CwndCut::Restart });
        let c = self.v.slowstart;
        self.set_cwnd(net, c);
        self.v.newcwnd = 0.0;
        self.v.t_cwnd_changed = self.vegastime(net);
        self.send_much(net, 0);
    }
}
