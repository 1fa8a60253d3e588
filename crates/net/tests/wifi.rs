//! 802.11b DCF against theory: the saturation throughput of one station (closed form) and of n
//! stations (Bianchi, "Performance analysis of the IEEE 802.11 distributed coordination
//! function", JSAC 18(3), 2000), each station sending UDP to the access point as fast as the
//! MAC lets it.

use tcplab_net::wifi::phy::{Preamble, Timing, ACK_BYTES, CTS_BYTES, RTS_BYTES};
use tcplab_net::{RunOptions, Scenario, Simulation};

const PACKET: u32 = 1000;
const SECONDS: f64 = 10.0;

/// `n` stations 10 m around an access point, each with a saturating UDP flow to it; returns
/// the total throughput (bit/s) and the WLAN's timing.
fn saturated(n: usize, rate: &str, preamble: &str, rts: bool) -> (f64, Timing) {
    let mut text = format!("duration = \"{SECONDS}s\"\nrng = \"streams\"\nnodes = [\"ap\"");
    for i in 0..n {
        text += &format!(", \"s{i}\"");
    }
    text += "]\n[positions]\nap = [0, 0]\n";
    for i in 0..n {
        // all within a metre of each other: every station hears every other (no hidden nodes)
        text += &format!("s{i} = [10, {:.3}]\n", i as f64 * 0.01);
    }
    let rts_threshold = if rts { 0 } else { 3000 };
    text += &format!(
        "[[wlans]]\nnodes = [\"ap\"{}]\naccess_point = \"ap\"\nprofile = \"standard\"\ndata_rate = \"{rate}\"\npreamble = \"{preamble}\"\nrts_threshold = {rts_threshold}\n",
        (0..n).map(|i| format!(", \"s{i}\"")).collect::<String>()
    );
    for i in 0..n {
        text += &format!(
            "[[flows]]\nfrom = \"s{i}\"\nto = \"ap\"\nprotocol = \"udp\"\nrate = \"12Mb\"\npacket_size = {PACKET}\n"
        );
    }
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let timing = scenario.wlans[0].timing.clone();
    let result = Simulation::new(scenario, &RunOptions::default()).unwrap().finish().unwrap();
    (result.summary.flows.iter().map(|f| f.throughput_bps).sum(), timing)
}

/// One exchange's air time and gaps, without the backoff: (RTS, SIFS, CTS, SIFS,) DATA, SIFS, ACK.
fn exchange(t: &Timing, rts: bool) -> f64 {
    let basic = t.data(PACKET) + t.sifs + t.control(ACK_BYTES);
    if rts {
        t.control(RTS_BYTES) + t.sifs + t.control(CTS_BYTES) + t.sifs + basic
    } else {
        basic
    }
}

#[test]
fn one_station_matches_the_closed_form() {
    for rate in ["1Mb", "11Mb"] {
        for preamble in ["long", "short"] {
            for rts in [false, true] {
                let (got, t) = saturated(1, rate, preamble, rts);
                // every frame waits DIFS and a backoff of cw_min/2 slots on average
                let cycle = t.difs() + 15.5 * t.slot + exchange(&t, rts);
                let expected = PACKET as f64 * 8.0 / cycle;
                let error = (got - expected).abs() / expected;
                println!("{rate} {preamble} rts={rts}: {got:.0} b/s, closed form {expected:.0}");
                assert!(
                    error < 0.01,
                    "{rate} {preamble} rts={rts}: {got:.0} b/s, closed form {expected:.0} ({:.2}% off)",
                    error * 100.0
                );
            }
        }
    }
    assert_eq!(Timing { preamble: Preamble::Short, ..saturated(1, "2Mb", "short", false).1 }.plcp(), 96e-6);
}

/// Bianchi's saturation throughput for `n` stations (W = 32, m = 5 backoff stages). A
/// collision keeps the medium for the data frame and then EIFS, as the standard has it.
fn bianchi(n: usize, t: &Timing) -> f64 {
    let (w, m) = (32.0, 5);
    let tau_of = |p: f64| 2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m)));
    // p = 1 - (1 - tau(p))^(n-1) has one root in (0, 1): bisect
    let (mut lo, mut hi) = (0.0, 0.999);
    for _ in 0..200 {
        let p = 0.5 * (lo + hi);
        if 1.0 - (1.0 - tau_of(p)).powi(n as i32 - 1) > p {
            lo = p;
        } else {
            hi = p;
        }
    }
    let tau = tau_of(0.5 * (lo + hi));
    let ptr = 1.0 - (1.0 - tau).powi(n as i32);
    let ps = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / ptr;
    let ts = t.difs() + exchange(t, false);
    let tc = t.data(PACKET) + t.eifs();
    ps * ptr * PACKET as f64 * 8.0 / ((1.0 - ptr) * t.slot + ptr * ps * ts + ptr * (1.0 - ps) * tc)
}

#[test]
fn n_stations_match_bianchi() {
    for n in [5, 10, 20] {
        let (got, t) = saturated(n, "11Mb", "long", false);
        let expected = bianchi(n, &t);
        let error = (got - expected).abs() / expected;
        println!("{n} stations: {got:.0} b/s, Bianchi {expected:.0}");
        assert!(error < 0.05, "{n} stations: {got:.0} b/s, Bianchi {expected:.0} ({:.2}% off)", error * 100.0);
    }
}

#[test]
fn a_loss_model_at_a_receiver_corrupts_frames_that_the_mac_retries() {
    let text = format!(
        "duration = \"20s\"\nrng = \"streams\"\nnodes = [\"ap\", \"sta\"]\n[positions]\nap = [0, 0]\nsta = [10, 0]\n\
         [[wlans]]\nnodes = [\"ap\", \"sta\"]\naccess_point = \"ap\"\nprofile = \"standard\"\n\
         [[flows]]\nfrom = \"sta\"\nto = \"ap\"\nprotocol = \"udp\"\nrate = \"12Mb\"\npacket_size = {PACKET}\n\
         [[losses]]\nwlan = \"wlan0\"\nnode = \"ap\"\nmodel = \"uniform\"\nrate = 0.1\n"
    );
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let r = Simulation::new(scenario, &RunOptions::default()).unwrap().finish().unwrap();
    let sta = r.summary.radios.iter().find(|s| s.node == "sta").unwrap();
    // every attempt fails with 0.1: 1/9 retries per frame that gets through
    let per_frame = sta.mac.retries as f64 / (sta.mac.data - sta.mac.retries) as f64;
    assert!((per_frame - 1.0 / 9.0).abs() < 0.01, "{per_frame}");
    assert_eq!(
        r.summary.flows[0].packets_dropped as u64, sta.mac.queue_drops,
        "the MAC repairs every error (0.1^7 per frame)"
    );
}

/// The first lines of conformance/ns2-wifi/two-node-tcp.toml's wireless trace are ns-2.35's for
/// two-node-tcp.tcl, ARP exchange included: the SYN is held while node 0 broadcasts an ARP
/// request (5 µs in the ARP table, DIFS and 2 slots: the second draw of ns-2's generator, after
/// the TCP agent's one draw), node 1 answers after 15 slots (the fourth; node 0's post-backoff
/// took the third), with RTS/CTS since `RTSThreshold_` is 0; propagation at ns-2's 3·10⁸ m/s.
/// After them, the SYN's exchange shows the link layer's 25 µs each way: the receiver's MAC ACK
/// (SIFS after the frame) comes before its agent's receipt (25 µs after), which shows the MAC
/// header of the frame that brought it, and the IP next hop prints as 0 (DumbAgent sets none).
#[test]
fn ns2_profile_writes_ns2s_first_lines() {
    let ns2 = [
        "s 1.000000000 _0_ AGT  --- 0 tcp 40 [0 0 0 0] ------- [0:0 1:0 32 0] [0 0] 0 0",
        "s 1.000095000 _0_ MAC  --- 0 ARP 86 [0 ffffffff 0 806] ------- [REQUEST 0/0 0/1]",
        "r 1.000783333 _1_ MAC  --- 0 ARP 28 [0 ffffffff 0 806] ------- [REQUEST 0/0 0/1]",
        "s 1.001138333 _1_ MAC  --- 0 RTS 44 [52e 0 1 0] ",
        "r 1.001490667 _0_ MAC  --- 0 RTS 44 [52e 0 1 0] ",
        "s 1.001500667 _0_ MAC  --- 0 CTS 38 [3f4 1 0 0] ",
        "r 1.001805000 _1_ MAC  --- 0 CTS 38 [3f4 1 0 0] ",
        "s 1.001815000 _1_ MAC  --- 0 ARP 86 [13a 0 1 806] ------- [REPLY 1/1 0/0]",
        "r 1.002503333 _0_ MAC  --- 0 ARP 28 [13a 0 1 806] ------- [REPLY 1/1 0/0]",
        "s 1.002513333 _0_ MAC  --- 0 ACK 38 [0 1 0 0] ",
        "r 1.002817667 _1_ MAC  --- 0 ACK 38 [0 1 0 0] ",
    ];
    let text = format!(
        "{}\n[output]\ntrace = [\"ns2\"]\n",
        include_str!("../../../conformance/ns2-wifi/two-node-tcp.toml")
            .replace("duration = \"51s\"", "duration = \"1.02s\"")
    );
    let trace = ns2_trace("ns2", &text);
    let lines: Vec<&str> = trace.lines().collect();
    assert_eq!(&lines[..ns2.len()], &ns2[..]);
    let at = |l: &str| l.split(' ').nth(1).unwrap().parse::<f64>().unwrap();
    let i = lines.iter().position(|l| l.starts_with("s ") && l.contains("_0_ MAC  --- 0 tcp 98")).unwrap();
    assert!(lines[i].ends_with("[13a 1 0 800] ------- [0:0 1:0 32 0] [0 0] 0 0"), "{}", lines[i]);
    let rx = &lines[i + 1..i + 4];
    assert!(
        rx[0].starts_with("r ")
            && rx[0].ends_with("_1_ MAC  --- 0 tcp 40 [13a 1 0 800] ------- [0:0 1:0 32 0] [0 0] 1 0"),
        "{rx:?}"
    );
    assert!(rx[1].ends_with("_1_ MAC  --- 0 ACK 38 [0 0 0 0] ") && rx[1].starts_with("s "), "{rx:?}");
    assert!(rx[2].ends_with("_1_ AGT  --- 0 tcp 40 [13a 1 0 800] ------- [0:0 1:0 32 0] [0 0] 1 0"), "{rx:?}");
    assert!((at(rx[1]) - at(rx[0]) - 10e-6).abs() < 2e-9, "SIFS: {rx:?}");
    assert!((at(rx[2]) - at(rx[0]) - 25e-6).abs() < 2e-9, "LL delay: {rx:?}");
}

#[test]
fn ns2_profile_writes_an_m_line_at_each_setdest_before_the_actions_of_its_instant() {
    // mobilenode.cc `log_movement` at each `setdest` (the translator writes them before the
    // flows' `$ns at`): n1 heads from (200, 100) for (400, 100) at 100 m/s from 0.5 s; at 1 s,
    // 50 m along, a second move cuts it short there: (250, 100), with the flow's start line
    // after; the run ends at 1.01 s, and the script's lines of that instant still run (before
    // `finish`): 0.025 m along (-39.5, -80) / 89.22 from (250, 100) is (249.99, 99.98)
    let text = include_str!("../../../conformance/ns2-wifi/two-node-tcp.toml")
        .replace("duration = \"51s\"", "duration = \"1.01s\"")
        + "[[moves]]\nnode = \"n1\"\nat = \"0.5s\"\nto = [400, 100]\nspeed = 100\n\n\
           [[moves]]\nnode = \"n1\"\nat = \"1s\"\nto = [210.5, 20]\nspeed = 2.5\n\n\
           [[moves]]\nnode = \"n1\"\nat = \"1.01s\"\nto = [300, 300]\nspeed = 1\n\n\
           [output]\ntrace = [\"ns2\"]\n";
    let trace = ns2_trace("moves", &text);
    let lines: Vec<&str> = trace.lines().collect();
    assert_eq!(
        &lines[..3],
        [
            "M 0.50000 1 (200.00, 100.00, 0.00), (400.00, 100.00), 100.00",
            "M 1.00000 1 (250.00, 100.00, 0.00), (210.50, 20.00), 2.50",
            "s 1.000000000 _0_ AGT  --- 0 tcp 40 [0 0 0 0] ------- [0:0 1:0 32 0] [0 0] 0 0",
        ]
    );
    assert_eq!(lines.last(), Some(&"M 1.01000 1 (249.99, 99.98, 0.00), (300.00, 300.00), 1.00"));
}

/// The ns-2 trace of a scenario given as TOML text (its `[output]` asks for it), run in a
/// scratch folder named after `name`.
fn ns2_trace(name: &str, toml: &str) -> String {
    let dir = std::env::temp_dir().join(format!("tcplab-wifi-{name}-{}", std::process::id()));
    let scenario = Scenario::from_toml(toml).unwrap();
    let opts = RunOptions { out_dir: Some(dir.clone()), ..RunOptions::default() };
    Simulation::new(scenario, &opts).unwrap().finish().unwrap();
    let trace = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    trace
}
