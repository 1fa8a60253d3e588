//! The rfc profile's modern sender (reno, cubic, bbr, dctcp) on scenarios/modern's dumbbell: a
//! 10 Mb/s bottleneck, 40 ms base RTT, a DropTail queue of one BDP (33 packets of 1500 B), the
//! Linux receiver; invariants checked as it runs.

use std::path::Path;
use tcplab_des::Time;
use tcplab_net::scenario::Traces;
use tcplab_net::{RunOptions, RunResult, Scenario, Simulation};

const LINK_BPS: f64 = 10e6;

fn run(controller: &str, seconds: u64) -> RunResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/modern/{controller}.toml"));
    let scenario = Scenario::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let opts = RunOptions {
        until: Some(Time::from_secs(seconds)),
        traces: Traces { cwnd: true, ..Traces::default() },
        check: true,
        ..RunOptions::default()
    };
    Simulation::new(scenario, &opts).unwrap().finish().unwrap()
}

fn bottleneck_utilization(r: &RunResult) -> f64 {
    r.summary.links.iter().find(|l| l.name == "r1->r2").unwrap().utilization
}

/// (time, cwnd) after `from` seconds.
fn cwnd_after(r: &RunResult, from: f64) -> Vec<(f64, f64)> {
    let c = r.series.cwnd.as_ref().expect("cwnd traced");
    c.time.iter().zip(&c.cwnd).filter(|(t, _)| **t >= from).map(|(t, w)| (*t, *w)).collect()
}

/// Each controller keeps a one-BDP DropTail bottleneck at least 90% busy over 10 s (the
/// first seconds of slow start included), and its sender delivers at least 90% of the link.
#[test]
fn every_controller_fills_the_link() {
    for controller in ["reno", "cubic", "bbr", "dctcp"] {
        let r = run(controller, 10);
        let busy = bottleneck_utilization(&r);
        let throughput = r.summary.flows[0].throughput_bps / LINK_BPS;
        assert!(busy >= 0.9 && throughput >= 0.9, "{controller}: link {busy:.3}, flow {throughput:.3}");
    }
}

/// CUBIC's sawtooth: after slow start, cwnd is cut to beta = 0.7 of its peak (717/1024: a
/// peak of 66 gives 46) again and again, each cut at most 0.75 of the window before it, and
/// grows back between cuts. A 1-BDP queue over a 33-packet BDP overflows near 66 segments.
#[test]
fn cubic_shows_its_sawtooth() {
    let r = run("cubic", 10);
    let w = cwnd_after(&r, 2.0);
    let cuts: Vec<(f64, f64, f64)> =
        w.windows(2).filter(|p| p[1].1 <= 0.75 * p[0].1).map(|p| (p[1].0, p[0].1, p[1].1)).collect();
    assert!(cuts.len() >= 2, "cuts after 2 s: {cuts:?}");
    for &(_, before, after) in &cuts {
        assert_eq!(after, (before * 717.0 / 1024.0).floor(), "beta 717/1024 of {before}");
    }
}

/// BBR's ProbeRTT: min_rtt not refreshed for 10 s sends cwnd down to 4 segments, once, a
/// little after 10 s, and back up after it (200 ms and a round).
#[test]
fn bbr_probes_rtt_after_ten_seconds() {
    let r = run("bbr", 11);
    let low: Vec<(f64, f64)> = cwnd_after(&r, 1.0).into_iter().filter(|&(_, w)| w <= 4.0).collect();
    assert!(!low.is_empty(), "no ProbeRTT");
    assert!(low.iter().all(|&(t, _)| (10.0..10.5).contains(&t)), "ProbeRTT at {low:?}");
    let after = cwnd_after(&r, 10.5);
    assert!(after.last().is_some_and(|&(_, w)| w > 20.0), "cwnd after ProbeRTT: {after:?}");
}

/// DCTCP with a marking DropTail queue (K = 20 packets) keeps the queue near K: its mean over
/// 10 s is within 5 packets of K, while the link stays busy.
#[test]
fn dctcp_keeps_the_queue_near_k() {
    let r = run("dctcp", 10);
    let link = r.summary.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert!((link.queue_mean_pkts - 20.0).abs() <= 5.0, "queue mean {}", link.queue_mean_pkts);
    assert!(link.utilization >= 0.9, "{}", link.utilization);
}
