//! Analytic anchors (protocols.md §6): in equilibrium N Vegas flows keep between N·alpha and
//! N·beta segments in the bottleneck queue (Low, Peterson and Wang 2002), and N FAST flows keep
//! about N·alpha and share the link equally. Measured over the second half of a run, on a
//! 10 Mb/s 20 ms dumbbell whose queue never overflows; the flows start together, so that every
//! one learns the true BaseRTT (a late starter over-estimates it, the known Vegas bias).

use tcplab_des::Time;
use tcplab_net::metrics::jain;
use tcplab_net::{RunOptions, Scenario, Simulation};

/// `n` flows of `protocol` over a 10 Mb/s, 20 ms bottleneck with room for 1000 packets.
fn dumbbell(n: usize, protocol: &str, profile: &str, extra: &str) -> Scenario {
    let mut t = format!("duration = \"100s\"\nprofile = \"{profile}\"\n{extra}\n");
    let mut nodes = vec!["\"r1\"".to_string(), "\"r2\"".to_string()];
    t += "[[links]]\nfrom = \"r1\"\nto = \"r2\"\nbandwidth = \"10Mb\"\ndelay = \"20ms\"\nqueue_limit = 1000\n";
    for i in 0..n {
        nodes.push(format!("\"s{i}\""));
        nodes.push(format!("\"k{i}\""));
        t += &format!("[[links]]\nfrom = \"s{i}\"\nto = \"r1\"\nbandwidth = \"100Mb\"\ndelay = \"1ms\"\n");
        t += &format!("[[links]]\nfrom = \"r2\"\nto = \"k{i}\"\nbandwidth = \"100Mb\"\ndelay = \"1ms\"\n");
        t += &format!("[[flows]]\nfrom = \"s{i}\"\nto = \"k{i}\"\nprotocol = \"{protocol}\"\nstart = \"{}ms\"\n", i);
    }
    let text = format!("nodes = [{}]\n{t}", nodes.join(", "));
    Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The mean bottleneck queue and the Jain index of the goodputs over the second half.
fn second_half(scenario: Scenario) -> (f64, f64) {
    let mut sim = Simulation::new(scenario, &RunOptions::default()).unwrap();
    let (half, end) = (Time::from_secs(50), Time::from_secs(100));
    sim.advance(half);
    let (q0, g0) = (sim.queue_integral("r1", "r2").unwrap(), sim.goodput_bytes());
    sim.advance(end);
    let (q1, g1) = (sim.queue_integral("r1", "r2").unwrap(), sim.goodput_bytes());
    let rates: Vec<f64> = g1.iter().zip(&g0).map(|(b, a)| (b - a) as f64).collect();
    ((q1 - q0) / 50.0, jain(&rates))
}

#[test]
fn vegas_keeps_between_n_alpha_and_n_beta_queued() {
    // the rfc profile (alpha 2, beta 4) and ns-2's Vegas (alpha 1, beta 3)
    for (profile, alpha, beta) in [("rfc", 2.0, 4.0), ("ns2", 1.0, 3.0)] {
        for n in [1, 2, 4, 8] {
            let extra = if profile == "ns2" { "[tcp]\nwindow = 2000" } else { "" };
            let (queue, _) = second_half(dumbbell(n, "vegas", profile, extra));
            println!("{profile} Vegas, {n} flows: {queue:.2} packets queued");
            // One packet of slack: Vegas judges the backlog by the smallest RTT of an epoch, so
            // the mean queue runs a little above the sum of the flows' estimates.
            let (lo, hi) = (n as f64 * alpha - 1.0, n as f64 * beta + 1.0);
            assert!(
                (lo..=hi).contains(&queue),
                "{profile} Vegas, {n} flows: {queue:.2} packets queued, not in [{lo}, {hi}]"
            );
        }
    }
}

#[test]
fn fast_flows_keep_alpha_each_and_share_equally() {
    for n in [1, 2, 4, 8] {
        let (queue, fairness) = second_half(dumbbell(n, "fast", "rfc", "[fast]\nalpha = 10"));
        let target = 10.0 * n as f64;
        println!("FAST, {n} flows: {queue:.2} packets queued, Jain {fairness:.4}");
        assert!(
            (queue - target).abs() <= 0.1 * target,
            "FAST, {n} flows: {queue:.2} packets queued, not about {target}"
        );
        assert!(fairness > 0.99, "FAST, {n} flows: Jain index {fairness:.4}");
    }
}
