//! The rfc profile's modern sender, for Linux's controllers (`reno`, `cubic`, `bbr`, `dctcp`):
//! SACK (RFC 2018) with RFC 6675 loss recovery, RACK-TLP (RFC 8985), PRR (RFC 6937),
//! delivery-rate samples, pacing, RFC 6298's timer with Linux's 200 ms minimum, and RTT samples
//! as Linux takes them (`rtt`: from each segment's send time, SACKed ones too, the timestamp
//! echo only as the fallback; SRTT from the earliest segment an ACK delivers, the controller's
//! and the rate sample's RTT from the latest).
//!
//! It is a second sender beside `RfcSender`, not that sender grown: the RFC 5681/6582 sender
//! that NewReno, Vegas and FAST run (and the yew2011 studies measure) keeps its code and its
//! results exactly, and this one drives a controller through the modern calls (`on_ack_sample`,
//! `on_event`, `cong_control`, see tcplab_cc's module comment). Each mechanism is the module
//! beside it (`sack`, `rack`, `prr`, `rate`, `rtt`, `cwnd_use`, `undo`, `pacing`); this file only
//! orders the calls, as Linux's `tcp_ack` does:
//!
//! 1. the scoreboard takes the ACK's cumulative ACK and SACK blocks; RACK and the rate
//!    estimator learn what it delivered; RACK marks what its clock calls lost;
//! 2. the controller learns from the sample (`on_ack_sample`);
//! 3. the state changes: the end of a reduction, the entry into recovery (DupThresh, or a loss
//!    marked), a CWR for an ECN echo, each an `Event`;
//! 4. during a reduction PRR sets the window (unless the controller sets cwnd on every ACK,
//!    as BBR does), and the controller takes its window step (`cong_control`), which grows
//!    the window only if it was used (`cwnd_use`: Linux's `tcp_is_cwnd_limited`, filled at
//!    any send in the last window, or in slow start below twice the most sent in it);
//! 5. what the window, the pacing and NextSeg allow goes, and one timer is armed: RACK's
//!    reordering timer, else TLP's probe timeout, else the RTO (Linux's one retransmission
//!    timer in its three roles).
//!
//! Pacing is the controller's rate when it sets one (BBR always paces), else Linux's default
//! rate only when `fq_pacing` asks (Linux paces Reno and CUBIC only under the fq qdisc).
//! The connection opens as Linux's does (`modern.handshake`, on by default): a SYN, the
//! receiver's SYN-ACK, whose timestamp echo is the first RTT sample (SRTT, the RTO, BBR's
//! min_rtt), then the ACK and the data. A lost SYN goes again when the RTO fires, 1 s before
//! any sample (RFC 6298 §2.1), doubled each time; after two SYN retransmissions the window
//! starts at one segment, unless the SYN-ACK echoes the first SYN (Linux's
//! `tcp_init_transfer`).
//!
//! A lost retransmission is repaired before the RTO by RACK (as in Linux): the retransmission
//! has a later send time, so once a segment sent after it is delivered and RACK.rtt +
//! reo_wnd have passed since it went, it is marked lost and goes again. With RACK off (Linux's
//! `tcp_recovery` 0) neither Linux 6.x nor this sender detects it: the RTO repairs it.
//!
//! A recovery or RTO that proves spurious is undone (`undo`), as Linux's
//! `tcp_try_undo_recovery` and `tcp_try_undo_dsack` do: when the ACK that ends it echoes a
//! timestamp from before its first retransmission (RFC 3522), or once every retransmission
//! has been D-SACKed (RFC 2883), also after it ended; the controller restores its window
//! (`Event::Undo`).
//!
//! Not modelled: F-RTO (RFC 5682, Linux's `tcp_frto` 2); the undos Linux makes before the
//! reduction's end (`tcp_try_undo_dsack` during recovery, `tcp_try_undo_partial`,
//! `tcp_try_undo_loss` on the first ACK after an RTO, which also unmark the losses): here
//! such a reduction is undone when it ends; the millisecond granularity of the timestamp
//! echo; and Linux's rule for which ACKs re-arm the RTO (`FLAG_SET_XMIT_TIMER`; here every
//! ACK that delivers).

use super::super::{Ftp, TcpState};
use super::cwnd_use::CwndUse;
use super::pacing::LinuxPacing;
use super::prr::{Bound, Prr};
use super::rack::{Rack, TlpEnd};
use super::rate::{RateEstimator, TxState};
use super::rtt::AckTiming;
use super::sack::{NextSeg, Rule, SackScoreboard};
use super::undo::Undo;
use crate::packet::tcp_header::{SYN_BYTES, TH_ACK, TH_SYN};
use crate::packet::{flags, Kind, Packet};
use crate::port::{Endpoint, Port, TimerKind};
use crate::scenario::{ModernConfig, TcpConfig, TcpVariant};
use std::collections::VecDeque;
use tcplab_cc::{
    AckSample, Bbr, BbrConfig, CaState, CongestionControl, Controller, Cubic, CubicConfig, Dctcp, DctcpConfig, Event,
    Flight, Reno, Rto,
};
use tcplab_des::Timer;

/// What the retransmission timer is armed for (Linux's `icsk_pending`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Armed {
    Rto,
    /// TLP's probe timeout (RFC 8985 §7.2).
    Probe,
    /// RACK's reordering timer (§6.2 step 5).
    Reorder,
}

/// Where the connection is (RFC 793 §3.2's states on the sending side).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Connection {
    Closed,
    SynSent,
    Established,
}

pub struct ModernSender {
    ep: Endpoint,
    cc: Controller,
    rto: Rto,
    timer: Timer,
    armed: Armed,
    pace_timer: Timer,
    cfg: ModernConfig,
    connection: Connection,

    payload: u32,
    header: u32,
    initial_window: f64,
    /// The receiver's window, in segments.
    rwnd: f64,
    ecn: bool,

    sb: SackScoreboard,
    rack: Rack,
    rate: RateEstimator,
    /// What each segment from `tx_base` to the highest sent remembers from its last send.
    tx: VecDeque<TxState>,
    tx_base: i64,
    pacing: LinuxPacing,

    state: CaState,
    /// PRR during a reduction, and the window it gives (Linux sets cwnd itself).
    prr: Option<Prr>,
    prr_cwnd: f64,
    /// The reduction (recovery, CWR or RTO recovery) ends when the cumulative ACK passes this.
    high_seq: i64,
    /// Set CWR on the next new segment (RFC 3168 §6.1.2).
    cwr: bool,
    /// Whether the window was used lately (Linux's `tcp_is_cwnd_limited`).
    cwnd_use: CwndUse,
    /// When the first SYN went, and how many times it went again.
    first_syn: Option<f64>,
    syn_retransmissions: u32,
    /// Whether the last recovery or RTO proved spurious.
    undo: Undo,
    /// Segments marked lost in all.
    lost: u64,
    /// The application has handed over segments below this one.
    curseq: i64,
    last_send: f64,
    traced: (f64, i64),
    /// The newest timestamp of the receiver's, echoed on data (RFC 7323's TS.Recent).
    ts_recent: f64,
}

impl ModernSender {
    pub fn new(cfg: &TcpConfig, ep: Endpoint) -> ModernSender {
        let p = &cfg.params;
        let modern = cfg.modern.clone().unwrap_or_default();
        let initial = p.initial_window();
        let cc = match cfg.variant {
            TcpVariant::Cubic => Controller::Cubic(Cubic::new(
                CubicConfig { paced: modern.fq_pacing, ..CubicConfig::default() },
                initial,
            )),
            TcpVariant::Bbr => {
                Controller::Bbr(Bbr::new(BbrConfig { mss: p.packet_size, seed: modern.seed.unwrap_or(1) }, initial))
            }
            TcpVariant::Dctcp => Controller::Dctcp(Dctcp::new(DctcpConfig::default(), initial)),
            _ => Controller::Reno(Reno::new(initial)),
        };
        let dupthresh = p.numdupacks.max(1);
        let mut rack = Rack::new(dupthresh, 0.2);
        rack.pto_slack = 0.002; // Linux's TCP_TIMEOUT_MIN
        ModernSender {
            ep,
            cc,
            rto: Rto::new(p.rtxcur_init, p.minrto, p.maxrto),
            timer: Timer::default(),
            armed: Armed::Rto,
            pace_timer: Timer::default(),
            payload: p.packet_size,
            header: p.tcpip_base_hdr_size,
            initial_window: initial,
            rwnd: p.window as f64,
            ecn: p.ecn,
            sb: SackScoreboard::new(dupthresh),
            rack,
            rate: RateEstimator::new(),
            tx: VecDeque::new(),
            tx_base: 0,
            pacing: LinuxPacing::default(),
            connection: if modern.handshake { Connection::Closed } else { Connection::Established },
            cfg: modern,
            state: CaState::Open,
            prr: None,
            prr_cwnd: 0.0,
            high_seq: -1,
            cwr: false,
            cwnd_use: CwndUse::default(),
            first_syn: None,
            syn_retransmissions: 0,
            undo: Undo::default(),
            lost: 0,
            curseq: 0,
            last_send: 0.0,
            traced: (f64::NAN, 0),
            ts_recent: 0.0,
        }
    }

    fn srtt(&self) -> Option<f64> {
        Some(self.rto.srtt()).filter(|&s| s > 0.0)
    }

    /// RACK's cap on the reordering window: SRTT, none before the first sample.
    fn reo_wnd_cap(&self) -> f64 {
        self.srtt().unwrap_or(f64::INFINITY)
    }

    /// The congestion window in segments (Linux's `tcp_snd_cwnd`): PRR's during a reduction it
    /// owns, else the controller's.
    fn snd_cwnd(&self) -> f64 {
        match self.prr {
            Some(_) if !self.cc.sets_cwnd_on_every_ack() => self.prr_cwnd,
            _ => self.cc.cwnd(),
        }
    }

    /// The window the sender may fill: the congestion window within the receiver's.
    fn cwnd(&self) -> f64 {
        self.snd_cwnd().min(self.rwnd)
    }

    /// Linux's `tcp_is_cwnd_limited`, for a window step.
    fn cwnd_limited(&self) -> bool {
        self.cwnd_use.is_limited(self.snd_cwnd(), self.cc.ssthresh())
    }

    fn snd_una(&self) -> i64 {
        self.sb.high_ack() + 1
    }

    fn snd_nxt(&self) -> i64 {
        self.sb.high_data() + 1
    }

    fn outstanding(&self) -> u64 {
        (self.snd_nxt() - self.snd_una()) as u64
    }

    fn in_flight(&self) -> u64 {
        self.sb.pipe().max(0) as u64
    }

    /// The pacing rate in bytes per second, if this flow is paced.
    fn pacing_rate(&self) -> Option<f64> {
        let wire = (self.payload + self.header) as f64;
        match self.cc.pacing_rate() {
            Some(rate) => Some(rate * wire),
            None if self.cfg.fq_pacing => {
                let (cwnd, ssthresh) = (self.cwnd(), self.cc.ssthresh());
                self.pacing.rate(self.payload + self.header, cwnd, self.outstanding(), ssthresh, self.srtt())
            }
            None => None,
        }
    }

    pub fn trace_cwnd(&mut self, net: &mut impl Port) {
        let now = (self.cwnd(), self.cc.ssthresh().min(self.rwnd) as i64);
        if now != self.traced {
            net.trace_cwnd(&self.ep, now.0, now.1);
        }
        self.traced = now;
    }

    // ----- sending -----

    /// Sends what the window, the pacing and NextSeg allow (Linux's `tcp_xmit_retransmit_queue`
    /// and `tcp_write_xmit`).
    fn send_much(&mut self, net: &mut impl Port) {
        match self.connection {
            Connection::Established => {}
            Connection::Closed if self.curseq > self.snd_nxt() => return self.send_syn(net),
            Connection::Closed | Connection::SynSent => return,
        }
        let now = net.now_secs();
        let recovering = matches!(self.state, CaState::Recovery | CaState::Loss);
        let had_unsent = self.snd_nxt() < self.curseq;
        let mut sent_new = 0;
        loop {
            let new_data = self.snd_nxt() < self.curseq && ((self.snd_nxt() - self.snd_una()) as f64) < self.rwnd;
            let next = if recovering {
                self.sb.next_seg(new_data)
            } else {
                new_data.then(|| NextSeg { seq: self.snd_nxt(), rule: Rule::NewData })
            };
            let Some(next) = next else {
                if self.snd_nxt() >= self.curseq {
                    let (flight, cwnd) = (self.in_flight(), self.cwnd() as u64);
                    self.rate.check_app_limited(false, flight, cwnd, self.sb.lost_unretransmitted());
                }
                break;
            };
            if self.in_flight() as f64 >= self.cwnd().floor().max(1.0) {
                break;
            }
            if self.pacing_rate().is_some() && self.pacing.earliest_departure() > now {
                let delay = self.pacing.earliest_departure() - now;
                net.arm(&mut self.pace_timer, self.ep.flow, TimerKind::Pace, delay);
                break;
            }
            sent_new += u32::from(next.rule == Rule::NewData);
            self.output(net, next);
        }
        // tcp_write_xmit's end: a round that had new data to send records whether the window
        // limited it, if it sent some or the window stopped it (tcp_cwnd_validate).
        let limited = self.in_flight() as f64 >= self.snd_cwnd().floor().max(1.0);
        if had_unsent && (sent_new > 0 || limited) {
            self.cwnd_use.on_write(limited, self.snd_una(), self.snd_nxt());
        }
        if self.outstanding() > 0 && !self.timer.pending() {
            self.rearm(net);
        }
    }

    /// The SYN, stamped for its RTT sample, with the RTO armed behind it.
    fn send_syn(&mut self, net: &mut impl Port) {
        self.connection = Connection::SynSent;
        self.ep.send(net, Kind::Tcp, |p| (p.size, p.payload, p.seq, p.tcp_flags) = (SYN_BYTES, 0, -1, TH_SYN));
        self.last_send = net.now_secs();
        self.first_syn.get_or_insert(self.last_send);
        self.armed = Armed::Rto;
        net.arm(&mut self.timer, self.ep.flow, TimerKind::Rtx, self.rto.rto());
    }

    /// The SYN-ACK: its echo times the SYN (RFC 7323 §4.1: the echo of the SYN that got
    /// through, a retransmitted one too); Linux initialises the controller with it and the
    /// initial window (`tcp_init_transfer`), ACKs, and the data follows at once.
    fn on_syn_ack(&mut self, net: &mut impl Port, synack: &Packet) {
        let now = net.now_secs();
        self.ts_recent = synack.ts;
        let rtt = now - synack.ts_echo;
        self.take_rtt_sample(net, rtt);
        let cwnd = self.window_after_handshake(synack.ts_echo);
        self.cc.on_event(now, Event::Established { rtt, cwnd }, self.flight());
        self.connection = Connection::Established;
        net.cancel(&mut self.timer, self.ep.flow, TimerKind::Rtx);
        let header = self.header;
        self.ep.send(net, Kind::Tcp, |p| (p.size, p.payload, p.seq, p.tcp_flags) = (header, 0, 0, TH_ACK));
        self.trace_cwnd(net);
        self.send_much(net);
    }

    /// Linux's `tcp_init_transfer`: one segment if the SYN went more than twice (RFC 6298
    /// §5.7's window of one after a lost SYN, relaxed by Linux for its 1 s initial RTO to two
    /// retransmissions), unless the SYN-ACK echoes the first SYN's stamp: then the SYN was not
    /// lost and the timeouts were spurious (`tcp_try_undo_spurious_syn`). Else the initial
    /// window.
    fn window_after_handshake(&self, ts_echo: f64) -> f64 {
        let spurious = self.first_syn == Some(ts_echo);
        if self.syn_retransmissions > 1 && !spurious {
            1.0
        } else {
            self.initial_window
        }
    }

    fn take_rtt_sample(&mut self, net: &mut impl Port, rtt: f64) {
        let now = net.now_secs();
        self.rto.on_sample(rtt);
        net.tracer().rtt_sample(now, self.ep.flow.0, rtt);
        net.flow_stats(self.ep.flow).on_rtt_sample(rtt);
    }

    /// What segment `seq`, outstanding, remembers from its last send.
    fn sent(&self, seq: i64) -> Option<TxState> {
        send_record(&self.tx, self.tx_base, seq).copied()
    }

    fn output(&mut self, net: &mut impl Port, next: NextSeg) {
        let now = net.now_secs();
        let seq = next.seq;
        let new = next.rule == Rule::NewData;
        if new && self.outstanding() == 0 {
            let idle = now - self.last_send;
            let app_limited = self.rate.is_app_limited();
            self.cc.on_event(now, Event::TxStart { idle, app_limited }, self.flight());
            if idle > self.rto.rto() && self.snd_nxt() > 0 {
                let restart = Event::IdleRestart { idle, rto: self.rto.rto(), initial: self.initial_window };
                self.cc.on_event(now, restart, self.flight());
            }
        }
        let mut f = 0;
        if self.ecn && new {
            f |= flags::ECT;
            if self.cwr {
                f |= flags::CWR;
                self.cwr = false;
            }
        }
        let wire = self.payload + self.header;
        let ts_echo = self.ts_recent;
        self.ep.send(net, Kind::Tcp, |p| {
            (p.size, p.payload, p.seq, p.flags, p.ts_echo) = (wire, self.payload, seq, f, ts_echo)
        });
        let state = TxState { retransmitted: !new, ..self.rate.on_sent(now, seq, self.in_flight()) };
        self.sb.on_transmit(next);
        self.rack.on_sent(now, seq);
        let rate = self.pacing_rate();
        self.pacing.on_sent(now, wire, rate);
        match usize::try_from(seq - self.tx_base).ok().filter(|&i| i < self.tx.len()) {
            Some(i) => self.tx[i] = state,
            None => self.tx.push_back(state),
        }
        if let Some(prr) = &mut self.prr {
            prr.on_sent(1);
        }
        if !new {
            net.flow_stats(self.ep.flow).data_retransmitted += 1;
            self.undo.on_retransmit(now);
        }
        self.last_send = now;
    }

    fn flight(&self) -> Flight {
        Flight { outstanding: self.outstanding() as f64, in_flight: self.in_flight() as f64, lost: self.lost }
    }

    /// One timer for three roles: RACK's reordering timer while a segment waits in the
    /// reordering window, TLP's probe timeout when a probe may go, else the RTO.
    fn rearm(&mut self, net: &mut impl Port) {
        if self.outstanding() == 0 {
            net.cancel(&mut self.timer, self.ep.flow, TimerKind::Rtx);
            return;
        }
        let now = net.now_secs();
        let in_recovery = self.state >= CaState::Recovery;
        let (armed, delay) = match self.rack.reorder_wait(now, self.reo_wnd_cap(), in_recovery) {
            Some(wait) if self.cfg.rack => (Armed::Reorder, wait),
            _ if self.cfg.tlp && self.state == CaState::Open && self.rack.may_probe(false) && self.srtt().is_some() => {
                (Armed::Probe, self.rack.pto(self.srtt(), self.in_flight(), self.rto.rto()))
            }
            _ => (Armed::Rto, self.rto.rto()),
        };
        self.armed = armed;
        net.arm(&mut self.timer, self.ep.flow, TimerKind::Rtx, delay);
    }

    // ----- ACKs -----

    pub fn recv(&mut self, net: &mut impl Port, ack: &Packet) {
        if self.connection != Connection::Established {
            if self.connection == Connection::SynSent && ack.tcp_flags & TH_SYN != 0 {
                self.on_syn_ack(net, ack);
            }
            return;
        }
        self.ts_recent = self.ts_recent.max(ack.ts);
        let now = net.now_secs();
        let una = ack.seq + 1;
        let prior_una = self.snd_una();
        if una < prior_una || una > self.snd_nxt() {
            return;
        }
        let prior_in_flight = self.in_flight();
        let blocks = ack.sack_blocks();
        let update = self.sb.on_ack(una, &blocks);
        let acked = (una - prior_una) as u64;
        let snd_nxt = self.snd_nxt();
        self.rack.on_ack(now, una, self.sb.newly_delivered(), Some(ack.ts_echo), update.dsack.is_some(), snd_nxt);
        // Each segment's send times its RTT (Linux's tcp_clean_rtx_queue and tcp_sacktag_one);
        // the echo only when they give nothing.
        let mut timing = AckTiming::default();
        let newly = |seq: i64| self.sb.newly_delivered().iter().any(|&(s, e)| s <= seq && seq < e);
        for seq in prior_una..una {
            if let Some(tx) = self.sent(seq) {
                timing.on_acked(tx.sent_time, tx.retransmitted, !newly(seq));
            }
        }
        for seq in self.sb.newly_delivered().iter().flat_map(|&(s, e)| s..e) {
            let Some(tx) = self.sent(seq) else { continue };
            if seq >= una {
                timing.on_sacked(tx.sent_time, tx.retransmitted);
            }
            self.rate.on_delivered(&tx);
        }
        let echo = Some(ack.ts_echo).filter(|t| !t.is_nan()); // NaN: the receiver does not stamp
        let rtt = timing.samples(now, acked > 0, echo);
        if let Some(sample) = rtt.srtt {
            self.take_rtt_sample(net, sample);
        }
        if let Some((start, end)) = update.dsack {
            // the send records borrowed beside the undo state: no copy per D-SACK
            let (tx, base) = (&self.tx, self.tx_base);
            let retransmitted = |seq| seq < prior_una || send_record(tx, base, seq).is_some_and(|t| t.retransmitted);
            self.undo.on_dsack(start, end, retransmitted);
        }
        let drop = ((una - self.tx_base).max(0) as usize).min(self.tx.len());
        self.tx.drain(..drop);
        self.tx_base = self.tx_base.max(una);

        let pure_dupack = acked == 0 && blocks.is_empty();
        if let Some(end) = self.rack.on_ack_tlp(una, update.dsack, pure_dupack) {
            if end == TlpEnd::LossRepaired && self.state == CaState::Open {
                // RFC 8985 §7.4.2: the probe repaired a loss; reduce as for one.
                self.cc.on_event(now, Event::EnterCwr, self.flight());
                self.cc.on_event(now, Event::EndReduction, self.flight());
            }
        }
        let mut losses = 0;
        if self.cfg.rack {
            let (lost, _) = self.rack.detect_loss(now, self.reo_wnd_cap(), self.state >= CaState::Recovery);
            losses = self.mark_lost(&lost);
        }
        let delivered = update.delivered_segments as u64;
        let ece = self.ecn && ack.has(flags::ECN_ECHO);
        let rs = self.rate.on_ack(now, losses, prior_in_flight, rtt.ca, self.rack.min_rtt());
        let mut sample = AckSample {
            now,
            rate: rs,
            acked,
            ece_delivered: if ece { delivered } else { 0 },
            delivered: self.rate.delivered(),
            lost: self.lost,
            snd_una: una as u64,
            snd_nxt: self.snd_nxt() as u64,
            in_flight: self.in_flight(),
            srtt: self.srtt(),
            state: self.state,
            cwnd_limited: self.cwnd_limited(),
        };
        self.cc.on_ack_sample(&sample);

        // The state changes (Linux's tcp_fastretrans_alert). An ECN echo forbids undoing.
        if ece {
            self.undo.forget();
        }
        if self.state == CaState::Open {
            self.undo.on_open();
        }
        if self.state != CaState::Open && una > self.high_seq {
            // tcp_try_undo_recovery: a recovery or RTO that proved spurious is undone at its
            // end, else the reduction ends at the controller's ssthresh.
            if self.state >= CaState::Recovery && self.undo.may_undo(echo) {
                self.undo_reduction(now);
            } else {
                if self.state.reducing() {
                    self.cc.on_event(now, Event::EndReduction, self.flight());
                }
                if self.state >= CaState::Recovery {
                    self.rack.on_recovery_exit();
                }
            }
            self.state = CaState::Open;
            self.prr = None;
            self.sb.set_in_recovery(false);
        } else if self.state == CaState::Open && self.undo.all_dsacked() {
            // tcp_try_undo_dsack on an ACK Linux finds dubious (no cumulative advance, or new
            // SACKs): the last D-SACK of a finished recovery's retransmissions undoes it.
            let sacked = self.sb.newly_delivered().iter().any(|&(_, end)| end > una);
            if acked == 0 || sacked {
                self.undo_reduction(now);
            }
        }
        if self.state < CaState::Recovery && (self.sb.should_enter_recovery() || self.sb.is_lost(una)) {
            self.enter_recovery(net, prior_in_flight);
        } else if ece && self.state == CaState::Open && una > self.high_seq {
            let prior_cwnd = self.cwnd();
            self.undo.forget();
            self.cc.on_event(now, Event::EnterCwr, self.flight());
            self.start_reduction(CaState::Cwr, prior_cwnd);
            self.cwr = true;
        }
        if let Some(prr) = &mut self.prr {
            let safe = acked > 0 && losses == 0;
            if let Some(sndcnt) = prr.on_ack(delivered, self.sb.pipe().max(0) as u64, safe) {
                self.prr_cwnd = (self.sb.pipe() + sndcnt).max(0) as f64;
            }
        }
        sample.state = self.state;
        sample.in_flight = self.in_flight();
        sample.cwnd_limited = self.cwnd_limited();
        self.cc.cong_control(&sample);
        if let Some(until) = self.cc.app_limited_until() {
            self.rate.mark_app_limited_until(until);
        }
        if self.state == CaState::Recovery && self.prr.as_ref().is_some_and(|p| p.prr_out() == 0) {
            // §5 step 4: the first retransmission goes now.
            let first = self.sb.enter_recovery();
            self.output(net, NextSeg { seq: first, rule: Rule::Lost });
        }
        self.trace_cwnd(net);
        self.send_much(net);
        if delivered > 0 || self.armed == Armed::Reorder {
            self.rearm(net);
        }
    }

    /// Linux's `tcp_undo_cwnd_reduction`: the controller restores the window it had.
    fn undo_reduction(&mut self, now: f64) {
        self.cc.on_event(now, Event::Undo, self.flight());
        self.undo.undone();
    }

    /// Retransmissions sent and neither delivered nor lost since (Linux's `retrans_out`).
    fn retransmissions_out(&self) -> u64 {
        let out = |&seq: &i64| {
            self.sent(seq).is_some_and(|tx| tx.retransmitted) && !self.sb.is_sacked(seq) && !self.sb.is_lost(seq)
        };
        (self.snd_una()..self.snd_nxt()).filter(out).count() as u64
    }

    /// Marks `lost` in the scoreboard; how many were new.
    fn mark_lost(&mut self, lost: &[i64]) -> u64 {
        for &seq in lost {
            self.sb.mark_lost(seq);
        }
        self.lost += lost.len() as u64;
        lost.len() as u64
    }

    /// PRR glides from `prior_cwnd` (RecoverFS, Linux's `prior_cwnd`) to the controller's
    /// new ssthresh.
    fn start_reduction(&mut self, state: CaState, prior_cwnd: f64) {
        let ssthresh = self.cc.ssthresh().min(self.rwnd).max(1.0);
        let prior_cwnd = prior_cwnd.max(1.0);
        self.prr = Some(Prr::start(prior_cwnd as u64, ssthresh as u64, Bound::SlowStart));
        self.prr_cwnd = prior_cwnd;
        self.high_seq = self.sb.high_data();
        self.state = state;
    }

    /// RFC 6675 §5 step 4 with PRR; a recovery that begins in a CWR keeps its ssthresh.
    fn enter_recovery(&mut self, net: &mut impl Port, _prior_in_flight: u64) {
        let now = net.now_secs();
        let prior_cwnd = self.cwnd();
        if self.state != CaState::Cwr {
            self.cc.on_event(now, Event::EnterRecovery, self.flight());
        }
        self.undo.start(self.snd_una(), self.retransmissions_out());
        self.start_reduction(CaState::Recovery, prior_cwnd);
        self.rack.end_probe_episode();
    }

    // ----- timers -----

    pub fn on_timer(&mut self, net: &mut impl Port, gen: u32) {
        if !net.fire(&mut self.timer, self.ep.flow, TimerKind::Rtx, gen) {
            return;
        }
        if self.connection == Connection::SynSent {
            // RFC 6298 §5.5-5.6: back off, and the SYN goes again
            self.rto.back_off();
            self.syn_retransmissions += 1;
            return self.send_syn(net);
        }
        if self.outstanding() == 0 {
            return;
        }
        let now = net.now_secs();
        match self.armed {
            Armed::Reorder => {
                let (lost, _) = self.rack.detect_loss(now, self.reo_wnd_cap(), self.state >= CaState::Recovery);
                self.mark_lost(&lost);
                if self.state < CaState::Recovery && self.sb.is_lost(self.snd_una()) {
                    let flight = self.in_flight();
                    self.enter_recovery(net, flight);
                    let first = self.sb.enter_recovery();
                    self.output(net, NextSeg { seq: first, rule: Rule::Lost });
                }
            }
            Armed::Probe => {
                let new_data = self.snd_nxt() < self.curseq;
                let probe = Rack::probe(new_data, self.snd_nxt());
                let rule = if probe.retransmission { Rule::Hole } else { Rule::NewData };
                self.output(net, NextSeg { seq: probe.seq, rule });
                self.rack.on_probe_sent(probe, self.snd_nxt());
                self.armed = Armed::Rto;
                net.arm(&mut self.timer, self.ep.flow, TimerKind::Rtx, self.rto.rto());
                return;
            }
            Armed::Rto => self.on_rto(net),
        }
        self.trace_cwnd(net);
        self.send_much(net);
        self.rearm(net);
    }

    /// RFC 6298 §5.5-5.7 and RFC 6675 §5.1, as Linux's `tcp_enter_loss`: every segment not
    /// SACKed is lost, the controller sets cwnd to what is in flight plus one, and recovery
    /// retransmits from the first unacknowledged segment.
    fn on_rto(&mut self, net: &mut impl Port) {
        let now = net.now_secs();
        let new_reduction = self.state <= CaState::Disorder || self.state == CaState::Loss;
        self.sb.on_timeout();
        let lost = self.rack.on_timeout(now, self.reo_wnd_cap());
        self.mark_lost(&lost);
        for seq in self.snd_una()..self.snd_nxt() {
            self.sb.mark_lost(seq);
        }
        self.cc.on_event(now, Event::Rto { new_reduction }, self.flight());
        if new_reduction {
            // Linux's tcp_enter_loss, after marking every segment lost: none in flight
            self.undo.start(self.snd_una(), 0);
        }
        self.rto.back_off();
        self.rack.end_probe_episode();
        self.prr = None;
        self.state = CaState::Loss;
        self.high_seq = self.sb.high_data();
        self.armed = Armed::Rto;
    }

    pub fn on_pace_timer(&mut self, net: &mut impl Port, gen: u32) {
        if net.fire(&mut self.pace_timer, self.ep.flow, TimerKind::Pace, gen) {
            self.send_much(net);
        }
    }
}

/// What segment `seq` remembers from its last send, `tx` holding the records from `base` on.
fn send_record(tx: &VecDeque<TxState>, base: i64, seq: i64) -> Option<&TxState> {
    usize::try_from(seq - base).ok().and_then(|i| tx.get(i))
}

impl<P: Port> Ftp<P> for ModernSender {
    fn send_unlimited(&mut self, net: &mut P) {
        self.curseq = i64::MAX / 2;
        self.send_much(net);
    }

    fn advance(&mut self, net: &mut P, n: i64) {
        self.curseq = n.max(self.snd_nxt());
        self.send_much(net);
    }

    fn advance_by(&mut self, net: &mut P, n: i64) {
        self.curseq = self.curseq.max(self.snd_nxt()) + n;
        self.send_much(net);
    }

    fn stop(&mut self, net: &mut P) {
        self.advance(net, 0);
    }

    fn state(&self) -> TcpState {
        TcpState {
            cwnd: self.cwnd(),
            ssthresh: self.cc.ssthresh().min(self.rwnd),
            srtt: self.rto.srtt(),
            in_flight: self.in_flight() as f64,
            pacing_rate: self.pacing_rate().map_or(0.0, |r| r / (self.payload + self.header) as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Profile, SinkConfig, TcpParams};
    use crate::testing::{ack, sender_end, FakePort};

    /// A modern sender of `variant` with Linux's defaults (initial window 10, 1448 + 52 B),
    /// `segments` to send from time 0, RACK on or off, no handshake (data from time 0).
    fn start(variant: TcpVariant, rack: bool, segments: i64) -> (ModernSender, FakePort) {
        opened(variant, ModernConfig { rack, handshake: false, ..ModernConfig::default() }, segments)
    }

    /// A modern sender of `variant` with `modern`'s switches, `segments` to send from time 0.
    fn opened(variant: TcpVariant, modern: ModernConfig, segments: i64) -> (ModernSender, FakePort) {
        let sink = SinkConfig {
            sack: true,
            delack: None,
            syn_immediate_ack: true,
            rfc2581_immediate_ack: true,
            ts_echo_rfc1323: false,
            ecn_syn: false,
        };
        let cfg = TcpConfig {
            variant,
            profile: Profile::Rfc,
            sink,
            params: TcpParams::linux(),
            vegas: None,
            fast: None,
            pacing: None,
            full: None,
            receiver: None,
            modern: Some(modern),
        };
        let mut net = FakePort::default();
        let mut s = ModernSender::new(&cfg, sender_end());
        Ftp::advance(&mut s, &mut net, segments);
        (s, net)
    }

    /// The segments sent in answer to an ACK at `t` of everything below `una` with `sack`
    /// blocks, echoing time 0.
    fn ack_at(s: &mut ModernSender, net: &mut FakePort, t: f64, una: i64, sack: &[(i64, i64)]) -> Vec<i64> {
        net.set_now(t);
        let from = net.sent.len();
        s.recv(net, &ack(una - 1, 0.0, sack));
        net.seqs_since(from)
    }

    /// The SYN-ACK of the SYN sent at `ts`, arriving at `t`.
    fn syn_ack(s: &mut ModernSender, net: &mut FakePort, t: f64, ts: f64) {
        net.set_now(t);
        let mut synack = ack(-1, ts, &[]);
        (synack.size, synack.tcp_flags) = (SYN_BYTES, TH_SYN | TH_ACK);
        s.recv(net, &synack);
    }

    /// The handshake: at 0 a SYN of 60 bytes (seq -1, before the data's 0) and nothing else,
    /// the RTO armed at the initial 1 s. A plain ACK meanwhile is ignored. The SYN-ACK at 0.04
    /// echoing 0 is the first RTT sample, 0.04: SRTT 0.04, RTTVAR 0.02, RTO max(0.04 + 4 x
    /// 0.02, 0.2) = 0.2; then the ACK (52 bytes, no payload) and the initial window 0..9,
    /// under TLP's probe timeout now that there is an SRTT.
    #[test]
    fn the_handshake_comes_before_the_data_and_times_the_first_rtt() {
        let (mut s, mut net) = opened(TcpVariant::Reno, ModernConfig::default(), 100);
        assert_eq!(net.sent.len(), 1);
        let syn = net.sent[0];
        assert_eq!((syn.kind, syn.size, syn.payload, syn.seq, syn.tcp_flags), (Kind::Tcp, 60, 0, -1, TH_SYN));
        assert_eq!(net.deadline(TimerKind::Rtx), Some(1.0));
        ack_at(&mut s, &mut net, 0.02, 0, &[]);
        assert_eq!(net.sent.len(), 1, "no data before the SYN-ACK");
        syn_ack(&mut s, &mut net, 0.04, 0.0);
        let last_ack = net.sent[1];
        assert_eq!((last_ack.size, last_ack.payload, last_ack.tcp_flags), (52, 0, TH_ACK));
        assert_eq!(net.seqs_since(2), (0..10).collect::<Vec<_>>());
        assert_eq!((s.rto.srtt(), s.rto.rto()), (0.04, 0.2));
        // with an SRTT, TLP's probe timeout guards the data: 2 SRTT + 2 ms, due at 0.122
        assert_eq!(s.armed, Armed::Probe);
        assert!((net.deadline(TimerKind::Rtx).unwrap() - 0.122).abs() < 1e-12);
    }

    /// A lost SYN: the RTO fires at 1 s and the SYN goes again, the RTO doubled behind it (2 s:
    /// due at 3). Its SYN-ACK at 1.05 echoes the second SYN's stamp, 1: the sample is 0.05.
    #[test]
    fn a_lost_syn_goes_again_after_the_initial_rto() {
        let (mut s, mut net) = opened(TcpVariant::Cubic, ModernConfig::default(), 100);
        let fired = net.expire(|net, _, gen| s.on_timer(net, gen));
        assert_eq!(fired, Some((TimerKind::Rtx, 1.0)));
        assert_eq!(net.sent.len(), 2);
        assert_eq!((net.sent[1].tcp_flags, net.sent[1].ts), (TH_SYN, 1.0));
        assert_eq!(net.deadline(TimerKind::Rtx), Some(3.0));
        syn_ack(&mut s, &mut net, 1.05, 1.0);
        assert!((s.rto.srtt() - 0.05).abs() < 1e-12);
        assert_eq!(net.seqs_since(3), (0..10).collect::<Vec<_>>());
    }

    /// Linux's window after lost SYNs: SYNs at 0, 1 (the RTO of 1 s) and 3 (doubled to 2 s),
    /// two retransmissions. A SYN-ACK at 3.05 echoing the third SYN's stamp, 3: the window
    /// starts at 1, and only segment 0 goes. One echoing the first SYN's stamp, 0: that SYN
    /// got through and the SYN-ACK was slow (the timeouts were spurious): the initial window
    /// 0..9 goes. After one retransmission only, see `a_lost_syn_goes_again_after_the_initial_rto`.
    #[test]
    fn two_syn_retransmissions_start_the_window_at_one_segment() {
        for (echo, window) in [(3.0, vec![0]), (0.0, (0..10).collect())] {
            let (mut s, mut net) = opened(TcpVariant::Cubic, ModernConfig::default(), 100);
            assert_eq!(net.expire(|net, _, gen| s.on_timer(net, gen)), Some((TimerKind::Rtx, 1.0)));
            assert_eq!(net.expire(|net, _, gen| s.on_timer(net, gen)), Some((TimerKind::Rtx, 3.0)));
            assert_eq!(net.sent.iter().map(|p| p.ts).collect::<Vec<_>>(), vec![0.0, 1.0, 3.0]);
            syn_ack(&mut s, &mut net, 3.05, echo);
            assert_eq!(net.seqs_since(4), window, "echo {echo}");
            assert_eq!(s.cc.cwnd(), window.len() as f64);
        }
    }

    /// BBR's min_rtt is the handshake's, and its first pacing rate the initial window over it.
    #[test]
    fn bbr_starts_from_the_handshake_rtt() {
        let (mut s, mut net) = opened(TcpVariant::Bbr, ModernConfig::default(), 100);
        syn_ack(&mut s, &mut net, 0.04, 0.0);
        let Controller::Bbr(bbr) = &s.cc else { panic!("a BBR sender") };
        assert_eq!(bbr.min_rtt(), 0.04);
        // 10 segments / 0.04 s x 739/256 x 0.99 = 714.462890625 segments/s
        assert!((s.cc.pacing_rate().unwrap() - 714.462890625).abs() < 1e-9);
    }

    /// RFC 6675 with PRR, segment 0 of the initial window 0..9 lost, RACK off. The SACKs of 1
    /// and 2 take them out of the pipe (9 left, cwnd 10): new segments 10 and 11 go, as in
    /// Linux. The SACK of 3 makes three SACKed segments above 0: recovery at HighData 11,
    /// Reno's ssthresh 10/2 = 5, RecoverFS = the cwnd before, 10. Pipe is 4..11 = 8 > 5:
    /// sndcnt = ceil(1 x 5/10) - 0 = 1, the retransmission of 0 (pipe 9). SACK of 4: pipe
    /// 5..11 + the retransmitted 0 = 8, ceil(2 x 5/10) - 1 = 0. SACK of 5: pipe 7,
    /// ceil(3 x 5/10) - 1 = 1: new segment 12 (NextSeg's rule 2, no hole left). SACK of 6:
    /// pipe 7, ceil(4 x 5/10) - 2 = 0. The ACK of 0..12, echoing the retransmission of 0 (sent
    /// at 0.104), passes the recovery point 11: the reduction is over at Reno's ssthresh 5.
    #[test]
    fn a_loss_repaired_by_rfc_6675_with_the_window_prr_gives() {
        let (mut s, mut net) = start(TcpVariant::Reno, false, 100);
        assert_eq!(net.seqs_since(0), (0..10).collect::<Vec<_>>());
        assert!(net.sent.iter().all(|p| p.size == 1500 && p.payload == 1448));
        let sent: Vec<Vec<i64>> =
            (2..8).map(|end| ack_at(&mut s, &mut net, 0.1 + end as f64 * 1e-3, 0, &[(1, end)])).collect();
        assert_eq!(sent, vec![vec![10], vec![11], vec![0], vec![], vec![12], vec![]]);
        assert_eq!((s.state, s.high_seq), (CaState::Recovery, 11));
        assert_eq!((s.cwnd(), s.cc.ssthresh()), (7.0, 5.0), "pipe 7 + sndcnt 0");
        net.set_now(0.2);
        s.recv(&mut net, &ack(12, 0.1 + 4.0 * 1e-3, &[]));
        assert_eq!((s.state, s.cc.ssthresh()), (CaState::Open, 5.0));
        assert_eq!(net.stats[0].data_retransmitted, 1);
    }

    /// RACK finds a loss by time: 0..9 sent at 0, 0 lost; the ACK at 0.1 SACKing 1 (RACK.rtt
    /// = min_RTT = 0.1, reo_wnd = min_RTT/4 = 0.025) leaves 0 waiting 0 + 0.1 + 0.025 - 0.1
    /// = 0.025 s: the reordering timer, which at 0.125 marks 0 lost with one SACK only (below
    /// DupThresh) and retransmits it.
    #[test]
    fn rack_detects_a_loss_by_time() {
        let (mut s, mut net) = start(TcpVariant::Reno, true, 10);
        assert_eq!(ack_at(&mut s, &mut net, 0.1, 0, &[(1, 2)]), Vec::<i64>::new());
        assert_eq!((s.armed, net.deadline(TimerKind::Rtx)), (Armed::Reorder, Some(0.125)));
        let from = net.sent.len();
        let fired = net.expire(|net, _, gen| s.on_timer(net, gen));
        assert_eq!(fired.map(|f| f.1), Some(0.125));
        assert_eq!(net.seqs_since(from), vec![0]);
        assert_eq!(s.state, CaState::Recovery);
    }

    /// TLP on a tail loss: 0..9 sent at 0, 8 and 9 lost. The ACK of 0..7 at 0.1 gives SRTT
    /// 0.1 and RTTVAR 0.05: RTO max(0.1 + 4 x 0.05, 0.2) = 0.3; with 2 in flight the PTO is
    /// 2 SRTT + 2 ms = 0.202, sooner. At 0.302 the probe retransmits the highest segment, 9
    /// (no new data), and the RTO is armed behind it: 0.602.
    #[test]
    fn a_tail_loss_probe_fires() {
        let (mut s, mut net) = start(TcpVariant::Cubic, true, 10);
        ack_at(&mut s, &mut net, 0.1, 8, &[]);
        assert_eq!(s.armed, Armed::Probe);
        assert!((net.deadline(TimerKind::Rtx).unwrap() - 0.302).abs() < 1e-12);
        let from = net.sent.len();
        net.expire(|net, _, gen| s.on_timer(net, gen));
        assert_eq!(net.seqs_since(from), vec![9]);
        assert!((net.deadline(TimerKind::Rtx).unwrap() - 0.602).abs() < 1e-12);
        assert_eq!(s.armed, Armed::Rto);
    }

    /// A SACK-only ACK is an RTT sample (Linux's sack_rtt): 0..9 sent at 0, the SACK of 1 at
    /// 0.1 gives SRTT 0.1 and RTTVAR 0.05, RTO max(0.1 + 4 x 0.05, 0.2) = 0.3, though the
    /// cumulative ACK did not move (the echo alone would give nothing).
    #[test]
    fn a_sack_times_a_segment() {
        let (mut s, mut net) = start(TcpVariant::Reno, false, 10);
        ack_at(&mut s, &mut net, 0.1, 0, &[(1, 2)]);
        assert_eq!((s.rto.srtt(), s.rto.rto()), (0.1, 0.30000000000000004));
    }

    /// A lost retransmission, repaired by RACK before the RTO. 0..9 at 0, 0 lost. The SACK of
    /// 1..3 at 0.1: RACK.rtt 0.1, reo_wnd 0 (three SACKed, no reordering seen), so 0 (sent at
    /// 0) is lost at 0 + 0.1 - 0.1 = 0: recovery, Reno's ssthresh 5, pipe 6 (4..9) > 5: sndcnt
    /// ceil(3 x 5/10) = 2: 0 again and new 10, both at 0.1. The retransmission is lost too.
    /// The SACK of 1..10 at 0.2 delivers 10, sent at 0.1 after the retransmission (same time,
    /// higher sequence): RACK.rtt 0.2 - 0.1 = 0.1, and 0, sent at 0.1, is lost at 0.1 + 0.1 -
    /// 0.2 = 0. Pipe 0, PRR's bound min(ssthresh 5 - 0, max(10 - 2, 7)) = 5: 0 a third time,
    /// then 11..14, long before the RTO (0.1 + 0.3 = 0.4). With RACK off the same ACKs find 0
    /// lost by DupThresh once; the second leaves it in flight (pipe 1: sndcnt 4, new data only)
    /// until the RTO, as Linux without RACK does.
    #[test]
    fn rack_repairs_a_lost_retransmission_before_the_rto() {
        for (rack, second) in [(true, vec![0, 11, 12, 13, 14]), (false, vec![11, 12, 13, 14])] {
            let (mut s, mut net) = start(TcpVariant::Reno, rack, 100);
            assert_eq!(ack_at(&mut s, &mut net, 0.1, 0, &[(1, 4)]), vec![0, 10], "rack {rack}");
            assert_eq!(ack_at(&mut s, &mut net, 0.2, 0, &[(1, 11)]), second, "rack {rack}");
            assert_eq!(s.state, CaState::Recovery);
            assert_eq!(net.stats[0].data_retransmitted, 1 + u64::from(rack));
        }
    }

    /// A recovery that reordering caused, undone. 0..9 at 0; the SACK of 1..3 at 0.1 starts
    /// recovery (RACK off): Reno's ssthresh 10/2 = 5, PRR sends 0 again and 10 (as in
    /// `rack_repairs_a_lost_retransmission_before_the_rto`). The original 0 was only late: the
    /// ACK of 0..9 at 0.11 passes the recovery point 9.
    ///
    /// - Eifel (RFC 3522): that ACK echoes 0's original stamp 0, before the retransmission at
    ///   0.1: spurious. Reno's window comes back, cwnd 10 and ssthresh as before (none,
    ///   infinite), and slow start adds the 7 segments the ACK delivered (0, 4..9): 17.
    /// - Echoing the retransmission's stamp 0.1 instead, the reduction ends at ssthresh 5, and
    ///   congestion avoidance counts the 7 delivered against cwnd 5: 6. The D-SACK of 0 (the
    ///   retransmission arrived too) at 0.12 accounts for the one retransmission: spurious
    ///   after all, cwnd max(6, 10) = 10 and ssthresh infinite again (Linux's late D-SACK undo).
    #[test]
    fn a_spurious_recovery_is_undone() {
        for (echo, cwnd) in [(0.0, 17.0), (0.1, 6.0)] {
            let (mut s, mut net) = start(TcpVariant::Reno, false, 100);
            assert_eq!(ack_at(&mut s, &mut net, 0.1, 0, &[(1, 4)]), vec![0, 10]);
            assert_eq!((s.state, s.cc.ssthresh()), (CaState::Recovery, 5.0));
            net.set_now(0.11);
            s.recv(&mut net, &ack(9, echo, &[]));
            assert_eq!(s.state, CaState::Open);
            assert_eq!(s.cc.cwnd(), cwnd, "echo {echo}");
            let ssthresh = if echo == 0.0 { f64::INFINITY } else { 5.0 };
            assert_eq!(s.cc.ssthresh(), ssthresh, "echo {echo}");
        }
        let (mut s, mut net) = start(TcpVariant::Reno, false, 100);
        ack_at(&mut s, &mut net, 0.1, 0, &[(1, 4)]);
        net.set_now(0.11);
        s.recv(&mut net, &ack(9, 0.1, &[]));
        net.set_now(0.12);
        s.recv(&mut net, &ack(9, 0.1, &[(0, 1)]));
        assert_eq!((s.cc.cwnd(), s.cc.ssthresh()), (10.0, f64::INFINITY));
    }

    /// BBR paces from the first ACK on: after the initial window (unpaced, as Linux's first
    /// ten segments), each new segment waits wire length / BBR's rate, 1 / pacing_rate()
    /// seconds for a full segment, on the pace timer. The first paced one leaves late (its
    /// departure time was 0, it goes at 0.1), so Linux gives half a gap back: 1 / (2 rate).
    #[test]
    fn bbr_is_paced_at_its_rate() {
        let (mut s, mut net) = start(TcpVariant::Bbr, true, 1000);
        assert_eq!(net.sent.len(), 10);
        let sent = ack_at(&mut s, &mut net, 0.1, 2, &[]);
        let rate = s.cc.pacing_rate().unwrap();
        assert!(rate > 0.0);
        assert_eq!(sent.len(), 1, "one segment, then the pacer holds the next");
        let wait = net.deadline(TimerKind::Pace).unwrap() - 0.1;
        assert!((wait - 0.5 / rate).abs() < 1e-9, "waits {wait}, 1/rate {}", 1.0 / rate);
        assert_eq!(Ftp::<FakePort>::state(&s).pacing_rate, rate);
    }
}
