//! Handovers on the topology of Yew et al. (scenarios/yew2011-handover/vegas.toml): home → AR1
//! (entering the MAP's domain) and AR1 → AR2 (within it), under HMIPv6 and plain Mobile IPv6.

use std::path::Path;
use tcplab_net::mobility::Handover;
use tcplab_net::{RunOptions, RunResult, Scenario, Simulation};

fn run(edit: impl Fn(String) -> String) -> RunResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/yew2011-handover/vegas.toml");
    let text = edit(std::fs::read_to_string(path).unwrap());
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(scenario, &RunOptions::default()).unwrap().finish().unwrap()
}

fn handovers(r: &RunResult) -> Vec<&Handover> {
    r.summary.handovers.iter().collect()
}

#[test]
fn every_handover_has_a_timeline_whose_parts_add_up() {
    let r = run(|t| t);
    let h = handovers(&r);
    let moves: Vec<(Option<&str>, &str)> = h.iter().map(|h| (h.from.as_deref(), h.to.as_str())).collect();
    assert_eq!(moves, [(Some("ha"), "ar1"), (Some("ar1"), "ar2")]);
    for h in &h {
        let order = [h.link_lost_s, h.l2_done_s, h.movement_detected_s, h.dad_done_s, h.binding_s, h.complete_s];
        assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
        assert!((h.dad_done_s - h.movement_detected_s - 1.0).abs() < 1e-9, "DAD takes its second");
        let f = &h.flows[0];
        let parts = f.parts_s.expect("the flow resumed");
        assert!(parts.iter().all(|&p| p >= 0.0), "{parts:?}");
        assert!((parts.iter().sum::<f64>() - f.disruption_s.unwrap()).abs() < 1e-9);
        assert!(f.first_new_s.unwrap() > h.binding_s, "data reaches the new router only after the binding");
    }
    // home → AR1 binds at the MAP and then at the home agent; AR1 → AR2 at the MAP only
    assert_eq!((h[0].binding_updates, h[1].binding_updates), (2, 1));
    // the second scan finds AR2 at once
    assert!((h[1].l2_done_s - h[1].link_lost_s - 0.1).abs() < 1e-9);
    for f in &r.summary.flows {
        assert_eq!(f.packets_sent, f.packets_delivered + f.packets_dropped + f.packets_in_flight, "{}", f.name);
    }
}

#[test]
fn hmipv6_binds_locally_and_optimistic_dad_saves_its_second() {
    let hmip = run(|t| t);
    let mip = run(|t| t.replace("map = \"map\"\nmap_domain = [\"ar1\", \"ar2\"]\n", ""));
    let binding = |r: &RunResult| r.summary.handovers[1].binding_s - r.summary.handovers[1].dad_done_s;
    // a local binding update crosses one 2 ms link and the WLAN; one to the home agent also
    // crosses the 2 Mb/s, 50 ms link twice
    assert!(binding(&hmip) < 0.02, "{}", binding(&hmip));
    assert!(binding(&mip) > 0.05, "{}", binding(&mip));
    let optimistic =
        run(|t| t.replace("map_domain = [\"ar1\", \"ar2\"]\n", "map_domain = [\"ar1\", \"ar2\"]\ndad = 0\n"));
    let h = &optimistic.summary.handovers[1];
    assert_eq!(h.dad_done_s, h.movement_detected_s);
    let disruption = |r: &RunResult| r.summary.handovers[1].flows[0].disruption_s.unwrap();
    assert!(disruption(&optimistic) < disruption(&hmip) - 0.5, "{} vs {}", disruption(&optimistic), disruption(&hmip));
}

#[test]
fn route_optimisation_binds_the_correspondent_and_skips_the_home_agent() {
    let plain = run(|t| t);
    let ro = run(|t| {
        t.replace("map_domain = [\"ar1\", \"ar2\"]\n", "map_domain = [\"ar1\", \"ar2\"]\nroute_optimisation = true\n")
    });
    let updates: Vec<u32> = ro.summary.handovers.iter().map(|h| h.binding_updates).collect();
    assert_eq!(updates, [3, 1], "MAP, home agent, correspondent; then the MAP alone");
    let to_ha = |r: &RunResult| r.summary.links.iter().find(|l| l.name == "n1->ha").unwrap().arrivals;
    // at home (the first 7 s) the data goes through the home agent, which is the access point,
    // in both runs; away from home, without route optimisation, over half of it detours there
    assert!(to_ha(&ro) * 2 < to_ha(&plain), "{} vs {}", to_ha(&ro), to_ha(&plain));
    let f = &ro.summary.flows[0];
    assert_eq!(f.packets_sent, f.packets_delivered + f.packets_dropped + f.packets_in_flight);
    assert!(f.goodput_bps > 0.9 * plain.summary.flows[0].goodput_bps);
}

/// A mobile node sending to its own home agent: away from home, its packets go up the reverse
/// tunnel, which ends at the home agent, where they are addressed (a panic once: the tunnel's
/// end looked for a route to itself). Under HMIPv6 and plain Mobile IPv6. To its own MAP, they
/// go on through both tunnels to the home agent and back (docs/mobility.md).
#[test]
fn a_mobile_node_reaches_its_own_home_agent_from_away() {
    let to_map = run(|t| t.replace("from = \"cn\"\nto = \"mn\"", "from = \"mn\"\nto = \"map\""));
    let f = &to_map.summary.flows[0];
    assert!(
        f.packets_delivered > 1000 && f.delay_max_s > 0.12,
        "{} packets, {} s at most: by the home agent",
        f.packets_delivered,
        f.delay_max_s
    );
    let upload = |t: String| t.replace("from = \"cn\"\nto = \"mn\"", "from = \"mn\"\nto = \"ha\"");
    for r in [run(upload), run(|t| upload(t).replace("map = \"map\"\nmap_domain = [\"ar1\", \"ar2\"]\n", ""))] {
        let f = &r.summary.flows[0];
        assert!(f.packets_delivered > 4000, "{}", f.packets_delivered);
        assert_eq!(f.packets_sent, f.packets_delivered + f.packets_dropped + f.packets_in_flight);
        assert_eq!(r.summary.handovers.len(), 2);
    }
}
