"""Tests for tcplab.ns2: normalized scenario -> ns-2.35 Tcl translation and the ns runner."""

import copy
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

# Import from the source tree without needing an installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tcplab  # noqa: E402
from support import needs_ns  # noqa: E402
from tcplab.ns2 import (NS2Error, LINUX_KNOBS, RED_VARS, TCP_VARS, VARIANT_ONLY, run_ns2,  # noqa: E402
                        scenario_to_tcl)


SMALL = '''
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
'''


def commands(tcl):
    """The Tcl's commands, comments dropped."""
    return [ln.strip() for ln in tcl.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def tcl_lines(scenario=SMALL, cwnd="/tmp/c.tr"):
    return commands(scenario_to_tcl(tcplab.validate(scenario), "/tmp/t.tr", cwnd))


def block(lines, start):
    """Lines of one flow's block: from `start` up to the next `set agentN`/`proc`."""
    i = lines.index(start)
    j = i + 1
    while j < len(lines) and not lines[j].startswith(("set agent", "proc ", "$agent0 attach")):
        j += 1
    return lines[i:j]


def agent_vars(lines, agent):
    """{ns-2 variable: text} of every `$agent set` line."""
    out = {}
    for ln in lines:
        m = re.fullmatch(rf"\${agent} set (\w+) (\S+)", ln)
        if m:
            assert m.group(1) not in out, f"{m.group(1)} set twice on {agent}"
            out[m.group(1)] = m.group(2)
    return out


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
    # s1=2, r1=1, k1=0, s2=3; bandwidth in bit/s, delay in seconds
    assert "$ns duplex-link $n2 $n1 10000000 0.01 DropTail" in lines
    assert "$ns duplex-link $n3 $n1 1500000 0.0001 DropTail" in lines
    assert "$ns duplex-link $n1 $n0 448000 0.05 RED" in lines
    for a, b, lim in [(2, 1, 50), (1, 2, 50), (3, 1, 7), (1, 3, 7), (1, 0, 20), (0, 1, 20)]:
        assert f"$ns queue-limit $n{a} $n{b} {lim}" in lines
    links = [ln for ln in lines if "duplex-link" in ln]
    assert [ln.split()[2:4] for ln in links] == [["$n2", "$n1"], ["$n3", "$n1"], ["$n1", "$n0"]]


def test_every_red_knob_on_both_queues():
    lines = tcl_lines()
    expected = {
        "bytes_": "true", "queue_in_bytes_": "true", "mean_pktsize_": "500",
        # the automatic values, written back so ns-2 re-derives them for this link
        "thresh_": "0.0", "maxthresh_": "0.0", "q_weight_": "-1.0",
        "linterm_": "10.0", "wait_": "true", "gentle_": "false", "setbit_": "false",
        "mark_p_": "0.1", "use_mark_p_": "true", "drop_tail_": "true", "drop_rand_": "false",
        "targetdelay_": "0.004",
        "ns1_compat_": "false", "adaptive_": "0", "alpha_": "0.01", "beta_": "0.9",
        "interval_": "0.5", "top_": "0.5", "bottom_": "0.0",
    }
    for x, y in ((1, 0), (0, 1)):
        q = f"[[$ns link $n{x} $n{y}] queue] set "
        got = dict(ln[len(q):].split(" ", 1) for ln in lines if ln.startswith(q))
        assert got == expected
    assert not any(ln.startswith("Queue/RED set") for ln in lines)
    assert not any("queue] set" in ln for ln in lines if "$n2" in ln or "$n3" in ln)


def test_reno_flow_every_knob_and_ftp():
    lines = tcl_lines()
    a = block(lines, "set agent0 [new Agent/TCP/Reno]")
    assert a[1] == "$ns attach-agent $n2 $agent0"            # sender before sink
    assert a[2] == "set sink0 [new Agent/TCPSink]"
    assert a[3:7] == ["$sink0 set SYN_immediate_ack_ true", "$sink0 set RFC2581_immediate_ack_ true",
                      "$sink0 set ts_echo_rfc1323_ false", "$sink0 set ecn_syn_ false"]
    assert a[7] == "$ns attach-agent $n0 $sink0"
    assert "$ns connect $agent0 $sink0" in a
    assert agent_vars(a, "agent0") == {
        "fid_": "0", "packetSize_": "1460", "window_": "17", "windowInit_": "2",
        "windowInitOption_": "1", "syn_": "true", "delay_growth_": "true", "maxcwnd_": "0",
        "maxburst_": "0", "tcpTick_": "0.5", "rtxcur_init_": "3.0", "minrto_": "1.0",
        "maxrto_": "60.0", "srtt_init_": "0", "rttvar_init_": "12", "numdupacks_": "3",
        "singledup_": "0", "bugFix_": "true", "precisionReduce_": "false", "ecn_": "false",
        "timestamps_": "false", "slow_start_restart_": "true", "decrease_num_": "0.5",
        "increase_num_": "1.0", "tcpip_base_hdr_size_": "40", "useHeaders_": "true",
        "numdupacksFrac_": "-1", "noFastRetrans_": "false", "aggressive_maxburst_": "true",
        "exitFastRetrans_": "true", "ts_resetRTO_": "false", "lessCareful_": "false",
        "bugFix_ack_": "false", "bugFix_ts_": "false", "bugfix_ss_": "true", "timerfix_": "true",
        "rfc2988_": "true", "old_ecn_": "false", "max_connects_": "-1", "T_SRTT_BITS": "3",
        "T_RTTVAR_BITS": "2",
        "rttvar_exp_": "2", "windowOption_": "1", "low_window_": "38", "high_window_": "83000",
        "high_p_": "1e-07", "high_decrease_": "0.1", "cwnd_range_": "0", "max_ssthresh_": "0",
        "frto_enabled_": "false", "sfrto_enabled_": "false", "spurious_response_": "1",
        "overhead_": "0.0", "max_connects_": "-1", "QOption_": "0", "EnblRTTCtr_": "0", "control_increase_": "0",
        # no newreno-only knob on a Reno agent
    }
    assert "$app0 attach-agent $agent0" in a
    # the applications' actions come after every flow, in order
    assert '$ns at 0.5 "$app0 start"' in lines
    assert lines.index('$ns at 0.5 "$app0 start"') + 1 == lines.index('$ns at 15.0 "$app0 stop"')


def test_newreno_delack_produce_and_override():
    lines = tcl_lines()
    b = block(lines, "set agent1 [new Agent/TCP/Newreno]")
    assert "set sink1 [new Agent/TCPSink/DelAck]" in b
    assert "$sink1 set interval_ 0.05" in b
    v = agent_vars(b, "agent1")
    assert v["fid_"] == "1"
    assert v["packetSize_"] == "1000"
    assert v["window_"] == "9"                     # the flow's own window over the global one
    assert v["ecn_"] == "true"
    assert v["tcpTick_"] == "0.5"                  # global knob
    assert {k: v[k] for k in ("newreno_changes_", "newreno_changes1_", "partial_window_deflation_",
                              "exit_recovery_fix_")} == {
        "newreno_changes_": "0", "newreno_changes1_": "1", "partial_window_deflation_": "0",
        "exit_recovery_fix_": "0"}
    others = {TCP_VARS[k] for v_, knobs in VARIANT_ONLY.items() if v_ != "newreno" for k in knobs} | RBP_VARS
    assert set(v) == {"fid_"} | set(TCP_VARS.values()) - others
    assert '$ns at 0.0 "$app1 produce 25"' in lines
    assert not any('"$app1 start"' in ln for ln in b)
    assert not any('"$app1 stop"' in ln for ln in b)


def test_tahoe_and_udp_cbr():
    lines = tcl_lines()
    c = block(lines, "set agent2 [new Agent/TCP]")
    assert "set sink2 [new Agent/TCPSink]" in c
    assert "$agent2 set fid_ 2" in c
    assert not any("newreno" in ln for ln in c)
    u = block(lines, "set agent3 [new Agent/UDP]")
    assert "set sink3 [new Agent/Null]" in u
    assert agent_vars(u, "agent3") == {"fid_": "3", "packetSize_": "500"}
    assert "set app3 [new Application/Traffic/CBR]" in u
    assert "$app3 set rate_ 100000" in u
    assert "$app3 set packetSize_ 500" in u
    assert "$app3 attach-agent $agent3" in u
    assert '$ns at 0.0 "$app3 start"' in u


SOURCES = {
    "duration": "10s",
    "nodes": ["a", "r", "b"],
    "links": [{"from": "a", "to": "r", "bandwidth": "2Mb", "delay": "5ms"},
              {"from": "r", "to": "b", "bandwidth": "1Mb", "delay": "20ms", "queue": "red"}],
    "flows": [
        {"name": "telnet", "from": "a", "to": "b", "protocol": "tahoe", "app": "telnet",
         "interval": 0.05},
        {"name": "expoo", "from": "a", "to": "b", "protocol": "udp", "app": "exponential",
         "rate": "200kb", "burst_time": "300ms", "idle_time": "1s", "packet_size": "500B",
         "stop": "9s"},
        {"name": "pareto", "from": "b", "to": "a", "protocol": "udp", "app": "pareto",
         "shape": 1.3},
        {"name": "cbr", "from": "b", "to": "a", "protocol": "reno", "app": "cbr",
         "rate": "100kb", "packet_size": "1000B"},
    ],
    "actions": [{"at": "2s", "flow": "telnet", "do": "set_interval", "interval": 0},
                {"at": "3s", "flow": "cbr", "do": "set_interval", "interval": 0.02}],
    "delay_spikes": [{"link": "r->b", "at": "4s", "length": "0.5s"}],
    "output": {"trace": ["ns2"]},
}


def test_traffic_sources_and_their_knobs():
    lines = tcl_lines(SOURCES)
    t = block(lines, "set agent0 [new Agent/TCP]")
    assert ["set app0 [new Application/Telnet]", "$app0 set interval_ 0.05",
            "$app0 attach-agent $agent0"] == t[-3:]
    e = block(lines, "set agent1 [new Agent/UDP]")
    assert agent_vars(e, "agent1") == {"fid_": "1", "packetSize_": "500"}
    assert e[-6:] == ["set app1 [new Application/Traffic/Exponential]", "$app1 set packetSize_ 500",
                      "$app1 set rate_ 200000", "$app1 set burst_time_ 0.3",
                      "$app1 set idle_time_ 1.0", "$app1 attach-agent $agent1"]
    p = block(lines, "set agent2 [new Agent/UDP]")
    # ns-2's defaults: 210-byte packets at 64 kb/s, 0.5 s bursts and idle times
    assert p[-7:] == ["set app2 [new Application/Traffic/Pareto]", "$app2 set packetSize_ 210",
                      "$app2 set rate_ 64000", "$app2 set burst_time_ 0.5",
                      "$app2 set idle_time_ 0.5", "$app2 set shape_ 1.3",
                      "$app2 attach-agent $agent2"]
    c = block(lines, "set agent3 [new Agent/TCP/Reno]")
    # CBR on a TCP agent: the agent keeps its own packetSize_ (segments), the CBR its own
    assert "set app3 [new Application/Traffic/CBR]" in c
    assert agent_vars(c, "agent3")["packetSize_"] == "1000"
    assert '$ns at 2.0 "$app0 set interval_ 0.0"' in lines
    assert '$ns at 3.0 "$app3 set interval_ 0.02"' in lines
    assert '$ns at 9.0 "$app1 stop"' in lines


TRACED = {
    "duration": "6s",
    "nodes": ["a", "b"],
    "links": [{"from": "a", "to": "b", "bandwidth": "1Mb", "delay": "10ms", "queue": "red"}],
    "flows": [
        {"name": "video", "from": "a", "to": "b", "protocol": "udp", "app": "trace",
         "packet_size": "1000B", "records": [[30000, 2500], [10000, 400], [20000, 1000]]},
        {"name": "typing", "from": "b", "to": "a", "protocol": "udp", "app": "telnet",
         "interval": 0, "packet_size": "64B"},
        {"name": "tcp", "from": "a", "to": "b", "protocol": "reno", "app": "trace",
         "records": [[5000, 1500], [1000, 500]]},
    ],
    "output": {"trace": ["ns2"]},
}


def test_reverse_red_sets_the_reverse_queue_only():
    one = copy.deepcopy(ONE)
    one["links"][0]["red"] = {"bytes": True, "thresh": 7.0}
    one["links"][0]["reverse_red"] = {"bytes": False}
    lines = tcl_lines(one)
    assert "[[$ns link $n0 $n1] queue] set bytes_ true" in lines
    assert "[[$ns link $n1 $n0] queue] set bytes_ false" in lines
    assert "[[$ns link $n1 $n0] queue] set thresh_ 7.0" in lines


def test_trace_sources_write_their_file_and_telnet_over_udp():
    lines = tcl_lines(TRACED)
    v = block(lines, "set agent0 [new Agent/UDP]")
    assert "$agent0 set packetSize_ 1000" in v
    assert "puts -nonewline $fd [binary format I* {30000 2500 10000 400 20000 1000}]" in v
    assert v[-5:] == ["set tracefile0 [new Tracefile]", "$tracefile0 filename tcplab-trace-0.bin",
                      "set app0 [new Application/Traffic/Trace]",
                      "$app0 attach-tracefile $tracefile0", "$app0 attach-agent $agent0"]
    t = block(lines, "set agent1 [new Agent/UDP]")
    assert "$agent1 set packetSize_ 64" in t
    assert t[-3:] == ["set app1 [new Application/Telnet]", "$app1 set interval_ 0.0",
                      "$app1 attach-agent $agent1"]


@needs_ns
def test_trace_sources_and_udp_telnet_run_in_ns2_as_in_tcplab(tmp_path):
    paths = run_ns2(TRACED, str(tmp_path))
    theirs = Path(paths["trace"]).read_text().splitlines()
    tcplab.run(TRACED, out=tmp_path / "tcplab", trace=["ns2"])
    ours = (tmp_path / "tcplab" / "trace.tr").read_text().splitlines()
    assert {ln.split()[4] for ln in ours} == {"tcp", "ack", "udp"}
    assert ours == theirs


def test_delay_spikes_insert_a_delayer_blocked_before_the_actions():
    lines = tcl_lines(SOURCES)
    assert "set delayer0 [new Delayer]" in lines
    assert "$ns insert-delayer $n1 $n2 $delayer0" in lines
    spike = lines.index('$ns at 4.0 "delay_spike $delayer0 0.5"')
    assert spike < lines.index('$ns at 0.0 "$app0 start"')
    assert lines[lines.index("proc delay_spike {delayer length} {") + 3] == '$ns after $length "$delayer unblock"'


@needs_ns
def test_traffic_sources_run_in_ns2_as_in_tcplab(tmp_path):
    """The exported sources run in ns-2, and its trace is tcplab's, line for line."""
    paths = run_ns2(SOURCES, str(tmp_path))
    theirs = Path(paths["trace"]).read_text().splitlines()
    result = tcplab.run(SOURCES, out=tmp_path / "tcplab", trace=["ns2"])
    ours = (tmp_path / "tcplab" / "trace.tr").read_text().splitlines()
    assert {ln.split()[4] for ln in ours} == {"tcp", "ack", "exp", "pareto"}
    assert result is not None and ours == theirs


def test_cwnd_trace_and_finish():
    lines = tcl_lines()
    for i in range(3):  # TCP agents only
        assert f"$agent{i} attach $cwndfd" in lines
        assert f"$agent{i} trace cwnd_" in lines
    assert "$agent3 trace cwnd_" not in lines
    assert '$ns at 20.0 "finish"' in lines
    assert lines[-1] == "$ns run"
    fin = lines[lines.index("proc finish {} {"):]
    assert "$ns flush-trace" in fin and "close $tracefd" in fin and "close $cwndfd" in fin
    assert "exit 0" in fin
    no_cwnd = tcl_lines(cwnd=None)
    assert not any("cwndfd" in ln or "cwnd_" in ln.split() for ln in no_cwnd)


def test_trace_options_narrow_what_ns2_traces():
    doc = tomllib.loads(SMALL)
    doc["output"] = {"events": True, "trace_links": [f"{doc['links'][0]['to']}->{doc['links'][0]['from']}"],
                     "trace_flows": [doc["flows"][1]["name"]]}
    n = tcplab.validate(doc)
    lines = commands(scenario_to_tcl(n, "/tmp/t.tr", "/tmp/c.tr"))
    assert "$ns trace-all $tracefd" not in lines
    (a, b), = n["trace_links"]
    assert [ln for ln in lines if "trace-queue" in ln] == [f"$ns trace-queue $n{a} $n{b} $tracefd"]
    assert any(ln.startswith("$ns eventtrace-all $tracefd ") for ln in lines)
    assert [ln for ln in lines if ln.endswith("attach $cwndfd")] == ["$agent1 attach $cwndfd"]
    # no packet trace: no event trace either (ns-2 would find no file to write it to)
    assert not any("eventtrace-all" in ln for ln in commands(scenario_to_tcl(n, None)))


# One knob at a time, away from its default: exactly one line of the Tcl changes, to this
# ns-2 variable and text.  Fails on any wrong name, wrong formatting or missing knob.
ONE = {
    "duration": "2s",
    "nodes": ["a", "b"],
    "links": [{"from": "a", "to": "b", "bandwidth": "1Mb", "delay": "10ms", "queue": "red"}],
    "flows": [{"from": "a", "to": "b", "protocol": "newreno"}],
}

TCP_CASES = [
    ("window", 9, "window_", "9"),
    ("window_init", 3, "windowInit_", "3"),
    ("window_init_option", 2, "windowInitOption_", "2"),
    ("syn", False, "syn_", "false"),
    ("delay_growth", False, "delay_growth_", "false"),
    ("max_cwnd", 30, "maxcwnd_", "30"),
    ("maxburst", 4, "maxburst_", "4"),
    ("tcp_tick", "100ms", "tcpTick_", "0.1"),
    ("rtxcur_init", "2.5s", "rtxcur_init_", "2.5"),
    ("minrto", "1s", "minrto_", "1.0"),
    ("maxrto", "30s", "maxrto_", "30.0"),
    ("srtt_init", "3s", "srtt_init_", "3"),
    ("rttvar_init", 5, "rttvar_init_", "5"),
    ("numdupacks", 4, "numdupacks_", "4"),
    ("singledup", 0, "singledup_", "0"),
    ("bug_fix", False, "bugFix_", "false"),
    ("precision_reduce", False, "precisionReduce_", "false"),
    ("ecn", True, "ecn_", "true"),
    ("timestamps", True, "timestamps_", "true"),
    ("slow_start_restart", False, "slow_start_restart_", "false"),
    ("decrease_num", 0.25, "decrease_num_", "0.25"),
    ("increase_num", 2.5, "increase_num_", "2.5"),
    ("newreno_changes", 1, "newreno_changes_", "1"),
    ("newreno_changes1", 0, "newreno_changes1_", "0"),
    ("partial_window_deflation", 0, "partial_window_deflation_", "0"),
    ("exit_recovery_fix", 1, "exit_recovery_fix_", "1"),
    ("partial_ack", True, "partial_ack_", "true"),
    ("ss_div4", True, "ss-div4_", "true"),
    ("rampdown", True, "rampdown_", "true"),
    ("tcpip_base_hdr_size", 52, "tcpip_base_hdr_size_", "52"),
    ("use_headers", False, "useHeaders_", "false"),
    ("numdupacks_frac", 4, "numdupacksFrac_", "4"),
    ("no_fast_retrans", True, "noFastRetrans_", "true"),
    ("aggressive_maxburst", False, "aggressive_maxburst_", "false"),
    ("exit_fast_retrans", False, "exitFastRetrans_", "false"),
    ("ts_reset_rto", True, "ts_resetRTO_", "true"),
    ("less_careful", True, "lessCareful_", "true"),
    ("bug_fix_ack", True, "bugFix_ack_", "true"),
    ("bug_fix_ts", True, "bugFix_ts_", "true"),
    ("bugfix_ss", False, "bugfix_ss_", "false"),
    ("timerfix", False, "timerfix_", "false"),
    ("rfc2988", False, "rfc2988_", "false"),
    ("old_ecn", True, "old_ecn_", "true"),
    ("max_connects", 5, "max_connects_", "5"),
    ("srtt_bits", 4, "T_SRTT_BITS", "4"),
    ("rttvar_bits", 3, "T_RTTVAR_BITS", "3"),
    ("rttvar_exp", 3, "rttvar_exp_", "3"),
    ("v_alpha", 2, "v_alpha_", "2"),
    ("v_beta", 4, "v_beta_", "4"),
    ("v_gamma", 2, "v_gamma_", "2"),
    ("rbp_scale", 0.5, "rbp_scale_", "0.5"),
    ("rbp_rate_algorithm", 2, "rbp_rate_algorithm_", "2"),
    ("window_option", 8, "windowOption_", "8"),
    ("low_window", 25, "low_window_", "25"),
    ("high_window", 12500, "high_window_", "12500"),
    ("high_p", 0.000001, "high_p_", "1e-06"),
    ("high_decrease", 0.25, "high_decrease_", "0.25"),
    ("cwnd_range", 50, "cwnd_range_", "50"),
    ("max_ssthresh", 100, "max_ssthresh_", "100"),
    ("frto", True, "frto_enabled_", "true"),
    ("sfrto", True, "sfrto_enabled_", "true"),
    ("spurious_response", 3, "spurious_response_", "3"),
    ("add793expbackoff", False, "add793expbackoff_", "false"),
    ("add793jacobsonrtt", True, "add793jacobsonrtt_", "true"),
    ("add793fastrtx", True, "add793fastrtx_", "true"),
    ("add793slowstart", True, "add793slowstart_", "true"),
    ("add793additiveinc", True, "add793additiveinc_", "true"),
    ("add793karnrtt", False, "add793karnrtt_", "false"),
    ("add793exponinc", True, "add793exponinc_", "true"),
    ("overhead", "10ms", "overhead_", "0.01"),
    ("max_connects", 5, "max_connects_", "5"),
    ("qoption", True, "QOption_", "1"),
    ("rtt_counter", True, "EnblRTTCtr_", "1"),
    ("control_increase", True, "control_increase_", "1"),
]

RED_CASES = [
    ("bytes", False, "bytes_", "false"),
    ("queue_in_bytes", False, "queue_in_bytes_", "false"),
    ("mean_pktsize", 1000, "mean_pktsize_", "1000"),
    ("thresh", 5, "thresh_", "5.0"),
    ("maxthresh", 15, "maxthresh_", "15.0"),
    ("q_weight", 0.002, "q_weight_", "0.002"),
    ("linterm", 3, "linterm_", "3.0"),
    ("wait", False, "wait_", "false"),
    ("gentle", False, "gentle_", "false"),
    ("setbit", True, "setbit_", "true"),
    ("mark_p", 0.2, "mark_p_", "0.2"),
    ("use_mark_p", False, "use_mark_p_", "false"),
    ("drop_tail", False, "drop_tail_", "false"),
    ("drop_rand", True, "drop_rand_", "true"),
    ("targetdelay", "2ms", "targetdelay_", "0.002"),
    ("ns1_compat", True, "ns1_compat_", "true"),
    ("drop_rand", True, "drop_rand_", "true"),
    ("adaptive", True, "adaptive_", "1"),
    ("alpha", 0.02, "alpha_", "0.02"),
    ("beta", 0.8, "beta_", "0.8"),
    ("interval", "1s", "interval_", "1.0"),
    ("top", 0.4, "top_", "0.4"),
    ("bottom", 0.001, "bottom_", "0.001"),
]


# The agent class that binds each variant-only knob (ONE's flow is Newreno otherwise).
VARIANT_OF = {"partial_ack": "sack1", "ss_div4": "fack", "rampdown": "fack",
              "v_alpha": "vegas", "v_beta": "vegas", "v_gamma": "vegas",
              "rbp_scale": "vegas/RBP", "rbp_rate_algorithm": "vegas/RBP",
              **{k: "rfc793edu" for k in ("add793expbackoff", "add793jacobsonrtt", "add793fastrtx",
                                          "add793slowstart", "add793additiveinc", "add793karnrtt",
                                          "add793exponinc")}}
# Written only on the RBP classes (the `rbp` knob itself picks the class).
RBP_VARS = {"rbp_scale_", "rbp_rate_algorithm_"}


def _changed(patch, protocol=None):
    one = copy.deepcopy(ONE)
    if protocol:
        protocol, rbp = protocol.removesuffix("/RBP"), protocol.endswith("/RBP")
        one["flows"][0]["protocol"] = protocol
        if rbp:
            one["tcp"] = {**one.get("tcp", {}), "rbp": True}
    base = tcl_lines(one)
    s = copy.deepcopy(one)
    patch(s)
    new = tcl_lines(s)
    assert len(new) == len(base)
    return [(b, n) for b, n in zip(base, new) if b != n]


def test_cases_cover_every_knob():
    n = tcplab.validate(ONE)
    params = set(n["flows"][0]["params"]) - {"rbp"}  # rbp picks the agent class
    # ssthresh is set once the run is on (test_ssthresh_is_set_after_the_reset), Agent/TCP/Linux's
    # module and globals by its own commands (test_linux_*)
    assert {c[0] for c in TCP_CASES} | {"packet_size"} == params - {"ssthresh"} - LINUX_KNOBS == set(TCP_VARS)
    red = set(n["links"][0]["queue"]) - {"kind", "limit"}
    assert {c[0] for c in RED_CASES} == red == set(RED_VARS)


@pytest.mark.parametrize("knob, value, var, text", TCP_CASES, ids=[c[0] for c in TCP_CASES])
def test_tcp_knob_maps_to_ns2_variable(knob, value, var, text):
    changed = _changed(lambda s: s["flows"][0].update(tcp={knob: value}), VARIANT_OF.get(knob))
    assert len(changed) == 1
    before, after = changed[0]
    assert before.startswith(f"$agent0 set {var} ")
    assert after == f"$agent0 set {var} {text}"


def test_ssthresh_is_set_after_the_reset():
    """`$ns run` resets ssthresh_ to window_, so the knob is set by an event at 0.0, before the
    applications' events; 0 (the default) writes nothing."""
    base = tcl_lines(ONE)
    s = copy.deepcopy(ONE)
    s["flows"][0]["tcp"] = {"ssthresh": 30}
    new = tcl_lines(s)
    added = [ln for ln in new if ln not in base]
    assert added == ['$ns at 0.0 "$agent0 set ssthresh_ 30"']
    assert not any(" ssthresh_" in ln for ln in base)
    assert new.index(added[0]) < new.index(next(ln for ln in new if ln.startswith('$ns at') and "$app0" in ln))


def test_sackrh_is_agent_tcp_sackrh_with_a_sack1_sink():
    s = copy.deepcopy(ONE)
    s["flows"][0]["protocol"] = "sackrh"
    lines = tcl_lines(s)
    assert "set agent0 [new Agent/TCP/SackRH]" in lines
    assert "set sink0 [new Agent/TCPSink/Sack1]" in lines


FULL = {
    "duration": "5s",
    "nodes": ["s", "r", "k"],
    "links": [{"from": "s", "to": "r", "bandwidth": "10Mb", "delay": "2ms"},
              {"from": "r", "to": "k", "bandwidth": "1Mb", "delay": "30ms"}],
    "flows": [{"name": "F", "from": "s", "to": "k", "protocol": "fulltcp_sack", "start": "0.1s",
               "tcp": {"window": 30, "segsize": 1000}, "peer": {"iss": 5000, "segsperack": 2}}],
    "actions": [{"at": "1s", "flow": "F", "do": "start", "end": "to"},
                {"at": "2s", "flow": "F", "do": "advance_bytes", "bytes": 3000},
                {"at": "3s", "flow": "F", "do": "close", "end": "to"}],
    "losses": [{"link": "r->k", "flows": ["F"], "model": "periodic", "offset": 3, "period": 40}],
}


def test_fulltcp_is_a_pair_of_agents_with_their_own_variables():
    lines = tcl_lines(FULL)
    assert "set agent0 [new Agent/TCP/FullTcp/Sack]" in lines
    assert "set sink0 [new Agent/TCP/FullTcp/Sack]" in lines
    assert "$sink0 set fid_ 0" in lines and "$sink0 listen" in lines
    src, peer = agent_vars(lines, "agent0"), agent_vars(lines, "sink0")
    assert (src["window_"], src["segsize_"], src["iss_"]) == ("30", "1000", "0")
    assert (peer["window_"], peer["segsize_"], peer["iss_"], peer["segsperack_"]) == ("20", "536", "5000", "2")
    assert src["reno_fastrecov_"] == "false" and "recov_maxburst_" not in src  # Sack's, not Newreno's
    # the peer's FTP, FullTcp's own commands, and ErrorModel/Periodic
    assert "$app0to attach-agent $sink0" in lines
    assert '$ns at 1.0 "$app0to start"' in lines
    assert '$ns at 2.0 "$agent0 advance-bytes 3000"' in lines
    assert '$ns at 3.0 "$sink0 close"' in lines
    assert "set errmodel0 [new ErrorModel/Periodic]" in lines
    assert ("$errmodel0 set offset_ 3.0", "$errmodel0 set period_ 40.0") == (lines[lines.index("$errmodel0 unit pkt") + 1], lines[lines.index("$errmodel0 unit pkt") + 2])


def test_a_fulltcp_flow_without_listen_opens_from_both_ends():
    s = copy.deepcopy(FULL)
    s["flows"][0]["listen"] = False
    assert "$sink0 listen" not in tcl_lines(s)


def test_fulltcp_knobs_are_refused_on_one_way_agents():
    s = copy.deepcopy(ONE)
    s["flows"][0]["tcp"] = {"segsize": 1000}
    with pytest.raises(tcplab.ScenarioError, match=r"flows\[0\]\.tcp\.segsize"):
        tcplab.validate(s)


def _linux(tcp: dict, actions=()) -> list[str]:
    s = copy.deepcopy(ONE)
    s["flows"][0].update(protocol="linux", name="f", tcp=tcp)
    s["actions"] = list(actions)
    return tcl_lines(s)


def test_linux_selects_its_module_after_the_reset():
    """Agent/TCP/Linux with a SACK sink; `select_ca` at 0.0 (after `$ns run`'s reset), and
    TCP-Linux's globals left alone at their defaults."""
    lines = _linux({"ca": "cubic"})
    assert "set agent0 [new Agent/TCP/Linux]" in lines
    assert "set sink0 [new Agent/TCPSink/Sack1]" in lines
    assert '$ns at 0.0 "$agent0 select_ca cubic"' in lines
    assert not any("set_ca_default_param" in ln or " ca_ " in ln for ln in lines)
    # the Linux class's own defaults, which [tcp] (Agent/TCP) does not override
    assert "$agent0 set minrto_ 0.2" in lines and "$agent0 set maxrto_ 120.0" in lines


def test_linux_globals_are_written_max_burst_first():
    """Writing tcp_max_burst (an int into an unsigned char) also zeroes sysctl_tcp_abc after
    it, so that is written second."""
    lines = _linux({"ca": "reno", "tcp_abc": 1, "tcp_max_burst": 0})
    i = lines.index('$ns at 0.0 "$agent0 set_ca_default_param linux tcp_max_burst 0"')
    assert lines[i + 1] == '$ns at 0.0 "$agent0 set_ca_default_param linux sysctl_tcp_abc 1"'


def test_linux_flows_that_differ_in_the_globals_are_refused():
    """ns-2 holds tcp_abc and tcp_max_burst for all its Linux agents: Linux flows that agree
    translate, flows that differ are refused naming the first that does."""
    s = copy.deepcopy(ONE)
    s["flows"] = [{"name": n, "from": "a", "to": "b", "protocol": "linux", "tcp": {"tcp_max_burst": 1}}
                  for n in ("f", "g")]
    assert sum("tcp_max_burst 1" in ln for ln in tcl_lines(s)) == 2
    s["flows"][1]["tcp"]["tcp_max_burst"] = 3
    with pytest.raises(ValueError, match=r"flows\[1\]\.tcp\.tcp_max_burst: ns-2 holds it"):
        tcl_lines(s)


def test_set_cwnd_action_sets_the_agents_cwnd():
    lines = _linux({"ca": "reno"}, [{"at": "1s", "flow": "f", "do": "set_cwnd", "cwnd": 1}])
    assert '$ns at 1.0 "$agent0 set cwnd_ 1"' in lines


def test_unknown_linux_module_is_refused():
    s = copy.deepcopy(ONE)
    s["flows"][0].update(protocol="linux", tcp={"ca": "cubicc"})
    with pytest.raises(tcplab.ScenarioError, match=r"flows\[0\]\.tcp\.ca.*did you mean \"cubic\""):
        tcplab.validate(s)
    s["flows"][0].update(protocol="reno", tcp={"ca": "cubic"})
    with pytest.raises(tcplab.ScenarioError, match=r"flows\[0\]\.tcp\.ca.*protocol = \"linux\""):
        tcplab.validate(s)


def test_rfc793edu_is_agent_tcp_rfc793edu_and_resets_go_to_the_agents():
    s = copy.deepcopy(ONE)
    s["flows"][0].update(protocol="rfc793edu", name="f")
    s["actions"] = [{"at": "1s", "flow": "f", "do": "reset"}, {"at": "1s", "flow": "f", "do": "reset_sink"},
                    {"at": "1.5s", "flow": "f", "do": "producemore", "packets": 5}]
    lines = tcl_lines(s)
    assert "set agent0 [new Agent/TCP/RFC793edu]" in lines
    assert "set sink0 [new Agent/TCPSink]" in lines
    at = [ln for ln in lines if ln.startswith("$ns at 1")]
    assert at == ['$ns at 1.0 "$agent0 reset"', '$ns at 1.0 "$sink0 reset"', '$ns at 1.5 "$app0 producemore 5"']


def test_droptail_in_bytes_sets_both_queues():
    s = copy.deepcopy(ONE)
    s["links"][0].update(queue="droptail", droptail={"queue_in_bytes": True, "mean_pktsize": 1000})
    lines = tcl_lines(s)
    for x, y in ((0, 1), (1, 0)):
        q = f"[[$ns link $n{x} $n{y}] queue] set "
        assert [ln for ln in lines if ln.startswith(q)] == [q + "queue_in_bytes_ true", q + "mean_pktsize_ 1000"]
    s["links"][0]["droptail"] = {"mean_pktsize": 1000}  # counted in packets: nothing to set
    assert not any("queue] set" in ln for ln in tcl_lines(s))


def test_droptail_ecn_threshold_has_no_ns2_counterpart():
    s = copy.deepcopy(ONE)
    s["links"][0].update(queue="droptail", droptail={"ecn_threshold": 20})
    with pytest.raises(ValueError, match=r"links\[0\]\.droptail\.ecn_threshold"):
        tcl_lines(s)


def test_packet_size_maps_to_packetsize():
    changed = _changed(lambda s: s["flows"][0].update(packet_size="1460B"))
    assert changed == [("$agent0 set packetSize_ 1000", "$agent0 set packetSize_ 1460")]


@pytest.mark.parametrize("knob, value, var, text", RED_CASES, ids=[c[0] for c in RED_CASES])
def test_red_knob_maps_to_ns2_variable(knob, value, var, text):
    changed = _changed(lambda s: s["links"][0].update(red={knob: value}))
    assert [a for _, a in changed] == [f"[[$ns link $n{x} $n{y}] queue] set {var} {text}"
                                       for x, y in ((0, 1), (1, 0))]


@pytest.mark.parametrize("variant, cls", [("tahoe", "Agent/TCP"), ("reno", "Agent/TCP/Reno")])
def test_newreno_only_knobs_only_on_newreno(variant, cls):
    s = copy.deepcopy(ONE)
    s["flows"][0]["protocol"] = variant
    s["tcp"] = {"newreno_changes": 1, "exit_recovery_fix": 1}
    lines = tcl_lines(s)
    assert f"set agent0 [new {cls}]" in lines
    only = {TCP_VARS[k] for knobs in VARIANT_ONLY.values() for k in knobs} | RBP_VARS
    assert "exit_recovery_fix_" in only and "ss-div4_" in only
    assert set(agent_vars(lines, "agent0")) == {"fid_"} | set(TCP_VARS.values()) - only


def test_times_keep_the_double_tcplab_uses():
    s = copy.deepcopy(ONE)
    s["links"][0]["delay"] = "0.3ms"
    s["flows"][0].update(start="0.1s", stop="1.7s")
    n = tcplab.validate(s)
    lines = tcl_lines(s)
    assert f"$ns duplex-link $n0 $n1 1000000 {n['links'][0]['delay_s']!r} RED" in lines
    assert f'$ns at {n["flows"][0]["start_s"]!r} "$app0 start"' in lines
    assert f'$ns at {n["flows"][0]["stop_s"]!r} "$app0 stop"' in lines
    for ln in lines:
        for word in re.findall(r"\d+\.\d+(?:e-?\d+)?", ln):
            assert repr(float(word)) == word


def test_names_cannot_break_out_of_comments():
    s = copy.deepcopy(ONE)
    s["nodes"] = ["a\nexit 1", "b\\"]
    s["links"][0].update({"from": "a\nexit 1", "to": "b\\"})
    s["flows"][0].update({"from": "a\nexit 1", "to": "b\\", "name": "x\nexit 2"})
    s["name"] = "n\nexit 3"
    text = scenario_to_tcl(tcplab.validate(s), "/tmp/t.tr")
    assert not any(ln.startswith("exit") or ln.endswith("\\") for ln in text.splitlines())
    assert commands(text) == tcl_lines(ONE, cwnd=None)


def test_raw_scenario_is_refused():
    with pytest.raises(TypeError, match="tcplab.validate"):
        scenario_to_tcl(ONE, "/tmp/t.tr")


def test_run_ns2_without_ns(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NS2Error, match="not on PATH"):
        run_ns2(SMALL, str(tmp_path / "w"))


def test_run_ns2_validates(tmp_path):
    with pytest.raises(tcplab.ScenarioError, match="bandwidth"):
        run_ns2({**ONE, "links": [{**ONE["links"][0], "bandwidth": "2 Mbs"}]}, str(tmp_path),
                ns=str(_fake_failing_ns(tmp_path)))


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


@needs_ns
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


@needs_ns
def test_real_ns2_delack_and_drops(tmp_path):
    # TOML text, as tcplab.validate accepts it
    s = '''
duration = "5s"
nodes = ["a", "r", "b"]
tcp = { window = 40 }
links = [
  { from = "a", to = "r", bandwidth = "10Mb", delay = "1ms" },
  { from = "r", to = "b", bandwidth = "1Mb", delay = "20ms", queue_limit = 5 },
]
flows = [{ from = "a", to = "b", protocol = "newreno", sink = "delack" }]
'''
    rows = [ln.split() for ln in Path(run_ns2(s, str(tmp_path))["trace"]).read_text().splitlines()]
    drops = [r for r in rows if r[0] == "d"]
    assert drops and all((r[2], r[3]) == ("1", "2") for r in drops)
    data_in = sum(1 for r in rows if r[0] == "r" and r[4] == "tcp" and r[3] == "2")
    acks_out = sum(1 for r in rows if r[0] == "+" and r[4] == "ack" and r[2] == "2")
    assert acks_out < 0.75 * data_in  # delayed ACKs: about one per two segments


# Every kind of object with tcplab's defaults: a RED bottleneck that drops, each TCP variant
# and sink, and CBR over UDP.
DEFAULTS = {
    "duration": "10s",
    "nodes": ["s", "r", "k"],
    "links": [
        {"from": "s", "to": "r", "bandwidth": "10Mb", "delay": "2ms"},
        {"from": "r", "to": "k", "bandwidth": "1Mb", "delay": "30ms", "queue": "red"},
    ],
    "flows": [
        {"from": "s", "to": "k", "protocol": "tahoe"},
        {"from": "s", "to": "k", "protocol": "reno", "sink": "delack", "start": "0.3s"},
        {"from": "s", "to": "k", "protocol": "newreno", "start": "0.7s"},
        {"from": "s", "to": "k", "protocol": "sack1", "start": "0.9s"},
        {"from": "s", "to": "k", "protocol": "fack", "sink": "sack1_delack", "start": "1.1s"},
        {"from": "s", "to": "k", "protocol": "sackrh", "start": "1.2s"},
        {"from": "s", "to": "k", "protocol": "vegas", "start": "1.3s"},
        {"from": "s", "to": "k", "protocol": "vegas", "start": "1.5s", "tcp": {"rbp": True}},
        {"from": "s", "to": "k", "protocol": "reno", "start": "1.7s", "tcp": {"rbp": True}},
        {"from": "s", "to": "k", "protocol": "udp"},
        {"from": "s", "to": "k", "protocol": "fulltcp", "start": "1.9s"},
        {"from": "s", "to": "k", "protocol": "fulltcp_tahoe", "start": "2.1s"},
        {"from": "s", "to": "k", "protocol": "fulltcp_newreno", "start": "2.3s"},
        {"from": "s", "to": "k", "protocol": "fulltcp_sack", "start": "2.5s"},
    ],
}

SET_RE = re.compile(r"(\$\w+|\[\[\$ns link \$n\d+ \$n\d+\] queue\]) set (\w+) (\S+)")


@needs_ns
def test_every_variable_exists_in_ns2_with_that_default(tmp_path):
    """Each variable written exists on its ns-2 class, and tcplab's defaults are ns-2's."""
    lines = tcl_lines(DEFAULTS)
    cls = {"$" + m.group(1): m.group(2) for ln in lines
           if (m := re.fullmatch(r"set (\w+) \[new ([\w/]+)\]", ln))}
    probes = []
    for ln in lines:
        if (m := SET_RE.fullmatch(ln)):
            obj, var, text = m.groups()
            probes.append((cls.get(obj, "Queue/RED"), var, text))
    assert len(probes) > 100
    script = tmp_path / "probe.tcl"
    script.write_text(
        "set ns [new Simulator]\n"
        "proc probe {cls var} {\n"
        "    set o [new $cls]\n"
        "    if {[catch {$o set $var} v]} { puts \"$cls $var MISSING\" } else { puts \"$cls $var $v\" }\n"
        "}\n"
        + "".join(f"probe {c} {v}\n" for c, v, _ in probes) + "exit 0\n")
    out = subprocess.run(["ns", str(script)], capture_output=True, text=True, timeout=60).stdout
    defaults = dict(((c, v), d) for c, v, d in (ln.split(" ", 2) for ln in out.splitlines()))

    def number(text):
        return float({"true": 1, "false": 0}.get(text, text))

    wrong = []
    for c, v, text in probes:
        if v == "fid_" or (c, v) == ("Agent/UDP", "packetSize_"):  # set on purpose
            continue
        d = defaults[(c, v)]
        if d == "MISSING" or number(d) != number(text):
            wrong.append(f"{c} {v}: ns-2 {d}, tcplab {text}")
    assert not wrong


@needs_ns
def test_setting_every_default_explicitly_changes_nothing_in_ns2(tmp_path):
    """The same run with all knob lines dropped (ns-2's own defaults) gives the same trace."""
    tcl = scenario_to_tcl(tcplab.validate(DEFAULTS), "trace.tr")
    keep = ("fid_", "packetSize_", "interval_", "rate_")
    bare = "\n".join(ln for ln in tcl.splitlines()
                     if not (SET_RE.fullmatch(ln) and SET_RE.fullmatch(ln).group(2) not in keep))
    assert len(bare) < len(tcl) / 2
    traces = []
    for name, text in (("full", tcl), ("bare", bare)):
        d = tmp_path / name
        d.mkdir()
        (d / "s.tcl").write_text(text)
        subprocess.run(["ns", "s.tcl"], cwd=d, check=True, capture_output=True, timeout=120)
        traces.append((d / "trace.tr").read_text())
    assert traces[0].count("\nd ") > 10  # RED drops: the knobs matter
    assert traces[0] == traces[1]


def test_run_ns2_reports_ns_failure(tmp_path):
    with pytest.raises(NS2Error):
        run_ns2(THREE, str(tmp_path), ns=str(_fake_failing_ns(tmp_path)))


def _fake_failing_ns(tmp_path):
    script = tmp_path / "ns"
    script.write_text("#!/bin/sh\necho 'invalid command name' >&2\nexit 1\n")
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("change, field", [
    ({"profile": "rfc"}, "flows[0].profile"),
    ({"pacing": {"depth": 2}}, "flows[0].pacing"),
])
def test_what_ns2_lacks_is_refused_naming_the_field(change, field):
    s = tcplab.validate({**ONE, **change})
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]")):
        scenario_to_tcl(s, "out.tr")


# ------------------------------------------------------------ tcplab ns2 export

DUMBBELL = Path(__file__).parent / "data" / "dumbbell.toml"


@needs_ns
def test_exported_tcl_runs_in_ns2_and_traces_what_tcplab_traces(tmp_path, capsys):
    """`tcplab ns2 export` writes Tcl that ns-2 runs as it is, and ns-2's trace of it is
    line for line tcplab's own ns-2 trace of the same scenario (two TCP flows and CBR)."""
    from tcplab import cli
    from tcplab.ns2 import ns_environment
    from tcplab.tracediff import diff_traces

    work = tmp_path / "ns2"
    work.mkdir()
    assert cli.main(["ns2", "export", str(DUMBBELL), "--out", str(work / "dumbbell.tcl")]) == 0
    assert capsys.readouterr().out == f"{work / 'dumbbell.tcl'}\n"
    subprocess.run(["ns", "dumbbell.tcl"], cwd=work, check=True, capture_output=True, timeout=120,
                   env=ns_environment())
    tcplab.run(DUMBBELL, out=tmp_path / "tcplab", trace=["ns2"])
    report = diff_traces(str(tmp_path / "tcplab" / "trace.tr"), str(work / "trace.tr"))
    assert report.compared > 1000
    assert report.identical, report.format()


def test_export_prints_the_tcl_with_the_trace_paths_asked_for(capsys):
    from tcplab import cli

    assert cli.main(["ns2", "export", str(DUMBBELL), "--trace", "/tmp/x.tr", "--cwnd", "c.tr",
                     "--nam", "n.nam"]) == 0
    tcl = capsys.readouterr().out
    assert tcl == scenario_to_tcl(tcplab.validate(DUMBBELL), "/tmp/x.tr", "c.tr", "n.nam")
    assert "$ns trace-all $tracefd" in tcl and "$ns namtrace-all $namfd" in tcl
    assert "$agent0 trace cwnd_" in tcl


@pytest.mark.parametrize("change, why", [
    ({"profile": "rfc"}, r"flows\[0\]\.profile: the rfc profile has no ns-2 agent"),
    ({"pacing": {"depth": 2}}, r"flows\[0\]\.pacing: ns-2 has no packet spacing"),
])
def test_export_of_what_ns2_cannot_express_is_one_line_and_exit_2(tmp_path, capsys, change, why):
    import json

    from tcplab import cli

    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({**ONE, **change}))
    assert cli.main(["ns2", "export", str(scenario)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert re.fullmatch(rf"tcplab: error: {re.escape(str(scenario))}: cannot export to ns-2: {why}[^\n]*\n", err)


def test_export_of_a_wireless_scenario_says_why(capsys):
    from tcplab import cli

    wifi = Path(__file__).resolve().parents[2] / "scenarios" / "wifi" / "download.toml"
    assert cli.main(["ns2", "export", str(wifi)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot export to ns-2: wlans[0].profile: the standard profile has no ns-2" in err


def test_export_of_an_invalid_scenario_names_the_field(tmp_path, capsys):
    from tcplab import cli

    bad = tmp_path / "bad.toml"
    bad.write_text(DUMBBELL.read_text().replace('bandwidth = "2Mb"', 'bandwidth = "2 Mbs"'))
    assert cli.main(["ns2", "export", str(bad)]) == 2
    assert capsys.readouterr().err.startswith("tcplab: error: links[2].bandwidth:")
