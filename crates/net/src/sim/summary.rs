//! Ending a run: the summary computed from the counters, and the series handed back.

use super::{CwndSeries, RttSeries, RunError, RunResult, Series, Simulation};
use crate::ids::NodeId;
use crate::metrics::{jain, FlowSummary, LinkSummary, RadioSummary, Summary};
use crate::network::link_name;
use crate::scenario::Transport;

impl Simulation {
    /// As `finish`, with the run ending where its clock stands (an emulation stopped early).
    pub(crate) fn finish_at_now(mut self) -> Result<RunResult, RunError> {
        if self.now() > tcplab_des::Time::ZERO {
            self.end = self.end.min(self.now());
        }
        self.finish()
    }

    /// Runs to the end, flushes the writers and computes the summary; a run its guard stopped
    /// is an error (the trace files keep what was written).
    pub fn finish(mut self) -> Result<RunResult, RunError> {
        self.advance(self.end);
        if let Some(why) = self.net.ctx.stopped.take() {
            self.net.ctx.tracer.flush()?;
            return Err(RunError::Stopped(*why));
        }
        self.check_conservation();
        self.net.finish();
        self.net.ctx.tracer.flush()?;
        let summary = self.summary();
        let mut series = Series::default();
        if let Some(points) = self.net.ctx.tracer.cwnd_series.take() {
            let mut s = CwndSeries::default();
            for (t, f, c, ss) in points {
                s.time.push(t);
                s.flow.push(self.scenario.flows[f as usize].name.clone());
                s.cwnd.push(c);
                s.ssthresh.push(ss);
            }
            series.cwnd = Some(s);
        }
        if let Some(points) = self.net.ctx.tracer.rtt_series.take() {
            let mut s = RttSeries::default();
            for (t, f, rtt) in points {
                s.time.push(t);
                s.flow.push(self.scenario.flows[f as usize].name.clone());
                s.rtt_s.push(rtt);
            }
            series.rtt = Some(s);
        }
        if let Some(sampler) = self.sampler.take() {
            series.flows = Some(sampler.flows);
            series.links = Some(sampler.links);
            series.tcp = Some(sampler.tcp);
        }
        let check = self.net.ctx.check.take().map(|c| c.report);
        Ok(RunResult { summary, series, events: self.net.ctx.sched.dispatched(), check })
    }

    fn summary(&mut self) -> Summary {
        let sc = &self.scenario;
        let end = self.end;
        let mut flows = Vec::with_capacity(sc.flows.len());
        for (cfg, stats) in sc.flows.iter().zip(self.net.ctx.flow_stats.iter_mut()) {
            let active_end = cfg.stop.unwrap_or(end).min(end);
            let active = active_end.saturating_sub(cfg.start).as_secs_f64();
            let per_second = |bytes: u64| if active > 0.0 { bytes as f64 * 8.0 / active } else { 0.0 };
            let [mean, p50, p95, p99, max] = stats.delays.stats();
            let (protocol, profile) = match &cfg.transport {
                Transport::Tcp(t) => (t.variant.name(), Some(t.profile.name())),
                Transport::Udp => ("udp", None),
            };
            flows.push(FlowSummary {
                name: cfg.name.clone(),
                protocol: protocol.to_string(),
                profile,
                from: sc.nodes[cfg.from].clone(),
                to: sc.nodes[cfg.to].clone(),
                goodput_bps: per_second(stats.goodput_bytes),
                throughput_bps: per_second(stats.data_bytes_delivered),
                delay_mean_s: mean,
                delay_p50_s: p50,
                delay_p95_s: p95,
                delay_p99_s: p99,
                delay_max_s: max,
                rtt_mean_s: if stats.rtt_samples > 0 { stats.rtt_sum / stats.rtt_samples as f64 } else { 0.0 },
                packets_sent: stats.data_sent,
                packets_delivered: stats.data_delivered,
                packets_dropped: stats.data_dropped,
                packets_retransmitted: stats.data_retransmitted,
                packets_in_flight: stats.data_sent - stats.data_delivered - stats.data_dropped,
                efficiency: if stats.data_sent > 0 {
                    stats.data_delivered as f64 / stats.data_sent as f64
                } else {
                    0.0
                },
                acks_sent: stats.acks_sent,
            });
        }
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        let links = self
            .net
            .links
            .iter()
            .map(|l| {
                let (from, to) = (&sc.nodes[l.from.index()], &sc.nodes[l.to.index()]);
                let busy = l.stats.busy_time.saturating_sub(l.busy_until().saturating_sub(end));
                LinkSummary {
                    name: link_name(&sc.nodes, l),
                    from: from.clone(),
                    to: to.clone(),
                    arrivals: l.stats.arrivals,
                    departures: l.stats.departures,
                    drops: l.stats.drops,
                    queue_mean_pkts: l.stats.queue_mean(end),
                    queue_max_pkts: l.stats.queue_max as u64,
                    utilization: busy.as_secs_f64() / end.as_secs_f64(),
                }
            })
            .collect();
        let radios = self
            .net
            .wifi
            .stations
            .iter()
            .map(|s| RadioSummary {
                wlan: sc.wlans[s.wlan_index()].name.clone(),
                node: sc.nodes[s.node.index()].clone(),
                mac: s.stats.clone(),
            })
            .collect();
        let flow_ends: Vec<(String, NodeId)> = sc.flows.iter().map(|f| (f.name.clone(), NodeId::of(f.to))).collect();
        let handovers = self.net.mip.handovers(&flow_ends);
        Summary {
            name: sc.name.clone(),
            seed: self.seed,
            duration_s: end.as_secs_f64(),
            jain_fairness: jain(&goodputs),
            flows,
            links,
            radios,
            handovers,
        }
    }
}
