//! ns-2.35's one-way TCP senders: `Agent/TCP` (Tahoe), `Agent/TCP/Reno`, `Agent/TCP/Newreno`,
//! the SACK senders `Agent/TCP/Sack1`, `Agent/TCP/Fack` and `Agent/TCP/SackRH`
//! (`sender/sack1.rs`, `sender/fack.rs`, `sender/sackrh.rs`), `Agent/TCP/Vegas`
//! (`sender/vegas.rs`), `Agent/TCP/RFC793edu` (`sender/rfc793edu.rs`), the `.../RBP` pacing of
//! Vegas and Reno (`sender/rbp.rs`), and `Agent/TCP/Linux` (`sender/linux.rs`, which runs the
//! Linux modules of `tcp/linux/`); `$tcp reset` is `sender/reset.rs`.
//!
//! They share ns-2's `TcpAgent` machinery (send rule, RTT estimator in clock ticks, timeout,
//! slowdown) and differ in how they react to ACKs; where ns-2 overrides a method, the variant is
//! matched at that point (the `_` arm is `TcpAgent`'s own), so each function below reads like
//! the ns-2 method it reproduces. What a subclass adds to the state is its own struct beside its
//! code (`Sack1State`, `FackState`, `SackRhState`, `VegasState`, `Rfc793eduState`), which only a sender of that
//! variant holds. State keeps ns-2's types: cwnd is a double, sequence numbers and ssthresh are
//! integers, RTT state is fixed point in ticks. Only the behaviour of ns-2's defaults and the
//! knobs in `TcpParams` is modelled (no Quick-Start, ELN or binomial windows); HighSpeed TCP and
//! Limited Slow-Start (`windowOption_ 8`, `max_ssthresh_`) are in `sender/highspeed.rs`, F-RTO
//! (`frto_enabled_`, `sfrto_enabled_`, for Tahoe, Reno, Newreno and Sack1) in `sender/frto.rs`.

mod fack;
mod frto;
mod full;
mod highspeed;
mod linux;
mod quiescence;
mod rbp;
mod reset;
mod rfc793edu;
mod rtt;
mod sack1;
mod sackrh;
mod vegas;

pub use self::full::FullTcp;
use self::rtt::TickEstimator;
use super::{Ftp, TcpState};
use crate::packet::{flags, Kind, Packet};
use crate::port::{Endpoint, Port, TimerKind};
use crate::random::Draws;
use crate::scenario::{ScenarioError, TcpParams, TcpVariant};
use crate::units::show_seconds;
use tcplab_cc::{Pacer, PacingConfig};
use tcplab_des::Timer;

/// ns-2's TCP_MAXSEQ: "infinite" data for `send -1`.
const TCP_MAXSEQ: i64 = 1_073_741_824;

/// ns-2's `last_cwnd_action_`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CwndAction {
    None,
    Dupack,
    Timeout,
    Ecn,
    Exited,
}

/// `slowdown()` options (ns-2's CLOSE_* flags, only those the modelled agents use).
#[derive(Clone, Copy)]
struct Slowdown {
    ssthresh_half: bool,
    cwnd: CwndCut,
}

/// `slowdown()`'s windows before a cut: halfwin, decreasewin and win as ns-2 computes them.
struct CutWindows {
    slowstart: bool,
    halfwin: f64,
    decreasewin: f64,
    win: f64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CwndCut {
    Half,
    /// `wnd_restart_` (1) after a timeout.
    Restart,
    /// `wnd_init_` (Fack's timeout with nothing outstanding).
    Init,
    One,
}

pub struct Ns2Sender {
    /// Which ns-2 agent this is (any but FAST, which ns-2 has not).
    variant: TcpVariant,
    p: TcpParams,
    ep: Endpoint,
    /// Its cwnd goes to the cwnd trace and series (not a FullTcp flow's second agent's).
    cwnd_traced: bool,
    rtx_timer: Timer,

    cwnd: f64,
    /// The cwnd_ it held as it was made, which its trace shows when attached before `$ns run`.
    new_cwnd: f64,
    ssthresh: i64,
    wnd: f64,
    wnd_init: f64,
    wnd_init_option: u32,
    /// Reno/Newreno window inflation during fast recovery (always 0 for Tahoe).
    dupwnd: i64,
    dupacks: i64,
    t_seqno: i64,
    maxseq: i64,
    last_ack: i64,
    highest_ack: i64,
    curseq: i64,
    recover: i64,
    last_cwnd_action: CwndAction,
    /// Set the CWR ('A') flag on the next new data packet.
    cong_action: bool,
    first_decrease: bool,
    closed: bool,

    /// ns-2's RTT estimator, in ticks (sender/rtt.rs).
    rtt: TickEstimator,
    rtt_active: bool,
    rtt_seq: i64,
    rtt_ts: f64,
    /// The agent's clock phase, one uniform draw in [0, tick) per agent.
    boot_time: f64,
    ts_peer: f64,
    /// The timestamp echoed by the last new ACK (timestamps_ only).
    ts_echo: f64,
    /// highest_ack before the last new ACK.
    prev_highest_ack: i64,
    /// When the agent was last reset (`lastreset_`): ACKs stamped earlier are ignored.
    last_reset: f64,
    /// SYNs sent (`syn_connects_`), for `max_connects`.
    syn_connects: i32,
    /// Send time of each recent segment, by seqno modulo its size (bugFix_ts_ only).
    tss: Vec<f64>,

    /// ns-2's `decrease_num_`: the knob, until a HighSpeed cut overwrites it with the
    /// decrease it used (later cuts below low_window read that value).
    decrease_num: f64,
    /// HighSpeed TCP's coefficients and last increase (`window_option` 8 only).
    hstcp: Option<highspeed::HsTcp>,

    /// ns-2's `frto_`: 0 off, 1 after an F-RTO timeout, 2 after its first new ACK.
    frto: i64,
    /// ns-2's `pipe_prev_`: the window (or ssthresh, if larger) when the last timeout fired.
    pipe_prev: i64,

    ecn_backoff: bool,
    ect: bool,
    ecn_burst: bool,

    // Sack1 and Fack (ns-2 declares these in both subclasses).
    fastrecov: bool,
    /// ns-2's `timeout_`: recovering from a timeout, SACK information is not trusted.
    timed_out: bool,
    /// What one variant keeps beyond `TcpAgent`'s state, as ns-2 keeps it in the subclass:
    /// only a Sack1, Fack, SackRH or Vegas sender has its own.
    sack1: Option<sack1::Sack1State>,
    fack: Option<fack::FackState>,
    sackrh: Option<sackrh::SackRhState>,
    vegas: Option<vegas::VegasState>,
    /// `Agent/TCP/Linux`'s kernel state, scoreboard and module.
    linux: Option<Box<linux::LinuxState>>,
    rfc793edu: Option<rfc793edu::Rfc793eduState>,
    /// The quiescence option's state (`qoption` only).
    quiescence: Option<Box<quiescence::Quiescence>>,
    /// Rate-based pacing after idle (the RBP subclasses).
    rbp_mode: rbp::RbpMode,
    rbp_delay: f64,
    /// Packet spacing or gap pacing of new segments (tcplab's, not ns-2's); its timer is
    /// `pace_timer`, which RBP uses otherwise.
    pacer: Option<Pacer>,
    pace_timer: Timer,
    /// `overhead_`'s random delay before each burst: where it is drawn from (None without
    /// overhead), and the delayed-send timer.
    jitter: Option<Draws>,
    delsnd_timer: Timer,

    // Newreno (and Sack1's partial ACKs)
    firstpartial: bool,
    acked: u64,
    firstsent: f64,
    basertt: f64,
    ack2: f64,
}

impl<P: Port> Ftp<P> for Ns2Sender {
    /// FTP `start`: `send -1`, an unlimited backlog.
    fn send_unlimited(&mut self, net: &mut P) {
        if self.curseq <= TCP_MAXSEQ {
            self.curseq = TCP_MAXSEQ;
        }
        self.send_much(net, self.p.maxburst);
    }

    /// FTP `produce n` (`advance n`): send up to seqno n.
    fn advance(&mut self, net: &mut P, n: i64) {
        let delta = if n > self.maxseq { n - self.curseq } else { self.maxseq - self.curseq };
        self.advance_by(net, delta);
    }

    /// FTP `producemore n` (`advanceby n`): n packets more.
    fn advance_by(&mut self, net: &mut P, delta: i64) {
        self.curseq += delta;
        if delta > 0 {
            self.closed = false;
        }
        self.send_much(net, self.p.maxburst);
    }

    /// FTP `stop`: `advance 0`, no new data beyond what was sent.
    fn stop(&mut self, net: &mut P) {
        self.advance(net, 0);
    }

    fn state(&self) -> TcpState {
        TcpState {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh as f64,
            // ns-2 keeps srtt in ticks, scaled by 2^srtt_bits
            srtt: self.rtt.srtt_secs(&self.p),
            in_flight: (self.maxseq - self.highest_ack).max(0) as f64,
            pacing_rate: self.pacer.as_ref().and_then(|p| p.rate(self.cwnd)).unwrap_or(0.0),
        }
    }
}

impl Ns2Sender {
    /// `phase` is the agent's clock phase as a fraction of a tick, in [0, 1): ns-2 draws it
    /// when it resets the agent at `$ns run`.
    pub fn new(variant: TcpVariant, p: TcpParams, pacing: Option<PacingConfig>, ep: Endpoint, phase: f64) -> Ns2Sender {
        Ns2Sender::of_class(variant, p, &TcpParams::default(), pacing, ep, phase)
    }

    /// An agent made after the script set the class's variables `class` (`Agent/TCP set ...`,
    /// the scenario's `[tcp]`), then its own `p`; `$ns run` resets it.
    pub fn of_class(
        variant: TcpVariant,
        p: TcpParams,
        class: &TcpParams,
        pacing: Option<PacingConfig>,
        ep: Endpoint,
        phase: f64,
    ) -> Ns2Sender {
        Ns2Sender::created(variant, p, class, true, pacing, ep, phase)
    }

    /// An agent on a node with a radio, which `$ns run` does not reset (a `Node/MobileNode`
    /// resets its interfaces, not its agents: ns-mobilenode.tcl). It keeps what the reset at
    /// its creation (`TcpAgent::delay_bind_init_all`, before the script sets its variables)
    /// made from the class's variables (ns-2's defaults unless `[tcp]` sets them): ssthresh from `window_` 20, cwnd 1
    /// (`syn_` and `delay_growth_`), the RTT estimator from `rtxcur_init_` and its like, the
    /// clock phase from `tcpTick_`. `$agent set ssthresh_` still counts.
    pub fn on_mobile_node(
        variant: TcpVariant,
        p: TcpParams,
        class: &TcpParams,
        pacing: Option<PacingConfig>,
        ep: Endpoint,
        phase: f64,
    ) -> Ns2Sender {
        Ns2Sender::created(variant, p, class, false, pacing, ep, phase)
    }

    fn created(
        variant: TcpVariant,
        p: TcpParams,
        class: &TcpParams,
        reset_at_run: bool,
        pacing: Option<PacingConfig>,
        ep: Endpoint,
        phase: f64,
    ) -> Ns2Sender {
        assert_ne!(variant, TcpVariant::Fast, "FAST has no ns-2 agent: the rfc profile runs it");
        let mut p = p;
        if variant == TcpVariant::Rfc793edu {
            // its newack restarts the timer before the RTT update, whatever timerfix_ says
            p.timerfix = false;
        }
        let mut s = Ns2Sender {
            variant,
            ep,
            cwnd_traced: true,
            rtx_timer: Timer::default(),
            cwnd: 0.0,
            new_cwnd: 0.0,
            ssthresh: 0,
            wnd: p.window as f64,
            wnd_init: p.window_init as f64,
            wnd_init_option: p.window_init_option,
            dupwnd: 0,
            dupacks: 0,
            t_seqno: 0,
            maxseq: -1,
            last_ack: -1,
            highest_ack: -1,
            curseq: 0,
            recover: 0,
            last_cwnd_action: CwndAction::None,
            cong_action: false,
            first_decrease: true,
            closed: false,
            rtt: TickEstimator::new(),
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: 0.0,
            boot_time: 0.0,
            ts_peer: 0.0,
            ts_echo: 0.0,
            prev_highest_ack: -1,
            last_reset: 0.0,
            syn_connects: 0,
            tss: Vec::new(),
            decrease_num: p.decrease_num,
            hstcp: (p.window_option == 8).then(|| highspeed::HsTcp::new(&p)),
            frto: 0,
            pipe_prev: 0,
            ecn_backoff: false,
            ect: false,
            ecn_burst: false,
            fastrecov: false,
            timed_out: false,
            sack1: (variant == TcpVariant::Sack1).then(sack1::Sack1State::default),
            fack: (variant == TcpVariant::Fack).then(fack::FackState::default),
            sackrh: (variant == TcpVariant::SackRh).then(sackrh::SackRhState::default),
            vegas: (variant == TcpVariant::Vegas).then(vegas::VegasState::default),
            linux: None,
            rfc793edu: (variant == TcpVariant::Rfc793edu).then(|| rfc793edu::Rfc793eduState::new(&p)),
            // ns-2's reset at `$ns run`, tick 0
            quiescence: p.qoption.then(|| Box::new(quiescence::Quiescence::new(0))),
            rbp_mode: rbp::RbpMode::Off,
            rbp_delay: 0.0,
            pacer: pacing.map(Pacer::new),
            pace_timer: Timer::default(),
            jitter: None,
            delsnd_timer: Timer::default(),
            firstpartial: false,
            acked: 0,
            firstsent: 0.0,
            basertt: 0.0,
            ack2: 0.0,
            p,
        };
        // the reset of its creation, from the class's variables, before the instance's are set
        let instance = std::mem::replace(&mut s.p, class.clone());
        let kept = (s.wnd, s.wnd_init, s.wnd_init_option);
        (s.wnd, s.wnd_init, s.wnd_init_option) =
            (class.window as f64, class.window_init as f64, class.window_init_option);
        s.tcp_reset(phase);
        // TCP-Linux's constructor sets cwnd_ to the class's windowInit_ after it
        s.new_cwnd = if variant == TcpVariant::Linux { class.window_init as f64 } else { s.cwnd };
        s.p = instance;
        (s.wnd, s.wnd_init, s.wnd_init_option) = kept;
        if reset_at_run {
            s.tcp_reset(phase);
        }
        if s.p.ssthresh > 0 {
            // `$agent set ssthresh_` after the reset
            s.ssthresh = s.p.ssthresh as i64;
        }
        if variant == TcpVariant::Linux {
            s.linux = Some(Box::new(linux::LinuxState::new(&s.p, s.cwnd, s.ssthresh, s.wnd)));
            s.linux_select_ca();
        }
        s
    }

    /// ns-2's `TcpAgent::reset()`, with the clock phase it draws (a fraction of a tick). The
    /// cwnd it sets is not traced here: the callers write the lines ns-2 writes.
    fn tcp_reset(&mut self, phase: f64) {
        self.rtt_init();
        self.rtt_seq = -1;
        self.dupacks = 0;
        self.curseq = 0;
        self.cwnd = if self.p.syn && self.p.delay_growth {
            self.syn_connects = 0;
            1.0
        } else {
            self.initial_window()
        };
        self.t_seqno = 0;
        self.maxseq = -1;
        self.last_ack = -1;
        self.highest_ack = -1;
        self.ssthresh = self.wnd as i64;
        if self.p.max_ssthresh > 0 && (self.p.max_ssthresh as i64) < self.ssthresh {
            self.ssthresh = self.p.max_ssthresh as i64;
        }
        self.recover = 0;
        self.closed = false;
        self.last_cwnd_action = CwndAction::None;
        self.boot_time = self.p.tcp_tick * phase;
        self.first_decrease = true;
    }

    /// With `overhead`, each burst waits a random delay drawn from `draws`.
    pub fn with_jitter(mut self, draws: Draws) -> Ns2Sender {
        self.jitter = (self.p.overhead > 0.0).then_some(draws);
        self
    }

    /// Assigns cwnd; like ns-2's traced variable, a change is written to the cwnd trace.
    fn set_cwnd(&mut self, net: &mut impl Port, v: f64) {
        let changed = v != self.cwnd;
        self.cwnd = v;
        if changed {
            self.trace_cwnd(net);
        }
    }

    /// `$tcp set cwnd_ v` from a script.
    pub fn tcl_set_cwnd(&mut self, net: &mut impl Port, v: f64) {
        self.set_cwnd(net, v);
    }

    /// Writes the current cwnd to the cwnd trace and series.
    fn trace_cwnd(&self, net: &mut impl Port) {
        if self.cwnd_traced {
            net.trace_cwnd(&self.ep, self.cwnd, self.ssthresh);
        }
    }

    /// The cwnd trace's line when the trace is attached, before `$ns run` resets the agent:
    /// ns-2 prints the cwnd_ a new agent holds (`new_agent_cwnd`), whatever its initial
    /// window. When that is the initial window too, this line also starts the cwnd series.
    pub fn trace_cwnd_attached(&self, net: &mut impl Port) {
        let new_agent_cwnd = self.new_agent_cwnd();
        if self.cwnd == new_agent_cwnd {
            self.trace_cwnd(net);
        } else {
            self.trace_cwnd_line(net, new_agent_cwnd);
        }
    }

    /// The cwnd_ of a new agent, which ns-2's trace shows when attached before `$ns run`.
    fn new_agent_cwnd(&self) -> f64 {
        self.new_cwnd
    }

    /// A line of the cwnd trace file that the series does not get.
    fn trace_cwnd_line(&self, net: &mut impl Port, cwnd: f64) {
        if self.cwnd_traced && net.tracer().cwnd_enabled() {
            let now = net.now_secs();
            net.tracer().cwnd_line(now, self.ep.flow.0, self.ep.addr, self.ep.peer, cwnd);
        }
    }

    /// The cwnd trace's line of `$ns run`'s reset, which sets the initial window: written (and
    /// the series started) only if that changes the window.
    pub fn trace_cwnd_reset(&self, net: &mut impl Port) {
        if self.cwnd != self.new_agent_cwnd() {
            self.trace_cwnd(net);
        }
    }

    /// A line in the event trace (ns-2 `trace_event`): the event, t_seqno and int(cwnd).
    fn trace_event(&self, net: &mut impl Port, event: &str) {
        let now = net.now_secs();
        net.tracer().tcp_event(now, (self.ep.addr, self.ep.peer), event, self.ep.fid, self.t_seqno, self.cwnd as i64);
    }

    /// The dupack threshold: numdupacks, or int(cwnd) / numdupacks_frac when larger (Sack1).
    fn numdupacks(&self) -> i64 {
        let frac = self.cwnd as i64 / self.p.numdupacks_frac as i64;
        (self.p.numdupacks as i64).max(frac)
    }

    /// Newreno's `bugFix_ts_` and `bugFix_ack_`: signs that a third dupack is a new loss after
    /// all, although the ACK has not passed `recover`.
    fn newreno_bugfix_heuristics(&self) -> bool {
        if self.variant != TcpVariant::NewReno {
            return false;
        }
        // either test lets the fast retransmit through, the timestamps' first (tcp-newreno.cc)
        // C's % keeps the sign: before the first ACK (highest_ack -1) ns-2 reads the word before
        // its table, never a send time, and the test fails.
        if self.p.bug_fix_ts && !self.tss.is_empty() && self.highest_ack >= 0 {
            let sent = self.tss[(self.highest_ack % self.tss.len() as i64) as usize];
            if sent == self.ts_echo {
                return true;
            }
        }
        self.p.bug_fix_ack && self.cwnd > 1.0 && self.highest_ack - self.prev_highest_ack <= self.p.numdupacks as i64
    }

    /// ns-2's `tss` table: 100 entries, doubled when the window nears its size.
    fn remember_send_time(&mut self, seqno: i64, now: f64) {
        if self.tss.is_empty() {
            self.tss = vec![0.0; 100];
        }
        let size = self.tss.len() as i64;
        if (seqno - self.highest_ack) as f64 > size as f64 * 0.9 {
            let mut bigger = vec![0.0; 2 * size as usize];
            for i in 0..size {
                bigger[((self.highest_ack + i).rem_euclid(2 * size)) as usize] =
                    self.tss[((self.highest_ack + i).rem_euclid(size)) as usize];
            }
            self.tss = bigger;
        }
        let size = self.tss.len() as i64;
        self.tss[seqno.rem_euclid(size) as usize] = now;
    }

    // ----- windows -----

    /// ns-2 `window()`: the usable window in packets.
    #[inline(always)] // on every ACK and send: out of line it costs S2 1.4% more instructions
    fn window(&self) -> i64 {
        let wnd = self.wnd as i64;
        if self.frto == 2 {
            // F-RTO's first new ACK has come: room for two segments past recover
            return self.frto_window();
        }
        match self.variant {
            TcpVariant::Reno | TcpVariant::NewReno => (self.cwnd as i64 + self.dupwnd).min(wnd),
            TcpVariant::Fack => (self.cwnd.min(self.wnd) + self.fack_ref().wintrim) as i64,
            TcpVariant::Linux => self.linux_window(),
            _ => {
                if self.cwnd < self.wnd {
                    self.cwnd as i64
                } else {
                    wnd
                }
            }
        }
    }

    /// ns-2 `windowd()`: the same as a real number.
    fn windowd(&self) -> f64 {
        match self.variant {
            TcpVariant::Reno | TcpVariant::NewReno => (self.cwnd + self.dupwnd as f64).min(self.wnd),
            TcpVariant::Linux => self.linux_window() as f64,
            _ => self.cwnd.min(self.wnd),
        }
    }

    fn initial_window(&self) -> f64 {
        if self.wnd_init_option == 2 {
            self.p.rfc3390_window()
        } else {
            self.wnd_init
        }
    }

    fn opencwnd(&mut self, net: &mut impl Port) {
        if self.variant == TcpVariant::Rfc793edu {
            return self.rfc793edu_opencwnd(net);
        }
        let cwnd = if self.cwnd < self.ssthresh as f64 {
            self.cwnd + 1.0
        } else {
            let mut increment =
                if self.hstcp.is_some() { self.increase_param() } else { self.p.increase_num / self.cwnd };
            let first_slow_start = matches!(self.last_cwnd_action, CwndAction::None | CwndAction::Timeout);
            if first_slow_start && self.p.max_ssthresh > 0 {
                increment = self.limited_slow_start(increment);
            }
            self.cwnd + increment
        };
        self.set_cwnd_clamped(net, cwnd);
    }

    /// Assigns an opened window, then clamps it to `max_cwnd` if that is set.
    fn set_cwnd_clamped(&mut self, net: &mut impl Port, cwnd: f64) {
        if self.p.max_cwnd > 0 && cwnd as i64 > self.p.max_cwnd as i64 {
            // ns-2 assigns the increase, then the clamp, and its cwnd trace shows both; the
            // series shows the window the sender uses
            if cwnd != self.cwnd {
                self.trace_cwnd_line(net, cwnd);
            }
            self.cwnd = self.p.max_cwnd as f64;
            self.trace_cwnd(net);
        } else {
            self.set_cwnd(net, cwnd);
        }
    }

    /// The windows `slowdown()` cuts to, computed before any cut.
    fn cut_windows(&mut self) -> CutWindows {
        let slowstart = self.cwnd < self.ssthresh as f64;
        // HighSpeed TCP above low_window: take decrease_param() of the window, and keep it as
        // decrease_num_ (ns-2 assigns it before either branch reads it).
        let highspeed = self.hstcp.is_some() && self.cwnd > self.p.low_window as f64;
        if highspeed {
            self.decrease_num = self.decrease_param();
        }
        let (halfwin, decreasewin, win) = if self.p.precision_reduce {
            let w = self.windowd();
            (w / 2.0, if highspeed { w - self.decrease_num * w } else { self.decrease_num * w }, w)
        } else {
            let cut = if highspeed {
                let w = self.windowd();
                w - self.decrease_num * w
            } else {
                self.decrease_num * self.window() as f64
            };
            ((self.window() / 2) as f64, cut as i64 as f64, self.window() as f64)
        };
        CutWindows { slowstart, halfwin, decreasewin, win }
    }

    fn slowdown(&mut self, net: &mut impl Port, how: Slowdown) {
        let CutWindows { slowstart, halfwin, decreasewin, .. } = self.cut_windows();
        if how.ssthresh_half {
            self.ssthresh = if self.first_decrease || slowstart || self.last_cwnd_action == CwndAction::Timeout {
                halfwin as i64
            } else {
                decreasewin as i64
            };
        }
        let cwnd = match how.cwnd {
            CwndCut::Half if self.first_decrease || slowstart || self.decrease_num == 0.5 => halfwin,
            CwndCut::Half => decreasewin,
            CwndCut::Restart | CwndCut::One => 1.0,
            CwndCut::Init => self.wnd_init as i64 as f64,
        };
        self.set_cwnd(net, cwnd);
        self.cong_action = true;
        self.end_slowdown(net, slowstart);
    }

    /// What every `slowdown()` ends with.
    fn end_slowdown(&mut self, net: &mut impl Port, slowstart: bool) {
        if self.ssthresh < 2 {
            self.ssthresh = 2;
        }
        self.first_decrease = false;
        if self.cwnd == 1.0 || slowstart {
            self.trace_event(net, "SLOW_START");
        }
    }

    // ----- RTT estimation (ns-2 ticks) -----

    fn rtt_init(&mut self) {
        self.rtt.init(&self.p);
    }

    fn rtt_timeout(&self) -> f64 {
        self.rtt.timeout(&self.p)
    }

    fn rtt_update(&mut self, net: &mut impl Port, now: f64, tao: f64) {
        net.tracer().rtt_sample(now, self.ep.flow.0, tao);
        net.flow_stats(self.ep.flow).on_rtt_sample(tao);
        let ticks = TickEstimator::ticks(&self.p, self.boot_time, now, tao);
        if !self.rtt.holds(&self.p, ticks) {
            let tick = self.p.tcp_tick;
            let why = format!(
                "an RTT sample of {} is {ticks:.2e} ticks of {}, more than ns-2's estimator holds in its 32-bit \
                 integers (it keeps the smoothed RTT as ticks times {}): ns-2 itself fails here. Use a coarser tcp_tick (ns-2's \
                 default is 10 ms)",
                show_seconds(tao),
                show_seconds(tick),
                1u32 << self.p.srtt_bits
            );
            return net.stop_run(ScenarioError::new(format!("flows[{}].tcp.tcp_tick", self.ep.flow.0), why));
        }
        self.rtt.update(&self.p, ticks);
        if self.variant == TcpVariant::Rfc793edu {
            self.rfc793edu_rto();
        }
    }

    fn rtt_backoff(&mut self) {
        if self.variant == TcpVariant::Rfc793edu {
            return self.rfc793edu_backoff();
        }
        self.rtt.back_off(&self.p);
    }

    fn set_rtx_timer(&mut self, net: &mut impl Port) {
        let rto = self.rtt_timeout();
        net.arm(&mut self.rtx_timer, self.ep.flow, TimerKind::Rtx, rto);
    }

    fn reset_rtx_timer(&mut self, net: &mut impl Port, mild: bool, backoff: bool) {
        if backoff {
            self.rtt_backoff();
        }
        self.set_rtx_timer(net);
        if !mild {
            self.t_seqno = self.highest_ack + 1;
        }
        self.rtt_active = false;
    }

    /// Restart the timer if data is still outstanding, else cancel it.
    fn newtimer(&mut self, net: &mut impl Port, ack: i64) {
        if self.t_seqno > ack || ack < self.maxseq || self.cwnd < 1.0 {
            self.set_rtx_timer(net);
        } else {
            net.cancel(&mut self.rtx_timer, self.ep.flow, TimerKind::Rtx);
        }
    }

    // ----- sending -----

    /// Sends segment `seqno` (ns-2's virtual `output`).
    fn output(&mut self, net: &mut impl Port, seqno: i64) {
        match self.variant {
            TcpVariant::Vegas => self.vegas_output(net, seqno),
            TcpVariant::Rfc793edu => self.rfc793edu_output(net, seqno),
            _ => self.base_output(net, seqno),
        }
    }

    /// A segment's ECN flags: ECT when ECN is on (the SYN asks for ECN instead), CWR once after
    /// a window cut.
    fn ecn_flags(&mut self, seqno: i64) -> u8 {
        let mut f = 0u8;
        if self.p.ecn {
            f |= flags::ECT;
        }
        if self.cong_action {
            // SetCWRonRetransmit_ (true): a retransmission may carry the flag too.
            f |= flags::CWR;
            self.cong_action = false;
        }
        if seqno == 0 && self.p.ecn {
            f |= flags::ECN_ECHO;
            f &= !flags::ECT;
        }
        f
    }

    fn base_output(&mut self, net: &mut impl Port, seqno: i64) {
        let f = self.ecn_flags(seqno);
        let (size, payload) = if seqno == 0 && self.p.syn {
            if self.maxseq == -1 {
                self.curseq += 1;
            }
            self.syn_connects += 1;
            if self.p.max_connects > 0 && self.syn_connects > self.p.max_connects {
                // ns-2 aborts the connection: nothing more to send, the SYN (its uid taken) not sent
                net.unsent_packet();
                self.curseq = 0;
                net.arm(&mut self.rtx_timer, self.ep.flow, TimerKind::Rtx, 10000.0);
                return;
            }
            (self.p.tcpip_base_hdr_size, 0)
        } else if seqno == 0 || !self.p.use_headers {
            // ns-2 adds the headers only to data other than seqno 0 (and only with useHeaders_).
            (self.p.packet_size, self.p.packet_size)
        } else {
            let hdr = self.p.tcpip_base_hdr_size + if self.p.timestamps { 10 } else { 0 };
            (self.p.packet_size + hdr, self.p.packet_size)
        };
        if self.p.bug_fix_ts {
            self.remember_send_time(seqno, net.now_secs());
        }
        let force_set_rtx_timer = self.highest_ack == self.maxseq;
        self.ep.send(net, Kind::Tcp, |p| {
            (p.size, p.payload, p.seq, p.flags, p.ts_echo) = (size, payload, seqno, f, self.ts_peer)
        });
        self.note_sent(net, seqno);
        if !self.rtx_timer.pending() || force_set_rtx_timer {
            self.set_rtx_timer(net);
        }
    }

    /// Sends what the window allows (ns-2's virtual `send_much`).
    /// After sending `seqno`: the highest seqno sent, the RTT timing of one segment per RTT,
    /// or a retransmission counted.
    #[inline(always)] // once per segment sent
    fn note_sent(&mut self, net: &mut impl Port, seqno: i64) {
        if seqno > self.maxseq {
            self.maxseq = seqno;
            if self.pacer.is_some() {
                // (windowd only then: it is out of line for some variants)
                let cwnd = self.windowd();
                if let Some(p) = &mut self.pacer {
                    p.on_send(net.now_secs(), cwnd);
                }
            }
            if !self.rtt_active {
                self.rtt_active = true;
                if seqno > self.rtt_seq {
                    self.rtt_seq = seqno;
                    self.rtt_ts = net.now_secs();
                }
            }
        } else {
            net.flow_stats(self.ep.flow).data_retransmitted += 1;
        }
    }

    fn send_much(&mut self, net: &mut impl Port, maxburst: u32) {
        if self.p.rbp && self.rbp_send_much(net) {
            return;
        }
        match self.variant {
            TcpVariant::Sack1 => self.sack1_send_much(net, maxburst),
            TcpVariant::Fack => self.fack_send_much(net, maxburst),
            TcpVariant::SackRh => self.sackrh_send_much(net, maxburst),
            TcpVariant::Linux => self.linux_send_much(net, maxburst),
            _ => self.base_send_much(net, maxburst),
        }
    }

    fn base_send_much(&mut self, net: &mut impl Port, maxburst: u32) {
        self.base_send_much_now(net, maxburst, false)
    }

    /// `TcpAgent::send_much`; `force` sends at once even with `overhead` (its delayed send).
    fn base_send_much_now(&mut self, net: &mut impl Port, maxburst: u32, force: bool) {
        let delayed = self.jitter.is_some() && !force;
        if delayed && self.delsnd_timer.pending() {
            return;
        }
        let mut win = self.window();
        if self.t_seqno == 0 {
            self.firstsent = net.now_secs();
        }
        if delayed {
            if self.t_seqno <= self.highest_ack + win && self.t_seqno < self.curseq {
                self.delay_send(net);
            }
            return;
        }
        let mut npackets = 0;
        while self.t_seqno <= self.highest_ack + win && self.t_seqno < self.curseq {
            if self.t_seqno > self.maxseq && self.held_by_pacer(net) {
                break;
            }
            self.output(net, self.t_seqno);
            npackets += 1;
            if self.quiescence.is_some() {
                self.qoption_after_send(net);
            }
            self.t_seqno += 1;
            win = self.window();
            if maxburst > 0 && npackets == maxburst {
                break;
            }
        }
    }

    /// overhead_: what the window allows goes after a random delay in [0, overhead).
    #[cold]
    fn delay_send(&mut self, net: &mut impl Port) {
        let draw = self.jitter.as_mut().map_or(0.0, |d| d.uniform(net.shared_rng()));
        let delay = self.p.overhead * draw;
        net.arm(&mut self.delsnd_timer, self.ep.flow, TimerKind::DelSnd, delay);
    }

    #[inline(always)] // once per new segment; unpaced flows only test the pacer's absence
    fn held_by_pacer(&mut self, net: &mut impl Port) -> bool {
        if self.pacer.is_none() {
            return false;
        }
        let cwnd = self.windowd();
        super::held_by_pacer(&mut self.pacer, &mut self.pace_timer, net, self.ep.flow, cwnd)
    }

    /// The delayed send of `overhead` is due: send what the window allows.
    pub fn on_delsnd_timer(&mut self, net: &mut impl Port, gen: u32) {
        if net.fire(&mut self.delsnd_timer, self.ep.flow, TimerKind::DelSnd, gen) {
            self.base_send_much_now(net, self.p.maxburst, true);
        }
    }

    pub fn on_pace_timer(&mut self, net: &mut impl Port, gen: u32) {
        if net.fire(&mut self.pace_timer, self.ep.flow, TimerKind::Pace, gen) {
            if self.pacer.is_some() {
                self.send_much(net, self.p.maxburst);
            } else {
                self.rbp_paced_send_one(net);
            }
        }
    }

    /// Limited Transmit (singledup_): one new segment on the first and second dupack.
    fn send_one(&mut self, net: &mut impl Port) {
        let t = self.t_seqno as f64;
        let base = self.highest_ack as f64;
        if t <= base + self.wnd && self.t_seqno < self.curseq && t <= base + self.cwnd + self.dupacks as f64 {
            self.output(net, self.t_seqno);
            if self.quiescence.is_some() {
                self.qoption_after_send(net);
            }
            self.t_seqno += 1;
        }
    }

    // ----- receiving ACKs -----

    pub fn recv(&mut self, net: &mut impl Port, ack: &Packet) {
        if ack.ts < self.last_reset
            && !matches!(self.variant, TcpVariant::Vegas | TcpVariant::Fack | TcpVariant::Rfc793edu)
        {
            // an ACK of the connection before a reset (Vegas, Fack and RFC793edu have no such test)
            return;
        }
        if let Some(p) = &mut self.pacer {
            // RFC 7323: only an ACK that advances the window gives an RTT sample.
            if ack.seq > self.last_ack {
                p.on_rtt(net.now_secs() - ack.ts_echo);
            }
        }
        if self.p.rbp {
            self.rbp_on_ack(net, ack);
        }
        match self.variant {
            TcpVariant::Sack1 => return self.sack1_recv(net, ack),
            TcpVariant::Fack => return self.fack_recv(net, ack),
            TcpVariant::SackRh => return self.sackrh_recv(net, ack),
            TcpVariant::Vegas => return self.vegas_recv(net, ack),
            TcpVariant::Linux => return self.linux_recv(net, ack),
            TcpVariant::Rfc793edu => return self.rfc793edu_recv(net, ack),
            _ => {}
        }
        let seq = ack.seq;
        if self.variant == TcpVariant::NewReno {
            self.newreno_estimate_ssthresh(net.now_secs());
        }
        self.ts_peer = ack.ts;
        if ack.has(flags::ECN_ECHO) && self.p.ecn {
            self.ecn(net, seq);
        }
        self.recv_frto_helper(net, seq);
        let numdupacks = self.p.numdupacks as i64;
        if seq > self.last_ack {
            // (Sack1, Fack, SackRH and Vegas have their own recv; only the first three get here.)
            match self.variant {
                TcpVariant::Reno => {
                    if self.last_cwnd_action == CwndAction::Dupack {
                        self.last_cwnd_action = CwndAction::Exited;
                    }
                    self.dupwnd = 0;
                    self.full_newack(net, ack);
                }
                TcpVariant::NewReno => {
                    if seq >= self.recover || self.last_cwnd_action != CwndAction::Dupack {
                        if self.dupwnd > 0 {
                            self.dupwnd = 0;
                            if self.last_cwnd_action == CwndAction::Dupack {
                                self.last_cwnd_action = CwndAction::Exited;
                            }
                            if self.p.exit_recovery_fix {
                                let outstanding = self.maxseq - seq + 1;
                                let c = if self.ssthresh < outstanding { self.ssthresh } else { outstanding };
                                self.set_cwnd(net, c as f64);
                            }
                        }
                        self.firstpartial = false;
                        self.full_newack(net, ack);
                    } else {
                        // A partial ACK: stay in fast recovery.
                        if !self.p.partial_window_deflation {
                            self.dupwnd = 0;
                        }
                        self.partial_newack(net, ack);
                    }
                }
                _ => self.full_newack(net, ack),
            }
        } else if seq == self.last_ack {
            self.dupacks += 1;
            let in_recovery = self.last_cwnd_action == CwndAction::Dupack;
            if self.dupacks == numdupacks {
                // noFastRetrans_ is Tahoe's: no fast retransmit, and no Limited Transmit either
                if !(self.variant == TcpVariant::Tahoe && self.p.no_fast_retrans) {
                    self.dupack_action(net);
                }
                if self.variant != TcpVariant::Tahoe && !self.p.exit_fast_retrans {
                    self.dupwnd = numdupacks;
                }
            } else if self.dupacks > numdupacks
                && self.variant != TcpVariant::Tahoe
                && (in_recovery || !self.p.exit_fast_retrans)
            {
                // exitFastRetrans_: inflate only while in fast recovery, not after a timeout.
                if self.variant == TcpVariant::NewReno {
                    self.trace_event(net, "NEWRENO_FAST_RECOVERY");
                }
                self.dupwnd += 1;
                if self.variant == TcpVariant::NewReno && self.p.newreno_changes && self.dupacks % 2 == 1 {
                    let s = self.t_seqno;
                    self.t_seqno += 1;
                    self.output(net, s);
                }
            } else if self.dupacks < numdupacks && self.p.singledup {
                self.send_one(net);
            }
        }
        if self.variant == TcpVariant::Tahoe && self.p.rtt_counter && self.quiescence.is_some() {
            self.qoption_after_ack(seq);
        }
        // An old ACK (below last_ack) sends nothing unless aggressive_maxburst_.
        if seq < self.last_ack && !self.p.aggressive_maxburst {
            return;
        }
        match self.variant {
            TcpVariant::Reno => {
                if self.dupacks == 0 || self.dupacks > numdupacks - 1 {
                    self.send_much(net, self.p.maxburst);
                }
            }
            TcpVariant::NewReno => {
                if self.dupacks == 0 {
                    self.send_much(net, self.p.maxburst);
                } else if self.dupacks > numdupacks - 1 && !self.p.newreno_changes {
                    self.send_much(net, 2);
                }
            }
            _ => self.send_much(net, self.p.maxburst),
        }
    }

    /// A new ACK that is not a Newreno partial ACK (ns-2 `recv_newack_helper` + delay_growth).
    fn full_newack(&mut self, net: &mut impl Port, ack: &Packet) {
        self.newack(net, ack);
        let echo = ack.has(flags::ECN_ECHO);
        // control_increase_: only a window that was used in full opens
        if (!self.ect || !echo || (self.p.old_ecn && self.ecn_burst))
            && (!self.p.control_increase || self.network_limited())
        {
            self.opencwnd(net);
        }
        if self.ect {
            if !echo {
                self.ecn_backoff = false;
            }
            self.ecn_burst = echo;
        }
        if !self.ect && echo && !ack.has(flags::CWR) {
            self.ect = true;
        }
        if self.highest_ack >= self.curseq - 1 && !self.closed {
            self.closed = true;
        }
        if self.quiescence.is_some() {
            self.qoption_after_newack(net);
        }
        self.frto_newack(net);
        if self.last_ack == 0 && self.p.delay_growth {
            let w = self.initial_window();
            self.set_cwnd(net, w);
        }
    }

    fn newack(&mut self, net: &mut impl Port, ack: &Packet) {
        let now = net.now_secs();
        if !self.p.timerfix {
            self.newtimer(net, ack.seq);
        }
        self.dupacks = 0;
        self.last_ack = ack.seq;
        self.prev_highest_ack = self.highest_ack;
        self.highest_ack = self.last_ack;
        if self.t_seqno < self.last_ack + 1 {
            self.t_seqno = self.last_ack + 1;
        }
        if self.p.timestamps {
            self.ts_echo = ack.ts_echo;
            self.rtt_update(net, now, now - ack.ts_echo);
            if self.p.ts_reset_rto && (!self.ect || !self.ecn_backoff || !ack.has(flags::ECN_ECHO)) {
                self.rtt.backoff = 1;
                self.ecn_backoff = false;
            }
        }
        if self.rtt_active && ack.seq >= self.rtt_seq {
            if !self.ect || !self.ecn_backoff || !ack.has(flags::ECN_ECHO) {
                self.rtt.backoff = 1;
                self.ecn_backoff = false;
            }
            self.rtt_active = false;
            if !self.p.timestamps {
                self.rtt_update(net, now, now - self.rtt_ts);
            }
        }
        if self.p.timerfix {
            // restart the timer after the RTT update
            self.newtimer(net, ack.seq);
        }
    }

    /// Newreno's partial ACK: deflate, retransmit the next hole, restart the timer once.
    fn partial_newack(&mut self, net: &mut impl Port, ack: &Packet) {
        if !self.p.newreno_changes1 || !self.firstpartial {
            self.firstpartial = true;
            self.newtimer(net, ack.seq);
        }
        if self.p.partial_window_deflation {
            let deflate = ack.seq - self.last_ack;
            if self.dupwnd > deflate {
                self.dupwnd -= deflate - 1;
            } else {
                let c = self.cwnd - (deflate - self.dupwnd) as f64;
                self.dupwnd = 1;
                self.set_cwnd(net, c);
            }
            if self.cwnd < 1.0 {
                self.set_cwnd(net, 1.0);
            }
        }
        self.last_ack = ack.seq;
        self.highest_ack = self.last_ack;
        if self.t_seqno < self.last_ack + 1 {
            self.t_seqno = self.last_ack + 1;
        }
        if self.rtt_active && ack.seq >= self.rtt_seq {
            self.rtt_active = false;
            self.rtt.backoff = 1;
        }
        self.output(net, self.last_ack + 1);
    }

    /// Newreno's ssthresh estimate from the first ACKs (only used with newreno_changes).
    fn newreno_estimate_ssthresh(&mut self, now: f64) {
        self.acked += 1;
        match self.acked {
            1 => self.basertt = now - self.firstsent,
            2 => self.ack2 = now,
            3 if self.p.newreno_changes && now > self.ack2 => {
                let size = self.p.packet_size as f64;
                let estimate = ((self.basertt * (size / (now - self.ack2))) / size) as i64;
                if estimate < self.ssthresh {
                    self.ssthresh = estimate;
                }
            }
            _ => {}
        }
    }

    fn dupack_action(&mut self, net: &mut impl Port) {
        let recovered = self.highest_ack > self.recover;
        let reno_allows = self.variant == TcpVariant::Reno && self.last_cwnd_action == CwndAction::Dupack;
        // bugfix_ss_ (1): a fast retransmit is allowed when the first data packet was lost.
        let act = recovered
            || (!self.p.bug_fix && !self.p.ecn)
            || reno_allows
            || (self.p.bugfix_ss && self.highest_ack == 0)
            || (self.variant == TcpVariant::NewReno
                && self.p.bug_fix
                && self.p.less_careful
                && self.highest_ack == self.recover);
        if !act {
            if self.p.ecn && self.last_cwnd_action == CwndAction::Ecn {
                self.last_cwnd_action = CwndAction::Dupack;
                if !matches!(self.variant, TcpVariant::Reno | TcpVariant::NewReno) {
                    // TcpAgent's own (Tahoe, RFC793edu)
                    self.slowdown(net, Slowdown { ssthresh_half: false, cwnd: CwndCut::One });
                    self.reset_rtx_timer(net, false, false);
                } else {
                    self.reset_rtx_timer(net, true, false);
                    self.output(net, self.last_ack + 1);
                    self.dupwnd = self.p.numdupacks as i64;
                }
                return;
            }
            if self.p.bug_fix && !self.newreno_bugfix_heuristics() {
                // Not again within the window that is already being recovered.
                return;
            }
        }
        match self.variant {
            TcpVariant::Reno => self.trace_event(net, "RENO_FAST_RETX"),
            TcpVariant::NewReno => self.trace_event(net, "NEWRENO_FAST_RETX"),
            _ => self.trace_event(net, "FAST_RETX"),
        }
        self.recover = self.maxseq;
        self.last_cwnd_action = CwndAction::Dupack;
        match self.variant {
            TcpVariant::Reno | TcpVariant::NewReno => {
                // Newreno restarts the timer before cutting the window, Reno after; neither
                // reads the other's result (the event line above prints neither), so one
                // order serves both.
                self.slowdown(net, Slowdown { ssthresh_half: true, cwnd: CwndCut::Half });
                self.reset_rtx_timer(net, true, false);
                self.output(net, self.last_ack + 1);
                self.dupwnd = self.p.numdupacks as i64;
            }
            _ => {
                self.slowdown(net, Slowdown { ssthresh_half: true, cwnd: CwndCut::One });
                self.reset_rtx_timer(net, false, false);
            }
        }
    }

    /// The response to an ECN-echo: halve at most once per window.
    fn ecn(&mut self, net: &mut impl Port, seqno: i64) {
        if seqno > self.recover || self.last_cwnd_action == CwndAction::Timeout {
            self.recover = self.maxseq;
            self.last_cwnd_action = CwndAction::Ecn;
            if self.cwnd <= 1.0 {
                if self.ecn_backoff {
                    self.rtt_backoff();
                } else {
                    self.ecn_backoff = true;
                }
            } else {
                self.ecn_backoff = false;
            }
            self.slowdown(net, Slowdown { ssthresh_half: true, cwnd: CwndCut::Half });
        }
    }

    // ----- timeout -----

    pub fn on_timer(&mut self, net: &mut impl Port, gen: u32) {
        if net.fire(&mut self.rtx_timer, self.ep.flow, TimerKind::Rtx, gen) {
            if self.p.rbp && self.rbp_on_timeout() {
                return;
            }
            match self.variant {
                TcpVariant::Sack1 => self.sack1_timeout(net),
                TcpVariant::Fack => self.fack_timeout(net),
                TcpVariant::SackRh => self.sackrh_timeout(net),
                TcpVariant::Vegas => self.vegas_timeout(net),
                TcpVariant::Linux => self.linux_timeout(net),
                _ => self.base_timeout(net),
            }
        }
    }

    /// ns-2 `TcpAgent::timeout` (with Reno's additions for Reno and Newreno).
    fn base_timeout(&mut self, net: &mut impl Port) {
        self.trace_event(net, "TIMEOUT");
        if matches!(self.variant, TcpVariant::Reno | TcpVariant::NewReno) {
            self.dupwnd = 0;
            self.dupacks = 0;
            if self.p.bug_fix {
                self.recover = self.maxseq;
            }
        }
        self.frto = 0;
        self.pipe_prev = self.window().max(self.ssthresh);
        if self.cwnd < 1.0 {
            self.set_cwnd(net, 1.0);
        }
        let idle = self.highest_ack == self.maxseq;
        if !idle || self.p.slow_start_restart {
            self.recover = self.maxseq;
            if self.highest_ack == -1 && self.wnd_init_option == 2 {
                self.wnd_init_option = 1;
            } else if self.highest_ack == -1 && self.wnd_init_option == 1 && self.wnd_init > 1.0 && self.p.bugfix_ss {
                // A lost first packet: no larger initial window (bugfix_ss_).
                self.wnd_init = 1.0;
            }
            if idle {
                // restart_bugfix_: nothing outstanding, keep ssthresh.
                self.slowdown(net, Slowdown { ssthresh_half: false, cwnd: CwndCut::One });
            } else if self.highest_ack < self.recover && self.last_cwnd_action == CwndAction::Ecn {
                self.slowdown(net, Slowdown { ssthresh_half: false, cwnd: CwndCut::One });
                self.arm_frto();
            } else {
                self.last_cwnd_action = CwndAction::Timeout;
                self.slowdown(net, Slowdown { ssthresh_half: true, cwnd: CwndCut::Restart });
                self.arm_frto();
            }
        }
        self.reset_rtx_timer(net, false, !idle);
        self.last_cwnd_action = CwndAction::Timeout;
        self.send_much(net, self.p.maxburst);
    }
}

#[cfg(test)]
mod tests;
