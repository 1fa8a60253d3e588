"""Writes the tcplab scenarios of ns-2.35's test-suite-tcp.tcl, one file per test.

Run from anywhere: python conformance/ns2/tcp/generate.py

The suite (framework misc.tcl + topologies.tcl; trace-all to all.tr, no TCP header fields; the
extra per-queue trace of r1's links goes to out.tr and is not compared) sets, for every test:
  Agent/TCP tcpTick_ 0.1, precisionReduce_ false, rtxcur_init_ 6, windowInit_ 1, singledup_ 0,
  minrto_ 0, syn_ false, delay_growth_ false, rfc2988_ true (the default), useHeaders_ false
  (`use_headers = false` with the real packetSize_), updated_rttvar_ false (read by no C++ code
  in ns-2.35: no effect);
  Agent/TCPSink SYN_immediate_ack_ false (`[tcpsink] syn_immediate_ack = false`; read only by
  TCPSink/DelAck);
  Queue/RED bytes_ false, queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5, maxthresh_ 15.
A test's init sets class defaults (timerfix_, rttvar_exp_, timestamps_, T_SRTT_BITS, old_ecn_,
rfc2988_, QOption_ ...) before the agents are made, so they are global `[tcp]` knobs here.

Topologies (node ids = creation order, NodeTopology/4nodes: s1 s2 r1 k1; 6nodes: s1 s2 r1 r2
s3 s4):
  net0: s1-r1 8Mb 5ms, s2-r1 8Mb 5ms, r1-k1 800Kb 100ms DropTail, limit 6 both ways
  net2: s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb 20ms RED (limit 25 both ways),
        s3-r2 10Mb 4ms, s4-r2 10Mb 5ms
  net4: s1-r1 8Mb 5ms, s2-r1 8Mb 5ms, r1-k1 800Kb 10ms DropTail, limit 2 both ways
  net6: s1-r1 8Mb 5ms, s2-r1 8Mb 5ms, r1-k1 800Kb 20ms RED (setbit_ true), limit 25 both ways
  net8: s1-s2 1000Mb 0ms, s2-r1 9.6Kb 1ms, r1-k1 800Kb 10ms RED (setbit_ true), limit 25
The topology is built in TestSuite init, before a test's `run` sets class defaults; the
`Agent/TCP set ...` lines in `run` still precede create-connection, so they apply.
drop_pkts L: an ErrorModel/List (unit pkt) bound to fid 1 in an ErrorModule Fid on r1->k1.
Run length: openTrace T schedules cleanup (halt) at T.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, NODES6, action_toml, flow_toml, four_node_links,  # noqa: E402
                    knobs_toml, link_toml, loss_toml, net2_links, output_toml, scenario_toml,
                    tables_toml, write_suite)

GLOBAL_TCP = {"tcp_tick": "100ms", "precision_reduce": False, "rtxcur_init": "6s",
              "window_init": 1, "singledup": 0, "minrto": "0s", "syn": False,
              "delay_growth": False, "use_headers": False}
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5.0,
       "maxthresh": 15.0}


def links(net: str, **fields) -> str:
    """The topology's links; `fields` change the bottleneck's (r1-k1, or r1-r2 in net2)."""
    red = {"queue": "red", "queue_limit": 25, "red": dict(RED, setbit=True)}
    if net == "net8":
        return tables_toml(link_toml("s1", "s2", "1000Mb", "0ms"),
                           link_toml("s2", "r1", "9.6Kb", "1ms"),
                           link_toml("r1", "k1", "800Kb", "10ms", **{**red, **fields}))
    if net == "net2":
        return net2_links(**{"queue": "red", "queue_limit": 25, "red": RED, **fields})
    delay, queue = {"net0": ("100ms", {"queue_limit": 6}), "net4": ("10ms", {"queue_limit": 2}),
                    "net6": ("20ms", red)}[net]
    return four_node_links(("8Mb", "5ms"), ("800Kb", delay), **{**queue, **fields})


def flow(name, fid, src, protocol, dst="k1", **fields) -> str:
    return flow_toml(name, fid, src, dst, protocol, **fields)


def scenario(test, comment, duration, links_, flows, tcp=None, drops=None, actions=(),
             nodes=NODES4) -> str:
    # drop_pkts binds fid 1, which is tcp1 in every test that drops
    losses = loss_toml("r1->k1", ["tcp1"], drops) if drops else ""
    return scenario_toml("tcp", comment, test, duration, nodes,
                         knobs_toml("tcp", dict(GLOBAL_TCP, **(tcp or {}))),
                         knobs_toml("tcpsink", {"syn_immediate_ack": False}),
                         links_, *flows, losses, *actions, output_toml())


def timers_a(test, comment, tcp=None) -> str:
    """timersA's body: produce 1600 at 0; its producemore at 25.3 s and later fall after the
    halt at 3.5 s."""
    return scenario(
        test, f"{test}: Tahoe s1->k1 fid 1, window_ 5, produce 1600, drops {{2 7 9 10 11}}; {comment}",
        "3.5s", links("net4"), [flow("tcp1", 1, "s1", "tahoe", packets=1600, tcp={"window": 5})],
        tcp=tcp, drops=[2, 7, 9, 10, 11])


def timers_n(test, tick, window, duration, packets=None) -> str:
    """timers1-5: Reno s1->r2 + TCPSink/DelAck (fid 0) on net2, `$ns queue-limit r1 r2 29`
    (r2->r1 stays 25), tcpTick_ set in run before the agent is made."""
    what = f"produce {packets}" if packets else "FTP start"
    return scenario(
        test, f"{test}: Reno s1->r2 DelAck sink, tcpTick_ {tick}, window_ {window}, {what} at 0",
        duration, links("net2", queue_limit=29, reverse_queue_limit=25),
        [flow("tcp1", 0, "s1", "reno", dst="r2", sink="delack", packets=packets,
              tcp={"window": window})],
        tcp={"tcp_tick": tick}, nodes=NODES6)


def run1(test, comment, fid, stoptime, drops=None, tcp=None) -> str:
    """run1: Tahoe s1->k1 with packetSize_ 100 and window_ 25 (class-level, set in run),
    `produce 100` at 0, `producemore 100` at 2.4 and 2.5."""
    more = [action_toml(t, "tcp1", "producemore", packets=100) for t in ("2.4s", "2.5s")]
    return scenario(
        test, comment, stoptime, links("net6"),
        [flow("tcp1", fid, "s1", "tahoe", packets=100, packet_size=100, tcp={"window": 25})],
        tcp=tcp, drops=drops, actions=more)


def ns2_knobs(knobs: dict) -> str:
    """The quiescence knobs of a test as ns-2 names them."""
    names = {"qoption": "QOption_", "control_increase": "control_increase_"}
    return ", ".join(f"{names[k]} 1" for k in knobs) or "QOption_ 0, control_increase_ 0"


def tests() -> tuple[dict, dict]:
    out = {
        # One ECN-capable connection (old_ecn_ 1, class-level) and one without.
        "ecn": scenario(
            "ecn", "ecn: Tahoe s1->k1 window_ 30 ecn_ 1 from 0, Tahoe s2->k1 window_ 20 from 3.0",
            "10s", links("net6"),
            [flow("tcp1", 0, "s1", "tahoe", tcp={"window": 30, "ecn": True}),
             flow("tcp2", 1, "s2", "tahoe", start="3s", tcp={"window": 20, "ecn": False})],
            tcp={"old_ecn": True}),
        # First and second packets dropped: the initial RTO and its backoff.
        "timers": scenario(
            "timers", "timers: Tahoe s2->k1 fid 1, window_ 3, FTP at 0.09, drops {0 1}", "25s",
            links("net4"), [flow("tcp1", 1, "s2", "tahoe", start="0.09s", tcp={"window": 3})],
            drops=[0, 1]),
        "timersA": timers_a("timersA", "timerfix_ false", {"timerfix": False}),
        "timersAfix": timers_a("timersAfix", "timerfix_ true"),
        "timersA1": timers_a("timersA1", "rttvar_exp_ 3, timerfix_ false",
                             {"rttvar_exp": 3, "timerfix": False}),
        "timersA2": timers_a("timersA2", "timestamps_ true, tcpTick_ 0.001, timerfix_ false",
                             {"timestamps": True, "tcp_tick": "1ms", "timerfix": False}),
        "timersA3": timers_a("timersA3", "timestamps_, tcpTick_ 0.001, T_SRTT_BITS 5, "
                             "T_RTTVAR_BITS 4, timerfix_ false",
                             {"timestamps": True, "tcp_tick": "1ms", "srtt_bits": 5,
                              "rttvar_bits": 4, "timerfix": False}),
        "timers1": timers_n("timers1", "100ms", 40, "4s", packets=180),
        "timers2": timers_n("timers2", "500ms", 40, "4s", packets=180),
        "timers3": timers_n("timers3", "1ms", 40, "4s", packets=180),
        "timers4": timers_n("timers4", "1ms", 10, "2s"),
        "timers5": timers_n("timers5", "1ms", 2, "2s"),
        # RTO backoff up to maxrto_ 60 s: window_ 1, packets 10..19 dropped.
        "timers_backoffs": scenario(
            "timers_backoffs", "timers_backoffs: Tahoe s1->k1 fid 1, window_ 1, produce 30, drops 10..19",
            "400s", links("net6"),
            [flow("tcp1", 1, "s1", "tahoe", packets=30, tcp={"window": 1})],
            drops=list(range(10, 20))),
        # net0 with `$ns delay s2 r1 200ms` (both ways) and queue-limit 10 on r1-k1 (both ways).
        "stats1": scenario(
            "stats1", "stats1: Reno s1->k1 window_ 30 and Tahoe s2->k1 window_ 3, both from 1.0",
            "10.1s", tables_toml(link_toml("s1", "r1", "8Mb", "5ms"),
                                 link_toml("s2", "r1", "8Mb", "200ms"),
                                 link_toml("r1", "k1", "800Kb", "100ms", queue_limit=10)),
            [flow("tcp1", 0, "s1", "reno", start="1s", tcp={"window": 30}),
             flow("tcp2", 1, "s2", "tahoe", start="1s", tcp={"window": 3})]),
        # QOption_ 0 is ns-2's default.
        "quiescent_100ms": run1("quiescent_100ms", "quiescent_100ms: Tahoe after a quiescent "
                                "period, QOption_ 0", 0, "30.1s"),
        "quiescentB": run1("quiescentB", "quiescentB: Tahoe, lossy r1->k1 drops {2} of fid 1, "
                           "QOption_ 0", 1, "3s", drops=[2]),
        # Class-level syn_ true, delay_growth_ true, windowInitOption_ 2, minrto_ 1 in run.
        "dialup": scenario(
            "dialup", "dialup: Sack1 s1->k1, 1500-byte packets over 9.6 kb/s", "30.01s",
            links("net8"), [flow("tcp1", 0, "s1", "sack1", packet_size=1500)],
            tcp={"syn": True, "delay_growth": True, "window_init_option": 2, "minrto": "1s"}),
        "dialup1": scenario(
            "dialup1", "dialup1: dialup with rfc2988_ false", "30.01s",
            links("net8"), [flow("tcp1", 0, "s1", "sack1", packet_size=1500)],
            tcp={"syn": True, "delay_growth": True, "window_init_option": 2, "minrto": "1s",
                 "rfc2988": False}),
    }
    # QOption_ 1 (class-level) in quiescentB_qoption's init; the same run as quiescentB.
    out["quiescentB_qoption"] = run1("quiescentB_qoption", "quiescentB_qoption: Tahoe, lossy r1->k1 "
                                     "drops {2} of fid 1, QOption_ 1", 1, "3s", drops=[2],
                                     tcp={"qoption": True})
    # quiescent_100ms's run with QOption_ 1, control_increase_ 1, EnblRTTCtr_ 0 (fine) or 1
    # (coarse), and tcpTick_ 0.1 (the suite's), 0.001 or 0.5, all class-level in init.
    for tick, tick_s in (("100ms", "100ms"), ("1ms", "1ms"), ("500ms", "500ms")):
        for grain, counter in (("fine", False), ("coarse", True)):
            test = f"quiescent_{tick}_{grain}"
            out[test] = run1(test, f"{test}: Tahoe after a quiescent period, QOption_ 1, "
                             f"control_increase_ 1, EnblRTTCtr_ {int(counter)}, tcpTick_ {tick}", 0,
                             "30.1s", tcp={"qoption": True, "control_increase": True,
                                           "rtt_counter": counter, "tcp_tick": tick_s})
    # underutilized_100ms's run (run2): a Telnet source on a window_ 100 agent with packetSize_
    # 100, interval_ 0.0005, 0.01 from 0.045 s, 0.0005 again from 2.2 s, stopped at 2.5 s.
    for test, protocol, sink, knobs in (
            ("underutilized_100ms", "tahoe", None, {}),
            ("underutilized_100ms_control", "tahoe", None, {"control_increase": True}),
            ("underutilized_100ms_control_Q", "tahoe", None,
             {"qoption": True, "control_increase": True}),
            ("underutilized_100ms_Q", "tahoe", None, {"qoption": True}),
            ("underutilized_100ms_control_Reno", "reno", None, {"control_increase": True}),
            # the suite runs TCP/Reno for its "Newreno" test too
            ("underutilized_100ms_control_Newreno", "reno", None, {"control_increase": True}),
            ("underutilized_100ms_control_Sack", "sack1", "sack1", {"control_increase": True})):
        out[test] = scenario(
            test, f"{test}: {protocol} s1->k1 fid 0 window_ 100, packetSize_ 100, Telnet "
            f"interval_ 0.0005 (0.01 from 0.045 s to 2.2 s), stop at 2.5 s; {ns2_knobs(knobs)}",
            "3s", links("net6"),
            [flow("tcp1", 0, "s1", protocol, sink=sink, app="telnet", interval=0.0005,
                  packet_size=100, tcp={"window": 100})],
            tcp=knobs,
            actions=[action_toml("0.045s", "tcp1", "set_interval", interval=0.01),
                     action_toml("2.2s", "tcp1", "set_interval", interval=0.0005),
                     action_toml("2.5s", "tcp1", "stop")])
    skipped = {}
    return out, skipped


def main() -> None:
    write_suite(HERE, *tests())


if __name__ == "__main__":
    main()
