//! The modern sender's mechanisms driven together by hand, as the rfc sender will drive them:
//! the SACK scoreboard's ACK update feeds RACK and the rate estimator, RACK and RFC 6675 decide
//! the loss, PRR the sending during recovery.

use super::pacing::LinuxPacing;
use super::prr::{Bound, Prr};
use super::rack::Rack;
use super::rate::{RateEstimator, TxState};
use super::sack::{NextSeg, Rule, SackScoreboard};

/// Times in 1024ths of a second past one RTT of 1/8 s, exact in binary.
const MS: f64 = 1.0 / 1024.0;

struct Sender {
    sb: SackScoreboard,
    rack: Rack,
    rate: RateEstimator,
    tx: Vec<TxState>,
}

impl Sender {
    fn send(&mut self, now: f64, seq: i64, rule: Rule) {
        let in_flight = self.sb.pipe().max(0) as u64;
        self.sb.on_transmit(NextSeg { seq, rule });
        self.rack.on_sent(now, seq);
        let state = self.rate.on_sent(now, seq, in_flight);
        match self.tx.get_mut(seq as usize) {
            Some(old) => *old = state,
            None => self.tx.push(state),
        }
    }

    /// One ACK through the scoreboard, RACK and the rate estimator; the segments it delivered,
    /// those RACK now calls lost, and the delivery rate it samples.
    fn ack(&mut self, now: f64, una: i64, blocks: &[(i64, i64)]) -> (i64, Vec<i64>, Option<f64>) {
        let prior_in_flight = self.sb.pipe() as u64;
        let update = self.sb.on_ack(una, blocks);
        self.rack.on_ack(now, una, self.sb.newly_delivered(), None, update.dsack.is_some(), self.sb.high_data() + 1);
        for seq in self.sb.newly_delivered().iter().flat_map(|&(s, e)| s..e) {
            self.rate.on_delivered(&self.tx[seq as usize]);
        }
        let (lost, _) = self.rack.detect_loss(now, 0.125, self.sb.in_recovery());
        let rs = self.rate.on_ack(now, lost.len() as u64, prior_in_flight, None, self.rack.min_rtt());
        (update.delivered_segments, lost, rs.rate())
    }
}

/// Ten segments sent at 0, 1, ..., 9 ms (in 1024ths), RTT 1/8 s, segment 2 lost. The ACKs
/// of 0 and 1 advance; the SACKs of 3, 4 leave 2 waiting in RACK's reordering window
/// (min_RTT/4 = 1/32 s: 2 + 128 + 32 - 131 > 0 ms); the SACK of 5 makes three SACKed
/// segments: reo_wnd becomes 0 and RACK calls 2 lost at the same ACK at which RFC 6675's
/// DupAcks reaches DupThresh. Recovery then retransmits 2; pipe before it is the unSACKed 2,
/// 6..9 less the lost 2 = 4, at or below ssthresh 5, so PRR's bound allows max(1, 1) = 1
/// (the ACK did not advance SND.UNA): cwnd = 4 + 1 = 5. The rate sample at that ACK: 5
/// delivered since the sends began at 0, over max(send 5 ms, ACK 128 + 5 ms) = 133/1024 s.
#[test]
fn rack_and_rfc_6675_agree_on_a_single_loss_and_prr_sends_the_retransmission() {
    let mut s = Sender { sb: SackScoreboard::new(3), rack: Rack::new(3, 0.2), rate: RateEstimator::new(), tx: vec![] };
    for seq in 0..10 {
        s.send(seq as f64 * MS, seq, Rule::NewData);
    }
    let at = |ms: f64| 0.125 + ms * MS;
    assert_eq!(s.ack(at(0.0), 1, &[]), (1, vec![], Some(1.0 / 0.125)));
    assert_eq!(s.ack(at(1.0), 2, &[]).1, Vec::<i64>::new());
    assert_eq!(s.ack(at(3.0), 2, &[(3, 4)]).1, Vec::<i64>::new());
    assert_eq!(s.rack.detect_loss(at(3.0), 0.125, false).1, Some(31.0 * MS), "2 waits 2 + 128 + 32 - 131 ms");
    assert_eq!(s.ack(at(4.0), 2, &[(3, 5)]).1, Vec::<i64>::new());
    assert!(!s.sb.should_enter_recovery());
    let (delivered, lost, rate) = s.ack(at(5.0), 2, &[(3, 6)]);
    assert_eq!((delivered, lost), (1, vec![2]));
    assert_eq!(rate, Some(5.0 / (133.0 * MS)));
    assert_eq!(s.sb.dupacks(), 3);
    assert!(s.sb.should_enter_recovery());

    let pipe = s.sb.pipe();
    assert_eq!(pipe, 4);
    let mut prr = Prr::start(10, 5, Bound::SlowStart);
    let sndcnt = prr.on_ack(1, pipe as u64, false).unwrap();
    assert_eq!(pipe + sndcnt, 5, "cwnd = in flight + sndcnt");
    let first = s.sb.enter_recovery();
    s.send(at(5.0), first, Rule::Lost);
    prr.on_sent(1);
    assert_eq!((first, s.sb.pipe()), (2, 5));

    // The retransmission's ACK covers RecoveryPoint 9 once 6..9 arrive: recovery ends.
    let (delivered, lost, _) = s.ack(at(5.0) + 0.125, 10, &[]);
    assert_eq!((delivered, lost), (5, vec![]), "2 and 6..9");
    assert!(!s.sb.in_recovery());
    s.rack.on_recovery_exit();

    // Linux's default pacing for the window after recovery (cwnd 5, ssthresh 5: 120%).
    let rate = LinuxPacing::default().rate(1000, 5.0, 0, 5.0, Some(0.125));
    assert_eq!(rate, Some(1000.0 * 5.0 / 0.125 * 1.2));
}
