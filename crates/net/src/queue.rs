//! Link queues with ns-2.35's semantics: DropTail and RED (with optional ECN marking), and
//! DropTail with DCTCP's marking threshold.

use crate::packet::{flags, Packet, PacketId};
use crate::random::Draws;
use serde::Serialize;
use tcplab_des::{Ns2Rng, Ring, Time};

#[derive(Debug, Clone, Serialize)]
pub struct QueueConfig {
    /// ns-2 `limit_`.
    pub limit: u32,
    #[serde(flatten)]
    pub kind: QueueKind,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum QueueKind {
    DropTail(DropTailParams),
    Red(RedParams),
}

/// ns-2.35 `Queue/DropTail` variables.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct DropTailParams {
    /// Count the queue in bytes, `limit` × `mean_pktsize` of them (`queue_in_bytes_`).
    pub queue_in_bytes: bool,
    pub mean_pktsize: u32,
    /// DCTCP's marking (RFC 8257 §3.1, K): an ECN-capable arrival that finds at least this
    /// many packets waiting (this many times `mean_pktsize` bytes when the queue counts bytes)
    /// is marked CE, so that with it the queue exceeds K. Not in ns-2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<u32>,
}

/// ns-2.35 `Queue/RED` variables (see ns2-semantics.md §1.3 and §2.8).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RedParams {
    pub bytes: bool,
    pub queue_in_bytes: bool,
    pub mean_pktsize: u32,
    pub thresh: f64,
    pub maxthresh: f64,
    pub q_weight: f64,
    pub linterm: f64,
    pub wait: bool,
    pub gentle: bool,
    pub setbit: bool,
    pub mark_p: f64,
    pub use_mark_p: bool,
    pub drop_tail: bool,
    /// A forced drop (queue full) takes a random waiting packet, not the arriving one
    /// (`drop_rand_`).
    pub drop_rand: bool,
    pub targetdelay: f64,
    /// Keep the count since the last drop after a forced drop (ns-1 behaviour).
    pub ns1_compat: bool,
    /// Adaptive RED (`adaptive_`): every `interval` seconds at most, max_p is multiplied by
    /// `beta` while the average is in the lower 40% of the thresholds' range (down to
    /// `bottom`, 0: min(0.01, 80000/bandwidth)), or raised by min(`alpha`, max_p/4) while
    /// it is in the upper 40% (up to `top`).
    pub adaptive: bool,
    pub alpha: f64,
    pub beta: f64,
    pub interval: f64,
    pub top: f64,
    pub bottom: f64,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            bytes: true,
            queue_in_bytes: true,
            mean_pktsize: 500,
            thresh: 0.0,
            maxthresh: 0.0,
            q_weight: -1.0,
            linterm: 10.0,
            wait: true,
            gentle: true,
            setbit: false,
            mark_p: 0.1,
            use_mark_p: true,
            drop_tail: true,
            drop_rand: false,
            targetdelay: 0.005,
            ns1_compat: false,
            adaptive: false,
            alpha: 0.01,
            beta: 0.9,
            interval: 0.5,
            top: 0.5,
            bottom: 0.0,
        }
    }
}

/// What happened to an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Queued,
    /// The arriving packet was dropped.
    Dropped,
    /// The arriving packet was queued and this waiting one dropped in its place (RED's
    /// `drop_rand_`).
    Displaced(PacketId),
}

/// A FIFO of waiting packets with its byte count.
#[derive(Default)]
struct Fifo {
    packets: Ring<(PacketId, u32)>,
    bytes: u64,
}

impl Fifo {
    fn push(&mut self, id: PacketId, size: u32) {
        self.packets.push_back((id, size));
        self.bytes += size as u64;
    }
    fn pop(&mut self) -> Option<PacketId> {
        let (id, size) = self.packets.pop_front()?;
        self.bytes -= size as u64;
        Some(id)
    }
    fn len(&self) -> usize {
        self.packets.len()
    }
    fn remove(&mut self, index: usize) -> PacketId {
        let (id, size) = self.packets.remove(index);
        self.bytes -= size as u64;
        id
    }
}

pub struct Queue {
    fifo: Fifo,
    limit: u32,
    /// A DropTail queue counted in bytes: its limit in bytes.
    byte_limit: Option<u64>,
    /// An empty queue of this kind lets a packet through an idle link (`passes_through`): a
    /// DropTail queue in packets that would take one (and not mark it).
    may_pass: bool,
    /// What the queue does besides DropTail's, if anything. Boxed: inline, RED's state would
    /// make every `Link` 432 bytes instead of 256, and a packet's hop reads most of its link's
    /// cache lines (S4 2.5% faster boxed); a plain DropTail queue tests one pointer.
    aqm: Option<Box<Aqm>>,
}

#[allow(clippy::large_enum_variant)] // boxed where it is held, `Queue::aqm`
enum Aqm {
    /// DropTail's limit, and CE marks at the threshold (`ecn_threshold`), in the queue's unit.
    Threshold(u64),
    Red(Red),
}

impl Queue {
    /// `bandwidth_bps` and `delay` feed RED's automatic configuration; RED's drop decisions
    /// draw from `draws`.
    pub fn new(cfg: &QueueConfig, bandwidth_bps: u64, delay: Time, draws: Draws) -> Queue {
        let (aqm, byte_limit) = match &cfg.kind {
            QueueKind::DropTail(d) => {
                let unit = if d.queue_in_bytes { d.mean_pktsize as u64 } else { 1 };
                let aqm = d.ecn_threshold.map(|k| Box::new(Aqm::Threshold(k as u64 * unit)));
                (aqm, d.queue_in_bytes.then_some(cfg.limit as u64 * unit))
            }
            QueueKind::Red(p) => (Some(Box::new(Aqm::Red(Red::new(p, bandwidth_bps, delay, draws)))), None),
        };
        // (RED's average must see every packet; a threshold of 0 marks a packet an empty queue
        // takes; a queue in bytes takes a packet by its size)
        let aqm_may_skip = match aqm.as_deref() {
            None => true,
            Some(Aqm::Threshold(k)) => *k > 0,
            Some(Aqm::Red(_)) => false,
        };
        let may_pass = aqm_may_skip && byte_limit.is_none() && cfg.limit > 1;
        Queue { fifo: Fifo::default(), limit: cfg.limit, byte_limit, may_pass, aqm }
    }

    /// Packets waiting (not counting the one being transmitted).
    pub fn len(&self) -> usize {
        self.fifo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fifo.len() == 0
    }

    /// Offers an arriving packet at `now` seconds (ns-2's double clock); RED may set its CE bit
    /// instead of dropping it. `shared` is the run's ns-2 generator, for components that draw
    /// from it.
    #[inline(always)] // once per packet per hop, from `pass_losses` (-1% instructions)
    pub fn enqueue(&mut self, id: PacketId, pkt: &mut Packet, now: f64, shared: &mut Ns2Rng) -> Verdict {
        let accept = match self.aqm.as_deref_mut() {
            None => self.tail_accepts(pkt.size),
            Some(&mut Aqm::Threshold(k)) => {
                let waiting = if self.byte_limit.is_some() { self.fifo.bytes } else { self.fifo.len() as u64 };
                let accept = self.tail_accepts(pkt.size);
                if accept && waiting >= k && pkt.has(flags::ECT) {
                    pkt.flags |= flags::CE;
                }
                accept
            }
            Some(Aqm::Red(red)) => match red.admit(pkt, self.fifo.len(), self.fifo.bytes, self.limit, now, shared) {
                Admit::Queue => true,
                Admit::Drop => false,
                Admit::Force if red.p.drop_rand => {
                    // ns-2 queues the arrival, then drops a packet picked at random
                    self.fifo.push(id, pkt.size);
                    let victim = red.draws.integer(self.fifo.len() as u32, shared) as usize;
                    return match self.fifo.remove(victim) {
                        gone if gone == id => Verdict::Dropped,
                        gone => Verdict::Displaced(gone),
                    };
                }
                Admit::Force => false,
            },
        };
        if accept {
            self.fifo.push(id, pkt.size);
            Verdict::Queued
        } else {
            Verdict::Dropped
        }
    }

    /// ns-2 DropTail: drop when the waiting packets (or bytes) plus this one reach limit_.
    #[inline(always)]
    fn tail_accepts(&self, size: u32) -> bool {
        match self.byte_limit {
            None => self.fifo.len() + 1 < self.limit as usize,
            Some(bytes) => self.fifo.bytes + (size as u64) < bytes,
        }
    }

    /// True if the queue holds more than its limit lets in (the invariant `--check` watches),
    /// just after a packet of `last` bytes joined it. DropTail keeps at most limit - 1 waiting;
    /// RED refuses a packet once the queue reaches its limit, so the last one may pass it.
    pub fn overfull(&self, last: u32) -> bool {
        let (len, limit) = (self.fifo.len(), self.limit as usize);
        match self.aqm.as_deref() {
            None | Some(Aqm::Threshold(_)) => match self.byte_limit {
                None => len >= limit,
                Some(bytes) => self.fifo.bytes >= bytes,
            },
            Some(Aqm::Red(red)) if red.p.queue_in_bytes => {
                (self.fifo.bytes - last as u64) as f64 >= limit as f64 * red.p.mean_pktsize as f64
            }
            Some(Aqm::Red(_)) => len > limit,
        }
    }

    /// True if a packet arriving now would be let in and, the link being idle, leave at once:
    /// an empty DropTail queue (RED's average would see the packet, so RED queues take it).
    pub fn passes_through(&self) -> bool {
        self.may_pass && self.fifo.len() == 0
    }

    pub fn dequeue(&mut self, now: f64) -> Option<PacketId> {
        let id = self.fifo.pop();
        if let Some(Aqm::Red(red)) = self.aqm.as_deref_mut() {
            red.on_dequeue(id.is_some(), now);
        }
        id
    }
}

/// RED's decision on an arrival.
enum Admit {
    Queue,
    /// An early drop: the arriving packet.
    Drop,
    /// A forced drop (the queue full, or the average past the thresholds): the arriving packet,
    /// or with `drop_rand` one drawn from the queue.
    Force,
}

/// Random Early Detection as ns-2.35's `REDQueue` (gentle, wait, byte mode, automatic parameters).
struct Red {
    p: RedParams,
    draws: Draws,
    /// Packets (of mean_pktsize bytes) the link sends per second.
    ptc: f64,
    q_w: f64,
    /// Thresholds in the queue's unit (bytes when queue_in_bytes).
    th_min: f64,
    th_max: f64,
    /// ns-2's `cur_max_p` (changed only by adaptive RED).
    max_p: f64,
    /// The gentle slope's coefficients, fixed at reset from the initial max_p (ns-2's
    /// `v_c`, `v_d`: adaptive RED does not update them).
    v_c: f64,
    v_d: f64,
    /// Adaptive RED: the lower bound of max_p, and when max_p last changed.
    bottom: f64,
    lastset: f64,
    ave: f64,
    count: u64,
    count_bytes: u64,
    /// Whether the previous arrival already found avg above th_min.
    old: bool,
    idle: bool,
    /// When the queue last went empty, on ns-2's double clock (RED's idle decay counts packet
    /// times in it, and the truncation to whole packets must see ns-2's rounding).
    idle_since: f64,
}

impl Red {
    fn new(p: &RedParams, bandwidth_bps: u64, delay: Time, draws: Draws) -> Red {
        let ptc = bandwidth_bps as f64 / (8.0 * p.mean_pktsize as f64);
        // ns-2's automatic weights: 0 (one packet time), -1 (ten RTTs), -2 (ten packet times).
        let q_w = if p.q_weight == -1.0 {
            let rtt = (3.0 * (delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
        } else if p.q_weight == 0.0 {
            1.0 - (-1.0 / ptc).exp()
        } else if p.q_weight == -2.0 {
            1.0 - (-10.0 / ptc).exp()
        } else {
            p.q_weight
        };
        let th_min_pkts = if p.thresh == 0.0 { (p.targetdelay * ptc / 2.0).max(5.0) } else { p.thresh };
        let th_max_pkts = if p.maxthresh == 0.0 { 3.0 * th_min_pkts } else { p.maxthresh };
        let unit = if p.queue_in_bytes { p.mean_pktsize as f64 } else { 1.0 };
        let bottom = if p.bottom == 0.0 { 0.01_f64.min(80000.0 / bandwidth_bps as f64) } else { p.bottom };
        let max_p = 1.0 / p.linterm;
        let th_max = th_max_pkts * unit;
        Red {
            p: p.clone(),
            draws,
            ptc,
            q_w,
            th_min: th_min_pkts * unit,
            th_max,
            max_p,
            v_c: (1.0 - max_p) / th_max,
            v_d: 2.0 * max_p - 1.0,
            bottom,
            lastset: 0.0,
            ave: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle: true,
            idle_since: 0.0,
        }
    }

    fn on_dequeue(&mut self, got_packet: bool, now: f64) {
        if got_packet {
            self.idle = false;
        } else {
            self.idle = true;
            self.idle_since = now;
        }
    }

    /// The drop probability before the count correction (ns-2 `calculate_p_new`), with ns-2's
    /// precomputed coefficients so that the last bits agree.
    fn base_probability(&self) -> f64 {
        let th_diff = if self.th_max == self.th_min { 1.0 } else { self.th_max - self.th_min };
        let (v_a, v_b) = (1.0 / th_diff, -self.th_min / th_diff);
        let p = if self.p.gentle && self.ave >= self.th_max {
            self.v_c * self.ave + self.v_d
        } else if !self.p.gentle && self.ave >= self.th_max {
            1.0
        } else {
            (v_a * self.ave + v_b) * self.max_p
        };
        p.min(1.0)
    }

    /// ns-2 `modify_p`: spreads drops out with the count since the last one.
    fn spread(&self, p: f64, size: u32) -> f64 {
        let mean = self.p.mean_pktsize as u64;
        let count = if self.p.bytes { (self.count_bytes / mean) as f64 } else { self.count as f64 };
        let mut p = if self.p.wait {
            if count * p < 1.0 {
                0.0
            } else if count * p < 2.0 {
                p / (2.0 - count * p)
            } else {
                1.0
            }
        } else if count * p < 1.0 {
            p / (1.0 - count * p)
        } else {
            1.0
        };
        if self.p.bytes && p < 1.0 {
            p = p * size as f64 / mean as f64;
        }
        p.min(1.0)
    }

    /// Adaptive RED's AIMD step on max_p (ns-2 `updateMaxP`), keeping the average near the
    /// middle of the thresholds.
    fn update_max_p(&mut self, now: f64) {
        let part = 0.4 * (self.th_max - self.th_min);
        if self.ave < self.th_min + part && self.max_p > self.bottom {
            self.max_p *= self.p.beta;
            self.lastset = now;
        } else if self.ave > self.th_max - part && self.p.top > self.max_p {
            let alpha = if self.p.alpha > 0.25 * self.max_p { 0.25 * self.max_p } else { self.p.alpha };
            self.max_p += alpha;
            self.lastset = now;
        }
    }

    /// Decides on one arrival (queued possibly CE-marked).
    fn admit(
        &mut self,
        pkt: &mut Packet,
        qlen_pkts: usize,
        qlen_bytes: u64,
        limit: u32,
        now: f64,
        shared: &mut Ns2Rng,
    ) -> Admit {
        let mut m = 0i64;
        if self.idle {
            self.idle = false;
            m = (self.ptc * (now - self.idle_since)) as i64;
        }
        let (qlen, qlim) = if self.p.queue_in_bytes {
            (qlen_bytes as f64, limit as f64 * self.p.mean_pktsize as f64)
        } else {
            (qlen_pkts as f64, limit as f64)
        };
        // avg <- (1-w)^(m+1) avg + w q, with the idle decay applied one factor at a time as ns-2 does.
        for _ in 0..(m + 1) {
            self.ave *= 1.0 - self.q_w;
        }
        self.ave += self.q_w * qlen;
        if self.p.adaptive && now > self.lastset + self.p.interval {
            self.update_max_p(now);
        }

        self.count += 1;
        self.count_bytes += pkt.size as u64;
        let mut forced = false;
        let mut early = false;
        if self.ave >= self.th_min && qlen > 1.0 {
            let over = if self.p.gentle { self.ave >= 2.0 * self.th_max } else { self.ave >= self.th_max };
            if !self.p.use_mark_p && over {
                forced = true;
            } else if !self.old {
                self.count = 1;
                self.count_bytes = pkt.size as u64;
                self.old = true;
            } else {
                let p1 = self.base_probability();
                let p = self.spread(p1, pkt.size);
                if self.draws.uniform(shared) <= p {
                    self.count = 0;
                    self.count_bytes = 0;
                    let mark = self.p.setbit && pkt.has(flags::ECT) && (!self.p.use_mark_p || p1 < self.p.mark_p);
                    if mark {
                        pkt.flags |= flags::CE;
                    } else {
                        early = true;
                    }
                }
            }
        } else {
            self.old = false;
        }
        if qlen >= qlim {
            forced = true;
        }
        if forced && !self.p.ns1_compat {
            self.count = 0;
            self.count_bytes = 0;
        }
        if forced {
            Admit::Force
        } else if early {
            Admit::Drop
        } else {
            Admit::Queue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketPool;
    use tcplab_des::Rng;

    fn own() -> Draws {
        Draws::Own(Rng::stream(1, "q"))
    }

    fn pkt(size: u32) -> Packet {
        Packet { size, ..crate::testing::packet() }
    }

    #[test]
    fn droptail_keeps_limit_minus_one_waiting() {
        let cfg = QueueConfig { limit: 15, kind: QueueKind::DropTail(DropTailParams::default()) };
        let mut q = Queue::new(&cfg, 1_000_000, Time::ZERO, own());
        let mut pool = PacketPool::default();
        let verdicts: Vec<Verdict> = (0..16)
            .map(|_| {
                let mut p = pkt(1000);
                let id = pool.alloc(p);
                q.enqueue(id, &mut p, 0.0, &mut Ns2Rng::seeded(1))
            })
            .collect();
        assert!(verdicts[..14].iter().all(|v| *v == Verdict::Queued));
        assert_eq!(&verdicts[14..], &[Verdict::Dropped, Verdict::Dropped]);
        assert_eq!(q.len(), 14);
    }

    /// DCTCP's marking, K = 3 in a DropTail queue of limit 10 with nothing leaving: the 4th
    /// ECN-capable arrival and later ones find 3 or more waiting and are marked CE, so that the
    /// queue exceeds K; a packet that is not ECN-capable is queued unmarked; the 10th arrival
    /// finds 9 waiting and is dropped (limit - 1 waiting, as DropTail). In bytes (mean_pktsize
    /// 500, so K = 1500 bytes) with 1000-byte packets, the 3rd arrival finds 2000 bytes: marked.
    #[test]
    fn droptail_ecn_threshold_marks_ect_arrivals_from_k_waiting() {
        let mut pool = PacketPool::default();
        let run = |params: DropTailParams, arrivals: &[u8], pool: &mut PacketPool| -> Vec<(Verdict, bool)> {
            let mut q =
                Queue::new(&QueueConfig { limit: 10, kind: QueueKind::DropTail(params) }, 1_000_000, Time::ZERO, own());
            arrivals
                .iter()
                .map(|&f| {
                    let mut p = Packet { flags: f, ..pkt(1000) };
                    let id = pool.alloc(p);
                    let v = q.enqueue(id, &mut p, 0.0, &mut Ns2Rng::seeded(1));
                    (v, p.has(flags::CE))
                })
                .collect()
        };
        let k3 = DropTailParams { ecn_threshold: Some(3), ..DropTailParams::default() };
        let arrivals = [flags::ECT, flags::ECT, flags::ECT, flags::ECT, 0, flags::ECT, 0, 0, 0, flags::ECT];
        let got = run(k3, &arrivals, &mut pool);
        let q = Verdict::Queued;
        let expected = [(q, false), (q, false), (q, false), (q, true), (q, false), (q, true)]
            .into_iter()
            .chain([(q, false), (q, false), (q, false), (Verdict::Dropped, false)])
            .collect::<Vec<_>>();
        assert_eq!(got, expected);
        let bytes = DropTailParams { queue_in_bytes: true, mean_pktsize: 500, ecn_threshold: Some(3) };
        let marks: Vec<bool> = run(bytes, &[flags::ECT; 4], &mut pool).into_iter().map(|(_, ce)| ce).collect();
        assert_eq!(marks, vec![false, false, true, true]);
    }

    /// Why DCTCP's threshold is a field of its own: ns-2's RED set up as ns-3's DCTCP example
    /// sets RED (thresh = maxthresh = K = 3, q_weight 1, not gentle, marking with a mark_p of
    /// 2) lets the 4th ECN-capable arrival, the first to find K waiting, through unmarked (the
    /// first above th_min only starts the count, ns-2's `old`), marks from the 5th, and drops
    /// an arrival that is not ECN-capable. The threshold marks from the 4th and queues the other.
    #[test]
    fn ns2_red_at_min_equals_max_is_not_dctcp_marking() {
        let red = RedParams {
            bytes: false,
            queue_in_bytes: false,
            thresh: 3.0,
            maxthresh: 3.0,
            q_weight: 1.0,
            gentle: false,
            setbit: true,
            mark_p: 2.0,
            ..RedParams::default()
        };
        let threshold = DropTailParams { ecn_threshold: Some(3), ..DropTailParams::default() };
        let mut pool = PacketPool::default();
        let mut outcomes = |kind: QueueKind| -> Vec<(Verdict, bool)> {
            let mut q = Queue::new(&QueueConfig { limit: 10, kind }, 1_000_000, Time::ZERO, own());
            let arrivals = [flags::ECT, flags::ECT, flags::ECT, flags::ECT, flags::ECT, 0];
            arrivals
                .iter()
                .map(|&f| {
                    let mut p = Packet { flags: f, ..pkt(1000) };
                    let id = pool.alloc(p);
                    (q.enqueue(id, &mut p, 0.0, &mut Ns2Rng::seeded(1)), p.has(flags::CE))
                })
                .collect()
        };
        let (q, marked, unmarked) = (Verdict::Queued, (Verdict::Queued, true), (Verdict::Queued, false));
        assert_eq!(
            outcomes(QueueKind::Red(red)),
            vec![unmarked, unmarked, unmarked, unmarked, marked, (Verdict::Dropped, false)]
        );
        assert_eq!(
            outcomes(QueueKind::DropTail(threshold)),
            vec![unmarked, unmarked, unmarked, marked, marked, (q, false)]
        );
    }

    /// K = 0 marks every ECN-capable packet, the first into an empty queue too, so none may
    /// skip the queue; K = 1 lets the first pass an idle link unmarked, as enqueueing would.
    #[test]
    fn droptail_ecn_threshold_zero_marks_even_an_empty_queues_arrival() {
        let droptail = |k| {
            let params = DropTailParams { ecn_threshold: Some(k), ..DropTailParams::default() };
            Queue::new(&QueueConfig { limit: 10, kind: QueueKind::DropTail(params) }, 1_000_000, Time::ZERO, own())
        };
        let (mut q, mut p) = (droptail(0), Packet { flags: flags::ECT, ..pkt(1000) });
        assert!(!q.passes_through());
        let id = PacketPool::default().alloc(p);
        q.enqueue(id, &mut p, 0.0, &mut Ns2Rng::seeded(1));
        assert!(p.has(flags::CE));
        assert!(droptail(1).passes_through());
    }

    #[test]
    fn droptail_limit_one_drops_everything() {
        let cfg = QueueConfig { limit: 1, kind: QueueKind::DropTail(DropTailParams::default()) };
        let mut q = Queue::new(&cfg, 1_000_000, Time::ZERO, own());
        let mut p = pkt(40);
        let id = PacketPool::default().alloc(p);
        assert_eq!(q.enqueue(id, &mut p, 0.0, &mut Ns2Rng::seeded(1)), Verdict::Dropped);
    }

    /// A packet may skip the queue exactly when enqueueing it would accept it and leave it
    /// alone in an otherwise empty DropTail queue.
    #[test]
    fn only_an_empty_droptail_queue_that_would_take_a_packet_lets_it_pass() {
        let mut pool = PacketPool::default();
        let droptail = |limit| {
            Queue::new(
                &QueueConfig { limit, kind: QueueKind::DropTail(DropTailParams::default()) },
                1_000_000,
                Time::ZERO,
                own(),
            )
        };
        for limit in [1, 2, 15] {
            let (mut q, mut p) = (droptail(limit), pkt(1000));
            let passes = q.passes_through();
            let id = pool.alloc(p);
            let taken = q.enqueue(id, &mut p, 0.0, &mut Ns2Rng::seeded(1)) == Verdict::Queued;
            assert_eq!(passes, taken && q.len() == 1, "limit {limit}");
            assert!(!q.passes_through(), "a packet waits");
        }
        let red = Queue::new(
            &QueueConfig { limit: 15, kind: QueueKind::Red(RedParams::default()) },
            1_000_000,
            Time::ZERO,
            own(),
        );
        assert!(!red.passes_through(), "RED's average must see every packet");
    }

    /// RED in packets with thresholds above the limit (5 < 15 < limit 4): nothing drops early,
    /// so the 5th arrival is a forced drop. With drop_rand_ ns-2 queues it and drops waiting
    /// packet Random::integer(5) instead; a victim other than the arrival is Displaced, and
    /// the queue stays at its 4 in order.
    #[test]
    fn red_drop_rand_drops_a_random_waiting_packet_when_full() {
        let red = RedParams {
            bytes: false,
            queue_in_bytes: false,
            thresh: 5.0,
            maxthresh: 15.0,
            drop_rand: true,
            ..RedParams::default()
        };
        let mut pool = PacketPool::default();
        let mut shared = Ns2Rng::seeded(1);
        let mut expected = shared.clone();
        let victim = expected.integer(5) as usize;
        let mut q =
            Queue::new(&QueueConfig { limit: 4, kind: QueueKind::Red(red) }, 1_000_000, Time::ZERO, Draws::Shared);
        let (mut ids, mut verdicts) = (vec![], vec![]);
        for _ in 0..5 {
            let mut p = pkt(1000);
            let id = pool.alloc(p);
            verdicts.push(q.enqueue(id, &mut p, 0.0, &mut shared));
            ids.push(id);
        }
        assert_eq!(&verdicts[..4], &[Verdict::Queued; 4]);
        let dropped = if victim == 4 { Verdict::Dropped } else { Verdict::Displaced(ids[victim]) };
        assert_eq!(verdicts[4], dropped, "victim {victim}");
        let mut left: Vec<PacketId> = ids.clone();
        left.remove(victim);
        assert_eq!(std::iter::from_fn(|| q.dequeue(0.0)).collect::<Vec<_>>(), left);
    }

    /// The automatic parameters ns-2.35 prints for two links (ns2-semantics.md §1.3, verified).
    #[test]
    fn red_automatic_parameters_match_ns2() {
        let r = Red::new(&RedParams::default(), 1_500_000, Time::from_millis(20), own());
        assert_eq!((r.th_min / 500.0, r.th_max / 500.0), (5.0, 15.0));
        assert!((r.q_w - 0.0026631).abs() < 5e-8, "{}", r.q_w);
        let r = Red::new(&RedParams::default(), 10_000_000, Time::from_millis(2), own());
        assert_eq!((r.th_min / 500.0, r.th_max / 500.0), (6.25, 18.75));
        assert!((r.q_w - 0.00039992).abs() < 5e-9, "{}", r.q_w);
    }

    /// Adaptive RED (red.cc `updateMaxP`): net2b of test-suite-tcpHighspeed.tcl, 30 Mb/s in
    /// packet mode with automatic thresholds (18.75 and 56.25 packets) and weight. On an
    /// arrival after `interval_` (0.5 s) since the last change, an average in the lower 40%
    /// multiplies max_p by beta_ 0.9 (down to bottom_, automatically 80000/30e6), one in the
    /// upper 40% adds min(alpha_ 0.01, max_p/4) (up to top_ 0.5); in between nothing changes.
    #[test]
    fn adaptive_red_moves_max_p_toward_the_target_band() {
        let params =
            RedParams { adaptive: true, bytes: false, queue_in_bytes: false, q_weight: 0.0, ..RedParams::default() };
        let mut r = Red::new(&params, 30_000_000, Time::from_millis(30), own());
        assert_eq!((r.th_min, r.th_max, r.bottom), (18.75, 56.25, 80000.0 / 30e6));
        let mut shared = Ns2Rng::seeded(1);
        let mut arrive = |r: &mut Red, qlen: usize, now: f64| {
            r.idle = false;
            r.admit(&mut pkt(1000), qlen, 0, 200, now, &mut shared);
        };
        arrive(&mut r, 0, 0.4);
        assert_eq!(r.max_p, 0.1, "not before interval_");
        arrive(&mut r, 0, 0.6);
        assert_eq!((r.max_p, r.lastset), (0.1 * 0.9, 0.6));
        arrive(&mut r, 0, 1.0);
        assert_eq!(r.max_p, 0.1 * 0.9, "interval_ since the last change");
        // an average in the upper band: the weight is 1 - exp(-1/7500), so set it directly
        r.ave = 50.0;
        arrive(&mut r, 180, 1.2);
        assert_eq!(r.max_p, 0.1 * 0.9 + 0.01);
        // the gentle slope's coefficients keep the initial max_p
        assert_eq!((r.v_c, r.v_d), ((1.0 - 0.1) / 56.25, 2.0 * 0.1 - 1.0));
        // down to bottom_ and no further
        let mut r = Red::new(&RedParams { bottom: 0.05, ..params }, 30_000_000, Time::from_millis(30), own());
        for i in 1..20 {
            arrive(&mut r, 0, i as f64);
        }
        assert_eq!(r.max_p, 0.1 * 0.9 * 0.9 * 0.9 * 0.9 * 0.9 * 0.9 * 0.9);
    }

    #[test]
    fn red_byte_mode_hard_limit_is_limit_times_500_bytes() {
        let cfg = QueueConfig {
            limit: 5,
            kind: QueueKind::Red(RedParams { thresh: 1000.0, maxthresh: 2000.0, ..RedParams::default() }),
        };
        let mut q = Queue::new(&cfg, 1_000_000, Time::ZERO, own());
        let mut pool = PacketPool::default();
        let mut queued = 0;
        for _ in 0..10 {
            let mut p = pkt(1000);
            let id = pool.alloc(p);
            if q.enqueue(id, &mut p, 0.0, &mut Ns2Rng::seeded(1)) == Verdict::Queued {
                queued += 1;
            }
        }
        // 2500 bytes: arrivals are accepted while fewer than 2500 bytes wait.
        assert_eq!(queued, 3);
    }

    #[test]
    fn red_marks_ect_packets_instead_of_dropping_when_setbit() {
        let params = RedParams {
            setbit: true,
            thresh: 1.0,
            maxthresh: 3.0,
            q_weight: 1.0,
            queue_in_bytes: false,
            bytes: false,
            ..RedParams::default()
        };
        let cfg = QueueConfig { limit: 1000, kind: QueueKind::Red(params) };
        let mut q = Queue::new(&cfg, 1_000_000, Time::ZERO, own());
        let mut pool = PacketPool::default();
        let (mut marked, mut dropped) = (0, 0);
        for _ in 0..200 {
            let mut p = pkt(1000);
            p.flags = flags::ECT;
            let id = pool.alloc(p);
            match q.enqueue(id, &mut p, 0.0, &mut Ns2Rng::seeded(1)) {
                Verdict::Queued if p.has(flags::CE) => marked += 1,
                Verdict::Queued => {}
                Verdict::Dropped | Verdict::Displaced(_) => dropped += 1,
            }
            if q.len() > 2 {
                q.dequeue(0.0);
            }
        }
        assert!(marked > 0, "ECT packets get CE marks");
        assert_eq!(dropped, 0, "below the hard limit and with p < mark_p nothing is dropped");
    }
}
