//! Replays of ns-2.35 traces against the agents alone (no network): the unit tests per
//! mechanism whose expected values come from ns-2 itself rather than from hand-worked rules.
//!
//! Each case is a one-flow dumbbell run by ns-2 (crates/net/tests/fixtures/ns2-replay: the
//! Tcl scripts, `generate.sh`, and the traces it wrote). The replay is open loop on both ends:
//!
//! - the sink gets the data packets ns-2's sink received ('r' at n3), at those times; the ACKs
//!   it sends must be ns-2's ACKs leaving n3 ('+', time, seqno and size, so the number of SACK
//!   blocks too);
//! - the sender gets the ACKs ns-2's sender received ('r' at n0), at those times, carrying what
//!   the tcplab sink put on the ACK of the same uid (ns-2's trace does not print SACK blocks or
//!   echoed timestamps), its retransmission timer firing when due; the segments it sends must
//!   be ns-2's '+' at n0 (time, seqno, size), its cwnd trace ns-2's, its event lines ('E') the
//!   trace's.
//!
//! The first difference fails the test with the trace line it came from.

use super::{Ftp, Ns2Sender, TcpSink};
use crate::ids::NodeId;
use crate::packet::{Addr, FlowId, Kind, Packet};
use crate::port::{Endpoint, TimerKind};
use crate::scenario::{SinkConfig, TcpParams, TcpVariant};
use crate::testing::{packet, FakePort, Shared};
use std::collections::HashMap;
use tcplab_des::{Ns2Rng, Time};

/// ns-2 prints trace times rounded to the microsecond. The replay feeds those rounded times
/// in, so a timer-driven send (or delayed ACK) lands up to 0.5 us away from ns-2's instant,
/// and its printed time up to 1 us away from ns-2's print; sends on an arrival print the same.
const TRACE_TOL: f64 = 1e-6 + 1e-9;
/// The cwnd trace prints times with 5 decimals: one unit in the last place either way.
const CWND_TOL: f64 = 1e-5 + 1e-9;

/// The dumbbell's ends (dumbbell.tcl): the sender on n0, the sink on n3, port 0 each.
const SENDER: u32 = 0;
const SINK: u32 = 3;

/// One line of the wired trace (`ev time from to type size flags fid src dst seqno uid`).
#[derive(Clone, Copy)]
struct Line<'a> {
    /// Line number in the fixture, from 1.
    no: usize,
    text: &'a str,
    t: f64,
    size: u32,
    seq: i64,
    uid: u64,
}

/// The lines of a fixture trace that the replay reads, by role.
#[derive(Default)]
struct Trace<'a> {
    /// '+' of data at the sender: what it sent.
    sent: Vec<Line<'a>>,
    /// 'r' of data at the sink: what it is fed.
    at_sink: Vec<Line<'a>>,
    /// '+' of ACKs at the sink: what it sent.
    acked: Vec<Line<'a>>,
    /// 'r' of ACKs at the sender: what it is fed.
    at_sender: Vec<Line<'a>>,
    /// 'E' lines of the sender: the line and its fields after the time.
    events: Vec<(Line<'a>, Vec<&'a str>)>,
}

fn parse(text: &str) -> Trace<'_> {
    let mut trace = Trace::default();
    for (i, l) in text.lines().enumerate() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.is_empty() || f[0].starts_with('#') {
            continue;
        }
        let num = |k: usize| -> f64 { f[k].parse().unwrap_or_else(|_| panic!("line {}: field {k}: {l}", i + 1)) };
        let mut line = Line { no: i + 1, text: l, t: num(1), size: 0, seq: 0, uid: 0 };
        if f[0] == "E" {
            trace.events.push((line, f[2..].to_vec()));
            continue;
        }
        (line.size, line.seq, line.uid) = (num(5) as u32, num(10) as i64, num(11) as u64);
        let (from, to) = (num(2) as u32, num(3) as u32);
        let list = match (f[0], f[4]) {
            ("+", "tcp") if from == SENDER => &mut trace.sent,
            ("r", "tcp") if to == SINK => &mut trace.at_sink,
            ("+", "ack") if from == SINK => &mut trace.acked,
            ("r", "ack") if to == SENDER => &mut trace.at_sender,
            _ => continue, // drops, for the reader
        };
        list.push(line);
    }
    trace
}

/// One case: its fixtures and what its Tcl sets.
struct Case<'a> {
    name: &'static str,
    trace: &'a str,
    cwnd: &'a str,
    variant: TcpVariant,
    /// What the Tcl sets on the sender (`knobs` of dumbbell.tcl), over ns-2's defaults.
    params: TcpParams,
    sink: SinkConfig,
    /// FTP `produce` (segments after the SYN) at 0.1 s, and the end of the run.
    produce: i64,
    stop: f64,
}

/// The fixtures of a case, by name.
macro_rules! fixtures {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../tests/fixtures/ns2-replay/", $name, ".tr")),
            include_str!(concat!("../../tests/fixtures/ns2-replay/", $name, ".cwnd")),
        )
    };
}

/// The sink classes' defaults in ns-2 (`Agent/TCPSink`, `/Sack1`, `/DelAck` with interval_ 100 ms).
fn sink(sack: bool, delack: bool) -> SinkConfig {
    SinkConfig {
        sack,
        delack: delack.then(|| Time::from_millis(100)),
        syn_immediate_ack: true,
        rfc2581_immediate_ack: true,
        ts_echo_rfc1323: false,
        ecn_syn: false,
    }
}

/// A case whose Tcl sets `window_` to `window` (ns-2's default is 20).
fn case<'a>(
    (name, trace, cwnd): (&'static str, &'a str, &'a str),
    variant: TcpVariant,
    sink: SinkConfig,
    window: u32,
) -> Case<'a> {
    // the case scripts' runs: 60 segments; Vegas's goes on to 2 s for its backed-off timeout
    let stop = if variant == TcpVariant::Vegas { 2.0 } else { 1.5 };
    let params = TcpParams { window, ..TcpParams::default() };
    Case { name, trace, cwnd, variant, params, sink, produce: 60, stop }
}

/// The sender's clock phase in ns-2's run: the generator (seed 1) draws one phase as the agent
/// is created (Vegas resets itself there, so two) and the one kept when `$ns run` resets it.
/// Nothing else in dumbbell.tcl draws.
fn clock_phase(variant: TcpVariant) -> f64 {
    let mut rng = Ns2Rng::seeded(1);
    for _ in 0..if variant == TcpVariant::Vegas { 2 } else { 1 } {
        rng.uniform();
    }
    rng.uniform()
}

/// Matches what an agent sends against the trace's lines of it, in order.
struct Expect<'a> {
    case: &'static str,
    what: &'static str,
    lines: &'a [Line<'a>],
    next: usize,
    /// How many of the port's packets were checked.
    seen: usize,
    /// The last input the agent took (a missing packet was due by then).
    last: String,
}

impl<'a> Expect<'a> {
    fn new(case: &'static str, what: &'static str, lines: &'a [Line<'a>]) -> Self {
        Expect { case, what, lines, next: 0, seen: 0, last: "the start".to_string() }
    }

    fn fail(&self, cause: &str, tcplab: &str) -> ! {
        let ns2 =
            self.lines.get(self.next).map_or("nothing more".to_string(), |l| format!("line {}: {}", l.no, l.text));
        panic!(
            "{}: {} #{} differs\n  ns-2:   {ns2}\n  tcplab: {tcplab}\n  after:  {cause}",
            self.case,
            self.what,
            self.next + 1
        );
    }

    /// Before the input `next` at `t`: whatever ns-2 sent before it, the agent has sent too.
    fn nothing_missing_before(&self, t: f64, next: &str) {
        if self.lines.get(self.next).is_some_and(|l| l.t < t - TRACE_TOL) {
            self.fail(&self.last, &format!("nothing (the next input is {next})"));
        }
    }

    /// The packets the agent sent since the last check are ns-2's next ones.
    fn check(&mut self, net: &FakePort, cause: &str) {
        for p in &net.sent[self.seen..] {
            let got = format!("seqno {} size {} at {:.7}", p.seq, p.size, p.ts);
            match self.lines.get(self.next) {
                Some(l) if (l.t - p.ts).abs() <= TRACE_TOL && l.seq == p.seq && l.size == p.size => self.next += 1,
                _ => self.fail(cause, &got),
            }
        }
        self.seen = net.sent.len();
        self.last = cause.to_string();
    }

    fn all_matched(&self) -> usize {
        if self.next < self.lines.len() {
            self.fail(&self.last, "nothing more by the end of the run");
        }
        self.next
    }
}

/// Fires the port's timers due by `t` (an ACK that comes at a timer's instant comes after it:
/// the timer was scheduled first), checking what each expiry sends.
fn fire_due(
    net: &mut FakePort,
    kind: TimerKind,
    t: f64,
    expect: &mut Expect,
    mut on_timer: impl FnMut(&mut FakePort, u32),
) {
    while let Some(at) = net.deadline(kind).filter(|&at| at <= t) {
        expect.nothing_missing_before(at, &format!("the timer at {at:.7}"));
        net.expire(|net, _, gen| on_timer(net, gen));
        expect.check(net, &format!("the timer at {at:.7}"));
    }
}

/// What a replay compared: packets of each agent, cwnd and event lines.
#[derive(Debug, PartialEq)]
struct Counts {
    acks: usize,
    segments: usize,
    cwnd: usize,
    events: usize,
}

/// Replays the case; returns how many of each it compared.
fn replay(c: &Case) -> Counts {
    let trace = parse(c.trace);
    let sent_at: HashMap<u64, f64> = trace.sent.iter().map(|l| (l.uid, l.t)).collect();
    let sender_ep = Endpoint {
        flow: FlowId(0),
        fid: 1,
        addr: Addr { node: NodeId::new(SENDER), port: 0 },
        peer: Addr { node: NodeId::new(SINK), port: 0 },
    };
    let sink_ep = Endpoint { addr: sender_ep.peer, peer: sender_ep.addr, ..sender_ep };

    // The sink, fed ns-2's arrivals.
    let mut net = FakePort::default();
    let mut sink = TcpSink::new(sink_ep, &c.sink);
    let mut acks = Expect::new(c.name, "sink ACK", &trace.acked);
    for l in &trace.at_sink {
        let cause = format!("line {}: {}", l.no, l.text);
        fire_due(&mut net, TimerKind::DelAck, l.t, &mut acks, |net, gen| sink.on_timer(net, gen));
        acks.nothing_missing_before(l.t, &cause);
        net.set_now(l.t);
        // the segment as sent: stamped with its send time, the SYN without payload
        let ts = *sent_at.get(&l.uid).unwrap_or_else(|| panic!("{}: {cause}: never sent", c.name));
        let payload = l.size.saturating_sub(40);
        sink.recv(&mut net, &Packet { seq: l.seq, size: l.size, payload, ts, ..packet() });
        acks.check(&net, &cause);
    }
    fire_due(&mut net, TimerKind::DelAck, c.stop, &mut acks, |net, gen| sink.on_timer(net, gen));
    let n_acks = acks.all_matched();
    // ns-2's ACK of each uid is the tcplab sink's ACK matched to it
    let ack_of: HashMap<u64, Packet> = trace.acked.iter().map(|l| l.uid).zip(net.sent.iter().copied()).collect();

    // The sender, fed ns-2's ACK arrivals.
    let mut net = FakePort::default();
    let cwnd_text = Shared::default();
    net.tracer.cwnd = Some(Box::new(cwnd_text.clone()));
    let mut s = Ns2Sender::new(c.variant, c.params.clone(), None, sender_ep, clock_phase(c.variant));
    s.trace_cwnd_attached(&mut net);
    s.trace_cwnd_reset(&mut net);
    let mut segs = Expect::new(c.name, "sender segment", &trace.sent);
    net.set_now(0.1);
    s.advance(&mut net, c.produce);
    segs.check(&net, "FTP produce at 0.1");
    for l in &trace.at_sender {
        let cause = format!("line {}: {}", l.no, l.text);
        fire_due(&mut net, TimerKind::Rtx, l.t, &mut segs, |net, gen| s.on_timer(net, gen));
        segs.nothing_missing_before(l.t, &cause);
        net.set_now(l.t);
        let ack = ack_of.get(&l.uid).unwrap_or_else(|| panic!("{}: {cause}: no ACK of this uid left the sink", c.name));
        assert_eq!(ack.kind, Kind::Ack);
        s.recv(&mut net, ack);
        segs.check(&net, &cause);
    }
    fire_due(&mut net, TimerKind::Rtx, c.stop, &mut segs, |net, gen| s.on_timer(net, gen));
    let n_segs = segs.all_matched();

    let n_cwnd = compare_cwnd(c, &cwnd_text.text());
    let n_events = compare_events(c, &trace, &net.event_lines());
    Counts { acks: n_acks, segments: n_segs, cwnd: n_cwnd, events: n_events }
}

/// The cwnd trace, line by line: the same fields, times within the print precision.
fn compare_cwnd(c: &Case, tcplab: &str) -> usize {
    let ours: Vec<&str> = tcplab.lines().collect();
    let theirs: Vec<&str> = c.cwnd.lines().collect();
    for i in 0..ours.len().max(theirs.len()) {
        let (a, b) = (theirs.get(i).copied(), ours.get(i).copied());
        let same = match (a, b) {
            (Some(a), Some(b)) => {
                let (fa, fb): (Vec<&str>, Vec<&str>) = (a.split_whitespace().collect(), b.split_whitespace().collect());
                let time = |f: &[&str]| f[0].parse::<f64>().unwrap();
                (time(&fa) - time(&fb)).abs() <= CWND_TOL && fa[1..] == fb[1..]
            }
            _ => false,
        };
        if !same {
            panic!(
                "{}: cwnd trace line {} differs\n  ns-2:   {}\n  tcplab: {}",
                c.name,
                i + 1,
                a.unwrap_or("nothing more"),
                b.unwrap_or("nothing more")
            );
        }
    }
    theirs.len()
}

/// The sender's event lines ('E'), in order: the same fields, times within the print precision.
fn compare_events(c: &Case, trace: &Trace, tcplab: &str) -> usize {
    let ours: Vec<(f64, Vec<&str>, &str)> = tcplab
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[1].parse().unwrap(), f[2..].to_vec(), l)
        })
        .collect();
    for i in 0..ours.len().max(trace.events.len()) {
        let (a, b) = (trace.events.get(i), ours.get(i));
        let same = match (a, b) {
            (Some((l, fa)), Some((t, fb, _))) => (l.t - t).abs() <= TRACE_TOL && fa == fb,
            _ => false,
        };
        if !same {
            panic!(
                "{}: event #{} differs\n  ns-2:   {}\n  tcplab: {}",
                c.name,
                i + 1,
                a.map_or("nothing more".to_string(), |(l, _)| format!("line {}: {}", l.no, l.text)),
                b.map_or("nothing more", |e| e.2)
            );
        }
    }
    trace.events.len()
}

/// Replays `c`, which must compare this much (so that a fixture regenerated into less does
/// not pass quietly).
fn check(c: Case, (acks, segments, cwnd, events): (usize, usize, usize, usize)) {
    assert_eq!(replay(&c), Counts { acks, segments, cwnd, events }, "{}: lines compared", c.name);
}

/// tahoe.tcl: fast retransmit to cwnd 1, a timeout, a backed-off one, idle timeouts after.
#[test]
fn replay_tahoe_fast_retransmit_and_timeout() {
    check(case(fixtures!("tahoe"), TcpVariant::Tahoe, sink(false, false), 20), (61, 64, 44, 6));
}

/// reno.tcl: fast recovery with window inflation, a partial ACK ending it, a timeout.
#[test]
fn replay_reno_fast_recovery_and_timeout() {
    check(case(fixtures!("reno"), TcpVariant::Reno, sink(false, false), 32), (61, 63, 36, 8));
}

/// newreno.tcl: a partial ACK's retransmission and window deflation, then a timeout.
#[test]
fn replay_newreno_partial_ack_and_timeout() {
    check(case(fixtures!("newreno"), TcpVariant::NewReno, sink(false, false), 32), (61, 64, 31, 40));
}

/// sack1.tcl: the SACK sink's blocks; recovery by the pipe, a hole resent, a timeout.
#[test]
fn replay_sack1_sack_hole_and_timeout() {
    check(case(fixtures!("sack1"), TcpVariant::Sack1, sink(true, false), 32), (61, 64, 31, 10));
}

/// fack.tcl: recovery from the forward ACK, slow start inside it, a timeout.
#[test]
fn replay_fack_forward_ack_recovery_and_timeout() {
    check(case(fixtures!("fack"), TcpVariant::Fack, sink(true, false), 32), (61, 64, 62, 2));
}

/// vegas.tcl: the rate-based window, retransmits on early dupacks, tail timeouts backed off.
#[test]
fn replay_vegas_fine_grained_retransmit_and_timeouts() {
    check(case(fixtures!("vegas"), TcpVariant::Vegas, sink(false, false), 20), (62, 67, 35, 2));
}

/// delack.tcl: the delayed-ACK sink's timer and immediate ACKs, under Reno's recovery.
#[test]
fn replay_delack_sink_with_reno() {
    check(case(fixtures!("delack"), TcpVariant::Reno, sink(false, true), 20), (39, 63, 29, 6));
}

/// The harness itself: a trace altered in one place (ns-2 sending 44 where it sent 43) fails
/// the replay there, naming that line.
#[test]
#[should_panic(
    expected = "sender segment #45 differs\n  ns-2:   line 160: + 0.450347 0 1 tcp 1040 ------- 1 0.0 3.0 44 82"
)]
fn replay_reports_the_first_differing_line() {
    let (name, trace, cwnd) = fixtures!("reno");
    let sent_43 = "+ 0.450347 0 1 tcp 1040 ------- 1 0.0 3.0 43 82";
    assert!(trace.contains(sent_43));
    let altered = trace.replace(sent_43, "+ 0.450347 0 1 tcp 1040 ------- 1 0.0 3.0 44 82");
    check(case((name, &altered, cwnd), TcpVariant::Reno, sink(false, false), 32), (61, 63, 36, 8));
}
