"""Writes the tcplab scenarios of ns-2.35's test-suite-tcp-init-win.tcl, one file per test.

Run from anywhere: python conformance/ns2/tcp-init-win/generate.py

The suite (framework misc_simple.tcl, trace-all to all.tr, no TCP header fields) checks TCP's
initial window. Its global knobs are RED's: bytes_ false, queue_in_bytes_ false, q_weight_
0.002, thresh_ 5, maxthresh_ 15, and every topology sets setbit_ true before building its RED
link. Everything else is ns-2.35's default (windowInit_ 2, syn_ true, delay_growth_ true, ...).

Topologies (node ids in creation order; links in creation order; the RED link has limit 25
both ways, the others ns-2's default 50):
  net6: s1 s2 r1 k1; s1-r1 100Mb 5ms, s2-r1 100Mb 5ms, r1-k1 10Mb 100ms RED
  net7: s1 s2 r1 k1; s1-r1 8Mb 5ms,   s2-r1 8Mb 5ms,   r1-k1 800Kb 100ms RED
  net8: r1 k1 s1 s2; s1-s2 1000Mb 0ms, s2-r1 9.6Kb 1ms, r1-k1 800Kb 10ms RED

Test bodies:
  run_test (X1, X2): tcp1 s1->k1 fid 0, tcp2 s2->k1 fid 1, tcp3 s2->k1 fid 2 (created in this
      order), FTPs started at 0.0 in the order ftp2, ftp3, ftp1 (same-time `$ns at` events run
      in scheduling order): three `[[actions]]` start entries in that order, the flows having
      no `start` of their own; cleanupAll at 1.0.
  runall_test (X3, slowLink*, dropped*): tcp1 s1->k1 fid 0, FTP at 0.0.
  second_test (X4): tcp1 s1->k1 fid 0 window 40 from 1.0, tcp2 s2->k1 fid 1 window 40 from
      0.0, cleanupAll at 10.0. X4's init sets `Queue/RED set ns1_compat_ true` before the
      topology is built, so net7's RED link has `ns1_compat = true`.
  dropped*: Agent/TCP windowInit_ 4, windowInitOption_ 1, bugfix_ss_ 0 or 1 (`bugfix_ss`).
  drop_pkt link 0 n: an ErrorModel/Periodic (unit pkt, offset_ n, period_ 1000) in an
      ErrorModule Fid bound to fid 0 on r1->k1. With default_drop_ 0 it drops the n-th packet
      of fid 0 entering the link (1-based), then every 1000th after it: positions n-1,
      n-1+1000, ... counted from 0, which a [[losses]] list expresses exactly.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (INIT_WIN_NETS, action_toml, flow_toml, knobs_toml, link_toml, loss_toml,  # noqa: E402
                    output_toml, scenario_toml, write_suite)

RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5.0,
       "maxthresh": 15.0, "setbit": True}

# Test variant letter -> (tcplab protocol, sink); make_tcp's Sack is TCP/Sack1 + TCPSink/Sack1.
VARIANTS = {"tahoe": "tahoe", "reno": "reno", "newreno": "newreno", "sack": "sack1"}


def periodic_drops(offset: int, runs: int = 10) -> list[str]:
    """`drop_pkt link 0 offset`: ErrorModel/Periodic offset_ n period_ 1000 for tcp1 on r1->k1,
    as drop positions (from 0)."""
    return [loss_toml("r1->k1", ["tcp1"], [offset - 1 + 1000 * k for k in range(runs)])]


def scenario(test, about, net, duration, flows, tcp=None, losses=(), actions=(), red=None):
    nodes, links = INIT_WIN_NETS[net]
    red_link = {"queue": "red", "queue_limit": 25, "red": dict(RED, **(red or {}))}
    return scenario_toml(
        "tcp-init-win", about, test, duration, nodes, knobs_toml("tcp", tcp or {}),
        *(link_toml(a, b, bw, d, **(red_link if r else {})) for a, b, bw, d, r in links),
        *flows, *losses, *actions, output_toml())


# run_test: `$ns at 0.0` for ftp2, ftp3, then ftp1
RUN_TEST_STARTS = [action_toml("0s", f, "start") for f in ("tcp2", "tcp3", "tcp1")]


def flow(name, fid, src, protocol, start="0s", **fields):
    """tcpN src -> k1 (start None: started by an action)."""
    return flow_toml(name, fid, src, "k1", protocol, start=start, **fields)


def tests() -> tuple[dict, dict]:
    out, skipped = {}, {}
    for v, proto in VARIANTS.items():
        # X1: windowInitOption_ 2 (class), packet sizes 1000/1500/2500; ftp2, ftp3, ftp1.
        out[f"{v}1"] = scenario(
            f"{v}1", f"{v}1: initial windows with different packet sizes", "net6", "1s",
            [flow("tcp1", 0, "s1", proto, start=None, packet_size=1000),
             flow("tcp2", 1, "s2", proto, start=None, packet_size=1500),
             flow("tcp3", 2, "s2", proto, start=None, packet_size=2500)],
            tcp={"window_init_option": 2}, actions=RUN_TEST_STARTS)
        # X2: static initial windows, per-agent windowInit_/syn_/delay_growth_.
        out[f"{v}2"] = scenario(
            f"{v}2", f"{v}2: static initial windows", "net6", "1s",
            [flow("tcp1", 0, "s1", proto, start=None,
                  tcp={"window_init": 6, "syn": False, "delay_growth": False}),
             flow("tcp2", 1, "s2", proto, start=None, tcp={"syn": True, "delay_growth": True}),
             flow("tcp3", 2, "s2", proto, start=None,
                  tcp={"window_init": 6, "syn": True, "delay_growth": True})],
            actions=RUN_TEST_STARTS)
        # X3: the SYN (first packet of fid 0 on r1->k1) is dropped.
        out[f"{v}3"] = scenario(
            f"{v}3", f"{v}3: dropped SYN", "net6", "10s",
            [flow("tcp1", 0, "s1", proto, packet_size=1000)],
            tcp={"window_init_option": 2}, losses=periodic_drops(1))
        # X4: `Queue/RED set ns1_compat_ true` before building net7; packetSize_ 1000,
        # windowInitOption_ 2 (class); second_test: tcp1 window 40 from 1.0, tcp2 from 0.0.
        out[f"{v}4"] = scenario(
            f"{v}4", f"{v}4: window after a Fast Retransmit", "net7", "10s",
            [flow("tcp1", 0, "s1", proto, start="1s", tcp={"window": 40}),
             flow("tcp2", 1, "s2", proto, start="0s", tcp={"window": 40})],
            tcp={"window_init_option": 2}, red={"ns1_compat": True})
    # slowLink*: Sack over a 9.6 kb/s link, minrto_ 1 (class-level).
    for test, size, wio in (("slowLink", 1000, 2), ("slowLink1", 1500, 2), ("slowLink2", 1500, 1)):
        out[test] = scenario(
            test, f"{test}: 9.6Kb link, {size}-byte packets, windowInitOption_ {wio}", "net8", "30s",
            [flow("tcp1", 0, "s1", "sack1", packet_size=size)],
            tcp={"window_init_option": wio, "minrto": "1s"})
    # dropped*: Agent/TCP windowInit_ 4, windowInitOption_ 1, bugfix_ss_ 0 or 1.
    for test, proto, offset, bugfix_ss in (
            ("droppedSYN", "newreno", 1, 0), ("droppedSYN1", "newreno", 1, 1),
            ("droppedPKT", "newreno", 2, 0), ("droppedPKT1", "newreno", 2, 1),
            ("droppedPKT2", "sack1", 2, 0), ("droppedPKT3", "sack1", 2, 1)):
        out[test] = scenario(
            test, f"{test}: {proto}, windowInit_ 4, drop packet {offset - 1} of fid 0, "
            f"bugfix_ss_ {bugfix_ss}",
            "net6", "5s", [flow("tcp1", 0, "s1", proto)],
            tcp={"window_init": 4, "window_init_option": 1, "bugfix_ss": bool(bugfix_ss)},
            losses=periodic_drops(offset))
    return out, skipped


def main() -> None:
    write_suite(HERE, *tests())


if __name__ == "__main__":
    main()
