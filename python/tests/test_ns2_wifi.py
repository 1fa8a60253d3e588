"""tcplab's 802.11 MAC against ns-2.35's: the same two-node TCP transfer over a WLAN with ns-2's
defaults (conformance/ns2-wifi/), compared on goodput and on the MAC frames sent per data frame.

ns-2 comes from Debian's `ns2` package (conformance/install-ns2.sh); without it this test is
skipped, except under CI, which installs it.
"""

from __future__ import annotations

import collections
import re
import subprocess
from pathlib import Path

import pytest
from support import needs_ns

import tcplab

CASE = Path(__file__).resolve().parents[2] / "conformance" / "ns2-wifi"


def ns2_counts(trace: Path) -> tuple[collections.Counter, int]:
    """MAC frames sent, by type, and TCP data packets delivered to the receiving agent, from an
    ns-2 trace in the old CMU wireless format."""
    sent = collections.Counter()
    delivered = set()
    for line in trace.read_text().splitlines():
        f = line.split()
        if f[0] == "s" and f[3] == "MAC":
            sent[f[6]] += 1
        elif f[0] == "r" and f[3] == "AGT" and f[6] == "tcp":
            delivered.add(int(f[-4][1:]) if f[-4].startswith("[") else int(f[-4]))
    return sent, len(delivered)


@needs_ns
def test_two_node_tcp_matches_ns2(tmp_path):
    trace = tmp_path / "ns2.tr"
    subprocess.run(["ns", str(CASE / "two-node-tcp.tcl"), str(trace)], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300)
    sent, data_packets = ns2_counts(trace)
    ns2_goodput = data_packets * 1000 * 8 / 50.0  # payload bytes over the 50 s transfer

    r = tcplab.run(CASE / "two-node-tcp.toml")
    goodput = r.flows.goodput_bps[0]
    print(f"goodput: tcplab {goodput:.0f} b/s, ns-2 {ns2_goodput:.0f} b/s")
    assert abs(goodput - ns2_goodput) / ns2_goodput < 0.02, (goodput, ns2_goodput)

    ours = r.radios[["rts", "cts", "data", "acks"]].sum()
    theirs = {"rts": sent["RTS"], "cts": sent["CTS"], "data": sent["tcp"] + sent["ack"], "acks": sent["ACK"]}
    for kind in ("rts", "cts", "acks"):
        per_data = ours[kind] / ours["data"], theirs[kind] / theirs["data"]
        print(f"{kind} per data frame: tcplab {per_data[0]:.3f}, ns-2 {per_data[1]:.3f}")
        assert per_data[0] == pytest.approx(per_data[1], abs=0.01), (kind, per_data)


# The line grammars of ns-2's wireless traces (ns2-semantics.md §3.3-3.4), as ns-2.35 writes them.
OLD = [
    re.compile(r"^[srD] \d+\.\d{9} _\d+_ (AGT|MAC|RTR|IFQ) ( ---| RET| COL|NRTE) \d+ (tcp|ack|cbr) \d+ "
               r"\[[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ [0-9a-f]+\] ------- \[\d+:\d+ \d+:\d+ \d+ -?\d+\] "
               r"\[\d+( \d+)?\] \d+ \d+$"),
    re.compile(r"^[sr] \d+\.\d{9} _\d+_ MAC  --- \d+ (RTS|CTS|ACK) \d+ \[[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ 0\] $"),
    re.compile(r"^[sr] \d+\.\d{9} _\d+_ MAC  --- 0 ARP \d+ \[[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ 806\] ------- "
               r"\[(REQUEST|REPLY) \d+/\d+ \d+/\d+\]$"),
]
NEW = [
    re.compile(r"^[srD] -t \d+\.\d{9} -Hs \d+ -Hd -?\d+ -Ni \d+ -Nx [\d.]+ -Ny [\d.]+ -Nz [\d.]+ -Ne -?[\d.]+ "
               r"-Nl (AGT|MAC|RTR|IFQ) -Nw (---|RET|COL|NRTE) -Ma [0-9a-f]+ -Md [0-9a-f]+ -Ms [0-9a-f]+ -Mt [0-9a-f]+ "
               r"(-Is \d+\.\d+ -Id \d+\.\d+ -It (tcp|ack|cbr) -Il \d+ -If \d+ -Ii \d+ -Iv \d+ "
               r"-Pn tcp -Ps \d+ -Pa \d+ -Pf \d+ -Po \d+ )?$"),
    re.compile(r"^[sr] -t \d+\.\d{9} -Hs \d+ -Hd -?\d+ -Ni \d+ -Nx [\d.]+ -Ny [\d.]+ -Nz [\d.]+ -Ne -?[\d.]+ "
               r"-Nl MAC -Nw --- -Ma [0-9a-f]+ -Md [0-9a-f]+ -Ms [0-9a-f]+ -Mt 806 "
               r"-P arp -Po (REQUEST|REPLY) -Pms \d+ -Ps \d+ -Pmd \d+ -Pd \d+ $"),
]


def line_kinds(lines: list[str], grammar: list[re.Pattern]) -> set[tuple[str, str, str]]:
    """(event, layer, packet type) of every wireless line; fails on a line outside the grammar."""
    kinds = set()
    for line in lines:
        assert any(g.match(line) for g in grammar), f"not ns-2's wireless grammar: {line!r}"
        f = line.split()
        if f[1] == "-t":
            layer = f[f.index("-Nl") + 1]
            kind = f[f.index("-It") + 1] if "-It" in f else ("MAC control" if layer == "MAC" else "?")
        else:
            layer, kind = f[3], f[6] if f[6] not in ("RTS", "CTS", "ACK") else "MAC control"
        kinds.add((f[0], layer, kind))
    return kinds


@needs_ns
@pytest.mark.parametrize("fmt", ["old", "new"])
def test_wireless_traces_follow_ns2s_grammar(tmp_path, fmt):
    trace = tmp_path / "ns2.tr"
    subprocess.run(["ns", str(CASE / "two-node-tcp.tcl"), str(trace), fmt], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300)
    theirs = [ln for ln in trace.read_text().splitlines() if " RTR " not in ln and "-Nl RTR" not in ln]
    doc = tcplab.validate(CASE / "two-node-tcp.toml")
    text = (CASE / "two-node-tcp.toml").read_text() + f'\n[output]\ntrace = ["ns2"]\nwireless_format = "{fmt}"\n'
    scenario = tmp_path / "s.toml"
    scenario.write_text(text.replace('duration = "51s"', 'duration = "3s"'))
    tcplab.run(scenario, out=tmp_path / "out")
    ours = (tmp_path / "out" / "trace.tr").read_text().splitlines()
    grammar = OLD if fmt == "old" else NEW
    assert line_kinds(ours, grammar) == line_kinds(theirs, grammar)
    assert doc["wireless_format"] == "old"


@needs_ns
@pytest.mark.parametrize("fmt", ["old", "new"])
def test_two_node_tcp_trace_is_ns2s(tmp_path, fmt):
    """The whole 51-second transfer, line for line: ARP, RTS/CTS, the backoffs drawn from ns-2's
    generator in its order, the link layer's delays, the NAV and EIFS as ns-2's MAC keeps them."""
    trace = tmp_path / "ns2.tr"
    subprocess.run(["ns", str(CASE / "two-node-tcp.tcl"), str(trace), fmt], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300)
    scenario = tmp_path / "s.toml"
    scenario.write_text((CASE / "two-node-tcp.toml").read_text()
                        + f'\n[output]\ntrace = ["ns2"]\nwireless_format = "{fmt}"\n')
    tcplab.run(scenario, out=tmp_path / "out")
    ours, theirs = (tmp_path / "out" / "trace.tr").read_text(), trace.read_text()
    if ours != theirs:
        for n, (a, b) in enumerate(zip(theirs.splitlines(), ours.splitlines()), 1):
            assert a == b, f"line {n}:\n ns-2:   {a}\n tcplab: {b}"
        assert len(ours.splitlines()) == len(theirs.splitlines())


# --- the translator: tcplab.ns2 writes a WLAN as ns-2's mobile nodes ---------------------------

def two_node(**output) -> dict:
    """two-node-tcp.toml as a dict, with `output` fields added."""
    import tomllib

    doc = tomllib.loads((CASE / "two-node-tcp.toml").read_text())
    if output:
        doc["output"] = output
    return doc


@needs_ns
@pytest.mark.parametrize("fmt", ["old", "new"])
def test_translated_two_node_tcp_traces_as_the_hand_written_script(tmp_path, fmt):
    """tcplab.ns2's Tcl for two-node-tcp.toml is, to ns-2, the hand-written two-node-tcp.tcl:
    the same trace, byte for byte, in both formats."""
    from tcplab.ns2 import run_ns2

    hand = tmp_path / "hand.tr"
    subprocess.run(["ns", str(CASE / "two-node-tcp.tcl"), str(hand), fmt], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300)
    translated = run_ns2(two_node(wireless_format=fmt), str(tmp_path / "translated"), cwnd=False)
    assert Path(translated["trace"]).read_bytes() == hand.read_bytes()


@needs_ns
def test_a_wlan_translated_without_a_trace_runs_in_ns2(tmp_path):
    """Without a trace (the benchmarks' trace-off rows) the mobile nodes still get the trace
    file ns-2 requires, /dev/null, with every trace switched off; ns-2 runs the script and
    its flow delivers what it does with the trace."""
    from tcplab.ns2 import scenario_to_tcl

    tcl = scenario_to_tcl(tcplab.validate(two_node()), None)
    assert "$ns trace-all [open /dev/null w]" in tcl and "-agentTrace OFF" in tcl and "-macTrace OFF" in tcl
    script = tmp_path / "quiet.tcl"
    script.write_text(tcl)
    quiet = subprocess.run(["ns", str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=True)
    from tcplab.ns2 import run_ns2

    traced = run_ns2(two_node(), str(tmp_path / "traced"), cwnd=False)
    acks = lambda out: [line for line in out.splitlines() if line.startswith("flow ")]  # noqa: E731
    assert acks(quiet.stdout) and acks(quiet.stdout) == acks(traced["stdout"])


def wlan_tcl(change: dict) -> str:
    from tcplab.ns2 import scenario_to_tcl

    return scenario_to_tcl(tcplab.validate({**two_node(), **change}), "/tmp/t.tr", "/tmp/c.tr")


INFRA = Path(__file__).resolve().parents[2] / "conformance" / "ns2"
EXAMPLES = Path("/usr/share/doc/ns2/examples/tcl/test")


@pytest.mark.parametrize("suite", ["wireless-infra", "wireless-infra-mobility"])
def test_infrastructure_mode_trace_is_debians_reference(tmp_path, suite):
    """ns-2's infrastructure mode (two access points, beacons, active and passive scans,
    authentication, association, the access points relaying), with `x` lines, line for line
    against the reference output Debian ships with ns-2's suite (its four `M 0.0` header lines
    are the suite's Tcl's own)."""
    import gzip

    reference = EXAMPLES / "test-output-wireless-infra" / f"{suite}.gz"
    if not reference.exists():
        pytest.skip("Debian's ns2-examples are not installed")
    theirs = [ln for ln in gzip.open(reference, "rt").read().splitlines() if not ln.startswith("M 0.0 ")]
    tcplab.run(INFRA / suite / f"{suite}.toml", out=tmp_path / "out")
    ours = (tmp_path / "out" / "trace.tr").read_text().splitlines()
    for n, (a, b) in enumerate(zip(theirs, ours), 1):
        assert a == b, f"line {n}:\n ns-2:   {a}\n tcplab: {b}"
    assert len(ours) == len(theirs)


@needs_ns
def test_a_translated_infrastructure_wlan_traces_as_tcplab(tmp_path):
    """wireless-infra.toml as tcplab.ns2 writes it ($mac ap, ScanType at 0 and at 1 s,
    BeaconInterval_, -eotTrace ON): ns-2's trace is tcplab's, line for line."""
    import tomllib

    from tcplab.ns2 import run_ns2

    doc = tomllib.loads((INFRA / "wireless-infra" / "wireless-infra.toml").read_text())
    theirs = Path(run_ns2(doc, str(tmp_path / "ns2"), cwnd=False)["trace"]).read_text().splitlines()
    tcl = (tmp_path / "ns2" / "scenario.tcl").read_text().splitlines()
    for line in ("[$n0 getMac 0] ap [[$n0 getMac 0] id]", '$ns at 1.0 "[$n2 getMac 0] ScanType ACTIVE"',
                 "Mac/802_11 set BeaconInterval_ 0.2"):
        assert line in tcl, line
    tcplab.run(doc, out=tmp_path / "out")
    ours = (tmp_path / "out" / "trace.tr").read_text().splitlines()
    for n, (a, b) in enumerate(zip(theirs, ours), 1):
        assert a == b, f"line {n}:\n ns-2:   {a}\n tcplab: {b}"
    assert len(ours) == len(theirs) > 5000


def test_translation_writes_the_wlans_knobs_and_moves():
    tcl = wlan_tcl({"wlans": [{"nodes": ["n0", "n1"], "rts_threshold": 3000, "data_rate": "11Mb",
                               "cw_min": 15, "queue_limit": 7, "propagation": "free_space"}],
                    "moves": [{"node": "n1", "at": "2s", "to": [300, 650.5], "speed": 10}]})
    for line in ("Mac/802_11 set RTSThreshold_ 3000", "Mac/802_11 set dataRate_ 11000000",
                 "Mac/802_11 set CWMin_ 15", "$topo load_flatgrid 500 651", "create-god 2",
                 '$ns at 2.0 "$n1 setdest 300.0 650.5 10.0"', "$n1 set X_ 200.0"):
        assert line in tcl.splitlines(), line
    assert "-ifqLen 7 " in tcl and "-propType Propagation/FreeSpace " in tcl and "-adhocRouting DumbAgent " in tcl
    assert "basicRate_" not in tcl and "use-newtrace" not in tcl  # ns-2's defaults are not restated
    assert "$ns use-newtrace" in wlan_tcl({"output": {"wireless_format": "new"}})
    # ns-2's defer timer on an idle medium (ns-2's default bugFix_timer_ is true)
    assert "Mac/802_11 set bugFix_timer_ false" in wlan_tcl({"wlans": [{"nodes": ["n0", "n1"], "backoff_when_idle": False}]})
    assert "bugFix_timer_" not in wlan_tcl({})


def test_translation_puts_a_radios_error_model_between_its_phy_and_mac():
    tcl = wlan_tcl({"losses": [{"wlan": "wlan0", "node": "n1", "model": "uniform", "rate": 0.1}]}).splitlines()
    # made as n1 is made, by node-config's -IncomingErrProc; n0 (made before) and any node after
    # get a proc that makes none
    at = {line: i for i, line in enumerate(tcl)}
    assert at["$ns node-config -IncomingErrProc no_radio_errmodel"] < at["set n0 [$ns node]"]
    assert at["set n0 [$ns node]"] < at["$ns node-config -IncomingErrProc radio_errmodel0"] < at["set n1 [$ns node]"]
    assert "    $em set rate_ 0.1" in tcl and "    $em unit pkt" in tcl
    assert not any("errormodule" in line for line in tcl)  # no link error module


def test_translation_puts_an_outgoing_error_model_between_a_radios_mac_and_phy():
    ber = {"model": "ber", "ber": 1e-5, "data_bits": 1000, "control_bits": 80}
    states = {"model": "multistate", "states": [{"rate": 0, "period": "0s"}, {"rate": 0.9, "period": "7.5ms"}],
              "transitions": [[0.95, 0.05], [1, 0]], "step": "time"}
    losses = [{"wlan": "wlan0", "node": "n1", **ber}, {"wlan": "wlan0", "node": "n1", "direction": "out", **states}]
    tcl = wlan_tcl({"losses": losses}).splitlines()
    at = {line: i for i, line in enumerate(tcl)}
    assert at["set n0 [$ns node]"] < at["$ns node-config -IncomingErrProc radio_errmodel0 -OutgoingErrProc"
                                        " radio_errmodel1"] < at["set n1 [$ns node]"]
    for line in ("$em unit bit", "$em set rate_ 1e-05", "$em datapktsize 1000", "$em cntrlpktsize 80",
                 "set em [new ErrorModel/MultiState [list $em_state0 $em_state1] {0.0 0.0075} {{0.95 0.05} {1.0 0.0}}"
                 " pkt time 2 $em_state0]"):
        assert "    " + line in tcl, line


@pytest.mark.parametrize("change, field", [
    ({"losses": [{"wlan": "wlan0", "node": "n1", "direction": "out", "model": "uniform", "rate": 0.1},
                 {"wlan": "wlan0", "node": "n1", "direction": "out", "model": "list", "packets": [3]}]},
     "losses[1].node"),
    ({"wlans": [{"nodes": ["n0", "n1"], "profile": "standard"}]}, "wlans[0].profile"),
    ({"wlans": [{"nodes": ["n0", "n1"], "access_point": "n0"}]}, "wlans[0].access_point"),
    ({"wlans": [{"nodes": ["n0", "n1"], "mac_overhead": 36}]}, "wlans[0].mac_overhead"),
    ({"wlans": [{"nodes": ["n0", "n1"], "preamble": "short"}]}, "wlans[0].preamble"),
    ({"wlans": [{"nodes": ["n0", "n1"], "mac": "802_11Ext"}]}, "flows"),
    ({"wlans": [{"nodes": ["n0", "n1"], "mac": "802_11Ext", "ext": {"power_monitor_threshold": 0}}],
      "flows": [], "pbc": [{"node": "n0"}]}, "wlans[0].ext.power_monitor_threshold"),
    ({"wlans": [{"nodes": ["n0", "n1"]}, {"name": "b", "nodes": ["n0", "n1"]}]}, "wlans[1]"),
    ({"nodes": ["n0", "n1", "n2"]}, "nodes"),
    ({"nodes": ["n0", "n1", "n2"], "links": [{"from": "n1", "to": "n2", "bandwidth": "1Mb", "delay": "1ms"}]},
     "links"),
    ({"positions": {"n0": [-1, 100], "n1": [200, 100]}}, "positions.n0"),
    ({"moves": [{"node": "n1", "at": "2s", "to": [0, 100], "speed": 10}]}, "moves[0].to"),
    ({"output": {"tcp_header": True}}, "output.tcp_header"),
    ({"losses": [{"wlan": "wlan0", "node": "n1", "model": "uniform", "rate": 0.1, "flows": ["flow0"]}]},
     "losses[0].flows"),
    ({"losses": [{"wlan": "wlan0", "node": "n1", "model": "uniform", "rate": 0.1},
                 {"wlan": "wlan0", "node": "n1", "model": "list", "packets": [3]}]}, "losses[1].node"),
    ({"losses": [{"wlan": "wlan0", "node": "n1", "model": "gilbert", "p_good_bad": 0.1, "p_bad_good": 0.5}]},
     "losses[0].model"),
])
def test_translation_refuses_what_it_cannot_express_naming_the_field(change, field):
    with pytest.raises(ValueError) as e:
        wlan_tcl(change)
    assert str(e.value).startswith(field + ":"), str(e.value)


@needs_ns
def test_a_wlan_differential_fuzz_finds_no_disagreement(tmp_path):
    """conformance/difffuzz.py --wlan's first 100 ad hoc WLANs of seed 1 (2-5 stations in range,
    RTS/CTS on and off, TCP and CBR flows): every packet and cwnd trace identical to ns-2's."""
    import json
    import sys

    fuzz = subprocess.run([sys.executable, str(CASE.parents[1] / "conformance" / "difffuzz.py"), "--wlan",
                           "--count", "100", "--seed", "1", "--out", str(tmp_path)], capture_output=True, text=True)
    assert fuzz.returncode == 0, fuzz.stdout + fuzz.stderr
    summary = json.loads((tmp_path / "summary-wlan-1-0.json").read_text())
    assert summary["identical"] == 100, summary


@needs_ns
def test_an_802_11ext_differential_fuzz_finds_no_disagreement(tmp_path):
    """conformance/difffuzz.py --wlan --ext's first 100 WLANs of Mac/802_11Ext radios of seed 1
    (a quarter crowded, three propagation models, PBC traffic, both trace formats), as the
    translator writes them for ns-2: every trace identical."""
    import json
    import sys

    fuzz = subprocess.run([sys.executable, str(CASE.parents[1] / "conformance" / "difffuzz.py"), "--wlan", "--ext",
                           "--count", "100", "--seed", "1", "--out", str(tmp_path)], capture_output=True, text=True)
    assert fuzz.returncode == 0, fuzz.stdout + fuzz.stderr
    summary = json.loads((tmp_path / "summary-wlan-ext-1-0.json").read_text())
    assert summary["identical"] == 100, summary


@needs_ns
def test_a_translated_ex_infra_traces_as_tcplab(tmp_path):
    """ex-802.11-infra/infra.tcl's scenario as tcplab.ns2 writes it (the UDP agents' packetSize_
    below the CBR's messages, sinks attached at port 1, -agentTrace OFF): ns-2's trace is
    tcplab's, line for line, with the 1000- and 23-byte halves of each message."""
    import tomllib

    from tcplab.ns2 import run_ns2

    doc = tomllib.loads((INFRA / "ex-802.11-infra" / "infra.toml").read_text())
    theirs = Path(run_ns2(doc, str(tmp_path / "ns2"), cwnd=False)["trace"]).read_text().splitlines()
    tcl = (tmp_path / "ns2" / "scenario.tcl").read_text()
    for line in ("$agent0 set packetSize_ 1000", "$app0 set packetSize_ 1023", "$n1 attach $sink0 1"):
        assert line in tcl.splitlines(), line
    assert "-agentTrace OFF" in tcl
    tcplab.run(doc, out=tmp_path / "out")
    ours = (tmp_path / "out" / "trace.tr").read_text().splitlines()
    for n, (a, b) in enumerate(zip(theirs, ours), 1):
        assert a == b, f"line {n}:\n ns-2:   {a}\n tcplab: {b}"
    assert len(ours) == len(theirs) > 20000
    assert any(" cbr 23 " in ln for ln in ours) and not any(" AGT " in ln for ln in ours)


@pytest.mark.parametrize("fmt", ["old", "new"])
def test_dsdv_chain_traces_as_the_hand_written_script(tmp_path, fmt):
    """dsdv-chain-routes.toml is `ns dsdv-chain.tcl 0 0 30` (DSDV's route updates alone, three
    stations in a line): tcplab's trace is the script's, byte for byte, in both formats."""
    import tomllib

    script = (CASE / "dsdv-chain.tcl").read_text()
    if fmt == "new":
        script = script.replace("set ns [new Simulator]\n", "set ns [new Simulator]\n$ns use-newtrace\n")
    (tmp_path / "chain.tcl").write_text(script)
    subprocess.run(["ns", "chain.tcl", "0", "0", "30"], cwd=tmp_path, check=True, capture_output=True, timeout=300)
    doc = tomllib.loads((CASE / "dsdv-chain-routes.toml").read_text())
    tcplab.run({**doc, "output": {"wireless_format": fmt}}, out=tmp_path / "ours", trace=["ns2"])
    theirs = (tmp_path / "dsdv-chain.tr").read_bytes()
    assert len(theirs.splitlines()) == 52
    assert (tmp_path / "ours" / "trace.tr").read_bytes() == theirs


def test_dsdv_is_the_ns2_profiles_and_translates_as_ns2s_agent():
    """`routing = "dsdv"` is refused on the standard profile, naming the field; on the ns2
    profile the translation gives the nodes DSDV and turns the router trace on."""
    from tcplab.ns2 import scenario_to_tcl

    standard = {"name": "d", "duration": "1s", "nodes": ["n0", "n1"],
                "positions": {"n0": [0, 0], "n1": [100, 0]},
                "wlans": [{"nodes": ["n0", "n1"], "profile": "standard", "routing": "dsdv"}]}
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.validate(standard)
    assert "wlans[0].routing" in str(e.value), str(e.value)
    tcl = scenario_to_tcl(tcplab.validate({**standard, "wlans": [{"nodes": ["n0", "n1"], "routing": "dsdv"}]}),
                          "/tmp/x.tr")
    assert "-adhocRouting DSDV" in tcl and "-routerTrace ON" in tcl, tcl


@needs_ns
def test_wired_cum_wireless_traces_as_the_hand_written_script(tmp_path):
    """wired-cum-wireless.toml is `RP=DSDV ns wired-cum-wireless.tcl` (a wired node, a base
    station with -wiredRouting ON, one station, hierarchical addresses): tcplab's trace is the
    script's, byte for byte, wired and wireless lines."""
    import os
    import tomllib

    (tmp_path / "wcw.tcl").write_text((CASE / "wired-cum-wireless.tcl").read_text())
    subprocess.run(["ns", "wcw.tcl"], cwd=tmp_path, check=True, capture_output=True, timeout=300,
                   env={**os.environ, "RP": "DSDV"})
    doc = tomllib.loads((CASE / "wired-cum-wireless.toml").read_text())
    tcplab.run(doc, out=tmp_path / "ours", trace=["ns2"])
    theirs = (tmp_path / "out.tr").read_bytes()
    assert len(theirs.splitlines()) == 9056
    assert (tmp_path / "ours" / "trace.tr").read_bytes() == theirs


def test_a_base_station_translates_as_hierarchical_addresses():
    """`base_station` makes the addresses hierarchical: the wired nodes 0.0.n, the base station
    1.0.0 with -wiredRouting ON, its stations 1.0.1, ... told their base station."""
    from tcplab.ns2 import scenario_to_tcl

    doc = {"name": "h", "duration": "1s", "nodes": ["w", "w2", "bs", "ms"],
           "links": [{"from": "w", "to": "bs", "bandwidth": "10Mb", "delay": "1ms"},
                     {"from": "w2", "to": "w", "bandwidth": "10Mb", "delay": "1ms"}],
           "positions": {"bs": [100, 100], "ms": [150, 100]},
           "wlans": [{"nodes": ["bs", "ms"], "routing": "dsdv", "base_station": "bs"}]}
    tcl = scenario_to_tcl(tcplab.validate(doc), "/tmp/x.tr").splitlines()
    for line in ("AddrParams set nodes_num_ {2 2}", "set n0 [$ns node 0.0.0]", "set n1 [$ns node 0.0.1]",
                 "set n2 [$ns node 1.0.0]", "set n3 [$ns node 1.0.1]",
                 "$ns node-config -adhocRouting DSDV -wiredRouting ON",
                 "$n3 base-station [AddrParams addr2id [$n2 node-addr]]", "create-god 2"):
        assert line in tcl, line
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.validate({**doc, "wlans": [{"nodes": ["bs", "ms"], "base_station": "bs"}]})
    assert "wlans[0].base_station" in str(e.value), str(e.value)
    # what ns-2 crashes on, or routes otherwise, is refused naming the field
    star = [{"from": "w", "to": "bs", "bandwidth": "10Mb", "delay": "1ms"},
            {"from": "w2", "to": "bs", "bandwidth": "10Mb", "delay": "1ms"}]
    for change, field in (({"nodes": ["w", "w2", "ms", "bs"]}, "wlans[0].base_station"),
                          ({"nodes": ["w", "bs", "ms", "w2"]}, "nodes"),
                          ({"nodes": ["w", "w2", "bs", "ms"], "links": star}, "links[1]")):
        with pytest.raises(ValueError) as e:
            scenario_to_tcl(tcplab.validate({**doc, **change}), "/tmp/x.tr")
        assert str(e.value).startswith(field + ":"), str(e.value)


def test_base_stations_of_one_channel_translate_with_their_subnets():
    """Two base stations on one WLAN, the wired nodes in two clusters (`[addresses]`):
    AddrParams counts each domain's clusters and each cluster's nodes, each base station is
    made with -wiredRouting ON and its stations told theirs; links between subnets that close
    a loop (ns-2 reaches a subnet by one route) are refused naming the link."""
    from tcplab.ns2 import scenario_to_tcl

    link = lambda a, b: {"from": a, "to": b, "bandwidth": "5Mb", "delay": "2ms"}
    doc = {"name": "two", "duration": "1s", "nodes": ["w0", "w1", "bs0", "bs1", "m0", "m1"],
           "addresses": {"w0": "0.0.0", "w1": "0.1.0", "bs0": "1.0.0", "bs1": "2.0.0", "m0": "1.0.1",
                         "m1": "1.0.2"},
           "links": [link("w0", "w1"), link("w1", "bs0"), link("w1", "bs1")],
           "positions": {"bs0": [1, 2], "bs1": [650, 600], "m0": [80, 200], "m1": [250, 300]},
           "wlans": [{"nodes": ["bs0", "bs1", "m0", "m1"], "routing": "dsdv",
                      "base_stations": [{"node": "bs0", "stations": ["m0", "m1"]}, {"node": "bs1"}]}]}
    tcl = scenario_to_tcl(tcplab.validate(doc), "/tmp/x.tr").splitlines()
    for line in ("AddrParams set domain_num_ 3", "AddrParams set cluster_num_ {2 1 1}",
                 "AddrParams set nodes_num_ {1 1 3 1}", "set n1 [$ns node 0.1.0]", "set n3 [$ns node 2.0.0]",
                 "$n4 base-station [AddrParams addr2id [$n2 node-addr]]"):
        assert line in tcl, line
    assert not any(line.startswith("$n3 base-station") for line in tcl)
    # `$node reset` mid-run purges its interface queue
    tcl = scenario_to_tcl(tcplab.validate({**doc, "resets": [{"node": "bs0", "at": "0.5s"}]}), "/tmp/x.tr")
    assert '$ns at 0.5 "$n2 reset"' in tcl.splitlines()
    loop = {**doc, "links": doc["links"] + [link("w0", "bs1")]}
    with pytest.raises(ValueError) as e:
        scenario_to_tcl(tcplab.validate(loop), "/tmp/x.tr")
    assert str(e.value).startswith("links[3]:"), str(e.value)


@needs_ns
def test_a_translated_multistate_err_traces_as_tcplab(tmp_path):
    """wireless-lan-newnode-err/dsdv-multistate-err.toml (DSDV, MultiState error models in and out
    of every radio, God's hop counts, the nodes reset at the end) as tcplab.ns2 writes it: ns-2's
    trace is tcplab's, line for line, `D IFQ END` lines included."""
    import tomllib

    from tcplab.ns2 import run_ns2

    doc = tomllib.loads((INFRA / "wireless-lan-newnode-err" / "dsdv-multistate-err.toml").read_text())
    theirs = Path(run_ns2(doc, str(tmp_path / "ns2"), cwnd=False)["trace"]).read_text().splitlines()
    tcplab.run(doc, out=tmp_path / "out", trace=["ns2"])
    ours = (tmp_path / "out" / "trace.tr").read_text().splitlines()
    for n, (a, b) in enumerate(zip(theirs, ours), 1):
        assert a == b, f"line {n}:\n ns-2:   {a}\n tcplab: {b}"
    assert len(ours) == len(theirs) > 10000
    assert sum(" RTR  CBK " in ln for ln in ours) > 100 and any(" IFQ  END " in ln for ln in ours)


@needs_ns
def test_a_translated_simple_wireless_traces_as_tcplab(tmp_path):
    """ex-simple-wireless/simple-wireless.toml (two stations routed by DSDV, moves, a Tahoe
    transfer, `mac_trace = false`) as tcplab.ns2 writes it: ns-2's trace is tcplab's, line for
    line, with no MAC line in either."""
    import tomllib

    from tcplab.ns2 import run_ns2

    doc = tomllib.loads((INFRA / "ex-simple-wireless" / "simple-wireless.toml").read_text())
    theirs = Path(run_ns2(doc, str(tmp_path / "ns2"), cwnd=False)["trace"]).read_text().splitlines()
    assert "-macTrace OFF" in (tmp_path / "ns2" / "scenario.tcl").read_text()
    tcplab.run(doc, out=tmp_path / "out", trace=["ns2"])
    ours = (tmp_path / "out" / "trace.tr").read_text().splitlines()
    for n, (a, b) in enumerate(zip(theirs, ours), 1):
        assert a == b, f"line {n}:\n ns-2:   {a}\n tcplab: {b}"
    assert len(ours) == len(theirs) > 20000
    assert not any(" MAC " in ln for ln in ours) and any(" RTR " in ln for ln in ours)


@needs_ns
def test_a_translated_wireless_lan_dsdv_traces_as_tcplab(tmp_path):
    """wireless-lan-newnode/dsdv.toml (50 DSDV nodes moving by setdest, 20 dithered CBR flows
    with maxpkts_, `backoff_when_idle = false`, `-routerTrace OFF`) as tcplab.ns2 writes it:
    ns-2's trace is tcplab's, line for line, God's hop counts (`set-dist`) included."""
    import tomllib

    from tcplab.ns2 import run_ns2

    doc = tomllib.loads((INFRA / "wireless-lan-newnode" / "dsdv.toml").read_text())
    theirs = Path(run_ns2(doc, str(tmp_path / "ns2"), cwnd=False)["trace"]).read_text().splitlines()
    tcl = (tmp_path / "ns2" / "scenario.tcl").read_text()
    assert "Mac/802_11 set bugFix_timer_ false" in tcl and "-routerTrace OFF" in tcl
    assert "set random_ 1" in tcl and "set maxpkts_ 10000" in tcl and "[God instance] set-dist 0 1 2" in tcl
    tcplab.run(doc, out=tmp_path / "out", trace=["ns2"])
    ours = (tmp_path / "out" / "trace.tr").read_text().splitlines()
    for n, (a, b) in enumerate(zip(theirs, ours), 1):
        assert a == b, f"line {n}:\n ns-2:   {a}\n tcplab: {b}"
    assert len(ours) == len(theirs) > 9000


NODE_RESETS = {
    "name": "node-resets",
    "duration": "40s",
    "nodes": ["n0", "n1", "n2"],
    "positions": {"n0": [10, 10], "n1": [200, 10], "n2": [390, 10]},
    "wlans": [{"nodes": ["n0", "n1", "n2"], "routing": "dsdv", "backoff_when_idle": False, "queue_limit": 20}],
    "resets": [{"node": n, "at": "40s"} for n in ("n0", "n1", "n2")],
    "flows": [{"name": "a", "from": "n0", "to": "n2", "protocol": "udp", "packet_size": 1000, "rate": "2Mb",
               "start": "35s"},
              {"name": "b", "from": "n2", "to": "n0", "protocol": "udp", "packet_size": 512, "rate": "1Mb",
               "random": True, "start": "36.5s"}],
    "output": {"mac_trace": False},
}


@needs_ns
def test_node_resets_drop_what_queues_and_arp_hold_as_ns2(tmp_path):
    """`[[resets]]` (ns-2's `$node reset`) at the end: at 40 s the nodes' interface queues,
    overfull with CBR, drop their packets `D ... IFQ END`, as ns-2 runs the translation; the
    nodes defer without bugFix_timer_."""
    from tcplab.ns2 import run_ns2

    theirs = Path(run_ns2(NODE_RESETS, str(tmp_path / "ns2"), cwnd=False)["trace"]).read_text().splitlines()
    tcl = (tmp_path / "ns2" / "scenario.tcl").read_text()
    assert '"$n2 reset"' in tcl and "bugFix_timer_ false" in tcl
    tcplab.run(NODE_RESETS, out=tmp_path / "out", trace=["ns2"])
    ours = (tmp_path / "out" / "trace.tr").read_text().splitlines()
    for n, (a, b) in enumerate(zip(theirs, ours), 1):
        assert a == b, f"line {n}:\n ns-2:   {a}\n tcplab: {b}"
    assert len(ours) == len(theirs)
    assert sum(" IFQ  END " in ln for ln in ours) > 5
