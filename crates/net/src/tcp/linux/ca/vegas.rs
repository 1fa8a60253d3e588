//! TCP Vegas (tcp_vegas.c, the kernel's, not ns-2's Agent/TCP/Vegas): once per RTT, compare
//! the window sent with the one the base RTT would need (diff, << 1) and move cwnd by one
//! toward keeping alpha..beta segments queued; leave slow start when diff passes gamma. The
//! RTTs come from each ACK's segment send time. YeAH shares its measurements (`VegasRtts`).

use super::super::{
    bound_cwnd, reno_cong_avoid, reno_min_cwnd, reno_ssthresh, slow_start, CaState, CongestionControl, TcpSock,
};

const V_PARAM_SHIFT: u32 = 1;
const ALPHA: u64 = 2 << V_PARAM_SHIFT;
const BETA: u64 = 4 << V_PARAM_SHIFT;
const GAMMA: u64 = 1 << V_PARAM_SHIFT;

/// The kernel's `struct vegas`: the last RTT's window edges and its RTT samples (µs).
#[derive(Default)]
pub struct VegasRtts {
    pub beg_snd_nxt: u64,
    pub beg_snd_una: u64,
    pub beg_snd_cwnd: u64,
    pub doing_vegas_now: bool,
    pub cnt_rtt: u32,
    pub min_rtt: u64,
    pub base_rtt: u64,
}

impl VegasRtts {
    fn enable(&mut self, tp: &TcpSock) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = tp.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = 0x7fff_ffff;
    }

    /// `tcp_vegas_init`.
    pub fn init(&mut self, tp: &TcpSock) {
        self.base_rtt = 0x7fff_ffff;
        self.enable(tp);
    }

    /// `tcp_vegas_pkts_acked`: an RTT sample from the send time of the segment acknowledged.
    pub fn sample(&mut self, tp: &TcpSock, sent_ns: i64) {
        if sent_ns == 0 {
            return;
        }
        let vrtt = ((tp.ktime_ns - sent_ns) / 1000 + 1) as u64;
        if vrtt < self.base_rtt {
            self.base_rtt = vrtt;
        }
        self.min_rtt = self.min_rtt.min(vrtt);
        self.cnt_rtt += 1;
    }

    /// `tcp_vegas_state`: measure only while Open.
    pub fn set_state(&mut self, tp: &TcpSock, new: CaState) {
        if new == CaState::Open {
            self.enable(tp);
        } else {
            self.doing_vegas_now = false;
        }
    }

    /// The next RTT starts: remember its edges and forget this one's samples.
    pub fn next_rtt(&mut self, tp: &TcpSock) {
        self.beg_snd_una = self.beg_snd_nxt;
        self.beg_snd_nxt = tp.snd_nxt;
        self.beg_snd_cwnd = tp.snd_cwnd;
    }

    pub fn clear_samples(&mut self) {
        self.cnt_rtt = 0;
        self.min_rtt = 0x7fff_ffff;
    }
}

#[derive(Default)]
pub struct Vegas {
    v: VegasRtts,
}

impl CongestionControl for Vegas {
    fn init(&mut self, tp: &mut TcpSock) {
        self.v.init(tp);
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        reno_ssthresh(tp)
    }

    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        reno_min_cwnd(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, in_flight: u64, _good: bool) {
        let v = &mut self.v;
        if !v.doing_vegas_now {
            return reno_cong_avoid(tp, in_flight);
        }
        if v.beg_snd_nxt >= ack {
            if tp.snd_cwnd <= tp.snd_ssthresh {
                slow_start(tp);
            }
            return;
        }
        // the once-per-RTT adjustment, from the window sent in the RTT just ended
        let old_wnd = v.beg_snd_nxt.wrapping_sub(v.beg_snd_una) / tp.mss_cache;
        let old_snd_cwnd = v.beg_snd_cwnd;
        v.next_rtt(tp);
        if v.cnt_rtt <= 2 {
            // too few samples (delayed ACKs): Reno
            reno_cong_avoid(tp, in_flight);
        } else {
            let rtt = v.min_rtt;
            let target = (old_wnd.wrapping_mul(v.base_rtt) << V_PARAM_SHIFT) / rtt;
            let diff = (old_wnd << V_PARAM_SHIFT).wrapping_sub(target);
            if tp.snd_cwnd <= tp.snd_ssthresh {
                if diff > GAMMA {
                    tp.snd_ssthresh = 2;
                    tp.snd_cwnd = tp.snd_cwnd.min((target >> V_PARAM_SHIFT) + 1);
                }
                slow_start(tp);
            } else {
                let next = if diff > BETA {
                    old_snd_cwnd.wrapping_sub(1)
                } else if diff < ALPHA {
                    old_snd_cwnd + 1
                } else {
                    old_snd_cwnd
                };
                if next > tp.snd_cwnd {
                    tp.snd_cwnd += 1;
                } else if next < tp.snd_cwnd {
                    tp.snd_cwnd -= 1;
                }
            }
            bound_cwnd(tp);
        }
        v.clear_samples();
    }

    fn wants_rtt_stamps(&self) -> bool {
        true
    }

    fn set_state(&mut self, tp: &mut TcpSock, new: CaState) {
        self.v.set_state(tp, new);
    }

    fn pkts_acked(&mut self, tp: &mut TcpSock, _acked: u64, sent_ns: i64) {
        self.v.sample(tp, sent_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_step_toward_alpha_to_beta_queued() {
        let mut vg = Vegas::default();
        let mut tp =
            TcpSock { snd_cwnd: 20, snd_ssthresh: 10, snd_cwnd_clamp: 1000, mss_cache: 1000, ..TcpSock::default() };
        vg.init(&mut tp);
        tp.snd_nxt = 20_000;
        vg.v.next_rtt(&tp);
        tp.ktime_ns = 1_000_000_000;
        // base RTT 50 ms; this RTT's minimum 100 ms
        vg.v.base_rtt = 50_000;
        for _ in 0..3 {
            vg.pkts_acked(&mut tp, 1, 900_000_000 - 1000);
        }
        assert_eq!(vg.v.min_rtt, 100_002);
        tp.snd_nxt = 40_000;
        vg.cong_avoid(&mut tp, 20_001, 20, true);
        // old_wnd 20, target (20 * 50000 << 1) / 100002 = 19, diff 40 - 19 = 21 > beta: down
        assert_eq!(tp.snd_cwnd, 19);
        assert_eq!((vg.v.beg_snd_una, vg.v.beg_snd_nxt, vg.v.cnt_rtt), (20_000, 40_000, 0));
    }
}
