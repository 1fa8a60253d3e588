//! The rfc profile's sender on a path with chosen losses and marks: RFC 6582 repairs one loss
//! per RTT without a timeout, RFC 3168 halves once per window, and the congestion measure of
//! enhanced Vegas keeps its window through losses the queue did not cause.

use tcplab_net::scenario::Traces;
use tcplab_net::{RunOptions, RunResult, Scenario, Simulation};

/// One flow s -> k over a 100 Mb/s access link and a `rate`, `delay` link with room for 100
/// packets; `flow` and `losses` are TOML added to the flow and after it. The invariants are
/// checked as it runs.
fn run_on(rate: &str, delay: &str, protocol: &str, flow: &str, losses: &str) -> RunResult {
    let text = format!(
        r#"
duration = "20s"
profile = "rfc"
nodes = ["s", "r", "k"]
[[links]]
from = "s"
to = "r"
bandwidth = "100Mb"
delay = "1ms"
[[links]]
from = "r"
to = "k"
bandwidth = "{rate}"
delay = "{delay}"
queue_limit = 100
[[flows]]
name = "f"
from = "s"
to = "k"
protocol = "{protocol}"
{flow}
{losses}
"#
    );
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let opts = RunOptions { traces: Traces { cwnd: true, ..Traces::default() }, check: true, ..RunOptions::default() };
    Simulation::new(scenario, &opts).unwrap().finish().unwrap()
}

/// The same over a 1 Mb/s 20 ms link.
fn run(protocol: &str, flow: &str, losses: &str) -> RunResult {
    run_on("1Mb", "20ms", protocol, flow, losses)
}

fn drops(positions: &[u32], action: &str) -> String {
    let list: Vec<String> = positions.iter().map(|p| p.to_string()).collect();
    format!("[[losses]]\nlink = \"r->k\"\naction = \"{action}\"\npackets = [{}]", list.join(", "))
}

/// The cwnd values in the order they were traced.
fn cwnds(r: &RunResult) -> Vec<f64> {
    r.series.cwnd.as_ref().expect("cwnd traced").cwnd.clone()
}

/// Windows that are at most `share` of the one before: the multiplicative cuts.
fn cuts_to(r: &RunResult, share: f64) -> usize {
    cwnds(r).windows(2).filter(|w| w[1] <= share * w[0]).count()
}

/// Halvings (NewReno's reaction).
fn cuts(r: &RunResult) -> usize {
    cuts_to(r, 0.6)
}

#[test]
fn one_loss_is_one_fast_retransmit() {
    let r = run("newreno", "", &drops(&[40], "drop"));
    let f = &r.summary.flows[0];
    assert_eq!((f.packets_dropped, f.packets_retransmitted), (1, 1));
    assert_eq!(cuts(&r), 1);
}

#[test]
fn newreno_repairs_three_losses_of_a_window_without_a_timeout() {
    let r = run("newreno", "", &drops(&[40, 42, 44], "drop"));
    let f = &r.summary.flows[0];
    assert_eq!((f.packets_dropped, f.packets_retransmitted), (3, 3), "a timeout would go back N");
    assert_eq!(cuts(&r), 1, "one reduction for the window");
    assert!(cwnds(&r).iter().all(|&c| c >= 1.0));
}

#[test]
fn an_ecn_mark_halves_without_a_retransmission() {
    let r = run("newreno", "tcp = { ecn = true }", &drops(&[40, 41], "mark"));
    let f = &r.summary.flows[0];
    assert_eq!((f.packets_dropped, f.packets_retransmitted), (0, 0));
    assert_eq!(cuts(&r), 1, "two marks in one window are one reaction");
}

#[test]
fn the_congestion_measure_keeps_the_window_through_random_losses() {
    // a loss every 500 packets on a path with a 100-packet BDP: errors, not congestion
    let every: Vec<u32> = (1..40).map(|i| i * 500).collect();
    let lossy = |vegas: &str| run_on("10Mb", "40ms", "vegas", vegas, &drops(&every, "drop"));
    let (standard, measured) = (lossy(""), lossy("vegas = { congestion_measure = true }"));
    let (s, m) = (&standard.summary.flows[0], &measured.summary.flows[0]);
    println!(
        "goodput with random losses: standard {:.0} b/s, with the measure {:.0} b/s",
        s.goodput_bps, m.goodput_bps
    );
    assert!(m.packets_dropped >= s.packets_dropped, "the same positions, more of them reached");
    assert!(m.goodput_bps > 1.05 * s.goodput_bps, "measure {} vs standard {}", m.goodput_bps, s.goodput_bps);
    // Vegas gives up a quarter on a loss it counts as congestion
    assert!(cuts_to(&measured, 0.8) < cuts_to(&standard, 0.8) / 2);
}

/// Linux's receiver behind the rfc sender (`sink = "linux"`), with a window of 20 segments,
/// so that the 100-packet queue never drops: quick-ACK mode ACKs the first 20/2 = 10 segments
/// one by one, then every second segment is ACKed, so ACKs = 10 + (segments - 10)/2, where the
/// ns-2 sink sends one per segment. A loss is still repaired by one fast retransmit (the
/// out-of-order segments are ACKed at once).
#[test]
fn the_linux_receiver_acks_every_second_segment_and_a_loss_is_one_fast_retransmit() {
    let window = "tcp = { window = 20 }";
    let ns2 = run("newreno", window, "");
    let linux = run("newreno", &format!("sink = \"linux\"\n{window}"), "");
    let (n, l) = (&ns2.summary.flows[0], &linux.summary.flows[0]);
    println!(
        "ns-2 sink: {} ACKs for {} segments; linux: {} for {}",
        n.acks_sent, n.packets_delivered, l.acks_sent, l.packets_delivered
    );
    assert_eq!(n.packets_dropped + l.packets_dropped, 0);
    assert_eq!(n.acks_sent, n.packets_delivered);
    assert_eq!(l.acks_sent, 10 + (l.packets_delivered - 10) / 2);
    let lossy = run("newreno", &format!("sink = \"linux\"\n{window}"), &drops(&[40], "drop"));
    let f = &lossy.summary.flows[0];
    assert_eq!((f.packets_dropped, f.packets_retransmitted), (1, 1));
    assert_eq!(cuts(&lossy), 1);
}

/// DCTCP's marking queue (K = 10 of 100) with an ECN sender and Linux's receiver: the marks
/// keep the queue short, so nothing is dropped; without marking the queue fills and drops.
#[test]
fn an_ecn_threshold_queue_keeps_an_ecn_flow_from_filling_it() {
    let flow = "sink = \"linux\"\ntcp = { ecn = true }";
    for (queue, dropping) in [("", true), ("[links.droptail]\necn_threshold = 10", false)] {
        let r = run_on("10Mb", "20ms", "newreno", flow, queue);
        let f = &r.summary.flows[0];
        let bottleneck = r.summary.links.iter().find(|l| (l.from.as_str(), l.to.as_str()) == ("r", "k")).unwrap();
        println!(
            "{queue:?}: drops {} queue max {} goodput {}",
            f.packets_dropped, bottleneck.queue_max_pkts, f.goodput_bps
        );
        assert_eq!(f.packets_dropped > 0, dropping, "{queue:?}");
    }
}
