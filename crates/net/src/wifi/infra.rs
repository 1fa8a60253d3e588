//! ns-2.35's infrastructure mode (ns2 profile, `WlanConfig::infrastructure`): access points
//! that beacon, stations that scan (actively, with a probe request, or passively, listening to
//! beacons), then authenticate and associate with the strongest access point they heard. All
//! of it as mac/mac-802_11.cc does it: the management frames share the DCF's one backoff with
//! the data, an access point sends its own in the order they were made (`add_priority_queue`),
//! a station its probe request, then authentication, then association request.

use super::event::MacTimer;
use super::event::{RelayHeader, WifiEvent};
use super::{Frame, FrameKind, RadioId, State, Via, Wifi, BROADCAST, NOWHERE};
use crate::ctx::{Ctx, Event};
use crate::packet::Packet;
use tcplab_des::Ns2Rng;

/// A management frame, with the name ns-2's traces give it (cmu-trace.cc, `format_mac_common`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mgmt {
    Beacon,
    ProbeReq,
    ProbeRep,
    Auth,
    AssocReq,
    AssocRep,
}

impl Mgmt {
    pub fn name(self) -> &'static str {
        match self {
            Mgmt::Beacon => "BCN",
            Mgmt::ProbeReq => "PRRQ",
            Mgmt::ProbeRep => "PRRP",
            Mgmt::Auth => "AUTH",
            Mgmt::AssocReq => "ACRQ",
            Mgmt::AssocRep => "ACRP",
        }
    }

    /// The frame's bytes without the PLCP's 24 (mac-802_11.h: `sizeof(struct beacon_frame)`
    /// and the others; ns-2 adds the PLCP in `getBEACONlen` and the rest).
    pub fn bytes(self) -> u32 {
        match self {
            Mgmt::Beacon | Mgmt::ProbeRep => 48,
            Mgmt::ProbeReq | Mgmt::AssocReq => 28,
            Mgmt::Auth => 34,
            Mgmt::AssocRep => 30,
        }
    }

    /// A collided frame of this kind addressed to the radio is traced as dropped (`discard`
    /// logs only authentication, association and probe requests; replies and beacons go
    /// silently).
    pub fn traced_when_dropped(self) -> bool {
        matches!(self, Mgmt::Auth | Mgmt::AssocReq | Mgmt::ProbeReq)
    }

    /// A station sends its own in this order (`backoffHandler`: probe request, authentication,
    /// association request).
    fn station_rank(self) -> u8 {
        match self {
            Mgmt::ProbeReq => 0,
            Mgmt::Auth => 1,
            _ => 2,
        }
    }
}

/// ns-2's defaults (ns-default.tcl): `ProbeDelay_`, `MinChannelTime_`, `MaxChannelTime_`,
/// `ChannelTime_`, s.
const PROBE_DELAY: f64 = 0.0001;
const MIN_CHANNEL_TIME: f64 = 0.005;
const MAX_CHANNEL_TIME: f64 = 0.011;
const CHANNEL_TIME: f64 = 0.12;
/// `DSSS_MaxPropagationDelay`, which ns-2 adds to each leg of a send timer.
const MAX_PROPAGATION: f64 = 2e-6;

/// A radio's part in infrastructure mode.
#[derive(Debug, Default)]
pub(super) struct Infra {
    pub ap: bool,
    /// The management frames waiting for the medium, with their destinations: an access
    /// point holds one of each kind (`pktBEACON_` and the others), a new one replacing the one
    /// that waits ...
    pub pending: Vec<(Mgmt, RadioId)>,
    /// ... and sends them in the order of this list of kinds (`add_priority_queue`), whose
    /// head leaves it only once its frame is done (`shift_priority_queue`). A kind made twice
    /// before it went stays twice: the second, its frame gone, holds the head until a frame of
    /// its kind comes again, and the data goes meanwhile (`backoffHandler`).
    pub order: Vec<Mgmt>,
    /// The one on the air or waiting for its answer (ns-2's `tx_state_` MAC_MGMT or MAC_BCN).
    pub in_flight: Option<(Mgmt, RadioId)>,
    /// An access point: its first beacon, s (drawn as `$mac ap` runs), and its clients, the
    /// stations it has authenticated (`update_client_table`; a client stays one).
    pub first_beacon: f64,
    pub clients: Vec<RadioId>,
    /// The station it is authenticating and the one it is associating.
    pub authenticating: Option<RadioId>,
    pub associating: Option<RadioId>,
    /// A station: its scan as the scenario gives it (started by the probe timer at its time),
    /// and ns-2's `ScanType_` (PASSIVE until set) and the flags of `ProbeHandler`.
    pub scan: Option<super::config::Scan>,
    pub active: bool,
    pub probe_delay: bool,
    pub on_min: bool,
    pub on_max: bool,
    pub recv_busy: bool,
    pub bss: Option<RadioId>,
    /// Looking for another access point after its data failed three times (`handoff`); an
    /// access point, once through its own (never ending) version of it ...
    pub handoff: bool,
    /// ... which leaves it a probe request it never sends (`pktPROBEREQ_`), until a probe
    /// response's send timer frees it instead of the response (`send_timer`).
    pub unsent_probe: bool,
    pub authenticated: bool,
    pub associated: bool,
    /// The access points heard (`ap_list1`): newest first, with their received power.
    pub heard: Vec<(RadioId, f64)>,
}

impl Infra {
    /// `strongest_ap`: the first of the strongest (newest first); BROADCAST when none was
    /// heard (ns-2's -1, which is `MAC_BROADCAST`).
    fn strongest(&self) -> RadioId {
        let mut best = (BROADCAST, 0.0);
        for &(ap, power) in &self.heard {
            if power > best.1 {
                best = (ap, power);
            }
        }
        best.0
    }
}

impl Wifi {
    /// Each access point draws when its first beacon goes, `Random::random() % cw_` slots
    /// (`command("ap")`), in the order of the WLANs and of their `access_points` (as a script
    /// makes them, right after its nodes and before its agents).
    pub fn draw_beacon_starts(&mut self, shared: &mut Ns2Rng) {
        for w in 0..self.wlans.len() {
            let Some(infra) = self.wlans[w].infrastructure.clone() else { continue };
            let slot = self.wlans[w].timing.slot;
            for ap in infra.access_points {
                let r = self.radio(w, ap).expect("validated: the access point is on the WLAN");
                let s = &mut self.stations[r.index()];
                let slots = s.draws.integer(s.cw, shared);
                s.infra.as_mut().expect("on an infrastructure WLAN").first_beacon = slots as f64 * slot;
            }
        }
    }

    /// Arms the access points' beacon timers, then the stations' scans, each in the order the
    /// WLAN lists them (a script's `$mac ap` lines, then its `ScanType` ones: timers that end at
    /// one instant go in the order they were started).
    pub fn start_infrastructure(&mut self, ctx: &mut Ctx) {
        for w in 0..self.wlans.len() {
            let Some(infra) = self.wlans[w].infrastructure.clone() else { continue };
            for ap in infra.access_points {
                let r = self.radio(w, ap).expect("validated: the access point is on the WLAN");
                let at = self.stations[r.index()].infra.as_ref().expect("in infrastructure mode").first_beacon;
                self.arm_mac(ctx, r, MacTimer::Beacon, at);
            }
            for scan in infra.scans {
                let r = self.radio(w, scan.node).expect("validated: the station is on the WLAN");
                self.arm_mac(ctx, r, MacTimer::Probe, scan.at);
            }
        }
    }

    fn infra(&mut self, r: RadioId) -> &mut Infra {
        self.stations[r.index()].infra.as_mut().expect("a radio in infrastructure mode")
    }

    /// `BeaconHandler`: the next beacon in `BeaconInterval_`, this one to the medium.
    pub(super) fn beacon_due(&mut self, ctx: &mut Ctx, r: RadioId) {
        let interval = self.wlan_of(r).infrastructure.as_ref().expect("an access point").beacon_interval;
        let now = ctx.now_secs();
        self.arm_mac(ctx, r, MacTimer::Beacon, now + interval);
        self.send_mgmt(ctx, r, Mgmt::Beacon, BROADCAST);
    }

    /// ns-2's `sendBEACON`, `sendPROBEREQ` and the others: the frame waits for the medium, and
    /// a backoff starts if none runs, drawn now (DIFS first on an idle medium, unless the
    /// defer timer runs the SIFS before a CTS or ACK; paused on a busy one).
    fn send_mgmt(&mut self, ctx: &mut Ctx, r: RadioId, kind: Mgmt, to: RadioId) {
        let infra = self.infra(r);
        match infra.pending.iter_mut().find(|p| infra.ap && p.0 == kind) {
            Some(waiting) => waiting.1 = to,
            None => infra.pending.push((kind, to)),
        }
        if infra.ap {
            infra.order.push(kind);
        }
        self.mgmt_backoff(ctx, r);
    }

    /// The backoff `sendBEACON` and the others start for their frame: none while the defer
    /// timer runs the SIFS before a CTS, an ACK or the data a CTS answered, on an idle medium
    /// (an ACK held by a send timer waits for no defer timer yet).
    fn mgmt_backoff(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        let s = &self.stations[r.index()];
        // `recvCTS`'s `tx_resume` leaves the MAC idle (MAC_IDLE) for the SIFS before the data
        let data_due = s.state == State::WaitCts && s.response.pending();
        let busy = self.medium_busy(r, now) || (self.tx_busy(r, now) && !data_due);
        let s = &self.stations[r.index()];
        if s.backoff.is_none() && (busy || !s.response.pending()) {
            let slots = self.draw_backoff(ctx, r);
            let s = &mut self.stations[r.index()];
            s.backoff = Some(slots);
            s.not_before = s.not_before.max(now);
        }
        let s = &mut self.stations[r.index()];
        if s.state == State::Idle {
            s.state = State::Contend;
        }
        self.try_access(ctx, r);
    }

    /// The management frame the backoff sends, if one waits: an access point's of the kind at
    /// the head of its `order`, a station's first in `Mgmt::station_rank`.
    pub(super) fn next_mgmt(&mut self, r: RadioId) -> Option<(Mgmt, RadioId)> {
        let infra = self.stations[r.index()].infra.as_mut()?;
        let i = if infra.ap {
            let head = *infra.order.first()?;
            infra.pending.iter().position(|p| p.0 == head)?
        } else {
            (0..infra.pending.len()).min_by_key(|&i| infra.pending[i].0.station_rank())?
        };
        Some(infra.pending.remove(i))
    }

    /// Sends management frame `kind` to `to` (`check_pktBEACON` and the others): the MAC is
    /// busy with it until its send timer, which waits for the answer where one comes.
    pub(super) fn transmit_mgmt(&mut self, ctx: &mut Ctx, r: RadioId, kind: Mgmt, to: RadioId) {
        let now = ctx.now_secs();
        let timing = self.wlan_of(r).timing.clone();
        let ap = self.infra(r).ap;
        let air = |m: Mgmt| timing.control(m.bytes());
        let ack = timing.control(super::phy::ACK_BYTES);
        // an access point's authentication asks for an ACK: its duration covers it
        let nav = if ap && kind == Mgmt::Auth { timing.sifs + ack } else { 0.0 };
        let acked = air(kind) + MAX_PROPAGATION + timing.sifs + ack + MAX_PROPAGATION;
        let timeout = match kind {
            Mgmt::Beacon => None, // its send timer is its end (`tx_end`)
            Mgmt::ProbeReq => Some(air(kind) + MAX_PROPAGATION),
            Mgmt::ProbeRep | Mgmt::AssocRep => Some(acked),
            Mgmt::Auth if ap => Some(acked),
            Mgmt::Auth => Some(air(kind) + MAX_PROPAGATION + MAX_CHANNEL_TIME + air(kind) + MAX_PROPAGATION),
            Mgmt::AssocReq => {
                Some(air(kind) + MAX_PROPAGATION + MAX_CHANNEL_TIME + air(Mgmt::AssocRep) + MAX_PROPAGATION)
            }
        };
        let s = &mut self.stations[r.index()];
        s.backoff = None;
        s.state = State::Mgmt(kind);
        self.infra(r).in_flight = Some((kind, to));
        self.transmit(
            ctx,
            Frame { kind: FrameKind::Mgmt(kind), src: r, dst: to, nav, pkt: None, seq: 0, via: Via::to(to), refs: 1 },
        );
        if let Some(t) = timeout {
            self.arm_mac(ctx, r, MacTimer::Timeout, now + t);
        }
        if kind == Mgmt::ProbeReq {
            // check_pktPROBEREQ: the probe timer waits MinChannelTime for an answer to begin
            let infra = self.infra(r);
            infra.on_min = true;
            self.arm_mac(ctx, r, MacTimer::Probe, now + MIN_CHANNEL_TIME);
        }
    }

    /// The send timer of a management frame ran out with no answer.
    pub(super) fn mgmt_timeout(&mut self, ctx: &mut Ctx, r: RadioId, kind: Mgmt) {
        let now = ctx.now_secs();
        let infra = self.infra(r);
        let to = infra.in_flight.take().map_or(BROADCAST, |f| f.1);
        if infra.ap {
            if kind == Mgmt::ProbeRep && infra.unsent_probe {
                // `send_timer` frees the unsent probe request first and stops there: the
                // response waits again, its kind still at the head of the list, and no backoff
                // starts for it; `tx_resume` sends a held ACK, or data whose RTS is gone a SIFS
                // later, or draws for data
                infra.unsent_probe = false;
                infra.pending.insert(0, (kind, to));
                let s = &mut self.stations[r.index()];
                s.state = State::Contend;
                s.not_before = s.not_before.max(now); // a paused backoff resumes DIFS from now
                if self.release_held_ack(ctx, r) || self.stations[r.index()].backoff.is_some() {
                    return self.medium_maybe_idle(ctx, r);
                }
                if !self.resume_without_rts(ctx, r) {
                    self.resume_backoff(ctx, r);
                }
                return;
            }
            if kind == Mgmt::AssocRep {
                // `update_client_table(associating_node_, 1, 2)`: a client all the same
                infra.associating = None;
                Self::add_client(infra, to);
            }
            return self.mgmt_done(ctx, r);
        }
        // a station's probe request starts no backoff; its authentication and association
        // request are made again (`checkAssocAuthStatus`), their backoff drawn while the MAC
        // is still busy and resumed DIFS after now (`tx_resume`)
        let s = &mut self.stations[r.index()];
        s.state = if s.has_frames() { State::Contend } else { State::Idle };
        s.not_before = s.not_before.max(now);
        if kind != Mgmt::ProbeReq {
            self.check_assoc_auth(ctx, r);
        }
        let held = self.release_held_ack(ctx, r);
        let s = &self.stations[r.index()];
        if !held && !s.queue.is_empty() && s.backoff.is_none() && !self.resume_without_rts(ctx, r) {
            // `tx_resume`: a data frame waiting gets its backoff (DIFS first) now
            let slots = self.draw_backoff(ctx, r);
            self.stations[r.index()].backoff = Some(slots);
        }
        self.medium_maybe_idle(ctx, r);
    }

    /// A beacon's send timer ran out (`send_timer`, MAC_BCN), which frees `pktBEACON_`: a
    /// beacon the timer made while this one was on the air had taken its place there
    /// (`sendBEACON` checks for none), and is freed unsent, its entry left in the list.
    pub(super) fn beacon_sent(&mut self, ctx: &mut Ctx, r: RadioId) {
        self.infra(r).pending.retain(|p| p.0 != Mgmt::Beacon);
        self.mgmt_done(ctx, r);
    }

    /// An access point's management frame went (a beacon) or was answered or timed out: a
    /// fresh backoff, from the same window, resumed DIFS after now (`send_timer`, `recvACK`).
    pub(super) fn mgmt_done(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        let infra = self.infra(r);
        infra.in_flight = None;
        if !infra.order.is_empty() {
            infra.order.remove(0); // `shift_priority_queue`
        }
        self.stations[r.index()].not_before = now;
        let slots = self.draw_backoff(ctx, r);
        let s = &mut self.stations[r.index()];
        s.backoff = Some(slots);
        s.state = if s.has_frames() { State::Contend } else { State::Idle };
        self.release_held_ack(ctx, r);
        self.medium_maybe_idle(ctx, r);
    }

    /// `tx_resume` once a management frame's send timer has stopped: an ACK for data received
    /// meanwhile (`sendACK` then leaves it to `tx_resume`, which no one calls while `mhSend_`
    /// runs) goes a SIFS later. Whether one waited.
    fn release_held_ack(&mut self, ctx: &mut Ctx, r: RadioId) -> bool {
        let s = &self.stations[r.index()];
        if !matches!(s.respond, Some((FrameKind::Ack, _, _))) || s.response.pending() {
            return false;
        }
        let at = ctx.now_secs() + self.wlan_of(r).timing.sifs;
        self.arm_mac(ctx, r, MacTimer::Respond, at);
        true
    }

    /// The ACK of an access point's probe response, authentication or association response.
    pub(super) fn mgmt_acked(&mut self, ctx: &mut Ctx, r: RadioId, kind: Mgmt) {
        self.stations[r.index()].timeout.cancel();
        let infra = self.infra(r);
        let to = infra.in_flight.map_or(BROADCAST, |f| f.1);
        match kind {
            Mgmt::Auth => {
                infra.authenticating = None;
                Self::add_client(infra, to);
            }
            Mgmt::AssocRep => {
                // `update_client_table(associating_node_, 1, 1)`: a client, if it was not yet
                infra.associating = None;
                Self::add_client(infra, to);
            }
            _ => {}
        }
        self.mgmt_done(ctx, r);
    }

    fn add_client(infra: &mut Infra, r: RadioId) {
        if !infra.clients.contains(&r) {
            infra.clients.push(r);
        }
    }

    /// `checkAssocAuthStatus`: a station not authenticated asks the strongest access point it
    /// heard; one authenticated, not associated, asks to associate.
    fn check_assoc_auth(&mut self, ctx: &mut Ctx, r: RadioId) {
        let infra = self.infra(r);
        if infra.ap {
            return;
        }
        if !infra.authenticated && !infra.associated {
            let ap = infra.strongest();
            self.send_mgmt(ctx, r, Mgmt::Auth, ap);
        }
        let infra = self.infra(r);
        if infra.authenticated && !infra.associated {
            let bss = infra.bss.unwrap_or(BROADCAST);
            self.send_mgmt(ctx, r, Mgmt::AssocReq, bss);
        }
    }

    /// A frame began to arrive at an idle receiver (`recv`): while a probe waits
    /// MinChannelTime, the channel is busy with answers (`Recv_Busy_`).
    pub(super) fn note_reception(&mut self, r: RadioId) {
        let probing = self.stations[r.index()].probe.pending();
        if let Some(infra) = self.stations[r.index()].infra.as_mut() {
            if probing && infra.on_min {
                infra.recv_busy = true;
            }
        }
    }

    /// `ProbeHandler` (and, the first time, the scan's start: `ScanType` at its time).
    pub(super) fn probe_due(&mut self, ctx: &mut Ctx, r: RadioId) {
        let now = ctx.now_secs();
        let infra = self.infra(r);
        if let Some(scan) = infra.scan.take() {
            infra.active = scan.active;
            infra.probe_delay = scan.active;
            let wait = if scan.active { PROBE_DELAY } else { CHANNEL_TIME };
            return self.arm_mac(ctx, r, MacTimer::Probe, now + wait);
        }
        if infra.active {
            match (infra.on_min, infra.recv_busy, infra.on_max) {
                (false, false, false) if infra.bss.is_none() || infra.handoff => {
                    if infra.probe_delay {
                        infra.probe_delay = false;
                        self.send_mgmt(ctx, r, Mgmt::ProbeReq, BROADCAST);
                    } else {
                        self.check_assoc_auth(ctx, r);
                    }
                    return;
                }
                (true, true, false) => {
                    // answers are coming: wait MaxChannelTime for all of them
                    infra.on_min = false;
                    infra.on_max = true;
                    return self.arm_mac(ctx, r, MacTimer::Probe, now + MAX_CHANNEL_TIME);
                }
                (false, true, true) => {
                    infra.on_max = false;
                    infra.recv_busy = false;
                    let ap = infra.strongest();
                    if ap != BROADCAST && !infra.authenticated && !infra.associated {
                        self.send_mgmt(ctx, r, Mgmt::Auth, ap);
                    }
                    return;
                }
                (true, false, false) => {
                    infra.on_min = false; // no answer: out of range of every access point
                    return;
                }
                _ => {}
            }
        } else if infra.bss.is_none() {
            // `passive_scan`: ChannelTime is over
            if !infra.authenticated && !infra.associated && !infra.pending.iter().any(|p| p.0 == Mgmt::Auth) {
                let ap = infra.strongest();
                self.send_mgmt(ctx, r, Mgmt::Auth, ap);
            }
            return;
        }
        if self.infra(r).bss.is_some() && !self.stations[r.index()].probe.pending() {
            self.check_assoc_auth(ctx, r);
        }
    }

    /// An intact management frame for radio `r` (or broadcast), as `recv_timer` dispatches it;
    /// `power` is what it arrived with.
    pub(super) fn receive_mgmt(&mut self, ctx: &mut Ctx, r: RadioId, frame: Frame, kind: Mgmt, power: f64) {
        let now = ctx.now_secs();
        let Some(infra) = self.stations[r.index()].infra.as_ref() else { return };
        let ap = infra.ap;
        let busy = self.tx_busy(r, now);
        // an access point ignores beacons, a station probe requests, untraced
        if (ap && kind == Mgmt::Beacon) || (!ap && kind == Mgmt::ProbeReq) {
            return;
        }
        let from = frame.src;
        match kind {
            Mgmt::Beacon => {
                if busy {
                    return; // `recvBEACON` discards it (BSY), untraced: a broadcast
                }
                let infra = self.infra(r);
                if !infra.active && !infra.authenticated && !infra.associated {
                    match infra.heard.iter_mut().find(|h| h.0 == from) {
                        Some(h) => h.1 = power,
                        None => infra.heard.insert(0, (from, power)),
                    }
                }
            }
            Mgmt::ProbeReq | Mgmt::Auth | Mgmt::AssocReq if ap => {
                let answer = match kind {
                    Mgmt::ProbeReq => Mgmt::ProbeRep,
                    Mgmt::Auth => Mgmt::Auth,
                    _ => Mgmt::AssocRep,
                };
                // busy with a frame, or with an answer of this kind already: dropped (traced
                // when addressed to it, as `discard` does)
                let infra = self.infra(r);
                if busy || infra.pending.iter().chain(&infra.in_flight).any(|p| p.0 == answer) {
                    if frame.dst == r {
                        self.trace_frame(ctx, 'D', r, &frame, "BSY");
                    }
                    return;
                }
                match kind {
                    Mgmt::Auth => self.infra(r).authenticating = Some(from),
                    Mgmt::AssocReq => self.infra(r).associating = Some(from),
                    _ => {}
                }
                self.send_mgmt(ctx, r, answer, from);
            }
            Mgmt::ProbeRep | Mgmt::Auth | Mgmt::AssocRep if !ap => {
                match kind {
                    Mgmt::ProbeRep => self.infra(r).heard.insert(0, (from, power)),
                    Mgmt::Auth => {
                        // the answer to its request: the send timer stops
                        self.stop_mgmt(r, Mgmt::Auth);
                        let infra = self.infra(r);
                        infra.authenticated = true;
                        infra.bss = Some(from);
                        let timing = self.wlan_of(r).timing.clone();
                        let wait = timing.sifs + timing.control(super::phy::ACK_BYTES) + MAX_CHANNEL_TIME;
                        self.arm_mac(ctx, r, MacTimer::Probe, now + wait);
                    }
                    _ => {
                        self.stop_mgmt(r, Mgmt::AssocReq);
                        let infra = self.infra(r);
                        infra.associated = true;
                        infra.handoff = false;
                        infra.heard.clear();
                    }
                }
                let sifs = self.wlan_of(r).timing.sifs;
                let s = &mut self.stations[r.index()];
                s.respond = Some((FrameKind::Ack, from, 0.0));
                // a probe response that comes while a request's send timer runs is acknowledged
                // only when that timer stops (`tx_resume` waits for `mhSend_`), unless an answer
                // stops it first and its ACK replaces this one (`sendACK`, one `pktCTRL_`)
                if !matches!(s.state, State::Mgmt(_)) {
                    self.arm_mac(ctx, r, MacTimer::Respond, now + sifs);
                }
            }
            _ => return,
        }
        self.trace_frame(ctx, 'r', r, &frame, "---");
    }

    /// A station's request was answered: its send timer stops and the MAC is idle again; a
    /// request made again meanwhile (its timer ran out first) is dropped unsent, its backoff
    /// left running (`recvAUTHENTICATE`, `recvASSOCREP` free `pktAUTHENTICATE_`,
    /// `pktASSOCREQ_`), and that backoff counts down with nothing to send, as any does.
    fn stop_mgmt(&mut self, r: RadioId, kind: Mgmt) {
        self.infra(r).pending.retain(|p| p.0 != kind);
        let s = &mut self.stations[r.index()];
        if s.state == State::Mgmt(kind) {
            s.timeout.cancel();
            self.infra(r).in_flight = None;
        } else if s.state != State::Contend {
            return;
        }
        let s = &mut self.stations[r.index()];
        s.state = if s.has_frames() { State::Contend } else { State::Idle };
    }

    /// ns-2's `hdr_dst`: the receiver of a frame for `to`, and how it is addressed beyond it.
    /// A station of a BSS sends everything to its access point; an access point sends to its
    /// clients and broadcasts straight, and anything else as a broadcast for the access point
    /// whose client it is (to and from the distribution system).
    pub(super) fn address(&self, r: RadioId, to: RadioId) -> (RadioId, Via) {
        let Some(infra) = &self.stations[r.index()].infra else { return (to, Via::to(to)) };
        if infra.ap {
            if to == BROADCAST || infra.clients.contains(&to) {
                (to, Via { from_ds: true, ..Via::to(to) })
            } else {
                (BROADCAST, Via { to_ds: true, from_ds: true, ..Via::to(to) })
            }
        } else if let Some(ap) = infra.bss {
            (ap, Via { to_ds: true, ..Via::to(to) })
        } else {
            // in no BSS yet (`bss_id_` is IBSS_ID), `hdr_dst` writes the receiver only: `dh_3a`
            // keeps what the header held, 0 in a fresh one (an ARP reply reuses the request,
            // whose `dh_3a` is 0 too where it matters: a request from an access point). An
            // access point that is not MAC 0 so relays such a frame to MAC 0.
            (to, Via { da: self.mac_zero(), ..Via::to(to) })
        }
    }

    /// The head of `r`'s queue enters the MAC (ns-2's `sendDATA`): a station marks it for the
    /// distribution system if it is in a BSS now, and not if it is in none, whatever BSS its
    /// link layer addressed it by (`hdr_dst`, perhaps long before, its receiver staying).
    pub(super) fn head_enters(&mut self, r: RadioId) {
        let s = &mut self.stations[r.index()];
        let Some(infra) = s.infra.as_ref().filter(|i| !i.ap) else { return };
        let in_bss = infra.bss.is_some();
        if let Some(head) = s.queue.front_mut() {
            head.2.to_ds = in_bss;
            head.2.from_ds = false;
        }
    }

    /// Whether radio `r` is a station of an infrastructure WLAN in no BSS (`bss_id_` IBSS_ID).
    pub(super) fn in_no_bss(&self, r: RadioId) -> bool {
        self.stations[r.index()].infra.as_ref().is_some_and(|i| !i.ap && i.bss.is_none())
    }

    /// The radio with ns-2's MAC address 0 (node 0's), or `NOWHERE` if node 0 has none.
    fn mac_zero(&self) -> RadioId {
        let r = self.stations.iter().position(|s| s.node.get() == 0);
        r.map_or(NOWHERE, |r| RadioId(r as u32))
    }

    /// What infrastructure mode does with an intact data frame at radio `r` (`recv_timer`,
    /// `recvDATA`): None, nothing special; `Err`, a broadcast between access points that is
    /// not for this one's clients, dropped untraced; `Ok(Some(da))`, this access point relays
    /// it to `da`.
    pub(super) fn infra_data(&self, r: RadioId, frame: &Frame) -> Option<Result<Option<RadioId>, ()>> {
        let infra = self.stations[r.index()].infra.as_ref()?;
        let via = frame.via;
        if frame.kind != FrameKind::Data {
            return None;
        }
        if frame.dst == BROADCAST && via.to_ds && via.from_ds {
            if !infra.ap || !infra.clients.contains(&via.da) {
                return Some(Err(()));
            }
            return Some(Ok(Some(via.da)));
        }
        let relays = infra.ap && frame.dst != BROADCAST && via.da != r && !via.from_ds;
        Some(Ok(relays.then_some(via.da)))
    }

    /// An access point sends a copy of `frame`'s packet on to `da`, back through its link
    /// layer (its delay) and its interface queue.
    pub(super) fn relay(&mut self, ctx: &mut Ctx, r: RadioId, frame: &Frame, da: RadioId) {
        let original = frame.pkt.expect("data carries a packet");
        if frame.dst == BROADCAST {
            self.relayed_broadcasts.push(original);
        }
        // the copy keeps the MAC header of the frame it came in (its duration, which an
        // interface queue's drop line prints), not one its packet had before
        let id = ctx.pkts.alloc(Packet { rx_duration: frame.duration_us(), ..*ctx.pkts.get(original) });
        let at = ctx.now_secs() + self.wlan_of(r).ll_delay;
        let hops = u16::try_from(frame.via.hops + 1).unwrap_or(u16::MAX);
        let header = RelayHeader { hops };
        ctx.sched.schedule_exact(at, Event::Wifi(WifiEvent::Relay(r, da, header, id)));
    }

    /// `RetransmitDATA`: a station of a BSS whose data frame failed a third time looks for
    /// another access point, actively: unauthenticated, it sends a probe request, whose
    /// backoff (drawn now) the data frame waits behind, its window not widened, and then goes
    /// without an RTS. An access point does the same, once, but never sends its probe request
    /// (`backoffHandler` sends a station's only). Whether it did.
    pub(super) fn hand_off(&mut self, ctx: &mut Ctx, r: RadioId) -> bool {
        let Some(infra) = self.stations[r.index()].infra.as_mut() else { return false };
        let ap = infra.ap;
        if infra.handoff || (!ap && infra.bss.is_none()) {
            return false;
        }
        infra.handoff = true;
        if !ap {
            (infra.associated, infra.authenticated, infra.active) = (false, false, true);
        }
        let s = &mut self.stations[r.index()];
        s.state = State::Contend;
        s.head_rts = super::HeadRts::Gone;
        s.stats.retries += 1;
        if ap {
            self.infra(r).unsent_probe = true;
            self.mgmt_backoff(ctx, r); // for the probe request it never sends
        } else {
            self.send_mgmt(ctx, r, Mgmt::ProbeReq, BROADCAST);
        }
        true
    }

    /// `check_pktTx`: a station of a BSS, not handing off, sends its data frame to its access
    /// point of now (it writes `bss_id_` into the frame's receiver: a frame addressed to the
    /// access point it left goes to the new one). The receiver the frame goes to.
    pub(super) fn current_receiver(&mut self, r: RadioId, to: RadioId) -> RadioId {
        let s = &mut self.stations[r.index()];
        let Some(infra) = s.infra.as_ref() else { return to };
        match infra.bss {
            Some(bss) if !infra.ap && !infra.handoff && bss != to => {
                let head = s.queue.front_mut().expect("the frame to send");
                let entered_for = std::mem::replace(&mut head.1, bss);
                s.head_entered_for.get_or_insert(entered_for);
                bss
            }
            _ => to,
        }
    }
}
