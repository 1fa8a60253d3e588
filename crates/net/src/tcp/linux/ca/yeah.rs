//! YeAH-TCP (tcp_yeah.c): Scalable TCP's growth while the queue it estimates from Vegas's RTTs
//! stays short (fewer than 80 segments and a delay under baseRTT / 8), Reno's otherwise, with
//! the queue drained by cutting the window; a loss takes off the queue (between an eighth
//! and half of the window).

use super::super::{cwnd_limited, reno_min_cwnd, slow_start, CaState, CongestionControl, TcpSock};
use super::vegas::VegasRtts;

const ALPHA: u64 = 80;
const GAMMA: u64 = 1;
const DELTA: u32 = 3;
const EPSILON: u32 = 1;
const PHY: u64 = 8;
const RHO: u64 = 16;
const ZETA: u64 = 50;
const SCALABLE_AI_CNT: u64 = 100;

#[derive(Default)]
pub struct Yeah {
    v: VegasRtts,
    last_q: u64,
    /// RTTs in a row spent in Reno mode (0: Scalable).
    doing_reno_now: u64,
    reno_count: u64,
    fast_count: u64,
    pkts_acked: u32,
}

impl CongestionControl for Yeah {
    fn init(&mut self, tp: &mut TcpSock) {
        self.v.init(tp);
        self.doing_reno_now = 0;
        self.last_q = 0;
        self.reno_count = 2;
        tp.snd_cwnd_clamp = (tp.snd_cwnd_clamp as u64).min(0xffff_ffff / 128) as u32;
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        let half = (tp.snd_cwnd >> 1).max(2);
        let reduction = if self.doing_reno_now < RHO { self.last_q.min(half).max(tp.snd_cwnd >> DELTA) } else { half };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        tp.snd_cwnd.wrapping_sub(reduction)
    }

    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        reno_min_cwnd(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, in_flight: u64, _good: bool) {
        if !cwnd_limited(tp, in_flight) {
            return;
        }
        if tp.snd_cwnd <= tp.snd_ssthresh {
            slow_start(tp);
        } else if self.doing_reno_now == 0 {
            tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.wrapping_add(self.pkts_acked);
            if tp.snd_cwnd_cnt as u64 > tp.snd_cwnd.min(SCALABLE_AI_CNT) {
                if tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
                    tp.snd_cwnd += 1;
                }
                tp.snd_cwnd_cnt = 0;
            }
            self.pkts_acked = 1;
        } else {
            if (tp.snd_cwnd_cnt as u64) < tp.snd_cwnd {
                tp.snd_cwnd_cnt += 1;
            }
            if tp.snd_cwnd_cnt as u64 >= tp.snd_cwnd {
                tp.snd_cwnd += 1;
                tp.snd_cwnd_cnt = 0;
            }
        }
        if self.v.beg_snd_nxt >= ack {
            return;
        }
        if self.v.cnt_rtt > 2 {
            let rtt = self.v.min_rtt;
            let queue = tp.snd_cwnd.wrapping_mul(rtt.wrapping_sub(self.v.base_rtt)) / (rtt as u32 as u64);
            if queue > ALPHA || rtt.wrapping_sub(self.v.base_rtt) > self.v.base_rtt / PHY {
                if queue > ALPHA && tp.snd_cwnd > self.reno_count {
                    let reduction = (queue / GAMMA).min(tp.snd_cwnd >> EPSILON);
                    tp.snd_cwnd = (tp.snd_cwnd - reduction).max(self.reno_count);
                    tp.snd_ssthresh = tp.snd_cwnd;
                }
                if self.reno_count <= 2 {
                    self.reno_count = (tp.snd_cwnd >> 1).max(2);
                } else {
                    self.reno_count += 1;
                }
                self.doing_reno_now = (self.doing_reno_now + 1).min(0xff_ffff);
            } else {
                self.fast_count += 1;
                if self.fast_count > ZETA {
                    self.reno_count = 2;
                    self.fast_count = 0;
                }
                self.doing_reno_now = 0;
            }
            self.last_q = queue;
        }
        self.v.next_rtt(tp);
        self.v.clear_samples();
    }

    fn wants_rtt_stamps(&self) -> bool {
        true
    }

    fn set_state(&mut self, tp: &mut TcpSock, new: CaState) {
        self.v.set_state(tp, new);
    }

    fn pkts_acked(&mut self, tp: &mut TcpSock, acked: u64, sent_ns: i64) {
        if tp.in_state(CaState::Open) {
            self.pkts_acked = acked as u32;
        }
        self.v.sample(tp, sent_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_takes_off_the_queue() {
        let mut y = Yeah::default();
        let mut tp = TcpSock { snd_cwnd: 100, snd_cwnd_clamp: 1000, ..TcpSock::default() };
        y.init(&mut tp);
        // queue 30 of 100: between an eighth (12) and half (50)
        y.last_q = 30;
        assert_eq!(y.ssthresh(&tp), 70);
        y.last_q = 5;
        assert_eq!(y.ssthresh(&tp), 88);
        assert_eq!(y.reno_count, 2);
    }
}
