//! BIC (tcp_bic.c): a binary search for the window between the last one that lost and the
//! one after the cut, then a slow probe past it; a segment every `cnt` ACKs, `cnt` scaled by
//! the delayed-ACK ratio `pkts_acked` estimates. Module parameters keep their defaults.

use super::super::{cwnd_limited, slow_start, CaState, CongestionControl, TcpSock, HZ};

const BETA_SCALE: u64 = 1024;
/// The search goes to (max + min) / B.
const B: u64 = 4;
const ACK_RATIO_SHIFT: u32 = 4;
const FAST_CONVERGENCE: bool = true;
const MAX_INCREMENT: u64 = 16;
const LOW_WINDOW: u64 = 14;
const BETA: u64 = 819;
const SMOOTH_PART: u64 = 20;

/// The kernel's `struct bictcp`.
#[derive(Default)]
pub struct Bic {
    cnt: u64,
    last_max_cwnd: u64,
    loss_cwnd: u64,
    last_cwnd: u64,
    last_time: u64,
    epoch_start: u64,
    /// Segments per ACK << 4.
    delayed_ack: u64,
}

impl Bic {
    fn reset(&mut self) {
        *self = Bic { delayed_ack: 2 << ACK_RATIO_SHIFT, ..Bic::default() };
    }

    /// `bictcp_update`: ACKs per segment of growth at window `cwnd`.
    fn update(&mut self, cwnd: u64, now: u64) {
        if self.last_cwnd == cwnd && now.wrapping_sub(self.last_time) as i64 <= (HZ / 32) as i64 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        if self.epoch_start == 0 {
            self.epoch_start = now;
        }
        if cwnd <= LOW_WINDOW {
            self.cnt = cwnd;
            return;
        }
        self.cnt = if cwnd < self.last_max_cwnd {
            let dist = (self.last_max_cwnd - cwnd) / B;
            if dist > MAX_INCREMENT {
                cwnd / MAX_INCREMENT
            } else if dist <= 1 {
                (cwnd * SMOOTH_PART) / B
            } else {
                cwnd / dist
            }
        } else if cwnd < self.last_max_cwnd + B {
            (cwnd * SMOOTH_PART) / B
        } else if cwnd < self.last_max_cwnd + MAX_INCREMENT * (B - 1) {
            (cwnd * (B - 1)) / (cwnd - self.last_max_cwnd)
        } else {
            cwnd / MAX_INCREMENT
        };
        if self.loss_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20;
        }
        self.cnt = (self.cnt << ACK_RATIO_SHIFT) / self.delayed_ack;
        if self.cnt == 0 {
            self.cnt = 1;
        }
    }
}

impl CongestionControl for Bic {
    fn init(&mut self, _tp: &mut TcpSock) {
        self.reset();
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        self.epoch_start = 0;
        self.last_max_cwnd = if tp.snd_cwnd < self.last_max_cwnd && FAST_CONVERGENCE {
            (tp.snd_cwnd * (BETA_SCALE + BETA)) / (2 * BETA_SCALE)
        } else {
            tp.snd_cwnd
        };
        self.loss_cwnd = tp.snd_cwnd;
        if tp.snd_cwnd <= LOW_WINDOW {
            (tp.snd_cwnd >> 1).max(2)
        } else {
            ((tp.snd_cwnd * BETA) / BETA_SCALE).max(2)
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, in_flight: u64, _good: bool) {
        if !cwnd_limited(tp, in_flight) {
            return;
        }
        if tp.snd_cwnd <= tp.snd_ssthresh {
            return slow_start(tp);
        }
        self.update(tp.snd_cwnd, tp.jiffies);
        if tp.snd_cwnd_cnt as u64 >= self.cnt {
            if tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
                tp.snd_cwnd += 1;
            }
            tp.snd_cwnd_cnt = 0;
        } else {
            tp.snd_cwnd_cnt += 1;
        }
    }

    fn set_state(&mut self, _tp: &mut TcpSock, new: CaState) {
        if new == CaState::Loss {
            self.reset();
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpSock, acked: u64, _sent_ns: i64) {
        if acked > 0 && tp.in_state(CaState::Open) {
            let cnt = acked.wrapping_sub(self.delayed_ack >> ACK_RATIO_SHIFT);
            self.delayed_ack = self.delayed_ack.wrapping_add(cnt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_search_then_linear() {
        let mut bic = Bic::default();
        bic.reset();
        bic.last_max_cwnd = 100;
        bic.loss_cwnd = 100;
        // 60 below 100: dist 10, cnt 60 / 10 = 6, scaled by 16 / 32 (two segments per ACK) = 3
        bic.update(60, 1000);
        assert_eq!(bic.cnt, 3);
        // far below: dist 22 > 16, linear: 12 / 16... cwnd 12 is below low_window: cnt = cwnd
        bic.update(12, 2000);
        assert_eq!(bic.cnt, 12);
        // just past the maximum: 101 * 20 / 4 = 505, / 2 = 252
        bic.update(101, 3000);
        assert_eq!(bic.cnt, 252);
        // a loss at 80 below the maximum 100: fast convergence, 80 * 1843 / 2048 = 71
        let tp = TcpSock { snd_cwnd: 80, ..TcpSock::default() };
        assert_eq!(bic.ssthresh(&tp), 80 * 819 / 1024);
        assert_eq!(bic.last_max_cwnd, 71);
    }
}
