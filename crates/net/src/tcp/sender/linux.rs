//! ns-2's `Agent/TCP/Linux` (tcp-linux.cc): a TcpAgent whose window is a Linux
//! congestion-control module's (tcp/linux/). It keeps the kernel's view of the connection
//! (`TcpSock`: snd_cwnd, snd_ssthresh, the clock in jiffies), its own scoreboard
//! (`ScoreBoard1`), the kernel's states Open, Recovery and Loss, and rate halving through
//! `next_pkts_in_flight_`. After each ACK ns-2 copies the module's window into cwnd_
//! (`save_from_linux`); its timers, RTT ticks (1 ms once a module is selected) and `output`
//! are TcpAgent's.

use super::{CwndAction, CwndCut, Ns2Sender, Slowdown};
use crate::packet::{flags, Packet};
use crate::port::{Port, TimerKind};
use crate::scenario::TcpParams;
use crate::tcp::linux::scoreboard::Scoreboard;
use crate::tcp::linux::{controller, flag, CaEvent, CaState, CongestionControl, TcpSock, HZ};

/// What `LinuxTcpAgent` adds to `TcpAgent`.
pub(super) struct LinuxState {
    sock: TcpSock,
    ca: Box<dyn CongestionControl>,
    scoreboard: Scoreboard,
    /// The module's `init` has run (at the first ACK).
    initialized: bool,
    /// Rate halving: how many segments may be in flight while above snd_cwnd (0: off).
    next_pkts_in_flight: i64,
}

/// ns-2's JIFFY_RATIO as the tick `select_ca` sets (1 ms).
const JIFFY: f64 = 1.0 / HZ as f64;
/// The dupack threshold the scoreboard marks losses by: ns-2 calls `UpdateScoreBoard` with its
/// default, 3 (the kernel's `tcp_reordering`), whatever the agent's numdupacks_.
const REORDERING: i64 = 3;

impl LinuxState {
    /// The agent after `$ns run`'s reset and `select_ca` at time 0: the kernel's window
    /// loaded from cwnd_, ssthresh_ and window_ (`load_to_linux_once`, `load_to_linux`).
    pub(super) fn new(p: &TcpParams, cwnd: f64, ssthresh: i64, wnd: f64) -> LinuxState {
        let sock = TcpSock {
            snd_cwnd: cwnd as u64,
            snd_ssthresh: ssthresh as u64,
            snd_cwnd_clamp: wnd as u32,
            mss_cache: p.packet_size as u64,
            abc: p.tcp_abc,
            ..TcpSock::default()
        };
        LinuxState {
            sock,
            ca: controller(p.ca),
            scoreboard: Scoreboard::default(),
            initialized: false,
            next_pkts_in_flight: 0,
        }
    }

    /// Whether the module needs each segment's send time (ns-2 then sets `bugfix_ts_`).
    pub(super) fn wants_rtt_stamps(&self) -> bool {
        self.ca.wants_rtt_stamps()
    }
}

impl Ns2Sender {
    fn lx(&mut self) -> &mut LinuxState {
        self.linux.as_mut().expect("a Linux sender")
    }

    fn lx_ref(&self) -> &LinuxState {
        self.linux.as_ref().expect("a Linux sender")
    }

    /// `select_ca` at time 0: the RTT clock ticks in jiffies from now on, and a module that
    /// samples RTTs has each segment's send time recorded.
    pub(super) fn linux_select_ca(&mut self) {
        self.p.tcp_tick = JIFFY;
        if self.lx_ref().wants_rtt_stamps() {
            self.p.bug_fix_ts = true;
        }
    }

    /// `window()`: the module's window, whatever window_ says.
    pub(super) fn linux_window(&self) -> i64 {
        self.lx_ref().sock.snd_cwnd as i64
    }

    fn linux_packets_in_flight(&self) -> i64 {
        self.lx_ref().scoreboard.packets_in_flight(self.highest_ack + 1, self.t_seqno)
    }

    fn set_ca_state(&mut self, state: CaState) {
        let lx = self.lx();
        lx.ca.set_state(&mut lx.sock, state);
        lx.sock.ca_state = state as u8;
    }

    fn ca_event(&mut self, ev: CaEvent) {
        let lx = self.lx();
        lx.ca.cwnd_event(&mut lx.sock, ev);
    }

    /// `touch_cwnd`: the window changed now.
    fn touch_cwnd(&mut self) {
        let lx = self.lx();
        lx.sock.snd_cwnd_stamp = lx.sock.jiffies;
    }

    /// `save_from_linux`: cwnd_ (the traced window) and ssthresh_ from the kernel's.
    fn save_from_linux(&mut self, net: &mut impl Port) {
        let lx = self.lx_ref();
        let cwnd = if lx.next_pkts_in_flight > lx.sock.snd_cwnd as i64 {
            lx.next_pkts_in_flight as f64
        } else {
            lx.sock.snd_cwnd as f64
        };
        self.ssthresh = lx.sock.snd_ssthresh as i64;
        self.set_cwnd(net, cwnd);
        self.last_ack = self.highest_ack;
    }

    /// `load_to_linux`: the kernel's window from cwnd_ and ssthresh_ (after TcpAgent code set
    /// them), unless rate halving holds a larger flight.
    fn load_to_linux(&mut self) {
        let (cwnd, ssthresh, wnd) = (self.cwnd, self.ssthresh, self.wnd);
        let lx = self.lx();
        lx.sock.snd_ssthresh = ssthresh as u64;
        if lx.next_pkts_in_flight > lx.sock.snd_cwnd as i64 && cwnd >= lx.sock.snd_cwnd as f64 {
            lx.next_pkts_in_flight = cwnd.trunc() as i64;
        } else {
            lx.sock.snd_cwnd = cwnd.trunc() as u64;
        }
        lx.sock.snd_cwnd_clamp = wnd as i64 as u32;
    }

    /// `recv`, the kernel's `tcp_ack`.
    pub(super) fn linux_recv(&mut self, net: &mut impl Port, ack: &Packet) {
        let now = net.now_secs();
        {
            let sock = &mut self.lx().sock;
            sock.jiffies = (now * HZ as f64).trunc() as u64;
            sock.ktime_ns = (now * 1e9).trunc() as i64;
        }
        let prior_snd_una = self.highest_ack + 1;
        let acked_to = ack.seq + 1;
        if acked_to > self.t_seqno || acked_to < prior_snd_una {
            return;
        }
        let mut fl = 0u8;
        if ack.has(flags::ECN_ECHO) && self.p.ecn && acked_to > 1 {
            fl |= flag::ECE;
        }
        let prior_in_flight = self.linux_packets_in_flight();
        if acked_to > prior_snd_una {
            let lx = self.lx();
            lx.sock.bytes_acked += (acked_to - prior_snd_una) as u64 * lx.sock.mss_cache;
            fl |= flag::DATA_ACKED;
        }
        fl |= self.linux_ack_processing(ack, fl);
        if ack.nsack > 0 || !self.lx_ref().scoreboard.is_empty() {
            let highest_ack = self.highest_ack;
            fl |= self.lx().scoreboard.update(highest_ack, &ack.sack_blocks(), REORDERING);
        }
        self.linux_time_processing(net, ack, fl);

        let lx = self.lx();
        if !lx.initialized {
            lx.ca.init(&mut lx.sock);
            lx.initialized = true;
        }
        if fl & flag::NOT_DUP != 0 {
            let sent_ns = if fl & flag::UNSURE_TSTAMP != 0 || !self.p.bug_fix_ts || self.tss.is_empty() {
                0
            } else {
                (self.tss[(ack.seq % self.tss.len() as i64) as usize] * 1e9).trunc() as i64
            };
            let lx = self.lx();
            lx.ca.pkts_acked(&mut lx.sock, (acked_to - prior_snd_una) as u64, sent_ns);
        }
        let open = self.lx_ref().sock.in_state(CaState::Open);
        if open && fl & flag::CA_ALERT == 0 && fl & flag::NOT_DUP != 0 {
            self.ca_event(CaEvent::FastAck);
        } else {
            self.ca_event(CaEvent::SlowAck);
        }

        let dubious = fl & flag::NOT_DUP == 0 || fl & flag::CA_ALERT != 0 || !open;
        if dubious {
            let sock = &self.lx_ref().sock;
            let may_raise = (fl & flag::ECE == 0 || sock.snd_cwnd < sock.snd_ssthresh)
                && !(sock.in_state(CaState::Recovery) || sock.in_state(CaState::Cwr));
            if fl & flag::DATA_ACKED != 0 && may_raise {
                self.linux_cong_avoid(acked_to, prior_in_flight, false);
            }
            self.fastretrans_alert(fl);
        } else if fl & flag::DATA_ACKED != 0 {
            self.prev_highest_ack = self.highest_ack;
            self.linux_cong_avoid(acked_to, prior_in_flight, true);
        }
        self.save_from_linux(net);
        self.linux_send_much(net, self.p.maxburst);
    }

    fn linux_cong_avoid(&mut self, acked_to: i64, in_flight: i64, good: bool) {
        let lx = self.lx();
        let ack_bytes = (acked_to as u64).wrapping_mul(lx.sock.mss_cache);
        lx.ca.cong_avoid(&mut lx.sock, ack_bytes, in_flight as u64, good);
        self.touch_cwnd();
    }

    /// `ack_processing`: the sequence numbers an ACK advances.
    fn linux_ack_processing(&mut self, ack: &Packet, fl: u8) -> u8 {
        if fl & flag::DATA_ACKED == 0 {
            return fl | flag::UNSURE_TSTAMP;
        }
        self.highest_ack = ack.seq;
        self.maxseq = self.maxseq.max(self.highest_ack);
        let (highest_ack, mut t_seqno) = (self.highest_ack, self.t_seqno);
        if t_seqno < highest_ack + 1 {
            t_seqno = highest_ack + 1;
            self.t_seqno = t_seqno;
        }
        let sock = &mut self.lx().sock;
        sock.snd_una = (highest_ack + 1) as u64 * sock.mss_cache;
        sock.snd_nxt = t_seqno as u64 * sock.mss_cache;
        fl
    }

    /// Restart the timer while data is outstanding, else cancel it (`renew_timer`).
    fn linux_renew_timer(&mut self, net: &mut impl Port) {
        if self.t_seqno > self.highest_ack || self.highest_ack < self.maxseq || self.lx_ref().sock.snd_cwnd < 1 {
            self.set_rtx_timer(net);
        } else {
            net.cancel(&mut self.rtx_timer, self.ep.flow, TimerKind::Rtx);
        }
    }

    /// `time_processing`: timestamps, the RTT sample, the timer.
    fn linux_time_processing(&mut self, net: &mut impl Port, ack: &Packet, fl: u8) {
        if !self.p.timerfix {
            self.linux_renew_timer(net);
        }
        let now = net.now_secs();
        self.ts_peer = ack.ts;
        let saw_tstamp = self.p.timestamps;
        self.lx().sock.saw_tstamp = saw_tstamp;
        if saw_tstamp {
            self.ts_echo = ack.ts_echo;
            let sock = &mut self.lx().sock;
            sock.rcv_tsecr = (ack.ts_echo * HZ as f64).round() as u64;
            sock.rcv_tsval = (ack.ts * HZ as f64).round() as u64;
            let seq = if fl & flag::UNSURE_TSTAMP != 0 { 0 } else { ack.seq };
            self.linux_rtt_update(net, now, now - ack.ts_echo, seq);
            if self.p.ts_reset_rto {
                self.rtt.backoff = 1;
                if !self.ect || !self.ecn_backoff || !ack.has(flags::ECN_ECHO) {
                    self.ecn_backoff = false;
                }
            }
        }
        if self.rtt_active && ack.seq >= self.rtt_seq {
            if !self.ect || !self.ecn_backoff || !ack.has(flags::ECN_ECHO) {
                self.rtt.backoff = 1;
                self.ecn_backoff = false;
            }
            self.rtt_active = false;
            if !saw_tstamp {
                self.linux_rtt_update(net, now, now - self.rtt_ts, 0);
            }
        }
        if self.p.timerfix {
            self.linux_renew_timer(net);
        }
        if self.highest_ack >= self.curseq - 1 && !self.closed {
            self.closed = true;
        }
    }

    /// The agent's own `rtt_update`: TcpAgent's in jiffies, but with the kernel's damped
    /// variance on a falling RTT, and the sample handed to the module (`rtt_sample`), for
    /// segment `seq` (0: unknown) in microseconds.
    fn linux_rtt_update(&mut self, net: &mut impl Port, now: f64, tao: f64, seq: i64) {
        net.tracer().rtt_sample(now, self.ep.flow.0, tao);
        net.flow_stats(self.ep.flow).on_rtt_sample(tao);
        let ticks = super::rtt::TickEstimator::ticks(&self.p, self.boot_time, now, tao);
        if self.lx_ref().wants_rtt_stamps() {
            let sent = if self.p.bug_fix_ts && seq != 0 && !self.tss.is_empty() {
                now - self.tss[(seq % self.tss.len() as i64) as usize]
            } else {
                tao
            };
            let lx = self.lx();
            lx.ca.rtt_sample(&mut lx.sock, (sent * 1e6).round() as u64);
        }
        let (sb, vb) = (self.p.srtt_bits, self.p.rttvar_bits);
        let r = &mut self.rtt;
        r.rtt = (ticks as i32).max(1);
        if r.srtt != 0 {
            // a C `short`, as ns-2 computes it
            let mut delta = (r.rtt - (r.srtt >> sb)) as i16;
            r.srtt += delta as i32;
            if r.srtt <= 0 {
                r.srtt = 1;
            }
            if delta < 0 {
                delta = delta.wrapping_neg().wrapping_sub((r.rttvar >> vb) as i16);
                if delta > 0 {
                    delta >>= sb;
                }
            } else {
                delta = delta.wrapping_sub((r.rttvar >> vb) as i16);
            }
            r.rttvar += delta as i32;
        } else {
            r.srtt = r.rtt << sb;
            r.rttvar = r.rtt << (vb - 1);
        }
        let shift = self.p.rttvar_exp + sb - vb;
        r.rtxcur = (((r.rttvar << shift) + r.srtt) >> sb) as f64 * self.p.tcp_tick;
        let srtt = r.srtt as u64;
        self.lx().sock.srtt = srtt;
    }

    /// `tcp_fastretrans_alert`: leave recovery once `recover` is acknowledged; enter it (rate
    /// halving from the old window down to the module's) when the scoreboard finds a loss.
    fn fastretrans_alert(&mut self, fl: u8) {
        if !self.lx_ref().sock.in_state(CaState::Open) && self.highest_ack >= self.recover {
            self.lx().scoreboard.clear();
            let sock = &self.lx_ref().sock;
            if sock.snd_cwnd < sock.snd_ssthresh {
                let in_flight = self.linux_packets_in_flight();
                let max_burst = self.p.tcp_max_burst as i64;
                let sock = &mut self.lx().sock;
                sock.snd_cwnd = (sock.snd_ssthresh as i64).min(in_flight + max_burst) as u64;
                self.touch_cwnd();
            }
            self.set_ca_state(CaState::Open);
            self.lx().next_pkts_in_flight = 0;
            return;
        }
        if self.lx_ref().sock.in_state(CaState::Recovery) || fl & (flag::DATA_LOST | flag::ECE) == 0 {
            return;
        }
        self.recover = self.maxseq;
        self.last_cwnd_action = CwndAction::Dupack;
        self.touch_cwnd();
        let lx = self.lx();
        lx.next_pkts_in_flight = lx.sock.snd_cwnd as i64;
        lx.sock.snd_ssthresh = lx.ca.ssthresh(&lx.sock);
        lx.sock.snd_cwnd_cnt = 0;
        lx.sock.bytes_acked = 0;
        lx.sock.snd_cwnd = lx.ca.min_cwnd(&lx.sock);
        self.cong_action = true;
        self.set_ca_state(CaState::Recovery);
    }

    /// `enter_loss`: a timeout; the module's threshold, a window of one, and every unSACKed
    /// segment sent marked lost.
    fn enter_loss(&mut self) {
        self.touch_cwnd();
        let lx = self.lx();
        lx.sock.snd_ssthresh = lx.ca.ssthresh(&lx.sock);
        self.ca_event(CaEvent::Loss);
        let lx = self.lx();
        lx.sock.snd_cwnd = 1;
        lx.sock.snd_cwnd_cnt = 0;
        lx.sock.bytes_acked = 0;
        self.cong_action = true;
        self.recover = self.maxseq;
        self.set_ca_state(CaState::Loss);
        let (una, nxt) = (self.highest_ack + 1, self.t_seqno);
        self.lx().scoreboard.mark_loss(una, nxt);
    }

    /// `timeout(TCP_TIMER_RTX)`.
    pub(super) fn linux_timeout(&mut self, net: &mut impl Port) {
        let idle = self.highest_ack == self.maxseq;
        if idle && !self.p.slow_start_restart {
            return;
        }
        self.last_cwnd_action = CwndAction::Timeout;
        if idle {
            // restart_bugfix_: nothing outstanding, back to the initial window
            self.save_from_linux(net);
            self.slowdown(net, Slowdown { ssthresh_half: false, cwnd: CwndCut::Init });
            self.load_to_linux();
        } else {
            self.enter_loss();
        }
        // mild (TCP_REASON_TIMEOUT is non-zero): t_seqno stays, the scoreboard retransmits
        self.reset_rtx_timer(net, true, !idle);
        let lx = self.lx();
        lx.next_pkts_in_flight = 0;
        lx.sock.bytes_acked = 0;
        self.save_from_linux(net);
        self.linux_send_much(net, self.p.maxburst);
    }

    /// `send_much`: retransmissions the scoreboard asks for first, then new data, while the
    /// flight is below the window (or the rate-halving allowance).
    pub(super) fn linux_send_much(&mut self, net: &mut impl Port, maxburst: u32) {
        let mut win = self.linux_window();
        let in_flight = self.linux_packets_in_flight();
        let lx = self.lx();
        lx.next_pkts_in_flight = lx.next_pkts_in_flight.min(in_flight + 1);
        let mut npackets = 0;
        while self.linux_packets_in_flight() < win.max(self.lx_ref().next_pkts_in_flight) {
            let seqno = match self.lx().scoreboard.next_retransmission() {
                Some(seq) => {
                    let t_seqno = self.t_seqno;
                    self.lx().scoreboard.mark_retransmitted(seq, t_seqno);
                    win = self.linux_window();
                    seq
                }
                None if self.t_seqno >= self.curseq => return,
                None => {
                    self.t_seqno += 1;
                    self.t_seqno - 1
                }
            };
            self.output(net, seqno);
            let in_flight = self.linux_packets_in_flight();
            let lx = self.lx();
            lx.next_pkts_in_flight = lx.next_pkts_in_flight.min((in_flight - 1).max(1));
            if self.t_seqno <= seqno {
                self.t_seqno = seqno + 1;
            }
            let t_seqno = self.t_seqno as u64;
            let sock = &mut self.lx().sock;
            sock.snd_nxt = t_seqno * sock.mss_cache;
            npackets += 1;
            if maxburst > 0 && npackets >= maxburst {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::Tcp;
    use crate::scenario::{LinuxCa, TcpParams, TcpVariant};

    /// Linux Reno as the Linux class sets it up: no delayed growth, so a window of 2 from the
    /// start (the SYN and segment 1 go at once), ssthresh window_ 20.
    fn linux_reno() -> Tcp {
        let p = TcpParams { ca: LinuxCa::Reno, delay_growth: false, ..TcpParams::default() };
        let t = Tcp::start(TcpVariant::Linux, p);
        assert_eq!(t.net.seqs_since(0), vec![0, 1]);
        t
    }

    /// ABC slow start: an ACK of one segment adds one (cnt += cwnd reaches cwnd), and the
    /// flight (t_seqno - snd_una) may grow to the window.
    #[test]
    fn slow_start_by_bytes_acked() {
        let mut t = linux_reno();
        assert_eq!(t.sends(|t| t.ack(0.1, 0, &[])), vec![2, 3]);
        assert_eq!(t.s.cwnd, 3.0);
        assert_eq!(t.sends(|t| t.ack(0.2, 1, &[])), vec![4, 5]);
        assert_eq!((t.s.cwnd, t.s.ssthresh), (4.0, 20));
    }

    /// Segment 2 lost at cwnd 4 (2..5 out). A SACK of 3 only takes 3 out of the flight: one new
    /// segment. A SACK reaching 6 puts 2 more than three below the highest SACKed: lost. Linux
    /// Reno enters Recovery with ssthresh 4 / 2 = 2 and snd_cwnd ssthresh / 2 = 1; rate halving
    /// starts from the old window (cwnd_ shows 4), held to one more than the flight, which the
    /// SACKs and the loss leave empty: the retransmission of 2 goes, and the allowance is 1.
    #[test]
    fn a_sack_past_the_threshold_starts_recovery_with_rate_halving() {
        let mut t = linux_reno();
        t.sends(|t| t.ack(0.1, 0, &[]));
        t.sends(|t| t.ack(0.2, 1, &[]));
        assert_eq!(t.sends(|t| t.ack(0.3, 1, &[(3, 4)])), vec![6]);
        assert_eq!(t.sends(|t| t.ack(0.31, 1, &[(3, 7)])), vec![2]);
        assert_eq!((t.s.cwnd, t.s.ssthresh), (4.0, 2));
        let lx = t.s.linux.as_ref().unwrap();
        assert_eq!((lx.sock.snd_cwnd, lx.next_pkts_in_flight), (1, 1));
    }

    /// A timeout: ssthresh from the module, a window of one, every unSACKed segment sent marked
    /// lost and the first of them retransmitted; t_seqno stays.
    #[test]
    fn a_timeout_marks_the_flight_lost() {
        let mut t = linux_reno();
        t.sends(|t| t.ack(0.1, 0, &[]));
        let sent = t.sends(|t| {
            t.timeout();
        });
        assert_eq!(sent, vec![1]);
        assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.t_seqno), (1.0, 2, 4));
    }
}
