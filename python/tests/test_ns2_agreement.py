"""tcplab against ns-2.35 itself, on scenarios that stress the ns-2 translator and the random
numbers (the study's own dumbbells are the `yew2011` conformance suite).

Both simulators run the same scenario file (ns-2 through the Tcl that tcplab.ns2 writes); the
traces of every link are compared line by line and a failure shows the first line that differs.
ns-2 comes from Debian's `ns2` package (conformance/install-ns2.sh); without it these tests are
skipped, except under CI, which installs it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import needs_ns

import tcplab
from tcplab import ns2
from tcplab.tracediff import diff_traces, first_difference

REPO = Path(__file__).resolve().parents[2]
LOSSY_RENO = REPO / "scenarios" / "yew2011-wired" / "lossy-reno.toml"
FUZZ_CASES = sorted((REPO / "conformance" / "fuzz-cases").glob("*.json"))


def assert_identical(report):
    assert report.identical, (
        f"{report.equal_prefix} lines agree, then line {report.first_diff_a}:\n"
        f"  tcplab: {report.line_a}\n  ns-2:   {report.line_b}"
    )



CROSS_TRAFFIC = """
[[flows]]
name = "C"
from = "s1"
to = "k2"
protocol = "udp"
rate = "300kb"
packet_size = "500B"
start = "1.3s"
stop = "60s"
"""


@needs_ns
@pytest.mark.parametrize("seed", [1, 7])
def test_two_tcp_flows_and_cbr_match_ns2_whatever_the_seed(seed, tmp_path):
    """CBR cross traffic makes the RTO depend on each agent's clock phase, which ns-2 draws
    from its default generator: tcplab's rng = "ns2" must draw the same phases."""
    text = (LOSSY_RENO.read_text().replace('seed = 1', f'seed = {seed}') + CROSS_TRAFFIC)
    scenario = tmp_path / "cross.toml"
    scenario.write_text(text)
    theirs = ns2.run_ns2(str(scenario), str(tmp_path / "ns2"))["trace"]
    tcplab.run(scenario, out=tmp_path / "tcplab", trace=["ns2"], until="30s")
    ns2_30s = tmp_path / "ns2-30s.tr"
    with open(theirs) as src, open(ns2_30s, "w") as dst:
        dst.writelines(line for line in src if float(line.split()[1]) < 30)
    report = diff_traces(str(tmp_path / "tcplab" / "trace.tr"), str(ns2_30s))
    assert report.compared > 50_000
    assert_identical(report)


FEATURES = """
name = "features"
duration = "12s"
nodes = ["s1", "s2", "r1", "k1"]

[tcp]
window = 20
timestamps = true

[tcpsink]
syn_immediate_ack = false

[[links]]
from = "s1"
to = "r1"
bandwidth = "8Mb"
delay = "1ms"

[[links]]
from = "s2"
to = "r1"
bandwidth = "8Mb"
delay = "1ms"

[[links]]
from = "r1"
to = "k1"
bandwidth = "800kb"
delay = "50ms"
queue_limit = 9
reverse_queue_limit = 5

[[flows]]
name = "A"
from = "s1"
to = "k1"
protocol = "newreno"
sink = "delack"
packets = 150

[[flows]]
name = "B"
fid = 7
from = "s2"
to = "k1"
protocol = "sack1"
tcp = { ecn = true }

[[losses]]
link = "r1->k1"
flows = ["A"]
packets = [20, 21, 40]

[[losses]]
link = "s2->r1"
flows = ["B"]
packets = [30]
action = "delay"
delay = "80ms"

[[losses]]
link = "r1->k1"
flows = ["B"]
packets = [12, 50]
action = "mark"

[[actions]]
at = "6s"
flow = "A"
do = "producemore"
packets = 40

[output]
tcp_header = true
events = true
"""


@needs_ns
def test_losses_actions_sink_knobs_and_event_lines_match_ns2(tmp_path):
    """The translator's error modules, `$ns at` actions, sink knobs, reverse queue limits, TCP
    header fields and event lines, against tcplab's own: same packets, same order."""
    scenario = tmp_path / "features.toml"
    scenario.write_text(FEATURES)
    theirs = ns2.run_ns2(str(scenario), str(tmp_path / "ns2"))["trace"]
    tcplab.run(scenario, out=tmp_path / "tcplab", trace=["ns2"])
    text = (tmp_path / "tcplab" / "trace.tr").read_text()
    assert "\nE " in text, "event lines"
    assert "----E-N" in text and "\nd " in text
    report = diff_traces(str(tmp_path / "tcplab" / "trace.tr"), theirs)
    assert_identical(report)


BUGFIX_BOTH = """
name = "bugfix-both"
duration = "1s"
nodes = ["r1", "r2", "s2", "k2", "s8", "k8"]

[[links]]
from = "r1"
to = "r2"
bandwidth = "2Mb"
delay = "1ms"
queue_limit = 6

[[links]]
from = "s2"
to = "r1"
bandwidth = "100Mb"
delay = "5ms"

[[links]]
from = "r2"
to = "k2"
bandwidth = "800kb"
delay = "33ms"

[[links]]
from = "s8"
to = "r1"
bandwidth = "5Mb"
delay = "10ms"

[[links]]
from = "k8"
to = "r2"
bandwidth = "5Mb"
delay = "20ms"

[[flows]]
name = "cbr"
from = "s2"
to = "k2"
protocol = "udp"
rate = "1Mb"
packet_size = 40

[[flows]]
name = "tcp"
from = "s8"
to = "k8"
protocol = "newreno"
tcp = { window = 3, numdupacks = 2, bug_fix_ack = true, bug_fix_ts = true }
"""


@needs_ns
def test_newreno_retransmits_when_either_bugfix_test_passes(tmp_path):
    """With bug_fix_ts and bug_fix_ack both on, ns-2's NewReno retransmits when the timestamp
    test fails but the ACK test passes (found by a differential fuzz: tcplab waited)."""
    scenario = tmp_path / "bugfix.toml"
    scenario.write_text(BUGFIX_BOTH)
    theirs = ns2.run_ns2(str(scenario), str(tmp_path / "ns2"))["trace"]
    tcplab.run(scenario, out=tmp_path / "tcplab", trace=["ns2"])
    report = diff_traces(str(tmp_path / "tcplab" / "trace.tr"), theirs)
    assert_identical(report)


AT_THE_END = """
name = "at-the-end"
duration = "2s"
nodes = ["s", "r", "k"]

[[links]]
from = "s"
to = "r"
bandwidth = "10Mb"
delay = "5ms"

[[links]]
from = "r"
to = "k"
bandwidth = "1Mb"
delay = "20ms"

[[flows]]
name = "A"
from = "s"
to = "k"
protocol = "reno"
stop = "2s"

[[flows]]
name = "late"
from = "s"
to = "k"
protocol = "newreno"
tcp = { window = 4 }

[[flows]]
name = "cbr"
from = "s"
to = "k"
protocol = "udp"
rate = "200kb"
start = "1s"

[[flows]]
name = "steady"
from = "s"
to = "k"
protocol = "udp"
rate = "64kb"
packet_size = 1000

[[actions]]
at = "2s"
flow = "late"
do = "produce"
packets = 3

[[actions]]
at = "2s"
flow = "cbr"
do = "stop"
"""


@needs_ns
def test_actions_at_the_end_run_before_the_halt_as_in_ns2(tmp_path):
    """ns-2 runs the `$ns at` lines written for the end time before its `finish`: a flow
    produced at the end sends its first packet then, which the trace shows. What the run
    schedules for the end does not run: the steady source's 17th packet, due at 2 s."""
    scenario = tmp_path / "end.toml"
    scenario.write_text(AT_THE_END)
    theirs = ns2.run_ns2(str(scenario), str(tmp_path / "ns2"))["trace"]
    tcplab.run(scenario, out=tmp_path / "tcplab", trace=["ns2"])
    ours = tmp_path / "tcplab" / "trace.tr"
    last = ours.read_text().splitlines()[-1].split()
    assert last[:2] == ["-", "2"] and last[7] == "1", f"the late flow's first packet leaves at the end: {last}"
    assert_identical(diff_traces(str(ours), theirs))


@needs_ns
@pytest.mark.parametrize("which", ["lossy-reno", "features"])
def test_nam_trace_is_ns2s(which, tmp_path):
    """`--trace nam` writes what ns-2's `namtrace-all` writes for the same scenario, line for
    line: the addressing, nodes and links, then every packet event with its NAM hop (`h`)."""
    if which == "features":
        scenario = tmp_path / "features.toml"
        scenario.write_text(FEATURES)
    else:
        scenario = LOSSY_RENO
    theirs = ns2.run_ns2(str(scenario), str(tmp_path / "ns2"), cwnd=False, nam=True)["nam"]
    tcplab.run(scenario, out=tmp_path / "tcplab", trace=["nam"])
    report = diff_traces(str(tmp_path / "tcplab" / "trace.nam"), theirs)
    assert report.compared > 10_000
    assert_identical(report)


TWO_WAY = REPO / "scenarios" / "ns2-agents" / "fulltcp-two-way.toml"


@needs_ns
def test_two_way_fulltcp_flows_with_losses_match_ns2(tmp_path):
    """FullTcp Sack and Newreno pairs, data both ways, a close, periodic losses: ns-2's trace."""
    scenario = TWO_WAY
    theirs = ns2.run_ns2(str(scenario), str(tmp_path / "ns2"), cwnd=False)["trace"]
    tcplab.run(scenario, out=tmp_path / "tcplab", trace=["ns2"])
    assert_identical(diff_traces(tmp_path / "tcplab" / "trace.tr", theirs))


@needs_ns
@pytest.mark.parametrize("case", FUZZ_CASES, ids=lambda p: p.stem)
def test_what_a_differential_fuzz_found_matches_ns2(case, tmp_path):
    """Each case once differed from ns-2 (conformance/fuzz-cases/README.md): the packet trace
    and the cwnd trace must now be ns-2's, line for line."""
    theirs = ns2.run_ns2(str(case), str(tmp_path / "ns2"), cwnd=True)
    tcplab.run(case, out=tmp_path / "tcplab", trace=["ns2", "cwnd"])
    assert_identical(diff_traces(str(tmp_path / "tcplab" / "trace.tr"), theirs["trace"]))
    ours = (tmp_path / "tcplab" / "cwnd.tr").read_text().splitlines()
    differ = first_difference(ours, Path(theirs["cwnd"]).read_text().splitlines())
    assert differ is None, "cwnd line {}: tcplab {!r}, ns-2 {!r}".format(differ[0] + 1, *differ[1:])


@needs_ns
def test_a_differential_fuzz_finds_no_disagreement(tmp_path):
    """conformance/difffuzz.py's first 200 scenarios of seed 1 (random topologies, every ns-2
    agent, sink, queue, loss model and trace option the translator knows): each identical to
    ns-2, or skipped for a feature ns-2 lacks."""
    fuzz = subprocess.run([sys.executable, str(REPO / "conformance" / "difffuzz.py"), "--count", "200",
                           "--seed", "1", "--out", str(tmp_path)], capture_output=True, text=True)
    assert fuzz.returncode == 0, fuzz.stdout + fuzz.stderr
    summary = json.loads((tmp_path / "summary-1-0.json").read_text())
    assert summary["identical"] >= 180, summary


DITHERED_CBR = """
name = "dithered-cbr"
duration = "20s"
nodes = ["a", "r", "b"]

[[links]]
from = "a"
to = "r"
bandwidth = "1Mb"
delay = "5ms"
queue = "red"

[[links]]
from = "r"
to = "b"
bandwidth = "500kb"
delay = "10ms"

[[flows]]
name = "cbr"
from = "a"
to = "b"
protocol = "udp"
packet_size = 512
rate = "200kb"
random = true
packets = 300

[[flows]]
name = "cbr-tcp"
from = "a"
to = "b"
protocol = "reno"
app = "cbr"
packet_size = 1000
rate = "100kb"
random = true
packets = 40
start = "1s"

[[actions]]
at = "15s"
flow = "cbr"
do = "start"
"""


@needs_ns
def test_dithered_and_limited_cbr_matches_ns2(tmp_path):
    """CBR's `random_ 1` (each interval dithered by a draw after the send, interleaved with
    RED's draws) and `maxpkts_` (a start after the last packet sends one more), over UDP and
    on a TCP agent, as ns-2 runs the translation."""
    scenario = tmp_path / "dithered.toml"
    scenario.write_text(DITHERED_CBR)
    theirs = ns2.run_ns2(str(scenario), str(tmp_path / "ns2"))["trace"]
    tcplab.run(scenario, out=tmp_path / "tcplab", trace=["ns2"])
    report = diff_traces(str(tmp_path / "tcplab" / "trace.tr"), theirs)
    assert_identical(report)
