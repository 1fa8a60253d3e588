"""Writes the tcplab scenarios of ns-2.35's test-suite-tcpLinux.tcl, one file per test.

Run from anywhere: python conformance/ns2/tcpLinux/generate.py

What the suite (Debian ns2-examples, tcl/test/test-suite-tcpLinux.tcl) sets for every test:
* Agent/TCP: minrto_ 1 (which Agent/TCP/Linux's own class default, 0.2 s, overrides: tcplab
  applies that class's defaults to protocol = "linux"); window_ 30000 (set in run, before the
  agents are made). Agent/TCPSink: SYN_immediate_ack_ false. Queue/RED: bytes_ false,
  queue_in_bytes_ false.
* Two Agent/TCP/Linux flows with TCPSink/Sack1/DelAck sinks, both given the test's congestion
  control by `select_ca` at 0 s: tcp1 s1->s3 (fid 0), its FTP from 0.1 s to 239.999 s; tcp2
  s2->s4 (fid 1), its FTP from 60 s to 160 s. At 240 s both get `set cwnd_ 1` (a last line
  in each cwnd trace) and cleanupAll halts the simulator.
* At 0 s every test also runs `$tcp1 set_ca_default_param linux debug_level 2`. ns-2 registers
  TCP-Linux's globals debug_level, tcp_max_burst and sysctl_tcp_abc (ns-linux-param.c) as
  `int` parameters, but they are `unsigned char`s, laid out in that order in the ns binary's
  data (debug_level 1, tcp_max_burst 3, sysctl_tcp_abc 1 at 0x44e118..0x44e11a of Debian's
  /usr/bin/ns); `set_ca_default_param` stores an int, so writing 2 into debug_level also
  writes 0 into tcp_max_burst and sysctl_tcp_abc. Hence `tcp_max_burst = 0` (a window
  moderated to the flight when recovery ends) and `tcp_abc = 0` (no byte counting) on both
  flows from the start.
* noTraceFiles: no all.tr. The tests write the cwnd_ traces of tcp1 (all.cwnd) and tcp2
  (all.cwnd1); tcplab's cwnd trace holds both, told apart by the sender's address.

Topologies (nodes s1 s2 r1 r2 s3 s4): s1-r1 100Mb 2ms, s2-r1 100Mb 3ms, r1-r2 30Mb 30ms with
limit 100 both ways, s3-r2 100Mb 4ms, s4-r2 100Mb 5ms, DropTail (limit 50) on the access links.
* net2droptail: DropTail on r1-r2.
* net2red: RED on r1-r2 with thresh_ 1, maxthresh_ 100, q_weight_ 0.01, mean_pktsize_ 1500,
  linterm_ 10, setbit_ false.

The tests differ in the network and the congestion control (`[flows.tcp] ca`).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES6, action_toml, flow_toml, knobs_toml, link_toml,  # noqa: E402
                    output_toml, scenario_toml, tables_toml, write_suite)

GLOBAL_TCP = {"minrto": "1s", "window": 30000}
RED = {"bytes": False, "queue_in_bytes": False, "thresh": 1.0, "maxthresh": 100.0,
       "q_weight": 0.01, "mean_pktsize": 1500, "linterm": 10.0, "setbit": False}


def links(net: str) -> str:
    bottleneck = {"queue": "red", "red": RED} if net == "net2red" else {}
    return tables_toml(
        link_toml("s1", "r1", "100Mb", "2ms"), link_toml("s2", "r1", "100Mb", "3ms"),
        link_toml("r1", "r2", "30Mb", "30ms", queue_limit=100, **bottleneck),
        link_toml("s3", "r2", "100Mb", "4ms"), link_toml("s4", "r2", "100Mb", "5ms"))


def scenario(test: str, about: str, net: str, ca: str) -> str:
    tcp = {"ca": ca, "tcp_abc": 0, "tcp_max_burst": 0}
    return scenario_toml(
        "tcpLinux", f"{test}: {about}", test, "240s", NODES6,
        knobs_toml("tcp", GLOBAL_TCP), knobs_toml("tcpsink", {"syn_immediate_ack": False}),
        links(net),
        flow_toml("tcp1", 0, "s1", "s3", "linux", sink="sack1_delack", start="0.1s",
                  stop="239.999s", tcp=tcp),
        flow_toml("tcp2", 1, "s2", "s4", "linux", sink="sack1_delack", start="60s", stop="160s",
                  tcp=tcp),
        action_toml("240s", "tcp1", "set_cwnd", cwnd=1),
        action_toml("240s", "tcp2", "set_cwnd", cwnd=1),
        output_toml(trace=["cwnd"]))


CAS = ["reno", "vegas", "htcp", "bic", "cubic", "hybla", "lp", "compound", "veno", "yeah",
       "illinois", "westwood", "highspeed", "scalable"]
TESTS = {"tcpLinuxBase": ("TCP Linux, base (naive_reno with net2red)", "net2red", "naive_reno")}
for _ca in CAS:
    for _net, _kind in (("net2droptail", "DropTail"), ("net2red", "RED")):
        TESTS[f"tcpLinux{_kind}_{_ca}"] = (f"TCP Linux congestion control: {_ca} with {_net}", _net, _ca)


def tests() -> dict[str, str]:
    return {test: scenario(test, guide, net, ca) for test, (guide, net, ca) in TESTS.items()}


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
