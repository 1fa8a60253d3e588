//! Scalable TCP (tcp_scalable.c): a segment per min(cwnd, 50) ACKs, an eighth of the window
//! off on a loss.

use super::super::{cwnd_limited, reno_min_cwnd, slow_start, CongestionControl, TcpSock};

const AI_CNT: u64 = 50;
const MD_SCALE: u32 = 3;

pub struct Scalable;

impl CongestionControl for Scalable {
    fn ssthresh(&mut self, tp: &TcpSock) -> u64 {
        (tp.snd_cwnd - (tp.snd_cwnd >> MD_SCALE)).max(2)
    }

    fn min_cwnd(&self, tp: &TcpSock) -> u64 {
        reno_min_cwnd(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, in_flight: u64, _good: bool) {
        if !cwnd_limited(tp, in_flight) {
            return;
        }
        if tp.snd_cwnd <= tp.snd_ssthresh {
            slow_start(tp);
        } else {
            tp.snd_cwnd_cnt += 1;
            if tp.snd_cwnd_cnt as u64 > tp.snd_cwnd.min(AI_CNT) {
                if tp.snd_cwnd < tp.snd_cwnd_clamp as u64 {
                    tp.snd_cwnd += 1;
                }
                tp.snd_cwnd_cnt = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_a_segment_per_fifty_acks_and_cuts_an_eighth() {
        let mut tp = TcpSock { snd_cwnd: 100, snd_ssthresh: 10, snd_cwnd_clamp: 1000, ..TcpSock::default() };
        for _ in 0..50 {
            Scalable.cong_avoid(&mut tp, 0, 100, true);
        }
        assert_eq!(tp.snd_cwnd, 100);
        Scalable.cong_avoid(&mut tp, 0, 100, true);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (101, 0));
        // 101 - 12 = 89
        assert_eq!(Scalable.ssthresh(&tp), 89);
    }
}
