//! ns-2.35's second 802.11 model, `Mac/802_11Ext` with `Phy/WirelessPhyExt`
//! (mac/mac-802_11Ext.cc, mac/wireless-phyExt.cc): an 802.11a OFDM MAC built of small state
//! machines, and a PHY that receives by signal-to-interference-and-noise ratio.
//!
//! The PHY keeps the power of every signal above `monitor_threshold` for as long as it lasts
//! (its power monitor); the medium is busy while that sum reaches `cs_threshold`. A frame is
//! taken if its SINR at arrival reaches the basic scheme's threshold, its preamble (20 µs)
//! survives the frames that arrive during it (or is captured by a much stronger one), and its
//! SINR at the preamble's end reaches its own scheme's threshold; an arrival during the body
//! that drops the SINR below it corrupts it. SINR is judged only at those instants, as ns-2
//! judges it.
//!
//! The MAC is ns-2's four modules: the channel state manager (carrier sense, NAV, DIFS/EIFS),
//! the backoff manager (one draw `Random::integer(cw + 1)` per backoff, paused by a busy
//! medium), transmission coordination (a frame that finds no backoff and an idle medium goes at
//! once; a post-backoff after every frame; RTS/CTS above the threshold; ACK and CTS timeouts;
//! short and long retries) and reception coordination (CTS and ACK after SIFS whatever the
//! medium). Every transition happens in ns-2's order, so that the shared generator is drawn in
//! its order and same-instant events keep theirs (conformance/ns2-wifi/ext-spec.md).

use super::config::ExtConfig;
use super::event::WifiEvent;
use super::{Outcome, RxHeader, Wifi, BROADCAST};
use crate::ctx::{Ctx, Event};
use crate::ids::{FrameId, RadioId};
use crate::packet::{Packet, PacketId};
use crate::trace::{WirelessEvent, NO_NEXT_HOP};
use tcplab_des::Timer;

/// The MAC header and FCS a data frame adds (`getHdrLen11`: Ext's header has no fourth
/// address), and the sizes of its control frames.
pub const EXT_HEADER_BYTES: u32 = 28;
const RTS_BYTES: u32 = 20;
const CTS_BYTES: u32 = 14;
const ACK_BYTES: u32 = 14;
/// `DSSS_MaxPropagationDelay` in mac-802_11Ext.h, which the CTS and ACK timeouts add.
const MAX_PROPAGATION: f64 = 10e-6;
/// The MAC address of a broadcast (`MAC_BROADCAST`).
const MAC_BROADCAST: u32 = u32::MAX;

/// An OFDM modulation scheme: data bits per symbol, and the SINR (linear) a frame sent with it
/// needs (wireless-phyExt.h, `modulation_table`): BPSK, QPSK, QAM16, QAM64.
const NDBPS: [u32; 4] = [24, 48, 96, 192];
const SINR: [f64; 4] = [3.1623, 6.3096, 31.6228, 316.2278];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FrameType {
    Rts,
    Cts,
    Ack,
    Data,
}

/// A frame on the air (each receiver holds the copy ns-2's channel hands it by its id).
#[derive(Debug, Clone, Copy)]
pub(super) struct ExtFrame {
    kind: FrameType,
    /// Receiver and transmitter MAC addresses (node numbers; `MAC_BROADCAST`).
    ra: u32,
    ta: u32,
    /// The duration field, µs.
    duration: u16,
    /// Bytes as sent (a data frame's with its 28 MAC bytes).
    size: u32,
    scheme: u8,
    txtime: f64,
    seq: u16,
    /// A data frame's packet, as it was when sent.
    packet: Option<Packet>,
    src: RadioId,
    /// Arrivals still to come and receptions still holding it.
    refs: u32,
}

/// The data frame the MAC has (`pDATA`): its packet stays in the pool until it is done.
#[derive(Debug, Clone, Copy)]
struct DataOut {
    pkt: PacketId,
    frame: ExtFrame,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phy {
    Searching,
    PreRx,
    Rx,
    Tx,
}

/// The channel state manager's states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Channel {
    NoCsNoNav,
    NoCsNav,
    CsNoNav,
    CsNav,
    /// Waiting out DIFS or EIFS.
    Wifs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bk {
    None,
    Running,
    Paused,
}

/// Transmission coordination's states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Txc {
    Idle,
    WaitRtsSent,
    WaitPduSent,
    RtsPending,
    DataPending,
    WaitCts,
    WaitSifs,
    WaitAck,
}

/// Which module a frame on the air was sent for (`txConfirmCallback_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SentFor {
    Txc,
    Rxc,
}

/// The frame a PHY is receiving (`pkt_RX`, `power_RX`), and whether it is errored.
#[derive(Debug, Clone, Copy)]
struct Reception {
    frame: FrameId,
    power: f64,
    errored: bool,
}

impl Reception {
    fn of(frame: FrameId, power: f64) -> Reception {
        Reception { frame, power, errored: false }
    }
}

/// A radio's timers; each event carries one and the arming's generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtTimer {
    /// The PHY: its transmission ends; the preamble, then the body, of the frame it receives.
    Tx,
    PreRx,
    Rx,
    /// The power monitor's next signal ends.
    Monitor,
    /// The channel state manager: DIFS/EIFS waited, NAV over.
    Ifs,
    Nav,
    Backoff,
    /// Transmission coordination: no CTS, no ACK, SIFS before the data after a CTS.
    CtsTimeout,
    AckTimeout,
    TxcSifs,
    /// Reception coordination: SIFS before its CTS or ACK.
    RxcSifs,
}

const TIMERS: usize = 11;

/// One radio's Ext PHY and MAC.
pub struct ExtRadio {
    phy: Phy,
    /// The frame being received (`pkt_RX`).
    rx: Option<Reception>,
    sinr_th_rx: f64,
    /// The power monitor: signals (power, end) by end, and their sum with the noise floor.
    signals: Vec<(f64, f64)>,
    level: f64,
    /// The channel state manager: its state, the wait it starts when the medium turns idle
    /// (DIFS after an intact frame, EIFS after an errored one), when the NAV ends.
    cs: Channel,
    ifs: f64,
    nav_end: f64,
    /// The backoff manager: its state, the slots still to count, when the count (re)started.
    bk: Bk,
    slots: i64,
    bk_start: f64,
    txc: Txc,
    rts: Option<ExtFrame>,
    data: Option<DataOut>,
    short_retries: u32,
    long_retries: u32,
    cw: u32,
    /// The CTS or ACK reception coordination will send after SIFS (`pCTRL`).
    ctrl: Option<ExtFrame>,
    sent_for: SentFor,
    /// The interface queue waits for the MAC to take its next packet (`callback_`).
    queue_waits: bool,
    seq: u16,
    /// The last sequence number received from each node (`cache_`).
    last_seq: Vec<u16>,
    timers: [Timer; TIMERS],
}

impl ExtRadio {
    pub fn new(cfg: &ExtConfig, cw_min: u32, nodes: usize) -> ExtRadio {
        ExtRadio {
            phy: Phy::Searching,
            rx: None,
            sinr_th_rx: 0.0,
            signals: Vec::new(),
            level: cfg.noise_floor,
            cs: Channel::NoCsNoNav,
            // the manager starts out waiting EIFS (the constructor's `setIFS(eifs_)`)
            ifs: cfg.eifs(),
            nav_end: 0.0,
            bk: Bk::None,
            slots: 0,
            bk_start: 0.0,
            txc: Txc::Idle,
            rts: None,
            data: None,
            short_retries: 0,
            long_retries: 0,
            cw: cw_min,
            ctrl: None,
            sent_for: SentFor::Txc,
            queue_waits: false,
            seq: 1,
            last_seq: vec![0; nodes],
            timers: std::array::from_fn(|_| Timer::near()),
        }
    }
}

impl ExtConfig {
    /// `txtime(psz, mod_scheme)`: the header, then whole OFDM symbols for the bits (with the
    /// SERVICE and tail bits in 802.11a).
    pub fn txtime(&self, bytes: u32, scheme: u8) -> f64 {
        let mut bits = (bytes << 3) as i64;
        if self.use_802_11a {
            bits += 16 + 6;
        }
        let symbols = (bits as f64 / NDBPS[scheme as usize] as f64).ceil() as i64;
        self.header_duration + symbols as f64 * self.symbol_duration
    }

    pub fn difs(&self) -> f64 {
        self.sifs + 2.0 * self.slot
    }

    pub fn eifs(&self) -> f64 {
        self.sifs + self.difs() + self.txtime(ACK_BYTES, self.basic_scheme)
    }
}

/// `sec`: a duration field's µs in seconds.
fn sec(us: u16) -> f64 {
    f64::from(us) * 1e-6
}

/// `usec`: seconds to the duration field's whole µs, rounded, in 16 bits as C's cast keeps
/// them (an RTS before a frame of 49 kB or more wraps).
fn usec(t: f64) -> u16 {
    (t * 1e6 + 0.5).floor() as i64 as u16
}

impl Wifi {
    fn ext(&mut self, r: RadioId) -> &mut ExtRadio {
        self.stations[r.index()].ext.as_mut().expect("a radio of an 802_11Ext WLAN")
    }

    fn ext_cfg(&self, r: RadioId) -> &ExtConfig {
        self.wlan_of(r).ext.as_ref().expect("an 802_11Ext WLAN")
    }

    fn ext_arm(&mut self, ctx: &mut Ctx, r: RadioId, which: ExtTimer, at: f64) {
        let timer = &mut self.ext(r).timers[which as usize];
        ctx.sched.arm(timer, at, |gen| Event::Wifi(WifiEvent::ExtTimer(r, which, gen)));
    }

    fn ext_cancel(&mut self, r: RadioId, which: ExtTimer) {
        self.ext(r).timers[which as usize].cancel();
    }

    fn ext_pending(&mut self, r: RadioId, which: ExtTimer) -> bool {
        self.ext(r).timers[which as usize].pending()
    }

    /// The interface queue hands radio `r` packet `id` for radio `to` (`PriQueue::recv`): it
    /// goes to the MAC if the MAC is waiting for one, else it waits (or the full queue drops it).
    pub(super) fn ext_enqueue(&mut self, ctx: &mut Ctx, r: RadioId, to: RadioId, id: PacketId) -> Outcome {
        let limit = self.wlan_of(r).queue_limit as usize;
        let s = &mut self.stations[r.index()];
        // DropTail: refused when it would fill the queue (the MAC's packet not counted)
        if s.queue.len() + 1 >= limit {
            s.stats.queue_drops += 1;
            let (node, pkt) = (s.node, *ctx.pkts.get(id));
            let ra = self.mac_address(to, &pkt);
            let header = RxHeader { mac: (0, ra, node.get(), 0), forwards: 0, next_hop: NO_NEXT_HOP };
            self.write_radio_packet(ctx, 'D', node, "IFQ", "---", &pkt, header);
            return Outcome::Dropped(id);
        }
        if self.ext(r).queue_waits {
            self.stations[r.index()].queue.push_back((id, to, super::Via::to(to)));
            return Outcome::Nothing;
        }
        self.ext_from_queue(ctx, r, id, to);
        Outcome::Nothing
    }

    /// The MAC address the link layer writes for radio `to`: its node's, or for a packet sent
    /// to a MAC address no radio has, the one its sender named.
    fn mac_address(&self, to: RadioId, pkt: &Packet) -> u32 {
        match self.stations.get(to.index()) {
            Some(s) => s.node.get(),
            None if to == BROADCAST => MAC_BROADCAST,
            None => pkt.dst.node.get(),
        }
    }

    /// `Mac802_11Ext::recv` of a packet from the queue, then `TXC::handleMsgFromUp`.
    fn ext_from_queue(&mut self, ctx: &mut Ctx, r: RadioId, id: PacketId, to: RadioId) {
        let pkt = *ctx.pkts.get(id);
        let ra = self.mac_address(to, &pkt);
        let ta = self.stations[r.index()].node.get();
        let cfg = *self.ext_cfg(r);
        let rts_threshold = self.wlan_of(r).rts_threshold;
        let x = self.ext(r);
        x.queue_waits = true;
        // prepareMPDU
        let size = pkt.size + EXT_HEADER_BYTES;
        let seq = x.seq;
        x.seq = x.seq.wrapping_add(1);
        let txtime = cfg.txtime(size, pkt.mod_scheme);
        let duration = if ra != MAC_BROADCAST { usec(cfg.txtime(ACK_BYTES, cfg.basic_scheme) + cfg.sifs) } else { 0 };
        let frame = ExtFrame {
            kind: FrameType::Data,
            ra,
            ta,
            duration,
            size,
            scheme: pkt.mod_scheme,
            txtime,
            seq,
            packet: Some(pkt),
            src: r,
            refs: 0,
        };
        x.data = Some(DataOut { pkt: id, frame });
        if ra != MAC_BROADCAST && size > rts_threshold {
            x.rts = Some(rts_for(&cfg, &frame));
        }
        if x.bk == Bk::None {
            if x.cs == Channel::NoCsNoNav {
                self.txc_send(ctx, r);
            } else {
                x.txc = if x.rts.is_some() { Txc::RtsPending } else { Txc::DataPending };
                let cw = x.cw;
                self.bk_start(ctx, r, cw);
            }
        } else {
            x.txc = if x.rts.is_some() { Txc::RtsPending } else { Txc::DataPending };
        }
    }

    /// Sends the RTS if there is one, else the data.
    fn txc_send(&mut self, ctx: &mut Ctx, r: RadioId) {
        let x = self.ext(r);
        let (frame, state) = match x.rts {
            Some(rts) => (rts, Txc::WaitRtsSent),
            None => (x.data.expect("TXC sends the data it has").frame, Txc::WaitPduSent),
        };
        self.ext_transmit(ctx, r, frame, SentFor::Txc);
        self.ext(r).txc = state;
    }

    /// `checkQueue`: TXC is idle; the queue hands over its next packet, if it waits for that.
    fn check_queue(&mut self, ctx: &mut Ctx, r: RadioId) {
        let x = self.ext(r);
        x.txc = Txc::Idle;
        if !x.queue_waits {
            return;
        }
        x.queue_waits = false;
        if let Some((id, to, _)) = self.stations[r.index()].queue.pop_front() {
            self.ext_from_queue(ctx, r, id, to);
        }
    }

    // ---- the MAC's transmissions and the PHY's sending ----

    /// `Mac802_11Ext::transmit`: the MAC trace's `s` line, then the PHY sends a copy.
    fn ext_transmit(&mut self, ctx: &mut Ctx, r: RadioId, frame: ExtFrame, sent_for: SentFor) {
        self.ext(r).sent_for = sent_for;
        let stats = &mut self.stations[r.index()].stats;
        match frame.kind {
            FrameType::Rts => stats.rts += 1,
            FrameType::Cts => stats.cts += 1,
            FrameType::Ack => stats.acks += 1,
            FrameType::Data => stats.data += 1,
        }
        self.ext_trace(ctx, 's', r, &frame, "MAC", "---", false);
        self.phy_send(ctx, r, frame);
    }

    /// `WirelessPhyExt::sendDown`: a reception in progress is lost, the PHY sends, its own
    /// power enters the monitor, and the channel carries the frame to every radio in its box.
    fn phy_send(&mut self, ctx: &mut Ctx, r: RadioId, mut frame: ExtFrame) {
        let now = ctx.now_secs();
        match self.ext(r).phy {
            Phy::Tx => {
                // ns-2 exits here ("wrong in MAC logic case 1"): so does the run, with why
                let node = self.stations[r.index()].node.get();
                let why = format!("node {node}'s Mac/802_11Ext sent a frame while sending one, where ns-2.35 exits");
                return ctx.stop_run(crate::scenario::ScenarioError::new("wlans", why));
            }
            Phy::Rx | Phy::PreRx => {
                self.ext_cancel(r, ExtTimer::Rx);
                self.ext_cancel(r, ExtTimer::PreRx);
                let rx = self.ext(r).rx.take().expect("a reception in progress");
                self.phy_drop(ctx, r, rx.frame, rx.power, "INT");
            }
            Phy::Searching => {}
        }
        self.phy_state(ctx, r, Phy::Tx);
        self.ext_arm(ctx, r, ExtTimer::Tx, now + frame.txtime);
        let pt = self.wlan_of(r).radio.tx_power;
        self.record_power(ctx, r, pt, frame.txtime);
        self.ext_trace(ctx, 's', r, &frame, "PHY", "---", false);
        let mut reach = std::mem::take(&mut self.reach);
        self.ns2_reach(r, now, &mut reach);
        if reach.is_empty() {
            self.reach = reach;
            return;
        }
        frame.refs = reach.len() as u32;
        let f = self.ext_frame(frame);
        for &o in &reach {
            let from = self.locate(r, now);
            let d = super::distance(from, self.locate(o, now));
            let prop = if d == 0.0 { 2.0 * f64::EPSILON } else { d / self.wlan_of(r).radio.light };
            ctx.sched.schedule_exact(now + prop, Event::Wifi(WifiEvent::ExtArrive(o, f)));
        }
        self.reach = reach;
    }

    fn ext_frame(&mut self, frame: ExtFrame) -> FrameId {
        match self.ext_free.pop() {
            Some(f) => {
                self.ext_frames[f.index()] = frame;
                f
            }
            None => {
                self.ext_frames.push(frame);
                FrameId(self.ext_frames.len() as u32 - 1)
            }
        }
    }

    fn ext_unref(&mut self, f: FrameId) {
        let frame = &mut self.ext_frames[f.index()];
        frame.refs -= 1;
        if frame.refs == 0 {
            self.ext_free.push(f);
        }
    }

    // ---- the PHY ----

    /// `setState`: leaving SEARCHING the MAC hears busy, coming back idle, unless the power
    /// monitor already said so.
    fn phy_state(&mut self, ctx: &mut Ctx, r: RadioId, to: Phy) {
        let (cs_threshold, noise) = (self.ext_cfg(r).cs_threshold, self.ext_cfg(r).noise_floor);
        let x = self.ext(r);
        let quiet = x.level.max(noise) < cs_threshold;
        let from = x.phy;
        if from == Phy::Searching && to != Phy::Searching && quiet {
            self.cs_busy(ctx, r);
        } else if from != Phy::Searching && to == Phy::Searching && quiet {
            self.cs_idle(ctx, r);
        }
        self.ext(r).phy = to;
    }

    /// `PowerMonitor::recordPowerLevel`: a signal the monitor hears (at least its threshold)
    /// adds to the power until it ends.
    fn record_power(&mut self, ctx: &mut Ctx, r: RadioId, power: f64, duration: f64) {
        let (monitor, cs_threshold) = (self.ext_cfg(r).monitor_threshold, self.ext_cfg(r).cs_threshold);
        if power < monitor {
            return;
        }
        let now = ctx.now_secs();
        let end = now + duration;
        let x = self.ext(r);
        let at = x.signals.iter().position(|&(_, e)| e > end).unwrap_or(x.signals.len());
        x.signals.insert(at, (power, end));
        let first = x.signals[0].1;
        self.ext_arm(ctx, r, ExtTimer::Monitor, now + (first - now));
        let x = self.ext(r);
        x.level += power;
        if x.phy == Phy::Searching && x.level >= cs_threshold {
            self.cs_busy(ctx, r);
        }
    }

    /// The monitor's timer: the signals that have ended leave the sum.
    fn monitor_expires(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        let cs_threshold = self.ext_cfg(r).cs_threshold;
        let x = self.ext(r);
        let ended = x.signals.iter().take_while(|&&(_, end)| end <= now).count();
        for (power, _) in x.signals.drain(..ended) {
            x.level -= power;
        }
        if let Some(&(_, first)) = x.signals.first() {
            self.ext_arm(ctx, r, ExtTimer::Monitor, now + (first - now));
        }
        let x = self.ext(r);
        if x.phy == Phy::Searching && x.level < cs_threshold {
            self.cs_idle(ctx, r);
        }
    }

    /// `PowerMonitor::SINR` of a signal of `power`: against the rest of the power heard (0 if
    /// the monitor does not hold it).
    fn sinr(&mut self, r: RadioId, power: f64) -> f64 {
        let noise = self.ext_cfg(r).noise_floor;
        let level = self.ext(r).level.max(noise);
        if level - power <= 0.0 {
            0.0
        } else {
            power / (level - power)
        }
    }

    /// `WirelessPhyExt::sendUp`: frame `f` arrives at radio `r`.
    pub(super) fn ext_arrive(&mut self, ctx: &mut Ctx, r: RadioId, f: FrameId) {
        let now = ctx.now_secs();
        let frame = self.ext_frames[f.index()];
        let power = self.ext_power(ctx, r, frame.src, now);
        self.record_power(ctx, r, power, frame.txtime);
        let cfg = *self.ext_cfg(r);
        let basic = SINR[cfg.basic_scheme as usize];
        match self.ext(r).phy {
            Phy::Tx => self.phy_drop(ctx, r, f, power, "TXB"),
            Phy::Searching => {
                if self.sinr(r, power) >= basic {
                    self.ext(r).rx = Some(Reception::of(f, power));
                    self.phy_state(ctx, r, Phy::PreRx);
                    self.ext_arm(ctx, r, ExtTimer::PreRx, now + cfg.header_duration);
                } else {
                    self.phy_drop(ctx, r, f, power, "SXB");
                }
            }
            Phy::PreRx => {
                let current = self.ext(r).rx.expect("a preamble being received");
                if self.sinr(r, current.power) >= basic {
                    self.phy_drop(ctx, r, f, power, "PXB");
                } else {
                    // the preamble is lost; a much stronger newcomer may take its place
                    self.stations[r.index()].stats.collisions += 1;
                    self.ext(r).rx = None;
                    self.phy_drop(ctx, r, current.frame, current.power, "PXB");
                    self.ext_cancel(r, ExtTimer::PreRx);
                    if cfg.preamble_capture && self.sinr(r, power) >= cfg.sinr_preamble_capture {
                        self.ext(r).rx = Some(Reception::of(f, power));
                        self.ext_arm(ctx, r, ExtTimer::PreRx, now + cfg.header_duration);
                    } else {
                        self.phy_drop(ctx, r, f, power, "PXB");
                        self.phy_state(ctx, r, Phy::Searching);
                    }
                }
            }
            Phy::Rx => {
                let current = self.ext(r).rx.expect("a body being received");
                let th = self.ext(r).sinr_th_rx;
                if self.sinr(r, current.power) >= th {
                    self.phy_drop(ctx, r, f, power, "RXB");
                } else {
                    if let Some(rx) = self.ext(r).rx.as_mut().filter(|rx| !rx.errored) {
                        rx.errored = true;
                        self.stations[r.index()].stats.collisions += 1;
                    }
                    if cfg.data_capture && self.sinr(r, power) >= cfg.sinr_data_capture {
                        self.ext_cancel(r, ExtTimer::Rx);
                        self.ext(r).rx = Some(Reception::of(f, power));
                        self.phy_drop(ctx, r, current.frame, current.power, "RXB");
                        self.ext(r).phy = Phy::PreRx;
                        self.ext_arm(ctx, r, ExtTimer::PreRx, now + cfg.header_duration);
                    } else {
                        self.phy_drop(ctx, r, f, power, "RXB");
                    }
                }
            }
        }
    }

    /// The power at radio `r` of a frame from `src` arriving now: the radio's propagation
    /// model's, or Nakagami's mean with (if it fades) one Erlang draw of `m` exponentials.
    fn ext_power(&mut self, ctx: &mut Ctx, r: RadioId, src: RadioId, now: f64) -> f64 {
        let Some(n) = self.ext_cfg(r).nakagami else { return self.arrival_power(r, src, now) };
        // `Nakagami::Pr` asks the sender where it is, then the receiver
        let from = self.locate(src, now);
        let d = super::distance(from, self.locate(r, now));
        let mean = n.mean_power(&self.wlan_of(r).radio, d);
        if !n.fading {
            return mean;
        }
        let m = n.shape(d);
        let scale = mean / m;
        let draws = &mut self.stations[r.index()].draws;
        (0..m as u32).fold(0.0, |power, _| power + scale * -draws.uniform(&mut ctx.rng).ln())
    }

    /// The PHY drops frame `f` (received at `power`) and lets go of it.
    fn phy_drop(&mut self, ctx: &mut Ctx, r: RadioId, f: FrameId, power: f64, why: &'static str) {
        self.phy_discard(ctx, r, f, power, why);
        self.ext_unref(f);
    }

    /// `WirelessPhyExt::discard`: the PHY trace's drop line; a frame below the noise floor
    /// times its scheme's SINR is `DND`, below it times the basic scheme's `PND`.
    fn phy_discard(&mut self, ctx: &mut Ctx, r: RadioId, f: FrameId, power: f64, why: &'static str) {
        let frame = self.ext_frames[f.index()];
        if !self.motions.is_empty() {
            // it asks both nodes where they are (for its distance test), this one first:
            // moving nodes move on, traced or not
            let now = ctx.now_secs();
            self.locate(r, now);
            self.locate(frame.src, now);
        }
        if ctx.tracer.wireless.is_none() {
            return;
        }
        let cfg = self.ext_cfg(r);
        let mut why = why;
        if power < SINR[frame.scheme as usize] * cfg.noise_floor {
            why = "DND";
        }
        if power < SINR[cfg.basic_scheme as usize] * cfg.noise_floor {
            why = "PND";
        }
        self.ext_trace(ctx, 'D', r, &frame, "PHY", why, false);
    }

    /// The preamble is in: the body follows, errored if the SINR is short of its scheme's.
    fn preamble_ends(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        let rx = self.ext(r).rx.expect("a preamble being received");
        let frame = self.ext_frames[rx.frame.index()];
        let th = SINR[frame.scheme as usize];
        self.ext(r).sinr_th_rx = th;
        if self.sinr(r, rx.power) < th {
            self.ext(r).rx = Some(Reception { errored: true, ..rx });
        }
        self.ext(r).phy = Phy::Rx;
        let header = self.ext_cfg(r).header_duration;
        self.ext_arm(ctx, r, ExtTimer::Rx, now + (frame.txtime - header));
    }

    /// The body is in: the MAC hears of the frame, or of an error (EIFS).
    fn body_ends(&mut self, ctx: &mut Ctx, r: RadioId) -> Outcome {
        self.phy_state(ctx, r, Phy::Searching);
        let rx = self.ext(r).rx.take().expect("a body being received");
        if rx.errored {
            self.phy_drop(ctx, r, rx.frame, rx.power, "RXB");
            let eifs = self.ext_cfg(r).eifs();
            self.set_ifs(ctx, r, eifs);
            return Outcome::Nothing;
        }
        let out = self.mac_rx_end(ctx, r, rx.frame);
        self.ext_unref(rx.frame);
        out
    }

    // ---- the channel state manager ----

    fn cs_busy(&mut self, ctx: &mut Ctx, r: RadioId) {
        let x = self.ext(r);
        match x.cs {
            Channel::NoCsNoNav => {
                x.cs = Channel::CsNoNav;
                self.bk_busy(ctx, r);
            }
            Channel::NoCsNav => x.cs = Channel::CsNav,
            Channel::Wifs => {
                x.cs = Channel::CsNoNav;
                self.ext_cancel(r, ExtTimer::Ifs);
            }
            Channel::CsNoNav | Channel::CsNav => {}
        }
    }

    fn cs_idle(&mut self, ctx: &mut Ctx, r: RadioId) {
        let x = self.ext(r);
        match x.cs {
            Channel::CsNoNav => self.wait_ifs(ctx, r),
            Channel::CsNav => x.cs = Channel::NoCsNav,
            _ => {}
        }
    }

    /// Carrier and NAV both gone: DIFS or EIFS (`ifs`) before the medium counts as idle.
    fn wait_ifs(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        let x = self.ext(r);
        x.cs = Channel::Wifs;
        let ifs = x.ifs;
        self.ext_arm(ctx, r, ExtTimer::Ifs, now + ifs);
    }

    /// `setIFS`: the wait after the next idle; a wait under way starts over with it.
    fn set_ifs(&mut self, ctx: &mut Ctx, r: RadioId, ifs: f64) {
        self.ext(r).ifs = ifs;
        if self.ext_pending(r, ExtTimer::Ifs) {
            let now = ctx.now_secs();
            self.ext_arm(ctx, r, ExtTimer::Ifs, now + ifs);
        }
    }

    /// `handleSetNAV(t)`.
    fn cs_set_nav(&mut self, ctx: &mut Ctx, r: RadioId, t: f64) {
        let now = ctx.now_secs();
        let x = self.ext(r);
        match x.cs {
            Channel::NoCsNoNav => {
                x.cs = Channel::NoCsNav;
                self.nav_for(ctx, r, t);
                self.bk_busy(ctx, r);
            }
            Channel::CsNoNav => {
                x.cs = Channel::CsNav;
                self.nav_for(ctx, r, t);
            }
            Channel::NoCsNav | Channel::CsNav => {
                if t > x.nav_end - now {
                    self.nav_for(ctx, r, t);
                }
            }
            Channel::Wifs => {
                x.cs = Channel::NoCsNav;
                self.nav_for(ctx, r, t);
                self.ext_cancel(r, ExtTimer::Ifs);
            }
        }
    }

    /// `NAVTimer::update_and_sched`.
    fn nav_for(&mut self, ctx: &mut Ctx, r: RadioId, t: f64) {
        let now = ctx.now_secs();
        self.ext(r).nav_end = t + now;
        self.ext_arm(ctx, r, ExtTimer::Nav, now + t);
    }

    fn ifs_ends(&mut self, ctx: &mut Ctx, r: RadioId) {
        let x = self.ext(r);
        if x.cs == Channel::Wifs {
            x.cs = Channel::NoCsNoNav;
            self.bk_idle(ctx, r);
        }
    }

    fn nav_ends(&mut self, ctx: &mut Ctx, r: RadioId) {
        let x = self.ext(r);
        match x.cs {
            Channel::NoCsNav => self.wait_ifs(ctx, r),
            Channel::CsNav => x.cs = Channel::CsNoNav,
            _ => {}
        }
    }

    // ---- the backoff manager ----

    /// `handleBKStart(cw)`: a backoff of `Random::integer(cw + 1)` slots, unless one runs.
    fn bk_start(&mut self, ctx: &mut Ctx, r: RadioId, cw: u32) {
        if self.ext(r).bk != Bk::None {
            return;
        }
        let s = &mut self.stations[r.index()];
        let slots = i64::from(s.draws.integer(cw + 1, &mut ctx.rng));
        let x = self.ext(r);
        x.slots = slots;
        if x.cs != Channel::NoCsNoNav {
            x.bk = Bk::Paused;
        } else if slots == 0 {
            self.txc_bk_done(ctx, r);
        } else {
            x.bk = Bk::Running;
            self.bk_run(ctx, r);
        }
    }

    fn bk_run(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        let slot = self.ext_cfg(r).slot;
        let x = self.ext(r);
        if x.slots == 0 {
            x.bk = Bk::None;
            return self.txc_bk_done(ctx, r);
        }
        x.bk_start = now;
        let at = now + x.slots as f64 * slot;
        self.ext_arm(ctx, r, ExtTimer::Backoff, at);
    }

    fn bk_busy(&mut self, ctx: &mut Ctx, r: RadioId) {
        if self.ext(r).bk != Bk::Running {
            return;
        }
        let now = ctx.now_secs();
        let slot = self.ext_cfg(r).slot;
        let x = self.ext(r);
        x.bk = Bk::Paused;
        // whole slots counted; a partial one is counted again
        x.slots -= ((now - x.bk_start) / slot).floor() as i64;
        self.ext_cancel(r, ExtTimer::Backoff);
    }

    fn bk_idle(&mut self, ctx: &mut Ctx, r: RadioId) {
        if self.ext(r).bk == Bk::Paused {
            self.ext(r).bk = Bk::Running;
            self.bk_run(ctx, r);
        }
    }

    fn bk_ends(&mut self, ctx: &mut Ctx, r: RadioId) {
        let x = self.ext(r);
        if x.bk == Bk::Running {
            x.bk = Bk::None;
            self.txc_bk_done(ctx, r);
        }
    }

    // ---- transmission coordination ----

    fn txc_bk_done(&mut self, ctx: &mut Ctx, r: RadioId) {
        if matches!(self.ext(r).txc, Txc::RtsPending | Txc::DataPending) {
            self.txc_send(ctx, r);
        }
    }

    /// The PHY's transmission ended (`handleTXEndIndication`), then it searches again.
    fn tx_ends(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        let cfg = *self.ext_cfg(r);
        let x = self.ext(r);
        match (x.sent_for, x.txc) {
            (SentFor::Rxc, _) => x.ctrl = None,
            (SentFor::Txc, Txc::WaitPduSent) => {
                let data = x.data.expect("the data just sent");
                if data.frame.ra != MAC_BROADCAST {
                    x.txc = Txc::WaitAck;
                    let at = now + (cfg.sifs + cfg.txtime(ACK_BYTES, cfg.basic_scheme) + MAX_PROPAGATION);
                    self.ext_arm(ctx, r, ExtTimer::AckTimeout, at);
                } else {
                    x.data = None;
                    ctx.pkts.release(data.pkt); // sent: the sender's copy is freed
                    let cw = x.cw;
                    self.bk_start(ctx, r, cw);
                    self.check_queue(ctx, r);
                }
            }
            (SentFor::Txc, Txc::WaitRtsSent) => {
                x.txc = Txc::WaitCts;
                let at = now + (cfg.sifs + cfg.txtime(CTS_BYTES, cfg.basic_scheme) + MAX_PROPAGATION);
                self.ext_arm(ctx, r, ExtTimer::CtsTimeout, at);
            }
            _ => {}
        }
        self.phy_state(ctx, r, Phy::Searching);
    }

    fn inc_cw(&mut self, r: RadioId) {
        let cw_max = self.wlan_of(r).cw_max;
        let x = self.ext(r);
        x.cw = ((x.cw << 1) + 1).min(cw_max);
    }

    /// The exchange is over (acknowledged or given up): counters and window reset, a
    /// post-backoff, the queue's next packet.
    fn exchange_over(&mut self, ctx: &mut Ctx, r: RadioId) {
        let cw_min = self.wlan_of(r).cw_min;
        let x = self.ext(r);
        x.short_retries = 0;
        x.long_retries = 0;
        x.cw = cw_min;
        self.bk_start(ctx, r, cw_min);
        self.check_queue(ctx, r);
    }

    /// The data (and its RTS, if any) given up: `D MAC RET` lines, the packet lost.
    fn give_up(&mut self, ctx: &mut Ctx, r: RadioId) -> Outcome {
        if let Some(rts) = self.ext(r).rts.take() {
            self.ext_trace(ctx, 'D', r, &rts, "MAC", "RET", false);
        }
        let data = self.ext(r).data.take().expect("the data given up");
        self.ext_trace(ctx, 'D', r, &data.frame, "MAC", "RET", false);
        self.stations[r.index()].stats.retry_drops += 1;
        self.exchange_over(ctx, r);
        Outcome::Dropped(data.pkt)
    }

    fn cts_timeout(&mut self, ctx: &mut Ctx, r: RadioId) -> Outcome {
        if self.ext(r).txc != Txc::WaitCts {
            return Outcome::Nothing;
        }
        let limit = self.wlan_of(r).short_retry_limit;
        self.ext(r).short_retries += 1;
        self.inc_cw(r);
        if self.ext(r).short_retries >= limit {
            return self.give_up(ctx, r);
        }
        self.stations[r.index()].stats.retries += 1;
        let x = self.ext(r);
        x.txc = Txc::RtsPending;
        let cw = x.cw;
        self.bk_start(ctx, r, cw);
        Outcome::Nothing
    }

    fn ack_timeout(&mut self, ctx: &mut Ctx, r: RadioId) -> Outcome {
        if self.ext(r).txc != Txc::WaitAck {
            return Outcome::Nothing;
        }
        let cfg = *self.ext_cfg(r);
        let w = self.wlan_of(r);
        let (threshold, short_limit, long_limit) = (w.rts_threshold, w.short_retry_limit, w.long_retry_limit);
        let x = self.ext(r);
        let data = x.data.expect("the data awaiting its ACK").frame;
        let long = data.size > threshold;
        let (count, limit) = if long {
            x.long_retries += 1;
            (x.long_retries, long_limit)
        } else {
            x.short_retries += 1;
            (x.short_retries, short_limit)
        };
        self.inc_cw(r);
        if count >= limit {
            return self.give_up(ctx, r);
        }
        self.stations[r.index()].stats.retries += 1;
        let x = self.ext(r);
        if data.ra != MAC_BROADCAST && long {
            x.rts = Some(rts_for(&cfg, &data));
            x.txc = Txc::RtsPending;
        } else {
            x.txc = Txc::DataPending;
        }
        let cw = x.cw;
        self.bk_start(ctx, r, cw);
        Outcome::Nothing
    }

    // ---- reception ----

    /// `handleRXEndIndication` of an intact frame: DIFS from now on; a frame for this radio
    /// goes to reception coordination, another's sets the NAV.
    fn mac_rx_end(&mut self, ctx: &mut Ctx, r: RadioId, f: FrameId) -> Outcome {
        let difs = self.ext_cfg(r).difs();
        self.set_ifs(ctx, r, difs);
        let frame = self.ext_frames[f.index()];
        let me = self.stations[r.index()].node.get();
        if frame.ra != me && frame.ra != MAC_BROADCAST {
            self.cs_set_nav(ctx, r, sec(frame.duration));
            return Outcome::Nothing;
        }
        let now = ctx.now_secs();
        let cfg = *self.ext_cfg(r);
        match frame.kind {
            FrameType::Ack => {
                if self.ext(r).txc == Txc::WaitAck {
                    self.ext_cancel(r, ExtTimer::AckTimeout);
                    let data = self.ext(r).data.take().expect("the data acknowledged");
                    ctx.pkts.release(data.pkt); // acknowledged: the sender's copy is freed
                    self.exchange_over(ctx, r);
                }
                self.ext_trace(ctx, 'r', r, &frame, "MAC", "---", false);
            }
            FrameType::Rts => {
                self.ext_trace(ctx, 'r', r, &frame, "MAC", "---", false);
                if !matches!(self.ext(r).cs, Channel::NoCsNav | Channel::CsNav) {
                    let duration = usec(sec(frame.duration) - cfg.sifs - cfg.txtime(CTS_BYTES, cfg.basic_scheme));
                    self.answer_after_sifs(ctx, r, control(&cfg, FrameType::Cts, frame.ta, duration, r));
                }
            }
            FrameType::Cts => {
                let x = self.ext(r);
                if x.txc == Txc::WaitCts {
                    x.rts = None;
                    x.short_retries = 0;
                    x.txc = Txc::WaitSifs;
                    self.ext_cancel(r, ExtTimer::CtsTimeout);
                    self.ext_arm(ctx, r, ExtTimer::TxcSifs, now + cfg.sifs);
                }
                self.ext_trace(ctx, 'r', r, &frame, "MAC", "---", false);
            }
            FrameType::Data => {
                if frame.ra == me {
                    self.answer_after_sifs(ctx, r, control(&cfg, FrameType::Ack, frame.ta, 0, r));
                }
                return self.recv_data(ctx, r, &frame);
            }
        }
        Outcome::Nothing
    }

    /// Reception coordination answers with `ctrl` (a CTS or ACK) a SIFS from now. A second
    /// answer while one waits makes ns-2 abort (its SIFS timer scheduled twice), which only a
    /// SIFS longer than the shortest frame allows: so does the run, with why.
    fn answer_after_sifs(&mut self, ctx: &mut Ctx, r: RadioId, ctrl: ExtFrame) {
        if self.ext_pending(r, ExtTimer::RxcSifs) {
            let node = self.stations[r.index()].node.get();
            let why = format!(
                "node {node}'s Mac/802_11Ext received a second frame to answer within SIFS, where ns-2.35 aborts (a SIFS longer than the shortest frame)"
            );
            return ctx.stop_run(crate::scenario::ScenarioError::new("wlans", why));
        }
        self.ext(r).ctrl = Some(ctrl);
        let at = ctx.now_secs() + self.ext_cfg(r).sifs;
        self.ext_arm(ctx, r, ExtTimer::RxcSifs, at);
    }

    /// `recvDATA`: a unicast frame seen before is a duplicate (`D MAC DUP`); otherwise the MAC
    /// trace's `r` line, and the packet goes up to the link layer.
    fn recv_data(&mut self, ctx: &mut Ctx, r: RadioId, frame: &ExtFrame) -> Outcome {
        if frame.ra != MAC_BROADCAST {
            let x = self.ext(r);
            if let Some(last) = x.last_seq.get_mut(frame.ta as usize) {
                if *last != 0 && *last == frame.seq {
                    self.ext_trace(ctx, 'D', r, frame, "MAC", "DUP", true);
                    return Outcome::Nothing;
                }
                *last = frame.seq;
            }
        }
        self.ext_trace(ctx, 'r', r, frame, "MAC", "---", true);
        let id = ctx.pkts.alloc(frame.packet.expect("a data frame carries a packet"));
        if ctx.tracer.wireless.is_some() {
            let header = RxHeader { mac: ext_mac(frame), forwards: 1, next_hop: NO_NEXT_HOP };
            self.mac_headers.push((id, header));
        }
        let from = self.stations[frame.src.index()].node;
        Outcome::Delivered { node: self.stations[r.index()].node, from, radio: r, id }
    }

    /// A radio's timer fires.
    pub(super) fn ext_timer(&mut self, ctx: &mut Ctx, r: RadioId, which: ExtTimer, gen: u32) -> Outcome {
        let timer = &mut self.ext(r).timers[which as usize];
        if !ctx.sched.fire(timer, gen, |gen| Event::Wifi(WifiEvent::ExtTimer(r, which, gen))) {
            return Outcome::Nothing;
        }
        match which {
            ExtTimer::Tx => self.tx_ends(ctx, r),
            ExtTimer::PreRx => self.preamble_ends(ctx, r),
            ExtTimer::Rx => return self.body_ends(ctx, r),
            ExtTimer::Monitor => self.monitor_expires(ctx, r),
            ExtTimer::Ifs => self.ifs_ends(ctx, r),
            ExtTimer::Nav => self.nav_ends(ctx, r),
            ExtTimer::Backoff => self.bk_ends(ctx, r),
            ExtTimer::CtsTimeout => return self.cts_timeout(ctx, r),
            ExtTimer::AckTimeout => return self.ack_timeout(ctx, r),
            ExtTimer::TxcSifs => {
                if self.ext(r).txc == Txc::WaitSifs {
                    let data = self.ext(r).data.expect("the data after its CTS").frame;
                    self.ext_transmit(ctx, r, data, SentFor::Txc);
                    self.ext(r).txc = Txc::WaitPduSent;
                }
            }
            ExtTimer::RxcSifs => {
                if let Some(ctrl) = self.ext(r).ctrl {
                    self.ext_transmit(ctx, r, ctrl, SentFor::Rxc);
                }
            }
        }
        Outcome::Nothing
    }

    // ---- the trace ----

    /// A MAC or PHY line for `frame` at radio `r`; `received`: the MAC has taken its header
    /// bytes off (`recvDATA`).
    #[allow(clippy::too_many_arguments)]
    fn ext_trace(
        &mut self,
        ctx: &mut Ctx,
        ev: char,
        r: RadioId,
        frame: &ExtFrame,
        layer: &'static str,
        why: &'static str,
        received: bool,
    ) {
        if ctx.tracer.wireless.is_none() {
            return;
        }
        let now = ctx.now_secs();
        let control = match frame.kind {
            FrameType::Rts => Some("RTS"),
            FrameType::Cts => Some("CTS"),
            FrameType::Ack => Some("ACK"),
            FrameType::Data => None,
        };
        let size = if received { frame.size - EXT_HEADER_BYTES } else { frame.size };
        let e = WirelessEvent {
            ev,
            now,
            node: self.stations[r.index()].node,
            pos: self.traced_position(ctx, r, now, layer, ev),
            layer,
            reason: why,
            mac: ext_mac(frame),
            control,
            packet: frame.packet.as_ref(),
            size,
            forwards: 0,
            next_hop: NO_NEXT_HOP,
        };
        ctx.tracer.wireless_event(&e);
    }
}

/// The MAC header as ns-2's trace prints an Ext frame's: duration, receiver, transmitter (none
/// in a CTS or ACK), and an ether type of 0 (the link layer wrote it where Mac/802_11's
/// header, which cmu-trace reads, has its fourth address).
fn ext_mac(frame: &ExtFrame) -> (u32, u32, u32, u32) {
    let ta = if matches!(frame.kind, FrameType::Cts | FrameType::Ack) { 0 } else { frame.ta };
    (u32::from(frame.duration), frame.ra, ta, 0)
}

/// `generateRTSFrame` for data frame `data`: its duration covers CTS, data and ACK with their
/// SIFS, summed in ns-2's order.
fn rts_for(cfg: &ExtConfig, data: &ExtFrame) -> ExtFrame {
    let basic = cfg.basic_scheme;
    let t = cfg.sifs + cfg.txtime(CTS_BYTES, basic) + cfg.sifs + data.txtime + cfg.sifs + cfg.txtime(ACK_BYTES, basic);
    ExtFrame {
        kind: FrameType::Rts,
        size: RTS_BYTES,
        scheme: basic,
        txtime: cfg.txtime(RTS_BYTES, basic),
        duration: usec(t),
        packet: None,
        ..*data
    }
}

/// A CTS or ACK from radio `src` to MAC address `ra`.
fn control(cfg: &ExtConfig, kind: FrameType, ra: u32, duration: u16, src: RadioId) -> ExtFrame {
    let size = if kind == FrameType::Cts { CTS_BYTES } else { ACK_BYTES };
    ExtFrame {
        kind,
        ra,
        ta: 0,
        duration,
        size,
        scheme: cfg.basic_scheme,
        txtime: cfg.txtime(size, cfg.basic_scheme),
        seq: 0,
        packet: None,
        src,
        refs: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::RunOptions;
    use crate::scenario::Scenario;
    use crate::sim::Simulation;
    use crate::wifi::config::Nakagami;

    /// Three radios at `x` on a line, on ex/802.11's settings, node 1's PBC agent sending
    /// `sends` and node 2's `n2_sends`, run to 1.1 s: the ns-2 trace, MAC and PHY lines on.
    fn run(x: [f64; 3], sends: &str, n2_sends: &str) -> String {
        run_with(x, sends, n2_sends, "", "")
    }

    /// `run` with more settings of the WLAN (`wlan`) and of node 1's agent (`agent`).
    fn run_with(x: [f64; 3], sends: &str, n2_sends: &str, wlan: &str, agent: &str) -> String {
        let toml = format!(
            r#"
name = "ext"
duration = "1.1s"
seed = 1
nodes = ["n0", "n1", "n2"]
[positions]
n0 = [{}, 0]
n1 = [{}, 0]
n2 = [{}, 0]
[[wlans]]
nodes = ["n0", "n1", "n2"]
mac = "802_11Ext"
rts_threshold = 2000
{wlan}
ext = {{ tx_power = 0.001, noise_floor = 2.51189e-13, power_monitor_threshold = 2.10319e-12, sinr_preamble_capture = 2.5118, sinr_data_capture = 100.0 }}
[[pbc]]
node = "n0"
[[pbc]]
node = "n1"
payload = 1000
{agent}
sends = [{sends}]
[[pbc]]
node = "n2"
payload = 1000
sends = [{n2_sends}]
[output]
trace = ["ns2"]
phy_trace = true
"#,
            x[0], x[1], x[2]
        );
        let tag = format!("{}-{}-{}-{}-{}-{}", x[0], x[2], sends.len(), n2_sends.len(), wlan.len(), agent.len());
        let dir = std::env::temp_dir().join(format!("tcplab-ext-{}-{tag}", std::process::id()));
        let opts = RunOptions { out_dir: Some(dir.clone()), ..RunOptions::default() };
        let mut sim = Simulation::new(Scenario::from_toml(&toml).unwrap(), &opts).unwrap();
        sim.advance(sim.end());
        drop(sim);
        let text = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
        text
    }

    fn time(line: &str) -> f64 {
        line.split(' ').nth(1).unwrap().parse().unwrap()
    }

    /// ns-2's OFDM times: header 20 µs, then 4 µs symbols of 24 bits (BPSK) or 48 (QPSK), with
    /// 22 bits more; EIFS is SIFS + DIFS + an ACK at the basic scheme.
    #[test]
    fn frame_times_are_ns2s() {
        let c = ExtConfig::default();
        let us = |t: f64| (t * 1e6).round() as u32;
        assert_eq!(us(c.txtime(ACK_BYTES, 0)), 44);
        assert_eq!(us(c.txtime(RTS_BYTES, 0)), 52);
        assert_eq!(us(c.txtime(1028, 0)), 1396);
        assert_eq!(us(c.txtime(1028, 1)), 708);
        assert_eq!(us(c.txtime(2528, 0)), 3396);
        assert_eq!((us(c.difs()), us(c.eifs())), (34, 94));
    }

    /// A frame to a MAC address nobody has goes `short_retry_limit` times, each a backoff after
    /// its ACK timeout (SIFS + ACK + 10 µs) and EIFS (a radio that has received nothing
    /// waits EIFS), then is dropped `D MAC RET` as its last try's timeout ends; an answered one
    /// is received, acknowledged after SIFS.
    #[test]
    fn an_unanswered_frame_is_tried_seven_times() {
        let trace = run([0.0, 10.0, 20.0], r#"{ at = "0.5s", to = 7 }, { at = "1.0s", to = "n2" }"#, "");
        let tries: Vec<&str> =
            trace.lines().filter(|l| l.starts_with("s ") && l.contains("MAC  --- 0 PBC 1028 [3c 7 1 0]")).collect();
        assert_eq!(tries.len(), 7, "{trace}");
        let ret = trace.lines().find(|l| l.starts_with("D ") && l.contains("MAC  RET")).expect("a RET drop");
        let last = time(tries[6]);
        assert!((time(ret) - (last + 1396e-6 + 70e-6)).abs() < 1e-9, "{ret} after {}", tries[6]);
        for pair in tries.windows(2) {
            let gap = time(pair[1]) - time(pair[0]) - 1396e-6 - 94e-6;
            let slots = gap / 9e-6;
            assert!(gap >= -1e-9 && (slots - slots.round()).abs() < 1e-6, "whole slots between tries: {pair:?}");
        }
        let data =
            trace.lines().find(|l| l.starts_with("r ") && l.contains("_2_ MAC  --- 1 PBC 1000")).expect("received");
        let ack =
            trace.lines().find(|l| l.starts_with("s ") && l.contains("_2_ MAC  --- 0 ACK 14 [0 1 0 0]")).expect("ACK");
        assert!((time(ack) - time(data) - 16e-6).abs() < 1e-9);
    }

    /// Above the RTS threshold a frame goes after RTS/CTS, whose durations cover what follows.
    #[test]
    fn a_long_frame_goes_after_rts_and_cts() {
        let trace = run([0.0, 10.0, 20.0], r#"{ at = "0.5s", to = "n2", payload = 2500 }"#, "");
        assert!(trace.contains("MAC  --- 0 RTS 20 [dcc 2 1 0]"), "{trace}");
        assert!(trace.contains("_2_ MAC  --- 0 CTS 14 [d90 1 0 0]"), "{trace}");
        assert!(trace.contains("r ") && trace.contains("_2_ MAC  --- 0 PBC 2500 [3c 2 1 0]"), "{trace}");
        // the RTS and CTS go at the basic scheme (BPSK) whatever the data's (here QAM64): the
        // CTS leaves the RTS's 52 µs, 10 m (33 ns) and SIFS after the RTS
        let sends = r#"{ at = "0.5s", to = "n2", payload = 2500 }"#;
        let qam = run_with([0.0, 10.0, 20.0], sends, "", "", "modulation = \"qam64\"");
        let sent = |what: &str| time(qam.lines().find(|l| l.starts_with("s ") && l.contains(what)).unwrap());
        let gap = sent("MAC  --- 0 CTS") - sent("MAC  --- 0 RTS");
        assert!((gap - (52e-6 + 10.0 / 3e8 + 16e-6)).abs() < 1e-9, "{gap}: {qam}");
        assert!(qam.lines().any(|l| l.starts_with("r ") && l.contains("_2_ MAC  --- 0 PBC 2500")), "{qam}");
        // 40 m apart the SINR (about 50) takes BPSK (3.2) but not QAM64 (316): the RTS is
        // answered, the data is lost each time, below QAM64's SINR times the noise (`DND`)
        let far = run_with([0.0, 40.0, 80.0], sends, "", "", "modulation = \"qam64\"");
        assert!(far.lines().any(|l| l.starts_with("s ") && l.contains("_2_ MAC  --- 0 CTS")), "{far}");
        assert!(far.lines().any(|l| l.starts_with("D ") && l.contains("_2_ PHY  DND 0 PBC 2528")), "{far}");
        assert!(!far.lines().any(|l| l.starts_with("r ") && l.contains("_2_ MAC  --- 0 PBC")), "{far}");
    }

    /// A signal below the power monitor's threshold is not heard at all: its SINR is 0 and the
    /// searching PHY drops it (`SXB`, `PND` below the noise floor times the basic SINR). At
    /// 100 m the frame is received; at 105 m, dropped.
    #[test]
    fn a_frame_below_the_monitor_threshold_is_never_received() {
        // node 1 sends; node 0 is 105 m away, node 2 100 m
        let trace = run([0.0, 105.0, 205.0], r#"{ at = "0.5s" }"#, "");
        assert!(trace.lines().any(|l| l.starts_with("r ") && l.contains("_2_ MAC")), "at 100 m: {trace}");
        let far = trace;
        let dropped = far.lines().find(|l| l.contains("_0_ PHY")).expect("a PHY drop at node 0");
        assert!(dropped.starts_with("D ") && dropped.contains(" SXB "), "{dropped}");
        assert!(!far.lines().any(|l| l.starts_with("r ") && l.contains("_0_ MAC")), "{far}");
    }

    /// Two equal frames that arrive together at a radio between their senders destroy each
    /// other's preamble: the first is lost when the second comes (`PXB`), the second, too weak
    /// to capture the radio, with it.
    #[test]
    fn equal_frames_arriving_together_both_lose_their_preambles() {
        // nodes 1 and 2 broadcast at once, 10 m on either side of node 0
        let trace = run([10.0, 0.0, 20.0], r#"{ at = "0.5s" }"#, r#"{ at = "0.5s" }"#);
        for sender in ["_1_", "_2_"] {
            let heard = trace.lines().find(|l| l.starts_with("D ") && l.contains(&format!("{sender} PHY")));
            assert!(heard.is_some_and(|l| l.contains(" TXB ")), "a sender hears the other as it sends: {trace}");
        }
        let at_0: Vec<&str> = trace.lines().filter(|l| l.contains("_0_ PHY") && l.starts_with("D ")).collect();
        assert_eq!(at_0.len(), 2, "node 0 loses both: {trace}");
        assert!(at_0.iter().all(|l| l.contains(" PXB ")), "{at_0:?}");
        assert!(!trace.lines().any(|l| l.starts_with("r ") && l.contains("_0_ MAC")), "{trace}");
    }

    /// Nakagami's log-distance loss with exponent 2 is Friis: without fading, the radios act
    /// as over two-ray ground (Friis below its crossover); with fading (m 1: a power drawn
    /// exponentially around the mean for each frame and receiver) a frame 150 m away is
    /// sometimes heard, sometimes not, where the mean alone never reaches the monitor.
    #[test]
    fn nakagami_of_exponent_2_is_friis_and_fades_around_it() {
        let n = Nakagami { gamma: [2.0; 3], m: [1.0; 3], ..Nakagami::default() };
        let radio = crate::wifi::phy::Radio {
            tx_power: 0.001,
            frequency: 5.18e9,
            light: crate::wifi::phy::NS2_LIGHT,
            propagation: crate::wifi::phy::Propagation::FreeSpace,
            ns2: true,
            ..Default::default()
        };
        for d in [1.0, 10.0, 150.0, 199.0] {
            let (a, b) = (n.mean_power(&radio, d), radio.rx_power(d));
            assert!((a - b).abs() <= 1e-12 * b, "{d} m: {a} against Friis {b}");
        }
        let sends = r#"{ at = "0.5s" }, { at = "0.6s" }, { at = "0.7s" }"#;
        let mean = r#"propagation = "nakagami"
nakagami = { gamma = [2, 2, 2], fading = false }"#;
        assert_eq!(run_with([0.0, 10.0, 20.0], sends, "", mean, ""), run([0.0, 10.0, 20.0], sends, ""));
        let fading = r#"propagation = "nakagami"
nakagami = { gamma = [2, 2, 2], m = [1, 1, 1], fading = true }"#;
        let heard = |trace: &str| trace.lines().filter(|l| l.starts_with("r ") && l.contains("_0_ MAC")).count();
        // node 1 sends; node 0 is 150 m away: the mean is half the monitor's threshold
        let sends: String = (0..40).map(|i| format!("{{ at = \"{}s\" }}, ", 0.1 + 0.02 * f64::from(i))).collect();
        assert_eq!(heard(&run([0.0, 150.0, 160.0], &sends, "")), 0);
        let faded = heard(&run_with([0.0, 150.0, 160.0], &sends, "", fading, ""));
        assert!(faded > 0 && faded < 40, "{faded} of 40 heard");
    }

    /// The duration field keeps 16 bits as C's cast does: an RTS before 50,000 bytes at BPSK
    /// (66,000 µs and more) wraps, as ns-2's does (`[530 ...]`, where saturating would give
    /// `ffff`).
    #[test]
    fn a_duration_field_wraps_in_16_bits() {
        assert_eq!(usec(66_864e-6), (66_864 - 65_536) as u16);
        assert_eq!(usec(-5e-6), 65_531);
        let c = ExtConfig::default();
        let data = c.txtime(50_000 + EXT_HEADER_BYTES, 0);
        let t = c.sifs + c.txtime(CTS_BYTES, 0) + c.sifs + data + c.sifs + c.txtime(ACK_BYTES, 0);
        assert_eq!(format!("{:x}", usec(t)), "530");
    }

    /// A PBC packet at a node without an agent stops the run, naming it, as ns-2 stops
    /// (its port classifier's `no-slot`).
    #[test]
    fn a_pbc_packet_at_a_node_without_an_agent_stops_the_run() {
        let toml = r#"
name = "ext"
duration = "1s"
nodes = ["n0", "n1"]
[positions]
n0 = [0, 0]
n1 = [10, 0]
[[wlans]]
nodes = ["n0", "n1"]
mac = "802_11Ext"
[[pbc]]
node = "n0"
sends = [{ at = "0.5s" }]
"#;
        let mut sim = Simulation::new(Scenario::from_toml(toml).unwrap(), &RunOptions::default()).unwrap();
        sim.advance(sim.end());
        let why = sim.stopped().expect("stopped");
        assert!(why.path == "pbc" && why.message.contains("node 1"), "{why}");
    }

    /// With a SIFS longer than a short frame, a radio may get a second frame to answer while
    /// its first answer waits: ns-2 aborts (its SIFS timer scheduled twice), and the run stops
    /// saying why. Two hidden senders 180 m apart, each 90 m from the receiver.
    #[test]
    fn a_second_frame_to_answer_within_sifs_stops_the_run() {
        let toml = r#"
name = "ext"
duration = "1s"
nodes = ["a", "b", "c"]
[positions]
a = [10, 10]
b = [100, 10]
c = [190, 10]
[[wlans]]
nodes = ["a", "b", "c"]
mac = "802_11Ext"
ext = { tx_power = 0.001, noise_floor = 2.51189e-13, power_monitor_threshold = 2.10319e-12, sifs = "100us" }
[[pbc]]
node = "a"
payload = 100
sends = [{ at = "0.1s", to = "b" }]
[[pbc]]
node = "b"
[[pbc]]
node = "c"
payload = 1
sends = [{ at = "0.100197s", to = "b" }]
"#;
        let mut sim = Simulation::new(Scenario::from_toml(toml).unwrap(), &RunOptions::default()).unwrap();
        sim.advance(sim.end());
        let why = sim.stopped().expect("stopped");
        assert!(why.path == "wlans" && why.message.contains("within SIFS"), "{why}");
    }

    /// Bad settings name their field.
    #[test]
    fn bad_settings_name_their_field() {
        let base = r#"
name = "ext"
duration = "1s"
nodes = ["n0", "n1", "n2"]
[positions]
n0 = [0, 0]
n1 = [10, 0]
n2 = [20, 0]
[[wlans]]
nodes = ["n0", "n1"]
mac = "802_11Ext"
[[pbc]]
node = "n0"
"#;
        // without an `ext` table, Phy/WirelessPhyExt's defaults: 0.1 W at 5.18 GHz
        let radio = &Scenario::from_toml(base).unwrap().wlans[0].radio;
        assert_eq!((radio.tx_power, radio.frequency), (0.1, 5.18e9));
        for (from, to, field) in [
            ("mac = \"802_11Ext\"", "mac = \"802_11Ext\"\nprofile = \"standard\"", "wlans[0].profile"),
            ("mac = \"802_11Ext\"", "mac = \"802_11g\"", "wlans[0].mac"),
            ("mac = \"802_11Ext\"", "ext = { noise_floor = 1e-13 }", "wlans[0].ext"),
            ("mac = \"802_11Ext\"", "mac = \"802_11Ext\"\next = { noise_floor = -1 }", "wlans[0].ext.noise_floor"),
            ("node = \"n0\"", "node = \"n2\"", "pbc[0].node"),
            ("node = \"n0\"", "node = \"n0\"\nmodulation = \"qam256\"", "pbc[0].modulation"),
            ("node = \"n0\"", "node = \"n0\"\nsends = [{ to = \"n1\" }]", "pbc[0].sends[0].at"),
            ("node = \"n0\"", "node = \"n0\"\ninterval = \"1s\"", "pbc[0].interval"),
            ("mac = \"802_11Ext\"", "propagation = \"nakagami\"", "wlans[0].propagation"),
            ("mac = \"802_11Ext\"", "mac = \"802_11Ext\"\nnakagami = { fading = true }", "wlans[0].nakagami"),
            (
                "mac = \"802_11Ext\"",
                "mac = \"802_11Ext\"\npropagation = \"nakagami\"\nnakagami = { fading = true }",
                "wlans[0].nakagami.m",
            ),
            (
                "mac = \"802_11Ext\"",
                "mac = \"802_11Ext\"\npropagation = \"nakagami\"\nnakagami = { gamma_distances = [0, 500] }",
                "wlans[0].nakagami.gamma_distances",
            ),
        ] {
            let e = Scenario::from_toml(&base.replace(from, to)).expect_err(to);
            assert_eq!(e.path, field, "{to}: {e}");
        }
    }
}
