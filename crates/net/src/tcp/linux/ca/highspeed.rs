//! HighSpeed TCP (tcp_highspeed.c, RFC 3649): the increase a(w) and decrease b(w) from the
//! kernel's table of 72 windows, the row kept in `ai` as the window moves.

use super::super::{cwnd_limited, reno_min_cwnd, slow_start, CongestionControl, TcpSock};

/// (window, decrease in 256ths) per row; a row's increase is its index + 1.
#[rustfmt::skip]
const AIMD: [(u64, u64); 72] = [
    (38, 128), (118, 112), (221, 104), (347, 98), (495, 93), (663, 89), (851, 86), (1058, 83),
    (1284, 81), (1529, 78), (1793, 76), (2076, 74), (2378, 72), (2699, 71), (3039, 69), (3399, 68),
    (3778, 66), (4177, 65), (4596, 64), (5036, 62), (5497, 61), (5979, 60), (6483, 59), (7009, 58),
    (7558, 57), (8130, 56), (8726, 55), (9346, 54), (9991, 53), (10661, 52), (11358, 52),
    (12082, 51), (12834, 50), (13614, 49), (14424, 48), (15265, 48), (16137, 47), (17042, 46),
    (17981, 45), (18955, 45), (19965, 44), (21013, 43), (22101, 43), (23230, 42), (24402, 41),
    (25618, 41), (26881, 40), (28193, 39), (29557, 39), (30975, 38), (32450, 38), (33986, 37),
    (35586, 36), (37253, 36), (38992, 35), (40808, 35), (42707, 34), (44694, 33), (46776, 33),
    (48961, 32), (51258, 32), (53677, 31), (56230, 30), (58932, 30), (61799, 29), (64851, 28),
    (68113, 28), (71617, 27), (75401, 26), (79517, 26), (84035, 25), (89053, 24),
];

#[derive(Default)]
pub struct HighSpeed {
    ai: usize,
}

impl CongestionControl for HighSpeed {
    fn init(&mut self, tp: &mut TcpSock) {
        self.ai = 0;
        // keeps cwnd * 128 within 32 bits
        tp.snd_cwnd_clamp = (tp.snd_cwnd_clamp as u64).min(0xffff_ffff / 128) as u32;
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        (tp.snd_cwnd - ((tp.snd_cwnd * AIMD[self.ai].1) >> 8)).max(2)
    }

    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        reno_min_cwnd(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, in_flight: u64, _good: bool) {
        if !cwnd_limited(tp, in_flight) {
            return;
        }
        if tp.snd_cwnd <= tp.snd_ssthresh {
            return slow_start(tp);
        }
        if tp.snd_cwnd > AIMD[self.ai].0 {
            while tp.snd_cwnd > AIMD[self.ai].0 && self.ai < AIMD.len() - 1 {
                self.ai += 1;
            }
        } else {
            while self.ai > 0 && tp.snd_cwnd <= AIMD[self.ai - 1].0 {
                self.ai -= 1;
            }
        }
        if tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
            tp.snd_cwnd_cnt += self.ai as u32 + 1;
            if tp.snd_cwnd_cnt as u64 >= tp.snd_cwnd {
                tp.snd_cwnd_cnt -= tp.snd_cwnd as u32;
                tp.snd_cwnd += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_follows_the_window() {
        let mut hs = HighSpeed::default();
        let mut tp = TcpSock { snd_cwnd: 120, snd_ssthresh: 10, snd_cwnd_clamp: 30000, ..TcpSock::default() };
        hs.cong_avoid(&mut tp, 0, 120, true);
        // 120 is past 38 and 118: row 2, a(w) = 3
        assert_eq!((hs.ai, tp.snd_cwnd_cnt), (2, 3));
        // b(w) = 104/256: 120 - 48 = 72
        assert_eq!(hs.ssthresh(&tp), 72);
        tp.snd_cwnd = 40;
        hs.cong_avoid(&mut tp, 0, 40, true);
        assert_eq!(hs.ai, 1);
    }
}
