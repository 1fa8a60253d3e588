//! H-TCP (tcp_htcp.c): the increase alpha grows with the time since the last congestion event
//! (scaled by the minimum RTT), the decrease beta is minRTT/maxRTT unless the achieved
//! throughput moved by more than a fifth (the bandwidth switch). Fixed point << 7. Module
//! parameters keep their defaults (RTT scaling and the bandwidth switch on).

use super::super::{cwnd_limited, slow_start, CaState, CongestionControl, TcpSock, HZ};

const ALPHA_BASE: u64 = 1 << 7;
const BETA_MIN: u8 = 1 << 6;
const BETA_MAX: u8 = 102;
const USE_RTT_SCALING: bool = true;
const USE_BANDWIDTH_SWITCH: bool = true;

/// The kernel's `struct htcp` (times in jiffies).
#[derive(Default)]
pub struct Htcp {
    alpha: u64,
    beta: u8,
    modeswitch: bool,
    pkts_acked: u32,
    packetcount: u64,
    min_rtt: u64,
    max_rtt: u64,
    last_cong: u64,
    min_b: u64,
    max_b: u64,
    old_max_b: u64,
    bi: u64,
    lasttime: u64,
}

impl Htcp {
    fn cong_time(&self, now: u64) -> u64 {
        now.wrapping_sub(self.last_cong)
    }

    /// RTTs since the last congestion event.
    fn ccount(&self, now: u64) -> u64 {
        self.cong_time(now) / self.min_rtt
    }

    fn reset(&mut self, now: u64) {
        self.last_cong = now;
    }

    fn measure_rtt(&mut self, tp: &TcpSock) {
        let srtt = tp.srtt >> 3;
        if self.min_rtt > srtt || self.min_rtt == 0 {
            self.min_rtt = srtt;
        }
        if tp.in_state(CaState::Open) && tp.snd_ssthresh < 0xFFFF && self.ccount(tp.jiffies) > 3 {
            if self.max_rtt < self.min_rtt {
                self.max_rtt = self.min_rtt;
            }
            if self.max_rtt < srtt && srtt <= self.max_rtt + 20 * HZ / 1000 {
                self.max_rtt = srtt;
            }
        }
    }

    fn beta_update(&mut self) {
        if USE_BANDWIDTH_SWITCH {
            let (max_b, old_max_b) = (self.max_b, self.old_max_b);
            self.old_max_b = self.max_b;
            // the kernel's between(5 maxB, 4 old_maxB, 6 old_maxB), in unsigned arithmetic
            let within = (6 * old_max_b).wrapping_sub(4 * old_max_b) >= (5 * max_b).wrapping_sub(4 * old_max_b);
            if !within {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.min_rtt > 10 * HZ / 1000 && self.max_rtt != 0 {
            self.beta = ((self.min_rtt << 7) / self.max_rtt) as u8;
            self.beta = self.beta.clamp(BETA_MIN, BETA_MAX);
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
    }

    fn alpha_update(&mut self, now: u64) {
        let mut factor = 1u64;
        let mut diff = self.cong_time(now);
        if diff > HZ {
            diff -= HZ;
            factor = 1 + (10 * diff + ((diff / 2) * (diff / 2) / HZ)) / HZ;
        }
        if USE_RTT_SCALING && self.min_rtt != 0 {
            let scale = ((HZ << 3) / (10 * self.min_rtt)).clamp(1 << 2, 10 << 3);
            factor = ((factor << 3) / scale).max(1);
        }
        self.alpha = 2 * factor * ((1 << 7) - self.beta as u64);
        if self.alpha == 0 {
            self.alpha = ALPHA_BASE;
        }
    }
}

impl CongestionControl for Htcp {
    fn init(&mut self, tp: &mut TcpSock) {
        *self = Htcp { alpha: ALPHA_BASE, beta: BETA_MIN, pkts_acked: 1, last_cong: tp.jiffies, ..Htcp::default() };
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        let (min_rtt, max_rtt) = (self.min_rtt, self.max_rtt);
        self.beta_update();
        self.alpha_update(tp.jiffies);
        if min_rtt > 0 && max_rtt > min_rtt {
            // a slowly fading memory of maxRTT
            self.max_rtt = min_rtt + ((max_rtt - min_rtt) * 95) / 100;
        }
        ((tp.snd_cwnd * self.beta as u64) >> 7).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, in_flight: u64, _good: bool) {
        if !cwnd_limited(tp, in_flight) {
            return;
        }
        if tp.snd_cwnd <= tp.snd_ssthresh {
            return slow_start(tp);
        }
        self.measure_rtt(tp);
        if (tp.snd_cwnd_cnt as u64 * self.alpha) >> 7 >= tp.snd_cwnd {
            if tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
                tp.snd_cwnd += 1;
            }
            tp.snd_cwnd_cnt = 0;
            self.alpha_update(tp.jiffies);
        } else {
            tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.wrapping_add(self.pkts_acked);
        }
        self.pkts_acked = 1;
    }

    fn set_state(&mut self, tp: &mut TcpSock, new: CaState) {
        match new {
            CaState::Open => self.last_cong = tp.jiffies,
            CaState::Cwr | CaState::Recovery | CaState::Loss => self.reset(tp.jiffies),
            CaState::Disorder => {}
        }
    }

    /// `measure_achieved_throughput`.
    fn pkts_acked(&mut self, tp: &mut TcpSock, acked: u64, _sent_ns: i64) {
        let now = tp.jiffies;
        if tp.in_state(CaState::Open) {
            self.pkts_acked = acked as u32;
        }
        if !USE_BANDWIDTH_SWITCH {
            return;
        }
        if !tp.in_state(CaState::Open) && !tp.in_state(CaState::Disorder) {
            self.packetcount = 0;
            self.lasttime = now;
            return;
        }
        self.packetcount += acked;
        let step = if self.alpha >> 7 != 0 { self.alpha >> 7 } else { 1 };
        if self.packetcount >= tp.snd_cwnd.wrapping_sub(step)
            && now.wrapping_sub(self.lasttime) >= self.min_rtt
            && self.min_rtt > 0
        {
            let cur_bi = self.packetcount * HZ / now.wrapping_sub(self.lasttime);
            if self.ccount(now) <= 3 {
                (self.min_b, self.max_b, self.bi) = (cur_bi, cur_bi, cur_bi);
            } else {
                self.bi = (3 * self.bi + cur_bi) / 4;
                if self.bi > self.max_b {
                    self.max_b = self.bi;
                }
                if self.min_b > self.max_b {
                    self.min_b = self.max_b;
                }
            }
            self.packetcount = 0;
            self.lasttime = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_grows_with_time_since_the_last_congestion() {
        let mut h = Htcp::default();
        let mut tp = TcpSock { jiffies: 5000, ..TcpSock::default() };
        h.init(&mut tp);
        h.min_rtt = 100;
        // within a second: factor 1; scale = 8000 / 1000 = 8, factor (1 << 3) / 8 = 1;
        // alpha = 2 * 1 * (128 - 64) = 128
        h.alpha_update(5500);
        assert_eq!(h.alpha, 128);
        // 3 s after: diff 2000, factor 1 + (20000 + 1000 * 1000 / 1000) / 1000 = 22
        h.alpha_update(8000);
        assert_eq!(h.alpha, 2 * 22 * 64);
    }

    #[test]
    fn beta_is_min_over_max_rtt_after_a_steady_switch() {
        let mut h = Htcp { beta: BETA_MIN, modeswitch: true, min_rtt: 60, max_rtt: 80, ..Htcp::default() };
        // maxB 0 and old_maxB 0: within the band; 60 * 128 / 80 = 96
        h.beta_update();
        assert_eq!(h.beta, 96);
        h.max_b = 100;
        h.old_max_b = 50;
        h.beta_update();
        assert_eq!((h.beta, h.modeswitch), (BETA_MIN, false));
    }
}
