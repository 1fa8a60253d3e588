//! Whether a window reduction proved spurious, as Linux's tcp_input.c decides it
//! (`tcp_init_undo`, `tcp_may_undo`, `tcp_packet_delayed`, the `undo_retrans` count of
//! `tcp_sacktag_one` and `tcp_check_dsack`), counted in segments.
//!
//! A recovery or an RTO records where it began (`undo_marker`, SND.UNA then) and counts its
//! retransmissions (`undo_retrans`, with those already in flight). It was spurious if every
//! retransmission was D-SACKed (RFC 2883 §4: the receiver had the original; each D-SACKed
//! segment above the marker counts one off), or if an ACK echoes a timestamp from before the
//! episode's first retransmission (RFC 3522's Eifel detection: the original got there). The
//! sender then asks the controller to restore the window (`Event::Undo`). The record stays
//! after the reduction ends, so that late D-SACKs may still undo it, until an undo or a new
//! reduction; an ECN-driven reduction is never undone.

#[derive(Debug, Clone, Default)]
pub struct Undo {
    /// SND.UNA when the undoable reduction began (`undo_marker`); None: nothing to undo.
    marker: Option<i64>,
    /// Retransmissions of the episode not yet D-SACKed (`undo_retrans`); None before the
    /// first (Linux's -1: "0" would mean all were D-SACKed).
    retransmissions: Option<u64>,
    /// When the episode's first retransmission went (`retrans_stamp`).
    first_retransmission: Option<f64>,
}

impl Undo {
    /// An undoable reduction (recovery or RTO) begins at `snd_una` with `retransmissions_out`
    /// retransmissions still in flight (`tcp_init_undo`).
    pub fn start(&mut self, snd_una: i64, retransmissions_out: u64) {
        self.marker = Some(snd_una);
        self.retransmissions = (retransmissions_out > 0).then_some(retransmissions_out);
    }

    /// A reduction that may not be undone (an ECN echo): Linux clears the marker.
    pub fn forget(&mut self) {
        self.marker = None;
    }

    /// The sender is open again with nothing retransmitted in flight: the next retransmission
    /// starts a new episode's clock (Linux clears `retrans_stamp` in `CA_Open`).
    pub fn on_open(&mut self) {
        self.first_retransmission = None;
    }

    /// A segment is retransmitted at `now` (`tcp_retransmit_skb`).
    pub fn on_retransmit(&mut self, now: f64) {
        self.first_retransmission.get_or_insert(now);
        *self.retransmissions.get_or_insert(0) += 1;
    }

    /// A D-SACK reports segments `start`..`end` arrived twice; `retransmitted(seq)` says whether
    /// the sender retransmitted `seq` (segments below the cumulative ACK are forgotten and
    /// counted, as Linux's "dumb counting" does). Only segments at or above the marker count.
    pub fn on_dsack(&mut self, start: i64, end: i64, mut retransmitted: impl FnMut(i64) -> bool) {
        let (Some(marker), Some(left)) = (self.marker, self.retransmissions.as_mut()) else {
            return;
        };
        let spurious = (start.max(marker)..end).filter(|&seq| retransmitted(seq)).count() as u64;
        *left = left.saturating_sub(spurious);
    }

    /// Every retransmission of the episode was D-SACKed (`tcp_try_undo_dsack`'s test).
    pub fn all_dsacked(&self) -> bool {
        self.marker.is_some() && self.retransmissions == Some(0)
    }

    /// The ACK echoes `ts_echo`, sent before the first retransmission: an original arrived
    /// (`tcp_packet_delayed`).
    pub fn packet_delayed(&self, ts_echo: Option<f64>) -> bool {
        matches!((ts_echo, self.first_retransmission), (Some(echo), Some(first)) if echo < first)
    }

    /// `tcp_may_undo`: the reduction is undoable and proved spurious.
    pub fn may_undo(&self, ts_echo: Option<f64>) -> bool {
        self.marker.is_some() && (self.retransmissions == Some(0) || self.packet_delayed(ts_echo))
    }

    /// The reduction was undone (`tcp_undo_cwnd_reduction` clears the marker).
    pub fn undone(&mut self) {
        self.marker = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recovery at SND.UNA 10, nothing retransmitted before; 10 and 12 retransmitted (two to
    /// account for). A D-SACK of 10 counts one off (1 left); one of 8, below the marker, none;
    /// one of 12..14 counts 12 only (13 was not retransmitted): 0 left, the recovery was
    /// spurious. After the undo nothing is left to undo.
    #[test]
    fn every_retransmission_dsacked_makes_the_reduction_spurious() {
        let mut u = Undo::default();
        u.start(10, 0);
        u.on_retransmit(1.0);
        u.on_retransmit(1.1);
        let retransmitted = |seq: i64| seq == 10 || seq == 12 || seq < 10;
        u.on_dsack(10, 11, retransmitted);
        assert!(!u.all_dsacked() && !u.may_undo(None));
        u.on_dsack(8, 9, retransmitted);
        assert!(!u.all_dsacked());
        u.on_dsack(12, 14, retransmitted);
        assert!(u.all_dsacked() && u.may_undo(None));
        u.undone();
        assert!(!u.all_dsacked() && !u.may_undo(None));
    }

    /// A retransmission in flight when recovery begins (a probe's) counts too: start with 1,
    /// retransmit one more (2); D-SACKs of both are needed.
    #[test]
    fn retransmissions_in_flight_at_the_start_count() {
        let mut u = Undo::default();
        u.start(0, 1);
        u.on_retransmit(0.5);
        u.on_dsack(3, 4, |_| true);
        assert!(!u.all_dsacked());
        u.on_dsack(0, 1, |_| true);
        assert!(u.all_dsacked());
    }

    /// Eifel: the first retransmission went at 1.0. An ACK echoing 0.9 (an original's stamp)
    /// shows the original arrived: spurious. One echoing 1.0 (the retransmission's) does not;
    /// nor does an ACK without a timestamp. An ECN reduction (forget) is never undone.
    #[test]
    fn an_echo_from_before_the_first_retransmission_makes_it_spurious() {
        let mut u = Undo::default();
        u.start(0, 0);
        u.on_retransmit(1.0);
        u.on_retransmit(1.2);
        assert!(u.packet_delayed(Some(0.9)) && u.may_undo(Some(0.9)));
        assert!(!u.may_undo(Some(1.0)) && !u.may_undo(None));
        u.forget();
        assert!(!u.may_undo(Some(0.9)));
    }

    /// Back in the open state the clock of the first retransmission is cleared: the next
    /// retransmission, at 3.0, starts it again (an echo of 2.0 is then from before it).
    #[test]
    fn the_first_retransmission_is_that_of_the_episode() {
        let mut u = Undo::default();
        u.start(0, 0);
        u.on_retransmit(1.0);
        u.on_open();
        u.start(20, 0);
        u.on_retransmit(3.0);
        assert!(u.may_undo(Some(2.0)));
    }
}
