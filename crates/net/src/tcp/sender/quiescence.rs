//! ns-2's TCP quiescence option (`QOption_`, tcp.cc `process_qoption_after_send`,
//! `rtt_counting`, `process_qoption_after_ack`), after RFC 2861: a sender that was idle, or
//! sent less than its window allowed, for an RTO (or, with `EnblRTTCtr_`, for two RTTs it
//! counted) lowers ssthresh to no less than 3/4 of cwnd and shrinks cwnd. Also
//! `control_increase_`: cwnd opens only on ACKs of a window the sender used in full.
//!
//! ns-2 keeps this state in `TcpAgent` itself; here only a sender with `qoption` holds it. Times
//! are ns-2's integer ticks (`now / tcp_tick + 0.5`), as it keeps them.

use super::{CutWindows, Ns2Sender};
use crate::port::{Port, TimerKind};

/// What ns-2's `reset()` sets for the option, and what it updates as the sender goes.
#[derive(Debug, Default)]
pub(super) struct Quiescence {
    /// The tick of the last send (`T_last`).
    last_send: i64,
    /// The tick of the last time the window was used in full or cut (`T_prev`).
    last_full: i64,
    /// The most that was outstanding while application-limited (`W_used`).
    used: i64,
    // The RTT counter (`EnblRTTCtr_`).
    /// The tick this count of RTTs began (`T_start`).
    count_start: i64,
    /// RTTs counted since `count_start` (`RTT_count`).
    rtts: i64,
    /// `rtts` at the last full window or cut (`RTT_prev`).
    rtts_prev: i64,
    /// The most RTTs counted in two smoothed RTTs (`RTT_goodcount`), at least 1.
    good_count: i64,
    /// A segment is being timed (`F_counting`): `timed` is its seqno (`W_timed`).
    counting: bool,
    timed: i64,
    /// The window was used in full in this count (`F_full`).
    full: bool,
    /// Application-limited cuts since the last send (`Backoffs`).
    backoffs: i64,
}

/// The window cuts of an idle sender (ns-2's slowdown flags with `TCP_IDLE`, which sets no CWR).
#[derive(Clone, Copy, Debug)]
pub(super) enum IdleCut {
    /// `THREE_QUARTER_SSTHRESH`: ssthresh at least 3/4 of cwnd.
    ThreeQuarterSsthresh,
    /// `CWND_HALF_WITH_MIN`: cwnd to decrease_num of the window, at least 1.
    HalfWithMin,
    /// `CLOSE_CWND_HALF_WAY`: cwnd decrease_num of the way from the window used to the window.
    HalfWay,
}

impl Quiescence {
    /// ns-2's `reset()` (and `reset_qoption()`) at tick `now`.
    pub(super) fn new(now: i64) -> Quiescence {
        Quiescence { last_send: now, last_full: now, count_start: now, good_count: 1, timed: -1, ..Default::default() }
    }
}

impl Ns2Sender {
    fn q(&mut self) -> &mut Quiescence {
        self.quiescence.as_mut().expect("qoption")
    }

    /// ns-2's clock in the agent's ticks, rounded.
    fn tick_now(&self, net: &impl Port) -> i64 {
        (net.now_secs() / self.p.tcp_tick + 0.5) as i32 as i64
    }

    /// `process_qoption_after_send`: after sending `t_seqno` (before it advances).
    pub(super) fn qoption_after_send(&mut self, net: &mut impl Port) {
        if self.p.rtt_counter {
            return self.rtt_counting(net);
        }
        let now = self.tick_now(net);
        let rto = (self.rtt.rtxcur / self.p.tcp_tick) as i32 as i64;
        if now - self.q().last_send >= rto {
            // idle for an RTO or more: a cut per RTO
            self.idle_slowdown(net, IdleCut::ThreeQuarterSsthresh);
            for _ in 0..(now - self.q().last_send) / rto {
                self.idle_slowdown(net, IdleCut::HalfWithMin);
            }
            let q = self.q();
            q.last_full = now;
            q.used = 0;
        }
        self.q().last_send = now;
        if self.t_seqno == self.highest_ack + self.window() {
            let q = self.q();
            q.last_full = now;
            q.used = 0;
        } else if self.t_seqno == self.curseq - 1 {
            // nothing more to send: application-limited
            let outstanding = self.t_seqno - self.highest_ack;
            let q = self.q();
            q.used = q.used.max(outstanding);
            if now - q.last_full >= rto {
                self.idle_slowdown(net, IdleCut::ThreeQuarterSsthresh);
                self.idle_slowdown(net, IdleCut::HalfWay);
                let q = self.q();
                q.last_full = now;
                q.used = 0;
            }
        }
    }

    /// `rtt_counting`: as above, with RTTs counted by ACKs of timed segments, and idle time
    /// measured in two smoothed RTTs.
    fn rtt_counting(&mut self, net: &mut impl Port) {
        let now = self.tick_now(net);
        let rtt = ((self.rtt.srtt >> self.p.srtt_bits) as i64).max(1);
        let idle = now - self.q().last_send;
        if idle >= 2 * rtt {
            let q = self.q();
            let rtts = idle * q.good_count / (rtt * 2) - q.backoffs;
            q.backoffs = 0;
            if rtts > 0 {
                self.idle_slowdown(net, IdleCut::ThreeQuarterSsthresh);
                for _ in 0..rtts {
                    self.idle_slowdown(net, IdleCut::HalfWithMin);
                    let q = self.q();
                    q.rtts_prev = q.rtts;
                    q.used = 0;
                }
            }
        }
        let q = self.q();
        q.last_send = now;
        if now - q.count_start >= 2 * rtt {
            if q.rtts > q.good_count || q.full {
                q.good_count = q.rtts.max(1);
            }
            q.rtts_prev -= q.rtts;
            q.rtts = 0;
            q.count_start = now;
            q.full = false;
        }
        if self.t_seqno == self.highest_ack + self.window() {
            let q = self.q();
            q.used = 0;
            q.full = true;
            q.rtts_prev = q.rtts;
        } else if self.t_seqno == self.curseq - 1 {
            let outstanding = self.t_seqno - self.highest_ack;
            let q = self.q();
            q.used = q.used.max(outstanding);
            if q.rtts - q.rtts_prev >= 2 {
                self.idle_slowdown(net, IdleCut::ThreeQuarterSsthresh);
                self.idle_slowdown(net, IdleCut::HalfWay);
                let q = self.q();
                q.rtts_prev = q.rtts;
                q.backoffs += 1;
                q.used = 0;
            }
        }
        let t_seqno = self.t_seqno;
        let q = self.q();
        if !q.counting {
            q.timed = t_seqno;
            q.counting = true;
        }
    }

    /// `process_qoption_after_ack` (Tahoe's recv, with the RTT counter): an ACK of the timed
    /// segment, or a fast retransmit, ends an RTT.
    pub(super) fn qoption_after_ack(&mut self, seqno: i64) {
        let fast_retransmit = self.dupacks == self.p.numdupacks as i64;
        let q = self.q();
        if q.counting {
            if seqno >= q.timed {
                q.rtts += 1;
                q.counting = false;
            } else if fast_retransmit {
                q.rtts += 1;
            }
        }
    }

    /// The end of `recv_newack_helper` under the option: with all data acknowledged, no
    /// retransmission timer.
    pub(super) fn qoption_after_newack(&mut self, net: &mut impl Port) {
        if self.curseq == self.highest_ack + 1 {
            net.cancel(&mut self.rtx_timer, self.ep.flow, TimerKind::Rtx);
        }
    }

    /// `network_limited()` of `control_increase_`: the sender had more out than a window
    /// beyond the ACK before this one.
    pub(super) fn network_limited(&self) -> bool {
        self.t_seqno > self.prev_highest_ack + self.window()
    }

    /// ns-2's `slowdown()` with one of the idle flags.
    fn idle_slowdown(&mut self, net: &mut impl Port, how: IdleCut) {
        let CutWindows { slowstart, decreasewin, win, .. } = self.cut_windows();
        let cwnd = match how {
            IdleCut::ThreeQuarterSsthresh => {
                if (self.ssthresh as f64) < 3.0 * self.cwnd / 4.0 {
                    self.ssthresh = (3.0 * self.cwnd / 4.0) as i64;
                }
                self.cwnd
            }
            IdleCut::HalfWithMin => decreasewin,
            IdleCut::HalfWay => {
                let used = self.q().used as f64;
                used + self.decrease_num * (win - used)
            }
        };
        self.set_cwnd(net, cwnd);
        if self.cwnd < 1.0 {
            self.set_cwnd(net, 1.0);
        }
        self.end_slowdown(net, slowstart);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::Tcp;
    use super::*;
    use crate::scenario::{TcpParams, TcpVariant};
    use crate::tcp::Ftp;

    fn params(rtt_counter: bool) -> TcpParams {
        TcpParams {
            qoption: true,
            rtt_counter,
            syn: false,
            delay_growth: false,
            precision_reduce: false,
            ..TcpParams::default()
        }
    }

    fn sender(p: TcpParams) -> Tcp {
        Tcp {
            s: Ns2Sender::new(TcpVariant::Tahoe, p, None, crate::testing::sender_end(), 0.0),
            net: Default::default(),
        }
    }

    /// Tahoe with 10 packets to send, all sent and ACKed by 0.3 s: cwnd 2 + 10.
    fn all_acked(t: &mut Tcp) {
        t.s.advance(&mut t.net, 10);
        for (time, acks) in [(0.1, 0..=1), (0.2, 2..=5), (0.3, 6..=9)] {
            for a in acks {
                t.ack(time, a, &[]);
            }
        }
    }

    /// Idle for more than an RTO: the next send cuts ssthresh to at least 3/4 cwnd, then
    /// halves cwnd once per RTO idle (ns-2's `process_qoption_after_send`).
    #[test]
    fn an_idle_rto_cuts_the_window_once_per_rto() {
        let mut t = sender(params(false));
        all_acked(&mut t);
        assert_eq!((t.s.cwnd, t.s.ssthresh), (12.0, 20), "slow start: 2 + 10 ACKs");
        // the last send (seqno 9) was at 0.2 s, tick 20; idle for three RTOs and a bit
        let rto = (t.s.rtt.rtxcur / 0.01) as i64;
        assert!(rto > 1);
        t.net.set_now((20 + 3 * rto + 1) as f64 * 0.01);
        t.s.advance_by(&mut t.net, 1);
        // 3/4 of 12 is 9 < 20: ssthresh stays; three halvings (of int(window)): 12 -> 6 -> 3 -> 1
        assert_eq!((t.s.cwnd, t.s.ssthresh), (1.0, 20));
        assert!(!t.s.cong_action, "an idle cut sets no CWR");
        assert_eq!(t.net.sent.last().unwrap().seq, 10);
    }

    /// control_increase_: an ACK opens cwnd only if the sender was network-limited.
    #[test]
    fn control_increase_opens_cwnd_only_when_network_limited() {
        let mut t =
            sender(TcpParams { control_increase: true, syn: false, delay_growth: false, ..TcpParams::default() });
        t.s.advance(&mut t.net, 3);
        assert_eq!(t.net.seqs_since(0), vec![0, 1], "cwnd 2");
        t.ack(0.1, 0, &[]);
        // t_seqno 2 > prev_highest_ack -1 + window 2: network-limited, cwnd opens (2 goes)
        assert_eq!(t.s.cwnd, 3.0);
        t.ack(0.2, 1, &[]);
        // t_seqno 3 is not beyond 0 + 3: application-limited, cwnd stays
        assert_eq!(t.s.cwnd, 3.0);
    }
}
