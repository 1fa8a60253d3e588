//! ns-2.35's two-way TCP (tcp-full.cc): `Agent/TCP/FullTcp`, modelled on BSD Net/3's TCP,
//! and its `Tahoe`, `Newreno` and `Sack` subclasses.
//!
//! A FullTcp flow has one of these agents at each end. Each sends and receives data: the
//! three-way handshake, byte sequence numbers, a reassembly queue, delayed ACKs on a periodic
//! timer, header prediction, Reno-style fast recovery (or Tahoe's slow start, Newreno's
//! partial ACKs, Sack's hole filling by a pipe estimate), and the closing states (no
//! TIME_WAIT, no RST). The window, RTT estimator and cuts are `TcpAgent`'s, which FullTcp
//! inherits: an `Ns2Sender` acting as ns-2's base class holds them (`tcp`), with `t_seqno`,
//! `maxseq`, `highest_ack`, `curseq` and `recover` in bytes, cwnd and ssthresh in segments.
//!
//! `recv` follows ns-2's `FullTcpAgent::recv` step by step; its gotos are the `Go` values
//! the steps return.

use super::{CwndAction, CwndCut, Ns2Sender, Slowdown, TCP_MAXSEQ};
use crate::metrics::TcpState;
use crate::packet::{flags, Kind, Packet, MAX_SACK_BLOCKS};
use crate::port::{End, Endpoint, FullTimer, Port, TimerKind};
use crate::random::Draws;
use crate::scenario::{FullParams, TcpParams, TcpVariant};
use crate::tcp::reassembly::ReassemblyQueue;
use crate::tcp::Ftp;
use tcplab_des::Timer;

use crate::packet::tcp_header::{TH_ACK, TH_CWR, TH_ECE, TH_FIN, TH_PUSH, TH_SYN};

// what the connection owes its next output (`flags_`)
const TF_ACKNOW: u32 = 0x1;
const TF_DELACK: u32 = 0x2;
const TF_NEEDFIN: u32 = 0x800;
const TF_NEEDCLOSE: u32 = 0x10000;

/// The connection's state (`TCPS_*`; no TIME_WAIT in the simulator).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    CloseWait,
    FinWait1,
    Closing,
    LastAck,
    FinWait2,
}

impl State {
    fn has_received_fin(self) -> bool {
        matches!(self, State::Closing | State::Closed | State::CloseWait)
    }

    /// The header flags a segment sent in this state carries (`tcp_outflags`).
    fn out_flags(self) -> u8 {
        match self {
            State::Closed | State::Established | State::CloseWait | State::FinWait2 => TH_ACK,
            State::Listen => 0,
            State::SynSent => TH_SYN,
            State::SynReceived => TH_SYN | TH_ACK,
            State::FinWait1 | State::Closing | State::LastAck => TH_FIN | TH_ACK,
        }
    }
}

/// Why a segment goes out: ns-2 counts those sent on a dupack or a timeout as retransmissions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reason {
    Normal,
    Dupack,
    Timeout,
}

/// Where `recv` goes next (the labels of ns-2's `recv`).
enum Go {
    /// The ACK is new: update the timers and the window (`process_ACK`).
    ProcessAck,
    /// Take in the data and the FIN (`step6`).
    Step6,
    Drop,
    DropAfterAck,
    DropWithReset,
}

/// The arriving segment as `recv` trims it.
struct Segment {
    seqno: i64,
    ackno: i64,
    datalen: i64,
    /// The header's flags as received, and as `recv` still heeds them.
    header_flags: u8,
    tiflags: u8,
    ecn: u8,
    /// Payload bytes as the reassembly queue takes them (one fewer than `datalen` once a SYN
    /// carrying data is trimmed, as ns-2 shrinks the packet and not its count).
    payload: i64,
    ts: f64,
    ts_echo: f64,
    nsack: u8,
    /// Send at the end (ns-2's `needoutput`).
    needoutput: bool,
}

/// What `FullTcp/Sack` keeps beyond FullTcp's state.
struct SackState {
    /// What the peer has SACKed, above `sack_min`.
    sq: ReassemblyQueue,
    sack_min: i64,
    /// The next hole to fill.
    h_seqno: i64,
}

pub struct FullTcp {
    /// The `TcpAgent` this agent is: window, RTT estimator, timer, cuts.
    tcp: Ns2Sender,
    variant: TcpVariant,
    f: FullParams,
    end: End,
    /// `tcp` before listening, `ack` after (ns-2's `type_`): what traces call its packets.
    kind: Kind,
    state: State,
    last_state: State,
    flags: u32,
    iss: i64,
    /// The peer's initial sequence number, and the next byte expected from it.
    irs: i64,
    rcv_nxt: i64,
    last_ack_sent: i64,
    /// The peer's last timestamp, and when it came (RFC 1323).
    recent: f64,
    recent_age: f64,
    /// A CE mark arrived and the peer has not answered with CWR yet.
    recent_ce: bool,
    rq: ReassemblyQueue,
    pipe: i64,
    rtxbytes: i64,
    fastrecov: bool,
    pipectrl: bool,
    last_send_time: f64,
    infinite_send: bool,
    close_on_empty: bool,
    /// The segment size (`maxseg_`, segsize; 0 until the first send when segsize is 0).
    maxseg: i64,
    maxburst: u32,
    /// Newreno: maxburst saved while recovery limits it to recov_maxburst.
    save_maxburst: Option<u32>,
    ecn_syn_next: bool,
    /// The next RTO is the bare RTT estimate (`use_rtt_`): after a marked SYN+ACK with
    /// ecn_syn_wait_ 1, the first data waits about one RTT.
    use_rtt: bool,
    delack_timer: Timer,
    delsnd_timer: Timer,
    sack: Option<SackState>,
    /// Where the clock phase of each reset comes from.
    draws: Draws,
}

impl FullTcp {
    /// An agent as `$ns run` leaves it: reset once (`phase`, a fraction of a tick, drawn
    /// then), listening if `listen`. Its later resets draw from `draws`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        variant: TcpVariant,
        p: TcpParams,
        f: FullParams,
        ep: Endpoint,
        end: End,
        listen: bool,
        phase: f64,
        draws: Draws,
    ) -> FullTcp {
        assert!(variant.is_full());
        // FullTcp always models the SYN exchange (its set_initial_window sets syn_)
        let p = TcpParams { syn: true, ..p };
        let maxburst = p.maxburst;
        let mut a = FullTcp {
            tcp: Ns2Sender::new(TcpVariant::Tahoe, p, None, ep, phase),
            variant,
            end,
            kind: if listen { Kind::Ack } else { Kind::Tcp },
            state: if listen { State::Listen } else { State::Closed },
            last_state: State::Closed,
            flags: 0,
            iss: f.iss as i64,
            irs: -1,
            rcv_nxt: -1,
            last_ack_sent: -1,
            recent: 0.0,
            recent_age: 0.0,
            recent_ce: false,
            rq: ReassemblyQueue::default(),
            pipe: 0,
            rtxbytes: 0,
            fastrecov: false,
            pipectrl: f.pipectrl,
            last_send_time: -1.0,
            infinite_send: false,
            close_on_empty: false,
            maxseg: f.segsize as i64,
            maxburst,
            save_maxburst: None,
            ecn_syn_next: false,
            use_rtt: false,
            delack_timer: Timer::default(),
            delsnd_timer: Timer::default(),
            sack: (variant == TcpVariant::FullSack).then(|| SackState {
                sq: ReassemblyQueue::default(),
                sack_min: -1,
                h_seqno: -1,
            }),
            draws,
            f,
        };
        // the flow's cwnd is its `from` agent's (ns-2 scripts trace the active opener's)
        a.tcp.cwnd_traced = end == End::From;
        a.reset_own();
        a
    }

    /// `size()`: the segment size (segsize), what a Telnet hands it per message.
    pub fn segment_size(&self) -> i64 {
        self.maxseg
    }

    /// Its address: packets to it come here.
    pub fn addr(&self) -> crate::packet::Addr {
        self.tcp.ep.addr
    }

    fn ts_option(&self) -> bool {
        self.tcp.p.timestamps
    }

    fn timer(&self, which: FullTimer) -> TimerKind {
        TimerKind::Full(self.end, which)
    }

    // ----- the application's calls -----

    /// `advance-bytes n`: n bytes more to send; a closed agent opens a new connection.
    pub fn advance_bytes(&mut self, net: &mut impl Port, nb: i64) {
        match self.state {
            State::Closed | State::Listen => {
                self.reset(net);
                self.tcp.curseq = self.iss + nb;
                self.connect(net);
            }
            State::Established | State::SynSent | State::SynReceived => {
                if self.tcp.curseq < self.iss {
                    self.tcp.curseq = self.iss;
                }
                self.tcp.curseq += nb;
            }
            _ => {} // closing: no more data
        }
        if self.state == State::Established {
            self.send_much(net, false, Reason::Normal, self.maxburst);
        }
    }

    /// `advance n` / `advanceby n`: n segments more.
    fn advance_by_segments(&mut self, net: &mut impl Port, mut np: i64) {
        if np >= 0x1000_0000 {
            // a "huge" count means forever: ns-2 divides it down first
            np /= self.maxseg.max(1); // ns-2 divides by a segsize of 0 too, and crashes
        }
        self.advance_bytes(net, np * self.maxseg);
    }

    /// `send n` (an application's `sendmsg`): n bytes, or without end for -1.
    pub fn sendmsg(&mut self, net: &mut impl Port, nbytes: i64) {
        if nbytes == -1 {
            self.infinite_send = true;
            self.advance_bytes(net, 0);
        } else {
            self.advance_bytes(net, nbytes);
        }
    }

    /// `close`: no more data; a FIN follows what is queued.
    pub fn close(&mut self, net: &mut impl Port) {
        self.tcp.curseq = self.tcp.maxseq - 1;
        self.infinite_send = false;
        match self.state {
            State::Closed | State::Listen => {
                self.cancel_timers(net);
                self.state = State::Closed;
            }
            State::SynSent | State::LastAck => {
                if self.state == State::SynSent {
                    self.state = State::Closed;
                }
                self.flags |= TF_NEEDFIN;
                self.send_much(net, true, Reason::Normal, self.maxburst);
            }
            State::SynReceived | State::Established => {
                self.state = State::FinWait1;
                self.flags |= TF_NEEDFIN;
                self.send_much(net, true, Reason::Normal, self.maxburst);
            }
            State::CloseWait => {
                self.state = State::LastAck;
                self.flags |= TF_NEEDFIN;
                self.send_much(net, true, Reason::Normal, self.maxburst);
            }
            State::FinWait1 | State::FinWait2 | State::Closing => {} // closed already
        }
    }

    /// The active open: send the SYN.
    fn connect(&mut self, net: &mut impl Port) {
        self.state = State::SynSent;
        let amt = self.foutput(net, self.iss, Reason::Normal);
        self.sent(self.iss, amt);
    }

    // ----- state -----

    /// ns-2's `FullTcpAgent::reset()`: `TcpAgent::reset()` (a new clock phase) and its own.
    fn reset(&mut self, net: &mut impl Port) {
        self.cancel_timers(net);
        let phase = net.uniform(&mut self.draws);
        let cwnd = self.tcp.cwnd;
        self.tcp.tcp_reset(phase);
        if self.tcp.cwnd != cwnd {
            self.tcp.trace_cwnd(net);
        }
        self.reset_own();
    }

    /// What FullTcp's reset adds to TcpAgent's.
    fn reset_own(&mut self) {
        self.rq.clear();
        self.tcp.rtt_init();
        self.last_ack_sent = -1;
        self.rcv_nxt = -1;
        self.pipe = 0;
        self.rtxbytes = 0;
        self.flags = 0;
        self.tcp.t_seqno = self.iss;
        self.tcp.maxseq = -1;
        self.irs = -1;
        self.last_send_time = -1.0;
        (self.recent, self.recent_age) = if self.ts_option() { (0.0, 0.0) } else { (-1.0, -1.0) };
        self.fastrecov = false;
        self.close_on_empty = false;
        self.ecn_syn_next = self.f.ecn_syn;
        if let Some(s) = &mut self.sack {
            s.sq.clear();
            s.sack_min = -1;
            s.h_seqno = -1;
        }
    }

    fn cancel_timers(&mut self, net: &mut impl Port) {
        let (flow, end) = (self.tcp.ep.flow, self.end);
        net.cancel(&mut self.tcp.rtx_timer, flow, TimerKind::Full(end, FullTimer::Rtx));
        net.cancel(&mut self.delsnd_timer, flow, TimerKind::Full(end, FullTimer::DelSnd));
        net.cancel(&mut self.delack_timer, flow, TimerKind::Full(end, FullTimer::DelAck));
    }

    fn set_rtx_timer(&mut self, net: &mut impl Port) {
        let rto = self.tcp.rtt.timeout_using_rtt(&self.tcp.p, self.use_rtt);
        self.use_rtt = false;
        let kind = self.timer(FullTimer::Rtx);
        net.arm(&mut self.tcp.rtx_timer, self.tcp.ep.flow, kind, rto);
    }

    fn cancel_rtx_timer(&mut self, net: &mut impl Port) {
        let kind = self.timer(FullTimer::Rtx);
        net.cancel(&mut self.tcp.rtx_timer, self.tcp.ep.flow, kind);
    }

    /// After a timeout: back off (unless nothing is outstanding), restart, stop timing.
    fn reset_rtx_timer(&mut self, net: &mut impl Port) {
        if self.tcp.highest_ack != self.tcp.maxseq {
            self.tcp.rtt_backoff(); // restart_bugfix_: not with nothing outstanding
        }
        self.set_rtx_timer(net);
        self.tcp.rtt_active = false;
    }

    fn slowdown(&mut self, net: &mut impl Port, ssthresh_half: bool, cwnd: CwndCut) {
        self.tcp.slowdown(net, Slowdown { ssthresh_half, cwnd });
    }

    fn set_cwnd(&mut self, net: &mut impl Port, v: f64) {
        self.tcp.set_cwnd(net, v);
    }

    fn trace_event(&self, net: &mut impl Port, event: &str) {
        self.tcp.trace_event(net, event);
    }

    // ----- sending -----

    /// IP + TCP header bytes, with the timestamp option.
    fn header_size(&self) -> i64 {
        let mut total = self.tcp.p.tcpip_base_hdr_size as i64;
        if self.ts_option() {
            total += self.f.ts_option_size as i64;
        }
        total
    }

    /// ns-2's `sendpacket`: builds and sends one segment.
    fn send_packet(
        &mut self,
        net: &mut impl Port,
        seqno: i64,
        ackno: i64,
        mut pflags: u8,
        datalen: i64,
        reason: Reason,
    ) {
        let now = net.now_secs();
        let ecn = self.tcp.p.ecn;
        let ect = self.tcp.ect;
        let mut f = 0u8;
        let syn_ack = pflags & TH_SYN != 0 && pflags & TH_ACK != 0;
        if ect && ((datalen > 0 && ecn) || (ecn && self.f.ecn_syn && self.ecn_syn_next && syn_ack)) {
            f |= flags::ECT;
        }
        // the header keeps the flags as given: a CE seen since only sets the echo in hdr_flags
        // (the handshake's ACK of a marked SYN+ACK shows ECN-echo with header flags 0x10)
        let header_flags = pflags;
        if ecn && ect && self.recent_ce {
            pflags |= TH_ECE;
        }
        if pflags & TH_ECE != 0 {
            f |= flags::ECN_ECHO;
        }
        if pflags & TH_CWR != 0 {
            f |= flags::CWR;
        }
        // options: the timestamp, then (Sack) the blocks of the reassembly queue
        let mut hlen = self.header_size();
        let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
        let mut nblocks = 0;
        if self.sack.is_some() && !self.rq.is_empty() {
            nblocks = self.rq.sack_blocks(&mut blocks, self.f.max_sack_blocks as usize);
            hlen += (nblocks as u32 * self.f.sack_block_size + self.f.sack_option_size) as i64;
        }
        let (ts, ts_echo) = if self.ts_option() { (now, self.recent) } else { (-1.0, -1.0) };
        if datalen > 0 {
            self.last_send_time = now;
        }
        let retransmit = datalen > 0 && reason != Reason::Normal;
        self.last_ack_sent = ackno;
        self.tcp.ep.send(net, self.kind, |p| {
            p.size = (datalen + hlen) as u32;
            p.payload = datalen as u32;
            p.seq = seqno;
            p.ackno = ackno as i32;
            p.tcp_flags = header_flags;
            p.hlen = hlen as u8;
            p.flags = f;
            (p.ts, p.ts_echo) = (ts, ts_echo);
            p.set_sack_blocks(&blocks[..nblocks]);
        });
        if retransmit {
            net.flow_stats(self.tcp.ep.flow).data_retransmitted += 1;
        }
    }

    /// ns-2's `foutput`: sends segment `seqno` (data, a pure ACK, a SYN or a FIN) if there is
    /// reason to; returns the sequence numbers it used (SYN and FIN count one each).
    fn foutput(&mut self, net: &mut impl Port, seqno: i64, reason: Reason) -> i64 {
        // segsize 0 takes the MSS from packetSize_; else packetSize_ follows the MSS (it
        // sizes the RFC 3390 initial window)
        let header = self.header_size();
        if self.maxseg == 0 {
            self.maxseg = self.tcp.p.packet_size as i64 - header;
        } else {
            self.tcp.p.packet_size = (self.maxseg + header) as u32;
        }
        let maxseg = self.maxseg;
        let t = &self.tcp;
        let is_retransmit = seqno < t.maxseq;
        let quiet = t.highest_ack == t.maxseq;
        let mut pflags = self.state.out_flags();
        let syn = seqno == self.iss;
        let mut buffered = if self.infinite_send { TCP_MAXSEQ } else { t.curseq - t.highest_ack + 1 };
        let win = t.window() * maxseg;
        let mut off = seqno - t.highest_ack;
        if t.highest_ack < 0 {
            // no ACK yet
            if !self.infinite_send {
                buffered = t.curseq - self.iss;
            }
            off = seqno - self.iss;
        }
        let mut datalen = if syn && !self.f.data_on_syn {
            0
        } else if self.pipectrl {
            buffered - off
        } else {
            buffered.min(win) - off
        };
        datalen = datalen.clamp(0, maxseg);
        if self.tcp.p.slow_start_restart && quiet && datalen > 0 && self.idle_restart(net) {
            self.slowdown(net, false, CwndCut::Init);
        }
        let emptying = !self.infinite_send && (seqno + datalen > self.tcp.curseq || (syn && datalen == 0));
        if emptying {
            if !syn && self.close_on_empty && quiet {
                self.flags |= TF_NEEDCLOSE;
            }
            pflags |= TH_PUSH;
        } else {
            pflags &= !TH_FIN; // not the end of the data: no FIN yet
        }
        if self.infinite_send && syn && datalen == 0 {
            pflags |= TH_PUSH;
        }
        // send data if a full segment, the buffer's end (no Nagle or nothing outstanding), a
        // retransmission or half the peer's window; else only for an ACK owed, a SYN or FIN
        let send = (datalen > 0
            && (datalen == maxseg
                || ((quiet || self.f.nodelay) && emptying)
                || is_retransmit
                || datalen as f64 >= (self.tcp.wnd * maxseg as f64) / 2.0))
            || self.need_send()
            || self.flags & (TF_ACKNOW | TF_NEEDCLOSE) != 0
            || pflags & (TH_SYN | TH_FIN) != 0;
        if !send {
            return 0;
        }
        let syn = pflags & TH_SYN != 0;
        let mut fin = pflags & TH_FIN != 0;
        let ecn = self.tcp.p.ecn;
        if ecn && syn && pflags & TH_ACK == 0 {
            pflags |= TH_ECE | TH_CWR;
        }
        if ecn && syn && pflags & TH_ACK != 0 {
            pflags |= TH_ECE;
            pflags &= !TH_CWR;
        } else if ecn && self.tcp.ect && self.tcp.cong_action {
            // SetCWRonRetransmit_ (true): a retransmission may carry it too
            pflags |= TH_CWR;
            self.tcp.cong_action = false;
        }
        if datalen > 0 && self.tcp.cong_action && !is_retransmit {
            pflags |= TH_CWR; // marks the reaction in traces, ECN or not
        }
        if ecn && self.tcp.ect && self.recent_ce {
            pflags |= TH_ECE;
        }
        if self.flags & TF_NEEDCLOSE != 0 {
            // the FIN rides on the last data segment
            self.flags &= !TF_NEEDCLOSE;
            if self.state <= State::Established && self.state != State::Closed {
                pflags |= TH_FIN;
                fin = true;
                self.state = State::FinWait1;
            }
        }
        self.send_packet(net, seqno, self.rcv_nxt, pflags, datalen, reason);
        self.flags &= !(TF_ACKNOW | TF_DELACK);
        let reliable = datalen + syn as i64 + fin as i64;
        if self.tcp.cong_action && reliable > 0 && !is_retransmit {
            self.tcp.cong_action = false;
        }
        let highest = seqno + reliable;
        if highest > self.tcp.maxseq {
            self.tcp.maxseq = highest;
            if !self.ts_option() && !self.tcp.rtt_active {
                self.tcp.rtt_active = true;
                self.tcp.rtt_seq = seqno;
                self.tcp.rtt_ts = net.now_secs();
            }
        }
        if !self.tcp.rtx_timer.pending() && reliable > 0 {
            self.set_rtx_timer(net);
        }
        reliable
    }

    /// Sends what the window (or the pipe) allows, up to `maxburst` segments (0: no limit);
    /// `force` sends one segment (an ACK if nothing else) even if the window is shut.
    fn send_much(&mut self, net: &mut impl Port, mut force: bool, reason: Reason, maxburst: u32) {
        if !force && self.delsnd_timer.pending() {
            return;
        }
        let mut npackets = 0;
        loop {
            let seq = self.nxt_tseq();
            if !force && !self.send_allowed(seq) {
                break;
            }
            if !force && self.tcp.p.overhead != 0.0 && !self.delsnd_timer.pending() {
                let delay = self.tcp.p.overhead * net.uniform(&mut self.draws);
                let kind = self.timer(FullTimer::DelSnd);
                net.arm(&mut self.delsnd_timer, self.tcp.ep.flow, kind, delay);
                return;
            }
            let mut amt = self.foutput(net, seq, reason);
            if amt <= 0 {
                break;
            }
            if self.state.out_flags() & TH_FIN != 0 {
                amt -= 1; // the FIN is not data
            }
            self.sent(seq, amt);
            force = false;
            npackets += 1;
            if self.state.out_flags() & (TH_SYN | TH_FIN) != 0 || (maxburst > 0 && npackets >= maxburst) {
                break;
            }
        }
    }

    /// Account for `amt` bytes sent from `seq`.
    fn sent(&mut self, seq: i64, amt: i64) {
        if let Some(s) = &mut self.sack {
            if seq == s.h_seqno {
                s.h_seqno += amt;
            }
        }
        if seq == self.tcp.t_seqno {
            self.tcp.t_seqno += amt;
        }
        self.pipe += amt;
        if seq < self.tcp.maxseq {
            self.rtxbytes += amt;
        }
    }

    /// The next sequence number to send: new data, or (Sack, in recovery) the next hole the
    /// SACKs show.
    fn nxt_tseq(&mut self) -> i64 {
        let t_seqno = self.tcp.t_seqno;
        let in_recovery = self.tcp.highest_ack < self.tcp.recover;
        let (mode, cthresh, bthresh, maxseg) =
            (self.f.sack_rtx_threshmode, self.f.sack_rtx_cthresh as i64, self.f.sack_rtx_bthresh as i64, self.maxseg);
        let Some(s) = &mut self.sack else { return t_seqno };
        if !in_recovery {
            return t_seqno;
        }
        let mut seq = s.h_seqno;
        while let Some((hole, fcnt, fbytes)) = s.sq.next_hole(seq).filter(|&(h, _, _)| h > 0) {
            seq = hole;
            let worth = match mode {
                0 => true,
                1 => fcnt >= cthresh,
                2 => fbytes >= bthresh,
                3 => fcnt >= cthresh || fbytes >= bthresh,
                _ => fcnt >= cthresh && fbytes >= bthresh,
            };
            if worth {
                if seq > s.h_seqno {
                    s.h_seqno = seq;
                }
                return seq;
            } else if fcnt <= 0 {
                break;
            }
            seq += maxseg;
        }
        t_seqno
    }

    /// May `seq` go now?
    fn send_allowed(&self, seq: i64) -> bool {
        let t = &self.tcp;
        if self.sack.is_some() && self.pipectrl {
            // pipe control: within the peer's window, what we have, and cwnd over the pipe
            let topawin = t.highest_ack + t.wnd as i64 * self.maxseg;
            if seq >= topawin || (self.state != State::Established && seq > t.curseq) {
                return false;
            }
            return self.pipe < t.cwnd as i64 * self.maxseg;
        }
        let win = t.window() * self.maxseg;
        let mut topwin = t.curseq;
        if topwin > t.highest_ack + win || self.infinite_send {
            topwin = t.highest_ack + win;
        }
        seq < topwin
    }

    /// Owe the peer an ACK? (Every `segsperack` full segments; every one below `spa_thresh`.)
    fn need_send(&self) -> bool {
        if self.flags & TF_ACKNOW != 0 {
            return true;
        }
        let spa = if self.f.spa_thresh > 0 && self.rcv_nxt - self.irs < self.f.spa_thresh as i64 {
            1
        } else {
            self.f.segsperack as i64
        };
        self.rcv_nxt - self.last_ack_sent >= spa * self.maxseg
    }

    /// Idle for longer than the RTO (in ticks, unless timestamps)?
    fn idle_restart(&self, net: &mut impl Port) -> bool {
        if self.last_send_time < 0.0 {
            return false;
        }
        let mut tao = net.now_secs() - self.last_send_time;
        if !self.ts_option() {
            let tick = self.tcp.p.tcp_tick;
            let tickoff = (self.last_send_time + self.tcp.boot_time) % tick;
            tao = (((tao + tickoff) / tick) as i64) as f64 * tick;
        }
        tao > self.tcp.rtt.rtxcur
    }

    // ----- receiving -----

    /// Takes in a segment from the peer (ns-2's `FullTcpAgent::recv`).
    pub fn recv(&mut self, net: &mut impl Port, pkt: &Packet) {
        let hlen = pkt.hlen as i64;
        let mut seg = Segment {
            seqno: pkt.seq,
            ackno: pkt.ackno as i64,
            datalen: pkt.size as i64 - hlen,
            payload: pkt.size as i64 - hlen,
            needoutput: false,
            header_flags: pkt.tcp_flags,
            tiflags: pkt.tcp_flags,
            ecn: pkt.flags,
            ts: pkt.ts,
            ts_echo: pkt.ts_echo,
            nsack: pkt.nsack,
        };
        self.last_state = self.state;
        let go = self.receive(net, &mut seg, pkt);
        match go {
            Go::Drop => {}
            Go::DropAfterAck => {
                self.flags |= TF_ACKNOW;
                self.send_much(net, true, Reason::Normal, self.maxburst);
            }
            Go::DropWithReset => {
                // no RST in the simulator: an ACK where real TCP resets
                if seg.tiflags & TH_ACK != 0 {
                    self.send_packet(net, seg.ackno, 0, 0, 0, Reason::Normal);
                } else {
                    let mut ack = seg.seqno + seg.datalen;
                    if seg.tiflags & TH_SYN != 0 {
                        ack -= 1;
                    }
                    self.send_packet(net, 0, ack, TH_ACK, 0, Reason::Normal);
                }
            }
            Go::ProcessAck | Go::Step6 => unreachable!("receive goes on to the end"),
        }
    }

    /// The body of `recv` up to its drops (a segment fully taken in returns `Drop`).
    fn receive(&mut self, net: &mut impl Port, seg: &mut Segment, pkt: &Packet) -> Go {
        let now = net.now_secs();
        if self.state == State::Closed {
            // ACK a FIN even when closed (no TIME_WAIT, no RST: the peer would resend it forever)
            return if seg.tiflags & TH_FIN != 0 { Go::DropAfterAck } else { Go::Drop };
        }
        if self.state != State::Listen {
            self.dooptions(seg, now);
        }
        // the delayed-ACK timer ticks at multiples of its interval
        if self.f.interval > 0.0 && !self.delack_timer.pending() {
            let last = (now / self.f.interval) as i64;
            let kind = self.timer(FullTimer::DelAck);
            net.arm(&mut self.delack_timer, self.tcp.ep.flow, kind, self.f.interval * (last as f64 + 1.0) - now);
        }
        if !self.f.nopredict && self.predict_ok(seg) {
            if self.ts_option() && seg.seqno <= self.last_ack_sent {
                self.recent_age = now;
                self.recent = seg.ts;
            }
            self.note_ce(seg);
            if seg.datalen == 0 {
                let t = &self.tcp;
                if seg.ackno > t.highest_ack && seg.ackno < t.maxseq && t.cwnd >= t.wnd && !self.fastrecov {
                    self.newack(net, seg);
                    self.send_much(net, false, Reason::Normal, self.maxburst);
                    return Go::Drop;
                }
            } else if seg.ackno == self.tcp.highest_ack && self.rq.is_empty() {
                // the next data in order, nothing queued: take it, ACK later
                self.rcv_nxt += seg.datalen;
                self.flags |= TF_DELACK;
                self.recv_bytes(net, seg.datalen);
                if self.need_send() {
                    self.send_much(net, true, Reason::Normal, self.maxburst);
                }
                return Go::Drop;
            }
        }
        let go = match self.state {
            State::Listen => self.listen_segment(seg, now),
            State::SynSent => self.syn_sent_segment(net, seg),
            State::LastAck if seg.tiflags & TH_FIN != 0 => Go::Drop, // its FIN came already
            _ => self.synchronized_segment(net, seg, pkt, now),
        };
        let go = match go {
            Go::ProcessAck => self.process_ack(net, seg),
            other => other,
        };
        match go {
            Go::Step6 => {
                self.step6(net, seg);
                Go::Drop
            }
            other => other,
        }
    }

    /// Header prediction: an in-order pure ACK or data segment with nothing unusual about it.
    fn predict_ok(&self, seg: &Segment) -> bool {
        self.state == State::Established
            && seg.header_flags & (TH_SYN | TH_FIN | TH_ACK) == TH_ACK
            && self.flags & TF_NEEDFIN == 0
            && (!self.ts_option() || seg.ts >= self.recent)
            && seg.seqno == self.rcv_nxt
            && self.tcp.t_seqno == self.tcp.maxseq
            && (!self.tcp.p.ecn || seg.ecn & flags::ECN_ECHO == 0)
            && seg.nsack == 0
    }

    /// Keep echoing ECN-echo from a CE mark until the peer says CWR.
    fn note_ce(&mut self, seg: &Segment) {
        if self.tcp.p.ecn {
            if seg.ecn & flags::CE != 0 && seg.ecn & flags::ECT != 0 {
                self.recent_ce = true;
            } else if seg.ecn & flags::CWR != 0 {
                self.recent_ce = false;
            }
        }
    }

    /// The peer's timestamp on its SYN.
    fn dooptions(&mut self, seg: &Segment, now: f64) {
        if self.ts_option() && seg.ts >= 0.0 && seg.header_flags & TH_SYN != 0 {
            self.recent = seg.ts;
            self.recent_age = now;
        }
    }

    /// Data handed to the application.
    fn recv_bytes(&mut self, net: &mut impl Port, n: i64) {
        net.flow_stats(self.tcp.ep.flow).goodput_bytes += n as u64;
    }

    /// An ACK that may advance: the timers, `highest_ack`, the RTT sample.
    fn newack(&mut self, net: &mut impl Port, seg: &Segment) {
        let now = net.now_secs();
        let ackno = seg.ackno;
        let progress = ackno > self.tcp.highest_ack;
        if ackno == self.tcp.maxseq {
            self.cancel_rtx_timer(net); // all data ACKed
        } else if progress {
            self.set_rtx_timer(net);
        }
        if progress {
            self.tcp.highest_ack = ackno;
        }
        if self.tcp.t_seqno < self.tcp.highest_ack {
            // after a timeout the peer may hold data above t_seqno: no go-back-N
            self.tcp.t_seqno = self.tcp.highest_ack;
        }
        let echo = seg.ecn & flags::ECN_ECHO != 0;
        let ecn_holds_backoff = self.tcp.ect && self.tcp.ecn_backoff && echo;
        if self.ts_option() {
            self.recent_age = now;
            self.recent = seg.ts;
            self.tcp.rtt_update(net, now, now - seg.ts_echo);
            if self.tcp.p.ts_reset_rto && !ecn_holds_backoff {
                self.tcp.rtt.backoff = 1;
            }
        } else if self.tcp.rtt_active && ackno > self.tcp.rtt_seq {
            self.tcp.rtt_active = false;
            let tao = now - self.tcp.rtt_ts;
            self.tcp.rtt_update(net, now, tao);
        }
        if !ecn_holds_backoff {
            self.tcp.rtt.backoff = 1;
            self.tcp.ecn_backoff = false;
        }
    }

    /// A SYN (no ACK) while listening: answer with our SYN+ACK.
    fn listen_segment(&mut self, seg: &mut Segment, now: f64) -> Go {
        if seg.tiflags & TH_ACK != 0 {
            return Go::DropWithReset;
        }
        if seg.tiflags & TH_SYN == 0 {
            return Go::Drop;
        }
        self.dooptions(seg, now);
        self.irs = seg.seqno;
        self.tcp.t_seqno = self.iss;
        self.rcv_nxt = self.irs + seg.datalen + 1;
        self.flags |= TF_ACKNOW;
        if self.tcp.p.ecn && seg.ecn & flags::ECN_ECHO != 0 && seg.ecn & flags::CWR != 0 {
            self.tcp.ect = true;
        }
        self.state = State::SynReceived;
        Self::trim_then_step6(seg)
    }

    /// Our SYN is out: a SYN+ACK completes the open, a SYN alone is a simultaneous open.
    fn syn_sent_segment(&mut self, net: &mut impl Port, seg: &mut Segment) -> Go {
        let ack = seg.tiflags & TH_ACK != 0;
        if ack && (seg.ackno <= self.iss || seg.ackno > self.tcp.maxseq) {
            return Go::DropWithReset;
        }
        if seg.tiflags & TH_SYN == 0 {
            return Go::Drop;
        }
        let ecn = self.tcp.p.ecn;
        let (echo, cwr, ce) = (seg.ecn & flags::ECN_ECHO != 0, seg.ecn & flags::CWR != 0, seg.ecn & flags::CE != 0);
        if ack && ecn && echo && !cwr && self.f.ecn_syn_wait == 2 && ce {
            // a marked SYN+ACK: ACK it with ECE, keep waiting for an unmarked one
            self.set_rtx_timer(net);
            self.send_packet(net, self.tcp.t_seqno, self.rcv_nxt, TH_ACK | TH_ECE, 0, Reason::Normal);
            return Go::Drop;
        }
        self.irs = seg.seqno;
        self.rcv_nxt = self.irs + seg.datalen + 1;
        if ack {
            if ecn && echo && !cwr {
                self.tcp.ect = true;
                if ce {
                    self.recent_ce = true;
                }
            }
            self.tcp.highest_ack = seg.ackno;
            let iw = self.tcp.initial_window();
            self.set_cwnd(net, iw);
            self.flags |= if seg.datalen > 0 { TF_DELACK } else { TF_ACKNOW };
            if self.flags & TF_NEEDFIN != 0 {
                self.state = State::FinWait1;
                self.flags &= !TF_NEEDFIN;
                seg.tiflags &= !TH_SYN;
            } else {
                self.state = State::Established;
            }
            // ns-2 ACKs the SYN+ACK with a pure ACK, as connect() returns before any write
            self.send_packet(net, self.tcp.t_seqno, self.rcv_nxt, TH_ACK, 0, Reason::Normal);
        } else {
            if ecn && echo && cwr {
                self.tcp.ect = true;
            }
            self.flags |= TF_ACKNOW;
            self.cancel_rtx_timer(net);
            self.state = State::SynReceived;
            self.tcp.t_seqno -= 1; // our SYN goes again, as a SYN+ACK
        }
        Self::trim_then_step6(seg)
    }

    /// Past the peer's SYN, to its first data byte.
    fn trim_then_step6(seg: &mut Segment) -> Go {
        seg.seqno += 1;
        if seg.tiflags & TH_ACK != 0 {
            Go::ProcessAck
        } else {
            Go::Step6
        }
    }

    /// A segment in a synchronized state: PAWS, trimming what was received already, then the
    /// ACK: duplicate ACKs here, a new ACK on to `process_ack`.
    fn synchronized_segment(&mut self, net: &mut impl Port, seg: &mut Segment, pkt: &Packet, now: f64) -> Go {
        /// 24 days: a timestamp older than this is no longer trusted (never, here).
        const TCP_PAWS_IDLE: f64 = 24.0 * 24.0 * 60.0 * 60.0;
        if self.ts_option() && self.recent != 0.0 && seg.ts < self.recent {
            if now - self.recent_age > TCP_PAWS_IDLE {
                self.recent = 0.0;
            } else {
                return Go::DropAfterAck;
            }
        }
        let mut dupseg = false;
        let mut todrop = self.rcv_nxt - seg.seqno;
        if todrop > 0 && (seg.tiflags & TH_SYN != 0 || seg.datalen > 0) {
            if seg.tiflags & TH_SYN != 0 {
                seg.tiflags &= !TH_SYN;
                seg.seqno += 1;
                seg.payload -= 1;
                todrop -= 1;
            }
            if todrop > seg.datalen || (todrop == seg.datalen && seg.tiflags & TH_FIN == 0) {
                // all of it seen before (and any FIN): ACK to resynchronize
                seg.tiflags &= !TH_FIN;
                self.flags |= TF_ACKNOW;
                todrop = seg.datalen;
                dupseg = true;
            }
            seg.seqno += todrop;
            seg.payload -= todrop;
            seg.datalen -= todrop;
        }
        if self.ts_option() && seg.seqno <= self.last_ack_sent {
            self.recent_age = now;
            self.recent = seg.ts;
        }
        if seg.tiflags & TH_SYN != 0 {
            return Go::DropWithReset;
        }
        if seg.tiflags & TH_ACK == 0 {
            return Go::Drop;
        }
        if self.state == State::SynReceived {
            if let Some(go) = self.syn_received_ack(net, seg) {
                return go;
            }
        }
        if self.state == State::Closed || self.state == State::Listen || self.state == State::SynSent {
            return Go::Step6;
        }
        self.note_ce(seg);
        if self.state >= State::Established && seg.nsack > 0 {
            self.process_sack(pkt);
        }
        if self.fastrecov && (seg.datalen == 0 || seg.ackno > self.tcp.highest_ack) {
            self.pipe -= self.maxseg; // a segment left the network
        }
        if seg.ackno > self.tcp.highest_ack {
            return Go::ProcessAck;
        }
        if seg.datalen == 0 && (!self.f.dupseg_fix || !dupseg) {
            if !self.tcp.rtx_timer.pending() || seg.ackno < self.tcp.highest_ack {
                self.tcp.dupacks = 0; // an old ACK
            } else {
                self.tcp.dupacks += 1;
                let thresh = self.f.tcprexmtthresh as i64;
                if self.tcp.dupacks == thresh {
                    self.dupack_action(net);
                    return Go::Drop;
                } else if self.tcp.dupacks > thresh {
                    if self.f.reno_fastrecov {
                        let c = self.tcp.cwnd + 1.0;
                        self.set_cwnd(net, c); // inflate
                    }
                    self.send_much(net, false, Reason::Dupack, self.maxburst);
                    return Go::Drop;
                }
            }
        } else if self.f.dupack_reset {
            // data with an old ACK
            self.tcp.dupacks = 0;
            self.fastrecov = false;
        }
        Go::Step6
    }

    /// The ACK of our SYN+ACK: the connection is open (None), or the ACK is refused.
    fn syn_received_ack(&mut self, net: &mut impl Port, seg: &Segment) -> Option<Go> {
        if seg.ackno < self.tcp.highest_ack || seg.ackno > self.tcp.maxseq {
            return Some(Go::DropWithReset);
        }
        let marked = self.tcp.p.ecn && self.tcp.ect && self.f.ecn_syn && seg.ecn & flags::ECN_ECHO != 0;
        if marked && self.f.ecn_syn_wait == 2 {
            // our SYN+ACK was marked: send another at once, stay
            self.cancel_rtx_timer(net);
            self.ecn_syn_next = false;
            self.foutput(net, self.iss, Reason::Normal);
            self.tcp.wnd_init_option = 1;
            self.tcp.wnd_init = 1.0;
            return Some(Go::Drop);
        }
        let cwnd = match (marked, self.f.ecn_syn_wait) {
            (true, 1) => {
                self.use_rtt = true; // the ECN response waits one RTT (its timer)
                1.0
            }
            (true, _) => 2.0, // halved by the ECN response to come
            (false, _) => self.tcp.initial_window(),
        };
        self.set_cwnd(net, cwnd);
        if self.flags & TF_NEEDFIN != 0 {
            self.state = State::FinWait1;
            self.flags &= !TF_NEEDFIN;
        } else {
            self.state = State::Established;
        }
        None
    }

    /// A new ACK (ns-2's `process_ACK`): timers, partial or full ACK, ECN, window growth, and
    /// what our own closing states do once our FIN is ACKed.
    fn process_ack(&mut self, net: &mut impl Port, seg: &mut Segment) -> Go {
        let ackno = seg.ackno;
        if ackno > self.tcp.maxseq {
            return Go::DropAfterAck; // more than we sent
        }
        self.newack(net, seg);
        let partial = self.fastrecov && ackno >= self.tcp.highest_ack && ackno < self.tcp.recover;
        if partial {
            self.pack_action(net);
        } else {
            self.ack_action(net);
        }
        let echo = seg.ecn & flags::ECN_ECHO != 0;
        if echo && seg.tiflags & TH_SYN == 0 {
            let highest_ack = self.tcp.highest_ack;
            self.tcp.ecn(net, highest_ack);
            if self.tcp.cwnd < 1.0 {
                self.set_rtx_timer(net);
            }
        }
        if ackno == self.tcp.maxseq {
            seg.needoutput = true;
        }
        if ackno == self.tcp.highest_ack + 1 {
            return Go::Step6; // only our SYN was ACKed
        }
        if (!self.tcp.p.delay_growth || self.rcv_nxt > 0)
            && self.last_state == State::Established
            && (!partial || self.f.open_cwnd_on_pack)
            && (!self.tcp.ect || !echo)
        {
            self.tcp.opencwnd(net);
        }
        let our_fin_acked = self.state >= State::FinWait1 && ackno == self.tcp.maxseq;
        if our_fin_acked {
            match self.state {
                State::FinWait1 => {
                    self.state = State::FinWait2; // now wait for the peer's FIN
                    self.cancel_timers(net);
                    seg.needoutput = false;
                }
                State::Closing => {
                    self.state = State::Closed;
                    self.cancel_timers(net);
                }
                State::LastAck => {
                    self.state = State::Closed;
                    self.reset(net); // ready to be used again
                    return Go::Drop;
                }
                _ => {}
            }
        }
        Go::Step6
    }

    /// Data and the FIN (ns-2's `step6`), then what to send.
    fn step6(&mut self, net: &mut impl Port, seg: &mut Segment) {
        if (seg.datalen > 0 || seg.tiflags & TH_FIN != 0) && !self.state.has_received_fin() {
            if seg.seqno == self.rcv_nxt && self.rq.is_empty() {
                self.flags |= TF_DELACK;
                self.rcv_nxt += seg.datalen;
                seg.tiflags = seg.header_flags & TH_FIN;
                if seg.datalen > 0 {
                    self.recv_bytes(net, seg.datalen);
                }
                seg.needoutput = self.need_send();
            } else {
                // out of order, or filling a hole: through the reassembly queue, ACK at once
                let before = self.rcv_nxt;
                seg.tiflags = self.reass(seg);
                if self.rcv_nxt > before {
                    self.recv_bytes(net, self.rcv_nxt - before);
                }
                self.flags |= TF_ACKNOW;
                if seg.tiflags & TH_PUSH != 0 {
                    seg.needoutput = self.need_send();
                }
            }
        } else {
            seg.tiflags &= !TH_FIN;
        }
        if seg.tiflags & TH_FIN != 0 {
            if !self.state.has_received_fin() {
                self.flags |= TF_ACKNOW;
                self.rcv_nxt += 1;
            }
            match self.state {
                State::SynReceived | State::Established => self.state = State::CloseWait,
                State::FinWait1 => self.state = State::Closing,
                State::FinWait2 => {
                    self.state = State::Closed;
                    self.cancel_timers(net);
                }
                _ => {}
            }
        }
        if seg.needoutput || self.flags & TF_ACKNOW != 0 {
            self.send_much(net, true, Reason::Normal, self.maxburst);
        } else if self.tcp.curseq >= self.tcp.highest_ack || self.infinite_send {
            self.send_much(net, false, Reason::Normal, self.maxburst);
        }
        if !self.f.halfclose && self.state == State::CloseWait && self.tcp.highest_ack == self.tcp.maxseq {
            self.close(net);
        }
    }

    /// Puts the segment in the reassembly queue; returns the flags of what it hands on in
    /// order (none if it filled no hole).
    fn reass(&mut self, seg: &Segment) -> u8 {
        let (start, end) = (seg.seqno, seg.seqno + seg.payload);
        let fills_hole = start == self.rcv_nxt;
        let flags = self.rq.add(&mut self.rcv_nxt, start, end, seg.header_flags);
        if self.state < State::SynReceived || !fills_hole {
            return 0;
        }
        if self.state == State::SynReceived && end > start {
            return 0; // data before the open completes waits
        }
        flags | self.rq.clear_to(self.rcv_nxt)
    }

    /// Sack: the peer's SACK blocks into the scoreboard.
    fn process_sack(&mut self, pkt: &Packet) {
        let max = self.f.max_sack_blocks;
        let Some(s) = &mut self.sack else { return }; // a SACK to a non-SACK agent: ns-2 warns
        if max == 0 {
            return;
        }
        for &(left, right) in pkt.sack_blocks().iter() {
            if pkt.tcp_flags & TH_FIN == 0 && left >= right {
                continue; // an illegal block
            }
            s.sq.add(&mut s.sack_min, left, right, 0);
        }
    }

    // ----- loss recovery -----

    /// Retransmits `seq` as a fast retransmission.
    fn fast_retransmit(&mut self, net: &mut impl Port, seq: i64) -> i64 {
        self.trace_event(net, "FAST_RETX");
        self.tcp.recover = self.tcp.maxseq;
        self.tcp.last_cwnd_action = CwndAction::Dupack;
        self.foutput(net, seq, Reason::Dupack)
    }

    /// The dupack threshold is reached.
    fn dupack_action(&mut self, net: &mut impl Port) {
        let t = &self.tcp;
        let recovered = t.highest_ack > t.recover;
        let (bug_fix, ecn) = (t.p.bug_fix, t.p.ecn);
        let ecn_cut = ecn && t.last_cwnd_action == CwndAction::Ecn;
        self.fastrecov = true;
        self.rtxbytes = 0;
        match self.variant {
            TcpVariant::FullTahoe => {
                let act = recovered || (!bug_fix && !ecn) || self.tcp.highest_ack == 0;
                if !act && ecn_cut {
                    // the window was cut for ECN already: slow start from one
                    self.tcp.last_cwnd_action = CwndAction::Dupack;
                    self.slowdown(net, false, CwndCut::One);
                    self.set_rtx_timer(net);
                    self.tcp.rtt_active = false;
                    self.tcp.t_seqno = self.tcp.highest_ack;
                    return;
                }
                if !act && bug_fix {
                    return;
                }
                self.trace_event(net, "FAST_RETX");
                self.tcp.recover = self.tcp.maxseq;
                self.tcp.last_cwnd_action = CwndAction::Dupack;
                self.slowdown(net, true, CwndCut::One);
                self.set_rtx_timer(net);
                self.tcp.rtt_active = false;
                self.tcp.t_seqno = self.tcp.highest_ack;
                self.send_much(net, false, Reason::Normal, 0);
            }
            TcpVariant::FullSack => {
                let total = self.sack.as_ref().map_or(0, |s| s.sq.total());
                self.pipe = self.tcp.maxseq - self.tcp.highest_ack - total;
                let act = recovered || (!bug_fix && !ecn);
                if !act && ecn_cut {
                    // cut for ECN already: retransmit the loss, no second cut
                    self.tcp.last_cwnd_action = CwndAction::Dupack;
                    self.cancel_rtx_timer(net);
                    self.tcp.rtt_active = false;
                    self.sack_fast_retransmit(net);
                    return;
                }
                if !act && bug_fix {
                    return;
                }
                self.trace_event(net, "FAST_RECOVERY");
                self.slowdown(net, true, CwndCut::Half);
                self.cancel_rtx_timer(net);
                self.tcp.rtt_active = false;
                self.tcp.recover = self.tcp.maxseq;
                self.sack_fast_retransmit(net);
            }
            _ => {
                let act = recovered
                    || (!bug_fix && !ecn)
                    || self.tcp.last_cwnd_action == CwndAction::Dupack
                    || self.tcp.highest_ack == 0;
                if !act && ecn_cut {
                    self.slowdown(net, false, CwndCut::Half);
                    self.cancel_rtx_timer(net);
                    self.tcp.rtt_active = false;
                    let highest_ack = self.tcp.highest_ack;
                    self.fast_retransmit(net, highest_ack);
                    return;
                }
                if !act && bug_fix {
                    return; // not twice in one window
                }
                self.slowdown(net, true, CwndCut::Half);
                self.cancel_rtx_timer(net);
                self.tcp.rtt_active = false;
                self.tcp.recover = self.tcp.maxseq;
                let highest_ack = self.tcp.highest_ack;
                self.fast_retransmit(net, highest_ack);
                // cwnd counts segments: ssthresh plus the dupacks, not scaled by maxseg
                let c = self.tcp.ssthresh as f64 + self.tcp.dupacks as f64;
                self.set_cwnd(net, c);
            }
        }
    }

    /// Sack's fast retransmission: the first hole, then pipe-controlled sending.
    fn sack_fast_retransmit(&mut self, net: &mut impl Port) {
        self.pipectrl = true;
        let highest_ack = self.tcp.highest_ack;
        let amt = self.fast_retransmit(net, highest_ack);
        if let Some(s) = &mut self.sack {
            s.h_seqno = highest_ack + amt;
        }
        self.send_much(net, false, Reason::Dupack, self.maxburst);
    }

    /// A partial ACK during fast recovery.
    fn pack_action(&mut self, net: &mut impl Port) {
        match self.variant {
            TcpVariant::FullNewReno => {
                // stay in recovery: retransmit the next hole, deflate, limit bursts
                let highest_ack = self.tcp.highest_ack;
                self.fast_retransmit(net, highest_ack);
                let c = self.tcp.ssthresh as f64;
                self.set_cwnd(net, c);
                if self.save_maxburst.is_none() {
                    self.save_maxburst = Some(self.maxburst);
                    self.maxburst = self.f.recov_maxburst;
                }
            }
            TcpVariant::FullSack => {
                self.sack_clear_acked();
                self.pipe -= self.maxseg;
                self.sack_h_seqno_to_ack();
            }
            _ => self.exit_fast_recovery(net),
        }
    }

    /// An ACK that is not partial.
    fn ack_action(&mut self, net: &mut impl Port) {
        match self.variant {
            TcpVariant::FullSack => {
                self.fastrecov = false;
                self.pipectrl = false;
                self.sack_clear_acked();
                self.tcp.dupacks = 0;
                self.sack_h_seqno_to_ack();
            }
            _ => {
                if let Some(m) = self.save_maxburst.take() {
                    self.maxburst = m;
                }
                self.exit_fast_recovery(net);
            }
        }
    }

    /// Reno's end of fast recovery: deflate the window.
    fn exit_fast_recovery(&mut self, net: &mut impl Port) {
        if self.f.reno_fastrecov && self.fastrecov && self.tcp.cwnd > self.tcp.ssthresh as f64 {
            let c = self.tcp.ssthresh as f64;
            self.set_cwnd(net, c);
        }
        self.fastrecov = false;
        self.tcp.dupacks = 0;
    }

    /// Sack: forget the blocks below the cumulative ACK.
    fn sack_clear_acked(&mut self) {
        let highest_ack = self.tcp.highest_ack;
        if let Some(s) = &mut self.sack {
            if !s.sq.is_empty() && s.sack_min < highest_ack {
                s.sack_min = highest_ack;
                s.sq.clear_to(highest_ack);
            }
        }
    }

    fn sack_h_seqno_to_ack(&mut self) {
        let highest_ack = self.tcp.highest_ack;
        if let Some(s) = &mut self.sack {
            if s.h_seqno < highest_ack {
                s.h_seqno = highest_ack;
            }
        }
    }

    // ----- timers -----

    /// One of this agent's timers fired (stale events are ignored).
    pub fn on_timer(&mut self, net: &mut impl Port, which: FullTimer, gen: u32) {
        let (flow, kind) = (self.tcp.ep.flow, self.timer(which));
        let timer = match which {
            FullTimer::Rtx => &mut self.tcp.rtx_timer,
            FullTimer::DelAck => &mut self.delack_timer,
            FullTimer::DelSnd => &mut self.delsnd_timer,
        };
        if !net.fire(timer, flow, kind, gen) || self.state == State::Listen {
            return;
        }
        match which {
            FullTimer::Rtx => {
                self.timeout_action(net);
                self.send_much(net, true, Reason::Timeout, self.maxburst);
            }
            FullTimer::DelSnd => self.send_much(net, true, Reason::Timeout, self.maxburst),
            FullTimer::DelAck => {
                if self.flags & TF_DELACK != 0 {
                    self.flags &= !TF_DELACK;
                    self.flags |= TF_ACKNOW;
                    self.send_much(net, true, Reason::Normal, 0);
                }
                net.arm(&mut self.delack_timer, flow, kind, self.f.interval);
            }
        }
    }

    fn timeout_action(&mut self, net: &mut impl Port) {
        self.tcp.recover = self.tcp.maxseq;
        if self.tcp.cwnd < 1.0 {
            self.set_cwnd(net, 1.0);
        }
        if self.tcp.last_cwnd_action == CwndAction::Ecn {
            self.slowdown(net, false, CwndCut::One);
        } else {
            self.slowdown(net, true, CwndCut::Restart);
            self.tcp.last_cwnd_action = CwndAction::Timeout;
        }
        self.reset_rtx_timer(net);
        self.tcp.t_seqno = if self.tcp.highest_ack < 0 { self.iss } else { self.tcp.highest_ack };
        self.fastrecov = false;
        self.tcp.dupacks = 0;
        let highest_ack = self.tcp.highest_ack;
        if let (Some(s), true) = (&mut self.sack, self.f.clear_on_timeout) {
            // the receiver may have reneged
            s.sq.clear();
            s.sack_min = highest_ack;
        }
    }

    /// The cwnd trace's line as the trace is attached (see `Ns2Sender`'s).
    pub fn trace_cwnd_attached(&self, net: &mut impl Port) {
        self.tcp.trace_cwnd_attached(net);
    }

    /// The cwnd trace's line of `$ns run`'s reset.
    pub fn trace_cwnd_reset(&self, net: &mut impl Port) {
        self.tcp.trace_cwnd_reset(net);
    }
}

impl<P: Port> Ftp<P> for FullTcp {
    /// FTP `start`: `send -1`.
    fn send_unlimited(&mut self, net: &mut P) {
        self.sendmsg(net, -1);
    }

    /// FTP `produce n`: `advance n`, n segments.
    fn advance(&mut self, net: &mut P, n: i64) {
        self.advance_by_segments(net, n);
    }

    /// FTP `producemore n`: `advanceby n`, the same for FullTcp.
    fn advance_by(&mut self, net: &mut P, n: i64) {
        self.advance_by_segments(net, n);
    }

    /// FTP `stop`: `advance 0`, then `close`.
    fn stop(&mut self, net: &mut P) {
        self.advance_by_segments(net, 0);
        self.close(net);
    }

    fn state(&self) -> TcpState {
        let t = &self.tcp;
        TcpState {
            cwnd: t.cwnd,
            ssthresh: t.ssthresh as f64,
            srtt: t.rtt.srtt_secs(&t.p),
            in_flight: ((t.maxseq - t.highest_ack).max(0) / self.maxseg.max(1)) as f64,
            pacing_rate: 0.0,
        }
    }
}

#[cfg(test)]
mod tests;
