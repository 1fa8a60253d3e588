"""Writes the tcplab scenarios of ns-2.35's test-suite-simple.tcl, one file per test.

Run from anywhere: python conformance/ns2/simple/generate.py

The suite has its own framework (no trace-all): each test traces the links out of one node
(`traceQueues`: r1, or s1 in reno4 and reno4a) into out.tr, whose first line, the test's name,
the suite writes itself (suite.toml leaves it out of the comparison); openTrace halts the run.
For every test it sets Agent/TCP rtxcur_init_ 6, minrto_ 1, useHeaders_ false, singledup_ 0,
tcpTick_ 0.1 and rfc2988_ false (updated_rttvar_ false is read by no C++ code in ns-2.35);
everything else is ns-2's default (windowInit_ 2, syn_ and delay_growth_ true, ...). Queue/RED:
bytes_ false, queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5, maxthresh_ 15. A test's init
sets class defaults before the topology and the agents exist, so they apply to both; its run
changes links (`$ns delay`, `queue-limit`) after the topology exists, and those are the link
fields below. The queues' summarystats_, printstats, flow monitors and QueueMonitors only
count, and tcpDump, printpkts and the like only read.

Topologies (node ids = creation order; 4nodes: s1 s2 r1 k1; 6nodes: s1 s2 r1 r2 s3 s4):
  net0:  s1-r1, s2-r1 8Mb 5ms; r1-k1 800Kb 100ms DropTail, limit 6 both ways
  net0a: net0 with RED on r1-k1, limit 5 both ways (its `Queue/RED set thresh_ 1000` and
         `maxthresh_ 1000` come after the queues exist and change none)
  net1:  s1-r1, s2-r1 10Mb 5ms; r1-k1 1.5Mb 100ms DropTail, limit 23 both ways
  net2:  s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb 20ms RED limit 25, s3-r2 10Mb 4ms,
         s4-r2 10Mb 5ms; drop_rand_ true
  net3:  s1-r1 100Mb 1ms, s2-r1 100Mb 30ms, r1-r2 10Mb 10ms RED limit 25, s3-r2 100Mb 1ms,
         s4-r2 100Mb 5ms; drop_rand_ true
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, NODES6, flow_toml, knobs_toml, link_toml,  # noqa: E402
                    output_toml, scenario_toml, tables_toml, write_suite)

GLOBAL_TCP = {"rtxcur_init": "6s", "minrto": "1s", "use_headers": False, "singledup": 0,
              "tcp_tick": "100ms", "rfc2988": False}
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5.0,
       "maxthresh": 15.0}


def topology(net: str, red=None, droptail=None, delays=None, limits=None) -> tuple[list, str]:
    """(nodes, links) of `net`: `red` and `droptail` change the knobs of its RED and DropTail
    queues (set on the class, they reach all of them), `delays` a link's
    delay ({(a, b): "3ms"}, both ways), `limits` its queue limits ({(a, b): (a->b, b->a)})."""
    red, droptail, delays, limits = dict(RED, **(red or {})), droptail or {}, delays or {}, limits or {}
    if net in ("net0", "net0a", "net1"):
        access, bottleneck, limit = {"net0": ("8Mb", "5ms"), "net0a": ("8Mb", "5ms"),
                                     "net1": ("10Mb", "5ms")}[net], \
            {"net0": ("800Kb", "100ms"), "net0a": ("800Kb", "100ms"),
             "net1": ("1.5Mb", "100ms")}[net], {"net0": 6, "net0a": 5, "net1": 23}[net]
        nodes = NODES4
        plan = [("s1", "r1", *access, None), ("s2", "r1", *access, None),
                ("r1", "k1", *bottleneck, limit)]
        queue = "red" if net == "net0a" else "droptail"
    else:
        nodes = NODES6
        speeds = {"net2": [("s1", "r1", "10Mb", "2ms"), ("s2", "r1", "10Mb", "3ms"),
                           ("r1", "r2", "1.5Mb", "20ms"), ("s3", "r2", "10Mb", "4ms"),
                           ("s4", "r2", "10Mb", "5ms")],
                  "net3": [("s1", "r1", "100Mb", "1ms"), ("s2", "r1", "100Mb", "30ms"),
                           ("r1", "r2", "10Mb", "10ms"), ("s3", "r2", "100Mb", "1ms"),
                           ("s4", "r2", "100Mb", "5ms")]}[net]
        plan = [(a, b, bw, d, 25 if (a, b) == ("r1", "r2") else None) for a, b, bw, d in speeds]
        queue = "red"
        red = dict(red, drop_rand=True)
    links = []
    for a, b, bw, delay, limit in plan:
        # class defaults: the Queue/DropTail ones reach every DropTail queue
        fields = {"droptail": droptail}
        if limit is not None:
            fields["queue_limit"] = limit
            if queue == "red":
                fields = {"queue": "red", "queue_limit": limit, "red": red}
        if (a, b) in limits:
            fields["queue_limit"], fields["reverse_queue_limit"] = limits[(a, b)]
        links.append(link_toml(a, b, bw, delays.get((a, b), delay), **fields))
    return nodes, tables_toml(*links)


def traced(node: str, nodes: list) -> list:
    """traceQueues: the links out of `node` to its neighbours."""
    neighbours = {"r1": ["s1", "s2", "k1"] if "k1" in nodes else ["s1", "s2", "r2"], "s1": ["r1"]}
    return [f"{node}->{n}" for n in neighbours[node]]


def scenario(test, about, net, duration, flows, tcp=None, actions=(), trace_from="r1", **topo) -> str:
    nodes, links = topology(net, **topo)
    return scenario_toml("simple", f"{test}: {about}", test, duration, nodes,
                         knobs_toml("tcp", dict(GLOBAL_TCP, **(tcp or {}))), links, *flows,
                         *actions, output_toml(trace_links=traced(trace_from, nodes)))


def flow(n, fid, src, protocol, dst="k1", **fields) -> str:
    return flow_toml(f"tcp{n}", fid, src, dst, protocol, **fields)


def tahoe1(test, net, **topo) -> str:
    return scenario(test, f"Tahoe s1->k1 window_ 50 from 0 ({net})", net, "5.0s",
                    [flow(1, 0, "s1", "tahoe", tcp={"window": 50})], **topo)


def two_from_s1_s2(test, about, net, protocol, windows, starts, duration, tcp=None, **topo) -> str:
    """Two FTPs, s1 -> k1 (fid 0) and s2 -> k1 (fid 1)."""
    flows = [flow(i + 1, i, src, protocol, tcp={"window": w}, start=t)
             for i, (src, w, t) in enumerate(zip(("s1", "s2"), windows, starts))]
    return scenario(test, about, net, duration, flows, tcp=tcp, **topo)


def stats1(test, about, net, tcp=None, **topo) -> str:
    """Two Tahoe flows of 100-byte packets (`Agent/TCP set packetSize_ 100` in run), 9 each at
    1 s: `produce 9`, and `send 900`, which adds 900/100 packets to none, the same."""
    flows = [flow(i + 1, i, src, "tahoe", packets=9, start="1.0s", packet_size=100,
                  tcp={"window": 30}) for i, src in enumerate(("s1", "s2"))]
    return scenario(test, about, net, "10.1s", flows, tcp=tcp,
                    delays={("s2", "r1"): "200ms"}, limits={("r1", "k1"): (10, 10)}, **topo)


def phase(test, delay, overheads=None) -> str:
    flows = [flow(i + 1, i, src, "tahoe", start=t,
                  tcp={"window": 32, **({"overhead": overheads[i]} if overheads else {})})
             for i, (src, t) in enumerate((("s1", "5.0s"), ("s2", "1.0s")))]
    about = f"Tahoe s1 from 5 s and s2 from 1 s, window_ 32, s2-r1 {delay}"
    if overheads:
        about += f", overhead_ {overheads[0]} and {overheads[1]}"
    return scenario(test, about, "net0", "25.0s", flows, delays={("s2", "r1"): delay},
                    limits={("r1", "k1"): (16, 100)})


class SecondRng:
    """A second ns-2 generator, `new RNG` in a script: MRG32k3a (ns-2's tools/rng.cc) started
    where the default generator's stream ends (the default, seeded with 1, is the first
    stream; each new RNG takes the next, 2^127 draws on), with ns-2's Tcl `uniform a b`."""

    M1, M2 = 4294967087, 4294944443
    A1P127 = [[2427906178, 3580155704, 949770784], [226153695, 1230515664, 3580155704],
              [1988835001, 986791581, 1230515664]]
    A2P127 = [[1464411153, 277697599, 1610723613], [32183930, 1464411153, 1022607788],
              [2824425944, 32183930, 2093834863]]

    def __init__(self, seed: int = 1):
        def jump(a, m):
            return [float(sum(a[i][j] * seed for j in range(3)) % m) for i in range(3)]
        self.s = jump(self.A1P127, self.M1) + jump(self.A2P127, self.M2)

    def u01(self) -> float:
        """`RNG::U01`, in ns-2's double arithmetic."""
        s, m1, m2 = self.s, float(self.M1), float(self.M2)
        p1 = 1403580.0 * s[1] - 810728.0 * s[0]
        p1 -= int(p1 / m1) * m1
        p1 += m1 if p1 < 0 else 0.0
        s[0], s[1], s[2] = s[1], s[2], p1
        p2 = 527612.0 * s[5] - 1370589.0 * s[3]
        p2 -= int(p2 / m2) * m2
        p2 += m2 if p2 < 0 else 0.0
        s[3], s[4], s[5] = s[4], s[5], p2
        return (p1 - p2 if p1 > p2 else p1 - p2 + m1) * 2.328306549295727688e-10

    def uniform(self, a: float, b: float) -> float:
        """ns-random.tcl's `RNG instproc uniform`: from `next-random`, a 31-bit integer."""
        return a + (b - a) * (int(2147483648 * self.u01()) * 1.0 / 0x7fffffff)


def manyflows() -> str:
    """Ten Tahoe flows s1 -> k1, all fid 1, each `produce numpkts` at a start time, both drawn
    from a `new RNG` (numpkts uniform in [0, 10), which `advance` truncates with atoi; start
    uniform in [0, 5)); each FTP's `stop` at 5 s, the end."""
    rng, flows = SecondRng(), []
    for i in range(10):
        packets, start = rng.uniform(0, 10), rng.uniform(0, 5)
        flows.append(flow(i + 1, 1, "s1", "tahoe", start=start, stop="5s", packets=int(packets)))
    return scenario("manyflows", "ten Tahoe flows of random sizes starting at random times",
                    "net0", "5s", flows)


def tests() -> tuple[dict, dict]:
    out = {
        "tahoe1": tahoe1("tahoe1", "net0"),
        "tahoe1RED": tahoe1("tahoe1RED", "net0a"),
        "tahoe1REDbytes": tahoe1("tahoe1REDbytes", "net0a",
                                 red={"queue_in_bytes": True, "mean_pktsize": 1000}),
        "tahoe1Bytes": tahoe1("tahoe1Bytes", "net0",
                              droptail={"queue_in_bytes": True, "mean_pktsize": 1000}),
        "tahoe2": scenario("tahoe2", "Tahoe window_ 14 from 1 s", "net0", "5.0s",
                           [flow(1, 0, "s1", "tahoe", start="1.0s", tcp={"window": 14})]),
        "tahoe3": two_from_s1_s2("tahoe3", "Tahoe window_ 100 from 1 s, window_ 16 from 0.5 s",
                                 "net0", "tahoe", (100, 16), ("1.0s", "0.5s"), "8.0s",
                                 limits={("r1", "k1"): (8, 8)}),
        "tahoe3RED": two_from_s1_s2("tahoe3RED", "tahoe3 over RED", "net0a", "tahoe", (100, 16),
                                    ("1.0s", "0.5s"), "8.0s", limits={("r1", "k1"): (8, 8)}),
        "tahoe4": two_from_s1_s2("tahoe4", "Tahoe window_ 30 each from 0, s2-r1 200 ms", "net0",
                                 "tahoe", (30, 30), ("0.0s", "0.0s"), "25.0s",
                                 delays={("s2", "r1"): "200ms"}, limits={("r1", "k1"): (11, 11)}),
        "reno1": scenario("reno1", "Reno window_ 14 from 1 s", "net0", "5.0s",
                          [flow(1, 0, "s1", "reno", start="1.0s", tcp={"window": 14})]),
        "reno": scenario("reno", "Reno window_ 28, maxcwnd_ 14, from 1 s", "net0", "5.0s",
                         [flow(1, 0, "s1", "reno", start="1.0s",
                               tcp={"window": 28, "max_cwnd": 14})]),
        "renoA": scenario(
            "renoA", "Reno window_ 28 from 1 s; two Reno window_ 4 `produce 6` at 1.2 s, all "
            "from s1", "net0", "5.0s",
            [flow(1, 0, "s1", "reno", start="1.0s", tcp={"window": 28}),
             flow(2, 1, "s1", "reno", start="1.2s", packets=6, tcp={"window": 4}),
             flow(3, 2, "s1", "reno", start="1.2s", packets=6, tcp={"window": 4})],
            limits={("r1", "k1"): (8, 6)}),
        "reno2": two_from_s1_s2("reno2", "Reno window_ 50 and 20 from 1 s", "net0", "reno",
                                (50, 20), ("1.0s", "1.0s"), "10.0s",
                                limits={("r1", "k1"): (9, 6)}),
        "reno3": two_from_s1_s2("reno3", "Reno window_ 100 from 1 s, window_ 16 from 0.5 s",
                                "net0", "reno", (100, 16), ("1.0s", "0.5s"), "8.0s",
                                limits={("r1", "k1"): (8, 8)}),
        "reno5": two_from_s1_s2("reno5", "Reno window_ 50 from 1 s, 20 from 1.1 s, bugFix_ false",
                                "net0", "reno", (50, 20), ("1.0s", "1.1s"), "10.0s",
                                tcp={"bug_fix": False}, limits={("r1", "k1"): (9, 6)}),
        "reno5_nobug": two_from_s1_s2("reno5_nobug", "reno5 with bugFix_ true", "net0", "reno",
                                      (50, 20), ("1.0s", "1.1s"), "10.0s",
                                      limits={("r1", "k1"): (9, 6)}),
        "no_bug": scenario(
            "no_bug", "Tahoe window_ 50 from 1 s, window_ 50 `produce 99` at 1.75 s", "net1",
            "6.0s", [flow(1, 0, "s1", "tahoe", start="1.0s", tcp={"window": 50}),
                     flow(2, 1, "s2", "tahoe", start="1.75s", packets=99, tcp={"window": 50})],
            delays={("s1", "r1"): "3ms"}),
        "bug": scenario(
            "bug", "no_bug with bugFix_ false on both, `produce 100`", "net1", "6.0s",
            [flow(1, 0, "s1", "tahoe", start="1.0s", tcp={"window": 50, "bug_fix": False}),
             flow(2, 1, "s2", "tahoe", start="1.75s", packets=100,
                  tcp={"window": 50, "bug_fix": False})],
            delays={("s1", "r1"): "3ms"}),
        # `set interval 100ms` sets a Tcl variable no C++ code reads; interval_ stays 100 ms
        "delayed": scenario("delayed", "Tahoe window_ 50 to a DelAck sink, from 1 s", "net0",
                            "4.0s", [flow(1, 0, "s1", "tahoe", sink="delack", start="1.0s",
                                          tcp={"window": 50})]),
        "phase": phase("phase", "3ms"),
        "phase1": phase("phase1", "9.5ms"),
        "phase2": phase("phase2", "3ms", overheads=("0.01s", "0.015s")),
        "timers": scenario(
            "timers", "Tahoe window_ 4 to DelAck sinks (SYN_immediate_ack_ false) from 1 s and "
            "1.3225 s, timerfix_ false", "net0", "10.0s",
            [flow(i + 1, i, src, "tahoe", sink="delack", start=t, tcp={"window": 4},
                  tcpsink={"syn_immediate_ack": False})
             for i, (src, t) in enumerate((("s1", "1.0s"), ("s2", "1.3225s")))],
            tcp={"timerfix": False}, limits={("r1", "k1"): (2, 100)}),
        "reno4": scenario(
            "reno4", "Reno window_ 80, maxcwnd_ 40 s1->r2 to a DelAck sink (SYN_immediate_ack_ "
            "false)", "net2", "2.0s",
            [flow(1, 0, "s1", "reno", dst="r2", sink="delack", tcp={"window": 80, "max_cwnd": 40},
                  tcpsink={"syn_immediate_ack": False})],
            trace_from="s1", limits={("r1", "r2"): (29, 25)}),
        "reno4a": scenario(
            "reno4a", "Reno window_ 40, maxcwnd_ 40 s1->r2 to a DelAck sink (SYN_immediate_ack_ "
            "false)", "net2", "4.0s",
            [flow(1, 0, "s1", "reno", dst="r2", sink="delack", tcp={"window": 40, "max_cwnd": 40},
                  tcpsink={"syn_immediate_ack": False})],
            trace_from="s1", limits={("r1", "r2"): (29, 25)}),
        "stats": two_from_s1_s2("stats", "Tahoe window_ 30 each from 1 s, s2-r1 200 ms", "net0",
                                "tahoe", (30, 30), ("1.0s", "1.0s"), "10.1s",
                                delays={("s2", "r1"): "200ms"}, limits={("r1", "k1"): (10, 10)}),
        # its init sets RED setbit_ true, thresh_ 1, maxthresh_ 0 and Agent/TCP ecn_ 1 first
        "statsECN": two_from_s1_s2("statsECN", "stats over ECN-marking RED (thresh_ 1, maxthresh_ "
                                   "0), ecn_ 1", "net0a", "tahoe", (30, 30), ("1.0s", "1.0s"),
                                   "10.1s", tcp={"ecn": True},
                                   red={"setbit": True, "thresh": 1.0, "maxthresh": 0.0},
                                   delays={("s2", "r1"): "200ms"},
                                   limits={("r1", "k1"): (100, 100)}),
        "stats1": stats1("stats1", "Tahoe, 9 packets of 100 bytes each from s1 and s2", "net0"),
        "stats1Bytes": stats1("stats1Bytes", "stats1 with DropTail in bytes", "net0",
                              droptail={"queue_in_bytes": True}),
        "stats1a": stats1("stats1a", "stats1 over RED", "net0a"),
        "stats1aBytes": stats1("stats1aBytes", "stats1 over RED in bytes", "net0a",
                               red={"queue_in_bytes": True}),
        "statsHeaders": stats1("statsHeaders", "stats1 over RED with useHeaders_ true", "net0a",
                               tcp={"use_headers": True}),
        "stats2": scenario(
            "stats2", "Tahoe window_ 1000 s1->s3 from 0 and s2->s3 from 1 s", "net2", "10.1s",
            [flow(1, 0, "s1", "tahoe", dst="s3", tcp={"window": 1000}),
             flow(2, 1, "s2", "tahoe", dst="s3", start="1.0s", tcp={"window": 1000})]),
    }
    out["manyflows"] = manyflows()
    for test in ("stats3", "stats4"):
        out[test] = scenario(
            test, "Tahoe window_ 10 s1->s3 from 0 and s2->s3 from 0.1 s, tcpTick_ 0.01", "net3",
            "1.1s", [flow(1, 0, "s1", "tahoe", dst="s3", tcp={"window": 10}),
                     flow(2, 1, "s2", "tahoe", dst="s3", start="0.1s", tcp={"window": 10})],
            tcp={"tcp_tick": "10ms"})
    # three Telnets over Reno (timerfix_ false): exponential times of mean 1 s, then tcplib's
    # twice; started at 0 in turn; the bottleneck's queues hold 8
    out["telnet"] = scenario(
        "telnet", "three Telnet connections over Reno (timerfix_ false)", "net0", "50s",
        [flow(n, fid, src, "reno", app="telnet", interval=interval, start="0s")
         for n, fid, src, interval in ((1, 0, "s1", "1s"), (2, 1, "s2", "0s"), (3, 2, "s2", "0s"))],
        tcp={"timerfix": False}, limits={("r1", "k1"): (8, 8)})
    skipped = {"statsTFRC": "Agent/TFRC is not modelled"}
    return out, skipped


def main() -> None:
    write_suite(HERE, *tests())
    (HERE / "suite.toml").write_text(
        "# The tests trace the links out of one node into out.tr (traceQueues), after a first\n"
        "# line of their own with the test's name.\n"
        'trace = "out.tr"\nnot_compared = ["v testName "]\n')


if __name__ == "__main__":
    main()
