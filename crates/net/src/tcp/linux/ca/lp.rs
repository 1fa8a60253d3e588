//! TCP-LP (tcp_lp.c), low priority: one-way delays from the timestamps (the remote clock's rate
//! estimated too); when the smoothed delay passes 15% of its range the window halves, or drops
//! to one within the inference time (3 RTTs of timestamps) of the last such cut, and Reno's
//! growth pauses inside it. Without timestamps there are no delays: ns-2's agent leaves the
//! echoed times at 0, and every ACK then counts as a delay past the threshold.

use super::super::{reno_cong_avoid, reno_min_cwnd, reno_ssthresh, CongestionControl, TcpSock, HZ};

const LP_RESOL: u64 = 1000;
const VALID_RHZ: u64 = 1 << 0;
const VALID_OWD: u64 = 1 << 1;
const WITHIN_THR: u64 = 1 << 3;
const WITHIN_INF: u64 = 1 << 4;

/// The kernel's `struct lp`.
#[derive(Default)]
pub struct Lp {
    flag: u64,
    /// Smoothed one-way delay << 3.
    sowd: u64,
    owd_min: u64,
    owd_max: u64,
    owd_max_rsv: u64,
    remote_hz: u64,
    remote_ref_time: u64,
    local_ref_time: u64,
    last_drop: u64,
    inference: u64,
}

impl Lp {
    fn remote_hz_estimate(&mut self, tp: &TcpSock) -> u64 {
        let mut rhz = (self.remote_hz << 6) as i64;
        let refs_known = self.remote_ref_time != 0 && self.local_ref_time != 0;
        if refs_known && tp.rcv_tsval != self.remote_ref_time && tp.rcv_tsecr != self.local_ref_time {
            let mut m = (HZ.wrapping_mul(tp.rcv_tsval.wrapping_sub(self.remote_ref_time))
                / tp.rcv_tsecr.wrapping_sub(self.local_ref_time)) as i64;
            if m < 0 {
                m = -m;
            }
            if rhz > 0 {
                m -= rhz >> 6;
                rhz += m;
            } else {
                rhz = m << 6;
            }
        }
        if (rhz >> 6) > 0 {
            self.flag |= VALID_RHZ;
        } else {
            self.flag &= !VALID_RHZ;
        }
        self.remote_ref_time = tp.rcv_tsval;
        self.local_ref_time = tp.rcv_tsecr;
        (rhz >> 6) as u64
    }

    fn owd(&mut self, tp: &TcpSock) -> u64 {
        let mut owd = 0i64;
        self.remote_hz = self.remote_hz_estimate(tp);
        if self.flag & VALID_RHZ != 0 {
            owd = tp
                .rcv_tsval
                .wrapping_mul(LP_RESOL / self.remote_hz)
                .wrapping_sub(tp.rcv_tsecr.wrapping_mul(LP_RESOL / HZ)) as i64;
            if owd < 0 {
                owd = -owd;
            }
        }
        if owd > 0 {
            self.flag |= VALID_OWD;
        } else {
            self.flag &= !VALID_OWD;
        }
        owd as u64
    }

    fn rtt_sample(&mut self, tp: &TcpSock) {
        let mut mowd = self.owd(tp) as i64;
        if self.flag & VALID_RHZ == 0 || self.flag & VALID_OWD == 0 {
            return;
        }
        if mowd < self.owd_min as i64 {
            self.owd_min = mowd as u64;
        }
        if mowd > self.owd_max as i64 {
            if mowd > self.owd_max_rsv as i64 {
                self.owd_max = if self.owd_max_rsv == 0 { mowd as u64 } else { self.owd_max_rsv };
                self.owd_max_rsv = mowd as u64;
            } else {
                self.owd_max = mowd as u64;
            }
        }
        if self.sowd != 0 {
            mowd = mowd.wrapping_sub((self.sowd >> 3) as i64);
            self.sowd = self.sowd.wrapping_add(mowd as u64);
        } else {
            self.sowd = (mowd as u64) << 3;
        }
    }
}

impl CongestionControl for Lp {
    fn init(&mut self, _tp: &mut TcpSock) {
        *self = Lp { owd_min: 0xffff_ffff, ..Lp::default() };
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        reno_ssthresh(tp)
    }

    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        reno_min_cwnd(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, in_flight: u64, _good: bool) {
        if self.flag & WITHIN_INF == 0 {
            reno_cong_avoid(tp, in_flight);
        }
    }

    fn wants_rtt_stamps(&self) -> bool {
        true
    }

    fn pkts_acked(&mut self, tp: &mut TcpSock, _acked: u64, sent_ns: i64) {
        if sent_ns != 0 {
            self.rtt_sample(tp);
        }
        let now = tp.jiffies;
        if now > tp.rcv_tsecr {
            self.inference = 3 * (now - tp.rcv_tsecr);
        }
        if self.last_drop != 0 && now.wrapping_sub(self.last_drop) < self.inference {
            self.flag |= WITHIN_INF;
        } else {
            self.flag &= !WITHIN_INF;
        }
        let range = self.owd_max.wrapping_sub(self.owd_min);
        if self.sowd >> 3 < self.owd_min.wrapping_add(15u64.wrapping_mul(range) / 100) {
            self.flag |= WITHIN_THR;
            return;
        }
        self.flag &= !WITHIN_THR;
        self.owd_min = self.sowd >> 3;
        self.owd_max = self.sowd >> 2;
        self.owd_max_rsv = self.sowd >> 2;
        tp.snd_cwnd = if self.flag & WITHIN_INF != 0 { 1 } else { (tp.snd_cwnd >> 1).max(1) };
        self.last_drop = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_timestamps_the_window_is_renos() {
        let mut lp = Lp::default();
        let mut tp = TcpSock { snd_cwnd: 10, jiffies: 500, ..TcpSock::default() };
        lp.init(&mut tp);
        // min 0xffffffff and max 0: the range wraps, 15% of it (wrapped again) puts the
        // threshold far above a smoothed delay of 0
        lp.pkts_acked(&mut tp, 2, 1);
        assert_eq!((tp.snd_cwnd, lp.inference, lp.last_drop), (10, 1500, 0));
        assert_ne!(lp.flag & WITHIN_THR, 0);
        assert_eq!(lp.flag & (VALID_RHZ | VALID_OWD), 0);
    }

    #[test]
    fn a_delay_past_the_threshold_halves_then_drops_to_one() {
        let mut lp = Lp::default();
        let mut tp = TcpSock { snd_cwnd: 10, jiffies: 500, ..TcpSock::default() };
        lp.init(&mut tp);
        (lp.owd_min, lp.owd_max, lp.sowd) = (10, 20, 30 << 3);
        lp.pkts_acked(&mut tp, 2, 0);
        assert_eq!((tp.snd_cwnd, lp.last_drop), (5, 500));
        (lp.owd_min, lp.owd_max) = (10, 20);
        tp.jiffies = 600;
        lp.pkts_acked(&mut tp, 2, 0);
        assert_eq!(tp.snd_cwnd, 1);
    }
}
