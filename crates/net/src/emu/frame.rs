//! Ethernet frames as a real host sends them: what a frame is (IPv4, IPv6, an ARP request, a
//! neighbour solicitation, something else), the ARP reply and the neighbour advertisement the
//! simulated gateway gives, and the MAC rewrite of a frame written out.

use std::net::{Ipv4Addr, Ipv6Addr};

pub type Mac = [u8; 6];

pub const ETH_HLEN: usize = 14;
pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_ARP: u16 = 0x0806;
pub const ETHERTYPE_IPV6: u16 = 0x86dd;
/// An ARP packet for IPv4 over Ethernet, and the frame that carries it (without padding).
const ARP_LEN: usize = 28;
pub const ARP_FRAME_LEN: usize = ETH_HLEN + ARP_LEN;
const IPV6_HLEN: usize = 40;
const ICMPV6: u8 = 58;
const NEIGHBOR_SOLICITATION: u8 = 135;
const NEIGHBOR_ADVERTISEMENT: u8 = 136;
/// A neighbour advertisement: ICMPv6 header, flags, target, and the target's link-layer
/// address option.
const NA_LEN: usize = 4 + 4 + 16 + 8;
pub const NA_FRAME_LEN: usize = ETH_HLEN + IPV6_HLEN + NA_LEN;

/// What a frame read from a host is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// An IPv4 packet of `len` bytes (its header's total length, without any Ethernet padding).
    Ipv4 { src: Ipv4Addr, dst: Ipv4Addr, len: u32 },
    /// An ARP request: who has `target`? Tell `sender` (at `sender_mac`).
    ArpRequest { sender_mac: Mac, sender: Ipv4Addr, target: Ipv4Addr },
    /// An IPv6 packet of `len` bytes (its fixed header and payload, without padding).
    Ipv6 { src: Ipv6Addr, dst: Ipv6Addr, len: u32 },
    /// A neighbour solicitation from `src` (`::` while it checks its own address is free), at
    /// `sender_mac`: who has `target`?
    NeighborSolicitation { sender_mac: Mac, src: Ipv6Addr, target: Ipv6Addr },
    /// Anything else (ARP replies, other ethertypes), by ethertype.
    Other(u16),
    /// Too short, or an IP header that does not hold together.
    Malformed,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn ip_at(b: &[u8], at: usize) -> Ipv4Addr {
    Ipv4Addr::new(b[at], b[at + 1], b[at + 2], b[at + 3])
}

fn ip6_at(b: &[u8], at: usize) -> Ipv6Addr {
    let mut o = [0u8; 16];
    o.copy_from_slice(&b[at..at + 16]);
    Ipv6Addr::from(o)
}

/// Reads a frame's Ethernet header and what follows it.
pub fn parse(f: &[u8]) -> Frame {
    if f.len() < ETH_HLEN {
        return Frame::Malformed;
    }
    let p = &f[ETH_HLEN..];
    match be16(f, 12) {
        ETHERTYPE_IPV4 => {
            if p.len() < 20 || p[0] >> 4 != 4 {
                return Frame::Malformed;
            }
            let ihl = (p[0] & 0x0f) as usize * 4;
            let len = be16(p, 2) as usize;
            if ihl < 20 || len < ihl || len > p.len() {
                return Frame::Malformed;
            }
            Frame::Ipv4 { src: ip_at(p, 12), dst: ip_at(p, 16), len: len as u32 }
        }
        ETHERTYPE_ARP => {
            // Ethernet (1), IPv4 (0x0800), 6-byte and 4-byte addresses
            if p.len() < ARP_LEN || be16(p, 0) != 1 || be16(p, 2) != ETHERTYPE_IPV4 || p[4] != 6 || p[5] != 4 {
                return Frame::Malformed;
            }
            match be16(p, 6) {
                1 => {
                    let mut sender_mac = [0; 6];
                    sender_mac.copy_from_slice(&p[8..14]);
                    Frame::ArpRequest { sender_mac, sender: ip_at(p, 14), target: ip_at(p, 24) }
                }
                _ => Frame::Other(ETHERTYPE_ARP),
            }
        }
        ETHERTYPE_IPV6 => {
            if p.len() < IPV6_HLEN || p[0] >> 4 != 6 {
                return Frame::Malformed;
            }
            let len = IPV6_HLEN + be16(p, 4) as usize;
            if len > p.len() {
                return Frame::Malformed;
            }
            let (src, dst) = (ip6_at(p, 8), ip6_at(p, 24));
            // a neighbour solicitation: ICMPv6 right after the fixed header, hop limit 255
            if p[6] == ICMPV6 && p[7] == 255 && len >= IPV6_HLEN + 24 && p[IPV6_HLEN] == NEIGHBOR_SOLICITATION {
                let mut sender_mac = [0; 6];
                sender_mac.copy_from_slice(&f[6..12]);
                return Frame::NeighborSolicitation { sender_mac, src, target: ip6_at(p, IPV6_HLEN + 8) };
            }
            Frame::Ipv6 { src, dst, len: len as u32 }
        }
        other => Frame::Other(other),
    }
}

/// What the ns-2 trace shows of a real IP packet: its ECN field and, for TCP and UDP, the
/// transport header's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Headers {
    /// The IP header's ECN field: 0 not ECN-capable, 1 or 2 ECT, 3 CE (RFC 3168).
    pub ecn: u8,
    /// The transport header's length: TCP's (20 to 60), UDP's (8), or 0 for other protocols.
    pub hlen: u8,
    pub src_port: u16,
    pub dst_port: u16,
    /// TCP's sequence and acknowledgement numbers and flags (FIN 0x01 ... CWR 0x80).
    pub seq: u32,
    pub ack: u32,
    pub tcp_flags: u8,
    /// Bytes after the transport header.
    pub payload: u32,
}

const TCP: u8 = 6;
const UDP: u8 = 17;
const IPV4_ECN_BYTE: usize = 1;
/// IPv6's traffic class straddles its first two bytes; the ECN bits are bits 4-5 of the second.
const IPV6_ECN_BYTE: usize = 1;
const CE: u8 = 3;

/// The headers of the IP packet in frame `f` (of `len` IP bytes, as `parse` gave it). An IPv6
/// packet whose next header is not TCP or UDP (extension headers included) shows as "other".
pub fn headers(f: &[u8], len: u32) -> Headers {
    let ip = &f[ETH_HLEN..(ETH_HLEN + len as usize).min(f.len())];
    let (ecn, proto, l4) = match ip.first().map(|b| b >> 4) {
        Some(4) if ip.len() >= 20 => (ip[IPV4_ECN_BYTE] & 3, ip[9], &ip[((ip[0] & 0x0f) as usize * 4).min(ip.len())..]),
        Some(6) if ip.len() >= IPV6_HLEN => ((ip[IPV6_ECN_BYTE] >> 4) & 3, ip[6], &ip[IPV6_HLEN..]),
        _ => return Headers::default(),
    };
    let mut h = Headers { ecn, ..Headers::default() };
    match proto {
        TCP if l4.len() >= 20 => {
            let hlen = (l4[12] >> 4) * 4;
            if hlen >= 20 && l4.len() >= hlen as usize {
                h.hlen = hlen;
                (h.src_port, h.dst_port) = (be16(l4, 0), be16(l4, 2));
                h.seq = u32::from_be_bytes([l4[4], l4[5], l4[6], l4[7]]);
                h.ack = u32::from_be_bytes([l4[8], l4[9], l4[10], l4[11]]);
                h.tcp_flags = l4[13];
                h.payload = (l4.len() - hlen as usize) as u32;
            }
        }
        UDP if l4.len() >= 8 => {
            h.hlen = 8;
            (h.src_port, h.dst_port) = (be16(l4, 0), be16(l4, 2));
            h.payload = (l4.len() - 8) as u32;
        }
        _ => {}
    }
    h
}

/// Marks the IP packet in frame `f` Congestion Experienced, as a router's AQM does (RFC 3168
/// §5), if it is ECN-capable; true if it was. IPv4's header checksum is updated for the
/// changed word (RFC 1624's incremental update); IPv6's header has none.
pub fn mark_ce(f: &mut [u8]) -> bool {
    let Some(ip) = f.get_mut(ETH_HLEN..) else { return false };
    match ip.first().map(|b| b >> 4) {
        Some(4) if ip.len() >= 20 && ip[IPV4_ECN_BYTE] & 3 != 0 => {
            let old = u16::from_be_bytes([ip[0], ip[1]]);
            ip[IPV4_ECN_BYTE] |= CE;
            let new = u16::from_be_bytes([ip[0], ip[1]]);
            // HC' = ~(~HC + ~m + m'), in ones' complement arithmetic
            let mut sum = u32::from(!be16(ip, 10)) + u32::from(!old) + u32::from(new);
            while sum >> 16 != 0 {
                sum = (sum & 0xffff) + (sum >> 16);
            }
            ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
            true
        }
        Some(6) if ip.len() >= IPV6_HLEN && (ip[IPV6_ECN_BYTE] >> 4) & 3 != 0 => {
            ip[IPV6_ECN_BYTE] |= CE << 4;
            true
        }
        _ => false,
    }
}

/// The neighbour advertisement answering a solicitation from `asker` (at `asker_mac`):
/// `target` is at `ours`, a router's (flags router, solicited, override), with the target's
/// link-layer address option and its ICMPv6 checksum.
pub fn neighbor_advertisement(asker_mac: Mac, asker: Ipv6Addr, target: Ipv6Addr, ours: Mac) -> [u8; NA_FRAME_LEN] {
    let mut f = [0u8; NA_FRAME_LEN];
    f[0..6].copy_from_slice(&asker_mac);
    f[6..12].copy_from_slice(&ours);
    f[12..14].copy_from_slice(&ETHERTYPE_IPV6.to_be_bytes());
    let ip = &mut f[ETH_HLEN..];
    ip[0] = 0x60;
    ip[4..6].copy_from_slice(&(NA_LEN as u16).to_be_bytes());
    ip[6] = ICMPV6;
    ip[7] = 255; // hop limit of neighbour discovery
    ip[8..24].copy_from_slice(&target.octets());
    ip[24..40].copy_from_slice(&asker.octets());
    let m = &mut ip[IPV6_HLEN..];
    m[0] = NEIGHBOR_ADVERTISEMENT;
    m[4] = 0xe0; // router, solicited, override
    m[8..24].copy_from_slice(&target.octets());
    m[24] = 2; // target link-layer address, 8 bytes
    m[25] = 1;
    m[26..32].copy_from_slice(&ours);
    let sum = icmpv6_checksum(target, asker, &f[ETH_HLEN + IPV6_HLEN..]);
    f[ETH_HLEN + IPV6_HLEN + 2..ETH_HLEN + IPV6_HLEN + 4].copy_from_slice(&sum.to_be_bytes());
    f
}

/// The ICMPv6 checksum of `msg` (its checksum field zero) from `src` to `dst`: the ones'
/// complement of the ones' complement sum over the pseudo-header and the message (RFC 4443).
pub fn icmpv6_checksum(src: Ipv6Addr, dst: Ipv6Addr, msg: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut add = |b: &[u8]| {
        for c in b.chunks(2) {
            sum += u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
        }
    };
    add(&src.octets());
    add(&dst.octets());
    add(&(msg.len() as u32).to_be_bytes());
    add(&[0, 0, 0, ICMPV6]);
    add(msg);
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The ARP reply to a request from `asker` (at `asker_mac`): `target` is at `ours`.
pub fn arp_reply(asker_mac: Mac, asker: Ipv4Addr, target: Ipv4Addr, ours: Mac) -> [u8; ARP_FRAME_LEN] {
    let mut f = [0u8; ARP_FRAME_LEN];
    f[0..6].copy_from_slice(&asker_mac);
    f[6..12].copy_from_slice(&ours);
    f[12..14].copy_from_slice(&ETHERTYPE_ARP.to_be_bytes());
    let p = &mut f[ETH_HLEN..];
    p[0..2].copy_from_slice(&1u16.to_be_bytes());
    p[2..4].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    p[4] = 6;
    p[5] = 4;
    p[6..8].copy_from_slice(&2u16.to_be_bytes()); // reply
    p[8..14].copy_from_slice(&ours);
    p[14..18].copy_from_slice(&target.octets());
    p[18..24].copy_from_slice(&asker_mac);
    p[24..28].copy_from_slice(&asker.octets());
    f
}

/// Addresses the frame to `dst` from `src`.
pub fn rewrite_macs(f: &mut [u8], dst: Mac, src: Mac) {
    f[0..6].copy_from_slice(&dst);
    f[6..12].copy_from_slice(&src);
}

/// An IPv4 prefix: an address and its length, as "10.0.1.2/24" writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Prefix {
    pub addr: Ipv4Addr,
    pub len: u8,
}

impl Prefix {
    pub fn parse(text: &str) -> Result<Prefix, String> {
        let (a, l) = text.split_once('/').ok_or("needs a prefix length (such as \"10.0.1.2/24\")")?;
        let addr: Ipv4Addr = a.trim().parse().map_err(|_| format!("{a:?} is not an IPv4 address"))?;
        let len: u8 = l.trim().parse().map_err(|_| format!("{l:?} is not a prefix length (0 to 32)"))?;
        if len > 30 {
            return Err(format!("a /{len} has no room for the host and its gateway (at most /30)"));
        }
        let p = Prefix { addr, len };
        if addr == p.network() || addr == p.broadcast() {
            return Err(format!("{addr} is the network's or broadcast address of /{len}"));
        }
        Ok(p)
    }

    fn mask(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            u32::MAX << (32 - self.len)
        }
    }

    pub fn network(&self) -> Ipv4Addr {
        Ipv4Addr::from(u32::from(self.addr) & self.mask())
    }

    pub fn broadcast(&self) -> Ipv4Addr {
        Ipv4Addr::from(u32::from(self.addr) | !self.mask())
    }

    pub fn contains(&self, a: Ipv4Addr) -> bool {
        u32::from(a) & self.mask() == u32::from(self.addr) & self.mask()
    }

    /// The first address of the subnet that is not the host's: the gateway by default.
    pub fn default_gateway(&self) -> Ipv4Addr {
        let first = u32::from(self.network()) + 1;
        Ipv4Addr::from(if first == u32::from(self.addr) { first + 1 } else { first })
    }
}

/// An IPv6 prefix: an address and its length, as "fd00:1::2/64" writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prefix6 {
    pub addr: Ipv6Addr,
    pub len: u8,
}

impl Prefix6 {
    pub fn parse(text: &str) -> Result<Prefix6, String> {
        let (a, l) = text.split_once('/').ok_or("needs a prefix length (such as \"fd00:1::2/64\")")?;
        let addr: Ipv6Addr = a.trim().parse().map_err(|_| format!("{a:?} is not an IPv6 address"))?;
        let len: u8 = l.trim().parse().map_err(|_| format!("{l:?} is not a prefix length (0 to 128)"))?;
        if len > 126 {
            return Err(format!("a /{len} has no room for the host and its gateway (at most /126)"));
        }
        if addr.is_multicast() || addr.is_unspecified() || addr.is_loopback() || (addr.segments()[0] & 0xffc0) == 0xfe80
        {
            return Err(format!("{addr} is not a global or unique-local unicast address"));
        }
        let p = Prefix6 { addr, len };
        if addr == p.network() {
            return Err(format!("{addr} is the subnet-router anycast address of /{len}"));
        }
        Ok(p)
    }

    fn mask(&self) -> u128 {
        if self.len == 0 {
            0
        } else {
            u128::MAX << (128 - self.len)
        }
    }

    pub fn network(&self) -> Ipv6Addr {
        Ipv6Addr::from(u128::from(self.addr) & self.mask())
    }

    pub fn contains(&self, a: Ipv6Addr) -> bool {
        u128::from(a) & self.mask() == u128::from(self.addr) & self.mask()
    }

    /// The first address of the subnet that is not the host's: the gateway by default.
    pub fn default_gateway(&self) -> Ipv6Addr {
        let first = u128::from(self.network()) + 1;
        Ipv6Addr::from(if first == u128::from(self.addr) { first + 1 } else { first })
    }
}

impl std::fmt::Display for Prefix6 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

impl serde::Serialize for Prefix6 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl std::fmt::Display for Prefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: Mac = [2, 0, 0, 0, 0, 2];
    const GW: Mac = [2, 0, 0, 0, 0, 1];

    fn eth(ethertype: u16, payload: &[u8]) -> Vec<u8> {
        let mut f = vec![0xff; 6];
        f.extend(HOST);
        f.extend(ethertype.to_be_bytes());
        f.extend(payload);
        f
    }

    /// An IPv4 header of total length `len` from 10.0.1.2 to 10.0.2.2, padded to `pad` bytes.
    fn ipv4(len: u16, pad: usize) -> Vec<u8> {
        let mut p = vec![0x45, 0];
        p.extend(len.to_be_bytes());
        p.extend([0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 1, 2, 10, 0, 2, 2]);
        p.resize(pad.max(len as usize), 0);
        p
    }

    #[test]
    fn an_ipv4_frame_gives_its_addresses_and_its_length_without_padding() {
        let f = eth(ETHERTYPE_IPV4, &ipv4(28, 46)); // a small packet padded to Ethernet's minimum
        assert_eq!(
            parse(&f),
            Frame::Ipv4 { src: Ipv4Addr::new(10, 0, 1, 2), dst: Ipv4Addr::new(10, 0, 2, 2), len: 28 }
        );
        assert_eq!(
            parse(&eth(ETHERTYPE_IPV4, &ipv4(1500, 0))),
            Frame::Ipv4 { src: Ipv4Addr::new(10, 0, 1, 2), dst: Ipv4Addr::new(10, 0, 2, 2), len: 1500 }
        );
    }

    #[test]
    fn broken_frames_are_malformed() {
        assert_eq!(parse(&[0; 10]), Frame::Malformed);
        let mut p = ipv4(60, 0);
        p.truncate(40); // says 60 bytes, holds 40
        assert_eq!(parse(&eth(ETHERTYPE_IPV4, &p)), Frame::Malformed);
        let mut p = ipv4(40, 0);
        p[0] = 0x65; // version 6 in an IPv4 ethertype
        assert_eq!(parse(&eth(ETHERTYPE_IPV4, &p)), Frame::Malformed);
        assert_eq!(parse(&eth(ETHERTYPE_ARP, &[0; 10])), Frame::Malformed);
    }

    #[test]
    fn other_ethertypes_are_told_by_number() {
        assert_eq!(parse(&eth(0x88cc, &[0; 40])), Frame::Other(0x88cc));
    }

    fn v6(a: &str) -> Ipv6Addr {
        a.parse().expect("an IPv6 address")
    }

    /// An IPv6 header from `src` to `dst` with `payload`, next header `next`, hop limit `hops`.
    fn ipv6(src: &str, dst: &str, next: u8, hops: u8, payload: &[u8]) -> Vec<u8> {
        let mut p = vec![0x60, 0, 0, 0];
        p.extend((payload.len() as u16).to_be_bytes());
        p.extend([next, hops]);
        p.extend(v6(src).octets());
        p.extend(v6(dst).octets());
        p.extend(payload);
        p
    }

    #[test]
    fn an_ipv6_frame_gives_its_addresses_and_its_length() {
        let f = eth(ETHERTYPE_IPV6, &ipv6("fd00:1::2", "fd00:2::2", 6, 64, &[0; 1000]));
        assert_eq!(parse(&f), Frame::Ipv6 { src: v6("fd00:1::2"), dst: v6("fd00:2::2"), len: 1040 });
        let mut short = ipv6("fd00:1::2", "fd00:2::2", 6, 64, &[0; 100]);
        short.truncate(120);
        assert_eq!(parse(&eth(ETHERTYPE_IPV6, &short)), Frame::Malformed);
    }

    #[test]
    fn a_neighbor_solicitation_is_answered_with_the_gateway_mac() {
        // who has fd00:1::1? from fd00:1::2, to its solicited-node address
        let mut ns = vec![NEIGHBOR_SOLICITATION, 0, 0, 0, 0, 0, 0, 0];
        ns.extend(v6("fd00:1::1").octets());
        ns.extend([1, 1]);
        ns.extend(HOST);
        let f = eth(ETHERTYPE_IPV6, &ipv6("fd00:1::2", "ff02::1:ff00:1", ICMPV6, 255, &ns));
        let (asker, target) = (v6("fd00:1::2"), v6("fd00:1::1"));
        assert_eq!(parse(&f), Frame::NeighborSolicitation { sender_mac: HOST, src: asker, target });
        // with another hop limit it is not neighbour discovery
        let g = eth(ETHERTYPE_IPV6, &ipv6("fd00:1::2", "ff02::1:ff00:1", ICMPV6, 64, &ns));
        assert!(matches!(parse(&g), Frame::Ipv6 { .. }));

        let na = neighbor_advertisement(HOST, asker, target, GW);
        assert_eq!((&na[0..6], &na[6..12], &na[12..14]), (&HOST[..], &GW[..], &[0x86, 0xdd][..]));
        let ip = &na[ETH_HLEN..];
        assert_eq!((ip[0], u16::from_be_bytes([ip[4], ip[5]]), ip[6], ip[7]), (0x60, 32, ICMPV6, 255));
        assert_eq!((ip6_at(ip, 8), ip6_at(ip, 24)), (target, asker));
        let m = &ip[IPV6_HLEN..];
        assert_eq!((m[0], m[1], m[4]), (NEIGHBOR_ADVERTISEMENT, 0, 0xe0));
        assert_eq!(ip6_at(m, 8), target);
        assert_eq!((&m[24..26], &m[26..32]), (&[2, 1][..], &GW[..]), "the target's link-layer address");
        // a checksum over a message that carries it sums to zero
        assert_eq!(icmpv6_checksum(target, asker, m), 0);
        assert!(matches!(parse(&na), Frame::Ipv6 { len: 72, .. }), "an advertisement is no solicitation");
    }

    #[test]
    fn ipv6_prefixes_and_their_default_gateways() {
        let p = Prefix6::parse("fd00:1::2/64").expect("valid");
        assert_eq!((p.network(), p.default_gateway()), (v6("fd00:1::"), v6("fd00:1::1")));
        assert_eq!(Prefix6::parse("fd00:1::1/64").expect("valid").default_gateway(), v6("fd00:1::2"));
        assert!(p.contains(v6("fd00:1::99")) && !p.contains(v6("fd00:2::1")));
        assert_eq!(p.to_string(), "fd00:1::2/64");
        assert!(Prefix6::parse("fd00:1::/64").unwrap_err().contains("anycast"));
        assert!(Prefix6::parse("fe80::2/64").unwrap_err().contains("unicast"));
        assert!(Prefix6::parse("fd00:1::2/127").unwrap_err().contains("/126"));
        assert!(Prefix6::parse("10.0.0.1/24").unwrap_err().contains("not an IPv6"));
    }

    /// A TCP header from port 40000 to 5201, seq 1000, ack 77, flags ACK|PSH, with 12 bytes of
    /// options (as Linux's timestamps take), then `payload` bytes.
    fn tcp(payload: usize) -> Vec<u8> {
        let mut t = vec![0x9c, 0x40, 0x14, 0x51, 0, 0, 0x03, 0xe8, 0, 0, 0, 77, 0x80, 0x18, 0, 0, 0, 0, 0, 0];
        t.extend([1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2]);
        t.resize(32 + payload, 0);
        t
    }

    /// An IPv4 packet of protocol `proto` with ECN field `ecn` around `l4`, its header checksum
    /// filled in.
    fn ipv4_with(proto: u8, ecn: u8, l4: &[u8]) -> Vec<u8> {
        let mut p = ipv4(20 + l4.len() as u16, 0);
        (p[1], p[9]) = (ecn, proto);
        p[20..].copy_from_slice(l4);
        let sum = header_sum(&p[..20]);
        p[10..12].copy_from_slice(&(!sum).to_be_bytes());
        p
    }

    /// The ones' complement sum of an IPv4 header: 0xffff when its checksum is right.
    fn header_sum(h: &[u8]) -> u16 {
        let mut sum: u32 = h.chunks(2).map(|c| u32::from(u16::from_be_bytes([c[0], c[1]]))).sum();
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        sum as u16
    }

    #[test]
    fn tcp_and_udp_headers_are_read_for_the_trace() {
        let f = eth(ETHERTYPE_IPV4, &ipv4_with(TCP, 2, &tcp(1448)));
        let want = Headers {
            ecn: 2,
            hlen: 32,
            src_port: 40000,
            dst_port: 5201,
            seq: 1000,
            ack: 77,
            tcp_flags: 0x18,
            payload: 1448,
        };
        assert_eq!(headers(&f, 20 + 32 + 1448), want);
        let f = eth(ETHERTYPE_IPV6, &ipv6("fd00:1::2", "fd00:2::2", TCP, 64, &tcp(0)));
        assert_eq!(headers(&f, 40 + 32), Headers { ecn: 0, payload: 0, ..want });
        let udp = [0x9c, 0x40, 0x14, 0x51, 0, 108, 0, 0];
        let mut dgram = udp.to_vec();
        dgram.resize(108, 0);
        let f = eth(ETHERTYPE_IPV4, &ipv4_with(UDP, 0, &dgram));
        let h = headers(&f, 128);
        assert_eq!((h.hlen, h.src_port, h.dst_port, h.payload, h.seq), (8, 40000, 5201, 100, 0));
        // ICMP, and a TCP header cut short, show as other packets
        assert_eq!(
            headers(&eth(ETHERTYPE_IPV4, &ipv4_with(1, 1, &[8, 0, 0, 0])), 24),
            Headers { ecn: 1, ..Headers::default() }
        );
        assert_eq!(headers(&eth(ETHERTYPE_IPV4, &ipv4_with(TCP, 0, &tcp(0)[..24])), 44).hlen, 0);
    }

    #[test]
    fn ce_is_marked_on_ecn_capable_packets_only_and_the_ipv4_checksum_kept_right() {
        for ect in [1, 2] {
            let mut f = eth(ETHERTYPE_IPV4, &ipv4_with(TCP, ect, &tcp(100)));
            assert_eq!(header_sum(&f[ETH_HLEN..ETH_HLEN + 20]), 0xffff);
            assert!(mark_ce(&mut f));
            assert_eq!(headers(&f, 152).ecn, 3);
            assert_eq!(header_sum(&f[ETH_HLEN..ETH_HLEN + 20]), 0xffff, "ECT({}) -> CE", 2 - ect);
            assert!(mark_ce(&mut f), "already CE: stays so");
            assert_eq!(header_sum(&f[ETH_HLEN..ETH_HLEN + 20]), 0xffff);
        }
        let mut f = eth(ETHERTYPE_IPV4, &ipv4_with(TCP, 0, &tcp(100)));
        let before = f.clone();
        assert!(!mark_ce(&mut f));
        assert_eq!(f, before, "not ECN-capable: untouched");

        let mut p = ipv6("fd00:1::2", "fd00:2::2", TCP, 64, &tcp(0));
        p[1] = 0x20; // traffic class 0x02: ECT(0)
        let mut f = eth(ETHERTYPE_IPV6, &p);
        assert_eq!(headers(&f, 72).ecn, 2);
        assert!(mark_ce(&mut f));
        assert_eq!((headers(&f, 72).ecn, f[ETH_HLEN + 1]), (3, 0x30));
        let mut f = eth(ETHERTYPE_IPV6, &ipv6("fd00:1::2", "fd00:2::2", TCP, 64, &tcp(0)));
        assert!(!mark_ce(&mut f));
    }

    #[test]
    fn an_arp_request_is_answered_with_the_gateway_mac() {
        // who has 10.0.1.1? tell 10.0.1.2
        let mut req = vec![0, 1, 8, 0, 6, 4, 0, 1];
        req.extend(HOST);
        req.extend([10, 0, 1, 2]);
        req.extend([0; 6]);
        req.extend([10, 0, 1, 1]);
        let f = eth(ETHERTYPE_ARP, &req);
        let (asker, target) = (Ipv4Addr::new(10, 0, 1, 2), Ipv4Addr::new(10, 0, 1, 1));
        assert_eq!(parse(&f), Frame::ArpRequest { sender_mac: HOST, sender: asker, target });

        let reply = arp_reply(HOST, asker, target, GW);
        assert_eq!(&reply[0..6], &HOST, "to the asker");
        assert_eq!(&reply[6..12], &GW);
        assert_eq!(&reply[12..14], &[8, 6]);
        assert_eq!(&reply[14..22], &[0, 1, 8, 0, 6, 4, 0, 2], "an IPv4-over-Ethernet reply");
        assert_eq!(&reply[22..28], &GW, "sender: the gateway's MAC");
        assert_eq!(&reply[28..32], &[10, 0, 1, 1], "for the address asked about");
        assert_eq!(&reply[32..38], &HOST);
        assert_eq!(&reply[38..42], &[10, 0, 1, 2]);
        // a reply parses as ARP that is no request
        assert_eq!(parse(&reply), Frame::Other(ETHERTYPE_ARP));
    }

    #[test]
    fn macs_are_rewritten_and_the_rest_kept() {
        let mut f = eth(ETHERTYPE_IPV4, &ipv4(20, 0));
        let before = f[12..].to_vec();
        rewrite_macs(&mut f, GW, HOST);
        assert_eq!((&f[0..6], &f[6..12], &f[12..]), (&GW[..], &HOST[..], &before[..]));
    }

    #[test]
    fn prefixes_and_their_default_gateways() {
        let p = Prefix::parse("10.0.1.2/24").expect("valid");
        assert_eq!((p.network(), p.broadcast()), (Ipv4Addr::new(10, 0, 1, 0), Ipv4Addr::new(10, 0, 1, 255)));
        assert_eq!(p.default_gateway(), Ipv4Addr::new(10, 0, 1, 1));
        assert_eq!(Prefix::parse("10.0.1.1/24").expect("valid").default_gateway(), Ipv4Addr::new(10, 0, 1, 2));
        assert!(p.contains(Ipv4Addr::new(10, 0, 1, 77)) && !p.contains(Ipv4Addr::new(10, 0, 2, 1)));
        assert_eq!(p.to_string(), "10.0.1.2/24");
        assert!(Prefix::parse("10.0.1.2").unwrap_err().contains("prefix length"));
        assert!(Prefix::parse("10.0.1.0/24").unwrap_err().contains("network"));
        assert!(Prefix::parse("10.0.1.2/31").unwrap_err().contains("/30"));
        assert!(Prefix::parse("10.0.1.x/24").unwrap_err().contains("not an IPv4"));
    }
}
