//! What ns-2.35's `Agent/TCP/Linux` (tcp-linux.cc) runs Linux congestion-control modules with:
//! the part of the kernel's `tcp_sock` they see (`TcpSock`), the hooks ns-2 calls
//! (`CongestionControl`), the kernel's Reno helpers they share, and the modules themselves
//! (`ca/`), one file each. The agent is `Ns2Sender` with `TcpVariant::Linux`
//! (tcp/sender/linux.rs); its scoreboard is `scoreboard.rs`.
//!
//! Integer types are those of the ns-2 build (ns-linux-util.h on a 64-bit host): the kernel's
//! `u32` is `unsigned long`, 64 bits (`u64` here), its `u16` is `unsigned int` (`u32` here),
//! `s32` is `long` (`i64`). Arithmetic wraps as C's does.

mod ca;
pub mod scoreboard;

use crate::scenario::LinuxCa;

/// The flags of one ACK's processing (ns-linux-util.h's FLAG_*).
pub mod flag {
    pub const ECE: u8 = 1;
    pub const DATA_SACKED: u8 = 2;
    pub const DATA_ACKED: u8 = 4;
    pub const DATA_LOST: u8 = 8;
    /// The ACK may have been caused by a retransmission: no per-segment RTT from it.
    pub const UNSURE_TSTAMP: u8 = 16;
    pub const CA_ALERT: u8 = DATA_SACKED | ECE;
    pub const NOT_DUP: u8 = DATA_ACKED;
}

/// The congestion-avoidance states (`icsk_ca_state`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CaState {
    Open = 0,
    Disorder = 1,
    Cwr = 2,
    Recovery = 3,
    Loss = 4,
}

/// The events `cwnd_event` is told of (only those ns-2's agent raises).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CaEvent {
    Loss,
    FastAck,
    SlowAck,
}

/// The kernel's `HZ` and ns-2's JIFFY_RATIO: jiffies per second.
pub const HZ: u64 = 1000;

/// The kernel's `tcp_sock` as the modules see it.
#[derive(Clone, Debug, Default)]
pub struct TcpSock {
    pub snd_nxt: u64,
    pub snd_una: u64,
    pub mss_cache: u64,
    /// The agent's smoothed RTT in its ticks (ms) << 3.
    pub srtt: u64,
    pub snd_ssthresh: u64,
    pub snd_cwnd: u64,
    pub snd_cwnd_cnt: u32,
    pub snd_cwnd_clamp: u32,
    pub snd_cwnd_stamp: u64,
    pub bytes_acked: u64,
    pub ca_state: u8,
    /// The clock in jiffies (`tcp_time_stamp`, `jiffies`): ns-2's time in ms, truncated.
    pub jiffies: u64,
    /// The clock in ns (`ktime_get_real`).
    pub ktime_ns: i64,
    /// The last ACK carried timestamps (`rx_opt.saw_tstamp`: the agent's `timestamps_`).
    pub saw_tstamp: bool,
    /// The peer's timestamp and the echo of ours on the last ACK, in jiffies (`rx_opt`; 0
    /// without timestamps).
    pub rcv_tsval: u64,
    pub rcv_tsecr: u64,
    /// The kernel's `sysctl_tcp_abc` (a global in ns-2, `TcpParams::tcp_abc`): Appropriate
    /// Byte Counting, 0 off, 1 with L = 1 segment, 2 with L = 2.
    pub abc: u32,
}

impl TcpSock {
    pub fn in_state(&self, s: CaState) -> bool {
        self.ca_state == s as u8
    }
}

/// The hooks of a kernel `tcp_congestion_ops` that ns-2's agent calls; the optional ones do
/// nothing unless a module has them.
pub trait CongestionControl: Send + Sync {
    /// `init`, at the first ACK.
    fn init(&mut self, _tp: &mut TcpSock) {}
    /// `ssthresh`: the threshold after a loss.
    fn ssthresh(&mut self, tp: &TcpSock) -> u64;
    /// `min_cwnd`: the window after a loss (the new ssthresh if absent).
    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        tp.snd_ssthresh
    }
    /// `cong_avoid`: the window's growth on an ACK of `ack` bytes (snd_una after it).
    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, in_flight: u64, good: bool);
    /// Whether the module has `rtt_sample` or asks for per-segment timestamps
    /// (TCP_CONG_RTT_STAMP): ns-2 then records each segment's send time (`bugfix_ts_`).
    fn wants_rtt_stamps(&self) -> bool {
        false
    }
    /// `rtt_sample`, an RTT in microseconds.
    fn rtt_sample(&mut self, _tp: &mut TcpSock, _rtt_us: u64) {}
    /// `set_state`, before the state changes.
    fn set_state(&mut self, _tp: &mut TcpSock, _new: CaState) {}
    /// `cwnd_event`.
    fn cwnd_event(&mut self, _tp: &mut TcpSock, _ev: CaEvent) {}
    /// `pkts_acked`: `acked` segments, the last sent at `sent_ns` (0: unknown).
    fn pkts_acked(&mut self, _tp: &mut TcpSock, _acked: u64, _sent_ns: i64) {}
}

/// The module `select_ca` names.
pub fn controller(ca: LinuxCa) -> Box<dyn CongestionControl> {
    match ca {
        LinuxCa::NaiveReno => Box::new(ca::reno::NaiveReno),
        LinuxCa::Reno => Box::new(ca::reno::Reno),
        LinuxCa::Cubic => Box::new(ca::cubic::Cubic::default()),
        LinuxCa::Bic => Box::new(ca::bic::Bic::default()),
        LinuxCa::Htcp => Box::new(ca::htcp::Htcp::default()),
        LinuxCa::Hybla => Box::new(ca::hybla::Hybla::default()),
        LinuxCa::Veno => Box::new(ca::veno::Veno::default()),
        LinuxCa::Westwood => Box::new(ca::westwood::Westwood::default()),
        LinuxCa::Illinois => Box::new(ca::illinois::Illinois::default()),
        LinuxCa::Vegas => Box::new(ca::vegas::Vegas::default()),
        LinuxCa::Yeah => Box::new(ca::yeah::Yeah::default()),
        LinuxCa::Lp => Box::new(ca::lp::Lp::default()),
        LinuxCa::Compound => Box::new(ca::compound::Compound::default()),
        LinuxCa::Highspeed => Box::new(ca::highspeed::HighSpeed::default()),
        LinuxCa::Scalable => Box::new(ca::scalable::Scalable),
    }
}

/// Whether the window limits the sender (`tcp_is_cwnd_limited` in ns-2's build).
pub fn cwnd_limited(tp: &TcpSock, in_flight: u64) -> bool {
    in_flight >= tp.snd_cwnd
}

/// The kernel's `tcp_slow_start`, with ABC as `abc` says and without limited slow start.
pub fn slow_start(tp: &mut TcpSock) {
    if tp.abc > 0 && tp.bytes_acked < tp.mss_cache {
        return;
    }
    let mut cnt = tp.snd_cwnd as u32;
    if tp.abc > 1 && tp.bytes_acked >= 2 * tp.mss_cache {
        cnt <<= 1;
    }
    tp.bytes_acked = 0;
    tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.wrapping_add(cnt);
    while tp.snd_cwnd_cnt as u64 >= tp.snd_cwnd {
        tp.snd_cwnd_cnt = (tp.snd_cwnd_cnt as u64 - tp.snd_cwnd) as u32;
        if tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
            tp.snd_cwnd += 1;
        }
    }
}

/// `tcp_reno_ssthresh`: half the window, at least 2.
pub fn reno_ssthresh(tp: &TcpSock) -> u64 {
    (tp.snd_cwnd >> 1).max(2)
}

/// `tcp_reno_min_cwnd`: half the new ssthresh.
pub fn reno_min_cwnd(tp: &TcpSock) -> u64 {
    tp.snd_ssthresh / 2
}

/// `tcp_reno_cong_avoid`: slow start, then one segment per window (of bytes acked with ABC,
/// of ACKs without).
pub fn reno_cong_avoid(tp: &mut TcpSock, in_flight: u64) {
    if !cwnd_limited(tp, in_flight) {
        return;
    }
    if tp.snd_cwnd <= tp.snd_ssthresh {
        slow_start(tp);
    } else if tp.abc > 0 {
        let window_bytes = tp.snd_cwnd * tp.mss_cache;
        if tp.bytes_acked >= window_bytes {
            tp.bytes_acked -= window_bytes;
            if tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
                tp.snd_cwnd += 1;
            }
        }
    } else if tp.snd_cwnd_cnt as u64 >= tp.snd_cwnd {
        if tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
            tp.snd_cwnd += 1;
        }
        tp.snd_cwnd_cnt = 0;
    } else {
        tp.snd_cwnd_cnt += 1;
    }
}

/// Vegas's and Veno's bound after their window update: at least 2, then at most the clamp
/// (so a clamp below 2 wins, as in the kernel's order of the two tests).
pub fn bound_cwnd(tp: &mut TcpSock) {
    if tp.snd_cwnd < 2 {
        tp.snd_cwnd = 2;
    } else if tp.snd_cwnd > tp.snd_cwnd_clamp as u64 {
        tp.snd_cwnd = tp.snd_cwnd_clamp as u64;
    }
}

/// The kernel's `fls`: the position of the highest set bit of a C int (0 for 0).
pub fn fls(x: u32) -> u32 {
    32 - x.leading_zeros()
}

/// ns-linux-c.c's `div64_64`: 64-bit division by a divisor cut to 32 bits when it is wider.
pub fn div64_64(dividend: u64, divisor: u64) -> u64 {
    let high = (divisor >> 32) as u32;
    let (dividend, d) = if high != 0 {
        let shift = fls(high);
        (dividend >> shift, (divisor >> shift) as u32)
    } else {
        (dividend, divisor as u32)
    };
    dividend / d as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sock(cwnd: u64, ssthresh: u64) -> TcpSock {
        TcpSock {
            snd_cwnd: cwnd,
            snd_ssthresh: ssthresh,
            snd_cwnd_clamp: 30000,
            mss_cache: 1000,
            abc: 1,
            ..TcpSock::default()
        }
    }

    #[test]
    fn bound_cwnd_lets_a_clamp_below_two_win() {
        let bounded = |cwnd, clamp| {
            let mut tp = TcpSock { snd_cwnd: cwnd, snd_cwnd_clamp: clamp, ..TcpSock::default() };
            bound_cwnd(&mut tp);
            tp.snd_cwnd
        };
        assert_eq!([bounded(1, 20), bounded(7, 5), bounded(3, 1), bounded(1, 1)], [2, 5, 1, 2]);
    }

    #[test]
    fn slow_start_counts_bytes() {
        let mut tp = sock(2, 100);
        tp.bytes_acked = 500;
        slow_start(&mut tp);
        assert_eq!(tp.snd_cwnd, 2, "less than one segment acked");
        tp.bytes_acked = 2000;
        slow_start(&mut tp);
        // cnt += 2 reaches the window: one more segment
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt, tp.bytes_acked), (3, 0, 0));
    }

    #[test]
    fn reno_adds_a_segment_per_window_of_bytes() {
        let mut tp = sock(10, 5);
        tp.bytes_acked = 9000;
        reno_cong_avoid(&mut tp, 10);
        assert_eq!(tp.snd_cwnd, 10);
        tp.bytes_acked = 11000;
        reno_cong_avoid(&mut tp, 10);
        assert_eq!((tp.snd_cwnd, tp.bytes_acked), (11, 1000));
        reno_cong_avoid(&mut tp, 5);
        assert_eq!(tp.snd_cwnd, 11, "not limited by the window");
        assert_eq!((reno_ssthresh(&tp), reno_ssthresh(&sock(3, 0))), (5, 2));
    }

    #[test]
    fn without_abc_reno_counts_acks() {
        let mut tp = TcpSock { abc: 0, ..sock(3, 2) };
        for _ in 0..3 {
            reno_cong_avoid(&mut tp, 3);
        }
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (3, 3));
        reno_cong_avoid(&mut tp, 3);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (4, 0));
        // slow start without ABC: a segment per ACK, whatever it acknowledges
        let mut tp = TcpSock { abc: 0, ..sock(2, 10) };
        slow_start(&mut tp);
        assert_eq!(tp.snd_cwnd, 3);
    }

    #[test]
    fn fls_and_div64() {
        assert_eq!((fls(0), fls(1), fls(0x8000_0000)), (0, 1, 32));
        assert_eq!(div64_64(100, 7), 14);
        // a divisor of 2^33 + 1 is cut to 2^32 + 0 >> 2 ... as the C does: shift by fls(2) = 2
        assert_eq!(div64_64(1 << 40, (1 << 33) + 1), (1u64 << 38) / ((((1u64 << 33) + 1) >> 2) as u32 as u64));
    }
}
