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

/// CUBIC's sawtooth: after slow start, each loss (a peak: the window falls after growing)
/// sets ssthresh to beta = 717/1024 of the window at the loss (Linux's
/// `bictcp_recalc_ssthresh`: a window of 66 gives 46), PRR brings the window down to it within
/// a round trip (40 ms base, at most ~70 ms with the queue: 0.2 s allowed), and it grows back
/// above it before the next loss.
#[test]
fn cubic_shows_its_sawtooth() {
    let r = run("cubic", 10);
    let c = r.series.cwnd.as_ref().expect("cwnd traced");
    let peak = |i: usize| c.cwnd[i] < c.cwnd[i - 1] && c.cwnd[i - 1] > c.cwnd[i - 2];
    let cuts: Vec<usize> = (2..c.time.len()).filter(|&i| c.time[i] > 2.0 && peak(i)).collect();
    assert!(cuts.len() >= 2, "cuts after 2 s: {:?}", cuts.iter().map(|&i| c.time[i]).collect::<Vec<_>>());
    let ends: Vec<usize> = cuts.iter().skip(1).copied().chain([c.time.len()]).collect();
    for (&i, &next) in cuts.iter().zip(&ends) {
        let (at, before, ssthresh) = (c.time[i], c.cwnd[i - 1], c.ssthresh[i]);
        assert_eq!(ssthresh, (before * 717.0 / 1024.0).floor() as i64, "at {at}: beta of {before}");
        let low = (i..c.time.len()).take_while(|&j| c.time[j] < at + 0.2).map(|j| c.cwnd[j]).fold(f64::MAX, f64::min);
        assert!(low <= ssthresh as f64 + 1.0, "at {at}: PRR took the window to {low}, not {ssthresh}");
        let peak_after = c.cwnd[i..next].iter().copied().fold(0.0, f64::max);
        assert!(peak_after > ssthresh as f64, "at {at}: no growth after the cut");
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

/// The handshake in the wired trace, as ns-2's FullTcp shows its SYNs: the SYN (60 bytes,
/// seqno -1) leaves s at 0; the SYN-ACK (60 bytes) leaves k one way later, 20 ms of links plus
/// the SYN's serialization (60 B at 100 Mb/s 4.8 us twice, at 10 Mb/s 48 us); back at s one
/// base RTT after the start (40 ms and 0.1152 ms of serialization), the ACK (52 bytes) and the
/// first data segment (1500 bytes, seqno 0) leave together. The trace prints microseconds.
#[test]
fn the_handshake_opens_the_connection_in_the_trace() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/modern/reno.toml");
    let scenario = Scenario::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("tcplab-handshake-{}", std::process::id()));
    let opts = RunOptions {
        until: Some(Time::from_secs_f64(0.1)),
        out_dir: Some(dir.clone()),
        traces: Traces { ns2: true, ..Traces::default() },
        ..RunOptions::default()
    };
    Simulation::new(scenario, &opts).unwrap().finish().unwrap();
    let trace = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    // enqueues at the sender's link (s = node 0) and the receiver's (k = node 3)
    let enqueued = |from: &str| -> Vec<(f64, String, u32, i64)> {
        trace
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .filter(|f| f[0] == "+" && f[2] == from)
            .map(|f| (f[1].parse().unwrap(), f[4].to_string(), f[5].parse().unwrap(), f[10].parse().unwrap()))
            .collect()
    };
    let sent = enqueued("0");
    assert_eq!((sent[0].0, sent[0].1.as_str(), sent[0].2, sent[0].3), (0.0, "tcp", 60, -1), "the SYN first");
    let synack = &enqueued("3")[0];
    assert_eq!((synack.1.as_str(), synack.2, synack.3), ("ack", 60, -1));
    assert!((synack.0 - 0.0200576).abs() < 1e-6, "SYN-ACK at {}", synack.0);
    let (ack, data) = (&sent[1], &sent[2]);
    assert!((ack.0 - 0.0401152).abs() < 1e-6, "ACK at {}", ack.0);
    assert_eq!((ack.1.as_str(), ack.2, data.0, data.2, data.3), ("tcp", 52, ack.0, 1500, 0));
}

/// Two BBR flows on two separate, identical paths: each draws its own first phase of
/// PROBE_BW (from the run's seed and its name), so their windows part once they probe; with
/// the scenario's `[modern] seed` fixed they are the same flow twice.
#[test]
fn each_bbr_flow_draws_its_own_probing_phase() {
    let windows = |fixed_seed: &str| {
        let text = format!(
            r#"
            name = "two-paths"
            duration = "6s"
            nodes = ["a0", "b0", "a1", "b1"]
            {fixed_seed}
            [[links]]
            from = "a0"
            to = "b0"
            bandwidth = "10Mb"
            delay = "10ms"
            [[links]]
            from = "a1"
            to = "b1"
            bandwidth = "10Mb"
            delay = "10ms"
            [[flows]]
            name = "f0"
            from = "a0"
            to = "b0"
            protocol = "bbr"
            profile = "rfc"
            [[flows]]
            name = "f1"
            from = "a1"
            to = "b1"
            protocol = "bbr"
            profile = "rfc"
            "#
        );
        let scenario = Scenario::from_toml(&text).unwrap();
        let opts =
            RunOptions { traces: Traces { cwnd: true, ..Traces::default() }, check: true, ..RunOptions::default() };
        let r = Simulation::new(scenario, &opts).unwrap().finish().unwrap();
        let c = r.series.cwnd.expect("cwnd traced");
        let of = |name: &str| -> Vec<(f64, f64)> {
            c.flow
                .iter()
                .zip(c.time.iter().zip(&c.cwnd))
                .filter(|(f, _)| *f == name)
                .map(|(_, (t, w))| (*t, *w))
                .collect()
        };
        (of("f0"), of("f1"))
    };
    let (f0, f1) = windows("");
    assert!(f0.len() > 10 && f0 != f1, "own phases: the two windows part");
    let (f0, f1) = windows("[modern]\nseed = 7");
    assert!(f0.len() > 10 && f0 == f1, "one fixed seed: the same flow twice");
}
