"""Writes the tcplab scenarios of ns-2.35's test-suite-simple-full.tcl (FullTcp), one per test.

Run from anywhere: python conformance/ns2/simple-full/generate.py

What the suite does:
* Globals: Agent/TCP/FullTcp segsize_ 960; Agent/TCP precisionReduce_ false, rtxcur_init_ 6,
  tcpTick_ 0.1, rfc2988_ false, minrto_ 1, useHeaders_ false, singledup_ 0; for net2's RED
  bottleneck bytes_ false, queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5, maxthresh_ 15
  (and net2 sets drop_rand_ true).
* Topologies: net0 (s1-r1, s2-r1 8Mb 5ms; r1-k1 800Kb 100ms, queue limit 6), net1 (10Mb 5ms;
  1.5Mb 100ms, limit 23), net2 (the 6-node RED topology). Tests change delays and queue limits.
* Each connection is `create-connection-listen`: a FullTcp agent at each end, the sink
  listening, one fid; the test sets the source's variables (window_, maxcwnd_, bugFix_,
  overhead_); class-level settings (segsperack_, timerfix_) reach both ends.
* The trace is out.tr (suite.toml says so): `trace-queue` on every link leaving r1 (s1 for
  reno4 and reno4a), until the test's stop time; it opens with a `v testName` line.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, NODES6, Ns2Rng, action_toml, flow_toml, knobs_toml,  # noqa: E402
                    link_toml, output_toml, scenario_toml, tables_toml, write_suite)

GLOBALS = {"segsize": 960, "precision_reduce": False, "rtxcur_init": "6s", "tcp_tick": "100ms",
           "rfc2988": False, "minrto": "1s", "use_headers": False, "singledup": 0}
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5.0, "maxthresh": 15.0,
       "drop_rand": True}
R1_OUT = ["r1->s1", "r1->s2", "r1->k1"]


def net0(s2_delay="5ms", limit=6, reverse_limit=None, access=("8Mb", "5ms"),
         bottleneck=("800kb", "100ms"), s1_delay=None) -> str:
    """net0 (or net1 with other bandwidths): the bottleneck's queue limits r1->k1, k1->r1."""
    return tables_toml(link_toml("s1", "r1", access[0], s1_delay or access[1]),
                       link_toml("s2", "r1", access[0], s2_delay),
                       link_toml("r1", "k1", *bottleneck, queue_limit=limit,
                                 reverse_queue_limit=reverse_limit if reverse_limit != limit else None))


def net1(**fields) -> str:
    return net0(access=("10Mb", "5ms"), bottleneck=("1.5Mb", "100ms"), limit=23, **fields)


def net2() -> str:
    """net2 with the tests' queue limit 29 on r1->r2 (25 back)."""
    return tables_toml(link_toml("s1", "r1", "10Mb", "2ms"), link_toml("s2", "r1", "10Mb", "3ms"),
                       link_toml("r1", "r2", "1.5Mb", "20ms", queue="red", queue_limit=29,
                                 reverse_queue_limit=25, red=RED),
                       link_toml("s3", "r2", "10Mb", "4ms"), link_toml("s4", "r2", "10Mb", "5ms"))


def conn(name, fid, src, dst, protocol, start=None, packets=None, **tcp) -> str:
    return flow_toml(name, fid, src, dst, protocol, start=start, packets=packets, tcp=tcp)


def test(name, about, duration, links, *flows, knobs=None, nodes=NODES4, traced=R1_OUT,
         actions=()) -> str:
    return scenario_toml("simple-full", f"{name}: {about}", name, duration, nodes,
                         knobs_toml("tcp", {**GLOBALS, **(knobs or {})}), links, *flows, *actions,
                         output_toml(trace_links=traced))


def scenarios() -> dict[str, str]:
    tahoe, reno = "fulltcp_tahoe", "fulltcp"
    s = {
        "tahoe1": test("tahoe1", "Tahoe, window 50", "5s", net0(),
                       conn("tcp1", 0, "s1", "k1", tahoe, "0s", window=50)),
        "tahoe2": test("tahoe2", "Tahoe, window 14", "5s", net0(),
                       conn("tcp1", 0, "s1", "k1", tahoe, "1s", window=14)),
        "tahoe3": test("tahoe3", "two Tahoe connections, queue 8", "8s", net0(limit=8),
                       conn("tcp1", 0, "s1", "k1", tahoe, "1s", window=100),
                       conn("tcp2", 1, "s2", "k1", tahoe, "500ms", window=16)),
        "tahoe4": test("tahoe4", "two Tahoe connections, s2 200 ms away", "25s",
                       net0(s2_delay="200ms", limit=11),
                       conn("tcp1", 0, "s1", "k1", tahoe, "0s", window=30),
                       conn("tcp2", 1, "s2", "k1", tahoe, "0s", window=30)),
        "reno1": test("reno1", "Reno, window 14", "5s", net0(),
                      conn("tcp1", 0, "s1", "k1", reno, "1s", window=14)),
        "reno": test("reno", "Reno, window 28, maxcwnd 14", "5s", net0(),
                     conn("tcp1", 0, "s1", "k1", reno, "1s", window=28, max_cwnd=14)),
        "renoA": test("renoA", "three Reno connections from s1, two of 7 packets", "5s",
                      net0(limit=8, reverse_limit=6),
                      conn("tcp1", 0, "s1", "k1", reno, "1s", window=28),
                      conn("tcp2", 1, "s1", "k1", reno, window=4),
                      conn("tcp3", 2, "s1", "k1", reno, window=4),
                      actions=(action_toml("1.2s", "tcp2", "produce", packets=7),
                               action_toml("1.2s", "tcp3", "produce", packets=7))),
        "reno2": test("reno2", "two Reno connections, queue 9", "10s", net0(limit=9, reverse_limit=6),
                      conn("tcp1", 0, "s1", "k1", reno, "1s", window=50),
                      conn("tcp2", 1, "s2", "k1", reno, "1s", window=20)),
        "reno3": test("reno3", "two Reno connections, queue 8", "8s", net0(limit=8),
                      conn("tcp1", 0, "s1", "k1", reno, "1s", window=100),
                      conn("tcp2", 1, "s2", "k1", reno, "500ms", window=16)),
        "delayed": test("delayed", "Tahoe, segsperack_ 2", "4s", net0(),
                        conn("tcp1", 0, "s1", "k1", tahoe, "1s", window=50),
                        knobs={"segsperack": 2}),
        "timers": test("timers", "two Tahoe connections, window 4, 100 ms delayed ACKs", "10s",
                       net0(limit=2, reverse_limit=100),
                       conn("tcp1", 0, "s1", "k1", tahoe, "1s", window=4),
                       conn("tcp2", 1, "s2", "k1", tahoe, "1.3225s", window=4),
                       knobs={"timerfix": False, "segsperack": 2, "interval": "100ms"}),
    }
    for name, maxcwnd_window, duration in (("reno4", 80, "1s"), ("reno4a", 40, "4s")):
        s[name] = test(name, f"Reno over RED, window {maxcwnd_window}, maxcwnd 40", duration, net2(),
                       conn("tcp1", 0, "s1", "r2", reno, "0s", window=maxcwnd_window, max_cwnd=40),
                       knobs={"segsperack": 2}, nodes=NODES6, traced=["s1->r1"])
    for name, bug_fix in (("reno5", False), ("reno5_nobug", None)):
        s[name] = test(name, f"two Reno connections, bugFix_ {'false' if bug_fix is False else 'true'}",
                       "10s", net0(limit=9, reverse_limit=6),
                       conn("tcp1", 0, "s1", "k1", reno, "1s", window=50, bug_fix=bug_fix),
                       conn("tcp2", 1, "s2", "k1", reno, "1.1s", window=20, bug_fix=bug_fix))
    for name, bug_fix, packets in (("no_bug", None, 99), ("bug", False, 100)):
        s[name] = test(name, f"net1, two Tahoe connections, the second {packets} packets", "6s",
                       net1(s1_delay="3ms"),
                       conn("tcp1", 0, "s1", "k1", tahoe, "1s", window=50, bug_fix=bug_fix),
                       conn("tcp2", 1, "s2", "k1", tahoe, window=50, bug_fix=bug_fix),
                       actions=(action_toml("1.75s", "tcp2", "produce", packets=packets),))
    for name, delay, overhead in (("phase", "3ms", None), ("phase1", "9.5ms", None),
                                  ("phase2", "3ms", "20ms")):
        s[name] = test(name, f"two Tahoe connections, s2 {delay} away"
                       + (f", overhead_ {overhead}" if overhead else ""), "25s",
                       net0(s2_delay=delay, limit=16, reverse_limit=100),
                       conn("tcp1", 0, "s1", "k1", tahoe, "5s", window=32, overhead=overhead),
                       conn("tcp2", 1, "s2", "k1", tahoe, "1s", window=32, overhead=overhead))
    # stats1's `Agent/TCP set packetSize_ 100` changes nothing: FullTcp sends segsize_ bytes
    for name in ("stats", "stats1"):
        small = name == "stats1"
        s[name] = test(name, "two Tahoe connections, s2 200 ms away" + (", 10 packets and 1000 bytes"
                                                                       if small else ""),
                       "10.1s", net0(s2_delay="200ms", limit=10),
                       conn("tcp0", 0, "s1", "k1", tahoe, None if small else "1s", window=30),
                       conn("tcp1", 1, "s2", "k1", tahoe, None if small else "1s", window=30),
                       actions=(action_toml("1s", "tcp0", "produce", packets=10),
                                action_toml("1s", "tcp1", "advance_bytes", bytes=1000)) if small else ())
    s["manyflows"] = manyflows()
    # three Telnets, started at 0 in turn: exponential times of mean 1 s, then tcplib's twice
    telnets = [("tcp1", 0, "s1", "1s"), ("tcp2", 1, "s2", "0s"), ("tcp3", 2, "s2", "0s")]
    s["telnet"] = test("telnet", "three Telnet connections (timerfix_ false)", "50s", net0(limit=8),
                       *(flow_toml(n, fid, src, "k1", "fulltcp", app="telnet", interval=interval,
                                   start="0s") for n, fid, src, interval in telnets),
                       knobs={"timerfix": False})
    return s


def manyflows() -> str:
    """Ten Tahoe connections s1 -> k1 (fid 1), each `produce`s uniform(0, 10) packets (the agent
    takes the whole part) at uniform(0, 5) s, both drawn from an unseeded `new RNG`: the
    stream after the default one. (`$ftp stop` at 5 s comes with the end of the run.)"""
    rng = Ns2Rng.stream(1)
    flows, actions = [], []
    for i in range(10):
        packets, start = rng.uniform(0, 10), rng.uniform(0, 5)
        flows.append(conn(f"tcp{i}", 1, "s1", "k1", "fulltcp_tahoe"))
        actions.append(action_toml(repr(start), f"tcp{i}", "produce", packets=int(packets)))
    return test("manyflows", "ten Tahoe connections of random sizes and start times", "5s",
                net0(), *flows, actions=actions)


SKIPPED: dict[str, str] = {}


def main() -> None:
    write_suite(HERE, scenarios(), SKIPPED)
    (HERE / "suite.toml").write_text(
        "# The tests trace the links leaving r1 (s1) into out.tr (trace-queue), not all.tr; its\n"
        "# first line is openTrace's own `v testName X`, not ns-2's tracing.\n"
        "trace = \"out.tr\"\nnot_compared = [\"v testName \"]\n")


if __name__ == "__main__":
    main()
