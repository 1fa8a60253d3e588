//! ns-2's `Agent/TCP/Vegas` (Brakmo and Peterson's Vegas as U. Arizona and NCSU ported it):
//! once per RTT it compares the expected rate (window / BaseRTT) with the actual one and moves
//! cwnd to keep between alpha and beta packets queued; losses are caught early by a fine-grained
//! timer on every segment. Its data packets are `packetSize_` bytes with no header and no SYN.

use super::{CwndAction, CwndCut, Ns2Sender, Slowdown};
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
    pub(super) newcwnd: f64,
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

impl VegasState {
    /// The slot of segment `seq` in `sendtime` and `transmits`.
    fn slot(&self, seq: i64) -> usize {
        seq.rem_euclid(self.sendtime.len() as i64) as usize
    }
}

impl Ns2Sender {
    /// This Vegas sender's own state.
    pub(super) fn vegas_ref(&self) -> &VegasState {
        self.vegas.as_ref().expect("a Vegas sender")
    }

    fn vegas_mut(&mut self) -> &mut VegasState {
        self.vegas.as_mut().expect("a Vegas sender")
    }

    /// Seconds since the first packet was sent (ns-2 `vegastime()`).
    fn vegastime(&self, net: &impl Port) -> f64 {
        net.now_secs() - self.firstsent
    }

    fn v_slot(&self, seq: i64) -> usize {
        self.vegas_ref().slot(seq)
    }

    /// Vegas's `output`: no header, no SYN, no ECN flags; every send is timed.
    pub(super) fn vegas_output(&mut self, net: &mut impl Port, seqno: i64) {
        if seqno == 0 {
            let w = self.wnd as usize;
            self.vegas_mut().sendtime = vec![-1.0; w];
            self.vegas_mut().transmits = vec![0; w];
        }
        let slot = self.v_slot(seqno);
        self.vegas_mut().sendtime[slot] = self.vegastime(net);
        self.vegas_mut().transmits[slot] += 1;
        self.ep.send(net, Kind::Tcp, |p| (p.size, p.payload, p.seq) = (self.p.packet_size, self.p.packet_size, seqno));
        self.note_sent(net, seqno);
        if !self.rtx_timer.pending() {
            self.set_rtx_timer(net);
        }
    }

    /// The segment after `ack` if its fine-grained timer has expired.
    fn vegas_expire(&self, net: &impl Port, ack: i64) -> Option<i64> {
        let v = self.vegas_ref();
        let elapse = self.vegastime(net) - v.sendtime[v.slot(ack + 1)];
        (elapse >= v.timeout).then_some(ack + 1)
    }

    pub(super) fn vegas_recv(&mut self, net: &mut impl Port, ack: &Packet) {
        let now = self.vegastime(net);
        let seq = ack.seq;
        let numdupacks = self.p.numdupacks as i64;
        if self.vegas_mut().firstrecv < 0.0 {
            self.vegas_mut().firstrecv = now;
            self.vegas_mut().base_rtt = now;
            self.vegas_mut().rtt = now;
            self.vegas_mut().sa = self.vegas_mut().rtt * 8.0;
            self.vegas_mut().sd = self.vegas_mut().rtt;
            self.vegas_mut().timeout = ((self.vegas_mut().sa / 4.0) + self.vegas_mut().sd) / 2.0;
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
            if self.dupacks > numdupacks && self.cwnd > self.vegas_mut().newcwnd {
                let c = self.vegas_mut().newcwnd;
                self.set_cwnd(net, c);
                self.ssthresh = 2;
            }
            let oldack = self.last_ack;
            self.newack(net, ack);
            if self.highest_ack >= self.curseq - 1 && !self.closed {
                self.closed = true;
            }
            if seq >= self.vegas_mut().begseq {
                self.vegas_once_per_rtt(net, now);
            }
            // An increment decided for slow start stops at ssthresh.
            if self.vegas_mut().incr == 1.0 && self.cwnd >= self.ssthresh as f64 {
                self.vegas_mut().incr = 0.0;
            }
            if self.vegas_mut().incr > 0.0 && (self.cwnd - (self.t_seqno - self.last_ack) as f64) <= 2.0 {
                let c = self.cwnd + self.vegas_mut().incr;
                self.set_cwnd(net, c);
            }
            if self.p.max_cwnd > 0 && self.cwnd as i64 > self.p.max_cwnd as i64 {
                let c = self.p.max_cwnd as f64;
                self.set_cwnd(net, c);
            }
            self.vegas_sample(seq, oldack, now);
            // Check the first and second ACK after a retransmission for more expired segments.
            if self.vegas_mut().worried > 0 {
                self.vegas_mut().worried -= 1;
                match self.vegas_expire(net, seq) {
                    Some(expired) => {
                        self.dupacks = numdupacks;
                        self.vegas_output(net, expired);
                    }
                    None => self.vegas_mut().worried = 0,
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
        let v = self.vegas.as_mut().expect("a Vegas sender"); // beside the shared fields it reads
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
                    self.vegas_mut().incr = 0.0;
                    let c = self.cwnd - self.cwnd / 8.0;
                    self.set_cwnd(net, c);
                    if self.cwnd < 2.0 {
                        self.set_cwnd(net, 2.0);
                    }
                } else {
                    v.incr = 1.0;
                }
            } else if delta > self.p.v_beta as i64 {
                self.vegas_mut().incr = 0.0;
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
        self.vegas_mut().begseq = self.t_seqno;
        self.vegas_mut().begtime = now;
    }

    /// The fine-grained RTT sample of the segment just acked, if it was sent once.
    fn vegas_sample(&mut self, seq: i64, oldack: i64, now: f64) {
        let v = self.vegas_mut();
        let w = v.sendtime.len() as i64;
        let (send_time, transmits) = (v.sendtime[v.slot(seq)], v.transmits[v.slot(seq)]);
        // Forget the segments this ACK covers (ns-2's loop, wrap-around quirk included).
        let mut range = seq - oldack;
        let mut k = (oldack + 1).rem_euclid(w);
        while k <= seq.rem_euclid(w) && range > 0 {
            v.sendtime[k as usize] = -1.0;
            v.transmits[k as usize] = 0;
            k = (k + 1) % w;
            range -= 1;
        }
        let v = self.vegas_mut();
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
        let (send_time, transmits) = (self.vegas_mut().sendtime[slot], self.vegas_mut().transmits[slot]);
        if self.p.bug_fix && self.highest_ack <= self.recover && self.last_cwnd_action == CwndAction::Timeout {
            return;
        }
        let mut win = self.window();
        self.last_cwnd_action = CwndAction::Dupack;
        self.recover = self.maxseq;
        self.vegas_mut().worried = 2.min(self.t_seqno - self.last_ack);
        if transmits > 1 {
            self.vegas_mut().timeout *= 2.0;
        } else {
            self.vegas_mut().timeout += self.vegas_mut().timeout / 8.0;
        }
        if self.vegas_mut().t_cwnd_changed < send_time {
            win = if win <= 3 {
                2
            } else if transmits > 1 {
                win >> 1
            } else {
                win - (win >> 2)
            };
            self.vegas_mut().newcwnd = win as f64;
            let c = self.vegas_mut().newcwnd + self.dupacks as f64;
            self.set_cwnd(net, c);
            self.vegas_mut().t_cwnd_changed = now;
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
        let c = self.vegas_mut().slowstart;
        self.set_cwnd(net, c);
        self.vegas_mut().newcwnd = 0.0;
        self.vegas_mut().t_cwnd_changed = self.vegastime(net);
        self.send_much(net, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::Tcp;
    use crate::port::TimerKind;
    use crate::scenario::TcpParams;
    use crate::scenario::TcpVariant;

    /// ACKs, in order, every segment sent and not yet ACKed, each `rtt` after it was sent;
    /// returns cwnd after each ACK. Segments sent meanwhile wait for the next round.
    fn round(t: &mut Tcp, rtt: f64) -> Vec<f64> {
        let from = t.s.highest_ack + 1;
        let due: Vec<(i64, f64)> = t.net.sent.iter().filter(|p| p.seq >= from).map(|p| (p.seq, p.ts)).collect();
        due.into_iter()
            .map(|(seq, ts)| {
                t.ack(ts + rtt, seq, &[]);
                t.s.cwnd
            })
            .collect()
    }

    fn last(cwnds: &[f64]) -> f64 {
        *cwnds.last().expect("a round with ACKs")
    }

    /// Vegas's slow start (the notes, 2.6): no SYN, 1000-byte segments from seqno 0; cwnd stays
    /// 1 until the second new ACK, which sets windowInit_ 2; then, once per RTT, the increment
    /// toggles: on "on" RTTs cwnd grows by one per ACK (doubling), on "off" RTTs it holds. With
    /// no queueing (every RTT 0.1 s) diff is 0 <= gamma, so it never leaves: 1, 3, 3, 6, 6, 12.
    #[test]
    fn vegas_slow_start_doubles_every_other_rtt() {
        let mut t = Tcp::start(TcpVariant::Vegas, TcpParams::default());
        assert_eq!(t.net.sent.iter().map(|p| (p.seq, p.size)).collect::<Vec<_>>(), vec![(0, 1000)]);
        let after: Vec<f64> = (0..6).map(|_| last(&round(&mut t, 0.1))).collect();
        assert_eq!(after, vec![1.0, 3.0, 3.0, 6.0, 6.0, 12.0]);
        assert_eq!(t.s.ssthresh, 20);
        assert!(t.net.sent.iter().all(|p| p.size == 1000 && p.flags == 0));
    }

    /// Once per RTT in congestion avoidance (the notes, 2.6): diff = int((expected - actual) *
    /// baseRTT + 0.5) with 10 segments per RTT and baseRTT 0.1 s is int(10 * (1 - 0.1 / rtt) +
    /// 0.5), rtt being the mean of the last RTT's samples: 0 at 0.1 s, 2 at 0.125 s, 5 at
    /// 0.2 s. diff > beta: cwnd - 1 at once; diff < alpha: 1/cwnd per ACK (about one per RTT);
    /// else hold. The decision is taken on the RTT's first ACK only.
    ///
    /// The flow: window_ 10 (so ssthresh 10), slow start to cwnd 10 at 0.1 s RTTs, one more RTT
    /// of `rtt` (ACKs 10 segments), then the RTT whose first ACK decides.
    #[test]
    fn vegas_decides_once_per_rtt_by_alpha_and_beta() {
        #[derive(Debug, PartialEq)]
        enum Then {
            Increase,
            Hold,
            Decrease,
        }
        let cases = [
            (0.1, 1, 3, Then::Increase),
            (0.125, 1, 3, Then::Hold),
            (0.2, 1, 3, Then::Decrease),
            (0.125, 3, 5, Then::Increase),
            (0.125, 1, 1, Then::Decrease),
            (0.2, 1, 5, Then::Hold),
        ];
        for (rtt, alpha, beta, then) in cases {
            let p = TcpParams { window: 10, v_alpha: alpha, v_beta: beta, ..TcpParams::default() };
            let mut t = Tcp::start(TcpVariant::Vegas, p);
            for _ in 0..6 {
                round(&mut t, 0.1);
            }
            assert_eq!((t.s.cwnd, t.s.ssthresh), (10.0, 10), "slow start ends at ssthresh");
            let acks = round(&mut t, rtt).len();
            assert_eq!(acks, 10, "a window of 10");
            let c0 = t.s.cwnd;
            let cwnds = round(&mut t, 0.1);
            assert_eq!(cwnds.len(), 10);
            let case = format!("rtt {rtt}, alpha {alpha}, beta {beta}: cwnd {c0} then {cwnds:?}");
            match then {
                Then::Increase => {
                    let mut c = c0;
                    for got in &cwnds {
                        c += 1.0 / c0;
                        assert!((got - c).abs() < 1e-9, "{case}");
                    }
                }
                Then::Hold => assert!(cwnds.iter().all(|&c| c == c0), "{case}"),
                Then::Decrease => assert!(cwnds.iter().all(|&c| c == c0 - 1.0), "{case}"),
            }
        }
    }

    /// Vegas's third dupack (the notes, 2.6, "cwnd 12 -> (9+3) -> inflate -> 9 on new ACK,
    /// ssthresh 2"): a segment sent once cuts the int window 12 to 12 - 12/4 = 9 and cwnd to
    /// 9 + 3 dupacks; each later dupack adds one and lets one new segment go; the new ACK
    /// deflates to 9 and sets ssthresh 2. That ACK also passes the RTT's tagged segment: with
    /// 20 sent in the last RTT and 9 outstanding, diff = int((90 - 200) * 0.1 + 0.5) < alpha,
    /// so 1/9 more (cwnd - outstanding = 0 <= 2).
    #[test]
    fn vegas_three_dupacks_cut_to_three_quarters_and_deflate_on_new_ack() {
        let mut t = Tcp::start(TcpVariant::Vegas, TcpParams::default());
        for _ in 0..6 {
            round(&mut t, 0.1);
        }
        assert_eq!(t.s.cwnd, 12.0);
        let lost = t.s.highest_ack + 1;
        let sent: Vec<Vec<i64>> = (0..11).map(|i| t.sends(|t| t.ack(0.7 + 0.001 * i as f64, lost - 1, &[]))).collect();
        let mut expected: Vec<Vec<i64>> = vec![vec![], vec![], vec![lost]];
        expected.extend((12..20).map(|k| vec![lost + k]));
        assert_eq!(sent, expected);
        assert_eq!((t.s.cwnd, t.s.vegas_ref().newcwnd), (20.0, 9.0));
        t.ack(0.8, lost + 11, &[]);
        assert_eq!(t.s.ssthresh, 2);
        assert!((t.s.cwnd - (9.0 + 1.0 / 9.0)).abs() < 1e-12, "cwnd {}", t.s.cwnd);
    }

    /// Vegas's timeout (the notes, 2.6: "cwnd = 2 (not 1) ... [V: two packets resent at t=3
    /// s]"): the lost first segment goes again with the next one, and the RTO doubles.
    #[test]
    fn vegas_timeout_restarts_at_cwnd_2() {
        let mut t = Tcp::start(TcpVariant::Vegas, TcpParams::default());
        assert_eq!(t.net.deadline(TimerKind::Rtx), Some(3.0));
        let resent = t.sends(|t| assert_eq!(t.timeout(), 3.0));
        assert_eq!(resent, vec![0, 1]);
        assert_eq!((t.s.cwnd, t.s.ssthresh), (2.0, 2));
        assert_eq!(t.net.deadline(TimerKind::Rtx), Some(9.0));
    }
}
