//! Runs that could run away: each ends, at once, with its results or with one error that names
//! the field behind it (issue 35's hangs, and variations on each).

use std::path::Path;
use tcplab_net::budget::{enforce, Estimate, Machine};
use tcplab_net::{RunError, RunOptions, RunResult, Scenario, ScenarioError, Simulation};

fn two_nodes(bandwidth: &str, delay: &str, flow: &str, extra: &str) -> Scenario {
    let text = format!(
        "duration = \"2.5s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nfrom = \"a\"\nto = \"b\"\nbandwidth = \"{bandwidth}\"\ndelay = \"{delay}\"\n\
         [[flows]]\nfrom = \"a\"\nto = \"b\"\n{flow}\n{extra}"
    );
    Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn run(scenario: Scenario, opts: &RunOptions) -> Result<RunResult, RunError> {
    Simulation::new(scenario, opts)?.finish()
}

fn stopped(r: Result<RunResult, RunError>) -> ScenarioError {
    match r {
        Err(RunError::Stopped(e)) => e,
        Err(e) => panic!("not stopped: {e}"),
        Ok(_) => panic!("ran to the end"),
    }
}

/// A pacer's wait too short for the double clock once froze time (at about 2.05 s) for the
/// ns-2 agents with windows of 64 and more on fast, short links.
#[test]
fn pacing_moves_the_clock_on_fast_short_links() {
    let cases = [
        ("reno", "100Mb", "0s", "min"), // the issue's own
        ("tahoe", "100Mb", "1us", "initial"),
        ("sack1", "1Gb", "0s", "min"),
        ("fack", "10Gb", "10us", "latest"),
        ("sackrh", "1Gb", "1us", "min"),
        ("newreno", "1Gb", "1us", "smoothed"),
    ];
    for (protocol, bandwidth, delay, rtt) in cases {
        let flow = format!("protocol = \"{protocol}\"\ntcp = {{window = 64}}");
        let s = two_nodes(bandwidth, delay, &flow, &format!("[pacing]\nrtt = \"{rtt}\"\n"));
        let estimated = Estimate::of(&s, &RunOptions::default()).events;
        let r = run(s, &RunOptions::default()).unwrap_or_else(|e| panic!("{protocol} {bandwidth} {delay} {rtt}: {e}"));
        assert!(r.summary.flows[0].packets_delivered > 1000, "{protocol} {bandwidth} {delay} {rtt}");
        assert!((r.events as f64) < 10.0 * estimated, "{protocol} {bandwidth} {delay} {rtt}: {} events", r.events);
    }
}

/// ns-2's estimator counts RTTs in 32-bit ticks: a tick so fine that a sample overflows them
/// (where ns-2 crashes) stops the run naming tcp_tick; one that fits runs as ns-2 runs it.
#[test]
fn a_tick_too_fine_for_ns2s_estimator_stops_the_run() {
    let unlimited = RunOptions { no_limits: true, ..RunOptions::default() };
    for (flow, delay) in [("tcp = {minrto = 0, tcp_tick = \"10ps\"}", "20ms"), ("tcp = {tcp_tick = \"1ns\"}", "1s")] {
        let s = two_nodes("2Mb", delay, &format!("protocol = \"reno\"\n{flow}"), "");
        let e = stopped(run(s, &unlimited));
        assert_eq!(e.path, "flows[0].tcp.tcp_tick", "{e}");
        assert!(e.message.contains("ticks") && e.message.contains("coarser"), "{e}");
    }
    // 1 ns ticks hold RTTs up to about 89 ms (24 times the ticks in 31 bits)
    let fits = two_nodes("2Mb", "20ms", "protocol = \"reno\"\ntcp = {tcp_tick = \"1ns\"}", "");
    assert!(run(fits, &unlimited).unwrap().summary.flows[0].packets_delivered > 100);
}

/// A retransmission timer capped below the round trip fires again and again: the estimate
/// counts it, and a run of days is refused naming the knob. A low floor (minrto) alone does
/// not: the timer adapts to the round trip.
#[test]
fn a_timer_shorter_than_the_round_trip_is_counted_and_named() {
    let roomy = Machine { memory: Some(1 << 40), disk: Some(1 << 40), budget: false };
    let cases = [
        ("protocol = \"newreno\"\nprofile = \"rfc\"\ntcp = {minrto = 0, maxrto = \"1ps\"}", "flows[0].tcp.maxrto"),
        ("protocol = \"vegas\"\nprofile = \"rfc\"\ntcp = {minrto = \"1ps\", maxrto = \"1ps\"}", "flows[0].tcp.maxrto"),
        ("protocol = \"reno\"\ntcp = {minrto = 0, maxrto = \"1ps\", tcp_tick = \"1ps\"}", "flows[0].tcp.maxrto"),
        ("protocol = \"fack\"\ntcp = {minrto = \"1ps\", maxrto = \"3ps\", tcp_tick = \"1ps\"}", "flows[0].tcp.maxrto"),
    ];
    for (flow, field) in cases {
        let s = two_nodes("2Mb", "20ms", flow, "");
        let e = Estimate::of(&s, &RunOptions::default());
        assert!(e.events > 1e11, "{flow}: {:.1e}", e.events);
        let refused = e.check(&roomy).unwrap_err();
        assert_eq!(refused.path, field, "{refused}");
        assert!(refused.message.contains("again and again"), "{refused}");
        assert_eq!(enforce(&s, &RunOptions::default()).unwrap_err().path, field);
    }
    let floor = two_nodes("2Mb", "20ms", "protocol = \"reno\"\ntcp = {minrto = 0, tcp_tick = \"1us\"}", "");
    assert!(Estimate::of(&floor, &RunOptions::default()).check(&roomy).is_ok());
    // a timer of 10 ms on a 40 ms round trip: 250 timeouts in 2.5 s, counted, and run
    let s = two_nodes(
        "2Mb",
        "20ms",
        "protocol = \"newreno\"\nprofile = \"rfc\"\ntcp = {minrto = 0, maxrto = \"10ms\"}",
        "",
    );
    let plain = two_nodes("2Mb", "20ms", "protocol = \"newreno\"\nprofile = \"rfc\"", "");
    let (e, p) = (Estimate::of(&s, &RunOptions::default()), Estimate::of(&plain, &RunOptions::default()));
    assert!(e.data_packets >= p.data_packets + 249.0, "{} vs {}", e.data_packets, p.data_packets);
    assert!(run(s, &RunOptions::default()).unwrap().summary.flows[0].packets_retransmitted > 100);
}

/// Router advertisements nobody waited for are caught up on inside one event: however short
/// their interval, in a bounded number of draws.
#[test]
fn router_advertisements_catch_up_in_bounded_work() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/yew2011-handover/vegas.toml");
    let text = std::fs::read_to_string(path).unwrap();
    for interval in ["[\"1ps\", \"1ps\"]", "[\"1ps\", \"2ps\"]", "[\"1ns\", \"1us\"]", "[\"30ms\", \"70ms\"]"] {
        let edited = text.replacen("[[mobile_nodes]]\n", &format!("[[mobile_nodes]]\nra_interval = {interval}\n"), 1);
        let s = Scenario::from_toml(&edited).unwrap_or_else(|e| panic!("{e}"));
        let r = run(s, &RunOptions::default()).unwrap_or_else(|e| panic!("{interval}: {e}"));
        let h = &r.summary.handovers;
        assert_eq!(h.len(), 2, "{interval}");
        for h in h {
            // the advertisement comes within one interval of the new link
            assert!(h.movement_detected_s - h.l2_done_s <= 0.07 + 1e-9, "{interval}: {h:?}");
        }
    }
}

/// A run given a budget of events stops when it is spent, limits or not, naming max_events;
/// the trace files keep what was written, and a run within it is unchanged.
#[test]
fn a_budget_of_events_stops_the_run_when_spent() {
    let s = || two_nodes("2Mb", "20ms", "protocol = \"reno\"", "");
    let whole = run(s(), &RunOptions::default()).unwrap();
    for no_limits in [false, true] {
        let opts = RunOptions { max_events: Some(1000), no_limits, ..RunOptions::default() };
        let e = stopped(run(s(), &opts));
        assert_eq!(e.path, "max_events", "{e}");
        assert!(e.message.contains("more than the 1000 events"), "{e}");
    }
    let roomy = RunOptions { max_events: Some(whole.events), ..RunOptions::default() };
    assert_eq!(run(s(), &roomy).unwrap().to_json(), whole.to_json());
}

/// Two links whose cleaned names would be one file each get their own (`~` and their place).
#[test]
fn pcap_files_never_share_a_name() {
    let text = r#"
        duration = "1s"
        nodes = ["x/y", "x_y", "r", "a-b", "a", "b-r", "n"]
        [[links]]
        from = "x/y"
        to = "r"
        bandwidth = "1Mb"
        delay = "1ms"
        [[links]]
        from = "x_y"
        to = "r"
        bandwidth = "1Mb"
        delay = "1ms"
        [[links]]
        from = "a-b"
        to = "r"
        bandwidth = "1Mb"
        delay = "1ms"
        [[links]]
        from = "a"
        to = "b-r"
        bandwidth = "1Mb"
        delay = "1ms"
        [[links]]
        from = "r"
        to = "n"
        bandwidth = "1Mb"
        delay = "1ms"
        [[links]]
        from = "b-r"
        to = "r"
        bandwidth = "1Mb"
        delay = "1ms"
        [[flows]]
        from = "a"
        to = "n"
        protocol = "udp"
        "#;
    let s = Scenario::from_toml(text).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<String> = tcplab_net::sim::pcap_file_names(&s).into_iter().flatten().collect();
    assert_eq!(
        names,
        [
            "pcap/x_y-r~1.pcap",
            "pcap/x_y-r~2.pcap",
            "pcap/a-b-r~3.pcap",
            "pcap/a-b-r~4.pcap",
            "pcap/r-n.pcap",
            "pcap/b-r-r.pcap"
        ]
    );
    let long = format!("duration = \"1s\"\nnodes = [\"{}\", \"{}\"]\n[[links]]\nfrom = \"{0}\"\nto = \"{1}\"\nbandwidth = \"1Mb\"\ndelay = \"1ms\"\n[[flows]]\nfrom = \"{0}\"\nto = \"{1}\"\nprotocol = \"udp\"\n", "p".repeat(255), "q".repeat(255));
    let names = tcplab_net::sim::pcap_file_names(&Scenario::from_toml(&long).unwrap());
    let name = names[0].as_deref().unwrap().strip_prefix("pcap/").unwrap();
    assert!(name.len() <= 255, "a file name the file system takes: {} bytes", name.len());
}
