//! Pacing on the wired part of the Yew et al. topology (000_3bee746e20d1e1b9.txt, Fig. 3 and
//! Table I: CN–N1 100 Mb/s 2 ms, N1–MAP 2 Mb/s 50 ms, 50-packet queues, ns-2's window of 20):
//! slow start sends bursts at 100 Mb/s into the 2 Mb/s link; spacing them out lowers the peak
//! queue at N1 without costing throughput.

use tcplab_net::{RunOptions, Scenario, Simulation};

/// The peak N1->MAP queue and the flow's goodput in bit/s.
fn run(protocol: &str, profile: &str, pacing: &str) -> (u64, f64) {
    let text = format!(
        r#"
duration = "20s"
profile = "{profile}"
nodes = ["cn", "n1", "map"]
[tcp]
window = 20
{pacing}
[[links]]
from = "cn"
to = "n1"
bandwidth = "100Mb"
delay = "2ms"
[[links]]
from = "n1"
to = "map"
bandwidth = "2Mb"
delay = "50ms"
[[flows]]
from = "cn"
to = "map"
protocol = "{protocol}"
"#
    );
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let result = Simulation::new(scenario, &RunOptions::default()).unwrap().finish().unwrap();
    let s = &result.summary;
    let link = s.links.iter().find(|l| l.name == "n1->map").unwrap();
    (link.queue_max_pkts, s.flows[0].goodput_bps)
}

#[test]
fn spacing_and_gaps_lower_the_slow_start_peak_queue() {
    let spacing = "[pacing]\nrtt = \"latest\"";
    let gaps = "[pacing]\nrtt = \"initial\"\ndepth = 2";
    for (protocol, profile) in
        [("vegas", "ns2"), ("vegas", "rfc"), ("reno", "ns2"), ("newreno", "rfc"), ("fast", "rfc")]
    {
        let (bursty, goodput) = run(protocol, profile, "");
        for pacing in [spacing, gaps] {
            let (paced, paced_goodput) = run(protocol, profile, pacing);
            let what = format!("{profile} {protocol} with {pacing:?}");
            println!("{what}: peak queue {bursty} -> {paced}, goodput {goodput:.0} -> {paced_goodput:.0} b/s");
            assert!(paced < bursty, "{what}: peak queue {paced}, unpaced {bursty}");
            assert!(paced_goodput > 0.99 * goodput, "{what}: goodput {paced_goodput}, unpaced {goodput}");
        }
    }
}
