//! The cwnd trace and series against what ns-2.35 writes (the cases in conformance/fuzz-cases,
//! where python/tests compare them with ns-2 itself; here they hold without ns-2 installed).

use tcplab_net::{RunOptions, Scenario, Simulation};

const TWO_NODES: &str = r#"
name = "c"
duration = "0.5s"
nodes = ["a", "b"]

[[links]]
from = "a"
to = "b"
bandwidth = "10Mb"
delay = "10ms"
"#;

fn flow(name: &str, protocol: &str, tcp: &str) -> String {
    format!("\n[[flows]]\nname = \"{name}\"\nfrom = \"a\"\nto = \"b\"\nprotocol = \"{protocol}\"\ntcp = {{ {tcp} }}\n")
}

/// The run's cwnd.tr as (time, cwnd) pairs, and the run itself.
fn run(text: &str, name: &str) -> (Vec<(String, String)>, tcplab_net::RunResult) {
    let out = std::env::temp_dir().join(format!("tcplab-cwnd-{name}-{}", std::process::id()));
    let scenario = Scenario::from_toml(&format!("{text}\n[output]\ntrace = [\"cwnd\"]\n")).unwrap();
    let opts = RunOptions { out_dir: Some(out.clone()), ..RunOptions::default() };
    let result = Simulation::new(scenario, &opts).unwrap().finish().unwrap();
    let lines = std::fs::read_to_string(out.join("cwnd.tr")).unwrap();
    std::fs::remove_dir_all(out).unwrap();
    let pairs = lines.lines().map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f[0].to_string(), f[6].to_string())
    });
    (pairs.collect(), result)
}

fn at_zero(lines: &[(String, String)]) -> Vec<&str> {
    lines.iter().filter(|(t, _)| t == "0.00000").map(|(_, c)| c.as_str()).collect()
}

#[test]
fn every_agent_starts_at_one_then_its_reset_writes_the_initial_window() {
    // A (syn off) starts with 2 segments, B (syn on) with 1: the attach lines of A and B, then
    // A's reset; the series starts at each flow's initial window.
    let (lines, r) =
        run(&(TWO_NODES.to_string() + &flow("A", "reno", "syn = false") + &flow("B", "reno", "")), "reset");
    assert_eq!(at_zero(&lines), ["1.000", "1.000", "2.000"]);
    let series = r.series.cwnd.unwrap();
    let first = |flow: &str| series.flow.iter().position(|f| f == flow).map(|i| series.cwnd[i]);
    assert_eq!((first("A"), first("B")), (Some(2.0), Some(1.0)));
}

#[test]
fn the_window_before_the_max_cwnd_clamp_is_in_the_trace_not_the_series() {
    let (lines, r) = run(&(TWO_NODES.to_string() + &flow("A", "reno", "max_cwnd = 3")), "clamp");
    let values: Vec<&str> = lines.iter().map(|(_, c)| c.as_str()).collect();
    let first_four = values.iter().position(|&c| c == "4.000").expect("the increase to 4 is traced");
    assert_eq!(values[first_four + 1], "3.000");
    assert_eq!(lines[first_four].0, lines[first_four + 1].0, "both at the same time");
    assert!(r.series.cwnd.unwrap().cwnd.iter().all(|&c| c <= 3.0));
}

#[test]
fn newreno_bug_fix_ts_does_not_fast_retransmit_before_the_first_ack() {
    // The first segment is lost, and its dupacks come before any new ACK: ns-2's timestamp test
    // reads outside its table there and fails, so NewReno waits for the timeout (3 s away).
    let text = TWO_NODES.to_string()
        + &flow("A", "newreno", "syn = false, bug_fix_ts = true")
        + "\n[[losses]]\nlink = \"a->b\"\npackets = [0]\n";
    let (_, r) = run(&text, "bugfix");
    assert_eq!(r.summary.flows[0].packets_retransmitted, 0);
}
