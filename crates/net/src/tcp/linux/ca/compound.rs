//! Compound TCP (tcp_compound.c): the window is a loss-based part (Reno's `cwnd`) plus a
//! delay-based part `dwnd`, which grows by (old_wnd^0.75)/8 - 1 per RTT while Vegas's diff
//! stays under 30 segments and shrinks by the excess otherwise. Its RTTs are the agent's
//! once-per-RTT samples (`rtt_sample`).

use super::super::{cwnd_limited, fls, reno_min_cwnd, reno_ssthresh, CaState, CongestionControl, TcpSock};

const V_PARAM_SHIFT: u32 = 1;
const ALPHA: u32 = 3;
const BETA: u64 = 1;
const GAMMA: u64 = 30;

#[derive(Default)]
pub struct Compound {
    beg_snd_nxt: u64,
    beg_snd_una: u64,
    beg_snd_cwnd: u64,
    doing_vegas_now: bool,
    cnt_rtt: u32,
    min_rtt: u64,
    base_rtt: u64,
    /// The loss-based window.
    cwnd: u64,
    /// The delay-based window.
    dwnd: u64,
}

impl Compound {
    fn enable(&mut self, tp: &TcpSock) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = tp.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = 0x7fff_ffff;
    }
}

/// The module's 64-bit division, its divisor cut to 32 bits when wider.
fn cdiv64_64(dividend: u64, divisor: u64) -> u64 {
    let (mut dividend, mut d) = (dividend, divisor);
    if divisor > 0xffff_ffff {
        let shift = fls((divisor >> 32) as u32);
        d = divisor >> shift;
        dividend >>= shift;
    }
    dividend / d
}

/// The fourth root by Newton's iteration from 2^(fls(a) / 4).
pub fn qroot(a: u64) -> u64 {
    let fls64 = if a >> 32 != 0 { fls((a >> 32) as u32) + 32 } else { fls(a as u32) };
    let mut x = 1u64 << (fls64 >> 2);
    loop {
        let x1 = x;
        let x3 = x.wrapping_mul(x).wrapping_mul(x);
        x = (3 * x + cdiv64_64(a, x3)) / 4;
        // C's abs() of the unsigned difference as an int
        if (x1.wrapping_sub(x) as i32).wrapping_abs() <= 1 {
            return x;
        }
    }
}

impl CongestionControl for Compound {
    fn init(&mut self, tp: &mut TcpSock) {
        self.base_rtt = 0x7fff_ffff;
        self.enable(tp);
        self.dwnd = 0;
        self.cwnd = tp.snd_cwnd;
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        reno_ssthresh(tp)
    }

    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        reno_min_cwnd(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, in_flight: u64, _good: bool) {
        if self.cwnd + self.dwnd > tp.snd_cwnd {
            if self.cwnd > tp.snd_cwnd || self.dwnd > tp.snd_cwnd {
                self.cwnd = tp.snd_cwnd;
                self.dwnd = 0;
            } else {
                self.cwnd = tp.snd_cwnd - self.dwnd;
            }
        }
        if !cwnd_limited(tp, in_flight) {
            return;
        }
        let mut inc = false;
        if self.cwnd <= tp.snd_ssthresh {
            inc = true;
        } else if (tp.snd_cwnd_cnt as u64) < tp.snd_cwnd {
            tp.snd_cwnd_cnt += 1;
        }
        if tp.snd_cwnd_cnt as u64 >= tp.snd_cwnd {
            inc = true;
            tp.snd_cwnd_cnt = 0;
        }
        if inc && tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
            self.cwnd += 1;
        }
        if self.beg_snd_nxt < ack {
            if tp.mss_cache == 0 {
                return;
            }
            let old_wnd = self.beg_snd_nxt.wrapping_sub(self.beg_snd_una) / tp.mss_cache;
            self.beg_snd_una = self.beg_snd_nxt;
            self.beg_snd_nxt = tp.snd_nxt;
            self.beg_snd_cwnd = tp.snd_cwnd;
            if self.cnt_rtt > 2 {
                let rtt = self.min_rtt;
                if rtt == 0 {
                    return;
                }
                let target = (old_wnd.wrapping_mul(self.base_rtt) << V_PARAM_SHIFT) / rtt;
                let diff = (old_wnd << V_PARAM_SHIFT).wrapping_sub(target);
                let dwnd = self.dwnd;
                self.dwnd = if diff < (GAMMA << V_PARAM_SHIFT) {
                    let win3 = old_wnd.wrapping_mul(old_wnd).wrapping_mul(old_wnd);
                    let x = qroot(win3) >> ALPHA;
                    x.saturating_sub(1) + dwnd
                } else if (dwnd << V_PARAM_SHIFT) < diff * BETA {
                    0
                } else {
                    ((dwnd << V_PARAM_SHIFT) - diff * BETA) >> V_PARAM_SHIFT
                };
            }
            self.cnt_rtt = 0;
            self.min_rtt = 0x7fff_ffff;
        }
        tp.snd_cwnd = self.cwnd + self.dwnd;
    }

    fn wants_rtt_stamps(&self) -> bool {
        true
    }

    fn rtt_sample(&mut self, _tp: &mut TcpSock, rtt_us: u64) {
        let vrtt = rtt_us + 1;
        if vrtt < self.base_rtt {
            self.base_rtt = vrtt;
        }
        self.min_rtt = self.min_rtt.min(vrtt);
        self.cnt_rtt += 1;
    }

    fn set_state(&mut self, tp: &mut TcpSock, new: CaState) {
        if new == CaState::Open {
            self.enable(tp);
        } else {
            self.doing_vegas_now = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fourth_roots() {
        assert_eq!(qroot(16), 2);
        assert_eq!(qroot(10_000), 10);
        // 100^3 = 10^6: 10^6^(1/4) = 31.6
        assert_eq!(qroot(1_000_000), 31);
    }

    #[test]
    fn the_delay_window_grows_while_the_queue_is_short() {
        let mut c = Compound::default();
        let mut tp =
            TcpSock { snd_cwnd: 100, snd_ssthresh: 50, snd_cwnd_clamp: 1000, mss_cache: 1000, ..TcpSock::default() };
        c.init(&mut tp);
        tp.snd_nxt = 100_000;
        for _ in 0..3 {
            c.rtt_sample(&mut tp, 49_999);
        }
        c.cong_avoid(&mut tp, 1, 100, true);
        // old_wnd 0 (first RTT): no queue, x = 0 >> 3: dwnd stays 0; the next RTT starts
        assert_eq!((c.dwnd, c.beg_snd_nxt), (0, 100_000));
        for _ in 0..3 {
            c.rtt_sample(&mut tp, 49_999);
        }
        c.cong_avoid(&mut tp, 100_001, 100, true);
        // old_wnd 100, diff 0: dwnd = (31 >> 3) - 1 = 2
        assert_eq!(c.dwnd, 2);
        assert_eq!(tp.snd_cwnd, c.cwnd + 2);
    }
}
