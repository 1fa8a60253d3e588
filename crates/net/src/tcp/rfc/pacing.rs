//! Linux's default pacing, for a controller that sets no rate of its own: the rate of
//! `tcp_update_pacing_rate` and the earliest departure time that `tcp_update_skb_after_send`
//! gives each segment.
//!
//! The rate is MSS x max(cwnd, packets out) / SRTT, times 200% while cwnd < ssthresh/2 (slow
//! start, so that the pacing does not hold back the window's growth) and 120% after
//! (`tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio`), within `sk_max_pacing_rate`; none before an
//! RTT sample. Each segment leaves no earlier than the previous one's departure plus its wire
//! length / rate. The first ten data segments go unpaced (as sch_fq did), and a sender late by
//! some time gets up to half a segment's gap back (Linux's allowance for OS jitter).
//!
//! Linux computes the rate always but enforces it only when the controller asks (BBR) or the
//! fq qdisc does: a Reno or CUBIC flow over the default fq_codel is not paced. The token-bucket
//! pacer in tcplab_cc (Yew's packet spacing) is another mechanism and stays.

#[derive(Debug, Clone)]
pub struct LinuxPacing {
    /// The rate's multiple of cwnd/SRTT in slow start (cwnd < ssthresh/2), and after.
    pub ss_ratio: f64,
    pub ca_ratio: f64,
    /// `sk_max_pacing_rate`, bytes per second.
    pub max_rate: f64,
    /// Data segments sent before pacing starts.
    pub unpaced_segments: u64,
    /// When the next segment may leave (`tcp_wstamp_ns`).
    next_departure: f64,
    /// Data segments sent, new or retransmitted (`data_segs_out`).
    segments_out: u64,
}

impl Default for LinuxPacing {
    fn default() -> Self {
        LinuxPacing {
            ss_ratio: 2.0,
            ca_ratio: 1.2,
            max_rate: f64::INFINITY,
            unpaced_segments: 10,
            next_departure: 0.0,
            segments_out: 0,
        }
    }
}

impl LinuxPacing {
    /// The pacing rate in bytes per second for segments of `mss` bytes, windows in segments
    /// and `srtt` in seconds (None before the first RTT sample: no pacing).
    pub fn rate(&self, mss: u32, cwnd: f64, packets_out: u64, ssthresh: f64, srtt: Option<f64>) -> Option<f64> {
        let srtt = srtt.filter(|&s| s > 0.0)?;
        let ratio = if cwnd < ssthresh / 2.0 { self.ss_ratio } else { self.ca_ratio };
        let rate = mss as f64 * cwnd.max(packets_out as f64) / srtt * ratio;
        Some(rate.min(self.max_rate))
    }

    /// The earliest time the next segment may leave.
    pub fn earliest_departure(&self) -> f64 {
        self.next_departure
    }

    /// A segment of `wire_bytes` leaves at `now` (no earlier than `earliest_departure`) under
    /// `rate` (None: unpaced); the next may leave its length / rate later, less up to half of
    /// that for the time this one was late.
    pub fn on_sent(&mut self, now: f64, wire_bytes: u32, rate: Option<f64>) {
        let departure = self.next_departure.max(now);
        let late = departure - self.next_departure;
        self.next_departure = departure;
        self.segments_out += 1;
        if let Some(rate) = rate.filter(|&r| r > 0.0 && r.is_finite()) {
            if self.segments_out >= self.unpaced_segments {
                let gap = wire_bytes as f64 / rate;
                self.next_departure += gap - late.min(gap / 2.0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tcp_update_pacing_rate with MSS 1000 B and SRTT 0.1 s: cwnd 10 < ssthresh 100 / 2 is
    /// slow start, 1000 x 10 / 0.1 x 2 = 200000 B/s; cwnd 60 is not, 1000 x 60 / 0.1 x 1.2 =
    /// 720000 B/s; 20 packets out above cwnd 10 count instead, 400000 B/s; a cap of 300000
    /// B/s holds; no SRTT, no rate.
    #[test]
    fn rate_is_cwnd_over_srtt_at_200_or_120_percent() {
        let mut p = LinuxPacing::default();
        assert_eq!(p.rate(1000, 10.0, 5, 100.0, Some(0.1)), Some(200000.0));
        assert_eq!(p.rate(1000, 60.0, 5, 100.0, Some(0.1)), Some(720000.0));
        assert_eq!(p.rate(1000, 10.0, 20, 100.0, Some(0.1)), Some(400000.0));
        p.max_rate = 300000.0;
        assert_eq!(p.rate(1000, 10.0, 20, 100.0, Some(0.1)), Some(300000.0));
        assert_eq!(p.rate(1000, 10.0, 5, 100.0, None), None);
    }

    /// Departures at 1000-byte segments and 1024000 B/s, a gap of 1/1024 s: the first ten go
    /// at 0 unpaced; the 11th may leave 1/1024 after the 10th, the 12th 2/1024. Sent late at
    /// 10/1024 (8/1024 behind), the 12th gets half a gap back: the 13th may leave at
    /// 10/1024 + 1/1024 - 1/2048.
    #[test]
    fn each_segment_leaves_a_wire_length_over_rate_after_the_previous() {
        let mut p = LinuxPacing::default();
        let (rate, gap) = (Some(1024000.0), 1.0 / 1024.0);
        for _ in 0..10 {
            p.on_sent(0.0, 1000, rate);
        }
        assert_eq!(p.earliest_departure(), gap, "no gap until the 10th");
        p.on_sent(p.earliest_departure(), 1000, rate);
        assert_eq!(p.earliest_departure(), 2.0 * gap);
        p.on_sent(10.0 * gap, 1000, rate);
        assert_eq!(p.earliest_departure(), 10.0 * gap + gap / 2.0);
        p.on_sent(20.0 * gap, 1000, None);
        assert_eq!(p.earliest_departure(), 20.0 * gap, "unpaced: no gap");
    }
}
