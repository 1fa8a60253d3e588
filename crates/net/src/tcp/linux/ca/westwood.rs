//! TCP Westwood+ (tcp_westwood.c): Reno's growth, but after a loss the window is the
//! estimated bandwidth times the minimum RTT. The bandwidth is the bytes acknowledged per RTT
//! window (at least 50 ms), twice low-pass filtered; duplicate ACKs count a segment each.

use super::super::{reno_cong_avoid, reno_ssthresh, CaEvent, CongestionControl, TcpSock, HZ};

/// The shortest window a bandwidth sample covers (50 ms).
const RTT_MIN: u64 = HZ / 20;
const INIT_RTT: u64 = 20 * HZ;

#[derive(Default)]
pub struct Westwood {
    bw_ns_est: u64,
    /// Bytes per jiffy.
    bw_est: u64,
    rtt_win_sx: u64,
    /// Bytes acknowledged in this window.
    bk: u64,
    snd_una: u64,
    cumul_ack: u64,
    accounted: u64,
    rtt: u64,
    rtt_min: u64,
    first_ack: bool,
    reset_rtt_min: bool,
}

fn low_pass(a: u64, b: u64) -> u64 {
    ((7 * a) + b) >> 3
}

impl Westwood {
    fn filter(&mut self, delta: u64) {
        if self.bw_ns_est == 0 && self.bw_est == 0 {
            self.bw_ns_est = self.bk / delta;
            self.bw_est = self.bw_ns_est;
        } else {
            self.bw_ns_est = low_pass(self.bw_ns_est, self.bk / delta);
            self.bw_est = low_pass(self.bw_est, self.bw_ns_est);
        }
    }

    fn update_window(&mut self, tp: &TcpSock) {
        // an s32 in the module, compared as unsigned
        let delta = tp.jiffies.wrapping_sub(self.rtt_win_sx);
        if self.first_ack {
            self.snd_una = tp.snd_una;
            self.first_ack = false;
        }
        if self.rtt != 0 && delta > self.rtt.max(RTT_MIN) {
            self.filter(delta);
            self.bk = 0;
            self.rtt_win_sx = tp.jiffies;
        }
    }

    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt.min(self.rtt_min);
        }
    }

    /// Bytes a slow (duplicate, partial or delayed) ACK stands for.
    fn acked_count(&mut self, tp: &TcpSock) -> u64 {
        self.cumul_ack = tp.snd_una.wrapping_sub(self.snd_una);
        if self.cumul_ack == 0 {
            self.accounted += tp.mss_cache;
            self.cumul_ack = tp.mss_cache;
        }
        if self.cumul_ack > tp.mss_cache {
            if self.accounted >= self.cumul_ack {
                self.accounted -= self.cumul_ack;
                self.cumul_ack = tp.mss_cache;
            } else {
                self.cumul_ack -= self.accounted;
                self.accounted = 0;
            }
        }
        self.snd_una = tp.snd_una;
        self.cumul_ack
    }
}

impl CongestionControl for Westwood {
    fn init(&mut self, tp: &mut TcpSock) {
        *self = Westwood {
            reset_rtt_min: true,
            rtt_min: INIT_RTT,
            rtt: INIT_RTT,
            rtt_win_sx: tp.jiffies,
            snd_una: tp.snd_una,
            first_ack: true,
            ..Westwood::default()
        };
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        reno_ssthresh(tp)
    }

    /// `tcp_westwood_bw_rttmin`: the bandwidth-delay product in segments.
    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        ((self.bw_est * self.rtt_min) / tp.mss_cache).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, in_flight: u64, _good: bool) {
        reno_cong_avoid(tp, in_flight)
    }

    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        match ev {
            CaEvent::FastAck => {
                self.update_window(tp);
                self.bk = self.bk.wrapping_add(tp.snd_una.wrapping_sub(self.snd_una));
                self.snd_una = tp.snd_una;
                self.update_rtt_min();
            }
            CaEvent::SlowAck => {
                self.update_window(tp);
                let acked = self.acked_count(tp);
                self.bk = self.bk.wrapping_add(acked);
                self.update_rtt_min();
            }
            CaEvent::Loss => {}
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpSock, acked: u64, _sent_ns: i64) {
        if acked > 0 {
            self.rtt = tp.srtt >> 3;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_times_min_rtt_after_a_loss() {
        let mut w = Westwood::default();
        let mut tp = TcpSock { jiffies: 1000, snd_una: 0, mss_cache: 1000, ..TcpSock::default() };
        w.init(&mut tp);
        w.pkts_acked(&mut tp, 2, 0);
        assert_eq!(w.rtt, 0, "no RTT yet");
        tp.srtt = 80 << 3;
        w.pkts_acked(&mut tp, 2, 0);
        // the first ACK only sets where counting starts (and the minimum RTT, 80 ms)
        tp.snd_una = 1000;
        tp.jiffies = 1010;
        w.cwnd_event(&mut tp, CaEvent::FastAck);
        assert_eq!((w.bk, w.rtt_min), (0, 80));
        // 100 ms after the start a window closes empty; then 100 kB are acknowledged
        tp.snd_una = 101_000;
        tp.jiffies = 1100;
        w.cwnd_event(&mut tp, CaEvent::FastAck);
        assert_eq!((w.bw_est, w.bk), (0, 100_000));
        // 81 ms later the next window closes: 100 kB / 81 ms = 1234 B per jiffy, the first
        // non-zero sample, taken whole
        tp.snd_una = 102_000;
        tp.jiffies = 1181;
        w.cwnd_event(&mut tp, CaEvent::FastAck);
        assert_eq!(w.bw_est, 1234);
        // 1234 B/ms times 80 ms, in segments
        assert_eq!(w.min_cwnd(&tp), 98);
    }
}
