//! Always-on counters and the run summary computed from them.

use crate::ids::NodeId;
use serde::Serialize;
use tcplab_des::Time;

/// Per-flow counters. "Data" packets are the sender's (TCP segments incl. the SYN, or CBR).
#[derive(Default, Debug)]
pub struct FlowStats {
    pub data_sent: u64,
    pub data_bytes_sent: u64,
    pub data_retransmitted: u64,
    pub data_dropped: u64,
    /// Data packets that reached the receiving agent (duplicates included).
    pub data_delivered: u64,
    /// Wire bytes of those packets.
    pub data_bytes_delivered: u64,
    /// New application bytes handed to the receiver's application, in order.
    pub goodput_bytes: u64,
    /// One-way delay of every delivered data packet.
    pub delays: Delays,
    pub acks_sent: u64,
    pub acks_dropped: u64,
    pub acks_delivered: u64,
    /// The TCP sender's RTT samples, as its estimator takes them: their sum (s) and count.
    pub rtt_sum: f64,
    pub rtt_samples: u64,
}

impl FlowStats {
    pub fn on_rtt_sample(&mut self, rtt: f64) {
        self.rtt_sum += rtt;
        self.rtt_samples += 1;
    }

    pub fn on_data_sent(&mut self, size: u32) {
        self.data_sent += 1;
        self.data_bytes_sent += size as u64;
    }

    pub fn on_data_delivered(&mut self, size: u32, delay: Time) {
        self.data_delivered += 1;
        self.data_bytes_delivered += size as u64;
        self.delays.push(delay);
    }
}

/// The counters every hop bumps come first (`Link` keeps them near its hot fields).
#[derive(Default, Debug)]
#[repr(C)]
pub struct LinkStats {
    pub arrivals: u64,
    pub departures: u64,
    /// Packets that reached the far end.
    pub received: u64,
    pub busy_time: Time,
    pub queue_max: usize,
    pub drops: u64,
    /// Integral of the number of waiting packets over time, in packet-picoseconds.
    queue_area: u128,
    last_change: Time,
    waiting: usize,
}

impl LinkStats {
    /// Records that the waiting count changed from `before` to `after` at `now`.
    pub fn queue_changed(&mut self, now: Time, before: usize, after: usize) {
        self.queue_area += before as u128 * (now - self.last_change).ps() as u128;
        self.last_change = now;
        self.waiting = after;
        self.queue_max = self.queue_max.max(after);
    }

    /// Records a packet that joined the empty queue and left it at once: the queue held one
    /// packet for no time, which adds nothing to its integral.
    pub fn passed_through(&mut self) {
        debug_assert_eq!(self.waiting, 0, "only an empty queue passes packets through");
        self.queue_max = self.queue_max.max(1);
    }

    /// The integral of the number of waiting packets from the start to `now`, in
    /// packet-seconds: the mean queue over an interval is the difference over its length.
    pub fn queue_integral(&self, now: Time) -> f64 {
        let area = self.queue_area + self.waiting as u128 * now.saturating_sub(self.last_change).ps() as u128;
        area as f64 * 1e-12
    }

    pub fn queue_mean(&self, duration: Time) -> f64 {
        if duration == Time::ZERO {
            0.0
        } else {
            self.queue_area as f64 / duration.ps() as f64
        }
    }
}

#[derive(Serialize, Debug, Clone)]
pub struct Summary {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub jain_fairness: f64,
    pub flows: Vec<FlowSummary>,
    pub links: Vec<LinkSummary>,
    /// The radios of the wireless LANs, if any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub radios: Vec<RadioSummary>,
    /// The handovers of the mobile nodes, if any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub handovers: Vec<Handover>,
}

#[derive(Serialize, Debug, Clone)]
pub struct FlowSummary {
    pub name: String,
    pub protocol: String,
    /// The TCP profile (none for UDP).
    pub profile: Option<&'static str>,
    pub from: String,
    pub to: String,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    pub delay_mean_s: f64,
    pub delay_p50_s: f64,
    pub delay_p95_s: f64,
    pub delay_p99_s: f64,
    pub delay_max_s: f64,
    /// Mean of the TCP sender's RTT samples (0 without any: UDP, or no ACK timed).
    pub rtt_mean_s: f64,
    pub packets_sent: u64,
    pub packets_delivered: u64,
    pub packets_dropped: u64,
    pub packets_retransmitted: u64,
    pub packets_in_flight: u64,
    pub efficiency: f64,
    /// ACKs the receiver sent.
    pub acks_sent: u64,
}

#[derive(Serialize, Debug, Clone)]
pub struct LinkSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    pub queue_mean_pkts: f64,
    pub queue_max_pkts: u64,
    pub utilization: f64,
}

/// One radio's MAC counters.
#[derive(Serialize, Debug, Clone)]
pub struct RadioSummary {
    pub wlan: String,
    pub node: String,
    #[serde(flatten)]
    pub mac: MacStats,
}

/// Every delivered data packet's one-way delay, exact to the picosecond, in 4 bytes: delays are
/// grouped by their high 32 bits (spans of 4.3 ms), and a group keeps their low 32 bits. A
/// flow's consecutive delays are close, so most go to the group the one before went to.
#[derive(Default, Debug)]
pub struct Delays {
    /// (high bits, the low bits of each delay with them), in the order of the high bits.
    groups: Vec<(u32, Vec<u32>)>,
    /// The group the last delay went to.
    last: usize,
    count: u64,
    sum_ps: u128,
}

impl Delays {
    pub fn push(&mut self, delay: Time) {
        let ps = delay.ps();
        self.count += 1;
        self.sum_ps += ps as u128;
        let (high, low) = ((ps >> 32) as u32, ps as u32);
        match self.groups.get_mut(self.last) {
            Some((h, lows)) if *h == high => lows.push(low),
            _ => self.push_to_another_group(high, low),
        }
    }

    /// Found by bisection: a flow whose delays wander over seconds meets hundreds of groups.
    #[cold]
    fn push_to_another_group(&mut self, high: u32, low: u32) {
        self.last = match self.groups.binary_search_by_key(&high, |&(h, _)| h) {
            Ok(i) => i,
            Err(i) => {
                self.groups.insert(i, (high, Vec::new()));
                i
            }
        };
        self.groups[self.last].1.push(low);
    }

    /// Mean, p50, p95, p99 and max in seconds, the percentiles by nearest rank; zeros when
    /// there are none. Each percentile is found by selection within its group, not by a sort.
    pub fn stats(&mut self) -> [f64; 5] {
        if self.count == 0 {
            return [0.0; 5];
        }
        let mean = self.sum_ps as f64 / self.count as f64 / Time::PS_PER_SEC as f64;
        let (mut group, mut before) = (0, 0);
        let [p50, p95, p99, max] = [0.5, 0.95, 0.99, 1.0].map(|p| {
            let rank = nearest_rank(p, self.count); // ascending, so the walk goes forward
            while before + self.groups[group].1.len() as u64 <= rank {
                before += self.groups[group].1.len() as u64;
                group += 1;
            }
            let (high, lows) = &mut self.groups[group];
            let low = *lows.select_nth_unstable((rank - before) as usize).1;
            Time::from_ps((*high as u64) << 32 | low as u64).as_secs_f64()
        });
        [mean, p50, p95, p99, max]
    }
}

/// The 0-based index of the `p` percentile (0 < p <= 1) among `n` sorted values, by nearest rank.
fn nearest_rank(p: f64, n: u64) -> u64 {
    ((p * n as f64).ceil() as u64).clamp(1, n) - 1
}

/// Jain's fairness index (Σx)²/(n·Σx²); 1 for a single flow or when nobody got anything.
pub fn jain(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || sum_sq == 0.0 {
        1.0
    } else {
        sum * sum / (xs.len() as f64 * sum_sq)
    }
}

/// A TCP sender's state at one instant, for the sampled time series (`output.interval`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TcpState {
    /// Congestion window and slow-start threshold, in segments.
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Smoothed RTT in seconds (0 before the first sample).
    pub srtt: f64,
    /// Segments sent and not yet acknowledged.
    pub in_flight: f64,
    /// The pacer's rate in segments per second (0 when not paced).
    pub pacing_rate: f64,
}

/// Per-radio counters.
#[derive(Debug, Default, Clone, Serialize)]
pub struct MacStats {
    pub rts: u64,
    pub cts: u64,
    pub data: u64,
    pub acks: u64,
    /// Data frames sent again after a missing CTS or ACK.
    pub retries: u64,
    /// Packets given up after the retry limit, or refused by a full interface queue.
    pub retry_drops: u64,
    pub queue_drops: u64,
    /// Frames lost to an overlapping frame at this receiver.
    pub collisions: u64,
}

/// One handover: its timeline (absolute times, s) and what it did to the flows towards the MN.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Handover {
    pub node: String,
    pub from: Option<String>,
    pub to: String,
    #[serde(skip)]
    pub(crate) from_ap: Option<NodeId>,
    #[serde(skip)]
    pub(crate) to_ap: NodeId,
    /// The link to the old access point was found lost.
    pub link_lost_s: f64,
    /// Associated with the new access point.
    pub l2_done_s: f64,
    /// The new router's advertisement arrived.
    pub movement_detected_s: f64,
    pub dad_done_s: f64,
    /// The anchor that redirects the MN's traffic installed the new binding.
    pub binding_s: f64,
    /// The last binding acknowledgement reached the MN.
    pub complete_s: f64,
    /// Binding updates sent (retransmissions included).
    pub binding_updates: u32,
    pub flows: Vec<HandoverFlow>,
}

/// A handover's effect on one flow towards the MN (see docs/mobility.md).
#[derive(Debug, Clone, Serialize, Default)]
pub struct HandoverFlow {
    pub flow: String,
    /// Last data delivered through the old access point, first through the new one.
    pub last_old_s: Option<f64>,
    pub first_new_s: Option<f64>,
    pub disruption_s: Option<f64>,
    /// The disruption in parts: last delivery → link loss, L2 handoff, movement detection,
    /// DAD, binding, binding → first delivery. They add up to the disruption.
    pub parts_s: Option<[f64; 6]>,
    /// Data packets of the flow lost between the two deliveries.
    pub packets_lost: u64,
    /// From the last old delivery until the goodput over the past second is back at 90% of its
    /// mean over the 5 s before; None if it never is.
    pub recovery_s: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Delays spread over several groups (met in any order, and added to after a first
    /// `stats`) give the statistics of the whole set, sorted: nearest-rank percentiles and the
    /// exact mean.
    #[test]
    fn delay_stats_are_exact_across_groups() {
        let mut rng = tcplab_des::Rng::stream(1, "delays");
        let mut next = || rng.next_u64();
        let group = 1u64 << 32; // 4.3 ms
                                // clusters of 1 us: inside one group, astride a group boundary, and seconds away
        let clusters = [3 * group / 2, 2 * group - 500_000, 5 * group + 123_456, 2_000 * group, 3_000_000 * group];
        for n in [1u64, 2, 3, 100, 1001] {
            let mut delays = Delays::default();
            let mut all = Vec::new();
            for round in 0..2 {
                for _ in 0..n {
                    let ps = clusters[(next() % clusters.len() as u64) as usize] + next() % 1_000_000;
                    delays.push(Time::from_ps(ps));
                    all.push(ps);
                }
                all.sort_unstable();
                let k = all.len() as u64;
                let at = |p: f64| Time::from_ps(all[nearest_rank(p, k) as usize]).as_secs_f64();
                let mean = all.iter().map(|&d| d as u128).sum::<u128>() as f64 / k as f64 / 1e12;
                assert_eq!(delays.stats(), [mean, at(0.5), at(0.95), at(0.99), at(1.0)], "{n} delays, round {round}");
            }
        }
        assert_eq!(Delays::default().stats(), [0.0; 5]);
    }

    #[test]
    fn nearest_rank_of_percentiles() {
        assert_eq!([0.5, 0.95, 0.99, 1.0].map(|p| nearest_rank(p, 100)), [49, 94, 98, 99]);
        assert_eq!([0.5, 0.99].map(|p| nearest_rank(p, 1)), [0, 0]);
    }

    #[test]
    fn jain_index_bounds() {
        assert_eq!(jain(&[5.0, 5.0, 5.0]), 1.0);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert_eq!(jain(&[0.0, 0.0]), 1.0);
    }

    #[test]
    fn queue_mean_is_time_weighted() {
        let mut s = LinkStats::default();
        s.queue_changed(Time::from_secs(0), 0, 2);
        s.queue_changed(Time::from_secs(1), 2, 0);
        s.queue_changed(Time::from_secs(4), 0, 0);
        assert_eq!(s.queue_mean(Time::from_secs(4)), 0.5);
        assert_eq!(s.queue_max, 2);
    }
}

/// Per-interval samples of every flow's delivery and every link's queue (`output.interval`).
/// Rows are long-form (one per time and flow, or time and link), ready for a DataFrame.
#[derive(Debug)]
pub struct Sampler {
    interval: Time,
    next: Time,
    /// Each flow's counters at the previous sample: goodput bytes, wire bytes delivered.
    last: Vec<(u64, u64)>,
    /// Each link direction's busy time at the previous sample.
    last_busy: Vec<Time>,
    flow_names: Vec<String>,
    link_names: Vec<String>,
    /// The flows and link directions sampled (`output.trace_flows`, `output.trace_links`).
    traced_flows: Vec<bool>,
    traced_links: Vec<bool>,
    pub flows: FlowSeries,
    pub links: LinkSeries,
    pub tcp: TcpSeries,
}

/// Every TCP sender's state at each sample time.
#[derive(Serialize, Debug, Default)]
pub struct TcpSeries {
    pub time: Vec<f64>,
    pub flow: Vec<String>,
    /// Segments.
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
    pub srtt_s: Vec<f64>,
    /// Segments sent, not yet acknowledged.
    pub in_flight: Vec<f64>,
    /// Segments per second; 0 when the flow is not paced.
    pub pacing_rate: Vec<f64>,
}

#[derive(Serialize, Debug, Default)]
pub struct FlowSeries {
    pub time: Vec<f64>,
    pub flow: Vec<String>,
    /// Over the interval that ends at `time`.
    pub goodput_bps: Vec<f64>,
    pub throughput_bps: Vec<f64>,
    /// In-order application bytes delivered since the start (cumulative goodput).
    pub delivered_bytes: Vec<u64>,
}

#[derive(Serialize, Debug, Default)]
pub struct LinkSeries {
    pub time: Vec<f64>,
    /// "from->to", as in the summary.
    pub link: Vec<String>,
    /// Packets waiting at `time` (not counting the one being transmitted).
    pub queue_pkts: Vec<u32>,
    /// Packets on the wire at `time` (sent, not yet arrived).
    pub in_flight_pkts: Vec<u32>,
    /// Share of the interval the link spent transmitting.
    pub utilization: Vec<f64>,
}

/// A link direction as the sampler sees it.
pub struct LinkSample {
    pub queue: usize,
    pub on_wire: usize,
    /// Transmission time started so far.
    pub busy: Time,
}

impl Sampler {
    pub fn new(
        interval: Time,
        flow_names: Vec<String>,
        link_names: Vec<String>,
        traced_flows: Vec<bool>,
        traced_links: Vec<bool>,
    ) -> Sampler {
        let last = vec![(0, 0); flow_names.len()];
        let last_busy = vec![Time::ZERO; link_names.len()];
        Sampler {
            interval,
            next: interval,
            last,
            last_busy,
            flow_names,
            link_names,
            traced_flows,
            traced_links,
            flows: FlowSeries::default(),
            links: LinkSeries::default(),
            tcp: TcpSeries::default(),
        }
    }

    /// The next sample time, if it is at or before `until`.
    pub fn due(&self, until: Time) -> Option<Time> {
        (self.next <= until).then_some(self.next)
    }

    /// Records the sample due now from the flows' counters, the links' queue lengths and the TCP
    /// senders' states (flow index, state).
    pub fn record(
        &mut self,
        stats: &[FlowStats],
        links: impl Iterator<Item = LinkSample>,
        tcp: impl Iterator<Item = (usize, TcpState)>,
    ) {
        let t = self.next.as_secs_f64();
        let per_second = 8.0 / self.interval.as_secs_f64();
        for (((s, last), name), _) in
            stats.iter().zip(self.last.iter_mut()).zip(&self.flow_names).zip(&self.traced_flows).filter(|(_, &on)| on)
        {
            self.flows.time.push(t);
            self.flows.flow.push(name.clone());
            self.flows.goodput_bps.push((s.goodput_bytes - last.0) as f64 * per_second);
            self.flows.throughput_bps.push((s.data_bytes_delivered - last.1) as f64 * per_second);
            self.flows.delivered_bytes.push(s.goodput_bytes);
            *last = (s.goodput_bytes, s.data_bytes_delivered);
        }
        for (((l, name), last), _) in
            links.zip(&self.link_names).zip(self.last_busy.iter_mut()).zip(&self.traced_links).filter(|(_, &on)| on)
        {
            self.links.time.push(t);
            self.links.link.push(name.clone());
            self.links.queue_pkts.push(l.queue as u32);
            self.links.in_flight_pkts.push(l.on_wire as u32);
            // a transmission counts whole when it starts, so an interval can show a little over 1
            let busy = (l.busy - *last).as_secs_f64() / self.interval.as_secs_f64();
            self.links.utilization.push(busy.min(1.0));
            *last = l.busy;
        }
        for (flow, s) in tcp.filter(|&(flow, _)| self.traced_flows[flow]) {
            let series = &mut self.tcp;
            series.time.push(t);
            series.flow.push(self.flow_names[flow].clone());
            series.cwnd.push(s.cwnd);
            series.ssthresh.push(s.ssthresh);
            series.srtt_s.push(s.srtt);
            series.in_flight.push(s.in_flight);
            series.pacing_rate.push(s.pacing_rate);
        }
        self.next += self.interval;
    }
}
