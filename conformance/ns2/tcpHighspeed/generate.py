"""Writes the tcplab scenarios of ns-2.35's test-suite-tcpHighspeed.tcl, one file per test.

Run from anywhere: python conformance/ns2/tcpHighspeed/generate.py

What the suite (Debian ns2-examples, tcl/test/test-suite-tcpHighspeed.tcl) sets for every test:
* Agent/TCP: precisionReduce_ false, rtxcur_init_ 6, minrto_ 1, numdupacksFrac_ 100;
  updated_rttvar_ false (no C++ code reads it); window_ 512 (set in run, before the agents).
* Queue/RED: bytes_ false, queue_in_bytes_ false (the rest ns-2.35's defaults: automatic
  thresholds and weight, gentle_, wait_, linterm_ 10).
* Two Sack1 flows with Sack1 sinks: tcp1 s1->s3 (fid 0) from 0 s, its FTP stopped at 149.999 s;
  tcp2 s2->s4 (fid 1) from 30 s to 80 s. cleanupAll halts the simulator at 150 s.
* noTraceFiles: no all.tr. What the tests write is the cwnd_ trace of tcp1 (all.cwnd) and of
  tcp2 (all.cwnd1); tcplab's cwnd trace (`trace = ["cwnd"]`) holds both, told apart by
  the sender's address (node 0 is s1, node 1 is s2).

Topologies (nodes s1 s2 r1 r2 s3 s4): s1-r1 100Mb 2ms, s2-r1 100Mb 3ms, r1-r2 30Mb 30ms RED,
s3-r2 100Mb 4ms, s4-r2 100Mb 5ms, DropTail (limit 50) on the access links.
* net2a: the RED queue's limit is 50 both ways.
* net2b: limit 200 both ways, and before the links are made `Queue/RED set bottom_ 0, thresh_ 0,
  maxthresh_ 0, q_weight_ 0, adaptive_ 1`: adaptive RED (alpha_ 0.01, beta_ 0.9, interval_
  0.5 s, top_ 0.5 and bottom_ 0, i.e. min(0.01, 80000/bandwidth), ns-2's defaults), with the
  weight 1 - exp(-1/ptc).

The tests differ in the network and in the Agent/TCP knobs their init sets:
windowOption_ 8 (`window_option = 8`, HighSpeed TCP), max_ssthresh_, cwnd_range_, low_window_,
high_window_, high_p_, high_decrease_ (the same names without the trailing underscore).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES6, flow_toml, knobs_toml, link_toml, output_toml,  # noqa: E402
                    scenario_toml, tables_toml, write_suite)

GLOBAL_TCP = {"precision_reduce": False, "rtxcur_init": "6s", "minrto": "1s",
              "numdupacks_frac": 100, "window": 512}

RED = {"bytes": False, "queue_in_bytes": False}
NET2B_RED = dict(RED, bottom=0.0, thresh=0.0, maxthresh=0.0, q_weight=0.0, adaptive=True)


def links(net: str) -> str:
    red, limit = (RED, 50) if net == "net2a" else (NET2B_RED, 200)
    return tables_toml(
        link_toml("s1", "r1", "100Mb", "2ms"), link_toml("s2", "r1", "100Mb", "3ms"),
        link_toml("r1", "r2", "30Mb", "30ms", queue="red", queue_limit=limit, red=red),
        link_toml("s3", "r2", "100Mb", "4ms"), link_toml("s4", "r2", "100Mb", "5ms"))


def scenario(test: str, about: str, net: str, tcp: dict) -> str:
    return scenario_toml(
        "tcpHighspeed", f"{test}: {about}", test, "150s", NODES6,
        knobs_toml("tcp", {**GLOBAL_TCP, **tcp}), links(net),
        flow_toml("tcp1", 0, "s1", "s3", "sack1", sink="sack1", start="0s", stop="149.999s"),
        flow_toml("tcp2", 1, "s2", "s4", "sack1", sink="sack1", start="30s", stop="80s"),
        output_toml(trace=["cwnd"]))


HS = {"window_option": 8}
TESTS = {  # test: (guide, network, Agent/TCP knobs)
    "tcp": ("Sack TCP, bad queue", "net2a", {}),
    "tcpHighspeed": ("TCP with experimental modification for highspeed TCP, bad queue", "net2a", HS),
    "tcp1": ("Sack TCP, good queue", "net2b", {}),
    "tcp1A": ("Sack TCP, good queue, max_ssthresh=100", "net2b", {"max_ssthresh": 100}),
    "tcpHighspeed1": ("Highspeed TCP, good queue, max_ssthresh=100", "net2b",
                      dict(HS, max_ssthresh=100)),
    "tcpHighspeed1A": ("Highspeed TCP, good queue, max_ssthresh=100, efficient version", "net2b",
                       dict(HS, max_ssthresh=100, cwnd_range=50)),
    "tcpHighspeed2": ("Highspeed TCP, low_window_ set to 25", "net2b", dict(HS, low_window=25)),
    "tcpHighspeed3": ("Highspeed TCP, parameters set similar to TCP", "net2b",
                      dict(HS, high_p=0.00000001, high_decrease=0.5)),
    "tcpHighspeed4": ("Highspeed TCP, parameters set conservatively", "net2b",
                      dict(HS, low_window=50, high_p=0.0000001, high_decrease=0.25)),
    "tcpHighspeed5": ("Highspeed TCP, parameters set aggressively", "net2b",
                      dict(HS, low_window=13, high_window=12500, high_p=0.000001,
                           high_decrease=0.1)),
}


def tests() -> dict[str, str]:
    return {test: scenario(test, guide, net, tcp) for test, (guide, net, tcp) in TESTS.items()}


SKIPPED: dict[str, str] = {}


SUITE_TOML = """\
# The tests write no packet trace (noTraceFiles), only the cwnd_ traces of tcp1 (node s1,
# address 0) into all.cwnd and of tcp2 (s2, address 1) into all.cwnd1: compare those.
[cwnd_traces]
"all.cwnd" = 0
"all.cwnd1" = 1
"""


if __name__ == "__main__":
    write_suite(HERE, tests(), SKIPPED)
    (HERE / "suite.toml").write_text(SUITE_TOML)
