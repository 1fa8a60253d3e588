//! CUBIC (tcp_cubic.c, version 2.1 as ns-2.35 ships it): the window follows a cubic of the time
//! since the last loss, centred on the window before it (K, the time to get back there, from
//! a fixed-point cube root), with a TCP-friendly floor and the delayed-ACK ratio estimated
//! from `pkts_acked`. Module parameters keep their defaults.

use super::super::{div64_64, fls, slow_start, CaState, CongestionControl, TcpSock, HZ};

const BETA_SCALE: u64 = 1024;
/// The cubic's time unit: 2^10 per second.
const CUBIC_HZ: u32 = 10;
const ACK_RATIO_SHIFT: u32 = 4;
const FAST_CONVERGENCE: bool = true;
const MAX_INCREMENT: u64 = 16;
const BETA: u64 = 819;
const BIC_SCALE: u64 = 41;
const TCP_FRIENDLINESS: bool = true;
/// 8 (1 + beta) / 3 / (1 - beta), in the module's integer steps.
const BETA_TCP: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
/// 1024 c / rtt (for an RTT of 100 ms).
const CUBE_RTT_SCALE: u64 = BIC_SCALE * 10;
/// 2^(10 + 3 * CUBIC_HZ) / (bic_scale * 10): K^3 per segment below the old maximum.
const CUBE_FACTOR: u64 = (1u64 << (10 + 3 * CUBIC_HZ)) / (BIC_SCALE * 10);

/// The kernel's `struct bictcp` (its u32s are ns-2's 64-bit `unsigned long`s).
#[derive(Default, Debug)]
pub struct Cubic {
    cnt: u64,
    last_max_cwnd: u64,
    loss_cwnd: u64,
    last_cwnd: u64,
    last_time: u64,
    origin_point: u64,
    k: u64,
    delay_min: u64,
    epoch_start: u64,
    ack_cnt: u64,
    tcp_cwnd: u64,
    /// Segments per ACK << 4.
    delayed_ack: u64,
}

impl Cubic {
    fn reset(&mut self) {
        *self = Cubic { delayed_ack: 2 << ACK_RATIO_SHIFT, ..Cubic::default() };
    }

    /// `measure_delay`: the lowest RTT (jiffies << 3) from the timestamp echoes, but in the
    /// first second of an epoch (after a recovery). Without timestamps there are none.
    fn measure_delay(&mut self, tp: &TcpSock) {
        // the kernel's u32 clock arithmetic
        let since_epoch = (tp.jiffies as u32).wrapping_sub(self.epoch_start as u32) as i32;
        if !tp.saw_tstamp || tp.rcv_tsecr == 0 || since_epoch < HZ as i32 {
            return;
        }
        let delay = (((tp.jiffies as u32).wrapping_sub(tp.rcv_tsecr as u32)) << 3).max(1) as u64;
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
    }

    /// `bictcp_update`: how many ACKs (`cnt`) per segment of growth at window `cwnd`.
    fn update(&mut self, cwnd: u64, now: u64) {
        self.ack_cnt += 1;
        if self.last_cwnd == cwnd && now.wrapping_sub(self.last_time) as i64 <= (HZ / 32) as i64 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        if self.epoch_start == 0 {
            self.epoch_start = now;
            self.ack_cnt = 1;
            self.tcp_cwnd = cwnd;
            if self.last_max_cwnd <= cwnd {
                self.k = 0;
                self.origin_point = cwnd;
            } else {
                self.k = cubic_root(CUBE_FACTOR.wrapping_mul(self.last_max_cwnd - cwnd));
                self.origin_point = self.last_max_cwnd;
            }
        }
        let t = ((now + (self.delay_min >> 3)).wrapping_sub(self.epoch_start) << CUBIC_HZ) / HZ;
        let offs = self.k.abs_diff(t);
        let delta = CUBE_RTT_SCALE.wrapping_mul(offs).wrapping_mul(offs).wrapping_mul(offs) >> (10 + 3 * CUBIC_HZ);
        let target =
            if t < self.k { self.origin_point.wrapping_sub(delta) } else { self.origin_point.wrapping_add(delta) };
        self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
        if self.delay_min > 0 {
            let min_cnt = (cwnd * HZ * 8) / (10 * MAX_INCREMENT * self.delay_min);
            if self.cnt < min_cnt && t >= self.k {
                self.cnt = min_cnt;
            }
        }
        if self.loss_cwnd == 0 {
            self.cnt = 50;
        }
        if TCP_FRIENDLINESS {
            let delta = (cwnd * BETA_TCP) >> 3;
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                if self.cnt > max_cnt {
                    self.cnt = max_cnt;
                }
            }
        }
        self.cnt = (self.cnt << ACK_RATIO_SHIFT) / self.delayed_ack;
        if self.cnt == 0 {
            self.cnt = 1;
        }
    }
}

/// The module's cube root: a table lookup on the top bits, then one Newton-Raphson step.
pub fn cubic_root(a: u64) -> u64 {
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164, 168, 170, 173, 176,
        179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224,
        225, 227, 229, 231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    // fls64, with the high word cut to a C int as ns-2's fls takes it
    let high = a >> 32;
    let b = if high != 0 { fls(high as u32) as u64 + 32 } else { fls(a as u32) as u64 };
    if b < 7 {
        return (V[a as usize] as u64 + 35) >> 6;
    }
    let b = ((b * 84) >> 8) - 1;
    let shift = a >> (b * 3);
    let x = ((V[shift as usize] as u64 + 10) << b) >> 6;
    let x = 2 * x + div64_64(a, x * (x - 1));
    (x * 341) >> 10
}

impl CongestionControl for Cubic {
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
        ((tp.snd_cwnd * BETA) / BETA_SCALE).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, in_flight: u64, data_acked: bool) {
        if data_acked {
            self.measure_delay(tp);
        }
        if in_flight < tp.snd_cwnd {
            return;
        }
        if tp.snd_cwnd <= tp.snd_ssthresh {
            slow_start(tp);
        } else {
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
    fn constants_as_the_module_computes_them() {
        // 8 * 1843 = 14744, / 3 = 4914, / 205 = 23
        assert_eq!(BETA_TCP, 23);
        assert_eq!(CUBE_RTT_SCALE, 410);
        assert_eq!(CUBE_FACTOR, 2_681_735_677);
    }

    #[test]
    fn cube_root_by_table_and_one_newton_step() {
        // small values straight from the table: (54 + 35) >> 6 = 1, (118 + 35) >> 6 = 2
        assert_eq!((cubic_root(1), cubic_root(4), cubic_root(0)), (1, 2, 0));
        // 1000: fls 10, b = (840 >> 8) - 1 = 2, shift = 1000 >> 6 = 15, x = ((156 + 10) << 2) >> 6
        // = 10; then (2 * 10 + 1000 / 90) * 341 >> 10 = 31 * 341 >> 10 = 10
        assert_eq!(cubic_root(1000), 10);
        // K for 20 segments below the old maximum: cube root of 2681735677 * 20
        let k = cubic_root(CUBE_FACTOR * 20);
        assert!((3767..=3777).contains(&k), "{k} (exactly about 3772 = 2^10 * 3.68 s)");
    }

    /// delay_min: the lowest timestamp-echo RTT in jiffies << 3, only from ACKs with
    /// timestamps and not in an epoch's first second (HZ jiffies).
    #[test]
    fn the_minimum_delay_comes_from_timestamp_echoes() {
        let mut c = Cubic::default();
        c.reset();
        let mut tp = TcpSock { jiffies: 1500, rcv_tsecr: 1460, ..TcpSock::default() };
        c.measure_delay(&tp);
        assert_eq!(c.delay_min, 0, "no timestamps, no sample");
        tp.saw_tstamp = true;
        c.measure_delay(&tp);
        assert_eq!(c.delay_min, 40 << 3);
        tp.rcv_tsecr = 1470;
        c.epoch_start = 600; // 900 jiffies ago: too soon after a recovery
        c.measure_delay(&tp);
        assert_eq!(c.delay_min, 40 << 3);
        c.epoch_start = 400;
        c.measure_delay(&tp);
        assert_eq!(c.delay_min, 30 << 3);
    }

    #[test]
    fn a_loss_keeps_beta_of_the_window() {
        let mut c = Cubic::default();
        c.reset();
        let tp = TcpSock { snd_cwnd: 100, ..TcpSock::default() };
        // 100 * 819 / 1024 = 79
        assert_eq!(c.ssthresh(&tp), 79);
        assert_eq!((c.last_max_cwnd, c.loss_cwnd), (100, 100));
        // fast convergence below the last maximum: 90 * 1843 / 2048 = 80
        let tp = TcpSock { snd_cwnd: 90, ..TcpSock::default() };
        c.ssthresh(&tp);
        assert_eq!(c.last_max_cwnd, 80);
    }
}
