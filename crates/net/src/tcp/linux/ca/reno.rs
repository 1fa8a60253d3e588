//! `reno` (the kernel's tcp_cong.c) and ns-2's example module `naive_reno` (tcp_naivereno.c).

use super::super::{reno_cong_avoid, reno_min_cwnd, reno_ssthresh, CongestionControl, TcpSock};

/// The kernel's Reno: ABC slow start, one segment per window, half the window on a loss and,
/// in ns-2's agent, half of that as the window in recovery (`tcp_reno_min_cwnd`).
pub struct Reno;

impl CongestionControl for Reno {
    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        reno_ssthresh(tp)
    }

    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        reno_min_cwnd(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, in_flight: u64, _good: bool) {
        reno_cong_avoid(tp, in_flight)
    }
}

/// ns-2's naive Reno: +1 per ACK below ssthresh, +alpha per window of ACKs above it, and the
/// window cut by 1/beta on a loss. Its module parameters keep their defaults.
pub struct NaiveReno;

const NAIVE_ALPHA: u64 = 1;
const NAIVE_BETA: u64 = 2;

impl CongestionControl for NaiveReno {
    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        let reduction = tp.snd_cwnd / NAIVE_BETA;
        (tp.snd_cwnd - reduction).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, _in_flight: u64, _good: bool) {
        if tp.snd_cwnd < tp.snd_ssthresh {
            tp.snd_cwnd += 1;
        } else if tp.snd_cwnd_cnt as u64 >= tp.snd_cwnd {
            tp.snd_cwnd = (tp.snd_cwnd + NAIVE_ALPHA).min(tp.snd_cwnd_clamp as u64);
            tp.snd_cwnd_cnt = 0;
        } else {
            tp.snd_cwnd_cnt += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naive_reno_grows_per_ack_then_per_window() {
        let mut tp = TcpSock { snd_cwnd: 4, snd_ssthresh: 5, snd_cwnd_clamp: 100, ..TcpSock::default() };
        let mut ca = NaiveReno;
        ca.cong_avoid(&mut tp, 0, 0, true);
        assert_eq!(tp.snd_cwnd, 5);
        for _ in 0..5 {
            ca.cong_avoid(&mut tp, 0, 0, true);
        }
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (5, 5));
        ca.cong_avoid(&mut tp, 0, 0, true);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (6, 0));
        // 7 - 7/2 = 4; the window after the cut is ssthresh itself
        tp.snd_cwnd = 7;
        assert_eq!(ca.ssthresh(&tp), 4);
        tp.snd_ssthresh = 4;
        assert_eq!(ca.min_cwnd(&tp), 4);
    }

    #[test]
    fn reno_recovers_at_half_the_threshold() {
        let mut tp = TcpSock { snd_cwnd: 20, ..TcpSock::default() };
        let mut ca = Reno;
        tp.snd_ssthresh = ca.ssthresh(&tp);
        assert_eq!((tp.snd_ssthresh, ca.min_cwnd(&tp)), (10, 5));
    }
}
