//! TCP Illinois (tcp_illinois.c): Reno's shape with an increase alpha (0.3 to 10) and a
//! decrease beta (1/8 to 1/2) set once per RTT from the average and maximum queueing delay,
//! measured from each ACK's segment send time. Module parameters keep their defaults.

use super::super::{cwnd_limited, reno_min_cwnd, slow_start, CaState, CongestionControl, TcpSock};

const ALPHA_SHIFT: u32 = 7;
const ALPHA_SCALE: u64 = 1 << ALPHA_SHIFT;
const ALPHA_MIN: u64 = (3 * ALPHA_SCALE) / 10;
const ALPHA_MAX: u64 = 10 * ALPHA_SCALE;
const ALPHA_BASE: u64 = ALPHA_SCALE;
/// The longest RTT (µs) the alpha arithmetic takes: 2^32 - 1 over ALPHA_MAX.
const RTT_MAX: u64 = 0xffff_ffff / ALPHA_MAX;
const BETA_SHIFT: u32 = 6;
const BETA_SCALE: u64 = 1 << BETA_SHIFT;
const BETA_MIN: u64 = BETA_SCALE / 8;
const BETA_MAX: u64 = BETA_SCALE / 2;
const BETA_BASE: u64 = BETA_MAX;
const WIN_THRESH: u64 = 15;
const THETA: u8 = 5;

#[derive(Default)]
pub struct Illinois {
    sum_rtt: u64,
    cnt_rtt: u32,
    base_rtt: u64,
    max_rtt: u64,
    /// snd_nxt (bytes) when this RTT's measurements began.
    end_seq: u64,
    alpha: u64,
    beta: u64,
    acked: u32,
    rtt_above: bool,
    rtt_low: u8,
}

impl Illinois {
    fn rtt_reset(&mut self, tp: &TcpSock) {
        self.end_seq = tp.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt = 0;
    }

    /// alpha from the average delay `da` and the maximum `dm` (µs above the base RTT).
    fn alpha_for(&mut self, da: u64, dm: u64) -> u64 {
        let d1 = dm / 100;
        if da <= d1 {
            if !self.rtt_above {
                return ALPHA_MAX;
            }
            // five good RTTs before alpha may jump back to its maximum
            self.rtt_low = self.rtt_low.wrapping_add(1);
            if self.rtt_low < THETA {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return ALPHA_MAX;
        }
        self.rtt_above = true;
        let (dm, da) = (dm - d1, da - d1);
        (dm * ALPHA_MAX) / (dm + (da * (ALPHA_MAX - ALPHA_MIN)) / ALPHA_MIN)
    }

    fn update_params(&mut self, tp: &TcpSock) {
        if tp.snd_cwnd < WIN_THRESH {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
        } else if self.cnt_rtt > 0 {
            let dm = self.max_rtt.wrapping_sub(self.base_rtt);
            let da = (self.sum_rtt / self.cnt_rtt as u64).wrapping_sub(self.base_rtt);
            self.alpha = self.alpha_for(da, dm);
            self.beta = beta_for(da, dm);
        }
        self.rtt_reset(tp);
    }
}

fn beta_for(da: u64, dm: u64) -> u64 {
    let d2 = dm / 10;
    if da <= d2 {
        return BETA_MIN;
    }
    let d3 = (8 * dm) / 10;
    if da >= d3 || d3 <= d2 {
        return BETA_MAX;
    }
    (BETA_MIN * d3).wrapping_sub(BETA_MAX * d2).wrapping_add((BETA_MAX - BETA_MIN) * da) / (d3 - d2)
}

impl CongestionControl for Illinois {
    fn init(&mut self, tp: &mut TcpSock) {
        *self = Illinois { alpha: ALPHA_MAX, beta: BETA_BASE, base_rtt: 0x7fff_ffff, ..Illinois::default() };
        self.rtt_reset(tp);
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        ((tp.snd_cwnd * self.beta) >> BETA_SHIFT).max(2)
    }

    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        reno_min_cwnd(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, in_flight: u64, _good: bool) {
        if self.end_seq < ack {
            self.update_params(tp);
        }
        if !cwnd_limited(tp, in_flight) {
            return;
        }
        if tp.snd_cwnd <= tp.snd_ssthresh {
            return slow_start(tp);
        }
        tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.wrapping_add(self.acked);
        self.acked = 1;
        let delta = (tp.snd_cwnd_cnt as u64 * self.alpha) >> ALPHA_SHIFT;
        if delta >= tp.snd_cwnd {
            tp.snd_cwnd = (tp.snd_cwnd + delta / tp.snd_cwnd).min(tp.snd_cwnd_clamp as u64);
            tp.snd_cwnd_cnt = 0;
        }
    }

    fn wants_rtt_stamps(&self) -> bool {
        true
    }

    fn set_state(&mut self, tp: &mut TcpSock, new: CaState) {
        if new == CaState::Loss {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.rtt_reset(tp);
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpSock, acked: u64, sent_ns: i64) {
        self.acked = acked as u32;
        if sent_ns == 0 {
            return;
        }
        let rtt = (((tp.ktime_ns - sent_ns) / 1000) as u64).min(RTT_MAX);
        self.base_rtt = self.base_rtt.min(rtt);
        self.max_rtt = self.max_rtt.max(rtt);
        self.cnt_rtt += 1;
        self.sum_rtt += rtt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_and_beta_from_the_delays() {
        let mut il = Illinois { alpha: ALPHA_MAX, ..Illinois::default() };
        // no queueing beyond 1% of the maximum: alpha stays at its maximum
        assert_eq!(il.alpha_for(10, 10_000), ALPHA_MAX);
        // half the maximum delay: dm 9900, da 4900; 9900 * 1280 / (9900 + 4900 * 1242 / 38)
        assert_eq!(il.alpha_for(5_000, 10_000), 9900 * 1280 / (9900 + 4900 * 1242 / 38));
        // beta: below a tenth 1/8, above eight tenths 1/2, linear between
        assert_eq!(beta_for(500, 10_000), BETA_MIN);
        assert_eq!(beta_for(9_000, 10_000), BETA_MAX);
        assert_eq!(beta_for(4_500, 10_000), (8 * 8000 - 32 * 1000 + 24 * 4500) / 7000);
    }
}
