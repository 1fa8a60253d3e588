//! Proportional Rate Reduction (RFC 6937, updated by RFC 9937), counted in segments, as
//! Linux's `tcp_cwnd_reduction` applies it: on each ACK of a recovery, `sndcnt` segments may
//! go, and cwnd = in flight + sndcnt.
//!
//! While pipe is above ssthresh, sending follows delivery in proportion ssthresh/RecoverFS, so
//! that the flight falls to ssthresh by the end of the round. Once pipe is at or below
//! ssthresh, the reduction bound lets the flight grow back towards ssthresh: RFC 6937's
//! conservative bound (PRR-CRB: no more than was delivered), or the slow-start bound
//! (PRR-SSRB) as RFC 9937 and Linux have it: at least this ACK's delivery, plus one segment
//! when the ACK advanced SND.UNA without revealing a new loss. The first ACK always lets the
//! fast retransmission go. RecoverFS is the caller's choice: RFC 6937's FlightSize at the
//! start of recovery, or Linux's cwnd before the reduction (`prior_cwnd`).

/// The reduction bound used once pipe is at or below ssthresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// PRR-CRB (RFC 6937 §3): prr_delivered - prr_out. The sender uses SSRB, as Linux does.
    #[cfg_attr(not(test), allow(dead_code))]
    Conservative,
    /// PRR-SSRB (RFC 9937, Linux): max(prr_delivered - prr_out, DeliveredData), + 1 on a safe
    /// ACK.
    SlowStart,
}

#[derive(Debug, Clone)]
pub struct Prr {
    bound: Bound,
    recover_fs: i64,
    ssthresh: i64,
    prr_delivered: i64,
    prr_out: i64,
}

impl Prr {
    /// A reduction to `ssthresh` from `recover_fs` segments starts (at the entry into recovery,
    /// or a CWR for ECN).
    pub fn start(recover_fs: u64, ssthresh: u64, bound: Bound) -> Self {
        Prr { bound, recover_fs: recover_fs.max(1) as i64, ssthresh: ssthresh as i64, prr_delivered: 0, prr_out: 0 }
    }

    #[cfg(test)]
    pub fn prr_delivered(&self) -> i64 {
        self.prr_delivered
    }

    pub fn prr_out(&self) -> i64 {
        self.prr_out
    }

    /// Segments sent, new or retransmitted, during the reduction.
    pub fn on_sent(&mut self, segments: u64) {
        self.prr_out += segments as i64;
    }

    /// An ACK of the reduction: `delivered` segments newly acknowledged or SACKed
    /// (DeliveredData), `pipe` the segments in flight after it (RFC 6675's SetPipe), `safe`
    /// whether it advanced SND.UNA and revealed no new loss. Returns sndcnt, the segments that
    /// may go now (cwnd = pipe + sndcnt), or None for an ACK that delivered nothing, which
    /// leaves cwnd as it was.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, safe: bool) -> Option<i64> {
        if delivered == 0 {
            return None;
        }
        let (delivered, pipe) = (delivered as i64, pipe as i64);
        self.prr_delivered += delivered;
        let sndcnt = if pipe > self.ssthresh {
            // ceil(prr_delivered x ssthresh / RecoverFS) - prr_out
            (self.prr_delivered * self.ssthresh + self.recover_fs - 1) / self.recover_fs - self.prr_out
        } else {
            let limit = match self.bound {
                Bound::Conservative => self.prr_delivered - self.prr_out,
                Bound::SlowStart => (self.prr_delivered - self.prr_out).max(delivered) + i64::from(safe),
            };
            limit.min(self.ssthresh - pipe)
        };
        // The fast retransmission goes on the first ACK whatever the arithmetic says.
        Some(if self.prr_out == 0 { sndcnt.max(1) } else { sndcnt })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `acks` ACKs of one segment each from a flight of `recover_fs` with one segment
    /// lost, sending what PRR allows; the segments sent at each ACK. pipe after ACK k is
    /// recover_fs - 1 (lost) - k (delivered) + sent so far.
    fn one_per_ack(recover_fs: u64, ssthresh: u64, acks: usize) -> Vec<i64> {
        let mut prr = Prr::start(recover_fs, ssthresh, Bound::SlowStart);
        let mut pipe = recover_fs as i64 - 1;
        (0..acks)
            .map(|_| {
                pipe -= 1;
                let sndcnt = prr.on_ack(1, pipe as u64, false).unwrap().max(0);
                prr.on_sent(sndcnt as u64);
                pipe += sndcnt;
                sndcnt
            })
            .collect()
    }

    /// RFC 6937's example: one loss in a window of 20, Reno's ssthresh 10. Each ACK delivers
    /// one segment and, while pipe > 10, sndcnt = ceil(k x 10 / 20) - prr_out: 1 (the
    /// retransmission), 0, 1, 0, ...: one segment per two ACKs, pipe falling from 19 by one
    /// per two ACKs. At ACK 17 pipe is 19 - 17 + 8 = 10, not above ssthresh: the bound allows
    /// ssthresh - pipe = 0; at ACK 18 pipe is 9 and it allows 1, back to 10.
    #[test]
    fn prr_sends_one_segment_per_two_acks_for_a_halved_window() {
        let sent = one_per_ack(20, 10, 18);
        assert_eq!(sent[..16], [1, 0].repeat(8));
        assert_eq!(sent[16..], [0, 1]);
        assert_eq!(19 - 18 + sent.iter().sum::<i64>(), 10);
    }

    /// The same with CUBIC's ssthresh 0.7 x 20 = 14: ceil(0.7 k) - prr_out for k = 1..10 is
    /// 1, 2-1, 3-2, 3-3, 4-3, 5-4, 5-5, 6-5, 7-6, 7-7: seven segments for ten delivered.
    #[test]
    fn prr_sends_seven_per_ten_for_cubics_beta() {
        assert_eq!(one_per_ack(20, 14, 10), vec![1, 1, 1, 0, 1, 1, 0, 1, 1, 0]);
    }

    /// Below ssthresh (10), with heavy losses: ACK 1 delivers 2 at pipe 4 (room 6). SSRB on a
    /// safe ACK: max(2 - 0, 2) + 1 = 3; on an ACK with a new loss, 2; CRB: 2 - 0 = 2. Then
    /// ACK 2 delivers 1 at pipe 4 - 1 + 3 = 6 (room 4): SSRB safe max(3 - 3, 1) + 1 = 2, where
    /// CRB (after sending 2, pipe 5) allows 3 - 2 = 1.
    #[test]
    fn reduction_bounds_below_ssthresh() {
        let mut ssrb = Prr::start(20, 10, Bound::SlowStart);
        assert_eq!(ssrb.clone().on_ack(2, 4, false), Some(2));
        assert_eq!(ssrb.on_ack(2, 4, true), Some(3));
        ssrb.on_sent(3);
        assert_eq!(ssrb.on_ack(1, 6, true), Some(2));
        let mut crb = Prr::start(20, 10, Bound::Conservative);
        assert_eq!(crb.on_ack(2, 4, true), Some(2));
        crb.on_sent(2);
        assert_eq!(crb.on_ack(1, 5, true), Some(1));
        assert_eq!((crb.prr_delivered(), crb.prr_out()), (3, 2));
    }

    /// The first ACK lets the fast retransmission go even when the proportion gives nothing:
    /// with ssthresh 0, ceil(1 x 0 / 20) - 0 = 0 is raised to 1; the next gives
    /// ceil(2 x 0 / 20) - 1 = -1. An ACK that delivers nothing leaves cwnd alone.
    #[test]
    fn first_ack_forces_the_retransmission() {
        let mut prr = Prr::start(20, 0, Bound::SlowStart);
        assert_eq!(prr.on_ack(0, 19, true), None);
        assert_eq!(prr.on_ack(1, 18, false), Some(1));
        prr.on_sent(1);
        assert_eq!(prr.on_ack(1, 18, false), Some(-1), "cwnd = in flight - 1, as Linux sets it");
    }
}
