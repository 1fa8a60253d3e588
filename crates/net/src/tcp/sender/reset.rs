//! ns-2's `$tcp reset` (`TcpAgent::reset`) while the agent runs: the connection starts again
//! from sequence number 0 with a fresh window and RTT estimate, its timers cancelled, and ACKs
//! sent before the reset are ignored (ns-2's `lastreset_`).

use super::Ns2Sender;
use crate::port::{Port, TimerKind};

impl Ns2Sender {
    /// Resets the agent as ns-2's `reset` command does; `phase` is the clock phase it draws
    /// anew, as a fraction of a tick. What `TcpAgent::reset` leaves alone (the RTT timing in
    /// progress, a Reno's inflated window, ECN state) stays.
    pub fn reset(&mut self, net: &mut impl Port, phase: f64) {
        if let Some(rfc793) = &mut self.rfc793edu {
            rfc793.reset(&self.p);
        }
        if let Some(sack1) = &mut self.sack1 {
            sack1.rq.clear();
        }
        if let Some(fack) = &mut self.fack {
            fack.clear_scoreboard();
        }
        let cwnd = self.cwnd;
        self.tcp_reset(phase);
        if self.cwnd != cwnd {
            self.trace_cwnd(net);
        }
        self.last_reset = net.now_secs();
        net.cancel(&mut self.rtx_timer, self.ep.flow, TimerKind::Rtx);
        net.cancel(&mut self.pace_timer, self.ep.flow, TimerKind::Pace);
        net.cancel(&mut self.delsnd_timer, self.ep.flow, TimerKind::DelSnd);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::Tcp;
    use super::*;
    use crate::scenario::{TcpParams, TcpVariant};
    use crate::tcp::Ftp;
    use crate::testing::ack;

    /// The SYN's ACK opens the window to 2 (seqnos 1, 2 go); a reset at 0.15 s cancels the
    /// timer and forgets them. An ACK the sink stamped before the reset changes nothing; new
    /// data starts again at seqno 0, a SYN again (its ACK counted anew).
    #[test]
    fn reset_starts_again_from_seqno_0_and_ignores_older_acks() {
        let mut t = Tcp::start(TcpVariant::Tahoe, TcpParams::default());
        assert_eq!(t.sends(|t| t.ack(0.1, 0, &[])), vec![1, 2]);
        t.net.set_now(0.15);
        t.s.reset(&mut t.net, 0.5);
        assert_eq!(t.net.deadline(TimerKind::Rtx), None);
        assert_eq!((t.s.cwnd, t.s.ssthresh, t.s.t_seqno, t.s.curseq), (1.0, 20, 0, 0));
        assert!((t.s.boot_time - 0.005).abs() < 1e-12, "half a tick of 10 ms");
        t.net.set_now(0.2);
        let old = crate::packet::Packet { ts: 0.12, ..ack(2, 0.1, &[]) };
        t.s.recv(&mut t.net, &old);
        assert_eq!(t.s.last_ack, -1, "an ACK from before the reset");
        let sent = t.sends(|t| t.s.advance_by(&mut t.net, 3));
        assert_eq!(sent, vec![0]);
        assert_eq!(t.net.sent.last().map(|p| p.size), Some(40), "a SYN again");
    }

    /// ns-2's Fack has no test for ACKs from before a reset: such an ACK of seqno 0 is taken as
    /// the new connection's first (and its scoreboard starts empty).
    #[test]
    fn fack_takes_acks_from_before_its_reset() {
        let mut t = Tcp::start(TcpVariant::Fack, TcpParams::default());
        t.net.set_now(0.05);
        t.s.reset(&mut t.net, 0.0);
        t.sends(|t| t.s.advance_by(&mut t.net, 3));
        t.net.set_now(0.1);
        let old = crate::packet::Packet { ts: 0.01, ..ack(0, 0.0, &[]) };
        t.s.recv(&mut t.net, &old);
        assert_eq!(t.s.last_ack, 0);
    }
}
