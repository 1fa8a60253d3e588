//! Emulation: real Linux hosts exchange frames through the simulated network, in real time.
//!
//! Each real host of the scenario (`[[hosts]]`) gets a network namespace joined to the root
//! namespace by a veth pair (host.rs). An AF_PACKET socket on the root end (sock.rs) reads the
//! host's frames; ARP requests for its subnet are answered here with the gateway's MAC
//! (frame.rs), and an IPv4 packet for another host becomes a `Kind::Real` packet of its size at
//! the host's node, whose bytes wait in the network's side table (frames.rs). It crosses the
//! scenario's links and queues with the simulated flows' packets; at the node of the host it is
//! addressed to, the original frame is written to that host's veth, its MACs rewritten.
//!
//! The scheduler runs against the wall clock: before each event the driver waits until its
//! time (in `ppoll` on the sockets, spinning only the last `SPIN` of it), a frame enters at the
//! time it was read, and how late each event ran is recorded (lateness.rs).

pub mod frame;
pub mod frames;
pub mod host;
pub mod lateness;
pub mod sock;

use crate::ids::NodeId;
use crate::packet::flags;
use crate::scenario::Scenario;
use crate::sim::{RunError, RunOptions, RunResult, Simulation};
use frame::{Frame, ETH_HLEN};
use host::{HostLink, Plumbing, Signals};
use lateness::{Lateness, LatenessReport};
use serde::Serialize;
use sock::PacketSocket;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Instant;
use tcplab_des::Time;

/// The last stretch before an event that is waited for by spinning, not sleeping.
const SPIN: Time = Time::from_micros(50);
/// At most this many frames are read from one host before the others get a turn.
const BATCH: usize = 64;

/// How an emulation is run.
#[derive(Debug, Default, Clone)]
pub struct EmuOptions {
    /// The run: its end (`until`, from `--duration`), output folder, traces.
    pub run: RunOptions,
    /// A command run with `sh -c` in the root namespace once the hosts are up; the run ends
    /// when it exits.
    pub command: Option<String>,
    /// Run the network at real-time priority (SCHED_FIFO), ahead of the machine's other work.
    pub realtime: bool,
}

/// Frames counted per host.
#[derive(Serialize, Debug, Default, Clone)]
pub struct HostCounts {
    pub name: String,
    pub namespace: String,
    /// Frames read from the host, and IPv4 packets among them sent into the network.
    pub frames_in: u64,
    pub packets_in: u64,
    /// IPv6 packets among them sent into the network.
    pub packets6_in: u64,
    /// Frames written to the host (ARP replies and neighbour advertisements included).
    pub frames_out: u64,
    pub arp_replies: u64,
    pub neighbor_advertisements: u64,
    /// Frames not taken (other ethertypes, IPv6 without an address6, multicast such as router
    /// solicitations), or to an address no host has.
    pub ignored: u64,
    pub unroutable: u64,
    /// Frames the socket would not take (its buffer full).
    pub send_errors: u64,
}

/// What an emulation reports, beside the simulation's own results.
#[derive(Serialize, Debug)]
pub struct EmuReport {
    /// Wall-clock seconds the emulation ran.
    pub wall_s: f64,
    /// Simulated seconds reached.
    pub sim_s: f64,
    pub lateness: LatenessReport,
    /// The run followed the wall clock closely enough (`lateness.faithful`).
    pub faithful: bool,
    /// The network ran at real-time priority (asked for, and granted).
    pub realtime: bool,
    pub hosts: Vec<HostCounts>,
    /// Real packets the simulated network dropped.
    pub real_dropped: u64,
    /// Why it ended: "duration", "command" (its exit code in `command_exit`), or "signal N".
    pub ended_by: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command_exit: Option<i32>,
}

/// Both reports: the emulation's and the simulation's.
#[derive(Serialize, Debug)]
pub struct EmuResult {
    pub emulation: EmuReport,
    pub result: RunResult,
}

/// Why an emulation did not run or finish.
#[derive(Debug)]
pub enum EmuError {
    /// It cannot run here (not root, a tool missing) or its plumbing failed: one line.
    Refused(String),
    Run(RunError),
}

impl std::fmt::Display for EmuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmuError::Refused(why) => f.write_str(why),
            EmuError::Run(e) => e.fmt(f),
        }
    }
}

impl From<RunError> for EmuError {
    fn from(e: RunError) -> EmuError {
        EmuError::Run(e)
    }
}

/// A host as the driver sees it: its plumbing, socket, node and counters.
struct Host {
    link: HostLink,
    sock: PacketSocket,
    node: NodeId,
    counts: HostCounts,
}

struct Driver {
    sim: Simulation,
    hosts: Vec<Host>,
    start: Instant,
    /// CLOCK_REALTIME at `start`, in ns: a frame's kernel receive time on the run's clock.
    start_real_ns: u64,
    end: Time,
    lateness: Lateness,
    buf: Vec<u8>,
    /// Each TCP connection direction's initial sequence number, so that traces show sequence
    /// numbers relative to it, as simulated two-way TCP's (and Wireshark's) are.
    isn: HashMap<(IpAddr, u16, IpAddr, u16), u32>,
}

impl Driver {
    /// The wall clock as simulated time.
    fn wall(&self) -> Time {
        Time::from_ps(self.start.elapsed().as_nanos() as u64 * 1000)
    }

    /// The host with address `a`.
    fn host_of(&self, a: Ipv4Addr) -> Option<usize> {
        self.hosts.iter().position(|h| h.link.address.addr == a)
    }

    /// The host with IPv6 address `a`.
    fn host6_of(&self, a: Ipv6Addr) -> Option<usize> {
        self.hosts.iter().position(|h| h.link.address6.is_some_and(|p| p.addr == a))
    }

    /// Sends a reply made here (ARP, neighbour discovery) to host `h`; true if it went.
    fn reply(&mut self, h: usize, frame: &[u8]) -> bool {
        let host = &mut self.hosts[h];
        match host.sock.send(frame) {
            Ok(()) => {
                host.counts.frames_out += 1;
                true
            }
            Err(_) => {
                host.counts.send_errors += 1;
                false
            }
        }
    }

    /// An IP packet of `len` bytes from `src` at host `h` to `dst` at host `k` (if any): into
    /// the network at `h`'s node, or straight to `k` on the same node.
    fn route(&mut self, h: usize, k: Option<usize>, f: &mut [u8], len: u32, (src, dst): (IpAddr, IpAddr)) {
        match k {
            None => self.hosts[h].counts.unroutable += 1,
            Some(k) if self.hosts[k].node == self.hosts[h].node => self.write_to(k, f),
            Some(k) => {
                let (from, to) = (self.hosts[h].node, self.hosts[k].node);
                let frame_len = (ETH_HLEN + len as usize).min(f.len());
                let headers = self.relative(frame::headers(f, len), src, dst);
                self.sim.net.inject_real(from, to, &f[..frame_len], len, &headers);
            }
        }
    }

    /// TCP's sequence and acknowledgement numbers of `h` (from `src` to `dst`) made relative
    /// to each direction's initial sequence number: a SYN's, or, for a connection first seen
    /// after its SYN, one before the first sequence number seen. An acknowledgement of a
    /// direction not seen yet shows as 0.
    fn relative(&mut self, mut h: frame::Headers, src: IpAddr, dst: IpAddr) -> frame::Headers {
        if h.hlen < 20 {
            return h; // not TCP
        }
        const SYN: u8 = 0x02;
        let isn = h.seq.wrapping_sub(u32::from(h.tcp_flags & SYN == 0));
        let ours = (src, h.src_port, dst, h.dst_port);
        let base = if h.tcp_flags & SYN != 0 {
            self.isn.insert(ours, isn);
            isn
        } else {
            *self.isn.entry(ours).or_insert(isn)
        };
        h.seq = h.seq.wrapping_sub(base);
        h.ack = match self.isn.get(&(dst, h.dst_port, src, h.src_port)) {
            Some(theirs) => h.ack.wrapping_sub(*theirs),
            None => 0,
        };
        h
    }

    /// Runs every event due by `w`, one at a time, recording how late each ran, and writes out
    /// the real frames they delivered; the clock then stands at `w`.
    fn run_due(&mut self, w: Time) {
        let w = w.min(self.end);
        while let Some(t) = self.sim.next_event_secs() {
            if Time::from_secs_f64(t) > w {
                break;
            }
            let late = self.wall().as_secs_f64() - t;
            self.sim.advance_at_most(w, 1);
            self.lateness.record((late.max(0.0) * 1e9) as u64);
            self.write_arrived();
        }
        if w > self.sim.now() {
            self.sim.advance(w);
        }
    }

    /// Writes the real packets that reached their host's node to that host, and frees them.
    fn write_arrived(&mut self) {
        while let Some((_node, id)) = self.sim.net.real.arrived.pop() {
            let pkt = self.sim.net.ctx.pkts.release(id);
            let Some(mut buf) = self.sim.net.real.take(pkt.uid) else { continue };
            if pkt.has(flags::CE) {
                frame::mark_ce(&mut buf); // a simulated queue marked it
            }
            let to = match frame::parse(&buf) {
                Frame::Ipv4 { dst, .. } => self.host_of(dst),
                Frame::Ipv6 { dst, .. } => self.host6_of(dst),
                _ => None,
            };
            if let Some(k) = to {
                self.write_to(k, &mut buf);
            }
            self.sim.net.real.recycle(buf);
        }
    }

    /// Writes `frame` to host `k`, addressed from its gateway.
    fn write_to(&mut self, k: usize, frame: &mut [u8]) {
        let h = &mut self.hosts[k];
        frame::rewrite_macs(frame, h.link.host_mac, h.link.gw_mac);
        match h.sock.send(frame) {
            Ok(()) => h.counts.frames_out += 1,
            Err(_) => h.counts.send_errors += 1,
        }
    }

    /// Reads what waits on every host's socket; true if anything was read. A frame enters the
    /// network when the kernel received it (not before the clock, nor after now): the time the
    /// driver took to wake up or to get to it is not added to the packet's delay.
    fn read_frames(&mut self) -> std::io::Result<bool> {
        let mut any = false;
        let mut buf = std::mem::take(&mut self.buf);
        for h in 0..self.hosts.len() {
            for _ in 0..BATCH {
                let Some((n, stamp)) = self.hosts[h].sock.recv(&mut buf)? else { break };
                any = true;
                let now = self.wall();
                let at = match stamp {
                    Some(ns) => Time::from_ps(ns.saturating_sub(self.start_real_ns) * 1000).clamp(self.sim.now(), now),
                    None => now,
                };
                self.run_due(at);
                self.take_frame(h, &mut buf[..n]);
            }
        }
        self.buf = buf;
        Ok(any)
    }

    /// A frame from host `h`, now: ARP is answered, IPv4 enters the network at the host's node.
    fn take_frame(&mut self, h: usize, f: &mut [u8]) {
        self.hosts[h].counts.frames_in += 1;
        match frame::parse(f) {
            Frame::ArpRequest { sender_mac, sender, target } => {
                let link = &self.hosts[h].link;
                // the gateway, or any other address of the host's subnet (proxy ARP)
                if link.address.contains(target) && target != link.address.addr && target != sender {
                    let reply = frame::arp_reply(sender_mac, sender, target, link.gw_mac);
                    if self.reply(h, &reply) {
                        self.hosts[h].counts.arp_replies += 1;
                    }
                } else {
                    self.hosts[h].counts.ignored += 1;
                }
            }
            Frame::NeighborSolicitation { sender_mac, src, target } => {
                let link = &self.hosts[h].link;
                // the gateway, or any other address of the host's prefix; not the host's own
                // address, nor a solicitation from `::` (duplicate address detection)
                match link.address6 {
                    Some(p) if p.contains(target) && target != p.addr && !src.is_unspecified() => {
                        let reply = frame::neighbor_advertisement(sender_mac, src, target, link.gw_mac);
                        if self.reply(h, &reply) {
                            self.hosts[h].counts.neighbor_advertisements += 1;
                        }
                    }
                    _ => self.hosts[h].counts.ignored += 1,
                }
            }
            Frame::Ipv4 { src, dst, len } => {
                let k = self.host_of(dst);
                if k.is_some() {
                    self.hosts[h].counts.packets_in += 1;
                }
                self.route(h, k, f, len, (src.into(), dst.into()));
            }
            Frame::Ipv6 { src, dst, len } if self.hosts[h].link.address6.is_some() && !dst.is_multicast() => {
                let k = self.host6_of(dst);
                if k.is_some() {
                    self.hosts[h].counts.packets6_in += 1;
                }
                self.route(h, k, f, len, (src.into(), dst.into()));
            }
            Frame::Ipv6 { .. } => self.hosts[h].counts.ignored += 1,
            Frame::Other(_) | Frame::Malformed => self.hosts[h].counts.ignored += 1,
        }
    }

    /// Waits until `until` (wall time) or a frame, whichever comes first: in `ppoll` up to
    /// `SPIN` before it, then spinning.
    fn wait(&self, until: Time) {
        let now = self.wall();
        if until <= now {
            return;
        }
        let sleep = until.saturating_sub(now).saturating_sub(SPIN);
        if sleep > Time::ZERO {
            let mut fds: Vec<libc::pollfd> = self
                .hosts
                .iter()
                .map(|h| libc::pollfd { fd: h.sock.raw_fd(), events: libc::POLLIN, revents: 0 })
                .collect();
            let ns = sleep.ps() / 1000;
            let ts =
                libc::timespec { tv_sec: (ns / 1_000_000_000) as libc::time_t, tv_nsec: (ns % 1_000_000_000) as _ };
            // SAFETY: `fds` lives across the call; a signal interrupts it (EINTR), as wanted
            unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &ts, std::ptr::null()) };
            return;
        }
        while self.wall() < until {
            std::hint::spin_loop();
        }
    }
}

/// The calling thread at real-time priority (SCHED_FIFO) while this lives, so that other work
/// on the machine does not hold the network's events back. The processes it starts get the
/// normal policy back (SCHED_RESET_ON_FORK); the kernel still leaves the other tasks 5% of each
/// second (sched_rt_runtime_us), so a run that cannot keep up cannot lock the machine.
struct RealtimePriority {
    policy: libc::c_int,
    param: libc::sched_param,
}

impl RealtimePriority {
    /// Low among real-time priorities: above every normal task, below the kernel's own threads.
    const PRIORITY: libc::c_int = 10;

    /// None if the kernel refuses (no CAP_SYS_NICE, or a container without real-time budget).
    fn take() -> Option<RealtimePriority> {
        let mut param = libc::sched_param { sched_priority: 0 };
        // SAFETY: this thread's own scheduling, read and then set from plain values
        unsafe {
            let policy = libc::sched_getscheduler(0);
            libc::sched_getparam(0, &mut param);
            let rt = libc::sched_param { sched_priority: Self::PRIORITY };
            (policy >= 0 && libc::sched_setscheduler(0, libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK, &rt) == 0)
                .then_some(RealtimePriority { policy, param })
        }
    }
}

impl Drop for RealtimePriority {
    fn drop(&mut self) {
        // SAFETY: as in `take`, back to what it was
        unsafe { libc::sched_setscheduler(0, self.policy, &self.param) };
    }
}

/// Runs `scenario` as an emulation: its real hosts in namespaces, its network in real time,
/// until its end (or `opts.run.until`), the command's exit, or a signal. Everything it created
/// is removed before it returns, whatever the way.
pub fn emulate(scenario: Scenario, opts: &EmuOptions) -> Result<EmuResult, EmuError> {
    if let Some(why) = host::refusal() {
        return Err(EmuError::Refused(why));
    }
    if scenario.hosts.is_empty() {
        return Err(EmuError::Refused("the scenario has no [[hosts]]: emulation needs a real host".into()));
    }
    let host_nodes: Vec<(String, usize)> = scenario.hosts.iter().map(|h| (h.name.clone(), h.node)).collect();
    let runs: Vec<(usize, Time, String)> = scenario
        .hosts
        .iter()
        .enumerate()
        .flat_map(|(i, h)| h.run.iter().map(move |r| (i, r.start, r.command.clone())))
        .collect();
    let signals = Signals::install();
    let mut plumbing = Plumbing::create(&scenario.hosts).map_err(EmuError::Refused)?;
    let mut hosts = Vec::new();
    for (link, (name, node)) in plumbing.hosts.iter().zip(&host_nodes) {
        let sock = PacketSocket::open(&link.veth).map_err(|e| EmuError::Refused(format!("{}: {e}", link.veth)))?;
        let counts = HostCounts { name: name.clone(), namespace: link.ns.clone(), ..HostCounts::default() };
        hosts.push(Host { link: link.clone(), sock, node: NodeId::of(*node), counts });
    }
    let run_opts = RunOptions { no_limits: true, ..opts.run.clone() };
    let sim = Simulation::new(scenario, &run_opts)?;
    let end = sim.end();
    let (start, start_real_ns, start_mono_ns) = (Instant::now(), sock::realtime_ns(), sock::monotonic_ns());
    let mut env: Vec<(String, String)> = hosts
        .iter()
        .map(|h| (format!("TCPLAB_NS_{}", h.counts.name.to_uppercase().replace('-', "_")), h.link.ns.clone()))
        .collect();
    // the run's time 0 on CLOCK_MONOTONIC (shared by every namespace), for the hosts' own
    // series (tcplab.realtcp) to share the simulated flows' time axis
    env.push((
        "TCPLAB_EMU_T0".into(),
        format!("{}.{:09}", start_mono_ns / 1_000_000_000, start_mono_ns % 1_000_000_000),
    ));
    if let Some(dir) = &opts.run.out_dir {
        // the run's output folder, where the hosts' measurements may go
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
        env.push(("TCPLAB_OUT".into(), dir.to_string_lossy().into_owned()));
    }
    let mut d = Driver {
        sim,
        hosts,
        start,
        start_real_ns,
        end,
        lateness: Lateness::default(),
        buf: vec![0; 65536],
        isn: HashMap::new(),
    };
    // SAFETY: prctl on this thread only: sleeps end within a microsecond of their time
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    let priority = if opts.realtime { RealtimePriority::take() } else { None };

    let command = match &opts.command {
        Some(c) => Some(plumbing.spawn(None, c, &env).map_err(EmuError::Refused)?),
        None => None,
    };
    let mut pending = runs; // host commands not started yet
    let (ended_by, command_exit) = loop {
        if let Some(sig) = host::stop_requested() {
            break (format!("signal {sig}"), None);
        }
        if let Some(status) = command.and_then(|c| plumbing.exited(c)) {
            break ("command".to_string(), Some(status.code().unwrap_or(-1)));
        }
        // frames first: they enter at their receive times, before events due later
        let got = d.read_frames().map_err(|e| EmuError::Run(RunError::Io(e)))?;
        let now = d.wall();
        if now >= end {
            d.run_due(end);
            break ("duration".to_string(), None);
        }
        d.run_due(now);
        let mut k = 0;
        while k < pending.len() {
            if pending[k].1 <= now {
                let (h, _, cmd) = pending.swap_remove(k);
                plumbing.spawn(Some(h), &cmd, &env).map_err(EmuError::Refused)?;
            } else {
                k += 1;
            }
        }
        if got {
            continue; // more may wait: read again before sleeping
        }
        let next_event = d.sim.next_event_secs().map_or(end, Time::from_secs_f64);
        let next_start = pending.iter().map(|r| r.1).min().unwrap_or(end);
        // a command's exit is seen at least every 100 ms
        let until = next_event.min(next_start).min(end).min(d.wall() + Time::from_millis(100));
        d.wait(until);
    };
    let wall_s = d.start.elapsed().as_secs_f64();
    let realtime = priority.is_some();
    drop(priority);
    plumbing.teardown();
    drop(signals);
    let sim_s = d.sim.now().as_secs_f64();
    let real_dropped = d.sim.net.real.dropped;
    let lateness = d.lateness.report();
    let hosts = d.hosts.into_iter().map(|h| h.counts).collect();
    // the simulation's results at the time reached, not its scenario's end
    let result = d.sim.finish_at_now()?;
    Ok(EmuResult {
        emulation: EmuReport {
            wall_s,
            sim_s,
            lateness,
            faithful: lateness.faithful,
            realtime,
            hosts,
            real_dropped,
            ended_by,
            command_exit,
        },
        result,
    })
}
