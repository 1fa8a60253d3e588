//! TCP Veno (tcp_veno.c): Vegas's backlog estimate (cwnd - cwnd * baseRTT / RTT, << 1) tells
//! random loss from congestion: grow every other RTT and halve when the backlog is 3 or more,
//! else grow each RTT and cut a fifth. RTTs come from each ACK's segment send time.

use super::super::{bound_cwnd, cwnd_limited, reno_cong_avoid, slow_start, CaState, CongestionControl, TcpSock};

const V_PARAM_SHIFT: u32 = 1;
const BETA: u64 = 3 << V_PARAM_SHIFT;

#[derive(Default)]
pub struct Veno {
    doing_veno_now: bool,
    cntrtt: u32,
    /// The lowest RTT (µs) of this RTT's samples, and of all.
    min_rtt: u64,
    base_rtt: u64,
    inc: bool,
    diff: u64,
}

impl Veno {
    fn enable(&mut self) {
        self.doing_veno_now = true;
        self.min_rtt = 0x7fff_ffff;
    }
}

impl CongestionControl for Veno {
    fn init(&mut self, _tp: &mut TcpSock) {
        self.base_rtt = 0x7fff_ffff;
        self.inc = true;
        self.enable();
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        if self.diff < BETA {
            (tp.snd_cwnd * 4 / 5).max(2)
        } else {
            (tp.snd_cwnd >> 1).max(2)
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, in_flight: u64, _good: bool) {
        if !self.doing_veno_now {
            return reno_cong_avoid(tp, in_flight);
        }
        if !cwnd_limited(tp, in_flight) {
            return;
        }
        if self.cntrtt <= 2 {
            reno_cong_avoid(tp, in_flight);
        } else {
            let target = ((tp.snd_cwnd * self.base_rtt) << V_PARAM_SHIFT) / self.min_rtt;
            self.diff = (tp.snd_cwnd << V_PARAM_SHIFT).wrapping_sub(target);
            if tp.snd_cwnd <= tp.snd_ssthresh {
                slow_start(tp);
            } else if tp.snd_cwnd_cnt as u64 >= tp.snd_cwnd {
                if self.diff < BETA {
                    if tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
                        tp.snd_cwnd += 1;
                    }
                } else if self.inc && tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
                    // congestive: every other RTT
                    tp.snd_cwnd += 1;
                    self.inc = false;
                } else {
                    self.inc = true;
                }
                tp.snd_cwnd_cnt = 0;
            } else {
                tp.snd_cwnd_cnt += 1;
            }
            bound_cwnd(tp);
        }
        self.min_rtt = 0x7fff_ffff;
    }

    fn wants_rtt_stamps(&self) -> bool {
        true
    }

    fn set_state(&mut self, _tp: &mut TcpSock, new: CaState) {
        if new == CaState::Open {
            self.enable();
        } else {
            self.doing_veno_now = false;
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpSock, _acked: u64, sent_ns: i64) {
        if sent_ns == 0 {
            return;
        }
        let vrtt = ((tp.ktime_ns - sent_ns) / 1000 + 1) as u64;
        if vrtt < self.base_rtt {
            self.base_rtt = vrtt;
        }
        self.min_rtt = self.min_rtt.min(vrtt);
        self.cntrtt += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backlog_decides_the_cut() {
        let mut v = Veno::default();
        let mut tp = TcpSock { snd_cwnd: 50, snd_ssthresh: 10, snd_cwnd_clamp: 1000, ..TcpSock::default() };
        v.init(&mut tp);
        tp.ktime_ns = 1_000_000_000;
        for _ in 0..3 {
            v.pkts_acked(&mut tp, 1, 950_000_000);
        }
        assert_eq!((v.base_rtt, v.min_rtt, v.cntrtt), (50_001, 50_001, 3));
        // no queue: target (50 * 50001 << 1) / 50001 = 100, diff 0; a loss cuts a fifth
        v.cong_avoid(&mut tp, 0, 50, true);
        assert_eq!((v.diff, v.ssthresh(&tp)), (0, 40));
        // this RTT at 100 ms: target 50, diff 100 - 50 = 50 segments / 2 queued: halve
        for _ in 0..3 {
            v.pkts_acked(&mut tp, 1, 900_000_000);
        }
        v.cong_avoid(&mut tp, 0, 50, true);
        assert_eq!((v.diff, v.ssthresh(&tp)), (50, 25));
    }
}
