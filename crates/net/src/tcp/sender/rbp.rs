//! ns-2's rate-based pacing after idle periods, `Agent/TCP/Vegas/RBP` and `Agent/TCP/Reno/RBP`
//! (Visweswaraiah and Heidemann, "Improving restart of idle TCP connections"): when the
//! retransmission timer fires with nothing outstanding, the next burst is paced out over an RTT
//! instead of being sent at once; the first ACK ends the pacing.

use super::Ns2Sender;
use crate::packet::Packet;
use crate::port::{Port, TimerKind};
use crate::scenario::TcpVariant;

/// The pacing window is never below this many segments (ns-2 `RBP_MIN_SEGMENTS`).
const RBP_MIN_SEGMENTS: f64 = 2.0;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum RbpMode {
    Going,
    Possible,
    #[default]
    Off,
}

impl Ns2Sender {
    /// RBP's part of an ACK, before the variant's own: any ACK ends pacing; Reno/RBP also caps
    /// cwnd at what was paced out, so the window does not burst.
    pub(super) fn rbp_on_ack(&mut self, net: &mut impl Port, ack: &Packet) {
        if self.rbp_mode != RbpMode::Off {
            self.rbp_mode = RbpMode::Off;
            if self.variant == TcpVariant::Reno && ack.seq > self.last_ack {
                let c = (self.maxseq - self.last_ack) as f64;
                self.set_cwnd(net, c);
            }
        }
    }

    /// A retransmission timeout with nothing outstanding only arms pacing; true if so.
    pub(super) fn rbp_on_timeout(&mut self) -> bool {
        if self.highest_ack == self.maxseq {
            self.rbp_mode = RbpMode::Possible;
            true
        } else {
            false
        }
    }

    /// Starts pacing if it is armed and a segment may go; true if it took over from send_much.
    pub(super) fn rbp_send_much(&mut self, net: &mut impl Port) -> bool {
        if !(self.rbp_mode == RbpMode::Possible && self.rbp_able_to_send_one()) {
            return false;
        }
        self.rbp_mode = RbpMode::Going;
        let rbwin = if self.variant == TcpVariant::Vegas && self.p.rbp_rate_algorithm == 1 {
            self.vegas_ref().actual * self.vegas_ref().rtt * self.p.rbp_scale
        } else {
            self.cwnd * self.p.rbp_scale
        };
        let rbwin = ((rbwin + 0.5) as i64 as f64).max(RBP_MIN_SEGMENTS);
        let c = self.cwnd.min(rbwin);
        self.set_cwnd(net, c);
        let rtt = if self.variant == TcpVariant::Vegas { self.vegas_ref().rtt } else { self.rtt.srtt_secs(&self.p) };
        self.rbp_delay = rtt / self.window() as f64;
        self.rbp_paced_send_one(net);
        true
    }

    fn rbp_able_to_send_one(&self) -> bool {
        self.t_seqno < self.curseq && self.t_seqno <= self.highest_ack + self.window()
    }

    pub(super) fn rbp_paced_send_one(&mut self, net: &mut impl Port) {
        if self.rbp_mode == RbpMode::Going && self.rbp_able_to_send_one() {
            let s = self.t_seqno;
            self.t_seqno += 1;
            self.output(net, s);
            let delay = self.rbp_delay;
            net.arm(&mut self.pace_timer, self.ep.flow, TimerKind::Pace, delay);
        }
    }
}
