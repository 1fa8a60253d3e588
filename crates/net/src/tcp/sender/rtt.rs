//! ns-2's RTT estimator (`TcpAgent::rtt_init`, `rtt_update`, `rtt_timeout`, `rtt_backoff` in
//! tcp.cc): fixed point in clock ticks, the smoothed RTT scaled by 2^srtt_bits and the variance
//! by 2^rttvar_bits, the update done in a C `short` whose wrap-around this keeps. Sans-IO: it
//! takes samples and gives timeouts; the sender traces and counts.

use crate::scenario::TcpParams;

/// The estimator's state, in ns-2's types and units.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct TickEstimator {
    /// The last sample, in ticks (`t_rtt_`).
    pub rtt: i32,
    /// The smoothed RTT in ticks × 2^srtt_bits (`t_srtt_`); 0 until the first sample.
    pub srtt: i32,
    /// The variance in ticks × 2^rttvar_bits (`t_rttvar_`).
    pub rttvar: i32,
    /// The retransmission timeout before backoff, in seconds (`t_rtxcur_`).
    pub rtxcur: f64,
    /// The backoff multiplier (`t_backoff_`): 1, 2, 4, ... 64.
    pub backoff: i32,
}

impl TickEstimator {
    /// A new agent's estimator, before `rtt_init`.
    pub fn new() -> TickEstimator {
        TickEstimator { rtt: 0, srtt: 0, rttvar: 0, rtxcur: 0.0, backoff: 1 }
    }

    /// `rtt_init`: the initial estimate from `srtt_init_`, `rttvar_init_` and `rtxcur_init_`.
    pub fn init(&mut self, p: &TcpParams) {
        self.rtt = 0;
        self.srtt = ((p.srtt_init / p.tcp_tick) as i32) << p.srtt_bits;
        self.rttvar = ((p.rttvar_init / p.tcp_tick) as i32) << p.rttvar_bits;
        self.rtxcur = p.rtxcur_init;
        self.backoff = 1;
    }

    /// `rtt_timeout`: the timeout to arm, backed off and clamped to [minrto, maxrto] (RFC 2988
    /// clamps to minrto before backing off) and to at least two ticks.
    #[inline]
    pub fn timeout(&self, p: &TcpParams) -> f64 {
        self.timeout_using_rtt(p, false)
    }

    /// `rtt_timeout` with ns-2's `use_rtt_` (set only by FullTcp after a marked SYN+ACK): with
    /// RFC 2988 the estimate is not raised to minrto, and the floor is one tick, not two.
    #[inline]
    pub fn timeout_using_rtt(&self, p: &TcpParams, use_rtt: bool) -> f64 {
        let mut timeout = if p.rfc2988 {
            (if self.rtxcur < p.minrto && !use_rtt { p.minrto } else { self.rtxcur }) * self.backoff as f64
        } else {
            (self.rtxcur * self.backoff as f64).max(p.minrto)
        };
        if timeout > p.maxrto {
            timeout = p.maxrto;
        }
        if timeout < 2.0 * p.tcp_tick {
            timeout = if use_rtt && timeout < p.tcp_tick { p.tcp_tick } else { 2.0 * p.tcp_tick };
        }
        timeout
    }

    /// A sample of `tao` seconds measured at `now`, in ticks: rounded with timestamps, else as
    /// the agent's ticking clock (phase `boot_time`) counts it.
    pub fn ticks(p: &TcpParams, boot_time: f64, now: f64, tao: f64) -> f64 {
        if p.timestamps {
            tao / p.tcp_tick + 0.5
        } else {
            let sendtime = now - tao + boot_time;
            let tickoff = sendtime % p.tcp_tick;
            (tao + tickoff) / p.tcp_tick
        }
    }

    /// Whether a sample of `ticks` stays within the `int`s ns-2 computes the estimate in: the
    /// sample itself, the first smoothed RTT and variance it makes, and the timeout (variance
    /// shifted up, plus the smoothed RTT) after it and after later samples, whose variance
    /// grows by a `short` each at most.
    pub fn holds(&self, p: &TcpParams, ticks: f64) -> bool {
        let t = ticks.max(1.0);
        let srtt = (t * (1u64 << p.srtt_bits) as f64).max(self.srtt as f64) + i16::MAX as f64;
        let rttvar = (t * (1u64 << (p.rttvar_bits - 1)) as f64).max(self.rttvar as f64) + i16::MAX as f64;
        let shift = p.rttvar_exp + p.srtt_bits - p.rttvar_bits;
        rttvar * (1u64 << shift) as f64 + srtt <= i32::MAX as f64
    }

    /// `rtt_update` with a sample of `ticks` (that `holds`).
    pub fn update(&mut self, p: &TcpParams, ticks: f64) {
        self.rtt = (ticks as i32).max(1);
        if self.srtt != 0 {
            // ns-2 does this in a `short`; keep its wrap-around.
            let mut delta = (self.rtt - (self.srtt >> p.srtt_bits)) as i16;
            self.srtt += delta as i32;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            if delta < 0 {
                delta = delta.wrapping_neg();
            }
            delta = delta.wrapping_sub((self.rttvar >> p.rttvar_bits) as i16);
            self.rttvar += delta as i32;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            self.srtt = self.rtt << p.srtt_bits;
            self.rttvar = self.rtt << (p.rttvar_bits - 1);
        }
        let shift = p.rttvar_exp + p.srtt_bits - p.rttvar_bits;
        self.rtxcur = (((self.rttvar << shift) + self.srtt) >> p.srtt_bits) as f64 * p.tcp_tick;
    }

    /// `rtt_backoff` after a timeout: the multiplier doubles (to 64, or while under maxrto
    /// with RFC 2988), and past 8 the smoothed RTT is given up into the variance.
    pub fn back_off(&mut self, p: &TcpParams) {
        if self.backoff < 64 || (p.rfc2988 && self.timeout(p) < p.maxrto) {
            self.backoff <<= 1;
        }
        if self.backoff > 8 {
            self.rttvar += self.srtt >> p.srtt_bits;
            self.srtt = 0;
        }
    }

    /// The smoothed RTT in seconds.
    pub fn srtt_secs(&self, p: &TcpParams) -> f64 {
        self.srtt as f64 / (1u32 << p.srtt_bits) as f64 * p.tcp_tick
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-2's defaults: tick 10 ms, srtt ×8, rttvar ×4, rttvar_exp 2, minrto 1 s off (0.2 here
    /// to see the estimate), maxrto 60 s, RFC 2988.
    fn params() -> TcpParams {
        TcpParams { minrto: 0.2, ..TcpParams::default() }
    }

    fn after(samples: &[f64]) -> TickEstimator {
        let p = params();
        let mut e = TickEstimator::new();
        e.init(&p);
        for &t in samples {
            assert!(e.holds(&p, t));
            e.update(&p, t);
        }
        e
    }

    #[test]
    fn defaults_are_ns2s() {
        let p = params();
        assert_eq!((p.tcp_tick, p.srtt_bits, p.rttvar_bits, p.rttvar_exp), (0.01, 3, 2, 2));
        let mut e = TickEstimator::new();
        e.init(&p);
        assert_eq!((e.srtt, e.rttvar, e.backoff), (0, 1200 << 2, 1), "srtt_init_ 0, rttvar_init_ 12 s");
        assert_eq!(e.timeout(&p), 3.0, "rtxcur_init_ 3 s before any sample");
    }

    #[test]
    fn samples_move_the_estimate_as_tcp_cc_does() {
        // (sample ticks, t_srtt_, t_rttvar_, t_rtxcur_ in ticks): the first sets srtt = 8 rtt and
        // rttvar = 2 rtt; then srtt += rtt - srtt/8 and rttvar += |delta| - rttvar/4; the timeout
        // is (rttvar << 3 + srtt) >> 3 ticks
        let cases: &[(&[f64], i32, i32, i32)] = &[
            (&[10.0], 80, 20, 30),
            (&[10.0, 10.0], 80, 15, 25),
            (&[10.0, 20.0], 90, 25, 36),
            (&[10.0, 20.0, 5.0], 84, 25, 35),
            (&[0.3], 8, 2, 3), // a sample under a tick counts as one
        ];
        for &(samples, srtt, rttvar, rtxcur_ticks) in cases {
            let e = after(samples);
            assert_eq!((e.srtt, e.rttvar), (srtt, rttvar), "{samples:?}");
            assert!((e.rtxcur - rtxcur_ticks as f64 * 0.01).abs() < 1e-12, "{samples:?}: {}", e.rtxcur);
        }
    }

    #[test]
    fn the_update_wraps_as_a_c_short() {
        // srtt of 1 tick, then a sample of 40000 ticks: ns-2's `short` delta is 39999 - 65536
        let mut e = after(&[1.0]);
        let p = params();
        e.update(&p, 40000.0);
        assert_eq!(e.srtt, 1, "8 + (39999 as i16) is negative: clamped to 1");
        assert_eq!(e.rttvar, 2 + 25537, "rttvar += |delta| - rttvar/4 (2 >> 2 = 0), in a short");
    }

    #[test]
    fn samples_past_the_ints_are_refused() {
        let p = params();
        let e = after(&[10.0]);
        assert!(e.holds(&p, 1e6));
        assert!(!e.holds(&p, 1e8), "8 x 1e8 ticks overflows ns-2's int");
    }

    #[test]
    fn timeouts_back_off_and_clamp() {
        let p = params();
        let mut e = after(&[10.0]); // rtxcur 0.3 s
        let mut seen = vec![e.timeout(&p)];
        for _ in 0..8 {
            e.back_off(&p);
            seen.push(e.timeout(&p));
        }
        assert_eq!(seen, [0.3, 0.6, 1.2, 2.4, 4.8, 9.6, 19.2, 38.4, 60.0], "doubling to maxrto");
        assert_eq!(e.srtt, 0, "past a backoff of 8 the smoothed RTT is given up");
        // without RFC 2988 the multiplier stops at 64
        let q = TcpParams { rfc2988: false, ..params() };
        let mut f = after(&[10.0]);
        for _ in 0..10 {
            f.back_off(&q);
        }
        assert_eq!(f.backoff, 64);
        // RFC 2988 clamps to minrto before backing off; the old rule after
        let g = TickEstimator { rtxcur: 0.05, backoff: 2, ..after(&[]) };
        assert_eq!(g.timeout(&params()), 0.4);
        assert_eq!(g.timeout(&TcpParams { rfc2988: false, ..params() }), 0.2);
        // never under two ticks
        let h = TickEstimator { rtxcur: 0.001, ..after(&[]) };
        assert_eq!(h.timeout(&TcpParams { minrto: 0.0, ..params() }), 0.02);
    }

    #[test]
    fn samples_count_in_the_agents_ticks() {
        let p = params();
        // with timestamps: rounded
        let ts = TcpParams { timestamps: true, ..params() };
        assert!((TickEstimator::ticks(&ts, 0.0, 1.0, 0.104) - 10.9).abs() < 1e-9);
        // without: the send time's offset into its tick is added (a clock that ticks)
        let t = TickEstimator::ticks(&p, 0.003, 1.0, 0.104);
        assert!((t - (0.104 + (1.0 - 0.104 + 0.003) % 0.01) / 0.01).abs() < 1e-9, "{t}");
    }
}
