//! ns-2's `Agent/TCP/SackRH`: SACK with rate-halving (Mathis, Semke, Mahdavi, Lahey;
//! ns-2.35's tcp-sack-rh.cc and scoreboard-rh.cc). Every ACK is processed by one `recv` that
//! walks a small state machine: RH_INCR (normal growth), RH_EXACT (SACK shows new holes: cwnd
//! falls by half of what each ACK reports as having left the network), RH_EST (plain dupacks:
//! cwnd falls by half a packet per ACK, NewReno-style hole estimation) and RH_EST_REPAIR. Data
//! goes while int(cwnd) >= t_seqno - fack + retransmissions in flight.

use super::{CwndAction, CwndCut, Ns2Sender, Slowdown};
use crate::packet::{flags, Packet};
use crate::port::Port;

/// ns-2's `rh_state_` values.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum RhState {
    Incr,
    Exact,
    Est,
    EstRepair,
}

/// ns-2's `rh_est_hole_state_` values.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum HoleState {
    None,
    Counting,
    NewHole,
    RetransOccurred,
}

/// ns-2's SBSIZE: the scoreboard is a ring of this many entries, a segment at slot seqno % SBSIZE.
const SBSIZE: usize = 1024;

#[derive(Clone, Copy, Default)]
struct Node {
    seq_no: i64,
    ack_flag: bool,
    sack_flag: bool,
    retran: bool,
    snd_nxt: i64,
    sack_cnt: i64,
}

impl Node {
    fn fresh(seq_no: i64) -> Node {
        Node { seq_no, ..Node::default() }
    }

    fn hole(&self) -> bool {
        !self.ack_flag && !self.sack_flag
    }
}

/// ns-2's `ScoreBoardRH`, ported slot for slot: its walks start from the seqno held in the
/// first slot and address slots by seqno, so what a stale slot holds matters as in ns-2.
struct RhScoreboard {
    sbn: Vec<Node>,
    first: usize,
    length: usize,
    /// The adjustment interval whose retransmission was last SACKed or ACKed.
    retran_sacked: i64,
}

impl Default for RhScoreboard {
    fn default() -> Self {
        RhScoreboard { sbn: vec![Node::default(); SBSIZE], first: 0, length: 0, retran_sacked: 0 }
    }
}

fn slot(seq: i64) -> usize {
    seq.rem_euclid(SBSIZE as i64) as usize
}

impl RhScoreboard {
    fn first_seq(&self) -> i64 {
        self.sbn[self.first].seq_no
    }

    fn last_seq(&self) -> i64 {
        self.sbn[(self.first + self.length + SBSIZE - 1) % SBSIZE].seq_no
    }

    /// Appends fresh entries up to `right` - 1 (`false`: ns-2 would exit, out of room).
    fn extend_to(&mut self, right: i64) -> bool {
        if right > self.last_seq() {
            for i in self.last_seq() + 1..right {
                self.sbn[slot(i)] = Node::fresh(i);
                self.length += 1;
                if self.length >= SBSIZE {
                    return false;
                }
            }
        }
        true
    }

    /// `UpdateScoreBoard`: the retransmissions that this ACK shows have left the network
    /// (`None`: the scoreboard overflows, where ns-2 exits).
    fn update(&mut self, last_ack: i64, sacks: &[(i64, i64)], rh_id: i64) -> Option<i64> {
        if sacks.is_empty() && self.length == 0 {
            return Some(0);
        }
        let mut retran_decr = 0;
        let mut sack_max = 0;
        if self.length == 0 {
            let i = last_ack + 1;
            self.sbn[slot(i)] = Node::fresh(i);
            self.first = slot(i);
            self.length = 1;
        }
        // advance the left edge
        if self.first_seq() <= last_ack {
            let mut i = self.first_seq();
            while i <= last_ack {
                let n = &mut self.sbn[slot(i)];
                if n.seq_no <= last_ack {
                    self.first = (self.first + 1) % SBSIZE;
                    self.length -= 1;
                    n.ack_flag = true;
                    n.sack_flag = true;
                    if n.retran {
                        n.retran = false;
                        n.snd_nxt = 0;
                        retran_decr += 1;
                        self.retran_sacked = rh_id;
                    }
                    if self.length == 0 {
                        break;
                    }
                }
                i += 1;
            }
        }
        for &(left, right) in sacks {
            sack_max = sack_max.max(right);
            if !self.extend_to(right) {
                return None;
            }
            for i in self.first_seq()..right {
                let n = &mut self.sbn[slot(i)];
                if n.seq_no >= left && n.seq_no < right {
                    n.sack_flag = true;
                    if n.retran {
                        n.retran = false;
                        n.snd_nxt = 0;
                        retran_decr += 1;
                        self.retran_sacked = rh_id;
                    }
                }
            }
        }
        if self.length != 0 {
            for i in self.first_seq()..sack_max {
                let n = &mut self.sbn[slot(i)];
                if n.hole() {
                    n.sack_cnt += 1;
                }
            }
        }
        Some(retran_decr + self.check_snd_nxt(sack_max))
    }

    /// `CheckSndNxt`: a retransmission sent before something now SACKed was lost again.
    fn check_snd_nxt(&mut self, sack_max: i64) -> i64 {
        let mut lost = 0;
        if self.length != 0 {
            for i in self.first_seq()..sack_max {
                let n = &mut self.sbn[slot(i)];
                if n.retran && n.snd_nxt < sack_max {
                    n.retran = false;
                    n.snd_nxt = 0;
                    n.sack_cnt = 1;
                    lost += 1;
                }
            }
        }
        lost
    }

    /// `GetNextRetran`: the first hole reported `numdupacks` times and not yet retransmitted.
    fn next_retran(&self, numdupacks: i64) -> Option<i64> {
        let first = self.first_seq();
        (first..first + self.length as i64).find(|&i| {
            let n = &self.sbn[slot(i)];
            n.hole() && !n.retran && n.sack_cnt >= numdupacks
        })
    }

    fn mark_retran(&mut self, seq: i64, snd_nxt: i64) {
        let n = &mut self.sbn[slot(seq)];
        n.retran = true;
        n.snd_nxt = snd_nxt;
    }

    fn fack(&self, last_ack: i64) -> i64 {
        if self.length != 0 {
            self.first_seq() + self.length as i64 - 1
        } else {
            last_ack
        }
    }

    /// `GetNewHoles`: holes reported once so far.
    fn new_holes(&self) -> i64 {
        let first = self.first_seq();
        (first..first + self.length as i64)
            .filter(|&i| {
                let n = &self.sbn[slot(i)];
                n.hole() && n.sack_cnt == 1
            })
            .count() as i64
    }

    /// `TimeoutScoreBoard`: every hole up to `snd_nxt` is to be retransmitted.
    fn timeout(&mut self, snd_nxt: i64, numdupacks: i64) -> bool {
        if self.length == 0 {
            return true;
        }
        if !self.extend_to(snd_nxt) {
            return false;
        }
        let first = self.first_seq();
        for i in first..first + self.length as i64 {
            let n = &mut self.sbn[slot(i)];
            if n.hole() {
                n.retran = false;
                n.snd_nxt = 0;
                n.sack_cnt = numdupacks;
            }
        }
        // a renege of the first segment
        let n = &mut self.sbn[slot(first)];
        if !n.ack_flag && n.sack_flag {
            n.sack_flag = false;
            n.retran = false;
            n.snd_nxt = 0;
            n.sack_cnt = numdupacks;
        }
        true
    }
}

/// What a SackRH sender keeps beyond `TcpAgent`'s state (ns-2's names).
pub(super) struct SackRhState {
    pub(super) fack: i64,
    pub(super) retran_data: i64,
    num_dupacks: i64,
    pub(super) rh_state: RhState,
    prior_cwnd: f64,
    prior_max_seq: i64,
    rh_id: i64,
    rh_max: i64,
    hole_state: HoleState,
    num_retrans: i64,
    retran_flag: bool,
    ecn_flag: bool,
    scb: RhScoreboard,
}

impl Default for SackRhState {
    fn default() -> Self {
        SackRhState {
            fack: -1,
            retran_data: 0,
            num_dupacks: 0,
            rh_state: RhState::Incr,
            prior_cwnd: 0.0,
            prior_max_seq: 0,
            rh_id: 0,
            rh_max: 0,
            hole_state: HoleState::None,
            num_retrans: 0,
            retran_flag: false,
            ecn_flag: false,
            scb: RhScoreboard::default(),
        }
    }
}

impl SackRhState {
    /// `rhclear()`
    fn clear(&mut self) {
        self.rh_id = 0;
        self.prior_max_seq = 0;
        self.num_dupacks = 0;
        self.hole_state = HoleState::None;
        self.ecn_flag = false;
        self.num_retrans = 0;
        self.retran_flag = false;
        self.prior_cwnd = 0.0;
    }

    /// `computefack()`: from the scoreboard, or estimated from the dupacks.
    fn compute_fack(&mut self, last_ack: i64) {
        self.fack = match self.rh_state {
            RhState::Incr | RhState::Exact => self.scb.fack(last_ack),
            _ => last_ack + self.num_dupacks + 1,
        };
    }

    /// Starts an adjustment interval.
    fn next_id(&mut self) {
        self.rh_max += 1;
        self.rh_id = self.rh_max;
    }
}

impl Ns2Sender {
    pub(super) fn rh_ref(&self) -> &SackRhState {
        self.sackrh.as_ref().expect("a SackRH sender")
    }

    fn rh(&mut self) -> &mut SackRhState {
        self.sackrh.as_mut().expect("a SackRH sender")
    }

    fn rh_overflow(&mut self, net: &mut impl Port) {
        net.stop_run(crate::scenario::ScenarioError::new(
            format!("flows[{}]", self.ep.flow.0),
            "Agent/TCP/SackRH's scoreboard holds 1023 segments: ns-2 exits here (\"scoreboard too large\")",
        ));
    }

    /// `SackRHTcpAgent::recv`
    pub(super) fn sackrh_recv(&mut self, net: &mut impl Port, ack: &Packet) {
        let ecnecho = ack.has(flags::ECN_ECHO) && self.last_ack != -1;
        let sacks = &*ack.sack_blocks();
        let sackpresent = !sacks.is_empty();
        let numdupacks = self.p.numdupacks as i64;
        let old_ack = self.last_ack;
        self.sackrh_newack(net, ack);
        if ecnecho {
            self.rh().ecn_flag = true;
        }
        let last_ack = self.last_ack;
        let t_seqno = self.t_seqno;
        let old_fack = self.rh().fack;
        let old_retran_data = self.rh().retran_data;
        let rh_id = self.rh().rh_id;
        let Some(decr) = self.rh().scb.update(last_ack, sacks, rh_id) else {
            return self.rh_overflow(net);
        };
        let rh = self.rh();
        rh.retran_data -= decr;
        if !sackpresent && old_ack == last_ack {
            rh.num_dupacks += 1;
            if rh.hole_state == HoleState::Counting && rh.num_dupacks == numdupacks {
                rh.hole_state = HoleState::NewHole;
            }
        }
        rh.compute_fack(last_ack);

        // 7.8 reordering exit
        if !rh.retran_flag && !rh.ecn_flag {
            let exact_ends = rh.rh_state == RhState::Exact && !sackpresent && !ecnecho;
            let est_ends = rh.rh_state == RhState::Est && last_ack > old_ack;
            if exact_ends || est_ends {
                rh.rh_state = RhState::Incr;
                let c = rh.prior_cwnd;
                rh.clear();
                rh.compute_fack(last_ack);
                self.set_cwnd(net, c);
            }
        }
        // 7.10 completion of RH_EXACT
        let rh = self.rh();
        if rh.rh_state == RhState::Exact && (rh.fack >= rh.prior_max_seq || rh.scb.retran_sacked == rh.rh_id) {
            self.rh_boundparms(net);
            let rh = self.rh();
            rh.rh_state = RhState::Incr;
            rh.clear();
        }
        // 7.11 completion of RH_EST*
        let rh = self.rh();
        if matches!(rh.rh_state, RhState::Est | RhState::EstRepair) && last_ack >= rh.prior_max_seq {
            rh.retran_data = 0;
            // estadjust()
            let c = (rh.prior_cwnd - rh.num_retrans as f64) / 2.0;
            self.set_cwnd(net, c);
            self.rh_boundparms(net);
            let rh = self.rh();
            rh.rh_state = RhState::Incr;
            rh.clear();
            rh.compute_fack(last_ack);
        }
        // 7.12 the NewReno case
        let cwnd = self.cwnd;
        let rh = self.rh();
        if rh.rh_state == RhState::Est && cwnd <= rh.prior_cwnd / 2.0 {
            rh.rh_state = RhState::EstRepair;
        }
        // 7.9 partial ACKs while estimating
        if matches!(rh.rh_state, RhState::Est | RhState::EstRepair) && last_ack > old_ack {
            rh.retran_data = 0;
            rh.num_dupacks -= last_ack - old_ack - 1;
            rh.hole_state = if rh.num_dupacks >= numdupacks { HoleState::NewHole } else { HoleState::Counting };
            rh.compute_fack(last_ack);
        }

        // entry conditions: 7.4 RH_EXACT, 7.5 RH_EST
        let mut cong_action = false;
        if rh.rh_state == RhState::Incr && (ecnecho || rh.scb.new_holes() != 0) {
            rh.rh_state = RhState::Exact;
            rh.prior_cwnd = cwnd;
            rh.prior_max_seq = t_seqno;
            cong_action = true;
            rh.next_id();
        }
        if rh.rh_state == RhState::Incr && rh.num_dupacks > 0 {
            rh.rh_state = RhState::Est;
            rh.hole_state = HoleState::Counting;
            rh.prior_cwnd = cwnd;
            rh.prior_max_seq = t_seqno;
            cong_action = true;
            rh.next_id();
        }
        if rh.rh_state == RhState::Exact && rh.num_dupacks > 0 {
            rh.rh_state = RhState::Est;
            rh.hole_state = HoleState::Counting;
            rh.next_id();
        }
        if rh.rh_state == RhState::EstRepair && ecnecho {
            rh.rh_state = RhState::Est;
            rh.prior_cwnd = cwnd;
            rh.prior_max_seq = t_seqno;
            cong_action = true;
            rh.next_id();
        }
        if cong_action {
            self.cong_action = true;
        }

        // updating the window
        let rh = self.rh_ref();
        match rh.rh_state {
            RhState::Incr => {
                // 7.2
                if self.t_seqno - old_fack + old_retran_data + 1 >= self.cwnd as i64 {
                    self.opencwnd(net);
                }
            }
            RhState::Exact => {
                // 7.6: ns-2 computes the decrement in single precision
                let d = (((rh.fack - old_fack) + rh.scb.new_holes()) as f32) as f64 / 2.0;
                let c = self.cwnd - d;
                self.set_cwnd(net, c);
            }
            RhState::Est => {
                // 7.7
                let c = self.cwnd - 0.5;
                self.set_cwnd(net, c);
            }
            RhState::EstRepair => {}
        }
        self.sackrh_send_much(net, self.p.maxburst);
    }

    /// 7.14 `boundparms()`: cwnd at most half its value before the reduction; ssthresh cwnd,
    /// but not below a quarter of it.
    fn rh_boundparms(&mut self, net: &mut impl Port) {
        let prior = self.rh_ref().prior_cwnd;
        if self.cwnd > prior / 2.0 {
            self.set_cwnd(net, prior / 2.0);
        }
        self.ssthresh = self.cwnd as i64;
        if (self.ssthresh as f64) < prior / 4.0 {
            self.ssthresh = (prior / 4.0) as i64;
        }
    }

    /// `SackRHTcpAgent::newack`, called for every ACK, new or not: the timer restarts and the
    /// timed segment's ACK gives the RTT sample and clears the backoff (unless it echoes ECN).
    fn sackrh_newack(&mut self, net: &mut impl Port, ack: &Packet) {
        let now = net.now_secs();
        self.newtimer(net, ack.seq);
        self.last_ack = ack.seq;
        self.highest_ack = self.last_ack;
        if self.t_seqno < self.last_ack + 1 {
            self.t_seqno = self.last_ack + 1;
        }
        if self.p.timestamps {
            self.rtt_update(net, now, now - ack.ts_echo);
        }
        if self.rtt_active && ack.seq >= self.rtt_seq {
            if !ack.has(flags::ECN_ECHO) {
                self.rtt.backoff = 1;
            }
            self.rtt_active = false;
            if !self.p.timestamps {
                self.rtt_update(net, now, now - self.rtt_ts);
            }
        }
    }

    /// 7.15 `SackRHTcpAgent::timeout`: rate-halving is undone, then a slow-start restart that
    /// retransmits every hole and resends from fack + 1.
    pub(super) fn sackrh_timeout(&mut self, net: &mut impl Port) {
        if self.highest_ack == self.maxseq && !self.p.slow_start_restart {
            return;
        }
        if self.highest_ack == -1 && self.wnd_init_option == 2 {
            self.wnd_init_option = 1;
        }
        if self.rh_ref().rh_state != RhState::Incr {
            let c = self.rh_ref().prior_cwnd;
            self.set_cwnd(net, c);
            let rh = self.rh();
            rh.clear();
            rh.rh_state = RhState::Incr;
        }
        self.slowdown(net, Slowdown { ssthresh_half: true, cwnd: CwndCut::Restart });
        let (t_seqno, last_ack, numdupacks) = (self.t_seqno, self.last_ack, self.p.numdupacks as i64);
        let rh = self.rh();
        rh.retran_data = 0;
        if !rh.scb.timeout(t_seqno, numdupacks) {
            return self.rh_overflow(net);
        }
        rh.compute_fack(last_ack);
        let fack = rh.fack;
        if self.t_seqno > fack + 1 {
            self.t_seqno = fack + 1;
        }
        self.reset_rtx_timer(net, true, true);
        self.last_cwnd_action = CwndAction::Timeout;
        self.sackrh_send_much(net, self.p.maxburst);
    }

    /// 7.3 `SackRHTcpAgent::send_much`: holes first, then (while estimating) the hole the
    /// dupacks point at, then new data, while int(cwnd) >= t_seqno - fack + retran_data.
    pub(super) fn sackrh_send_much(&mut self, net: &mut impl Port, maxburst: u32) {
        let numdupacks = self.p.numdupacks as i64;
        let wnd = self.wnd as i64;
        let mut npacket = 0;
        loop {
            let rh = self.rh_ref();
            if (self.cwnd as i64) < self.t_seqno - rh.fack + rh.retran_data {
                break;
            }
            let t_seqno = self.t_seqno;
            let last_ack = self.last_ack;
            let xmit = match rh.scb.next_retran(numdupacks) {
                None => {
                    let estimating = matches!(rh.rh_state, RhState::Est | RhState::EstRepair);
                    if estimating && rh.hole_state == HoleState::NewHole {
                        let rh = self.rh();
                        rh.hole_state = HoleState::RetransOccurred;
                        rh.num_retrans += 1;
                        rh.retran_data += 1;
                        rh.retran_flag = true;
                        last_ack + 1
                    } else if t_seqno < self.curseq && t_seqno <= last_ack + wnd {
                        if t_seqno > self.maxseq && self.held_by_pacer(net) {
                            break;
                        }
                        self.t_seqno += 1;
                        t_seqno
                    } else {
                        break;
                    }
                }
                Some(hole) if hole <= last_ack + wnd => {
                    let rh = self.rh();
                    rh.scb.mark_retran(hole, t_seqno);
                    rh.retran_data += 1;
                    rh.retran_flag = true;
                    hole
                }
                Some(_) => break,
            };
            self.output(net, xmit);
            if self.t_seqno <= xmit {
                self.t_seqno = xmit + 1;
            }
            npacket += 1;
            if maxburst > 0 && npacket == maxburst {
                break;
            }
        }
    }
}
