"""Writes the tcplab scenarios of ns-2.35's test-suite-sack.tcl, one file per test.

Run from anywhere: python conformance/ns2/sack/generate.py

The suite (Debian ns2-examples, tcl/test/test-suite-sack.tcl, framework misc_simple.tcl) runs
one or two Agent/TCP/Sack1 -> Agent/TCPSink/Sack1 connections driven by FTP over one of four
topologies, and traces every link (`trace-all`, no TCP header fields) until the test calls
cleanupAll. Suite-wide settings: `Agent/TCP set minrto_ 1`, and for the RED bottleneck of net2
`Queue/RED set bytes_ false, queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5, maxthresh_ 15`.
Agents are made with `create-connection TCP/Sack1 src TCPSink/Sack1 dst fid`, tcp1 with fid 0
and tcp2 with fid 1. Class-level knobs a test sets (`Agent/TCP set maxburst_ 4`,
`Agent/TCP set windowInit_ 1`) apply to every agent it creates.

ns-2 `queue-limit` is per direction. Where a test gives the two directions of a link different
limits (sackB2: r1->k1 9, k1->r1 6; sackB4/B4a: r1->r2 29, r2->r1 25) the scenario sets
`queue_limit` (from->to) and `reverse_queue_limit` (to->from).

FalsePipe and FalsePipe1 (support.tcl) call June01defaults (windowInit_ 2, singledup_ 1,
minrto_ 1, syn_ true, delay_growth_ true: all tcplab's defaults but minrto_, which the suite
sets anyway) and `$ns eventtrace-all` (`[output] events = true`), and put ErrorModule Fid +
ErrorModel/List with delay_pkt_ true, delay_ D on r1->r2 for fid 1, delaying packets 7-10
(`action = "delay"`). FalsePipe1 then adds a second ErrorModule dropping packet 7 of fid 1:
the later module sits at the head of the link, so it is listed after the delay module.
sack_dupacks1 is sack_dupacks with `Agent/TCP set numdupacksFrac_ 4`.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, NODES6, flow_toml, knobs_toml, link_toml, loss_toml,  # noqa: E402
                    output_toml, scenario_toml, write_suite)

# ---- topologies (Topology/netN in the suite): node order gives ns-2's node ids -------------
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5.0, "maxthresh": 15.0}
TOPOLOGIES = {
    # name: (nodes, [(from, to, bandwidth, delay, queue_limit or None, red?)])
    "net0": (NODES4,
             [("s1", "r1", "8Mb", "5ms", None, False),
              ("s2", "r1", "8Mb", "5ms", None, False),
              ("r1", "k1", "800kb", "100ms", 6, False)]),
    "net1": (NODES4,
             [("s1", "r1", "10Mb", "5ms", None, False),
              ("s2", "r1", "10Mb", "5ms", None, False),
              ("r1", "k1", "1.5Mb", "100ms", 23, False)]),
    "net2": (NODES6,
             [("s1", "r1", "10Mb", "2ms", None, False),
              ("s2", "r1", "10Mb", "3ms", None, False),
              ("r1", "r2", "1.5Mb", "20ms", 25, True),
              ("s3", "r2", "10Mb", "4ms", None, False),
              ("s4", "r2", "10Mb", "5ms", None, False)]),
    "net3": (NODES6,
             [("s1", "r1", "100Mb", "1ms", None, False),
              ("s2", "r1", "100Mb", "1ms", None, False),
              ("r1", "r2", "10Mb", "200ms", None, True),
              ("s3", "r2", "100Mb", "1ms", None, False),
              ("s4", "r2", "100Mb", "1ms", None, False)]),
    "net4": (NODES4,
             [("s1", "r1", "10Mb", "5ms", None, False),
              ("s2", "r1", "10Mb", "5ms", None, False),
              ("r1", "k1", "1.5Mb", "20ms", 25, False)]),
}


def flow(name, fid, src, dst, window, start, packets=None, bug_fix=None):
    """A Sack1 -> TCPSink/Sack1 connection (FTP from `start`, or `produce packets`)."""
    return flow_toml(name, fid, src, dst, "sack1", sink="sack1", start=f"{start}s",
                     packets=packets, tcp={"window": window, "bug_fix": bug_fix})


# ---- the tests ---------------------------------------------------------------------------
# test: dict(net, duration (cleanupAll time), flows, class-level tcp knobs, link changes)
# `links` overrides (bandwidth, delay, queue_limit) of a topology link, keyed by "a-b";
# `reverse` gives a link's b->a queue limit where it differs; `losses` are [[losses]] tables.
TESTS = {
    "sack1": dict(net="net0", duration=5, flows=[flow("tcp1", 0, "s1", "k1", 14, 1.0)]),
    "sack1z": dict(net="net0", duration=5, tcp={"maxburst": 4},
                   flows=[flow("tcp1", 0, "s1", "k1", 14, 0.0)]),
    "sack1a": dict(net="net0", duration=5, flows=[flow("tcp1", 0, "s1", "k1", 20, 0.0)]),
    "sack1aa": dict(net="net0", duration=5, tcp={"maxburst": 4},
                    flows=[flow("tcp1", 0, "s1", "k1", 20, 0.0)]),
    "sack1b": dict(net="net0", duration=5, flows=[flow("tcp1", 0, "s1", "k1", 26, 0.0)]),
    "sack1c": dict(net="net0", duration=5, flows=[flow("tcp1", 0, "s1", "k1", 27, 0.0)]),
    # queue-limit 8 on both directions of r1-k1; tcp2 starts first
    "sack3": dict(net="net0", duration=4, links={"r1-k1": (None, None, 8)},
                  flows=[flow("tcp1", 0, "s1", "k1", 100, 1.0, bug_fix=False),
                         flow("tcp2", 1, "s2", "k1", 16, 0.5, bug_fix=False)]),
    # `$ns delay s1 r1 3ms` both ways; tcp2 is `$ftp2 produce 100` at 1.75
    "sack5": dict(net="net1", duration=6, links={"s1-r1": (None, "3ms", None)},
                  flows=[flow("tcp1", 0, "s1", "k1", 50, 1.0, bug_fix=False),
                         flow("tcp2", 1, "s2", "k1", 50, 1.75, packets=100, bug_fix=False)]),
    "sack5a": dict(net="net1", duration=6, tcp={"maxburst": 4}, links={"s1-r1": (None, "3ms", None)},
                   flows=[flow("tcp1", 0, "s1", "k1", 50, 1.0, bug_fix=False),
                          flow("tcp2", 1, "s2", "k1", 50, 1.75, packets=100, bug_fix=False)]),
    # Agent/TCP set windowInit_ 1 in init; queue-limit r1->k1 9 (k1->r1 stays 6)
    "sackB2": dict(net="net0", duration=8, tcp={"window_init": 1}, links={"r1-k1": (None, None, 9)},
                   reverse={"r1-k1": 6},
                   flows=[flow("tcp1", 0, "s1", "k1", 50, 1.0),
                          flow("tcp2", 1, "s2", "k1", 20, 1.0)]),
    # queue-limit r1->r2 29 (r2->r1 stays 25)
    "sackB4": dict(net="net2", duration=2, links={"r1-r2": (None, None, 29)}, reverse={"r1-r2": 25},
                   flows=[flow("tcp1", 0, "s1", "r2", 40, 0.0)]),
    "sackB4a": dict(net="net2", duration=2, tcp={"maxburst": 4}, links={"r1-r2": (None, None, 29)},
                    reverse={"r1-r2": 25},
                    flows=[flow("tcp1", 0, "s1", "r2", 40, 0.0)]),
    "sack_dupacks": dict(net="net4", duration=3, flows=[flow("tcp1", 0, "s1", "k1", 200, 0.1)]),
    "sack_dupacks1": dict(net="net4", duration=3, tcp={"numdupacks_frac": 4},
                          flows=[flow("tcp1", 0, "s1", "k1", 200, 0.1)]),
    "FalsePipe": dict(net="net3", duration=3, events=True,
                      flows=[flow("tcp1", 1, "s1", "s3", 8, 0.0)],
                      losses=[dict(link="r1->r2", flows=["tcp1"], packets=[7, 8, 9, 10],
                                   action="delay", delay="100ms")]),
    "FalsePipe1": dict(net="net3", duration=3, events=True,
                       flows=[flow("tcp1", 1, "s1", "s3", 20, 0.0)],
                       losses=[dict(link="r1->r2", flows=["tcp1"], packets=[7, 8, 9, 10],
                                    action="delay", delay="500ms"),
                               dict(link="r1->r2", flows=["tcp1"], packets=[7])]),
    # The test adds a second duplex-link r1-k1 (100Mb, 5ms, limit 4 both ways); ns-2 routes over
    # the newer link and the old one stays idle, so the scenario just has the new link.
    # `$ftp1 send 21000` at 0.01 = 21 packets (TcpAgent::sendmsg rounds bytes up to packets).
    "sack_finiteflow": dict(net="net4", duration=3, links={"r1-k1": ("100Mb", "5ms", 4)},
                            flows=[flow("tcp1", 0, "r1", "k1", 200, 0.01, packets=21)]),
}

SKIPPED: dict[str, str] = {}


def scenario(test, t):
    nodes, links = TOPOLOGIES[t["net"]]
    tables = [knobs_toml("tcp", {"minrto": "1s", **t.get("tcp", {})})]
    for a, b, bw, delay, limit, red in links:
        bw2, delay2, limit2 = t.get("links", {}).get(f"{a}-{b}", (None, None, None))
        tables.append(link_toml(a, b, bw2 or bw, delay2 or delay, queue_limit=limit2 or limit,
                                reverse_queue_limit=t.get("reverse", {}).get(f"{a}-{b}"),
                                queue="red" if red else None, red=RED if red else {}))
    tables += t["flows"]
    tables += [loss_toml(**loss) for loss in t.get("losses", [])]
    return scenario_toml("sack", f"{test} (topology {t['net']})", test, f"{t['duration']}s", nodes,
                         *tables, output_toml(events=t.get("events")))


def main() -> None:
    write_suite(HERE, {test: scenario(test, t) for test, t in TESTS.items()}, SKIPPED)


if __name__ == "__main__":
    main()
