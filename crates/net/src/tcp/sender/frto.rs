//! F-RTO (RFC 4138) as ns-2.35's `TcpAgent` has it (tcp.cc, Pasi Sarolahti's code), for the
//! agents that use `TcpAgent`'s hooks: Tahoe, Reno and Newreno, and Sack1 with its SACK-based
//! variant (tcp-sack1.cc).
//!
//! A timeout with `frto_enabled_` or `sfrto_enabled_` sets `frto_` to 1 (and keeps in
//! `pipe_prev_` the window before it). The first new ACK after it, if more data can be sent and
//! the ACK does not cover all that was outstanding, lets two new segments out past `recover_`
//! (`frto_` 2); if the next ACK is new too the timeout was spurious: cwnd is set back to the data
//! outstanding before that ACK (`spurious_response_` 1; 2 sets it to the halved ssthresh, 3 to
//! one segment) and ssthresh back to `pipe_prev_`. A duplicate ACK in either
//! state ends F-RTO with ns-2's slow-start retransmissions, cwnd set to `frto_` itself (1 or 2).
//!
//! Sack1 does not call `recv_frto_helper`: with `frto_enabled_` alone a duplicate ACK leaves
//! F-RTO as it is. With `sfrto_enabled_` a duplicate ACK after the new data is judged by its
//! SACK blocks (`sack_frto_dupack`). A timeout during SACK fast recovery arms no F-RTO.

use super::Ns2Sender;
use crate::port::Port;

impl Ns2Sender {
    /// The end of ns-2's `timeout()` branches that cut the window: arm F-RTO if enabled.
    pub(super) fn arm_frto(&mut self) {
        if self.p.frto || self.p.sfrto {
            self.frto = 1;
        }
    }

    /// ns-2 `window()` while `frto_` is 2: `force_wnd(2)`, at most `wnd_`.
    pub(super) fn frto_window(&self) -> i64 {
        (self.recover + 2 - self.highest_ack).min(self.wnd as i64)
    }

    /// ns-2 `recv_frto_helper`: a duplicate ACK during F-RTO means the timeout was real.
    pub(super) fn recv_frto_helper(&mut self, net: &mut impl Port, seq: i64) {
        if seq == self.last_ack && self.frto != 0 {
            self.t_seqno = self.highest_ack + 1;
            let cwnd = self.frto as f64;
            self.set_cwnd(net, cwnd);
            self.frto = 0;
            // the caller counts this ACK, which brings dupacks back to 0 (and lets it send)
            self.dupacks = -1;
        }
    }

    /// The end of ns-2's `recv_newack_helper`: F-RTO's steps on a new ACK.
    pub(super) fn frto_newack(&mut self, net: &mut impl Port) {
        if self.frto == 1 {
            if (self.recover + 1) as f64 >= self.highest_ack as f64 + self.wnd || self.recover + 1 >= self.curseq {
                // no new data to send, or the receiver's window does not let it out
                self.frto = 0;
            } else if self.highest_ack == self.recover {
                // step 2a: the retransmission acknowledged the whole window
                self.frto = 0;
            } else {
                self.t_seqno = self.recover + 1;
                self.frto = 2;
            }
        } else if self.frto == 2 {
            self.spurious_timeout(net);
        }
    }

    /// Sack1's SACK-based F-RTO (`sfrto_enabled_`), on a duplicate ACK after the new data went
    /// out: if the ACK's SACK information is new and none of it covers the segments sent since
    /// the timeout (recover..maxseq), the originals are arriving and the timeout was spurious;
    /// otherwise slow-start retransmissions as on a duplicate ACK in `TcpAgent`.
    pub(super) fn sack_frto_dupack(&mut self, net: &mut impl Port, sacks: &[(i64, i64)]) {
        let changed = self.sack1.as_ref().is_some_and(|s| s.rq.changed());
        if changed && !is_sacked(sacks, self.recover, self.maxseq) {
            self.spurious_timeout(net);
        } else {
            self.t_seqno = self.highest_ack + 1;
            let cwnd = self.frto as f64;
            self.set_cwnd(net, cwnd);
            self.frto = 0;
            self.dupacks = 0;
        }
    }

    /// ns-2 `spurious_timeout`: the window `spurious_response_` picks, ssthresh as before.
    fn spurious_timeout(&mut self, net: &mut impl Port) {
        self.frto = 0;
        let cwnd = match self.p.spurious_response {
            // the halved ssthresh of the timeout
            2 => self.ssthresh as f64,
            // slow start, without the retransmissions
            3 => 1.0,
            // 1 and any other value: full revert, the data outstanding before this ACK
            _ => (self.t_seqno - self.prev_highest_ack) as f64,
        };
        self.set_cwnd(net, cwnd);
        self.ssthresh = self.pipe_prev;
        // the timeout was spurious: no need for the bugfix's protection
        self.recover = self.highest_ack - 1;
    }
}

/// ns-2 `Sack1TcpAgent::is_sacked`: whether any SACK block covers sequence numbers between
/// `lo` and `hi`.
fn is_sacked(sacks: &[(i64, i64)], lo: i64, hi: i64) -> bool {
    sacks.iter().any(|&(l, r)| (r > lo && r <= hi) || (l >= lo && l < hi) || (l < lo && r > hi))
}

#[cfg(test)]
mod tests {
    //! Expected values follow ns-2.35's tcp.cc (`timeout`, `recv_frto_helper`,
    //! `recv_newack_helper`, `spurious_timeout`, `window`) worked by hand. Each case starts as
    //! `at_cwnd_8` in sender/tests.rs: ns-2's defaults (window_ 20, windowInit_ 2, a SYN,
    //! singledup_ 1), slow start to cwnd 8 with segments 7..14 outstanding (highest_ack 6,
    //! t_seqno 15), then the timer fires: pipe_prev = max(window 8, ssthresh 20) = 20,
    //! recover = maxseq = 14, ssthresh 4, cwnd 1, and segment 7 is retransmitted.
    use super::super::tests::Tcp;
    use crate::scenario::{TcpParams, TcpVariant};

    /// The sender and the time the timer fired.
    fn timed_out(variant: TcpVariant, frto: bool) -> (Tcp, f64) {
        let mut t = Tcp::start(variant, TcpParams { frto, ..TcpParams::default() });
        t.ack(0.1, 0, &[]);
        (1..=2).for_each(|a| t.ack(0.2, a, &[]));
        (3..=6).for_each(|a| t.ack(0.3, a, &[]));
        assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.t_seqno), (8.0, 20, 15));
        let mut at = 0.0;
        assert_eq!(t.sends(|t| at = t.timeout()), vec![7]);
        assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.recover), (1.0, 4, 14));
        assert_eq!((t.s.frto, t.s.pipe_prev), (i64::from(frto), 20));
        (t, at)
    }

    /// The timeout was spurious: 8..14 were only late. The ACK of 7 opens cwnd to 2 and, as
    /// recover + 1 = 15 is below highest_ack + window_ = 27 and 7 is not recover, sends new
    /// data from 15 with window force_wnd(2) = recover + 2 - highest_ack = 9: 15 and 16. The
    /// ACK of 8 is new too: cwnd = t_seqno - prev_highest_ack = 17 - 7 = 10, ssthresh =
    /// pipe_prev = 20, recover = 8 - 1, and the window of 10 sends 17 and 18.
    #[test]
    fn a_second_new_ack_reverts_a_spurious_timeout() {
        for v in [TcpVariant::Tahoe, TcpVariant::Reno, TcpVariant::NewReno] {
            let (mut t, at) = timed_out(v, true);
            assert_eq!(t.sends(|t| t.ack(at + 0.1, 7, &[])), vec![15, 16], "{v:?}");
            assert_eq!((t.s.cwnd, t.s.frto, t.s.t_seqno), (2.0, 2, 17), "{v:?}");
            assert_eq!(t.sends(|t| t.ack(at + 0.2, 8, &[])), vec![17, 18], "{v:?}");
            assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.recover, t.s.frto), (10.0, 20, 7, 0), "{v:?}");
        }
    }

    /// Sack1 with sfrto_enabled_: after the ACK of 7 (cwnd 2, 15 and 16 sent as above), a
    /// duplicate ACK of 7 whose new SACK block covers only 9, sent before the timeout, shows
    /// the originals arriving: spurious, cwnd = 17 - 6 = 11, ssthresh 20, recover 6; the dupack
    /// (dupacks 1) sends nothing (Limited Transmit needs 17 <= 7 + 2 + 1). A block covering 15,
    /// sent after it, means a real timeout: t_seqno 8, cwnd = frto_ = 2, dupacks 0, and the
    /// scoreboard's holes 8 and 9 go first.
    #[test]
    fn sack1_judges_a_dupack_by_what_it_sacks() {
        let p = TcpParams { sfrto: true, ..TcpParams::default() };
        for (block, spurious) in [((9, 10), true), ((15, 16), false)] {
            let mut t = Tcp::start(TcpVariant::Sack1, p.clone());
            t.ack(0.1, 0, &[]);
            (1..=2).for_each(|a| t.ack(0.2, a, &[]));
            (3..=6).for_each(|a| t.ack(0.3, a, &[]));
            let at = t.timeout();
            assert_eq!(t.sends(|t| t.ack(at + 0.1, 7, &[])), vec![15, 16]);
            assert_eq!((t.s.cwnd, t.s.frto), (2.0, 2));
            let sent = t.sends(|t| t.ack(at + 0.2, 7, &[block]));
            if spurious {
                assert_eq!(sent, Vec::<i64>::new());
                assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.recover, t.s.frto, t.s.dupacks), (11.0, 20, 6, 0, 1));
            } else {
                assert_eq!(sent, vec![8, 9]);
                assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.frto, t.s.dupacks), (2.0, 4, 0, 0));
            }
        }
    }

    /// Sack1: three dupacks of 6 with new SACK blocks start SACK fast recovery; a timeout then
    /// arms no F-RTO, whatever the knobs.
    #[test]
    fn sack1_arms_no_frto_after_a_timeout_in_fast_recovery() {
        let p = TcpParams { frto: true, sfrto: true, ..TcpParams::default() };
        let mut t = Tcp::start(TcpVariant::Sack1, p);
        t.ack(0.1, 0, &[]);
        (1..=2).for_each(|a| t.ack(0.2, a, &[]));
        (3..=6).for_each(|a| t.ack(0.3, a, &[]));
        for (i, right) in [9, 10, 11].into_iter().enumerate() {
            t.ack(0.4 + 0.01 * i as f64, 6, &[(8, right)]);
        }
        assert!(t.s.fastrecov);
        t.timeout();
        assert_eq!((t.s.frto, t.s.fastrecov), (0, false));
    }

    /// spurious_response_ 2 and 3 take, instead of the full revert, the ssthresh of the timeout
    /// (4), which lets nothing out (t_seqno 17 > 8 + 4), or one segment; ssthresh is 20 either
    /// way.
    #[test]
    fn the_other_spurious_responses() {
        for (response, cwnd) in [(2, 4.0), (3, 1.0)] {
            let mut t = Tcp::start(
                TcpVariant::Tahoe,
                TcpParams { frto: true, spurious_response: response, ..TcpParams::default() },
            );
            t.ack(0.1, 0, &[]);
            (1..=2).for_each(|a| t.ack(0.2, a, &[]));
            (3..=6).for_each(|a| t.ack(0.3, a, &[]));
            let at = t.timeout();
            assert_eq!(t.sends(|t| t.ack(at + 0.1, 7, &[])), vec![15, 16]);
            assert_eq!(t.sends(|t| t.ack(at + 0.2, 8, &[])), Vec::<i64>::new());
            assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.frto), (cwnd, 20, 0), "response {response}");
        }
    }

    /// A duplicate ACK after the new data: the timeout was real. cwnd becomes frto_ itself, 2,
    /// t_seqno goes back to 8 and dupacks to -1, which counting this ACK makes 0; singledup_
    /// then sends 8 (8 <= 7 + cwnd 2 + 0) and send_much 9; ssthresh stays 4.
    #[test]
    fn a_duplicate_ack_falls_back_to_slow_start_retransmissions() {
        let (mut t, at) = timed_out(TcpVariant::Tahoe, true);
        assert_eq!(t.sends(|t| t.ack(at + 0.1, 7, &[])), vec![15, 16]);
        assert_eq!(t.sends(|t| t.ack(at + 0.2, 7, &[])), vec![8, 9]);
        assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.t_seqno, t.s.frto, t.s.dupacks), (2.0, 4, 10, 0, 0));
    }

    /// Step 2a: the retransmission's ACK covers all that was outstanding (14 = recover), so
    /// F-RTO ends and slow start goes on from 15 with cwnd 2.
    #[test]
    fn an_ack_of_the_whole_window_cancels_frto() {
        let (mut t, at) = timed_out(TcpVariant::Tahoe, true);
        assert_eq!(t.sends(|t| t.ack(at + 0.1, 14, &[])), vec![15, 16]);
        assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.frto), (2.0, 4, 0));
    }

    /// sfrto_enabled_ arms the same F-RTO in TcpAgent; with neither, the ACK of 7 goes on with
    /// go-back-N from 8 as before.
    #[test]
    fn sfrto_arms_it_too_and_without_either_nothing_changes() {
        let mut t = Tcp::start(TcpVariant::Reno, TcpParams { sfrto: true, ..TcpParams::default() });
        t.ack(0.1, 0, &[]);
        t.timeout();
        assert_eq!(t.s.frto, 1);
        let (mut t, at) = timed_out(TcpVariant::Tahoe, false);
        assert_eq!(t.sends(|t| t.ack(at + 0.1, 7, &[])), vec![8, 9]);
        assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.frto), (2.0, 4, 0));
    }
}
