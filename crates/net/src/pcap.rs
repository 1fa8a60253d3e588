//! pcap capture of links, for Wireshark and tshark: every packet a link puts on the wire, as the
//! raw IPv4 or IPv6 packet it stands for, with real TCP, UDP and Mobile IPv6 headers.
//!
//! ns-2's TCP counts packets; the capture counts bytes as a real stack would: segment k starts at
//! byte k × the flow's segment size, and an ACK of segment k acknowledges byte (k + 1) × size.
//! A flow's 40-byte SYN (`syn_`) is a real SYN one byte before segment 1. Payload bytes are
//! not stored: each record holds the headers, and its original length is the packet's length
//! as simulated, as a capture with a short snap length would have it. Checksums are real.

use crate::packet::{flags, Kind, Packet};
use std::io::{self, Write};

/// A file a trace writes to (the capture's, and crate::trace's text traces).
pub type Sink = Box<dyn Write + Send + Sync>;

/// The IP version the capture writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IpVersion {
    Ipv4,
    Ipv6,
}

/// What the capture needs to know about a flow to write real headers.
#[derive(Debug, Clone, Copy)]
pub struct FlowWire {
    /// Bytes of payload in a full segment (TCP; 1 for UDP, whose seqno is not written).
    pub segment: u32,
    /// The TCP timestamps option is on.
    pub timestamps: bool,
    /// The window the sink advertises, in bytes (at most 65535: there is no SYN to scale it).
    pub window: u16,
}

/// The bytes of route optimisation's header and of one IPv6-in-IPv6 tunnel header.
const RO_HEADER: usize = crate::mobility::config::RO_BYTES as usize;
const TUNNEL_HEADER: usize = crate::mobility::config::TUNNEL_BYTES as usize;

pub struct Pcap {
    ip: IpVersion,
    flows: Vec<FlowWire>,
    /// Per node, whether it is a mobile node (route optimisation's headers depend on it).
    mobile: Vec<bool>,
    /// Per duplex link, its capture file, if captured: both directions, as an interface
    /// capture has them. Link direction `l` belongs to duplex link `l / 2`.
    files: Vec<Option<Sink>>,
    /// The record being built (reused: no allocation per packet).
    buf: Vec<u8>,
    /// The first write error; the run reports it at the end.
    pub error: Option<io::Error>,
}

const TCP: u8 = 6;
const UDP: u8 = 17;
const IPV6_IN_IP: u8 = 41;
const ROUTING: u8 = 43;
const DEST_OPTS: u8 = 60;
const NO_NEXT: u8 = 59;
const MOBILITY: u8 = 135;

impl Pcap {
    /// A capture writing to `files` (one per duplex link, None where not captured); each file
    /// gets the pcap header now.
    pub fn new(
        ip: IpVersion,
        flows: Vec<FlowWire>,
        mobile: Vec<bool>,
        mut files: Vec<Option<Sink>>,
    ) -> io::Result<Pcap> {
        for f in files.iter_mut().flatten() {
            // magic of nanosecond pcap, version 2.4, GMT, accuracy, snap length, LINKTYPE_RAW
            let mut h = Vec::with_capacity(24);
            h.extend(0xa1b2_3c4du32.to_le_bytes());
            h.extend(2u16.to_le_bytes());
            h.extend(4u16.to_le_bytes());
            h.extend(0i32.to_le_bytes());
            h.extend(0u32.to_le_bytes());
            h.extend(65535u32.to_le_bytes());
            h.extend(101u32.to_le_bytes());
            f.write_all(&h)?;
        }
        Ok(Pcap { ip, flows, mobile, files, buf: Vec::with_capacity(256), error: None })
    }

    /// Writes `pkt`, put on the wire of link direction `link` at `now` seconds. Each packet is
    /// stamped when it starts onto the wire at its sending end.
    pub fn capture(&mut self, link: usize, now: f64, pkt: &Packet) {
        if self.error.is_some() || !matches!(self.files.get(link / 2), Some(Some(_))) {
            return;
        }
        self.buf.clear();
        self.buf.extend([0; 16]); // the record header, filled in below
        let wire = self.write_ip(pkt);
        let captured = self.buf.len() - 16;
        let ns = (now * 1e9).round().max(0.0) as u64;
        let head = &mut self.buf[..16];
        head[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        head[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        head[8..12].copy_from_slice(&(captured as u32).to_le_bytes());
        head[12..16].copy_from_slice(&(wire.max(captured) as u32).to_le_bytes());
        let file = self.files[link / 2].as_mut().expect("captured link");
        if let Err(e) = file.write_all(&self.buf) {
            self.error = Some(e);
        }
    }

    /// Writes a real host's IP packet `ip` (crate::emu), put on the wire of link direction
    /// `link` at `now` seconds: its own headers, options included, and the start of its payload
    /// (`REAL_SNAP` bytes at most, as the simulated packets' captures hold headers only).
    pub fn capture_real(&mut self, link: usize, now: f64, ip: &[u8]) {
        if self.error.is_some() || !matches!(self.files.get(link / 2), Some(Some(_))) {
            return;
        }
        const REAL_SNAP: usize = 128;
        let captured = ip.len().min(REAL_SNAP);
        let ns = (now * 1e9).round().max(0.0) as u64;
        self.buf.clear();
        self.buf.extend(((ns / 1_000_000_000) as u32).to_le_bytes());
        self.buf.extend(((ns % 1_000_000_000) as u32).to_le_bytes());
        self.buf.extend((captured as u32).to_le_bytes());
        self.buf.extend((ip.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(&ip[..captured]);
        let file = self.files[link / 2].as_mut().expect("captured link");
        if let Err(e) = file.write_all(&self.buf) {
            self.error = Some(e);
        }
    }

    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for f in self.files.iter_mut().flatten() {
            f.flush()?;
        }
        Ok(())
    }

    /// Appends the packet's headers to `buf`; returns its length on the wire.
    fn write_ip(&mut self, pkt: &Packet) -> usize {
        const UNKNOWN: FlowWire = FlowWire { segment: 1, timestamps: false, window: 65535 };
        let flow = self.flows.get(pkt.flow.0 as usize).copied().unwrap_or(UNKNOWN);
        let mut t = [0u8; 60];
        let (proto, tlen) = transport_header(pkt, &flow, &mut t);
        let segment = tlen + pkt.payload as usize; // the payload is simulated only
        let ecn = if pkt.has(flags::CE) {
            3
        } else if pkt.has(flags::ECT) {
            2
        } else {
            0
        };
        let (src, dst) = (pkt.src.node.get(), pkt.dst.node.get());
        let (pseudo, total) = match self.ip {
            IpVersion::Ipv4 => {
                self.ipv4(pkt, proto, ecn, src, dst, 20 + segment);
                (Pseudo::V4(addr4(src), addr4(dst)), 20 + segment)
            }
            IpVersion::Ipv6 => {
                let tunnels = pkt.encaps as usize;
                let optimised = pkt.mip_bytes as usize > tunnels * TUNNEL_HEADER;
                let inner = segment + if optimised { RO_HEADER } else { 0 };
                let total = TUNNEL_HEADER * tunnels + 40 + inner;
                // each tunnel runs from the node that encapsulated to the node it is headed for
                let (from, to) = (pkt.tunnel_from.get(), pkt.via.unwrap_or(pkt.dst.node).get());
                for level in 0..tunnels {
                    self.ipv6(IPV6_IN_IP, ecn, from, to, total - TUNNEL_HEADER * (level + 1));
                }
                if optimised {
                    let towards_mobile = self.mobile.get(dst as usize).copied().unwrap_or(false);
                    self.ipv6(if towards_mobile { ROUTING } else { DEST_OPTS }, ecn, src, dst, inner);
                    self.route_optimisation(towards_mobile, proto, if towards_mobile { dst } else { src });
                } else {
                    self.ipv6(proto, ecn, src, dst, inner);
                }
                (Pseudo::V6(addr6(src), addr6(dst)), total)
            }
        };
        let start = self.buf.len();
        self.buf.extend_from_slice(&t[..tlen]);
        let sum = transport_checksum(pseudo, proto, &self.buf[start..], segment);
        self.buf[start + checksum_at(proto)..][..2].copy_from_slice(&sum.to_be_bytes());
        total
    }

    fn ipv4(&mut self, pkt: &Packet, proto: u8, ecn: u8, src: u32, dst: u32, total: usize) {
        let start = self.buf.len();
        self.buf.extend([0x45, ecn]);
        self.buf.extend((total.min(65535) as u16).to_be_bytes());
        self.buf.extend((pkt.uid as u16).to_be_bytes());
        self.buf.extend(0x4000u16.to_be_bytes()); // don't fragment
        self.buf.extend([64, proto, 0, 0]);
        self.buf.extend(addr4(src));
        self.buf.extend(addr4(dst));
        let sum = !fold(sum16(&self.buf[start..start + 20]));
        self.buf[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
    }

    fn ipv6(&mut self, next: u8, ecn: u8, src: u32, dst: u32, payload: usize) {
        self.buf.extend([0x60 | (ecn >> 4), ecn << 4, 0, 0]);
        self.buf.extend((payload.min(65535) as u16).to_be_bytes());
        self.buf.extend([next, 64]);
        self.buf.extend(addr6(src));
        self.buf.extend(addr6(dst));
    }

    /// Route optimisation's 24 bytes (RFC 6275, 6.3 and 6.4): towards the mobile node, a type 2
    /// routing header with its home address; from it, a home address destination option
    /// (after a PadN that puts the address at 8n + 6 as the option needs).
    fn route_optimisation(&mut self, towards_mobile: bool, next: u8, home: u32) {
        if towards_mobile {
            self.buf.extend([next, 2, 2, 1, 0, 0, 0, 0]);
        } else {
            self.buf.extend([next, 2, 1, 2, 0, 0, 201, 16]);
        }
        self.buf.extend(addr6(home));
    }
}

/// The transport header of `pkt` into `t`: its IP protocol number and length. The checksum
/// field is left zero for the caller, which knows the pseudo-header.
fn transport_header(pkt: &Packet, flow: &FlowWire, t: &mut [u8; 60]) -> (u8, usize) {
    let ports = |t: &mut [u8; 60]| {
        t[0..2].copy_from_slice(&port(pkt.src.port).to_be_bytes());
        t[2..4].copy_from_slice(&port(pkt.dst.port).to_be_bytes());
    };
    match pkt.kind {
        Kind::Tcp | Kind::Ack => {
            ports(t);
            let seg = flow.segment as i64;
            let data = pkt.kind == Kind::Tcp;
            let syn = data && pkt.payload == 0 && pkt.seq == 0;
            let (seq, ack) = if syn {
                (seg - 1, 0)
            } else if data {
                (pkt.seq * seg, 0)
            } else {
                (0, (pkt.seq + 1) * seg)
            };
            t[4..8].copy_from_slice(&(seq as u32).to_be_bytes());
            t[8..12].copy_from_slice(&(ack as u32).to_be_bytes());
            let mut f: u8 = if syn { 0x02 } else { 0x10 }; // SYN, else ACK
            if data && pkt.payload > 0 {
                f |= 0x08; // PSH
            }
            if pkt.has(flags::ECN_ECHO) {
                f |= 0x40; // ECE (on ns-2's ECN SYN too)
            }
            if pkt.has(flags::CWR) {
                f |= 0x80; // CWR
            }
            let window = if data { 65535 } else { flow.window };
            t[13] = f;
            t[14..16].copy_from_slice(&window.to_be_bytes());
            t[16..20].fill(0);
            let mut len = 20;
            let mut opt = |bytes: &[u8]| {
                t[len..len + bytes.len()].copy_from_slice(bytes);
                len += bytes.len();
            };
            if flow.timestamps {
                let ticks = |s: f64| ((s * 1e6).round() as u64 as u32).to_be_bytes(); // 1 µs clock
                let (val, echo) = (ticks(pkt.ts), ticks(pkt.ts_echo));
                opt(&[1, 1, 8, 10, val[0], val[1], val[2], val[3], echo[0], echo[1], echo[2], echo[3]]);
            }
            if !data && pkt.nsack > 0 {
                opt(&[1, 1, 5, 2 + 8 * pkt.nsack]);
                for &(left, right) in pkt.sack_blocks().iter() {
                    opt(&((left * seg) as u32).to_be_bytes());
                    opt(&((right * seg) as u32).to_be_bytes());
                }
            }
            t[12] = ((len / 4) as u8) << 4;
            (TCP, len)
        }
        // a real host's packet is captured with its own bytes (`capture_real`); not here
        // ARP stays on its WLAN, which no capture sees
        Kind::Cbr | Kind::Exp | Kind::Pareto | Kind::Udp | Kind::Real | Kind::Arp | Kind::Message | Kind::Pbc => {
            ports(t);
            let len = 8 + pkt.payload as usize;
            t[4..6].copy_from_slice(&(len.min(65535) as u16).to_be_bytes());
            t[6..8].fill(0);
            (UDP, 8)
        }
        Kind::BindingUpdate | Kind::BindingAck => {
            // Mobility header (RFC 6275, 6.1): BU (type 5) or BA (type 6), padded with a PadN
            // option to the size simulated (in 8-byte units, at least 16 bytes)
            let update = pkt.kind == Kind::BindingUpdate;
            let simulated = pkt.size.saturating_sub(40 + pkt.mip_bytes as u32) as usize;
            let len = simulated.div_ceil(8).clamp(2, 7) * 8;
            t[..len].fill(0);
            t[..6].copy_from_slice(&[NO_NEXT, (len / 8 - 1) as u8, if update { 5 } else { 6 }, 0, 0, 0]);
            let sequence = (pkt.uid as u16).to_be_bytes();
            if update {
                // sequence, flags A and H (home registration), lifetime in 4 s units
                t[6..8].copy_from_slice(&sequence);
                t[8..10].copy_from_slice(&0xc000u16.to_be_bytes());
            } else {
                // status 0 (accepted), flags, sequence, lifetime
                t[8..10].copy_from_slice(&sequence);
            }
            t[10..12].copy_from_slice(&64u16.to_be_bytes());
            t[12..14].copy_from_slice(&[1, (len - 14) as u8]); // PadN over the rest
            (MOBILITY, len)
        }
    }
}

/// Where a transport header keeps its checksum.
fn checksum_at(proto: u8) -> usize {
    match proto {
        TCP => 16,
        UDP => 6,
        _ => 4, // mobility header
    }
}

enum Pseudo {
    V4([u8; 4], [u8; 4]),
    V6([u8; 16], [u8; 16]),
}

/// The Internet checksum of a transport header whose payload is `len - header.len()` zero
/// bytes (zeros add nothing), over the pseudo-header.
fn transport_checksum(pseudo: Pseudo, proto: u8, header: &[u8], len: usize) -> u16 {
    let mut sum = sum16(header);
    match pseudo {
        Pseudo::V4(s, d) => sum += sum16(&s) + sum16(&d),
        Pseudo::V6(s, d) => sum += sum16(&s) + sum16(&d),
    }
    sum += proto as u64 + len as u64;
    let c = !fold(sum);
    if proto == UDP && c == 0 {
        0xffff // UDP sends a computed zero as all ones
    } else {
        c
    }
}

fn sum16(bytes: &[u8]) -> u64 {
    bytes.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u64).sum()
}

fn fold(mut sum: u64) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// Node n is 10.0.0.0/8's host n + 1, or fd00::n+1.
fn addr4(node: u32) -> [u8; 4] {
    let h = (node + 1).to_be_bytes();
    [10, h[1], h[2], h[3]]
}

fn addr6(node: u32) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0xfd;
    a[12..].copy_from_slice(&(node + 1).to_be_bytes());
    a
}

/// Agent port p is port 10000 + p (ns-2 numbers agents from 0; port 0 is not a real port).
fn port(p: u32) -> u16 {
    (10_000 + p.min(55_000)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;
    use crate::packet::Addr;
    use crate::testing::Shared;

    fn ack_with_sack() -> Packet {
        Packet {
            uid: 7,
            kind: Kind::Ack,
            size: 48,
            seq: 29,
            src: Addr { node: NodeId::new(4), port: 0 },
            dst: Addr { node: NodeId::new(0), port: 1 },
            flags: flags::ECN_ECHO,
            ts: 1.5,
            ts_echo: 1.25,
            sack: [(31, 33), (0, 0), (0, 0)],
            nsack: 1,
            ackno: 0,
            tcp_flags: 0,
            hlen: 0,
            ..crate::testing::packet()
        }
    }

    /// One record, and the bytes after the file header.
    fn capture(ip: IpVersion, pkt: &Packet, now: f64) -> Vec<u8> {
        let sink = Shared::default();
        let flows = vec![FlowWire { segment: 1000, timestamps: true, window: 20_000 }];
        let mut pcap = Pcap::new(ip, flows, vec![false; 5], vec![Some(Box::new(sink.clone()))]).unwrap();
        pcap.capture(1, now, pkt); // direction 1 of duplex link 0
        pcap.flush().unwrap();
        let bytes = sink.0.lock().unwrap().clone();
        assert_eq!(&bytes[..4], &0xa1b2_3c4du32.to_le_bytes(), "nanosecond pcap");
        assert_eq!(u32::from_le_bytes(bytes[20..24].try_into().unwrap()), 101, "LINKTYPE_RAW");
        bytes[24..].to_vec()
    }

    fn word(b: &[u8], at: usize) -> u32 {
        u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn an_ipv4_ack_has_valid_checksums_and_byte_numbers() {
        let rec = capture(IpVersion::Ipv4, &ack_with_sack(), 2.000_000_001);
        let le = |at: usize| u32::from_le_bytes(rec[at..at + 4].try_into().unwrap());
        assert_eq!((le(0), le(4)), (2, 1), "seconds and nanoseconds");
        let (ip, tcp) = (&rec[16..36], &rec[36..]);
        assert_eq!(le(8) as usize, rec.len() - 16);
        assert_eq!(le(12), le(8), "an ACK has no payload to leave out");
        assert_eq!(fold(sum16(ip)), 0xffff, "IPv4 header checksum");
        assert_eq!((ip[1], &ip[12..20]), (0, &[10, 0, 0, 5, 10, 0, 0, 1][..]), "Not-ECT; node n is 10.0.0.n+1");
        // the TCP checksum over the pseudo-header comes out as all ones
        let pseudo = sum16(&ip[12..20]) + TCP as u64 + tcp.len() as u64;
        assert_eq!(fold(sum16(tcp) + pseudo), 0xffff, "TCP checksum");
        assert_eq!((word(tcp, 4), word(tcp, 8)), (0, 30_000), "ACK of segment 29 asks for byte 30000");
        assert_eq!(tcp[13], 0x50, "ACK and ECE");
        assert_eq!(u16::from_be_bytes([tcp[14], tcp[15]]), 20_000);
        // NOP NOP timestamps (1 µs ticks), NOP NOP SACK [31000, 33000)
        assert_eq!(tcp[12] >> 4, 11, "20 + 12 + 12 bytes of header");
        assert_eq!(&tcp[20..24], &[1, 1, 8, 10]);
        assert_eq!((word(tcp, 24), word(tcp, 28)), (1_500_000, 1_250_000));
        assert_eq!(&tcp[32..36], &[1, 1, 5, 10]);
        assert_eq!((word(tcp, 36), word(tcp, 40)), (31_000, 33_000));
    }

    #[test]
    fn ipv6_data_keeps_its_length_and_ecn() {
        let data = Packet {
            kind: Kind::Tcp,
            size: 1050,
            payload: 1000,
            seq: 3,
            flags: flags::ECT | flags::CE,
            nsack: 0,
            ackno: 0,
            tcp_flags: 0,
            hlen: 0,
            ..ack_with_sack()
        };
        let rec = capture(IpVersion::Ipv6, &data, 0.5);
        let le = |at: usize| u32::from_le_bytes(rec[at..at + 4].try_into().unwrap());
        let (ip, tcp) = (&rec[16..56], &rec[56..]);
        assert_eq!(le(12) as usize, 40 + 32 + 1000, "the payload counts in the original length");
        assert_eq!(le(8) as usize, 40 + 32, "but only the headers are stored");
        assert_eq!(u16::from_be_bytes([ip[4], ip[5]]), 32 + 1000, "payload length");
        assert_eq!(((ip[0] & 0x0f) << 4 | ip[1] >> 4) & 3, 3, "CE in the traffic class");
        assert_eq!((ip[6], ip[23], ip[39]), (TCP, 5, 1), "fd00::5 to fd00::1");
        assert_eq!((word(tcp, 4), tcp[13]), (3000, 0x18), "segment 3 at byte 3000, PSH ACK");
    }
}
