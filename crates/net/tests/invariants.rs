//! Scenario tests: run the example scenarios and check what must hold whatever the protocol does.

use std::path::{Path, PathBuf};
use tcplab_des::Time;
use tcplab_net::scenario::{QueueKind, Traces};
use tcplab_net::{RunOptions, Scenario, Simulation};

fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = Vec::new();
    for sub in std::fs::read_dir(&dir).expect("scenarios/ exists") {
        let sub = sub.unwrap().path();
        if sub.is_dir() {
            for f in std::fs::read_dir(&sub).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "toml") {
                    files.push(f);
                }
            }
        }
    }
    files.sort();
    assert!(files.len() >= 15, "the example scenarios are missing");
    files
}

fn load(path: &Path) -> Scenario {
    let text = std::fs::read_to_string(path).unwrap();
    Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn example_scenarios_conserve_packets_and_respect_capacity() {
    for path in scenario_files() {
        let scenario = load(&path);
        let until = Time::from_secs(20);
        let limits: Vec<(u64, u32, bool)> = scenario
            .links
            .iter()
            .flat_map(|l| {
                let droptail = matches!(l.queue.kind, QueueKind::DropTail(_));
                [(l.bandwidth_bps, l.queue.limit, droptail); 2]
            })
            .collect();
        // a flow is never faster than the fastest way out of its source
        let first_hop: Vec<f64> = scenario
            .flows
            .iter()
            .map(|f| {
                let links =
                    scenario.links.iter().filter(|l| l.a == f.from || l.b == f.from).map(|l| l.bandwidth_bps as f64);
                let wlans = scenario.wlans.iter().filter(|w| w.nodes.contains(&f.from)).map(|w| w.timing.data_rate);
                links.chain(wlans).fold(0.0, f64::max)
            })
            .collect();
        // flows that start late may not have delivered anything by `until`
        let started: Vec<bool> = scenario.flows.iter().map(|f| f.start + Time::from_secs(1) < until).collect();
        let sim =
            Simulation::new(scenario, &RunOptions { until: Some(until), check: true, ..Default::default() }).unwrap();
        let result = sim.finish().unwrap();
        let s = &result.summary;
        let name = path.display();
        let check = result.check.as_ref().expect("checked");
        assert_eq!(check.violations, 0, "{name}: {:#?}", check.first);
        for ((f, &bound), &started) in s.flows.iter().zip(&first_hop).zip(&started) {
            assert!(
                f.goodput_bps <= bound * 1.0001,
                "{name}: {} at {} b/s, faster than its source's {bound}",
                f.name,
                f.goodput_bps
            );
            assert_eq!(
                f.packets_sent,
                f.packets_delivered + f.packets_dropped + f.packets_in_flight,
                "{name}: {} loses packets",
                f.name
            );
            assert!(f.packets_in_flight < 1000, "{name}: {} has {} in flight", f.name, f.packets_in_flight);
            assert!(f.goodput_bps > 0.0 || !started, "{name}: {} delivered nothing", f.name);
            assert!(f.goodput_bps <= f.throughput_bps, "{name}: goodput above throughput");
            assert!(f.delay_p50_s <= f.delay_p95_s && f.delay_p95_s <= f.delay_p99_s && f.delay_p99_s <= f.delay_max_s);
            // RTT samples come from TCP senders, and one that delivered much has timed some
            assert!(f.protocol != "udp" || f.rtt_mean_s == 0.0, "{name}: {} is UDP with an RTT", f.name);
            assert!(
                f.protocol == "udp" || f.packets_delivered < 50 || f.rtt_mean_s > 0.0,
                "{name}: {} has no RTT",
                f.name
            );
        }
        for (l, (_, limit, droptail)) in s.links.iter().zip(&limits) {
            assert!(l.utilization <= 1.0 + 1e-9, "{name}: {} busier than possible", l.name);
            let waiting = l.arrivals - l.departures - l.drops;
            assert!(waiting <= l.queue_max_pkts, "{name}: {} ends with {waiting} waiting", l.name);
            if *droptail {
                assert!(
                    l.queue_max_pkts < *limit as u64,
                    "{name}: {} held {} packets with limit {limit}",
                    l.name,
                    l.queue_max_pkts
                );
            }
        }
        assert!(s.jain_fairness > 0.0 && s.jain_fairness <= 1.0);
    }
}

#[test]
fn same_seed_same_bytes() {
    let path = scenario_files().into_iter().find(|p| p.ends_with("yew2011-wired/lossy-reno.toml")).unwrap();
    let run = |dir: &Path| {
        let opts = RunOptions {
            until: Some(Time::from_secs(10)),
            out_dir: Some(dir.to_path_buf()),
            traces: Traces { ns2: true, cwnd: true, ..Traces::default() },
            ..Default::default()
        };
        let json = Simulation::new(load(&path), &opts).unwrap().finish().unwrap().to_json();
        (json, std::fs::read(dir.join("trace.tr")).unwrap(), std::fs::read(dir.join("cwnd.tr")).unwrap())
    };
    let base = std::env::temp_dir().join(format!("tcplab-determinism-{}", std::process::id()));
    let a = run(&base.join("a"));
    let b = run(&base.join("b"));
    std::fs::remove_dir_all(&base).ok();
    assert!(a.1.len() > 10_000, "the trace was written");
    assert!(a == b, "two runs with the same seed differ");
}

/// Checking the invariants changes nothing in the run.
#[test]
fn checking_changes_nothing() {
    let path = scenario_files().into_iter().find(|p| p.ends_with("yew2011-wired/lossy-reno.toml")).unwrap();
    let run = |check: bool| {
        let opts = RunOptions { until: Some(Time::from_secs(20)), check, ..Default::default() };
        let r = Simulation::new(load(&path), &opts).unwrap().finish().unwrap();
        (serde_json::to_string(&r.summary).unwrap(), r.events, r.check.map(|c| c.violations))
    };
    let (plain, checked) = (run(false), run(true));
    assert_eq!((&plain.0, plain.1, plain.2), (&checked.0, checked.1, None));
    assert_eq!(checked.2, Some(0));
}

/// Stepping a run in small chunks (as the Python progress display does) changes nothing.
#[test]
fn advancing_in_steps_gives_the_same_result() {
    let path = scenario_files().into_iter().find(|p| p.ends_with("yew2011-wired/lossy-newreno.toml")).unwrap();
    let opts = RunOptions { until: Some(Time::from_secs(5)), ..Default::default() };
    let whole = Simulation::new(load(&path), &opts).unwrap().finish().unwrap().to_json();
    let mut stepped = Simulation::new(load(&path), &opts).unwrap();
    let mut t = Time::ZERO;
    while stepped.advance(t) {
        assert!(stepped.now() <= t);
        t += Time::from_millis(37);
    }
    assert_eq!(stepped.now(), Time::from_secs(5));
    assert_eq!(stepped.finish().unwrap().to_json(), whole);
}

/// Stepping by a few events at a time, the clock never passes an event still due, and the run
/// and its interval samples come out the same.
#[test]
fn advancing_a_few_events_at_a_time_gives_the_same_result() {
    let path = scenario_files().into_iter().find(|p| p.ends_with("yew2011-wired/lossy-newreno.toml")).unwrap();
    let sampled = format!("{}\n[output]\ninterval = \"100ms\"\n", std::fs::read_to_string(&path).unwrap());
    let opts = RunOptions { until: Some(Time::from_secs(5)), ..Default::default() };
    let whole = Simulation::new(Scenario::from_toml(&sampled).unwrap(), &opts).unwrap().finish().unwrap().to_json();
    let mut stepped = Simulation::new(Scenario::from_toml(&sampled).unwrap(), &opts).unwrap();
    let (mut calls, mut t) = (0, Time::ZERO);
    while t <= Time::from_secs(5) {
        let before = stepped.now();
        while !stepped.advance_at_most(t, 7) {
            assert!(stepped.now() >= before && stepped.now() <= t);
            calls += 1;
        }
        assert_eq!(stepped.now(), t);
        t += Time::from_millis(250);
    }
    assert!(calls > 100, "{calls} calls cut short");
    assert_eq!(stepped.finish().unwrap().to_json(), whole);
}

/// `output.interval` samples add up to the summary's totals, and sampling changes nothing.
#[test]
fn interval_samples_add_up_and_change_nothing() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/sharma2013/dumbbell.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let sampled = format!("{text}\n[output]\ninterval = \"250ms\"\n");
    let opts = RunOptions { until: Some(Time::from_secs(10)), ..Default::default() };
    let plain = Simulation::new(Scenario::from_toml(&text).unwrap(), &opts).unwrap().finish().unwrap();
    let run = Simulation::new(Scenario::from_toml(&sampled).unwrap(), &opts).unwrap().finish().unwrap();
    assert_eq!(serde_json::to_string(&plain.summary).unwrap(), serde_json::to_string(&run.summary).unwrap());

    let series = run.series.flows.as_ref().expect("flow samples");
    let n_flows = run.summary.flows.len();
    assert_eq!(series.time.len(), 40 * n_flows, "one row per flow every 250 ms for 10 s");
    assert_eq!(*series.time.last().unwrap(), 10.0);
    for f in &run.summary.flows {
        let rows: Vec<usize> = (0..series.flow.len()).filter(|&i| series.flow[i] == f.name).collect();
        let bytes: f64 = rows.iter().map(|&i| series.goodput_bps[i] * 0.25 / 8.0).sum();
        let total = series.delivered_bytes[*rows.last().unwrap()];
        assert!((bytes - total as f64).abs() < 1e-6 * total as f64 + 1e-9, "{}: {bytes} against {total}", f.name);
        assert!(rows.windows(2).all(|w| series.delivered_bytes[w[0]] <= series.delivered_bytes[w[1]]));
        // the later flows start at 20 s and 40 s
        assert_eq!(total > 0, f.name == "flow1", "{} delivered {total} bytes", f.name);
    }
    let links = run.series.links.as_ref().expect("queue samples");
    assert_eq!(links.time.len(), 40 * run.summary.links.len());
    for (i, l) in run.summary.links.iter().enumerate() {
        let max = (0..links.link.len())
            .filter(|&j| links.link[j] == l.name)
            .map(|j| links.queue_pkts[j] as u64)
            .max()
            .unwrap();
        assert!(max <= l.queue_max_pkts, "{}: sampled {max} above the maximum {}", l.name, l.queue_max_pkts);
        assert_eq!(links.link[i], l.name, "links in summary order");
    }
}

/// Two nodes and a 10 Mb/s, 5 ms link from one to the other, for the small scenarios below.
const A_TO_B: &str = r#"
nodes = ["a", "b"]
[[links]]
from = "a"
to = "b"
bandwidth = "10Mb"
delay = "5ms"
"#;

/// A packet that meets an idle link joins its empty queue and leaves it at once, as in ns-2:
/// the link's books show a peak of one packet waiting and a mean of none, whether the packet
/// went through the queue or straight to the wire.
#[test]
fn a_packet_meeting_an_idle_link_passes_through_its_queue() {
    let text = r#"
name = "idle"
duration = "2s"
"#
    .to_string()
        + A_TO_B
        + r#"
[[flows]]
from = "a"
to = "b"
protocol = "udp"
rate = "1Mb"
packet_size = 1000
"#;
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let result = Simulation::new(scenario, &RunOptions::default()).unwrap().finish().unwrap();
    let link = result.summary.links.iter().find(|l| l.name == "a->b").unwrap();
    assert!(link.departures > 200, "{} packets sent", link.departures);
    assert_eq!((link.queue_max_pkts, link.queue_mean_pkts, link.drops), (1, 0.0, 0));
}

/// Links of one rate and delay share a lane of packets in flight (`network::Flights`): two
/// sources at different rates interleave their packets in it, a third link of another rate has
/// its own. Every packet still lands in time order at the right node, and none is lost or
/// left behind: the checks (clock, per-link conservation counted in the lanes) find nothing.
#[test]
fn links_sharing_a_lane_land_their_packets_in_order() {
    let mut text = String::from("name = \"lanes\"\nduration = \"3s\"\nnodes = [\"a\", \"b\", \"d\", \"r\", \"c\"]\n");
    for (from, bw) in [("a", "10Mb"), ("b", "10Mb"), ("d", "4Mb")] {
        text += &format!("[[links]]\nfrom = \"{from}\"\nto = \"r\"\nbandwidth = \"{bw}\"\ndelay = \"5ms\"\n");
    }
    text += "[[links]]\nfrom = \"r\"\nto = \"c\"\nbandwidth = \"100Mb\"\ndelay = \"1ms\"\n";
    for (from, rate, start) in [("a", "1Mb", "0s"), ("b", "3Mb", "0.0003s"), ("d", "2Mb", "0.0001s")] {
        text += &format!("[[flows]]\nfrom = \"{from}\"\nto = \"c\"\nprotocol = \"udp\"\nrate = \"{rate}\"\npacket_size = 1000\nstart = \"{start}\"\n");
    }
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let result =
        Simulation::new(scenario, &RunOptions { check: true, ..Default::default() }).unwrap().finish().unwrap();
    assert_eq!(result.check.map(|c| c.violations), Some(0));
    for f in &result.summary.flows {
        assert!(f.packets_delivered > 200, "{}: {} delivered", f.name, f.packets_delivered);
        assert_eq!(f.packets_sent, f.packets_delivered + f.packets_dropped + f.packets_in_flight, "{}", f.name);
        assert_eq!(f.packets_dropped, 0, "{}", f.name);
    }
}

/// A train of packets at equal rates: each reaches the next link the instant that link
/// finishes the packet before it, and ns-2 queues it for that instant (its arrival was
/// scheduled first). tcplab starts it at once when the release is the next event
/// (`Scheduler::dispatch_if_next`); either way the books show one packet waiting for no time,
/// and every packet is accounted for.
#[test]
fn a_train_at_equal_rates_waits_for_no_time() {
    let mut text = String::from("name = \"train\"\nduration = \"5s\"\nnodes = [\"a\", \"r\", \"c\"]\n");
    for (from, to) in [("a", "r"), ("r", "c")] {
        text += &format!("[[links]]\nfrom = \"{from}\"\nto = \"{to}\"\nbandwidth = \"10Mb\"\ndelay = \"5ms\"\n");
    }
    text += "[[flows]]\nfrom = \"a\"\nto = \"c\"\nprotocol = \"newreno\"\n";
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let result =
        Simulation::new(scenario, &RunOptions { check: true, ..Default::default() }).unwrap().finish().unwrap();
    assert_eq!(result.check.map(|c| c.violations), Some(0));
    let link = |name: &str| result.summary.links.iter().find(|l| l.name == name).unwrap();
    assert!(link("a->r").queue_max_pkts > 1, "the sender's bursts wait at the first link");
    let second = link("r->c");
    assert!(second.departures > 1000, "{} packets sent", second.departures);
    assert_eq!((second.queue_max_pkts, second.queue_mean_pkts, second.drops), (1, 0.0, 0));
}

/// An action at the end itself runs, as ns-2 runs the `$ns at` lines written before its
/// `finish`: a CBR source started at the end sends one packet, which is still on the wire when
/// the run stops, and the checks account for it. An event the run scheduled for the end does
/// not: a source sending every 0.125 s from 0 sends 8 packets in 1 s, not 9 (ns-2 sends 8).
#[test]
fn actions_at_the_end_run_and_nothing_after_them() {
    let text = r#"
name = "end"
duration = "1s"
"#
    .to_string()
        + A_TO_B
        + r#"
[[flows]]
name = "late"
from = "a"
to = "b"
protocol = "udp"
rate = "1Mb"
packet_size = 1000
[[flows]]
name = "steady"
from = "a"
to = "b"
protocol = "udp"
rate = "64kb"
packet_size = 1000
[[actions]]
at = "1s"
flow = "late"
do = "start"
"#;
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let result =
        Simulation::new(scenario, &RunOptions { check: true, ..Default::default() }).unwrap().finish().unwrap();
    assert_eq!(result.check.map(|c| c.violations), Some(0));
    let f = &result.summary.flows[0];
    assert_eq!((f.packets_sent, f.packets_delivered, f.packets_in_flight), (1, 0, 1));
    assert_eq!(result.summary.flows[1].packets_sent, 8);
}
