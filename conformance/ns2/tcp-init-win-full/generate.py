"""Writes the tcplab scenarios of ns-2.35's test-suite-tcp-init-win-full.tcl (FullTcp's initial
window), one file per test.

Run from anywhere: python conformance/ns2/tcp-init-win-full/generate.py

The suite is test-suite-tcp-init-win.tcl (see conformance/ns2/tcp-init-win/generate.py for its
topologies net6, net7, net8, its run_test, runall_test and second_test bodies, and drop_pkt) with
FullTcp agents: make_tcp is `create-connection-listen`, a FullTcp (Tahoe, Reno, Newreno or
Sack) pair whose k1 end listens. Its own globals: tcpTick_ 0.1, rfc2988_ false, FullTcp
segsize_ 0 (the MSS comes from packetSize_), precisionReduce_ false, rtxcur_init_ 6.0,
useHeaders_ false, windowInit_ 1, singledup_ 0, minrto_ 0, syn_ false, delay_growth_ false; RED
bytes_ false, queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5, maxthresh_ 15, setbit_ true.
Most tests set syn_ true, delay_growth_ true and windowInitOption_ 2 (class-wide) before making
their agents. drop_pkt writes `offset_ n` (the letter), which ns-2 takes as at most 1: the first
packet of fid 0 on r1 -> k1 is dropped, then every 1000th.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (INIT_WIN_NETS, action_toml, flow_toml, knobs_toml, link_toml, output_toml,  # noqa: E402
                    scenario_toml, table_toml, write_suite)

GLOBALS = {"tcp_tick": "100ms", "rfc2988": False, "segsize": 0, "precision_reduce": False,
           "rtxcur_init": "6s", "use_headers": False, "window_init": 1, "singledup": 0,
           "minrto": "0s", "syn": False, "delay_growth": False}
# what most tests set class-wide before making their agents
IW2 = {"syn": True, "delay_growth": True, "window_init_option": 2}
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5.0,
       "maxthresh": 15.0, "setbit": True}
VARIANTS = {"tahoe": "fulltcp_tahoe", "reno": "fulltcp", "newreno": "fulltcp_newreno"}
# run_test: `$ns at 0.0` for ftp2, ftp3, then ftp1
RUN_TEST_STARTS = [action_toml("0s", f, "start") for f in ("tcp2", "tcp3", "tcp1")]
DROPPED_SYN = table_toml("[[losses]]", {"link": "r1->k1", "flows": ["tcp1"], "model": "periodic",
                                        "offset": 1.0, "period": 1000.0})


def scenario(test, about, net, duration, flows, knobs=None, extra=(), red=None):
    nodes, links = INIT_WIN_NETS[net]
    red_link = {"queue": "red", "queue_limit": 25, "red": {**RED, **(red or {})}}
    return scenario_toml(
        "tcp-init-win-full", f"{test}: {about}", test, duration, nodes,
        knobs_toml("tcp", {**GLOBALS, **(knobs or {})}),
        *(link_toml(a, b, bw, d, **(red_link if r else {})) for a, b, bw, d, r in links),
        *flows, *extra, output_toml())


def flow(name, fid, src, protocol, start="0s", **fields):
    return flow_toml(name, fid, src, "k1", protocol, start=start, **fields)


def tests() -> dict:
    out = {}
    for v, proto in VARIANTS.items():
        out[f"{v}1"] = scenario(
            f"{v}1", "initial windows with different packet sizes", "net6", "1s",
            [flow("tcp1", 0, "s1", proto, start=None, packet_size=1000),
             flow("tcp2", 1, "s2", proto, start=None, packet_size=1500),
             flow("tcp3", 2, "s2", proto, start=None, packet_size=2500)],
            knobs=IW2, extra=RUN_TEST_STARTS)
        out[f"{v}2"] = scenario(
            f"{v}2", "static initial windows", "net6", "1s",
            [flow("tcp1", 0, "s1", proto, start=None, tcp={"window_init": 6}),
             flow("tcp2", 1, "s2", proto, start=None, tcp={"syn": True, "delay_growth": True}),
             flow("tcp3", 2, "s2", proto, start=None,
                  tcp={"window_init": 6, "syn": True, "delay_growth": True})],
            extra=RUN_TEST_STARTS)
        out[f"{v}3"] = scenario(
            f"{v}3", "dropped SYN", "net6", "10s", [flow("tcp1", 0, "s1", proto, packet_size=1000)],
            knobs=IW2, extra=[DROPPED_SYN])
        out[f"{v}4"] = scenario(
            f"{v}4", "window after a Fast Retransmit (RED ns1_compat_)", "net7", "10s",
            [flow("tcp1", 0, "s1", proto, start="1s", tcp={"window": 40}),
             flow("tcp2", 1, "s2", proto, start="0s", tcp={"window": 40})],
            knobs=IW2, red={"ns1_compat": True})
    out["tahoe1A"] = scenario(
        "tahoe1A", "initial windows with different segment sizes", "net6", "1s",
        [flow("tcp1", 0, "s1", "fulltcp_tahoe", start=None, tcp={"segsize": 960}),
         flow("tcp2", 1, "s2", "fulltcp_tahoe", start=None, tcp={"segsize": 1460}),
         flow("tcp3", 2, "s2", "fulltcp_tahoe", start=None, tcp={"segsize": 2460})],
        knobs=IW2, extra=RUN_TEST_STARTS)
    for test, size, wio in (("slowLink", 1000, 2), ("slowLink2", 1500, 1)):
        out[test] = scenario(
            test, f"9.6Kb link, {size}-byte packets, windowInitOption_ {wio}", "net8", "30s",
            [flow("tcp1", 0, "s1", "fulltcp_sack", packet_size=size)],
            knobs={**IW2, "window_init_option": wio, "minrto": "1s"})
    return out


def main() -> None:
    write_suite(HERE, tests(), {})


if __name__ == "__main__":
    main()
