use super::*;
use crate::wifi::config::BaseStation;

const GOOD: &str = r#"
name = "t"
duration = "10s"
nodes = ["a", "r", "b", "island"]

[tcp]
window = 17

[[links]]
from = "a"
to = "r"
bandwidth = "10Mb"
delay = "10ms"

[[links]]
from = "r"
to = "b"
bandwidth = "2Mb"
delay = "50ms"
queue = "red"
queue_limit = 25

[[flows]]
name = "A"
from = "a"
to = "b"
protocol = "reno"
packet_size = "1460B"

[flows.tcp]
minrto = "1s"

[[flows]]
name = "C"
from = "b"
to = "a"
protocol = "udp"
rate = "64kb"
start = 1
"#;

#[test]
fn folder_names_stay_one_harmless_component() {
    for (name, folder) in [
        ("dumbbell-1.5", "dumbbell-1.5"),
        ("../../etc", ".._.._etc"),
        ("a b\tc//d", "a_b_c_d"),
        ("_x__y_", "x__y"),
        ("Vegas über alles", "Vegas_ber_alles"),
        ("..", "scenario"),
        ("/", "scenario"),
        ("", "scenario"),
    ] {
        assert_eq!(folder_name(name, "scenario"), folder, "{name:?}");
    }
}

#[test]
fn a_good_scenario_resolves_names_units_and_knobs() {
    let s = Scenario::from_toml(GOOD).unwrap();
    assert_eq!(s.duration, Time::from_secs(10));
    assert_eq!((s.links[1].a, s.links[1].b, s.links[1].bandwidth_bps), (1, 2, 2_000_000));
    assert_eq!(s.links[1].delay, Time::from_millis(50));
    assert!(matches!(s.links[1].queue.kind, QueueKind::Red(ref r) if *r == RedParams::default()));
    assert_eq!(s.links[0].queue.limit, 50);
    match &s.flows[0].transport {
        Transport::Tcp(t) => {
            let (variant, params, sink) = (&t.variant, &t.params, &t.sink);
            assert_eq!((*variant, t.profile), (TcpVariant::Reno, Profile::Ns2));
            assert_eq!(
                *sink,
                SinkConfig {
                    sack: false,
                    delack: None,
                    syn_immediate_ack: true,
                    rfc2581_immediate_ack: true,
                    ts_echo_rfc1323: false,
                    ecn_syn: false
                }
            );
            assert_eq!((params.window, params.packet_size, params.minrto), (17, 1460, 1.0));
            assert_eq!(params.maxrto, 60.0, "untouched knobs keep ns-2's defaults");
        }
        t => panic!("{t:?}"),
    }
    assert_eq!(s.flows[1].app, AppConfig::Cbr { rate_bps: 64_000, size: 210, random: false, packets: None });
    assert_eq!(s.flows[1].start, Time::from_secs(1));
}

/// A value of the wrong type is told in the scenario's terms, not serde's.
#[test]
fn wrong_types_say_what_the_field_takes() {
    let cases = [
        ("duration = \"10s\"", "duration = true", "duration", "expected a number or a string with its unit"),
        ("delay = \"50ms\"", "delay = [1]", "links[1].delay", "expected a number or a string with its unit"),
        ("bandwidth = \"2Mb\"", "bandwidth = \"1e308Mb\"", "links[1].bandwidth", "too fast"),
        ("window = 17", "window = 17\ntimestamps = \"yes\"", "tcp.timestamps", "expected true or false"),
    ];
    for (from, to, path, says) in cases {
        let e = Scenario::from_toml(&GOOD.replacen(from, to, 1)).expect_err(to);
        assert_eq!(e.path, path, "{e}");
        assert!(e.message.contains(says) && !e.message.contains("untagged"), "{e}");
    }
}

#[test]
fn json_gives_the_same_scenario() {
    let json = r#"{"duration": "5s", "nodes": ["a","b"], "links": [{"from":"a","to":"b","bandwidth":"1Mb","delay":"1ms"}],
                   "flows": [{"from":"a","to":"b","protocol":"tahoe","tcp":{"window":8}}]}"#;
    let s = Scenario::parse(json, Format::Json).unwrap();
    assert_eq!(s.flows[0].name, "flow0");
    let bad = json.replace("\"window\":8", "\"windw\":8");
    let e = Scenario::parse(&bad, Format::Json).unwrap_err();
    assert_eq!(e.path, "flows[0].tcp.windw");
    assert!(e.message.contains("windw"), "{e}");
}

/// Each broken scenario must fail with exactly this field path, and a one-line message.
#[test]
fn malformed_scenarios_name_the_field() {
    let cases: &[(&str, &str, &str)] = &[
        ("bandwidth = \"10Mb\"", "bandwidth = \"2 Mbs\"", "links[0].bandwidth"),
        ("delay = \"10ms\"", "delay = \"-10ms\"", "links[0].delay"),
        ("protocol = \"reno\"", "protocol = \"cubic\"", "flows[0].protocol"),
        ("to = \"b\"\nprotocol", "to = \"mars\"\nprotocol", "flows[0].to"),
        ("duration = \"10s\"", "", "duration"),
        ("nodes = [\"a\", \"r\", \"b\", \"island\"]", "", "nodes"),
        ("to = \"b\"\nprotocol", "to = \"island\"\nprotocol", "flows[0].to"),
        ("queue_limit = 25", "queue_limit = 0", "links[1].queue_limit"),
        ("packet_size = \"1460B\"", "packet_size = \"10GB\"", "flows[0].packet_size"),
        ("window = 17", "window = -3", "tcp.window"),
        ("minrto = \"1s\"", "minrto = \"1 fortnight\"", "flows[0].tcp.minrto"),
        ("minrto = \"1s\"", "min_rto = \"1s\"", "flows[0].tcp.min_rto"),
        ("minrto = \"1s\"", "srtt_init = \"0.5s\"", "flows[0].tcp.srtt_init"),
        ("queue = \"red\"", "queue = \"codel\"", "links[1].queue"),
        ("name = \"C\"", "name = \"A\"", "flows[1].name"),
        ("start = 1", "start = 1\nstop = 0.5", "flows[1].stop"),
        ("rate = \"64kb\"", "rate = \"64kb\"\npackets = 0", "flows[1].packets"),
        ("duration = \"10s\"", "duration = \"10s\"\nseed = -4", "seed"),
        ("nodes = [\"a\", \"r\", \"b\", \"island\"]", "nodes = [\"a\", \"r\", \"b\", \"a\"]", "nodes[3]"),
        ("from = \"a\"\nto = \"b\"", "from = \"a\"\nto = \"a\"", "flows[0].to"),
        ("name = \"t\"", "name = \"t\"\nprofile = 3", "profile"),
        ("[tcp]", "[tcpp]", "tcpp"),
        ("bandwidth = \"10Mb\"", "bandwidth = \"10Tb\"\nbandwidth2 = 1", "links[0].bandwidth2"),
        ("[tcp]", "[output]\ninterval = \"0s\"\n[tcp]", "output.interval"),
        ("[tcp]", "[output]\ninterval = \"soon\"\n[tcp]", "output.interval"),
        ("protocol = \"reno\"\npacket_size = \"1460B\"\n\n[flows.tcp]\nminrto = \"1s\"", "protocol = \"udp\"", "tcp"),
        ("minrto = \"1s\"", "frto = 2", "flows[0].tcp.frto"),
        ("minrto = \"1s\"", "spurious_response = 4", "flows[0].tcp.spurious_response"),
        (
            "protocol = \"reno\"\npacket_size = \"1460B\"\n\n[flows.tcp]\nminrto = \"1s\"",
            "protocol = \"fack\"\npacket_size = \"1460B\"\n\n[flows.tcp]\nfrto = true",
            "flows[0].tcp.frto",
        ),
        (
            "protocol = \"reno\"\npacket_size = \"1460B\"\n\n[flows.tcp]\nminrto = \"1s\"",
            "protocol = \"vegas\"\npacket_size = \"1460B\"\n\n[flows.tcp]\nsfrto = true",
            "flows[0].tcp.sfrto",
        ),
        // the traffic sources and their fields
        ("delay = \"10ms\"", "delay = \"10ms\"\n[links.reverse_red]\nbytes = true", "links[0].reverse_red"),
        ("delay = \"10ms\"", "delay = \"10ms\"\n[links.droptail]\necn_threshold = -1", "links[0].droptail.ecn_threshold"),
        ("protocol = \"reno\"", "protocol = \"reno\"\nsink = \"linux\"", "flows[0].sink"),
        ("protocol = \"reno\"", "protocol = \"reno\"\nreceiver = { ack_every = 1 }", "flows[0].receiver"),
        ("protocol = \"reno\"", "protocol = \"newreno\"\nprofile = \"rfc\"\nsink = \"linux\"\nreceiver = { ack_every = 0 }", "flows[0].receiver.ack_every"),
        ("protocol = \"reno\"", "protocol = \"newreno\"\nprofile = \"rfc\"\nsink = \"linux\"\nreceiver = { ato_min = 0 }", "flows[0].receiver.ato_min"),
        ("protocol = \"reno\"", "protocol = \"newreno\"\nprofile = \"rfc\"\nsink = \"linux\"\nreceiver = { sack_compress_delay = \"-1ms\" }", "flows[0].receiver.sack_compress_delay"),
        ("protocol = \"reno\"", "protocol = \"newreno\"\nprofile = \"rfc\"\nsink = \"linux\"\nreceiver = { timestamps = false }", "flows[0].receiver.timestamps"),
        ("protocol = \"reno\"", "protocol = \"newreno\"\nprofile = \"rfc\"\nsink = \"linux\"\nreceiver = { ecn = \"l4s\" }", "flows[0].receiver.ecn"),
        ("protocol = \"reno\"", "protocol = \"newreno\"\nprofile = \"rfc\"\nsink = \"linux\"\nreceiver = { quickacks = 2 }", "flows[0].receiver.quickacks"),
        ("protocol = \"reno\"", "protocol = \"newreno\"\nprofile = \"rfc\"\nsink = \"linux\"\ntcpsink = { ecn_syn = true }", "flows[0].tcpsink"),
        ("queue_limit = 25", "queue_limit = 25\n[links.reverse_red]\nthresh = -1", "links[1].reverse_red.thresh"),
        ("rate = \"64kb\"", "app = \"trace\"", "flows[1].records"),
        ("rate = \"64kb\"", "app = \"trace\"\nrecords = [[100, 0]]", "flows[1].records[0]"),
        ("rate = \"64kb\"", "app = \"trace\"\nrecords = [[100]]", "flows[1].records[0]"),
        ("protocol = \"reno\"", "protocol = \"reno\"\napp = \"pareto\"", "flows[0].app"),
        ("rate = \"64kb\"", "rate = \"64kb\"\ninterval = 0.5", "flows[1].interval"),
        ("rate = \"64kb\"", "app = \"exponential\"\nshape = 1.5", "flows[1].shape"),
        ("rate = \"64kb\"", "app = \"pareto\"\nshape = 0.9", "flows[1].shape"),
        ("rate = \"64kb\"", "app = \"pareto\"\nburst_time = 0", "flows[1].burst_time"),
        ("protocol = \"reno\"", "protocol = \"reno\"\nburst_time = \"1s\"", "flows[0].burst_time"),
        (
            "start = 1",
            "start = 1\n[[actions]]\nat = 2\nflow = \"A\"\ndo = \"set_interval\"\ninterval = 1",
            "actions[0].do",
        ),
        (
            "protocol = \"udp\"\nrate = \"64kb\"\nstart = 1",
            "protocol = \"reno\"\napp = \"telnet\"\n[[actions]]\nat = 2\nflow = \"C\"\ndo = \"set_interval\"",
            "actions[0].interval",
        ),
        (
            "protocol = \"udp\"\nrate = \"64kb\"\nstart = 1",
            "protocol = \"reno\"\napp = \"cbr\"\n[[actions]]\nat = 2\nflow = \"C\"\ndo = \"set_interval\"\ninterval = 0",
            "actions[0].interval",
        ),
        (
            "protocol = \"reno\"\npacket_size = \"1460B\"\n\n[flows.tcp]\nminrto = \"1s\"",
            "protocol = \"fack\"\npacket_size = \"1460B\"\n\n[flows.tcp]\nqoption = true",
            "flows[0].tcp.qoption",
        ),
        ("minrto = \"1s\"", "control_increase = 3", "flows[0].tcp.control_increase"),
        ("start = 1", "start = 1\n[[delay_spikes]]\nlink = \"a->b\"\nat = 1\nlength = 1", "delay_spikes[0].link"),
        ("start = 1", "start = 1\n[[delay_spikes]]\nlink = \"a->r\"\nat = 11\nlength = 1", "delay_spikes[0].at"),
        ("start = 1", "start = 1\n[[delay_spikes]]\nlink = \"a->r\"\nat = 1", "delay_spikes[0].length"),
    ];
    for (from, to, path) in cases {
        assert!(GOOD.contains(from), "case {path}: pattern {from:?} not in the good scenario");
        let text = GOOD.replacen(from, to, 1);
        let e = Scenario::from_toml(&text).expect_err(&format!("case {path} should fail"));
        assert_eq!(&e.path, path, "wrong path for {to:?}: {e}");
        assert!(!e.to_string().contains('\n'), "message must be one line: {e}");
    }
}

#[test]
fn toml_syntax_errors_name_the_file_on_one_line_with_a_line_number() {
    let e = Scenario::parse_from("duration = \"10s\"\nnodes = [\"a\"\n", Format::Toml, "x/dumb.toml").unwrap_err();
    assert_eq!(e.path, "x/dumb.toml");
    assert!(e.message.contains("(line 3, column 1)"), "{e}");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn the_name_defaults_to_the_file_stem() {
    let text = GOOD.replace("name = \"t\"\n", "");
    assert_eq!(Scenario::parse_from(&text, Format::Toml, "some/dir/ee-reno.toml").unwrap().name, "ee-reno");
    assert_eq!(Scenario::from_toml(&text).unwrap().name, "scenario");
}

#[test]
fn json_syntax_errors_name_the_file_with_a_line_number() {
    for text in ["{\n  \"duration\": \"5s\",\n}", "{\"links\": [{\"from\": \"a\" \"to\": 1}]}", "{\"duration\": \"5s\""]
    {
        let e = Scenario::parse_from(text, Format::Json, "x/dumb.json").unwrap_err();
        assert_eq!(e.path, "x/dumb.json", "{text}: {e}");
        assert!(e.message.contains("line "), "{e}");
    }
}

#[test]
fn the_normalized_form_spells_out_every_default() {
    let s = Scenario::from_toml(GOOD).unwrap();
    let v: serde_json::Value = serde_json::from_str(&s.normalized_json()).unwrap();
    assert_eq!(v["duration_s"], 10.0);
    assert_eq!(v["links"][1]["from"], 1);
    assert_eq!(v["links"][1]["delay_s"], 0.05);
    assert_eq!(v["links"][1]["queue"]["limit"], 25);
    assert_eq!(v["links"][1]["queue"]["kind"], "red");
    assert_eq!(v["links"][1]["queue"]["q_weight"], -1.0);
    assert_eq!(v["links"][0]["queue"]["kind"], "droptail");
    assert_eq!(v["links"][0]["queue"]["ecn_threshold"], serde_json::Value::Null);
    let a = &v["flows"][0];
    assert_eq!((&a["transport"], &a["variant"], &a["app"]), (&"tcp".into(), &"reno".into(), &"ftp".into()));
    assert_eq!((&a["sink"]["sack"], &a["sink"]["delack_interval_s"]), (&false.into(), &serde_json::Value::Null));
    assert_eq!(a["params"]["window"], 17);
    assert_eq!(a["params"]["minrto"], 1.0);
    assert_eq!(a["params"]["tcp_tick"], 0.01);
    assert_eq!(a["stop_s"], serde_json::Value::Null);
    let c = &v["flows"][1];
    assert_eq!(
        (&c["transport"], &c["app"], &c["rate_bps"], &c["start_s"]),
        (&"udp".into(), &"cbr".into(), &64000.into(), &1.0.into())
    );
}

/// `sink = "linux"`: Linux's defaults for the flow's window, ECN echoed as the sender (here
/// with `tcp.ecn`) asks, each field over them; it has no `reset_sink`.
/// `protocol = "cubic"` (and reno, bbr, dctcp) in the rfc profile is the modern sender with
/// Linux's defaults: 1448 + 52 B segments, initial window 10, minimum RTO 200 ms, the Linux
/// receiver; DCTCP turns ECN on and gets DCTCP's echo. In the ns-2 profile cubic is an error
/// naming `protocol` that suggests the rfc profile, and `[modern]` belongs to these flows only.
#[test]
fn the_modern_protocols_take_linux_defaults() {
    let flow = |protocol: &str, extra: &str| {
        let text = GOOD
            .replace("protocol = \"reno\"", &format!("protocol = \"{protocol}\"\nprofile = \"rfc\"\n{extra}"))
            .replace("packet_size = \"1460B\"\n", "");
        Scenario::from_toml(&text).map(|s| match &s.flows[0].transport {
            Transport::Tcp(t) => t.as_ref().clone(),
            Transport::Udp => panic!("a TCP flow"),
        })
    };
    let t = flow("cubic", "").unwrap();
    assert_eq!((t.variant, t.params.packet_size, t.params.tcpip_base_hdr_size), (TcpVariant::Cubic, 1448, 52));
    assert_eq!(
        (t.params.initial_window(), t.params.minrto, t.params.ecn),
        (10.0, 1.0, false),
        "flows.tcp sets minrto 1s"
    );
    assert_eq!(t.modern, Some(ModernConfig::default()));
    assert_eq!(t.receiver.map(|r| r.ecn), Some(EcnEcho::Off), "the linux receiver by default");
    let t = flow("reno", "[flows.modern]\nfq_pacing = true\nrack = false\nhandshake = false").unwrap();
    let modern = ModernConfig { fq_pacing: true, rack: false, handshake: false, ..ModernConfig::default() };
    assert_eq!(t.modern, Some(modern));
    let t = flow("dctcp", "").unwrap();
    assert_eq!((t.params.ecn, t.receiver.map(|r| r.ecn)), (true, Some(EcnEcho::Dctcp)));
    let no_minrto = GOOD
        .replace("[flows.tcp]\nminrto = \"1s\"\n", "")
        .replace("protocol = \"reno\"", "protocol = \"bbr\"\nprofile = \"rfc\"");
    let s = Scenario::from_toml(&no_minrto).unwrap();
    let Transport::Tcp(t) = &s.flows[0].transport else { panic!("a TCP flow") };
    assert_eq!(t.params.minrto, 0.2);

    let e = Scenario::from_toml(&GOOD.replace("protocol = \"reno\"", "protocol = \"bbr\"")).unwrap_err();
    assert_eq!((e.path.as_str(), e.message.contains("profile = \"rfc\"")), ("flows[0].protocol", true), "{e}");
    let e = flow("newreno", "modern = { tlp = false }").unwrap_err();
    assert_eq!(e.path, "flows[0].modern", "{e}");
    let e = flow("cubic", "pacing = { depth = 2 }").unwrap_err();
    assert_eq!(e.path, "flows[0].pacing", "{e}");
    let e = flow("cubic", "modern = { seed = -1 }").unwrap_err();
    assert_eq!(e.path, "flows[0].modern.seed", "{e}");
    let e = Scenario::from_toml(&format!("{GOOD}\n[modern]\nrack = false\n")).unwrap_err();
    assert_eq!(e.path, "modern", "{e}");
}

#[test]
fn the_linux_receiver_takes_linux_defaults_and_its_fields() {
    let with = |extra: &str| {
        let text = GOOD
            .replace(
                "protocol = \"reno\"",
                &format!("protocol = \"newreno\"\nprofile = \"rfc\"\nsink = \"linux\"\n{extra}"),
            )
            .replace("minrto = \"1s\"", "minrto = \"1s\"\necn = true");
        let s = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
        let Transport::Tcp(t) = &s.flows[0].transport else { panic!("a TCP flow") };
        t.receiver.expect("the linux receiver")
    };
    let window = Scenario::from_toml(&GOOD.replace("protocol = \"reno\"", "protocol = \"newreno\"\nprofile = \"rfc\""))
        .map(|s| match &s.flows[0].transport {
            Transport::Tcp(t) => t.params.window,
            Transport::Udp => 0,
        })
        .unwrap();
    assert_eq!(with(""), ReceiverConfig { ecn: EcnEcho::Rfc3168, ..ReceiverConfig::linux(window) });
    let r = with("receiver = { ack_every = 1, delack_max = \"500ms\", max_quickacks = 0, sack_compress_nr = 0 }");
    assert_eq!((r.ack_every, r.delack_max_s, r.max_quickacks, r.ecn), (1, 0.5, 0, EcnEcho::Rfc3168));
    assert_eq!((r.sack_compress_nr, r.sack_compress_s), (0, 0.001));
    let r = with("receiver = { ecn = \"off\", dsack = false }");
    assert_eq!((r.ecn, r.dsack), (EcnEcho::Off, false));
    let reset = GOOD.replace("protocol = \"reno\"", "protocol = \"newreno\"\nprofile = \"rfc\"\nsink = \"linux\"")
        + "\n[[actions]]\nat = 2\nflow = \"A\"\ndo = \"reset_sink\"\n";
    let e = Scenario::from_toml(&reset).unwrap_err();
    assert_eq!((e.path.as_str(), e.message.contains("no reset")), ("actions[0].do", true), "{e}");
}

#[test]
fn resets_go_to_ns2_senders_and_sinks_whose_reset_is_modelled() {
    let with = |what: &str, protocol: &str| {
        let text = GOOD.replace("protocol = \"reno\"", &format!("protocol = \"{protocol}\""))
            + &format!("\n[[actions]]\nat = \"2s\"\nflow = \"A\"\ndo = \"{what}\"\n");
        Scenario::from_toml(&text)
    };
    let s = with("reset", "rfc793edu").unwrap();
    assert_eq!(s.actions.last().map(|a| a.kind), Some(ActionKind::Reset));
    assert_eq!(with("reset_sink", "vegas").unwrap().actions.last().map(|a| a.kind), Some(ActionKind::ResetSink));
    let e = with("reset", "vegas").unwrap_err();
    assert_eq!((e.path.as_str(), e.message.contains("fack and rfc793edu")), ("actions[0].do", true), "{e:?}");
}

#[test]
fn actions_follow_the_flows_own_starts_and_stops() {
    let text = GOOD.replace("start = 1\n", "start = 1\nstop = 5\n")
        + "\n[[actions]]\nat = \"2s\"\nflow = \"A\"\ndo = \"producemore\"\npackets = 10\n";
    let s = Scenario::from_toml(&text).unwrap();
    let kinds: Vec<(usize, ActionKind)> = s.actions.iter().map(|a| (a.flow, a.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            (0, ActionKind::Start),
            (1, ActionKind::Start),
            (1, ActionKind::Stop),
            (0, ActionKind::ProduceMore { packets: 10 })
        ]
    );
    // A flow started only by an action has no implicit start at 0.
    let late = GOOD.replace(
        "[[flows]]\nname = \"C\"",
        "[[actions]]\nat = 3\nflow = \"A\"\ndo = \"start\"\n\n[[flows]]\nname = \"C\"",
    );
    let s = Scenario::from_toml(&late).unwrap();
    let a: Vec<Time> = s.actions.iter().filter(|a| a.flow == 0).map(|a| a.at).collect();
    assert_eq!(a, vec![Time::from_secs(3)]);
    assert_eq!(s.flows[0].start, Time::from_secs(3));
    let bad = text.replace("do = \"producemore\"", "do = \"explode\"");
    assert_eq!(Scenario::from_toml(&bad).unwrap_err().path, "actions[0].do");
    // An action may come at the end itself (ns-2 runs it before its halt), not after.
    let at = |t: &str| Scenario::from_toml(&text.replace("at = \"2s\"", &format!("at = \"{t}\"")));
    assert_eq!(at("10s").unwrap().actions[3].at, Time::from_secs(10));
    let late = at("10.000000001s").unwrap_err();
    assert_eq!((late.path.as_str(), late.message.contains("after the end")), ("actions[0].at", true), "{late:?}");
    // The end as ns-2's clock holds it: 700 x 0.001 s is just after 0.7 s.
    let short = |t: &str| {
        Scenario::from_toml(
            &text
                .replace("duration = \"10s\"", "duration = \"700ms\"")
                .replace("start = 1\nstop = 5", "start = 0.1\nstop = 0.5")
                .replace("at = \"2s\"", &format!("at = \"{t}\"")),
        )
    };
    assert_eq!(short("0.7s").unwrap().actions[3].at_s, 0.7);
    let ms = short("700ms").unwrap_err();
    assert!(ms.path == "actions[0].at" && ms.message.contains("write it as \"0.7s\""), "{ms:?}");
}

#[test]
fn seeds_fit_the_generator() {
    assert_eq!(check_seed(RngMode::Ns2, 7, "seed"), Ok(7));
    assert_eq!(check_seed(RngMode::Ns2, 0, "--seed").unwrap_err().path, "--seed");
    assert!(check_seed(RngMode::Ns2, 1 << 40, "seed").is_err());
    assert_eq!(check_seed(RngMode::Streams, 0, "seed"), Ok(0));
    assert_eq!(check_seed(RngMode::Streams, 1 << 40, "seed"), Ok(1 << 40));
    assert!(check_seed(RngMode::Streams, -1, "seed").is_err());
}

#[test]
fn ipv6_headers_unless_the_scenario_sets_its_own() {
    let header = |text: &str| match &Scenario::from_toml(text).unwrap().flows[0].transport {
        Transport::Tcp(t) => t.params.tcpip_base_hdr_size,
        t => panic!("{t:?}"),
    };
    assert_eq!(header(GOOD), 40);
    let v6 = GOOD.replacen("duration", "ip_version = 6\nduration", 1);
    assert_eq!(header(&v6), 60);
    assert_eq!(header(&v6.replacen("window = 17", "window = 17\ntcpip_base_hdr_size = 44", 1)), 44);
    let bad = GOOD.replacen("duration", "ip_version = 5\nduration", 1);
    assert_eq!(Scenario::from_toml(&bad).unwrap_err().path, "ip_version");
}

#[test]
fn vegas_epoch_rtt_is_a_field() {
    let text = GOOD.replacen(
        "protocol = \"reno\"",
        "protocol = \"vegas\"\nprofile = \"rfc\"\nvegas = { epoch_rtt = \"min\" }",
        1,
    );
    match &Scenario::from_toml(&text).unwrap().flows[0].transport {
        Transport::Tcp(t) => assert_eq!(t.vegas.as_ref().unwrap().epoch_rtt, tcplab_cc::EpochRtt::Min),
        t => panic!("{t:?}"),
    }
    let bad = text.replace("\"min\"", "\"mean\"");
    assert_eq!(Scenario::from_toml(&bad).unwrap_err().path, "flows[0].vegas.epoch_rtt");
}

#[test]
fn every_trace_name_turns_on_a_writer_of_its_own() {
    let mut seen = Vec::new();
    for name in Traces::NAMES {
        let mut t = Traces::default();
        assert!(t.enable(name), "{name} names no writer");
        assert!(t != Traces::default() && !seen.contains(&t), "{name} turns on no writer of its own");
        seen.push(t);
    }
    assert!(!Traces::default().enable("xgraph"));
}

#[test]
fn slips_get_the_name_meant() {
    let cases = [
        ("bandwidth = ", "bandwdith = ", "did you mean `bandwidth`?"),
        ("[tcp]\n", "[tcp]\nwindow_ = 20\n", "drops the trailing underscore: `window`"),
        ("protocol = \"reno\"", "protocol = \"Reno\"", "did you mean \"reno\"?"),
        ("bandwidth = \"10Mb\"", "bandwidth = \"10MB\"", "write \"10Mb\" for 10 Mb/s"),
    ];
    for (from, to, hint) in cases {
        assert!(GOOD.contains(from), "pattern {from:?} not in the good scenario");
        let e = Scenario::from_toml(&GOOD.replacen(from, to, 1)).expect_err(to);
        assert!(e.message.contains(hint), "{to:?}: {e}");
    }
}

/// Two real hosts on a simulated link, and no simulated flow: an emulation's scenario.
const HOSTS: &str = r#"
duration = "10s"
nodes = ["a", "b"]
links = [{ from = "a", to = "b", bandwidth = "10Mb", delay = "20ms" }]

[[hosts]]
name = "ha"
node = "a"
address = "10.0.1.2/24"

[[hosts.run]]
command = "sleep 1"
start = "1s"

[[hosts]]
name = "hb"
node = "b"
address = "10.0.2.2/24"
gateway = "10.0.2.254"
"#;

#[test]
fn hosts_are_read_with_their_gateways_and_commands() {
    let s = Scenario::from_toml(HOSTS).expect("valid");
    assert!(s.flows.is_empty(), "a scenario of real hosts needs no flows");
    let (a, b) = (&s.hosts[0], &s.hosts[1]);
    assert_eq!((a.name.as_str(), a.node, a.address.to_string()), ("ha", 0, "10.0.1.2/24".to_string()));
    assert_eq!(a.gateway, std::net::Ipv4Addr::new(10, 0, 1, 1), "the subnet's first address by default");
    assert_eq!(b.gateway, std::net::Ipv4Addr::new(10, 0, 2, 254));
    assert_eq!((a.run[0].command.as_str(), a.run[0].start), ("sleep 1", Time::from_secs(1)));
    let json = s.normalized_json();
    assert!(json.contains(r#""address":"10.0.1.2/24""#) && json.contains(r#""gateway":"10.0.1.1""#), "{json}");
    // without hosts the normalized scenario is as before: no hosts key
    assert!(!Scenario::from_toml(GOOD).expect("valid").normalized_json().contains("hosts"));
}

#[test]
fn a_bad_host_field_is_named() {
    let cases = [
        ("name = \"ha\"", "name = \"Host A\"", "hosts[0].name"),
        ("name = \"ha\"", "name = \"a-very-long-name\"", "hosts[0].name"),
        ("name = \"hb\"", "name = \"ha\"", "hosts[1].name"),
        ("node = \"a\"", "node = \"c\"", "hosts[0].node"),
        ("node = \"a\"", "", "hosts[0].node"),
        ("address = \"10.0.1.2/24\"", "address = \"10.0.1.2\"", "hosts[0].address"),
        ("address = \"10.0.1.2/24\"", "address = \"10.0.1.0/24\"", "hosts[0].address"),
        ("address = \"10.0.2.2/24\"", "address = \"10.0.1.2/24\"", "hosts[1].address"),
        ("gateway = \"10.0.2.254\"", "gateway = \"10.0.3.1\"", "hosts[1].gateway"),
        ("gateway = \"10.0.2.254\"", "gateway = \"10.0.2.2\"", "hosts[1].gateway"),
        ("command = \"sleep 1\"", "", "hosts[0].run[0].command"),
        ("start = \"1s\"", "start = \"10s\"", "hosts[0].run[0].start"),
        ("start = \"1s\"", "begin = \"1s\"", "hosts[0].run[0]"),
    ];
    for (from, to, path) in cases {
        assert!(HOSTS.contains(from), "case {path}: pattern {from:?} not in the scenario");
        let text = HOSTS.replacen(from, to, 1);
        let e = Scenario::from_toml(&text).expect_err(&format!("case {path} should fail"));
        assert!(e.path.starts_with(path), "wrong path for {to:?}: {e}");
        assert!(!e.to_string().contains('\n'), "message must be one line: {e}");
    }
    // a scenario without hosts still needs flows
    let e = Scenario::from_toml(&HOSTS[..HOSTS.find("[[hosts]]").expect("hosts")]).expect_err("no flows");
    assert_eq!(e.path, "flows");
}

#[test]
fn a_hosts_ipv6_address_and_gateway_are_read_and_checked() {
    let v6 = HOSTS.replacen("address = \"10.0.1.2/24\"", "address = \"10.0.1.2/24\"\naddress6 = \"fd00:1::2/64\"", 1);
    let v6 = v6.replacen(
        "gateway = \"10.0.2.254\"",
        "gateway = \"10.0.2.254\"\naddress6 = \"fd00:2::2/64\"\ngateway6 = \"fd00:2::fe\"",
        1,
    );
    let s = Scenario::from_toml(&v6).expect("valid");
    let (a, b) = (&s.hosts[0], &s.hosts[1]);
    assert_eq!(a.address6.map(|p| p.to_string()).as_deref(), Some("fd00:1::2/64"));
    assert_eq!(a.gateway6, Some("fd00:1::1".parse().unwrap()), "the prefix's first address by default");
    assert_eq!(b.gateway6, Some("fd00:2::fe".parse().unwrap()));
    assert!(s.normalized_json().contains(r#""address6":"fd00:1::2/64","gateway6":"fd00:1::1""#));
    assert!(Scenario::from_toml(HOSTS).expect("valid").hosts[0].address6.is_none());
    let cases = [
        ("address6 = \"fd00:1::2/64\"", "address6 = \"fd00:1::2\"", "hosts[0].address6"),
        ("address6 = \"fd00:1::2/64\"", "address6 = \"10.0.0.1/8\"", "hosts[0].address6"),
        ("address6 = \"fd00:2::2/64\"", "address6 = \"fd00:1::2/64\"", "hosts[1].address6"),
        ("gateway6 = \"fd00:2::fe\"", "gateway6 = \"fd00:3::1\"", "hosts[1].gateway6"),
        ("address6 = \"fd00:2::2/64\"\n", "", "hosts[1].gateway6"),
    ];
    for (from, to, path) in cases {
        assert!(v6.contains(from), "case {path}: pattern {from:?} not in the scenario");
        let e = Scenario::from_toml(&v6.replacen(from, to, 1)).expect_err(&format!("case {path} should fail"));
        assert!(e.path.starts_with(path), "wrong path for {to:?}: {e}");
    }
}

#[test]
fn infrastructure_mode_takes_access_points_scans_and_a_beacon_interval_naming_the_field() {
    let good = r#"
name = "infra"
duration = "1s"
nodes = ["ap", "s1", "s2"]
[positions]
ap = [0, 0]
s1 = [1, 0]
s2 = [2, 0]
[[wlans]]
nodes = ["ap", "s1", "s2"]
access_points = ["ap"]
beacon_interval = "0.2s"
scans = [{ node = "s1", type = "active" }, { node = "s2", type = "passive", at = "1s" }]
[[flows]]
from = "s1"
to = "s2"
protocol = "udp"
[output]
eot_trace = true
"#;
    let s = Scenario::from_toml(good).expect("a good infrastructure WLAN");
    let infra = s.wlans[0].infrastructure.as_ref().expect("infrastructure mode");
    assert_eq!((infra.access_points.as_slice(), infra.beacon_interval), (&[0][..], 0.2));
    let scans: Vec<_> = infra.scans.iter().map(|c| (c.node, c.active, c.at)).collect();
    assert_eq!(scans, [(1, true, 0.0), (2, false, 1.0)]);
    assert!(s.eot_trace && s.wlans[0].access_point.is_none());
    let cases: &[(&str, &str, &str)] = &[
        ("access_points = [\"ap\"]", "access_points = [\"mars\"]", "wlans[0].access_points[0]"),
        ("access_points = [\"ap\"]", "access_points = []", "wlans[0].access_points"),
        ("access_points = [\"ap\"]", "access_points = [\"ap\"]\nprofile = \"standard\"", "wlans[0].access_points"),
        ("access_points = [\"ap\"]", "access_points = [\"ap\"]\naccess_point = \"ap\"", "wlans[0].access_points"),
        ("access_points = [\"ap\"]", "", "wlans[0].scans"),
        ("beacon_interval = \"0.2s\"", "beacon_interval = \"0s\"", "wlans[0].beacon_interval"),
        ("{ node = \"s1\", type = \"active\" }", "{ node = \"ap\", type = \"active\" }", "wlans[0].scans[0].node"),
        ("type = \"active\"", "type = \"loud\"", "wlans[0].scans[0].type"),
        ("at = \"1s\"", "at = \"-1s\"", "wlans[0].scans[1].at"),
        ("eot_trace = true", "eot_trace = 2", "output.eot_trace"),
    ];
    for (from, to, path) in cases {
        let text = good.replacen(from, to, 1);
        let e = Scenario::from_toml(&text).expect_err(&format!("case {path} should fail"));
        assert_eq!(&e.path, path, "wrong path for {to:?}: {e}");
    }
}

/// ex/802.11/infra.tcl's flows: 1023-byte CBR messages on a UDP agent of packetSize_ 1000, a
/// sink on port 1 of its node (an idle agent holds port 0 there), and no AGT lines.
#[test]
fn a_udp_flow_takes_its_agents_packet_size_and_ports_naming_the_field() {
    let good = r#"
name = "ports"
duration = "1s"
nodes = ["a", "b"]
[[links]]
from = "a"
to = "b"
bandwidth = "10Mb"
delay = "1ms"
[[flows]]
from = "a"
to = "b"
protocol = "udp"
packet_size = 1023
udp_packet_size = 1000
to_port = 1
[[flows]]
from = "a"
to = "b"
protocol = "udp"
[output]
agent_trace = false
mac_trace = false
router_trace = false
"#;
    let s = Scenario::from_toml(good).expect("a good scenario");
    let f = &s.flows[0];
    assert_eq!((f.udp_packet_size, f.from_port, f.to_port), (Some(1000), None, Some(1)));
    assert!(!s.agent_trace && Scenario::from_toml(&good.replace("agent_trace = false", "")).unwrap().agent_trace);
    assert!(!s.mac_trace && Scenario::from_toml(&good.replace("mac_trace = false", "")).unwrap().mac_trace);
    assert!(!s.router_trace && Scenario::from_toml(&good.replace("router_trace = false", "")).unwrap().router_trace);
    // CBR's `random_ 1` and `maxpkts_`
    let cbr = Scenario::from_toml(&good.replace("to_port = 1", "to_port = 1\nrandom = true\npackets = 7")).unwrap();
    assert_eq!(cbr.flows[0].app, AppConfig::Cbr { rate_bps: 448_000, size: 1023, random: true, packets: Some(7) });
    // each node's lowest free port for the agents that name none: a:0, b:1; then a:1, b:0
    assert_eq!(agent_ports(&s.flows, 2), Ok(vec![[0, 1], [1, 0]]));
    let cases: &[(&str, &str, &str)] = &[
        ("udp_packet_size = 1000", "udp_packet_size = 0", "flows[0].udp_packet_size"),
        ("packet_size = 1023\n", "packet_size = 1023\napp = \"telnet\"\n", "flows[0].udp_packet_size"),
        ("protocol = \"udp\"\npacket_size", "protocol = \"reno\"\npacket_size", "flows[0].udp_packet_size"),
        ("to_port = 1", "to_port = 255", "flows[0].to_port"),
        ("to_port = 1", "to_port = 1\nfrom_port = -1", "flows[0].from_port"),
        ("protocol = \"udp\"\n[output]", "protocol = \"udp\"\nto_port = 1\n[output]", "flows[1].to_port"),
        ("agent_trace = false", "agent_trace = \"no\"", "output.agent_trace"),
        ("mac_trace = false", "mac_trace = \"off\"", "output.mac_trace"),
        ("router_trace = false", "router_trace = 2", "output.router_trace"),
        ("to_port = 1", "to_port = 1\nrandom = 2", "flows[0].random"),
        ("to_port = 1", "to_port = 1\npackets = 0", "flows[0].packets"),
        ("packet_size = 1023\n", "packet_size = 1023\napp = \"telnet\"\nrandom = true\n", "flows[0].random"),
    ];
    for (from, to, path) in cases {
        let text = good.replacen(from, to, 1);
        let e = Scenario::from_toml(&text).expect_err(&format!("case {path} should fail"));
        assert_eq!(&e.path, path, "wrong path for {to:?}: {e}");
    }
}

/// RP=DSDV ns wired-cum-wireless.tcl's topology: a wired node, a base station joining a DSDV
/// WLAN to it, one station; hierarchical addresses (DSDV.md §5).
#[test]
fn a_dsdv_wlan_takes_a_base_station_with_wired_links_naming_the_field() {
    let good = r#"
name = "wcw"
duration = "1s"
nodes = ["w", "bs", "ms"]
[[links]]
from = "w"
to = "bs"
bandwidth = "10Mb"
delay = "10ms"
[positions]
bs = [100, 100]
ms = [150, 100]
[[wlans]]
nodes = ["bs", "ms"]
routing = "dsdv"
base_station = "bs"
[[flows]]
from = "w"
to = "ms"
protocol = "tahoe"
"#;
    let s = Scenario::from_toml(good).expect("a good wired-cum-wireless scenario");
    assert_eq!(s.wlans[0].base_stations, [BaseStation { node: 1, stations: vec![2] }]);
    let hier = s.hierarchical_addresses().expect("hierarchical");
    assert_eq!((hier.addr, hier.mac), (vec![0, 4194304, 4194305], vec![0, 0, 1]));
    let flat = Scenario::from_toml(&good.replace("base_station = \"bs\"", "").replace("to = \"bs\"", "to = \"ms\""));
    assert_eq!(flat.expect_err("a station with a wired link").path, "links[0].to");
    let cases: &[(&str, &str, &str)] = &[
        ("base_station = \"bs\"", "base_station = \"w\"", "wlans[0].base_station"),
        ("routing = \"dsdv\"", "", "wlans[0].base_station"),
        ("base_station = \"bs\"", "", "links[0].to"),
        (
            "\n[[flows]]",
            "\n[[wlans]]\nname = \"b\"\nnodes = [\"ms\", \"bs\"]\nrouting = \"dsdv\"\nbase_station = \"bs\"\n[[flows]]",
            "wlans[1].nodes[0]",
        ),
    ];
    for (from, to, path) in cases {
        let text = good.replacen(from, to, 1);
        let e = Scenario::from_toml(&text).expect_err(&format!("case {path} should fail"));
        assert_eq!(&e.path, path, "wrong path for {to:?}: {e}");
    }
}

#[test]
fn base_stations_head_subnets_of_explicit_or_automatic_hierarchical_addresses() {
    // two base stations on one channel, the wired nodes in two clusters (ns-2's
    // test-suite-wireless-lan-newnode.tcl, dsdv-wired-cum-wireless)
    let good = r#"
duration = "1s"
nodes = ["w0", "w1", "bs0", "bs1", "m0", "m1"]
[addresses]
w0 = "0.0.0"
w1 = "0.1.0"
bs0 = "1.0.0"
bs1 = "2.0.0"
m0 = "1.0.1"
m1 = "1.0.2"
[[links]]
from = "w0"
to = "w1"
bandwidth = "5Mb"
delay = "2ms"
[[links]]
from = "w1"
to = "bs0"
bandwidth = "5Mb"
delay = "2ms"
[[links]]
from = "w1"
to = "bs1"
bandwidth = "5Mb"
delay = "2ms"
[positions]
bs0 = [0, 0]
bs1 = [600, 0]
m0 = [100, 0]
m1 = [200, 0]
[[wlans]]
nodes = ["bs0", "bs1", "m0", "m1"]
routing = "dsdv"
base_stations = [{ node = "bs0", stations = ["m0", "m1"] }, { node = "bs1" }]
"#;
    let s = Scenario::from_toml(good).expect("two base stations");
    assert_eq!(s.wlans[0].base_station_of(5), Some(2));
    assert_eq!(s.wlans[0].base_station_of(3), Some(3));
    let hier = s.hierarchical_addresses().expect("hierarchical");
    assert_eq!(hier.addr, vec![0, 2048, 4194304, 8388608, 4194305, 4194306]);
    assert_eq!(hier.mac, vec![0, 0, 0, 1, 2, 3]);
    // without [addresses]: the wired nodes 0.0.n, each subnet a domain, in node order
    let auto = good.split("[addresses]").next().unwrap().to_string() + &good[good.find("[[links]]").unwrap()..];
    let s = Scenario::from_toml(&auto).expect("automatic addresses");
    assert_eq!(s.addresses, Some(vec![[0, 0, 0], [0, 0, 1], [1, 0, 0], [2, 0, 0], [1, 0, 1], [1, 0, 2]]));
    let cases: &[(&str, &str, &str)] = &[
        ("w1 = \"0.1.0\"", "w1 = \"0.1\"", "addresses.w1"),
        ("w1 = \"0.1.0\"", "w1 = \"0.0.0\"", "addresses.w1"),
        ("w1 = \"0.1.0\"\n", "", "addresses"),
        ("m1 = \"1.0.2\"", "m1 = \"2.0.2\"", "addresses.m1"),
        ("w1 = \"0.1.0\"", "w1 = \"2.0.1\"", "addresses.w1"),
        ("stations = [\"m0\", \"m1\"] }", "stations = [\"m0\"] }", "wlans[0].base_stations"),
        ("{ node = \"bs1\" }", "{ node = \"bs1\", stations = [\"m0\"] }", "wlans[0].base_stations[1].stations[0]"),
        ("{ node = \"bs1\" }", "{ node = \"w0\" }", "wlans[0].base_stations[1].node"),
        ("routing = \"dsdv\"", "base_station = \"bs0\"", "wlans[0].base_stations"),
        ("routing = \"dsdv\"", "", "wlans[0].base_stations"),
    ];
    for (from, to, path) in cases {
        let text = good.replacen(from, to, 1);
        let e = Scenario::from_toml(&text).expect_err(&format!("case {path} should fail"));
        assert_eq!(&e.path, path, "wrong path for {to:?}: {e}");
    }
    let flat =
        good.replace("base_stations = [{ node = \"bs0\", stations = [\"m0\", \"m1\"] }, { node = \"bs1\" }]", "");
    let e = Scenario::from_toml(&flat).expect_err("addresses without base stations");
    assert!(e.path == "addresses" || e.path.starts_with("links"), "{e}");
}

#[test]
fn radio_error_models_take_a_direction_sizes_and_states_naming_the_field() {
    let good = r#"
name = "err"
duration = "10s"
nodes = ["a", "b", "c"]
[positions]
a = [0, 0]
b = [100, 0]
c = [200, 0]
[[wlans]]
nodes = ["a", "b", "c"]
routing = "dsdv"
[[flows]]
from = "a"
to = "b"
protocol = "tahoe"
[[losses]]
wlan = "wlan0"
node = "a"
direction = "out"
model = "ber"
ber = 1e-5
data_bits = 1000
control_bits = 80
[[losses]]
wlan = "wlan0"
node = "b"
model = "multistate"
states = [{ rate = 0, period = "0s" }, { rate = 0.9, period = "7.5ms" }]
transitions = [[0.95, 0.05], [1, 0]]
step = "time"
"#;
    let s = Scenario::from_toml(good).expect("a good scenario");
    assert_eq!(s.losses[0].at, LossAt::Radio { wlan: 0, node: 0, outgoing: true });
    assert_eq!(s.losses[0].model, LossModel::Ber { ber: 1e-5, data_bits: Some(1000), control_bits: Some(80) });
    assert_eq!(s.losses[1].at, LossAt::Radio { wlan: 0, node: 1, outgoing: false });
    let LossModel::Multistate { states, by_time: true, .. } = &s.losses[1].model else { panic!("multistate by time") };
    assert_eq!(states[1], LossState { rate: 0.9, period: 0.0075 });
    let cases: &[(&str, &str, &str)] = &[
        ("direction = \"out\"", "direction = \"up\"", "losses[0].direction"),
        ("control_bits = 80\n", "", "losses[0].control_bits"),
        ("model = \"ber\"", "model = \"uniform\"\nrate = 0.1", "losses[0].data_bits"),
        ("transitions = [[0.95, 0.05], [1, 0]]", "transitions = [[0.95, 0.05]]", "losses[1].transitions"),
        ("transitions = [[0.95, 0.05], [1, 0]]", "transitions = [[0.9, 0.05], [1, 0]]", "losses[1].transitions[0]"),
        ("{ rate = 0, period = \"0s\" }", "{ rate = 0 }", "losses[1].states[0].period"),
        ("step = \"time\"", "step = \"bytes\"", "losses[1].step"),
    ];
    for (from, to, path) in cases {
        let text = good.replacen(from, to, 1);
        let e = Scenario::from_toml(&text).expect_err(&format!("case {path} should fail"));
        assert_eq!(&e.path, path, "wrong path for {to:?}: {e}");
    }
}
