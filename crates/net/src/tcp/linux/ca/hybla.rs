//! TCP Hybla (tcp_hybla.c): growth scaled by rho = RTT / RTT0 (25 ms), 2^rho - 1 per ACK in
//! slow start and rho^2 / cwnd after it, in 128ths. Reno's growth outside Open.

use super::super::{cwnd_limited, reno_cong_avoid, reno_min_cwnd, reno_ssthresh, CaState, CongestionControl, TcpSock};

/// The reference RTT, in jiffies (ms).
const RTT0: u64 = 25;

#[derive(Default)]
pub struct Hybla {
    enabled: bool,
    /// Fractions of a segment, in 128ths.
    cwnd_cents: u64,
    rho: u64,
    rho_3ls: u64,
    rho2_7ls: u64,
    min_rtt: u64,
}

impl Hybla {
    fn recalc(&mut self, tp: &TcpSock) {
        self.rho_3ls = (tp.srtt / RTT0).max(8);
        self.rho = self.rho_3ls >> 3;
        self.rho2_7ls = (self.rho_3ls * self.rho_3ls) << 1;
    }
}

/// 2^(i/8) in 128ths.
fn fraction(odds: u64) -> u64 {
    const FRACTIONS: [u64; 8] = [128, 139, 152, 165, 181, 197, 215, 234];
    FRACTIONS.get(odds as usize).copied().unwrap_or(128)
}

impl CongestionControl for Hybla {
    fn init(&mut self, tp: &mut TcpSock) {
        *self = Hybla { enabled: true, ..Hybla::default() };
        tp.snd_cwnd = 2;
        tp.snd_cwnd_clamp = 65535;
        self.recalc(tp);
        self.min_rtt = tp.srtt;
        tp.snd_cwnd = self.rho;
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        reno_ssthresh(tp)
    }

    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        reno_min_cwnd(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, in_flight: u64, _good: bool) {
        if tp.srtt < self.min_rtt {
            self.recalc(tp);
            self.min_rtt = tp.srtt;
        }
        if !cwnd_limited(tp, in_flight) {
            return;
        }
        if !self.enabled {
            return reno_cong_avoid(tp, in_flight);
        }
        if self.rho == 0 {
            self.recalc(tp);
        }
        let rho_fractions = self.rho_3ls - (self.rho << 3);
        let slow_start = tp.snd_cwnd < tp.snd_ssthresh;
        let increment = if slow_start {
            ((1u64 << self.rho) * fraction(rho_fractions)) - 128
        } else {
            let inc = self.rho2_7ls / tp.snd_cwnd;
            if inc < 128 {
                tp.snd_cwnd_cnt += 1;
            }
            inc
        };
        tp.snd_cwnd += increment >> 7;
        self.cwnd_cents += increment % 128;
        while self.cwnd_cents >= 128 {
            tp.snd_cwnd += 1;
            self.cwnd_cents -= 128;
            tp.snd_cwnd_cnt = 0;
        }
        if slow_start {
            tp.snd_cwnd = tp.snd_cwnd.min(tp.snd_ssthresh);
        }
        tp.snd_cwnd = tp.snd_cwnd.min(tp.snd_cwnd_clamp as u64);
    }

    fn set_state(&mut self, _tp: &mut TcpSock, new: CaState) {
        self.enabled = new == CaState::Open;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rho_from_the_smoothed_rtt() {
        // srtt 75 ms (<< 3 = 600): rho_3ls 24, rho 3, rho^2 << 7 = 24 * 24 * 2 = 1152
        let mut tp = TcpSock { srtt: 600, snd_ssthresh: 100, snd_cwnd_clamp: 30000, ..TcpSock::default() };
        let mut h = Hybla::default();
        h.init(&mut tp);
        assert_eq!((h.rho, h.rho2_7ls, tp.snd_cwnd), (3, 1152, 3));
        // slow start: 2^3 * 128 - 128 = 896, 7 segments per ACK
        h.cong_avoid(&mut tp, 0, 3, true);
        assert_eq!(tp.snd_cwnd, 10);
    }
}
