//! Trace writers. Each is an `Option`, and each link knows whether any wired writer records it
//! (`records_link`): a hop on an untraced link pays one branch and never formats anything.

use crate::ids::NodeId;
use crate::packet::{flags, Addr, Kind, Packet};
pub use crate::pcap::Sink;
use std::io::{self, Write};

/// ns-2's `ch->next_hop_` of a packet no routing agent routed (`Packet::alloc` sets -2).
pub const NO_NEXT_HOP: i32 = -2;

#[derive(Default)]
pub struct Tracer {
    /// ns-2 wired trace (`$ns trace-all`).
    pub ns2: Option<Sink>,
    /// Append the TCP header fields to wired-trace lines (`show_tcphdr_`).
    pub tcp_header: bool,
    /// Write TCP congestion events into the wired trace (`$ns eventtrace-all`).
    pub events: bool,
    /// Only these link directions (from, to) in the wired trace; None: all of them.
    pub only_links: Option<Vec<(NodeId, NodeId)>>,
    /// ns-2 cwnd trace (`$tcp trace cwnd_`).
    pub cwnd: Option<Sink>,
    /// cwnd time series for Python: (time, flow, cwnd, ssthresh).
    pub cwnd_series: Option<Vec<(f64, u32, f64, i64)>>,
    /// Every RTT sample the TCP senders take: (time, flow, seconds).
    pub rtt_series: Option<Vec<(f64, u32, f64)>>,
    /// Per flow, whether its cwnd and RTT are traced (`output.trace_flows`); a flow beyond it
    /// (a tracer built without flows, in unit tests) is traced.
    pub flows: Vec<bool>,
    /// NAM trace of the wired links (`$ns namtrace-all`).
    pub nam: Option<Sink>,
    /// pcap capture of links (`pcap/FROM-TO.pcap`).
    pub pcap: Option<crate::pcap::Pcap>,
    /// Wireless events (AGT and MAC layers) in the wired trace's file, in this format.
    pub wireless: Option<WirelessFormat>,
    /// With `wireless`, an `x` line as each frame's transmission ends (ns-2's `-eotTrace ON`).
    pub eot: bool,
    /// With `wireless`, no AGT lines (ns-2's `-agentTrace OFF`) ...
    pub no_agent_lines: bool,
    /// ... and no MAC lines, `x` lines and the MAC's drops included (`-macTrace OFF`) ...
    pub no_mac_lines: bool,
    /// No PHY lines (ns-2's default `-phyTrace OFF`; only `802_11Ext` radios write them).
    pub no_phy_lines: bool,
    /// ... and no routing agent's sends and receipts (`-routerTrace OFF`; its drops are traced
    /// whatever the switch: ns-mobilenode.tcl `agenttrace`).
    pub no_router_lines: bool,
    /// The first write error; writing stops there and the run reports it at the end.
    pub error: Option<io::Error>,
    /// The wired-trace line being built (reused: no allocation per line).
    pub line: Vec<u8>,
    /// The middles of the wired trace's lines last written for each flow.
    pub(crate) middles: Middles,
    /// ns-2's hierarchical addresses, when a WLAN has a base station; None: node numbers.
    pub addressing: Option<Box<Addressing>>,
    /// The time last written into the wired trace.
    pub(crate) time: TimeText,
}

/// The text of the wired trace's last time: a hop's `r`, `+` and `-` lines mostly share their
/// instant, and copying its digits costs less than writing them again.
pub(crate) struct TimeText {
    secs: f64,
    text: Vec<u8>,
}

impl Default for TimeText {
    fn default() -> Self {
        TimeText { secs: f64::NAN, text: Vec::new() } // NaN equals no time: the first is written
    }
}

impl TimeText {
    fn of(&mut self, secs: f64) -> &[u8] {
        if secs != self.secs {
            self.text.clear();
            ns2_time(secs).put(&mut self.text);
            self.secs = secs;
        }
        &self.text
    }
}

/// The middle of a wired-trace line, `{type} {size} {flags} {fid} {src}.{port} {dst}.{port} `,
/// with the fields it was written from. A flow's packets mostly repeat it, and it holds six of
/// a line's eleven numbers.
#[derive(Default)]
struct Middle {
    of: Option<(Kind, u32, u8, u32, Addr, Addr)>,
    text: Vec<u8>,
}

/// The middle last written for each flow: one for its ACKs, one for its other packets.
/// ns-2's hierarchical addresses (`-addressType hierarchical`), as the traces print them:
/// wireless lines the integer (domain << 22 | cluster << 11 | node), wired lines
/// `domain.cluster.node.port`, MAC headers and ARP the MACs' creation indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Addressing {
    /// Each node's address.
    pub addr: Vec<u32>,
    /// Each node's MAC index: ns-2 numbers MACs as it makes them, the radio nodes in node order.
    pub mac: Vec<u32>,
}

/// IP_BROADCAST as a hierarchical address prints (`get_nodeaddr(-1)`, a route update's destination).
const HIER_BROADCAST: u32 = 2147483647;

impl Addressing {
    /// Node `n`'s address; a number that is no node's (0: none) prints as it is.
    fn addr_of(&self, n: u32) -> u32 {
        self.addr.get(n as usize).copied().unwrap_or(n)
    }

    /// The MAC index of node `n`; broadcast and numbers that are no node's print as they are.
    fn mac_of(&self, n: u32) -> u32 {
        self.mac.get(n as usize).copied().unwrap_or(n)
    }
}

#[derive(Default)]
pub(crate) struct Middles(Vec<Middle>);

impl Middles {
    /// Flows from this one on (signalling's flow u32::MAX among them) have their middles
    /// written anew each time.
    const FLOWS: usize = 1 << 16;

    /// The middle for `p`, written anew if a field of it changed since the flow's last line;
    /// None for a flow from `FLOWS` on.
    fn get(&mut self, p: &Packet, hier: Option<&Addressing>) -> Option<&[u8]> {
        let flow = p.flow.0 as usize;
        if flow >= Middles::FLOWS {
            return None;
        }
        let slot = 2 * flow + (p.kind == Kind::Ack) as usize;
        if self.0.len() <= slot {
            self.0.resize_with(slot + 1, Middle::default);
        }
        let m = &mut self.0[slot];
        let of = (p.kind, p.size, p.flags, p.fid, p.src, p.dst);
        if m.of != Some(of) {
            m.text.clear();
            Middle::put(&mut m.text, p, hier);
            m.of = Some(of);
        }
        Some(&m.text)
    }
}

impl Middle {
    fn put(out: &mut Vec<u8>, p: &Packet, hier: Option<&Addressing>) {
        out.extend_from_slice(p.ns2_name().as_bytes());
        out.push(b' ');
        put_u64(out, p.size as u64);
        out.push(b' ');
        out.extend_from_slice(&ns2_flags(p.flags));
        out.push(b' ');
        put_u64(out, p.fid as u64);
        for a in [p.src, p.dst] {
            out.push(b' ');
            match hier {
                Some(h) => {
                    let addr = h.addr_of(a.node.get());
                    for (v, sep) in [(addr >> 22, b'.'), ((addr >> 11) & 0x7ff, b'.'), (addr & 0x7ff, b'.')] {
                        put_u64(out, v as u64);
                        out.push(sep);
                    }
                }
                None => {
                    put_u64(out, a.node.get() as u64);
                    out.push(b'.');
                }
            }
            put_u64(out, a.port as u64);
        }
        out.push(b' ');
    }
}

/// ns-2's two trace formats for mobile nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WirelessFormat {
    /// The CMU format, ns-2's default: `s 1.003804000 _0_ MAC  --- 0 tcp 98 [13a 1 0 800] ...`.
    Old,
    /// `$ns use-newtrace`: `s -t 1.003804000 -Hs 0 -Hd -2 -Ni 0 -Nx 100.00 ...`.
    New,
}

/// One wireless trace line: what happened to a packet or frame at a node's layer.
pub struct WirelessEvent<'a> {
    pub ev: char,
    pub now: f64,
    pub node: NodeId,
    pub pos: (f64, f64),
    /// "AGT", "MAC", "IFQ" or "RTR", and the reason ("---", "RET", "COL", "NRTE").
    pub layer: &'static str,
    pub reason: &'static str,
    /// The MAC header: duration (µs), destination, source, ethertype (0x800 for IP, 0 for control).
    pub mac: (u32, u32, u32, u32),
    /// A control frame's name (RTS, CTS, ACK), or the IP packet.
    pub control: Option<&'static str>,
    pub packet: Option<&'a Packet>,
    /// Bytes as printed.
    pub size: u32,
    /// Hops the packet has made (ns-2's `num_forwards`).
    pub forwards: u32,
    /// The next hop its IP header names (`ch->next_hop_`): `NO_NEXT_HOP` when none, -1 a
    /// broadcast, else a node.
    pub next_hop: i32,
}

/// An ARP packet's operation and its sender's and target's hardware and protocol addresses
/// (node numbers in ns-2), as cmu-trace.cc's `format_arp` prints them: a request does not
/// know its target's hardware address (0); a reply's target is the requester.
/// With hierarchical addresses, hardware addresses are MAC indices and protocol ones addresses.
fn arp_fields(p: &Packet, hier: Option<&Addressing>) -> (&'static str, u32, u32, u32, u32) {
    let (from, to) = (p.src.node.get(), p.dst.node.get());
    let (mac, ip) = match hier {
        Some(h) => ((h.mac_of(from), h.mac_of(to)), (h.addr_of(from), h.addr_of(to))),
        None => ((from, to), (from, to)),
    };
    if p.seq == crate::packet::ARP_REQUEST {
        ("REQUEST", mac.0, ip.0, 0, ip.1)
    } else {
        ("REPLY", mac.0, ip.0, mac.1, ip.1)
    }
}

/// The `show_tcphdr_` fields, when on.
/// C's "%.15g": 15 significant digits, trailing zeros dropped, exponent form outside 1e-4..1e15.
pub fn fmt_g15(x: f64) -> String {
    fmt_g(x, 15)
}

/// C's "%.{digits}g".
pub fn fmt_g(x: f64, digits: i32) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let sci = format!("{x:.*e}", (digits - 1) as usize);
    let (mantissa, exp) = sci.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("integer exponent");
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..digits).contains(&exp) {
        format!("{}e{}{:02}", trim(mantissa), if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        trim(&format!("{x:.*}", (digits - 1 - exp) as usize))
    }
}

/// A trace time as ns-2 prints it: rounded to 1e-6 s, then "%.15g" ("0.1", "3", "0.418544").
pub fn ns2_time(secs: f64) -> Ns2Time {
    Ns2Time((secs * 1e6 + 0.5).floor())
}

/// A whole number of microseconds that displays as ns-2's trace time.
pub struct Ns2Time(f64);

impl Ns2Time {
    /// Appends the time to `out` without core::fmt (the trace's hot path).
    fn put(&self, out: &mut Vec<u8>) {
        let us = self.0;
        // Below 1e-4 s "%.15g" switches to exponent form; from 1e9 s on, 15 digits no longer
        // hold every microsecond. In between it prints the microseconds exactly.
        if !(100.0..1e15).contains(&us) {
            out.extend_from_slice(fmt_g15(us / 1e6).as_bytes());
            return;
        }
        let us = us as u64;
        put_u64(out, us / 1_000_000);
        let mut frac = us % 1_000_000;
        if frac == 0 {
            return;
        }
        let mut digits = 6;
        while frac.is_multiple_of(10) {
            frac /= 10;
            digits -= 1;
        }
        out.push(b'.');
        put_digits(out, frac, digits);
    }
}

impl std::fmt::Display for Ns2Time {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = Vec::with_capacity(24);
        self.put(&mut s);
        f.write_str(std::str::from_utf8(&s).expect("ascii"))
    }
}

/// Appends `v` in decimal. Most numbers of a wireless line (nodes, ports, hops) are one digit.
fn put_u64(out: &mut Vec<u8>, v: u64) {
    if v < 10 {
        out.push(b'0' + v as u8);
    } else {
        put_digits(out, v, 1);
    }
}

/// Appends `v` in decimal with at least `width` digits, zeros in front; `width` is at most 20.
/// A block of twenty zeros is appended, the digits are written into it in place, two a step
/// (half as many steps, each waiting on the one before), and the rest is cut off. Appending
/// the digits as a slice of their own length usually compiles to a call to memcpy.
fn put_digits(out: &mut Vec<u8>, mut v: u64, width: usize) {
    debug_assert!(width <= 20, "a u64 has at most 20 digits");
    const PAIRS: &[u8; 200] = b"00010203040506070809101112131415161718192021222324252627282930313233343536373839\
                                40414243444546474849505152535455565758596061626364656667686970717273747576777879\
                                8081828384858687888990919293949596979899";
    let n = (v.checked_ilog10().unwrap_or(0) as usize + 1).max(width);
    let len = out.len();
    out.extend_from_slice(&[b'0'; 20]);
    let digits = &mut out[len..len + n];
    let mut end = n;
    while v >= 10 {
        let pair = 2 * (v % 100) as usize;
        v /= 100;
        digits[end - 2..end].copy_from_slice(&PAIRS[pair..pair + 2]);
        end -= 2;
    }
    if v > 0 {
        digits[end - 1] = b'0' + v as u8;
    }
    out.truncate(len + n);
}

/// ` 0x1a `: TCP header flags as ns-2's "0x%x" prints them, a space each side.
fn put_hex_flags(out: &mut Vec<u8>, v: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(b" 0x");
    if v >= 16 {
        out.push(HEX[(v >> 4) as usize]);
    }
    out.push(HEX[(v & 15) as usize]);
    out.push(b' ');
}

fn put_i64(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    put_u64(out, v.unsigned_abs());
}

/// Appends `v` in lowercase hexadecimal, as "{:x}" (C's "%x") writes it.
fn put_hex(out: &mut Vec<u8>, v: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digits = (v.checked_ilog2().unwrap_or(0) / 4 + 1) as usize;
    for i in (0..digits).rev() {
        out.push(HEX[(v >> (4 * i) & 15) as usize]);
    }
}

/// Appends `s` right-aligned in `width` columns, as "{:>width}" (C's "%{width}s") writes it.
fn put_padded(out: &mut Vec<u8>, s: &str, width: usize) {
    out.resize(out.len() + width.saturating_sub(s.len()), b' ');
    out.extend_from_slice(s.as_bytes());
}

/// Appends `x` with `decimals` (at most 9) digits after the point, as "{:.decimals$}" writes
/// it: the double's exact value rounded to the nearest. A double is `m·2^e` with `m` below
/// 2^53, so `x·10^decimals` is `m·10^decimals / 2^-e`, exact in 128 bits; the rare value
/// halfway between two (and negative, huge or not finite ones) go to core::fmt, whose rule
/// for ties this leaves to it.
fn put_fixed(out: &mut Vec<u8>, x: f64, decimals: u32) {
    debug_assert!(decimals <= 9);
    let scale = 10u64.pow(decimals);
    if x.is_sign_positive() && x < 1e9 {
        let bits = x.to_bits();
        let biased = (bits >> 52) as i32; // the sign bit is 0
        let fraction = bits & ((1 << 52) - 1);
        let (m, e) = if biased == 0 { (fraction, -1074) } else { (fraction | 1 << 52, biased - 1075) };
        // e < 0: x is below 1e9 < 2^52
        let scaled = if -e >= 84 {
            Some(0) // below 2^83 / 2^84: less than half of the last digit
        } else {
            let (product, shift) = (m as u128 * scale as u128, -e as u32);
            let (q, rem, half) = (product >> shift, product & ((1 << shift) - 1), 1u128 << (shift - 1));
            match rem.cmp(&half) {
                std::cmp::Ordering::Less => Some(q as u64),
                std::cmp::Ordering::Greater => Some(q as u64 + 1),
                std::cmp::Ordering::Equal => None,
            }
        };
        if let Some(scaled) = scaled {
            put_u64(out, scaled / scale);
            if decimals > 0 {
                out.push(b'.');
                put_digits(out, scaled % scale, decimals as usize);
            }
            return;
        }
    }
    write!(out, "{x:.*}", decimals as usize).expect("a Vec takes every byte");
}

/// Whether `flow`'s cwnd and RTT are traced (`Tracer::flows`).
fn traced(flows: &[bool], flow: u32) -> bool {
    flows.get(flow as usize).copied().unwrap_or(true)
}

/// ns-2's 7-character flag column: C P - A E F N.
pub fn ns2_flags(f: u8) -> [u8; 7] {
    let bit = |b: u8, c: u8| if f & b != 0 { c } else { b'-' };
    [
        bit(flags::ECN_ECHO, b'C'),
        bit(flags::PRI, b'P'),
        b'-',
        bit(flags::CWR, b'A'),
        bit(flags::CE, b'E'),
        bit(flags::FAST_START, b'F'),
        bit(flags::ECT, b'N'),
    ]
}

/// The next hop a wireless line prints (`ch->next_hop_`): the one a DSDV agent chose,
/// IP_BROADCAST (-1) for a route update, else the event's (an access point's relay, or none).
fn next_hop(e: &WirelessEvent) -> i32 {
    match e.packet.filter(|_| e.control.is_none()) {
        Some(p) if matches!(p.kind, Kind::Message | Kind::Pbc) && p.next_hop.is_none() => -1,
        Some(p) => p.next_hop.map_or(e.next_hop, |n| n.get() as i32),
        None => e.next_hop,
    }
}

/// An address's node in a wireless line: a route update's destination is IP_BROADCAST (-1,
/// 2147483647 as a hierarchical address), and so is a PBC broadcast's.
fn put_node(l: &mut Vec<u8>, p: &Packet, a: crate::packet::Addr, dst: bool, hier: Option<&Addressing>) {
    let broadcast = dst && (p.kind == Kind::Message || p.kind == Kind::Pbc && p.next_hop.is_none());
    match hier {
        Some(_) if broadcast => put_u64(l, HIER_BROADCAST as u64),
        None if broadcast => l.extend_from_slice(b"-1"),
        Some(h) => put_u64(l, h.addr_of(a.node.get()) as u64),
        None => put_u64(l, a.node.get() as u64),
    }
}

/// The next hop as a wireless line prints it: a node's address with hierarchical addresses.
fn next_hop_addr(e: &WirelessEvent, hier: Option<&Addressing>) -> i64 {
    let hop = next_hop(e);
    match hier {
        Some(h) if hop >= 0 => h.addr_of(hop as u32) as i64,
        _ => hop as i64,
    }
}

/// One wireless trace line as cmu-trace.cc writes it (`format_mac_common`, then `format_arp`
/// or `format_ip` and `format_tcp`/`format_rtp`; the new format's `-X value` pairs when
/// `$ns use-newtrace`), appended to `l`.
fn put_wireless_line(l: &mut Vec<u8>, format: WirelessFormat, e: &WirelessEvent, hier: Option<&Addressing>) {
    let (dur, mut dst, mut src, etype) = e.mac;
    if let Some(h) = hier {
        (dst, src) = (h.mac_of(dst), h.mac_of(src));
    }
    let name = e.control.or(e.packet.map(|p| p.ns2_name())).unwrap_or("-");
    let uid = e.packet.map_or(0, |p| p.uid);
    // a control frame's line is the MAC part alone; an ARP or IP packet's carries its header
    let (arp, ip) = match (e.control, e.packet) {
        (None, Some(p)) if p.kind == Kind::Arp => (Some(arp_fields(p, hier)), None),
        (None, Some(p)) => (None, Some(p)),
        _ => (None, None),
    };
    let tcp = ip.is_some_and(|p| matches!(p.kind, Kind::Tcp | Kind::Ack));
    // the new format writes a drop as `d` (cmu-trace.cc `format_mac_common`)
    l.push(if e.ev == 'D' && format == WirelessFormat::New { b'd' } else { e.ev as u8 });
    match format {
        WirelessFormat::Old => {
            // "%c %.9f _%d_ %3s %4s %d %s %d [%x %x %x %x] "
            l.push(b' ');
            put_fixed(l, e.now, 9);
            l.extend_from_slice(b" _");
            put_u64(l, e.node.get() as u64);
            l.extend_from_slice(b"_ ");
            put_padded(l, e.layer, 3);
            l.push(b' ');
            put_padded(l, e.reason, 4);
            l.push(b' ');
            put_u64(l, uid);
            l.push(b' ');
            l.extend_from_slice(name.as_bytes());
            l.push(b' ');
            put_u64(l, e.size as u64);
            // a PHY line has no MAC part (cmu-trace.cc `format_phy`)
            if e.layer != "PHY" {
                for (sep, v) in [(&b" ["[..], dur), (b" ", dst), (b" ", src), (b" ", etype)] {
                    l.extend_from_slice(sep);
                    put_hex(l, v as u64);
                }
                l.push(b']');
            }
            if let Some((op, sha, spa, tha, tpa)) = arp {
                l.extend_from_slice(b" ------- [");
                l.extend_from_slice(op.as_bytes());
                for (sep, v) in [(b' ', sha), (b'/', spa), (b' ', tha), (b'/', tpa)] {
                    l.push(sep);
                    put_u64(l, v as u64);
                }
                l.push(b']');
            } else if let Some(p) = ip {
                // ns-2 prints `ch->next_hop_`, 0 when negative (cmu-trace.cc, format_ip): the
                // `-2` of a packet no routing agent routed, as DumbAgent leaves it (an access
                // point's relay names the destination)
                l.extend_from_slice(b" ------- ");
                for (sep, a, dst) in [(b'[', p.src, false), (b' ', p.dst, true)] {
                    l.push(sep);
                    put_node(l, p, a, dst, hier);
                    l.push(b':');
                    put_u64(l, a.port as u64);
                }
                l.push(b' ');
                put_u64(l, p.ttl as u64);
                l.push(b' ');
                put_u64(l, next_hop_addr(e, hier).max(0) as u64);
                if matches!(p.kind, Kind::Message | Kind::Pbc) {
                    // cmu-trace.cc's `format_msg` writes nothing, nor anything for a PBC packet
                    l.extend_from_slice(b"] \n");
                    return;
                }
                l.extend_from_slice(b"] [");
                put_i64(l, p.seq);
                l.extend_from_slice(if tcp { b" 0] " } else { b"] " });
                put_u64(l, e.forwards as u64);
                l.push(b' ');
                put_u64(l, p.opt_forwards as u64);
            } else if e.control.is_some() {
                l.push(b' ');
            }
        }
        WirelessFormat::New => {
            l.extend_from_slice(b" -t ");
            put_fixed(l, e.now, 9);
            l.extend_from_slice(b" -Hs ");
            put_u64(l, e.node.get() as u64);
            l.extend_from_slice(b" -Hd ");
            put_i64(l, next_hop_addr(e, hier));
            l.extend_from_slice(b" -Ni ");
            put_u64(l, e.node.get() as u64);
            l.extend_from_slice(b" -Nx ");
            put_fixed(l, e.pos.0, 2);
            l.extend_from_slice(b" -Ny ");
            put_fixed(l, e.pos.1, 2);
            l.extend_from_slice(b" -Nz 0.00 -Ne -1.000000 -Nl ");
            put_padded(l, e.layer, 3);
            l.extend_from_slice(b" -Nw ");
            l.extend_from_slice(e.reason.as_bytes());
            for (key, v) in [(&b" -Ma "[..], dur), (b" -Md ", dst), (b" -Ms ", src), (b" -Mt ", etype)] {
                l.extend_from_slice(key);
                put_hex(l, v as u64);
            }
            l.push(b' ');
            if let Some((op, sha, spa, tha, tpa)) = arp {
                l.extend_from_slice(b"-P arp -Po ");
                l.extend_from_slice(op.as_bytes());
                for (key, v) in [(&b" -Pms "[..], sha), (b" -Ps ", spa), (b" -Pmd ", tha), (b" -Pd ", tpa)] {
                    l.extend_from_slice(key);
                    put_u64(l, v as u64);
                }
                l.push(b' ');
            } else if let Some(p) = ip {
                for (key, a, dst) in [(&b"-Is "[..], p.src, false), (b" -Id ", p.dst, true)] {
                    l.extend_from_slice(key);
                    put_node(l, p, a, dst, hier);
                    l.push(b'.');
                    put_u64(l, a.port as u64);
                }
                l.extend_from_slice(b" -It ");
                l.extend_from_slice(name.as_bytes());
                for (key, v) in [(&b" -Il "[..], e.size as u64), (b" -If ", p.fid as u64), (b" -Ii ", uid)] {
                    l.extend_from_slice(key);
                    put_u64(l, v);
                }
                l.extend_from_slice(b" -Iv ");
                put_u64(l, p.ttl as u64);
                if matches!(p.kind, Kind::Message | Kind::Pbc) {
                    l.extend_from_slice(b" \n");
                    return;
                }
                if tcp {
                    l.extend_from_slice(b" -Pn tcp -Ps ");
                } else {
                    l.extend_from_slice(b" -Pn ");
                    l.extend_from_slice(name.as_bytes());
                    l.extend_from_slice(b" -Pi ");
                }
                put_i64(l, p.seq);
                l.extend_from_slice(if tcp { b" -Pa 0 -Pf " } else { b" -Pf " });
                put_u64(l, e.forwards as u64);
                l.extend_from_slice(b" -Po ");
                put_u64(l, p.opt_forwards as u64);
                l.push(b' ');
            }
        }
    }
    l.push(b'\n');
}

impl Tracer {
    fn write(&mut self, which: fn(&mut Tracer) -> &mut Option<Sink>, line: std::fmt::Arguments) {
        if self.error.is_some() {
            return;
        }
        if let Some(w) = which(self) {
            if let Err(e) = w.write_fmt(line) {
                self.error = Some(e);
            }
        }
    }

    /// True if a wired writer (ns-2 trace, NAM or pcap) may record the link from `from` to `to`.
    pub fn records_link(&self, from: NodeId, to: NodeId) -> bool {
        self.ns2_records(from, to) || self.nam.is_some() || self.pcap.is_some()
    }

    /// True if the ns-2 trace is on and covers the link from `from` to `to`.
    fn ns2_records(&self, from: NodeId, to: NodeId) -> bool {
        self.ns2.is_some() && self.only_links.as_ref().is_none_or(|only| only.contains(&(from, to)))
    }

    /// A packet event on a wired link (`+`, `-`, `r`, `d`), for the wired trace and NAM.
    #[inline]
    pub fn link_event(&mut self, ev: char, now: f64, from: NodeId, to: NodeId, p: &Packet) {
        if self.ns2_records(from, to) {
            self.wired_line(ev, now, from, to, p);
        }
        if self.nam.is_some() {
            self.nam_line(ev, now, from, to, p, p.seq);
            if ev == '-' {
                self.nam_line('h', now, from, to, p, -1); // NAM's hop onto the link
            }
        }
    }

    /// One line of the wired trace: `ev time from to type size flags fid src dst seq uid`.
    fn wired_line(&mut self, ev: char, now: f64, from: NodeId, to: NodeId, p: &Packet) {
        if self.error.is_some() {
            return;
        }
        // "{ev} {time} {from} {to} {type} {size} {flags} {fid} {src}.{port} {dst}.{port} {seq} {uid}",
        // built by hand: core::fmt costs several times what the digits do.
        let l = &mut self.line;
        l.clear();
        l.push(ev as u8);
        l.push(b' ');
        l.extend_from_slice(self.time.of(now));
        for node in [from, to] {
            l.push(b' ');
            put_u64(l, node.get() as u64);
        }
        l.push(b' ');
        let hier = self.addressing.as_deref();
        match self.middles.get(p, hier) {
            Some(middle) => l.extend_from_slice(middle),
            None => Middle::put(l, p, hier),
        }
        put_i64(l, p.seq);
        l.push(b' ');
        put_u64(l, p.uid);
        if self.tcp_header {
            // ackno, flags, header length, SACK blocks: one-way TCP leaves the first three 0.
            l.push(b' ');
            put_i64(l, p.ackno as i64);
            put_hex_flags(l, p.tcp_flags);
            put_u64(l, p.hlen as u64);
            l.push(b' ');
            put_u64(l, p.nsack as u64);
        }
        l.push(b'\n');
        if let Some(w) = &mut self.ns2 {
            if let Err(e) = w.write_all(l) {
                self.error = Some(e);
            }
        }
    }

    /// The NAM trace's opening: addressing, then every node (in the order of ns-2's Tcl
    /// array of nodes) and every duplex link (`(from, to, bits/s, delay s)`), as `$ns
    /// namtrace-all` writes them before the first event.
    pub fn nam_topology(&mut self, nodes: usize, links: &[(NodeId, NodeId, u64, f64)]) {
        let mut head = String::from(
            "V -t * -v 1.0a5 -a 0\nA -t * -n 1 -p 0 -o 0x7fffffff -c 30 -a 1\nA -t * -h 1 -m 1073741823 -s 0\n",
        );
        for n in crate::random::tcl_array_order(nodes) {
            head += &format!("n -t * -a {n} -s {n} -S UP -v circle -c black -i black\n");
        }
        for &(a, b, rate, delay) in links {
            // Tcl reads ns-2's doubles back in "%.17g"
            head += &format!("l -t * -s {a} -d {b} -S UP -r {rate} -D {} -c black\n", fmt_g(delay, 17));
        }
        self.write(|t| &mut t.nam, format_args!("{head}"));
    }

    /// One NAM packet event: `ev -t time -s from -d to -p type -e size -c fid -i uid -a fid
    /// -x {src.port dst.port seqno flags null}`, the time in "%.15g".
    fn nam_line(&mut self, ev: char, now: f64, from: NodeId, to: NodeId, p: &Packet, seq: i64) {
        let (t, name, flags) = (fmt_g15(now), p.ns2_name(), ns2_flags(p.flags));
        let flags = std::str::from_utf8(&flags).expect("ascii");
        let (s, d, fid, size, uid) = (p.src, p.dst, p.fid, p.size, p.uid);
        self.write(
            |t| &mut t.nam,
            format_args!(
                "{ev} -t {t} -s {from} -d {to} -p {name} -e {size} -c {fid} -i {uid} -a {fid} -x {{{}.{} {}.{} {seq} {flags} null}}\n",
                s.node, s.port, d.node, d.port
            ),
        );
    }

    /// A TCP event line: `E time src dst TCP EVENT fid seqno cwnd` (ns-2 `trace_event`).
    /// NAM gets it too, as `E -t time -o TCP -e EVENT -s src.port -d dst.port`.
    /// Inline, so that a run without the event trace pays only the test.
    #[inline]
    pub fn tcp_event(&mut self, now: f64, ends: (Addr, Addr), event: &str, fid: u32, seqno: i64, cwnd: i64) {
        if self.events {
            self.write_tcp_event(now, ends, event, fid, seqno, cwnd);
        }
    }

    fn write_tcp_event(&mut self, now: f64, (a, b): (Addr, Addr), event: &str, fid: u32, seqno: i64, cwnd: i64) {
        let t = ns2_time(now);
        self.write(|t| &mut t.ns2, format_args!("E {t} {} {} TCP {event} {fid} {seqno} {cwnd}\n", a.node, b.node));
        self.write(
            |t| &mut t.nam,
            format_args!("E -t {t} -o TCP -e {event} -s {}.{} -d {}.{}\n", a.node, a.port, b.node, b.port),
        );
    }

    /// A wireless event line, when the wireless trace is on. Built in the reused line buffer
    /// as `wired_line` builds its lines: core::fmt cost the 802.11 benchmark (S5-ns2) most of
    /// its time with the trace on.
    pub fn wireless_event(&mut self, e: &WirelessEvent) {
        let Some(format) = self.wireless else { return };
        if self.error.is_some() || !self.writes_wireless(e.layer, e.ev) {
            return;
        }
        if let Some(w) = &mut self.ns2 {
            let l = &mut self.line;
            l.clear();
            put_wireless_line(l, format, e, self.addressing.as_deref());
            if let Err(e) = w.write_all(l) {
                self.error = Some(e);
            }
        }
    }

    /// Whether a wireless line of `layer` for event `ev` is written (ns-2 has a trace object
    /// there), the trace on.
    fn writes_wireless(&self, layer: &str, ev: char) -> bool {
        !(self.no_mac_lines && layer == "MAC"
            || self.no_phy_lines && layer == "PHY"
            || self.no_router_lines && layer == "RTR" && ev != 'D')
    }

    /// Whether a wireless line of `layer` for event `ev` is written with the node's position
    /// (the new format), for which ns-2 asks the node where it is.
    pub fn shows_position(&self, layer: &str, ev: char) -> bool {
        self.wireless == Some(WirelessFormat::New) && self.writes_wireless(layer, ev)
    }

    /// ns-2's `M` line for a `setdest` (mobilenode.cc `log_movement`, the same in both wireless
    /// formats): the time, the node, where it is (z 0), where it heads and how fast.
    pub fn movement(&mut self, now: f64, node: usize, at: (f64, f64), to: (f64, f64), speed: f64) {
        if self.wireless.is_none() {
            return;
        }
        // the node's address (`log_movement` prints `address_`)
        let node = self.addressing.as_deref().map_or(node as u32, |h| h.addr_of(node as u32));
        self.write(
            |t| &mut t.ns2,
            format_args!(
                "M {now:.5} {node} ({:.2}, {:.2}, 0.00), ({:.2}, {:.2}), {speed:.2}\n",
                at.0, at.1, to.0, to.1
            ),
        );
    }

    pub fn cwnd_enabled(&self) -> bool {
        self.cwnd.is_some() || self.cwnd_series.is_some()
    }

    /// An RTT sample of `flow`'s sender, when RTT samples are traced.
    #[inline]
    pub fn rtt_sample(&mut self, now: f64, flow: u32, rtt: f64) {
        if let Some(series) = &mut self.rtt_series {
            if traced(&self.flows, flow) {
                series.push((now, flow, rtt));
            }
        }
    }

    /// A cwnd assignment, in ns-2's `traceVar` format ("%-8.5f %-2d %-2d %-2d %-2d cwnd_ %-6.3f").
    pub fn cwnd_event(&mut self, now: f64, flow: u32, src: Addr, dst: Addr, cwnd: f64, ssthresh: i64) {
        if !traced(&self.flows, flow) {
            return;
        }
        if let Some(series) = &mut self.cwnd_series {
            series.push((now, flow, cwnd, ssthresh));
        }
        self.write_cwnd_line(now, src, dst, cwnd);
    }

    /// A line of the cwnd trace file alone, not of the cwnd series: ns-2's assignments that the
    /// model's window never takes (a new agent's 1, the window before the `max_cwnd` clamp).
    pub fn cwnd_line(&mut self, now: f64, flow: u32, src: Addr, dst: Addr, cwnd: f64) {
        if traced(&self.flows, flow) {
            self.write_cwnd_line(now, src, dst, cwnd);
        }
    }

    fn write_cwnd_line(&mut self, now: f64, src: Addr, dst: Addr, cwnd: f64) {
        if self.cwnd.is_some() {
            let t = now;
            // TracedVar prints the agent's addresses: hierarchical ones when a WLAN has a base station
            let (s, d) = match self.addressing.as_deref() {
                Some(h) => (h.addr_of(src.node.get()), h.addr_of(dst.node.get())),
                None => (src.node.get(), dst.node.get()),
            };
            self.write(
                |t| &mut t.cwnd,
                format_args!("{t:<8.5} {s:<2} {:<2} {d:<2} {:<2} cwnd_ {cwnd:<6.3}\n", src.port, dst.port),
            );
        }
    }

    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for w in [&mut self.ns2, &mut self.cwnd, &mut self.nam].into_iter().flatten() {
            w.flush()?;
        }
        self.pcap.as_mut().map_or(Ok(()), |p| p.flush())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::FlowId;
    use crate::testing::{xorshift, Shared};

    #[test]
    fn times_print_like_percent_15g_of_rounded_seconds() {
        assert_eq!(ns2_time(0.1).to_string(), "0.1");
        assert_eq!(ns2_time(3.0).to_string(), "3");
        assert_eq!(ns2_time(0.418544).to_string(), "0.418544");
        assert_eq!(ns2_time(0.1281334999).to_string(), "0.128133");
        assert_eq!(ns2_time(0.0).to_string(), "0");
        assert_eq!(ns2_time(12.000001).to_string(), "12.000001");
        assert_eq!(ns2_time(0.00005).to_string(), "5e-05");
        assert_eq!(fmt_g15(123456.5), "123456.5");
        assert_eq!(fmt_g15(1e15), "1e+15");
        assert_eq!(fmt_g15(0.1 + 0.2), "0.3");
        // ns-2's NAM link delays, as Tcl reads the double back
        assert_eq!((fmt_g(0.1, 17).as_str(), fmt_g(0.0015, 17).as_str()), ("0.10000000000000001", "0.0015"));
        // the fast path agrees with "%.15g" of the rounded time everywhere it is taken
        for x in xorshift(0x9E3779B97F4A7C15).take(200_000) {
            let secs = (x % 2_000_000_000_000) as f64 / 1e6 * [1.0, 1e-3, 1e3][(x % 3) as usize];
            let us = (secs * 1e6 + 0.5).floor();
            assert_eq!(ns2_time(secs).to_string(), fmt_g15(us / 1e6), "{secs}");
        }
    }

    #[test]
    fn numbers_print_as_rust_prints_them() {
        let edges = [0, 1, 9, 10, 99, 100, 101, 999_999, 1_000_000, u64::MAX, i64::MAX as u64, i64::MIN as u64];
        let shifted = xorshift(0x9E3779B97F4A7C15).take(100_000).map(|x| x >> (x % 64)); // every length
        let mut out = Vec::new();
        for v in edges.into_iter().chain(shifted) {
            out.clear();
            put_u64(&mut out, v);
            assert_eq!(out, v.to_string().as_bytes());
            out.clear();
            put_i64(&mut out, v as i64);
            assert_eq!(out, (v as i64).to_string().as_bytes());
            out.clear();
            put_digits(&mut out, v % 1_000_000, 6);
            assert_eq!(out, format!("{:06}", v % 1_000_000).as_bytes());
        }
    }

    #[test]
    fn fixed_decimals_print_as_rust_prints_them() {
        // ties at the last digit (k/1024 has ten decimals), signs, edges and the fallback's ranges
        let edges = [0.0, -0.0, 0.0009765625, 0.125, 2.5, 999_999_999.999_999_9, 1e9, -0.001, 5e-324, 1e-300];
        let edges = edges.into_iter().chain([f64::NAN, f64::INFINITY, 1.0 / 1024.0 * 3.0, 1000.0000000005]);
        let random = xorshift(0x9E3779B97F4A7C15).take(200_000).map(|x| {
            let k = (x >> 11) as f64; // 53 random bits
            [k / 2f64.powi(53) * 1000.0, k / 2f64.powi((x % 64) as i32), (x % 1_000_000) as f64 / 1024.0]
                [(x % 3) as usize]
        });
        let mut out = Vec::new();
        for x in edges.chain(random) {
            for decimals in 0..=9 {
                out.clear();
                put_fixed(&mut out, x, decimals);
                assert_eq!(out, format!("{x:.*}", decimals as usize).as_bytes(), "{x:e} {decimals}");
            }
        }
    }

    #[test]
    fn hex_and_padding_print_as_rust_prints_them() {
        let mut out = Vec::new();
        for v in [0, 1, 15, 16, 0x13a, 0x52e, u32::MAX as u64, u64::MAX].into_iter().chain(xorshift(7).take(10_000)) {
            out.clear();
            put_hex(&mut out, v);
            assert_eq!(out, format!("{v:x}").as_bytes());
        }
        for s in ["", "-", "---", "RET", "ABCDE"] {
            out.clear();
            put_padded(&mut out, s, 4);
            assert_eq!(out, format!("{s:>4}").as_bytes());
        }
    }

    /// A data packet of flow 1 from node 0 to node 3, for the wired trace's tests.
    fn data_packet() -> Packet {
        Packet {
            uid: 5,
            flow: FlowId(1),
            fid: 1,
            size: 1040,
            payload: 1000,
            seq: 7,
            dst: Addr { node: NodeId::new(3), port: 0 },
            ..crate::testing::packet()
        }
    }

    #[test]
    fn a_move_writes_ns2s_m_line_and_the_new_format_a_drop_as_d() {
        // mobilenode.cc `log_movement`: "M %.5f %d (%.2f, %.2f, %.2f), (%.2f, %.2f), %.2f",
        // written whatever the format; none without the wireless trace
        let sink = Shared::default();
        let mut t = Tracer { ns2: Some(Box::new(sink.clone())), ..Tracer::default() };
        t.movement(2.4, 4, (4.0, 0.0), (300.0, 1.0), 30.0);
        t.wireless = Some(WirelessFormat::New);
        t.movement(2.4, 4, (4.0, 0.0), (300.0, 1.0), 30.0);
        t.movement(1.0 / 3.0, 12, (162.304, 2.125), (450.0, 2.375), 12.5);
        let data = data_packet();
        let drop = WirelessEvent {
            ev: 'D',
            now: 1.5,
            node: NodeId::new(1),
            pos: (1.0, 2.0),
            layer: "MAC",
            reason: "COL",
            mac: (0x13a, 1, 0, 0x800),
            control: None,
            packet: Some(&data),
            size: 1098,
            forwards: 0,
            next_hop: NO_NEXT_HOP,
        };
        t.wireless_event(&drop);
        let text = sink.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "M 2.40000 4 (4.00, 0.00, 0.00), (300.00, 1.00), 30.00");
        // C's %.2f rounds an exact half to even: 2.125 gives 2.12, 2.375 2.38
        assert_eq!(lines[1], "M 0.33333 12 (162.30, 2.12, 0.00), (450.00, 2.38), 12.50");
        assert!(lines[2].starts_with("d -t 1.500000000 -Hs 1 "), "{}", lines[2]);
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn lines_at_one_instant_share_its_text_and_a_new_instant_gets_its_own() {
        let sink = Shared::default();
        let mut t = Tracer { ns2: Some(Box::new(sink.clone())), ..Tracer::default() };
        for now in [0.0, 0.0, 0.25, 0.25, 0.0000004, 1e-5, 0.0] {
            t.link_event('+', now, NodeId::new(0), NodeId::new(1), &data_packet());
        }
        let times: Vec<String> = sink.text().lines().map(|l| l.split(' ').nth(1).unwrap().to_string()).collect();
        assert_eq!(times, ["0", "0", "0.25", "0.25", "0", "1e-05", "0"]);
    }

    #[test]
    fn a_flows_lines_follow_its_packets() {
        // A flow's lines reuse the middle of its last one: a packet that differs in any one
        // field of it gets its own, and signalling (flow u32::MAX) is written whole.
        let sink = Shared::default();
        let mut t = Tracer { ns2: Some(Box::new(sink.clone())), ..Tracer::default() };
        let data = data_packet();
        let ack = Packet { kind: Kind::Ack, size: 40, src: data.dst, dst: data.src, ..data };
        let variants = [
            Packet { seq: 8, uid: 6, ..data },
            Packet { flags: flags::CE, ..data },
            Packet { size: 40, ..data },
            Packet { fid: 2, ..data },
            Packet { src: Addr { node: NodeId::new(0), port: 2 }, ..data },
            Packet { dst: Addr { node: NodeId::new(4), port: 0 }, ..data },
            Packet { kind: Kind::Cbr, ..data },
            Packet { kind: Kind::BindingUpdate, flow: FlowId(u32::MAX), ..data },
        ];
        for v in &variants {
            t.link_event('+', 0.5, NodeId::new(0), NodeId::new(1), &data);
            t.link_event('r', 1.5, NodeId::new(1), NodeId::new(0), &ack);
            t.link_event('-', 2.5, NodeId::new(0), NodeId::new(1), v);
        }
        let text = sink.text();
        let lines: Vec<&str> = text.lines().collect();
        for (three, v) in lines.chunks(3).zip(&variants) {
            assert_eq!(three[0], "+ 0.5 0 1 tcp 1040 ------- 1 0.0 3.0 7 5");
            assert_eq!(three[1], "r 1.5 1 0 ack 40 ------- 1 3.0 0.0 7 5");
            let mut whole = Vec::new();
            Middle::put(&mut whole, v, None);
            assert_eq!(three[2], format!("- 2.5 0 1 {}{} {}", String::from_utf8(whole).unwrap(), v.seq, v.uid));
        }
        assert_eq!(lines[2], "- 2.5 0 1 tcp 1040 ------- 1 0.0 3.0 8 6");
        assert_eq!(lines[5], "- 2.5 0 1 tcp 1040 ----E-- 1 0.0 3.0 7 5");
        assert_eq!(lines[20], "- 2.5 0 1 cbr 1040 ------- 1 0.0 3.0 7 5");
        assert_eq!(lines[23], "- 2.5 0 1 BU 1040 ------- 1 0.0 3.0 7 5");
    }

    /// Writes one line per event in `format` and returns the text.
    fn wireless_lines(format: WirelessFormat, events: &[WirelessEvent]) -> String {
        let sink = Shared::default();
        let mut t = Tracer { ns2: Some(Box::new(sink.clone())), wireless: Some(format), ..Tracer::default() };
        for e in events {
            t.wireless_event(e);
        }
        sink.text()
    }

    /// One event of each kind cmu-trace.cc writes for tcplab's WLANs: an RTS (a control frame,
    /// here with the packet it clears the way for), the ARP request a MAC sends and the reply
    /// it receives, a TCP segment's RET drop, an ACK's AGT receipt and a CBR packet's IFQ drop.
    /// Times are thirds of µs, printed to 9 decimals (1.0011383333 -> 1.001138333); the MAC
    /// header in hex (1326 µs = 52e, broadcast = ffffffff, IP = 800, ARP = 806).
    fn wireless_events(packets: &[Packet; 5]) -> [WirelessEvent<'_>; 6] {
        let event = |ev, now, node, layer, reason, mac, control, packet, size, forwards| WirelessEvent {
            ev,
            now,
            node: NodeId::new(node),
            pos: (100.0, 2.0 / 3.0),
            layer,
            reason,
            mac,
            control,
            packet,
            size,
            forwards,
            next_hop: NO_NEXT_HOP,
        };
        let [tcp, ack, cbr, request, reply] = packets;
        [
            event('s', 1.0 + 3415.0 / 3e6, 1, "MAC", "---", (0x52e, 0, 1, 0), Some("RTS"), Some(tcp), 44, 0),
            event('s', 1.000095, 0, "MAC", "---", (0, u32::MAX, 0, 0x806), None, Some(request), 86, 0),
            event('r', 1.0 + 7510.0 / 3e6, 0, "MAC", "---", (0x13a, 0, 1, 0x806), None, Some(reply), 28, 1),
            event('D', 12.5, 0, "MAC", "RET", (0x13a, 1, 0, 0x800), None, Some(tcp), 1098, 0),
            event('r', 0.0, 0, "AGT", "---", (0x13a, 0, 1, 0x800), None, Some(ack), 40, 1),
            event('D', 1000.0, 2, "IFQ", "ARP", (0, 0, 0, 0x800), None, Some(cbr), 512, 0),
        ]
    }

    fn wireless_packets() -> [Packet; 5] {
        let tcp = Packet { uid: 9, seq: 17, fid: 3, ..data_packet() };
        let (zero, one) = (Addr { node: NodeId::new(0), port: 0 }, Addr { node: NodeId::new(1), port: 0 });
        let ack = Packet { kind: Kind::Ack, uid: 10, size: 40, src: tcp.dst, dst: tcp.src, ..tcp };
        let cbr = Packet { kind: Kind::Cbr, uid: 11, size: 512, seq: 4, fid: 2, ..data_packet() };
        let request =
            Packet { kind: Kind::Arp, seq: crate::packet::ARP_REQUEST, size: 28, src: zero, dst: one, ..data_packet() };
        let reply = Packet { seq: crate::packet::ARP_REPLY, src: one, dst: zero, ..request };
        [tcp, ack, cbr, request, reply]
    }

    #[test]
    fn wireless_lines_in_the_old_format() {
        let packets = wireless_packets();
        let text = wireless_lines(WirelessFormat::Old, &wireless_events(&packets));
        let expected = [
            "s 1.001138333 _1_ MAC  --- 9 RTS 44 [52e 0 1 0] ",
            "s 1.000095000 _0_ MAC  --- 5 ARP 86 [0 ffffffff 0 806] ------- [REQUEST 0/0 0/1]",
            "r 1.002503333 _0_ MAC  --- 5 ARP 28 [13a 0 1 806] ------- [REPLY 1/1 0/0]",
            "D 12.500000000 _0_ MAC  RET 9 tcp 1098 [13a 1 0 800] ------- [0:0 3:0 32 0] [17 0] 0 0",
            "r 0.000000000 _0_ AGT  --- 10 ack 40 [13a 0 1 800] ------- [3:0 0:0 32 0] [17 0] 1 0",
            "D 1000.000000000 _2_ IFQ  ARP 11 cbr 512 [0 0 0 800] ------- [0:0 3:0 32 0] [4] 0 0",
        ];
        assert_eq!(text, expected.map(|l| l.to_string() + "\n").concat());
    }

    /// God's hop counts (`$god_ set-dist 0 3 2`) end the data packets' lines, either way, not the
    /// ARP packets'; with the router trace off (`-routerTrace OFF`) the RTR lines go but their drops.
    #[test]
    fn god_hop_counts_end_data_lines_and_router_drops_outlive_the_router_trace() {
        let mut packets = wireless_packets();
        // God stamped the data packets between nodes 0 and 3 at their agents' sends
        for p in packets.iter_mut().filter(|p| matches!(p.kind, Kind::Tcp | Kind::Ack | Kind::Cbr)) {
            p.opt_forwards = 2;
        }
        let sink = Shared::default();
        let mut t = Tracer {
            ns2: Some(Box::new(sink.clone())),
            wireless: Some(WirelessFormat::Old),
            no_router_lines: true,
            ..Tracer::default()
        };
        let events = wireless_events(&packets);
        for e in &events[1..] {
            t.wireless_event(e);
        }
        let [_, _, cbr, ..] = &packets;
        for (ev, reason) in [('s', "---"), ('D', "CBK")] {
            t.wireless_event(&WirelessEvent { ev, layer: "RTR", reason, packet: Some(cbr), ..events[5] });
        }
        let expected = [
            "s 1.000095000 _0_ MAC  --- 5 ARP 86 [0 ffffffff 0 806] ------- [REQUEST 0/0 0/1]",
            "r 1.002503333 _0_ MAC  --- 5 ARP 28 [13a 0 1 806] ------- [REPLY 1/1 0/0]",
            "D 12.500000000 _0_ MAC  RET 9 tcp 1098 [13a 1 0 800] ------- [0:0 3:0 32 0] [17 0] 0 2",
            "r 0.000000000 _0_ AGT  --- 10 ack 40 [13a 0 1 800] ------- [3:0 0:0 32 0] [17 0] 1 2",
            "D 1000.000000000 _2_ IFQ  ARP 11 cbr 512 [0 0 0 800] ------- [0:0 3:0 32 0] [4] 0 2",
            "D 1000.000000000 _2_ RTR  CBK 11 cbr 512 [0 0 0 800] ------- [0:0 3:0 32 0] [4] 0 2",
        ];
        assert_eq!(sink.text(), expected.map(|l| l.to_string() + "\n").concat());
    }

    /// RP=DSDV ns wired-cum-wireless.tcl (DSDV.md §5): wired node 0 is 0.0.0, the base station
    /// (node 1, MAC 0) 1.0.0 = 4194304 and the station (node 2, MAC 1) 1.0.1 = 4194305.
    #[test]
    fn hierarchical_addresses_print_as_ns2_prints_them() {
        let hier = Addressing { addr: vec![0, 4194304, 4194305], mac: vec![0, 0, 1] };
        let sink = Shared::default();
        let mut t = Tracer {
            ns2: Some(Box::new(sink.clone())),
            wireless: Some(WirelessFormat::Old),
            addressing: Some(Box::new(hier)),
            ..Tracer::default()
        };
        let (w, bs, ms) = (NodeId::new(0), NodeId::new(1), NodeId::new(2));
        let tcp = Packet {
            src: Addr { node: w, port: 0 },
            dst: Addr { node: ms, port: 0 },
            fid: 0,
            seq: 0,
            uid: 2,
            size: 40,
            ..data_packet()
        };
        t.link_event('+', 1.0, w, bs, &tcp);
        let tcp = Packet { ttl: 30, next_hop: Some(ms), forwards: 1, ..tcp };
        let update = Packet { kind: Kind::Message, src: Addr { node: bs, port: 255 }, uid: 0, size: 32, ..tcp };
        let update =
            Packet { dst: Addr { node: NodeId::new(0), port: 255 }, next_hop: None, forwards: 0, ttl: 32, ..update };
        let request = Packet {
            kind: Kind::Arp,
            seq: crate::packet::ARP_REQUEST,
            size: 28,
            src: Addr { node: bs, port: 0 },
            dst: Addr { node: ms, port: 0 },
            ..data_packet()
        };
        let reply = Packet { seq: crate::packet::ARP_REPLY, src: request.dst, dst: request.src, ..request };
        let event = |ev, node, mac, packet, size, forwards| WirelessEvent {
            ev,
            now: 1.0,
            node,
            pos: (0.0, 0.0),
            layer: "MAC",
            reason: "---",
            mac,
            control: None,
            packet: Some(packet),
            size,
            forwards,
            next_hop: NO_NEXT_HOP,
        };
        t.wireless_event(&event('s', bs, (0, u32::MAX, 1, 0x800), &update, 90, 0));
        t.wireless_event(&event('r', ms, (0, u32::MAX, 1, 0x806), &request, 28, 0));
        t.wireless_event(&event('r', bs, (0x13a, 1, 2, 0x806), &reply, 28, 0));
        t.wireless_event(&event('r', ms, (0x13a, 2, 1, 0x800), &tcp, 40, 1));
        let expected = [
            "+ 1 0 1 tcp 40 ------- 0 0.0.0.0 1.0.1.0 0 2",
            "s 1.000000000 _1_ MAC  --- 0 message 90 [0 ffffffff 0 800] ------- [4194304:255 2147483647:255 32 0] ",
            "r 1.000000000 _2_ MAC  --- 5 ARP 28 [0 ffffffff 0 806] ------- [REQUEST 0/4194304 0/4194305]",
            "r 1.000000000 _1_ MAC  --- 5 ARP 28 [13a 0 1 806] ------- [REPLY 1/4194305 0/4194304]",
            "r 1.000000000 _2_ MAC  --- 2 tcp 40 [13a 1 0 800] ------- [0:0 4194305:0 30 4194305] [0 0] 1 0",
        ];
        assert_eq!(sink.text(), expected.map(|l| l.to_string() + "\n").concat());
    }

    #[test]
    fn wireless_lines_in_the_new_format() {
        let packets = wireless_packets();
        let text = wireless_lines(WirelessFormat::New, &wireless_events(&packets));
        let node = |ev: &str, t: &str, n: u32, layer: &str, reason: &str, mac: &str| {
            format!(
                "{ev} -t {t} -Hs {n} -Hd -2 -Ni {n} -Nx 100.00 -Ny 0.67 -Nz 0.00 -Ne -1.000000 -Nl {layer} -Nw {reason} {mac} "
            )
        };
        let expected = [
            node("s", "1.001138333", 1, "MAC", "---", "-Ma 52e -Md 0 -Ms 1 -Mt 0"),
            node("s", "1.000095000", 0, "MAC", "---", "-Ma 0 -Md ffffffff -Ms 0 -Mt 806")
                + "-P arp -Po REQUEST -Pms 0 -Ps 0 -Pmd 0 -Pd 1 ",
            node("r", "1.002503333", 0, "MAC", "---", "-Ma 13a -Md 0 -Ms 1 -Mt 806")
                + "-P arp -Po REPLY -Pms 1 -Ps 1 -Pmd 0 -Pd 0 ",
            // the new format writes a drop as `d` (cmu-trace.cc `format_mac_common`)
            node("d", "12.500000000", 0, "MAC", "RET", "-Ma 13a -Md 1 -Ms 0 -Mt 800")
                + "-Is 0.0 -Id 3.0 -It tcp -Il 1098 -If 3 -Ii 9 -Iv 32 -Pn tcp -Ps 17 -Pa 0 -Pf 0 -Po 0 ",
            node("r", "0.000000000", 0, "AGT", "---", "-Ma 13a -Md 0 -Ms 1 -Mt 800")
                + "-Is 3.0 -Id 0.0 -It ack -Il 40 -If 3 -Ii 10 -Iv 32 -Pn tcp -Ps 17 -Pa 0 -Pf 1 -Po 0 ",
            node("d", "1000.000000000", 2, "IFQ", "ARP", "-Ma 0 -Md 0 -Ms 0 -Mt 800")
                + "-Is 0.0 -Id 3.0 -It cbr -Il 512 -If 2 -Ii 11 -Iv 32 -Pn cbr -Pi 4 -Pf 0 -Po 0 ",
        ];
        assert_eq!(text, expected.map(|l| l + "\n").concat());
    }

    #[test]
    fn flags_column() {
        assert_eq!(&ns2_flags(0), b"-------");
        assert_eq!(&ns2_flags(flags::ECT | flags::CWR), b"---A--N");
        assert_eq!(&ns2_flags(flags::ECN_ECHO | flags::CE), b"C---E--");
    }
}
