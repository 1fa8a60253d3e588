"""Tests for tcplab.ns2: scenario -> ns-2.35 Tcl translation and the ns runner."""

import shutil
import sys
import tomllib
from pathlib import Path

import pytest

# Import from the source tree without needing an installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tcplab.ns2 import NS2Error, parse_rate, parse_size, parse_time, run_ns2, scenario_to_tcl  # noqa: E402

HAVE_NS = shutil.which("ns") is not None

SMALL = tomllib.loads('''
name = "small"
duration = "20s"
nodes = ["k1", "r1", "s1", "s2"]

[tcp]
window = 17
minrto = "1s"
tcp_tick = "500ms"
singledup = 0
precision_reduce = false
partial_window_deflation = 0

[[links]]
from = "s1"
to = "r1"
bandwidth = "10Mb"
delay = "10ms"

[[links]]
from = "s2"
to = "r1"
bandwidth = "1.5Mbps"
delay = "0.1ms"
queue_limit = 7

[[links]]
from = "r1"
to = "k1"
bandwidth = "448kb"
delay = "50ms"
queue = "red"
queue_limit = 20
[links.red]
targetdelay = "4ms"
gentle = false

[[flows]]
name = "A"
from = "s1"
to = "k1"
protocol = "reno"
packet_size = "1460B"
start = "0.5s"
stop = "15s"

[[flows]]
name = "B"
from = "s2"
to = "k1"
protocol = "newreno"
sink = "delack"
delack_interval = "50ms"
packets = 25
[flows.tcp]
window = 9
ecn = true

[[flows]]
name = "C"
from = "s1"
to = "k1"
protocol = "tahoe"

[[flows]]
name = "U"
from = "s2"
to = "k1"
protocol = "udp"
rate = "100kb"
packet_size = 500
''')


def tcl_lines(scenario=SMALL, cwnd="/tmp/c.tr"):
    text = scenario_to_tcl(scenario, "/tmp/t.tr", cwnd)
    # drop comments so checks are on commands only
    return [ln.split(";#")[0].strip() for ln in text.splitlines() if not ln.lstrip().startswith("#")]


def block(lines, start):
    """Lines of one flow's block: from `start` up to the next `set agentN`/`proc`."""
    i = lines.index(start)
    j = i + 1
    while j < len(lines) and not lines[j].startswith(("set agent", "proc ", "$agent0 attach")):
        j += 1
    return lines[i:j]


# --------------------------------------------------------------------- parsers

def test_parse_units_exact():
    assert parse_time("0.1ms") == 100_000_000
    assert parse_time("50ms") == 50 * 10**9
    assert parse_time(10) == 10 * 10**12
    assert parse_time("0.5") == 5 * 10**11
    assert parse_time("3us") == 3 * 10**6
    assert parse_rate("2Mb") == 2_000_000
    assert parse_rate("448kb") == 448_000
    assert parse_rate("448Kb") == 448_000
    assert parse_rate("1.5Gbps") == 1_500_000_000
    assert parse_rate("1MB") == 8_000_000  # bytes per second
    assert parse_size("1500B") == 1500
    assert parse_size(1000) == 1000
    assert parse_size("1KB") == 1000
    assert parse_size("1KiB") == 1024


@pytest.mark.parametrize("bad", ["2 Mbs", "2Mbs", "fast", "", True])
def test_bad_rate_names_field(bad):
    with pytest.raises(ValueError, match=r"^links\[2\]\.bandwidth"):
        parse_rate(bad, "links[2].bandwidth")


# ------------------------------------------------------------------ translator

def test_nodes_in_list_order_and_trace_before_links():
    lines = tcl_lines()
    nodes = [ln for ln in lines if ln.endswith("[$ns node]")]
    assert nodes == ["set n0 [$ns node]", "set n1 [$ns node]", "set n2 [$ns node]", "set n3 [$ns node]"]
    first_link = next(i for i, ln in enumerate(lines) if "duplex-link" in ln)
    assert lines.index("$ns trace-all $tracefd") < first_link
    assert "set tracefd [open {/tmp/t.tr} w]" in lines


def test_links_and_queue_limits():
    lines = tcl_lines()
    # s1=2, r1=1, k1=0, s2=3
    assert "$ns duplex-link $n2 $n1 10000000 0.01 DropTail" in lines
    assert "$ns duplex-link $n3 $n1 1500000 0.0001 DropTail" in lines
    assert "$ns duplex-link $n1 $n0 448000 0.05 RED" in lines
    for a, b, lim in [(2, 1, 50), (1, 2, 50), (3, 1, 7), (1, 3, 7), (1, 0, 20), (0, 1, 20)]:
        assert f"$ns queue-limit $n{a} $n{b} {lim}" in lines
    links = [ln for ln in lines if "duplex-link" in ln]
    assert [ln.split()[2:4] for ln in links] == [["$n2", "$n1"], ["$n3", "$n1"], ["$n1", "$n0"]]


def test_red_knobs_on_both_queues_and_auto_thresholds_reset():
    lines = tcl_lines()
    for x, y in ((1, 0), (0, 1)):
        q = f"[[$ns link $n{x} $n{y}] queue] set"
        assert f"{q} targetdelay_ 0.004" in lines
        assert f"{q} gentle_ false" in lines
        # re-armed "automatic" values so ns-2 re-derives them with this link's knobs
        assert f"{q} thresh_ 0" in lines
        assert f"{q} maxthresh_ 0" in lines
        assert f"{q} q_weight_ -1" in lines
    assert not any(ln.startswith("Queue/RED set") for ln in lines)


def test_reno_flow_agents_knobs_and_ftp():
    lines = tcl_lines()
    a = block(lines, "set agent0 [new Agent/TCP/Reno]")
    assert a[1] == "$ns attach-agent $n2 $agent0"            # sender before sink
    assert a[2] == "set sink0 [new Agent/TCPSink]"
    assert a[3] == "$ns attach-agent $n0 $sink0"
    assert "$ns connect $agent0 $sink0" in a
    assert "$agent0 set fid_ 0" in a
    assert "$agent0 set packetSize_ 1460" in a
    assert "$agent0 set window_ 17" in a
    assert "$agent0 set minrto_ 1" in a
    assert "$agent0 set tcpTick_ 0.5" in a
    assert "$agent0 set singledup_ 0" in a
    assert "$agent0 set precisionReduce_ false" in a
    # newreno-only knob from the global table is not put on a Reno agent
    assert not any("partial_window_deflation_" in ln for ln in a)
    assert "$app0 attach-agent $agent0" in a
    assert '$ns at 0.5 "$app0 start"' in a
    assert '$ns at 15 "$app0 stop"' in a


def test_newreno_delack_produce_and_override():
    lines = tcl_lines()
    b = block(lines, "set agent1 [new Agent/TCP/Newreno]")
    assert "set sink1 [new Agent/TCPSink/DelAck]" in b
    assert "$sink1 set interval_ 0.05" in b
    assert "$agent1 set fid_ 1" in b
    assert "$agent1 set packetSize_ 1000" in b
    assert "$agent1 set partial_window_deflation_ 0" in b
    assert "$agent1 set ecn_ true" in b
    # the flow's own window overrides the global one, and is set last
    windows = [ln for ln in b if ln.startswith("$agent1 set window_")]
    assert windows[-1] == "$agent1 set window_ 9"
    assert '$ns at 0 "$app1 produce 25"' in b
    assert not any('"$app1 start"' in ln for ln in b)


def test_tahoe_and_udp_cbr():
    lines = tcl_lines()
    c = block(lines, "set agent2 [new Agent/TCP]")
    assert "set sink2 [new Agent/TCPSink]" in c
    assert "$agent2 set fid_ 2" in c
    u = block(lines, "set agent3 [new Agent/UDP]")
    assert "set sink3 [new Agent/Null]" in u
    assert "$agent3 set fid_ 3" in u
    assert "set app3 [new Application/Traffic/CBR]" in u
    assert "$app3 set rate_ 100000" in u
    assert "$app3 set packetSize_ 500" in u
    assert "$app3 attach-agent $agent3" in u
    assert not any("window_" in ln for ln in u)


def test_cwnd_trace_and_finish():
    lines = tcl_lines()
    for i in range(3):  # TCP agents only
        assert f"$agent{i} attach $cwndfd" in lines
        assert f"$agent{i} trace cwnd_" in lines
    assert "$agent3 trace cwnd_" not in lines
    assert '$ns at 20 "finish"' in lines
    assert lines[-1] == "$ns run"
    fin = lines[lines.index("proc finish {} {"):]
    assert "$ns flush-trace" in fin and "close $tracefd" in fin and "close $cwndfd" in fin
    assert "exit 0" in fin
    no_cwnd = tcl_lines(cwnd=None)
    assert not any("cwnd" in ln for ln in no_cwnd)


@pytest.mark.parametrize("patch, field", [
    (lambda s: s["links"][1].update(bandwidth="2 Mbs"), r"links\[1\]\.bandwidth"),
    (lambda s: s["links"][0].update(to="nowhere"), r"links\[0\]\.to"),
    (lambda s: s["links"][0].update(colour="red"), r"links\[0\]\.colour"),
    (lambda s: s["links"][0].update(red={"gentle": True}), r"links\[0\]\.red"),
    (lambda s: s["flows"][0].update(protocol="vegas"), r"flows\[0\]\.protocol"),
    (lambda s: s["flows"][0].update(start="soon"), r"flows\[0\]\.start"),
    (lambda s: s["flows"][0].update(tcp={"newreno_changes": 1}), r"flows\[0\]\.tcp\.newreno_changes"),
    (lambda s: s["flows"][3].update(app="ftp"), r"flows\[3\]\.app"),
    (lambda s: s["tcp"].update(rttvar_init="0.5s"), r"tcp\.rttvar_init"),
    (lambda s: s["tcp"].update(window="lots"), r"tcp\.window"),
    (lambda s: s["tcp"].update(cwnd=3), r"tcp\.cwnd"),
    (lambda s: s.update(profile="rfc"), r"profile"),
])
def test_untranslatable_fields_raise_valueerror(patch, field):
    import copy
    s = copy.deepcopy(SMALL)
    patch(s)
    with pytest.raises(ValueError, match="^" + field):
        scenario_to_tcl(s, "/tmp/t.tr")


def test_run_ns2_without_ns(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NS2Error, match="not on PATH"):
        run_ns2(SMALL, str(tmp_path / "w"))


# ------------------------------------------------------------ real ns-2 runs

THREE = {
    # listed "backwards" on purpose: ids must follow this order, not the topology
    "duration": "3s",
    "nodes": ["dst", "router", "src"],
    "links": [
        {"from": "src", "to": "router", "bandwidth": "10Mb", "delay": "10ms"},
        {"from": "router", "to": "dst", "bandwidth": "1Mb", "delay": "20ms"},
    ],
    "flows": [{"from": "src", "to": "dst", "protocol": "reno", "packets": 10}],
}


@pytest.mark.skipif(not HAVE_NS, reason="ns-2 not installed (conformance/install-ns2.sh)")
def test_real_ns2_run_three_nodes(tmp_path):
    paths = run_ns2(THREE, str(tmp_path))
    rows = [ln.split() for ln in Path(paths["trace"]).read_text().splitlines() if ln.strip()]
    assert rows
    assert {r[0] for r in rows} == {"+", "-", "r"}  # no drops here
    # node ids follow list order: src=2, router=1, dst=0
    assert {(r[2], r[3]) for r in rows} == {("2", "1"), ("1", "0"), ("0", "1"), ("1", "2")}
    data = [r for r in rows if r[4] == "tcp"]
    acks = [r for r in rows if r[4] == "ack"]
    assert all(r[8] == "2.0" and r[9] == "0.0" for r in data)   # agent addresses node.port
    assert all(r[8] == "0.0" and r[9] == "2.0" for r in acks)
    # SYN (seqno 0) is 40 B, data 1000 B payload + 40 B header, ACKs 40 B
    assert {r[5] for r in data if r[10] == "0"} == {"40"}
    assert {r[5] for r in data if r[10] != "0"} == {"1040"}
    assert {r[5] for r in acks} == {"40"}
    # `produce 10` sends the SYN plus 10 data segments, all delivered
    delivered = {int(r[10]) for r in data if r[0] == "r" and r[2] == "1" and r[3] == "0"}
    assert delivered == set(range(11))
    assert all(r[7] == "0" for r in rows)  # fid_
    # the first event: the SYN entering the src->router queue at t=0
    assert rows[0] == ["+", "0", "2", "1", "tcp", "40", "-------", "0", "2.0", "0.0", "0", "0"]
    cwnd = Path(paths["cwnd"]).read_text().split("\n")
    assert cwnd[0].split()[5:7] == ["cwnd_", "1.000"]


@pytest.mark.skipif(not HAVE_NS, reason="ns-2 not installed (conformance/install-ns2.sh)")
def test_real_ns2_delack_and_drops(tmp_path):
    s = {
        "duration": "5s",
        "nodes": ["a", "r", "b"],
        "tcp": {"window": 40},
        "links": [
            {"from": "a", "to": "r", "bandwidth": "10Mb", "delay": "1ms"},
            {"from": "r", "to": "b", "bandwidth": "1Mb", "delay": "20ms", "queue_limit": 5},
        ],
        "flows": [{"from": "a", "to": "b", "protocol": "newreno", "sink": "delack"}],
    }
    rows = [ln.split() for ln in Path(run_ns2(s, str(tmp_path))["trace"]).read_text().splitlines()]
    drops = [r for r in rows if r[0] == "d"]
    assert drops and all((r[2], r[3]) == ("1", "2") for r in drops)
    data_in = sum(1 for r in rows if r[0] == "r" and r[4] == "tcp" and r[3] == "2")
    acks_out = sum(1 for r in rows if r[0] == "+" and r[4] == "ack" and r[2] == "2")
    assert acks_out < 0.75 * data_in  # delayed ACKs: about one per two segments


def test_run_ns2_reports_ns_failure(tmp_path):
    with pytest.raises(NS2Error):
        run_ns2(THREE, str(tmp_path), ns=str(_fake_failing_ns(tmp_path)))


def _fake_failing_ns(tmp_path):
    script = tmp_path / "ns"
    script.write_text("#!/bin/sh\necho 'invalid command name' >&2\nexit 1\n")
    script.chmod(0o755)
    return script
